/*
 * The helpers the checks' Tests share (checks_fx.h): the message and status
 * checks and the call that runs a bad input with a host and a cl_mem
 * output.
 */
#define _POSIX_C_SOURCE 200809L

#include "checks_fx.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gather_case.h"

bool has_sub(const char *msg, const char *alts) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", alts);
  char *save = NULL;
  for (char *p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save))
    if (tu_contains_ci(msg, p))
      return true;
  return false;
}

static void check_message(const char *label, const char *variant,
                          const char *msg, const expect *e) {
  cr_expect(msg[0] != '\0', "%s (%s): empty clg_last_error()", label, variant);
  for (int i = 0; i < 6 && e->subs[i]; ++i)
    cr_expect(has_sub(msg, e->subs[i]),
              "%s (%s): message lacks \"%s\": \"%s\"", label, variant,
              e->subs[i], msg);
  for (int i = 0; i < e->nints; ++i)
    cr_expect(tu_contains_int(msg, e->ints[i]),
              "%s (%s): message lacks the number %" PRId64 ": \"%s\"", label,
              variant, e->ints[i], msg);
}

static void check_status(const char *label, const char *variant,
                         clg_status got, const expect *e, const char *msg) {
  bool ok = got == e->status || (e->alt != CLG_SUCCESS && got == e->alt);
  cr_expect(ok, "%s (%s): want %s (%d), got %s (%d): \"%s\"", label, variant,
            clg_status_string(e->status), (int)e->status,
            clg_status_string(got), (int)got, msg);
}

/* Calls clg_gather with each requested output variant and checks status,
 * message, untouched output, no event, and a working context after. */
void check_error_wl(const char *label, clg_context *ctx,
                    const clg_tensor *data, const clg_tensor *indices,
                    int64_t axis, const out_spec *o, cl_uint nev,
                    const cl_event *wl, expect e) {
  char msg[2048];
  if (!o) {
    cl_event ev = NULL;
    clg_status st =
        clg_gather(ctx, data, indices, axis, NULL, NULL, nev, wl, &ev);
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    check_status(label, "no output", st, &e, msg);
    check_message(label, "no output", msg, &e);
    cr_expect(ev == NULL, "%s: an event was returned on error", label);
    gc_assert_context_works(label);
    return;
  }
  unsigned variants = o->variants ? o->variants : 3u;
  size_t need = (size_t)0;
  {
    int64_t n = ref_numel(o->rank > 0 ? o->rank : 0, o->shape);
    size_t es = clg_dtype_size(o->dtype);
    if (n > 0 && n < (int64_t)1 << 20)
      need = (size_t)n * (es ? es : 1);
  }
  size_t alloc = o->alloc ? o->alloc : (need ? need : 1);
  for (int v = 0; v < 2; ++v) {
    if (!((variants >> v) & 1))
      continue;
    const char *vname = v ? "cl_mem output" : "host output";
    unsigned char *img = malloc(alloc + o->offset);
    cr_assert(img != NULL);
    memset(img, (int)TU_SENTINEL, alloc + o->offset);
    cl_mem buf = NULL;
    clg_tensor out;
    if (v) {
      buf = tu_buffer_create(alloc + o->offset, img);
      out = clg_tensor_buffer(o->dtype, o->rank, o->shape, buf, o->offset);
    } else {
      out = clg_tensor_host(o->dtype, o->rank, o->shape,
                            o->host_null ? NULL : img);
    }
    cl_event ev = NULL;
    clg_status st =
        clg_gather(ctx, data, indices, axis, &out, NULL, nev, wl, &ev);
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    check_status(label, vname, st, &e, msg);
    check_message(label, vname, msg, &e);
    cr_expect(ev == NULL, "%s (%s): an event was returned on error", label,
              vname);
    if (ev)
      clReleaseEvent(ev);
    if (ctx) {
      cl_command_queue q = clg_context_queue(ctx);
      cr_assert(q != NULL);
      tu_cl_check(clFinish(q), "clFinish");
    }
    unsigned char *back = malloc(alloc + o->offset);
    cr_assert(back != NULL);
    if (v)
      tu_buffer_read(buf, 0, alloc + o->offset, back);
    else
      memcpy(back, img, alloc + o->offset);
    memset(img, (int)TU_SENTINEL, alloc + o->offset);
    ptrdiff_t d = tu_first_diff(back, img, alloc + o->offset);
    cr_expect(d < 0, "%s (%s): output byte %td changed on error", label, vname,
              d);
    free(back);
    free(img);
    if (buf)
      clReleaseMemObject(buf);
  }
  gc_assert_context_works(label);
}

void check_error(const char *label, clg_context *ctx, const clg_tensor *data,
                 const clg_tensor *indices, int64_t axis, const out_spec *o,
                 expect e) {
  check_error_wl(label, ctx, data, indices, axis, o, 0, NULL, e);
}

out_spec out_of(clg_dtype dt, int32_t rank, const int64_t *shape) {
  out_spec o;
  memset(&o, 0, sizeof o);
  o.dtype = dt;
  o.rank = rank;
  for (int32_t i = 0; i < rank && i < CLG_MAX_RANK; ++i)
    o.shape[i] = shape[i];
  return o;
}

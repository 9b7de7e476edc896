/*
 * clgather selftest: the bad-input catalogue. Each entry breaks one thing
 * in a valid call of an operator and names the clg_status the library must
 * return; it runs with host operands and with cl_mem operands (entries
 * about index values also asynchronously checked, where the device's
 * validation kernel finds the fault and clg_outcome_wait() reports it),
 * and passes when the status is the one expected and the output (a
 * sentinel pattern with guard bytes around it) is byte for byte unchanged.
 *
 * The catalogues are the case descriptions' (tools/cases/gather_bad.c,
 * scatter_elements_bad.c, embedding_bag_bad.c,
 * gather_block_quantized_bad.c: their bases, their entries), which the
 * test suites run too; each entry's message is also checked for what it
 * must say.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/gather.h"
#include "cases/scatter.h"
#include "selftest.h"

/* Room for a gather's tensors. */
typedef struct bad_bufs {
  unsigned char data[256], idx[256], init[512], got[512];
} bad_bufs;

/* Records one run of a bad input: passed when the harness ran it (rc 0),
 * the status is `want`, the message (why) says what it must (`named`) and
 * the output's ob bytes are as they were (init). */
static void record(st_run *r, const char *name, const char *desc, int rc,
                   clg_status st, clg_status want, bool named,
                   const char *needles, const char *why, const void *got,
                   const void *init, size_t ob) {
  char diff[160];
  if (rc < 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    st_record(r, false, "bad input '%s': %s: %s", name, desc, why);
  } else if (rc > 0)
    st_record(r, false, "bad input '%s': %s: %s", name, desc, why);
  else if (st != want)
    st_record(r, false, "bad input '%s': %s: returned %s, expected %s%s%s",
              name, desc, clg_status_string(st), clg_status_string(want),
              why[0] ? ": " : "", why);
  else if (!named)
    st_record(r, false, "bad input '%s': %s: the message does not say "
              "what it must (%s): %s", name, desc, needles, why);
  else if (st_first_diff(got, init, ob, 1, diff, sizeof diff))
    st_record(r, false, "bad input '%s': %s: refused, but the output "
              "changed: %s", name, desc, diff);
  else
    st_record(r, true, "%s", name);
}

/* ------------------------------------------------------------ the gathers */

/* The catalogue of tools/cases/gather_bad.c (the test suite's too): each
 * entry's status, the words of its message, the output as it was. */
static void gather_bad_cases(st_run *r, bad_bufs *b) {
  for (size_t k = 0; k < gather_bad_count; ++k) {
    const gather_bad *e = &gather_bad_inputs[k];
    int nsto = gather_bad_in_values(e) ? 3 : 2;
    for (int sto = 0; sto < nsto; ++sto) {
      if (r->quick && sto != (int)(k % (size_t)nsto))
        continue;
      gather_bad_call g;
      gather_bad_make(e, &g);
      st_call c;
      memset(&c, 0, sizeof c);
      c.params = g.p;
      c.dtype = g.dtype[GATHER_DATA];
      c.itype = g.dtype[GATHER_INDICES];
      c.otype = g.dtype[GATHER_OUTPUT];
      c.dr = g.rank[GATHER_DATA];
      c.ir = g.rank[GATHER_INDICES];
      c.orank = g.rank[GATHER_OUTPUT];
      memcpy(c.dshape, g.shape[GATHER_DATA], sizeof c.dshape);
      memcpy(c.ishape, g.shape[GATHER_INDICES], sizeof c.ishape);
      memcpy(c.oshape, g.shape[GATHER_OUTPUT], sizeof c.oshape);
      memcpy(b->data, g.data, sizeof g.data);
      memcpy(b->idx, g.indices, sizeof g.indices);
      c.data = b->data;
      c.indices = b->idx;
      c.call = (case_call)sto;
      size_t ob = st_nbytes(c.otype, c.orank, c.oshape);
      if (ob > sizeof b->init)
        ob = 0; /* an output the call refuses before its size matters */
      memset(b->init, 0xA5, ob);
      char desc[480], why[512];
      st_describe(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_exec(r, &c, b->init, ob, b->got, &st, why, sizeof why);
      record(r, e->name, desc, rc, st, e->want,
             case_message_has(why, e->needles), e->needles, why, b->got,
             b->init, ob);
    }
  }
}

/* ------------------------------------------------------------ the scatters */

/* The catalogue of tools/cases/scatter_elements_bad.c (the test suite's
 * too): each entry's status, the words of its message, the output as it
 * was. */
static void scatter_bad_cases(st_run *r) {
  scatter_bad_call *g = malloc(sizeof *g);
  unsigned char *init = malloc(SCATTER_BAD_CAP), *got = malloc(SCATTER_BAD_CAP);
  if (g == NULL || init == NULL || got == NULL) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    goto done;
  }
  for (size_t k = 0; k < scatter_bad_count; ++k) {
    const scatter_bad *e = &scatter_bad_inputs[k];
    int nsto = scatter_bad_in_values(e) ? 3 : 2;
    for (int sto = 0; sto < nsto; ++sto) {
      if (r->quick && sto != (int)(k % (size_t)nsto))
        continue;
      scatter_bad_make(e, g);
      st_call c;
      memset(&c, 0, sizeof c);
      c.scatter = true;
      c.params = g->p;
      c.sp = g->sp; /* a NULL one means the same: none, repeats an error */
      c.dtype = g->dtype[SCATTER_DATA];
      c.itype = g->dtype[SCATTER_INDICES];
      c.utype = g->dtype[SCATTER_UPDATES];
      c.otype = g->dtype[SCATTER_OUTPUT];
      c.dr = g->rank[SCATTER_DATA];
      c.ir = g->rank[SCATTER_INDICES];
      c.ur = g->rank[SCATTER_UPDATES];
      c.orank = g->rank[SCATTER_OUTPUT];
      memcpy(c.dshape, g->shape[SCATTER_DATA], sizeof c.dshape);
      memcpy(c.ishape, g->shape[SCATTER_INDICES], sizeof c.ishape);
      memcpy(c.ushape, g->shape[SCATTER_UPDATES], sizeof c.ushape);
      memcpy(c.oshape, g->shape[SCATTER_OUTPUT], sizeof c.oshape);
      c.data = g->data;
      c.indices = g->indices;
      c.updates = g->updates;
      c.call = (case_call)sto;
      size_t ob = st_nbytes(c.otype, c.orank, c.oshape);
      if (ob > SCATTER_BAD_CAP)
        ob = 0; /* an output the call refuses before its size matters */
      memset(init, 0xA5, ob);
      char desc[480], why[512];
      st_describe(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_exec(r, &c, init, ob, got, &st, why, sizeof why);
      record(r, e->name, desc, rc, st, e->want,
             case_message_has(why, e->needles), e->needles, why, got, init,
             ob);
    }
  }
done:
  free(g);
  free(init);
  free(got);
}

/* ------------------------------------------------------------ EmbeddingBag */

/* The catalogue of tools/cases/embedding_bag_bad.c (the test suite's too):
 * each entry's status, its message (what it names), the output as it was.
 * Float weights, or float16 on a device whose float arithmetic flushes
 * subnormals (the library refuses float EmbeddingBags there before it
 * reads a value, which would hide every entry's own error; float16 needs
 * no subnormal float). */
static void bag_bad_cases(st_run *r, bad_bufs *b) {
  for (size_t k = 0; k < bag_bad_count; ++k) {
    const bag_bad *e = &bag_bad_inputs[k];
    int nsto = bag_bad_in_values(e) ? 3 : 2;
    for (int sto = 0; sto < nsto; ++sto) {
      if (r->quick && sto != (int)(k % (size_t)nsto))
        continue;
      bag_case c;
      bag_inputs in;
      if (bag_bad_make(e,
                       r->single_denorm ? CLG_DTYPE_FLOAT : CLG_DTYPE_FLOAT16,
                       &c, &in) != 0) {
        r->device_error = true;
        snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
        return;
      }
      st_bag_storage(&c, (case_call)sto);
      size_t ob = bag_output_bytes(&c);
      memset(b->init, 0xA5, ob);
      char desc[ST_DESC], why[512];
      bag_case_str(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_bag_exec(r, &c, &in, b->init, ob, b->got, &st, why,
                           sizeof why);
      bag_inputs_free(&in);
      bool named = case_message_has(why, e->needles);
      for (int j = 0; j < e->nints; ++j)
        named = named && case_message_has_int(why, e->ints[j]);
      record(r, e->name, desc, rc, st, e->want, named, e->needles, why,
             b->got, b->init, ob);
    }
  }
}

/* ---------------------------------------------------- GatherBlockQuantized */

/* The catalogue of tools/cases/gather_block_quantized_bad.c (the test
 * suite's too): each entry's status, its message (what it names), the
 * output as it was; host operands, then cl_mem ones (no asynchronous call
 * yet: its values are checked on the host either way). Float32 scales, or
 * float16 on a device that flushes subnormal floats (the library refuses
 * float32 scales there, which would hide every entry's own error). */
static void gbq_bad_cases(st_run *r, bad_bufs *b) {
  for (size_t k = 0; k < gbq_bad_count; ++k) {
    const gbq_bad *e = &gbq_bad_inputs[k];
    for (int sto = 0; sto < 2; ++sto) {
      if (r->quick && sto != (int)(k % 2))
        continue;
      gbq_case c;
      gbq_operands o;
      gbq_inputs in;
      if (gbq_bad_make(e,
                       r->single_denorm ? CLG_DTYPE_FLOAT : CLG_DTYPE_FLOAT16,
                       &c, &o, &in) != 0) {
        r->device_error = true;
        snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
        return;
      }
      st_gbq_storage(&c, (case_call)sto);
      size_t ob = o.bytes[GBQC_OUTPUT];
      if (ob > sizeof b->init)
        ob = 0; /* an output the call refuses before its size matters */
      o.bytes[GBQC_OUTPUT] = ob;
      memset(b->init, 0xA5, ob);
      char desc[ST_DESC], why[512];
      gbq_case_str(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc =
          st_gbq_exec(r, &c, &o, &in, b->init, b->got, &st, why, sizeof why);
      gbq_inputs_free(&in);
      bool named = case_message_has(why, e->needles);
      for (int j = 0; j < e->nints; ++j)
        named = named && case_message_has_int(why, e->ints[j]);
      record(r, e->name, desc, rc, st, e->want, named, e->needles, why, b->got,
             b->init, ob);
    }
  }
}

void st_bad_input_cases(st_run *r) {
  static bad_bufs b;
  gather_bad_cases(r, &b);
  scatter_bad_cases(r);
  bag_bad_cases(r, &b);
  gbq_bad_cases(r, &b);
}

/*
 * clgather selftest: the bad-input catalogue. Each entry breaks one thing
 * in a valid call of an operator and names the clg_status the library must
 * return; it runs with host operands and with cl_mem operands (entries
 * about index values also asynchronously checked, where the device's
 * validation kernel finds the fault and clg_outcome_wait() reports it),
 * and passes when the status is the one expected and the output (a
 * sentinel pattern with guard bytes around it) is byte for byte unchanged.
 *
 * The gathers' and EmbeddingBag's catalogues are tools/cases/gather_bad.c
 * and embedding_bag_bad.c, which the test suites run too; their entries'
 * messages are also checked for what they must say. The scatters' entries
 * are still here (issue 42 moves them next), on the valid bases, all float
 * data [5, 3] = 0 .. 14 and int64 indices:
 *   ScatterElements indices [2, 3] = {0, 1, 2, 4, 3, 0}, axis 0,
 *                   updates [2, 3], output [5, 3]
 *   ScatterND       indices [2, 1] = {1, 3}, updates [2, 3], output [5, 3]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cases/gather.h"
#include "selftest.h"

typedef enum bad_fault {
  F_INDEX,       /* index value #arg0 becomes arg1 */
  F_MODE,        /* index mode arg1 */
  F_UPD_DTYPE,   /* updates dtype arg1 */
  F_UPD_SHAPE,   /* updates.shape[arg0] = arg1 */
  F_REDUCTION,   /* reduction arg1 */
  F_COMPLEX_MIN, /* complex64 data and updates, reduction min */
} bad_fault;

typedef struct bad_entry {
  const char *name;
  clg_op op;
  bad_fault fault;
  int64_t arg0, arg1;
  clg_status want;
  bool values; /* about index values: also asynchronously checked */
} bad_entry;

#define S(x) CLG_ERROR_##x
static const bad_entry entries[] = {
    {"index 5 on an axis of size 5", CLG_OP_SCATTER_ELEMENTS, F_INDEX, 4, 5,
     S(INDEX_OUT_OF_BOUNDS), true},
    {"a repeated target under reduction none", CLG_OP_SCATTER_ELEMENTS, F_INDEX,
     5, 2, S(DUPLICATE_INDEX), true},
    {"updates dtype int32", CLG_OP_SCATTER_ELEMENTS, F_UPD_DTYPE, 0,
     CLG_DTYPE_INT32, S(DTYPE_MISMATCH), false},
    {"updates [2, 2] for indices [2, 3]", CLG_OP_SCATTER_ELEMENTS, F_UPD_SHAPE,
     1, 2, S(INCOMPATIBLE_SHAPES), false},
    {"reduction min on complex64", CLG_OP_SCATTER_ELEMENTS, F_COMPLEX_MIN, 0, 0,
     S(UNSUPPORTED_DTYPE), false},
    {"reduction 9", CLG_OP_SCATTER_ELEMENTS, F_REDUCTION, 0, 9,
     S(INVALID_ARGUMENT), false},
    {"index mode clip", CLG_OP_SCATTER_ELEMENTS, F_MODE, 0, CLG_MODE_CLIP,
     S(INVALID_ARGUMENT), false},
    {"index -6 on a dimension of 5", CLG_OP_SCATTER_ND, F_INDEX, 1, -6,
     S(INDEX_OUT_OF_BOUNDS), true},
    {"a repeated tuple under reduction none", CLG_OP_SCATTER_ND, F_INDEX, 1, -4,
     S(DUPLICATE_INDEX), true},
    {"reduction add (opset 9 has none)", CLG_OP_SCATTER, F_REDUCTION, 0,
     CLG_REDUCTION_ADD, S(INVALID_ARGUMENT), false},
};
#undef S

/* Room for the bases' tensors (and the entries' changes). */
typedef struct bad_bufs {
  unsigned char data[256], idx[256], upd[256], init[512], got[512];
} bad_bufs;

/* The scatters' base: data float [5, 3] = 0 .. 14, int64 indices,
 * updates [2, 3] = 100 .. 105, output [5, 3]. */
static void base(st_call *c, clg_op op, bad_bufs *b) {
  static const int64_t se_idx[6] = {0, 1, 2, 4, 3, 0};
  static const int64_t snd_idx[2] = {1, 3};
  memset(c, 0, sizeof *c);
  float f[15];
  for (int i = 0; i < 15; ++i)
    f[i] = (float)i;
  memcpy(b->data, f, sizeof f);
  for (int i = 0; i < 6; ++i)
    f[i] = 100.0f + (float)i;
  memcpy(b->upd, f, 6 * sizeof f[0]);
  c->params = (clg_params){op, 0, 0, CLG_MODE_RAISE};
  c->scatter = true;
  c->dtype = CLG_DTYPE_FLOAT;
  c->itype = CLG_DTYPE_INT64;
  c->dr = 2;
  c->dshape[0] = 5;
  c->dshape[1] = 3;
  c->ir = 2;
  c->ishape[0] = 2;
  c->ishape[1] = op == CLG_OP_SCATTER_ND ? 1 : 3;
  c->data = b->data;
  c->indices = b->idx;
  c->updates = b->upd;
  c->orank = 2;
  c->oshape[0] = 5;
  c->oshape[1] = 3;
  c->ur = 2;
  c->ushape[0] = 2;
  c->ushape[1] = 3;
  if (op == CLG_OP_SCATTER_ND)
    memcpy(b->idx, snd_idx, sizeof snd_idx);
  else
    memcpy(b->idx, se_idx, sizeof se_idx);
}

static void apply(st_call *c, const bad_entry *e, bad_bufs *b) {
  switch (e->fault) {
  case F_INDEX: st_set_index(b->idx, CLG_DTYPE_INT64, (size_t)e->arg0, e->arg1);
    break;
  case F_MODE: c->params.mode = (clg_index_mode)e->arg1; break;
  case F_UPD_DTYPE: c->utype = (clg_dtype)e->arg1; break;
  case F_UPD_SHAPE: c->ushape[e->arg0] = e->arg1; break;
  case F_REDUCTION: c->sp.reduction = (clg_reduction)e->arg1; break;
  case F_COMPLEX_MIN:
    c->dtype = CLG_DTYPE_COMPLEX64; /* data [5, 3]: 120 of data's bytes */
    c->sp.reduction = CLG_REDUCTION_MIN;
    break;
  }
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
      c.storage = (st_storage)sto;
      size_t ob = st_nbytes(c.otype, c.orank, c.oshape);
      if (ob > sizeof b->init)
        ob = 0; /* an output the call refuses before its size matters */
      memset(b->init, 0xA5, ob);
      char desc[480], why[512], diff[160];
      st_describe(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_exec(r, &c, b->init, ob, b->got, &st, why, sizeof why);
      if (rc < 0) {
        r->device_error = true;
        snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      } else if (rc > 0)
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      else if (st != e->want)
        st_record(r, false, "bad input '%s': %s: returned %s, expected %s%s%s",
                  e->name, desc, clg_status_string(st),
                  clg_status_string(e->want), why[0] ? ": " : "", why);
      else if (!case_message_has(why, e->needles))
        st_record(r, false,
                  "bad input '%s': %s: the message does not say "
                  "what it must (%s): %s",
                  e->name, desc, e->needles, why);
      else if (st_first_diff(b->got, b->init, ob, 1, diff, sizeof diff))
        st_record(r, false,
                  "bad input '%s': %s: refused, but the output "
                  "changed: %s",
                  e->name, desc, diff);
      else
        st_record(r, true, "%s", e->name);
    }
  }
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
      st_bag_storage(&c, (st_storage)sto);
      size_t ob = bag_output_bytes(&c);
      memset(b->init, 0xA5, ob);
      char desc[ST_DESC], why[512], diff[160];
      bag_case_str(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_bag_exec(r, &c, &in, b->init, ob, b->got, &st, why,
                           sizeof why);
      bag_inputs_free(&in);
      bool named = case_message_has(why, e->needles);
      for (int j = 0; j < e->nints; ++j)
        named = named && case_message_has_int(why, e->ints[j]);
      if (rc < 0) {
        r->device_error = true;
        snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      } else if (rc > 0)
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      else if (st != e->want)
        st_record(r, false, "bad input '%s': %s: returned %s, expected %s%s%s",
                  e->name, desc, clg_status_string(st),
                  clg_status_string(e->want), why[0] ? ": " : "", why);
      else if (!named)
        st_record(r, false, "bad input '%s': %s: the message does not name "
                  "what it must (%s): %s", e->name, desc, e->needles, why);
      else if (st_first_diff(b->got, b->init, ob, clg_dtype_size(c.dtype),
                             diff, sizeof diff))
        st_record(r, false, "bad input '%s': %s: refused, but the output "
                  "changed: %s", e->name, desc, diff);
      else
        st_record(r, true, "%s", e->name);
    }
  }
}

void st_bad_input_cases(st_run *r) {
  static bad_bufs b;
  r->row = ST_ROW_BAD_INPUT;
  size_t n = sizeof entries / sizeof entries[0];
  for (size_t k = 0; k < n; ++k) {
    const bad_entry *e = &entries[k];
    int nsto = e->values ? 3 : 2;
    for (int sto = 0; sto < nsto; ++sto) {
      if (r->quick && !e->values && sto != (int)(k % 2))
        continue;
      st_call c;
      base(&c, e->op, &b);
      apply(&c, e, &b);
      c.storage = (st_storage)sto;
      clg_dtype odt = c.otype ? c.otype : c.dtype;
      size_t ob = st_nbytes(odt, c.orank, c.oshape);
      memset(b.init, 0xA5, ob);
      char desc[480], why[512], diff[160];
      st_describe(&c, desc, sizeof desc);
      clg_status st = CLG_SUCCESS;
      int rc = st_exec(r, &c, b.init, ob, b.got, &st, why, sizeof why);
      if (rc < 0) {
        r->device_error = true;
        snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      } else if (rc > 0)
        st_record(r, false, "bad input '%s': %s: %s", e->name, desc, why);
      else if (st != e->want)
        st_record(r, false, "bad input '%s': %s: returned %s, expected %s%s%s",
                  e->name, desc, clg_status_string(st),
                  clg_status_string(e->want), why[0] ? ": " : "", why);
      else if (st_first_diff(b.got, b.init, ob, clg_dtype_size(odt), diff,
                             sizeof diff))
        st_record(r, false, "bad input '%s': %s: refused, but the output "
                  "changed: %s", e->name, desc, diff);
      else
        st_record(r, true, "%s", e->name);
    }
  }
  gather_bad_cases(r, &b);
  bag_bad_cases(r, &b);
}

/*
 * Writers of ONNX test folders for the onnx-test tests
 * (test_cli_onnx_models.c, test_cli_onnx_hostile.c): TensorProtos in
 * raw_data, typed fields or external data, one-graph models built with
 * protobuf-c's generated code, data sets, and running `clgather onnx-test`
 * (CLGATHER_CLI_PATH) on folders. Every helper aborts the test on error.
 */
#define _XOPEN_SOURCE 700 /* nftw */

#include "onnx_model_writer.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_testutil.h"
#include "reference/reference.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw) {
  (void)st;
  (void)flag;
  if (ftw->level > 0)
    remove(path);
  return 0;
}

void mw_cleanup(void) {
  nftw(ct_scratch_dir(), rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  ct_cleanup();
}

static int run_cli(char **out, char **err, const char *const *args) {
  char *argv[64];
  size_t n = 0;
  argv[n++] = (char *)CLGATHER_CLI_PATH;
  for (; args[n - 1] != NULL; ++n) {
    cr_assert_lt(n, 63);
    argv[n] = (char *)args[n - 1];
  }
  argv[n] = NULL;
  return ct_run(argv, out, err);
}

/* ---------------------------------------------------------------- tensors */

void mw_tensor(cli_tensor *t, clg_dtype dt, int32_t rank,
                 const int64_t *shape, unsigned seed) {
  char err[256];
  cr_assert_eq(cli_tensor_alloc(t, dt, rank, shape, err, sizeof err), 0, "%s",
               err);
  ct_fill_pattern(t->data, t->nbytes, seed);
  if (dt == CLG_DTYPE_BOOL) /* bool elements are 0 or 1 */
    for (size_t i = 0; i < t->nbytes; ++i)
      ((unsigned char *)t->data)[i] &= 1;
}

void mw_indices(cli_tensor *t, clg_dtype dt, int32_t rank,
                     const int64_t *shape, const int64_t *v) {
  mw_tensor(t, dt, rank, shape, 0);
  for (size_t i = 0; i < t->nbytes / clg_dtype_size(dt); ++i) {
    if (dt == CLG_DTYPE_INT64)
      ((int64_t *)t->data)[i] = v[i];
    else
      ((int32_t *)t->data)[i] = (int32_t)v[i];
  }
}

/* want = Gather(data, indices, axis) by the plain-C reference. */
void mw_ref_gather(const cli_tensor *d, const cli_tensor *i, int64_t axis,
                     cli_tensor *want) {
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  cr_assert_eq(ref_gather_shape(d->rank, d->shape, i->rank, i->shape, axis,
                                REF_MAX_RANK, &orank, oshape), 0);
  mw_tensor(want, d->dtype, orank, oshape, 0);
  cr_assert_eq(ref_gather(d->data, clg_dtype_size(d->dtype), d->rank,
                          d->shape, i->data,
                          i->dtype == CLG_DTYPE_INT64 ? REF_INDEX_I64
                                                      : REF_INDEX_I32,
                          i->rank, i->shape, axis, want->data), 0);
}

static void tp_head(mw_tproto *p, const char *name, const cli_tensor *t) {
  memset(p, 0, sizeof *p);
  p->tp = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
  p->tp.name = (char *)name;
  p->tp.has_data_type = 1;
  p->tp.data_type = (int32_t)t->dtype;
  for (int32_t i = 0; i < t->rank; ++i)
    p->dims[i] = t->shape[i];
  p->tp.n_dims = (size_t)t->rank;
  p->tp.dims = p->dims;
}

/* t's bytes in raw_data. */
void mw_tp_raw(mw_tproto *p, const char *name, const cli_tensor *t) {
  tp_head(p, name, t);
  p->buf = malloc(t->nbytes + 1);
  memcpy(p->buf, t->data, t->nbytes);
  p->tp.has_raw_data = 1;
  p->tp.raw_data.len = t->nbytes;
  p->tp.raw_data.data = p->buf;
}

/* t's values in the typed field ONNX assigns to its data_type, widened
 * element by element as onnx.proto says (16-bit floats as their bits). */
void mw_tp_typed(mw_tproto *p, const char *name, const cli_tensor *t) {
  tp_head(p, name, t);
  size_t es = clg_dtype_size(t->dtype), n = t->nbytes / es;
  const unsigned char *s = t->data;
  /* 8 bytes a value when widened; complex elements copy 16 bytes each. */
  p->buf = malloc((8 * n > t->nbytes ? 8 * n : t->nbytes) + 8);
  switch (t->dtype) {
  case CLG_DTYPE_FLOAT:
  case CLG_DTYPE_COMPLEX64:
    memcpy(p->buf, s, t->nbytes);
    p->tp.n_float_data = t->nbytes / 4;
    p->tp.float_data = p->buf;
    break;
  case CLG_DTYPE_DOUBLE:
  case CLG_DTYPE_COMPLEX128:
    memcpy(p->buf, s, t->nbytes);
    p->tp.n_double_data = t->nbytes / 8;
    p->tp.double_data = p->buf;
    break;
  case CLG_DTYPE_INT64:
    memcpy(p->buf, s, t->nbytes);
    p->tp.n_int64_data = n;
    p->tp.int64_data = p->buf;
    break;
  case CLG_DTYPE_UINT64:
  case CLG_DTYPE_UINT32:
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      memcpy(&v, s + es * i, es); /* little-endian: zero-extended */
      ((uint64_t *)p->buf)[i] = v;
    }
    p->tp.n_uint64_data = n;
    p->tp.uint64_data = p->buf;
    break;
  default: /* int32_data */
    for (size_t i = 0; i < n; ++i) {
      int32_t v;
      if (t->dtype == CLG_DTYPE_INT8)
        v = (int8_t)s[i];
      else if (t->dtype == CLG_DTYPE_INT16) {
        int16_t h;
        memcpy(&h, s + 2 * i, 2);
        v = h;
      } else if (es == 2) {
        uint16_t h;
        memcpy(&h, s + 2 * i, 2);
        v = h;
      } else if (es == 4)
        memcpy(&v, s + 4 * i, 4);
      else
        v = s[i];
      ((int32_t *)p->buf)[i] = v;
    }
    p->tp.n_int32_data = n;
    p->tp.int32_data = p->buf;
  }
}

/* data_location EXTERNAL with the given entries (NULL: left out). */
void mw_tp_external(mw_tproto *p, const char *name, const cli_tensor *t,
                        const char *location, const char *offset,
                        const char *length) {
  tp_head(p, name, t);
  p->tp.has_data_location = 1;
  p->tp.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  const char *keys[3] = {"location", "offset", "length"};
  const char *vals[3] = {location, offset, length};
  for (size_t k = 0; k < 3; ++k) {
    if (vals[k] == NULL)
      continue;
    Onnx__StringStringEntryProto *e = &p->kv[p->tp.n_external_data];
    *e = (Onnx__StringStringEntryProto)ONNX__STRING_STRING_ENTRY_PROTO__INIT;
    e->key = (char *)keys[k];
    e->value = (char *)vals[k];
    p->kvp[p->tp.n_external_data++] = e;
  }
  p->tp.external_data = p->kvp;
}

void mw_tp_free(mw_tproto *p) { free(p->buf); }

/* ----------------------------------------------------------------- models */

void mw_start(mw_model *m, int64_t opset) {
  memset(m, 0, sizeof *m);
  m->graph = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
  m->graph.name = (char *)"g";
  m->graph.node = m->node_p;
  m->graph.input = m->vin_p;
  m->graph.output = m->vout_p;
  m->graph.initializer = m->init;
  m->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
  m->opset.domain = (char *)"";
  m->opset.has_version = 1;
  m->opset.version = opset;
  m->opset_p[0] = &m->opset;
  m->m = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
  m->m.has_ir_version = 1;
  m->m.ir_version = opset < 9 ? 3 : 8;
  m->m.n_opset_import = 1;
  m->m.opset_import = m->opset_p;
  m->m.graph = &m->graph;
}

/* A node op(in...) -> out; inputs are NULL-terminated (up to 3). */
Onnx__NodeProto *mw_node(mw_model *m, const char *op, const char *out,
                               const char *in0, const char *in1,
                               const char *in2) {
  size_t k = m->graph.n_node++;
  cr_assert_lt(k, MW_MAX_NODES);
  Onnx__NodeProto *n = &m->node[k];
  *n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
  n->op_type = (char *)op;
  const char *ins[3] = {in0, in1, in2};
  while (n->n_input < 3 && ins[n->n_input] != NULL) {
    m->node_in[k][n->n_input] = (char *)ins[n->n_input];
    n->n_input++;
  }
  n->input = m->node_in[k];
  m->node_out[k][0] = (char *)out;
  n->n_output = 1;
  n->output = m->node_out[k];
  m->node_p[k] = n;
  return n;
}

/* The node's one attribute (the last node added). */
Onnx__AttributeProto *mw_attr(mw_model *m, const char *name,
                                    Onnx__AttributeProto__AttributeType ty) {
  size_t k = m->graph.n_node - 1;
  Onnx__AttributeProto *a = &m->attr[k];
  *a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
  a->name = (char *)name;
  a->has_type = 1;
  a->type = ty;
  m->attr_p[k][0] = a;
  m->node[k].n_attribute = 1;
  m->node[k].attribute = m->attr_p[k];
  return a;
}

void mw_axis(mw_model *m, int64_t axis) {
  Onnx__AttributeProto *a =
      mw_attr(m, "axis", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  a->has_i = 1;
  a->i = axis;
}

void mw_value(mw_model *m, Onnx__TensorProto *tp) {
  mw_attr(m, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)->t = tp;
}

static void m_io(Onnx__ValueInfoProto *v, const char *name) {
  *v = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
  v->name = (char *)name;
}

void mw_input(mw_model *m, const char *name) {
  m_io(&m->vin[m->graph.n_input], name);
  m->vin_p[m->graph.n_input] = &m->vin[m->graph.n_input];
  m->graph.n_input++;
}

void mw_output(mw_model *m, const char *name) {
  m_io(&m->vout[m->graph.n_output], name);
  m->vout_p[m->graph.n_output] = &m->vout[m->graph.n_output];
  m->graph.n_output++;
}

void mw_init(mw_model *m, mw_tproto *p) {
  m->init[m->graph.n_initializer++] = &p->tp;
}

/* A fresh case folder `name` with test_data_set_0; returns its path. */
const char *mw_case_dir(const char *name) {
  static char ring[48][600];
  static int next;
  char *dir = ring[next++ % 48], p[700];
  snprintf(dir, sizeof ring[0], "%s", ct_path(name));
  cr_assert_eq(mkdir(dir, 0777), 0, "%s", dir);
  snprintf(p, sizeof p, "%s/test_data_set_0", dir);
  cr_assert_eq(mkdir(p, 0777), 0);
  return dir;
}

void mw_write_in(const char *dir, const char *file, const void *buf,
                     size_t len) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  ct_write_file(p, buf, len);
}

void mw_write(mw_model *m, const char *dir) {
  size_t n = onnx__model_proto__get_packed_size(&m->m);
  unsigned char *buf = malloc(n);
  cr_assert_not_null(buf);
  onnx__model_proto__pack(&m->m, buf);
  mw_write_in(dir, "model.onnx", buf, n);
  free(buf);
}

/* test_data_set_0/PREFIX_k.pb holding t (raw_data, with name if given). */
void mw_write_pb(const char *dir, const char *prefix, int k,
                     const cli_tensor *t, const char *name) {
  char file[64], err[256];
  unsigned char *buf;
  size_t len;
  snprintf(file, sizeof file, "test_data_set_0/%s_%d.pb", prefix, k);
  cr_assert_eq(onnx_tensor_encode(t, name, &buf, &len, err, sizeof err), 0,
               "%s", err);
  mw_write_in(dir, file, buf, len);
  free(buf);
}

/* Run onnx-test on dirs; returns the exit status, stdout in *out. */
int mw_run_dirs(char **out, const char *const *dirs, size_t n) {
  const char *args[40] = {"onnx-test"};
  cr_assert_lt(n, 38);
  for (size_t i = 0; i < n; ++i)
    args[i + 1] = dirs[i];
  char *err;
  int rc = run_cli(out, &err, args);
  free(err);
  return rc;
}


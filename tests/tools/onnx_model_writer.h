/*
 * Writers of ONNX test folders for the onnx-test tests (see
 * onnx_model_writer.c). A folder is model.onnx plus test_data_set_0/ with
 * input_N.pb and output_N.pb, made in the scratch folder (cli_testutil.h).
 */
#ifndef CLGATHER_TESTS_TOOLS_ONNX_MODEL_WRITER_H
#define CLGATHER_TESTS_TOOLS_ONNX_MODEL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "onnx_pb.h"

/** Empty the scratch folder, sub-folders included (suite .fini). */
void mw_cleanup(void);

/** A tensor filled with a pattern of `seed` (bool elements 0 or 1). */
void mw_tensor(cli_tensor *t, clg_dtype dt, int32_t rank,
               const int64_t *shape, unsigned seed);
/** An int32 or int64 indices tensor holding v[]. */
void mw_indices(cli_tensor *t, clg_dtype dt, int32_t rank,
                const int64_t *shape, const int64_t *v);
/** want = Gather(d, i, axis), by the plain-C reference (tests/support). */
void mw_ref_gather(const cli_tensor *d, const cli_tensor *i, int64_t axis,
                   cli_tensor *want);

/* A TensorProto and the storage it points into. */
typedef struct mw_tproto {
  Onnx__TensorProto tp;
  int64_t dims[CLG_MAX_RANK];
  void *buf;
  Onnx__StringStringEntryProto kv[3];
  Onnx__StringStringEntryProto *kvp[3];
} mw_tproto;

/** t in raw_data. */
void mw_tp_raw(mw_tproto *p, const char *name, const cli_tensor *t);
/** t's values in the typed field onnx.proto assigns to its data_type
 * (float_data, double_data, int64_data, uint64_data or int32_data),
 * widened element by element. */
void mw_tp_typed(mw_tproto *p, const char *name, const cli_tensor *t);
/** data_location EXTERNAL with external_data entries location, offset and
 * length (each left out when NULL). */
void mw_tp_external(mw_tproto *p, const char *name, const cli_tensor *t,
                    const char *location, const char *offset,
                    const char *length);
void mw_tp_free(mw_tproto *p);

/** A model of one graph (ModelProto, IR 3 below opset 9, else 8). */
#define MW_MAX_NODES 4
typedef struct mw_model {
  Onnx__NodeProto node[MW_MAX_NODES];
  Onnx__NodeProto *node_p[MW_MAX_NODES];
  char *node_in[MW_MAX_NODES][3], *node_out[MW_MAX_NODES][1];
  Onnx__AttributeProto attr[MW_MAX_NODES];
  Onnx__AttributeProto *attr_p[MW_MAX_NODES][1];
  Onnx__ValueInfoProto vin[4], vout[2];
  Onnx__ValueInfoProto *vin_p[4], *vout_p[2];
  Onnx__TensorProto *init[4];
  Onnx__GraphProto graph;
  Onnx__OperatorSetIdProto opset;
  Onnx__OperatorSetIdProto *opset_p[1];
  Onnx__ModelProto m;
} mw_model;

void mw_start(mw_model *m, int64_t opset);
/** Add node op(in0, in1, in2) -> out (trailing inputs NULL). */
Onnx__NodeProto *mw_node(mw_model *m, const char *op, const char *out,
                         const char *in0, const char *in1, const char *in2);
/** The last node's one attribute. */
Onnx__AttributeProto *mw_attr(mw_model *m, const char *name,
                              Onnx__AttributeProto__AttributeType ty);
void mw_axis(mw_model *m, int64_t axis);              /* INT "axis" */
void mw_value(mw_model *m, Onnx__TensorProto *tp);     /* TENSOR "value" */
void mw_input(mw_model *m, const char *name);          /* graph input */
void mw_output(mw_model *m, const char *name);         /* graph output */
void mw_init(mw_model *m, mw_tproto *p);               /* initializer */
/** dir/model.onnx. */
void mw_write(mw_model *m, const char *dir);

/** A fresh folder `name` with test_data_set_0/ (path valid for 48 calls). */
const char *mw_case_dir(const char *name);
/** dir/file holding len bytes. */
void mw_write_in(const char *dir, const char *file, const void *buf,
                 size_t len);
/** dir/test_data_set_0/PREFIX_k.pb: t in raw_data, named if name given. */
void mw_write_pb(const char *dir, const char *prefix, int k,
                 const cli_tensor *t, const char *name);
/** `clgather onnx-test DIRS...`: the exit status, stdout in *out. */
int mw_run_dirs(char **out, const char *const *dirs, size_t n);

#endif /* CLGATHER_TESTS_TOOLS_ONNX_MODEL_WRITER_H */

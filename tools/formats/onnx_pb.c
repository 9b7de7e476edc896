/* ONNX TensorProto / ModelProto reading and writing via protobuf-c. */
#include "onnx_pb.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Which repeated field ONNX stores each data_type in when raw_data is not
 * used, and how many values each element takes there. */
typedef enum typed_field {
  FIELD_NONE = 0,
  FIELD_FLOAT,  /* float_data */
  FIELD_INT32,  /* int32_data */
  FIELD_INT64,  /* int64_data */
  FIELD_DOUBLE, /* double_data */
  FIELD_UINT64, /* uint64_data */
} typed_field;

static const char *field_name(typed_field f) {
  switch (f) {
  case FIELD_FLOAT: return "float_data";
  case FIELD_INT32: return "int32_data";
  case FIELD_INT64: return "int64_data";
  case FIELD_DOUBLE: return "double_data";
  case FIELD_UINT64: return "uint64_data";
  case FIELD_NONE:
  default: return "raw_data";
  }
}

static typed_field field_for(clg_dtype d, int *per_elem) {
  *per_elem = 1;
  switch (d) {
  case CLG_DTYPE_FLOAT:
    return FIELD_FLOAT;
  case CLG_DTYPE_COMPLEX64:
    *per_elem = 2;
    return FIELD_FLOAT;
  case CLG_DTYPE_INT32:
  case CLG_DTYPE_INT16:
  case CLG_DTYPE_INT8:
  case CLG_DTYPE_UINT16:
  case CLG_DTYPE_UINT8:
  case CLG_DTYPE_BOOL:
  case CLG_DTYPE_FLOAT16:
  case CLG_DTYPE_BFLOAT16:
    return FIELD_INT32;
  case CLG_DTYPE_INT64:
    return FIELD_INT64;
  case CLG_DTYPE_DOUBLE:
    return FIELD_DOUBLE;
  case CLG_DTYPE_COMPLEX128:
    *per_elem = 2;
    return FIELD_DOUBLE;
  case CLG_DTYPE_UINT32:
  case CLG_DTYPE_UINT64:
    return FIELD_UINT64;
  default:
    return FIELD_NONE;
  }
}

static size_t field_count(const Onnx__TensorProto *tp, typed_field f) {
  switch (f) {
  case FIELD_FLOAT: return tp->n_float_data;
  case FIELD_INT32: return tp->n_int32_data;
  case FIELD_INT64: return tp->n_int64_data;
  case FIELD_DOUBLE: return tp->n_double_data;
  case FIELD_UINT64: return tp->n_uint64_data;
  case FIELD_NONE:
  default: return 0;
  }
}

/* Narrow int32_data[i] into element i of a 1- or 2-byte (or int32) type. */
static int store_int32(clg_dtype d, unsigned char *dst, size_t i, int32_t v,
                       char *err, size_t errlen) {
  int64_t lo, hi;
  switch (d) {
  case CLG_DTYPE_INT32: {
    memcpy(dst + 4 * i, &v, 4);
    return 0;
  }
  case CLG_DTYPE_BOOL:
    dst[i] = v != 0;
    return 0;
  case CLG_DTYPE_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
  case CLG_DTYPE_UINT8: lo = 0; hi = UINT8_MAX; break;
  case CLG_DTYPE_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
  case CLG_DTYPE_UINT16: lo = 0; hi = UINT16_MAX; break;
  /* 16-bit patterns: accept them zero- or sign-extended. */
  case CLG_DTYPE_FLOAT16:
  case CLG_DTYPE_BFLOAT16: lo = INT16_MIN; hi = UINT16_MAX; break;
  default:
    return cli_fail(err, errlen, "internal: int32_data for %s",
                    clg_dtype_name(d));
  }
  if (v < lo || v > hi)
    return cli_fail(err, errlen, "int32_data[%zu] = %ld is out of range for "
                    "%s", i, (long)v, clg_dtype_name(d));
  if (clg_dtype_size(d) == 1) {
    dst[i] = (unsigned char)(v & 0xff);
  } else {
    uint16_t u = (uint16_t)((uint32_t)v & 0xffffu);
    memcpy(dst + 2 * i, &u, 2);
  }
  return 0;
}

int onnx_tensor_from_proto(const Onnx__TensorProto *tp, cli_tensor *t,
                           char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  if (!cli_host_is_little_endian())
    return cli_fail(err, errlen, "this host is big-endian, which clgather's "
                    "file readers do not support");
  if (!tp->has_data_type || tp->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED)
    return cli_fail(err, errlen, "TensorProto has no data_type");
  if (tp->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
    return cli_fail(err, errlen, "string tensors are not supported");
  clg_dtype dtype = (clg_dtype)tp->data_type;
  size_t es = tp->data_type > 0 && tp->data_type <= CLG_DTYPE_BFLOAT16
                  ? clg_dtype_size(dtype)
                  : 0;
  if (es == 0)
    return cli_fail(err, errlen, "unsupported TensorProto data_type %ld",
                    (long)tp->data_type);
  if ((tp->has_data_location &&
       tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
      tp->n_external_data > 0)
    return cli_fail(err, errlen, "tensors with external data are not "
                    "supported");
  if (tp->segment != NULL)
    return cli_fail(err, errlen, "segmented tensors are not supported");
  if (tp->n_dims > CLG_MAX_RANK)
    return cli_fail(err, errlen, "rank %zu exceeds the maximum of %d",
                    tp->n_dims, CLG_MAX_RANK);
  int32_t rank = (int32_t)tp->n_dims;
  int64_t shape[CLG_MAX_RANK] = {0};
  for (int32_t i = 0; i < rank; ++i)
    shape[i] = tp->dims[i];
  int64_t count;
  size_t nbytes;
  if (cli_shape_size(rank, shape, es, &count, &nbytes, err, errlen) != 0)
    return -1;
  char shape_s[CLG_MAX_RANK * 24 + 4];
  cli_shape_string(rank, shape, shape_s, sizeof shape_s);

  /* Exactly one source of data (or none for an empty tensor). */
  const typed_field all[] = {FIELD_FLOAT, FIELD_INT32, FIELD_INT64,
                             FIELD_DOUBLE, FIELD_UINT64};
  int per_elem;
  typed_field want = field_for(dtype, &per_elem);
  const char *source = NULL;
  typed_field source_field = FIELD_NONE;
  if (tp->has_raw_data)
    source = "raw_data";
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) {
    if (field_count(tp, all[k]) == 0)
      continue;
    if (source != NULL)
      return cli_fail(err, errlen, "TensorProto has data in both %s and %s",
                      source, field_name(all[k]));
    source = field_name(all[k]);
    source_field = all[k];
  }
  if (tp->n_string_data > 0)
    return cli_fail(err, errlen, "%s TensorProto has string_data",
                    clg_dtype_name(dtype));

  unsigned char *data = NULL;
  if (tp->has_raw_data) {
    if (tp->raw_data.len != nbytes)
      return cli_fail(err, errlen, "%s tensor of shape %s needs %zu bytes but "
                      "raw_data has %zu", clg_dtype_name(dtype), shape_s,
                      nbytes, tp->raw_data.len);
    data = malloc(nbytes ? nbytes : 1);
    if (data == NULL)
      return cli_fail(err, errlen, "out of memory allocating %zu bytes",
                      nbytes);
    if (nbytes)
      memcpy(data, tp->raw_data.data, nbytes);
  } else if (source == NULL) {
    if (count != 0)
      return cli_fail(err, errlen, "%s tensor of shape %s has no data (no "
                      "raw_data and no %s)", clg_dtype_name(dtype), shape_s,
                      field_name(want));
    data = malloc(1);
    if (data == NULL)
      return cli_fail(err, errlen, "out of memory");
  } else {
    if (source_field != want)
      return cli_fail(err, errlen, "%s tensor cannot hold its data in %s "
                      "(expected %s or raw_data)", clg_dtype_name(dtype),
                      source, field_name(want));
    size_t n = field_count(tp, want);
    if ((uint64_t)n != (uint64_t)count * (uint64_t)per_elem)
      return cli_fail(err, errlen, "%s tensor of shape %s needs %llu values "
                      "but %s has %zu", clg_dtype_name(dtype), shape_s,
                      (unsigned long long)count * (unsigned long long)per_elem,
                      source, n);
    /* n values are in the file, so nbytes is bounded by the file's size. */
    data = malloc(nbytes ? nbytes : 1);
    if (data == NULL)
      return cli_fail(err, errlen, "out of memory allocating %zu bytes",
                      nbytes);
    switch (want) {
    case FIELD_FLOAT:
      memcpy(data, tp->float_data, n * sizeof(float));
      break;
    case FIELD_DOUBLE:
      memcpy(data, tp->double_data, n * sizeof(double));
      break;
    case FIELD_INT64:
      memcpy(data, tp->int64_data, n * sizeof(int64_t));
      break;
    case FIELD_UINT64:
      if (dtype == CLG_DTYPE_UINT64) {
        memcpy(data, tp->uint64_data, n * sizeof(uint64_t));
      } else {
        for (size_t i = 0; i < n; ++i) {
          if (tp->uint64_data[i] > UINT32_MAX) {
            free(data);
            return cli_fail(err, errlen, "uint64_data[%zu] = %llu is out of "
                            "range for uint32", i,
                            (unsigned long long)tp->uint64_data[i]);
          }
          uint32_t v = (uint32_t)tp->uint64_data[i];
          memcpy(data + 4 * i, &v, 4);
        }
      }
      break;
    case FIELD_INT32:
      for (size_t i = 0; i < n; ++i) {
        if (store_int32(dtype, data, i, tp->int32_data[i], err, errlen) != 0) {
          free(data);
          return -1;
        }
      }
      break;
    case FIELD_NONE:
    default:
      free(data);
      return cli_fail(err, errlen, "internal: no typed field for %s",
                      clg_dtype_name(dtype));
    }
  }
  t->dtype = dtype;
  t->rank = rank;
  memcpy(t->shape, shape, sizeof shape);
  t->data = data;
  t->nbytes = nbytes;
  return 0;
}

int onnx_tensor_parse(const unsigned char *buf, size_t len, cli_tensor *t,
                      char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
  if (tp == NULL)
    return cli_fail(err, errlen, "not a valid ONNX TensorProto (protobuf "
                    "decoding failed)");
  int rc = onnx_tensor_from_proto(tp, t, err, errlen);
  onnx__tensor_proto__free_unpacked(tp, NULL);
  return rc;
}

int onnx_tensor_read(const char *path, cli_tensor *t, char *err,
                     size_t errlen) {
  memset(t, 0, sizeof *t);
  unsigned char *buf;
  size_t len;
  if (cli_read_whole_file(path, &buf, &len, err, errlen) != 0)
    return -1;
  char why[512];
  int rc = onnx_tensor_parse(buf, len, t, why, sizeof why);
  free(buf);
  if (rc != 0)
    return cli_fail(err, errlen, "'%s': %s", path, why);
  return 0;
}

int onnx_tensor_encode(const cli_tensor *t, const char *name,
                       unsigned char **out, size_t *out_len, char *err,
                       size_t errlen) {
  *out = NULL;
  *out_len = 0;
  size_t es = clg_dtype_size(t->dtype);
  if (es == 0)
    return cli_fail(err, errlen, "cannot write element type %s",
                    clg_dtype_name(t->dtype));
  size_t nbytes;
  if (cli_shape_size(t->rank, t->shape, es, NULL, &nbytes, err, errlen) != 0)
    return -1;
  if (nbytes != t->nbytes)
    return cli_fail(err, errlen, "tensor holds %zu bytes but its shape needs "
                    "%zu", t->nbytes, nbytes);
  int64_t dims[CLG_MAX_RANK];
  for (int32_t i = 0; i < t->rank; ++i)
    dims[i] = t->shape[i];
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.n_dims = (size_t)t->rank;
  tp.dims = dims;
  tp.has_data_type = 1;
  tp.data_type = (int32_t)t->dtype;
  tp.has_raw_data = 1;
  tp.raw_data.len = nbytes;
  tp.raw_data.data = t->data;
  tp.name = (char *)name;
  size_t size = onnx__tensor_proto__get_packed_size(&tp);
  unsigned char *buf = malloc(size ? size : 1);
  if (buf == NULL)
    return cli_fail(err, errlen, "out of memory allocating %zu bytes", size);
  size_t packed = onnx__tensor_proto__pack(&tp, buf);
  if (packed != size) {
    free(buf);
    return cli_fail(err, errlen, "internal: protobuf packing gave %zu of %zu "
                    "bytes", packed, size);
  }
  *out = buf;
  *out_len = size;
  return 0;
}

int onnx_tensor_write(const char *path, const cli_tensor *t, char *err,
                      size_t errlen) {
  unsigned char *buf;
  size_t len;
  if (onnx_tensor_encode(t, NULL, &buf, &len, err, errlen) != 0)
    return -1;
  int rc = cli_write_file_atomic(path, buf, len, err, errlen);
  free(buf);
  return rc;
}

int onnx_model_read(const char *path, Onnx__ModelProto **model, char *err,
                    size_t errlen) {
  *model = NULL;
  unsigned char *buf;
  size_t len;
  if (cli_read_whole_file(path, &buf, &len, err, errlen) != 0)
    return -1;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
  free(buf);
  if (m == NULL)
    return cli_fail(err, errlen, "'%s' is not a valid ONNX model (protobuf "
                    "decoding failed)", path);
  *model = m;
  return 0;
}

void onnx_model_free(Onnx__ModelProto *model) {
  if (model != NULL)
    onnx__model_proto__free_unpacked(model, NULL);
}

int onnx_node_int_attr(const Onnx__NodeProto *node, const char *name,
                       int64_t fallback, int64_t *value, char *err,
                       size_t errlen) {
  *value = fallback;
  for (size_t i = 0; i < node->n_attribute; ++i) {
    const Onnx__AttributeProto *a = node->attribute[i];
    if (a == NULL || a->name == NULL || strcmp(a->name, name) != 0)
      continue;
    if (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
      return cli_fail(err, errlen, "attribute '%s' is not an INT", name);
    if (!a->has_i && !a->has_type)
      return cli_fail(err, errlen, "attribute '%s' has no integer value",
                      name);
    *value = a->i;
    return 0;
  }
  return 0;
}

int onnx_node_string_attr(const Onnx__NodeProto *node, const char *name,
                          const char *fallback, char *value, size_t cap,
                          char *err, size_t errlen) {
  snprintf(value, cap, "%s", fallback);
  for (size_t i = 0; i < node->n_attribute; ++i) {
    const Onnx__AttributeProto *a = node->attribute[i];
    if (a == NULL || a->name == NULL || strcmp(a->name, name) != 0)
      continue;
    if (a->has_type &&
        a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
      return cli_fail(err, errlen, "attribute '%s' is not a STRING", name);
    if (!a->has_s)
      return cli_fail(err, errlen, "attribute '%s' has no string value",
                      name);
    if (a->s.len >= cap)
      return cli_fail(err, errlen, "attribute '%s' is too long", name);
    memcpy(value, a->s.data, a->s.len);
    value[a->s.len] = '\0';
    return 0;
  }
  return 0;
}

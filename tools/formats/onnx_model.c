/* ONNX models for `clgather onnx-test`: initializers, Constant nodes,
 * external data and input binding (see onnx_model.h). */
#define _XOPEN_SOURCE 700 /* realpath */

#include "onnx_model.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ----------------------------------------------------------------- values */

const cli_tensor *onnx_values_find(const onnx_values *vs, const char *name) {
  if (vs == NULL || name == NULL)
    return NULL;
  for (size_t i = 0; i < vs->n; ++i)
    if (strcmp(vs->v[i].name, name) == 0)
      return &vs->v[i].tensor;
  return NULL;
}

void onnx_values_free(onnx_values *vs) {
  if (vs == NULL)
    return;
  for (size_t i = 0; i < vs->n; ++i)
    cli_tensor_free(&vs->v[i].tensor);
  free(vs->v);
  memset(vs, 0, sizeof *vs);
}

/* Move *t into vs under `name` (*t is zeroed, or freed on failure). */
static int values_add(onnx_values *vs, const char *name, onnx_value_kind kind,
                      cli_tensor *t, char *err, size_t errlen) {
  if (vs->n == vs->cap) {
    size_t cap = vs->cap ? vs->cap * 2 : 8;
    onnx_value *grown = realloc(vs->v, cap * sizeof *grown);
    if (grown == NULL) {
      cli_tensor_free(t);
      return cli_fail(err, errlen, "out of memory");
    }
    vs->v = grown;
    vs->cap = cap;
  }
  vs->v[vs->n].name = name;
  vs->v[vs->n].kind = kind;
  vs->v[vs->n].tensor = *t;
  vs->n++;
  memset(t, 0, sizeof *t);
  return 0;
}

/* ---------------------------------------------------------- external data */

/* A decimal uint64 filling all of s. */
static int parse_u64(const char *s, uint64_t *v) {
  if (s == NULL || *s < '0' || *s > '9')
    return -1;
  uint64_t x = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
      return -1;
    x = x * 10 + (uint64_t)(*s - '0');
  }
  *v = x;
  return 0;
}

/* Refuse a location that could name a file outside the model's folder. */
static int check_location(const char *loc, char *err, size_t errlen) {
  if (loc == NULL || loc[0] == '\0')
    return cli_fail(err, errlen, "external data has no location");
  if (loc[0] == '/')
    return cli_fail(err, errlen, "external data location '%s' is an "
                    "absolute path; it must be relative to the model's "
                    "folder", loc);
  for (const char *p = loc; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return cli_fail(err, errlen, "external data location '%s' leaves the "
                      "model's folder ('..')", loc);
    p += n;
    while (*p == '/')
      ++p;
  }
  return 0;
}

/* The `nbytes` bytes a tensor keeps in external data (malloc'ed *out). */
static int read_external(const Onnx__TensorProto *tp, const char *model_dir,
                         size_t nbytes, unsigned char **out, char *err,
                         size_t errlen) {
  const char *loc = NULL, *off_s = NULL, *len_s = NULL;
  for (size_t i = 0; i < tp->n_external_data; ++i) {
    const Onnx__StringStringEntryProto *e = tp->external_data[i];
    if (e == NULL || e->key == NULL)
      return cli_fail(err, errlen, "external_data entry %zu has no key", i);
    if (strcmp(e->key, "location") == 0)
      loc = e->value;
    else if (strcmp(e->key, "offset") == 0)
      off_s = e->value;
    else if (strcmp(e->key, "length") == 0)
      len_s = e->value;
  }
  if (check_location(loc, err, errlen) != 0)
    return -1;
  uint64_t offset = 0, length = 0;
  if (off_s != NULL && parse_u64(off_s, &offset) != 0)
    return cli_fail(err, errlen, "external data offset '%s' is not a "
                    "non-negative integer", off_s);
  if (len_s != NULL && parse_u64(len_s, &length) != 0)
    return cli_fail(err, errlen, "external data length '%s' is not a "
                    "non-negative integer", len_s);

  char path[PATH_MAX + 1];
  char real_dir[PATH_MAX], real_file[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", model_dir, loc) >=
      sizeof path)
    return cli_fail(err, errlen, "external data location '%s' is too long",
                    loc);
  if (realpath(model_dir, real_dir) == NULL)
    return cli_fail(err, errlen, "cannot resolve the model's folder '%s': %s",
                    model_dir, strerror(errno));
  if (realpath(path, real_file) == NULL)
    return cli_fail(err, errlen, "cannot open external data file '%s': %s",
                    path, strerror(errno));
  size_t dlen = strlen(real_dir);
  if (dlen > 0 && real_dir[dlen - 1] == '/')
    --dlen; /* the model is in "/" */
  if (strncmp(real_file, real_dir, dlen) != 0 || real_file[dlen] != '/')
    return cli_fail(err, errlen, "external data file '%s' resolves to '%s', "
                    "outside the model's folder", path, real_file);

  /* Not blocking: a FIFO with no writer is refused, not waited on. */
  uint64_t size = 0;
  FILE *f = cli_open_regular(real_file, path, "external data file ", &size,
                             err, errlen);
  if (f == NULL)
    return -1;
  if (offset > size) {
    fclose(f);
    return cli_fail(err, errlen, "external data offset %llu is past the end "
                    "of '%s' (%llu bytes)", (unsigned long long)offset, path,
                    (unsigned long long)size);
  }
  if (len_s == NULL)
    length = size - offset;
  else if (length > size - offset) {
    fclose(f);
    return cli_fail(err, errlen, "external data file '%s' has %llu bytes, "
                    "too few for offset %llu + length %llu", path,
                    (unsigned long long)size, (unsigned long long)offset,
                    (unsigned long long)length);
  }
  if (length != (uint64_t)nbytes) {
    fclose(f);
    return cli_fail(err, errlen, "external data in '%s' (offset %llu) has "
                    "%llu bytes but the tensor needs %zu", path,
                    (unsigned long long)offset, (unsigned long long)length,
                    nbytes);
  }
  unsigned char *buf = malloc(nbytes ? nbytes : 1);
  if (buf == NULL) {
    fclose(f);
    return cli_fail(err, errlen, "out of memory allocating %zu bytes",
                    nbytes);
  }
  int ok = offset <= (uint64_t)LONG_MAX &&
           fseeko(f, (off_t)offset, SEEK_SET) == 0 &&
           fread(buf, 1, nbytes, f) == nbytes;
  fclose(f);
  if (!ok) {
    free(buf);
    return cli_fail(err, errlen, "cannot read %zu bytes at offset %llu of "
                    "external data file '%s'", nbytes,
                    (unsigned long long)offset, path);
  }
  *out = buf;
  return 0;
}

int onnx_tensor_from_model(const Onnx__TensorProto *tp, const char *model_dir,
                           cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  int external =
      (tp->has_data_location &&
       tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
      tp->n_external_data > 0;
  if (!external)
    return onnx_tensor_from_proto(tp, t, err, errlen);
  /* An element type clgather cannot hold: let the .pb reader say why. */
  if (!tp->has_data_type || tp->data_type <= 0 ||
      tp->data_type > CLG_DTYPE_BFLOAT16 ||
      tp->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING ||
      clg_dtype_size((clg_dtype)tp->data_type) == 0)
    return onnx_tensor_from_proto(tp, t, err, errlen);
  if (!cli_host_is_little_endian())
    return cli_fail(err, errlen, "this host is big-endian, which clgather's "
                    "file readers do not support");
  if (tp->has_raw_data || tp->n_float_data || tp->n_int32_data ||
      tp->n_int64_data || tp->n_double_data || tp->n_uint64_data ||
      tp->n_string_data)
    return cli_fail(err, errlen, "tensor has both external data and data "
                    "in the model");
  if (tp->segment != NULL)
    return cli_fail(err, errlen, "segmented tensors are not supported");
  if (tp->n_dims > CLG_MAX_RANK)
    return cli_fail(err, errlen, "rank %zu exceeds the maximum of %d",
                    tp->n_dims, CLG_MAX_RANK);
  clg_dtype dtype = (clg_dtype)tp->data_type;
  int32_t rank = (int32_t)tp->n_dims;
  int64_t shape[CLG_MAX_RANK] = {0};
  for (int32_t i = 0; i < rank; ++i)
    shape[i] = tp->dims[i];
  size_t nbytes;
  if (cli_shape_size(rank, shape, clg_dtype_size(dtype), NULL, &nbytes, err,
                     errlen) != 0)
    return -1;
  unsigned char *data;
  if (read_external(tp, model_dir, nbytes, &data, err, errlen) != 0)
    return -1;
  t->dtype = dtype;
  t->rank = rank;
  memcpy(t->shape, shape, sizeof shape);
  t->data = data;
  t->nbytes = nbytes;
  return 0;
}

/* -------------------------------------------------------- Constant nodes */

static int is_default_domain(const char *domain) {
  return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

/* A rank-0 (count < 0) or 1-D tensor of `dtype` holding count values. */
static int small_tensor(cli_tensor *t, clg_dtype dtype, int64_t count,
                        const void *values, char *err, size_t errlen) {
  int64_t shape[1] = {count < 0 ? 1 : count};
  if (cli_tensor_alloc(t, dtype, count < 0 ? 0 : 1, shape, err, errlen) != 0)
    return -1;
  if (t->nbytes)
    memcpy(t->data, values, t->nbytes);
  return 0;
}

static int constant_value(const Onnx__NodeProto *node, const char *model_dir,
                          cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  if (node->n_attribute != 1 || node->attribute[0] == NULL ||
      node->attribute[0]->name == NULL)
    return cli_fail(err, errlen, "a Constant node needs exactly one "
                    "attribute, found %zu", node->n_attribute);
  const Onnx__AttributeProto *a = node->attribute[0];
  typedef Onnx__AttributeProto__AttributeType atype;
  struct {
    const char *name;
    atype type;
  } const kinds[] = {
      {"value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR},
      {"value_float", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT},
      {"value_floats", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS},
      {"value_int", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT},
      {"value_ints", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS},
  };
  size_t k = 0, n_kinds = sizeof kinds / sizeof kinds[0];
  while (k < n_kinds && strcmp(a->name, kinds[k].name) != 0)
    ++k;
  if (k == n_kinds)
    return cli_fail(err, errlen, "Constant attribute '%s' is not supported",
                    a->name);
  if (a->has_type && a->type != kinds[k].type)
    return cli_fail(err, errlen, "Constant attribute '%s' has the wrong "
                    "type", a->name);
  switch (k) {
  case 0:
    if (a->t == NULL)
      return cli_fail(err, errlen, "Constant attribute 'value' holds no "
                      "tensor");
    return onnx_tensor_from_model(a->t, model_dir, t, err, errlen);
  case 1:
    return small_tensor(t, CLG_DTYPE_FLOAT, -1, &a->f, err, errlen);
  case 2:
    return small_tensor(t, CLG_DTYPE_FLOAT, (int64_t)a->n_floats, a->floats,
                        err, errlen);
  case 3:
    return small_tensor(t, CLG_DTYPE_INT64, -1, &a->i, err, errlen);
  default:
    return small_tensor(t, CLG_DTYPE_INT64, (int64_t)a->n_ints, a->ints, err,
                        errlen);
  }
}

/* Add a named value, refusing an empty or repeated name. */
static int add_named(onnx_values *out, const char *name, onnx_value_kind kind,
                     cli_tensor *t, const char *what, char *err,
                     size_t errlen) {
  if (name == NULL || name[0] == '\0') {
    cli_tensor_free(t);
    return cli_fail(err, errlen, "%s has no name", what);
  }
  if (onnx_values_find(out, name) != NULL) {
    cli_tensor_free(t);
    return cli_fail(err, errlen, "%s '%s': the graph already has a value of "
                    "that name", what, name);
  }
  return values_add(out, name, kind, t, err, errlen);
}

int onnx_graph_values(const Onnx__GraphProto *g, const char *model_dir,
                      onnx_values *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  char why[768];
  if (g->n_sparse_initializer > 0)
    return cli_fail(err, errlen, "sparse initializers are not supported");
  for (size_t i = 0; i < g->n_initializer; ++i) {
    const Onnx__TensorProto *tp = g->initializer[i];
    cli_tensor t;
    if (tp == NULL ||
        onnx_tensor_from_model(tp, model_dir, &t, why, sizeof why) != 0) {
      cli_fail(err, errlen, "initializer '%s': %s",
               tp && tp->name ? tp->name : "", tp ? why : "empty");
      onnx_values_free(out);
      return -1;
    }
    if (add_named(out, tp->name, ONNX_VALUE_INITIALIZER, &t, "initializer",
                  err, errlen) != 0) {
      onnx_values_free(out);
      return -1;
    }
  }
  for (size_t i = 0; i < g->n_node; ++i) {
    const Onnx__NodeProto *node = g->node[i];
    if (node == NULL || node->op_type == NULL ||
        strcmp(node->op_type, "Constant") != 0 ||
        !is_default_domain(node->domain))
      continue;
    const char *name = node->n_output == 1 ? node->output[0] : NULL;
    cli_tensor t;
    if (node->n_output != 1 ||
        constant_value(node, model_dir, &t, why, sizeof why) != 0) {
      cli_fail(err, errlen, "Constant node '%s': %s",
               name ? name : "", node->n_output != 1 ? "needs one output"
                                                     : why);
      onnx_values_free(out);
      return -1;
    }
    if (add_named(out, name, ONNX_VALUE_CONSTANT, &t, "Constant output", err,
                  errlen) != 0) {
      onnx_values_free(out);
      return -1;
    }
  }
  return 0;
}

/* ------------------------------------------------------ the node to run */

static int is_constant(const Onnx__NodeProto *node) {
  return is_default_domain(node->domain) &&
         strcmp(node->op_type, "Constant") == 0;
}

int onnx_find_op(const Onnx__NodeProto *node, onnx_op *op) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  for (size_t i = 0; i < n && is_default_domain(node->domain); ++i)
    /* EmbeddingBag and GatherBlockQuantized (com.microsoft) are no ONNX
     * operators: a node of either name is skipped */
    if (!(ops[i].params & (CLG_PARAM_BAGS | CLG_PARAM_GBQ)) &&
        strcmp(ops[i].name, node->op_type) == 0) {
      *op = (onnx_op){&ops[i], (ops[i].params & CLG_PARAM_SCATTER) ? 3 : 2,
                      1};
      return 1;
    }
  return 0;
}

int onnx_pick_node(const Onnx__GraphProto *g, size_t *at, onnx_op *op,
                   char *why, size_t whylen) {
  size_t n_family = 0;
  const Onnx__NodeProto *other = NULL;
  for (size_t i = 0; i < g->n_node; ++i) {
    onnx_op found;
    if (is_constant(g->node[i]))
      continue;
    if (!onnx_find_op(g->node[i], &found)) {
      if (other == NULL)
        other = g->node[i];
    } else if (n_family++ == 0) {
      *at = i;
      *op = found;
    }
  }
  char name[256] = "";
  if (other != NULL)
    snprintf(name, sizeof name, "%s%s%s%s", other->op_type,
             is_default_domain(other->domain) ? "" : " (domain ",
             is_default_domain(other->domain) ? "" : other->domain,
             is_default_domain(other->domain) ? "" : ")");
  if (n_family == 0) {
    if (other == NULL)
      snprintf(why, whylen, "graph has only Constant nodes");
    else
      snprintf(why, whylen, "unsupported op %s", name);
    return 0;
  }
  if (other != NULL) {
    snprintf(why, whylen, "graph has op %s besides %s; only Constant nodes "
             "may feed it", name, op->info->name);
    return 0;
  }
  if (n_family > 1) {
    snprintf(why, whylen, "graph has %zu nodes of the family; only one is "
             "run", n_family);
    return 0;
  }
  return 1;
}

/* ---------------------------------------------------------------- inputs */

int onnx_tensor_read_named(const char *path, cli_tensor *t, char **name,
                           char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  *name = NULL;
  unsigned char *buf;
  size_t len;
  if (cli_read_whole_file(path, &buf, &len, err, errlen) != 0)
    return -1;
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
  free(buf);
  if (tp == NULL)
    return cli_fail(err, errlen, "'%s': not a valid ONNX TensorProto "
                    "(protobuf decoding failed)", path);
  char why[768];
  int rc = onnx_tensor_from_proto(tp, t, why, sizeof why);
  if (rc == 0) {
    *name = strdup(tp->name ? tp->name : "");
    if (*name == NULL) {
      cli_tensor_free(t);
      rc = cli_fail(err, errlen, "out of memory");
    }
  } else {
    cli_fail(err, errlen, "'%s': %s", path, why);
  }
  onnx__tensor_proto__free_unpacked(tp, NULL);
  return rc;
}

static const char *input_name(const Onnx__GraphProto *g, size_t i) {
  const Onnx__ValueInfoProto *v = g->input[i];
  return v != NULL && v->name != NULL ? v->name : "";
}

static int is_initializer(const onnx_values *own, const char *name) {
  for (size_t i = 0; i < own->n; ++i)
    if (own->v[i].kind == ONNX_VALUE_INITIALIZER &&
        strcmp(own->v[i].name, name) == 0)
      return 1;
  return 0;
}

/* Graph input that file i names (by its TensorProto name), or -1. */
static long named_input(const Onnx__GraphProto *g, const char *name) {
  if (name == NULL || name[0] == '\0')
    return -1;
  for (size_t j = 0; j < g->n_input; ++j)
    if (strcmp(input_name(g, j), name) == 0)
      return (long)j;
  return -1;
}

int onnx_bind_inputs(const Onnx__GraphProto *g, const onnx_values *own,
                     cli_tensor *files, char *const *names, size_t n,
                     onnx_values *bound, char *err, size_t errlen) {
  memset(bound, 0, sizeof *bound);
  size_t n_free = 0; /* graph inputs without an initializer */
  for (size_t j = 0; j < g->n_input; ++j) {
    if (input_name(g, j)[0] == '\0')
      return cli_fail(err, errlen, "graph input %zu has no name", j);
    n_free += !is_initializer(own, input_name(g, j));
  }
  /* By name, when every file names a distinct graph input. */
  int by_name = n > 0;
  for (size_t i = 0; i < n && by_name; ++i) {
    by_name = named_input(g, names[i]) >= 0;
    for (size_t k = 0; k < i && by_name; ++k)
      by_name = strcmp(names[k], names[i]) != 0;
  }
  for (size_t i = 0, j = 0; i < n; ++i) {
    const char *name;
    if (by_name) {
      name = names[i];
    } else if (n == n_free) {
      while (is_initializer(own, input_name(g, j)))
        ++j;
      name = input_name(g, j++);
    } else if (n == g->n_input) {
      name = input_name(g, i);
    } else {
      return cli_fail(err, errlen, "the graph has %zu inputs (%zu without an "
                      "initializer) but the data set has %zu input files",
                      g->n_input, n_free, n);
    }
    if (values_add(bound, name, ONNX_VALUE_INPUT, &files[i], err, errlen) !=
        0) {
      onnx_values_free(bound);
      return -1;
    }
  }
  for (size_t j = 0; j < g->n_input; ++j) {
    const char *name = input_name(g, j);
    if (onnx_values_find(bound, name) == NULL &&
        !is_initializer(own, name)) {
      cli_fail(err, errlen, "graph input '%s' has no value (no input file "
               "and no initializer)", name);
      onnx_values_free(bound);
      return -1;
    }
  }
  return 0;
}

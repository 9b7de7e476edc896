/* The checks of a call that read no index value: parameters, shapes,
 * descriptors, the output and its aliasing (clg_output_shape, clg_validate,
 * and what clg__run() and the plans check first). The run itself is
 * call.c. */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>

const clg_params clg__default_params = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};

static clg_status clg_check_dims(const char *name, int32_t rank,
                                 const int64_t *shape) {
  if (rank < 0 || rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "%s has rank %d; ranks must be in [0, %d]", name,
                     (int)rank, CLG_MAX_RANK);
  for (int32_t i = 0; i < rank; ++i)
    if (shape[i] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "%s has a negative dimension: shape[%d] = %" PRId64,
                       name, (int)i, shape[i]);
  return CLG_SUCCESS;
}

clg_status clg__output_shape(const clg_params *params, int32_t data_rank,
                             const int64_t *data_shape, int32_t indices_rank,
                             const int64_t *indices_shape, clg_params *norm,
                             int32_t *out_rank, int64_t *out_shape) {
  const clg_op_info *info = NULL;
  const clg_op_impl *impl = NULL;
  clg_status st = clg__check_params(params, &info, &impl);
  if (st != CLG_SUCCESS)
    return st;
  if (data_rank < 1 || data_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank in [1, %d]",
                     (int)data_rank, info->name, CLG_MAX_RANK);
  if ((st = clg_check_dims("data", data_rank, data_shape)) != CLG_SUCCESS ||
      (st = clg_check_dims("indices", indices_rank, indices_shape)) !=
          CLG_SUCCESS)
    return st;
  *norm = *params;
  return impl->shape(params, data_rank, data_shape, indices_rank, indices_shape,
                     norm, out_rank, out_shape);
}

clg_status clg_output_shape(const clg_params *params, int32_t data_rank,
                            const int64_t *data_shape, int32_t indices_rank,
                            const int64_t *indices_shape, int32_t *out_rank,
                            int64_t *out_shape) {
  if (!data_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data_shape is NULL");
  if (!indices_shape && indices_rank > 0)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "indices_shape is NULL but indices_rank is %d",
                     (int)indices_rank);
  if (!out_rank)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_rank is NULL");
  if (!out_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_shape is NULL");
  clg_params norm;
  int64_t shape[CLG_MAX_RANK];
  int32_t rank = 0;
  clg_status st = clg__output_shape(params ? params : &clg__default_params,
                                    data_rank, data_shape, indices_rank,
                                    indices_shape, &norm, &rank, shape);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t i = 0; i < rank; ++i)
    out_shape[i] = shape[i];
  *out_rank = rank;
  return clg__ok();
}

/* cl_mem indices are read as int/long: their offset must be a multiple of
 * the index size. */
static clg_status clg_check_indices_offset(const clg_tensor *indices,
                                           size_t index_size) {
  if (indices->storage == CLG_STORAGE_BUFFER &&
      indices->offset % index_size != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "indices->offset %zu is not a multiple of the index size "
                     "%zu bytes",
                     indices->offset, index_size);
  return CLG_SUCCESS;
}

const char *const clg__input_names[CLG_MAX_INPUTS] = {
    "data", "indices", "updates"};

/* Which entry point checks: clg_run() and the plans and shards built on it
 * take the gathers; clg_scatter() the scatters (with updates);
 * clg_validate() any operator, without updates. */
typedef enum clg_entry {
  CLG_ENTRY_GATHER,
  CLG_ENTRY_SCATTER,
  CLG_ENTRY_VALIDATE
} clg_entry;

/* The scatters' attributes: NULL means the defaults. */
static clg_status clg_check_scatter(const clg_scatter_params *sc,
                                    clg_scatter_params *out) {
  clg_scatter_params none = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (!sc)
    sc = &none;
  if (sc->reduction < CLG_REDUCTION_NONE || sc->reduction > CLG_REDUCTION_MAX)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown reduction %d (expected CLG_REDUCTION_NONE, "
                     "_ADD, _MUL, _MIN or _MAX)",
                     (int)sc->reduction);
  if (sc->duplicates != CLG_DUPLICATES_ERROR &&
      sc->duplicates != CLG_DUPLICATES_LAST)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown duplicates rule %d (expected "
                     "CLG_DUPLICATES_ERROR or CLG_DUPLICATES_LAST)",
                     (int)sc->duplicates);
  *out = *sc;
  return CLG_SUCCESS;
}

/* Arguments every entry point takes, then the inputs (in[CLG_IN_*]) and
 * params: everything but index values and the output. */
static clg_status clg_check_inputs(clg_context *ctx, const clg_params *params,
                                   const clg_scatter_params *sc,
                                   clg_entry entry, const clg_tensor *const *in,
                                   cl_uint num_events,
                                   const cl_event *wait_list, clg_checked *c) {
  const clg_tensor *data = in[CLG_IN_DATA], *indices = in[CLG_IN_INDICES];
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (!params)
    params = &clg__default_params;
  if ((st = clg__check_params(params, &c->info, &c->impl)) != CLG_SUCCESS)
    return st;
  bool scatter = (c->info->params & CLG_PARAM_SCATTER) != 0;
  if (entry == CLG_ENTRY_GATHER && scatter)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is a scatter: it takes updates and is run by "
                     "clg_scatter()",
                     c->info->name);
  if (entry == CLG_ENTRY_SCATTER && !scatter)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is not a scatter: run it with clg_run()",
                     c->info->name);
  c->sc = (clg_scatter_params){CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (entry == CLG_ENTRY_SCATTER &&
      ((st = clg_check_scatter(sc, &c->sc)) != CLG_SUCCESS ||
       (c->impl->check_scatter &&
        (st = c->impl->check_scatter(&c->sc)) != CLG_SUCCESS)))
    return st;
  c->num_inputs = c->impl->num_inputs ? c->impl->num_inputs : 2;
  c->host_threads = ctx ? clg__context_host_threads(ctx) : 0; /* clg_validate */
  if (entry == CLG_ENTRY_VALIDATE)
    c->num_inputs = 2; /* index values need no updates */
  if (c->num_inputs > CLG_IN_UPDATES && entry != CLG_ENTRY_VALIDATE &&
      !in[CLG_IN_UPDATES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "updates is NULL");
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (entry == CLG_ENTRY_SCATTER &&
      (c->sc.reduction == CLG_REDUCTION_MIN ||
       c->sc.reduction == CLG_REDUCTION_MAX) &&
      (data->dtype == CLG_DTYPE_COMPLEX64 ||
       data->dtype == CLG_DTYPE_COMPLEX128))
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "reduction %s is not defined on complex numbers (%s)",
                     c->sc.reduction == CLG_REDUCTION_MIN ? "min" : "max",
                     clg_dtype_name(data->dtype));
  if (c->num_inputs > CLG_IN_UPDATES &&
      in[CLG_IN_UPDATES]->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "updates has element type %s but data has %s; %s "
                     "updates must have data's type",
                     clg_dtype_name(in[CLG_IN_UPDATES]->dtype),
                     clg_dtype_name(data->dtype), c->info->name);
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank >= 1",
                     (int)data->rank, c->info->name);
  for (int k = 0; k < c->num_inputs; ++k) {
    size_t elem = clg_dtype_size(k == CLG_IN_INDICES ? indices->dtype
                                                     : data->dtype);
    if ((st = clg__check_tensor(ctx, clg__input_names[k], in[k], elem,
                                &c->inf[k])) != CLG_SUCCESS)
      return st;
  }
  if ((st = clg__output_shape(params, data->rank, data->shape, indices->rank,
                              indices->shape, &c->norm, &c->out_rank,
                              c->out_shape)) != CLG_SUCCESS)
    return st;
  if (c->num_inputs > CLG_IN_UPDATES &&
      (st = c->impl->check_updates(&c->norm, data, indices,
                                   in[CLG_IN_UPDATES])) != CLG_SUCCESS)
    return st;
  return clg_check_indices_offset(indices, c->xf.elem_size);
}

/* Is `out` exactly input `in`'s storage (same bytes at the same place)? */
bool clg__same_storage(const clg_tensor *in, size_t in_bytes,
                             const clg_tensor *out, size_t out_bytes) {
  if (in->storage != out->storage || in_bytes != out_bytes)
    return false;
  return in->storage == CLG_STORAGE_BUFFER
             ? in->buffer == out->buffer && in->offset == out->offset
             : in->host == out->host;
}

bool clg__reads_output(const clg_checked *c) {
  return (c->info->params & CLG_PARAM_SCATTER) &&
         c->sc.reduction != CLG_REDUCTION_NONE;
}

/* The output against checked inputs: type, shape, size, and (unless
 * `shapes_only`: plan templates have no memory) no overlap with an input,
 * except the exact aliasing the operator allows (output_may_alias). */
static clg_status clg_check_output(clg_context *ctx, const clg_checked *c,
                                   const clg_tensor *const *in,
                                   const clg_tensor *output, bool shapes_only,
                                   clg_tensor_facts *of) {
  const clg_tensor *data = in[CLG_IN_DATA];
  if (output->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but data has %s; %s "
                     "output must have data's type",
                     clg_dtype_name(output->dtype), clg_dtype_name(data->dtype),
                     c->info->name);
  clg_status st = clg__check_tensor(ctx, "output", output, c->df.elem_size, of);
  if (st != CLG_SUCCESS)
    return st;
  /* clg__check_tensor refused an output the kernels cannot write; one they
   * must also read cannot be write-only (reading it is undefined in
   * OpenCL: a GPU may place it where reads return anything). */
  if (!shapes_only && output->storage == CLG_STORAGE_BUFFER &&
      (of->flags & CL_MEM_WRITE_ONLY) && clg__reads_output(c)) {
    static const char *const reds[] = {"none", "add", "mul", "min", "max"};
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "output->buffer was created with CL_MEM_WRITE_ONLY, but "
                     "%s with reduction %s reads its output (each update is "
                     "combined with the element it lands on): create it "
                     "CL_MEM_READ_WRITE",
                     c->info->name, reds[c->sc.reduction]);
  }
  bool same = output->rank == c->out_rank;
  for (int32_t i = 0; same && i < c->out_rank; ++i)
    same = output->shape[i] == c->out_shape[i];
  if (!same) {
    char got[512], exp[512], what[128];
    clg__format_shape(got, sizeof got, output->rank, output->shape);
    clg__format_shape(exp, sizeof exp, c->out_rank, c->out_shape);
    c->impl->describe(&c->norm, what, sizeof what);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s but %s produces %s", got, what, exp);
  }
  if (shapes_only)
    return CLG_SUCCESS;
  for (int k = 0; k < c->num_inputs; ++k) {
    if (c->impl->output_may_alias && c->impl->output_may_alias(k) &&
        clg__same_storage(in[k], c->inf[k].bytes, output, of->bytes))
      continue;
    if ((st = clg__check_no_overlap(clg__input_names[k], in[k],
                                    c->inf[k].bytes, output, of->bytes)) !=
        CLG_SUCCESS)
      return st;
  }
  return CLG_SUCCESS;
}

clg_status clg__validate_dense(clg_context *ctx, const clg_params *params,
                               const clg_tensor *data,
                               const clg_tensor *indices,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list) {
  if (data && indices && !ctx &&
      (data->storage == CLG_STORAGE_BUFFER ||
       indices->storage == CLG_STORAGE_BUFFER))
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "ctx is NULL, but data or indices is a cl_mem");
  clg_checked c;
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, NULL};
  clg_status st = clg_check_inputs(ctx, params, NULL, CLG_ENTRY_VALIDATE, in,
                                   num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      (st = clg__resolve_queue(ctx, queue, &queue)) != CLG_SUCCESS)
    return st;
  if ((st = clg__check_index_values(ctx, &c, queue, data, indices, num_events,
                                    wait_list)) != CLG_SUCCESS)
    return st;
  return clg__ok();
}

clg_status clg__check_call(const clg_call *call, clg_checked *c,
                           clg_tensor_facts *of, cl_command_queue *queue) {
  if (!call->ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  clg_status st = clg_check_inputs(
      call->ctx, call->params, call->scatter,
      call->is_scatter ? CLG_ENTRY_SCATTER : CLG_ENTRY_GATHER, call->in,
      call->num_events, call->wait_list, c);
  if (st != CLG_SUCCESS)
    return st;
  if (!call->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  if ((st = clg_check_output(call->ctx, c, call->in, call->output, false,
                             of)) != CLG_SUCCESS)
    return st;
  return clg__resolve_queue(call->ctx, call->queue, queue);
}

/* A template as clg__check_call() can check without memory: host storage
 * at a non-NULL address that is never read. */
static void clg_template(const clg_tensor *t, clg_tensor *out) {
  static unsigned char nowhere;
  *out = *t;
  if (t->storage == CLG_STORAGE_HOST || t->storage == CLG_STORAGE_BUFFER ||
      clg__strides(t)) {
    out->storage = CLG_STORAGE_HOST;
    out->host = &nowhere;
    out->buffer = NULL;
  }
}

clg_status clg__check_templates(clg_context *ctx, const clg_params *params,
                                const clg_scatter_params *sc, bool scatter,
                                const clg_tensor *const *in,
                                const clg_tensor *output, clg_checked *c,
                                clg_tensor_facts *of) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!in[CLG_IN_DATA])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!in[CLG_IN_INDICES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_tensor t[CLG_MAX_INPUTS], o;
  const clg_tensor *tin[CLG_MAX_INPUTS] = {NULL, NULL, NULL};
  for (int k = 0; k < CLG_MAX_INPUTS; ++k)
    if (in[k]) {
      clg_template(in[k], &t[k]);
      tin[k] = &t[k];
    }
  clg_template(output, &o);
  clg_status st =
      clg_check_inputs(ctx, params, sc,
                       scatter ? CLG_ENTRY_SCATTER : CLG_ENTRY_GATHER, tin, 0,
                       NULL, c);
  if (st == CLG_SUCCESS)
    st = clg_check_output(ctx, c, tin, &o, true, of);
  if (st != CLG_SUCCESS)
    return st;
  return clg_check_indices_offset(in[CLG_IN_INDICES], c->xf.elem_size);
}

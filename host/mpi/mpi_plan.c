/* clgather_mpi's plan (clg_mpi_plan_*): the geometry agreed once, a
 * workspace that only grows, and the staging of ids and rows between the
 * device and MPI. A cl_mem shard is staged through buffers the device
 * allocates for host access (CL_MEM_ALLOC_HOST_PTR): pinned host memory on
 * a discrete GPU, so a map is one DMA at full speed; the device's own
 * memory on a CPU or integrated device, so a map copies nothing. MPI sends
 * from and receives into the mapped pointers directly. A host shard is
 * gathered through host buffers (the core library wraps them in place
 * where the device shares host memory). CLGATHER_MPI_STAGING=host|mapped
 * overrides the choice (tests take the mapped path on POCL so). Rows may
 * also be exchanged point to point, overlapping staging and communication
 * (mpi_overlap.c). */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

void *clg__mpi_ws(clg_mpi_plan *p, int which, size_t bytes) {
  clg_mpi_buf *b = &p->buf[which];
  if (bytes == 0)
    bytes = 1;
  if (b->cap >= bytes)
    return b->p;
  free(b->p);
  b->cap = 0;
  b->p = malloc(bytes);
  if (!b->p) {
    clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                  "out of host memory for %zu bytes of the exchange", bytes);
    return NULL;
  }
  b->cap = bytes;
  return b->p;
}

static clg_status clg_cl(cl_int err, const char *call, const char *what) {
  return clg__mpi_fail(CLG_ERROR_OPENCL, "%s failed (OpenCL error %d) %s",
                       call, (int)err, what);
}

static clg_status clg_grow(clg_mpi_plan *p, cl_mem *m, size_t *cap,
                           size_t bytes, const char *what) {
  if (bytes == 0)
    bytes = 64;
  if (*m && *cap >= bytes)
    return CLG_SUCCESS;
  if (*m)
    clReleaseMemObject(*m);
  *m = NULL;
  *cap = 0;
  cl_int err = CL_SUCCESS;
  *m = clCreateBuffer(clg_context_cl_context(p->table.ctx),
                      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                      &err);
  if (!*m)
    return clg_cl(err, "clCreateBuffer", what);
  *cap = bytes;
  return CLG_SUCCESS;
}

clg_status clg__mpi_stage_reserve(clg_mpi_plan *p, size_t ids_bytes,
                                  size_t rows_bytes) {
  clg_status st = clg_grow(p, &p->st_ids, &p->st_ids_cap, ids_bytes,
                           "allocating the staging buffer of ids");
  if (st == CLG_SUCCESS)
    st = clg_grow(p, &p->st_rows, &p->st_rows_cap, rows_bytes,
                  "allocating the staging buffer of rows");
  return st;
}

clg_status clg__mpi_map(clg_mpi_plan *p, cl_mem m, bool write, size_t bytes,
                        cl_event wait, void **ptr) {
  cl_int err = CL_SUCCESS;
  *ptr = clEnqueueMapBuffer(p->queue, m, CL_TRUE,
                            write ? CL_MAP_WRITE_INVALIDATE_REGION
                                  : CL_MAP_READ,
                            0, bytes ? bytes : 1, wait ? 1 : 0,
                            wait ? &wait : NULL, NULL, &err);
  if (!*ptr)
    return clg_cl(err, "clEnqueueMapBuffer", "mapping a staging buffer");
  return CLG_SUCCESS;
}

clg_status clg__mpi_unmap(clg_mpi_plan *p, cl_mem m, void *ptr) {
  cl_event ev = NULL;
  cl_int err = clEnqueueUnmapMemObject(p->queue, m, ptr, 0, NULL, &ev);
  if (err == CL_SUCCESS) {
    err = clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  if (err != CL_SUCCESS)
    return clg_cl(err, "clEnqueueUnmapMemObject",
                  "unmapping a staging buffer");
  return CLG_SUCCESS;
}

clg_status clg__mpi_stage_ids(clg_mpi_plan *p, const int64_t *ids, size_t m) {
  void *ptr = NULL;
  clg_status st = clg__mpi_map(p, p->st_ids, true, m * sizeof *ids, NULL, &ptr);
  if (st != CLG_SUCCESS)
    return st;
  memcpy(ptr, ids, m * sizeof *ids);
  return clg__mpi_unmap(p, p->st_ids, ptr);
}

/* The staging this plan takes: the environment's, else mapped for a
 * cl_mem shard. */
static bool clg_staging_mapped(const clg_mpi_table *t) {
  const char *env = getenv("CLGATHER_MPI_STAGING");
  if (env && strcmp(env, "mapped") == 0)
    return true;
  if (env && strcmp(env, "host") == 0)
    return false;
  return t->shard.storage == CLG_STORAGE_BUFFER;
}

/* Overlap where a map is a real copy: a mapped plan on a device that does
 * not share host memory, with peers to talk to; or as the environment says
 * (CLGATHER_MPI_OVERLAP=0|1). One choice for all ranks (any rank wanting it
 * makes every rank exchange point to point); then the communicator is
 * duplicated. Collective. */
static clg_status clg_choose_overlap(clg_mpi_plan *p) {
  int want = 0;
  const char *env = getenv("CLGATHER_MPI_OVERLAP");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)) {
    want = env[0] == '1';
  } else if (p->mapped && p->g.size > 1) {
    cl_bool unified = CL_TRUE;
    clGetDeviceInfo(clg_context_device(p->table.ctx),
                    CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified,
                    NULL);
    want = unified != CL_TRUE;
  }
  int any = 0;
  int err = MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, p->table.comm);
  if (err == MPI_SUCCESS && any)
    err = MPI_Comm_dup(p->table.comm, &p->comm);
  if (err != MPI_SUCCESS)
    return clg__mpi_error(err, "MPI_Comm_dup");
  p->overlap = any != 0;
  return CLG_SUCCESS;
}

clg_status clg_mpi_plan_create(const clg_mpi_table *table,
                               clg_mpi_plan **plan) {
  clg__mpi_clear();
  if (!plan)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  *plan = NULL;
  if (!table)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "table is NULL");
  int rank = 0;
  MPI_Comm_rank(table->comm, &rank);
  clg_status st = clg__mpi_check_table(table);
  clg_mpi_plan *p = NULL;
  if (st == CLG_SUCCESS) {
    p = calloc(1, sizeof *p);
    if (!p)
      st = clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for a plan");
  }
  if ((st = clg__mpi_agree(table->comm, rank, st)) != CLG_SUCCESS) {
    free(p);
    return st;
  }
  p->table = *table;
  p->queue = table->queue ? table->queue : clg_context_queue(table->ctx);
  p->mapped = clg_staging_mapped(table);
  p->comm = MPI_COMM_NULL;
  st = clg__mpi_geometry(table, &p->g);
  if (st == CLG_SUCCESS)
    st = clg_choose_overlap(p);
  if (st == CLG_SUCCESS) {
    st = clg__mpi_counts_alloc(&p->gc, p->g.size);
    if (st == CLG_SUCCESS)
      st = clg__mpi_counts_alloc(&p->sc, p->g.size);
    st = clg__mpi_agree(table->comm, rank, st);
  }
  if (st != CLG_SUCCESS) {
    clg_mpi_plan_destroy(p);
    return st;
  }
  *plan = p;
  return CLG_SUCCESS;
}

const char *clg_mpi_plan_staging(const clg_mpi_plan *plan) {
  return !plan ? "" : plan->mapped ? "mapped" : "host";
}

void clg_mpi_plan_destroy(clg_mpi_plan *plan) {
  if (!plan)
    return;
  for (int i = 0; i < CLG_MPI_NBUF; ++i)
    free(plan->buf[i].p);
  if (plan->st_ids)
    clReleaseMemObject(plan->st_ids);
  if (plan->st_rows)
    clReleaseMemObject(plan->st_rows);
  clg__mpi_counts_free(&plan->gc);
  clg__mpi_counts_free(&plan->sc);
  clg__mpi_geometry_free(&plan->g);
  if (plan->comm != MPI_COMM_NULL)
    MPI_Comm_free(&plan->comm);
  free(plan);
}

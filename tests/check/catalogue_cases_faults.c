/*
 * The gathers' bad-input catalogue, part 3 of the table: device specs
 * that match nothing and OpenCL / host-allocation failures by fault
 * injection (host/core/faults.h), and the builders of the fault and
 * clg_context_create*() entries (the latter also serve part 1,
 * catalogue_cases_gather.c; part 2 is catalogue_cases_run.c; the runner is
 * test_catalogue.c).
 */
#include "catalogue_fx.h"

/* A fault: p[0] kind, p[1] skip, p[2] error. */
CAT_BUILDER(b_fault) {
  c->fault = true;
  c->fkind = (clg_fault)p[0];
  c->fskip = (unsigned)p[1];
  c->ferr = (cl_int)p[2];
}
B(b_fault_caller_queue) {
  b_fault(c, p);
  c->queue = c->io_q;
}
/* clg_context_create_default: p[0] spec index (-1: NULL), p[1] NULL out,
 * p[2] >= 0: a fault kind, p[3] its error. */
CAT_BUILDER(b_ctx_default) {
  static const char *const specs[] = {"no-such-device-4f1c2e", "9:9", "0:999",
                                      "999:0", "99999999999999999999:0"};
  c->kind = K_CTX_DEFAULT;
  c->spec = p[0] < 0 ? NULL : specs[p[0]];
  c->no_out = p[1] != 0;
  if (p[2] >= 0) {
    c->fault = true;
    c->fkind = (clg_fault)p[2];
    c->fskip = 0;
    c->ferr = (cl_int)p[3];
  }
}
/* clg_context_create: p[0] 1: context NULL, p[1] 1: device NULL, p[2] 1:
 * out NULL, p[3] >= 0: a fault kind, p[4] its error. */
CAT_BUILDER(b_ctx_create) {
  c->kind = K_CTX_CREATE;
  c->cc_ctx = p[0] ? NULL : c->clctx;
  c->cc_dev = p[1] ? NULL : tu_device();
  c->no_out = p[2] != 0;
  if (p[3] >= 0) {
    c->fault = true;
    c->fkind = (clg_fault)p[3];
    c->fskip = 0;
    c->ferr = (cl_int)p[4];
  }
}
/* clg_context_create with a device that is not in the cl_context: a
 * sub-device of it, where the device can be partitioned equally (its
 * CL_DEVICE_PARTITION_MAX_SUB_DEVICES and CL_DEVICE_PARTITION_PROPERTIES
 * say so: Mesa 22.3's Rusticl reports 0 and crashes in
 * clCreateSubDevices). */
CAT_BUILDER(b_ctx_create_subdevice) {
  UNUSED_P;
  c->kind = K_CTX_CREATE;
  c->cc_ctx = c->clctx;
  cl_uint cu = 0, max_subs = 0;
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_MAX_COMPUTE_UNITS,
                              sizeof cu, &cu, NULL),
              "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                              sizeof max_subs, &max_subs, NULL),
              "clGetDeviceInfo(CL_DEVICE_PARTITION_MAX_SUB_DEVICES)");
  cl_device_partition_property kinds[8] = {0};
  size_t kbytes = 0;
  bool equally = false;
  if (clGetDeviceInfo(tu_device(), CL_DEVICE_PARTITION_PROPERTIES,
                      sizeof kinds, kinds, &kbytes) == CL_SUCCESS)
    for (size_t k = 0; k < kbytes / sizeof *kinds && k < 8; ++k)
      equally = equally || kinds[k] == CL_DEVICE_PARTITION_EQUALLY;
  const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1,
                                                0};
  cl_device_id subs[64];
  cl_uint n = 0;
  if (cu < 2 || cu > 64 || max_subs < 2 || !equally ||
      clCreateSubDevices(tu_device(), props, 64, subs, &n) != CL_SUCCESS ||
      n == 0) {
    c->skip = "the device cannot be partitioned into sub-devices";
    return;
  }
  for (cl_uint k = 1; k < n; ++k)
    clReleaseDevice(subs[k]);
  c->owned_dev = subs[0];
  c->cc_dev = subs[0];
}

/* clang-format off */
const cat_case cat_cases_faults[] = {
    /* ---- devices */
    {"device spec matching no name", b_ctx_default, {0, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device name contains", "no-such-device-4f1c2e"}, CAT_ONCE},
    {"device spec 9:9", b_ctx_default, {1, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 9:9"}, CAT_ONCE},
    {"device spec 0:999", b_ctx_default, {2, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 0:999"}, CAT_ONCE},
    {"device spec 999:0", b_ctx_default, {3, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 999:0"}, CAT_ONCE},
    /* past unsigned long: named as written, not as strtoul's saturation */
    {"device spec 99999999999999999999:0", b_ctx_default, {4, 0, NOF},
     ST(NO_DEVICE), {"no OpenCL device 99999999999999999999:0"}, CAT_ONCE},

    /* ---- OpenCL failures (fault injection), before any kernel */
    {"clCreateBuffer fails staging host data", b_fault,
     {F(CREATE_BUFFER), 0, CL_MEM_OBJECT_ALLOCATION_FAILURE}, ST(OPENCL),
     {"clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE", "host data"},
     0},
    {"clEnqueueReadBuffer fails reading back cl_mem indices", b_fault,
     {F(READ_BUFFER), 0, CL_OUT_OF_RESOURCES}, ST(OPENCL),
     {"clEnqueueReadBuffer failed: CL_OUT_OF_RESOURCES", "indices"},
     CAT_IDX_BUF_ONLY},
    {"clGetMemObjectInfo fails on the output cl_mem", b_fault,
     {F(MEM_INFO), 0, CL_INVALID_MEM_OBJECT}, ST(OPENCL),
     {"clGetMemObjectInfo failed: CL_INVALID_MEM_OBJECT", "output->buffer"},
     CAT_OUT_BUF},
    {"clGetCommandQueueInfo fails on the caller's queue", b_fault_caller_queue,
     {F(QUEUE_INFO), 0, CL_INVALID_COMMAND_QUEUE}, ST(OPENCL),
     {"clGetCommandQueueInfo failed: CL_INVALID_COMMAND_QUEUE"}, 0},
    {"clCreateCommandQueue fails (context's own queue)", b_fault,
     {F(CREATE_QUEUE), 0, CL_OUT_OF_HOST_MEMORY}, ST(OPENCL),
     {"clCreateCommandQueue failed: CL_OUT_OF_HOST_MEMORY"}, CAT_FRESH},
    {"clCreateContext fails", b_ctx_default,
     {NOSPEC, 0, F(CREATE_CONTEXT), CL_OUT_OF_HOST_MEMORY}, ST(OPENCL),
     {"clCreateContext failed: CL_OUT_OF_HOST_MEMORY"}, CAT_ONCE},
    {"clGetDeviceInfo fails in clg_context_create", b_ctx_create,
     {0, 0, 0, F(DEVICE_INFO), CL_INVALID_DEVICE}, ST(OPENCL),
     {"clGetDeviceInfo failed: CL_INVALID_DEVICE"}, CAT_ONCE},
    {"clBuildProgram fails", b_fault,
     {F(BUILD_PROGRAM), 0, CL_BUILD_PROGRAM_FAILURE}, ST(BUILD_FAILED),
     {"clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE", "build log"},
     CAT_FRESH},
    {"malloc fails for the indices read-back copy", b_fault,
     {F(HOST_ALLOC), 0, 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory reading back 48 bytes of indices"}, CAT_IDX_BUF_ONLY},
    {"calloc fails for the context (clg_context_create_default)", b_ctx_default,
     {NOSPEC, 0, F(HOST_ALLOC), 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory allocating a context"}, CAT_ONCE},
    {"calloc fails in clg_context_create", b_ctx_create,
     {0, 0, 0, F(HOST_ALLOC), 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory"}, CAT_ONCE},
};
/* clang-format on */

const size_t cat_ncases_faults =
    sizeof cat_cases_faults / sizeof cat_cases_faults[0];

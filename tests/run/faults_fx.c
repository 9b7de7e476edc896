/* The helpers of test_faults (faults_fx.h): injected errors, their status
 * and message, the cl_context's reference count, the injection points
 * covered, a fresh clg_context. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>

/* The fault-injection API without the macros that would route this file's
 * own OpenCL calls through the counting wrappers: only host/ is counted. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"

#include "run/faults_fx.h"

/* ---------------------------------------------------------- helpers */

/* The error each kind is made to fail with (a realistic one per call). */
cl_int fault_error(clg_fault k) {
  switch (k) {
  case CLG_FAULT_CREATE_CONTEXT: return CL_OUT_OF_HOST_MEMORY;
  case CLG_FAULT_CREATE_QUEUE: return CL_OUT_OF_RESOURCES;
  case CLG_FAULT_DEVICE_INFO: return CL_INVALID_DEVICE;
  case CLG_FAULT_MEM_INFO: return CL_INVALID_MEM_OBJECT;
  case CLG_FAULT_QUEUE_INFO: return CL_INVALID_COMMAND_QUEUE;
  case CLG_FAULT_CREATE_BUFFER: return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  case CLG_FAULT_CREATE_PROGRAM: return CL_OUT_OF_HOST_MEMORY;
  case CLG_FAULT_BUILD_PROGRAM: return CL_BUILD_PROGRAM_FAILURE;
  case CLG_FAULT_CREATE_KERNEL: return CL_INVALID_KERNEL_DEFINITION;
  case CLG_FAULT_SET_KERNEL_ARG: return CL_INVALID_ARG_SIZE;
  case CLG_FAULT_ENQUEUE_KERNEL: return CL_OUT_OF_RESOURCES;
  case CLG_FAULT_READ_BUFFER:
    return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  case CLG_FAULT_MARKER: return CL_OUT_OF_HOST_MEMORY;
  case CLG_FAULT_WAIT: return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  case CLG_FAULT_HOST_ALLOC: return CL_OUT_OF_HOST_MEMORY; /* unused */
  /* The disk cache's calls (off in this suite: its failures are silent). */
  case CLG_FAULT_CREATE_PROGRAM_BINARY: return CL_INVALID_BINARY;
  case CLG_FAULT_PROGRAM_INFO: return CL_INVALID_PROGRAM;
  /* Only by clg_run_sharded over 2+ devices (tested in test_shard). */
  case CLG_FAULT_CREATE_SUB_BUFFER: return CL_MISALIGNED_SUB_BUFFER_OFFSET;
  case CLG_FAULT_COUNT: break;
  }
  return CL_OUT_OF_RESOURCES;
}

static const char *error_name(cl_int e) {
  switch (e) {
  case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
  case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
  case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
  case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
  case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
  case CL_INVALID_KERNEL_DEFINITION: return "CL_INVALID_KERNEL_DEFINITION";
  case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
  case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
  }
  return "?";
}

clg_status expected_status(clg_fault k) {
  return k == CLG_FAULT_BUILD_PROGRAM ? CLG_ERROR_BUILD_FAILED
         : k == CLG_FAULT_HOST_ALLOC  ? CLG_ERROR_OUT_OF_HOST_MEMORY
                                      : CLG_ERROR_OPENCL;
}

/* The message names the call and the error ("clCreateBuffer failed:
 * CL_MEM_OBJECT_ALLOCATION_FAILURE"); a host allocation says so. */
void check_message(const char *label, clg_fault k, const char *msg) {
  if (k == CLG_FAULT_HOST_ALLOC) {
    cr_expect(tu_contains(msg, "out of host memory"),
              "%s: message lacks \"out of host memory\": \"%s\"", label, msg);
    return;
  }
  char want[160];
  snprintf(want, sizeof want, "%s failed: %s", clg_fault_call_name(k),
           error_name(fault_error(k)));
  cr_expect(tu_contains(msg, want), "%s: message lacks \"%s\": \"%s\"", label,
            want, msg);
}

/* The shared cl_context's settled reference count (testutil.h), once the
 * tests' and the shared clg_context's queues are finished. */
cl_uint context_refs(void) {
  cl_command_queue q = clg_context_queue(tu_ctx());
  cr_assert(q != NULL);
  tu_cl_check(clFinish(q), "clFinish (context queue)");
  return tu_context_refs(tu_cl_context());
}

/* ... after the code under test ran, against `before` (testutil.h). */
cl_uint context_refs_after(cl_uint before) {
  cl_command_queue q = clg_context_queue(tu_ctx());
  cr_assert(q != NULL);
  tu_cl_check(clFinish(q), "clFinish (context queue)");
  return tu_context_refs_after(tu_cl_context(), before);
}

unsigned g_points;                   /* injection points covered */
unsigned g_by_kind[CLG_FAULT_COUNT]; /* ... per kind */

void count_point(clg_fault k) {
  ++g_points;
  ++g_by_kind[k];
}

clg_context *fresh_context(void) {
  clg_context *ctx = NULL;
  clg_status st = clg_context_create(tu_cl_context(), tu_device(), &ctx);
  cr_assert(st == CLG_SUCCESS, "clg_context_create: %s", clg_last_error());
  return ctx;
}

/* keep_buffers.so: an LD_PRELOAD library for the Oclgrind runs
 * (check.sh): clReleaseMemObject does nothing, so no buffer is ever freed
 * while a test process runs.
 *
 * Why: Oclgrind 21.10's uninitialized-value check keeps each buffer's
 * record of which bytes were written under the buffer's id and does not
 * drop it when the buffer is released; a later buffer created without host
 * data on the same id inherits the old record at the old size (stores past
 * it are not recorded, loads past it are reported as uninitialized; a
 * 20-line pyopencl script shows 252 false reports after releasing a 16-byte
 * buffer). With nothing released no id is reused, every new buffer starts
 * as uninitialized as it is, and a real read of unwritten memory is still
 * reported. The suites under Oclgrind are small: the memory kept is too. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  return memobj ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
}

/* clGetDeviceInfo for the MPI test programs: the ICD loader's, except that
 * while g_hide_fp64 is set CL_DEVICE_EXTENSIONS comes back without
 * cl_khr_fp64 (blanked out, same length). POCL has doubles, so the refusal
 * of a reduction needing them could not be reached otherwise. The dynamic
 * linker looks in the executable first, so this definition (exported, see
 * CMakeLists.txt) serves clgather_mpi and clgather too; the real function
 * is the next one, dlsym(RTLD_NEXT). */
#define _GNU_SOURCE
#include "mpi_support.h"

#include <dlfcn.h>
#include <string.h>

bool g_hide_fp64;

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device,
                                                cl_device_info param,
                                                size_t size, void *value,
                                                size_t *size_ret) {
  typedef cl_int(CL_API_CALL * info_fn)(cl_device_id, cl_device_info, size_t,
                                        void *, size_t *);
  static info_fn real;
  if (!real) {
    void *f = dlsym(RTLD_NEXT, "clGetDeviceInfo");
    if (!f)
      return CL_INVALID_OPERATION;
    memcpy(&real, &f, sizeof real);
  }
  cl_int err = real(device, param, size, value, size_ret);
  if (err == CL_SUCCESS && g_hide_fp64 && param == CL_DEVICE_EXTENSIONS &&
      value)
    for (char *at = strstr(value, "cl_khr_fp64"); at;
         at = strstr(at, "cl_khr_fp64"))
      memset(at, ' ', strlen("cl_khr_fp64"));
  return err;
}

/* clGetDeviceInfo for test_mpi_plan: the ICD loader's, except that while
 * g_hide_fp64 is set CL_DEVICE_EXTENSIONS comes back without cl_khr_fp64
 * (blanked out, same length). POCL has doubles, so the refusal of a
 * reduction needing them could not be reached otherwise. The dynamic
 * linker looks in the executable first, so this definition (exported, see
 * CMakeLists.txt) serves clgather_mpi and clgather too; the real function
 * is the next one, dlsym(RTLD_NEXT). ELF systems with glibc (Debian). */
#define _GNU_SOURCE
#include "mpi_support.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Atomic bool g_hide_fp64;

typedef cl_int(CL_API_CALL *info_fn)(cl_device_id, cl_device_info, size_t,
                                     void *, size_t *);
static info_fn g_real;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void find_real(void) {
  void *f = dlsym(RTLD_NEXT, "clGetDeviceInfo");
  if (!f) {
    fprintf(stderr, "hide_fp64: no clGetDeviceInfo after the executable's: "
                    "%s\n", dlerror());
    abort();
  }
  memcpy(&g_real, &f, sizeof g_real);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device,
                                                cl_device_info param,
                                                size_t size, void *value,
                                                size_t *size_ret) {
  pthread_once(&g_once, find_real);
  cl_int err = g_real(device, param, size, value, size_ret);
  if (err == CL_SUCCESS && g_hide_fp64 && param == CL_DEVICE_EXTENSIONS &&
      value)
    for (char *at = strstr(value, "cl_khr_fp64"); at;
         at = strstr(at, "cl_khr_fp64"))
      memset(at, ' ', strlen("cl_khr_fp64"));
  return err;
}

# Sourced (not run) by the scripts that run the suites on POCL: test.sh,
# sanitize.sh, fuzz.sh, test-packages.sh and test-devices.sh's POCL stage.
# The ICD loader is given POCL's ICD alone, unless the caller set
# OCL_ICD_VENDORS. The other implementations a machine has are tested on
# their own (test-devices.sh runs Rusticl with its ICD alone), and with
# them loaded the POCL runs fail or crawl: Mesa's ICDs (mesa-opencl-icd,
# which desktop Debian installs: Clover and Rusticl) load LLVM in every
# process that lists the platforms (3.4 s a process with all three on the
# 2-core CI machine, 0.1 s with POCL's alone, paid by every forked test
# process); Clover throws a C++ exception while the loader opens it,
# before AddressSanitizer's __cxa_throw interceptor exists in a C program
# (the sanitize step failed 74 of 86 tests so); Rusticl leaks 72 bytes at
# load (LeakSanitizer stopped every fuzz harness on it).
icd_dir=${OCL_ICD_VENDORS_DIR:-/etc/OpenCL/vendors}
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -f "$icd_dir/pocl.icd" ] &&
  [ "$(ls "$icd_dir" | wc -l)" -gt 1 ]; then
  export OCL_ICD_VENDORS="$icd_dir/pocl.icd"
  echo "icd-pocl: OpenCL through POCL's ICD alone (OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
fi

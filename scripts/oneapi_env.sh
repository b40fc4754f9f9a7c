# shellcheck shell=bash
# scripts/oneapi_env.sh - sourced by scripts/test.sh (before ctest) and scripts/test_python.sh: point the
# oneAPI tests (ctest label oneapi, python/tests/test_oneapi.py) at the dpctl and Intel OpenCL CPU runtime
# that scripts/venv.sh installs into .venv (dlx_venv_peer dpctl ...), so that they run instead of skipping.
#
#   dlx_oneapi_env [venv]   (default .venv) exports
#     DLX_DPCTL_LIBRARY  <venv site-packages>/dpctl/libDPCTLSyclInterface.so (dpctl's C API, dlopened by dlx)
#     OCL_ICD_VENDORS    <venv>/dlx-oneapi-icd: a folder of two .icd files, each naming the venv's
#                        lib/libintelocl.so by its absolute path, one the file itself, the other its second
#                        copy (the wheel ships libintelocl.so and libintelocl.so.<version> as two files;
#                        without one, a copy made here). Two files are two OpenCL platforms, so SYCL has
#                        two CPU devices, oneapi:0 and oneapi:1.
# The wheel's own .icd file (<venv>/etc/OpenCL/vendors) holds a build-time placeholder path, so out of the
# box dpctl.get_devices() is empty. The folder is made fresh each time, under the venv (never committed:
# it holds this machine's absolute paths). Without dpctl or the runtime nothing is exported and the tests
# skip with their reason. Do not install Debian's pocl instead: it aborts the process.
dlx_oneapi_env() {
  local venv=${1:-.venv} py abs pkg lib second dir
  py=$venv/bin/python
  if [ ! -x "$py" ]; then
    echo "== oneAPI: no $venv: the oneAPI tests skip"
    return 0
  fi
  abs=$(cd "$venv" && pwd)
  # find dpctl without importing it (an import would start SYCL before OCL_ICD_VENDORS is set)
  pkg=$("$py" -c 'import importlib.util as u; s = u.find_spec("dpctl"); print(s.submodule_search_locations[0] if s and s.submodule_search_locations else "")' 2>/dev/null) || pkg=""
  if [ -z "$pkg" ] || [ ! -f "$pkg/libDPCTLSyclInterface.so" ]; then
    echo "== oneAPI: dpctl is not installed in $venv: the oneAPI tests skip"
    return 0
  fi
  export DLX_DPCTL_LIBRARY="$pkg/libDPCTLSyclInterface.so"
  lib=$abs/lib/libintelocl.so
  if [ ! -f "$lib" ]; then
    echo "== oneAPI: DLX_DPCTL_LIBRARY=$DLX_DPCTL_LIBRARY; no $lib (intel-opencl-rt): SYCL finds no device"
    return 0
  fi
  dir=$abs/dlx-oneapi-icd
  rm -rf "$dir"
  mkdir -p "$dir"
  second=""
  for f in "$abs"/lib/libintelocl.so.[0-9]*; do
    # a second file, not a link to the first: dlopen hands back the same library for the same inode
    if [ -f "$f" ] && [ ! -L "$f" ] && [ ! "$f" -ef "$lib" ]; then
      second=$f
      break
    fi
  done
  if [ -z "$second" ]; then
    second=$dir/libintelocl-second.so
    cp "$lib" "$second"
  fi
  printf '%s\n' "$lib" >"$dir/dlx-intel-cpu-0.icd"
  printf '%s\n' "$second" >"$dir/dlx-intel-cpu-1.icd"
  export OCL_ICD_VENDORS="$dir"
  echo "== oneAPI: DLX_DPCTL_LIBRARY=$DLX_DPCTL_LIBRARY, OCL_ICD_VENDORS=$OCL_ICD_VENDORS (2 platforms)"
}

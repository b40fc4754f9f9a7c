"""Build of the dlx extension: the C library (src/core, exchange, compute, backends, tensor) and the CPython module (src/pyext) in one .so."""
import atexit
import glob
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _rel(pattern):
    return sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, pattern)))


def _version():
    with open(os.path.join(HERE, "include", "dlx", "version.h")) as f:
        return re.search(r'DLX_VERSION_STRING "([^"]+)"', f.read()).group(1)


class BuildPyWithHeaders(build_py):
    """Ship include/dlx/*.h inside the package, so dlx.get_include() serves C extensions."""

    def run(self):
        super().run()
        dst = os.path.join(self.build_lib, "dlx", "include", "dlx")
        os.makedirs(dst, exist_ok=True)
        for h in glob.glob(os.path.join(HERE, "include", "dlx", "*.h")):
            shutil.copy(h, dst)
        with open(os.path.join(self.build_lib, "dlx", "_version.py"), "w") as f:
            f.write(f'VERSION = "{_version()}"\n')


_CBLAS_PROBE = """#include <cblas.h>
int main(void) {
  float a = 2, b = 3, c = 0;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
  return c != 6.0f;
}
"""


def _cblas():
    """(include_dirs, library_dirs, libraries) of a CBLAS that compiles and links, or None.

    dlx.matmul needs CBLAS (Debian: libopenblas-dev); without one the module still builds and gemm
    raises TypeError. DLX_WITH_BLAS=0 in the environment skips the probe."""
    if os.environ.get("DLX_WITH_BLAS", "1") == "0":
        return None
    candidates = []
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "openblas"], capture_output=True, text=True,
                               check=True).stdout.split()
        candidates.append(([f[2:] for f in flags if f.startswith("-I")], [f[2:] for f in flags if f.startswith("-L")],
                           [f[2:] for f in flags if f.startswith("-l")]))
    except (OSError, subprocess.CalledProcessError):
        pass
    candidates += [([], [], ["openblas"]), (["/usr/include/openblas"], [], ["openblas"]), ([], [], ["cblas"])]
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(_CBLAS_PROBE)
        for inc, libdirs, libs in candidates:
            cmd = cc + [src, "-o", os.path.join(tmp, "probe")] + ["-I" + d for d in inc] + ["-L" + d for d in libdirs]
            cmd += ["-l" + lib for lib in libs]
            if subprocess.run(cmd, capture_output=True).returncode == 0:
                return inc, libdirs, libs
    return None


_blas = _cblas()

# dlx._testing (src/pyext/testing.c: capsule factories, deleter counters, finalization hooks) is only
# compiled into test builds: DLX_PY_TESTING=1, as scripts/test_python.sh and the sanitizer run set it.
_testing = os.environ.get("DLX_PY_TESTING", "0") == "1"
# The CUDA backend (src/backends/cuda) needs nvcc and is built by CMake (DLX_WITH_CUDA); this build
# has none, and src/backends/cuda_absent.c answers dlx/cuda.h.
_sources = [s for s in _rel("src/*/*.c") + _rel("src/backends/*/*.c")
            if (_testing or not s.endswith("testing.c")) and not s.startswith(os.path.join("src", "backends", "cuda", ""))]

ext = Extension(
    "dlx._dlx",
    sources=_sources,
    include_dirs=["include", "src"] + (_blas[0] if _blas else []),
    library_dirs=_blas[1] if _blas else [],
    libraries=_blas[2] if _blas else [],
    # only src/backends/cpu/gemm_cblas.c looks at DLX_HAVE_CBLAS, only src/pyext/module.c at DLX_PY_TESTING
    define_macros=([("DLX_HAVE_CBLAS", "1")] if _blas else []) + ([("DLX_PY_TESTING", "1")] if _testing else []),
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)

# Nothing is written into the source tree (a read-only checkout builds): setuptools' build/ and
# *.egg-info go to a scratch directory, and the version comes from include/dlx/version.h directly.
_scratch = tempfile.mkdtemp(prefix="dlx-build-")
atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
setup(
    version=_version(),
    ext_modules=[ext],
    cmdclass={"build_py": BuildPyWithHeaders},
    options={"build": {"build_base": os.path.join(_scratch, "build")}, "egg_info": {"egg_base": _scratch}},
)

"""Build of the dlx extension: the C core (src/core) and the CPython module (src/python) in one .so."""
import glob
import os
import re
import shutil

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


# The version attribute setuptools reads at configure time.
os.makedirs(os.path.join(HERE, "python", "dlx"), exist_ok=True)
with open(os.path.join(HERE, "python", "dlx", "_version.py"), "w") as f:
    f.write(f'VERSION = "{_version()}"\n')

ext = Extension(
    "dlx._dlx",
    sources=_rel("src/core/*.c") + _rel("src/python/*.c"),
    include_dirs=["include", "src"],
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)

setup(ext_modules=[ext], cmdclass={"build_py": BuildPyWithHeaders})

"""Build the example extension against an installed dlx: it needs only the headers that
dlx.get_include() points to. No dlx library is linked: calls go through the dlx module's C API capsule."""
import dlx
from setuptools import Extension, setup

setup(
    name="dlx_example",
    version="0.1.0",
    ext_modules=[
        Extension("dlx_example", sources=["dlx_example.c"], include_dirs=[dlx.get_include()],
                  extra_compile_args=["-std=c11"])
    ],
)

"""dlx: zero-copy tensor exchange through DLPack, and computing on strided tensors.

The work is done in C (``dlx._dlx``, over libdlx); this package only re-exports it.
See docs/python-api.md for the full contract.
"""
import os as _os

from ._dlx import (  # noqa: F401
    DLPACK_VERSION,
    Tensor,
    __version__,
    add,
    negative,
    absolute,
    sign,
    square,
    sqrt,
    reciprocal,
    floor,
    ceil,
    trunc,
    rint,
    isnan,
    isinf,
    isfinite,
    signbit,
    logical_not,
    invert,
    positive,
    exp,
    exp2,
    expm1,
    log,
    log2,
    log10,
    log1p,
    tanh,
    sin,
    cos,
    abs,
    bitwise_not,
    maximum,
    minimum,
    fmax,
    fmin,
    remainder,
    floor_divide,
    power,
    copysign,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    left_shift,
    right_shift,
    logical_and,
    logical_or,
    logical_xor,
    where,
    clip,
    compress,
    all,
    any,
    arange,
    argmax,
    argmin,
    asarray,
    divide,
    empty,
    empty_like,
    equal,
    eye,
    fma,
    from_dlpack,
    full,
    full_like,
    get_num_threads,
    greater,
    greater_equal,
    less,
    less_equal,
    matmul,
    max,
    mean,
    min,
    multiply,
    not_equal,
    ones,
    ones_like,
    prod,
    set_num_threads,
    subtract,
    sum,
    zeros,
    zeros_like,
)


from . import cuda  # noqa: E402,F401 - dlx.cuda: devices, streams, the caching allocator
from . import oneapi  # noqa: E402,F401 - dlx.oneapi: SYCL USM through dpctl (dpctl is not imported)

try:  # test builds only (DLX_PY_TESTING=1 at build time): hooks for the test suite
    from ._dlx import _testing  # noqa: F401
except ImportError:
    pass


def _point_at_blas() -> None:
    """At ``import dlx``: DLX_BLAS_LIBRARY := the CBLAS library of the scipy-openblas32 package (a dependency of
    the wheel), unless already set. A wheel loads CBLAS at its first gemm from that variable
    (src/backends/cpu/gemm_cblas.c), so that it needs no library outside the manylinux policy; a C build links
    its own CBLAS and ignores it. The package is found, not imported."""
    if _os.environ.get("DLX_BLAS_LIBRARY"):
        return
    import glob
    import importlib.util

    spec = importlib.util.find_spec("scipy_openblas32")
    for d in (spec.submodule_search_locations or []) if spec is not None else []:
        libs = sorted(glob.glob(_os.path.join(d, "lib", "libscipy_openblas*.so*")))
        if libs:
            _os.environ["DLX_BLAS_LIBRARY"] = libs[0]
            return


_point_at_blas()


def get_include() -> str:
    """The directory holding ``dlx/*.h`` (for C extensions using ``dlx/python.h``)."""
    return _os.path.join(_os.path.dirname(__file__), "include")


__all__ = [
    "DLPACK_VERSION", "Tensor", "add", "arange", "asarray", "cuda", "divide", "empty", "empty_like", "equal", "eye",
    "fma", "from_dlpack", "full", "full_like", "get_include", "get_num_threads", "greater", "greater_equal", "less",
    "less_equal", "matmul", "multiply", "not_equal", "oneapi", "ones", "ones_like", "set_num_threads", "subtract",
    "zeros", "zeros_like", "__version__",
    # the elementwise ops of the op table (src/kernels/op_table.h), NumPy's names
    "negative", "absolute", "sign", "square", "sqrt", "reciprocal", "floor", "ceil", "trunc", "rint",
    "isnan", "isinf", "isfinite", "signbit", "logical_not", "invert", "positive", "abs", "bitwise_not",
    "maximum", "minimum", "fmax", "fmin", "remainder", "floor_divide", "power", "copysign", "bitwise_and",
    "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sin", "cos",
    "where", "clip",
    # indexing
    "compress",
    # reductions
    "all", "any", "argmax", "argmin", "max", "mean", "min", "prod", "sum",
]

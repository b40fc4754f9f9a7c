# Type stubs of the dlx package: what __init__.py re-exports from the C extension (typed in _dlx.pyi), and
# get_include. dlx.cuda (cuda.py) and dlx.oneapi (oneapi.py) are typed by their own source. Checked by
# python/tests/test_stubs.py.
from . import cuda as cuda
from . import oneapi as oneapi
from ._dlx import (
    DLPACK_VERSION as DLPACK_VERSION,
    Tensor as Tensor,
    __version__ as __version__,
    add as add,
    all as all,
    any as any,
    arange as arange,
    argmax as argmax,
    argmin as argmin,
    asarray as asarray,
    divide as divide,
    empty as empty,
    empty_like as empty_like,
    equal as equal,
    eye as eye,
    fma as fma,
    from_dlpack as from_dlpack,
    full as full,
    full_like as full_like,
    get_num_threads as get_num_threads,
    greater as greater,
    greater_equal as greater_equal,
    less as less,
    less_equal as less_equal,
    matmul as matmul,
    max as max,
    mean as mean,
    min as min,
    multiply as multiply,
    not_equal as not_equal,
    ones as ones,
    ones_like as ones_like,
    prod as prod,
    set_num_threads as set_num_threads,
    subtract as subtract,
    sum as sum,
    zeros as zeros,
    zeros_like as zeros_like,
)

def get_include() -> str: ...

__all__ = [
    "DLPACK_VERSION", "Tensor", "add", "arange", "asarray", "cuda", "divide", "empty", "empty_like", "equal", "eye",
    "fma", "from_dlpack", "full", "full_like", "get_include", "get_num_threads", "greater", "greater_equal", "less",
    "less_equal", "matmul", "multiply", "not_equal", "oneapi", "ones", "ones_like", "set_num_threads", "subtract",
    "zeros", "zeros_like", "__version__",
    "all", "any", "argmax", "argmin", "max", "mean", "min", "prod", "sum",
]  # fmt: skip

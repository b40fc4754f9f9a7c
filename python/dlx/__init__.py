"""dlx: zero-copy tensor exchange through DLPack.

The work is done in C (``dlx._dlx``, over libdlx); this package only re-exports it.
See docs/python-api.md for the full contract.
"""
import os as _os

from ._dlx import (  # noqa: F401
    DLPACK_VERSION,
    Tensor,
    __version__,
    _testing,
    empty,
    from_dlpack,
    zeros,
)


def get_include() -> str:
    """The directory holding ``dlx/*.h`` (for C extensions using ``dlx/python.h``)."""
    return _os.path.join(_os.path.dirname(__file__), "include")


__all__ = ["DLPACK_VERSION", "Tensor", "empty", "from_dlpack", "get_include", "zeros", "__version__"]

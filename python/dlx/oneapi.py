"""dlx.oneapi: SYCL USM tensors (DLPack kDLOneAPI, device type 14) through dpctl's C API.

dlx has no build-time dependency on oneAPI: its C library loads dpctl's C API
(``libDPCTLSyclInterface.so``, shipped inside the dpctl package) at run time, at the first thing that
needs SYCL (an import or export of kDLOneAPI memory, ``dlx.empty(..., device="oneapi:0")``,
``device_count()``). Which file:

* ``load(path)`` loads that file now;
* else the environment variable ``DLX_DPCTL_LIBRARY``, when set;
* else the installed dpctl package's copy: ``import dlx`` looks the package up (``importlib.util.find_spec``;
  dpctl itself is *not* imported, which takes a while and starts the SYCL runtime) and, when
  ``DLX_DPCTL_LIBRARY`` is unset, sets it to ``<dpctl package dir>/libDPCTLSyclInterface.so`` so that the
  C library finds it lazily. ``load()`` with no argument loads that file now.

SYCL finds its devices when the library is loaded: environment variables such as ``OCL_ICD_VENDORS`` (the
OpenCL ICD loader's folder of ``.icd`` files) must be set before then. Device ids are dpctl's positions
among the root devices (``dpctl.get_devices()``): ``"oneapi:1"`` is ``dpctl.get_devices()[1]``. Only
allocations bound to the default context of their platform (dpctl's default) can be exchanged.

Device USM is not host-accessible: dlx's ops refuse it, and ``Tensor.to("cpu")``, ``from_dlpack(x,
device="cpu")`` or ``__dlpack__(dl_device=(1, 0))`` copy it through the SYCL queue. Shared and host USM
are host-accessible: ops compute on them with the CPU loops, their results are new USM of the same kind on
the same device, and ``numpy()``, ``tolist()`` and the buffer protocol read them in place.
"""
import importlib.util as _importlib_util
import os as _os
from typing import Optional

from ._dlx import _oneapi as _c

__all__ = ["default_library", "device_count", "is_available", "load", "set_alloc_kind", "usm_kind"]

_LIBRARY = "libDPCTLSyclInterface.so"
_ENV = "DLX_DPCTL_LIBRARY"


def default_library() -> Optional[str]:
    """The file dlx loads dpctl's C API from when ``load()`` is given no path: ``DLX_DPCTL_LIBRARY`` when
    set, else ``libDPCTLSyclInterface.so`` of the installed dpctl package (found without importing
    dpctl), else None."""
    env = _os.environ.get(_ENV)
    if env:
        return env
    try:
        spec = _importlib_util.find_spec("dpctl")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = _os.path.join(folder, _LIBRARY)
        if _os.path.isfile(path):
            return path
    return None


def _point_at_dpctl() -> None:
    """At ``import dlx``: DLX_DPCTL_LIBRARY := the dpctl package's library, unless already set (the C
    library reads it at its first oneAPI need, so nothing is loaded now)."""
    if _os.environ.get(_ENV):
        return
    path = default_library()
    if path is not None:
        _os.environ[_ENV] = path


def load(path: Optional[str] = None) -> None:
    """Load dpctl's C API now, from ``path`` (a ``libDPCTLSyclInterface.so``), else from
    ``default_library()``. A no-op when that file is already loaded. ValueError naming the path and the
    reason when it cannot be loaded, when another file is already loaded, or when no path is given and
    neither DLX_DPCTL_LIBRARY nor an installed dpctl names one; TypeError for a path that is not a str
    or os.PathLike."""
    if path is None:
        path = default_library()
        if path is None:
            raise ValueError(f"dlx.oneapi.load: no path given, {_ENV} is not set and no dpctl package with "
                             f"{_LIBRARY} is installed (pip install dpctl)")
    elif isinstance(path, _os.PathLike):
        path = _os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"dlx.oneapi.load: path must be a str or os.PathLike, not {type(path).__name__}")
    _c.load(path)


def device_count() -> int:
    """SYCL root devices dpctl's C API finds (loading it first if needed); 0 without the library."""
    return _c.device_count()


def is_available() -> bool:
    """Whether dlx can reach at least one SYCL device."""
    return device_count() > 0


def usm_kind(tensor) -> Optional[str]:
    """The SYCL USM kind of a dlx.Tensor's memory: ``"device"``, ``"shared"`` or ``"host"``; None for a
    tensor that is not on a oneAPI device. RuntimeError when the library is missing or the tensor's
    device does not know its pointer; TypeError for anything but a dlx.Tensor."""
    return _c.usm_kind(tensor)


def set_alloc_kind(kind: str) -> str:
    """The USM kind of the memory dlx allocates on oneAPI devices from now on for tensors made from
    nothing or moved there (``dlx.empty(..., device="oneapi:0")``, copies from another device, results of
    ops on device USM): ``"device"`` (the default, as dpctl's), ``"shared"`` or ``"host"``
    (host-accessible: dlx's ops compute on them). A tensor made from shared or host USM (an op's result,
    ``astype``, ``empty_like``) keeps that kind instead. Process-wide; returns the kind it replaces.
    ValueError for any other kind."""
    return _c.set_alloc_kind(kind)


_point_at_dpctl()

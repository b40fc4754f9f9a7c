"""What the adapters share: the catalogue's values made with NumPy, and NumPy's own view of memory."""

import importlib

from .. import _capsule as cap
from ..frameworks import ALL, _numpy_maker


def numpy():
    from ..frameworks import _import

    return _import("numpy")


def np_values(shape, dtype):
    """The catalogue's values of a dtype (distinct, as NumPy's built-in class makes them) as a NumPy array;
    None where NumPy (with ml_dtypes) has no such dtype."""
    m = _numpy_maker(numpy())
    if m._dtype(dtype) is None:
        return None
    return m.make(tuple(shape), dtype, (cap.KDL_CPU, 0))


def np_address(a):
    """The address of element 0 of a NumPy array (or None for an empty one)."""
    return a.__array_interface__["data"][0] if a.size else None


def np_strides(a):
    """A NumPy array's strides in elements (None when one is not a whole number of elements)."""
    if any(s % a.itemsize for s in a.strides):
        return None
    return tuple(s // a.itemsize for s in a.strides)


def has(module_name, attr):
    try:
        return hasattr(importlib.import_module(module_name), attr)
    except Exception:  # noqa: BLE001
        return False


def named_dtypes(lookup):
    """The checker's dtype names that lookup(name) (the framework's dtype of that name, or None) knows."""
    out = []
    for d in ALL:
        try:
            if lookup(d) is not None:
                out.append(d)
        except Exception:  # noqa: BLE001 - the framework has no such dtype
            pass
    return out

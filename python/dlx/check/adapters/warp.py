"""NVIDIA Warp (warp-lang), on its CPU device: warp.array.__dlpack__ is the producer (an old-style one: it
takes only `stream`) and warp.from_dlpack the consumer. Warp arrays have __array_interface__ on the CPU,
which the adapter reads for address, strides, values and writability."""

from ..frameworks import Adapter, _import
from . import _common


class Warp(Adapter):
    name = "warp"

    def __init__(self):
        self.wp = _import("warp")
        self.wp.config.quiet = True
        self.wp.init()
        self.np = _common.numpy()
        self.version = self.wp.__version__

    # ---- producer
    def dtypes(self, dev):
        from ..frameworks import CORE

        return [d for d in CORE if hasattr(self.wp, d)]  # warp's scalar types (it has no complex ones)

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        return None if a is None else self.wp.array(a, dtype=getattr(self.wp, dtype), device="cpu")

    def make_big(self, n, dev):
        return self.wp.ones(n, dtype=self.wp.float32, device="cpu")

    def _np(self, x):
        return self.np.asarray(x)  # zero-copy through __array_interface__ on the CPU

    def readonly(self, x):
        return bool(x.__array_interface__["data"][1])

    def data_ptr(self, x):
        return x.ptr if x.size else None

    def strides(self, x):
        return _common.np_strides(self._np(x))

    def values(self, x):
        return self._np(x)

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.wp.from_dlpack(obj, **kw)

    def read(self, y):
        return y.numpy()

    def write(self, y):
        self._np(y)[(0,) * y.ndim] = 0

    def dtype_of(self, y):
        return self.np.dtype(self.wp.dtype_to_numpy(y.dtype))

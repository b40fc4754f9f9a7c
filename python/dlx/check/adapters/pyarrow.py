"""pyarrow: pyarrow.Tensor (n-d, strided) is the producer checked here, and pyarrow.Tensor.from_dlpack the
consumer. pyarrow.Array (1-d primitive arrays without nulls) exports too, but it has no `shape`, which the
catalogue's checks read, so it is left out. What pyarrow says of a Tensor comes from Tensor.to_numpy
(zero-copy: its address, strides and values) and Tensor.is_mutable."""

from ..frameworks import Adapter, _import
from . import _common


class PyArrow(Adapter):
    name = "pyarrow"

    def __init__(self):
        self.pa = _import("pyarrow")
        self.np = _common.numpy()
        self.version = self.pa.__version__
        # what Tensor.from_dlpack raises for a dtype Arrow tensors lack (bool: Arrow's is bit-packed)
        self.refusals = (self.pa.ArrowInvalid,)

    # ---- producer
    def dtypes(self, dev):
        from ..frameworks import CORE

        return [d for d in CORE if not d.startswith("complex")]  # Arrow has no complex type

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        if a is None:
            return None
        t = self.pa.Tensor.from_numpy(a)
        if t.to_numpy().dtype != a.dtype:
            # a bool array becomes a uint8 Tensor (Arrow's bool is bit-packed): pyarrow has no bool Tensor
            raise ValueError(f"pyarrow.Tensor.from_numpy made a {t.type} Tensor of {dtype} data")
        return t

    def make_big(self, n, dev):
        return self.pa.Tensor.from_numpy(self.np.ones(n, self.np.float32))

    def extras(self, dev):
        """Tensors over strided NumPy views (pyarrow.Tensor has no slicing of its own). pyarrow.Array (1-d,
        no nulls) exports too, but has no `shape`, which every check of the catalogue reads."""
        m = _common.np_values((4, 6), "float32")
        return [("pyarrow.Tensor.from_numpy(m[:, ::2])", self.pa.Tensor.from_numpy(m[:, ::2]), "float32", False),
                ("pyarrow.Tensor.from_numpy(m.T)", self.pa.Tensor.from_numpy(m.T), "float32", False)]

    def readonly(self, x):
        return not x.is_mutable

    def data_ptr(self, x):
        return _common.np_address(x.to_numpy())  # Tensor.to_numpy is zero-copy

    def strides(self, x):
        return _common.np_strides(x.to_numpy())

    def values(self, x):
        return x.to_numpy()

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.pa.Tensor.from_dlpack(obj, **kw)

    def read(self, y):
        return y.to_numpy()

    def write(self, y):
        a = y.to_numpy()
        a[(0,) * a.ndim] = 0  # raises when pyarrow's view is read-only

    def device_of(self, y):
        return tuple(int(v) for v in y.__dlpack_device__()) if hasattr(y, "__dlpack_device__") else (1, 0)

    def dtype_of(self, y):
        return y.to_numpy().dtype

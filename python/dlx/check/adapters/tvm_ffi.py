"""Apache TVM FFI (apache-tvm-ffi): tvm_ffi.Tensor.__dlpack__ is the producer and tvm_ffi.from_dlpack the
consumer. tvm_ffi has no array constructor of its own in Python: its tensors wrap memory imported from
another framework (NumPy here), and the checker judges what tvm_ffi exports of them. What tvm_ffi says of a
tensor (data_ptr, which adds the byte_offset, and strides) comes from its own DLTensor, not from an export;
its values are read at that address."""

from .. import _capsule as cap
from ..frameworks import Adapter, _import
from . import _common


class TvmFFI(Adapter):
    name = "tvm_ffi"

    def __init__(self):
        self.tvm = _import("tvm_ffi")
        self.np = _common.numpy()
        self.version = self.tvm.__version__

    # ---- producer
    def dtypes(self, dev):
        # NumPy exports no ml_dtypes types, so bfloat16 and float8 tensors cannot be made from NumPy arrays
        return [d for d in _common.named_dtypes(lambda n: getattr(self.tvm, n, None)) if self.np.dtype(
            _common.np_values((1,), d).dtype).kind != "V"]

    def _wrap(self, a):
        return self.tvm.from_dlpack(a)

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        return None if a is None else self._wrap(a)

    def make_big(self, n, dev):
        return self._wrap(self.np.ones(n, self.np.float32))

    def extras(self, dev):
        """Strided tensors: tvm_ffi has no slicing, so these wrap strided NumPy views."""
        a = _common.np_values((4, 6), "float32")
        views = [("tvm_ffi.from_dlpack(a[:, ::2])", a[:, ::2]), ("tvm_ffi.from_dlpack(a[1:, 2:])", a[1:, 2:]),
                 ("tvm_ffi.from_dlpack(a.T)", a.T), ("tvm_ffi.from_dlpack(a[::-1])", a[::-1])]
        out = []
        for label, v in views:
            out.append((label, self._wrap(v), "float32", False))
        return out

    def data_ptr(self, x):
        return x.data_ptr() if x.numel() else None

    def strides(self, x):
        return tuple(int(v) for v in x.strides)

    def values(self, x):
        return self.read(x)

    # ---- consumer
    def consumer_dtypes(self):
        return _common.named_dtypes(lambda n: getattr(self.tvm, n, None))

    def from_dlpack(self, obj, **kw):
        return self.tvm.from_dlpack(obj, **kw)

    def read(self, y):
        if not y.numel():
            return b""
        if str(y.dtype) not in cap.DTYPES:
            return None
        return cap.read_elements(y.data_ptr(), tuple(int(v) for v in y.shape), self.strides(y),
                                 cap.itemsize(str(y.dtype)))

    def write(self, y):
        raise TypeError("tvm_ffi.Tensor has no item assignment")

    def dtype_of(self, y):
        return str(y.dtype)

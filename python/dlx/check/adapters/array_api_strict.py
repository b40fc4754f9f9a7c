"""array-api-strict: the Array API's reference array (a NumPy array inside, reachable only as the private
attribute _array, which the adapter reads for what the Array API does not expose: address, strides,
writability). Array.__dlpack__ is the producer and array_api_strict.from_dlpack the consumer."""

from ..frameworks import Adapter, _import
from . import _common


class ArrayAPIStrict(Adapter):
    name = "array_api_strict"

    def __init__(self):
        self.xp = _import("array_api_strict")
        self.np = _common.numpy()
        self.version = self.xp.__version__

    # ---- producer
    def dtypes(self, dev):
        return _common.named_dtypes(lambda n: getattr(self.xp, n, None))

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        return None if a is None else self.xp.asarray(a, dtype=getattr(self.xp, dtype))

    def make_big(self, n, dev):
        return self.xp.ones((n,), dtype=self.xp.float32)

    def readonly(self, x):
        return not x._array.flags.writeable

    def broadcast(self, x, shape):
        return self.xp.broadcast_to(x, shape)

    def data_ptr(self, x):
        return _common.np_address(x._array)

    def strides(self, x):
        return _common.np_strides(x._array)

    def values(self, x):
        return x._array

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.xp.from_dlpack(obj, **kw)

    def read(self, y):
        return y._array

    def dtype_of(self, y):
        return y.dtype

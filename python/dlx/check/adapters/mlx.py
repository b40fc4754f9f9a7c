"""MLX (mlx[cpu]): mlx.core.array.__dlpack__ is the producer and mlx.core.from_dlpack the consumer. What MLX
says of an array's memory comes from the buffer protocol (memoryview), which MLX implements without
DLPack: its address, strides and values."""

from ..frameworks import Adapter, _import
from . import _common


class MLX(Adapter):
    name = "mlx"

    def __init__(self):
        self.mx = _import("mlx.core")
        self.np = _common.numpy()
        self.version = _import("mlx").__version__ if hasattr(_import("mlx"), "__version__") else self.mx.__version__

    def _mx_dtype(self, name):
        return getattr(self.mx, name, None) if isinstance(getattr(self.mx, name, None), self.mx.Dtype) else None

    # ---- producer
    def dtypes(self, dev):
        return _common.named_dtypes(self._mx_dtype)

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        if a is None:
            return None
        if dtype == "bfloat16":  # mx.array does not take ml_dtypes' bfloat16
            x = self.mx.array(a.astype("float32")).astype(self.mx.bfloat16)
        else:
            x = self.mx.array(a, dtype=self._mx_dtype(dtype))
        self.mx.eval(x)
        return x

    def make_big(self, n, dev):
        x = self.mx.ones((n,), self.mx.float32)
        self.mx.eval(x)
        return x

    def broadcast(self, x, shape):
        y = self.mx.broadcast_to(x, shape)
        self.mx.eval(y)
        return y

    def _view(self, x):
        self.mx.eval(x)
        return self.np.asarray(memoryview(x))  # zero-copy: MLX's buffer protocol

    def data_ptr(self, x):
        return _common.np_address(self._view(x))

    def strides(self, x):
        return _common.np_strides(self._view(x))

    def values(self, x):
        self.mx.eval(x)
        return memoryview(x).tobytes()  # row-major, whatever the strides

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.mx.from_dlpack(obj, **kw)

    def read(self, y):
        return self.values(y)

    def dtype_of(self, y):
        return y.dtype

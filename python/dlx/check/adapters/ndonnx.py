"""ndonnx: arrays of ONNX graphs. Array.__dlpack__ and ndonnx.from_dlpack exist (the Array API asks for
them) but refuse every array with BufferError; the adapter makes arrays with values (ndonnx.asarray of a
NumPy array) so that the checker sees what a user would."""

from ..frameworks import Adapter, _import
from . import _common


class NDOnnx(Adapter):
    name = "ndonnx"

    def __init__(self):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "onnxruntime is not installed": the reference runtime serves
            self.ndx = _import("ndonnx")
        self.np = _common.numpy()
        self.version = self.ndx.__version__

    def dtypes(self, dev):
        return _common.named_dtypes(lambda n: getattr(self.ndx, n, None))

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        return None if a is None else self.ndx.asarray(a)

    def broadcast(self, x, shape):
        return self.ndx.broadcast_to(x, shape)

    def values(self, x):
        return x.unwrap_numpy()

    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.ndx.from_dlpack(obj, **kw)

    def read(self, y):
        return y.unwrap_numpy()

    def dtype_of(self, y):
        return y.dtype

"""PaddlePaddle: paddle.Tensor.__dlpack__ is the producer and paddle.from_dlpack the consumer. Paddle's
tensors are strided (FLAGS_use_stride_kernel): slices and transposes are views with their own strides."""

import os

from .. import _capsule as cap
from ..frameworks import Adapter, _import
from . import _common


class Paddle(Adapter):
    name = "paddle"

    def __init__(self):
        os.environ.setdefault("GLOG_minloglevel", "2")
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "No ccache found" from paddle's extension builder
            self.paddle = _import("paddle")
        self.np = _common.numpy()
        self.version = self.paddle.__version__

    def _pd_dtype(self, name):
        return getattr(self.paddle, name, None)

    # ---- producer
    def dtypes(self, dev):
        return _common.named_dtypes(self._pd_dtype)

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        if a is None:
            return None
        if dtype == "bfloat16":  # paddle.to_tensor does not take ml_dtypes' bfloat16
            return self.paddle.to_tensor(a.astype("float32")).astype(self.paddle.bfloat16)
        x = self.paddle.to_tensor(a, dtype=self._pd_dtype(dtype), place=self.paddle.CPUPlace())
        if str(x.dtype).rpartition(".")[2] != dtype:
            # paddle.uint16 is bfloat16's old name: NumPy uint16 data become a bfloat16 tensor
            raise ValueError(f"paddle made a {x.dtype} tensor of {dtype} data: paddle has no {dtype}")
        return x

    def make_big(self, n, dev):
        return self.paddle.ones((n,), "float32")

    def readonly(self, x):
        return False  # paddle has no read-only tensors

    def broadcast(self, x, shape):
        return x.expand(shape)

    def data_ptr(self, x):
        return x.data_ptr() if x.size else None

    def strides(self, x):
        return tuple(int(v) for v in x.strides)  # paddle's strides are in elements

    def values(self, x):
        if x.dtype == self.paddle.bfloat16:
            return x.contiguous().view(self.paddle.uint16).numpy()
        return x.numpy()

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.paddle.from_dlpack(obj, **kw)

    def read(self, y):
        return self.values(y)

    def dtype_of(self, y):
        return y.dtype

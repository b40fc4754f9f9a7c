"""TensorFlow (tensorflow-cpu): EagerTensor.__dlpack__ is the producer; the consumer is
tf.experimental.dlpack.from_dlpack, which takes a capsule, not an object, so the adapter makes the call a
TensorFlow user writes: from_dlpack(x.__dlpack__()) (legacy: TensorFlow refuses 'dltensor_versioned'
capsules). The checks of that call (c-max-version, c-copy-true) therefore judge the idiom TensorFlow's API
leaves to its users, and docs/conformance.md says so.
"""

import os

from .. import _capsule as cap
from ..frameworks import Adapter, _import
from . import _common


class TensorFlow(Adapter):
    name = "tensorflow"

    def __init__(self):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter
        self.tf = _import("tensorflow")
        self.np = _common.numpy()
        self.version = self.tf.__version__
        # what TensorFlow raises when it refuses a capsule or an export (a dtype DLPack cannot carry)
        self.refusals = (self.tf.errors.InvalidArgumentError, self.tf.errors.UnimplementedError)

    # ---- producer
    def _tf_dtype(self, name):
        return getattr(self.tf, name, None) if isinstance(getattr(self.tf, name, None), self.tf.DType) else None

    def dtypes(self, dev):
        return _common.named_dtypes(self._tf_dtype)

    def make(self, shape, dtype, dev):
        a = _common.np_values(shape, dtype)
        return None if a is None else self.tf.constant(a, dtype=self._tf_dtype(dtype))

    def make_big(self, n, dev):
        return self.tf.ones((n,), self.tf.float32)

    def readonly(self, x):
        # no TensorFlow API writes into a tensor (tf.Variable is another type): every EagerTensor is
        # immutable, so the memory of its export must not be written either
        return True

    def broadcast(self, x, shape):
        return self.tf.broadcast_to(x, shape)

    def data_ptr(self, x):
        # EagerTensor._numpy_internal is the zero-copy NumPy view TensorFlow keeps of a host tensor's buffer
        # (numpy() copies it); TensorFlow has no public data pointer. Not for a 0-d tensor: there it is a
        # copy (a write at the exported address shows in x.numpy(), one at _numpy_internal's does not)
        if not x.shape.rank:
            return None
        return _common.np_address(x._numpy_internal())

    def strides(self, x):
        return tuple(cap._compact(tuple(int(v) for v in x.shape)))  # TensorFlow tensors are compact row-major

    def values(self, x):
        return x.numpy()

    # ---- consumer
    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        if kw:
            raise TypeError(f"tf.experimental.dlpack.from_dlpack takes a capsule and no keywords (asked {kw})")
        return self.tf.experimental.dlpack.from_dlpack(obj.__dlpack__())

    def read(self, y):
        return y.numpy()

    def write(self, y):
        raise TypeError("TensorFlow tensors cannot be written (EagerTensor has no item assignment)")

    def dtype_of(self, y):
        return y.dtype

"""Known failures of the frameworks checked through dlx.check.adapters (docs/conformance.md, written by
scripts/conformance_all.sh): the same records as dlx.check.known (which appends these), each reproduced by
hand; a bug comes with its minimal reproducer. Reproducers that need a broken or unusual capsule use the
checker's reference producer, dlx.check.Export. Each entry is the fields of a dlx.check.known.Known, in
order (a tuple: that module builds them, and imports this one)."""


def Known(target, side, check, version, why, bug=False, repro=""):  # noqa: N802 - reads as the record it makes
    return (target, side, check, version, why, bug, repro)

_BUF = """from dlx.check import Export, HostBuffer        # the checker's reference producer
buf = HostBuffer(64); buf.write(np.arange(16, dtype=np.float32).tobytes())"""


def _null_shape(call, module):
    return f"""{module}
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "shape", None))
{call}"""


def _ndonnx(check):
    return Known("ndonnx", "consumer", check, "0.23.0",
                 "ndonnx.from_dlpack refuses every object with BufferError 'ndonnx does not (yet) support the "
                 "export of array data' (ndonnx arrays are ONNX graph values: it implements neither side of DLPack)")


TF_REFUSES = """import tensorflow as tf
x = tf.constant([1.0, 2.0])
x.__dlpack__(dl_device=(1, 0))   # RuntimeError: tf.Tensor does not support DLPack export with a non-None dl_device
x.__dlpack__(copy=True)          # RuntimeError: ... with a copy=True"""

PADDLE_OFFSET = """import numpy as np, paddle
""" + _BUF + """
x = Export(buf, (4,), "float32", byte_offset=16)   # element 0 is item 4
print(np.from_dlpack(x), paddle.from_dlpack(Export(buf, (4,), "float32", byte_offset=16)).numpy())
# [4. 5. 6. 7.] [0. 1. 2. 3.]"""

WARP_OFFSET = """import numpy as np, warp as wp
wp.init()
""" + _BUF + """
print(wp.from_dlpack(Export(buf, (4,), "float32", byte_offset=16)).numpy())   # [0. 1. 2. 3.], not [4. 5. 6. 7.]"""

PYARROW_LEGACY = """import numpy as np, pyarrow as pa
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (4,), "float32", version=None)   # answers a versioned request with a legacy capsule
pa.Tensor.from_dlpack(x)   # ValueError: PyCapsule_GetPointer called with incorrect name"""


def _lanes0(module, call):
    return f"""{module}
from dlx.check import Export, HostBuffer
def lanes_0(m, t, versioned): t.dtype.lanes = 0
x = Export(HostBuffer(64), (4,), "float32", version=None, tamper=lanes_0)
print({call})   # imported: a dtype with no lanes"""


KNOWN = [
    # ---- TensorFlow
    Known("tensorflow", "producer", "p-capsule-legacy", "2.21.0",
          "EagerTensor.__dlpack__ without max_version refuses copy=True and any dl_device (its own device "
          "included) with RuntimeError, neither exporting nor raising BufferError", bug=True, repro=TF_REFUSES),
    Known("tensorflow", "producer", "p-capsule-versioned", "2.21.0",
          "EagerTensor.__dlpack__ returns a legacy 'dltensor' capsule whatever max_version asks (allowed; the "
          "versioned one is recommended)"),
    Known("tensorflow", "producer", "p-read-only-legacy", "2.21.0",
          "TensorFlow tensors are immutable, yet exported as legacy capsules, which cannot say READ_ONLY: a "
          "consumer that imports them writable (dlx before issue 27, PyTorch) can write into the tensor"),
    Known("tensorflow", "producer", "p-copy-true", "2.21.0",
          "__dlpack__(copy=True) raises RuntimeError 'does not support DLPack export with a copy=True' instead "
          "of copying", bug=True, repro=TF_REFUSES),
    Known("tensorflow", "producer", "p-copy-false", "2.21.0",
          "copy=False with dl_device=(kDLCUDA, 0) raises RuntimeError, not BufferError", bug=True,
          repro=TF_REFUSES),
    Known("tensorflow", "producer", "p-dl-device-same", "2.21.0",
          "dl_device equal to the tensor's own device (kDLCPU, 0) is refused with RuntimeError", bug=True,
          repro=TF_REFUSES),
    Known("tensorflow", "producer", "p-dl-device-refused", "2.21.0",
          "a dl_device it cannot export to is refused with RuntimeError, not BufferError", bug=True,
          repro=TF_REFUSES),
    Known("tensorflow", "producer", "p-refusal-buffererror", "2.21.0",
          "every refusal is a RuntimeError (copy, dl_device) or InvalidArgumentError (float8 dtypes: "
          "'DT_FLOAT8_E4M3FN is not supported by dlpack'), never BufferError", bug=True, repro=TF_REFUSES),
    Known("tensorflow", "consumer", "c-max-version", "2.21.0",
          "tf.experimental.dlpack.from_dlpack takes a capsule, not an object, and refuses 'dltensor_versioned' "
          "ones, so the call is the user's: the adapter makes the one TensorFlow can take, x.__dlpack__()"),
    Known("tensorflow", "consumer", "c-byte-offset", "2.21.0",
          "tf.experimental.dlpack.from_dlpack refuses any byte_offset other than 0 (InvalidArgumentError "
          "'Unsupported byte_offset (64) from DLPack, must be zero')", bug=True, repro="""import numpy as np, tensorflow as tf
""" + _BUF + """
tf.experimental.dlpack.from_dlpack(Export(buf, (4,), "float32", byte_offset=16, version=None).__dlpack__())
# InvalidArgumentError: Unsupported byte_offset (16) from DLPack, must be zero"""),
    Known("tensorflow", "consumer", "c-strides", "2.21.0",
          "tf.experimental.dlpack.from_dlpack refuses every non-compact layout (a transpose, a step) with "
          "InvalidArgumentError 'Invalid strides array from DLPack' rather than copying it", bug=True,
          repro="""import numpy as np, tensorflow as tf
a = np.arange(6, dtype=np.float32).reshape(2, 3)
tf.experimental.dlpack.from_dlpack(a.T.__dlpack__())   # InvalidArgumentError: Invalid strides array from DLPack"""),
    Known("tensorflow", "consumer", "c-device-agrees", "2.21.0",
          "the adapter's call never asks __dlpack_device__ (TensorFlow takes the capsule alone), so a capsule "
          "on another device than the object said is imported"),
    Known("tensorflow", "consumer", "c-null-shape", "2.21.0",
          "tf.experimental.dlpack.from_dlpack of a capsule with ndim 2 and a NULL shape crashes the process "
          "(SIGSEGV)", bug=True, repro=_null_shape("tf.experimental.dlpack.from_dlpack(x.__dlpack__())   # Segmentation fault",
                                                 "import tensorflow as tf")),
    Known("tensorflow", "consumer", "c-lanes", "2.21.0",
          "tf.experimental.dlpack.from_dlpack imports a dtype with lanes 0", bug=True,
          repro=_lanes0("import tensorflow as tf", "tf.experimental.dlpack.from_dlpack(x.__dlpack__())")),
    Known("tensorflow", "consumer", "c-copy-true", "2.21.0",
          "tf.experimental.dlpack.from_dlpack has no copy option (it takes the capsule alone)"),
    # ---- PaddlePaddle
    Known("paddle", "producer", "p-device", "3.3.1",
          "Tensor.__dlpack_device__() of a CPU tensor returns (DLDeviceType.kDLCPU, None): the device id is None, "
          "not 0", bug=True, repro="""import paddle
print(paddle.to_tensor([1.0]).__dlpack_device__())   # (<DLDeviceType.kDLCPU: 1>, None)"""),
    Known("paddle", "producer", "p-dl-device-refused", "3.3.1",
          "a dl_device it cannot export to raises NotImplementedError '(Unimplemented) Given Place is not "
          "supported', not BufferError", bug=True, repro="""import paddle
paddle.to_tensor([1.0]).__dlpack__(max_version=(1, 3), dl_device=(16, 0))   # NotImplementedError"""),
    Known("paddle", "consumer", "c-values", "3.3.1",
          "paddle.from_dlpack imports uint16 data (code kDLUInt, 16 bits) as a bfloat16 tensor: paddle.uint16 "
          "is bfloat16's old name, so the values are read as other numbers", bug=True, repro="""import numpy as np, paddle
y = paddle.from_dlpack(np.array([1, 2, 3], np.uint16))
print(y.dtype)   # paddle.bfloat16"""),
    Known("paddle", "consumer", "c-byte-offset", "3.3.1",
          "paddle.from_dlpack ignores byte_offset: the tensor starts at data", bug=True, repro=PADDLE_OFFSET),
    Known("paddle", "consumer", "c-read-only", "3.3.1",
          "paddle has no read-only tensors and imports READ_ONLY data writable (as PyTorch does; the Array API "
          "lets a consumer without read-only arrays ignore the flag)"),
    Known("paddle", "consumer", "c-destructor-cleared", "3.3.1",
          "paddle.from_dlpack leaves the consumed capsule's destructor in place (see NumPy's entry)"),
    Known("paddle", "consumer", "c-device-agrees", "3.3.1",
          "paddle.from_dlpack imports host memory whatever __dlpack_device__ said (cuda_host for kDLCPU and the "
          "other way round)"),
    Known("paddle", "consumer", "c-cpu-device-id", "3.3.1",
          "the imported tensor's __dlpack_device__() is (kDLCPU, None), which is no device id (the p-device "
          "bug)", bug=True, repro="""import numpy as np, paddle
print(paddle.from_dlpack(np.zeros(2)).__dlpack_device__())   # (<DLDeviceType.kDLCPU: 1>, None)"""),
    Known("paddle", "consumer", "c-null-shape", "3.3.1",
          "paddle.from_dlpack of a capsule with ndim 2 and a NULL shape crashes the process (SIGSEGV)", bug=True,
          repro=_null_shape("paddle.from_dlpack(x)   # Segmentation fault", "import paddle")),
    Known("paddle", "consumer", "c-ndim-negative", "3.3.1",
          "paddle.from_dlpack imports a capsule with ndim -1 (as a 0-d tensor) instead of refusing it", bug=True,
          repro="""import paddle
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "ndim", -1))
print(paddle.from_dlpack(x).shape)   # [] : imported"""),
    Known("paddle", "consumer", "c-mislabelled", "3.3.1",
          "paddle.from_dlpack reads a DLManagedTensorVersioned labelled 'dltensor' as the legacy struct and "
          "crashes the process (SIGSEGV); the producer is at fault, refusing is advice"),
    Known("paddle", "consumer", "c-lanes", "3.3.1", "paddle.from_dlpack imports a dtype with lanes 0", bug=True,
          repro=_lanes0("import paddle", "paddle.from_dlpack(x).shape")),
    Known("paddle", "consumer", "c-legacy-read-only", "3.3.1",
          "paddle has no read-only tensors: an array imported from a legacy capsule (a JAX array's, say) is "
          "writable"),
    # ---- MLX
    Known("mlx", "producer", "p-capsule-versioned", "0.32.4",
          "mlx.core.array.__dlpack__ returns a legacy 'dltensor' capsule whatever max_version asks (allowed; the "
          "versioned one is recommended)"),
    Known("mlx", "producer", "p-stream-cpu", "0.32.4",
          "__dlpack__(stream=1) of a CPU array is accepted; the standard allows only None for host memory",
          bug=True, repro="""import mlx.core as mx
print(mx.array([1.0]).__dlpack__(stream=1))   # a capsule, not an error"""),
    Known("mlx", "consumer", "c-max-version", "0.32.4",
          "mlx.core.from_dlpack calls __dlpack__() without max_version: it asks for legacy capsules"),
    Known("mlx", "consumer", "c-values", "0.32.4",
          "mlx.core.from_dlpack narrows float64 to float32 and complex128 to complex64 (a silent copy that loses "
          "precision) although MLX has float64 arrays on the CPU", bug=True, repro="""import numpy as np, mlx.core as mx
print(mx.from_dlpack(np.array([0.1])).dtype)   # mlx.core.float32"""),
    Known("mlx", "consumer", "c-strides", "0.32.4",
          "mlx.core.from_dlpack refuses negative strides with ValueError 'Cannot convert DLPack arrays with "
          "negative strides', not BufferError"),
    Known("mlx", "consumer", "c-major", "0.32.4",
          "mlx.core.from_dlpack imports a 'dltensor_versioned' capsule of major version 2, whose layout it cannot "
          "know", bug=True, repro="""import mlx.core as mx
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (4,), "float32", version=(2, 0), always_versioned=True)
print(mx.from_dlpack(x))   # imported"""),
    Known("mlx", "consumer", "c-rename", "0.32.4",
          "mlx.core.from_dlpack copies the data and leaves the capsule named 'dltensor' (its destructor then "
          "frees the producer's tensor once, so nothing leaks; the standard still asks a consumer to rename what "
          "it consumed)"),
    Known("mlx", "consumer", "c-device-agrees", "0.32.4",
          "a kDLCPU capsule from an object whose __dlpack_device__ says cuda_host (3, 0) is imported"),
    Known("mlx", "consumer", "c-null-shape", "0.32.4",
          "mlx.core.from_dlpack of a capsule with ndim 2 and a NULL shape crashes the process (SIGSEGV)", bug=True,
          repro=_null_shape("mx.from_dlpack(x)   # Segmentation fault", "import mlx.core as mx")),
    Known("mlx", "consumer", "c-zero-copy", "0.32.4",
          "mlx.core.from_dlpack always copies, although its docstring says copy=None shares memory when possible",
          bug=True, repro="""import numpy as np, mlx.core as mx
a = np.zeros(3, np.float32)
y = mx.from_dlpack(a); a[0] = 7
print(y)   # array([0, 0, 0]): a copy"""),
    # ---- tvm-ffi
    Known("tvm_ffi", "producer", "p-copy-true", "0.1.15.post2",
          "Tensor.__dlpack__(copy=True) without max_version exports the tensor's own memory (with max_version "
          "it raises BufferError 'copy not yet supported')", bug=True, repro="""import numpy as np, tvm_ffi
from dlx.check import describe
t = tvm_ffi.from_dlpack(np.arange(6.0))
print(describe(t.__dlpack__(copy=True)).first == t.data_ptr())   # True: not a copy"""),
    Known("tvm_ffi", "producer", "p-stream-cpu", "0.1.15.post2",
          "Tensor.__dlpack__(stream=1) of a CPU tensor is accepted; only None is allowed for host memory",
          bug=True, repro="""import numpy as np, tvm_ffi
print(tvm_ffi.from_dlpack(np.arange(3.0)).__dlpack__(stream=1))   # a capsule, not an error"""),
    Known("tvm_ffi", "consumer", "c-max-version", "0.1.15.post2",
          "tvm_ffi.from_dlpack calls __dlpack__ without max_version for an object without tvm_ffi's C exchange "
          "API: it asks for legacy capsules"),
    Known("tvm_ffi", "consumer", "c-device-agrees", "0.1.15.post2",
          "tvm_ffi.from_dlpack imports host memory whatever __dlpack_device__ said"),
    Known("tvm_ffi", "consumer", "c-cpu-device-id", "0.1.15.post2",
          "a kDLCPU capsule with device_id 1 is imported as device cpu:1 (tvm_ffi keeps the producer's device)"),
    Known("tvm_ffi", "consumer", "c-null-shape", "0.1.15.post2",
          "tvm_ffi.from_dlpack imports a capsule with ndim 2 and a NULL shape; reading the tensor's shape then "
          "crashes the process (SIGSEGV)", bug=True,
          repro=_null_shape("print(tvm_ffi.from_dlpack(x).shape)   # Segmentation fault", "import tvm_ffi")),
    Known("tvm_ffi", "consumer", "c-ndim-negative", "0.1.15.post2",
          "tvm_ffi.from_dlpack imports a capsule with ndim -1 (shape ())", bug=True, repro="""import tvm_ffi
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "ndim", -1))
print(tvm_ffi.from_dlpack(x).shape)   # (): imported"""),
    Known("tvm_ffi", "consumer", "c-mislabelled", "0.1.15.post2",
          "tvm_ffi.from_dlpack reads a capsule's struct as its name says, so a mislabelled one is imported from "
          "the wrong fields (the producer is at fault; refusing is advice)"),
    Known("tvm_ffi", "consumer", "c-lanes", "0.1.15.post2", "tvm_ffi.from_dlpack imports a dtype with lanes 0",
          bug=True, repro=_lanes0("import tvm_ffi", "tvm_ffi.from_dlpack(x).dtype")),
    Known("tvm_ffi", "consumer", "c-bits", "0.1.15.post2",
          "tvm_ffi.from_dlpack imports a float of 12 bits (dtype float12), which has no layout", bug=True,
          repro="""import tvm_ffi
from dlx.check import Export, HostBuffer
def bits_12(m, t, versioned): t.dtype.bits = 12
print(tvm_ffi.from_dlpack(Export(HostBuffer(64), (4,), "float32", tamper=bits_12)).dtype)   # float12"""),
    Known("tvm_ffi", "consumer", "c-copy-true", "0.1.15.post2",
          "tvm_ffi.from_dlpack has no copy keyword (TypeError): it only imports zero-copy"),
    # ---- array-api-strict (NumPy inside: its consumer is numpy.from_dlpack's)
    Known("array_api_strict", "consumer", "c-destructor-cleared", "2.6.1",
          "array_api_strict.from_dlpack is numpy.from_dlpack's (see NumPy's entry)"),
    Known("array_api_strict", "consumer", "c-device-agrees", "2.6.1",
          "array_api_strict.from_dlpack is numpy.from_dlpack's (see NumPy's entry)"),
    Known("array_api_strict", "consumer", "c-cpu-device-id", "2.6.1",
          "array_api_strict.from_dlpack is numpy.from_dlpack's: NumPy keeps the producer's device id"),
    Known("array_api_strict", "consumer", "c-null-shape", "2.6.1",
          "array_api_strict.from_dlpack crashes the process (SIGSEGV) on a NULL shape: NumPy's bug underneath",
          bug=True, repro=_null_shape("xp.from_dlpack(x)   # Segmentation fault", "import array_api_strict as xp")),
    # ---- pyarrow
    Known("pyarrow", "consumer", "c-strides", "26.0.1",
          "pyarrow.Tensor.from_dlpack refuses negative strides with ArrowInvalid 'negative strides not "
          "supported', not BufferError (Arrow tensors have none)"),
    Known("pyarrow", "consumer", "c-null-strides", "26.0.1",
          "the legacy capsule with NULL strides is refused: pyarrow.Tensor.from_dlpack reads only "
          "'dltensor_versioned' capsules (the c-legacy bug)", bug=True, repro=PYARROW_LEGACY),
    Known("pyarrow", "consumer", "c-legacy", "26.0.1",
          "pyarrow.Tensor.from_dlpack refuses a legacy capsule returned to its versioned request with ValueError "
          "'PyCapsule_GetPointer called with incorrect name' instead of reading it (and never retries an "
          "old-style __dlpack__ without keywords: TypeError)", bug=True, repro=PYARROW_LEGACY),
    Known("pyarrow", "consumer", "c-destructor-cleared", "26.0.1",
          "pyarrow.Tensor.from_dlpack leaves the consumed capsule's destructor in place (see NumPy's entry)"),
    Known("pyarrow", "consumer", "c-device-agrees", "26.0.1",
          "a kDLCPU capsule from an object whose __dlpack_device__ says cuda_host (3, 0) is imported"),
    Known("pyarrow", "consumer", "c-mislabelled", "26.0.1",
          "pyarrow.Tensor.from_dlpack reads a DLManagedTensor labelled 'dltensor_versioned' as the versioned "
          "struct and crashes the process (SIGSEGV); the producer is at fault, refusing is advice"),
    # ---- warp
    Known("warp", "producer", "p-keywords", "1.19.0",
          "warp.array.__dlpack__ takes only stream (an old-style producer: consumers retry it without keywords)"),
    Known("warp", "consumer", "c-max-version", "1.19.0",
          "warp.from_dlpack calls __dlpack__ without max_version: it asks for legacy capsules"),
    Known("warp", "consumer", "c-byte-offset", "1.19.0", "warp.from_dlpack ignores byte_offset: the array starts "
          "at data", bug=True, repro=WARP_OFFSET),
    Known("warp", "consumer", "c-zero-size", "1.19.0",
          "warp.from_dlpack of a 0-d array raises IndexError 'list assignment index out of range'", bug=True,
          repro="""import numpy as np, warp as wp
wp.init()
wp.from_dlpack(np.array(1.0, np.float32))   # IndexError: list assignment index out of range"""),
    Known("warp", "consumer", "c-destructor-cleared", "1.19.0",
          "warp.from_dlpack leaves the consumed capsule's destructor in place (see NumPy's entry)"),
    Known("warp", "consumer", "c-device-agrees", "1.19.0",
          "a cuda_host capsule from an object whose __dlpack_device__ says kDLCPU is imported"),
    Known("warp", "consumer", "c-lanes", "1.19.0", "warp.from_dlpack imports a dtype with lanes 0", bug=True,
          repro="import warp as wp\nwp.init()\n" + _lanes0("", "wp.from_dlpack(x).shape").lstrip("\n")),
    Known("warp", "consumer", "c-legacy-read-only", "1.19.0",
          "warp arrays are writable: one imported from a legacy capsule (a JAX array's, say) writes into the "
          "producer's memory"),
    Known("warp", "consumer", "c-copy-true", "1.19.0", "warp.from_dlpack has no copy keyword (TypeError)"),
    # ---- ndonnx
    Known("ndonnx", "producer", "p-capsule-versioned", "0.23.0",
          "ndonnx.Array.__dlpack__ refuses every export with BufferError 'ndonnx does not support the export of "
          "array data' (and __dlpack_device__ raises ValueError): ndonnx arrays are ONNX graph values"),
    Known("ndonnx", "producer", "p-stream-cpu", "0.23.0",
          "not ndonnx's: a false finding of the checker, which asks for stream=None on an array whose every "
          "export is refused (BufferError, as the standard allows for data that cannot be exported)"),
    _ndonnx("c-values"), _ndonnx("c-byte-offset"), _ndonnx("c-strides"), _ndonnx("c-null-strides"),
    _ndonnx("c-zero-size"), _ndonnx("c-destructor-cleared"), _ndonnx("c-null-deleter"), _ndonnx("c-copy-true"),
]

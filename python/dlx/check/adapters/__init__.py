"""Adapters (docs/conformance.md, "Checking your own code") for the frameworks the checker has no built-in
class for: each module holds one Adapter subclass that tells the checker what the framework's own API says
of its arrays (data pointer, strides, values, read-only) and how its from_dlpack is called, so that
`python -m dlx check producer dlx.check.adapters.tensorflow:TensorFlow` checks TensorFlow as fully as the
built-in classes check NumPy or PyTorch. scripts/conformance_all.sh runs them all for docs/conformance.md.

ADAPTERS maps a framework's name to its target spec. Each adapter answers with the framework's own
functions only (never with a DLPack export of the array it judges), and says None where the framework
has no way to tell.
"""

ADAPTERS = {
    "tensorflow": "dlx.check.adapters.tensorflow:TensorFlow",
    "paddle": "dlx.check.adapters.paddle:Paddle",
    "mlx": "dlx.check.adapters.mlx:MLX",
    "tvm_ffi": "dlx.check.adapters.tvm_ffi:TvmFFI",
    "array_api_strict": "dlx.check.adapters.array_api_strict:ArrayAPIStrict",
    "pyarrow": "dlx.check.adapters.pyarrow:PyArrow",
    "warp": "dlx.check.adapters.warp:Warp",
    "ndonnx": "dlx.check.adapters.ndonnx:NDOnnx",
}


def spec(name):
    """The target spec of a framework's adapter, or the name itself (a built-in framework or a spec)."""
    return ADAPTERS.get(name, name)

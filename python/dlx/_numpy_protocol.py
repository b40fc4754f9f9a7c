"""NumPy's protocols for dlx.Tensor: ``__array_ufunc__`` and ``__array_function__`` (NEP 13, NEP 18).

Tensor's methods of those names are thin C methods (src/pyext/numpy.c) that call ``array_ufunc`` and
``array_function`` here; the operators of a Tensor (``t + 1``, ``t[i]``) never come here. The rule, as
docs/python-api.md states it ("NumPy functions and ufuncs on tensors"), is what a PyTorch user expects:

- a ufunc dlx has (every row of dlx's op table, src/kernels/op_table.h: ``np.add``, ``sqrt``, ``maximum``,
  ``bitwise_and``, ``isnan``, ... by NumPy's name; ``matmul`` of two rank-2 operands of a dtype dlx's gemm
  takes (float32, float64, complex64, complex128); looked up as ``dlx.<name>`` when it is called) runs in
  dlx and gives dlx tensors, by dlx's rules (NumPy 2's promotion), ``out=`` honoured when it is a dlx
  tensor; where dlx's function refuses the operands' dtypes (TypeError: ``np.power`` of floats,
  ``np.less`` of complex numbers) and every tensor is in host memory, NumPy's ufunc runs instead, so that
  NumPy's answer (or NumPy's error) comes back;
- any other ufunc, a ufunc method other than ``__call__`` (``np.add.reduce``, ``.at``, ``.outer``), and a dlx
  ufunc called with arguments dlx does not take (``where=``, ``dtype=``, ``casting=``, an ``out=`` NumPy
  array) runs in NumPy on the tensors' memory (no copy, through ``__array__``) and gives NumPy arrays; a
  dlx tensor given as ``out=`` is written in place and returned;
- a NumPy function (``np.sum``, ``np.max``, ``np.mean``, ``np.concatenate``, ...) runs dlx's function of
  the same name when dlx has one that takes the arguments given, else NumPy's on the tensors' memory;
- memory the host cannot read (CUDA device memory, oneAPI device USM) never reaches NumPy: TypeError,
  saying to move the tensor first with ``t.to("cpu")``.

NumPy is imported by whoever calls these (NumPy itself), never by ``import dlx``."""
import inspect

import dlx



def _ndarray_types():
    import numpy as np

    return np.ndarray, np.generic


def _foreign(objs):
    """Whether an operand is some other library's array that speaks the protocol itself (NEP 13/18: then
    every implementation gets its turn, and NotImplemented is the answer here)."""
    nd = _ndarray_types()
    for x in objs:
        if isinstance(x, (dlx.Tensor, *nd)) or x is None:
            continue
        if hasattr(type(x), "__array_ufunc__"):
            return True
    return False


def _host_array(t, what, writable=False):
    """t's memory as an ndarray, without a copy (a copy where NumPy has no view of it, unless writable);
    TypeError naming what was asked when NumPy cannot have it."""
    try:
        return t.__array__(copy=False) if writable else t.__array__()
    except (TypeError, BufferError, ValueError) as e:
        raise TypeError(f"{what} runs in NumPy, on host memory: {e}") from e


def _to_numpy(obj, what):
    """obj with every dlx.Tensor in it (lists and tuples searched) replaced by its ndarray."""
    if isinstance(obj, dlx.Tensor):
        return _host_array(obj, what)
    if isinstance(obj, (list, tuple)):
        conv = [_to_numpy(x, what) for x in obj]
        return conv if isinstance(obj, list) else tuple(conv)
    return obj


def _dlx_ufunc(ufunc, inputs):
    """dlx's implementation of ufunc for these inputs, or None."""
    name = ufunc.__name__
    fn = getattr(dlx, name, None)
    if not callable(fn) or isinstance(fn, type) or len(inputs) != ufunc.nin:
        return None
    if name == "matmul" and not all(getattr(x, "ndim", 0) == 2 for x in inputs):
        return None  # dlx.matmul is rank-2; NumPy's stacks and vectors stay NumPy's
    if any(isinstance(x, (list, tuple)) for x in inputs):
        inputs = tuple(dlx.asarray(x) if isinstance(x, (list, tuple)) else x for x in inputs)
    return fn, inputs


def _host_readable(x):
    """Whether an operand is no dlx tensor, or one whose memory NumPy can read."""
    # DLPack's kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged: memory the host reads in place
    return not isinstance(x, dlx.Tensor) or x.device[0] in (1, 3, 11, 13)


def _refuse_read_only(method, inputs):
    """ufunc.at writes into its first operand, and NumPy 2.4's does so without looking at the writeable
    flag (a read-only ndarray is written too): a read-only tensor is refused here, before NumPy sees its
    memory, with NumPy's ValueError for a read-only destination. (out= needs nothing: dlx's ops and NumPy's
    other ufunc methods refuse a read-only out themselves.)"""
    if method == "at" and inputs and isinstance(inputs[0], dlx.Tensor) and inputs[0].readonly:
        raise ValueError("assignment destination is read-only")


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """Tensor.__array_ufunc__ (NEP 13)."""
    outs = kwargs.get("out", ())
    if _foreign(inputs + tuple(outs)):
        return NotImplemented
    _refuse_read_only(method, inputs)
    what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    found = _dlx_ufunc(ufunc, inputs) if method == "__call__" else None
    if found is not None and set(kwargs) <= {"out"}:
        fn, args = found
        try:
            if not outs:
                return fn(*args)
            if len(outs) == 1 and isinstance(outs[0], dlx.Tensor):
                return fn(*args, out=outs[0])
        except TypeError:
            # a dtype dlx's function does not take (dlx.matmul: BLAS's; dlx.power: integers) is NumPy's, on
            # host memory; on a device the error is dlx's
            if not all(_host_readable(x) for x in inputs + tuple(outs)):
                raise
    # NumPy's own, on the tensors' memory
    np_inputs = tuple(_to_numpy(x, what) for x in inputs)
    if outs:
        kwargs["out"] = tuple(_host_array(o, what, writable=True) if isinstance(o, dlx.Tensor) else o for o in outs)
    result = getattr(ufunc, method)(*np_inputs, **kwargs)
    if not outs:
        return result
    # out= given: NumPy returns the out arrays; the caller's own objects are returned instead
    if isinstance(result, tuple):
        return tuple(o if o is not None else r for o, r in zip(outs, result))
    return outs[0] if outs[0] is not None else result


def _binds(fn, args, kwargs):
    """Whether fn takes these arguments: by its signature, or None when it has none to read."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def array_function(self, func, types, args, kwargs):
    """Tensor.__array_function__ (NEP 18)."""
    nd = _ndarray_types()[0]
    if not all(issubclass(t, (dlx.Tensor, nd)) for t in types):
        return NotImplemented
    name = func.__name__
    ours = getattr(dlx, name, None)
    if callable(ours) and not isinstance(ours, type):
        binds = _binds(ours, args, kwargs)
        if binds:
            return ours(*args, **kwargs)
        if binds is None:
            try:
                return ours(*args, **kwargs)
            except TypeError as e:
                # a function without a signature to read: its argument errors send the call to NumPy
                if not any(s in str(e) for s in ("argument", "takes", "keyword")):
                    raise
    what = f"numpy.{name}"
    out = kwargs.get("out")
    np_args = _to_numpy(args, what)
    np_kwargs = {k: (_host_array(v, what, writable=True) if k == "out" and isinstance(v, dlx.Tensor)
                     else _to_numpy(v, what)) for k, v in kwargs.items()}
    impl = getattr(func, "_implementation", func)
    result = impl(*np_args, **np_kwargs)
    return out if isinstance(out, dlx.Tensor) else result

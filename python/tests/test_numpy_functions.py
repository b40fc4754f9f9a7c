"""NumPy's functions and ufuncs on dlx tensors (__array_ufunc__, __array_function__: src/pyext/numpy.c and
python/dlx/_numpy_protocol.py), over NumPy's whole ufunc list: the ufuncs dlx has run in dlx and give
tensors, every other one runs in NumPy on the tensor's memory and gives what NumPy gives for the same
arrays, and device memory is refused saying how to move it. NumPy's functions (np.sum, np.max, ...) go to
dlx's function of the same name when dlx has one that takes the arguments, else to NumPy."""
import re

import numpy as np
import pytest

import dlx

UFUNCS = sorted({getattr(np, n) for n in dir(np) if isinstance(getattr(np, n), np.ufunc)}, key=lambda u: u.__name__)
# the ufuncs dlx computes itself (docs/python-api.md): every row of its op table, and matmul
DLX_UFUNCS = {name for name, _, _ in dlx._dlx._op_table} | {"matmul"}
STANDARD_CHARS = "?bBhHiIlLqQefdFD"


def loop_dtypes(uf):
    """The input dtypes of uf's first loop that takes and gives standard dtypes only."""
    for sig in uf.types:
        ins, outs = sig.split("->")
        if all(c in STANDARD_CHARS for c in ins + outs):
            return [np.dtype(c) for c in ins]
    return None


def core_shapes(uf):
    """Operand shapes: (2, 3) for elementwise ufuncs, the core dimensions of a gufunc's signature
    (n = 3, m = 2, p = 2) otherwise."""
    if uf.signature is None:
        return [(2, 3)] * uf.nin
    sizes = {"n": 3, "m": 2, "p": 2}
    ins = uf.signature.split("->")[0]
    return [tuple(sizes.get(d.strip("?"), 2) for d in part.split(",") if d) for part in re.findall(r"\(([^)]*)\)", ins)]


def operand(rng, dt, shape):
    """Values every ufunc takes without a domain error: positive, below 1 for floats, small for integers."""
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(1, 6, size=shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(0.1, 0.9, size=shape) + 1j * rng.uniform(0.1, 0.9, size=shape)).astype(dt)
    return rng.uniform(0.1, 0.9, size=shape).astype(dt)


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def test_the_ufunc_list_is_numpys():
    names = {u.__name__ for u in UFUNCS}
    assert {"add", "sqrt", "matmul", "logaddexp", "divmod", "frexp", "isnat"} <= names
    assert len(UFUNCS) > 80


@pytest.mark.parametrize("uf", UFUNCS, ids=lambda u: u.__name__)
def test_every_numpy_ufunc(uf):
    """Issue 20, item 9: np.sqrt(t) and the like raised TypeError (__array_ufunc__ was None)."""
    dts = loop_dtypes(uf)
    if dts is None:
        pytest.skip(f"{uf.__name__} has no loop over standard dtypes only ({uf.types[:3]}...)")
    rng = np.random.default_rng(9)
    arrays = [operand(rng, dt, s) for dt, s in zip(dts, core_shapes(uf))]
    tensors = [dlx.asarray(a) for a in arrays]
    with np.errstate(all="ignore"):
        want = uf(*arrays)
        got = uf(*tensors)
    if uf.__name__ in DLX_UFUNCS and not (uf.__name__ == "matmul" and dts[0].kind not in "fc"):
        assert isinstance(got, dlx.Tensor), type(got)
        same(got, want)
    elif uf.nout > 1:
        assert isinstance(got, tuple) and len(got) == uf.nout
        for g, w in zip(got, want):
            assert isinstance(g, (np.ndarray, np.generic))
            same(g, w)
    else:
        assert isinstance(got, (np.ndarray, np.generic)), type(got)  # a 0-d result is NumPy's scalar
        same(got, want)
    # one tensor among NumPy operands is enough to come here, on either side
    if uf.nin == 2 and uf.signature is None:
        with np.errstate(all="ignore"):
            same(uf(arrays[0], tensors[1]), want)


@pytest.mark.parametrize("uf", [u for u in UFUNCS if u.__name__ not in DLX_UFUNCS and loop_dtypes(u)],
                         ids=lambda u: u.__name__)
def test_device_memory_is_refused_saying_how_to_move_it(uf):
    dts = loop_dtypes(uf)
    shapes = core_shapes(uf)
    dev = dlx.from_dlpack(dlx._testing.make_capsule(shapes[0], dts[0].name, device=(2, 0)))
    rest = [operand(np.random.default_rng(1), dt, s) for dt, s in zip(dts[1:], shapes[1:])]
    with pytest.raises(TypeError, match=rf'numpy\.{uf.__name__} runs in NumPy, on host memory: .*cuda:0.*t\.to\("cpu"\)'):
        uf(dev, *rest)


def test_dlx_ufuncs_follow_dlx_rules_and_out():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    t = dlx.asarray(a)
    r = np.add(t, 1)  # a weak Python int: uint8, as NumPy 2
    assert isinstance(r, dlx.Tensor) and r.dtype == "uint8"
    r = np.add(t, np.int16(1))  # a NumPy scalar is strong
    assert r.dtype == "int16"
    assert np.true_divide(t, 2).dtype == "float64"
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        np.add(t, 300)
    out = dlx.zeros((2, 3), "uint8")
    assert np.add(t, t, out=out) is out
    assert out.tolist() == (a + a).tolist()
    assert np.add(t, [1, 2, 3]).tolist() == (a + np.array([1, 2, 3])).tolist()  # a list is an array, as NumPy
    # arguments dlx does not take send the call to NumPy
    r = np.add(t, 1, dtype=np.float32)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    where = np.add(t, 1, where=a > 2, out=np.zeros((2, 3), np.uint8))
    same(where, np.add(a, 1, where=a > 2, out=np.zeros((2, 3), np.uint8)))
    nd_out = np.zeros((2, 3), np.uint8)
    assert np.add(t, 1, out=nd_out) is nd_out
    # an ndarray on the left of an operator comes here too, and stays an ndarray in place
    b = np.ones((2, 3), np.uint8)
    assert isinstance(b + t, dlx.Tensor) and isinstance(b < t, dlx.Tensor)
    b += t
    assert isinstance(b, np.ndarray) and b.tolist() == (1 + a).tolist()
    # matmul of rank-2 operands is dlx's, other ranks NumPy's
    m = dlx.asarray(np.eye(3))
    assert isinstance(np.matmul(m, m), dlx.Tensor)
    assert isinstance(np.matmul(m, np.ones(3)), np.ndarray)
    i = dlx.asarray(np.eye(3, dtype=np.int32))  # dtypes dlx's gemm does not take: NumPy's, on host memory
    assert isinstance(np.matmul(i, i), np.ndarray)


def test_other_ufuncs_write_dlx_out_in_place():
    t = dlx.asarray(np.array([1.0, 4.0, 9.0]))
    out = dlx.zeros((3,), "float64")
    assert np.sqrt(t, out=out) is out
    assert out.tolist() == [1.0, 2.0, 3.0]
    q, r = dlx.zeros((3,), "float64"), dlx.zeros((3,), "float64")
    res = np.divmod(t, 2.0, out=(q, r))
    assert res[0] is q and res[1] is r and q.tolist() == [0.0, 2.0, 4.0] and r.tolist() == [1.0, 0.0, 1.0]
    ro = dlx.from_dlpack(np.zeros(3)[...].copy())
    ro_np = np.zeros(3)
    ro_np.flags.writeable = False
    with pytest.raises(ValueError):
        np.sqrt(t, out=dlx.from_dlpack(ro_np))
    assert np.sqrt(t, out=ro) is ro
    # packed float4 cannot be written through NumPy's view: refused, not silently dropped
    f4 = dlx.zeros((4,), "float4_e2m1fn")
    with pytest.raises(TypeError, match="on host memory"):
        np.sqrt(dlx.asarray(np.ones(4, np.float32)), out=f4)


def test_ufunc_methods_run_in_numpy():
    a = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    t = dlx.asarray(a)
    same(np.add.reduce(t, axis=1), np.add.reduce(a, axis=1))
    same(np.multiply.accumulate(t, axis=0), np.multiply.accumulate(a, axis=0))
    same(np.subtract.outer(t[0], t[1]), np.subtract.outer(a[0], a[1]))
    c = a.copy()
    u = dlx.asarray(c)
    np.add.at(u, ([0, 0], [1, 1]), 5)  # in place, on the tensor's memory
    assert u.tolist()[0][1] == a[0, 1] + 10


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "std", "var", "any", "all", "argmax", "argmin", "cumsum"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_numpy_functions_give_numpys_values(name):
    a = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    t = dlx.asarray(a)
    fn = getattr(np, name)
    same(np.asarray(fn(t)), fn(a))  # dlx's function when dlx has one, NumPy's else: the same values
    same(np.asarray(fn(t, axis=1)), fn(a, axis=1))


def test_numpy_functions_route_to_dlx_by_name(monkeypatch):
    t = dlx.asarray(np.arange(4.0))
    calls = []

    def fake_sum(x, axis=None):
        calls.append((x, axis))
        return "dlx.sum"

    monkeypatch.setattr(dlx, "sum", fake_sum, raising=False)
    assert np.sum(t) == "dlx.sum" and calls[-1] == (t, None)
    assert np.sum(t, axis=0) == "dlx.sum"
    # an argument dlx's function does not take: NumPy's
    assert np.sum(t, dtype=np.float32) == np.float32(6.0)
    monkeypatch.delattr(dlx, "sum")
    assert np.sum(t) == 6.0


def test_numpy_functions_on_many_tensors_and_out():
    t = dlx.asarray(np.arange(6).reshape(2, 3))
    same(np.concatenate([t, t]), np.concatenate([np.arange(6).reshape(2, 3)] * 2))
    same(np.stack([t[0], t[1]]), np.arange(6).reshape(2, 3))
    out = dlx.zeros((3,), "int64")
    assert np.sum(t, axis=0, out=out) is out
    assert out.tolist() == [3, 5, 7]
    same(np.where(t > 2, t, -1), np.where(np.arange(6).reshape(2, 3) > 2, np.arange(6).reshape(2, 3), -1))
    d = dlx.from_dlpack(dlx._testing.make_capsule((3,), "float32", device=(2, 0)))
    with pytest.raises(TypeError, match=r'numpy\.concatenate runs in NumPy, on host memory: .*t\.to\("cpu"\)'):
        np.concatenate([t[0], d])


def test_foreign_arrays_get_their_turn():
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

        def __array_function__(self, func, types, args, kwargs):
            return "other"

    t = dlx.asarray(np.arange(3.0))
    assert np.add(t, Other()) == "other"
    assert np.concatenate([t, Other()]) == "other"

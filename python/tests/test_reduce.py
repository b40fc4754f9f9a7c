"""dlx.sum, prod, min, max, mean, argmin, argmax, any, all (and the Tensor methods) against NumPy, and the
determinism rule of docs/numerics.md ("Reductions").

- Every op on every dtype (ml_dtypes' bfloat16 and float8 included) over hypothesis-drawn shapes (empty
  ones too), axes (None, an int, tuples, negative), keepdims, strided views and values (NaN of both
  signs, inf, -0.0, extremes, integers past 2**53): integer results, any/all, argmin/argmax and min/max
  equal NumPy's exactly (min/max of floats: NaN where NumPy has NaN, the value otherwise, with dlx's rule
  for the sign of zero and which NaN), float sums, products and means are within rounding of NumPy's.
- Float sums, products and means are bit for bit the documented order, implemented here in NumPy
  (float32 / float64 / complex arithmetic one operation at a time): 16 lanes of pairwise trees in blocks
  of 4096, the lanes folded in halves, a pairwise tree over the blocks.
- The same bits whatever the layout (a transposed or reversed view and its compact copy) and the thread
  count; accuracy against math.fsum on ill-conditioned data at least NumPy's; the errors."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dlx
from opsutil import COMPLEX, EXT, INTS, from_np, ml_dtypes, np_dtype, strided_pair, to_np

OPS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]
DTYPES = ["bool"] + INTS + ["float16", "float32", "float64"] + COMPLEX + \
    [d for d in ("bfloat16", "float8_e4m3fn", "float8_e5m2") if d in EXT]
FLOATISH = ["float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2"]
BLOCK, LANES = 4096, 16


# ---- values --------------------------------------------------------------------------------------------

SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 1e3, -1e5, 65504.0, 1e30, -1e30, 3.4e38, 1e-40, math.inf,
                  -math.inf, math.nan, -math.nan]


@st.composite
def arrays(draw, dtype, shape):
    """A NumPy array of dtype (a dlx name) and shape with odd values: specials, extremes, random ones."""
    n = int(np.prod(shape)) if shape else 1
    dt = np_dtype(dtype)
    if n > 256:  # beyond what hypothesis draws one by one: a drawn pool of values, spread by a drawn seed
        pool = draw(arrays(dtype, (64,))).reshape(-1)
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
        x = pool[rng.integers(0, 64, n)]
        if dtype in FLOATISH or dtype in COMPLEX:  # and ordinary values between them
            mix = rng.random(n) < 0.5
            with np.errstate(all="ignore"):
                x[mix] = (rng.standard_normal(int(mix.sum())) * 100).astype(np.float32).astype(dt)
        return x.reshape(shape)
    if dtype == "bool":
        vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        return np.array(vals, dtype=bool).reshape(shape)
    if dtype in INTS:
        info = np.iinfo(dt)
        edge = [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 2 ** 53 + 1 if info.max > 2 ** 53 else 3]
        small = st.integers(max(-9, int(info.min)), 9)
        elem = st.one_of(st.sampled_from(edge), st.integers(int(info.min), int(info.max)), small)
        return np.array(draw(st.lists(elem, min_size=n, max_size=n)), dtype=dt).reshape(shape)
    floats = st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats(-1e4, 1e4, allow_nan=False),
                       st.floats(allow_nan=True, allow_infinity=True, width=32))
    if dtype in COMPLEX:
        re = draw(st.lists(floats, min_size=n, max_size=n))
        im = draw(st.lists(floats, min_size=n, max_size=n))
        part = np.float32 if dtype == "complex64" else np.float64
        with np.errstate(all="ignore"):
            return _complex(np.array(re, part), np.array(im, part), dt).reshape(shape)
    vals = np.array(draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64).reshape(shape)
    with np.errstate(all="ignore"):
        if dtype in EXT:
            return vals.astype(np.float32).astype(dt)
        return vals.astype(dt)


@st.composite
def cases(draw, dtypes=DTYPES, max_side=6):
    dtype = draw(st.sampled_from(dtypes))
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, max_side), min_size=nd, max_size=nd)))
    if nd and draw(st.integers(0, 9)) == 0:  # now and then one long axis: several blocks
        shape = shape[:-1] + (draw(st.sampled_from([300, 4097, 9000])),)
        shape = tuple(min(s, 3) for s in shape[:-1]) + shape[-1:]
    x = draw(arrays(dtype, shape))
    kind = draw(st.integers(0, 3))
    if kind == 0 or nd == 0:
        axis = None
    elif kind == 1:
        axis = draw(st.integers(-nd, nd - 1))
    else:
        axis = tuple(draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd)))
        axis = tuple(a - nd if draw(st.booleans()) else a for a in axis)
    return x, axis, draw(st.booleans())


def _complex(re, im, dt):
    """A complex array from its parts, without arithmetic (1j * inf is nan + inf j)."""
    out = np.empty(np.shape(re), dtype=dt)
    out.real, out.imag = re, im
    return out


# ---- NumPy's answer, and the documented order ---------------------------------------------------------

def moved(x, axis):
    """x with the reduced axes last, flattened: (outputs..., n), and the kept shape."""
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    axes = sorted(a % nd for a in axes) if nd else []
    kept = [d for d in range(nd) if d not in axes]
    y = np.transpose(x, kept + axes) if nd else x.reshape(())
    kshape = tuple(x.shape[d] for d in kept)
    n = int(np.prod([x.shape[d] for d in axes])) if axes else 1
    return y.reshape(kshape + (n,)), kshape, axes


def result_shape(x, axes, keepdims):
    return tuple(1 if d in axes else s for d, s in enumerate(x.shape)) if keepdims else \
        tuple(s for d, s in enumerate(x.shape) if d not in axes)


def acc_dtype(op, dtype):
    """The accumulation dtype of sum / prod / mean (docs/numerics.md)."""
    if dtype == "bool" or dtype in INTS:
        if op == "mean":
            return np.float64
        return np.uint64 if dtype.startswith("uint") else np.int64
    if dtype in EXT or dtype == "float16":
        return np.float32
    return np_dtype(dtype)


def tree(leaves, op):
    """T: the pairwise tree over leaves (each an array over the outputs), h the largest power of two below."""
    if len(leaves) == 1:
        return leaves[0]
    h = 1
    while 2 * h < len(leaves):
        h *= 2
    return op(tree(leaves[:h], op), tree(leaves[h:], op))


def documented(y, op):
    """The rule on y (outputs..., n), already in the accumulation dtype."""
    n = y.shape[-1]
    partials = []
    for b in range(0, n, BLOCK):
        blk = y[..., b:b + BLOCK]
        m = blk.shape[-1]
        lanes = [tree([blk[..., q * LANES + j] for q in range((m - j + LANES - 1) // LANES)], op)
                 for j in range(min(LANES, m))]
        for h in (8, 4, 2, 1):
            for k in range(h):
                if k + h < len(lanes):
                    lanes[k] = op(lanes[k], lanes[k + h])
        partials.append(lanes[0])
    return tree(partials, op)


def cmul(a, b):
    """NumPy's complex product formula, one rounding per operation in the part type."""
    re = a.real * b.real - a.imag * b.imag
    im = a.real * b.imag + a.imag * b.real
    return _complex(re, im, a.dtype)


def expected_arith(x, axis, op, dtype):
    """sum / prod / mean by the documented order, as the dtype dlx stores (NaN canonical, a sum from +0)."""
    y, kshape, axes = moved(x, axis)
    acc = np.dtype(acc_dtype(op, dtype)).type
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = y.astype(acc)
        n = y.shape[-1]
        if n == 0:  # NumPy's: 0, 1, and nan (nan + nan j for complex)
            r = np.full(kshape, {"sum": 0, "prod": 1, "mean": complex(np.nan, np.nan)}[op], dtype=acc)
        else:
            if op == "prod":
                f = cmul if np.dtype(acc).kind == "c" else (lambda a, b: (a * b).astype(acc))
            else:
                f = lambda a, b: (a + b).astype(acc)  # noqa: E731
            r = np.asarray(documented(y, f)).astype(acc)
            if op != "prod":
                r = (r + acc(0)).astype(acc)  # a sum starts from +0.0
            if op == "mean":
                r = (r / np.asarray(n).astype(acc)).astype(acc)
        out = np.dtype(np.float64 if op == "mean" and (dtype == "bool" or dtype in INTS) else
                       acc if dtype in ("bool",) + tuple(INTS) else np_dtype(dtype))
        return r.astype(out).reshape(kshape), axes


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.dtype("u%d" % a.dtype.itemsize)) if a.dtype.kind != "c" else \
        a.view(np.dtype("u%d" % (a.dtype.itemsize // 2)))


def canonical_nan(a):
    """a with every NaN (part) replaced by the positive quiet NaN: dlx's bytes for a NaN sum."""
    a = np.array(a, copy=True)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "c":
            re, im = a.real.copy(), a.imag.copy()
            re[np.isnan(re)] = np.nan
            im[np.isnan(im)] = np.nan
            return _complex(re, im, a.dtype)
        f = a.astype(np.float32) if a.dtype.itemsize < 4 else a
        mask = np.isnan(f)
        a[mask] = np.asarray(np.nan).astype(a.dtype)
        return a




def run(op, x, axis, keepdims, **kw):
    t = from_np(x)
    return getattr(dlx, op)(t, axis=axis, keepdims=keepdims, **kw)


# ---- against NumPy -------------------------------------------------------------------------------------

def numpy_select(x, axis, op):
    """min / max by dlx's rule from NumPy's pieces: NaN if any (the smallest bit pattern of them), else the
    extreme value, -0.0 below +0.0."""
    y, kshape, _ = moved(x, axis)
    if y.dtype.kind in "biu":
        return getattr(np, op)(y, axis=-1)
    f = y.astype(np.float32) if y.dtype.itemsize < 4 and y.dtype.kind != "c" else y
    if y.dtype.kind == "c":  # NumPy's complex order, with our NaN and zero rules left to the bit checks
        return getattr(np, op)(y, axis=-1)
    with np.errstate(all="ignore"):
        r = getattr(np, "nan" + op)(np.where(np.isnan(f), np.inf if op == "min" else -np.inf, f), axis=-1)
        zero = r == 0
        signed = np.signbit(f) & (f == 0)
        if op == "min":
            neg = zero & signed.any(axis=-1)
        else:
            neg = zero & ~((~signed & (f == 0)).any(axis=-1))
        r = np.where(neg, -0.0, np.where(zero, 0.0, r)).astype(f.dtype)
        nan = np.isnan(f).any(axis=-1)
    out = r.astype(y.dtype)
    if nan.any():
        b = bits(y).astype(np.uint64)
        nanbits = np.where(np.isnan(f), b, np.iinfo(np.uint64).max).min(axis=-1)
        ob = bits(out).copy()
        ob[nan] = nanbits[nan].astype(ob.dtype)
        out = ob.view(y.dtype)
    return out.reshape(kshape)


def check_case(op, x, axis, keepdims):
    dtype = x.dtype.name if x.dtype.name in DTYPES else next(d for d in EXT if np_dtype(d) == x.dtype)
    y, kshape, axes = moved(x, axis)
    n = y.shape[-1]
    shape = result_shape(x, axes, keepdims)
    if op in ("min", "max", "argmin", "argmax") and n == 0:
        with pytest.raises(ValueError, match="which has extent 0"):
            run(op, x, axis, keepdims)
        return
    got = run(op, x, axis, keepdims)
    assert got.shape == shape
    g = to_np(got).reshape(kshape)
    if op in ("any", "all"):
        with np.errstate(all="ignore"):
            want = getattr(np, op)(y.astype(np.float32) if dtype in EXT else y, axis=-1)
        assert got.dtype == "bool"
        np.testing.assert_array_equal(g, want)
    elif op in ("argmin", "argmax"):
        assert got.dtype == "int64"
        f = y.astype(np.float32) if dtype in EXT else y
        if y.size:
            np.testing.assert_array_equal(g, getattr(np, op)(f, axis=-1))
    elif op in ("min", "max"):
        assert got.dtype == dtype
        want = numpy_select(x, axis, op)
        if x.dtype.kind == "c":
            np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
            ok = ~np.isnan(want)
            np.testing.assert_array_equal(g[ok], want[ok])
        else:
            np.testing.assert_array_equal(bits(g), bits(want))
    else:
        want, _ = expected_arith(x, axis, op, dtype)
        assert got.dtype == want.dtype.name or (dtype in EXT and got.dtype == dtype), (got.dtype, want.dtype)
        if got.dtype in EXT:
            want = want.astype(np_dtype(got.dtype))
        np.testing.assert_array_equal(bits(g), bits(canonical_nan(want)))
        # and within rounding of NumPy's own order (sums and means: a product's intermediate underflow
        # makes the relative error of another order unbounded; its bits are checked above)
        if (x.dtype.kind in "fc" or dtype in EXT) and op != "prod":
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yy = y.astype(acc_dtype(op, dtype))
                ref = getattr(np, op)(yy, axis=-1)
                scale = np.sum(np.abs(yy), axis=-1)
                tol = (n + 2) * np.finfo(np.float32 if yy.dtype in (np.float32, np.complex64) else np.float64).eps
                gg = g.astype(yy.dtype)
                fine = np.isfinite(ref) & np.isfinite(scale) & np.isfinite(gg)
                # plus the one rounding to a narrower result dtype (bfloat16, float16, float8)
                out_eps = float(ml_dtypes.finfo(np_dtype(got.dtype)).eps) if got.dtype in EXT else \
                    float(np.finfo(np.float16).eps) if got.dtype == "float16" else 0.0
                bound = tol * np.maximum(scale, 1e-300) + out_eps * np.abs(ref) + 1e-30
                assert np.all(np.abs(gg - ref)[fine] <= bound[fine])
    # the Tensor method is the same call
    same = getattr(from_np(x), op)(axis=axis, keepdims=keepdims)
    assert bits(to_np(same)).tobytes() == bits(to_np(got)).tobytes()


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(OPS), cases())
def test_against_numpy(op, case):
    x, axis, keepdims = case
    if op in ("argmin", "argmax") and x.dtype.kind == "c":
        assume(not np.isnan(x).any())  # NumPy's complex NaN order is its own; dlx's is tested in C
    check_case(op, x, axis, keepdims)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["sum", "mean", "prod"]), cases(dtypes=["float32", "float64", "bfloat16", "complex64"],
                                                       max_side=40))
def test_documented_order_bits(op, case):
    """The float bits are the documented order's, on wider axes (several leaves per lane)."""
    x, axis, keepdims = case
    check_case(op, x, axis, keepdims)


# ---- layout, threads, SIMD levels -----------------------------------------------------------------------

@settings(max_examples=120, deadline=None)
@given(st.sampled_from(OPS), st.sampled_from(DTYPES), st.lists(st.integers(1, 9), min_size=1, max_size=3),
       st.data())
def test_layout_does_not_change_bits(op, dtype, shape, data):
    nd = len(shape)
    steps = [data.draw(st.sampled_from([1, 2, -1, -2])) for _ in range(nd)]
    perm = data.draw(st.permutations(range(nd)))
    base = data.draw(arrays(dtype, tuple(shape)))
    view_np, view_t, _, _ = strided_pair(np.random.default_rng(0), base, shape, steps, perm)
    axis = data.draw(st.one_of(st.none(), st.integers(-nd, nd - 1)))
    compact = from_np(np.ascontiguousarray(view_np))
    a = getattr(dlx, op)(view_t, axis=axis)
    b = getattr(dlx, op)(compact, axis=axis)
    assert bits(to_np(a)).tobytes() == bits(to_np(b)).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64", "int32"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_threads_do_not_change_bits(dtype, axis):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((300, 5000)) * 10.0 ** rng.integers(-4, 5, (300, 5000)))
    x = x.astype(np.float32).astype(np_dtype(dtype)) if dtype in EXT else x.astype(dtype)
    t = from_np(x)
    results = []
    try:
        for threads in (1, 3, 0):
            dlx.set_num_threads(threads)
            results.append([bits(to_np(dlx.sum(t, axis=axis))).tobytes(), bits(to_np(dlx.mean(t.T, axis=axis)))
                            .tobytes()])
    finally:
        dlx.set_num_threads(0)
    assert results[0] == results[1] == results[2]


# ---- accuracy ------------------------------------------------------------------------------------------

def ill_conditioned(rng, n, dtype):
    """Large values that cancel, and small ones: condition number far above 1/eps."""
    x = rng.standard_normal(n) * 10.0 ** rng.integers(0, 8, n)
    x[n // 2:] = -x[: n - n // 2][::-1] * (1 + rng.standard_normal(n - n // 2) * 1e-7)
    rng.shuffle(x)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_accuracy_against_fsum(dtype):
    """|dlx - fsum| summed over many ill-conditioned inputs is at most NumPy's pairwise sum's."""
    rng = np.random.default_rng(23)
    err_dlx = err_np = 0.0
    for trial in range(40):
        n = int(rng.choice([1000, 4096, 10000, 100000, 1000003]))
        x = ill_conditioned(rng, n, dtype)
        exact = math.fsum(x.astype(np.float64).tolist())
        err_dlx += abs(float(to_np(dlx.sum(from_np(x)))) - exact)
        err_np += abs(float(np.sum(x)) - exact)
    print(f"{dtype}: total |error| dlx {err_dlx:.6g}, NumPy {err_np:.6g}")
    assert err_dlx <= err_np


# ---- out=, dtype=, methods -------------------------------------------------------------------------------

def test_out_and_dtype():
    x = np.arange(12, dtype=np.int8).reshape(3, 4) * 20
    t = from_np(x)
    out = dlx.zeros((4,), "int16")
    r = dlx.sum(t, axis=0, out=out)
    assert r is out
    np.testing.assert_array_equal(to_np(out), np.sum(x, axis=0, dtype=np.int16))
    out64 = dlx.zeros((3,), "float64")
    dlx.mean(t, axis=1, out=out64)  # mean computed in float64, written as it is
    np.testing.assert_array_equal(to_np(out64), np.mean(x, axis=1))
    out32 = dlx.zeros((3,), "float32")
    dlx.argmax(t, axis=1, out=out32)  # int64 indices cast into out
    np.testing.assert_array_equal(to_np(out32), np.argmax(x, axis=1).astype(np.float32))
    assert to_np(dlx.sum(t, dtype="int8")).item() == np.sum(x, dtype=np.int8)
    assert dlx.sum(t, dtype="float32").dtype == "float32"
    assert dlx.max(from_np(np.array([1.5, 2.5], np.float32)), dtype="int32").item() == 2
    assert dlx.argmax(from_np(np.array([1.5, 1.7], np.float32)), dtype="int32").item() == 0  # (1, 1): first
    assert dlx.any(from_np(np.array([0.25, 0.0])), dtype="int8").item() is False
    assert t.sum(axis=(0, 1), keepdims=True).shape == (1, 1)
    assert dlx.argmax(t, axis=(0, 1)).item() == np.argmax(x)  # flat over the reduced axes (int8 wrapped: 6)


def test_integers_past_2_53():
    x = np.array([2 ** 62 + 1, 2 ** 62 + 3, -(2 ** 61) - 7, 2 ** 53 + 1], dtype=np.int64)
    assert to_np(dlx.sum(from_np(x))).item() == int(np.sum(x))
    assert to_np(dlx.sum(from_np(x))).item() == (sum(int(v) for v in x) + 2 ** 63) % 2 ** 64 - 2 ** 63
    u = np.array([2 ** 64 - 1, 2 ** 63 + 5], dtype=np.uint64)
    assert to_np(dlx.sum(from_np(u))).item() == (2 ** 64 - 1 + 2 ** 63 + 5) % 2 ** 64
    assert to_np(dlx.max(from_np(u))).item() == 2 ** 64 - 1


def test_empty():
    x = np.zeros((3, 0), np.float32)
    t = from_np(x)
    np.testing.assert_array_equal(to_np(dlx.sum(t, axis=1)), np.zeros(3, np.float32))
    np.testing.assert_array_equal(to_np(dlx.prod(t, axis=1)), np.ones(3, np.float32))
    assert np.isnan(to_np(dlx.mean(t, axis=1))).all()
    assert not to_np(dlx.any(t, axis=1)).any() and to_np(dlx.all(t, axis=1)).all()
    assert dlx.max(t, axis=0).shape == (0,)
    for op in ("min", "max", "argmin", "argmax"):
        with pytest.raises(ValueError, match=f"{op} over axis 1, which has extent 0"):
            getattr(dlx, op)(t, axis=1)


def test_errors():
    t = dlx.zeros((2, 3))
    with pytest.raises(IndexError, match="axis 2 is out of range for an input of ndim 2"):
        dlx.sum(t, axis=2)
    with pytest.raises(ValueError, match="axis 1 is repeated"):
        dlx.sum(t, axis=(1, -1))
    with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
        dlx.sum(t, axis=[0])
    with pytest.raises(TypeError, match="axis must be"):
        dlx.sum(t, axis=True)
    with pytest.raises(ValueError, match=r"out has shape \(2\), but sum over axes \(0\) of a \(2,3\) input"):
        dlx.sum(t, axis=0, out=dlx.zeros((2,)))
    with pytest.raises(ValueError, match="out has shape"):
        dlx.argmax(t, axis=0, out=dlx.zeros((2,)))  # another dtype: cast from a result of shape (3,)
    with pytest.raises(ValueError, match="out overlaps the input"):
        dlx.sum(t, axis=(), out=t)
    with pytest.raises(TypeError, match="sum is not supported for dtype int128"):
        dlx.sum(dlx.zeros((2,), "int128"))
    with pytest.raises(TypeError, match="float4_e2m1fn"):
        dlx.max(dlx.zeros((2,), "float4_e2m1fn"))
    with pytest.raises(ValueError, match="mean needs a floating-point or complex out, but out is int32"):
        dlx.mean(t, dtype="int32")
    with pytest.raises(TypeError):
        dlx.sum("123")  # a list is an array as NumPy makes it (test_edges.py), a str no tensor-like
    with pytest.raises(ValueError, match="unknown dtype"):
        dlx.sum(t, dtype="float33")


# --- NumPy's functions on dlx tensors (the protocol of python/dlx/_numpy_protocol.py) ---------------------------


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"])
@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}])
def test_numpy_reductions_run_in_dlx(name, kw):
    """np.sum(t), np.max(t), np.mean(t) and the others run dlx's kernels (a dlx.Tensor comes back) and give
    NumPy's values; arguments dlx does not take (initial=, where=) go to NumPy, on the tensor's memory."""
    if name in ("argmin", "argmax") and isinstance(kw.get("axis"), tuple):
        pytest.skip("NumPy's argmin/argmax take one axis")
    a = np.array([[3.5, -1.0, 2.0], [0.0, 7.25, -4.5]], np.float32)
    t = dlx.asarray(a)
    got, want = getattr(np, name)(t, **kw), getattr(np, name)(a, **kw)
    assert isinstance(got, dlx.Tensor), f"np.{name}(t, {kw}) did not run in dlx"
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def test_numpy_reduction_arguments_dlx_lacks_fall_back_to_numpy():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = dlx.asarray(a)
    got = np.min(t, initial=-2.0)
    assert not isinstance(got, dlx.Tensor) and got == np.min(a, initial=-2.0)
    mask = np.array([[True, False, True], [False, True, True]])
    assert np.sum(t, where=mask) == np.sum(a, where=mask)

"""Shared helpers of the op tests (test_ops, test_indexing, test_gemm): NumPy <-> dlx for every dtype
(bfloat16 and the float8 formats travel as same-size unsigned ints, since NumPy's DLPack cannot carry
them), random arrays, and strided views built the same way on both sides."""
import numpy as np

import dlx

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - ml_dtypes is a test dependency
    ml_dtypes = None

STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
            "float64", "complex64", "complex128"]
EXT = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
       "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"] if ml_dtypes is not None else []
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def np_dtype(name):
    if name in EXT:
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _carrier(name):
    """The unsigned int a narrow format travels as."""
    return "uint16" if np_dtype(name).itemsize == 2 else "uint8"


def to_np(t):
    """A NumPy array sharing t's memory (ml_dtypes for the narrow formats)."""
    if t.dtype in EXT:
        return np.from_dlpack(t.view(_carrier(t.dtype))).view(np_dtype(t.dtype))
    return np.from_dlpack(t)


def from_np(a):
    """A dlx.Tensor sharing a's memory."""
    name = a.dtype.name
    if name in EXT:
        return dlx.from_dlpack(a.view(_carrier(name))).view(name)
    return dlx.from_dlpack(a)


# Integers where exactness is lost or limits are hit: every dtype's extremes, 2**53 +- 1 (float64's last
# exact integers), 2**63 +- 1 (int64's edge, inside uint64), 2**31, 2**32, and small values. Operands of
# different dtypes drawn from this pool meet equal and adjacent values, which uniform draws never do.
EDGE_INTS = sorted({v for b in (8, 16, 32, 64) for v in (-(2**(b - 1)), -(2**(b - 1)) + 1, 2**(b - 1) - 1,
                                                      2**(b - 1), 2**(b - 1) + 1, 2**b - 2, 2**b - 1)}
                   | {s * (2**53 + d) for s in (1, -1) for d in (-1, 0, 1)} | {2**31, 2**32, 2**32 + 1}
                   | set(range(-3, 4)))


def edge_ints(name):
    """The values of EDGE_INTS that dtype name holds."""
    info = np.iinfo(np_dtype(name))
    return [v for v in EDGE_INTS if info.min <= v <= info.max]


def random_array(rng, name, shape, small=False, special=False):
    """Values of dtype name: ints over their whole range with a third from EDGE_INTS (small: a few units),
    floats of both signs and mixed magnitudes with some exact zeros (special: a tenth NaN, +-inf, -0.0 and
    the float's extremes too), complex from two such floats (never special: dlx's complex products differ
    from NumPy's FMA loop at inf, docs/numerics.md)."""
    dt = np_dtype(name)
    if name == "bool":
        return np.asarray(rng.integers(0, 2, size=shape)).astype(bool)
    if name in INTS:
        info = np.iinfo(dt)
        lo, hi = (max(info.min, -5), min(info.max, 5)) if small else (info.min, info.max)
        x = np.asarray(rng.integers(lo, hi, size=shape, endpoint=True, dtype=dt))
        if not small:
            edges = np.array(edge_ints(name), dtype=dt)
            pick = rng.random(size=shape) < 1 / 3
            x[pick] = edges[rng.integers(0, len(edges), size=shape)][pick]
        return x
    if name in COMPLEX:
        part = "float32" if name == "complex64" else "float64"
        z = random_array(rng, part, shape, small) + 1j * random_array(rng, part, shape, small)
        return np.asarray(z).astype(dt)  # 0-d arithmetic gives NumPy scalars: back to an array
    x = np.asarray(rng.standard_normal(size=shape) * (4.0 if small else 10.0 ** rng.integers(-3, 4, size=shape)))
    x[rng.random(size=shape) < 0.1] = 0.0
    if special and name in FLOATS:
        fi = np.finfo(dt)
        odd = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, fi.max, -fi.max, fi.tiny, fi.smallest_subnormal],
                       np.float64)
        pick = rng.random(size=shape) < 0.1
        x[pick] = odd[rng.integers(0, len(odd), size=shape)][pick]
    if name in EXT:
        x = np.abs(x) if name == "float8_e8m0fnu" else x
        return x.astype(np.float32).astype(dt)
    return x.astype(dt)


def strided_pair(rng, base, shape, steps, perm):
    """The same view of a fresh copy of `base` on both sides: memory laid out in dimension order perm,
    dimension i sliced with step steps[i] (negative: reversed). Returns (numpy view, dlx view, numpy
    base, dlx base)."""
    nd = len(shape)
    full = [max(n * abs(s), 0) for n, s in zip(shape, steps)]
    # memory order perm: allocate in that order, then look at it in logical order
    mem_shape = [full[p] for p in perm]
    mem = np.empty(mem_shape, dtype=base.dtype)
    inv = list(np.argsort(perm))
    logical = mem.transpose(inv)
    idx = tuple(slice(None, None, s) for s in steps)
    view = logical[idx + (Ellipsis,)]  # the Ellipsis keeps a 0-d result an array
    assert view.shape == tuple(shape), (view.shape, shape)
    view[...] = base
    t_mem = from_np(mem)
    t_view = t_mem.permute(*inv)[idx] if nd else t_mem
    return view, t_view, mem, t_mem


def assert_same(got, want, exact=True, rtol=None):
    """dlx result (a Tensor) against NumPy's (an array or scalar): dtype, shape and values (NaN == NaN;
    bit-equal for exact float results)."""
    want = np.asarray(want)
    g = to_np(got)
    assert got.dtype == want.dtype.name, (got.dtype, want.dtype.name)
    assert g.shape == want.shape, (g.shape, want.shape)
    if exact or rtol is None:
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol)

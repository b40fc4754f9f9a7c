"""JAX <-> dlx (CPU). JAX speaks legacy DLPack only (it calls __dlpack__(stream=None) and returns
"dltensor" capsules), imports only compact strides (row-major or a transposition), and may copy
inputs it cannot alias. What JAX cannot do is skipped with JAX's own reason; dlx is never excused."""

import gc

import numpy as np
import pytest
from peers import need

import dlx
from dlpack_ctypes import ML_CODES, Parsed

jax = need("jax", reason="jax is not installed")
jnp = need("jax.numpy", reason="jax.numpy is not importable")
import jax.dlpack  # noqa: E402

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
          "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn"]
WIDE = {"int64", "uint64", "float64", "complex128"}


def jax_dtype(name):
    if name in WIDE and not jax.config.jax_enable_x64:
        pytest.skip(f"{name} needs jax_enable_x64 (JAX_ENABLE_X64=1): JAX would silently narrow it")
    dt = getattr(jnp, name, None)
    if dt is None:
        pytest.skip(f"jax {jax.__version__} has no dtype {name}")
    return np.dtype(dt)


def jax_self_check(name, direction):
    """Skip when JAX cannot export ("export") or import ("import") this dtype through DLPack even with itself."""
    dt = jax_dtype(name)
    try:
        cap = jnp.zeros((2, 3), dt).__dlpack__()
        if direction == "import":
            jax.dlpack.from_dlpack(jnp.zeros((2, 3), dt))
    except Exception as e:  # noqa: BLE001 - JAX's own limitation, quoted in the reason
        pytest.skip(f"JAX {jax.__version__} cannot DLPack-{direction} {name} even with itself: {type(e).__name__}: "
                    f"{str(e).splitlines()[0][:120]}")
    del cap
    return dt


def values(dt, shape=(3, 4)):
    n = int(np.prod(shape))
    if dt.kind == "b":
        return (np.arange(n) % 2 == 0).reshape(shape)
    if dt.kind == "c":
        return (np.arange(n) - 1j * np.arange(n)).astype(dt).reshape(shape)
    if dt.kind in "iu":
        return (np.arange(n) % 100).astype(dt).reshape(shape)
    return (np.arange(n) % 8 / 2).astype(dt).reshape(shape)  # small values every float8 holds


def raw(a):
    """The bytes of an array, as unsigned ints (comparable for every dtype, ml_dtypes included)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}") if a.itemsize <= 8 else a.view(np.uint8)


def host_view(t, dt):
    """A NumPy view of a dlx tensor of any dtype (NumPy cannot import ml_dtypes through DLPack)."""
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    v = p.as_numpy(dt)
    return v, p  # keep p (and its capsule) alive with the view


@pytest.mark.parametrize("name", [d for d in DTYPES if d != "float4_e2m1fn"])  # packed: its own test below
def test_jax_to_dlx(name):
    dt = jax_self_check(name, "export")
    x = jnp.asarray(values(dt))
    t = dlx.from_dlpack(x)
    assert t.dtype == name
    assert t.shape == (3, 4) and t.stride == (4, 1)
    assert t.data_ptr == x.unsafe_buffer_pointer()  # zero copy
    v, keep = host_view(t, dt)
    np.testing.assert_array_equal(raw(v), raw(np.asarray(x)))
    if name in ML_CODES:
        assert keep.dtype[:2] == ML_CODES[name]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("entry", ["jax.dlpack.from_dlpack", "jnp.from_dlpack"])
def test_dlx_to_jax(name, entry):
    dt = jax_self_check(name, "import")
    t = dlx.zeros((3, 4), name)
    v, keep = host_view(t, dt)
    v[...] = values(dt)
    importer = jax.dlpack.from_dlpack if entry == "jax.dlpack.from_dlpack" else jnp.from_dlpack
    y = importer(t)
    assert y.dtype == dt
    assert y.shape == (3, 4)
    assert y.unsafe_buffer_pointer() == t.data_ptr  # dlx memory is 64-byte aligned: JAX aliases it
    np.testing.assert_array_equal(raw(np.asarray(y)), raw(values(dt)))


def test_jax_float4_is_packed():
    """JAX exports float4_e2m1fn packed two per byte (low nibble first) with no PADDED flag: dlx must
    read it as packed (nbytes = ceil(n/2)) and keep it packed on export."""
    ml = need("ml_dtypes", reason="ml_dtypes is not installed")
    if not hasattr(jnp, "float4_e2m1fn"):
        pytest.skip(f"jax {jax.__version__} has no float4_e2m1fn")
    vals = np.array([0.5, 1, 1.5, 2, 3, 4, 6], dtype=ml.float4_e2m1fn)
    try:
        x = jnp.asarray(vals)
        Parsed(x.__dlpack__())
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"JAX cannot DLPack-export float4_e2m1fn: {e}")
    t = dlx.from_dlpack(x)
    assert t.dtype == "float4_e2m1fn"
    assert t.shape == (7,)
    assert t.nbytes == 4
    packed = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * 4).from_address(t.data_ptr)).copy()
    codes = vals.view(np.uint8)
    unpacked = np.stack([packed & 0xF, packed >> 4], axis=1).reshape(-1)[:7]
    np.testing.assert_array_equal(unpacked, codes)
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.dtype == (17, 4, 1)
    assert p.flags == 1  # still packed, as received (no PADDED flag); READ_ONLY: a legacy import


def test_jax_sees_writes_through_dlx():
    t = dlx.zeros((4,), "float32")
    y = jax.dlpack.from_dlpack(t)
    assert y.unsafe_buffer_pointer() == t.data_ptr
    np.from_dlpack(t)[:] = 3.0
    # JAX arrays are immutable by contract, but an aliased buffer shows the bytes underneath
    assert float(np.asarray(y).sum()) == 12.0


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (1,), (1, 1, 5), (2, 1, 3)])
def test_shapes_both_ways(shape):
    x = jnp.arange(int(np.prod(shape)), dtype=jnp.int32).reshape(shape)
    t = dlx.from_dlpack(x)
    assert t.shape == shape
    np.testing.assert_array_equal(np.from_dlpack(t), np.asarray(x))
    d = dlx.zeros(shape, "int32")
    np.from_dlpack(d)[...] = np.asarray(x)
    y = jax.dlpack.from_dlpack(d)
    assert y.shape == shape
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))


def _layouts():
    a = np.arange(48, dtype=np.float32).reshape(4, 12)
    return {
        "row-major": a,
        "transpose": a.T,
        "permute-3d": a.reshape(4, 3, 4).transpose(2, 0, 1),
        "row-slice": a[1:3],
        "col-slice": a[:, 2:5],
        "step": a[::2],
        "negative": a[:, ::-1],
        "broadcast": np.broadcast_to(a[:1], (4, 12)),
    }


@pytest.mark.parametrize("name", sorted(_layouts()))
def test_layouts_dlx_to_jax(name):
    v = _layouts()[name]
    t = dlx.from_dlpack(v)
    try:
        y = jax.dlpack.from_dlpack(t)
    except BufferError as e:
        # dlx's own refusal is only acceptable for read-only data asked as a legacy capsule
        assert not v.flags.writeable and "read-only" in str(e), e
        pytest.skip("JAX asks for a legacy capsule, which cannot carry read-only data (dlx refuses, as it must)")
    except Exception as e:  # noqa: BLE001
        if "compact" in str(e) or "striding" in str(e):
            pytest.skip(f"JAX imports only compact strides (row-major or permuted): {t.layout}")
        raise
    np.testing.assert_array_equal(np.asarray(y), v)
    # the workaround for what JAX cannot import: a compact copy made by dlx
    c = dlx.from_dlpack(v, copy=True)
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(c)), v)


def test_noncompact_via_dlx_copy():
    v = _layouts()["negative"]
    c = dlx.from_dlpack(v, copy=True)
    assert c.is_contiguous
    y = jax.dlpack.from_dlpack(c)
    assert y.unsafe_buffer_pointer() == c.data_ptr
    np.testing.assert_array_equal(np.asarray(y), v)


def test_what_jax_asks_for():
    class Spy:
        def __init__(self, t):
            self.t, self.kwargs = t, None

        def __dlpack__(self, **kw):
            self.kwargs = kw
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    s = Spy(dlx.zeros((2,), "float32"))
    jax.dlpack.from_dlpack(s)
    assert s.kwargs.get("stream") is None
    legacy = s.kwargs.get("max_version") is None
    ro = np.arange(3.0)
    ro.flags.writeable = False
    t = dlx.from_dlpack(ro)
    if legacy:
        with pytest.raises(BufferError, match="read-only"):
            jax.dlpack.from_dlpack(t)
    else:
        np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(t)), ro)


def test_jax_capsule_versions():
    x = jnp.arange(6, dtype=jnp.float32)
    for mv in (None, (1, 3)):
        cap = x.__dlpack__(max_version=mv) if mv else x.__dlpack__()
        t = dlx.from_dlpack(cap)
        assert t.data_ptr == x.unsafe_buffer_pointer()
        np.testing.assert_array_equal(np.from_dlpack(t), np.asarray(x))


def test_lifetimes():
    x = jnp.arange(1000, dtype=jnp.float32) * 2
    ptr = x.unsafe_buffer_pointer()
    t = dlx.from_dlpack(x)
    del x
    gc.collect()
    assert t.data_ptr == ptr
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(1000, dtype=np.float32) * 2)
    d = dlx.zeros((500,), "float32")
    np.from_dlpack(d)[:] = 1
    y = jax.dlpack.from_dlpack(d)
    del d
    gc.collect()
    assert float(jnp.sum(y)) == 500.0


def test_jax_to_dlx_to_jax():
    x = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    # JAX exports legacy capsules, which dlx imports read-only (issue 27, item 11: the array is immutable);
    # JAX asks for a legacy capsule back, which cannot say read-only: refused, as NumPy refuses it
    t = dlx.from_dlpack(x)
    assert t.readonly
    with pytest.raises(BufferError, match="read-only"):
        jax.dlpack.from_dlpack(t)
    with pytest.raises(ValueError, match="read-only"):
        t += 1
    # writable=True is the caller's word that the memory may be written: the round trip is zero-copy
    y = jax.dlpack.from_dlpack(dlx.from_dlpack(x, writable=True))
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    z = y + 1  # usable in computations
    assert int(z[2, 3]) == 12


def test_jax_layout_marking():
    x = jnp.zeros((30, 20, 32), jnp.float32)
    assert dlx.from_dlpack(x).mark_layout_dynamic().layout == "(?,?,?):(?,?,1)"

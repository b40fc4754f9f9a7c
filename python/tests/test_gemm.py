"""dlx.matmul / the @ operator against numpy.matmul: the four BLAS dtypes, random shapes (empty ones
too), operands of any layout (transposed, stepped, reversed, broadcast rows), dtype promotion, out=
(also aliasing an input), and the errors. Skipped where dlx was built without CBLAS."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dlx
from opsutil import from_np, random_array, strided_pair, to_np

GEMM_DTYPES = ["float32", "float64", "complex64", "complex128"]


def _has_blas():
    try:
        dlx.matmul(dlx.zeros((1, 1)), dlx.zeros((1, 1)))
        return True
    except TypeError as e:
        assert "without CBLAS" in str(e)
        return False


pytestmark = pytest.mark.skipif(not _has_blas(), reason="dlx was built without CBLAS (install libopenblas-dev)")


def tolerance(dt, k):
    eps = 1.2e-7 if dt in ("float32", "complex64") else 2.3e-16
    return 8 * eps * max(k, 1)


def check(got, a, b):
    want = np.matmul(a, b)
    assert got.dtype == want.dtype.name
    assert got.shape == want.shape
    g = to_np(got)
    # error relative to the size of the terms summed, not to a result that may cancel to near zero
    scale = np.matmul(np.abs(a), np.abs(b)) + 1.0
    assert np.all(np.abs(g - want) <= tolerance(want.dtype.name, a.shape[1]) * scale), np.max(np.abs(g - want))


@st.composite
def gemm_cases(draw):
    m, k, n = (draw(st.integers(0, 40)) for _ in range(3))
    dt = draw(st.sampled_from(GEMM_DTYPES))
    lay = []
    for shape in ((m, k), (k, n)):
        steps = [draw(st.sampled_from([1, 1, 2, -1])) for _ in shape]
        lay.append((steps, list(draw(st.permutations(range(2))))))
    return (m, k, n), dt, lay, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=120)
@given(case=gemm_cases())
def test_matmul_vs_numpy(case):
    (m, k, n), dt, lay, seed = case
    rng = np.random.default_rng(seed)
    a, ta, _, _ = strided_pair(rng, random_array(rng, dt, (m, k), small=True), (m, k), *lay[0])
    b, tb, _, _ = strided_pair(rng, random_array(rng, dt, (k, n), small=True), (k, n), *lay[1])
    check(ta @ tb, a, b)
    check(dlx.matmul(ta, tb), a, b)


@pytest.mark.parametrize("dt", GEMM_DTYPES)
@pytest.mark.parametrize("size", [(64, 64, 64), (1, 300, 1), (300, 1, 2), (129, 65, 33)])
def test_matmul_sizes(dt, size):
    m, k, n = size
    rng = np.random.default_rng(m * 1000 + k)
    a = random_array(rng, dt, (m, k))
    b = random_array(rng, dt, (k, n))
    check(from_np(a) @ from_np(b), a, b)
    check(from_np(np.ascontiguousarray(a.T)).T @ from_np(b), a, b)


def test_broadcast_and_numpy_operands():
    a = np.broadcast_to(np.arange(5.0), (4, 5))  # zero row stride: copied before BLAS sees it
    b = np.arange(10.0).reshape(5, 2)
    assert from_np(a).stride == (0, 1)
    check(from_np(a) @ from_np(b), a, b)
    check(dlx.matmul(a, b), a, b)  # NumPy arrays as operands
    r = np.arange(6.0).reshape(2, 3) @ from_np(np.ones((3, 2)))  # NumPy on the left defers to dlx
    assert isinstance(r, dlx.Tensor)
    np.testing.assert_array_equal(to_np(r), np.arange(6.0).reshape(2, 3) @ np.ones((3, 2)))


def test_promotion():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 2), np.float64)
    check(from_np(a) @ from_np(b), a, b)
    c = np.ones((3, 2), np.complex64)
    check(from_np(a) @ from_np(c), a, c)
    i = np.ones((2, 3), np.int16)
    check(from_np(i) @ from_np(b), i, b)  # int16 with float64 -> float64
    with pytest.raises(TypeError, match="int32 is not supported"):
        from_np(np.ones((2, 2), np.int32)) @ from_np(np.ones((2, 2), np.int32))


def test_out_and_aliasing():
    rng = np.random.default_rng(2)
    a = random_array(rng, "float64", (4, 4), small=True)
    b = random_array(rng, "float64", (4, 4), small=True)
    want = a @ b
    out = dlx.empty((4, 4), "float64")
    assert dlx.matmul(from_np(a), from_np(b), out=out) is out
    np.testing.assert_allclose(to_np(out), want, rtol=1e-12)
    out_t = dlx.empty((4, 4), "float64").T  # a column-major out
    dlx.matmul(from_np(a), from_np(b), out=out_t)
    np.testing.assert_allclose(to_np(out_t), want, rtol=1e-12)
    out_np = np.empty((4, 4))
    assert dlx.matmul(from_np(a), from_np(b), out=out_np) is out_np
    np.testing.assert_allclose(out_np, want, rtol=1e-12)
    # out is a's own memory: the product still reads the old a
    t = from_np(a.copy())
    dlx.matmul(t, from_np(b), out=t)
    np.testing.assert_allclose(to_np(t), want, rtol=1e-12)
    # out is b transposed
    tb = from_np(b.copy())
    dlx.matmul(from_np(a), tb, out=tb.T)
    np.testing.assert_allclose(to_np(tb).T, want, rtol=1e-12)


def test_errors():
    a = dlx.zeros((2, 3))
    with pytest.raises(ValueError, match="rank-2"):
        a @ dlx.zeros((3,))
    with pytest.raises(ValueError, match="rank-2"):
        dlx.zeros((2, 2, 2)) @ a
    with pytest.raises(ValueError, match="do not align: 3 != 2"):
        a @ a
    with pytest.raises(ValueError, match="C \\(2,3\\)"):
        dlx.matmul(a, dlx.zeros((3, 4)), out=dlx.zeros((2, 3)))
    with pytest.raises(ValueError, match="dtypes differ"):
        dlx.matmul(a, dlx.zeros((3, 4)), out=dlx.zeros((2, 4), "float64"))
    ro = np.zeros((2, 4), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        dlx.matmul(a, dlx.zeros((3, 4)), out=dlx.from_dlpack(ro))
    with pytest.raises(TypeError):
        a @ "x"
    with pytest.raises(TypeError, match="in-place"):
        b = dlx.zeros((3, 3))
        b @= dlx.zeros((3, 3))


def test_threads_follow_dlx():
    """gemm gives the same answer serial and threaded (OpenBLAS follows dlx.set_num_threads)."""
    rng = np.random.default_rng(4)
    a = random_array(rng, "float32", (256, 256), small=True)
    b = random_array(rng, "float32", (256, 256), small=True)
    n = dlx.get_num_threads()
    try:
        dlx.set_num_threads(1)
        one = to_np(from_np(a) @ from_np(b)).copy()
        dlx.set_num_threads(2)
        two = to_np(from_np(a) @ from_np(b))
    finally:
        dlx.set_num_threads(0)
    assert dlx.get_num_threads() == n
    check(from_np(a) @ from_np(b), a, b)
    # different blockings sum in different orders: compare against the size of the terms
    scale = np.matmul(np.abs(a), np.abs(b)) + 1.0
    assert np.all(np.abs(one - two) <= tolerance("float32", 256) * scale)

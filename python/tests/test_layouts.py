"""Seed 003 (CuTe from_dlpack and layouts): every example of the page, through dlx.

The inputs are built with NumPy in the DLPack-visible layouts the page lists, since PyTorch rewrites
the strides of size-1 dims (b's real strides (4,1,4,4,4) become (1,1,1,4,1)):
  a = (8,4,16,2):(2,16,64,1)   b = (1,4,1,32,1):(1,1,1,4,1)   c = (2,2):(8,2)   d = (3,4,2,5):(5,0,0,1)
When PyTorch is importable the same examples also run on the page's own torch tensors.
"""

import re

import numpy as np
import pytest
from peers import need

import dlx


def make_a():
    return np.empty((16, 4, 8, 2), np.float32).transpose(2, 1, 0, 3)


def make_b():
    buf = np.zeros(256, np.float32)
    return np.lib.stride_tricks.as_strided(buf, shape=(1, 4, 1, 32, 1), strides=(4, 4, 4, 16, 4))


def make_c():
    return np.empty((3, 4), np.float32)[::2, ::2]


def make_d():
    return np.broadcast_to(np.empty((3, 1, 1, 5), np.float32), (3, 4, 2, 5))


def _torch():
    return need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")


def torch_a():
    return _torch().empty(16, 4, 8, 2).permute(2, 1, 0, 3)


def torch_b():
    # the page's permute gives (4,1,4,4,4) where torch no longer rewrites size-1 strides; as_strided
    # builds the DLPack-visible layout the page shows
    return _torch().empty(256).as_strided((1, 4, 1, 32, 1), (1, 1, 1, 4, 1))


def torch_c():
    return _torch().empty(3, 4)[::2, ::2]


def torch_d():
    return _torch().empty(3, 1, 1, 5).expand(3, 4, 2, 5)


MAKERS = {"a": make_a, "b": make_b, "c": make_c, "d": make_d}
TORCH_MAKERS = {"a": torch_a, "b": torch_b, "c": torch_c, "d": torch_d}
STATIC = {
    "a": ((8, 4, 16, 2), (2, 16, 64, 1)),
    "b": ((1, 4, 1, 32, 1), (1, 1, 1, 4, 1)),
    "c": ((2, 2), (8, 2)),
    "d": ((3, 4, 2, 5), (5, 0, 0, 1)),
}


@pytest.fixture(params=["numpy", "torch"])
def src(request):
    """src('a') -> a dlx tensor of the page's tensor a, from NumPy or from torch."""
    if request.param == "numpy":
        return lambda k: dlx.from_dlpack(MAKERS[k]())

    _torch()

    def from_torch(k):
        t = dlx.from_dlpack(TORCH_MAKERS[k]())
        if (t.shape, t.stride) != STATIC[k]:
            pytest.skip(f"this torch exports {k} as {t.layout}, not the page's {STATIC[k]}")
        return t

    return from_torch


def test_torch_permuted_b_as_the_page_builds_it():
    """torch.empty(32,1,1,1,4).permute(3,4,1,0,2): old torch exported size-1 strides as 1 (the page's
    (1,1,1,4,1), where deduction fails); newer torch keeps (4,1,4,4,4), where dim 1 is the leading one."""
    torch = _torch()
    t = dlx.from_dlpack(torch.empty(32, 1, 1, 1, 4).permute(3, 4, 1, 0, 2))
    assert t.shape == (1, 4, 1, 32, 1)
    if t.stride == (1, 1, 1, 4, 1):
        with pytest.raises(ValueError, match="leading dimension"):
            t.mark_layout_dynamic()
    else:
        assert t.stride == (4, 1, 4, 4, 4)
        assert t.mark_layout_dynamic().layout == "(?,?,?,?,?):(?,1,?,?,?)"


@pytest.mark.parametrize("k", "abcd")
def test_inputs_have_the_pages_static_layouts(src, k):
    t = src(k)
    shape, stride = STATIC[k]
    assert t.shape == shape
    assert t.stride == stride
    assert t.layout == f"({','.join(map(str, shape))}):({','.join(map(str, stride))})"


# --- the first examples: from_dlpack and its attributes ---------------------------------------------


def test_explicit_conversion_attributes():
    x = np.random.default_rng(0).standard_normal((30, 20)).astype(np.float32)
    y = dlx.from_dlpack(x)
    assert y.shape == (30, 20)
    assert y.stride == (20, 1)
    assert y.memspace == "generic"
    assert y.element_type == "Float32"
    assert repr(y) == f"Tensor<0x{y.data_ptr:016x}@generic o (30, 20):(20, 1)>"
    assert y.data_ptr == x.__array_interface__["data"][0]  # zero copy


def test_explicit_conversion_attributes_torch():
    torch = _torch()
    x = torch.randn(30, 20, device="cpu")
    y = dlx.from_dlpack(x)
    assert (y.shape, y.stride, y.memspace, y.element_type) == ((30, 20), (20, 1), "generic", "Float32")
    assert y.data_ptr == x.data_ptr()
    assert repr(y) == f"Tensor<0x{x.data_ptr():016x}@generic o (30, 20):(20, 1)>"


def test_implicit_conversion_layout():
    """The page's foo(a): a (30,20,32) tensor becomes (?,?,?):(?,?,1)."""
    a = np.zeros((30, 20, 32), np.float32)
    assert dlx.from_dlpack(a).mark_layout_dynamic().layout == "(?,?,?):(?,?,1)"


def test_caching_by_key():
    """The page's cache: convert once per key, reuse the converted tensor."""
    x = np.zeros((30, 20), np.float32)
    cache = {}
    conversions = 0
    for _ in range(3):
        key = (x.__array_interface__["data"][0], x.shape, x.strides, x.dtype.str)
        if key not in cache:
            cache[key] = dlx.from_dlpack(x)
            conversions += 1
    assert conversions == 1
    assert cache[key].data_ptr == x.__array_interface__["data"][0]


# --- repr -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, text",
    [((), "():()"), ((5,), "(5,):(1,)"), ((2, 3), "(2, 3):(3, 1)"), ((0, 4), "(0, 4):(4, 1)")],
)
def test_repr_static(shape, text):
    t = dlx.zeros(shape, "int8")
    assert repr(t) == f"Tensor<0x{t.data_ptr:016x}@generic o {text}>"
    assert re.fullmatch(r"Tensor<0x[0-9a-f]{16}@generic o .*>", repr(t))


def test_repr_negative_strides():
    a = np.zeros((3, 4), np.int16)[::-1, ::2]
    t = dlx.from_dlpack(a)
    assert repr(t) == f"Tensor<0x{a.__array_interface__['data'][0]:016x}@generic o (3, 2):(-4, 2)>"
    assert t.layout == "(3,2):(-4,2)"


def test_repr_dynamic_uses_layout_string():
    t = dlx.from_dlpack(make_a()).mark_layout_dynamic()
    assert repr(t) == f"Tensor<0x{t.data_ptr:016x}@generic o (?,?,?,?):(?,?,?,1)>"


# --- mark_layout_dynamic --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, leading_dim, expect",
    [
        ("a", None, "(?,?,?,?):(?,?,?,1)"),  # t0
        ("b", 0, "(?,?,?,?,?):(1,?,?,?,?)"),  # t1
        ("b", 2, "(?,?,?,?,?):(?,?,1,?,?)"),  # t2
        ("c", None, "(?,?):(?,?)"),  # t3
        ("d", None, "(?,?,?,?):(?,0,0,1)"),  # t4
    ],
)
def test_mark_layout_dynamic_examples(src, k, leading_dim, expect):
    t = src(k)
    kw = {} if leading_dim is None else {"leading_dim": leading_dim}
    r = t.mark_layout_dynamic(**kw)
    assert r is t  # chainable: returns self
    assert t.layout == expect
    # the concrete shape and strides are kept
    assert (t.shape, t.stride) == STATIC[k]


@pytest.mark.parametrize(
    "k, leading_dim, message",
    [
        ("b", None, "Can't deduce the leading dimension from layout, please specify the leading_dim explicitly."),  # t5
        ("a", 1, "Expected strides[leading_dim] == 1, but got 16"),  # t6
        ("b", 3, "Expected strides[leading_dim] == 1, but got 4"),  # t7
    ],
)
def test_mark_layout_dynamic_errors(src, k, leading_dim, message):
    t = src(k)
    before = t.layout
    kw = {} if leading_dim is None else {"leading_dim": leading_dim}
    with pytest.raises(ValueError) as e:
        t.mark_layout_dynamic(**kw)
    assert message in str(e.value)
    assert t.layout == before  # unchanged on error


def test_mark_layout_dynamic_page_examples_2_2_3_4():
    """(2,2,3,4):(2,1,4,12): leading_dim 1 -> (?,?,?,?):(?,1,?,?); leading_dim 0 fails (stride 2)."""
    a = np.empty((4, 3, 2, 2), np.float32).transpose(2, 3, 1, 0)
    t = dlx.from_dlpack(a)
    assert t.layout == "(2,2,3,4):(2,1,4,12)"
    assert t.mark_layout_dynamic(leading_dim=1).layout == "(?,?,?,?):(?,1,?,?)"
    assert dlx.from_dlpack(a).mark_layout_dynamic().layout == "(?,?,?,?):(?,1,?,?)"
    with pytest.raises(ValueError, match=r"Expected strides\[leading_dim\] == 1, but got 2"):
        dlx.from_dlpack(a).mark_layout_dynamic(leading_dim=0)


def test_mark_layout_dynamic_1_5_1():
    """(1,5,1):(1,1,1): deduction fails."""
    buf = np.zeros(8, np.float32)
    x = np.lib.stride_tricks.as_strided(buf, shape=(1, 5, 1), strides=(4, 4, 4))
    with pytest.raises(ValueError, match="leading dimension"):
        dlx.from_dlpack(x).mark_layout_dynamic()


@pytest.mark.parametrize("bad", [4, 100, -5])
def test_mark_layout_dynamic_leading_dim_out_of_range(bad):
    t = dlx.from_dlpack(make_a())
    with pytest.raises((ValueError, IndexError)):
        t.mark_layout_dynamic(leading_dim=bad)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"


def test_mark_layout_dynamic_bad_type():
    with pytest.raises(TypeError):
        dlx.from_dlpack(make_a()).mark_layout_dynamic(leading_dim="1")


# --- mark_compact_shape_dynamic -------------------------------------------------------------------


def test_compact_t0(src):
    assert src("a").mark_compact_shape_dynamic(mode=0, divisibility=2).layout == \
        "(?{div=2},4,16,2):(2,?{div=4},?{div=16},1)"


def test_compact_t1(src):
    assert src("a").mark_compact_shape_dynamic(mode=1, divisibility=2).layout == \
        "(8,?{div=2},16,2):(2,16,?{div=32},1)"


def test_compact_t2_chained(src):
    t2 = src("a").mark_compact_shape_dynamic(mode=1, divisibility=2).mark_compact_shape_dynamic(mode=3, divisibility=2)
    assert t2.layout == "(8,?{div=2},16,?{div=2}):(?{div=2},?{div=16},?{div=32},1)"
    assert repr(t2) == f"Tensor<0x{t2.data_ptr:016x}@generic o {t2.layout}>"
    # t5: another stride order than the recorded one
    with pytest.raises(ValueError) as e:
        t2.mark_compact_shape_dynamic(mode=3, divisibility=5, stride_order=(0, 1, 2, 3))
    assert "The stride_order is not consistent with the last stride_order" in str(e.value)
    assert t2.layout == "(8,?{div=2},16,?{div=2}):(?{div=2},?{div=16},?{div=32},1)"


def test_compact_t3(src):
    assert src("b").mark_compact_shape_dynamic(mode=2, divisibility=1, stride_order=(3, 0, 2, 4, 1)).layout == \
        "(1,4,?,32,1):(0,1,4,?{div=4},0)"


def test_compact_t4(src):
    assert src("b").mark_compact_shape_dynamic(mode=2, divisibility=1, stride_order=(2, 3, 4, 0, 1)).layout == \
        "(1,4,?,32,1):(0,1,128,4,0)"


def test_compact_returns_self(src):
    t = src("a")
    assert t.mark_compact_shape_dynamic(mode=0) is t
    assert t.layout == "(?,4,16,2):(2,?{div=2},?{div=8},1)"


@pytest.mark.parametrize(
    "k, kwargs, message",
    [
        ("a", dict(mode=3, divisibility=5, stride_order=(0, 1, 2, 3)),
         "The stride_order is not consistent with the deduced stride_order"),  # t6
        ("b", dict(mode=0, divisibility=4),
         "The layout could not be deduced, please specify the stride_order explicitly"),  # t7
        ("b", dict(mode=30, divisibility=5, stride_order=(3, 0, 2, 4, 1)),
         "Expected mode value to be in range [0, 5), but got 30"),  # t8
        ("b", dict(mode=3, divisibility=5, stride_order=(2, 1, 2, 3, 4)),
         "Expected stride_order to contain all the dimensions of the tensor, but it doesn't contain 0."),  # t9
        ("b", dict(mode=3, divisibility=5, stride_order=(0, 1, 2, 3, 4, 5)),
         "Expected stride_order to have 5 elements, but got 6."),  # t10
        ("b", dict(mode=0, divisibility=4, stride_order=(3, 2, 4, 0, 1)),
         "The shape(1) of mode(0) is not divisible by the divisibility(4)"),  # t11: b.dim_order()
        ("b", dict(mode=0, divisibility=1, stride_order=(2, 1, 3, 0, 4)),
         "The stride_order is not consistent with the layout"),  # t12
    ],
)
def test_compact_errors(src, k, kwargs, message):
    t = src(k)
    before = t.layout
    with pytest.raises(ValueError) as e:
        t.mark_compact_shape_dynamic(**kwargs)
    assert message in str(e.value)
    assert t.layout == before


def test_compact_page_stride_order_examples():
    """(4,2):(1,4) has order (1,0); (5,3,2,4):(3,1,15,30) has order (3,2,0,1); (2,2,3,4):(2,1,4,12) -> [3,2,0,1]."""
    x = dlx.from_dlpack(np.empty((2, 4), np.float32).T)
    assert x.layout == "(4,2):(1,4)"
    x.mark_compact_shape_dynamic(mode=1, stride_order=(1, 0))
    assert x.layout == "(4,?):(1,4)"
    y = dlx.from_dlpack(np.empty((4, 2, 5, 3), np.float32).transpose(2, 3, 1, 0))
    assert y.layout == "(5,3,2,4):(3,1,15,30)"
    y.mark_compact_shape_dynamic(mode=0, stride_order=(3, 2, 0, 1))
    assert y.layout == "(?,3,2,4):(3,1,?{div=3},?{div=6})"
    z = dlx.from_dlpack(np.empty((4, 3, 2, 2), np.float32).transpose(2, 3, 1, 0))
    z.mark_compact_shape_dynamic(mode=2, divisibility=3)  # deduced order [3,2,0,1]
    assert z.layout == "(2,2,?{div=3},4):(2,1,4,?{div=12})"
    with pytest.raises(ValueError, match="not consistent with the deduced stride_order"):
        dlx.from_dlpack(np.empty((4, 3, 2, 2), np.float32).transpose(2, 3, 1, 0)).mark_compact_shape_dynamic(
            mode=2, stride_order=(0, 1, 2, 3))


@pytest.mark.parametrize("mode", [5, 2**31, 2**40])
def test_compact_mode_out_of_range_names_the_value(mode):
    t = dlx.from_dlpack(make_a())
    with pytest.raises((ValueError, OverflowError)) as e:
        t.mark_compact_shape_dynamic(mode=mode)
    if isinstance(e.value, ValueError) and not isinstance(e.value, OverflowError):
        assert f"Expected mode value to be in range [0, 4), but got {mode}" in str(e.value)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"


def test_compact_needs_a_compact_tensor():
    with pytest.raises(ValueError):
        dlx.from_dlpack(make_c()).mark_compact_shape_dynamic(mode=0)


@pytest.mark.parametrize("div", [0, -2])
def test_compact_bad_divisibility(div):
    t = dlx.from_dlpack(make_a())
    with pytest.raises(ValueError):
        t.mark_compact_shape_dynamic(mode=0, divisibility=div)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"


def test_compact_bad_types():
    t = dlx.from_dlpack(make_a())
    with pytest.raises(TypeError):
        t.mark_compact_shape_dynamic(mode="0")
    with pytest.raises(TypeError):
        t.mark_compact_shape_dynamic(mode=0, stride_order=3)


def test_marking_does_not_change_the_data_or_protocol():
    a = np.arange(8 * 4 * 16 * 2, dtype=np.float32).reshape(16, 4, 8, 2).transpose(2, 1, 0, 3)
    t = dlx.from_dlpack(a).mark_layout_dynamic()
    assert t.shape == a.shape and t.stride == (2, 16, 64, 1)
    back = np.from_dlpack(t)
    assert back.__array_interface__["data"][0] == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(back, a)


# --- layout_key -----------------------------------------------------------------------------------


def test_layout_key_static_equality():
    k1 = dlx.from_dlpack(np.zeros((30, 20), np.float32)).layout_key
    k2 = dlx.from_dlpack(np.ones((30, 20), np.float32)).layout_key
    assert k1 == k2 and hash(k1) == hash(k2)
    assert {k1: 1}[k2] == 1
    assert dlx.from_dlpack(np.zeros((20, 30), np.float32)).layout_key != k1  # other static shape
    assert dlx.from_dlpack(np.zeros((30, 20), np.float64)).layout_key != k1  # other dtype
    assert dlx.from_dlpack(np.zeros((20, 30), np.float32).T).layout_key != \
        dlx.from_dlpack(np.zeros((30, 20), np.float32)).layout_key  # other strides


def test_layout_key_dynamic_ignores_extents():
    k1 = dlx.from_dlpack(np.zeros((30, 20), np.float32)).mark_layout_dynamic().layout_key
    k2 = dlx.from_dlpack(np.zeros((7, 3), np.float32)).mark_layout_dynamic().layout_key
    assert k1 == k2
    # the static leading stride is part of the key: column-major is another kernel
    k3 = dlx.from_dlpack(np.zeros((3, 7), np.float32).T).mark_layout_dynamic().layout_key
    assert k3 != k1
    # static vs dynamic differ
    assert dlx.from_dlpack(np.zeros((30, 20), np.float32)).layout_key != k1


def test_layout_key_divisibility_and_alignment():
    a = np.zeros((8, 4, 16, 2), np.float32)
    k2 = dlx.from_dlpack(a).mark_compact_shape_dynamic(mode=0, divisibility=2).layout_key
    k4 = dlx.from_dlpack(a).mark_compact_shape_dynamic(mode=0, divisibility=4).layout_key
    k2b = dlx.from_dlpack(np.zeros((16, 4, 16, 2), np.float32)).mark_compact_shape_dynamic(mode=0, divisibility=2).layout_key
    assert k2 != k4
    assert k2 == k2b  # only the divisibility of a dynamic extent matters
    raw = np.zeros(4096, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 64
    b = raw[start:start + 256].view(np.float32)
    b2 = raw[start + 256:start + 512].view(np.float32)  # another 64-byte aligned buffer
    assert dlx.from_dlpack(b, assumed_align=16).layout_key != dlx.from_dlpack(b).layout_key
    assert dlx.from_dlpack(b, assumed_align=16).layout_key == dlx.from_dlpack(b2, assumed_align=16).layout_key
    assert dlx.from_dlpack(b, assumed_align=64).layout_key != dlx.from_dlpack(b2, assumed_align=16).layout_key


def test_layout_key_memspace():
    T = dlx._testing

    host = dlx.from_dlpack(T.make_capsule((4, 4))).layout_key
    dev = dlx.from_dlpack(T.make_capsule((4, 4), device=(2, 0))).layout_key
    assert host != dev
    assert host == dlx.from_dlpack(T.make_capsule((4, 4))).layout_key


@pytest.mark.parametrize(
    "shape, static, dynamic",
    [((), "():()", "():()"), ((5,), "(5):(1)", "(?):(1)"), ((0, 3), "(0,3):(3,1)", "(?,?):(?,1)")],
)
def test_layout_strings_of_small_ranks(shape, static, dynamic):
    """CuTe spells rank 1 without the trailing comma Python's repr uses; rank 0 is ():()."""
    t = dlx.zeros(shape, "float32")
    assert t.layout == static
    assert t.mark_layout_dynamic().layout == dynamic
    assert repr(t) == f"Tensor<0x{t.data_ptr:016x}@generic o {dynamic}>"


def test_compact_on_rank_0_has_no_mode():
    with pytest.raises(ValueError, match=r"Expected mode value to be in range \[0, 0\), but got 0"):
        dlx.zeros(()).mark_compact_shape_dynamic(mode=0)


def test_layout_key_is_hashable_for_every_rank():
    keys = {dlx.zeros(s).layout_key for s in [(), (1,), (2, 3), (0, 3)]}
    assert len(keys) == 4


# --- negative indices count from the end (issue 12), as in CuTe and Python ------------------------


@pytest.mark.parametrize("k, negative, positive", [("a", -1, 3), ("b", -3, 2), ("b", -5, 0), ("c", -2, 0)])
def test_mark_layout_dynamic_negative_leading_dim(src, k, negative, positive):
    """leading_dim=-1 is the last dimension (flash-attention's from_dlpack(t).mark_layout_dynamic(leading_dim=-1))."""
    if k == "c":  # (2,2):(8,2) has no stride-1 mode: any leading_dim fails, the same way
        with pytest.raises(ValueError, match=r"Expected strides\[leading_dim\] == 1, but got 8"):
            src(k).mark_layout_dynamic(leading_dim=negative)
        return
    want = src(k).mark_layout_dynamic(leading_dim=positive).layout
    t = src(k)
    assert t.mark_layout_dynamic(leading_dim=negative) is t
    assert t.layout == want
    assert (t.shape, t.stride) == STATIC[k]


def test_mark_layout_dynamic_negative_leading_dim_checks_that_stride():
    t = dlx.from_dlpack(make_a())  # (8,4,16,2):(2,16,64,1)
    with pytest.raises(ValueError, match=r"Expected strides\[leading_dim\] == 1, but got 64"):
        t.mark_layout_dynamic(leading_dim=-2)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"


@pytest.mark.parametrize("bad", [4, -5, 2**63, -(2**70)])
def test_mark_layout_dynamic_leading_dim_range_message(bad):
    """For ndim 4 the valid leading_dim are -4..3; the rest keep the [0, ndim) message, naming the value."""
    t = dlx.from_dlpack(make_a())
    with pytest.raises(ValueError) as e:
        t.mark_layout_dynamic(leading_dim=bad)
    assert f"Expected leading_dim to be in range [0, 4), but got {bad}" in str(e.value)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"
    with pytest.raises(ValueError, match=r"Expected leading_dim to be in range \[0, 0\), but got -1"):
        dlx.zeros(()).mark_layout_dynamic(leading_dim=-1)


@pytest.mark.parametrize("negative, positive", [(-1, 3), (-3, 1), (-4, 0)])
def test_compact_negative_mode(src, negative, positive):
    want = src("a").mark_compact_shape_dynamic(mode=positive, divisibility=2).layout
    t = src("a")
    assert t.mark_compact_shape_dynamic(mode=negative, divisibility=2) is t
    assert t.layout == want


@pytest.mark.parametrize("bad", [4, -5, -(2**40), 2**64])
def test_compact_mode_range_message(bad):
    t = dlx.from_dlpack(make_a())
    with pytest.raises(ValueError) as e:
        t.mark_compact_shape_dynamic(mode=bad)
    assert f"Expected mode value to be in range [0, 4), but got {bad}" in str(e.value)
    assert t.layout == "(8,4,16,2):(2,16,64,1)"


def test_compact_negative_stride_order_entries(src):
    """b = (1,4,1,32,1):(1,1,1,4,1): page t3 with its order (3,0,2,4,1) spelled with negative entries."""
    want = "(1,4,?,32,1):(0,1,4,?{div=4},0)"
    assert src("b").mark_compact_shape_dynamic(mode=2, stride_order=(3, 0, 2, 4, 1)).layout == want
    assert src("b").mark_compact_shape_dynamic(mode=-3, stride_order=(-2, 0, -3, -1, 1)).layout == want
    assert src("b").mark_compact_shape_dynamic(mode=2, stride_order=(-2, -5, 2, 4, -4)).layout == want
    # a recorded order is compared after normalisation: the same order spelled differently is consistent
    t = src("b").mark_compact_shape_dynamic(mode=2, stride_order=(3, 0, 2, 4, 1))
    t.mark_compact_shape_dynamic(mode=-2, stride_order=(-2, 0, 2, -1, 1))
    assert t.layout == "(1,4,?,?,1):(0,1,4,?{div=4},0)"


@pytest.mark.parametrize(
    "order, missing",
    [
        ((-6, 0, 2, 4, 1), 3),  # out of range from the end: the order lacks the dimension it meant
        ((3, 0, 2, 4, -2), 1),  # -2 is 3 again
        ((3, 0, 2, 4, 2**70), 1),  # too large for any int: still CuTe's message, not OverflowError
        ((3, 0, 2, -(2**70), 1), 4),
    ],
)
def test_compact_stride_order_entries_out_of_range(order, missing):
    t = dlx.from_dlpack(make_b())
    with pytest.raises(ValueError) as e:
        t.mark_compact_shape_dynamic(mode=2, stride_order=order)
    assert (
        f"Expected stride_order to contain all the dimensions of the tensor, but it doesn't contain {missing}."
        in str(e.value)
    )
    assert t.layout == "(1,4,1,32,1):(1,1,1,4,1)"

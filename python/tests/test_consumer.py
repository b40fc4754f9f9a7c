"""dlx.from_dlpack as a consumer: the DLTensor fields, every edge case of DLPACK.md section 3, and
the arguments device / copy / assumed_align. Capsules come from dlx._testing.make_capsule and from an
independent ctypes producer (dlpack_ctypes)."""

import gc
import os

import numpy as np
import pytest
from peers import need

import dlx
T = dlx._testing
from dlpack_ctypes import FLAG_READ_ONLY, FLAG_SUBBYTE_PADDED, Parsed

ALL_DTYPES = {
    # name: (itemsize, natural alignment)
    "bool": (1, 1),
    "int8": (1, 1), "int16": (2, 2), "int32": (4, 4), "int64": (8, 8),
    "uint8": (1, 1), "uint16": (2, 2), "uint32": (4, 4), "uint64": (8, 8),
    "float16": (2, 2), "float32": (4, 4), "float64": (8, 8), "bfloat16": (2, 2),
    "complex64": (8, 4), "complex128": (16, 8),
    "float8_e3m4": (1, 1), "float8_e4m3": (1, 1), "float8_e4m3b11fnuz": (1, 1), "float8_e4m3fn": (1, 1),
    "float8_e4m3fnuz": (1, 1), "float8_e5m2": (1, 1), "float8_e5m2fnuz": (1, 1), "float8_e8m0fnu": (1, 1),
}

# The CuTe element_type names python-api.md spells out.
ELEMENT_TYPES = {
    "float32": "Float32", "bfloat16": "BFloat16", "float8_e4m3fn": "Float8E4M3FN", "int8": "Int8",
    "uint8": "Uint8", "bool": "Boolean", "complex64": "Complex64",
}


# --- attributes -----------------------------------------------------------------------------------


def test_attributes_of_a_plain_import(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((30, 20)))
    assert t.shape == (30, 20) and isinstance(t.shape, tuple)
    assert t.stride == (20, 1) and isinstance(t.stride, tuple)
    assert t.dtype == "float32"
    assert t.element_type == "Float32"
    assert t.device == (1, 0)
    assert t.memspace == "generic"
    assert t.ndim == 2
    assert t.size == 600
    assert t.itemsize == 4
    assert t.nbytes == 2400
    assert t.readonly is False
    assert t.is_contiguous is True
    assert t.layout == "(30,20):(20,1)"
    assert t.alignment == 4
    assert isinstance(t.data_ptr, int) and t.data_ptr % 4 == 0
    assert deleter_calls() == 0
    del t
    assert deleter_calls() == 1


@pytest.mark.parametrize("name", sorted(ALL_DTYPES))
def test_every_dtype_through_make_capsule(name, deleter_calls):
    itemsize, align = ALL_DTYPES[name]
    t = dlx.from_dlpack(T.make_capsule((3, 5), name))
    assert t.dtype == name
    assert t.itemsize == itemsize
    assert t.nbytes == 15 * itemsize
    assert t.alignment == align
    assert isinstance(t.element_type, str) and t.element_type
    if name in ELEMENT_TYPES:
        assert t.element_type == ELEMENT_TYPES[name]
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.address == t.data_ptr
    assert p.shape == (3, 5)
    del t, p
    assert deleter_calls() == 1


def test_element_types_are_distinct():
    seen = {}
    for name in ALL_DTYPES:
        et = dlx.from_dlpack(T.make_capsule((1,), name)).element_type
        assert et not in seen, f"{name} and {seen.get(et)} share element_type {et}"
        seen[et] = name


def test_strided_capsule():
    t = dlx.from_dlpack(T.make_capsule((4, 3), strides=(1, 4)))
    assert t.stride == (1, 4)
    assert t.is_contiguous is False
    assert t.layout == "(4,3):(1,4)"


def test_readonly_flag_is_honoured():
    t = dlx.from_dlpack(T.make_capsule((2, 2), readonly=True))
    assert t.readonly is True
    with pytest.raises(BufferError):
        t.__dlpack__()
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.flags & FLAG_READ_ONLY


def test_zero_dim_tensor():
    t = dlx.from_dlpack(T.make_capsule(()))
    assert t.shape == () and t.stride == () and t.ndim == 0
    assert t.size == 1 and t.nbytes == 4
    assert t.is_contiguous
    assert t.layout == "():()"
    a = np.from_dlpack(t)
    assert a.shape == () and a[()] == 0.0


# --- versions -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [(2, 0), (3, 1), (0, 9)])
def test_other_major_is_refused_and_deleted_once(version, deleter_calls):
    cap = T.make_capsule((2, 3), version=version)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(cap)
    assert str(version[0]) in str(e.value)
    del cap, e
    assert deleter_calls() == 1


@pytest.mark.parametrize("version", [(1, 0), (1, 3), (1, 4), (1, 99)])
def test_any_minor_of_major_1_is_accepted(version, deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((2, 3), version=version))
    assert t.shape == (2, 3)
    del t
    assert deleter_calls() == 1


@pytest.mark.parametrize("shape, expect", [((2, 3), (3, 1)), ((4, 1, 5), (5, 5, 1)), ((7,), (1,))])
def test_legacy_null_strides_mean_row_major(shape, expect):
    t = dlx.from_dlpack(T.make_capsule(shape, versioned=False, null_strides=True))
    assert t.shape == shape
    # a size-1 dim may carry any stride; the others must be row-major
    assert all(s == e for s, e, n in zip(t.stride, expect, shape) if n != 1)
    assert t.is_contiguous


@pytest.mark.parametrize("version", [(1, 0), (1, 1)])
def test_pre_1_2_versioned_null_strides_mean_row_major(version):
    t = dlx.from_dlpack(T.make_capsule((2, 3), version=version, null_strides=True))
    assert t.stride == (3, 1)


@pytest.mark.parametrize("version", [(1, 2), (1, 3)])
def test_versioned_null_strides_are_refused_since_1_2(version, deleter_calls):
    cap = T.make_capsule((2, 3), version=version, null_strides=True)
    with pytest.raises(BufferError):
        dlx.from_dlpack(cap)
    del cap
    assert deleter_calls() == 1


def test_null_strides_are_fine_for_0d(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((), null_strides=True))
    assert t.shape == () and t.stride == ()
    del t
    assert deleter_calls() == 1


# --- data pointers --------------------------------------------------------------------------------


def test_null_data_with_elements_is_refused(deleter_calls):
    cap = T.make_capsule((2, 3), null_data=True)
    with pytest.raises(BufferError):
        dlx.from_dlpack(cap)
    del cap
    assert deleter_calls() == 1


@pytest.mark.parametrize("shape", [(0,), (0, 3), (4, 0, 2)])
def test_null_data_of_an_empty_tensor_is_fine(shape, deleter_calls):
    t = dlx.from_dlpack(T.make_capsule(shape, null_data=True))
    assert t.shape == shape
    assert t.size == 0 and t.nbytes == 0
    assert t.is_contiguous
    a = np.from_dlpack(t)
    assert a.shape == shape
    del t, a
    assert deleter_calls() == 1


def test_null_deleter_is_allowed(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((2,), null_deleter=True))
    assert t.shape == (2,)
    del t
    assert deleter_calls() == 0


@pytest.mark.parametrize("versioned", [True, False])
def test_byte_offset_is_added(producer, versioned):
    base = np.arange(16, dtype=np.float32)
    view = base[4:]
    cap = producer.capsule(view, byte_offset=16, versioned=versioned)
    p = Parsed(cap)
    assert p.data == base.__array_interface__["data"][0]  # the producer's own data pointer
    t = dlx.from_dlpack(cap)
    assert t.data_ptr == view.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.from_dlpack(t), view)


def test_make_capsule_byte_offset():
    t = dlx.from_dlpack(T.make_capsule((3,), "float32", byte_offset=8))
    a = np.from_dlpack(t)
    assert a.__array_interface__["data"][0] == t.data_ptr
    np.testing.assert_array_equal(a, np.zeros(3, np.float32))
    a[:] = 7  # the buffer is big enough for the offset view
    assert np.from_dlpack(t)[2] == 7


# --- devices --------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [(99, 0), (5, 0), (6, 0), (19, 0), (1000, 0)])
def test_unknown_device_is_refused_with_its_value(device, deleter_calls):
    cap = T.make_capsule((2,), device=device)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(cap)
    assert str(device[0]) in str(e.value)
    del cap, e
    assert deleter_calls() == 1


@pytest.mark.parametrize("device, memspace", [((1, 0), "generic"), ((2, 0), "gmem"), ((13, 0), "gmem")])
def test_memspace_of_known_devices(device, memspace):
    t = dlx.from_dlpack(T.make_capsule((2, 2), device=device))
    assert t.device == device
    assert t.memspace == memspace
    assert tuple(t.__dlpack_device__()) == device
    assert repr(t).startswith(f"Tensor<0x{t.data_ptr:016x}@{memspace} o ")


@pytest.mark.parametrize("device, memspace", [((3, 0), "generic"), ((11, 0), "generic"), ((13, 0), "gmem")])
def test_host_accessible_devices_reach_numpy(device, memspace):
    """Edge case 14: pinned (kDLCUDAHost, kDLROCMHost) and managed memory are host-accessible."""
    t = dlx.from_dlpack(T.make_capsule((2, 3), device=device))
    assert t.memspace == memspace
    a = np.from_dlpack(t)
    assert a.__array_interface__["data"][0] == t.data_ptr
    a[...] = 4
    assert np.from_dlpack(t).sum() == 24


@pytest.mark.parametrize("code", [(99, 8, 1), (18, 8, 1), (2, 24, 1), (6, 16, 1)])
def test_illegal_dtypes_from_make_capsule(code, deleter_calls):
    cap = T.make_capsule((2,), dtype_code=code)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(cap)
    assert str(code[0]) in str(e.value) and str(code[1]) in str(e.value)
    del cap, e
    assert deleter_calls() == 1


# --- dtypes through the ctypes producer (edge cases 10-12, 15) --------------------------------------


@pytest.mark.parametrize(
    "code, bits, lanes, needle",
    [
        (99, 32, 1, "99"),  # unknown code
        (18, 8, 1, "18"),  # first code after 1.3
        (2, 12, 1, "12"),  # float of a bit width nobody has
        (6, 1, 1, "1"),  # bool is 8 bits; 1-bit bool is not DLPack
        (4, 32, 1, "32"),  # bfloat is 16 bits only
        (0, 0, 1, "0"),
    ],
)
def test_illegal_dtypes_are_refused_with_their_values(producer, code, bits, lanes, needle):
    cap = producer.capsule(np.zeros(4, np.uint8), shape=(4,), strides=(1,), code=code, bits=bits, lanes=lanes)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(cap)
    assert needle in str(e.value)
    del cap, e
    gc.collect()
    assert producer.calls == 1


def test_one_bit_uint_is_not_bool(producer):
    cap = producer.capsule(np.zeros(4, np.uint8), code=1, bits=1)
    try:
        t = dlx.from_dlpack(cap)
    except BufferError:
        return  # refusing a 1-bit uint is fine: sub-byte types the consumer does not expect
    assert t.dtype != "bool"


def test_uint8_is_not_bool_and_bool_is_code_6(producer):
    t = dlx.from_dlpack(producer.capsule(np.zeros(4, np.uint8)))
    assert t.dtype == "uint8"
    b = np.array([True, False, True])
    tb = dlx.from_dlpack(b)
    assert tb.dtype == "bool" and tb.element_type == "Boolean"
    assert Parsed(tb.__dlpack__(max_version=(1, 3))).dtype == (6, 8, 1)


def test_complex_is_one_element_with_both_parts_in_bits():
    z = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    t = dlx.from_dlpack(z)
    assert t.dtype == "complex64" and t.itemsize == 8 and t.shape == (2,)
    assert Parsed(t.__dlpack__(max_version=(1, 3))).dtype == (5, 64, 1)


@pytest.mark.parametrize("lanes", [2, 4])
def test_vector_lanes(producer, lanes):
    """float32 x lanes: python-api.md names vector dtypes "float32x4"; dlx imports them as one element."""
    buf = np.zeros((3, lanes), np.float32)
    cap = producer.capsule(buf, shape=(3,), strides=(1,), code=2, bits=32, lanes=lanes)
    t = dlx.from_dlpack(cap)
    assert t.dtype == f"float32x{lanes}"
    assert t.itemsize == 4 * lanes
    assert t.data_ptr == buf.__array_interface__["data"][0]
    # NumPy has no vector types: it must refuse (its own RuntimeError), not misread
    with pytest.raises((BufferError, RuntimeError), match="lanes"):
        np.from_dlpack(t)


@pytest.mark.parametrize("lanes", [2, 4])
def test_vector_lanes_make_capsule(lanes):
    t = dlx.from_dlpack(T.make_capsule((5,), f"float32x{lanes}"))
    assert t.dtype == f"float32x{lanes}"
    assert Parsed(t.__dlpack__(max_version=(1, 3))).dtype == (2, 32, lanes)


# --- layouts edge cases 1-5 -------------------------------------------------------------------------


def test_size_one_dims_with_any_stride_are_contiguous(producer):
    a = np.arange(12, dtype=np.float32).reshape(3, 1, 4)
    t = dlx.from_dlpack(producer.capsule(a, strides=(4, 999, 1)))
    assert t.shape == (3, 1, 4)
    assert t.is_contiguous
    np.testing.assert_array_equal(np.from_dlpack(t).reshape(3, 4), a.reshape(3, 4))


@pytest.mark.parametrize("strides", [(0, 0), (3, 1), (1, 0), (-5, 7)])
def test_zero_size_with_garbage_strides_is_contiguous(producer, strides):
    t = dlx.from_dlpack(producer.capsule(None, shape=(0, 3), strides=strides, code=2, bits=32, null_data=True))
    assert t.size == 0
    assert t.is_contiguous


def test_0d_with_null_shape_and_strides(producer):
    a = np.array(3.5, dtype=np.float64)
    t = dlx.from_dlpack(producer.capsule(a, null_shape=True, null_strides=True))
    assert t.shape == () and t.stride == ()
    assert np.from_dlpack(t)[()] == 3.5


def test_negative_strides(producer):
    a = np.arange(10, dtype=np.int32)
    v = a[::-1]
    t = dlx.from_dlpack(producer.capsule(v))
    assert t.stride == (-1,)
    assert t.data_ptr == v.__array_interface__["data"][0]
    assert not t.is_contiguous
    np.testing.assert_array_equal(np.from_dlpack(t), v)


def test_rank_limit(producer):
    one = np.zeros(1, np.float32)
    t = dlx.from_dlpack(producer.capsule(one, shape=(1,) * 64, strides=(1,) * 64))
    assert t.ndim == 64 and t.size == 1
    del t
    cap = producer.capsule(one, shape=(1,) * 65, strides=(1,) * 65)
    with pytest.raises(BufferError, match="65"):
        dlx.from_dlpack(cap)
    del cap


@pytest.mark.parametrize(
    "shape, strides, needle",
    [
        ((2**40, 2**40), (2**40, 1), "overflow"),  # element count past int64
        ((2,), (2**62,), "overflow"),  # byte span past int64
        ((-1,), (1,), "-1"),  # negative extent
        ((3, -2), (1, 1), "-2"),
    ],
)
def test_hostile_shapes_are_refused(producer, shape, strides, needle):
    cap = producer.capsule(np.zeros(1, np.float32), shape=shape, strides=strides)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(cap)
    assert needle in str(e.value)
    del cap, e


# --- from_dlpack arguments ------------------------------------------------------------------------


@pytest.mark.parametrize("device", [None, "cpu", (1, 0)])
def test_device_cpu_is_accepted(device):
    a = np.arange(3.0)
    t = dlx.from_dlpack(a, device=device)
    assert t.data_ptr == a.__array_interface__["data"][0]


@pytest.mark.parametrize("device", ["cuda", "gpu", (2, 0), (13, 0), (1, 1)])
def test_other_devices_raise_buffererror(device):
    # a CUDA device is a copy away where one exists (test_cuda.py); elsewhere it cannot be reached
    if device in ("cuda", (2, 0), (13, 0)) and dlx.cuda.is_available():
        pytest.skip("a CUDA device is present: the copy succeeds (python/tests/test_cuda.py tests it)")
    with pytest.raises(BufferError):
        dlx.from_dlpack(np.arange(3.0), device=device)


def test_copy_true_makes_a_compact_owned_copy():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::-2]
    t = dlx.from_dlpack(a, copy=True)
    assert t.data_ptr != a.__array_interface__["data"][0]
    assert t.is_contiguous and t.stride == (3, 1)
    assert t.readonly is False
    np.testing.assert_array_equal(np.from_dlpack(t), a)
    a[0, 0] = -1
    assert np.from_dlpack(t)[0, 0] == 5.0


def test_copy_false_and_none_never_copy():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::-2]
    for copy in (False, None):
        t = dlx.from_dlpack(a, copy=copy)
        assert t.data_ptr == a.__array_interface__["data"][0]


def test_copy_of_readonly_is_writable():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = dlx.from_dlpack(a, copy=True)
    assert t.readonly is False
    np.from_dlpack(t)[0] = 9
    assert a[0] == 0


@pytest.mark.parametrize("kwargs", [{"copy": "no"}, {"assumed_align": "16"}, {"assumed_align": 16.0}, {"device": 1.5}])
def test_bad_argument_types(kwargs):
    with pytest.raises((TypeError, BufferError) if "device" in kwargs else TypeError):
        dlx.from_dlpack(np.arange(3.0), **kwargs)


def test_from_dlpack_keywords_are_keyword_only():
    with pytest.raises(TypeError):
        dlx.from_dlpack(np.arange(3.0), None)


# --- assumed_align --------------------------------------------------------------------------------


def _at_offset(nbytes_offset, align=64, n=16, dtype=np.float32):
    """A float32 view whose address is `nbytes_offset` past a multiple of `align`."""
    raw = np.zeros(n * 8 + 2 * align, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % align + nbytes_offset
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


@pytest.mark.parametrize("align", [1, 2, 4, 8, 16, 32, 64])
def test_assumed_align_aligned(align):
    a = _at_offset(0)
    t = dlx.from_dlpack(a, assumed_align=align)
    assert t.alignment == align
    assert t.data_ptr == a.__array_interface__["data"][0]


@pytest.mark.parametrize("offset, align", [(4, 8), (4, 16), (8, 16), (16, 32), (32, 64)])
def test_assumed_align_misaligned_raises_buffererror(offset, align):
    a = _at_offset(offset)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(a, assumed_align=align)
    assert str(align) in str(e.value)


@pytest.mark.parametrize("align", [0, 3, 6, 24, -4, -1])
def test_assumed_align_not_a_power_of_two_raises_valueerror(align):
    with pytest.raises(ValueError):
        dlx.from_dlpack(_at_offset(0), assumed_align=align)


def test_default_alignment_is_natural_and_checked(producer):
    a = _at_offset(0, dtype=np.float64)
    assert dlx.from_dlpack(a).alignment == 8
    raw = np.zeros(64, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 16 + 2  # 2 bytes past 16: misaligned for float32
    view = raw[start:start + 16]
    cap = producer.capsule(view, shape=(4,), strides=(1,), code=2, bits=32)
    with pytest.raises(BufferError):
        dlx.from_dlpack(cap)
    del cap
    gc.collect()
    assert producer.calls == 1


def test_assumed_align_failure_leaves_producer_untouched(producer):
    a = _at_offset(4)
    cap = producer.capsule(a)
    with pytest.raises(BufferError):
        dlx.from_dlpack(cap, assumed_align=16)
    del cap
    gc.collect()
    assert producer.calls == 1


# --- ml_dtypes (edge case 12) ---------------------------------------------------------------------

ML_NAMES = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
            "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]


@pytest.mark.parametrize("name", ML_NAMES)
def test_ml_dtypes_round_trip_through_ctypes(producer, name):
    ml = need("ml_dtypes", reason="ml_dtypes is not installed")
    if not hasattr(ml, name):
        pytest.skip(f"ml_dtypes {ml.__version__} has no {name}")
    dt = np.dtype(getattr(ml, name))
    a = np.linspace(0.5, 4.0, 12).astype(dt).reshape(3, 4)[:, ::-1]
    t = dlx.from_dlpack(producer.capsule(a))
    assert t.dtype == name
    assert t.itemsize == dt.itemsize
    assert t.data_ptr == a.__array_interface__["data"][0]
    assert t.stride == (4, -1)
    cap = t.__dlpack__(max_version=(1, 3))
    p = Parsed(cap)
    from dlpack_ctypes import ML_CODES

    assert p.dtype == (*ML_CODES[name], 1)
    back = p.as_numpy(dt)
    np.testing.assert_array_equal(back.view(np.uint8 if dt.itemsize == 1 else np.uint16),
                                  a.view(np.uint8 if dt.itemsize == 1 else np.uint16))
    del back, p, cap, t


@pytest.mark.parametrize("name, bits", [("float6_e2m3fn", 6), ("float6_e3m2fn", 6), ("float4_e2m1fn", 4)])
def test_padded_subbyte_from_ml_dtypes(producer, name, bits):
    """ml_dtypes stores fp6/fp4 one per byte: a producer must flag them PADDED, and dlx must keep 1-byte items."""
    ml = need("ml_dtypes", reason="ml_dtypes is not installed")
    if not hasattr(ml, name):
        pytest.skip(f"ml_dtypes {ml.__version__} has no {name}")
    a = np.array([0.5, 1.0, 1.5, 2.0], dtype=getattr(ml, name))
    t = dlx.from_dlpack(producer.capsule(a, flags=FLAG_SUBBYTE_PADDED))
    assert t.dtype == name
    assert t.shape == (4,)
    assert t.data_ptr == a.__array_interface__["data"][0]
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.dtype[1] == bits
    assert p.flags & FLAG_SUBBYTE_PADDED


def test_numpy_refuses_ml_dtypes_cleanly():
    """NumPy itself cannot export ml_dtypes arrays; dlx must pass on a clean BufferError, not crash."""
    ml = need("ml_dtypes", reason="ml_dtypes is not installed")
    a = np.zeros(3, dtype=ml.bfloat16)
    with pytest.raises((BufferError, TypeError)):
        dlx.from_dlpack(a)


# --- constructors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALL_DTYPES))
def test_empty_and_zeros(name):
    itemsize, _ = ALL_DTYPES[name]
    for make in (dlx.empty, dlx.zeros):
        t = make((5, 7), name)
        assert t.shape == (5, 7) and t.stride == (7, 1) and t.dtype == name
        assert t.data_ptr % 64 == 0
        assert t.is_contiguous and not t.readonly
        assert t.nbytes == 35 * itemsize
    z = dlx.zeros((5, 7), name)
    raw = Parsed(z.__dlpack__(max_version=(1, 3))).as_numpy(np.dtype(f"V{itemsize}"))
    assert raw.tobytes() == bytes(35 * itemsize)


def test_constructor_defaults_and_errors():
    assert dlx.empty((2,)).dtype == "float32"
    assert dlx.zeros(3).shape == (3,)
    assert dlx.zeros(()).shape == ()
    with pytest.raises(ValueError):
        dlx.empty((2,), "float33")
    with pytest.raises(ValueError):
        dlx.empty((-1, 2))
    with pytest.raises(TypeError):
        dlx.empty("abc")
    with pytest.raises(TypeError):
        dlx.empty((2,), 32)


def test_get_include():
    inc = dlx.get_include()
    assert isinstance(inc, str)
    assert os.path.isfile(os.path.join(inc, "dlx", "python.h"))
    assert os.path.isfile(os.path.join(inc, "dlx", "dlpack.h"))


def test_legacy_capsules_import_read_only_unless_writable():
    # issue 27, item 11: a legacy capsule cannot say READ_ONLY, and immutable arrays (JAX's) are exported so
    t = dlx.from_dlpack(T.make_capsule((3,), versioned=False))
    assert t.readonly
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 1
    w = dlx.from_dlpack(T.make_capsule((3,), versioned=False), writable=True)
    assert not w.readonly
    w[0] = 1
    assert not dlx.from_dlpack(T.make_capsule((3,))).readonly  # versioned: its flag decides
    assert dlx.from_dlpack(T.make_capsule((3,)), writable=False).readonly
    with pytest.raises(BufferError, match=r"writable=True\): the producer's data is read-only"):
        dlx.from_dlpack(T.make_capsule((3,), readonly=True), writable=True)
    assert not dlx.from_dlpack(T.make_capsule((3,), versioned=False), copy=True).readonly  # a copy is ours
    with pytest.raises(TypeError, match="writable must be a bool or None"):
        dlx.from_dlpack(T.make_capsule((3,)), writable="yes")

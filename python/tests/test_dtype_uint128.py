"""uint128 (issue 12): {kDLUInt, 128, 1}, what CCCL exports for unsigned __int128, is a dtype as int128
is: named, imported, exported, viewed and moved byte for byte; like int128 it has no arithmetic."""

import numpy as np
import pytest

import dlx
from dlpack_ctypes import Parsed, Producer

T = dlx._testing


@pytest.mark.parametrize("name, itemsize", [("uint128", 16), ("uint128x2", 32), ("int128", 16)])
def test_names(name, itemsize):
    t = dlx.zeros((3,), name)
    assert t.dtype == name
    assert t.itemsize == itemsize
    assert t.nbytes == 3 * itemsize


def test_element_type():
    assert dlx.zeros((1,), "uint128").element_type == "Uint128"
    assert dlx.zeros((1,), "int128").element_type == "Int128"


def test_import_and_export_keep_the_code():
    """A producer's (kDLUInt, 128, 1) imports as uint128 and exports as the same triple."""
    t = dlx.from_dlpack(T.make_capsule((2, 3), dtype_code=(1, 128, 1)))
    assert t.dtype == "uint128"
    assert (t.shape, t.stride) == ((2, 3), (3, 1))
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.dtype == (1, 128, 1)
    assert p.shape == (2, 3)


def test_ctypes_producer_vector_lanes():
    producer = Producer()
    buf = np.zeros(8, np.uint64)  # 4 uint128, 2 uint128x2
    cap = producer.capsule(buf, shape=(2,), strides=(1,), code=1, bits=128, lanes=2)
    t = dlx.from_dlpack(cap)
    assert t.dtype == "uint128x2"
    assert t.data_ptr == buf.__array_interface__["data"][0]


def _bits(t):
    """The 128-bit values of a uint128 tensor as pairs of uint64 (through a complex128 view)."""
    return np.from_dlpack(t.view("complex128")).view(np.uint64).reshape(-1, 2).tolist()


def test_copies_move_the_bytes():
    words = np.array([1, 2, 3, 4, 5, 6, 2**64 - 1, 2**63], np.uint64)
    src = dlx.from_dlpack(words.view(np.complex128)).view("uint128")
    assert src.dtype == "uint128" and src.shape == (4,)
    dst = dlx.empty((4,), "uint128")
    dst.copy_(src)
    assert _bits(dst) == [[1, 2], [3, 4], [5, 6], [2**64 - 1, 2**63]]
    # strided and reversed, as any byte move
    rev = dlx.zeros((4,), "uint128")
    rev[::-1] = src
    assert _bits(rev) == [[2**64 - 1, 2**63], [5, 6], [3, 4], [1, 2]]
    every_other = dlx.zeros((2,), "uint128")
    every_other[...] = src[::2]
    assert _bits(every_other) == [[1, 2], [5, 6]]
    # a broadcast one-element source fills
    dst[...] = src[3:4]
    assert _bits(dst) == [[2**64 - 1, 2**63]] * 4


@pytest.mark.parametrize("name", ["int128", "uint128"])
def test_no_arithmetic(name):
    """As int128: no kernel, so arithmetic, conversions and scalars are TypeError, never a wrong value."""
    t = dlx.zeros((3,), name)
    with pytest.raises(TypeError):
        t + t
    with pytest.raises(TypeError):
        t == t
    with pytest.raises(TypeError):
        t.astype("float32")
    with pytest.raises(TypeError):
        t.fill_(1)
    with pytest.raises(TypeError):
        t + dlx.zeros((3,), "int64")
    with pytest.raises(TypeError):
        dlx.zeros((3,), "float32").copy_(t)

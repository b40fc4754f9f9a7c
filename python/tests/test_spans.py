"""The span rule (issue 12): what dlx makes (dlx.empty, dlx.zeros), exports and imports obeys the one rule
the C import applies, so a tensor dlx hands out always comes back in. A shape whose bytes do not fit
int64 is refused where the view is made, as NumPy refuses it ("array is too big"), with the C
message naming the dimension; a shape that fits but cannot be allocated is MemoryError."""

import numpy as np
import pytest

import dlx

T = dlx._testing


@pytest.mark.parametrize("shape, dtype", [((2**61,), "int32"), ((2, 2**61), "float32"), ((2**60, 2, 2), "int16")])
def test_too_many_bytes_is_value_error(shape, dtype):
    with pytest.raises(ValueError, match="byte span overflows int64 at shape"):
        dlx.empty(shape, dtype)
    with pytest.raises(ValueError):
        np.empty(shape, dtype)


def test_packed_spans_count_bits():
    """2^61 float4_e2m1fn take 2^60 bytes packed, but 2^63 bits: refused, as every packed span is
    measured in bits."""
    with pytest.raises(ValueError, match=r"\(4 bits per item\)"):
        dlx.empty((2**61,), "float4_e2m1fn")


def test_the_largest_span_is_only_too_large_to_allocate():
    with pytest.raises(MemoryError, match="9223372036854775807 bytes cannot be allocated"):
        dlx.empty((2**63 - 1,), "int8")


@pytest.mark.parametrize("strides", [(-(2**63), 1), (2**62, 1), (3, 2**61)])
def test_import_and_export_agree(strides):
    """A producer's tensor whose span does not fit is refused on import, as before; what imports exports
    and imports back."""
    with pytest.raises(BufferError, match="byte span overflows int64"):
        dlx.from_dlpack(T.make_capsule((2, 3), dtype="float32", strides=strides))
    t = dlx.from_dlpack(T.make_capsule((2, 3), dtype="float32", strides=(-3, 1)))
    back = dlx.from_dlpack(t)
    assert (back.shape, back.stride, back.data_ptr) == ((2, 3), (-3, 1), t.data_ptr)

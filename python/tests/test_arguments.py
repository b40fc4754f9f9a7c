"""Sizes and dtypes as arguments, against NumPy (issue 12): anything with __index__ is a size wherever a
size or shape is taken (numpy.int64, a 0-d integer array, a NumPy array as a whole shape), with NumPy's
refusals (bools, floats) and its ValueError beyond int64; NumPy dtypes, NumPy and ml_dtypes scalar types
and Python's bool / int / float / complex are dtypes wherever a dtype is taken, with NumPy's meaning,
through one parser; a str is a dlx dtype name, and an unknown one is ValueError "unknown dtype '...'"."""
import numpy as np
import pytest

import dlx
from opsutil import EXT, STANDARD, ml_dtypes, np_dtype

# dlx dtypes ml_dtypes has too, beyond the narrow float formats of opsutil.EXT
ML_MORE = ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "complex32"] if ml_dtypes is not None else []
# ml_dtypes types dlx has no dtype for
ML_NONE = ["int1", "uint1", "int2", "uint2", "int4", "uint4", "bcomplex32"] if ml_dtypes is not None else []


def dtype_likes():
    """(dtype-like, NumPy's dtype for it) for everything dlx should take as that dtype."""
    out = [(t, np.dtype(t)) for t in (bool, int, float, complex)]
    scalar_types = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.byte, np.ubyte, np.short,
                    np.ushort, np.intc, np.uintc, np.long, np.ulong, np.longlong, np.ulonglong, np.intp, np.uintp,
                    np.half, np.single, np.double, np.csingle, np.cdouble]
    out += [(t, np.dtype(t)) for t in scalar_types]
    out += [(np.dtype(name), np.dtype(name)) for name in STANDARD]
    out += [(np.dtype("<f8").newbyteorder("="), np.dtype("float64"))]
    for name in EXT + ML_MORE:
        t = getattr(ml_dtypes, name)
        out += [(t, np.dtype(t)), (np.dtype(t), np.dtype(t))]
    return out


def entry_points(x):
    """Every function that takes a dtype, each making a tensor of dtype x."""
    src = dlx.zeros((2,), "float32")
    return {
        "empty": lambda: dlx.empty((2,), x),
        "zeros": lambda: dlx.zeros(2, dtype=x),
        "full": lambda: dlx.full((2,), 0, dtype=x),
        "empty_like": lambda: dlx.empty_like(src, dtype=x),
        "astype": lambda: src.astype(x),
    }


@pytest.mark.parametrize("x,want", dtype_likes(), ids=repr)
def test_dtype_likes_mean_what_numpy_says(x, want):
    """The dlx dtype's name is str(np.dtype(x)) (ml_dtypes' name for its types) in every entry point."""
    name = str(want)
    for where, make in entry_points(x).items():
        if name == "complex32" and where in ("full", "astype"):
            continue  # complex32 is storage only in dlx: no fill, no conversion
        assert make().dtype == name, where
    # view: the same bytes as that dtype, from a tensor of the same item size
    same_size = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64", 16: "complex128"}[want.itemsize]
    if name not in ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"):  # sub-byte: no reinterpretation
        assert dlx.zeros((2,), same_size).view(x).dtype == name
    assert np.empty(2, x).dtype == want  # and NumPy agrees on what x is


def test_python_types_are_numpy_defaults():
    t = dlx.zeros((3,), "float32")
    assert t.astype(int).dtype == str(np.dtype(int)) == "int64"
    assert t.astype(float).dtype == "float64"
    assert t.astype(complex).dtype == "complex128"  # was "lanes after 'x' must be a number"
    assert t.astype(bool).dtype == "bool"
    assert dlx.empty(3, np.float32).dtype == "float32"  # was "argument 2 must be str"
    assert dlx.empty(3, None).dtype == dlx.zeros(3).dtype == "float32"  # None: dlx's default


@pytest.mark.parametrize("name", STANDARD + EXT + ML_MORE + ["float32x4", "int128"])
def test_dtype_names(name):
    for where, make in entry_points(name).items():
        if name in ("complex32", "int128", "float32x4") and where in ("full", "astype"):
            continue  # no scalar conversion or cast for these
        assert make().dtype == name, where


@pytest.mark.parametrize("bad", ["xyz", "float", "f4", "<f4", "int", "", "float32 "])
def test_unknown_dtype_names(bad):
    """Strings are dlx's names only: NumPy's spellings ("float", "f4") are unknown too, everywhere."""
    for where, make in entry_points(bad).items():
        with pytest.raises(ValueError, match=f"^unknown dtype '{bad}'"):
            make()
    with pytest.raises(ValueError, match="unknown dtype"):
        dlx.zeros((2,), "float32").view(bad)


def test_unknown_dtype_keeps_the_detail():
    t = dlx.zeros((2,), "float32")
    with pytest.raises(ValueError) as e:
        t.astype("xyz")
    assert str(e.value) == ("unknown dtype 'xyz' (expected e.g. \"float32\", \"bfloat16\", \"float8_e4m3fn\", "
                            "\"float32x4\")")
    with pytest.raises(ValueError, match=r"^unknown dtype 'float32x': lanes after 'x' must be a number"):
        t.astype("float32x")
    with pytest.raises(ValueError, match=r"^unknown dtype 'float33x4': \"float33\" is no scalar type$"):
        dlx.empty(2, "float33x4")
    with pytest.raises(ValueError, match=r"^unknown dtype 'a{64}' \(expected"):  # a long name is cut
        dlx.empty(2, "a" * 1000)


def not_dtypes():
    """(object, message) for what dlx refuses as a dtype with TypeError."""
    out = [(3, "dtype must be a name"), (None, "dtype must be a name"), (1.5, "dtype must be a name"),
           (object, r"no dtype for <class 'object'> \(NumPy's dtype\('O'\)\)"), (str, "no dtype for <class 'str'>"),
           (np.dtype("U3"), r"no dtype for dtype\('<U3'\)$"), (np.dtype("int64,int32"), "no dtype for"),
           (np.dtype("datetime64[ns]"), "no dtype for"), (np.dtype(">f4"), "not in the machine's order"),
           (np.dtype(">i8"), "not in the machine's order"),
           (np.longdouble, "long double is no IEEE binary128"), (np.clongdouble, "long double")]
    out += [(getattr(ml_dtypes, n), f"no dtype for <class 'ml_dtypes.{n}'>") for n in ML_NONE]
    return out


@pytest.mark.parametrize("x,msg", not_dtypes(), ids=repr)
def test_not_dtypes(x, msg):
    t = dlx.zeros((2,), "float64")
    for where, make in entry_points(x).items():
        if x is None and where in ("empty", "zeros", "full", "empty_like"):
            continue  # None there is the default dtype
        with pytest.raises(TypeError, match=msg):
            make()
    with pytest.raises(TypeError, match=msg):
        t.view(x)


def test_numpy_errors_pass_through():
    """What NumPy raises other than TypeError / ValueError while making a dtype of x is not hidden."""

    class Broken:
        @property
        def dtype(self):
            raise RuntimeError("broken dtype property")

    with pytest.raises(RuntimeError, match="broken dtype property"):
        np.dtype(Broken())
    with pytest.raises(RuntimeError, match="broken dtype property"):
        dlx.zeros((2,)).astype(Broken())


# ---- sizes ------------------------------------------------------------------------------------------


class Index:
    """Not an int, but usable as one (operator.index)."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v

    def __repr__(self):  # the test ids: the same in every process (pytest-xdist compares them)
        return f"Index({self.v})"


SHAPES = [np.int64(3), [np.int64(3)], (np.uint8(2), np.int32(3)), np.array(4), np.array([2, 3]), Index(2),
          [Index(2), 3], (), 0, [0, np.int16(2)]]


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
def test_index_sizes(shape):
    """Sizes are anything with __index__, as NumPy takes them (issue 12: dlx.empty(np.int64(3)) raised)."""
    want = np.empty(shape).shape
    assert dlx.empty(shape).shape == want
    assert dlx.zeros(shape, "int8").shape == want
    assert dlx.full(shape, 1).shape == want
    n = int(np.prod(want))
    t = dlx.zeros((n,))
    assert t.reshape(shape).shape == np.empty(n).reshape(shape).shape


def test_index_axes_and_reshape_args():
    a = np.zeros((2, 3, 4))
    t = dlx.zeros((2, 3, 4))
    assert t.reshape(np.int64(4), Index(6)).shape == a.reshape(np.int64(4), Index(6)).shape
    assert t.reshape(np.int8(-1)).shape == a.reshape(np.int8(-1)).shape
    assert t.permute(np.int64(2), 0, Index(1)).shape == a.transpose(np.int64(2), 0, Index(1)).shape
    assert t.transpose([np.uint8(1), 0, 2]).shape == a.transpose([np.uint8(1), 0, 2]).shape


BAD_SIZES = [
    (True, TypeError), ([2, True], TypeError), (np.True_, TypeError), (3.0, TypeError), ([3.0], TypeError),
    (None, TypeError), ("3", TypeError), ([[2]], TypeError), (2**63, ValueError), (-2**63 - 1, ValueError),
    ([2**64, 0], ValueError), (-1, ValueError), ([2, -3], ValueError),
]


@pytest.mark.parametrize("shape,exc", BAD_SIZES, ids=repr)
def test_bad_sizes_as_numpy(shape, exc):
    """NumPy refuses bools and floats as sizes (TypeError) and sizes beyond int64 or negative (ValueError)."""
    with pytest.raises(exc):
        np.empty(shape)
    for make in (lambda: dlx.empty(shape), lambda: dlx.zeros(shape), lambda: dlx.full(shape, 0)):
        with pytest.raises(exc):
            make()
    if not isinstance(shape, (list, str)) and shape is not None:
        with pytest.raises(exc):
            np.zeros(4).reshape(shape, -1)
        with pytest.raises(exc):
            dlx.zeros(4).reshape(shape, -1)


def test_size_messages():
    with pytest.raises(TypeError, match="^shape: expected ints, got bool$"):
        dlx.empty(True)
    with pytest.raises(TypeError, match="^reshape: expected ints, got float$"):
        dlx.zeros(4).reshape(2, 2.0)
    with pytest.raises(TypeError, match="^shape: expected ints or one sequence of ints, got float$"):
        dlx.zeros(2.5)
    with pytest.raises(ValueError, match="^shape: 9223372036854775808 is outside the range of int64$"):
        dlx.zeros([1, 2**63])
    with pytest.raises(ValueError, match="at most"):
        dlx.zeros([1] * 100)

    class BadIndex:
        def __index__(self):
            raise ZeroDivisionError("bad __index__")

    # an __index__ that fails for another reason than TypeError is not taken for a sequence
    for make in (lambda: dlx.empty(BadIndex()), lambda: dlx.empty([BadIndex()]),
                 lambda: dlx.zeros(2).reshape(BadIndex())):
        with pytest.raises(ZeroDivisionError, match="bad __index__"):
            make()

"""Every exception docs/python-api.md documents, raised as documented (issue 20, item 7).

Each row quotes the sentence of the doc that names the exception (the quote must still be in the doc,
whitespace aside, so a row cannot outlive its sentence) and makes the call; the exception raised must be
exactly the documented type, not a subclass or a neighbour. Where the DLPack and Array API standards
speak, they decided the documented type: BufferError for what DLPack cannot export or import
(from_dlpack, __dlpack__), ValueError for asarray's copies that cannot be made, TypeError for argument
types. Device memory without a GPU is a capsule labelled cuda:0 (this build has no backend for it, or no
device); oneAPI's rows are in test_oneapi.py, which needs dpctl."""
import hashlib
import os
import re

import numpy as np
import pytest

import dlx

T = dlx._testing
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python-api.md")


def doc_text():
    with open(DOC) as f:
        return re.sub(r"\s+", " ", f.read())


def cuda_tensor(shape=(3,), dtype="float32"):
    return dlx.from_dlpack(T.make_capsule(shape, dtype, device=(2, 0)))


def readonly(shape=(3,)):
    a = np.zeros(shape, np.float32)
    a.flags.writeable = False
    return dlx.from_dlpack(a)


def f32(*shape):
    return dlx.zeros(shape or (3,), "float32")


class NoDLPack:
    pass


CASES = [
    # from_dlpack
    ('An object with no `__dlpack__` raises TypeError "object of type \'T\' does not support DLPack',
     lambda: dlx.from_dlpack(NoDLPack()), TypeError),
    ("`copy=False` with a device change is BufferError",
     lambda: dlx.from_dlpack(np.zeros(3), device="cuda:0", copy=False), BufferError),
    ("as is a device that cannot be reached or named", lambda: dlx.from_dlpack(np.zeros(3), device="cuda:0"),
     BufferError),
    ("as is a device that cannot be reached or named", lambda: dlx.from_dlpack(np.zeros(3), device="gpu"),
     BufferError),
    ("Failures raise `BufferError` (bad tensor)",
     lambda: dlx.from_dlpack(T.make_capsule((3,), version=(2, 0))), BufferError),
    ("`TypeError` (bad argument types)", lambda: dlx.from_dlpack(np.zeros(3), copy=1), TypeError),
    ("`TypeError` (bad argument types)", lambda: dlx.from_dlpack(np.zeros(3), assumed_align="8"), TypeError),
    ("`ValueError` (bad argument values)", lambda: dlx.from_dlpack(np.zeros(3), assumed_align=3), ValueError),
    ("`copy=False` keeps the BufferError",
     lambda: dlx.from_dlpack(np.zeros(3, dtype=[("a", "u1"), ("b", "<f4")])["b"], copy=False), BufferError),
    ("Failures raise `BufferError` (bad tensor)", lambda: dlx.from_dlpack(cuda_tensor(), copy=True), BufferError),
    # creation, sizes, dtypes
    ("OverflowError for an int neither holds", lambda: dlx.full((2,), 2**64), OverflowError),
    ("bools and floats are TypeError", lambda: dlx.zeros((2.0,)), TypeError),
    ("bools and floats are TypeError", lambda: f32(2, 3).reshape(True, 6), TypeError),
    ("sizes outside int64 ValueError", lambda: dlx.zeros((2**64,)), ValueError),
    ("an unknown name is ValueError \"unknown dtype 'xyz'\"", lambda: dlx.zeros((2,), "xyz"), ValueError),
    ("TypeError for the rest (non-native byte order, NumPy's long double, object, str)",
     lambda: dlx.zeros((2,), np.dtype(">f4")), TypeError),
    ("TypeError for the rest (non-native byte order, NumPy's long double, object, str)",
     lambda: dlx.zeros((2,), object), TypeError),
    ("other dtypes TypeError", lambda: dlx.matmul(dlx.zeros((2, 2), "int32"), dlx.zeros((2, 2), "int32")),
     TypeError),
    ("OverflowError for an int outside the dtype", lambda: dlx.full_like(np.zeros(2, np.uint8), 300), OverflowError),
    ("complex into a real dtype other than bool TypeError", lambda: dlx.full_like(np.zeros(2, np.int8), 1j),
     TypeError),
    ("complex numbers and other objects are TypeError", lambda: dlx.arange(1j), TypeError),
    ("complex numbers and other objects are TypeError", lambda: dlx.arange(0, "5"), TypeError),
    ('outside the dtype OverflowError "Python integer 300 out of bounds for int8"',
     lambda: dlx.arange(300, 302, dtype="int8"), OverflowError),
    ("an int outside [-2^63, 2^64) is OverflowError there", lambda: dlx.arange(2**64, 2**64 + 1), OverflowError),
    ("step 0 is ZeroDivisionError", lambda: dlx.arange(0, 1, 0), ZeroDivisionError),
    ('a NaN length ValueError ("arange: cannot compute length")', lambda: dlx.arange(float("nan")), ValueError),
    ('a length outside int64 ValueError ("Maximum allowed size exceeded"', lambda: dlx.arange(0, 1, 1e-310),
     ValueError),
    ("a bool arange of more than 2 elements TypeError", lambda: dlx.arange(3, dtype=bool), TypeError),
    ("a dtype without kernel TypeError", lambda: dlx.arange(3, dtype="int128"), TypeError),
    ("`arange(start=3)` without stop is TypeError", lambda: dlx.arange(start=3), TypeError),
    ("(bools and floats TypeError, negative ValueError)", lambda: dlx.eye(True), TypeError),
    ("(bools and floats TypeError, negative ValueError)", lambda: dlx.eye(2.0), TypeError),
    ("(bools and floats TypeError, negative ValueError)", lambda: dlx.eye(3, -1), ValueError),
    ("k anything with `__index__` (floats TypeError)", lambda: dlx.eye(3, k=1.0), TypeError),
    # __dlpack__
    ("BufferError for read-only data on a legacy capsule", lambda: readonly().__dlpack__(), BufferError),
    ("BufferError when it cannot be reached", lambda: f32().__dlpack__(max_version=(1, 3), dl_device=(2, 0)),
     BufferError),
    ("`stream` must be None for host memory (BufferError", lambda: f32().__dlpack__(stream=5), BufferError),
    ("TypeError for malformed arguments", lambda: f32().__dlpack__(max_version="1.3"), TypeError),
    ("errors raise ValueError with CuTe's message", lambda: f32(2, 3).mark_layout_dynamic(leading_dim=5),
     ValueError),
    # operators
    ('an int outside the dtype\'s range raises OverflowError "Python integer 300 out of bounds for uint8"',
     lambda: dlx.zeros((2,), "uint8") + 300, OverflowError),
    ("bool `+` is or, `*` is and, `-` TypeError", lambda: dlx.zeros((2,), "bool") - dlx.zeros((2,), "bool"),
     TypeError),
    ("ordering complex numbers is TypeError", lambda: dlx.zeros((2,), "complex64") < 1, TypeError),
    ("int32 += 1.5 and int32 /= 2 raise TypeError", lambda: dlx.zeros((2,), "int32").__itruediv__(2), TypeError),
    ("(so int128 and uint128 too; ValueError for more elements or none)", lambda: bool(f32()), ValueError),
    ("`len(t)`: `shape[0]` (TypeError for 0-d)", lambda: len(dlx.asarray(1.0)), TypeError),
    ('a 0-d tensor is TypeError ("iteration over a 0-d tensor")', lambda: iter(dlx.asarray(1.0)), TypeError),
    ("TypeError for a 0-d tensor. A row that is no view", lambda: reversed(dlx.asarray(1.0)), TypeError),
    ("raises the TypeError `t[1]` raises when the iteration reaches it, never IndexError",
     lambda: list(dlx.zeros((4,), "float4_e2m1fn")), TypeError),
    # indexing
    ("out-of-range indices raise IndexError", lambda: f32()[3], IndexError),
    ("a zero step raises ValueError", lambda: f32()[::0], ValueError),
    ("(ints range-checked with OverflowError", lambda: dlx.zeros((2,), "uint8").__setitem__(0, 256), OverflowError),
    ("NaN / inf into integers ValueError / OverflowError",
     lambda: dlx.zeros((2,), "int32").__setitem__(0, float("nan")), ValueError),
    ("NaN / inf into integers ValueError / OverflowError",
     lambda: dlx.zeros((2,), "int32").__setitem__(0, float("inf")), OverflowError),
    ("complex into a real dtype other than bool TypeError", lambda: f32().__setitem__(0, 1j), TypeError),
    ("Read-only tensors raise ValueError on every write", lambda: readonly().__setitem__(0, 1.0), ValueError),
    ("Read-only tensors raise ValueError on every write", lambda: readonly().fill_(1.0), ValueError),
    ('IndexError for an index out of range ("index 5 is out of bounds for axis 0 with size 3"',
     lambda: f32()[[5]], IndexError),
    ("ValueError for a ragged list", lambda: f32(3, 3)[[[0, 1], [2]]], ValueError),
    ("an int in a list that neither int64 nor uint64 holds (\"index out of bounds: Python integer",
     lambda: f32()[[2**64]], IndexError),
    # the engine
    ("IndexError (index out of range)", lambda: f32(2, 2)[[0], [2]], IndexError),
    ("TypeError (dtype or op unsupported)", lambda: dlx.zeros((2,), "float4_e2m1fn") + 1, TypeError),
    ("ValueError (dtype mismatch, shapes that do not broadcast, read-only output, anything else)",
     lambda: f32(3) + f32(4), ValueError),
    ("ValueError (dtype mismatch, shapes that do not broadcast, read-only output, anything else)",
     lambda: dlx.add(f32(), f32(), out=dlx.zeros((3,), "int32")), ValueError),
    ("ValueError (dtype mismatch, shapes that do not broadcast, read-only output, anything else)",
     lambda: dlx.add(f32(), f32(), out=readonly()), ValueError),
    ("Mixing host and device tensors in one op is ValueError naming the operands",
     lambda: f32() + cuda_tensor(), ValueError),
    # buffers and NumPy
    ("raise BufferError (NumPy raises ValueError there)", lambda: hashlib.md5(f32(3, 4).T), BufferError),
    ('Device memory: BufferError naming the device and `t.to("cpu")`', lambda: memoryview(cuda_tensor()),
     BufferError),
    ("`copy=False` ValueError when a copy is needed", lambda: f32().__array__(dtype=np.float64, copy=False),
     ValueError),
    ("copy anything else TypeError", lambda: f32().__array__(copy="yes"), TypeError),
    ("TypeError for int128, uint128, float128, complex32 and opaque",
     lambda: dlx.from_dlpack(T.make_capsule((2,), "int128")).numpy(), TypeError),
    ("and for device memory", lambda: cuda_tensor().numpy(), TypeError),
    ("TypeError for float128 and complex32 (no conversion)",
     lambda: dlx.from_dlpack(T.make_capsule((2,), "float128")).tolist(), TypeError),
    ("(`int` truncates, NaN ValueError", lambda: int(dlx.asarray(float("nan"))), ValueError),
    ("infinity OverflowError", lambda: int(dlx.asarray(float("inf"))), OverflowError),
    ("`float`/`int` of a complex TypeError", lambda: float(dlx.asarray(1j)), TypeError),
    ("TypeError for any other element count", lambda: float(f32()), TypeError),
    # asarray
    ('`copy=False` then raises ValueError where the buffer shows that a copy is needed',
     lambda: dlx.asarray(np.zeros(3, dtype=[("a", "u1"), ("b", "<f4")])["b"], copy=False), ValueError),
    ("a refusal no copy cures (another byte order) keeps its BufferError",
     lambda: dlx.asarray(np.zeros(3, ">f4")), BufferError),
    ('TypeError "no dlx dtype for buffer format', lambda: dlx.asarray(memoryview(b"ab").cast("c")), TypeError),
    ("is copied (ValueError with copy=False)",
     lambda: dlx.asarray(memoryview(bytearray(9))[1:].cast("d"), copy=False), ValueError),
    ("tensor (copy=False is ValueError)", lambda: dlx.asarray([1, 2], copy=False), ValueError),
    ("an int outside [-2^63, 2^64) OverflowError", lambda: dlx.asarray([2**64]), OverflowError),
    ("Ragged nesting is ValueError", lambda: dlx.asarray([[1], [1, 2]]), ValueError),
    ("other elements (str, None, NumPy scalars, tensors) TypeError", lambda: dlx.asarray([1, "a"]), TypeError),
    ('(OverflowError "Python integer 300 out of bounds for uint8")',
     lambda: dlx.asarray([300], dtype="uint8"), OverflowError),
    ("complex into a real dtype TypeError except bool", lambda: dlx.asarray([1j], dtype="float32"), TypeError),
    ("int128, uint128, float128, complex32 and vectors: TypeError", lambda: dlx.asarray([1], dtype="int128"),
     TypeError),
    ("- anything else: TypeError", lambda: dlx.asarray(NoDLPack()), TypeError),
    ("converts with dlx's cast after the import (a copy; ValueError with copy=False)",
     lambda: dlx.asarray(np.zeros(3, np.float32), dtype="float64", copy=False), ValueError),
    ("False never copies (ValueError when it must)", lambda: dlx.asarray(np.float32(1), copy=False), ValueError),
    ("anything else TypeError", lambda: dlx.asarray(np.zeros(3), copy="no"), TypeError),
    ("`copy=False` with a move is ValueError", lambda: dlx.asarray(np.zeros(3), device="cuda:0", copy=False),
     ValueError),
    # issue 20, item 7: this one raised BufferError
    ("A copy that cannot be made (an absent device, no backend for the memory) is ValueError naming the device",
     lambda: dlx.asarray(cuda_tensor(), copy=True), ValueError),
    ("A copy that cannot be made (an absent device, no backend for the memory) is ValueError naming the device",
     lambda: dlx.asarray(cuda_tensor(), device="cpu"), ValueError),
    # NumPy's protocols
    ('TypeError "numpy.arctan2 runs in NumPy, on host', lambda: np.arctan2(cuda_tensor(), 1.0), TypeError),
    ("cannot write in place (packed float6/float4) is TypeError",
     lambda: np.sqrt(np.ones(4, np.float32), out=dlx.zeros((4,), "float4_e2m1fn")), TypeError),
    ("as `out=` dlx and NumPy refuse it (ValueError)", lambda: np.sqrt(np.ones(3, np.float32), out=readonly()),
     ValueError),
    ('with NumPy\'s ValueError "assignment destination is read-only"', lambda: np.add.at(readonly(), [0], 1),
     ValueError),
    # devices
    ("An unknown name is ValueError (\"unknown device 'gpu' (expected", lambda: dlx.zeros((2,), device="gpu"),
     ValueError),
    ("another type TypeError", lambda: dlx.zeros((2,), device=1.5), TypeError),
    ("is the allocation's error (ValueError", lambda: dlx.zeros((2,), device="cuda:0"), ValueError),
    ("Device memory needs CUDA and the device (RuntimeError saying which is missing)",
     lambda: cuda_tensor().record(), RuntimeError),
    ("0 (and below -1) is ValueError", lambda: cuda_tensor().__dlpack__(stream=0), ValueError),
    ("Host memory takes only `stream=None` (BufferError otherwise)", lambda: f32().__dlpack__(stream=1),
     BufferError),
    ("ValueError for another string, TypeError for a non-string", lambda: dlx.oneapi.set_alloc_kind("gpu"),
     ValueError),
    ("ValueError for another string, TypeError for a non-string", lambda: dlx.oneapi.set_alloc_kind(1), TypeError),
    ("TypeError for a path that is not str / os.PathLike", lambda: dlx.oneapi.load(1), TypeError),
    ("TypeError for anything but a `dlx.Tensor`", lambda: dlx.oneapi.usm_kind(np.zeros(2)), TypeError),
]


@pytest.mark.parametrize("quote,call,exc", CASES, ids=[f"{i}-{c[2].__name__}" for i, c in enumerate(CASES)])
def test_documented_exception(quote, call, exc):
    assert re.sub(r"\s+", " ", quote) in doc_text(), f"docs/python-api.md no longer says: {quote!r}"
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is exc, f"{type(info.value).__name__}: {info.value} (documented: {exc.__name__})"


def test_every_exception_the_doc_names_is_walked():
    """Each exception type the doc names appears in the table."""
    named = set(re.findall(r"\b(\w+Error)\b", doc_text())) - {"UFuncTypeError"}
    walked = {c[2].__name__ for c in CASES} | {"MemoryError", "ImportError", "AttributeError"}
    assert named <= walked, named - walked

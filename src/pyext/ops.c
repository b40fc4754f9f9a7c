/* dlx.Tensor arithmetic, comparisons, indexing and shape methods; dlx.add & co, matmul, fma, full.
 *
 * The C core computes on operands of one dtype; this file decides that dtype the way NumPy 2 does
 * (ml_dtypes' rules for bfloat16 and the float8 formats), casting an operand first when needed:
 *  - tensor with tensor: NumPy's promotion table (int8 + uint8 -> int16, int64 + float32 -> float64, ...);
 *  - tensor with a Python scalar: the scalar is "weak" and takes the tensor's dtype (uint8 + 1 stays
 *    uint8; an int that does not fit is OverflowError), except where its kind is higher (int + 1.5 ->
 *    float64, float32 + 1j -> complex64);
 *  - `/` of integers or bools is true division in float64.
 * Views share the parent's storage (one more reference), so a view keeps its memory alive on its own.
 * Kernels of any size run with the GIL released; the Python references held for the call keep every
 * operand's storage alive meanwhile. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"


PyObject *dlx__py_raise_op(dlx_status st) {
  PyObject *exc;
  switch (st) {
    case DLX_ERR_INDEX: exc = PyExc_IndexError; break;
    case DLX_ERR_UNSUPPORTED: exc = PyExc_TypeError; break;
    default: exc = PyExc_ValueError; break; /* dlx__py_raise turns OUT_OF_MEMORY into MemoryError */
  }
  return dlx__py_raise(st, exc);
}

int dlx__py_is_tensor(PyObject *o) { return Py_IS_TYPE(o, &dlx__py_tensor_type); }

/* ---- dtype classes and promotion ---------------------------------------------------------------- */

dlx__py_dtclass dlx__py_dtype_class(DLDataType dt) {
  if (dt.lanes != 1) return DLX__PY_CLASS_OTHER;
  switch (dt.code) {
    case DLX_CODE_BOOL: return DLX__PY_CLASS_BOOL;
    case DLX_CODE_INT: return dt.bits <= 64 ? DLX__PY_CLASS_INT : DLX__PY_CLASS_OTHER;
    case DLX_CODE_UINT: return dt.bits <= 64 ? DLX__PY_CLASS_UINT : DLX__PY_CLASS_OTHER; /* uint128: no NumPy promotion */
    case DLX_CODE_FLOAT: return dt.bits >= 16 && dt.bits <= 64 ? DLX__PY_CLASS_FLOAT : DLX__PY_CLASS_OTHER;
    case DLX_CODE_COMPLEX: return dt.bits == 64 || dt.bits == 128 ? DLX__PY_CLASS_COMPLEX : DLX__PY_CLASS_OTHER;
    case DLX_CODE_BFLOAT: return DLX__PY_CLASS_EXT;
    default: return dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT8_E8M0FNU ? DLX__PY_CLASS_EXT : DLX__PY_CLASS_OTHER;
  }
}

static DLDataType float_of(int bits) { return DLX_DTYPE_MAKE(DLX_CODE_FLOAT, bits, 1); }
static DLDataType complex_of(int float_bits) { return DLX_DTYPE_MAKE(DLX_CODE_COMPLEX, 2 * float_bits, 1); }
static int max_i(int a, int b) { return a > b ? a : b; }

/* The narrowest float holding every value of an integer of `bits` bits, as NumPy pairs them. */
static int float_bits_for_int(int bits) { return bits <= 8 ? 16 : bits <= 16 ? 32 : 64; }

/* NumPy's result_type for two dtypes (ml_dtypes' for bfloat16 / float8). 0, or -1 with TypeError. */
static int promote(DLDataType a, DLDataType b, DLDataType *out) {
  if (dlx_dtype_equal(a, b)) {
    *out = a;
    return 0;
  }
  dlx__py_dtclass ka = dlx__py_dtype_class(a), kb = dlx__py_dtype_class(b);
  if (ka > kb) { /* order the pair: ka <= kb */
    DLDataType t = a;
    a = b;
    b = t;
    dlx__py_dtclass k = ka;
    ka = kb;
    kb = k;
  }
  char x[DLX_DTYPE_NAME_MAX], y[DLX_DTYPE_NAME_MAX];
  if (kb == DLX__PY_CLASS_OTHER) goto fail;
  if (ka == DLX__PY_CLASS_BOOL) {
    *out = b;
    return 0;
  }
  if (kb == DLX__PY_CLASS_EXT) { /* b is bfloat16 or a float8 format (ml_dtypes' rules) */
    if (ka == DLX__PY_CLASS_INT || ka == DLX__PY_CLASS_UINT) {
      /* an int8 fits the narrow format's role; wider ints need float32 / float64 */
      *out = a.bits <= 8 ? b : float_of(float_bits_for_int(a.bits));
    } else if (ka == DLX__PY_CLASS_FLOAT || ka == DLX__PY_CLASS_COMPLEX) {
      /* float16 meets a narrow format in float32; wider floats and complex keep their type */
      *out = ka == DLX__PY_CLASS_FLOAT && a.bits < 32 ? DLX_DTYPE_FLOAT32 : a;
    } else {
      *out = DLX_DTYPE_FLOAT32; /* two different narrow formats */
    }
    return 0;
  }
  if (ka == DLX__PY_CLASS_INT || ka == DLX__PY_CLASS_UINT) {
    if (kb == DLX__PY_CLASS_INT || kb == DLX__PY_CLASS_UINT) {
      if (ka == kb) {
        *out = a.bits > b.bits ? a : b;
      } else {
        DLDataType u = ka == DLX__PY_CLASS_UINT ? a : b, s = ka == DLX__PY_CLASS_UINT ? b : a;
        if (s.bits > u.bits) *out = s;
        else if (u.bits < 64) *out = DLX_DTYPE_MAKE(DLX_CODE_INT, 2 * u.bits, 1);
        else *out = DLX_DTYPE_FLOAT64;
      }
      return 0;
    }
    int need = float_bits_for_int(a.bits);
    if (kb == DLX__PY_CLASS_FLOAT) *out = float_of(max_i(b.bits, need));
    else *out = complex_of(max_i(b.bits / 2, need));
    return 0;
  }
  if (ka == DLX__PY_CLASS_FLOAT) {
    *out = kb == DLX__PY_CLASS_FLOAT ? float_of(max_i(a.bits, b.bits)) : complex_of(max_i(a.bits, b.bits / 2));
    return 0;
  }
  if (ka == DLX__PY_CLASS_COMPLEX) {
    *out = a.bits > b.bits ? a : b;
    return 0;
  }
fail:
  PyErr_Format(PyExc_TypeError, "no common dtype for %s and %s (cast one with astype)", dlx__dtype_text(x, sizeof x, a),
               dlx__dtype_text(y, sizeof y, b));
  return -1;
}

/* Python scalars, weakest first. */
/* Exact float / complex: numpy.float64 and numpy.complex128 subclass them but are NumPy scalars, which
 * NumPy types strongly (float32 tensor + numpy.float64 is float64); they go the tensor way instead. */
dlx__py_skind dlx__py_scalar_kind(PyObject *o) {
  if (PyBool_Check(o)) return DLX__PY_SCALAR_BOOL;
  if (PyLong_Check(o)) return DLX__PY_SCALAR_INT;
  if (PyFloat_CheckExact(o)) return DLX__PY_SCALAR_FLOAT;
  if (PyComplex_CheckExact(o)) return DLX__PY_SCALAR_COMPLEX;
  return DLX__PY_SCALAR_NONE;
}

/* The dtype of tensor (dtype t) op weak scalar: NumPy 2's rules, ml_dtypes' for the narrow formats
 * (bfloat16 + 1.5 is float32 there). */
static DLDataType weak_result(DLDataType t, dlx__py_skind s) {
  dlx__py_dtclass k = dlx__py_dtype_class(t);
  switch (s) {
    case DLX__PY_SCALAR_INT: return k == DLX__PY_CLASS_BOOL ? DLX_DTYPE_INT64 : t;
    case DLX__PY_SCALAR_FLOAT:
      if (k == DLX__PY_CLASS_BOOL || k == DLX__PY_CLASS_INT || k == DLX__PY_CLASS_UINT) return DLX_DTYPE_FLOAT64;
      return k == DLX__PY_CLASS_EXT ? DLX_DTYPE_FLOAT32 : t;
    case DLX__PY_SCALAR_COMPLEX:
      if (k == DLX__PY_CLASS_BOOL || k == DLX__PY_CLASS_INT || k == DLX__PY_CLASS_UINT) return DLX_DTYPE_COMPLEX128;
      if (k == DLX__PY_CLASS_EXT || (k == DLX__PY_CLASS_FLOAT && t.bits <= 32)) return DLX_DTYPE_COMPLEX64;
      return k == DLX__PY_CLASS_FLOAT ? DLX_DTYPE_COMPLEX128 : t;
    default: return t;
  }
}

/* ---- new tensors -------------------------------------------------------------------------------- */

PyObject *dlx__py_tensor_new_owned(int32_t ndim, const int64_t *shape, DLDataType dt, int zero) {
  /* the core's allocator: 64-byte aligned, transparent huge pages for large blocks */
  return dlx__py_tensor_new_on((DLDevice){kDLCPU, 0}, ndim, shape, dt, zero);
}

/* A view of t's storage (one more reference to it). */
PyObject *dlx__py_wrap_view(dlx__py_tensor *t, const dlx_view *v) {
  return dlx__py_tensor_wrap(dlx__storage_retain(t->storage), v, 0);
}

/* t converted to dtype dt in a new compact tensor (on the device ops on src compute on). */
PyObject *dlx__py_cast_new(const dlx_view *src, DLDataType dt) {
  PyObject *r = dlx__py_tensor_new_like(src, src->ndim, src->shape, dt);
  if (r == NULL) return NULL;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(src), dlx_cast(&((dlx__py_tensor *)r)->view, src));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

/* A Tensor for any tensor-like object: a new reference (the object itself for a dlx.Tensor), NULL with
 * TypeError when it speaks no DLPack (or NotImplemented semantics left to the caller: *unsupported). */
PyObject *dlx__py_as_tensor(PyObject *o, int *unsupported) {
  *unsupported = 0;
  if (dlx__py_is_tensor(o)) {
    Py_INCREF(o);
    return o;
  }
  if (!PyObject_HasAttr(o, dlx__py_str_dlpack) && !PyCapsule_CheckExact(o)) {
    /* a NumPy scalar (numpy.float32(2)) speaks no DLPack, but its __array__ is a 0-d array that does */
    if (PyObject_HasAttrString(o, "dtype") && PyObject_HasAttrString(o, "__array__")) {
      PyObject *arr = PyObject_CallMethod(o, "__array__", NULL);
      if (arr == NULL) return NULL;
      PyObject *t = PyObject_HasAttr(arr, dlx__py_str_dlpack) ? dlx__py_from_dlpack(arr, 0, -1) : NULL;
      if (t == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%.100s.__array__() gave no DLPack object", Py_TYPE(o)->tp_name);
      Py_DECREF(arr);
      return t;
    }
    *unsupported = 1;
    return PyErr_Format(PyExc_TypeError, "expected a dlx.Tensor, a DLPack object or a Python scalar, not %.100s",
                        Py_TYPE(o)->tp_name);
  }
  return dlx__py_from_dlpack(o, 0, -1);
}

/* ---- dtypes from Python objects ----------------------------------------------------------------- */

/* ValueError for a str that is no dlx dtype name: "unknown dtype 'xyz'", plus what the core's parse
 * error adds (the expected spellings, a bad lane count). The core's message repeats the name; that
 * part is dropped when the message has the core's usual form, else the whole message follows. */
static int unknown_dtype_name(PyObject *o, const char *s, Py_ssize_t len) {
  const char *msg = dlx_last_error(), *detail = msg, *sep = ": ";
  /* the core quotes at most 64 bytes of the name */
  int shown = len > 64 ? 64 : (int)len;
  char not_a_name[96], bad_lanes[96];
  snprintf(not_a_name, sizeof not_a_name, "\"%.*s\" is not a dtype name", shown, s);
  snprintf(bad_lanes, sizeof bad_lanes, "dtype name \"%.*s\":", shown, s);
  if (strncmp(msg, not_a_name, strlen(not_a_name)) == 0) {
    detail = msg + strlen(not_a_name); /* " (expected e.g. ...)" or ": \"float33\" is no scalar type" */
    sep = "";
  } else if (strncmp(msg, bad_lanes, strlen(bad_lanes)) == 0) {
    detail = msg + strlen(bad_lanes); /* " lanes after 'x' must be ..." */
    detail += detail[0] == ' ';
  }
  PyErr_Format(PyExc_ValueError, "unknown dtype '%.64U'%s%s", o, detail[0] ? sep : "", detail);
  return -1;
}

/* A numpy.dtype (descr, what numpy.dtype made of o; np the numpy module) as a dlx dtype. -1 with
 * TypeError when dlx has no such dtype. */
static int dtype_from_numpy(PyObject *np, PyObject *o, PyObject *descr, DLDataType *dt) {
  PyObject *name = NULL, *order = NULL, *type = NULL, *ld = NULL, *cld = NULL;
  const char *why = "";
  int r = -1;
  if ((name = PyObject_GetAttrString(descr, "name")) == NULL ||
      (order = PyObject_GetAttrString(descr, "byteorder")) == NULL ||
      (type = PyObject_GetAttrString(descr, "type")) == NULL ||
      (ld = PyObject_GetAttrString(np, "longdouble")) == NULL ||
      (cld = PyObject_GetAttrString(np, "clongdouble")) == NULL)
    goto done;
  int parsed = 0;
  if (PyUnicode_Check(name)) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(name, &len);
    if (s == NULL) goto done;
    parsed = dlx_dtype_parse_n(s, (size_t)len, dt) == DLX_OK;
  }
  if (PyUnicode_Check(order) &&
      (PyUnicode_CompareWithASCIIString(order, "<") == 0 || PyUnicode_CompareWithASCIIString(order, ">") == 0)) {
    /* NumPy spells the machine's own order '=' (or '|' where order means nothing): '<' or '>' is the
     * other one, whose bytes dlx would read wrongly */
    why = ": its bytes are not in the machine's order";
  } else if ((type == ld || type == cld) &&
             !(parsed && (dlx_dtype_equal(*dt, DLX_DTYPE_FLOAT64) || dlx_dtype_equal(*dt, DLX_DTYPE_COMPLEX128)))) {
    /* a long double wider than double is named "float128" ("complex256") by NumPy, but on x86-64 it is
     * x87 extended precision, no IEEE binary128 */
    why = ": NumPy's long double is no IEEE binary128";
  } else if (parsed) {
    r = 0;
    goto done;
  }
  if (o == descr) PyErr_Format(PyExc_TypeError, "dlx has no dtype for %.200R%s", o, why);
  else PyErr_Format(PyExc_TypeError, "dlx has no dtype for %.200R (NumPy's %.200R)%s", o, descr, why);
done:
  Py_XDECREF(name);
  Py_XDECREF(order);
  Py_XDECREF(type);
  Py_XDECREF(ld);
  Py_XDECREF(cld);
  return r;
}

/* The one dtype parser of the module (empty, zeros, full, empty_like, astype, view):
 *  - a str is a dlx dtype name ("float32", "bfloat16", "float32x4"); NumPy's string spellings ("float",
 *    "f4", "<f4") are not, so that a name has one meaning, dlx's;
 *  - Python's bool / int / float / complex mean what numpy.dtype makes of them: int is NumPy 2's default
 *    integer, intp (int64 on 64-bit platforms);
 *  - anything numpy.dtype() takes (numpy.dtype objects, numpy.float32, ml_dtypes.bfloat16) is asked of
 *    NumPy, when it is loaded: such an object cannot exist before, so dlx never imports NumPy itself.
 * -1 with ValueError for an unknown name, TypeError for anything else. */
int dlx__py_parse_dtype(PyObject *o, DLDataType *dt) {
  static PyObject *numpy_name;
  if (PyUnicode_Check(o)) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(o, &len);
    if (s == NULL) return -1;
    return dlx_dtype_parse_n(s, (size_t)len, dt) == DLX_OK ? 0 : unknown_dtype_name(o, s, len);
  }
  DLDataType builtin = DLX_DTYPE_MAKE(0, 0, 0);
  if (o == (PyObject *)&PyBool_Type) builtin = DLX_DTYPE_BOOL;
  else if (o == (PyObject *)&PyLong_Type) builtin = DLX_DTYPE_MAKE(DLX_CODE_INT, 8 * sizeof(Py_ssize_t), 1);
  else if (o == (PyObject *)&PyFloat_Type) builtin = DLX_DTYPE_FLOAT64;
  else if (o == (PyObject *)&PyComplex_Type) builtin = DLX_DTYPE_COMPLEX128;
  if (builtin.bits != 0) {
    *dt = builtin;
    return 0;
  }
  PyObject *np = NULL, *descr = NULL;
  if (o != Py_None) { /* numpy.dtype(None) is float64, but None is no dtype to dlx (callers: the default) */
    if (numpy_name == NULL && (numpy_name = PyUnicode_InternFromString("numpy")) == NULL) return -1;
    np = PyImport_GetModule(numpy_name); /* sys.modules["numpy"]: no import */
    if (np == NULL && PyErr_Occurred()) return -1;
  }
  if (np != NULL && np != Py_None) {
    descr = PyObject_CallMethod(np, "dtype", "O", o);
    if (descr == NULL) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_ValueError)) {
        Py_DECREF(np);
        return -1;
      }
      PyErr_Clear(); /* not a dtype to NumPy either: the message below says what is taken */
    }
  }
  if (descr != NULL) {
    int r = dtype_from_numpy(np, o, descr, dt);
    Py_DECREF(descr);
    Py_DECREF(np);
    return r;
  }
  Py_XDECREF(np);
  PyErr_Format(PyExc_TypeError,
               "dtype must be a name like 'float32', a NumPy or ml_dtypes dtype or scalar type, or bool / int / "
               "float / complex, not %.100s",
               Py_TYPE(o)->tp_name);
  return -1;
}

/* ---- scalars ------------------------------------------------------------------------------------ */

/* A Python int / bool as a 0-d view of an integer dtype. 0, or 1 with *sign = +1 / -1 when it lies
 * above / below the dtype's range (no exception), or -1 with an exception. */
static int int_scalar(PyObject *o, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (x == -1 && PyErr_Occurred()) return -1;
  if (overflow == 0) {
    dlx_status st = dlx_scalar_view_int(v, buf, dt, x);
    if (st == DLX_OK) return 0;
    if (st != DLX_ERR_OVERFLOW) {
      dlx__py_raise_op(st);
      return -1;
    }
    *sign = x < 0 ? -1 : 1;
    return 1;
  }
  if (overflow > 0 && dt.code == DLX_CODE_UINT && dt.bits == 64) {
    /* [2^63, 2^64) fits uint64 but not the int64 of dlx_scalar_view_int */
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
      uint64_t w = u;
      memcpy(buf->bytes, &w, sizeof w);
      dlx_status st = dlx_view_init(v, buf->bytes, dt, (DLDevice){kDLCPU, 0}, 0, NULL, NULL);
      if (st != DLX_OK) {
        dlx__py_raise_op(st);
        return -1;
      }
      return 0;
    }
    PyErr_Clear();
  }
  *sign = overflow;
  return 1;
}

/* A Python scalar of kind k as a 0-d view of dtype dt (the weak-scalar conversion). 0; 1 for an int
 * outside an integer dtype's range (*sign tells which side); -1 with an exception. */
int dlx__py_scalar_view(PyObject *o, dlx__py_skind k, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign) {
  dlx__py_dtclass c = dlx__py_dtype_class(dt);
  dlx_status st;
  if (k == DLX__PY_SCALAR_BOOL || k == DLX__PY_SCALAR_INT) {
    if (c == DLX__PY_CLASS_INT || c == DLX__PY_CLASS_UINT) return int_scalar(o, dt, v, buf, sign);
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow == 0) {
      st = dlx_scalar_view_int(v, buf, dt, x);
    } else {
      double d = PyLong_AsDouble(o); /* OverflowError past float64's range, as NumPy */
      if (d == -1.0 && PyErr_Occurred()) return -1;
      st = dlx_scalar_view(v, buf, dt, d, 0.0);
    }
  } else if (k == DLX__PY_SCALAR_FLOAT) {
    st = dlx_scalar_view(v, buf, dt, PyFloat_AsDouble(o), 0.0);
  } else {
    Py_complex z = PyComplex_AsCComplex(o);
    if (z.real == -1.0 && PyErr_Occurred()) return -1;
    st = dlx_scalar_view(v, buf, dt, z.real, z.imag);
  }
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    return -1;
  }
  return 0;
}

PyObject *dlx__py_int_out_of_bounds(PyObject *o, DLDataType dt) {
  char b[DLX_DTYPE_NAME_MAX];
  return PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for %s", o, dlx__dtype_text(b, sizeof b, dt));
}

/* ---- elementwise binary ops --------------------------------------------------------------------- */

static const char *const op_names[DLX_OP_COUNT] = {"add",  "subtract",      "multiply", "divide",
                                                   "less", "less_equal",    "greater",  "greater_equal",
                                                   "equal", "not_equal"};

static int is_comparison(dlx_binop op) { return op >= DLX_OP_LT; }

/* a OP b == b SWAP(OP) a */
static dlx_binop swapped(dlx_binop op) {
  switch (op) {
    case DLX_OP_LT: return DLX_OP_GT;
    case DLX_OP_LE: return DLX_OP_GE;
    case DLX_OP_GT: return DLX_OP_LT;
    case DLX_OP_GE: return DLX_OP_LE;
    default: return op;
  }
}

/* Whether `t op value` holds for every t when value lies above (sign > 0) or below every t. */
static int out_of_range_comparison(dlx_binop op, int sign) {
  switch (op) {
    case DLX_OP_LT:
    case DLX_OP_LE: return sign > 0;
    case DLX_OP_GT:
    case DLX_OP_GE: return sign < 0;
    case DLX_OP_EQ: return 0;
    default: return 1;
  }
}

/* Whether an in-place op may cast its result (dtype `from`) back into the target (dtype `to`): NumPy's
 * np.can_cast(from, to, casting="same_kind"). bool < signed int < float < complex, unsigned ints cast
 * into signed ints but not the other way (uint8 += int8 computes int16, which NumPy refuses to cast
 * into uint8), and any cast within a kind is allowed (int32 += int64). bfloat16 and the float8 formats
 * follow the casts ml_dtypes registers with NumPy, which are not a plain kind order; test_ops.py checks
 * every pair against np.can_cast. */
static int same_kind_castable(DLDataType from, DLDataType to) {
  if (dlx_dtype_equal(from, to)) return 1;
  dlx__py_dtclass f = dlx__py_dtype_class(from), t = dlx__py_dtype_class(to);
  if (f == DLX__PY_CLASS_OTHER || t == DLX__PY_CLASS_OTHER) return 0;
  if (f == DLX__PY_CLASS_BOOL) return 1;
  if (t == DLX__PY_CLASS_EXT) {
    /* into a narrow format from bool, ints and floats always; from complex and the other narrow formats
     * as ml_dtypes registers: nothing but the real types into float8_e5m2, only bfloat16 into
     * float8_e8m0fnu, and float8_e8m0fnu into bfloat16 alone */
    if (to.code == DLX_CODE_FLOAT8_E5M2) return f != DLX__PY_CLASS_COMPLEX && f != DLX__PY_CLASS_EXT;
    if (f != DLX__PY_CLASS_EXT) return 1;
    if (to.code == DLX_CODE_FLOAT8_E8M0FNU) return from.code == DLX_CODE_BFLOAT;
    return from.code != DLX_CODE_FLOAT8_E8M0FNU || to.code == DLX_CODE_BFLOAT;
  }
  if (f == DLX__PY_CLASS_EXT) /* out of a narrow format: into float32 and wider, float16 only from float8_e5m2 */
    return t == DLX__PY_CLASS_COMPLEX || (t == DLX__PY_CLASS_FLOAT && (to.bits >= 32 || from.code == DLX_CODE_FLOAT8_E5M2));
  switch (f) {
    case DLX__PY_CLASS_INT: return t == DLX__PY_CLASS_INT || t == DLX__PY_CLASS_FLOAT || t == DLX__PY_CLASS_COMPLEX;
    case DLX__PY_CLASS_UINT: return t != DLX__PY_CLASS_BOOL;
    case DLX__PY_CLASS_FLOAT: return t == DLX__PY_CLASS_FLOAT || t == DLX__PY_CLASS_COMPLEX;
    default: return t == DLX__PY_CLASS_COMPLEX;
  }
}

/* Where the result goes: a new tensor, the given out, or (in place) x itself. */
typedef enum out_mode { OUT_NEW, OUT_GIVEN, OUT_INPLACE } out_mode;

/* Write `result` (dtype rdt, shape already final) into target: directly when the dtypes match. */
static PyObject *finish_into(PyObject *target, PyObject *result) {
  dlx__py_tensor *t = (dlx__py_tensor *)target, *r = (dlx__py_tensor *)result;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(&t->view), dlx_cast(&t->view, &r->view));
  Py_DECREF(result);
  if (st != DLX_OK) return dlx__py_raise_op(st);
  Py_INCREF(target);
  return target;
}

/* x op y with NumPy's dtype rules. Operators pass mode OUT_NEW / OUT_INPLACE and get NotImplemented for
 * operands they do not know; functions (strict) raise TypeError instead. */
static PyObject *binary(dlx_binop op, PyObject *x, PyObject *y, PyObject *out_obj, out_mode mode, int strict) {
  dlx__py_skind kx = dlx__py_is_tensor(x) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(x), ky = dlx__py_is_tensor(y) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(y);
  if (kx != DLX__PY_SCALAR_NONE && ky != DLX__PY_SCALAR_NONE) {
    if (!strict) Py_RETURN_NOTIMPLEMENTED;
    return PyErr_Format(PyExc_TypeError, "dlx.%s: at least one operand must be a tensor", op_names[op]);
  }
  PyObject *tx = NULL, *ty = NULL, *result = NULL, *cx = NULL, *cy = NULL, *out = NULL;
  int unsupported = 0;
  if (kx == DLX__PY_SCALAR_NONE && (tx = dlx__py_as_tensor(x, &unsupported)) == NULL) goto unknown;
  if (ky == DLX__PY_SCALAR_NONE && (ty = dlx__py_as_tensor(y, &unsupported)) == NULL) goto unknown;

  /* comparisons are evaluated as tensor OP scalar, the scalar on the right */
  PyObject *scalar = NULL;
  dlx__py_skind sk = DLX__PY_SCALAR_NONE;
  if (is_comparison(op) && tx == NULL) {
    op = swapped(op);
    tx = ty;
    ty = NULL;
    scalar = x;
    sk = kx;
  } else if (tx == NULL || ty == NULL) {
    scalar = tx == NULL ? x : y;
    sk = tx == NULL ? kx : ky;
  }
  const dlx_view *vx = tx ? &((dlx__py_tensor *)tx)->view : NULL, *vy = ty ? &((dlx__py_tensor *)ty)->view : NULL;

  DLDataType rdt;
  if (vx && vy) {
    if (promote(vx->dtype, vy->dtype, &rdt) != 0) goto done;
  } else {
    rdt = weak_result((vx ? vx : vy)->dtype, sk);
  }
  dlx__py_dtclass rc = dlx__py_dtype_class(rdt);
  if (op == DLX_OP_DIV && (rc == DLX__PY_CLASS_BOOL || rc == DLX__PY_CLASS_INT || rc == DLX__PY_CLASS_UINT)) rdt = DLX_DTYPE_FLOAT64;
  /* operands converted to the computation dtype */
  if (vx && !dlx_dtype_equal(vx->dtype, rdt)) {
    if ((cx = dlx__py_cast_new(vx, rdt)) == NULL) goto done;
    vx = &((dlx__py_tensor *)cx)->view;
  }
  if (vy && !dlx_dtype_equal(vy->dtype, rdt)) {
    if ((cy = dlx__py_cast_new(vy, rdt)) == NULL) goto done;
    vy = &((dlx__py_tensor *)cy)->view;
  }
  dlx_view sv;
  dlx_scalar_buf sbuf;
  int const_result = -1; /* 0 / 1: a comparison decided by an int outside the dtype's range */
  if (scalar) {
    int sign = 0, r = dlx__py_scalar_view(scalar, sk, rdt, &sv, &sbuf, &sign);
    if (r < 0) goto done;
    if (r > 0) {
      if (!is_comparison(op)) {
        dlx__py_int_out_of_bounds(scalar, rdt);
        goto done;
      }
      const_result = out_of_range_comparison(op, sign);
      /* a stand-in of the right dtype, for the shape logic below (its value is never used) */
      dlx_status st = dlx_scalar_view_int(&sv, &sbuf, rdt, 0);
      if (st != DLX_OK) {
        dlx__py_raise_op(st);
        goto done;
      }
    }
    if (vx == NULL) vx = &sv;
    else vy = &sv;
  }

  /* the output: dtype and broadcast shape */
  DLDataType odt = is_comparison(op) ? DLX_DTYPE_BOOL : rdt;
  int32_t nd = 0;
  int64_t shape[DLX_MAX_NDIM];
  {
    int32_t ndims[2] = {vx->ndim, vy->ndim};
    const int64_t *shapes[2] = {vx->shape, vy->shape};
    dlx_status st = dlx_broadcast_shapes(2, ndims, shapes, &nd, shape);
    if (st != DLX_OK) {
      dlx__py_raise_op(st);
      goto done;
    }
  }
  PyObject *target = NULL; /* the tensor the caller's result must end up in (borrowed), if any */
  if (mode == OUT_INPLACE) {
    target = x;
  } else if (mode == OUT_GIVEN) {
    /* a DLPack object (a NumPy array) as out is imported; `out` keeps the import alive */
    if ((out = dlx__py_as_tensor(out_obj, &unsupported)) == NULL) goto done;
    target = out;
  }
  if (target) {
    const dlx_view *tv = &((dlx__py_tensor *)target)->view;
    char a[DLX_DTYPE_NAME_MAX], b[DLX_DTYPE_NAME_MAX];
    if (mode == OUT_GIVEN && !dlx_dtype_equal(tv->dtype, odt)) {
      PyErr_Format(PyExc_ValueError, "dlx.%s: out has dtype %s, but the result is %s", op_names[op],
                   dlx__dtype_text(a, sizeof a, tv->dtype), dlx__dtype_text(b, sizeof b, odt));
      goto done;
    }
    if (mode == OUT_INPLACE && !same_kind_castable(odt, tv->dtype)) {
      PyErr_Format(PyExc_TypeError, "cannot cast the %s result from %s to %s in place (NumPy's same_kind rule)",
                   op_names[op], dlx__dtype_text(a, sizeof a, odt), dlx__dtype_text(b, sizeof b, tv->dtype));
      goto done;
    }
  }
  PyObject *dest; /* the tensor the kernel writes: the target itself when the dtypes agree */
  if (target && dlx_dtype_equal(((dlx__py_tensor *)target)->view.dtype, odt)) {
    dest = target;
    Py_INCREF(dest);
  } else {
    const dlx_view *tv = target ? &((dlx__py_tensor *)target)->view : NULL;
    const dlx_view *like = &((dlx__py_tensor *)(tx ? tx : ty))->view; /* where the op computes */
    dest = tv ? dlx__py_tensor_new_like(like, tv->ndim, tv->shape, odt) : dlx__py_tensor_new_like(like, nd, shape, odt);
    if (dest == NULL) goto done;
  }
  dlx_view *dv = &((dlx__py_tensor *)dest)->view;
  dlx_status st;
  if (const_result >= 0) {
    /* the constant broadcast to the operands' shape, so that the fill checks shapes as a kernel would */
    dlx_view bv;
    dlx_scalar_buf bb;
    st = dlx_scalar_view_int(&bv, &bb, DLX_DTYPE_BOOL, const_result);
    /* (a device output takes the 0-d host constant, which the engine stages; broadcast it is no scalar) */
    if (st == DLX_OK && dlx_device_is_host_accessible(dv->device)) st = dlx_view_broadcast_to(&bv, nd, shape, &bv);
    if (st == DLX_OK) DLX__PY_RUN_OP(st, dlx_view_size(dv), dlx_fill(dv, &bv));
  } else {
    DLX__PY_RUN_OP(st, dlx_view_size(dv), dlx_binary(op, dv, vx, vy));
  }
  if (st != DLX_OK) {
    Py_DECREF(dest);
    dlx__py_raise_op(st);
    goto done;
  }
  if (target == NULL) {
    result = dest;
    goto done;
  }
  if (dest != target) {
    PyObject *r = finish_into(target, dest); /* consumes dest */
    if (r == NULL) goto done;
    Py_DECREF(r);
  } else {
    Py_DECREF(dest);
  }
  /* NumPy returns out (or the in-place operand) itself */
  result = mode == OUT_GIVEN ? out_obj : x;
  Py_INCREF(result);
  goto done;

unknown:
  if (unsupported && !strict) {
    PyErr_Clear();
    result = Py_NotImplemented;
    Py_INCREF(result);
  }
done:
  Py_XDECREF(tx);
  Py_XDECREF(ty);
  Py_XDECREF(cx);
  Py_XDECREF(cy);
  Py_XDECREF(out);
  return result;
}

#define BINARY_SLOTS(name, op)                                                                        \
  static PyObject *nb_##name(PyObject *a, PyObject *b) { return binary(op, a, b, NULL, OUT_NEW, 0); } \
  static PyObject *nb_inplace_##name(PyObject *a, PyObject *b) {                                      \
    return binary(op, a, b, NULL, OUT_INPLACE, 0);                                                    \
  }
BINARY_SLOTS(add, DLX_OP_ADD)
BINARY_SLOTS(subtract, DLX_OP_SUB)
BINARY_SLOTS(multiply, DLX_OP_MUL)
BINARY_SLOTS(true_divide, DLX_OP_DIV)

PyObject *dlx__py_tensor_richcompare(PyObject *self, PyObject *other, int op) {
  static const dlx_binop ops[] = {[Py_LT] = DLX_OP_LT, [Py_LE] = DLX_OP_LE, [Py_EQ] = DLX_OP_EQ,
                                  [Py_NE] = DLX_OP_NE, [Py_GT] = DLX_OP_GT, [Py_GE] = DLX_OP_GE};
  return binary(ops[op], self, other, NULL, OUT_NEW, 0);
}

static PyObject *nb_negative(PyObject *self) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (dlx__py_dtype_class(t->view.dtype) == DLX__PY_CLASS_BOOL)
    return PyErr_Format(PyExc_TypeError, "negation of a bool tensor is not supported (NumPy refuses it too)");
  /* dlx_unary: integers wrap; floats and complex flip the sign bit of each part, NaN, inf and 0 included,
   * as NumPy's negative (x * -1 would turn -(1+inf j) into nan-inf j) */
  PyObject *r = dlx__py_tensor_new_like(&t->view, t->view.ndim, t->view.shape, t->view.dtype);
  if (r == NULL) return NULL;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(&t->view), dlx_unary(DLX_UNOP_NEG, &((dlx__py_tensor *)r)->view, &t->view));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

static PyObject *nb_positive(PyObject *self) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  return dlx__py_cast_new(&t->view, t->view.dtype);
}

static int nb_bool(PyObject *self) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  int64_t n = dlx_view_size(&t->view);
  if (n != 1) {
    PyErr_SetString(PyExc_ValueError, n == 0 ? "the truth value of an empty tensor is ambiguous"
                                             : "the truth value of a tensor with more than one element is ambiguous");
    return -1;
  }
  unsigned char b = 0;
  dlx_view d;
  /* device memory: the element comes to the host first */
  PyObject *h = NULL;
  if (!dlx_device_is_host_accessible(t->view.device) &&
      (h = dlx__py_to_device(self, (DLDevice){kDLCPU, 0}, 1, PyExc_ValueError)) == NULL)
    return -1;
  dlx_status st = dlx_view_init(&d, &b, DLX_DTYPE_BOOL, (DLDevice){kDLCPU, 0}, t->view.ndim, t->view.shape, NULL);
  if (st == DLX_OK) st = dlx_cast(&d, h ? &((dlx__py_tensor *)h)->view : &t->view);
  Py_XDECREF(h);
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    return -1;
  }
  return b != 0;
}

/* ---- matmul ------------------------------------------------------------------------------------- */

static PyObject *matmul(PyObject *x, PyObject *y, PyObject *out_obj, int strict) {
  int unsupported = 0;
  PyObject *tx = dlx__py_as_tensor(x, &unsupported), *ty = NULL, *cx = NULL, *cy = NULL, *out = NULL, *result = NULL;
  if (tx == NULL || (ty = dlx__py_as_tensor(y, &unsupported)) == NULL) {
    if (unsupported && !strict) {
      PyErr_Clear();
      Py_XDECREF(tx);
      Py_RETURN_NOTIMPLEMENTED;
    }
    Py_XDECREF(tx);
    return NULL;
  }
  const dlx_view *a = &((dlx__py_tensor *)tx)->view, *b = &((dlx__py_tensor *)ty)->view;
  DLDataType rdt;
  if (a->ndim != 2 || b->ndim != 2) {
    PyErr_Format(PyExc_ValueError, "matmul: dlx multiplies rank-2 tensors, got ndim %d and %d", a->ndim, b->ndim);
    goto done;
  }
  if (promote(a->dtype, b->dtype, &rdt) != 0) goto done;
  if (!dlx_dtype_equal(a->dtype, rdt)) {
    if ((cx = dlx__py_cast_new(a, rdt)) == NULL) goto done;
    a = &((dlx__py_tensor *)cx)->view;
  }
  if (!dlx_dtype_equal(b->dtype, rdt)) {
    if ((cy = dlx__py_cast_new(b, rdt)) == NULL) goto done;
    b = &((dlx__py_tensor *)cy)->view;
  }
  if (a->shape[1] != b->shape[0]) {
    PyErr_Format(PyExc_ValueError, "matmul: shapes (%lld,%lld) and (%lld,%lld) do not align: %lld != %lld",
                 (long long)a->shape[0], (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1],
                 (long long)a->shape[1], (long long)b->shape[0]);
    goto done;
  }
  if (out_obj && out_obj != Py_None) {
    if ((out = dlx__py_as_tensor(out_obj, &unsupported)) == NULL) goto done;
  } else {
    int64_t shape[2] = {a->shape[0], b->shape[1]};
    if ((out = dlx__py_tensor_new_like(a, 2, shape, rdt)) == NULL) goto done;
  }
  dlx_status st;
  /* the work is m*n*k: worth dropping the GIL much sooner than an elementwise op (in double: no overflow) */
  DLX__PY_RUN_OP(st, (double)a->shape[0] * (double)b->shape[1] * (double)(a->shape[1] + 1),
         dlx_gemm(1, 0, a, b, 0, 0, &((dlx__py_tensor *)out)->view));
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (out_obj && out_obj != Py_None) {
    result = out_obj; /* NumPy returns out itself */
    Py_INCREF(result);
  } else {
    result = out;
    out = NULL;
  }
done:
  Py_XDECREF(tx);
  Py_XDECREF(ty);
  Py_XDECREF(cx);
  Py_XDECREF(cy);
  Py_XDECREF(out);
  return result;
}

static PyObject *nb_matrix_multiply(PyObject *a, PyObject *b) { return matmul(a, b, NULL, 0); }

static PyObject *nb_inplace_matrix_multiply(PyObject *a, PyObject *b) {
  (void)a, (void)b;
  /* NumPy refuses a @= b as well: the result could not reuse a's memory while reading it */
  return PyErr_Format(PyExc_TypeError, "in-place matrix multiplication is not supported; use a = a @ b");
}

PyNumberMethods dlx__py_tensor_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_subtract,
    .nb_multiply = nb_multiply,
    .nb_true_divide = nb_true_divide,
    .nb_inplace_add = nb_inplace_add,
    .nb_inplace_subtract = nb_inplace_subtract,
    .nb_inplace_multiply = nb_inplace_multiply,
    .nb_inplace_true_divide = nb_inplace_true_divide,
    .nb_negative = nb_negative,
    .nb_positive = nb_positive,
    .nb_bool = nb_bool,
    .nb_int = dlx__py_tensor_int,
    .nb_float = dlx__py_tensor_float,
    .nb_index = dlx__py_tensor_index,
    .nb_matrix_multiply = nb_matrix_multiply,
    .nb_inplace_matrix_multiply = nb_inplace_matrix_multiply,
};

/* ---- module functions --------------------------------------------------------------------------- */

/* f(a, b, out=None) for one binop. */
static PyObject *binary_function(dlx_binop op, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"a", "b", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  char fmt[48];
  snprintf(fmt, sizeof fmt, "OO|$O:%s", op_names[op]);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &a, &b, &out)) return NULL;
  return binary(op, a, b, out == Py_None ? NULL : out, out == Py_None ? OUT_NEW : OUT_GIVEN, 1);
}

#define BINARY_FUNCTION(name, op)                                                                     \
  static PyObject *m_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                          \
    (void)m;                                                                                          \
    return binary_function(op, args, kwargs);                                                         \
  }
BINARY_FUNCTION(add, DLX_OP_ADD)
BINARY_FUNCTION(subtract, DLX_OP_SUB)
BINARY_FUNCTION(multiply, DLX_OP_MUL)
BINARY_FUNCTION(divide, DLX_OP_DIV)
BINARY_FUNCTION(less, DLX_OP_LT)
BINARY_FUNCTION(less_equal, DLX_OP_LE)
BINARY_FUNCTION(greater, DLX_OP_GT)
BINARY_FUNCTION(greater_equal, DLX_OP_GE)
BINARY_FUNCTION(equal, DLX_OP_EQ)
BINARY_FUNCTION(not_equal, DLX_OP_NE)

static PyObject *m_matmul(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"a", "b", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O:matmul", kw, &a, &b, &out)) return NULL;
  return matmul(a, b, out, 1);
}

static PyObject *m_fma(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"scalar", "t1", "t2", "out", NULL};
  double scalar;
  PyObject *a, *b, *out_obj = Py_None, *t1 = NULL, *t2 = NULL, *out = NULL, *result = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dOO|$O:fma", kw, &scalar, &a, &b, &out_obj)) return NULL;
  int unsupported;
  if ((t1 = dlx__py_as_tensor(a, &unsupported)) == NULL || (t2 = dlx__py_as_tensor(b, &unsupported)) == NULL) goto done;
  const dlx_view *v1 = &((dlx__py_tensor *)t1)->view, *v2 = &((dlx__py_tensor *)t2)->view;
  if (out_obj != Py_None) {
    if ((out = dlx__py_as_tensor(out_obj, &unsupported)) == NULL) goto done;
  } else {
    int32_t nd, ndims[2] = {v1->ndim, v2->ndim};
    const int64_t *shapes[2] = {v1->shape, v2->shape};
    int64_t shape[DLX_MAX_NDIM];
    dlx_status st = dlx_broadcast_shapes(2, ndims, shapes, &nd, shape);
    if (st != DLX_OK) {
      dlx__py_raise_op(st);
      goto done;
    }
    if ((out = dlx__py_tensor_new_like(v2, nd, shape, v2->dtype)) == NULL) goto done;
  }
  dlx_view *ov = &((dlx__py_tensor *)out)->view;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(ov), dlx_fma(ov, scalar, v1, v2));
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (out_obj != Py_None) {
    result = out_obj;
    Py_INCREF(result);
  } else {
    result = out;
    out = NULL;
  }
done:
  Py_XDECREF(t1);
  Py_XDECREF(t2);
  Py_XDECREF(out);
  return result;
}

static PyObject *m_full(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"shape", "fill_value", "dtype", "device", NULL};
  PyObject *shape_obj, *value, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:full", kw, &shape_obj, &value, &dtype_obj, &device_obj)) return NULL;
  DLDevice device = {kDLCPU, 0};
  if (device_obj != Py_None && dlx__py_parse_device(device_obj, &device) != 0) return NULL;
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = 0;
  if (dlx__py_parse_shape(shape_obj, &nd, shape) != 0) return NULL;
  DLDataType dt;
  if (dtype_obj != Py_None) {
    if (dlx__py_parse_dtype(dtype_obj, &dt) != 0) return NULL;
  } else {
    /* NumPy's default for the value: np.array(fill_value).dtype */
    switch (dlx__py_scalar_kind(value)) {
      case DLX__PY_SCALAR_BOOL: dt = DLX_DTYPE_BOOL; break;
      case DLX__PY_SCALAR_INT: {
        /* int64, else uint64 for [2^63, 2^64) (as np.asarray(2**63)); beyond both NumPy makes an object
         * array, which dlx has not: OverflowError, as NumPy's for the value into any integer dtype */
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (x == -1 && PyErr_Occurred()) return NULL;
        dt = DLX_DTYPE_INT64;
        if (overflow > 0 && !(PyLong_AsUnsignedLongLong(value) == (unsigned long long)-1 && PyErr_Occurred())) {
          dt = DLX_DTYPE_UINT64;
        } else if (overflow != 0) {
          PyErr_Clear();
          return PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for int64 and uint64", value);
        }
        break;
      }
      case DLX__PY_SCALAR_FLOAT: dt = DLX_DTYPE_FLOAT64; break;
      case DLX__PY_SCALAR_COMPLEX: dt = DLX_DTYPE_COMPLEX128; break;
      default: {
        int unsupported;
        PyObject *t = dlx__py_as_tensor(value, &unsupported);
        if (t == NULL) return NULL;
        dt = ((dlx__py_tensor *)t)->view.dtype;
        Py_DECREF(t);
      }
    }
  }
  PyObject *r = dlx__py_tensor_new_on(device, nd, shape, dt, 0);
  if (r != NULL && dlx__py_assign(&((dlx__py_tensor *)r)->view, value) != 0) Py_CLEAR(r);
  return r;
}

static PyObject *m_empty_like(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"x", "dtype", NULL};
  PyObject *x, *dtype_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:empty_like", kw, &x, &dtype_obj)) return NULL;
  int unsupported;
  PyObject *t = dlx__py_as_tensor(x, &unsupported);
  if (t == NULL) return NULL;
  const dlx_view *v = &((dlx__py_tensor *)t)->view;
  DLDataType dt = v->dtype;
  PyObject *r = NULL;
  if (dtype_obj == Py_None || dlx__py_parse_dtype(dtype_obj, &dt) == 0)
    r = dlx__py_tensor_new_like(v, v->ndim, v->shape, dt);
  Py_DECREF(t);
  return r;
}

static PyObject *m_set_num_threads(PyObject *m, PyObject *arg) {
  (void)m;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  dlx_set_num_threads(n > INT32_MAX ? INT32_MAX : n < INT32_MIN ? 0 : (int)n);
  Py_RETURN_NONE;
}

static PyObject *m_get_num_threads(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return PyLong_FromLong(dlx_get_num_threads());
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef dlx__py_ops_methods[] = {
    {"add", FN(m_add), KW, "add(a, b, *, out=None) -> Tensor: a + b with NumPy's dtype rules and broadcasting"},
    {"subtract", FN(m_subtract), KW, "subtract(a, b, *, out=None) -> Tensor: a - b"},
    {"multiply", FN(m_multiply), KW, "multiply(a, b, *, out=None) -> Tensor: a * b"},
    {"divide", FN(m_divide), KW, "divide(a, b, *, out=None) -> Tensor: a / b (true division; ints give float64)"},
    {"less", FN(m_less), KW, "less(a, b, *, out=None) -> bool Tensor"},
    {"less_equal", FN(m_less_equal), KW, "less_equal(a, b, *, out=None) -> bool Tensor"},
    {"greater", FN(m_greater), KW, "greater(a, b, *, out=None) -> bool Tensor"},
    {"greater_equal", FN(m_greater_equal), KW, "greater_equal(a, b, *, out=None) -> bool Tensor"},
    {"equal", FN(m_equal), KW, "equal(a, b, *, out=None) -> bool Tensor"},
    {"not_equal", FN(m_not_equal), KW, "not_equal(a, b, *, out=None) -> bool Tensor"},
    {"matmul", FN(m_matmul), KW, "matmul(a, b, *, out=None) -> Tensor: rank-2 a @ b through CBLAS"},
    {"fma", FN(m_fma), KW, "fma(scalar, t1, t2, *, out=None) -> Tensor: scalar * t1 + t2 (augpy's fma)"},
    {"full", FN(m_full), KW, "full(shape, fill_value, dtype=None, device=None) -> Tensor"},
    {"empty_like", FN(m_empty_like), KW, "empty_like(x, dtype=None) -> Tensor (uninitialised, C-contiguous)"},
    {"set_num_threads", m_set_num_threads, METH_O, "set_num_threads(n): threads for large ops (n <= 0: default)"},
    {"get_num_threads", m_get_num_threads, METH_NOARGS, "get_num_threads() -> int"},
    {NULL, NULL, 0, NULL},
};

/* dtypes in the Python module: the one parser of dtype arguments (dlx__py_parse_dtype), and NumPy 2's
 * dtype rules that the ops follow (ml_dtypes' for bfloat16 and the float8 formats): the dtype classes, the
 * promotion of two dtypes, a tensor's dtype with a weak Python scalar, and the casts an in-place op may
 * make (same_kind). */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>

#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"

/* ---- dtype classes and promotion ---------------------------------------------------------------- */

dlx__py_dtclass dlx__py_dtype_class(DLDataType dt) {
  if (dt.lanes != 1) return DLX__PY_CLASS_OTHER;
  switch (dt.code) {
    case DLX_CODE_BOOL: return DLX__PY_CLASS_BOOL;
    case DLX_CODE_INT: return dt.bits <= 64 ? DLX__PY_CLASS_INT : DLX__PY_CLASS_OTHER;
    /* uint128: no NumPy promotion */
    case DLX_CODE_UINT: return dt.bits <= 64 ? DLX__PY_CLASS_UINT : DLX__PY_CLASS_OTHER;
    case DLX_CODE_FLOAT: return dt.bits >= 16 && dt.bits <= 64 ? DLX__PY_CLASS_FLOAT : DLX__PY_CLASS_OTHER;
    case DLX_CODE_COMPLEX: return dt.bits == 64 || dt.bits == 128 ? DLX__PY_CLASS_COMPLEX : DLX__PY_CLASS_OTHER;
    case DLX_CODE_BFLOAT: return DLX__PY_CLASS_EXT;
    default:
      return dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT8_E8M0FNU ? DLX__PY_CLASS_EXT
                                                                                   : DLX__PY_CLASS_OTHER;
  }
}

static DLDataType float_of(int bits) { return DLX_DTYPE_MAKE(DLX_CODE_FLOAT, bits, 1); }
static DLDataType complex_of(int float_bits) { return DLX_DTYPE_MAKE(DLX_CODE_COMPLEX, 2 * float_bits, 1); }
static int max_i(int a, int b) { return a > b ? a : b; }

/* The narrowest float holding every value of an integer of `bits` bits, as NumPy pairs them. */
static int float_bits_for_int(int bits) { return bits <= 8 ? 16 : bits <= 16 ? 32 : 64; }

/* NumPy's result_type for two dtypes (ml_dtypes' for bfloat16 / float8). 0, or -1 with TypeError. */
int dlx__py_promote(DLDataType a, DLDataType b, DLDataType *out) {
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
DLDataType dlx__py_weak_result(DLDataType t, dlx__py_skind s) {
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

/* Whether an in-place op may cast its result (dtype `from`) back into the target (dtype `to`): NumPy's
 * np.can_cast(from, to, casting="same_kind"). bool < signed int < float < complex, unsigned ints cast
 * into signed ints but not the other way (uint8 += int8 computes int16, which NumPy refuses to cast
 * into uint8), and any cast within a kind is allowed (int32 += int64). bfloat16 and the float8 formats
 * follow the casts ml_dtypes registers with NumPy, which are not a plain kind order; test_ops.py checks
 * every pair against np.can_cast. */
int dlx__py_same_kind_castable(DLDataType from, DLDataType to) {
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
    return t == DLX__PY_CLASS_COMPLEX ||
           (t == DLX__PY_CLASS_FLOAT && (to.bits >= 32 || from.code == DLX_CODE_FLOAT8_E5M2));
  switch (f) {
    case DLX__PY_CLASS_INT: return t == DLX__PY_CLASS_INT || t == DLX__PY_CLASS_FLOAT || t == DLX__PY_CLASS_COMPLEX;
    case DLX__PY_CLASS_UINT: return t != DLX__PY_CLASS_BOOL;
    case DLX__PY_CLASS_FLOAT: return t == DLX__PY_CLASS_FLOAT || t == DLX__PY_CLASS_COMPLEX;
    default: return t == DLX__PY_CLASS_COMPLEX;
  }
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

int dlx__py_float_has_int(double d) {
  if (isnan(d)) {
    PyErr_SetString(PyExc_ValueError, "cannot convert float NaN to integer");
    return -1;
  }
  if (isinf(d)) {
    PyErr_SetString(PyExc_OverflowError, "cannot convert float infinity to integer");
    return -1;
  }
  return 0;
}

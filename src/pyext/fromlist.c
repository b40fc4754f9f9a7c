/* dlx.asarray of Python scalars and nested lists / tuples of them (create.c's asarray calls it): NumPy 2's
 * dtype inference, or NumPy's setitem rules into a given dtype. The way back is tolist (tolist.c). */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"

typedef struct seq_scan {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  int has_bool, has_int64, has_uint64, has_float, has_complex;
  PyObject *too_big; /* an int outside [-2^63, 2^64) (a reference) */
} seq_scan;

/* What nests: lists, tuples and ranges (NumPy takes any sequence; dlx only these, so that a str, an
 * array or a tensor among the scalars is an error, not a dimension). */
int dlx__py_is_nested(PyObject *o) { return PyList_Check(o) || PyTuple_Check(o) || PyRange_Check(o); }

static int ragged(int32_t d) {
  PyErr_Format(PyExc_ValueError, "dlx.asarray: inhomogeneous nested sequence: its lengths or depths differ after %d "
               "dimension(s) (NumPy refuses it too)", d);
  return -1;
}

/* The shape, from the first element at each depth. */
static int discover_shape(PyObject *o, seq_scan *s) {
  Py_INCREF(o);
  while (dlx__py_is_nested(o)) {
    if (s->ndim == DLX_MAX_NDIM) {
      Py_DECREF(o);
      PyErr_Format(PyExc_ValueError, "dlx.asarray: sequences nested more than %d deep", DLX_MAX_NDIM);
      return -1;
    }
    Py_ssize_t n = PySequence_Size(o);
    PyObject *first = n > 0 ? PySequence_GetItem(o, 0) : NULL;
    Py_DECREF(o);
    if (n < 0 || (n > 0 && first == NULL)) return -1;
    s->shape[s->ndim++] = n;
    if (n == 0) return 0;
    o = first;
  }
  Py_DECREF(o);
  return 0;
}

static int classify(PyObject *o, seq_scan *s) {
  if (PyBool_Check(o)) {
    s->has_bool = 1;
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow == 0) {
      s->has_int64 = 1;
    } else if (overflow > 0 && !(PyLong_AsUnsignedLongLong(o) == (unsigned long long)-1 && PyErr_Occurred())) {
      s->has_uint64 = 1;
    } else {
      PyErr_Clear();
      if (s->too_big == NULL) {
        Py_INCREF(o);
        s->too_big = o;
      }
    }
  } else if (PyFloat_Check(o)) {
    s->has_float = 1;
  } else if (PyComplex_Check(o)) {
    s->has_complex = 1;
  } else {
    PyErr_Format(PyExc_TypeError, "dlx.asarray: expected bool, int, float, complex, or lists / tuples of them, not "
                 "%.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  return 0;
}

/* Checks that o is rectangular with s's shape, and notes its scalars' kinds. */
static int scan(PyObject *o, int32_t d, seq_scan *s) {
  if (d == s->ndim) return dlx__py_is_nested(o) ? ragged(d) : classify(o, s);
  if (!dlx__py_is_nested(o)) return ragged(d);
  PyObject *fast = PySequence_Fast(o, "dlx.asarray");
  if (fast == NULL) return -1;
  int r = PySequence_Fast_GET_SIZE(fast) == s->shape[d] ? 0 : ragged(d);
  for (Py_ssize_t i = 0; r == 0 && i < PySequence_Fast_GET_SIZE(fast); ++i)
    r = scan(PySequence_Fast_GET_ITEM(fast, i), d + 1, s);
  Py_DECREF(fast);
  return r;
}

typedef struct fill_ctx {
  DLDataType dt; /* the buffer's: bool, an integer of <= 64 bits, float64 or complex128 */
  unsigned char *p;
} fill_ctx;

/* o (bool, int or float) into an integer dtype, as NumPy's setitem: floats truncated, NaN ValueError,
 * infinity and values out of range OverflowError. */
static int put_int(PyObject *o, const fill_ctx *f) {
  PyObject *num = NULL;
  if (PyFloat_Check(o)) {
    double d = PyFloat_AS_DOUBLE(o);
    if (dlx__py_float_has_int(d) != 0) return -1;
    if ((num = PyLong_FromDouble(d)) == NULL) return -1;
    o = num;
  } /* else a bool or an int: scan saw nothing else, and the integer conversions run no Python code */
  const int bits = f->dt.bits, is_signed = f->dt.code == DLX_CODE_INT;
  int overflow = 0, ok;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  uint64_t u = (uint64_t)x;
  if (x == -1 && PyErr_Occurred()) {
    Py_XDECREF(num);
    return -1;
  }
  if (overflow == 0) {
    const long long max = bits == 64 ? INT64_MAX : (1LL << (bits - is_signed)) - 1;
    ok = is_signed ? (x >= -max - 1 && x <= max) : (x >= 0 && (bits == 64 || x <= max));
  } else {
    ok = overflow > 0 && !is_signed && bits == 64;
    if (ok && (u = PyLong_AsUnsignedLongLong(o)) == (uint64_t)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      ok = 0;
    }
  }
  if (!ok) dlx__py_int_out_of_bounds(o, f->dt);
  Py_XDECREF(num);
  if (!ok) return -1;
  /* two's complement: the low bytes of x are the value in every width */
  switch (bits) {
    case 8: { uint8_t w = (uint8_t)u; memcpy(f->p, &w, 1); break; }
    case 16: { uint16_t w = (uint16_t)u; memcpy(f->p, &w, 2); break; }
    case 32: { uint32_t w = (uint32_t)u; memcpy(f->p, &w, 4); break; }
    default: memcpy(f->p, &u, 8); break;
  }
  return 0;
}

/* One scalar into the buffer at f->p (which then moves on). */
static int put(PyObject *o, fill_ctx *f) {
  char name[DLX_DTYPE_NAME_MAX];
  if (f->dt.code == DLX_CODE_BOOL) {
    int b = PyObject_IsTrue(o); /* NumPy's bool of a number: NaN and 0j + 1 are True */
    if (b < 0) return -1;
    *f->p = (unsigned char)b;
  } else if (f->dt.code == DLX_CODE_INT || f->dt.code == DLX_CODE_UINT) {
    if (PyComplex_Check(o)) goto complex_to_real;
    if (put_int(o, f) != 0) return -1;
  } else {
    Py_complex z = {0.0, 0.0};
    if (PyComplex_Check(o)) {
      if (f->dt.code != DLX_CODE_COMPLEX) goto complex_to_real;
      z = PyComplex_AsCComplex(o);
    } else {
      /* ints through double, as NumPy converts them (OverflowError past float64's range) */
      z.real = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
      if (z.real == -1.0 && PyErr_Occurred()) return -1;
    }
    memcpy(f->p, &z, f->dt.code == DLX_CODE_COMPLEX ? 16 : 8);
  }
  f->p += dlx_dtype_itemsize(f->dt);
  return 0;
complex_to_real:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: cannot convert complex to %s", dlx__dtype_text(name, sizeof name, f->dt));
  return -1;
}

/* Writes o's scalars in C order. The shape is checked again: converting a scalar may run Python code
 * (a float subclass's __bool__) that changes the lists. */
static int fill(PyObject *o, int32_t d, const seq_scan *s, fill_ctx *f) {
  if (d == s->ndim) {
    if (dlx__py_is_nested(o)) return ragged(d);
    Py_INCREF(o);
    int r = put(o, f);
    Py_DECREF(o);
    return r;
  }
  if (!dlx__py_is_nested(o)) return ragged(d);
  PyObject *fast = PySequence_Fast(o, "dlx.asarray");
  if (fast == NULL) return -1;
  int r = 0;
  for (Py_ssize_t i = 0; r == 0 && i < s->shape[d]; ++i) {
    if (PySequence_Fast_GET_SIZE(fast) != s->shape[d]) {
      r = ragged(d);
      break;
    }
    PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
    Py_INCREF(item);
    r = fill(item, d + 1, s, f);
    Py_DECREF(item);
  }
  Py_DECREF(fast);
  return r;
}

/* A new tensor of Python scalars or nested lists / tuples of them: NumPy 2's dtype (bool < int64 <
 * uint64 < float64 < complex128, int64 with uint64 is float64) or, given one, NumPy's setitem rules into
 * want: ints range-checked, floats truncated into integers, complex refused by real dtypes but bool. */
PyObject *dlx__py_from_scalars(PyObject *obj, const DLDataType *want) {
  seq_scan s;
  memset(&s, 0, sizeof s);
  PyObject *t = NULL;
  char name[DLX_DTYPE_NAME_MAX];
  if (discover_shape(obj, &s) != 0 || scan(obj, 0, &s) != 0) goto done;
  DLDataType buf, out;
  if (want == NULL) {
    if (s.too_big != NULL) { /* where NumPy would make an object array */
      PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for int64 and uint64", s.too_big);
      goto done;
    }
    out = s.has_complex                   ? DLX_DTYPE_COMPLEX128
          : s.has_float                   ? DLX_DTYPE_FLOAT64
          : s.has_int64 && s.has_uint64   ? DLX_DTYPE_FLOAT64
          : s.has_uint64                  ? DLX_DTYPE_UINT64
          : s.has_int64                   ? DLX_DTYPE_INT64
          : s.has_bool                    ? DLX_DTYPE_BOOL
                                          : DLX_DTYPE_FLOAT64; /* empty: NumPy's default */
    buf = out;
  } else {
    out = *want;
    const int code = out.code;
    if (out.lanes != 1) goto unsupported;
    if (code == DLX_CODE_BOOL || ((code == DLX_CODE_INT || code == DLX_CODE_UINT) && out.bits <= 64)) buf = out;
    else if ((code == DLX_CODE_FLOAT && out.bits <= 64) || dlx__py_is_narrow_float(out)) buf = DLX_DTYPE_FLOAT64;
    else if (code == DLX_CODE_COMPLEX && out.bits >= 64) buf = DLX_DTYPE_COMPLEX128;
    else goto unsupported;
  }
  if ((t = dlx__py_tensor_new_owned(s.ndim, s.shape, buf, 0)) == NULL) goto done;
  fill_ctx f = {buf, ((dlx__py_tensor *)t)->view.data};
  if (fill(obj, 0, &s, &f) != 0) {
    Py_CLEAR(t);
    goto done;
  }
  if (!dlx_dtype_equal(buf, out)) Py_SETREF(t, dlx__py_cast_new(&((dlx__py_tensor *)t)->view, out));
  goto done;
unsupported:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: Python scalars do not convert to %s",
               dlx__dtype_text(name, sizeof name, *want));
done:
  Py_XDECREF(s.too_big);
  return t;
}

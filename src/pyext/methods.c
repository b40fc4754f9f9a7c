/* dlx.Tensor assignment (dst[...] = value, which indexing, fill_ and copy_ share) and the shape and copy
 * methods: fill_, copy_, reshape, permute, transpose, T, astype, view. Indexing is index.c's; the dtype
 * rules are dtype.c's. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

/* ---- assignment -------------------------------------------------------------------------------- */

/* dst[...] = value: a Python scalar (NumPy's conversions: ints range-checked, floats truncated into
 * integer dtypes), or any tensor-like object broadcast and cast to dst's dtype. */
int dlx__py_assign(const dlx_view *dst, PyObject *value) {
  dlx__py_skind k = dlx__py_is_tensor(value) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(value);
  dlx_status st;
  char b[DLX_DTYPE_NAME_MAX];
  if (k != DLX__PY_SCALAR_NONE) {
    dlx_view sv;
    dlx_scalar_buf sbuf;
    dlx__py_dtclass c = dlx__py_dtype_class(dst->dtype);
    int sign = 0, r;
    /* NumPy stores a complex number's truth into bool, and refuses it for every other real dtype */
    if (k == DLX__PY_SCALAR_COMPLEX && c != DLX__PY_CLASS_COMPLEX && c != DLX__PY_CLASS_BOOL) {
      PyErr_Format(PyExc_TypeError, "cannot assign a complex number to a %s tensor", dlx__dtype_text(b, sizeof b, dst->dtype));
      return -1;
    }
    if (k == DLX__PY_SCALAR_FLOAT && (c == DLX__PY_CLASS_INT || c == DLX__PY_CLASS_UINT)) {
      double d = PyFloat_AsDouble(value);
      if (dlx__py_float_has_int(d) != 0) return -1;
      /* through float64 and the cast rules: truncation toward zero, as NumPy's setitem */
      st = dlx_scalar_view(&sv, &sbuf, DLX_DTYPE_FLOAT64, d, 0.0);
      if (st == DLX_OK) DLX__PY_RUN_OP(st, dlx_view_size(dst), dlx_cast(dst, &sv));
      if (st != DLX_OK) dlx__py_raise_op(st);
      return st == DLX_OK ? 0 : -1;
    }
    r = dlx__py_scalar_view(value, k, dst->dtype, &sv, &sbuf, &sign);
    if (r < 0) return -1;
    if (r > 0) {
      dlx__py_int_out_of_bounds(value, dst->dtype);
      return -1;
    }
    DLX__PY_RUN_OP(st, dlx_view_size(dst), dlx_fill(dst, &sv));
    if (st != DLX_OK) dlx__py_raise_op(st);
    return st == DLX_OK ? 0 : -1;
  }
  int unsupported = 0;
  PyObject *src = dlx__py_as_tensor(value, &unsupported);
  if (src == NULL) return -1;
  const dlx_view *sv = &((dlx__py_tensor *)src)->view;
  if (dlx_dtype_equal(sv->dtype, dst->dtype)) {
    DLX__PY_RUN_OP(st, dlx_view_size(dst), dlx_copy(dst, sv));
  } else {
    DLX__PY_RUN_OP(st, dlx_view_size(dst), dlx_cast(dst, sv));
  }
  Py_DECREF(src);
  if (st != DLX_OK) dlx__py_raise_op(st);
  return st == DLX_OK ? 0 : -1;
}

/* ---- methods ------------------------------------------------------------------------------------ */

PyObject *dlx__py_tensor_fill_(PyObject *self, PyObject *value) {
  if (dlx__py_assign(&((dlx__py_tensor *)self)->view, value) != 0) return NULL;
  Py_INCREF(self);
  return self;
}

PyObject *dlx__py_tensor_copy_(PyObject *self, PyObject *src) {
  if (dlx__py_scalar_kind(src) != DLX__PY_SCALAR_NONE && !dlx__py_is_tensor(src))
    return PyErr_Format(PyExc_TypeError, "copy_() takes a tensor-like object, not %.100s", Py_TYPE(src)->tp_name);
  if (dlx__py_assign(&((dlx__py_tensor *)self)->view, src) != 0) return NULL;
  Py_INCREF(self);
  return self;
}

/* One size or axis: anything with __index__ (numpy.int64 as well as int) but a bool, which NumPy
 * refuses there too. Outside int64 is ValueError, as NumPy's "maximum allowed dimension exceeded". */
static int parse_int_item(PyObject *o, const char *what, int64_t *val) {
  if (PyBool_Check(o) || !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: expected ints, got %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  PyObject *i = PyNumber_Index(o);
  if (i == NULL) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  if (overflow != 0) PyErr_Format(PyExc_ValueError, "%s: %S is outside the range of int64", what, i);
  Py_DECREF(i);
  if (PyErr_Occurred()) return -1;
  *val = v;
  return 0;
}

/* Integers from f(*args) or f(seq): reshape(2, 3) and reshape((2, 3)) alike. One argument is one int
 * when it converts to one (an int, numpy.int64, a 0-d integer array), else the sequence (a tuple, a
 * list, a NumPy array). -1 + exception. */
static int parse_int_args(PyObject *args, const char *what, int64_t *vals, int32_t *n) {
  PyObject *seq = args;
  if (PyTuple_GET_SIZE(args) == 1) {
    PyObject *one = PyTuple_GET_ITEM(args, 0);
    if (!PyIndex_Check(one)) {
      seq = one;
    } else if (!PyLong_Check(one)) {
      /* an object with __index__ may still be a sequence (a NumPy array's __index__ refuses all but 0-d) */
      PyObject *i = PyNumber_Index(one);
      if (i == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
        seq = one;
      }
      Py_XDECREF(i);
    }
  }
  PyObject *fast = PySequence_Fast(seq, "");
  if (fast == NULL) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s: expected ints or one sequence of ints, got %.100s", what,
                   Py_TYPE(seq)->tp_name);
    }
    return -1;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
  if (len > DLX_MAX_NDIM) {
    Py_DECREF(fast);
    PyErr_Format(PyExc_ValueError, "%s: %zd values; at most %d dimensions are allowed", what, len, DLX_MAX_NDIM);
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; ++i) {
    if (parse_int_item(PySequence_Fast_GET_ITEM(fast, i), what, &vals[i]) != 0) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  *n = (int32_t)len;
  return 0;
}

int dlx__py_parse_shape(PyObject *obj, int32_t *ndim, int64_t *shape) {
  PyObject *args = PyTuple_Pack(1, obj);
  if (args == NULL) return -1;
  int r = parse_int_args(args, "shape", shape, ndim);
  Py_DECREF(args);
  return r;
}

PyObject *dlx__py_tensor_reshape(PyObject *self, PyObject *args) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  int64_t shape[DLX_MAX_NDIM];
  int32_t n = 0;
  if (parse_int_args(args, "reshape", shape, &n) != 0) return NULL;
  dlx_view v;
  dlx_status st = dlx_view_reshape(&t->view, n, shape, &v);
  if (st == DLX_OK) return dlx__py_wrap_view(t, &v);
  if (st != DLX_ERR_LAYOUT_MISMATCH) return dlx__py_raise_op(st);
  /* no view has these strides: copy compactly first, as NumPy's reshape does */
  dlx__storage *s;
  dlx_view c;
  if (dlx__py_copy_compact(&t->view, PyExc_ValueError, &s, &c) != 0) return NULL;
  c.flags = t->view.flags & ~(uint32_t)DLX_VIEW_READ_ONLY;
  st = dlx_view_reshape(&c, n, shape, &v);
  if (st != DLX_OK) {
    dlx__storage_release(s);
    return dlx__py_raise_op(st);
  }
  return dlx__py_tensor_wrap(s, &v, 0);
}

static PyObject *permute_impl(dlx__py_tensor *t, const int64_t *dims, int32_t n) {
  if (n != t->view.ndim)
    return PyErr_Format(PyExc_ValueError, "permute: %d axes given for a tensor of ndim %d", n, t->view.ndim);
  int32_t perm[DLX_MAX_NDIM];
  for (int32_t i = 0; i < n; ++i) {
    int64_t d = dims[i] < 0 ? dims[i] + n : dims[i];
    if (d < 0 || d >= n)
      return PyErr_Format(PyExc_ValueError, "permute: axis %lld is out of range for ndim %d", (long long)dims[i], n);
    perm[i] = (int32_t)d;
  }
  dlx_view v;
  dlx_status st = dlx_view_permute(&t->view, perm, &v);
  if (st != DLX_OK) return dlx__py_raise_op(st);
  return dlx__py_wrap_view(t, &v);
}

PyObject *dlx__py_tensor_permute(PyObject *self, PyObject *args) {
  int64_t dims[DLX_MAX_NDIM];
  int32_t n = 0;
  if (parse_int_args(args, "permute", dims, &n) != 0) return NULL;
  return permute_impl((dlx__py_tensor *)self, dims, n);
}

PyObject *dlx__py_tensor_transpose(PyObject *self, PyObject *args) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (PyTuple_GET_SIZE(args) == 0 ||
      (PyTuple_GET_SIZE(args) == 1 && PyTuple_GET_ITEM(args, 0) == Py_None)) {
    dlx_view v;
    dlx_status st = dlx_view_transpose(&t->view, &v);
    if (st != DLX_OK) return dlx__py_raise_op(st);
    return dlx__py_wrap_view(t, &v);
  }
  return dlx__py_tensor_permute(self, args);
}

PyObject *dlx__py_tensor_T(PyObject *self, void *closure) {
  (void)closure;
  PyObject *args = PyTuple_New(0);
  if (args == NULL) return NULL;
  PyObject *r = dlx__py_tensor_transpose(self, args);
  Py_DECREF(args);
  return r;
}

PyObject *dlx__py_tensor_astype(PyObject *self, PyObject *dtype) {
  DLDataType dt;
  if (dlx__py_parse_dtype(dtype, &dt) != 0) return NULL;
  return dlx__py_cast_new(&((dlx__py_tensor *)self)->view, dt);
}

PyObject *dlx__py_tensor_view(PyObject *self, PyObject *dtype) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  DLDataType dt;
  if (dlx__py_parse_dtype(dtype, &dt) != 0) return NULL;
  char a[DLX_DTYPE_NAME_MAX], b[DLX_DTYPE_NAME_MAX];
  size_t from = dlx_dtype_itemsize(t->view.dtype), to = dlx_dtype_itemsize(dt);
  if (from != to || dlx_dtype_is_subbyte(dt) || dlx_dtype_is_subbyte(t->view.dtype))
    return PyErr_Format(PyExc_ValueError,
                        "view: %s (%zu bytes) and %s (%zu bytes) differ in size; dlx reinterprets only whole "
                        "elements of equal size",
                        dlx__dtype_text(a, sizeof a, t->view.dtype), from, dlx__dtype_text(b, sizeof b, dt), to);
  dlx_view v = t->view;
  v.dtype = dt;
  /* the new dtype may want more alignment than the address has (complex64 -> int64) */
  uint32_t align = (uint32_t)dlx_dtype_alignment(dt);
  uintptr_t addr = (uintptr_t)v.data;
  while (addr && align > 1 && addr % align) align /= 2;
  return dlx__py_tensor_wrap(dlx__storage_retain(t->storage), &v, align);
}

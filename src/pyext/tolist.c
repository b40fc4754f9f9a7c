/* dlx.Tensor as Python values: tolist(), item(), and float() / int() / complex() / operator.index() of a
 * one-element tensor. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- tolist --------------------------------------------------------------------------------------- */

/* A 128-bit integer (two's complement when signed) as a Python int. */
static PyObject *int128_to_py(const unsigned char *p, int is_signed) {
  uint64_t w[2];
  memcpy(w, p, 16);
  const uint64_t lo = w[PY_LITTLE_ENDIAN ? 0 : 1], hi = w[PY_LITTLE_ENDIAN ? 1 : 0];
  PyObject *h = is_signed ? PyLong_FromLongLong((long long)hi) : PyLong_FromUnsignedLongLong(hi);
  PyObject *l = PyLong_FromUnsignedLongLong(lo), *sixty_four = PyLong_FromLong(64), *r = NULL;
  if (h != NULL && l != NULL && sixty_four != NULL) {
    /* (hi << 64) has 64 zero low bits, so or-ing lo in adds it, for a negative hi as well */
    PyObject *shifted = PyNumber_Lshift(h, sixty_four);
    if (shifted != NULL) r = PyNumber_Or(shifted, l);
    Py_XDECREF(shifted);
  }
  Py_XDECREF(h);
  Py_XDECREF(l);
  Py_XDECREF(sixty_four);
  return r;
}

static PyObject *scalar_to_py(const unsigned char *p, DLDataType dt) {
  switch (dt.code) {
    case DLX_CODE_BOOL: return PyBool_FromLong(*p != 0);
    case DLX_CODE_INT:
    case DLX_CODE_UINT: {
      if (dt.bits == 128) return int128_to_py(p, dt.code == DLX_CODE_INT);
      uint64_t x;
      memcpy(&x, p, 8);
      return dt.code == DLX_CODE_INT ? PyLong_FromLongLong((long long)x) : PyLong_FromUnsignedLongLong(x);
    }
    case DLX_CODE_COMPLEX: {
      double z[2];
      memcpy(z, p, 16);
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    default: {
      double x;
      memcpy(&x, p, 8);
      return PyFloat_FromDouble(x);
    }
  }
}

/* Nested lists of the compact view c, from dimension d on, of the block at p. */
static PyObject *nested_list(const dlx_view *c, int32_t d, const unsigned char *p, size_t block) {
  if (d == c->ndim) return scalar_to_py(p, c->dtype);
  const Py_ssize_t n = (Py_ssize_t)c->shape[d];
  const size_t sub = n ? block / (size_t)n : 0;
  PyObject *list = PyList_New(n);
  for (Py_ssize_t i = 0; list != NULL && i < n; ++i) {
    PyObject *item = nested_list(c, d + 1, p + (size_t)i * sub, sub);
    if (item == NULL) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, item);
  }
  return list;
}

/* tolist(): NumPy's, with the dtype's Python scalars: bool, int, float (float16, bfloat16 and the
 * float8/6/4 formats exactly, through float64), complex. A vector dtype's lanes are the innermost list. */
PyObject *dlx__py_tensor_tolist(PyObject *self, PyObject *unused) {
  (void)unused;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (dlx__py_require_host(t, PyExc_TypeError, "dlx.Tensor.tolist()") != 0) return NULL;
  dlx_view src = t->view;
  src.device = (DLDevice){kDLCPU, 0}; /* host-readable (above): the CPU loops read it, whatever its label */
  char name[DLX_DTYPE_NAME_MAX];
  const uint16_t lanes = src.dtype.lanes;
  if (lanes > 1) {
    if (dlx__py_lanes_share_bytes(src.dtype) || src.ndim == DLX_MAX_NDIM)
      return PyErr_Format(PyExc_TypeError, "dlx.Tensor.tolist(): cannot split %s into lanes here",
                          dlx__dtype_text(name, sizeof name, src.dtype));
    /* lanes as a last dimension of stride 1 (strides count elements, so the others scale by lanes; an
     * extent-1 dimension's stride, which may be anything, is never applied) */
    for (int32_t i = 0; i < src.ndim; ++i) src.strides[i] = src.shape[i] > 1 ? src.strides[i] * lanes : 0;
    src.shape[src.ndim] = lanes;
    src.strides[src.ndim++] = 1;
    src.dtype = dlx__py_one_lane(src.dtype);
  }
  DLDataType to;
  const DLDataType dt = src.dtype;
  switch (dt.code) {
    case DLX_CODE_BOOL: to = DLX_DTYPE_BOOL; break;
    case DLX_CODE_INT: to = dt.bits == 128 ? dt : DLX_DTYPE_INT64; break;
    case DLX_CODE_UINT: to = dt.bits == 128 ? dt : DLX_DTYPE_UINT64; break;
    case DLX_CODE_COMPLEX: to = DLX_DTYPE_COMPLEX128; break;
    case DLX_CODE_OPAQUE_HANDLE:
      return PyErr_Format(PyExc_TypeError, "dlx.Tensor.tolist(): %s has no Python value",
                          dlx__dtype_text(name, sizeof name, dt));
    default: to = DLX_DTYPE_FLOAT64; break; /* the cast refuses float128, which a float cannot hold */
  }
  PyObject *c = dlx__py_tensor_new_owned(src.ndim, src.shape, to, 0);
  if (c == NULL) return NULL;
  dlx_view *cv = &((dlx__py_tensor *)c)->view;
  dlx_status st;
  if (dlx_dtype_equal(to, dt)) DLX__PY_RUN_OP(st, dlx_view_size(&src), dlx_copy(cv, &src));
  else DLX__PY_RUN_OP(st, dlx_view_size(&src), dlx_cast(cv, &src));
  PyObject *r = st == DLX_OK ? nested_list(cv, 0, cv->data, (size_t)dlx_view_size(cv) * dlx_dtype_itemsize(to))
                             : dlx__py_raise_op(st);
  Py_DECREF(c);
  return r;
}

/* ---- item and the scalar conversions --------------------------------------------------------------- */

/* item(): the one element as tolist() gives it, from any memory (device memory is copied to the host). */
PyObject *dlx__py_tensor_item(PyObject *self, PyObject *unused) {
  (void)unused;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  const int64_t n = dlx_view_size(&t->view);
  char name[DLX_DTYPE_NAME_MAX];
  if (n != 1)
    return PyErr_Format(PyExc_TypeError, "only a tensor of one element converts to a Python scalar (this one has "
                        "%lld)", (long long)n);
  if (t->view.dtype.lanes != 1)
    return PyErr_Format(PyExc_TypeError, "an element of %s is a vector, not a Python scalar (tolist() gives its "
                        "lanes)", dlx__dtype_text(name, sizeof name, t->view.dtype));
  const char *usm;
  PyObject *host = NULL;
  if (!dlx__py_host_readable(t, &usm) &&
      (host = dlx__py_to_device(self, (DLDevice){kDLCPU, 0}, 1, PyExc_ValueError)) == NULL)
    return NULL;
  dlx__py_tensor *h = host != NULL ? (dlx__py_tensor *)host : t;
  /* the element as a 0-d view of the same storage: the view's data already points at it */
  dlx_view v = h->view;
  v.ndim = 0;
  PyObject *zero_d = dlx__py_wrap_view(h, &v);
  Py_XDECREF(host);
  if (zero_d == NULL) return NULL;
  PyObject *r = dlx__py_tensor_tolist(zero_d, NULL);
  Py_DECREF(zero_d);
  return r;
}

/* float(t), int(t), complex(t) and operator.index(t): Python's own conversions of item(), as NumPy's
 * scalars convert (int() truncates a float, NaN is ValueError and infinity OverflowError there; a complex
 * is TypeError for float() and int()). __index__ takes integer tensors only (the Array API's rule). */
static PyObject *item_as(PyObject *self, PyObject *(*convert)(PyObject *)) {
  PyObject *x = dlx__py_tensor_item(self, NULL);
  if (x == NULL) return NULL;
  PyObject *r = convert(x);
  Py_DECREF(x);
  return r;
}

static PyObject *to_complex(PyObject *x) { return PyObject_CallOneArg((PyObject *)&PyComplex_Type, x); }

PyObject *dlx__py_tensor_float(PyObject *self) { return item_as(self, PyNumber_Float); }

PyObject *dlx__py_tensor_int(PyObject *self) { return item_as(self, PyNumber_Long); }

PyObject *dlx__py_tensor_index(PyObject *self) {
  const DLDataType dt = ((dlx__py_tensor *)self)->view.dtype;
  if (dt.code != DLX_CODE_INT && dt.code != DLX_CODE_UINT) {
    char name[DLX_DTYPE_NAME_MAX];
    return PyErr_Format(PyExc_TypeError, "only an integer tensor of one element can be an index, not %s",
                        dlx__dtype_text(name, sizeof name, dt));
  }
  return item_as(self, PyNumber_Long);
}

/* bool(t): the element cast to bool where the host reads it (no Python object made: `if t:` in a loop),
 * else the truth of item(): device memory, and the dtypes no cast to bool takes but item() reads (int128,
 * uint128). An empty tensor or one of more elements is ambiguous (ValueError, as NumPy). */
int dlx__py_tensor_bool(PyObject *self) {
  const dlx_view *v = &((dlx__py_tensor *)self)->view;
  const int64_t n = dlx_view_size(v);
  if (n != 1) {
    PyErr_SetString(PyExc_ValueError, n == 0 ? "the truth value of an empty tensor is ambiguous"
                                             : "the truth value of a tensor with more than one element is ambiguous");
    return -1;
  }
  if (dlx_device_is_host_accessible(v->device)) {
    unsigned char b = 0;
    dlx_view d;
    dlx_status st = dlx_view_init(&d, &b, DLX_DTYPE_BOOL, (DLDevice){kDLCPU, 0}, v->ndim, v->shape, NULL);
    if (st == DLX_OK) st = dlx_cast(&d, v);
    if (st == DLX_OK) return b != 0;
    dlx_clear_error();
  }
  PyObject *x = dlx__py_tensor_item(self, NULL);
  if (x == NULL) return -1;
  const int r = PyObject_IsTrue(x);
  Py_DECREF(x);
  return r;
}

PyObject *dlx__py_tensor_complex(PyObject *self, PyObject *unused) {
  (void)unused;
  return item_as(self, to_complex);
}

const char dlx__py_doc_item[] =
    "item($self, /)\n--\n\n"
    "The one element as a Python scalar (bool, int, float or complex, as tolist() gives it), copied\n"
    "from device memory when needed. TypeError unless the tensor has exactly one element.";

const char dlx__py_doc_tolist[] =
    "tolist($self, /)\n--\n\n"
    "Nested lists of Python scalars (bool, int, float, complex), as numpy.ndarray.tolist(); a 0-d\n"
    "tensor gives a scalar. Narrow floats are Python floats holding their exact values.";

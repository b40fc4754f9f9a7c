/* dlx.compress(condition, a, axis=None, out=None): NumPy's compress, the mask gather along one axis with
 * an out= (dlx_mask_gather, which compacts the selected elements in one pass, into out's memory). What
 * NumPy's np.compress on a dlx tensor runs too (the NumPy function protocol finds dlx's function of the
 * same name).
 *
 * NumPy's rules: condition is 1-d; a is flattened (C order) when axis is None; a condition shorter than
 * the axis selects among the first len(condition) entries, a longer one may only hold False past the
 * axis (IndexError for the first True there); out (a dlx tensor) must have the result's shape. Where dlx
 * is stricter: condition must be bool (NumPy takes any dtype as its truth values) and out must have a's
 * dtype (NumPy casts), both TypeError. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

/* o as a tensor (a new reference): dlx tensors as they are, lists as NumPy makes arrays of them, DLPack
 * objects imported; on_host: device memory copied to the host. NULL + exception. */
static PyObject *tensor_of(PyObject *o, int on_host) {
  PyObject *r;
  int unsupported = 0;
  if (dlx__py_is_tensor(o)) Py_INCREF(r = o);
  else if (PyBool_Check(o) || dlx__py_is_nested(o)) r = dlx__py_from_scalars(o, NULL);
  else r = dlx__py_as_tensor(o, &unsupported);
  if (r == NULL && unsupported) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "dlx.compress: cannot make a tensor of %.100s", Py_TYPE(o)->tp_name);
  }
  if (r != NULL && on_host && !dlx_device_is_host_accessible(((dlx__py_tensor *)r)->view.device))
    Py_SETREF(r, dlx__py_to_device(r, (DLDevice){kDLCPU, 0}, -1, PyExc_ValueError));
  return r;
}

/* The condition fitted to an axis of extent ext: a view of its first ext elements when it is longer
 * (-1 + IndexError when one of the rest is true), and *n the entries it selects among. */
static int fit_condition(dlx_view *c, int64_t ext, int axis, int64_t *n) {
  *n = c->shape[0];
  if (*n <= ext) return 0;
  for (int64_t i = ext; i < *n; ++i)
    if (((const unsigned char *)c->data)[i * c->strides[0]] != 0) {
      PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis %d with size %lld", (long long)i, axis,
                   (long long)ext);
      return -1;
    }
  c->shape[0] = *n = ext;
  return 0;
}

/* out as given, checked against the result's shape and dtype, or a new tensor. NULL + exception. */
static PyObject *result(PyObject *out, const dlx_view *a, int32_t nd, const int64_t *shape) {
  if (out == Py_None) return dlx__py_tensor_new_like(a, nd, shape, a->dtype);
  if (!dlx__py_is_tensor(out)) {
    PyErr_Format(PyExc_TypeError, "dlx.compress: out must be a dlx.Tensor, not %.100s", Py_TYPE(out)->tp_name);
    return NULL;
  }
  const dlx_view *o = &((dlx__py_tensor *)out)->view;
  bool same = o->ndim == nd;
  for (int32_t d = 0; same && d < nd; ++d) same = o->shape[d] == shape[d];
  char x[DLX_SHAPE_TEXT_CAP], y[DLX_SHAPE_TEXT_CAP], p[DLX_DTYPE_TEXT_CAP], q[DLX_DTYPE_TEXT_CAP];
  if (!same) {
    PyErr_Format(PyExc_ValueError, "dlx.compress: out has shape %s; the result has shape %s",
                 dlx__shape_text(x, sizeof x, o->ndim, o->shape), dlx__shape_text(y, sizeof y, nd, shape));
    return NULL;
  }
  if (!dlx_dtype_equal(o->dtype, a->dtype)) {
    PyErr_Format(PyExc_TypeError, "dlx.compress: out has dtype %s; the result is %s (dlx does not cast here)",
                 dlx__dtype_text(p, sizeof p, o->dtype), dlx__dtype_text(q, sizeof q, a->dtype));
    return NULL;
  }
  Py_INCREF(out);
  return out;
}

/* The gather of a's view w (the axis first, perm) into r's view permuted alike. NULL + exception. */
static PyObject *gather(PyObject *r, const dlx_view *w, const dlx_view *c, const int32_t *perm) {
  dlx_view o;
  dlx_status st = dlx_view_permute(&((dlx__py_tensor *)r)->view, perm, &o);
  if (st == DLX_OK) DLX__PY_RUN_OP(st, dlx_view_size(w), dlx_mask_gather(&o, w, c));
  if (st == DLX_OK) return r;
  Py_DECREF(r);
  return dlx__py_raise_op(st);
}

static PyObject *compress_views(PyObject *ct, PyObject *at, PyObject *axis_o, PyObject *out) {
  dlx_view c = ((dlx__py_tensor *)ct)->view;
  const dlx_view *a = &((dlx__py_tensor *)at)->view;
  char t[DLX_DTYPE_TEXT_CAP];
  if (c.dtype.code != DLX_CODE_BOOL || c.dtype.lanes != 1)
    return PyErr_Format(PyExc_TypeError, "dlx.compress: condition has dtype %s; it must be bool",
                        dlx__dtype_text(t, sizeof t, c.dtype));
  if (c.ndim != 1) return PyErr_Format(PyExc_ValueError, "dlx.compress: condition must be a 1-d array");
  int axis = 0;
  if (axis_o != Py_None) {
    const long ax = PyLong_AsLong(axis_o);
    if (ax == -1 && PyErr_Occurred()) return NULL;
    if (ax < -a->ndim || ax >= a->ndim) /* NumPy's AxisError is an IndexError too */
      return PyErr_Format(PyExc_IndexError, "axis %ld is out of bounds for array of dimension %d", ax, (int)a->ndim);
    axis = (int)(ax < 0 ? ax + a->ndim : ax);
  }
  int32_t perm[DLX_MAX_NDIM] = {axis};
  for (int32_t d = 0, j = 1; d < a->ndim; ++d)
    if (d != axis) perm[j++] = d;
  dlx_view w;
  dlx_status st = dlx_view_permute(a, perm, &w);
  if (st != DLX_OK) return dlx__py_raise_op(st);
  int64_t n, count = 0;
  if (fit_condition(&c, w.shape[0], axis, &n) != 0) return NULL;
  w.shape[0] = n; /* a shorter condition selects among the first n entries */
  if ((st = dlx_mask_count(&c, &count)) != DLX_OK) return dlx__py_raise_op(st);
  int64_t shape[DLX_MAX_NDIM];
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
  shape[axis] = count;
  PyObject *r = result(out, a, a->ndim, shape);
  return r == NULL ? NULL : gather(r, &w, &c, perm);
}

static PyObject *m_compress(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {"condition", "a", "axis", "out", NULL};
  PyObject *cond_o, *a_o, *axis_o = Py_None, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:compress", kwlist, &cond_o, &a_o, &axis_o, &out)) return NULL;
  PyObject *at = tensor_of(a_o, 0), *ct = at != NULL ? tensor_of(cond_o, 1) : NULL, *r = NULL;
  if (ct != NULL && axis_o == Py_None) { /* flattened in C order: a view where the strides allow */
    PyObject *flat = PyObject_CallMethod(at, "reshape", "(i)", -1);
    if (flat != NULL) r = compress_views(ct, flat, Py_None, out);
    Py_XDECREF(flat);
  } else if (ct != NULL) {
    r = compress_views(ct, at, axis_o, out);
  }
  Py_XDECREF(ct);
  Py_XDECREF(at);
  return r;
}

PyMethodDef dlx__py_index_methods[] = {
    {"compress", (PyCFunction)(void (*)(void))m_compress, METH_VARARGS | METH_KEYWORDS,
     "compress(condition, a, axis=None, out=None) -> Tensor: NumPy's compress (the entries of a along axis, "
     "or of a flattened, where the 1-d bool condition is true), into out when given"},
    {NULL, NULL, 0, NULL},
};

/* New tensors: dlx.empty, zeros, full and asarray, and the allocation every file makes its results with
 * (dlx__py_tensor_new_on, dlx__py_tensor_new_like, dlx__py_tensor_new_owned). asarray dispatches on what it is
 * given: a DLPack object (here), a buffer (buffer.c), Python scalars and nested sequences (fromlist.c). The
 * *_like functions, ones, arange and eye are in create_more.c. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- new tensors ------------------------------------------------------------------------------------- */

PyObject *dlx__py_tensor_new_on(DLDevice device, const void *like, int32_t ndim, const int64_t *shape, DLDataType dt,
                                int zero) {
  dlx_view v;
  /* a placeholder data pointer until the size is known and the memory allocated */
  dlx_status st = dlx_view_init(&v, &v, dt, (DLDevice){kDLCPU, 0}, ndim, shape, NULL);
  uint64_t nbytes = 0;
  if (st == DLX_OK) st = dlx_dtype_storage_bytes(dt, (uint64_t)dlx_view_size(&v), false, &nbytes);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  dlx__storage *s = dlx__py_storage_alloc(device, like, nbytes, zero);
  if (s == NULL) return NULL;
  v.data = s->ptr;
  v.device = device;
  return dlx__py_tensor_wrap(s, &v, 0);
}

static PyObject *tensor_new_on(DLDevice device, int32_t ndim, const int64_t *shape, DLDataType dt, int zero) {
  return dlx__py_tensor_new_on(device, NULL, ndim, shape, dt, zero);
}

PyObject *dlx__py_tensor_new_like(const dlx_view *like, int32_t ndim, const int64_t *shape, DLDataType dt) {
  return dlx__py_tensor_new_on(dlx__py_home(like->device), like->data, ndim, shape, dt, 0);
}

PyObject *dlx__py_tensor_new_owned(int32_t ndim, const int64_t *shape, DLDataType dt, int zero) {
  /* the core's allocator: 64-byte aligned, transparent huge pages for large blocks */
  return tensor_new_on((DLDevice){kDLCPU, 0}, ndim, shape, dt, zero);
}

/* ---- dlx.empty, zeros, full --------------------------------------------------------------------------- */

static PyObject *make_owned(PyObject *args, PyObject *kwargs, int zero, const char *fname) {
  static char *kw[] = {"shape", "dtype", "device", NULL};
  PyObject *shape_obj, *dtype_obj = Py_None, *device_obj = Py_None;
  char fmt[32];
  snprintf(fmt, sizeof fmt, "O|OO:%s", fname);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &shape_obj, &dtype_obj, &device_obj)) return NULL;
  DLDevice device = {kDLCPU, 0};
  if (device_obj != Py_None && dlx__py_parse_device(device_obj, &device) != 0) return NULL;
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  if (dlx__py_parse_shape(shape_obj, &ndim, shape) != 0) return NULL;
  DLDataType dt = DLX_DTYPE_FLOAT32; /* dtype=None: dlx's default, float32 */
  if (dtype_obj != Py_None && dlx__py_parse_dtype(dtype_obj, &dt) != 0) return NULL;
  return tensor_new_on(device, ndim, shape, dt, zero);
}

static PyObject *m_empty(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return make_owned(args, kwargs, 0, "empty");
}
static PyObject *m_zeros(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return make_owned(args, kwargs, 1, "zeros");
}

static PyObject *m_full(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"shape", "fill_value", "dtype", "device", NULL};
  PyObject *shape_obj, *value, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:full", kw, &shape_obj, &value, &dtype_obj, &device_obj))
    return NULL;
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
  PyObject *r = tensor_new_on(device, nd, shape, dt, 0);
  if (r != NULL && dlx__py_assign(&((dlx__py_tensor *)r)->view, value) != 0) Py_CLEAR(r);
  return r;
}

/* ---- dlx.asarray ---------------------------------------------------------------------------------- */

/* device= of asarray: t (a reference taken over) where want says (NULL: where it is). A tensor already
 * there (host-accessible memory counts as "cpu") is kept; otherwise it moves with Tensor.to's copy, which
 * copy=False refuses (ValueError, as the Array API asks). *fresh is set when the result is a new copy. */
static PyObject *asarray_to_device(PyObject *t, const DLDevice *want, int copy, int *fresh) {
  if (want == NULL || dlx__py_is_on(((dlx__py_tensor *)t)->view.device, *want)) return t;
  if (copy == 0) {
    Py_DECREF(t);
    return dlx__py_copy_refused("dlx.asarray", "moving the data to another device");
  }
  PyObject *r = dlx__py_to_device(t, *want, 1, PyExc_ValueError); /* as Tensor.to */
  Py_DECREF(t);
  if (r != NULL) *fresh = 1;
  return r;
}

/* An ndarray of an ml_dtypes dtype, which NumPy does not export through DLPack, imported as the
 * unsigned type of its size and relabelled (float6/float4, one per byte, as padded); that import copies
 * where a copy is allowed and needed (misaligned data). NULL with no exception when obj is not such an
 * array. */
static PyObject *import_ml_dtypes_array(PyObject *obj, int copy) {
  PyObject *descr = PyObject_GetAttrString(obj, "dtype"), *name = NULL, *size = NULL, *u = NULL, *t = NULL;
  DLDataType dt;
  Py_ssize_t len;
  const char *s;
  if (descr == NULL || (name = PyObject_GetAttrString(descr, "name")) == NULL ||
      (size = PyObject_GetAttrString(descr, "itemsize")) == NULL || !PyUnicode_Check(name) ||
      (s = PyUnicode_AsUTF8AndSize(name, &len)) == NULL || dlx_dtype_parse_n(s, (size_t)len, &dt) != DLX_OK ||
      !dlx__py_is_narrow_float(dt) || dt.lanes != 1 || PyLong_AsSsize_t(size) != (Py_ssize_t)dlx_dtype_itemsize(dt))
    goto done;
  if ((u = PyObject_CallMethod(obj, "view", "s", dt.bits > 8 ? "uint16" : "uint8")) == NULL) goto done;
  if ((t = dlx__py_from_dlpack(u, 0, copy == 0 ? 0 : -1)) != NULL) {
    /* a new Tensor of this call's own, not yet seen by anyone: relabelled in place */
    dlx__py_tensor *tt = (dlx__py_tensor *)t;
    tt->view.dtype = dt;
    if (dlx_dtype_is_subbyte(dt)) tt->view.flags |= DLX_VIEW_SUBBYTE_PADDED;
  }
done:
  if (t == NULL) PyErr_Clear();
  Py_XDECREF(descr);
  Py_XDECREF(name);
  Py_XDECREF(size);
  Py_XDECREF(u);
  return t;
}

/* The PEP 3118 buffer of a DLPack object whose zero-copy import was refused: buffer.c copies what it cannot
 * view in place (misaligned data, strides in partial items: a field of a structured array), or, with
 * copy=False, refuses with ValueError, as asarray's buffers do. NULL with no exception when obj has no
 * buffer dlx can read. */
static PyObject *import_refused_buffer(PyObject *obj, int copy, int *fresh) {
  if (!PyObject_CheckBuffer(obj)) return NULL;
  int copied = 0;
  PyObject *t = dlx__py_import_buffer(obj, 1, &copied);
  if (t == NULL) {
    PyErr_Clear();
    return NULL;
  }
  if (copied && copy == 0) {
    Py_DECREF(t);
    return dlx__py_copy_refused("dlx.asarray", "a buffer that is misaligned or strided in partial items");
  }
  *fresh |= copied;
  return t;
}

/* A DLPack object, zero-copy (the ml_dtypes arrays NumPy cannot export included). When the zero-copy route
 * refuses (BufferError) and copy allows it, a copy: through the object's buffer, else the producer's own
 * (__dlpack__(copy=True)); with neither, the refusal stands. */
static PyObject *import_dlpack(PyObject *obj, int copy, int *fresh) {
  PyObject *t = dlx__py_from_dlpack(obj, 0, 0);
  if (t != NULL || !(PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_TypeError))) return t;
  const int refused = PyErr_ExceptionMatches(PyExc_BufferError);
  PyObject *exc = dlx__py_fetch_exception();
  if ((t = import_ml_dtypes_array(obj, copy)) == NULL && refused) {
    t = import_refused_buffer(obj, copy, fresh);
    if (t == NULL && !PyErr_Occurred() && copy != 0 && (t = dlx__py_from_dlpack(obj, 0, -1)) != NULL) *fresh = 1;
    if (t == NULL && !(copy == 0 && PyErr_Occurred())) PyErr_Clear();
  }
  if (t != NULL || PyErr_Occurred()) {
    Py_DECREF(exc);
    return t;
  }
  dlx__py_restore_exception(exc);
  return NULL;
}

/* dlx.asarray(obj, /, *, dtype=None, device=None, copy=None), the Array API's. */
static PyObject *m_asarray(PyObject *module, PyObject *args, PyObject *kwargs) {
  (void)module;
  static char *kw[] = {"", "dtype", "device", "copy", NULL};
  PyObject *obj, *dtype_obj = Py_None, *device = Py_None, *copy_obj = Py_None, *t;
  DLDataType dt;
  DLDevice where = {kDLCPU, 0};
  int copy, fresh = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOO:asarray", kw, &obj, &dtype_obj, &device, &copy_obj) ||
      dlx__py_parse_copy(copy_obj, &copy) != 0 || (dtype_obj != Py_None && dlx__py_parse_dtype(dtype_obj, &dt) != 0) ||
      (device != Py_None && dlx__py_parse_device(device, &where) != 0))
    return NULL;
  const DLDataType *want = dtype_obj != Py_None ? &dt : NULL;
  if (dlx__py_is_tensor(obj)) {
    Py_INCREF(obj);
    t = obj;
  } else if (PyObject_HasAttr(obj, dlx__py_str_dlpack) || PyCapsule_CheckExact(obj)) {
    t = import_dlpack(obj, copy, &fresh);
  } else if (PyObject_HasAttrString(obj, "dtype") && PyObject_HasAttrString(obj, "__array__")) {
    /* a NumPy scalar (numpy.float32(2), ml_dtypes.bfloat16(1)): its 0-d array. copy=False is passed on
     * (NumPy 2's protocol); an __array__ that takes no copy= (NumPy's scalars) promises nothing */
    PyObject *arr = copy != 0 ? PyObject_CallMethod(obj, "__array__", NULL)
                              : dlx__py_call_with_copy_false(obj, "__array__", NULL);
    if (arr == NULL && copy == 0 && PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      return dlx__py_copy_refused("dlx.asarray", "an __array__ without copy=");
    }
    t = arr ? import_dlpack(arr, copy, &fresh) : NULL;
    Py_XDECREF(arr);
  } else if (PyObject_CheckBuffer(obj) && !PyUnicode_Check(obj)) {
    t = dlx__py_import_buffer(obj, copy, &fresh);
  } else if (dlx__py_is_nested(obj) || PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj)) {
    if (copy == 0) return dlx__py_copy_refused("dlx.asarray", "a Python scalar or sequence");
    /* in host memory in the asked dtype: done but for the device */
    t = dlx__py_from_scalars(obj, want);
    return t == NULL ? NULL : asarray_to_device(t, device != Py_None ? &where : NULL, 1, &fresh);
  } else {
    return PyErr_Format(PyExc_TypeError, "dlx.asarray: cannot make a tensor of %.100s (expected a DLPack object, a "
                        "buffer, a Python scalar, or nested lists / tuples of scalars)", Py_TYPE(obj)->tp_name);
  }
  if (t == NULL) return NULL;
  const DLDevice *to = device != Py_None ? &where : NULL;
  const int moves = to != NULL && !dlx__py_is_on(((dlx__py_tensor *)t)->view.device, *to);
  /* a dtype conversion runs where dlx computes on the host: before a move off host memory, after a move
   * onto it (device USM cannot be computed on, and the copy engines move bytes either way) */
  const int convert_first = !moves || dlx_device_is_host_accessible(((dlx__py_tensor *)t)->view.device);
  if (!convert_first && (t = asarray_to_device(t, to, copy, &fresh)) == NULL) return NULL;
  dlx__py_tensor *tt = (dlx__py_tensor *)t;
  if (want != NULL && !dlx_dtype_equal(*want, tt->view.dtype)) {
    Py_SETREF(t, copy == 0 ? dlx__py_copy_refused("dlx.asarray", "a dtype conversion")
                           : dlx__py_cast_new(&tt->view, *want));
  } else if (copy == 1 && !fresh && !(moves && convert_first)) { /* (a move still to come is the copy) */
    dlx__storage *s;
    dlx_view v;
    if (dlx__py_copy_compact(&tt->view, PyExc_ValueError, &s, &v) != 0) {
      Py_DECREF(t);
      return NULL;
    }
    v.flags &= ~(uint32_t)DLX_VIEW_READ_ONLY; /* a copy is the caller's own */
    Py_SETREF(t, dlx__py_tensor_wrap(s, &v, 0));
  }
  if (t != NULL && moves && convert_first) t = asarray_to_device(t, to, copy, &fresh);
  return t;
}

PyObject *dlx__py_asarray(PyObject *obj) {
  PyObject *args = PyTuple_Pack(1, obj);
  if (args == NULL) return NULL;
  PyObject *r = m_asarray(NULL, args, NULL);
  Py_DECREF(args);
  return r;
}

static const char doc_asarray[] =
    "asarray(obj, /, *, dtype=None, device=None, copy=None)\n--\n\n"
    "A tensor of obj, the Array API's asarray: a dlx.Tensor or any DLPack object (also NumPy arrays of\n"
    "ml_dtypes' types), a buffer (bytes, bytearray, array.array, memoryview), a Python scalar, or nested\n"
    "lists / tuples of Python scalars (NumPy 2's dtype inference). copy=None reuses obj's memory when it\n"
    "can, copy=False never copies (ValueError when a copy is needed), copy=True always copies. dtype:\n"
    "as dlx.empty takes it; device: None (where obj's data is) or any device dlx.empty takes; data\n"
    "elsewhere is copied there (Tensor.to), which copy=False refuses.";

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef dlx__py_create_methods[] = {
    {"empty", FN(m_empty), KW,
     "empty(shape, dtype='float32', device=None) -> Tensor (uninitialised, 64-byte aligned, C-contiguous; "
     "device 'cpu', 'cuda:N', ...)"},
    {"zeros", FN(m_zeros), KW,
     "zeros(shape, dtype='float32', device=None) -> Tensor (zero-filled, 64-byte aligned, C-contiguous)"},
    {"asarray", FN(m_asarray), KW, doc_asarray},
    {"full", FN(m_full), KW, "full(shape, fill_value, dtype=None, device=None) -> Tensor"},
    {NULL, NULL, 0, NULL},
};

/* dlx.Tensor: the type, its allocation, attributes and CuTe layouts, and its method table, whose entries
 * live in the files named for what they do (producer.c, device.c, ops.c, methods.c, numpy.c, tolist.c). */
#include "internal.h" /* Python.h first, as CPython requires */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"

/* ---- allocation ---------------------------------------------------------------------------------- */

/* A Tensor is about 1.1 KiB (the inline rank-64 view), past pymalloc's small-object limit, so each
 * would cost a system malloc and free. Dead tensors are kept for reuse instead; the list is only
 * touched under the GIL (allocation and tp_dealloc both hold it). */
#define TENSOR_FREELIST_MAX 64
static dlx__py_tensor *tensor_freelist[TENSOR_FREELIST_MAX];
static int tensor_freelist_len;

PyObject *dlx__py_tensor_wrap(dlx__storage *storage, const dlx_view *view, uint32_t alignment) {
  /* No zeroing of the 1 KiB inline view: only ndim entries are ever read. */
  dlx__py_tensor *t = tensor_freelist_len ? tensor_freelist[--tensor_freelist_len]
                                        : (dlx__py_tensor *)PyObject_Malloc(sizeof(dlx__py_tensor));
  if (t == NULL) {
    dlx__storage_release(storage);
    return PyErr_NoMemory();
  }
  PyObject_Init((PyObject *)t, &dlx__py_tensor_type);
  t->storage = storage;
  t->dyn = NULL;
  t->alignment = alignment ? alignment : (uint32_t)dlx_dtype_alignment(view->dtype);
  t->view.data = view->data;
  t->view.dtype = view->dtype;
  t->view.device = view->device;
  t->view.ndim = view->ndim;
  t->view.flags = view->flags;
  dlx__copy_dims(t->view.shape, view->shape, view->ndim);
  dlx__copy_dims(t->view.strides, view->strides, view->ndim);
  return (PyObject *)t;
}

static void tensor_dealloc(dlx__py_tensor *t) {
  dlx__py_storage_drop(t->storage);
  PyMem_Free(t->dyn);
  if (tensor_freelist_len < TENSOR_FREELIST_MAX) {
    tensor_freelist[tensor_freelist_len++] = t;
  } else {
    PyObject_Free(t);
  }
}

/* ---- attributes ---------------------------------------------------------------------------------- */

static PyObject *int64_tuple(const int64_t *v, int32_t n) {
  PyObject *tup = PyTuple_New(n);
  if (tup == NULL) return NULL;
  for (int32_t i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (x == NULL) {
      Py_DECREF(tup);
      return NULL;
    }
    PyTuple_SET_ITEM(tup, i, x);
  }
  return tup;
}

static PyObject *t_shape(dlx__py_tensor *t, void *c) { (void)c; return int64_tuple(t->view.shape, t->view.ndim); }
static PyObject *t_stride(dlx__py_tensor *t, void *c) { (void)c; return int64_tuple(t->view.strides, t->view.ndim); }
static PyObject *t_ndim(dlx__py_tensor *t, void *c) { (void)c; return PyLong_FromLong(t->view.ndim); }
static PyObject *t_size(dlx__py_tensor *t, void *c) { (void)c; return PyLong_FromLongLong(dlx_view_size(&t->view)); }
static PyObject *t_itemsize(dlx__py_tensor *t, void *c) {
  (void)c;
  return PyLong_FromSize_t(dlx_dtype_itemsize(t->view.dtype));
}
static PyObject *t_nbytes(dlx__py_tensor *t, void *c) {
  (void)c;
  uint64_t b = 0;
  if (dlx_dtype_storage_bytes(t->view.dtype, (uint64_t)dlx_view_size(&t->view),
                              (t->view.flags & DLX_VIEW_SUBBYTE_PADDED) != 0, &b) != DLX_OK)
    return dlx__py_raise(DLX_ERR_OVERFLOW, PyExc_OverflowError);
  return PyLong_FromUnsignedLongLong(b);
}
static PyObject *t_data_ptr(dlx__py_tensor *t, void *c) { (void)c; return PyLong_FromVoidPtr(t->view.data); }
static PyObject *t_readonly(dlx__py_tensor *t, void *c) {
  (void)c;
  return PyBool_FromLong((t->view.flags & DLX_VIEW_READ_ONLY) != 0);
}
static PyObject *t_is_contiguous(dlx__py_tensor *t, void *c) {
  (void)c;
  return PyBool_FromLong(dlx_view_is_c_contiguous(&t->view));
}
static PyObject *t_device(dlx__py_tensor *t, void *c) {
  (void)c;
  return Py_BuildValue("(ii)", (int)t->view.device.device_type, (int)t->view.device.device_id);
}
static PyObject *t_alignment(dlx__py_tensor *t, void *c) { (void)c; return PyLong_FromUnsignedLong(t->alignment); }

static const char *memspace_name(DLDevice d) {
  /* CuTe's words: "generic" for memory the host reaches directly, "gmem" for GPU global memory */
  return (d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLROCMHost) ? "generic"
                                                                                                  : "gmem";
}
static PyObject *t_memspace(dlx__py_tensor *t, void *c) {
  (void)c;
  return PyUnicode_FromString(memspace_name(t->view.device));
}

static PyObject *t_dtype(dlx__py_tensor *t, void *c) {
  (void)c;
  const char *name = dlx_dtype_name(t->view.dtype);
  if (name) return PyUnicode_FromString(name);
  char buf[DLX_DTYPE_NAME_MAX];
  dlx_status st = dlx_dtype_format(t->view.dtype, buf, sizeof buf);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  return PyUnicode_FromString(buf);
}

/* CuTe's element type names: "float8_e4m3fn" -> "Float8E4M3FN", "bfloat16" -> "BFloat16",
 * "uint8" -> "Uint8", "bool" -> "Boolean". */
static PyObject *t_element_type(dlx__py_tensor *t, void *c) {
  (void)c;
  char name[DLX_DTYPE_NAME_MAX], out[DLX_DTYPE_NAME_MAX + 8];
  dlx_status st = dlx_dtype_format(t->view.dtype, name, sizeof name);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  if (strcmp(name, "bool") == 0) return PyUnicode_FromString("Boolean");
  size_t o = 0;
  const char *p = name;
  if (strncmp(p, "bfloat", 6) == 0) {
    memcpy(out, "BFloat", 6);
    o = 6;
    p += 6;
  }
  int word_start = o == 0;
  for (; *p && o + 1 < sizeof out; ++p) {
    if (*p == '_') {
      /* after the width, a format suffix (e4m3fn, e8m0fnu) is spelled in capitals */
      ++p;
      while (*p && *p != '_' && o + 1 < sizeof out) out[o++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p), ++p;
      --p;
      continue;
    }
    out[o++] = (char)(word_start && *p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    word_start = 0;
  }
  out[o] = '\0';
  return PyUnicode_FromString(out);
}

/* "(30,20):(20,1)" for a static layout. */
static int format_static_layout(const dlx_view *v, char *buf, size_t cap, const char *sep) {
  size_t o = 0;
  for (int part = 0; part < 2; ++part) {
    const int64_t *vals = part == 0 ? v->shape : v->strides;
    int n = snprintf(buf + o, cap - o, part == 0 ? "(" : ":(");
    o += (size_t)n;
    for (int32_t i = 0; i < v->ndim && o < cap; ++i) {
      n = snprintf(buf + o, cap - o, "%s%lld", i ? sep : "", (long long)vals[i]);
      o += (size_t)n;
    }
    /* Python spells a 1-tuple "(5,)"; the repr keeps that spelling */
    if (v->ndim == 1 && sep[0] == ',' && sep[1] == ' ' && o < cap) o += (size_t)snprintf(buf + o, cap - o, ",");
    if (o < cap) o += (size_t)snprintf(buf + o, cap - o, ")");
    if (o >= cap) return -1;
  }
  return 0;
}

#define LAYOUT_CAP (2 * DLX_MAX_NDIM * 32 + 16)

static PyObject *layout_string(dlx__py_tensor *t, const char *static_sep) {
  char buf[LAYOUT_CAP];
  if (t->dyn && dlx_dynlayout_is_dynamic(t->dyn)) {
    dlx_status st = dlx_dynlayout_format(t->dyn, buf, sizeof buf);
    if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  } else if (format_static_layout(&t->view, buf, sizeof buf, static_sep) != 0) {
    PyErr_SetString(PyExc_SystemError, "layout string too long");
    return NULL;
  }
  return PyUnicode_FromString(buf);
}

static PyObject *t_layout(dlx__py_tensor *t, void *c) { (void)c; return layout_string(t, ","); }

static PyObject *tensor_repr(dlx__py_tensor *t) {
  PyObject *layout = layout_string(t, ", ");
  if (layout == NULL) return NULL;
  /* PyUnicode_FromFormat has no zero-padded hex, so the address is formatted first */
  char head[64];
  snprintf(head, sizeof head, "Tensor<0x%016llx@%s o ", (unsigned long long)(uintptr_t)t->view.data,
           memspace_name(t->view.device));
  PyObject *r = PyUnicode_FromFormat("%s%U>", head, layout);
  Py_DECREF(layout);
  return r;
}

/* ---- CuTe layout marking ------------------------------------------------------------------------- */

static dlx_dynlayout *ensure_dyn(dlx__py_tensor *t) {
  if (t->dyn) return t->dyn;
  dlx_dynlayout *d = PyMem_Malloc(sizeof *d);
  if (d == NULL) return (dlx_dynlayout *)PyErr_NoMemory();
  dlx_status st = dlx_dynlayout_init(d, t->view.ndim, t->view.shape, t->view.strides);
  if (st != DLX_OK) {
    PyMem_Free(d);
    return (dlx_dynlayout *)dlx__py_raise(st, PyExc_ValueError);
  }
  t->dyn = d;
  return d;
}

static PyObject *t_mark_layout_dynamic(dlx__py_tensor *t, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"leading_dim", NULL};
  PyObject *lead = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:mark_layout_dynamic", kw, &lead)) return NULL;
  int32_t ld = -1; /* the core's "deduce it" */
  if (lead != Py_None) {
    if (!PyLong_Check(lead)) return PyErr_Format(PyExc_TypeError, "leading_dim must be an int or None, not %.100s",
                                                 Py_TYPE(lead)->tp_name);
    /* CuTe counts a negative leading_dim from the end, as Python indexes: -1 is the last dimension. The
     * core's negative leading_dim means "deduce it" (C has no None), so the index is made absolute here. */
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(lead, &overflow), n = t->view.ndim;
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (overflow || v < -n || v >= n)
      return PyErr_Format(PyExc_ValueError, "Expected leading_dim to be in range [0, %d), but got %S", t->view.ndim,
                          lead);
    ld = (int32_t)(v < 0 ? v + n : v);
  }
  dlx_dynlayout *d = ensure_dyn(t);
  if (d == NULL) return NULL;
  dlx_status st = dlx_dynlayout_mark_dynamic(d, ld);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  Py_INCREF(t);
  return (PyObject *)t;
}

static PyObject *t_mark_compact_shape_dynamic(dlx__py_tensor *t, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"mode", "stride_order", "divisibility", NULL};
  PyObject *order_obj = Py_None;
  PyObject *mode_obj;
  long long div = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OL:mark_compact_shape_dynamic", kw, &mode_obj, &order_obj, &div))
    return NULL;
  if (!PyLong_Check(mode_obj))
    return PyErr_Format(PyExc_TypeError, "mode must be an int, not %.100s", Py_TYPE(mode_obj)->tp_name);
  /* A negative mode, and a negative stride_order entry, count from the end (CuTe, as Python indexes): made
   * absolute here, so the core sees only indices in [0, ndim). What stays out of range keeps CuTe's
   * message, naming the value as given however large it is. */
  const long long ndim = t->view.ndim;
  int overflow = 0;
  long long mode = PyLong_AsLongLongAndOverflow(mode_obj, &overflow);
  if (mode == -1 && PyErr_Occurred()) return NULL;
  if (overflow || mode < -ndim || mode >= ndim)
    return PyErr_Format(PyExc_ValueError, "Expected mode value to be in range [0, %d), but got %S", t->view.ndim,
                        mode_obj);
  if (mode < 0) mode += ndim;
  int32_t order[DLX_MAX_NDIM + 1];
  int32_t order_len = 0;
  const int32_t *order_ptr = NULL;
  if (order_obj != Py_None) {
    PyObject *seq = PySequence_Fast(order_obj, "stride_order must be a sequence of ints or None");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > DLX_MAX_NDIM) {
      Py_DECREF(seq);
      return PyErr_Format(PyExc_ValueError, "Expected stride_order to have %d elements, but got %zd.", t->view.ndim, n);
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
      int big = 0;
      long long v = PyLong_Check(item) ? PyLong_AsLongLongAndOverflow(item, &big) : -1;
      if (!PyLong_Check(item) || (v == -1 && PyErr_Occurred())) {
        Py_DECREF(seq);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "stride_order must contain ints");
        return NULL;
      }
      if (!big && v < 0 && v >= -ndim) v += ndim;
      /* out of [0, ndim) either way: the core names the dimension the order then lacks */
      order[i] = (big || v < 0 || v > INT32_MAX) ? -1 : (int32_t)v;
    }
    Py_DECREF(seq);
    order_len = (int32_t)n;
    order_ptr = order;
  }
  dlx_dynlayout *d = ensure_dyn(t);
  if (d == NULL) return NULL;
  dlx_status st = dlx_dynlayout_mark_compact_shape_dynamic(d, (int32_t)mode, order_ptr, order_len, (int64_t)div);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  Py_INCREF(t);
  return (PyObject *)t;
}

/* Hashable key: what a compiled kernel depends on. Dynamic modes contribute ("?", divisibility). */
static PyObject *mode_key(int64_t value, int64_t div) {
  return div ? Py_BuildValue("(sL)", "?", (long long)div) : PyLong_FromLongLong(value);
}

static PyObject *t_layout_key(dlx__py_tensor *t, void *c) {
  (void)c;
  int32_t n = t->view.ndim;
  PyObject *shape = PyTuple_New(n), *stride = PyTuple_New(n), *dtype = NULL, *key = NULL;
  if (shape == NULL || stride == NULL) goto done;
  for (int32_t i = 0; i < n; ++i) {
    PyObject *a = t->dyn ? mode_key(t->dyn->shape[i], t->dyn->shape_div[i]) : PyLong_FromLongLong(t->view.shape[i]);
    PyObject *b = t->dyn ? mode_key(t->dyn->stride[i], t->dyn->stride_div[i]) : PyLong_FromLongLong(t->view.strides[i]);
    if (a == NULL || b == NULL) {
      Py_XDECREF(a);
      Py_XDECREF(b);
      goto done;
    }
    PyTuple_SET_ITEM(shape, i, a);
    PyTuple_SET_ITEM(stride, i, b);
  }
  dtype = t_dtype(t, NULL);
  if (dtype == NULL) goto done;
  key = Py_BuildValue("(OIsOO)", dtype, (unsigned)t->alignment, memspace_name(t->view.device), shape, stride);
done:
  Py_XDECREF(shape);
  Py_XDECREF(stride);
  Py_XDECREF(dtype);
  return key;
}

static PyGetSetDef tensor_getset[] = {
    {"shape", (getter)t_shape, NULL, "extents, a tuple", NULL},
    {"stride", (getter)t_stride, NULL, "strides in elements, a tuple", NULL},
    {"dtype", (getter)t_dtype, NULL, "canonical dtype name (\"float32\", \"bfloat16\", ...)", NULL},
    {"element_type", (getter)t_element_type, NULL, "CuTe element type name (Float32, BFloat16, ...)", NULL},
    {"device", (getter)t_device, NULL, "(device_type, device_id)", NULL},
    {"memspace", (getter)t_memspace, NULL, "\"generic\" for host memory, \"gmem\" for device memory", NULL},
    {"data_ptr", (getter)t_data_ptr, NULL, "address of element 0", NULL},
    {"ndim", (getter)t_ndim, NULL, "rank", NULL},
    {"size", (getter)t_size, NULL, "number of elements", NULL},
    {"itemsize", (getter)t_itemsize, NULL, "bytes per element (padded for sub-byte types)", NULL},
    {"nbytes", (getter)t_nbytes, NULL, "bytes of the elements", NULL},
    {"readonly", (getter)t_readonly, NULL, "True when the producer marked the data read-only", NULL},
    {"is_contiguous", (getter)t_is_contiguous, NULL, "C-contiguous (extent-1 strides ignored)", NULL},
    {"layout", (getter)t_layout, NULL, "CuTe layout string, e.g. (30,20):(20,1) or (?,?):(?,1)", NULL},
    {"alignment", (getter)t_alignment, NULL, "assumed alignment of the data in bytes", NULL},
    {"layout_key", (getter)t_layout_key, NULL, "hashable key for kernel caches", NULL},
    {"T", (getter)dlx__py_tensor_T, NULL, "the transposed view (dimensions reversed)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))dlx__py_tensor_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)"},
    {"__dlpack_device__", (PyCFunction)dlx__py_tensor_dlpack_device, METH_NOARGS, "(device_type, device_id)"},
    {"mark_layout_dynamic", (PyCFunction)(void (*)(void))t_mark_layout_dynamic, METH_VARARGS | METH_KEYWORDS,
     "mark_layout_dynamic(leading_dim=None) -> self"},
    {"mark_compact_shape_dynamic", (PyCFunction)(void (*)(void))t_mark_compact_shape_dynamic,
     METH_VARARGS | METH_KEYWORDS, "mark_compact_shape_dynamic(mode, stride_order=None, divisibility=1) -> self"},
    {"fill_", (PyCFunction)dlx__py_tensor_fill_, METH_O, "fill_(value) -> self: every element set to a scalar"},
    {"copy_", (PyCFunction)dlx__py_tensor_copy_, METH_O,
     "copy_(src) -> self: elements from a tensor-like src (broadcast, cast to this dtype)"},
    {"reshape", (PyCFunction)dlx__py_tensor_reshape, METH_VARARGS,
     "reshape(*shape) -> Tensor: a view when the strides allow it, else a copy (NumPy's reshape)"},
    {"permute", (PyCFunction)dlx__py_tensor_permute, METH_VARARGS,
     "permute(*dims) -> Tensor: dimensions reordered (view)"},
    {"transpose", (PyCFunction)dlx__py_tensor_transpose, METH_VARARGS,
     "transpose(*axes) -> Tensor: dimensions reversed, or permuted by axes (view)"},
    {"astype", (PyCFunction)dlx__py_tensor_astype, METH_O,
     "astype(dtype) -> Tensor: a converted copy.\n\nFrom float64 to bfloat16 and the float8/6/4 formats the value is "
     "rounded once, correctly; ml_dtypes rounds through float32 (twice), so the last bit can differ next to a "
     "midpoint: astype('float32').astype(fmt) reproduces ml_dtypes."},
    {"to", (PyCFunction)(void (*)(void))dlx__py_tensor_to, METH_VARARGS | METH_KEYWORDS,
     "to(device, *, copy=False) -> Tensor: self when already on device (unless copy), else a copy there"},
    {"record", (PyCFunction)(void (*)(void))dlx__py_tensor_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=None) -> self: an event after this tensor's last use on stream (None: dlx's current)"},
    {"wait", (PyCFunction)(void (*)(void))dlx__py_tensor_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(stream=None) -> self: stream (None: dlx's current) waits for the last record()"},
    {"view", (PyCFunction)dlx__py_tensor_view, METH_O,
     "view(dtype) -> Tensor: the same bytes as another dtype of the same size (bfloat16 <-> uint16)"},
    {"__array__", (PyCFunction)(void (*)(void))dlx__py_tensor_array, METH_VARARGS | METH_KEYWORDS, dlx__py_doc_array},
    {"numpy", (PyCFunction)dlx__py_tensor_numpy, METH_NOARGS, dlx__py_doc_numpy},
    {"__array_ufunc__", (PyCFunction)(void (*)(void))dlx__py_tensor_array_ufunc, METH_VARARGS | METH_KEYWORDS,
     dlx__py_doc_array_ufunc},
    {"__array_function__", (PyCFunction)(void (*)(void))dlx__py_tensor_array_function, METH_VARARGS | METH_KEYWORDS,
     dlx__py_doc_array_function},
    {"__reversed__", (PyCFunction)dlx__py_tensor_reversed, METH_NOARGS,
     "__reversed__($self, /)\n--\n\nreversed(t): the views t[n-1], ..., t[0] over the first axis (index.c)"},
    {"tolist", (PyCFunction)dlx__py_tensor_tolist, METH_NOARGS, dlx__py_doc_tolist},
    {"item", (PyCFunction)dlx__py_tensor_item, METH_NOARGS, dlx__py_doc_item},
    {"__complex__", (PyCFunction)dlx__py_tensor_complex, METH_NOARGS, "complex(t) of a one-element tensor"},
    DLX__PY_REDUCE_METHODS /* sum, prod, min, max, mean, argmin, argmax, any, all (reduce.c) */
    {NULL, NULL, 0, NULL},
};

/* CPython's pointer hash: the address rotated so that the alignment's zero bits do not collide. */
static Py_hash_t tensor_hash(PyObject *self) {
  size_t y = (size_t)self;
  y = (y >> 4) | (y << (8 * sizeof(void *) - 4));
  Py_hash_t h = (Py_hash_t)y;
  return h == -1 ? -2 : h;
}

PyTypeObject dlx__py_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dlx.Tensor",
    .tp_basicsize = sizeof(dlx__py_tensor),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_repr = (reprfunc)tensor_repr,
    .tp_as_number = &dlx__py_tensor_as_number,
    .tp_as_mapping = &dlx__py_tensor_as_mapping, /* index.c */
    .tp_as_sequence = &dlx__py_tensor_as_sequence, /* `in` only: no sq_item, so not a PySequence */
    .tp_iter = dlx__py_tensor_iter,
    .tp_as_buffer = &dlx__py_tensor_as_buffer, /* buffer.c */
    /* elementwise == would leave the type unhashable; it hashes by identity instead, as torch.Tensor */
    .tp_hash = tensor_hash,
    .tp_richcompare = dlx__py_tensor_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A strided tensor shared through DLPack (see dlx.from_dlpack).",
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};

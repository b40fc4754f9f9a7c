/* The dlx._dlx extension module: from_dlpack, empty / zeros, the C API capsule. */
#include "internal.h" /* Python.h first, as CPython requires */
#include "reduce.h"

#include <string.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/python.h"
#include "dlx/version.h"

PyObject *dlx_str_dlpack, *dlx_str_max_version, *dlx_str_copy, *dlx_str_dl_device, *dlx_str_stream,
    *dlx_version_tuple, *dlx_kw_max_version;
static PyObject *str_device, *str_assumed_align;

static PyObject *m_from_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  if (nargs != 1)
    return PyErr_Format(PyExc_TypeError, "from_dlpack() takes exactly 1 positional argument (%zd given)", nargs);
  PyObject *device = Py_None, *copy_obj = Py_None, *align_obj = Py_None;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = args[1 + i];
    if (k == str_device || PyUnicode_Compare(k, str_device) == 0) device = v;
    else if (k == dlx_str_copy || PyUnicode_Compare(k, dlx_str_copy) == 0) copy_obj = v;
    else if (k == str_assumed_align || PyUnicode_Compare(k, str_assumed_align) == 0) align_obj = v;
    else return PyErr_Format(PyExc_TypeError, "from_dlpack() got an unexpected keyword argument '%U'", k);
  }
  int copy = -1;
  if (copy_obj != Py_None) {
    if (!PyBool_Check(copy_obj))
      return PyErr_Format(PyExc_TypeError, "copy must be a bool or None, not %.100s", Py_TYPE(copy_obj)->tp_name);
    copy = copy_obj == Py_True;
  }
  uint32_t alignment = 0;
  if (align_obj != Py_None) {
    if (!PyLong_Check(align_obj))
      return PyErr_Format(PyExc_TypeError, "assumed_align must be an int or None, not %.100s",
                          Py_TYPE(align_obj)->tp_name);
    long a = PyLong_AsLong(align_obj);
    if (a == -1 && PyErr_Occurred()) return NULL;
    if (a <= 0 || a > (1L << 30) || (a & (a - 1)) != 0)
      return PyErr_Format(PyExc_ValueError, "assumed_align must be a positive power of two, got %ld", a);
    alignment = (uint32_t)a;
  }
  /* device: the import lands there, copied across devices when it is elsewhere (cuda.c); a device dlx
   * cannot name is BufferError here, as any device the data cannot be put on */
  DLDevice want = {kDLCPU, 0};
  if (device != Py_None && dlx_py_parse_device(device, &want) != 0) {
    if (PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyObject *et, *ev, *tb;
      PyErr_Fetch(&et, &ev, &tb);
      PyErr_SetObject(PyExc_BufferError, ev);
      Py_XDECREF(et);
      Py_XDECREF(ev);
      Py_XDECREF(tb);
    }
    return NULL;
  }
  /* a NumPy array's fields path only where the import stays on the cpu: a move to another device costs
   * a copy, next to which a capsule's cost is nothing */
  const int ndarray_ok = device == Py_None || want.device_type == kDLCPU;
  PyObject *t = dlx_from_dlpack_impl_ex(args[0], alignment, device != Py_None && copy == 1 ? -1 : copy, ndarray_ok);
  if (t == NULL || device == Py_None) return t;
  PyObject *r = dlx_py_to_device(t, want, copy, PyExc_BufferError);
  Py_DECREF(t);
  return r;
}

static PyObject *make_owned(PyObject *args, PyObject *kwargs, int zero, const char *fname) {
  static char *kw[] = {"shape", "dtype", "device", NULL};
  PyObject *shape_obj, *dtype_obj = Py_None, *device_obj = Py_None;
  char fmt[32];
  snprintf(fmt, sizeof fmt, "O|OO:%s", fname);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &shape_obj, &dtype_obj, &device_obj)) return NULL;
  DLDevice device = {kDLCPU, 0};
  if (device_obj != Py_None && dlx_py_parse_device(device_obj, &device) != 0) return NULL;
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  if (dlx_pyops_parse_shape(shape_obj, &ndim, shape) != 0) return NULL;
  DLDataType dt = DLX_DTYPE_FLOAT32; /* dtype=None: dlx's default, float32 */
  if (dtype_obj != Py_None && dlx_parse_dtype_obj(dtype_obj, &dt) != 0) return NULL;
  return dlx_py_tensor_new_on(device, ndim, shape, dt, zero);
}

static PyObject *m_empty(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return make_owned(args, kwargs, 0, "empty");
}
static PyObject *m_zeros(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  return make_owned(args, kwargs, 1, "zeros");
}

/* ---- the C API of dlx/python.h ----------------------------------------------------------------- */

int dlx_capi_view_from_object(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle) {
  if (obj == NULL || spec == NULL || view == NULL || handle == NULL) {
    PyErr_SetString(PyExc_SystemError, "dlx_py_view: NULL argument");
    return -1;
  }
  dlx_import_spec s = *spec;
  s.version = DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  const int r = dlx_py_view_borrowed(obj, &s, view);
  if (r != 0) {
    if (r < 0) return -1;
    Py_INCREF(obj); /* the producer's object holds the memory the view borrows */
    *handle = obj;
    return 0;
  }
  PyObject *t = dlx_from_dlpack_impl(obj, spec->alignment, -1);
  if (t == NULL) return -1;
  /* the producer's tensor is valid DLPack; now check it against what the caller requires, with the
   * same code as any C import: export to a DLTensor and import it under spec */
  TensorObject *tt = (TensorObject *)t;
  dlx_dltensor dl;
  dlx_status st = dlx_view_to_dltensor(&tt->view, &dl);
  if (st == DLX_OK) st = dlx_view_from_dltensor(view, &dl.tensor, &s);
  if (st != DLX_OK) {
    Py_DECREF(t);
    dlx_py_raise(st, PyExc_BufferError);
    return -1;
  }
  view->data = tt->view.data; /* an empty tensor's data stays the producer's */
  view->flags = tt->view.flags;
  *handle = t;
  return 0;
}

static PyObject *capi_tensor_from_view(const dlx_view *view, PyObject *owner) {
  if (view == NULL) {
    PyErr_SetString(PyExc_SystemError, "dlx_py_tensor_from_view: view is NULL");
    return NULL;
  }
  /* re-validate: the view may have been filled by hand */
  dlx_dltensor dl;
  dlx_view v;
  dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY,
                          DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR), 1};
  dlx_status st = dlx_view_to_dltensor(view, &dl);
  if (st == DLX_OK) st = dlx_view_from_dltensor(&v, &dl.tensor, &spec);
  if (st != DLX_OK) return dlx_py_raise(st, PyExc_ValueError);
  v.data = view->data;
  v.flags = view->flags;
  dlx__storage *s = dlx_py_storage_of_object(owner, v.data, v.device);
  if (s == NULL) return NULL;
  return dlx_py_tensor_wrap(s, &v, 0);
}

static PyObject *capi_tensor_from_managed(DLManagedTensorVersioned *m) {
  if (m == NULL) {
    PyErr_SetString(PyExc_BufferError, "dlx_py_tensor_from_managed: managed tensor is NULL");
    return NULL;
  }
  return dlx_py_import_versioned_owned(m, 0);
}

static dlx_py_capi capi_table = {
    DLX_PY_CAPI_VERSION, sizeof(dlx_py_capi), &dlx_TensorType, dlx_capi_view_from_object, capi_tensor_from_view,
    capi_tensor_from_managed,
};

/* ---- module -------------------------------------------------------------------------------------- */

static PyMethodDef module_methods[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))m_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, *, device=None, copy=None, assumed_align=None) -> Tensor\n\n"
     "Import any DLPack object (C exchange API, __dlpack__, or capsule) without a copy, unless copy=True or "
     "device= names another device."},
    {"empty", (PyCFunction)(void (*)(void))m_empty, METH_VARARGS | METH_KEYWORDS,
     "empty(shape, dtype='float32', device=None) -> Tensor (uninitialised, 64-byte aligned, C-contiguous; "
     "device 'cpu', 'cuda:N', ...)"},
    {"zeros", (PyCFunction)(void (*)(void))m_zeros, METH_VARARGS | METH_KEYWORDS,
     "zeros(shape, dtype='float32', device=None) -> Tensor (zero-filled, 64-byte aligned, C-contiguous)"},
    {"asarray", (PyCFunction)(void (*)(void))dlx_py_asarray, METH_VARARGS | METH_KEYWORDS, dlx_doc_asarray},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "dlx._dlx", "dlx: zero-copy tensor exchange through DLPack (C core).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

static int intern(PyObject **slot, const char *s) {
  *slot = PyUnicode_InternFromString(s);
  return *slot ? 0 : -1;
}

PyMODINIT_FUNC PyInit__dlx(void) {
  if (intern(&dlx_str_dlpack, "__dlpack__") || intern(&dlx_str_max_version, "max_version") ||
      intern(&dlx_str_copy, "copy") || intern(&dlx_str_dl_device, "dl_device") || intern(&dlx_str_stream, "stream") ||
      intern(&str_device, "device") || intern(&str_assumed_align, "assumed_align"))
    return NULL;
  dlx_version_tuple = Py_BuildValue("(ii)", DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  dlx_kw_max_version = PyTuple_Pack(1, dlx_str_max_version);
  if (dlx_version_tuple == NULL || dlx_kw_max_version == NULL) return NULL;
  if (PyType_Ready(&dlx_TensorType) < 0) return NULL;
  PyObject *api = PyCapsule_New((void *)&dlx_exchange_api, "dlpack_exchange_api", NULL);
  if (api == NULL || PyDict_SetItemString(dlx_TensorType.tp_dict, "__dlpack_c_exchange_api__", api) < 0) {
    Py_XDECREF(api);
    return NULL;
  }
  Py_DECREF(api);
  /* NumPy's operators defer to ours (a numpy array + a Tensor calls Tensor.__radd__) instead of making
   * an object array of Tensors */
  if (PyDict_SetItemString(dlx_TensorType.tp_dict, "__array_ufunc__", Py_None) < 0) return NULL;
  PyType_Modified(&dlx_TensorType);

  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) return NULL;
  Py_INCREF(&dlx_TensorType);
  if (PyModule_AddObject(m, "Tensor", (PyObject *)&dlx_TensorType) < 0) goto fail;
  if (PyModule_AddObject(m, "_C_API", PyCapsule_New(&capi_table, DLX_PY_CAPI_NAME, NULL)) < 0) goto fail;
  if (PyModule_AddStringConstant(m, "__version__", DLX_VERSION_STRING) < 0) goto fail;
  Py_INCREF(dlx_version_tuple);
  if (PyModule_AddObject(m, "DLPACK_VERSION", dlx_version_tuple) < 0) goto fail;
  if (PyModule_AddFunctions(m, dlx_ops_module_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, dlx_reduce_module_methods) < 0) goto fail; /* dlx.sum & co (reduce.c) */
  if (dlx_py_cuda_init(m) < 0) goto fail; /* dlx._dlx._cuda, what dlx.cuda wraps */
#ifdef DLX_PY_TESTING
  /* test builds only (setup.py: DLX_PY_TESTING=1) */
  if (dlx_testing_init(m) < 0) goto fail;
#endif
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}

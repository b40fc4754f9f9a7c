/* The C API of dlx/python.h: the table other extensions import from the capsule dlx._dlx._C_API
 * (dlx_py_import), with the functions behind dlx_py_view, dlx_py_tensor_from_view and
 * dlx_py_tensor_from_managed. */
#include "internal.h" /* Python.h first, as CPython requires */

#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/python.h"

int dlx__py_capi_view_from_object(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle) {
  if (obj == NULL || spec == NULL || view == NULL || handle == NULL) {
    PyErr_SetString(PyExc_SystemError, "dlx_py_view: NULL argument");
    return -1;
  }
  dlx_import_spec s = *spec;
  s.version = DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  const int r = dlx__py_view_borrowed(obj, &s, view);
  if (r != 0) {
    if (r < 0) return -1;
    Py_INCREF(obj); /* the producer's object holds the memory the view borrows */
    *handle = obj;
    return 0;
  }
  PyObject *t = dlx__py_from_dlpack(obj, spec->alignment, -1);
  if (t == NULL) return -1;
  /* the producer's tensor is valid DLPack; now check it against what the caller requires, with the
   * same code as any C import: export to a DLTensor and import it under spec */
  dlx__py_tensor *tt = (dlx__py_tensor *)t;
  dlx_dltensor dl;
  dlx_status st = dlx_view_to_dltensor(&tt->view, &dl);
  if (st == DLX_OK) st = dlx_view_from_dltensor(view, &dl.tensor, &s);
  if (st != DLX_OK) {
    Py_DECREF(t);
    dlx__py_raise(st, PyExc_BufferError);
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
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  v.data = view->data;
  v.flags = view->flags;
  dlx__storage *s = dlx__py_storage_of_object(owner, v.data, v.device);
  if (s == NULL) return NULL;
  return dlx__py_tensor_wrap(s, &v, 0);
}

static PyObject *capi_tensor_from_managed(DLManagedTensorVersioned *m) {
  if (m == NULL) {
    PyErr_SetString(PyExc_BufferError, "dlx_py_tensor_from_managed: managed tensor is NULL");
    return NULL;
  }
  return dlx__py_import_versioned_owned(m, 0);
}

static dlx_py_capi capi_table = {
    DLX_PY_CAPI_VERSION, sizeof(dlx_py_capi), &dlx__py_tensor_type,
    dlx__py_capi_view_from_object, capi_tensor_from_view, capi_tensor_from_managed,
};

int dlx__py_capi_init(PyObject *module) {
  return PyModule_AddObject(module, "_C_API", PyCapsule_New(&capi_table, DLX_PY_CAPI_NAME, NULL));
}

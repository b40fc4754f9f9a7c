/* dlx/python.h - dlx's C API for other CPython extensions (the C analog of nanobind's ndarray).
 *
 * A C extension accepts any Python object that speaks DLPack (NumPy, PyTorch, JAX, CuPy, dlx) and gets
 * a validated dlx_view with the dtype, rank, memory space and layout it requires -- the same checks as
 * dlx_view_from_dltensor -- plus a handle that keeps the producer's memory alive until released. It can
 * also return memory to Python as a dlx.Tensor.
 *
 *   static PyObject *scale(PyObject *self, PyObject *arg) {
 *     dlx_import_spec spec = {DLX_DTYPE_FLOAT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE,
 *                             DLX_DLPACK_VERSION_NUM(1, 3), 0};
 *     dlx_view v; PyObject *h;
 *     if (dlx_py_view(arg, &spec, &v, &h) != 0) return NULL;   // BufferError/TypeError set
 *     ... use v ...
 *     dlx_py_release(h);
 *     Py_RETURN_NONE;
 *   }
 *   PyMODINIT_FUNC PyInit_ext(void) { if (dlx_py_import() != 0) return NULL; ... }
 *
 * The API table is fetched once per translation unit by dlx_py_import() (call it in every file's
 * module init that uses these functions).
 * Thread safety: every function here needs the GIL (it creates or releases Python objects); the views
 * it hands out are plain structs, usable on any thread while the handle is held. */
#ifndef DLX_PYTHON_H
#define DLX_PYTHON_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>

#include "dlx/dlpack.h"
#include "dlx/view.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DLX_PY_CAPI_VERSION 1
#define DLX_PY_CAPI_NAME "dlx._dlx._C_API"

typedef struct dlx_py_capi {
  uint32_t version; /* DLX_PY_CAPI_VERSION; later versions only append members */
  uint32_t size;    /* sizeof(dlx_py_capi) of the providing module */
  PyTypeObject *tensor_type;
  int (*view_from_object)(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle);
  PyObject *(*tensor_from_view)(const dlx_view *view, PyObject *owner);
  PyObject *(*tensor_from_managed)(DLManagedTensorVersioned *managed);
} dlx_py_capi;

static const dlx_py_capi *dlx_py_api_ = NULL;

/* Fetch the API table from the dlx module: 0, or -1 with ImportError set. */
static inline int dlx_py_import(void) {
  const dlx_py_capi *api = (const dlx_py_capi *)PyCapsule_Import(DLX_PY_CAPI_NAME, 0);
  if (api == NULL) return -1;
  if (api->version < DLX_PY_CAPI_VERSION) {
    PyErr_Format(PyExc_ImportError, "dlx C API version %u is older than the %d this extension was built for",
                 (unsigned)api->version, DLX_PY_CAPI_VERSION);
    return -1;
  }
  dlx_py_api_ = api;
  return 0;
}

/* A validated view of obj's data meeting spec (spec->version is ignored: dlx imports the producer's
 * tensor itself). *handle keeps the memory alive: pass it to dlx_py_release when done. It is a
 * dlx.Tensor holding the producer's export, or, where the producer's C exchange API lends its tensor
 * without a managed one (PyTorch's dltensor_from_py_object_no_sync: no allocation), obj itself; either
 * way the memory must not be resized or replaced under the view (torch's resize_ / set_) while it is used.
 * What dlx.from_dlpack refuses of a producer (PyTorch: requires_grad, the conjugate and negative bits,
 * other layouts) is refused here too.
 * 0, or -1 with BufferError (the tensor fails spec or the protocol) or TypeError (not DLPack). */
static inline int dlx_py_view(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle) {
  return dlx_py_api_->view_from_object(obj, spec, view, handle);
}

/* Release a handle from dlx_py_view (NULL is a no-op). */
static inline void dlx_py_release(PyObject *handle) { Py_XDECREF(handle); }

/* A new dlx.Tensor over view's memory, which owner keeps alive (a new reference to owner is held;
 * NULL owner: the memory must outlive every use, e.g. static data). NULL with an exception on failure. */
static inline PyObject *dlx_py_tensor_from_view(const dlx_view *view, PyObject *owner) {
  return dlx_py_api_->tensor_from_view(view, owner);
}

/* A new dlx.Tensor that takes over managed (its deleter runs when the last user dies; on failure it
 * runs at once). NULL with an exception on failure. */
static inline PyObject *dlx_py_tensor_from_managed(DLManagedTensorVersioned *managed) {
  return dlx_py_api_->tensor_from_managed(managed);
}

/* True when obj is a dlx.Tensor. */
static inline int dlx_py_is_tensor(PyObject *obj) { return Py_IS_TYPE(obj, dlx_py_api_->tensor_type); }

#ifdef __cplusplus
}
#endif

#endif

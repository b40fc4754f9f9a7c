/* The consumer side: dlx.from_dlpack over the C exchange API, __dlpack__, or a raw capsule. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "dlx/dtype.h"

/* The import every consumer path ends in: validate, then hand ownership to a new Tensor. */
static PyObject *import_checked(const dlx_view *v, dlx_storage *s, uint32_t alignment) {
  if (s == NULL) return NULL;
  return dlx_py_tensor_wrap(s, v, alignment);
}

static dlx_import_spec any_spec(uint32_t version, uint32_t alignment) {
  dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, version, alignment};
  return spec;
}

PyObject *dlx_py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment) {
  dlx_view v;
  dlx_import_spec spec = any_spec(0, alignment);
  dlx_status st = dlx_view_from_managed_versioned(&v, m, &spec);
  if (st != DLX_OK) {
    /* the deleter first: a producer's deleter may run Python code, which must not see a pending error */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", dlx_last_error());
    if (m->deleter) m->deleter(m);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, msg);
    return NULL;
  }
  return import_checked(&v, dlx_py_storage_of_versioned(m), alignment);
}

/* Consume a capsule. Until it is renamed the capsule still owns the tensor, so every failure before
 * the rename leaves the deleter to the capsule's destructor: it runs exactly once either way. */
static PyObject *import_capsule(PyObject *cap, uint32_t alignment) {
  const char *name = PyCapsule_GetName(cap);
  if (name == NULL && PyErr_Occurred()) return NULL;
  if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(0, alignment);
    dlx_status st = dlx_view_from_managed_versioned(&v, m, &spec);
    if (st != DLX_OK) return dlx_py_raise(st, PyExc_BufferError);
    if (PyCapsule_SetName(cap, "used_dltensor_versioned") != 0) return NULL;
    return import_checked(&v, dlx_py_storage_of_versioned(m), alignment);
  }
  if (name != NULL && strcmp(name, "dltensor") == 0) {
    DLManagedTensor *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(DLX_DLPACK_VERSION_LEGACY, alignment);
    dlx_status st = dlx_view_from_managed(&v, m, &spec);
    if (st != DLX_OK) return dlx_py_raise(st, PyExc_BufferError);
    if (PyCapsule_SetName(cap, "used_dltensor") != 0) return NULL;
    return import_checked(&v, dlx_py_storage_of_legacy(m), alignment);
  }
  if (name != NULL && strncmp(name, "used_", 5) == 0)
    return PyErr_Format(PyExc_BufferError, "DLPack capsule '%s' was already consumed", name);
  return PyErr_Format(PyExc_BufferError, "a PyCapsule named '%s' is not a DLPack tensor (expected 'dltensor' or "
                      "'dltensor_versioned')", name ? name : "(null)");
}

/* ---- exchange API lookup, cached per type -------------------------------------------------------- */

/* Types seen, with their table or NULL. A handful of array types are ever exchanged, so a short
 * array searched by pointer beats a dict; past its end, types are looked up each time. Each cached
 * type is held by a strong reference, so its address cannot be reused. */
#define API_CACHE_SIZE 16
static struct {
  PyTypeObject *type;
  const DLPackExchangeAPI *api;
} api_cache[API_CACHE_SIZE];
static int api_cache_len;

static const DLPackExchangeAPI *api_from_attr(PyObject *attr) {
  void *p = NULL;
  if (PyCapsule_CheckExact(attr) && PyCapsule_IsValid(attr, "dlpack_exchange_api")) {
    p = PyCapsule_GetPointer(attr, "dlpack_exchange_api");
  } else if (PyLong_Check(attr)) { /* DLPack 1.2 stored the address as an int */
    p = PyLong_AsVoidPtr(attr);
  }
  if (p == NULL) {
    PyErr_Clear();
    return NULL;
  }
  /* walk the chain until a table of our major version */
  const DLPackExchangeAPIHeader *h = p;
  while (h != NULL && h->version.major != DLX_DLPACK_MAJOR) h = h->prev_api;
  return (const DLPackExchangeAPI *)h;
}

const DLPackExchangeAPI *dlx_lookup_exchange_api(PyTypeObject *type) {
  for (int i = 0; i < api_cache_len; ++i)
    if (api_cache[i].type == type) return api_cache[i].api;
  const DLPackExchangeAPI *api = NULL;
  static const char *const names[] = {"__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"};
  for (int k = 0; k < 2 && api == NULL; ++k) {
    PyObject *attr = PyObject_GetAttrString((PyObject *)type, names[k]);
    if (attr == NULL) {
      PyErr_Clear();
      continue;
    }
    api = api_from_attr(attr);
    Py_DECREF(attr);
  }
  if (api_cache_len < API_CACHE_SIZE) {
    Py_INCREF(type);
    api_cache[api_cache_len].type = type;
    api_cache[api_cache_len].api = api;
    ++api_cache_len;
  }
  return api;
}

/* ---- from_dlpack --------------------------------------------------------------------------------- */

static PyObject *call_dlpack(PyObject *x) {
  /* x.__dlpack__(max_version=(1, 3)). copy is never passed on: dlx makes any copy itself, once. */
  PyObject *args[2] = {x, dlx_version_tuple};
  PyObject *cap = PyObject_VectorcallMethod(dlx_str_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, dlx_kw_max_version);
  if (cap == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
    /* an old producer that knows no keywords: it gives a legacy capsule */
    PyErr_Clear();
    PyObject *a[1] = {x};
    cap = PyObject_VectorcallMethod(dlx_str_dlpack, a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
  }
  return cap;
}

static PyObject *copy_tensor(PyObject *src_obj) {
  TensorObject *src = (TensorObject *)src_obj;
  dlx_storage *s;
  dlx_view v;
  if (dlx_py_copy_compact(&src->view, &s, &v) != 0) return NULL;
  return dlx_py_tensor_wrap(s, &v, src->alignment);
}

PyObject *dlx_from_dlpack_impl(PyObject *x, uint32_t alignment, int copy) {
  PyObject *t = NULL;
  if (Py_IS_TYPE(x, &dlx_TensorType)) {
    TensorObject *src = (TensorObject *)x;
    if (copy == 1) return copy_tensor(x);
    if (alignment && ((uintptr_t)src->view.data % alignment) != 0)
      return PyErr_Format(PyExc_BufferError, "data 0x%llx is not aligned to assumed_align=%u bytes",
                          (unsigned long long)(uintptr_t)src->view.data, alignment);
    return dlx_py_tensor_wrap(dlx__storage_retain(src->storage), &src->view, alignment ? alignment : src->alignment);
  }
  const DLPackExchangeAPI *api = dlx_lookup_exchange_api(Py_TYPE(x));
  if (api != NULL) {
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &m) != 0) return NULL;
    t = dlx_py_import_versioned_owned(m, alignment);
  } else if (PyCapsule_CheckExact(x)) {
    t = import_capsule(x, alignment);
  } else {
    PyObject *cap = call_dlpack(x);
    if (cap == NULL) {
      if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "object of type '%.100s' does not support DLPack (no __dlpack__)",
                            Py_TYPE(x)->tp_name);
      }
      return NULL;
    }
    if (PyCapsule_CheckExact(cap)) {
      t = import_capsule(cap, alignment);
    } else {
      PyErr_Format(PyExc_TypeError, "__dlpack__ of '%.100s' returned '%.100s', not a PyCapsule", Py_TYPE(x)->tp_name,
                   Py_TYPE(cap)->tp_name);
    }
    /* An unconsumed capsule runs the producer's deleter as it dies, and that deleter may run Python
     * code: it must not see (or clobber) the error being raised. */
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    Py_DECREF(cap);
    PyErr_Restore(et, ev, tb);
  }
  if (t != NULL && copy == 1) {
    PyObject *c = copy_tensor(t);
    Py_DECREF(t);
    return c;
  }
  return t;
}

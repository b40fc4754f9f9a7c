/* Interpreter-aware release callbacks and exception-raising allocation over the core's storage. */
#include "internal.h" /* Python.h first, as CPython requires */

/* Python is usable from this thread only while the interpreter is up and not tearing down. */
static int python_alive(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

static void release_versioned(void *ctx, void *ptr, DLDevice device) {
  (void)ptr, (void)device;
  DLManagedTensorVersioned *m = ctx;
  if (m->deleter != NULL && python_alive()) m->deleter(m);
}

static void release_legacy(void *ctx, void *ptr, DLDevice device) {
  (void)ptr, (void)device;
  DLManagedTensor *m = ctx;
  if (m->deleter != NULL && python_alive()) m->deleter(m);
}

static void release_object(void *ctx, void *ptr, DLDevice device) {
  (void)ptr, (void)device;
  if (!python_alive()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

static dlx__storage *new_or_raise(dlx__release_fn release, void *ctx, void *ptr, DLDevice device) {
  dlx__storage *s = dlx__storage_new(release, ctx, ptr, device);
  if (s == NULL) PyErr_NoMemory();
  return s;
}

dlx__storage *dlx__py_storage_of_versioned(DLManagedTensorVersioned *m) {
  return new_or_raise(release_versioned, m, NULL, m->dl_tensor.device);
}

dlx__storage *dlx__py_storage_of_legacy(DLManagedTensor *m) {
  return new_or_raise(release_legacy, m, NULL, m->dl_tensor.device);
}

dlx__storage *dlx__py_storage_of_object(PyObject *owner, void *data, DLDevice device) {
  dlx__storage *s = new_or_raise(release_object, owner, data, device);
  if (s != NULL) Py_INCREF(owner);
  return s;
}

dlx__storage *dlx__py_storage_alloc(DLDevice device, const void *like, uint64_t nbytes, int zero) {
  dlx__storage *s = NULL;
  dlx_status st = dlx__storage_alloc_like(device, like, nbytes, zero != 0, "dlx", &s);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_ValueError);
    return NULL;
  }
  return s;
}

int dlx__py_copy_compact(const dlx_view *src, dlx__storage **storage, dlx_view *out) {
  dlx_status st = dlx__storage_copy_compact(src, "copy", storage, out);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    return -1;
  }
  return 0;
}

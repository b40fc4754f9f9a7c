/* Interpreter-aware release callbacks and exception-raising allocation over the core's storage. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdlib.h>

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

/* Released object storages kept for reuse, as dead Tensors are (tensor.c): an import of a NumPy array
 * through its fields costs one storage, and malloc + free was a tenth of it. Touched only under the GIL;
 * every entry came from dlx__storage_new, so free() takes it back. */
#define OBJECT_STORAGE_FREELIST_MAX 64
static dlx__storage *object_storage_freelist[OBJECT_STORAGE_FREELIST_MAX];
static int object_storage_freelist_len;

dlx__storage *dlx__py_storage_of_object(PyObject *owner, void *data, DLDevice device) {
  dlx__storage *s;
  if (object_storage_freelist_len > 0) {
    s = object_storage_freelist[--object_storage_freelist_len];
    dlx__storage_init(s, release_object, owner, data, device);
  } else {
    s = new_or_raise(release_object, owner, data, device);
    if (s == NULL) return NULL;
  }
  Py_INCREF(owner);
  return s;
}

void dlx__py_storage_drop(dlx__storage *s) {
  /* the sole reference to an object's storage: release_object's work without its GIL round trip (this
   * thread holds the GIL), and the struct kept */
  if (s != NULL && s->release == release_object && dlx__storage_is_sole(s)) {
    PyObject *owner = s->ctx;
    if (object_storage_freelist_len < OBJECT_STORAGE_FREELIST_MAX) {
      object_storage_freelist[object_storage_freelist_len++] = s;
    } else {
      free(s);
    }
    Py_DECREF(owner); /* last: the owner's dealloc may run Python code that makes or drops storages */
    return;
  }
  dlx__storage_release(s);
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

int dlx__py_copy_compact(const dlx_view *src, PyObject *exc, dlx__storage **storage, dlx_view *out) {
  dlx_status st = dlx__storage_copy_compact(src, "copy", storage, out);
  if (st != DLX_OK) {
    dlx__py_raise(st, exc);
    return -1;
  }
  return 0;
}

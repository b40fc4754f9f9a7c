#include "storage.h"

#include <stdlib.h>
#include <string.h>

dlx_storage *dlx_storage_new(storage_kind kind, void *base, PyObject *owner) {
  dlx_storage *s = malloc(sizeof *s);
  if (s == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  atomic_init(&s->refs, 1);
  s->kind = kind;
  s->base = base;
  s->owner = owner;
  Py_XINCREF(owner);
  return s;
}

dlx_storage *dlx_storage_alloc(size_t nbytes, int zero) {
  /* 64 bytes: a cache line, and enough for any vector load a kernel may use */
  size_t padded = (nbytes + 63u) & ~(size_t)63u;
  if (padded < nbytes) {
    PyErr_NoMemory();
    return NULL;
  }
  void *p = aligned_alloc(64, padded ? padded : 64);
  if (p == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  if (zero) memset(p, 0, padded ? padded : 64);
  dlx_storage *s = dlx_storage_new(STORAGE_OWNED, p, NULL);
  if (s == NULL) free(p);
  return s;
}

/* Python is usable from this thread only while the interpreter is up and not tearing down. */
static int python_alive(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

void dlx_storage_decref(dlx_storage *s) {
  if (s == NULL) return;
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  switch (s->kind) {
    case STORAGE_OWNED:
      free(s->base);
      break;
    case STORAGE_VERSIONED: {
      DLManagedTensorVersioned *m = s->base;
      /* A producer's deleter (NumPy's, PyTorch's) may need Python; after finalization calling it can
       * crash, so the memory is left to the process's exit instead. */
      if (m->deleter != NULL && python_alive()) m->deleter(m);
      break;
    }
    case STORAGE_LEGACY: {
      DLManagedTensor *m = s->base;
      if (m->deleter != NULL && python_alive()) m->deleter(m);
      break;
    }
    case STORAGE_PYOBJECT:
      if (python_alive()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(s->owner);
        PyGILState_Release(g);
      }
      break;
  }
  free(s);
}

/* Refcounted memory behind dlx.Tensor objects and the capsules dlx exports.
 *
 * Why not a PyObject: the deleter of a capsule dlx exports may run on any thread, without the GIL,
 * even during or after interpreter finalization (DLPack edge case 8). An atomic count in plain C lets
 * that deleter release its reference without touching Python at all. */
#ifndef DLX_PY_STORAGE_H
#define DLX_PY_STORAGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdatomic.h>

#include "dlx/dlpack.h"

typedef enum storage_kind {
  STORAGE_OWNED,     /* dlx's own allocation: free(base) */
  STORAGE_VERSIONED, /* an imported DLManagedTensorVersioned: call its deleter */
  STORAGE_LEGACY,    /* an imported DLManagedTensor: call its deleter */
  STORAGE_PYOBJECT   /* memory kept alive by a Python object: Py_DECREF it under the GIL */
} storage_kind;

typedef struct dlx_storage {
  atomic_long refs;
  storage_kind kind;
  void *base;      /* OWNED: the allocation; VERSIONED / LEGACY: the managed tensor */
  PyObject *owner; /* PYOBJECT */
} dlx_storage;

/* New storage with one reference, or NULL with MemoryError set. */
dlx_storage *dlx_storage_new(storage_kind kind, void *base, PyObject *owner);
/* New owned storage of nbytes (64-byte aligned, zeroed when zero is set); NULL with MemoryError set. */
dlx_storage *dlx_storage_alloc(size_t nbytes, int zero);

static inline void dlx_storage_incref(dlx_storage *s) { atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); }
/* Safe on any thread, with or without the GIL, during or after finalization. */
void dlx_storage_decref(dlx_storage *s);

#endif

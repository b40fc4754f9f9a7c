/* The Python module's side of the one ownership layer (src/exchange/storage.h): dlx.Tensor objects hold a
 * core dlx__storage, the same refcounted memory C tensors use. Only what Python adds lives here: release
 * callbacks that know about the interpreter, and allocation / copies that raise Python exceptions.
 *
 * Why the storage is not a PyObject: the deleter of a capsule dlx exports may run on any thread, without
 * the GIL, even during or after interpreter finalization (DLPack edge case 8). The core's atomic count
 * lets that deleter release its reference without touching Python at all. */
#ifndef DLX_PYEXT_STORAGE_H
#define DLX_PYEXT_STORAGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "exchange/storage.h"
#include "tensor/memory.h"

/* Storage that runs a producer's deleter when released, unless the interpreter is finalizing or gone (a
 * producer's deleter, NumPy's or PyTorch's, may need Python; the memory is then left to the process's
 * exit). NULL + MemoryError. */
dlx__storage *dlx__py_storage_of_versioned(DLManagedTensorVersioned *m);
dlx__storage *dlx__py_storage_of_legacy(DLManagedTensor *m);
/* Storage of memory kept alive by a Python object: the reference is dropped under the GIL on release
 * (skipped once the interpreter is gone). NULL + MemoryError. */
dlx__storage *dlx__py_storage_of_object(PyObject *owner, void *data, DLDevice device);
/* Drops a reference to s (NULL: nothing) from a thread that holds the GIL: dlx__storage_release, faster
 * for the last reference to an object's storage (no GIL round trip, the struct reused). */
void dlx__py_storage_drop(dlx__storage *s);


/* New dlx-owned storage of nbytes on device, in the kind of memory at like (NULL: none) where device has
 * several (dlx__storage_alloc_like). NULL + exception. */
dlx__storage *dlx__py_storage_alloc(DLDevice device, const void *like, uint64_t nbytes, int zero);
/* A compact copy of src (dlx__storage_copy_compact). -1 + exc (MemoryError when out of memory): BufferError
 * where the DLPack standard speaks (from_dlpack, __dlpack__), ValueError where the Array API does (asarray)
 * and for the engine's copies (reshape). */
int dlx__py_copy_compact(const dlx_view *src, PyObject *exc, dlx__storage **storage, dlx_view *out);

#endif

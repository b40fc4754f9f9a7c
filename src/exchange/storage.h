/* Internal: the one ownership layer. A dlx__storage is refcounted memory shared by tensors, their views
 * and the managed tensors exported from them, in C (src/tensor) and in the Python module (src/pyext).
 *
 * When the last reference goes, the storage's release callback runs exactly once, on whatever thread that
 * happens (DLPack allows any), and the struct is freed. What release does depends on who owns the memory:
 *  - dlx's own allocation (dlx__storage_alloc in src/tensor, above the backends): the backend that
 *    allocated it frees it;
 *  - a producer's managed tensor (dlx__storage_of_managed*): its deleter runs;
 *  - anything else (the Python module: an object kept alive, or a deleter that must not run once the
 *    interpreter is finalizing): the caller's own callback.
 * The count is a plain C atomic, so a release needs no lock and no interpreter (an export's deleter may
 * run on a C thread after Py_FinalizeEx).
 *
 * Exports (export.c): one allocation holding the managed tensor, its shape and its strides, and one
 * storage reference; the deleter drops that reference and frees the block. */
#ifndef DLX_EXCHANGE_STORAGE_H
#define DLX_EXCHANGE_STORAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/view.h"

/* Runs once, when the last reference goes: ctx and ptr as given to dlx__storage_new. */
typedef void (*dlx__release_fn)(void *ctx, void *ptr, DLDevice device);

typedef struct dlx__storage dlx__storage;

typedef struct dlx__storage {
  _Atomic int64_t refs;
  void *ptr;     /* the memory, or the managed tensor (what release gets) */
  DLDevice device;
  dlx__release_fn release; /* NULL: nothing to release */
  void *ctx;
  /* The event of dlx_tensor_record: opaque here. The layer that records one (src/tensor/memory.c) creates
   * it from a device's memory half (event_owner, event_device) under its own lock, and event_release, set
   * with it, runs once before release and destroys it. */
  void *event;
  const void *event_owner;
  int32_t event_device;
  void (*event_release)(dlx__storage *s);
} dlx__storage;

/* s (memory of sizeof *s that free() accepts) as a new storage with one reference: what dlx__storage_new
 * does after its malloc. For a layer that keeps released structs for reuse (the Python module's object
 * storages, src/pyext/storage.c). */
static inline void dlx__storage_init(dlx__storage *s, dlx__release_fn release, void *ctx, void *ptr,
                                     DLDevice device) {
  /* no event until one is recorded (src/tensor/memory.c) */
  *s = (dlx__storage){.ptr = ptr, .device = device, .release = release, .ctx = ctx};
  atomic_init(&s->refs, 1);
}

/* Whether the caller's reference to s is the only one and no event is recorded: then nobody else can
 * reach s (a retain needs a reference), and the caller may run the release itself and reuse the struct
 * instead of calling dlx__storage_release. acquire: the writes of every earlier holder, which released
 * with acq_rel, happen before. */
static inline bool dlx__storage_is_sole(dlx__storage *s) {
  return atomic_load_explicit(&s->refs, memory_order_acquire) == 1 && s->event == NULL;
}

/* New storage with one reference, or NULL when out of memory (release is NOT called then: the caller
 * still owns what it meant to hand over). */
DLX__SHARED dlx__storage *dlx__storage_new(dlx__release_fn release, void *ctx, void *ptr, DLDevice device);

/* Storage that runs m's deleter when released. NULL when out of memory (m untouched). */
DLX__SHARED dlx__storage *dlx__storage_of_managed_versioned(DLManagedTensorVersioned *m);
DLX__SHARED dlx__storage *dlx__storage_of_managed(DLManagedTensor *m);

static inline dlx__storage *dlx__storage_retain(dlx__storage *s) {
  atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
  return s;
}
/* Any thread, with or without an interpreter. NULL is a no-op. */
DLX__SHARED void dlx__storage_release(dlx__storage *s);

/* ---- exports (export.c) ---------------------------------------------------------------------------- */

/* n int64 extents or strides from src to dst. Most tensors have rank 4 or less: those are fixed-size
 * copies, which the compiler inlines as moves, where a call to memcpy costs more than the copy (a few
 * percent of an export or an import, measured). */
static inline void dlx__copy_dims(int64_t *dst, const int64_t *src, int32_t n) {
  switch (n) {
    case 0: return;
    case 1: memcpy(dst, src, 1 * sizeof(int64_t)); return;
    case 2: memcpy(dst, src, 2 * sizeof(int64_t)); return;
    case 3: memcpy(dst, src, 3 * sizeof(int64_t)); return;
    case 4: memcpy(dst, src, 4 * sizeof(int64_t)); return;
    default: memcpy(dst, src, (size_t)n * sizeof(int64_t)); return;
  }
}

/* v (whose memory s holds) as a managed tensor in one allocation that keeps s alive. Flags: read-only
 * and padded sub-byte from v, plus extra_flags (DLPACK_FLAG_BITMASK_IS_COPIED). */
DLX__SHARED dlx_status dlx__export_versioned(dlx__storage *s, const dlx_view *v, uint64_t extra_flags, const char *fn,
                                 DLManagedTensorVersioned **out);
/* The same as a pre-1.0 DLManagedTensor (no flags: the caller decides whether v may travel that way). */
DLX__SHARED dlx_status dlx__export_legacy(dlx__storage *s, const dlx_view *v, const char *fn, DLManagedTensor **out);
/* Managed tensors exported and not yet deleted, process-wide (a test hook). Exports are counted from the
 * first call on (none before it: the count costs every export two locked instructions), so compare
 * counts taken after a first call. */
DLX__SHARED int64_t dlx__exports_alive(void);

#endif

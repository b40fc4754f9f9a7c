/* Refcounted storage (storage.h): dlx's allocations, producers' managed tensors, and callers' memory. */
#include <stdlib.h>

#include "core/error_internal.h"
#include "exchange/storage.h"

dlx__storage *dlx__storage_new(dlx__release_fn release, void *ctx, void *ptr, DLDevice device) {
  dlx__storage *s = malloc(sizeof *s);
  if (s != NULL) dlx__storage_init(s, release, ctx, ptr, device);
  return s;
}

void dlx__storage_release(dlx__storage *s) {
  if (s == NULL) return;
  /* acq_rel: every user's writes happen before the release that follows the last reference */
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  /* a recorded event first: it may hold the memory back until the last recorded use is done */
  if (s->event != NULL && s->event_release != NULL) s->event_release(s);
  if (s->release != NULL) s->release(s->ctx, s->ptr, s->device);
  free(s);
}

/* ---- producers' managed tensors ----------------------------------------------------------------- */

static void release_versioned(void *ctx, void *ptr, DLDevice device) {
  (void)ptr, (void)device;
  DLManagedTensorVersioned *m = ctx;
  if (m->deleter != NULL) m->deleter(m);
}

static void release_legacy(void *ctx, void *ptr, DLDevice device) {
  (void)ptr, (void)device;
  DLManagedTensor *m = ctx;
  if (m->deleter != NULL) m->deleter(m);
}

dlx__storage *dlx__storage_of_managed_versioned(DLManagedTensorVersioned *m) {
  return dlx__storage_new(release_versioned, m, NULL, m->dl_tensor.device);
}

dlx__storage *dlx__storage_of_managed(DLManagedTensor *m) {
  return dlx__storage_new(release_legacy, m, NULL, m->dl_tensor.device);
}

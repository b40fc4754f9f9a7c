/* Internal: CUDA events kept with a tensor's storage (dlx_tensor_record / dlx_tensor_wait, src/tensor/memory.c).
 * Defined by the CUDA backend (cuda/device.c, cuda/memory.c), or by cuda_absent.c in a build without it,
 * where each says so (no event can exist there, so the release side is never reached). Streams and events
 * are cudaStream_t / cudaEvent_t passed as void *; device is a checked CUDA device id. */
#ifndef DLX_BACKENDS_CUDA_EVENTS_H
#define DLX_BACKENDS_CUDA_EVENTS_H

#include <stdint.h>

#include "dlx/error.h"

/* A new event on device (timing off). fn names the caller in messages. */
dlx_status dlx__cuda_event_create(int32_t device, void **event, const char *fn);
/* Record event on stream (a stream of device), after the work queued there so far. */
dlx_status dlx__cuda_event_record(int32_t device, void *event, void *stream, const char *fn);
/* stream waits for the event's last record, without blocking the host. */
dlx_status dlx__cuda_event_wait(int32_t device, void *event, void *stream, const char *fn);
/* Destroy event; with host_wait, wait for its last record first. Errors are ignored (this runs at
 * release, on any thread, possibly after the runtime shut down). */
void dlx__cuda_event_destroy(int32_t device, void *event, int host_wait);
/* The caching allocator's block at ptr (device memory it handed out) is not reused before event has
 * completed: the block's stream waits for it, so the free recorded there comes after. */
void dlx__cuda_guard_block(void *ptr, void *event);

#endif

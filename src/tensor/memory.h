/* Internal: allocation and compact copies for tensors (memory.c), on top of src/exchange/storage.h. */
#ifndef DLX_TENSOR_MEMORY_H
#define DLX_TENSOR_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange/storage.h"

/* New storage owning bytes of device memory from its backend (64-byte aligned, zeroed when zero; huge
 * pages for large host blocks). fn names the caller in messages. */
dlx_status dlx__storage_alloc(DLDevice device, uint64_t bytes, bool zero, const char *fn, dlx__storage **out);
/* The same for a tensor made from the one whose data is at like (an op's result, a copy, empty_like): in
 * the same kind of memory where device has several (the backend's alloc_like: oneAPI host and shared USM
 * stay so). like NULL: as dlx__storage_alloc. */
dlx_status dlx__storage_alloc_like(DLDevice device, const void *like, uint64_t bytes, bool zero, const char *fn,
                                   dlx__storage **out);

/* A compact (row-major, padded if src is) copy of src (dlx_copy: any strides, packed sub-byte included)
 * in new storage: on src's device in src's kind of memory (dlx__storage_alloc_like), or on cpu:0 for any
 * host-accessible src (a copy of pinned or managed memory is plain host memory). *out_view describes it,
 * writable. */
dlx_status dlx__storage_copy_compact(const dlx_view *src, const char *fn, dlx__storage **out, dlx_view *out_view);

/* ---- events (dlx_tensor_record / dlx_tensor_wait) -------------------------------------------------- */

/* Record s's event on stream after the work queued there so far; device is the memory's DLPack device
 * (the view's). stream NULL: dlx's current stream of that device. Host memory (cpu, cuda_host,
 * rocm_host): DLX_OK, nothing to order. CUDA device memory: on its device; managed memory: on cuda:0
 * (DLPack labels it device 0). Other devices: DLX_ERR_UNSUPPORTED. Without the CUDA backend, or without
 * the device, the error of dlx/cuda.h. fn names the caller in messages. */
dlx_status dlx__storage_record(dlx__storage *s, DLDevice device, void *stream, const char *fn);
/* stream (NULL: dlx's current stream) waits for s's last recorded event; DLX_OK when none was recorded.
 * The same device rules and errors. */
dlx_status dlx__storage_wait(dlx__storage *s, DLDevice device, void *stream, const char *fn);

#endif

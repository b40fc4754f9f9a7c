/* Internal: allocation and compact copies for tensors (memory.c), on top of src/exchange/storage.h. */
#ifndef DLX_TENSOR_MEMORY_H
#define DLX_TENSOR_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange/storage.h"

/* New storage owning bytes of device memory from its backend (64-byte aligned, zeroed when zero; huge
 * pages for large host blocks). fn names the caller in messages. */
dlx_status dlx__storage_alloc(DLDevice device, uint64_t bytes, bool zero, const char *fn, dlx_storage **out);

/* A compact (row-major, padded if src is) copy of src (dlx_copy: any strides, packed sub-byte included)
 * in new storage: on src's device, or on cpu:0 for any host-accessible src (a copy of pinned or managed
 * memory is plain host memory). *out_view describes it, writable. */
dlx_status dlx__storage_copy_compact(const dlx_view *src, const char *fn, dlx_storage **out, dlx_view *out_view);

#endif

/* Internal to the CPU backend: what its files share beyond the loops (loops.h). */
#ifndef DLX_BACKENDS_CPU_CPU_H
#define DLX_BACKENDS_CPU_CPU_H

#include "backends/backend.h"

/* Host memory (alloc.c): the backend's alloc and free entries, and the cache of freed large blocks. */
dlx_status dlx__cpu_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
void dlx__cpu_free(DLDevice device, void *ptr);

typedef struct dlx__cpu_cache_counts {
  uint64_t blocks, bytes;         /* what the cache holds now */
  uint64_t max_blocks, max_bytes; /* its bounds (DLX_CPU_CACHE_BLOCKS, DLX_CPU_CACHE_BYTES) */
  uint64_t hits, misses;          /* large allocations served from it, and not, since the start */
} dlx__cpu_cache_counts;
void dlx__cpu_cache_stats(dlx__cpu_cache_counts *out);
/* Unmap every cached block; returns the bytes released. */
uint64_t dlx__cpu_cache_empty(void);
/* Tests: set the bounds (emptying the cache), as the environment variables would. */
void dlx__cpu_cache_configure(uint64_t max_bytes, uint64_t max_blocks);

/* The reduce entry of dlx__cpu_compute (reduce.c). */
dlx_status dlx__cpu_reduce(const dlx__red_op *op);

/* The gather and mask_gather entries of dlx__cpu_compute (gather.c). */
dlx_status dlx__cpu_gather(const dlx__gather_op *op);
dlx_status dlx__cpu_mask_gather(const dlx__mask_op *op);

/* The gemm entry of dlx__cpu_compute (gemm_cblas.c): CBLAS, or DLX_ERR_UNSUPPORTED without it. */
dlx_status dlx__cpu_gemm(const dlx__gemm_call *call);

#endif

/* Internal: the persistent thread pool behind large ops (src/backends/cpu/pool.c).
 *
 * One job at a time: dlx__parallel_for splits n_chunks chunks over the caller and up to
 * dlx_get_num_threads() - 1 pool workers, and returns when every chunk has run. A call that finds the
 * pool busy (another thread's job) or that comes from inside a job (a worker, or the caller while it
 * runs chunks) runs all its chunks on the calling thread: nested and concurrent callers never
 * oversubscribe the machine. Chunks must be independent, so the result never depends on which thread
 * ran which chunk. The caller runs chunks too and waits only for chunks other threads have started. */
#ifndef DLX_BACKENDS_CPU_POOL_H
#define DLX_BACKENDS_CPU_POOL_H

#include <stdint.h>

typedef void (*dlx__pool_task)(void *ctx, int64_t chunk);

/* Run fn(ctx, c) for every c in [0, n_chunks); returns after all of them. Never fails: when workers
 * cannot be started the caller runs the chunks itself. */
void dlx__parallel_for(int64_t n_chunks, dlx__pool_task fn, void *ctx);

/* Threads a job started now may use (dlx_get_num_threads(), or 1 inside a job). */
int dlx__pool_threads_available(void);

/* For tests: jobs handed to the workers (rather than run serially) since the process started. */
int64_t dlx__pool_parallel_jobs(void);

#endif

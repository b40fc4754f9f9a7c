/* The thread pool behind large ops: persistent workers, started lazily, one job at a time.
 *
 * Design, with the reasons:
 *  - The caller takes part in its own job. Chunks are claimed one at a time from a shared counter, and
 *    the caller waits only for chunks that were claimed, never for a worker to wake up: a worker the
 *    scheduler runs late (a loaded machine) finds the job finished and goes back to sleep, so a job is
 *    never slower than the caller doing it alone plus one wake-up call. Ops cut their work into a few
 *    chunks per thread for the same reason (load balance).
 *  - The claim counter carries the job's generation: a late worker of an earlier job cannot claim (or
 *    run) a chunk of the next one; once its claim succeeds, the job cannot finish before that chunk
 *    does, so the job's function and context stay valid while it runs.
 *  - A second job that arrives while one runs (another thread, or a nested call from a chunk) does not
 *    queue: it runs on its caller alone. Threaded callers (a Python thread pool over dlx) therefore never
 *    run more than dlx_get_num_threads() workers plus themselves, instead of T x T threads.
 *  - Each worker sleeps on its own condition variable and only the participants of a job are signalled,
 *    so a 2-chunk job on a 64-core machine does not wake 63 threads.
 *  - Workers and the waiting caller spin briefly before sleeping: back-to-back ops (the common case in a
 *    loop) then skip the futex round trip; the spin is short so that an oversubscribed machine loses
 *    little to it.
 *  - Workers block every signal, so that signals (Ctrl-C in Python) reach the application's threads.
 *  - fork(): the child has no workers, so an atfork handler resets the pool there (Python's
 *    multiprocessing forks); the parent's prepare handler waits for a running job to finish, so the
 *    pool's locks are never copied while held.
 *  - At exit (or dlclose) a destructor stops and joins the workers when the pool is idle; workers of a
 *    pool still busy at exit are left to the process teardown. Nothing here aborts.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT; also pthread and sysconf declarations under -std=c11 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "backends/cpu/pool.h"
#include "dlx/ops.h"

#define POOL_MAX_THREADS 256
/* Polls of the job word (each with a pause hint) before a thread goes to sleep: some microseconds,
 * about the cost of one futex wake-up round trip. */
#define POOL_SPIN 1000
/* Jobs carry their chunk count in 23 bits of the job word; larger jobs run on the caller. */
#define POOL_MAX_CHUNKS ((int64_t)1 << 23)

#if defined(__x86_64__) || defined(__i386__)
#define POOL_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define POOL_PAUSE() __asm__ __volatile__("yield")
#else
#define POOL_PAUSE() ((void)0)
#endif

typedef struct worker {
  pthread_t thread;
  pthread_cond_t cv;
  int index;          /* 1.. ; the caller of a job is 0 */
  uint32_t start_gen; /* the generation when it was created */
} worker;

/* job word: generation (32 bits) | participants, the caller included (9 bits) | chunks (23 bits) */
#define JOB_GEN(w) ((uint32_t)((w) >> 32))
#define JOB_PARTICIPANTS(w) ((int)(((w) >> 23) & 0x1FFu))
#define JOB_CHUNKS(w) ((int64_t)((w) & 0x7FFFFFu))
/* claim word: generation (32 bits) | next chunk to claim (32 bits) */
#define CLAIM_GEN(c) ((uint32_t)((c) >> 32))
#define CLAIM_NEXT(c) ((int64_t)((c) & 0xFFFFFFFFu))

static struct {
  pthread_mutex_t run_lock; /* held by the thread whose job owns the workers */
  pthread_mutex_t mu;       /* guards sleeping and waking */
  pthread_cond_t done_cv;
  worker workers[POOL_MAX_THREADS];
  int nworkers;  /* started (only grows, except in a forked child) */
  bool shutdown; /* under mu */
  bool dead;     /* after the destructor: run everything serially */
  _Atomic uint64_t job;
  _Atomic uint64_t claim;
  _Atomic int64_t done; /* chunks of the current job that have finished */
  /* The job; written before the claim word is published. */
  dlx__pool_task fn;
  void *ctx;
} pool = {.run_lock = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER};

static _Atomic int requested_threads; /* 0: the default */
static _Atomic int64_t parallel_jobs;
static _Thread_local bool in_job; /* a worker, or a caller running its chunks */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static int count_cpus(void) {
#if defined(__linux__) && defined(CPU_COUNT)
  /* The affinity mask (taskset, cgroups cpusets) is what this process may actually run on. */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n < POOL_MAX_THREADS ? n : POOL_MAX_THREADS;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n < POOL_MAX_THREADS ? (int)n : POOL_MAX_THREADS;
}

/* Counted once: every op asks, and the count is a system call (the affinity mask at first use wins). */
static int default_threads(void) {
  static _Atomic int cached;
  int n = atomic_load_explicit(&cached, memory_order_relaxed);
  if (n == 0) {
    n = count_cpus();
    atomic_store_explicit(&cached, n, memory_order_relaxed);
  }
  return n;
}

void dlx_set_num_threads(int n) {
  if (n > POOL_MAX_THREADS) n = POOL_MAX_THREADS;
  atomic_store(&requested_threads, n > 0 ? n : 0);
}

int dlx_get_num_threads(void) {
  int n = atomic_load(&requested_threads);
  return n > 0 ? n : default_threads();
}

int dlx__pool_threads_available(void) { return in_job ? 1 : dlx_get_num_threads(); }

int64_t dlx__pool_parallel_jobs(void) { return atomic_load(&parallel_jobs); }

/* Claim and run chunks of job gen (n chunks) until none is left or the job is no longer current. */
static void run_chunks(uint32_t gen, int64_t n) {
  for (;;) {
    uint64_t c = atomic_load_explicit(&pool.claim, memory_order_acquire);
    if (CLAIM_GEN(c) != gen || CLAIM_NEXT(c) >= n) return;
    if (!atomic_compare_exchange_weak_explicit(&pool.claim, &c, c + 1, memory_order_acq_rel, memory_order_acquire))
      continue;
    /* the job cannot finish before this chunk does: fn and ctx are the job's */
    pool.fn(pool.ctx, CLAIM_NEXT(c));
    if (atomic_fetch_add_explicit(&pool.done, 1, memory_order_acq_rel) + 1 == n) {
      pthread_mutex_lock(&pool.mu);
      pthread_cond_signal(&pool.done_cv);
      pthread_mutex_unlock(&pool.mu);
    }
  }
}

static bool wants(uint64_t job, uint32_t seen_gen, int index) {
  return JOB_GEN(job) != seen_gen && index < JOB_PARTICIPANTS(job);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  in_job = true; /* ops called from a chunk on a worker run serially */
  /* The generation current when the thread was created, not when it first runs: the job that created
   * it may already be posted by then, and the worker should help with it. */
  uint32_t seen = w->start_gen;
  for (;;) {
    uint64_t job = 0;
    bool go = false;
    for (int i = 0; i < POOL_SPIN; ++i) {
      job = atomic_load_explicit(&pool.job, memory_order_acquire);
      if (wants(job, seen, w->index)) {
        go = true;
        break;
      }
      POOL_PAUSE();
    }
    if (!go) {
      pthread_mutex_lock(&pool.mu);
      for (;;) {
        if (pool.shutdown) {
          pthread_mutex_unlock(&pool.mu);
          return NULL;
        }
        job = atomic_load_explicit(&pool.job, memory_order_acquire);
        if (wants(job, seen, w->index)) break;
        pthread_cond_wait(&w->cv, &pool.mu);
      }
      pthread_mutex_unlock(&pool.mu);
    }
    seen = JOB_GEN(job);
    run_chunks(seen, JOB_CHUNKS(job));
  }
}

/* After fork() the child has the parent's memory but none of its threads. */
static void atfork_prepare(void) { pthread_mutex_lock(&pool.run_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&pool.run_lock); }
static void atfork_child(void) {
  pthread_mutex_init(&pool.run_lock, NULL);
  pthread_mutex_init(&pool.mu, NULL);
  pthread_cond_init(&pool.done_cv, NULL);
  for (int i = 0; i < pool.nworkers; ++i) pthread_cond_init(&pool.workers[i].cv, NULL);
  pool.nworkers = 0;
  pool.shutdown = false;
}
static void register_atfork(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

/* Start workers until there are `want` (run_lock held). Returns how many exist; a failure to create a
 * thread only means fewer helpers. */
static int grow(int want) {
  if (want > POOL_MAX_THREADS - 1) want = POOL_MAX_THREADS - 1;
  if (pool.nworkers >= want) return pool.nworkers;
  pthread_once(&atfork_once, register_atfork);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* inherited by the new threads */
  while (pool.nworkers < want) {
    worker *w = &pool.workers[pool.nworkers];
    w->index = pool.nworkers + 1;
    w->start_gen = JOB_GEN(atomic_load_explicit(&pool.job, memory_order_relaxed));
    if (pthread_cond_init(&w->cv, NULL) != 0) break;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
      pthread_cond_destroy(&w->cv);
      break;
    }
    ++pool.nworkers;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return pool.nworkers;
}

static void run_serial(int64_t n_chunks, dlx__pool_task fn, void *ctx) {
  bool was = in_job;
  in_job = true;
  for (int64_t c = 0; c < n_chunks; ++c) fn(ctx, c);
  in_job = was;
}

void dlx__parallel_for(int64_t n_chunks, dlx__pool_task fn, void *ctx) {
  if (n_chunks <= 0) return;
  int threads = in_job ? 1 : dlx_get_num_threads();
  if (threads > n_chunks) threads = (int)n_chunks;
  if (threads <= 1 || n_chunks >= POOL_MAX_CHUNKS || pthread_mutex_trylock(&pool.run_lock) != 0) {
    run_serial(n_chunks, fn, ctx);
    return;
  }
  int helpers = pool.dead ? 0 : grow(threads - 1);
  if (helpers > threads - 1) helpers = threads - 1;
  if (helpers == 0) {
    pthread_mutex_unlock(&pool.run_lock);
    run_serial(n_chunks, fn, ctx);
    return;
  }
  pool.fn = fn;
  pool.ctx = ctx;
  atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
  const uint32_t gen = JOB_GEN(atomic_load_explicit(&pool.job, memory_order_relaxed)) + 1u;
  /* release: fn, ctx and done are visible to whoever claims through the new claim word */
  atomic_store_explicit(&pool.claim, (uint64_t)gen << 32, memory_order_release);
  pthread_mutex_lock(&pool.mu);
  atomic_store_explicit(&pool.job, (uint64_t)gen << 32 | (uint64_t)(helpers + 1) << 23 | (uint64_t)n_chunks,
                        memory_order_release);
  for (int i = 0; i < helpers; ++i) pthread_cond_signal(&pool.workers[i].cv);
  pthread_mutex_unlock(&pool.mu);

  in_job = true;
  run_chunks(gen, n_chunks);
  in_job = false;

  /* Every chunk is claimed now; wait for the ones still running elsewhere. */
  bool done = false;
  for (int i = 0; i < POOL_SPIN && !done; ++i) {
    done = atomic_load_explicit(&pool.done, memory_order_acquire) == n_chunks;
    if (!done) POOL_PAUSE();
  }
  if (!done) {
    pthread_mutex_lock(&pool.mu);
    while (atomic_load_explicit(&pool.done, memory_order_acquire) != n_chunks) pthread_cond_wait(&pool.done_cv, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
  }
  atomic_fetch_add_explicit(&parallel_jobs, 1, memory_order_relaxed);
  pthread_mutex_unlock(&pool.run_lock);
}

/* Stop and join idle workers when the library is unloaded or the process exits, so that no thread runs
 * code that is about to disappear. A pool busy at that moment is left alone (never a hang at exit). */
__attribute__((destructor)) static void pool_shutdown(void) {
  if (pthread_mutex_trylock(&pool.run_lock) != 0) return;
  pool.dead = true;
  pthread_mutex_lock(&pool.mu);
  pool.shutdown = true;
  for (int i = 0; i < pool.nworkers; ++i) pthread_cond_signal(&pool.workers[i].cv);
  pthread_mutex_unlock(&pool.mu);
  for (int i = 0; i < pool.nworkers; ++i) pthread_join(pool.workers[i].thread, NULL);
  pool.nworkers = 0;
  pthread_mutex_unlock(&pool.run_lock);
}

/* Tests for src/backends/cpu/pool.c: dlx__parallel_for, dlx__pool_threads_available, dlx__pool_parallel_jobs
 * and the public dlx_set_num_threads / dlx_get_num_threads of dlx/ops.h.
 *
 * What pool.h and pool.c promise, checked without any timing: every chunk of [0, n) runs exactly once, and
 * before the call returns, on at most dlx_get_num_threads() threads (the caller and the job's workers); a
 * job started inside a job runs serially on its caller, and so does one that finds another thread's job
 * holding the workers; the job counter counts exactly the jobs handed to workers; a late worker (the
 * claim word carries the job's generation) never runs a chunk of a job that has returned; workers block
 * every signal; the thread count is process-wide, clamped, and reset by n <= 0; a forked child runs jobs
 * with fresh workers. Several application threads at once, with nested and back-to-back jobs, finish (no
 * deadlock) with every job complete. */
#define _GNU_SOURCE /* fork, waitpid, pthread, sched_yield */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

#include "backends/cpu/pool.h"
#include "dlx/ops.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define CPU ((DLDevice){kDLCPU, 0})

static dlx_view vec(void *data, DLDataType dt, int64_t n) {
  dlx_view v;
  dlx_status st = dlx_view_init(&v, data, dt, CPU, 1, &n, NULL);
  CHECK_OK(st);
  return v;
}

/* Threads that ran the chunks of one job (who[c]: the thread of chunk c). */
static int distinct_threads(const pthread_t *who, int64_t n) {
  int distinct = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool seen = false;
    for (int64_t j = 0; j < i && !seen; ++j) seen = pthread_equal(who[i], who[j]) != 0;
    distinct += !seen;
  }
  return distinct;
}

/* ---- the thread count ------------------------------------------------------------------------------- */

static void test_num_threads(void) {
  const int def = dlx_get_num_threads();
  CHECK(def >= 1);
  dlx_set_num_threads(3);
  CHECK_EQ(dlx_get_num_threads(), 3);
  dlx_set_num_threads(-4);
  CHECK_EQ(dlx_get_num_threads(), def);
  dlx_set_num_threads(1000000);
  CHECK(dlx_get_num_threads() >= 1 && dlx_get_num_threads() <= 1024);
  dlx_set_num_threads(0);
  CHECK_EQ(dlx_get_num_threads(), def);
}

static void *set_five(void *arg) {
  int *seen = arg;
  dlx_set_num_threads(5);
  seen[0] = dlx_get_num_threads();
  return NULL;
}

/* n <= 0 (any of them) resets to the default; outside a job the threads available are the setting; the
 * setting is one for the process, whichever thread makes it. */
static void test_num_threads_reset(void) {
  const int def = dlx_get_num_threads();
  static const int resets[] = {0, -1, -4, INT_MIN};
  for (size_t i = 0; i < sizeof resets / sizeof resets[0]; ++i) {
    for (int n = 1; n <= 8; n *= 2) {
      dlx_set_num_threads(n);
      CHECK_EQ(dlx_get_num_threads(), n);
      CHECK_EQ(dlx__pool_threads_available(), n);
    }
    dlx_set_num_threads(resets[i]);
    CHECK_EQ(dlx_get_num_threads(), def);
    CHECK_EQ(dlx__pool_threads_available(), def);
  }
  /* clamped, never above what the pool can hold, and still a usable count */
  dlx_set_num_threads(INT_MAX);
  CHECK(dlx_get_num_threads() >= 1 && dlx_get_num_threads() <= 1024);
  CHECK_EQ(dlx__pool_threads_available(), dlx_get_num_threads());
  /* set from another thread, seen here */
  int seen[1] = {0};
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, set_five, seen), 0);
  pthread_join(th, NULL);
  CHECK_EQ(seen[0], 5);
  CHECK_EQ(dlx_get_num_threads(), 5);
  dlx_set_num_threads(0);
  CHECK_EQ(dlx_get_num_threads(), def);
}

/* ---- every chunk once ------------------------------------------------------------------------------- */

typedef struct once_ctx {
  int64_t n;
  _Atomic int *hits;
  pthread_t *who;
  _Atomic int out_of_range;
  _Atomic int not_serial_inside; /* dlx__pool_threads_available() != 1 in a chunk */
} once_ctx;

static void once_chunk(void *p, int64_t c) {
  once_ctx *o = p;
  if (c < 0 || c >= o->n) {
    atomic_fetch_add(&o->out_of_range, 1);
    return;
  }
  atomic_fetch_add(&o->hits[c], 1);
  o->who[c] = pthread_self();
  if (dlx__pool_threads_available() != 1) atomic_fetch_add(&o->not_serial_inside, 1);
}

/* One job of n chunks at the current setting: every chunk once, on at most min(threads, n) threads, the
 * counter up by one exactly when the job went to the workers. */
static void run_once_job(int64_t n, int threads) {
  const int64_t m = n > 0 ? n : 1;
  once_ctx o;
  o.n = n;
  o.hits = malloc((size_t)m * sizeof *o.hits);
  o.who = malloc((size_t)m * sizeof *o.who);
  for (int64_t i = 0; i < m; ++i) atomic_init(&o.hits[i], 0);
  atomic_init(&o.out_of_range, 0);
  atomic_init(&o.not_serial_inside, 0);
  const int64_t before = dlx__pool_parallel_jobs();
  dlx__parallel_for(n, once_chunk, &o);
  const int64_t handed = dlx__pool_parallel_jobs() - before;
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += atomic_load(&o.hits[i]) != 1;
  if (n <= 0) wrong += atomic_load(&o.hits[0]) != 0;
  CHECK_EQ(wrong, 0);
  CHECK_EQ(atomic_load(&o.out_of_range), 0);
  CHECK_EQ(atomic_load(&o.not_serial_inside), 0);
  CHECK_EQ(handed, threads > 1 && n >= 2 ? 1 : 0);
  if (n > 0) {
    const int used = distinct_threads(o.who, n);
    CHECK(used >= 1 && used <= threads && used <= n);
  }
  /* the caller is out of the job again */
  CHECK_EQ(dlx__pool_threads_available(), dlx_get_num_threads());
  if (wrong || handed != (threads > 1 && n >= 2 ? 1 : 0))
    fprintf(stderr, "    job of %lld chunks on %d threads: %d chunks wrong, %lld jobs handed\n", (long long)n,
            threads, wrong, (long long)handed);
  free(o.hits);
  free(o.who);
}

static void test_every_chunk_once(void) {
  static const int64_t counts[] = {-3, 0, 1, 2, 3, 7, 1000};
  static const int threads[] = {1, 2, 4, 8};
  const size_t nc = sizeof counts / sizeof counts[0];
  for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
    dlx_set_num_threads(threads[t]);
    for (size_t c = 0; c < nc; ++c) run_once_job(counts[c], threads[t]);
  }
  /* back to the default, with 0 and with a negative count */
  dlx_set_num_threads(0);
  for (size_t c = 0; c < nc; ++c) run_once_job(counts[c], dlx_get_num_threads());
  dlx_set_num_threads(8);
  dlx_set_num_threads(-1);
  for (size_t c = 0; c < nc; ++c) run_once_job(counts[c], dlx_get_num_threads());
  dlx_set_num_threads(0);
}

/* The thread count may change while a job runs: it applies to jobs started afterwards. */
static void set_three_chunk(void *p, int64_t c) {
  if (c == 0) dlx_set_num_threads(3);
  once_chunk(p, c);
}

static void test_num_threads_changed_mid_job(void) {
  dlx_set_num_threads(4);
  once_ctx o;
  enum { N = 200 };
  _Atomic int hits[N];
  pthread_t who[N];
  o.n = N;
  o.hits = hits;
  o.who = who;
  for (int i = 0; i < N; ++i) atomic_init(&hits[i], 0);
  atomic_init(&o.out_of_range, 0);
  atomic_init(&o.not_serial_inside, 0);
  dlx__parallel_for(N, set_three_chunk, &o);
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += atomic_load(&hits[i]) != 1;
  CHECK_EQ(wrong, 0);
  CHECK(distinct_threads(who, N) <= 4);
  CHECK_EQ(dlx_get_num_threads(), 3);
  run_once_job(N, 3);
  dlx_set_num_threads(0);
}

/* Jobs of 2^23 chunks or more do not fit the job word (pool.c): they run on the caller, every chunk once. */
static void byte_chunk(void *p, int64_t c) { atomic_fetch_add(&((_Atomic unsigned char *)p)[c], 1); }

static void test_chunk_count_limit(void) {
  const int64_t n = (int64_t)1 << 23;
  _Atomic unsigned char *hits = malloc((size_t)n);
  for (int64_t i = 0; i < n; ++i) atomic_init(&hits[i], 0);
  dlx_set_num_threads(2);
  const int64_t before = dlx__pool_parallel_jobs();
  dlx__parallel_for(n, byte_chunk, (void *)hits);
  CHECK_EQ(dlx__pool_parallel_jobs(), before);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += atomic_load(&hits[i]) != 1;
  CHECK_EQ(wrong, 0);
  dlx_set_num_threads(0);
  free((void *)hits);
}

/* ---- nested jobs ------------------------------------------------------------------------------------ */

typedef struct nest_ctx {
  _Atomic int64_t sum;
  _Atomic int inner_parallel;
} nest_ctx;

static void inner_chunk(void *ctx, int64_t c) { atomic_fetch_add(&((nest_ctx *)ctx)->sum, c + 1); }

static void outer_chunk(void *ctx, int64_t c) {
  nest_ctx *n = ctx;
  /* inside a job everything runs serially on this thread */
  if (dlx__pool_threads_available() != 1) atomic_fetch_add(&n->inner_parallel, 1);
  const int64_t before = dlx__pool_parallel_jobs();
  dlx__parallel_for(4, inner_chunk, ctx);
  if (dlx__pool_parallel_jobs() != before) atomic_fetch_add(&n->inner_parallel, 1);
  atomic_fetch_add(&n->sum, 1000 * (c + 1));
}

static void test_pool_nested(void) {
  dlx_set_num_threads(4);
  nest_ctx n = {0, 0};
  dlx__parallel_for(8, outer_chunk, &n);
  /* every chunk ran exactly once: 1000 * (1 + ... + 8) + 8 * (1 + 2 + 3 + 4) */
  CHECK_EQ(atomic_load(&n.sum), 36000 + 80);
  CHECK_EQ(atomic_load(&n.inner_parallel), 0);
  dlx__parallel_for(0, inner_chunk, &n); /* nothing */
  dlx_set_num_threads(0);
}

typedef struct deep_ctx {
  _Atomic int violations; /* a nested chunk off its caller's thread, or a pool available inside a job */
  _Atomic int64_t runs;   /* innermost chunks */
} deep_ctx;

typedef struct level_ctx {
  deep_ctx *d;
  pthread_t owner; /* the thread that started this (nested) job */
  int depth;
} level_ctx;

static void level_chunk(void *p, int64_t c) {
  level_ctx *l = p;
  if (!pthread_equal(pthread_self(), l->owner) && l->depth > 0) atomic_fetch_add(&l->d->violations, 1);
  if (dlx__pool_threads_available() != 1) atomic_fetch_add(&l->d->violations, 1);
  if (l->depth == 2) {
    atomic_fetch_add(&l->d->runs, 1);
    return;
  }
  level_ctx next = {l->d, pthread_self(), l->depth + 1};
  dlx__parallel_for(3 + c % 5, level_chunk, &next); /* more chunks than threads, three levels */
  if (dlx__pool_threads_available() != 1) atomic_fetch_add(&l->d->violations, 1);
}

/* A job started from a chunk runs all its chunks on that chunk's thread (whether the outer chunk runs on
 * a worker or on the caller), at every depth, and is not counted; the caller is out of the job after. */
static void test_nested_runs_on_caller(void) {
  for (int threads = 2; threads <= 8; threads *= 2) {
    dlx_set_num_threads(threads);
    for (int64_t outer = 1; outer <= 16; outer *= 4) {
      deep_ctx d;
      atomic_init(&d.violations, 0);
      atomic_init(&d.runs, 0);
      level_ctx top = {&d, pthread_self(), 0};
      const int64_t before = dlx__pool_parallel_jobs();
      dlx__parallel_for(outer, level_chunk, &top);
      CHECK_EQ(dlx__pool_parallel_jobs() - before, outer >= 2 ? 1 : 0);
      int64_t want = 0;
      for (int64_t c = 0; c < outer; ++c)
        for (int64_t c2 = 0; c2 < 3 + c % 5; ++c2) want += 3 + c2 % 5;
      CHECK_EQ(atomic_load(&d.runs), want);
      CHECK_EQ(atomic_load(&d.violations), 0);
      CHECK_EQ(dlx__pool_threads_available(), threads); /* a serial (1-chunk) job restores it too */
    }
  }
  dlx_set_num_threads(0);
}

/* ---- back-to-back jobs ------------------------------------------------------------------------------ */

typedef struct count_ctx {
  _Atomic int hits[64];
} count_ctx;

static void count_chunk(void *ctx, int64_t c) { atomic_fetch_add(&((count_ctx *)ctx)->hits[c], 1); }

/* Many short jobs back to back: workers wake late, find jobs finished or half taken, and must never run a
 * chunk twice, skip one, or touch a finished job's context (a stack frame reused by the next job). */
static void test_pool_rapid_jobs(void) {
  for (int threads = 2; threads <= 4; ++threads) {
    dlx_set_num_threads(threads);
    for (int job = 0; job < 2000; ++job) {
      count_ctx ctx;
      const int n = 1 + job % 64;
      for (int i = 0; i < 64; ++i) atomic_init(&ctx.hits[i], 0);
      dlx__parallel_for(n, count_chunk, &ctx);
      int wrong = 0;
      for (int i = 0; i < 64; ++i) wrong += atomic_load(&ctx.hits[i]) != (i < n ? 1 : 0);
      CHECK_EQ(wrong, 0);
      if (wrong) break;
    }
  }
  dlx_set_num_threads(0);
}

typedef struct fence_ctx {
  _Atomic int open; /* 1 while its dlx__parallel_for runs */
  _Atomic int hits[64];
  pthread_t who[64];
} fence_ctx;

static _Atomic int64_t late_chunks;

static void fence_chunk(void *p, int64_t c) {
  fence_ctx *f = p;
  if (!atomic_load(&f->open)) atomic_fetch_add(&late_chunks, 1);
  atomic_fetch_add(&f->hits[c], 1);
  f->who[c] = pthread_self();
}

/* Back-to-back jobs over two contexts used in turn, with the thread count changing between jobs (workers
 * of an 8-thread job still spinning when a 3-thread job starts must leave it alone; workers left out of one
 * job take part in the next): no chunk ever runs on a context whose job has returned, and no job runs on
 * more threads than it was started with. */
static void test_no_chunk_after_return(void) {
  static const int threads[] = {2, 8, 3, 1, 4, 6, 2};
  static fence_ctx ring[2];
  atomic_store(&late_chunks, 0);
  int wrong = 0, too_many = 0;
  for (int job = 0; job < 4000 && wrong == 0; ++job) {
    dlx_set_num_threads(threads[job % 7]);
    fence_ctx *f = &ring[job & 1];
    const int n = 1 + (job * 7) % 64;
    for (int i = 0; i < 64; ++i) atomic_store(&f->hits[i], 0);
    atomic_store(&f->open, 1);
    dlx__parallel_for(n, fence_chunk, f);
    atomic_store(&f->open, 0);
    for (int i = 0; i < 64; ++i) wrong += atomic_load(&f->hits[i]) != (i < n ? 1 : 0);
    too_many += distinct_threads(f->who, n) > threads[job % 7];
  }
  CHECK_EQ(wrong, 0);
  CHECK_EQ(too_many, 0);
  CHECK_EQ(atomic_load(&late_chunks), 0);
  dlx_set_num_threads(0);
}

typedef struct slow_ctx {
  pthread_t caller;
  _Atomic int worker_started;
  _Atomic int finished[8];
  volatile double sink[8];
} slow_ctx;

/* Chunks on workers do far more work than the caller's, and the caller's first chunk waits (bounded) for
 * a worker to start one, so the caller runs out of chunks while a worker is still busy. */
static void slow_chunk(void *p, int64_t c) {
  slow_ctx *s = p;
  const bool on_caller = pthread_equal(pthread_self(), s->caller);
  if (on_caller)
    for (long i = 0; i < 20000000L && atomic_load(&s->worker_started) == 0; ++i) sched_yield();
  else
    atomic_store(&s->worker_started, 1);
  const long iters = on_caller ? 10 : 3000000;
  double x = (double)c;
  for (long i = 0; i < iters; ++i) x = x * 0.999999 + 1.0;
  s->sink[c] = x;
  atomic_store(&s->finished[c], 1);
}

/* The call returns only when every chunk has finished, including the ones still running on workers after
 * the caller has claimed the last chunk (the caller waits for them, past its short spin). */
static void test_returns_after_every_chunk(void) {
  dlx_set_num_threads(4);
  for (int rep = 0; rep < 4; ++rep) {
    slow_ctx s;
    s.caller = pthread_self();
    atomic_init(&s.worker_started, 0);
    for (int i = 0; i < 8; ++i) atomic_init(&s.finished[i], 0);
    dlx__parallel_for(8, slow_chunk, &s);
    int unfinished = 0;
    for (int i = 0; i < 8; ++i) unfinished += atomic_load(&s.finished[i]) != 1;
    CHECK_EQ(unfinished, 0);
  }
  dlx_set_num_threads(0);
}

typedef struct yield_ctx {
  pthread_t who[64];
} yield_ctx;

static void yield_chunk(void *p, int64_t c) {
  ((yield_ctx *)p)->who[c] = pthread_self();
  for (int i = 0; i < 20; ++i) sched_yield(); /* let any thread that wants a chunk run */
}

/* A 2-thread job right after an 8-thread one: the wide job's workers, still spinning on the job word when
 * the narrow job is posted, are not among its participants and must not take any of its chunks. */
static void test_job_narrower_than_last(void) {
  int too_many = 0;
  for (int rep = 0; rep < 10; ++rep) {
    yield_ctx wide, narrow;
    dlx_set_num_threads(8);
    dlx__parallel_for(64, yield_chunk, &wide);
    dlx_set_num_threads(2);
    dlx__parallel_for(64, yield_chunk, &narrow);
    too_many += distinct_threads(narrow.who, 64) > 2;
  }
  CHECK_EQ(too_many, 0);
  dlx_set_num_threads(0);
}

/* ---- concurrent callers ----------------------------------------------------------------------------- */

#define CONC_N 200000
typedef struct conc_arg {
  float *a, *o;
  int id;
  int ok;
} conc_arg;

static void *conc_thread(void *p) {
  conc_arg *c = p;
  dlx_view va = vec(c->a, DLX_DTYPE_FLOAT32, CONC_N), vo = vec(c->o, DLX_DTYPE_FLOAT32, CONC_N);
  dlx_scalar_buf sb;
  dlx_view s;
  c->ok = 1;
  for (int rep = 0; rep < 20; ++rep) {
    if (dlx_scalar_view(&s, &sb, DLX_DTYPE_FLOAT32, c->id + rep, 0) != DLX_OK) c->ok = 0;
    if (dlx_binary(DLX_OP_ADD, &vo, &va, &s) != DLX_OK) c->ok = 0;
    for (int i = 0; i < CONC_N; i += 997)
      if (c->o[i] != c->a[i] + (float)(c->id + rep)) c->ok = 0;
  }
  return NULL;
}

/* Several application threads running ops at once: one gets the pool, the others run serially; all
 * results are right. */
static void test_pool_concurrent_callers(void) {
  dlx_set_num_threads(2);
  pthread_t th[4];
  conc_arg args[4];
  for (int t = 0; t < 4; ++t) {
    args[t].a = malloc(CONC_N * sizeof(float));
    args[t].o = malloc(CONC_N * sizeof(float));
    args[t].id = t * 100;
    for (int i = 0; i < CONC_N; ++i) args[t].a[i] = (float)(i % 1000);
    pthread_create(&th[t], NULL, conc_thread, &args[t]);
  }
  for (int t = 0; t < 4; ++t) {
    pthread_join(th[t], NULL);
    CHECK_EQ(args[t].ok, 1);
    free(args[t].a);
    free(args[t].o);
  }
  dlx_set_num_threads(0);
}

enum { CALLERS = 6, CALLER_JOBS = 300, MAX_CHUNKS = 200 };

typedef struct sum_ctx {
  int64_t weight;
  _Atomic int64_t sum;
  _Atomic int hits[MAX_CHUNKS];
  _Atomic int inside_not_serial;
} sum_ctx;

static void sum_chunk(void *p, int64_t c) {
  sum_ctx *s = p;
  atomic_fetch_add(&s->hits[c], 1);
  atomic_fetch_add(&s->sum, (c + 1) * s->weight);
  if (dlx__pool_threads_available() != 1) atomic_fetch_add(&s->inside_not_serial, 1);
  if (c % 50 == 7) { /* a nested job now and then: serial on this thread */
    count_ctx inner;
    for (int i = 0; i < 64; ++i) atomic_init(&inner.hits[i], 0);
    dlx__parallel_for(5, count_chunk, &inner);
    for (int i = 0; i < 64; ++i)
      if (atomic_load(&inner.hits[i]) != (i < 5)) atomic_fetch_add(&s->inside_not_serial, 1);
  }
}

typedef struct caller_arg {
  int id;
  int bad_jobs;
  int64_t jobs_to_pool; /* jobs that could have gone to the workers (n >= 2) */
} caller_arg;

static void *caller_main(void *p) {
  caller_arg *a = p;
  sum_ctx *s = malloc(sizeof *s);
  for (int j = 0; j < CALLER_JOBS; ++j) {
    const int64_t n = 1 + (a->id * 31 + j * 17) % MAX_CHUNKS;
    s->weight = a->id + 1;
    atomic_init(&s->sum, 0);
    atomic_init(&s->inside_not_serial, 0);
    for (int i = 0; i < MAX_CHUNKS; ++i) atomic_init(&s->hits[i], 0);
    dlx__parallel_for(n, sum_chunk, s);
    bool ok = atomic_load(&s->sum) == s->weight * n * (n + 1) / 2 && atomic_load(&s->inside_not_serial) == 0;
    for (int i = 0; i < MAX_CHUNKS; ++i) ok = ok && atomic_load(&s->hits[i]) == (i < n);
    a->bad_jobs += !ok;
    a->jobs_to_pool += n >= 2;
  }
  free(s);
  return NULL;
}

/* Application threads calling dlx__parallel_for at once (with nested jobs inside): the pool serves one
 * job at a time, the others run on their callers; every job is complete, and the calls all return. The
 * thread count changes under them, from the main thread, as it may from any thread. */
static void test_concurrent_raw_jobs(void) {
  dlx_set_num_threads(4);
  pthread_t th[CALLERS];
  caller_arg args[CALLERS];
  const int64_t before = dlx__pool_parallel_jobs();
  for (int t = 0; t < CALLERS; ++t) {
    args[t] = (caller_arg){t, 0, 0};
    CHECK_EQ(pthread_create(&th[t], NULL, caller_main, &args[t]), 0);
  }
  for (int i = 0; i < 200; ++i) {
    dlx_set_num_threads(2 + i % 3);
    sched_yield();
  }
  int64_t possible = 0;
  for (int t = 0; t < CALLERS; ++t) {
    pthread_join(th[t], NULL);
    CHECK_EQ(args[t].bad_jobs, 0);
    possible += args[t].jobs_to_pool;
  }
  const int64_t handed = dlx__pool_parallel_jobs() - before;
  /* at least the first job to find the pool free went to it; never more than the jobs that could */
  CHECK(handed >= 1 && handed <= possible);
  dlx_set_num_threads(0);
}

/* ---- signals and fork ------------------------------------------------------------------------------- */

typedef struct sig_ctx {
  pthread_t caller;
  _Atomic int worker_chunks;
  _Atomic int worker_unblocked; /* a worker chunk that could receive SIGINT, SIGTERM or SIGUSR1 */
} sig_ctx;

static void sig_chunk(void *p, int64_t c) {
  sig_ctx *s = p;
  (void)c;
  if (!pthread_equal(pthread_self(), s->caller)) {
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    if (!sigismember(&cur, SIGINT) || !sigismember(&cur, SIGTERM) || !sigismember(&cur, SIGUSR1))
      atomic_fetch_add(&s->worker_unblocked, 1);
    atomic_fetch_add(&s->worker_chunks, 1);
    return;
  }
  /* on the caller: leave the other chunk to a worker (bounded, so that a pool that could not start a
   * worker fails the check below instead of hanging) */
  for (long i = 0; i < 20000000L && atomic_load(&s->worker_chunks) == 0; ++i) sched_yield();
}

static bool same_mask(const sigset_t *a, const sigset_t *b) {
  for (int sig = 1; sig < 32; ++sig)
    if (sigismember(a, sig) != sigismember(b, sig)) return false;
  return true;
}

/* Workers block every signal (Ctrl-C must reach the application's threads), and starting them leaves the
 * caller's own mask as it was. 12 threads: more than any other test asks, so workers start here. */
static void test_workers_block_signals(void) {
  sigset_t mine, before, after;
  sigemptyset(&mine);
  sigaddset(&mine, SIGUSR2);
  pthread_sigmask(SIG_SETMASK, &mine, &before);
  pthread_sigmask(SIG_BLOCK, NULL, &mine);
  dlx_set_num_threads(12);
  run_once_job(12, 12); /* up to 11 workers started from this thread */
  pthread_sigmask(SIG_BLOCK, NULL, &after);
  CHECK(same_mask(&mine, &after));
  for (int rep = 0; rep < 3; ++rep) {
    sig_ctx s;
    s.caller = pthread_self();
    atomic_init(&s.worker_chunks, 0);
    atomic_init(&s.worker_unblocked, 0);
    dlx__parallel_for(2, sig_chunk, &s);
    CHECK(atomic_load(&s.worker_chunks) >= 1);
    CHECK_EQ(atomic_load(&s.worker_unblocked), 0);
  }
  pthread_sigmask(SIG_BLOCK, NULL, &after);
  CHECK(same_mask(&mine, &after));
  CHECK(sigismember(&after, SIGUSR2) && !sigismember(&after, SIGINT));
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  dlx_set_num_threads(0);
}

/* A forked child has none of the parent's workers: its ops must still run (and not wait forever). */
static void test_pool_fork(void) {
  enum { N = 300000 };
  float *a = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) a[i] = (float)i;
  dlx_view va = vec(a, DLX_DTYPE_FLOAT32, N);
  dlx_set_num_threads(2);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &va, &va, &va)); /* the parent's pool is up */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* ThreadSanitizer cannot start threads in a child of a threaded process: serial there */
    if (UNDER_TSAN) dlx_set_num_threads(1);
    int ok = dlx_binary(DLX_OP_ADD, &va, &va, &va) == DLX_OK && a[N - 1] == 4.0f * (float)(N - 1);
    _exit(ok ? 0 : 1);
  }
  CHECK(pid > 0);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &va, &va, &va)); /* the parent's pool still works */
  CHECK(a[N - 1] == 4.0f * (float)(N - 1));
  dlx_set_num_threads(0);
  free(a);
}

/* The same with raw jobs: the child starts its own workers (the job goes to them, counted once) and runs
 * every chunk once; exit status 1 + the first check that failed. */
static void test_pool_fork_raw(void) {
  dlx_set_num_threads(4);
  run_once_job(100, 4); /* the parent's workers are up */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    const int threads = UNDER_TSAN ? 1 : 3;
    dlx_set_num_threads(threads);
    count_ctx ctx;
    for (int i = 0; i < 64; ++i) atomic_init(&ctx.hits[i], 0);
    const int64_t before = dlx__pool_parallel_jobs();
    dlx__parallel_for(64, count_chunk, &ctx);
    for (int i = 0; i < 64; ++i)
      if (atomic_load(&ctx.hits[i]) != 1) _exit(2);
    if (dlx__pool_parallel_jobs() - before != (threads > 1 ? 1 : 0)) _exit(3);
    if (dlx__pool_threads_available() != threads) _exit(4);
    _exit(0);
  }
  CHECK(pid > 0);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  run_once_job(100, 4); /* and the parent's pool still works */
  dlx_set_num_threads(0);
}

static const dlx_test_case cases[] = {
    {"num_threads", test_num_threads},
    {"num_threads_reset", test_num_threads_reset},
    {"workers_block_signals", test_workers_block_signals},
    {"every_chunk_once", test_every_chunk_once},
    {"num_threads_changed_mid_job", test_num_threads_changed_mid_job},
    {"chunk_count_limit", test_chunk_count_limit},
    {"pool_nested", test_pool_nested},
    {"nested_runs_on_caller", test_nested_runs_on_caller},
    {"pool_rapid_jobs", test_pool_rapid_jobs},
    {"no_chunk_after_return", test_no_chunk_after_return},
    {"returns_after_every_chunk", test_returns_after_every_chunk},
    {"job_narrower_than_last", test_job_narrower_than_last},
    {"pool_concurrent_callers", test_pool_concurrent_callers},
    {"concurrent_raw_jobs", test_concurrent_raw_jobs},
    {"pool_fork", test_pool_fork},
    {"pool_fork_raw", test_pool_fork_raw},
};
DLX_TEST_MAIN(cases)

/* bench/bench_ops.c - the ops engine against the memory-bandwidth limit, in one run.
 *
 *   bench_ops [--quick] [--threads 1,2,...] [--n ELEMENTS]
 *
 * Every case runs on 16M float32 elements (a 4096 x 4096 matrix, 64 MiB per operand) by default, far
 * beyond every cache, so each op is bound by memory traffic. Before the ops, the same run measures a
 * STREAM-style baseline on the same arrays and thread count: "copy" (memcpy) and "add" (a plain
 * a[i] = b[i] + c[i] loop), each split over plain pthreads. Repetitions go round-robin over the
 * baselines and the cases, so that all see the same machine load. The table gives best-of-N wall time, ns per
 * element, GB/s (bytes the op must read and write, as STREAM counts them: no write-allocate traffic),
 * and the ratio to the STREAM figure with the same number of streams (add for ops with two inputs,
 * copy for the rest). A ratio near 1 means the op runs at the bandwidth limit; casts to the narrow
 * formats are the most arithmetic per byte and show how far they are from it.
 *
 * The loops run at the best instruction-set level the CPU has (printed in the title);
 * DLX_CPU_FEATURES=baseline|avx2|avx512 in the environment compares the levels.
 *
 * Benchmarks are programs, not tests: nothing here fails on timing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthreads under -std=c11 */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlx/dlx.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

/* The CPU backend's running instruction-set level (src/backends/cpu/dispatch.c; DLX_CPU_FEATURES picks
 * a lower one): the static library exports it. */
const char *dlx__cpu_variant(void);

#define CLOBBER(p) __asm__ volatile("" : : "r"(p) : "memory")

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int g_reps = 9;

/* ---- STREAM baselines over plain pthreads ------------------------------------------------------ */

typedef struct stream_job {
  float *a;
  const float *b, *c;
  int64_t begin, end;
  int kind; /* 0 copy, 1 add */
} stream_job;

static void *stream_worker(void *p) {
  stream_job *j = p;
  if (j->kind == 0) {
    memcpy(j->a + j->begin, j->b + j->begin, (size_t)(j->end - j->begin) * sizeof(float));
  } else {
    float *restrict a = j->a;
    const float *restrict b = j->b, *restrict c = j->c;
    for (int64_t i = j->begin; i < j->end; ++i) a[i] = b[i] + c[i];
  }
  CLOBBER(j->a);
  return NULL;
}

static void stream_run(int kind, int threads, float *a, const float *b, const float *c, int64_t n) {
  pthread_t th[64];
  stream_job jobs[64];
  for (int t = 0; t < threads; ++t) {
    jobs[t] = (stream_job){a, b, c, n * t / threads, n * (t + 1) / threads, kind};
    if (t > 0) pthread_create(&th[t], NULL, stream_worker, &jobs[t]);
  }
  stream_worker(&jobs[0]);
  for (int t = 1; t < threads; ++t) pthread_join(th[t], NULL);
}

static double time_stream(int kind, int threads, float *a, const float *b, const float *c, int64_t n) {
  double t0 = now_s();
  stream_run(kind, threads, a, b, c, n);
  return now_s() - t0;
}

/* ---- the ops ------------------------------------------------------------------------------------- */

typedef struct op_case {
  const char *name;
  int streams;         /* 3: two inputs and an output (vs STREAM add); 2: vs STREAM copy */
  double bytes_per_el; /* bytes read + written per output element */
} op_case;

enum {
  C_ADD,
  C_ADD_T,
  C_ADD_ROW,
  C_MUL_SCALAR,
  C_FILL,
  C_COPY_T,
  C_CAST_F16,
  C_CAST_BF16,
  C_CAST_F8,
  C_DEC_F16,
  C_DEC_F8,
  C_COUNT
};

static const op_case cases[C_COUNT] = {
    {"add contiguous", 3, 12},       {"add transposed a.T + b", 3, 12}, {"add row-broadcast a + row", 2, 8},
    {"mul by scalar", 2, 8},         {"fill", 2, 4},                    {"copy of a transposed view", 2, 8},
    {"cast f32->float16", 2, 6},     {"cast f32->bfloat16", 2, 6},      {"cast f32->float8_e4m3fn", 2, 5},
    {"cast float16->f32", 2, 6},     {"cast float8_e4m3fn->f32", 2, 5},
};

typedef struct arrays {
  dlx_view a, b, out, at, row, scalar, h, f8;
  dlx_scalar_buf sbuf;
} arrays;

static dlx_status run_case(int c, arrays *x) {
  switch (c) {
    case C_ADD: return dlx_binary(DLX_OP_ADD, &x->out, &x->a, &x->b);
    case C_ADD_T: return dlx_binary(DLX_OP_ADD, &x->out, &x->at, &x->b);
    case C_ADD_ROW: return dlx_binary(DLX_OP_ADD, &x->out, &x->a, &x->row);
    case C_MUL_SCALAR: return dlx_binary(DLX_OP_MUL, &x->out, &x->a, &x->scalar);
    case C_FILL: return dlx_fill(&x->out, &x->scalar);
    case C_COPY_T: return dlx_copy(&x->out, &x->at);
    case C_CAST_F16: return dlx_cast(&x->h, &x->a);
    case C_CAST_BF16: {
      dlx_view bf = x->h;
      bf.dtype = DLX_DTYPE_BFLOAT16;
      return dlx_cast(&bf, &x->a);
    }
    case C_CAST_F8: return dlx_cast(&x->f8, &x->a);
    case C_DEC_F16: return dlx_cast(&x->out, &x->h);
    default: return dlx_cast(&x->out, &x->f8);
  }
}

static double time_case(int c, arrays *x) {
  double t0 = now_s();
  run_case(c, x);
  CLOBBER(x->out.data);
  return now_s() - t0;
}

static void *alloc_touch(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  if (p == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  memset(p, 0, bytes); /* fault the pages in before any timing */
  return p;
}

int main(int argc, char **argv) {
  int64_t side = 4096;
  int threads_list[16] = {1, 2};
  int nthreads = 2;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      side = 2048;
      g_reps = 3;
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      nthreads = 0;
      for (char *s = argv[++i]; *s && nthreads < 16;) {
        threads_list[nthreads++] = (int)strtol(s, &s, 10);
        if (*s == ',') ++s;
      }
    } else if (strcmp(argv[i], "--side") == 0 && i + 1 < argc) {
      side = strtoll(argv[++i], NULL, 10);
    } else {
      fprintf(stderr, "usage: %s [--quick] [--threads 1,2,...] [--side N (N x N float32)]\n", argv[0]);
      return 2;
    }
  }
  const int64_t n = side * side;
  float *a = alloc_touch((size_t)n * 4), *b = alloc_touch((size_t)n * 4), *o = alloc_touch((size_t)n * 4);
  uint16_t *h = alloc_touch((size_t)n * 2);
  uint8_t *f8 = alloc_touch((size_t)n);
  float *row = alloc_touch((size_t)side * 4);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.25f;
    b[i] = (float)(i % 777) * 0.5f;
  }
  for (int64_t i = 0; i < side; ++i) row[i] = (float)i;

  arrays x;
  const DLDevice cpu = {kDLCPU, 0};
  const int64_t shape[2] = {side, side};
  int ok = dlx_view_init(&x.a, a, DLX_DTYPE_FLOAT32, cpu, 2, shape, NULL) == DLX_OK &&
           dlx_view_init(&x.b, b, DLX_DTYPE_FLOAT32, cpu, 2, shape, NULL) == DLX_OK &&
           dlx_view_init(&x.out, o, DLX_DTYPE_FLOAT32, cpu, 2, shape, NULL) == DLX_OK &&
           dlx_view_init(&x.h, h, DLX_DTYPE_FLOAT16, cpu, 2, shape, NULL) == DLX_OK &&
           dlx_view_init(&x.f8, f8, DLX_DTYPE_FLOAT8_E4M3FN, cpu, 2, shape, NULL) == DLX_OK &&
           dlx_view_init(&x.row, row, DLX_DTYPE_FLOAT32, cpu, 1, &side, NULL) == DLX_OK &&
           dlx_view_transpose(&x.a, &x.at) == DLX_OK &&
           dlx_scalar_view(&x.scalar, &x.sbuf, DLX_DTYPE_FLOAT32, 2.5, 0) == DLX_OK;
  if (!ok) {
    fprintf(stderr, "setup failed: %s\n", dlx_last_error());
    return 1;
  }

  printf("dlx ops vs STREAM: %lld x %lld float32 (%lld elements, %.0f MiB per operand), best of %d; cpu level %s\n",
         (long long)side, (long long)side, (long long)n, (double)n * 4 / 1048576.0, g_reps, dlx__cpu_variant());
  for (int ti = 0; ti < nthreads; ++ti) {
    const int threads = threads_list[ti] < 1 ? 1 : threads_list[ti] > 64 ? 64 : threads_list[ti];
    dlx_set_num_threads(threads);
    /* Round-robin repetitions: every case and both baselines see the same stretch of machine load (a
     * shared machine drifts by 2x over a run), and the best of each is kept. */
    double best[C_COUNT + 2];
    for (int c = 0; c < C_COUNT + 2; ++c) best[c] = 1e30;
    for (int c = 0; c < C_COUNT; ++c) {
      if (run_case(c, &x) != DLX_OK) { /* warm-up, and the one check of the status */
        fprintf(stderr, "%s failed: %s\n", cases[c].name, dlx_last_error());
        return 1;
      }
    }
    stream_run(0, threads, o, a, NULL, n);
    for (int r = 0; r < g_reps; ++r) {
      double t = time_stream(0, threads, o, a, NULL, n);
      if (t < best[C_COUNT]) best[C_COUNT] = t;
      t = time_stream(1, threads, o, a, b, n);
      if (t < best[C_COUNT + 1]) best[C_COUNT + 1] = t;
      for (int c = 0; c < C_COUNT; ++c) {
        t = time_case(c, &x);
        if (t < best[c]) best[c] = t;
      }
    }
    const double t_copy = best[C_COUNT], t_add = best[C_COUNT + 1];
    const double gb_copy = 8.0 * (double)n / t_copy / 1e9, gb_add = 12.0 * (double)n / t_add / 1e9;
    printf("\n== %d thread%s\n", threads, threads == 1 ? "" : "s");
    printf("%-30s %10s %8s %8s %12s\n", "case", "ms", "ns/el", "GB/s", "vs STREAM");
    printf("%-30s %10.2f %8.3f %8.2f %12s\n", "STREAM copy (memcpy)", t_copy * 1e3, t_copy * 1e9 / (double)n, gb_copy,
           "1.00 (copy)");
    printf("%-30s %10.2f %8.3f %8.2f %12s\n", "STREAM add (a[i]=b[i]+c[i])", t_add * 1e3, t_add * 1e9 / (double)n,
           gb_add, "1.00 (add)");
    for (int c = 0; c < C_COUNT; ++c) {
      const double t = best[c];
      const double gbs = cases[c].bytes_per_el * (double)n / t / 1e9;
      const double ref = cases[c].streams == 3 ? gb_add : gb_copy;
      printf("%-30s %10.2f %8.3f %8.2f %7.2f (%s)\n", cases[c].name, t * 1e3, t * 1e9 / (double)n, gbs, gbs / ref,
             cases[c].streams == 3 ? "add" : "copy");
    }
  }
  dlx_set_num_threads(0);
  free(a);
  free(b);
  free(o);
  free(h);
  free(f8);
  free(row);
  return 0;
}

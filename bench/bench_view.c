/* bench/bench_view.c - nanoseconds per call of DLTensor export and import, the "conversion costs
 * nanoseconds" promise of dlx, at rank 1, 2, 4, 8 and every import layout.
 *
 *   bench_view               full run: calibrated loops, best of 15 repetitions, a table with targets
 *   bench_view --quick       shorter loops (for scripts/demo.sh)
 *   bench_view --wall        time with CLOCK_MONOTONIC instead of the thread's CPU time
 *   bench_view --callgrind N N calls per case with callgrind client requests around each case: run it
 *                            under valgrind --tool=callgrind (scripts/bench.sh) to count instructions
 *   bench_view --list        the case names, one per line
 *
 * Import is dlx_view_from_dltensor with the full validation a consumer asks for (dtype, rank, memory
 * space, layout, alignment); export is dlx_view_to_dltensor into a caller-owned holder. The targets
 * (at rank <= 4: import 15 ns, export 8 ns; issue 30's, on the 2-core CI-class machines) are goals to
 * read against, not assertions: a benchmark never fails, and timing never goes in the test suite. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlx/dlx.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#endif
#endif
#ifndef BENCH_HAVE_CALLGRIND
#define BENCH_HAVE_CALLGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#define RUNNING_ON_VALGRIND 0
#endif

/* Keep the compiler from hoisting or dropping calls: the pointed-to memory may have changed. */
#define CLOBBER(p) __asm__ volatile("" : : "r"(p) : "memory")

enum { OP_IMPORT, OP_EXPORT };
static const char *const op_names[] = {"import", "export"};
static const char *const layout_names[] = {"STRIDE", "RIGHT", "LEFT", "ANY"};
static const double target_import_ns = 15.0; /* rank <= 4 */
static const double target_export_ns = 8.0;  /* rank <= 4 */

typedef struct bench_case {
  int op;
  int rank;
  dlx_layout layout;
  char name[32];
  /* inputs */
  int64_t shape[8];
  int64_t strides[8];
  DLTensor tensor;
  dlx_import_spec spec;
  dlx_view view;
} bench_case;

static _Alignas(64) float g_data[1 << 16];

/* Shape (2, 3, 4, 5, 2, 3, 2, 2)[:rank] and strides that the layout accepts:
 * RIGHT row-major, LEFT column-major, STRIDE row-major with padded rows (positive, not compact),
 * ANY with the outermost dimension reversed (negative) and a broadcast (zero) dimension. */
static void make_case(bench_case *c, int op, int rank, dlx_layout layout) {
  static const int64_t base_shape[8] = {2, 3, 4, 5, 2, 3, 2, 2};
  memset(c, 0, sizeof *c);
  c->op = op;
  c->rank = rank;
  c->layout = layout;
  snprintf(c->name, sizeof c->name, "%s_r%d_%s", op_names[op], rank, layout_names[layout]);
  for (int i = 0; i < rank; ++i) c->shape[i] = base_shape[i];
  int64_t acc = 1;
  switch (layout) {
    case DLX_LAYOUT_RIGHT:
      for (int i = rank - 1; i >= 0; --i) c->strides[i] = acc, acc *= c->shape[i];
      break;
    case DLX_LAYOUT_LEFT:
      for (int i = 0; i < rank; ++i) c->strides[i] = acc, acc *= c->shape[i];
      break;
    case DLX_LAYOUT_STRIDE:
      for (int i = rank - 1; i >= 0; --i) c->strides[i] = acc, acc *= c->shape[i] + (i == rank - 1 ? 3 : 0);
      break;
    default:
      for (int i = rank - 1; i >= 0; --i) c->strides[i] = acc, acc *= c->shape[i];
      c->strides[0] = -c->strides[0];
      if (rank > 1) c->strides[rank - 1 - (rank > 2)] = 0;
      break;
  }
  /* element 0 sits where the negative stride still stays inside g_data */
  int64_t span = acc * 2 + 64;
  c->tensor.data = g_data;
  c->tensor.byte_offset = (uint64_t)span * sizeof(float);
  c->tensor.device.device_type = kDLCPU;
  c->tensor.device.device_id = 0;
  c->tensor.ndim = rank;
  c->tensor.dtype = DLX_DTYPE_FLOAT32;
  c->tensor.shape = c->shape;
  c->tensor.strides = c->strides;
  c->spec.dtype = DLX_DTYPE_FLOAT32;
  c->spec.ndim = rank;
  c->spec.memspace = DLX_MEMSPACE_HOST;
  c->spec.layout = layout;
  c->spec.version = DLX_DLPACK_VERSION_NUM(1, 3);
  c->spec.alignment = 0; /* natural alignment of float32 is checked */
}

/* Runs n calls; returns a value that depends on every call so that nothing is dead code. */
static uint64_t run_calls(bench_case *c, int64_t n, dlx_view *view_out, dlx_dltensor *holder) {
  uint64_t sink = 0;
  if (c->op == OP_IMPORT) {
    for (int64_t i = 0; i < n; ++i) {
      CLOBBER(&c->tensor);
      dlx_status st = dlx_view_from_dltensor(view_out, &c->tensor, &c->spec);
      CLOBBER(view_out);
      sink += (uint64_t)st + (uint64_t)view_out->shape[0];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      CLOBBER(&c->view);
      dlx_status st = dlx_view_to_dltensor(&c->view, holder);
      CLOBBER(holder);
      sink += (uint64_t)st + (uint64_t)holder->tensor.ndim;
    }
  }
  return sink;
}

/* Thread CPU time by default: on a shared machine, time spent preempted is not charged to dlx.
 * --wall switches to CLOCK_MONOTONIC. */
static clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(g_clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t g_sink;

/* Best of `reps` timed loops of n calls, n calibrated so one loop takes about `loop_ms`. */
static double time_case(bench_case *c, double loop_ms, int reps) {
  dlx_view out;
  dlx_dltensor holder;
  int64_t n = 1000;
  for (;;) { /* calibrate */
    double t0 = now_ns();
    g_sink += run_calls(c, n, &out, &holder);
    double dt = now_ns() - t0;
    if (dt >= loop_ms * 1e6 * 0.5 || n >= (int64_t)1 << 40) {
      n = (int64_t)((double)n * (loop_ms * 1e6 / (dt > 1 ? dt : 1)));
      if (n < 1000) n = 1000;
      break;
    }
    n *= 4;
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_ns();
    g_sink += run_calls(c, n, &out, &holder);
    double per = (now_ns() - t0) / (double)n;
    if (per < best) best = per;
  }
  return best;
}

/* Validates every case once (so the table measures the success path) and prepares the export views. */
static int prepare(bench_case *c) {
  dlx_view v;
  dlx_status st = dlx_view_from_dltensor(&v, &c->tensor, &c->spec);
  if (st != DLX_OK) {
    fprintf(stderr, "bench_view: case %s: import failed: %s: %s\n", c->name, dlx_status_name(st), dlx_last_error());
    return -1;
  }
  c->view = v;
  if (c->op == OP_EXPORT) {
    dlx_dltensor h;
    st = dlx_view_to_dltensor(&c->view, &h);
    if (st != DLX_OK) {
      fprintf(stderr, "bench_view: case %s: export failed: %s: %s\n", c->name, dlx_status_name(st), dlx_last_error());
      return -1;
    }
  }
  return 0;
}

static const int ranks[] = {1, 2, 4, 8};
#define NCASES (2 * 4 * 4)

static int build_cases(bench_case *cases) {
  int k = 0;
  for (int op = 0; op < 2; ++op)
    for (int ri = 0; ri < 4; ++ri)
      for (int l = 0; l < 4; ++l) {
        static const dlx_layout order[4] = {DLX_LAYOUT_RIGHT, DLX_LAYOUT_LEFT, DLX_LAYOUT_STRIDE, DLX_LAYOUT_ANY};
        make_case(&cases[k], op, ranks[ri], order[l]);
        if (prepare(&cases[k]) != 0) return -1;
        ++k;
      }
  return k;
}

static double target_of(const bench_case *c) {
  if (c->rank > 4) return 0.0;
  return c->op == OP_EXPORT ? target_export_ns : target_import_ns;
}

static int run_timed(bench_case *cases, int n, int quick) {
  double loop_ms = quick ? 2.0 : 10.0;
  int reps = quick ? 5 : 15;
  printf("dlx %s: DLTensor export / import, float32, best of %d loops of ~%.0f ms each (%s)\n", DLX_VERSION_STRING,
         reps, loop_ms, g_clock == CLOCK_THREAD_CPUTIME_ID ? "thread CPU time" : "wall clock");
  printf("%-8s %4s  %-6s  %9s  %9s  %6s\n", "op", "rank", "layout", "ns/call", "target", "ratio");
  printf("%-8s %4s  %-6s  %9s  %9s  %6s\n", "--------", "----", "------", "---------", "---------", "------");
  int over = 0;
  for (int i = 0; i < n; ++i) {
    bench_case *c = &cases[i];
    double ns = time_case(c, loop_ms, reps);
    double target = target_of(c);
    char tbuf[16] = "-", rbuf[16] = "-";
    if (target > 0) {
      snprintf(tbuf, sizeof tbuf, "<= %.0f", target);
      snprintf(rbuf, sizeof rbuf, "%.2f", ns / target);
      if (ns > target) ++over;
    }
    printf("%-8s %4d  %-6s  %9.2f  %9s  %6s%s\n", op_names[c->op], c->rank, layout_names[c->layout], ns, tbuf, rbuf,
           target > 0 && ns > target ? "  over target" : "");
    fflush(stdout);
  }
  printf("ratio = ns/call / target (below 1 meets the target); %d case(s) over target. (sink %" PRIu64 ")\n", over,
         (uint64_t)(g_sink & 1));
  return 0;
}

/* One client-request dump per case; scripts/bench.sh reads the totals from the dump files. */
static int run_callgrind(bench_case *cases, int n, int64_t calls) {
  dlx_view out;
  dlx_dltensor holder;
  printf("callgrind client requests: %s\n", BENCH_HAVE_CALLGRIND ? "yes" : "no");
  printf("calls per case: %" PRId64 "\n", calls);
  if (BENCH_HAVE_CALLGRIND && !RUNNING_ON_VALGRIND) printf("(not running under valgrind: nothing is counted)\n");
  for (int i = 0; i < n; ++i) {
    CALLGRIND_ZERO_STATS;
    g_sink += run_calls(&cases[i], calls, &out, &holder);
    CALLGRIND_DUMP_STATS_AT(cases[i].name);
  }
  return 0;
}

int main(int argc, char **argv) {
  static bench_case cases[NCASES];
  int quick = 0, list = 0;
  int64_t callgrind_calls = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--wall") == 0) {
      g_clock = CLOCK_MONOTONIC;
    } else if (strcmp(argv[i], "--list") == 0) {
      list = 1;
    } else if (strcmp(argv[i], "--callgrind") == 0 && i + 1 < argc) {
      callgrind_calls = strtoll(argv[++i], NULL, 10);
      if (callgrind_calls <= 0) callgrind_calls = 1000;
    } else {
      fprintf(stderr, "usage: %s [--quick] [--wall] | --callgrind N | --list\n", argv[0]);
      return 2;
    }
  }
  int n = build_cases(cases);
  if (n < 0) return 1;
  if (list) {
    for (int i = 0; i < n; ++i) printf("%s\n", cases[i].name);
    return 0;
  }
  if (callgrind_calls > 0) return run_callgrind(cases, n, callgrind_calls);
  return run_timed(cases, n, quick);
}

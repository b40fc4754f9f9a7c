/* Development checker: where may a float32 math function round its double-double result twice (to double,
 * then to float32) instead of rounding it to odd first? Not part of the build.
 *
 * Build (from the repository root; GCC, x86-64):
 *   gcc -std=gnu11 -O2 -mavx2 -I src -I include bench/math/dev_plain.c -o dev_plain -lm -lpthread
 * Run:
 *   ./dev_plain FN [THREADS]     FN: log, log2, log10, log1p, sin or cos
 *
 * For every float32 input (2^32, a minute or two per function on 2 threads) it prints the inputs where
 * (float)(hi + lo) differs from (float) of the odd-rounded double, with both results: those are the
 * exceptions a twice-rounded float32 path must blend in (src/kernels/math_log.h, math_trig.h). The
 * odd-rounded result is the correct one (bench/math/exhaustive.c checks it against MPFR). It then checks
 * the shipped float32 function (dlx__<fn>f, and its first try dlx__<fn>f_try wherever dlx__m_undecided32
 * accepts it) against (float) of the odd-rounded dlx__wide_<fn> on every input, and prints the count of differences
 * (expected: 0; NaN results compare as NaN). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/math_log.h"
#include "kernels/math_log_try.h"
#include "kernels/math_trig.h"

#define CH 65536

static int fn; /* 0 log, 1 log2, 2 log10, 3 log1p, 4 sin, 5 cos */
static int nthreads = 2;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

#define f_of dlx__m_from32
#define b_of dlx__m_bits32

/* the double-double before the final rounding (hi + lo), and whether x is in the function's domain */
static int dd_of(float x, double *hi, double *lo) {
  if (fn < 3) {
    if (!(x > 0.0f && x <= 0x1.fffffep127f)) return 0;
    const dlx__mlog_dd s = dlx__mlog_sum(dlx__mlog_reduce_short((double)x), fn, 0, 0);
    *hi = s.hi, *lo = s.lo;
    return 1;
  }
  if (fn == 3) {
    if (!(x > -1.0f && x <= 0x1.fffffep127f) || x == 0.0f) return 0;
    const dlx__mlog_dd s = dlx__mlog_log1p_dd32(x);
    *hi = s.hi, *lo = s.lo;
    return 1;
  }
  const uint32_t u = b_of(x), ua = u & 0x7fffffffu;
  if (ua >= 0x7f800000u) return 0;
  const dlx__trig_res r = dlx__trig_f32_res(u, dlx__trig_reduce_f32(ua), fn - 4);
  *hi = r.neg ? -r.hi : r.hi, *lo = r.neg ? -r.lo : r.lo;
  return 1;
}

static double odd_of(double hi, double lo) {
  if (fn < 4) {
    dlx__mlog_dd s;
    s.hi = hi, s.lo = lo;
    return dlx__mlog_odd(s);
  }
  return dlx__trig_round_odd(hi, lo);
}

static float shipped(float x) {
  switch (fn) {
    case 0: return dlx__logf(x);
    case 1: return dlx__log2f(x);
    case 2: return dlx__log10f(x);
    case 3: return dlx__log1pf(x);
    case 4: return dlx__sinf(x);
    default: return dlx__cosf(x);
  }
}
/* the first try (kernels/math_common.h) */
static double try_of(float x) {
  switch (fn) {
    case 0: return dlx__logf_try(x);
    case 1: return dlx__log2f_try(x);
    case 2: return dlx__log10f_try(x);
    case 3: return dlx__log1pf_try(x);
    case 4: return dlx__sinf_try(x);
    default: return dlx__cosf_try(x);
  }
}
static double wide(float x) {
  switch (fn) {
    case 0: return dlx__wide_log(x);
    case 1: return dlx__wide_log2(x);
    case 2: return dlx__wide_log10(x);
    case 3: return dlx__wide_log1p(x);
    case 4: return dlx__wide_sin(x);
    default: return dlx__wide_cos(x);
  }
}

static int same(float a, float b) { return b_of(a) == b_of(b) || (a != a && b != b); }

typedef struct part {
  int t;
  uint64_t twice, bad, rejected;
} part;

static void *work(void *arg) {
  part *p = arg;
  for (uint64_t base = (uint64_t)p->t * CH; base < ((uint64_t)1 << 32); base += (uint64_t)nthreads * CH)
    for (uint32_t i = 0; i < CH; ++i) {
      const uint32_t u = (uint32_t)(base + i);
      const float x = f_of(u);
      double hi, lo;
      const float want = (float)wide(x);
      if (dd_of(x, &hi, &lo)) {
        const float odd = (float)odd_of(hi, lo), plain = (float)(hi + lo);
        if (!same(odd, plain)) {
          pthread_mutex_lock(&print_lock);
          printf("  twice-rounded differs: x 0x%08" PRIx32 ": odd 0x%08" PRIx32 ", twice 0x%08" PRIx32 "\n", u,
                 b_of(odd), b_of(plain));
          pthread_mutex_unlock(&print_lock);
          ++p->twice;
        }
      }
      int bad = !same(shipped(x), want);
      const double y = try_of(x);
      if (!dlx__m_undecided32(y)) bad |= !same((float)y, want);
      else ++p->rejected;
      if (bad && p->bad++ < 3) {
        pthread_mutex_lock(&print_lock);
        printf("  shipped differs: x 0x%08" PRIx32 "\n", u);
        pthread_mutex_unlock(&print_lock);
      }
    }
  return NULL;
}

int main(int argc, char **argv) {
  static const char *const names[] = {"log", "log2", "log10", "log1p", "sin", "cos"};
  fn = -1;
  for (int i = 0; argc > 1 && i < 6; ++i)
    if (strcmp(argv[1], names[i]) == 0) fn = i;
  if (argc > 2) nthreads = atoi(argv[2]);
  if (fn < 0 || nthreads < 1 || nthreads > 64) {
    fprintf(stderr, "usage: %s log|log2|log10|log1p|sin|cos [THREADS]\n", argv[0]);
    return 2;
  }
  pthread_t th[64];
  part parts[64];
  for (int t = 0; t < nthreads; ++t) {
    parts[t] = (part){t, 0, 0, 0};
    pthread_create(&th[t], NULL, work, &parts[t]);
  }
  uint64_t twice = 0, bad = 0, rejected = 0;
  for (int t = 0; t < nthreads; ++t) {
    pthread_join(th[t], NULL);
    twice += parts[t].twice;
    bad += parts[t].bad;
    rejected += parts[t].rejected;
  }
  printf("%s: %" PRIu64 " inputs where rounding twice differs; shipped float32 against the odd-rounded: %" PRIu64
         " differences; the first try rejects %" PRIu64 " inputs (special values and its far range included)\n",
         names[fn], twice, bad, rejected);
  return bad != 0;
}

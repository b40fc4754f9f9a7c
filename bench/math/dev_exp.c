/* The development checker of the exponential family (src/kernels/math_exp.h): exp, exp2, expm1, tanh.
 *
 * Build (from the repository root) and run:
 *   gcc -O2 -std=gnu11 -Wall -Wextra -I src -I include bench/math/dev_exp.c -o build-dev/dev_exp \
 *       -lmpfr -lgmp -lm -lpthread
 * Add -mtune-ctrl=use_gather (GCC 12; use_gather_8parts from GCC 13.2) to time the avx512 variant as the
 * library runs it: CMakeLists.txt compiles the avx512 loop files so, and the table reads become gathers.
 *   nice -n 10 build-dev/dev_exp [f32] [narrow] [f64 [COUNT]] [speed] [hard] [only FN] [range LO HI]
 * (no mode: all four; range: the float32 bit patterns LO..HI-1, in hex, for f32). Modes:
 *   f32     every one of the 2^32 float32 inputs, against the correctly rounded oracle (oracle.h's
 *           orc_f32), at four variants of the rule, all compiled in this file: "scalar" (called per
 *           element), and a vectorised loop at each CPU level of the library (src/backends/cpu/target.h):
 *           baseline (SSE2), avx2 (AVX2+F16C+FMA) and avx512 (F/BW/VL/DQ, 512-bit vectors, as the math loops), each under
 *           the same optimize pragma as the library's loops. Two threads split the range.
 *   narrow  every code of float16, bfloat16 and the float8/6/4 formats: dlx__wide_<f> of the decoded
 *           value, encoded once, against MPFR rounded to the format's own precision and subnormal range.
 *   f64     COUNT (default 10^7) random float64 inputs per function over its useful range (half uniform,
 *           half of log-uniform magnitude near 0) plus specials, against MPFR at 200 bits: max error in
 *           ulps; and the exact cases (exp(0), exp2(n), signed zeros, infinities, NaN) compared bit for bit.
 *   hard    (not run by default) a fast scan of all 2^32 inputs, without the oracle, for those whose
 *           double result lies within 2^-20 float32 ulps of a rounding boundary; MPFR decides them and
 *           the wrong ones are printed with their true value: where the exception list comes from.
 *   speed   16M float32 elements, one thread, ns/element of thread CPU time at each level (best of 5);
 *           float64 too.
 * Exit status 0 when nothing mismatched. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-math-errno", \
                     "no-trapping-math")
#endif

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/math_exp.h"
#include "oracle.h"

#define NFN 4
static const orc_fn fn_orc[NFN] = {ORC_EXP, ORC_EXP2, ORC_EXPM1, ORC_TANH};
static const char *const fn_name[NFN] = {"exp", "exp2", "expm1", "tanh"};

static float rule_f32(int f, float x) {
  switch (f) {
    case 0: return dlx__expf(x);
    case 1: return dlx__exp2f(x);
    case 2: return dlx__expm1f(x);
    default: return dlx__tanhf(x);
  }
}
static double rule_wide(int f, float x) {
  switch (f) {
    case 0: return dlx__wide_exp(x);
    case 1: return dlx__wide_exp2(x);
    case 2: return dlx__wide_expm1(x);
    default: return dlx__wide_tanh(x);
  }
}
static double rule_f64(int f, double x) {
  switch (f) {
    case 0: return dlx__exp(x);
    case 1: return dlx__exp2(x);
    case 2: return dlx__expm1(x);
    default: return dlx__tanh(x);
  }
}

/* the library's loop shape: a plain loop over contiguous arrays, one function per rule and level */
#define DEV_LOOP(SUF, NAME, T, RULE)                                             \
  static void NAME##_##SUF(const T *in, T *out, size_t n) {                    \
    for (size_t i = 0; i < n; ++i) out[i] = RULE(in[i]);                       \
  }
#define DEV_LOOPS(SUF)                                                           \
  DEV_LOOP(SUF, l32_exp, float, dlx__expf)                                       \
  DEV_LOOP(SUF, l32_exp2, float, dlx__exp2f)                                     \
  DEV_LOOP(SUF, l32_expm1, float, dlx__expm1f)                                   \
  DEV_LOOP(SUF, l32_tanh, float, dlx__tanhf)                                     \
  DEV_LOOP(SUF, l64_exp, double, dlx__exp)                                       \
  DEV_LOOP(SUF, l64_exp2, double, dlx__exp2)                                     \
  DEV_LOOP(SUF, l64_expm1, double, dlx__expm1)                                   \
  DEV_LOOP(SUF, l64_tanh, double, dlx__tanh)                                     \
  static void loop32_##SUF(int f, const float *in, float *out, size_t n) {      \
    (f == 0 ? l32_exp_##SUF : f == 1 ? l32_exp2_##SUF : f == 2 ? l32_expm1_##SUF : l32_tanh_##SUF)(in, out, n); \
  }                                                                              \
  static void loop64_##SUF(int f, const double *in, double *out, size_t n) {    \
    (f == 0 ? l64_exp_##SUF : f == 1 ? l64_exp2_##SUF : f == 2 ? l64_expm1_##SUF : l64_tanh_##SUF)(in, out, n); \
  }

DEV_LOOPS(baseline)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma")
DEV_LOOPS(avx2)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,prefer-vector-width=512")
DEV_LOOPS(avx512)
#pragma GCC pop_options
#define NLEVEL 3
#else
#define NLEVEL 1
#endif

typedef void (*loop32_fn)(int, const float *, float *, size_t);
typedef void (*loop64_fn)(int, const double *, double *, size_t);
static const char *const level_name[3] = {"baseline", "avx2", "avx512"};
static loop32_fn level32(int l) {
#if NLEVEL == 3
  if (l == 1) return loop32_avx2;
  if (l == 2) return loop32_avx512;
#endif
  (void)l;
  return loop32_baseline;
}
static loop64_fn level64(int l) {
#if NLEVEL == 3
  if (l == 1) return loop64_avx2;
  if (l == 2) return loop64_avx512;
#endif
  (void)l;
  return loop64_baseline;
}
static int level_ok(int l) {
#if NLEVEL == 3
  __builtin_cpu_init();
  if (l == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (l == 2) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                     __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
  return l == 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int same32(float a, float b) {
  return (a != a && b != b) || dlx__m_bits32(a) == dlx__m_bits32(b);
}

/* ---- f32: every input ------------------------------------------------------------------------- */

/* Past these bounds each function is saturated in float32 (exp: inf above 89 and 0 below -104, as
 * exp(-104) < 2^-150; exp2: 128 and -151; expm1: inf above 89, -1 below -18 as e^-18 < 2^-25; tanh: +-1
 * beyond 10). All four are monotone, so every input past a bound has the correctly rounded result the
 * oracle gives AT the bound, which is asked once; the long double libm is slow on huge arguments, and
 * this halves the run. Every input is still computed by every variant and compared. */
static const float sat_lo[NFN] = {-104.0f, -151.0f, -18.0f, -10.0f}, sat_hi[NFN] = {89.0f, 128.0f, 89.0f, 10.0f};

/* orc_f32 made faster: glibc's double functions first (exp and exp2 within 0.52 ulp, expm1 within 1,
 * tanh within 2: all within 2^-51 relative, glibc's manual's table of known maxima), with the same
 * rounding test as orc_f32's but the margin 2^-49; only when it cannot decide, orc_f32 itself (long double, then
 * MPFR). A result decided here is right: the true value lies on the same side of every boundary. The
 * x87 long double calls cost 3 to 4 times as much, which on a shared machine is the run's length. */
static float orc_fast(int f, float x, uint64_t *slow) {
  const double xd = (double)x;
  const double y = f == 0 ? exp(xd) : f == 1 ? exp2(xd) : f == 2 ? expm1(xd) : tanh(xd);
  if (y == y && y != 0 && !isinf(y)) {
    const float lo = (float)(y * (1 - 0x1p-49)), hi = (float)(y * (1 + 0x1p-49));
    if (lo == hi) return lo;
  }
  return orc_f32(fn_orc[f], x, slow);
}

#define NVAR (1 + NLEVEL) /* scalar, then the levels */
#define BLOCK 4096
typedef struct f32_job {
  int f;
  uint64_t lo, hi;
  uint64_t bad[NVAR], slow;
} f32_job;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int printed;

static void report_bad(int f, int v, float x, float got, float want) {
  pthread_mutex_lock(&print_lock);
  if (printed++ < 40)
    printf("  MISMATCH %s %s x=%a (0x%08" PRIx32 ") got %a want %a (wide %a)\n", fn_name[f],
           v == 0 ? "scalar" : level_name[v - 1], (double)x, dlx__m_bits32(x), (double)got, (double)want,
           rule_wide(f, x));
  pthread_mutex_unlock(&print_lock);
}

static void *f32_worker(void *arg) {
  f32_job *job = (f32_job *)arg;
  static __thread float in[BLOCK], out[NLEVEL][BLOCK];
  int ok[NLEVEL];
  for (int l = 0; l < NLEVEL; ++l) ok[l] = level_ok(l);
  const float lo = sat_lo[job->f], hi = sat_hi[job->f];
  const float want_lo = orc_f32(fn_orc[job->f], lo, NULL), want_hi = orc_f32(fn_orc[job->f], hi, NULL);
  for (uint64_t b = job->lo; b < job->hi; b += BLOCK) {
    const size_t n = (size_t)(job->hi - b < BLOCK ? job->hi - b : BLOCK);
    for (size_t i = 0; i < n; ++i) in[i] = dlx__m_from32((uint32_t)(b + i));
    for (int l = 0; l < NLEVEL; ++l)
      if (ok[l]) level32(l)(job->f, in, out[l], n);
    for (size_t i = 0; i < n; ++i) {
      const float x = in[i];
      const float want = x <= lo ? want_lo : x >= hi ? want_hi : orc_fast(job->f, x, &job->slow);
      const float s = rule_f32(job->f, in[i]);
      if (!same32(s, want)) {
        ++job->bad[0];
        report_bad(job->f, 0, in[i], s, want);
      }
      for (int l = 0; l < NLEVEL; ++l)
        if (ok[l] && !same32(out[l][i], want)) {
          ++job->bad[1 + l];
          report_bad(job->f, 1 + l, in[i], out[l][i], want);
        }
    }
  }
  return NULL;
}

static uint64_t range_lo = 0, range_hi = UINT64_C(1) << 32; /* float32 bit patterns [lo, hi) */

static uint64_t check_f32(int f) {
  f32_job jobs[2];
  pthread_t th[2];
  const double t0 = now_s();
  for (int t = 0; t < 2; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].f = f;
    const uint64_t mid = range_lo + (range_hi - range_lo) / 2;
    jobs[t].lo = t == 0 ? range_lo : mid;
    jobs[t].hi = t == 0 ? mid : range_hi;
    pthread_create(&th[t], NULL, f32_worker, &jobs[t]);
  }
  uint64_t bad[NVAR] = {0}, slow = 0, total = 0;
  for (int t = 0; t < 2; ++t) {
    pthread_join(th[t], NULL);
    for (int v = 0; v < NVAR; ++v) bad[v] += jobs[t].bad[v];
    slow += jobs[t].slow;
  }
  printf("f32 %-5s inputs 0x%08" PRIx64 "..0x%08" PRIx64 " (%.0f s, %" PRIu64 " decided by MPFR): mismatches",
         fn_name[f], range_lo, range_hi - 1, now_s() - t0, slow);
  for (int v = 0; v < NVAR; ++v) {
    printf(" %s %" PRIu64 "%s", v == 0 ? "scalar" : level_name[v - 1], bad[v],
           v > 0 && !level_ok(v - 1) ? " (level not on this CPU)" : "");
    total += bad[v];
  }
  printf("\n");
  fflush(stdout);
  return total;
}

/* ---- hard: the inputs whose double result lies near a float32 rounding boundary ------------------- */

/* Not the proof (f32 is): a fast scan, with no oracle, for the inputs whose wide double lies within
 * 2^-20 float32 ulps of a rounding boundary (a midpoint, or the overflow threshold); MPFR decides each,
 * and the wrong ones are printed with their true value rounded to double: the exception list's source. */
typedef struct hard_job {
  int f;
  uint64_t lo, hi, near, wrong;
} hard_job;

static double boundary_dist(double y, double *ulp) {
  const float f = (float)y;
  const double big = 0x1.ffffffp127; /* the overflow threshold, FLT_MAX + ulp/2 */
  if (isinf(f) || fabs((double)f) == 0x1.fffffep127) {
    *ulp = 0x1p104;
    return fabs(fabs(y) - big);
  }
  const double fu = (double)nextafterf(f, INFINITY), fd = (double)nextafterf(f, -INFINITY);
  const double m1 = ((double)f + fu) * 0.5, m2 = ((double)f + fd) * 0.5;
  *ulp = fabs(fu - (double)f) < fabs((double)f - fd) ? fabs(fu - (double)f) : fabs((double)f - fd);
  return fabs(y - m1) < fabs(y - m2) ? fabs(y - m1) : fabs(y - m2);
}

static void *hard_worker(void *arg) {
  hard_job *job = (hard_job *)arg;
  for (uint64_t b = job->lo; b < job->hi; ++b) {
    const float x = dlx__m_from32((uint32_t)b);
    const double y = rule_wide(job->f, x);
    if (y != y) continue;
    double ulp;
    const double d = boundary_dist(y, &ulp);
    if (!(d < ulp * 0x1p-20)) continue;
    ++job->near;
    const float want = (float)orc_mpfr(fn_orc[job->f], (double)x, 24, -149);
    if (dlx__m_bits32(want) != dlx__m_bits32((float)y)) {
      ++job->wrong;
      pthread_mutex_lock(&print_lock);
      printf("  HARD %s x=%a (0x%08" PRIx32 ") wide %a -> %a, want %a; true value to double %a\n", fn_name[job->f],
             (double)x, (uint32_t)b, y, (double)(float)y, (double)want, orc_mpfr(fn_orc[job->f], (double)x, 53, -1074));
      pthread_mutex_unlock(&print_lock);
    }
  }
  return NULL;
}

static uint64_t check_hard(int f) {
  hard_job jobs[2];
  pthread_t th[2];
  const double t0 = now_s();
  for (int t = 0; t < 2; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].f = f;
    jobs[t].lo = t == 0 ? 0 : UINT64_C(1) << 31;
    jobs[t].hi = t == 0 ? UINT64_C(1) << 31 : UINT64_C(1) << 32;
    pthread_create(&th[t], NULL, hard_worker, &jobs[t]);
  }
  uint64_t near = 0, wrong = 0;
  for (int t = 0; t < 2; ++t) {
    pthread_join(th[t], NULL);
    near += jobs[t].near, wrong += jobs[t].wrong;
  }
  printf("hard %-5s (%.0f s): %" PRIu64 " inputs within 2^-20 ulp of a boundary, %" PRIu64 " of them wrong\n",
         fn_name[f], now_s() - t0, near, wrong);
  fflush(stdout);
  return wrong;
}

/* ---- narrow formats: every code ----------------------------------------------------------------- */

static const uint8_t narrow_codes[] = {DLX_CODE_FLOAT, DLX_CODE_BFLOAT, DLX_CODE_FLOAT8_E3M4, DLX_CODE_FLOAT8_E4M3,
                                       DLX_CODE_FLOAT8_E4M3B11FNUZ, DLX_CODE_FLOAT8_E4M3FN,
                                       DLX_CODE_FLOAT8_E4M3FNUZ, DLX_CODE_FLOAT8_E5M2, DLX_CODE_FLOAT8_E5M2FNUZ,
                                       DLX_CODE_FLOAT8_E8M0FNU, DLX_CODE_FLOAT6_E2M3FN, DLX_CODE_FLOAT6_E3M2FN,
                                       DLX_CODE_FLOAT4_E2M1FN};

static uint64_t check_narrow(int f) {
  uint64_t total = 0;
  printf("narrow %-5s:", fn_name[f]);
  for (size_t c = 0; c < sizeof narrow_codes; ++c) {
    const dlx__cvt_format fmt = dlx__cvt_format_value(narrow_codes[c]);
    /* e8m0fnu has no subnormals and no zero: its code 0 is 2^-127, an ordinary binade (p = 1), so its
     * smallest value is 2^-bias, where the IEEE-style formula would say 2^(1 - bias) */
    const int p = fmt.man_bits + 1, emin_sub = fmt.has_zero ? 1 - fmt.bias - fmt.man_bits : -fmt.bias;
    uint64_t bad = 0;
    for (uint32_t code = 0; code < (UINT32_C(1) << fmt.bits); ++code) {
      const double v = dlx__cvt_decode_f64(&fmt, code);
      const uint32_t got = dlx__cvt_encode_f64(&fmt, rule_wide(f, (float)v));
      const uint32_t want = dlx__cvt_encode_f64(&fmt, orc_mpfr(fn_orc[f], v, p, emin_sub));
      const double gd = dlx__cvt_decode_f64(&fmt, got), wd = dlx__cvt_decode_f64(&fmt, want);
      if (got != want && !(gd != gd && wd != wd)) {
        if (bad++ < 5)
          printf("\n  MISMATCH %s %s code 0x%x (%a): got 0x%x want 0x%x", fn_name[f], fmt.name, code, v, got, want);
      }
    }
    printf(" %s %" PRIu64, fmt.name, bad);
    total += bad;
  }
  printf("\n");
  fflush(stdout);
  return total;
}

/* ---- float64: random inputs, error in ulps ---------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1p-53; }

/* |y - f(x)| in ulps of f(x) (the ulp of double's binade of the true value, 2^-1074 at least) */
static double ulp_err(int f, double x, double y) {
  mpfr_t mx, my, d;
  mpfr_inits2(200, mx, my, d, (mpfr_ptr)0);
  mpfr_set_d(mx, x, MPFR_RNDN);
  orc_mpfr_call(fn_orc[f], my, mx);
  double err;
  const double yr = mpfr_get_d(my, MPFR_RNDN);
  if (x != x || yr != yr) {
    err = (y != y) ? 0.0 : 1e300;
  } else if (isinf(y) || isinf(yr)) {
    err = (y == yr) ? 0.0 : 1e300;
  } else if (mpfr_zero_p(my)) {
    err = (y == 0) ? 0.0 : 1e300;
  } else {
    long e = mpfr_get_exp(my) - 53; /* value in [2^(E-1), 2^E): ulp 2^(E-53) */
    if (e < -1074) e = -1074;
    mpfr_sub_d(d, my, y, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, -e, MPFR_RNDN);
    err = mpfr_get_d(d, MPFR_RNDN);
  }
  mpfr_clears(mx, my, d, (mpfr_ptr)0);
  return err;
}

typedef struct f64_job {
  int f;
  uint64_t n, seed;
  double max_err, worst_x;
} f64_job;

static double f64_input(int f, uint64_t *s) {
  static const double lo[NFN] = {-746.0, -1076.0, -40.0, -20.0}, hi[NFN] = {710.0, 1025.0, 710.0, 20.0};
  const uint64_t u = rng_next(s);
  if (u & 1) return lo[f] + (hi[f] - lo[f]) * rng_unit(s);
  const double m = ldexp(1.0 + rng_unit(s), -(int)(rng_next(s) % 64)); /* [2^-63, 2^1] */
  return (u & 2) ? -m : m;
}

static void *f64_worker(void *arg) {
  f64_job *job = (f64_job *)arg;
  uint64_t s = job->seed;
  for (uint64_t i = 0; i < job->n; ++i) {
    const double x = f64_input(job->f, &s);
    const double e = ulp_err(job->f, x, rule_f64(job->f, x));
    if (e > job->max_err) {
      job->max_err = e;
      job->worst_x = x;
    }
  }
  return NULL;
}

/* the exact and special cases, bit for bit (NaN: any NaN) */
static uint64_t check_f64_exact(int f) {
  const double inf = HUGE_VAL, nan = NAN;
  uint64_t bad = 0;
  double xs[16], ws[16];
  int n = 0;
#define EXACT(x, w) (xs[n] = (x), ws[n] = (w), ++n)
  EXACT(nan, nan);
  EXACT(-nan, nan);
  switch (f) {
    case 0: EXACT(0.0, 1.0); EXACT(-0.0, 1.0); EXACT(inf, inf); EXACT(-inf, 0.0); EXACT(1000.0, inf);
            EXACT(-1000.0, 0.0); EXACT(0x1p-1074, 1.0); break;
    case 1: EXACT(inf, inf); EXACT(-inf, 0.0); EXACT(1024.0, inf); EXACT(-1075.0, 0.0); EXACT(-1074.5, 0x1p-1074);
            EXACT(-0.0, 1.0); break;
    case 2: EXACT(0.0, 0.0); EXACT(-0.0, -0.0); EXACT(inf, inf); EXACT(-inf, -1.0); EXACT(0x1p-1074, 0x1p-1074);
            EXACT(-0x1p-1074, -0x1p-1074); EXACT(-0x1.8p-60, -0x1.8p-60); EXACT(710.0, inf); break;
    default: EXACT(0.0, 0.0); EXACT(-0.0, -0.0); EXACT(inf, 1.0); EXACT(-inf, -1.0); EXACT(0x1p-1074, 0x1p-1074);
             EXACT(-0x1p-1074, -0x1p-1074); EXACT(30.0, 1.0); EXACT(-30.0, -1.0); break;
  }
#undef EXACT
  for (int i = 0; i < n; ++i) {
    const double y = rule_f64(f, xs[i]);
    if (!((y != y && ws[i] != ws[i]) || dlx__m_bits64(y) == dlx__m_bits64(ws[i]))) {
      ++bad;
      printf("  EXACT MISMATCH %s(%a) = %a, want %a\n", fn_name[f], xs[i], y, ws[i]);
    }
  }
  if (f == 1) /* 2^n for every n */
    for (int k = -1074; k <= 1023; ++k)
      if (rule_f64(f, (double)k) != ldexp(1.0, k)) {
        if (bad++ < 5) printf("  EXACT MISMATCH exp2(%d) = %a\n", k, rule_f64(f, (double)k));
      }
  return bad;
}

static uint64_t check_f64(int f, uint64_t count) {
  static const double specials[] = {0x1.62e42fefa39efp+9, 0x1.62e42fefa39eep+9, -0x1.74910d52d3051p+9,
                                    -0x1.6232bdd7abcd2p+9, -0x1.62d918ce2421dp+9, 1e-300, -1e-300, 0x1p-30,
                                    -0x1p-30, 0x1p-54, 1e-5, 0.5, -0.5, 1.0, -1.0, 0x1.fffffffffffffp+9,
                                    -0x1.0c7ffffffffffp+10, 0x1.ffffffffffffp+9, 19.0, -19.0, 0.3465, 0.55};
  f64_job jobs[2];
  pthread_t th[2];
  const double t0 = now_s();
  for (int t = 0; t < 2; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].f = f;
    jobs[t].n = count / 2;
    jobs[t].seed = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(2 * f + t + 1);
    pthread_create(&th[t], NULL, f64_worker, &jobs[t]);
  }
  double max_err = 0, worst = 0;
  for (int t = 0; t < 2; ++t) {
    pthread_join(th[t], NULL);
    if (jobs[t].max_err > max_err) max_err = jobs[t].max_err, worst = jobs[t].worst_x;
  }
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) {
    const double e = ulp_err(f, specials[i], rule_f64(f, specials[i]));
    if (e > max_err) max_err = e, worst = specials[i];
  }
  const uint64_t bad = check_f64_exact(f);
  printf("f64 %-5s %" PRIu64 " random inputs + specials (%.0f s): max error %.4f ulp at x = %a; exact cases wrong: %"
         PRIu64 "\n", fn_name[f], count, now_s() - t0, max_err, worst, bad);
  fflush(stdout);
  return bad + (max_err > 4.0); /* an error past a few ulps is a defect, not an accuracy figure */
}

/* ---- speed ------------------------------------------------------------------------------------------- */

/* the calling thread's CPU time: the machine is shared, and wall time would count other jobs' turns */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void speed(int f) {
  const size_t n = (size_t)1 << 24;
  float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  double *in64 = malloc(n * sizeof *in64), *out64 = malloc(n * sizeof *out64);
  uint64_t s = 12345;
  for (size_t i = 0; i < n; ++i) in64[i] = -10.0 + 20.0 * rng_unit(&s), in[i] = (float)in64[i];
  printf("speed %-5s 16M elements, 1 thread, CPU ns/element:", fn_name[f]);
  for (int l = 0; l < NLEVEL; ++l) {
    if (!level_ok(l)) continue;
    double best32 = 1e9, best64 = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      double t = cpu_s();
      level32(l)(f, in, out, n);
      t = cpu_s() - t;
      if (t < best32) best32 = t;
      t = cpu_s();
      level64(l)(f, in64, out64, n);
      t = cpu_s() - t;
      if (t < best64) best64 = t;
    }
    printf(" %s f32 %.2f f64 %.2f;", level_name[l], 1e9 * best32 / (double)n, 1e9 * best64 / (double)n);
  }
  printf("\n");
  fflush(stdout);
  free(in), free(out), free(in64), free(out64);
}

int main(int argc, char **argv) {
  int modes[5] = {0}, any = 0, only = -1;
  uint64_t count = 10000000;
  static const char *const mode_name[5] = {"f32", "narrow", "f64", "speed", "hard"};
  for (int i = 1; i < argc; ++i) {
    int m = -1;
    for (int k = 0; k < 5; ++k)
      if (strcmp(argv[i], mode_name[k]) == 0) m = k;
    if (m >= 0) {
      modes[m] = any = 1;
      if (m == 2 && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') count = strtoull(argv[++i], 0, 10);
    } else if (strcmp(argv[i], "range") == 0 && i + 2 < argc) {
      range_lo = strtoull(argv[i + 1], 0, 16);
      range_hi = strtoull(argv[i + 2], 0, 16);
      i += 2;
    } else if (strcmp(argv[i], "only") == 0 && i + 1 < argc) {
      for (int k = 0; k < NFN; ++k)
        if (strcmp(argv[i + 1], fn_name[k]) == 0) only = k;
      if (only < 0) return fprintf(stderr, "dev_exp: no function %s\n", argv[i + 1]), 2;
      ++i;
    } else {
      return fprintf(stderr, "usage: dev_exp [f32] [narrow] [f64 [COUNT]] [speed] [hard] [only exp|exp2|expm1|tanh] [range LO HI]\n"), 2;
    }
  }
  if (!any) modes[0] = modes[1] = modes[2] = modes[3] = 1;
  uint64_t bad = 0;
  for (int f = 0; f < NFN; ++f) {
    if (only >= 0 && f != only) continue;
    if (modes[4]) bad += check_hard(f);
    if (modes[1]) bad += check_narrow(f);
    if (modes[2]) bad += check_f64(f, count);
    if (modes[3]) speed(f);
    if (modes[0]) bad += check_f32(f);
  }
  printf("%s\n", bad ? "FAILED" : "all checks passed");
  return bad != 0;
}

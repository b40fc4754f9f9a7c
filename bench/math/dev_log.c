/* Development checker of src/kernels/math_log.h (log, log2, log10, log1p): not part of the build.
 *
 * Build (from the repository root; GCC, x86-64):
 *   gcc -std=gnu11 -O2 -I src -I include -I bench/math bench/math/dev_log.c -o dev_log -lmpfr -lgmp -lm -lpthread
 * Add -mtune-ctrl=use_gather (GCC 12; use_gather_8parts from GCC 13.2) to time the avx512 variant as the
 * library runs it: CMakeLists.txt compiles the avx512 loop files so, and the table reads become gathers.
 * Add -fopt-info-vec-optimized to see which loops vectorise (every dev_loop_* line must say so, the
 * scalar ones excepted).
 * Run (nice it: the float32 pass evaluates the oracle 2^32 times per function):
 *   nice -n 10 ./dev_log f32 FN [THREADS [STEP]]  all 2^32 float32 inputs, four builds of the rule
 *                                            (every STEP-th block of 65536 inputs only: a quick sample)
 *   ./dev_log narrow FN                      every code of float16, bfloat16, float8/6/4
 *   ./dev_log f64 FN [COUNT]                 float64: random inputs and special cases against MPFR
 *   ./dev_log speed FN                       ns per element, one thread, 16M elements, every build
 *   ./dev_log oracle FN                      the fast float32 oracle against orc_f32 (a sample)
 * FN is log, log2, log10, log1p or all.
 *
 * The four builds of the float32 rule are the same code compiled four ways in this one file: scalar
 * (no vectorisation, the rule not inlined), baseline (SSE2, vectorised), avx2 (AVX2+F16C+FMA) and avx512
 * (the AVX-512 list of src/backends/cpu/target.h, 512-bit vectors as its math loops), all with the
 * pragma of target.h: contraction off, so the builds must agree bit for bit, and with the oracle. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-math-errno", \
                     "no-trapping-math")

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/math_log.h"
#include "oracle.h"

enum { F_LOG, F_LOG2, F_LOG10, F_LOG1P, F_COUNT };
static const char *const fn_names[F_COUNT] = {"log", "log2", "log10", "log1p"};
static const orc_fn fn_orc[F_COUNT] = {ORC_LOG, ORC_LOG2, ORC_LOG10, ORC_LOG1P};

enum { V_SCALAR, V_BASE, V_AVX2, V_AVX512, V_COUNT };
static const char *const v_names[V_COUNT] = {"scalar", "baseline", "avx2", "avx512"};

#define ATTR_SCALAR __attribute__((noinline, optimize("no-tree-vectorize")))
#define ATTR_BASE __attribute__((noinline))
#define ATTR_AVX2 __attribute__((noinline, target("avx2,f16c,fma")))
#define ATTR_AVX512 \
  __attribute__((noinline, target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,prefer-vector-width=512")))

/* one plain loop per function and build, as the CPU backend's loops call a rule */
#define DEV_LOOPS(FN, V, ATTR)                                                                    \
  ATTR static void dev_loop_##FN##_##V(const float *restrict in, float *restrict out, size_t n) {  \
    for (size_t k = 0; k < n; ++k) out[k] = dlx__##FN##f(in[k]);                                   \
  }                                                                                                \
  ATTR static void dev_loop64_##FN##_##V(const double *restrict in, double *restrict out, size_t n) { \
    for (size_t k = 0; k < n; ++k) out[k] = dlx__##FN(in[k]);                                      \
  }
#define DEV_LOOPS_ALL(FN)             \
  DEV_LOOPS(FN, 0, ATTR_SCALAR)      \
  DEV_LOOPS(FN, 1, ATTR_BASE)        \
  DEV_LOOPS(FN, 2, ATTR_AVX2)        \
  DEV_LOOPS(FN, 3, ATTR_AVX512)
DEV_LOOPS_ALL(log)
DEV_LOOPS_ALL(log2)
DEV_LOOPS_ALL(log10)
DEV_LOOPS_ALL(log1p)

typedef void (*loop_f32)(const float *restrict, float *restrict, size_t);
typedef void (*loop_f64)(const double *restrict, double *restrict, size_t);
#define DEV_ROW(FN) {dev_loop_##FN##_0, dev_loop_##FN##_1, dev_loop_##FN##_2, dev_loop_##FN##_3}
#define DEV_ROW64(FN) {dev_loop64_##FN##_0, dev_loop64_##FN##_1, dev_loop64_##FN##_2, dev_loop64_##FN##_3}
static const loop_f32 loops[F_COUNT][V_COUNT] = {DEV_ROW(log), DEV_ROW(log2), DEV_ROW(log10), DEV_ROW(log1p)};
static const loop_f64 loops64[F_COUNT][V_COUNT] = {DEV_ROW64(log), DEV_ROW64(log2), DEV_ROW64(log10),
                                                   DEV_ROW64(log1p)};

static double wide(int fn, float x) {
  switch (fn) {
    case F_LOG: return dlx__wide_log(x);
    case F_LOG2: return dlx__wide_log2(x);
    case F_LOG10: return dlx__wide_log10(x);
    default: return dlx__wide_log1p(x);
  }
}

static int avx512_ok(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}
static int nvariants(void) { return avx512_ok() ? V_COUNT : V_AVX512; }

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* the speed lines count this thread's CPU time: the development machine is shared, and wall time there
 * measures the other jobs as much as this one */
static double cpu_now(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static int same32(float a, float b) {
  return (a != a && b != b) || dlx__m_bits32(a) == dlx__m_bits32(b);
}

/* The float32 oracle, sped up: glibc's double function first (log and log2 within 0.52 ulp, log10 2 ulp,
 * log1p 1 ulp, per glibc's manual), whose rounding to float32 is the correct one whenever the double
 * lies farther than 2^-46 relative (128 double ulps and more) from every float32 rounding boundary;
 * orc_f32 (long double, then MPFR) decides the rest and every special value. About 5x faster than
 * orc_f32 alone, which is what makes four exhaustive runs possible on a shared machine. */
static double glibc_f(int fn, double x) {
  switch (fn) {
    case F_LOG: return log(x);
    case F_LOG2: return log2(x);
    case F_LOG10: return log10(x);
    default: return log1p(x);
  }
}
static float oracle32(int fn, float x, uint64_t *slow) {
  const double y = glibc_f(fn, (double)x);
  /* NaN, +-inf and zero are the exact special cases (log(0) = -inf, log(x < 0) = NaN, log(1) = 0,
   * log1p(-0) = -0 ...), which libm gets exactly */
  if (y != y || y == 0 || isinf(y)) return (float)y;
  const float lo = (float)(y * (1 - 0x1p-46)), hi = (float)(y * (1 + 0x1p-46));
  if (lo == hi) return lo;
  return orc_f32(fn_orc[fn], x, slow);
}

/* ---- (1) every float32 input ------------------------------------------------------------------- */

#define CHUNK (1u << 16)
typedef struct f32_job {
  int fn;
  uint64_t step; /* 1: every chunk of inputs; k: every k-th chunk (a quick sample) */
  atomic_uint_fast64_t next;
  pthread_mutex_t lock;
  uint64_t bad[V_COUNT], slow;
  int shown;
} f32_job;

static void *f32_worker(void *arg) {
  f32_job *job = (f32_job *)arg;
  static _Thread_local float in[CHUNK], out[V_COUNT][CHUNK];
  const int nv = nvariants();
  uint64_t bad[V_COUNT] = {0}, slow = 0;
  for (;;) {
    const uint64_t start = atomic_fetch_add(&job->next, CHUNK * job->step);
    if (start >= (UINT64_C(1) << 32)) break;
    for (uint32_t k = 0; k < CHUNK; ++k) in[k] = dlx__m_from32((uint32_t)start + k);
    for (int v = 0; v < nv; ++v) loops[job->fn][v](in, out[v], CHUNK);
    for (uint32_t k = 0; k < CHUNK; ++k) {
      const float want = oracle32(job->fn, in[k], &slow);
      for (int v = 0; v < nv; ++v) {
        if (same32(out[v][k], want)) continue;
        ++bad[v];
        pthread_mutex_lock(&job->lock);
        if (job->shown++ < 12)
          printf("  MISMATCH %s %s(%a = 0x%08" PRIx32 "): got %a want %a (wide %a)\n", v_names[v],
                 fn_names[job->fn], (double)in[k], dlx__m_bits32(in[k]), (double)out[v][k], (double)want,
                 wide(job->fn, in[k]));
        pthread_mutex_unlock(&job->lock);
      }
    }
  }
  pthread_mutex_lock(&job->lock);
  for (int v = 0; v < V_COUNT; ++v) job->bad[v] += bad[v];
  job->slow += slow;
  pthread_mutex_unlock(&job->lock);
  return NULL;
}

static uint64_t run_f32(int fn, int threads, uint64_t step) {
  f32_job job;
  memset(&job, 0, sizeof job);
  job.fn = fn;
  job.step = step;
  atomic_init(&job.next, 0);
  pthread_mutex_init(&job.lock, NULL);
  const double t0 = now();
  pthread_t th[16];
  for (int t = 0; t < threads; ++t) pthread_create(&th[t], NULL, f32_worker, &job);
  for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
  uint64_t total = 0;
  printf("f32 %s: %s 2^32 inputs, %.0f s, %" PRIu64 " left to orc_f32;", fn_names[fn], step == 1 ? "all" : "a sample of the", now() - t0, job.slow);
  for (int v = 0; v < nvariants(); ++v) {
    printf(" %s %" PRIu64, v_names[v], job.bad[v]);
    total += job.bad[v];
  }
  printf(" mismatches\n");
  fflush(stdout);
  return total;
}

/* oracle32 against orc_f32 on every 251st float32 input (17 million of them) */
static uint64_t run_oracle_check(int fn) {
  uint64_t bad = 0, n = 0;
  for (uint64_t u = 0; u < (UINT64_C(1) << 32); u += 251, ++n) {
    const float x = dlx__m_from32((uint32_t)u), a = oracle32(fn, x, NULL), b = orc_f32(fn_orc[fn], x, NULL);
    if (!same32(a, b) && bad++ < 5) printf("  ORACLE %s(%a): %a vs %a\n", fn_names[fn], (double)x, (double)a, (double)b);
  }
  printf("oracle %s: %" PRIu64 " inputs, %" PRIu64 " differences between oracle32 and orc_f32\n", fn_names[fn], n, bad);
  fflush(stdout);
  return bad;
}

/* ---- (2) every code of the narrow formats ------------------------------------------------------- */

static const uint8_t narrow_codes[] = {
    DLX_CODE_FLOAT,           DLX_CODE_BFLOAT,         DLX_CODE_FLOAT8_E3M4,    DLX_CODE_FLOAT8_E4M3,
    DLX_CODE_FLOAT8_E4M3B11FNUZ, DLX_CODE_FLOAT8_E4M3FN, DLX_CODE_FLOAT8_E4M3FNUZ, DLX_CODE_FLOAT8_E5M2,
    DLX_CODE_FLOAT8_E5M2FNUZ, DLX_CODE_FLOAT8_E8M0FNU, DLX_CODE_FLOAT6_E2M3FN,  DLX_CODE_FLOAT6_E3M2FN,
    DLX_CODE_FLOAT4_E2M1FN};

static uint64_t run_narrow(int fn) {
  uint64_t total = 0;
  printf("narrow %s:", fn_names[fn]);
  for (size_t c = 0; c < sizeof narrow_codes; ++c) {
    const dlx__cvt_format f = dlx__cvt_format_value(narrow_codes[c]);
    const int p = f.man_bits + 1;
    /* the smallest positive value: the subnormal 2^(1-bias-man_bits), or 2^-bias where the lowest
     * exponent code is an ordinary binade (e8m0fnu, which has no zero) */
    const int emin_sub = f.has_zero ? 1 - f.bias - f.man_bits : -f.bias;
    uint64_t bad = 0;
    for (uint32_t code = 0; code < (UINT32_C(1) << f.bits); ++code) {
      const double v = dlx__cvt_decode_f64(&f, code);
      const double w = wide(fn, (float)v), o = orc_mpfr(fn_orc[fn], v, p, emin_sub);
      const uint32_t got = dlx__cvt_encode_f64(&f, w);
      const uint32_t want = dlx__cvt_encode_f64(&f, o);
      /* a NaN result is NaN of any sign and payload (docs/numerics.md), which a format without NaN
       * encodes as a zero of either sign */
      if (got == want || (w != w && o != o)) continue;
      if (bad++ < 3)
        printf("\n  MISMATCH %s %s(%a): got 0x%" PRIx32 " want 0x%" PRIx32 " (wide %a)", f.name, fn_names[fn], v, got,
               want, wide(fn, (float)v));
    }
    printf(" %s %" PRIu64, f.name, bad);
    total += bad;
  }
  printf(" mismatches\n");
  fflush(stdout);
  return total;
}

/* ---- (3) float64 against MPFR ------------------------------------------------------------------- */

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t rng(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(0x2545f4914f6cdd1d);
}
static double rng_unit(void) { return (double)(rng() >> 11) * 0x1p-53; }

static double dlx_f64(int fn, double x) {
  switch (fn) {
    case F_LOG: return dlx__log(x);
    case F_LOG2: return dlx__log2(x);
    case F_LOG10: return dlx__log10(x);
    default: return dlx__log1p(x);
  }
}

/* an input of the function's useful range: any positive double, values near 1 (near 0 for log1p), and
 * for log1p the negatives of (-1, 0) */
static double f64_input(int fn) {
  const uint64_t kind = rng() % 10;
  const double near = (rng_unit() - 0.5) * dlx__m_from64((uint64_t)(1023 - 1 - (int)(rng() % 60)) << 52);
  if (fn == F_LOG1P) {
    if (kind < 3) return dlx__m_from64(rng() % UINT64_C(0x7ff0000000000000));
    if (kind < 5) return -dlx__m_from64(rng() % UINT64_C(0x3ff0000000000000));
    if (kind < 8) return near;
    return rng_unit() * 3.0 - 1.0;
  }
  if (kind < 4) return dlx__m_from64(1 + rng() % UINT64_C(0x7fefffffffffffff));
  if (kind < 8) return 1.0 + near;
  return 0.5 + rng_unit() * 1.5;
}

/* |y - f(x)| in ulps of f(x) (MPFR at 200 bits); -1 when y is not the special value it must be */
static double ulp_err(int fn, double x, double y, uint64_t *not_cr) {
  mpfr_t mx, t, d;
  mpfr_inits2(200, mx, t, d, (mpfr_ptr)0);
  mpfr_set_d(mx, x, MPFR_RNDN);
  orc_mpfr_call(fn_orc[fn], t, mx);
  double e;
  const double t53 = mpfr_get_d(t, MPFR_RNDN);
  if (mpfr_nan_p(t)) {
    e = y != y ? 0.0 : -1.0;
  } else if (mpfr_inf_p(t) || mpfr_zero_p(t)) {
    e = dlx__m_bits64(y) == dlx__m_bits64(t53) ? 0.0 : -1.0;
  } else {
    int ex;
    frexp(t53, &ex); /* |t53| in [2^(ex-1), 2^ex) */
    const double ulp = ex - 53 < -1074 ? 0x1p-1074 : ldexp(1.0, ex - 53);
    mpfr_d_sub(d, y, t, MPFR_RNDN);
    e = fabs(mpfr_get_d(d, MPFR_RNDN)) / ulp;
    if (y != t53) ++*not_cr;
  }
  mpfr_clears(mx, t, d, (mpfr_ptr)0);
  return e;
}

static uint64_t run_f64(int fn, long count) {
  uint64_t bad = 0, not_cr = 0;
  double worst = 0, worst_x = 0;
  for (long k = 0; k < count; ++k) {
    const double x = f64_input(fn), e = ulp_err(fn, x, dlx_f64(fn, x), &not_cr);
    if (e < 0 || e > 1.0) {
      if (bad++ < 5) printf("  BAD %s(%a) = %a (err %g ulp)\n", fn_names[fn], x, dlx_f64(fn, x), e);
    }
    if (e > worst) worst = e, worst_x = x;
  }
  /* special values and exact cases */
  static const double specials[] = {0.0, -0.0, 1.0, -1.0, -2.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023,
                                    1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 0x1p-60, -0x1p-60, 0x1p53, 0x1p1000};
  long nspecial = 0;
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k, ++nspecial) {
    const double x = specials[k], y = dlx_f64(fn, x), e = ulp_err(fn, x, y, &not_cr);
    const int sign_ok = !(x == 0 && fn == F_LOG1P) || dlx__m_bits64(y) == dlx__m_bits64(x);
    if (e < 0 || e > 1.0 || !sign_ok) {
      ++bad;
      printf("  BAD special %s(%a) = %a\n", fn_names[fn], x, y);
    }
  }
  for (int k = -1074; k <= 1023 && fn == F_LOG2; ++k, ++nspecial)
    if (dlx__log2(ldexp(1.0, k)) != (double)k) ++bad, printf("  BAD log2(2^%d) = %a\n", k, dlx__log2(ldexp(1.0, k)));
  double p10 = 1.0;
  for (int k = 0; k <= 22 && fn == F_LOG10; ++k, ++nspecial, p10 *= 10.0)
    if (dlx__log10(p10) != (double)k) ++bad, printf("  BAD log10(1e%d) = %a\n", k, dlx__log10(p10));
  printf("f64 %s: %ld random inputs and %ld special ones, max error %.4f ulp (at %a), %.4f%% not correctly "
         "rounded, %" PRIu64 " over 1 ulp or wrong special\n",
         fn_names[fn], count, nspecial, worst, worst_x, 100.0 * (double)not_cr / (double)(count + nspecial), bad);
  fflush(stdout);
  return bad;
}

/* ---- (4) speed ------------------------------------------------------------------------------------ */

static void run_speed(int fn) {
  const size_t n = (size_t)1 << 24;
  float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  double *in64 = malloc(n * sizeof *in64), *out64 = malloc(n * sizeof *out64);
  for (size_t k = 0; k < n; ++k) { /* uniform in [0, 1) as NumPy's benchmark (log1p: [-0.5, 0.5)) */
    in[k] = (float)rng_unit() + (fn == F_LOG1P ? -0.5f : 0.0f);
    in64[k] = rng_unit() * 1e3;
  }
  printf("speed %s (16M, one thread, best of 3, CPU ns/element):", fn_names[fn]);
  for (int v = 0; v < nvariants(); ++v) {
    double best = 1e9, best64 = 1e9;
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = cpu_now();
      loops[fn][v](in, out, n);
      const double t1 = cpu_now();
      loops64[fn][v](in64, out64, n);
      const double t2 = cpu_now();
      if (t1 - t0 < best) best = t1 - t0;
      if (t2 - t1 < best64) best64 = t2 - t1;
    }
    printf(" %s f32 %.2f f64 %.2f;", v_names[v], best * 1e9 / (double)n, best64 * 1e9 / (double)n);
  }
  printf("\n");
  fflush(stdout);
  free(in), free(out), free(in64), free(out64);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s f32|narrow|f64|speed|oracle log|log2|log10|log1p|all [N]\n", argv[0]);
    return 2;
  }
  int first = 0, last = F_COUNT - 1;
  if (strcmp(argv[2], "all") != 0) {
    for (first = 0; first < F_COUNT && strcmp(fn_names[first], argv[2]) != 0; ++first) {}
    if (first == F_COUNT) return fprintf(stderr, "unknown function %s\n", argv[2]), 2;
    last = first;
  }
  uint64_t bad = 0;
  for (int fn = first; fn <= last; ++fn) {
    if (strcmp(argv[1], "f32") == 0)
      bad += run_f32(fn, argc > 3 ? atoi(argv[3]) : 2, argc > 4 ? (uint64_t)atoll(argv[4]) : 1);
    else if (strcmp(argv[1], "narrow") == 0)
      bad += run_narrow(fn);
    else if (strcmp(argv[1], "f64") == 0)
      bad += run_f64(fn, argc > 3 ? atol(argv[3]) : 10000000L);
    else if (strcmp(argv[1], "oracle") == 0)
      bad += run_oracle_check(fn);
    else if (strcmp(argv[1], "speed") == 0)
      run_speed(fn);
    else
      return fprintf(stderr, "unknown check %s\n", argv[1]), 2;
  }
  return bad != 0;
}

/* Development checker of kernels/math_trig.h (sin, cos): not part of the build. From the repository root:
 *
 *   gcc -std=gnu11 -O2 -pthread -I src -I include bench/math/dev_trig.c -o build-dev/dev_trig \
 *       -lmpfr -lgmp -lm
 * Add -mtune-ctrl=use_gather (GCC 12; use_gather_8parts from GCC 13.2) to time the avx512 variant as the
 * library runs it: CMakeLists.txt compiles the avx512 loop files so, and the table reads become gathers.
 *   nice -n 10 build-dev/dev_trig MODE [sin|cos] [n]     (both functions without the second argument)
 * MODE:
 *   f32      all 2^32 float32 inputs against oracle.h's orc_f32, at three levels
 *   f32fast  the same with a cheaper oracle (below), for a shared machine
 *   near     quick: MPFR for the inputs whose double lies within 2^-48 (relative) of a float32 rounding
 *            boundary, the only ones the rule's error (below 2^-53.5) could round wrongly
 *   narrow   every code of float16, bfloat16 and the float8/6/4 formats against MPFR
 *   f64      float64: n random inputs (default 10^7) over four ranges, and specials, against MPFR
 *   relerr   the float32 rule's double-double against MPFR on n random inputs (default 10^6)
 *   speed    ns/element, 16M float32, one thread, per level (thread CPU time)
 *   minr     the smallest reduced argument |r| over float32 x >= 1/2
 *
 * The three levels are the same rule compiled into three loops: "scalar" (the x86-64 baseline, not
 * vectorised: GCC does not vectorise the table reads at SSE2), "avx2" (avx2,f16c,fma) and "avx512" (the
 * AVX-512 list with 512-bit vectors, as the math loops of target.h); each level's float32 result is
 * compared with the oracle and each level's double with the scalar loop's, bit for bit (a vectorised loop
 * must not change a bit). The optimize pragma is the CPU backend's, so contraction is off everywhere.
 *
 * f32fast: f32 costs about 500 s of CPU per function (the long double oracle 117 ns a call, the scalar
 * loop 48 ns), more than a shared 2-core machine gives in an hour. f32fast takes glibc's double sin/cos
 * (error below 1 ulp of double, 2^-52) as the fast path of the oracle, with oracle.h's rounding test at
 * 2^-50 and MPFR when undecided, so every float32 result is still decided independently of the rule; it
 * runs the avx2 and avx512 loops on all 2^32 inputs, and the scalar loop on one chunk in 16 (2^28
 * inputs) plus every input whose value was undecided by the fast path, comparing its doubles bit for bit. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-math-errno", \
                     "no-trapping-math")

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/math_trig.h"
#include "oracle.h"

/* one loop per function and level: y[i] = wide_f(x[i]) */
#define DEV_LOOPS(SUF)                                                            \
  static void loop_sin_##SUF(const float *x, double *y, size_t n) {               \
    for (size_t i = 0; i < n; ++i) y[i] = dlx__wide_sin(x[i]);                    \
  }                                                                               \
  static void loop_cos_##SUF(const float *x, double *y, size_t n) {               \
    for (size_t i = 0; i < n; ++i) y[i] = dlx__wide_cos(x[i]);                    \
  }

#pragma GCC push_options
#pragma GCC optimize("no-tree-vectorize")
DEV_LOOPS(scalar)
#pragma GCC pop_options
/* float64 (for the speed line): the rule has a branch (Payne-Hanek above 2^20), so no level vectorises it */
static void loop_sin64(const double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = dlx__sin(x[i]);
}
static void loop_cos64(const double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = dlx__cos(x[i]);
}
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma")
DEV_LOOPS(avx2)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,prefer-vector-width=512")
DEV_LOOPS(avx512)
#pragma GCC pop_options

typedef void (*loop_fn)(const float *, double *, size_t);
enum { NLEV = 3 };
static const char *const lev_names[NLEV] = {"scalar", "avx2", "avx512"};
static const loop_fn loops[2][NLEV] = {{loop_sin_scalar, loop_sin_avx2, loop_sin_avx512},
                                       {loop_cos_scalar, loop_cos_avx2, loop_cos_avx512}};

/* the speed line takes the thread's CPU time (the machine is shared), the long runs the wall clock */
static struct timespec now_on(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return t;
}
static double since_on(clockid_t id, struct timespec t0) {
  const struct timespec t = now_on(id);
  return (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
}

static int same_f32(float a, float b) {
  return (a != a && b != b) || dlx__m_bits32(a) == dlx__m_bits32(b);
}

/* ---- (1) every float32 input ---- */
enum { CHUNK = 1 << 16, MAXSHOW = 12 };
typedef struct f32_job {
  int cosine;
  uint64_t begin, end; /* input bits range */
  uint64_t bad[NLEV], diff[NLEV], slow;
  uint32_t shown_x[MAXSHOW];
  float shown_got[MAXSHOW], shown_want[MAXSHOW];
  int nshown;
} f32_job;

/* sin(-x) = -sin(x) and cos(-x) = cos(x) hold for the correctly rounded values too (rounding to nearest
 * even is symmetric), so the oracle runs on the 2^31 sign-clear inputs and decides both x and -x */
static void check_one(f32_job *j, uint32_t bits, double *const y[NLEV], size_t i, float want, int have_scalar) {
  const double ref = have_scalar ? y[0][i] : y[1][i]; /* bit identity: against scalar, else avx2 */
  int shown = 0;
  for (int l = have_scalar ? 0 : 1; l < NLEV; ++l) {
    if (dlx__m_bits64(y[l][i]) != dlx__m_bits64(ref) && !(y[l][i] != y[l][i] && ref != ref)) ++j->diff[l];
    if (!same_f32((float)y[l][i], want)) {
      ++j->bad[l];
      if (!shown && j->nshown < MAXSHOW) {
        shown = 1;
        j->shown_x[j->nshown] = bits;
        j->shown_got[j->nshown] = (float)y[l][i];
        j->shown_want[j->nshown++] = want;
      }
    }
  }
}

static void *f32_worker(void *arg) {
  f32_job *j = (f32_job *)arg;
  float *x = malloc(2 * CHUNK * sizeof *x);
  double *y[NLEV];
  for (int l = 0; l < NLEV; ++l) y[l] = malloc(2 * CHUNK * sizeof(double));
  for (uint64_t b = j->begin; b < j->end; b += CHUNK) {
    const size_t n = (size_t)(j->end - b < CHUNK ? j->end - b : CHUNK);
    for (size_t i = 0; i < n; ++i) {
      x[i] = dlx__m_from32((uint32_t)(b + i));
      x[n + i] = dlx__m_from32((uint32_t)(b + i) | 0x80000000u);
    }
    for (int l = 0; l < NLEV; ++l) loops[j->cosine][l](x, y[l], 2 * n);
    for (size_t i = 0; i < n; ++i) {
      const float want = orc_f32(j->cosine ? ORC_COS : ORC_SIN, x[i], &j->slow);
      check_one(j, (uint32_t)(b + i), y, i, want, 1);
      check_one(j, (uint32_t)(b + i) | 0x80000000u, y, n + i, j->cosine ? want : -want, 1);
    }
  }
  free(x);
  for (int l = 0; l < NLEV; ++l) free(y[l]);
  return NULL;
}

static int run_f32(int cosine) {
  const struct timespec t0 = now_on(CLOCK_MONOTONIC);
  f32_job jobs[2];
  pthread_t th[2];
  memset(jobs, 0, sizeof jobs);
  for (int t = 0; t < 2; ++t) {
    jobs[t].cosine = cosine;
    jobs[t].begin = (uint64_t)t << 30;
    jobs[t].end = (uint64_t)(t + 1) << 30;
    pthread_create(&th[t], NULL, f32_worker, &jobs[t]);
  }
  int fail = 0;
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  printf("%s float32, all 2^32 inputs (%.0f s; %" PRIu64 " decided by MPFR):\n", cosine ? "cos" : "sin",
         since_on(CLOCK_MONOTONIC, t0), jobs[0].slow + jobs[1].slow);
  for (int l = 0; l < NLEV; ++l) {
    const uint64_t bad = jobs[0].bad[l] + jobs[1].bad[l], diff = jobs[0].diff[l] + jobs[1].diff[l];
    printf("  %-7s mismatches %" PRIu64 ", doubles differing from scalar %" PRIu64 "\n", lev_names[l], bad, diff);
    fail |= bad != 0 || diff != 0;
  }
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < jobs[t].nshown; ++i)
      printf("  x=%a (0x%08x): got %a want %a\n", (double)dlx__m_from32(jobs[t].shown_x[i]), jobs[t].shown_x[i],
             (double)jobs[t].shown_got[i], (double)jobs[t].shown_want[i]);
  return fail;
}

/* ---- f32fast: all 2^32 inputs, glibc double + rounding test + MPFR as the oracle ---- */
static float fast_oracle(int cosine, float x, uint64_t *slow) {
  const double r = cosine ? cos((double)x) : sin((double)x);
  if (r != r || r == 0) return (float)r; /* NaN for inf and NaN; sin(+-0) = +-0 */
  const float lo = (float)(r * (1 - 0x1p-50)), hi = (float)(r * (1 + 0x1p-50));
  if (lo == hi) return lo;
  ++*slow;
  return (float)orc_mpfr(cosine ? ORC_COS : ORC_SIN, (double)x, 24, -149);
}

static void *fast_worker(void *arg) {
  f32_job *j = (f32_job *)arg;
  float *x = malloc(CHUNK * sizeof *x);
  double *y[NLEV];
  for (int l = 0; l < NLEV; ++l) y[l] = malloc(CHUNK * sizeof(double));
  for (uint64_t b = j->begin; b < j->end; b += CHUNK) {
    const size_t n = (size_t)(j->end - b < CHUNK ? j->end - b : CHUNK);
    const int full_scalar = ((b / CHUNK) & 15u) == 0;
    for (size_t i = 0; i < n; ++i) x[i] = dlx__m_from32((uint32_t)(b + i));
    for (int l = 1; l < NLEV; ++l) loops[j->cosine][l](x, y[l], n);
    if (full_scalar) loops[j->cosine][0](x, y[0], n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t slow0 = j->slow;
      const float want = fast_oracle(j->cosine, x[i], &j->slow);
      /* the scalar level: on its chunks, and on every input the fast path left undecided */
      const int have_scalar = full_scalar || j->slow != slow0;
      if (!full_scalar && have_scalar) loops[j->cosine][0](&x[i], &y[0][i], 1);
      check_one(j, (uint32_t)(b + i), y, i, want, have_scalar);
    }
  }
  free(x);
  for (int l = 0; l < NLEV; ++l) free(y[l]);
  return NULL;
}

static int run_f32fast(int cosine) {
  const struct timespec t0 = now_on(CLOCK_MONOTONIC);
  const int shift = getenv("DEV_SHIFT") ? atoi(getenv("DEV_SHIFT")) : 0;
  f32_job jobs[2];
  pthread_t th[2];
  memset(jobs, 0, sizeof jobs);
  for (int t = 0; t < 2; ++t) {
    jobs[t].cosine = cosine;
    jobs[t].begin = (uint64_t)t << 31;
    jobs[t].end = jobs[t].begin + ((uint64_t)1 << (31 - shift)); /* DEV_SHIFT=s: a 2^-s part, for a trial */
    pthread_create(&th[t], NULL, fast_worker, &jobs[t]);
  }
  int fail = 0;
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  printf("%s float32 f32fast, all 2^32 inputs (%.0f s; %" PRIu64 " decided by MPFR; scalar on 1/16 + those):\n",
         cosine ? "cos" : "sin", since_on(CLOCK_MONOTONIC, t0), jobs[0].slow + jobs[1].slow);
  for (int l = 0; l < NLEV; ++l) {
    const uint64_t bad = jobs[0].bad[l] + jobs[1].bad[l], diff = jobs[0].diff[l] + jobs[1].diff[l];
    printf("  %-7s mismatches %" PRIu64 ", doubles differing from scalar %" PRIu64 "\n", lev_names[l], bad, diff);
    fail |= bad != 0 || diff != 0;
  }
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < jobs[t].nshown; ++i)
      printf("  x=%a (0x%08x): got %a want %a\n", (double)dlx__m_from32(jobs[t].shown_x[i]), jobs[t].shown_x[i],
             (double)jobs[t].shown_got[i], (double)jobs[t].shown_want[i]);
  fflush(stdout);
  return fail;
}

/* ---- quick search: the inputs whose double lies within 2^-48 (relative) of a float32 rounding boundary,
 * the only ones that can be wrong given the error bound (~2^-54), decided by MPFR ---- */
typedef struct near_job {
  int cosine;
  uint32_t begin, end;
  uint64_t near, bad;
} near_job;

static void *near_worker(void *arg) {
  near_job *j = (near_job *)arg;
  float *x = malloc(CHUNK * sizeof *x);
  double *y = malloc(CHUNK * sizeof *y);
  for (uint64_t b = j->begin; b < j->end; b += CHUNK) {
    const size_t n = (size_t)(j->end - b < CHUNK ? j->end - b : CHUNK);
    for (size_t i = 0; i < n; ++i) x[i] = dlx__m_from32((uint32_t)(b + i));
    loops[j->cosine][1](x, y, n);
    for (size_t i = 0; i < n; ++i) {
      if ((float)(y[i] * (1 - 0x1p-48)) == (float)(y[i] * (1 + 0x1p-48))) continue;
      ++j->near;
      const double want = orc_mpfr(j->cosine ? ORC_COS : ORC_SIN, (double)x[i], 24, -149);
      if ((float)y[i] != (float)want) {
        ++j->bad;
        printf("  %s x=%a (0x%08x): got %a want %a (double %a)\n", j->cosine ? "cos" : "sin", (double)x[i],
               (uint32_t)(b + i), (double)(float)y[i], want, y[i]);
      }
    }
  }
  free(x);
  free(y);
  return NULL;
}

static int run_near(int cosine) {
  near_job jobs[2] = {{cosine, 0u, 0x3f800000u, 0, 0}, {cosine, 0x3f800000u, 0x7f800000u, 0, 0}};
  pthread_t th[2];
  for (int t = 0; t < 2; ++t) pthread_create(&th[t], NULL, near_worker, &jobs[t]);
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  printf("%s: %" PRIu64 " finite x >= 0 near a boundary, %" PRIu64 " wrong\n", cosine ? "cos" : "sin",
         jobs[0].near + jobs[1].near, jobs[0].bad + jobs[1].bad);
  return jobs[0].bad + jobs[1].bad != 0;
}

/* ---- (2) every code of the narrow formats ---- */
static const uint8_t narrow_codes[] = {2, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};

static int run_narrow(int cosine) {
  int fail = 0;
  for (size_t f = 0; f < sizeof narrow_codes; ++f) {
    const dlx__cvt_format fmt = dlx__cvt_format_value(narrow_codes[f]);
    /* e8m0fnu has no zero and no subnormals: its exponent field 0 is the ordinary binade 2^-127, one below
     * what 1 - bias - man_bits gives */
    const int p = fmt.man_bits + 1, emin_sub = 1 - fmt.bias - fmt.man_bits - (fmt.has_zero ? 0 : 1);
    const uint32_t ncodes = 1u << fmt.bits;
    uint32_t bad = 0;
    for (uint32_t code = 0; code < ncodes; ++code) {
      const double v = dlx__cvt_decode_f64(&fmt, code);
      const double got_d = cosine ? dlx__wide_cos((float)v) : dlx__wide_sin((float)v);
      const double want_d = orc_mpfr(cosine ? ORC_COS : ORC_SIN, v, p, emin_sub);
      if (got_d != got_d && want_d != want_d) continue; /* NaN: the encoders may pick different signs */
      const uint32_t got = dlx__cvt_encode_f64(&fmt, got_d), want = dlx__cvt_encode_f64(&fmt, want_d);
      if (got != want) {
        if (bad < 4) printf("  %s x=%a: got code 0x%x want 0x%x\n", fmt.name, v, got, want);
        ++bad;
      }
    }
    printf("%s %-20s %6u codes, mismatches %u\n", cosine ? "cos" : "sin", fmt.name, ncodes, bad);
    fail |= bad != 0;
  }
  return fail;
}

/* ---- (3) float64: random inputs per range against MPFR, error in ulps of the exact value ---- */
static double ulp_err(orc_fn f, double x, double y) {
  mpfr_t mx, my, md;
  mpfr_inits2(256, mx, my, md, (mpfr_ptr)0);
  mpfr_set_d(mx, x, MPFR_RNDN);
  orc_mpfr_call(f, my, mx);
  mpfr_set_d(md, y, MPFR_RNDN);
  mpfr_sub(md, md, my, MPFR_RNDN);
  /* ulp of the exact value at 53 bits (binade of |f(x)|; results here are at most 1, never subnormal
   * unless x is) */
  const long e = mpfr_zero_p(my) ? -1074 : (long)mpfr_get_exp(my) - 53;
  mpfr_mul_2si(md, md, -(e < -1074 ? -1074 : e), MPFR_RNDN);
  const double r = fabs(mpfr_get_d(md, MPFR_RNDN));
  mpfr_clears(mx, my, md, (mpfr_ptr)0);
  return r;
}

typedef struct f64_job {
  int cosine, range;
  long n;
  uint64_t seed;
  double max_ulp, at;
} f64_job;

static double f64_input(int range, uint64_t *s) {
  *s = *s * 6364136223846793005u + 1442695040888963407u;
  const double u = (double)(*s >> 11) * 0x1p-53, sign = (*s & 1024u) ? -1.0 : 1.0;
  switch (range) {
    case 0: return sign * u * 6.283185307179586;        /* |x| < 2 pi */
    case 1: return sign * exp2(-30.0 + 50.0 * u);        /* 2^-30 .. 2^20, log-uniform */
    case 2: return sign * 1048576.0 * (1.0 + 1023.0 * u); /* 2^20 .. 2^30, the Payne-Hanek path's start */
    default: return sign * exp2(20.0 + 1003.9 * u);      /* 2^20 .. 2^1023.9, log-uniform */
  }
}

static const char *const f64_ranges[4] = {"|x| < 2pi", "2^-30..2^20 log", "2^20..2^30", "2^20..2^1024 log"};

static void *f64_worker(void *arg) {
  f64_job *j = (f64_job *)arg;
  uint64_t s = j->seed;
  for (long i = 0; i < j->n; ++i) {
    const double x = f64_input(j->range, &s);
    const double y = j->cosine ? dlx__cos(x) : dlx__sin(x);
    const double err = ulp_err(j->cosine ? ORC_COS : ORC_SIN, x, y);
    if (err > j->max_ulp) {
      j->max_ulp = err;
      j->at = x;
    }
  }
  return NULL;
}

static int run_f64(int cosine, long n) {
  int fail = 0;
  /* specials and hard cases: zeros, tiny, subnormal, the largest, near multiples of pi/2, and the
   * double closest to a multiple of pi/2 (6381956970095103 2^797, Kahan-McDonald) */
  const double specials[] = {0.0, -0.0, 0x1p-1074, -0x1p-1022, 0x1p-30, 1.0, 1.5707963267948966, 3.141592653589793,
                             4.71238898038469, 0x1p20, 0x1.fffffffffffffp19, 0x1.fffffffffffffp1023,
                             0x1.6ac5b262ca1ffp+849, 1e22, 355.0, 103993.0, 0x1.921fb54442d18p+0};
  double smax = 0;
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) {
    const double x = specials[i], y = cosine ? dlx__cos(x) : dlx__sin(x);
    const double err = ulp_err(cosine ? ORC_COS : ORC_SIN, x, y);
    if (err > smax) smax = err;
    if (x == 0 && !cosine && dlx__m_bits64(y) != dlx__m_bits64(x)) fail = 1, printf("  sin(%a) = %a\n", x, y);
  }
  const double ninf = cosine ? dlx__cos(-INFINITY) : dlx__sin(INFINITY), nnan = cosine ? dlx__cos(NAN) : dlx__sin(NAN);
  if (ninf == ninf || nnan == nnan) fail = 1, printf("  inf or NaN did not give NaN\n");
  printf("%s float64 specials: max error %.3f ulp\n", cosine ? "cos" : "sin", smax);
  for (int r = 0; r < 4; ++r) {
    f64_job jobs[2] = {{cosine, r, n / 8, 1000u + (uint64_t)r, 0, 0}, {cosine, r, n / 8, 2000u + (uint64_t)r, 0, 0}};
    pthread_t th[2];
    for (int t = 0; t < 2; ++t) pthread_create(&th[t], NULL, f64_worker, &jobs[t]);
    for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
    const f64_job *b = jobs[0].max_ulp > jobs[1].max_ulp ? &jobs[0] : &jobs[1];
    printf("%s float64 %-18s %ld inputs: max error %.3f ulp at x = %a\n", cosine ? "cos" : "sin", f64_ranges[r],
           2 * (n / 8), b->max_ulp, b->at);
    fail |= b->max_ulp > 1.0;
  }
  return fail;
}

/* ---- the float32 rule's double-double (before the rounding to odd) against MPFR: the largest relative
 * error seen on random float32 inputs (what the near-boundary cases must be compared with) ---- */
static void run_relerr(int cosine, long n) {
  mpfr_t mx, my, md;
  mpfr_inits2(200, mx, my, md, (mpfr_ptr)0);
  uint64_t s = 777u + (uint64_t)cosine;
  double worst = 0, at = 0;
  for (long i = 0; i < n; ++i) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    const float x = dlx__m_from32((uint32_t)(s >> 33) % 0x7f800000u); /* finite, x >= 0 */
    /* the double-double before its rounding to odd (dlx__trig_f32's steps; x >= 0, so no sign) */
    const dlx__trig_red red = dlx__trig_reduce_f32(dlx__m_bits32(x));
    const int q = red.q + cosine;
    const dlx__trig_dd v = (q & 1) ? dlx__trig_cos_qt(red.hi, red.lo) : dlx__trig_sin_qt(red.hi, red.lo);
    mpfr_set_d(mx, (double)x, MPFR_RNDN);
    orc_mpfr_call(cosine ? ORC_COS : ORC_SIN, my, mx);
    if (mpfr_zero_p(my)) continue;
    mpfr_set_d(md, (q & 2) ? -v.hi : v.hi, MPFR_RNDN);
    mpfr_add_d(md, md, (q & 2) ? -v.lo : v.lo, MPFR_RNDN); /* exact at 200 bits */
    mpfr_sub(md, md, my, MPFR_RNDN);
    mpfr_div(md, md, my, MPFR_RNDN);
    const double e = fabs(mpfr_get_d(md, MPFR_RNDN));
    if (e > worst) worst = e, at = (double)x;
  }
  mpfr_clears(mx, my, md, (mpfr_ptr)0);
  printf("%s float32 rule: largest relative error of the double-double over %ld random x: 2^%.2f at x = %a\n",
         cosine ? "cos" : "sin", n, log2(worst), at);
}

/* ---- (4) speed: 16M float32, one thread ---- */
static void run_speed(void) {
  const size_t n = (size_t)1 << 24;
  float *x = malloc(n * sizeof *x);
  double *y = malloc(n * sizeof *y);
  uint64_t s = 12345;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    x[i] = (float)((double)(s >> 11) * 0x1p-53 * 200.0 - 100.0); /* uniform in [-100, 100) */
  }
  for (int c = 0; c < 2; ++c)
    for (int l = 0; l < NLEV; ++l) {
      double best = 1e30;
      for (int rep = 0; rep < 3; ++rep) {
        const struct timespec t0 = now_on(CLOCK_THREAD_CPUTIME_ID);
        loops[c][l](x, y, n);
        const double t = since_on(CLOCK_THREAD_CPUTIME_ID, t0);
        best = t < best ? t : best;
      }
      printf("%s %-7s %.2f ns/element (16M float32, one thread, best of 3; double results)\n", c ? "cos" : "sin",
             lev_names[l], best * 1e9 / (double)n);
    }
  double *xd = malloc(n * sizeof *xd);
  for (size_t i = 0; i < n; ++i) xd[i] = (double)x[i];
  for (int c = 0; c < 2; ++c) {
    const struct timespec t0 = now_on(CLOCK_THREAD_CPUTIME_ID);
    (c ? loop_cos64 : loop_sin64)(xd, y, n);
    printf("%s float64 %.2f ns/element (16M in [-100, 100), one thread, baseline level)\n", c ? "cos" : "sin",
           since_on(CLOCK_THREAD_CPUTIME_ID, t0) * 1e9 / (double)n);
  }
  free(xd);
  free(x);
  free(y);
}

/* ---- the smallest |r| of the reduction over x >= 1/2 (the reduction's error bound rests on it) ---- */
typedef struct minr_job {
  uint32_t begin, end;
  double minr;
  uint32_t at;
} minr_job;

static void *minr_worker(void *arg) {
  minr_job *j = (minr_job *)arg;
  j->minr = 1.0;
  for (uint32_t u = j->begin; u < j->end; ++u) {
    const dlx__trig_red r = dlx__trig_reduce_f32(u);
    const double a = fabs(r.hi);
    if (a < j->minr) {
      j->minr = a;
      j->at = u;
    }
  }
  return NULL;
}

static void run_minr(void) {
  const uint32_t lo = 126u << 23, hi = 255u << 23, mid = lo + (hi - lo) / 2;
  minr_job jobs[2] = {{lo, mid, 0, 0}, {mid, hi, 0, 0}};
  pthread_t th[2];
  for (int t = 0; t < 2; ++t) pthread_create(&th[t], NULL, minr_worker, &jobs[t]);
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  const minr_job *b = jobs[0].minr < jobs[1].minr ? &jobs[0] : &jobs[1];
  printf("smallest |r| over float32 x >= 1/2: %a (2^%.2f quarter turns) at x = %a\n", b->minr, log2(b->minr),
         (double)dlx__m_from32(b->at));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  const int only = argc > 2 ? (strcmp(argv[2], "cos") == 0 ? 1 : 0) : -1;
  int fail = 0;
  for (int c = 0; c < 2; ++c) {
    if (only >= 0 && c != only) continue;
    if (!strcmp(mode, "f32") || !strcmp(mode, "all")) fail |= run_f32(c);
    if (!strcmp(mode, "narrow") || !strcmp(mode, "all")) fail |= run_narrow(c);
    if (!strcmp(mode, "near")) fail |= run_near(c);
    if (!strcmp(mode, "f32fast")) fail |= run_f32fast(c);
    if (!strcmp(mode, "relerr")) run_relerr(c, argc > 3 ? atol(argv[3]) : 1000000L);
    if (!strcmp(mode, "f64") || !strcmp(mode, "all")) fail |= run_f64(c, argc > 3 ? atol(argv[3]) : 10000000L);
  }
  if (!strcmp(mode, "speed") || !strcmp(mode, "all")) run_speed();
  if (!strcmp(mode, "minr")) run_minr();
  return fail;
}

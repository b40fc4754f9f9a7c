/* The proof of the math functions (issue 29, docs/numerics.md "The math functions"): every float32 input of
 * each math function dlx ships (op_table.h's rows with nar WIDE: exp, ...) run through the public C API
 * (dlx_unary on large chunks) at every CPU SIMD level this machine runs, and every code of the 16-bit and
 * 8-bit float formats, against the correctly rounded oracle (oracle.h: long double with a rounding test,
 * MPFR when it cannot decide). Prints each mismatch (up to a few per function, level and format), then one
 * summary line per function and level. Exit status 0 when there is none.
 *
 *   math_exhaustive [--sample N] [--fn exp,log,...] [--levels baseline,avx2,avx512] [--threads T]
 *                   [--seed S] [--hard FILE]
 *
 * Without --sample: all 2^32 float32 inputs (a few minutes per function: the oracle runs once per input on
 * T threads, default 2, and each level's dlx result is compared with it). --sample N: the special values
 * (zeros, infinities, NaNs, the extremes, every power of two and its neighbours), the known hard cases
 * (hard_cases.h: the inputs whose value lies so close to a float32 rounding boundary that the oracle needed
 * MPFR, found by the exhaustive run) and N random inputs, half uniform over the bit patterns, half over
 * [-128, 128]: the CI check (ctest math_sample). --hard FILE: write the inputs the oracle sent to MPFR,
 * as hard_cases.h's rows. The narrow formats are checked whole in both modes: a narrow code decodes to a
 * float32 x exactly; the expected code is the format's encoding of f(x) rounded once to the format's
 * precision (orc_mpfr; an exact f(x) encoded as it is, so that a tie follows the encoder's rule), and two
 * NaN codes match. The oracle's first try is glibc's double function with a rounding test (oracle_f32), far
 * cheaper than long double for 2^32 inputs; what it cannot decide goes to orc_f32. The SIMD level is
 * switched in-process (dlx__cpu_force_variant, what DLX_CPU_FEATURES
 * picks at first use). Needs MPFR (-lmpfr -lgmp); built by bench/CMakeLists.txt when it finds them. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle.h"

#include "backends/cpu/loops.h"
#include "dlx/dlx.h"
#include "dlx/ops.h"
#include "kernels/convert.h"
#include "kernels/op_table.h"

#include "hard_cases.h"

#define CHUNK (1u << 22)
#define SHOW 8 /* mismatches printed per function, level and format */

static const char *const level_names[] = {"baseline", "avx2", "avx512"};
enum { NLEVELS = 3 };

typedef struct options {
  uint64_t sample; /* 0: exhaustive */
  const char *fns, *levels, *hard;
  int threads;
  uint64_t seed;
} options;

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->threads = 2;
  o->seed = 29;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) goto bad;
    if (strcmp(a, "--sample") == 0) o->sample = strtoull(v, NULL, 10);
    else if (strcmp(a, "--fn") == 0) o->fns = v;
    else if (strcmp(a, "--levels") == 0) o->levels = v;
    else if (strcmp(a, "--threads") == 0) o->threads = atoi(v);
    else if (strcmp(a, "--seed") == 0) o->seed = strtoull(v, NULL, 10);
    else if (strcmp(a, "--hard") == 0) o->hard = v;
    else goto bad;
    ++i;
  }
  if (o->threads < 1 || o->threads > 64) goto bad;
  return 0;
bad:
  fprintf(stderr, "usage: %s [--sample N] [--fn exp,log,...] [--levels baseline,avx2,avx512] [--threads T] "
                  "[--seed S] [--hard FILE]\n", argv[0]);
  return -1;
}

/* whether name is in the comma-separated list (NULL: every name) */
static int listed(const char *list, const char *name) {
  if (list == NULL) return 1;
  const size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    const size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (e == NULL) break;
    p = e + 1;
  }
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- the oracle over a chunk, on threads ------------------------------------------------------------- */

typedef struct oracle_job {
  orc_fn f;
  const float *x;
  float *want;
  size_t lo, hi;
  uint64_t slow;
  uint32_t *hard; /* the inputs MPFR decided (may be NULL) */
  size_t nhard, caphard;
} oracle_job;

static double libm_d(orc_fn f, double x) {
  switch (f) {
    case ORC_EXP: return exp(x);
    case ORC_EXP2: return exp2(x);
    case ORC_EXPM1: return expm1(x);
    case ORC_LOG: return log(x);
    case ORC_LOG2: return log2(x);
    case ORC_LOG10: return log10(x);
    case ORC_LOG1P: return log1p(x);
    case ORC_TANH: return tanh(x);
    case ORC_SIN: return sin(x);
    default: return cos(x);
  }
}

/* The correctly rounded float32 f(x), cheaper than orc_f32 for the 2^32 inputs: glibc's double function
 * (within 2 ulp of double, a relative 2^-51, for these functions) with orc_f32's rounding test at 2^-48;
 * undecided inputs, zeros, infinities and NaN go to orc_f32 (long double, then MPFR). A result decided
 * here is right for the same reason as orc_f32's: the true value lies on the same side of every boundary. */
static float oracle_f32(orc_fn f, float x, uint64_t *slow) {
  const double y = libm_d(f, (double)x);
  if (y == y && y != 0 && !isinf(y) && fabs(y) >= DBL_MIN) {
    const double eps = 0x1p-48;
    const float lo = (float)(y * (1 - eps)), hi = (float)(y * (1 + eps));
    if (lo == hi) return lo;
  }
  return orc_f32(f, x, slow);
}

static void *oracle_run(void *arg) {
  oracle_job *j = arg;
  for (size_t i = j->lo; i < j->hi; ++i) {
    const uint64_t before = j->slow;
    j->want[i] = oracle_f32(j->f, j->x[i], &j->slow);
    if (j->slow != before && j->hard != NULL && j->nhard < j->caphard) j->hard[j->nhard++] = bits_of(j->x[i]);
  }
  return NULL;
}

typedef struct run_state {
  const options *opt;
  orc_fn f;
  dlx_unop op;
  int levels[NLEVELS], nlevels;
  uint64_t bad[NLEVELS], n;
  double seconds[NLEVELS];
  FILE *hard;
  uint64_t slow;
} run_state;

static void oracle_chunk(run_state *s, const float *x, float *want, size_t n) {
  enum { MAXT = 64, HARDCAP = 4096 };
  pthread_t tid[MAXT];
  oracle_job job[MAXT];
  static uint32_t hard[MAXT][HARDCAP];
  const int t = s->opt->threads;
  for (int k = 0; k < t; ++k) {
    job[k] = (oracle_job){s->f, x, want, n * (size_t)k / (size_t)t, n * (size_t)(k + 1) / (size_t)t, 0,
                          s->hard ? hard[k] : NULL, 0, HARDCAP};
    pthread_create(&tid[k], NULL, oracle_run, &job[k]);
  }
  for (int k = 0; k < t; ++k) {
    pthread_join(tid[k], NULL);
    s->slow += job[k].slow;
    for (size_t h = 0; h < job[k].nhard; ++h)
      fprintf(s->hard, "  X(%s, 0x%08" PRIx32 "u) /* %.9g */\n", orc_names[s->f], job[k].hard[h],
              (double)f32_of(job[k].hard[h]));
  }
}

/* ---- dlx over a chunk, at each level -------------------------------------------------------------------- */

static int run_dlx(dlx_unop op, DLDataType dt, void *out, void *in, int64_t n) {
  dlx_view vo, vi;
  const int64_t shape[1] = {n};
  const DLDevice cpu = {kDLCPU, 0};
  if (dlx_view_init(&vo, out, dt, cpu, 1, shape, NULL) != DLX_OK ||
      dlx_view_init(&vi, in, dt, cpu, 1, shape, NULL) != DLX_OK || dlx_unary(op, &vo, &vi) != DLX_OK) {
    fprintf(stderr, "dlx_unary: %s\n", dlx_last_error());
    return -1;
  }
  return 0;
}

static int same32(float a, float b) { return bits_of(a) == bits_of(b) || (a != a && b != b); }

static int check_chunk(run_state *s, float *x, const float *want, float *got, size_t n) {
  for (int l = 0; l < s->nlevels; ++l) {
    if (dlx__cpu_force_variant(level_names[s->levels[l]]) != DLX_OK) return -1;
    const double t0 = now();
    if (run_dlx(s->op, DLX_DTYPE_FLOAT32, got, x, (int64_t)n) != 0) return -1;
    s->seconds[l] += now() - t0;
    for (size_t i = 0; i < n; ++i) {
      if (same32(got[i], want[i])) continue;
      if (s->bad[l]++ < SHOW)
        printf("MISMATCH %s %s float32 x=%a (0x%08" PRIx32 "): dlx %a (0x%08" PRIx32 "), correctly rounded %a\n",
               orc_names[s->f], level_names[s->levels[l]], (double)x[i], bits_of(x[i]), (double)got[i],
               bits_of(got[i]), (double)want[i]);
    }
  }
  s->n += n;
  return 0;
}

/* ---- the inputs -------------------------------------------------------------------------------------- */

/* The sample's fixed inputs: special values, every power of two with its neighbours and their negatives,
 * and the hard cases of f. Returns the count written to x (cap: its room). */
static size_t fixed_inputs(orc_fn f, uint32_t *x, size_t cap) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                     0x7fa00000u, 0x7f800001u, 0x7fffffffu, 0x00000001u, 0x80000001u, 0x007fffffu,
                                     0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
  size_t n = 0;
  for (size_t i = 0; i < sizeof special / sizeof special[0] && n < cap; ++i) x[n++] = special[i];
  for (uint32_t e = 0; e < 255; ++e) {
    for (int d = -2; d <= 2; ++d) {
      const uint32_t u = (e << 23) + (uint32_t)d;
      if (n + 2 <= cap && (d >= 0 || e > 0)) {
        x[n++] = u;
        x[n++] = u | 0x80000000u;
      }
    }
  }
  for (size_t i = 0; i < sizeof dlx_math_hard / sizeof dlx_math_hard[0] && n < cap; ++i)
    if (orc_by_name(dlx_math_hard[i].fn) == (int)f) x[n++] = dlx_math_hard[i].bits;
  return n;
}

static int check_float32(run_state *s) {
  float *x = malloc(CHUNK * 4), *want = malloc(CHUNK * 4), *got = malloc(CHUNK * 4);
  int rc = x && want && got ? 0 : -1;
  uint64_t seed = s->opt->seed;
  const uint64_t total = s->opt->sample ? s->opt->sample : UINT64_C(1) << 32;
  size_t fixed = s->opt->sample ? fixed_inputs(s->f, (uint32_t *)(void *)x, CHUNK) : 0;
  for (uint64_t done = 0; rc == 0 && (done < total || fixed > 0);) {
    size_t n = fixed;
    fixed = 0;
    for (; n < CHUNK && done < total; ++n, ++done) {
      const uint64_t r = splitmix(&seed);
      x[n] = !s->opt->sample ? f32_of((uint32_t)done)
             : (done & 1) ? f32_of((uint32_t)r)
                          : (float)((double)(int64_t)r * 0x1p-56); /* [-128, 128) */
    }
    oracle_chunk(s, x, want, n);
    rc = check_chunk(s, x, want, got, n);
    if (!s->opt->sample && (done >> 28) != ((done - n) >> 28)) {
      fprintf(stderr, "  %s: %" PRIu64 " / 2^32\r", orc_names[s->f], done);
      fflush(stderr);
    }
  }
  free(x);
  free(want);
  free(got);
  return rc;
}

/* ---- the narrow formats: every code ------------------------------------------------------------------- */

static const uint8_t narrow_codes[] = {DLX_CODE_FLOAT, DLX_CODE_BFLOAT, 7, 8, 9, 10, 11, 12, 13, 14};

/* f(x) rounded once to the format: exact values (a tie, where there is one, is the encoder's to break)
 * encoded as they are, others rounded by MPFR to the format's precision with its gradual underflow
 * (e8m0fnu: one bit, and 2^-127 its smallest value) */
static uint32_t narrow_expected(orc_fn f, const dlx__cvt_format *fmt, double x) {
  mpfr_t mx, my;
  mpfr_init2(mx, 64);
  mpfr_init2(my, 53);
  mpfr_set_d(mx, x, MPFR_RNDN);
  const int inex = orc_mpfr_call(f, my, mx);
  const double exact = mpfr_get_d(my, MPFR_RNDN);
  mpfr_clear(mx);
  mpfr_clear(my);
  if (inex == 0 && exact >= -DBL_MAX && exact <= DBL_MAX && (exact == 0 || fabs(exact) >= DBL_MIN))
    return dlx__cvt_encode_f64(fmt, exact);
  const int p = fmt->man_bits + 1, emin_sub = fmt->has_zero ? 1 - fmt->bias - fmt->man_bits : -fmt->bias;
  return dlx__cvt_encode_f64(fmt, orc_mpfr(f, x, p, emin_sub));
}

static int check_narrow(run_state *s, uint64_t *bad, uint64_t *codes) {
  for (size_t c = 0; c < sizeof narrow_codes; ++c) {
    const dlx__cvt_format fmt = dlx__cvt_format_value(narrow_codes[c]);
    const uint32_t n = 1u << fmt.bits, size = fmt.bits / 8;
    const DLDataType dt = {narrow_codes[c], fmt.bits, 1};
    uint8_t in[65536 * 2], got[65536 * 2];
    uint32_t want[65536];
    for (uint32_t k = 0; k < n; ++k) {
      memcpy(in + k * size, &k, size); /* little-endian: the code's low bytes */
      want[k] = narrow_expected(s->f, &fmt, dlx__cvt_decode_f64(&fmt, k));
    }
    *codes += n;
    for (int l = 0; l < s->nlevels; ++l) {
      if (dlx__cpu_force_variant(level_names[s->levels[l]]) != DLX_OK) return -1;
      if (run_dlx(s->op, dt, got, in, n) != 0) return -1;
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t g = 0;
        memcpy(&g, got + k * size, size);
        const double gv = dlx__cvt_decode_f64(&fmt, g), wv = dlx__cvt_decode_f64(&fmt, want[k]);
        if (g == want[k] || (gv != gv && wv != wv)) continue;
        if (bad[l]++ < SHOW)
          printf("MISMATCH %s %s %s code 0x%x (x=%a): dlx code 0x%x (%a), correctly rounded 0x%x (%a)\n",
                 orc_names[s->f], level_names[s->levels[l]], fmt.name, k, dlx__cvt_decode_f64(&fmt, k), g, gv,
                 want[k], wv);
      }
    }
  }
  return 0;
}

/* ---- one function, every level ------------------------------------------------------------------------ */

static int check_function(const options *o, dlx_unop op, orc_fn f, FILE *hard, int *levels, int nlevels,
                          uint64_t *total_bad) {
  run_state s;
  memset(&s, 0, sizeof s);
  s.opt = o;
  s.f = f;
  s.op = op;
  s.hard = hard;
  s.nlevels = nlevels;
  memcpy(s.levels, levels, sizeof(int) * (size_t)nlevels);
  const double t0 = now();
  if (check_float32(&s) != 0) return -1;
  uint64_t nbad[NLEVELS] = {0}, codes = 0;
  if (check_narrow(&s, nbad, &codes) != 0) return -1;
  for (int l = 0; l < nlevels; ++l) {
    printf("%-6s %-8s float32: %" PRIu64 " inputs, %" PRIu64 " mismatches (dlx %.2f ns/element, %d threads); "
           "narrow: %" PRIu64 " codes of %zu formats, %" PRIu64 " mismatches\n",
           orc_names[f], level_names[levels[l]], s.n, s.bad[l], 1e9 * s.seconds[l] / (double)s.n,
           dlx_get_num_threads(), codes, sizeof narrow_codes, nbad[l]);
    *total_bad += s.bad[l] + nbad[l];
  }
  printf("%-6s oracle: %" PRIu64 " inputs decided by MPFR; %.0f s\n", orc_names[f], s.slow, now() - t0);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  options o;
  if (parse(argc, argv, &o) != 0) return 2;
  int levels[NLEVELS], nlevels = 0;
  for (int l = 0; l < NLEVELS; ++l)
    if (listed(o.levels, level_names[l]) && dlx__cpu_variant_supported(level_names[l])) levels[nlevels++] = l;
  FILE *hard = o.hard ? fopen(o.hard, "w") : NULL;
  if (nlevels == 0 || (o.hard && hard == NULL)) {
    fprintf(stderr, "%s: no level to run, or cannot write %s\n", argv[0], o.hard ? o.hard : "");
    return 2;
  }
  uint64_t bad = 0;
  int ran = 0;
  for (int op = 0; op < DLX_UNOP_COUNT; ++op) {
    const dlx__op_info *info = &dlx__unop_info[op];
    const int f = orc_by_name(info->numpy);
    if (info->nar != DLX__NAR_WIDE || !listed(o.fns, info->numpy)) continue;
    if (f < 0) {
      fprintf(stderr, "%s: the oracle has no %s\n", argv[0], info->numpy);
      return 2;
    }
    if (check_function(&o, (dlx_unop)op, (orc_fn)f, hard, levels, nlevels, &bad) != 0) return 2;
    ++ran;
  }
  if (hard) fclose(hard);
  printf("%s: %d functions, %s, %" PRIu64 " mismatches\n", bad ? "FAIL" : "OK", ran,
         o.sample ? "sampled" : "every float32 input", bad);
  return ran == 0 ? 2 : bad != 0;
}

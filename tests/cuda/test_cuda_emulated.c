/* The CUDA backend's kernels (src/backends/cuda/kernels*.cu), checked without a GPU: their per-thread
 * bodies run on the host through the *_emulated entry points, over every thread of the grid a launch
 * would use, and must give the CPU backend's bits.
 *
 * Every case is one op (copy, fill, cast, unary, binary, fma) on one set of dtypes and one layout. The
 * test builds the operands in one arena (guards, stale output bytes, inputs of random values with NaN of
 * both signs and with payloads, signalling NaNs, +-inf, -0.0, subnormals, integer limits, every code of
 * the narrow formats, non-0/1 bool bytes and stray bits above float6/float4 codes), plans the loop as the
 * compute layer does (dlx_iter_init, output strides flipped positive), and runs the plan twice on two
 * copies of the arena: dlx__cpu_compute.execute and dlx__cuda_execute_emulated. The arenas must then be
 * equal byte for byte; for arithmetic results (binary arithmetic, fma) a NaN against a NaN of another
 * sign or payload is accepted and counted (dlx/ops.h leaves it unspecified).
 *
 * Layouts: 1-d contiguous runs with 16-byte aligned operands of many lengths (the kernels' vectorised
 * path and its tail), with scalar (stride 0) inputs; misaligned by one byte; N-d row-major, transposed,
 * padded, reversed and permuted with random signs; broadcast inputs (dropped and stretched dimensions,
 * 0-d); zero strides; in-place (output == input). Three launch shapes rotate over the cases (the default
 * grid, 3 blocks of 32 threads, one thread), so the grid-stride loops run many iterations per thread.
 * Packed float6/float4: unpack and pack against the CPU's, over random strided views (negative strides
 * included), the bits around the elements preserved. Also: the kernels' 64-bit divider and offset
 * calculator on shapes past 2^32 elements, and the dimension limit's error. Reductions: every op and
 * dtype over random shapes, axes and strides through both of the kernels' mappings and several grid sizes,
 * against the CPU's bits, and the tree over blocks in more than one level. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cuda/kernels.h"
#include "kernels/convert.h"
#include "kernels/ew.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/view.h"

#define CPU ((DLDevice){kDLCPU, 0})

#include "rng.h"

/* Every dtype with a kernel, in dlx__kd order. */
static const DLDataType kd_dtypes[DLX_KD_COUNT] = {
    DLX_DTYPE_BOOL,          DLX_DTYPE_INT8,           DLX_DTYPE_INT16,         DLX_DTYPE_INT32,
    DLX_DTYPE_INT64,         DLX_DTYPE_UINT8,          DLX_DTYPE_UINT16,        DLX_DTYPE_UINT32,
    DLX_DTYPE_UINT64,        DLX_DTYPE_FLOAT32,        DLX_DTYPE_FLOAT64,       DLX_DTYPE_COMPLEX64,
    DLX_DTYPE_COMPLEX128,    DLX_DTYPE_FLOAT16,        DLX_DTYPE_BFLOAT16,      DLX_DTYPE_FLOAT8_E3M4,
    DLX_DTYPE_FLOAT8_E4M3,   DLX_DTYPE_FLOAT8_E4M3B11FNUZ, DLX_DTYPE_FLOAT8_E4M3FN, DLX_DTYPE_FLOAT8_E4M3FNUZ,
    DLX_DTYPE_FLOAT8_E5M2,   DLX_DTYPE_FLOAT8_E5M2FNUZ, DLX_DTYPE_FLOAT8_E8M0FNU, DLX_DTYPE_FLOAT6_E2M3FN,
    DLX_DTYPE_FLOAT6_E3M2FN, DLX_DTYPE_FLOAT4_E2M1FN};

static bool is_subbyte_kd(int k) { return k >= DLX_KD_F6_E2M3FN && k < DLX_KD_COUNT; }
static bool is_complex_kd(int k) { return k == DLX_KD_C64 || k == DLX_KD_C128; }

/* ---- values ------------------------------------------------------------------------------------------ */

static const double specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1.5, 0.1, FLT_TRUE_MIN, -FLT_MIN / 3,
    FLT_MIN, FLT_MAX, -FLT_MAX, DBL_TRUE_MIN, -DBL_MIN, DBL_MAX, 65504.0, 65520.0, -65519.0, 6e-8, 448.0, 464.0,
    57344.0, 61440.0, 240.0, 7.5, 6.0, 28.0, 3.25, 127.5, 128.0, -128.5, 255.5, 256.0, 32767.5, 65535.5,
    2147483648.0, -2147483649.0, 4294967296.0, 9223372036854775808.0, -9223372036854775808.0,
    18446744073709551616.0, 16777217.0, 9007199254740993.0, 1.0000000596046448, 3.4028235677973366e38, 1e300,
    -1e-300, 1.00390625, 1.0 / 3.0};
#define NSPECIALS ((int)(sizeof specials / sizeof specials[0]))

/* Witnesses of double rounding: 2^k (1 + 2^-(m+1) + tiny) is just above a tie of an m-bit mantissa, so
 * it rounds up when rounded once, but to even (down) when rounded to float32 first and then to the
 * narrow format (m = 1 float4 ... 10 float16). They tell the float64 path from a float32 detour. */
static double witness(void) {
  const int m = (int)rnd_in(1, 10), k = (int)rnd_in(-6, 14), tiny = (int)rnd_in(30, 50);
  /* built in bits (the tests link no libm) */
  const uint64_t bits = (chance(50) ? UINT64_C(1) << 63 : 0) | ((uint64_t)(1023 + k) << 52) |
                        (UINT64_C(1) << (52 - (m + 1))) | (UINT64_C(1) << (52 - tiny));
  double x;
  memcpy(&x, &bits, 8);
  return x;
}

static double real_value(void) {
  const int r = (int)(rnd() % 100);
  if (r < 8) return witness();
  if (r < 35) return specials[rnd() % NSPECIALS];
  if (r < 55) return (double)((int)(rnd() % 9) - 4);
  return ((double)(int64_t)(rnd() % 8001) - 4000.0) / 16.0 * (chance(20) ? 1e4 : 1.0);
}

static float f32_value(void) {
  if (chance(15)) { /* raw bits: NaN payloads of both signs, signalling NaNs, subnormals */
    uint32_t bits = (uint32_t)rnd();
    if (chance(50)) bits |= 0x7f800000u; /* NaN or inf */
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  return (float)real_value();
}

static double f64_value(void) {
  if (chance(15)) {
    uint64_t bits = rnd();
    if (chance(50)) bits |= UINT64_C(0x7ff0000000000000);
    double f;
    memcpy(&f, &bits, 8);
    return f;
  }
  return real_value();
}

static uint64_t int_value(bool sgn, unsigned bits) {
  const uint64_t max = sgn ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
  const uint64_t min = sgn ? ~max : 0;
  const int r = (int)(rnd() % 100);
  if (r < 35) {
    const uint64_t lim[] = {min, max, min + 1, max - 1, 0, 1, (uint64_t)-1, ((uint64_t)1 << 24) + 1,
                            ((uint64_t)1 << 53) + 1, ((uint64_t)1 << 62) + 513, 2, (uint64_t)-2};
    return lim[rnd() % (sizeof lim / sizeof lim[0])];
  }
  if (r < 70) return (uint64_t)((int64_t)(rnd() % 9) - 4);
  if (r < 80 && bits >= 32) {
    /* an integer witness of double rounding: 2^k + 2^(k-m-1) + 1, k > 24, so that float32 loses the 1 */
    const int m = (int)rnd_in(1, 10), k = (int)rnd_in(25, (int)bits - 2);
    const uint64_t v = ((uint64_t)1 << k) + ((uint64_t)1 << (k - m - 1)) + 1;
    return sgn && chance(50) ? (uint64_t)0 - v : v;
  }
  return rnd();
}

/* One element of dt at p (bytes of any dtype; padded float6/float4 with stray bits above the code). */
static void gen_element(unsigned char *p, DLDataType dt) {
  const int k = dlx__kd_of(dt);
  const size_t size = dlx_dtype_itemsize(dt);
  if (k == DLX_KD_BOOL) {
    *p = chance(10) ? (chance(50) ? 2 : 0xff) : (unsigned char)(rnd() & 1);
  } else if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    const uint64_t x = int_value(k <= DLX_KD_I64, dt.bits);
    memcpy(p, &x, size);
  } else if (k == DLX_KD_F32 || k == DLX_KD_C64) {
    for (size_t i = 0; i < size; i += 4) {
      const float f = f32_value();
      memcpy(p + i, &f, 4);
    }
  } else if (k == DLX_KD_F64 || k == DLX_KD_C128) {
    for (size_t i = 0; i < size; i += 8) {
      const double f = f64_value();
      memcpy(p + i, &f, 8);
    }
  } else if (k >= DLX_KD_F16 && !is_subbyte_kd(k)) {
    uint32_t c = (uint32_t)rnd(); /* any code, or a special value encoded */
    if (chance(35)) c = dlx__cvt_narrow_encode(dlx__kd_narrow_code((dlx__kd)k), specials[rnd() % NSPECIALS]);
    memcpy(p, &c, size);
  } else if (is_subbyte_kd(k)) {
    *p = (unsigned char)(rnd() & ((1u << dt.bits) - 1u));
    if (chance(15)) *p |= (unsigned char)(rnd() << dt.bits);
  } else {
    for (size_t i = 0; i < size; ++i) p[i] = (unsigned char)rnd();
  }
}

/* ---- layouts ----------------------------------------------------------------------------------------- */

#define GUARD 64

/* Strides (elements) for shape: row-major ('c'), column-major ('t'), padded ('p': inner stride 2, outer
 * extents + 1), reversed ('n'), or a random order with random signs and padding ('r'). */
static void make_strides(char style, int nd, const int64_t *sh, int64_t *st) {
  int order[4] = {0, 1, 2, 3}; /* order[0] innermost */
  for (int i = 0; i < nd; ++i) order[i] = nd - 1 - i;
  if (style == 't')
    for (int i = 0; i < nd; ++i) order[i] = i;
  if (style == 'r')
    for (int i = nd - 1; i > 0; --i) {
      const int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  int64_t acc = style == 'p' ? 2 : 1;
  for (int i = 0; i < nd; ++i) {
    const int d = order[i];
    st[d] = acc;
    acc *= (sh[d] > 0 ? sh[d] : 1) + ((style == 'p' && i > 0) || (style == 'r' && chance(30)) ? 1 : 0);
  }
  for (int d = 0; d < nd; ++d)
    if (style == 'n' || (style == 'r' && chance(40))) st[d] = -st[d];
}

/* Element offsets [lo, hi] a view reaches. */
static void elem_extent(const dlx_view *v, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  if (dlx_view_size(v) == 0) return;
  for (int32_t d = 0; d < v->ndim; ++d) {
    const int64_t reach = (v->shape[d] - 1) * v->strides[d];
    if (reach < 0) *lo += reach;
    else *hi += reach;
  }
}

typedef struct scase {
  dlx__ew_op op;
  int nop;
  dlx_view v[4]; /* data: offsets into the arena until placed */
  bool alias;    /* input 0 is the output's memory */
  unsigned char *arena;
  size_t bytes;
} scase;

/* Place the views' memory in a fresh arena (operand regions 64-byte aligned plus `mis` bytes) and fill
 * it: random stale bytes, input values over each input's whole span. */
static void place(scase *c, const int *mis) {
  int64_t lo[4], hi[4], base[4] = {0, 0, 0, 0};
  size_t total = GUARD;
  if (c->alias) { /* input 0 is the output's elements, viewed with its own dtype */
    c->v[1].ndim = c->v[0].ndim;
    memcpy(c->v[1].shape, c->v[0].shape, sizeof c->v[0].shape);
    memcpy(c->v[1].strides, c->v[0].strides, sizeof c->v[0].strides);
  }
  for (int k = 0; k < c->nop; ++k) {
    elem_extent(&c->v[k], &lo[k], &hi[k]);
    if (k == 1 && c->alias) continue;
    const int64_t size = (int64_t)dlx_dtype_itemsize(c->v[k].dtype);
    base[k] = (int64_t)total + mis[k];
    total += (size_t)(mis[k] + (hi[k] - lo[k] + 1) * size) + GUARD;
    total = (total + 63) & ~(size_t)63;
  }
  c->bytes = total;
  c->arena = aligned_alloc(64, total);
  for (size_t i = 0; i < total; ++i) c->arena[i] = (unsigned char)rnd();
  for (int k = 0; k < c->nop; ++k) {
    const int64_t size = (int64_t)dlx_dtype_itemsize(c->v[k].dtype);
    if (k == 1 && c->alias) {
      c->v[1].data = c->v[0].data;
    } else {
      c->v[k].data = c->arena + base[k] - lo[k] * size;
    }
    if (k == 0 && !c->alias) continue;
    unsigned char *lowest = (unsigned char *)c->v[k].data + lo[k] * size;
    for (int64_t off = 0; off <= (hi[k] - lo[k]) * size; off += size) gen_element(lowest + off, c->v[k].dtype);
  }
}

static void set_view(dlx_view *v, DLDataType dt, int nd, const int64_t *shape, char style) {
  memset(v, 0, sizeof *v);
  v->dtype = dt;
  v->device = CPU;
  v->ndim = nd;
  for (int d = 0; d < nd; ++d) v->shape[d] = shape[d];
  make_strides(style, nd, shape, v->strides);
  if (dlx_dtype_is_subbyte(dt)) v->flags = DLX_VIEW_SUBBYTE_PADDED;
}

/* Layout `li` of case c's views (dtypes set in c->op). */
static void make_layout(scase *c, int li) {
  static const char styles[] = {'c', 't', 'p', 'n', 'r', 'r'};
  const int nin = c->op.nin;
  int mis[4] = {0, 0, 0, 0};
  int64_t shape[4];
  const bool same_size = dlx_dtype_itemsize(c->op.dtype[0]) == dlx_dtype_itemsize(c->op.dtype[1]);
  c->alias = false;
  if (li % 3 == 0) {
    /* the fast path: 1-d, contiguous, 16-byte aligned; inputs contiguous or broadcast scalars */
    static const int64_t lengths[] = {1, 2, 5, 15, 16, 17, 31, 33, 64, 100, 257, 1000, 2051, 4099};
    shape[0] = lengths[rnd() % (sizeof lengths / sizeof lengths[0])];
    set_view(&c->v[0], c->op.dtype[0], 1, shape, 'c');
    for (int k = 1; k <= nin; ++k) {
      const bool scalar = chance(25);
      set_view(&c->v[k], c->op.dtype[k], scalar ? 0 : 1, shape, 'c');
    }
    if (chance(15)) mis[(int)(rnd() % (uint64_t)(nin + 1))] = (int)dlx_dtype_itemsize(c->op.dtype[0]) * (chance(50) ? 1 : 2);
    c->alias = same_size && c->op.kind != DLX_EW_FILL && chance(15) && c->v[1].ndim == 1;
  } else {
    /* N-d: any style; inputs broadcast by dropped or stretched dimensions, or 0-d */
    const int nd = (int)rnd_in(0, 4);
    for (int d = 0; d < nd; ++d) shape[d] = chance(10) ? 1 : rnd_in(2, nd <= 2 ? 23 : 7);
    if (chance(3) && nd > 0) shape[0] = 0; /* empty */
    set_view(&c->v[0], c->op.dtype[0], nd, shape, styles[rnd() % sizeof styles]);
    for (int k = 1; k <= nin; ++k) {
      int knd = nd;
      int64_t ksh[4];
      if (chance(20)) knd = (int)rnd_in(0, nd);
      for (int d = 0; d < knd; ++d) ksh[d] = shape[nd - knd + d] > 1 && chance(20) ? 1 : shape[nd - knd + d];
      const char st = styles[rnd() % sizeof styles];
      set_view(&c->v[k], c->op.dtype[k], knd, ksh, st);
      /* a broadcast by stride rather than by shape: extent kept, stride 0 */
      if (knd > 0 && chance(15)) c->v[k].strides[rnd() % (uint64_t)knd] = 0;
    }
    if (c->op.kind == DLX_EW_FILL) set_view(&c->v[1], c->op.dtype[1], 0, shape, 'c');
    for (int k = 0; k <= nin; ++k)
      if (chance(12)) mis[k] = 1; /* one byte past the type's alignment */
    c->alias = same_size && c->op.kind != DLX_EW_FILL && chance(12);
  }
  place(c, mis);
}

/* The plan the compute layer hands a backend (ops.c, plan_and_execute). */
static bool make_plan(const scase *c, dlx_iter *it) {
  const dlx_view *views[4] = {&c->v[0], &c->v[1], &c->v[2], &c->v[3]};
  CHECK_OK(dlx_iter_init(it, c->nop, views, DLX_ITER_OUTPUT_FULL));
  for (int d = 0; d < it->ndim; ++d) {
    if (it->strides[0][d] >= 0) continue;
    for (int k = 0; k < c->nop; ++k) {
      it->data[k] += (intptr_t)((it->shape[d] - 1) * it->strides[k][d]);
      it->strides[k][d] = -it->strides[k][d];
    }
  }
  return it->size > 0;
}

/* ---- comparing --------------------------------------------------------------------------------------- */

static int64_t cases_run, elements_compared, nan_accepted, failures_shown;

/* Whether a part (a real, one half of a complex, a narrow code) holds a NaN. */
static bool is_nan_part(int k, const unsigned char *p) {
  if (k == DLX_KD_F32 || k == DLX_KD_C64) {
    float f;
    memcpy(&f, p, 4);
    return f != f;
  }
  if (k == DLX_KD_F64 || k == DLX_KD_C128) {
    double f;
    memcpy(&f, p, 8);
    return f != f;
  }
  uint32_t code = 0;
  memcpy(&code, p, dlx_dtype_itemsize(kd_dtypes[k]));
  const double x = dlx__cvt_narrow_decode(dlx__kd_narrow_code((dlx__kd)k), code);
  return x != x;
}

static const char *kind_name(dlx__ew_kind k) {
  static const char *const names[] = {"copy", "fill", "cast", "unary", "binary", "fma"};
  return names[k];
}

static void describe(const scase *c, int li, const char *what) {
  const char *o = dlx_dtype_name(c->op.dtype[0]), *a = dlx_dtype_name(c->op.dtype[1]);
  fprintf(stderr, "    %s: %s op %d scalar %g, out %s, a %s", what, kind_name(c->op.kind), (int)c->op.op,
          c->op.scalar, o ? o : "?", a ? a : "?");
  if (c->op.nin > 1) fprintf(stderr, ", b %s", dlx_dtype_name(c->op.dtype[2]) ? dlx_dtype_name(c->op.dtype[2]) : "?");
  fprintf(stderr, "; layout %d (out ndim %d", li, (int)c->v[0].ndim);
  for (int d = 0; d < c->v[0].ndim; ++d)
    fprintf(stderr, " %lld:%lld", (long long)c->v[0].shape[d], (long long)c->v[0].strides[d]);
  fprintf(stderr, ")%s\n", c->alias ? ", in place" : "");
}

/* Both results of case c: every output element (NaN against NaN accepted for arithmetic), then every
 * byte of the arena. */
static bool compare(const scase *c, int li, const unsigned char *ref, unsigned char *got) {
  const dlx_view *o = &c->v[0];
  const int k = dlx__kd_of(o->dtype);
  const size_t size = dlx_dtype_itemsize(o->dtype);
  /* NaN bits of arithmetic are unspecified (dlx/ops.h); moves, negation and where keep them */
  const bool arith = (c->op.kind == DLX_EW_BINARY && !dlx__op_is_comparison(c->op.op)) || c->op.kind == DLX_EW_FMA ||
                     (c->op.kind == DLX_EW_UNARY && c->op.unop != DLX_UNOP_NEG) ||
                     (c->op.kind == DLX_EW_TERNARY && c->op.ternop == DLX_TERNOP_CLIP);
  const int64_t n = dlx_view_size(o), base = (unsigned char *)o->data - c->arena;
  int64_t idx[DLX_MAX_NDIM] = {0}, bad = 0;
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (int32_t d = 0; d < o->ndim; ++d) off += idx[d] * o->strides[d];
    const unsigned char *r = ref + base + off * (int64_t)size;
    unsigned char *g = got + base + off * (int64_t)size;
    if (memcmp(r, g, size) != 0) {
      /* which NaN an operation returns when it meets several (x86 returns its first operand's, and
       * the compilers of the CPU loops and of the kernels order commutative operands as they like) */
      bool nan = arith && k >= DLX_KD_F32 && !is_subbyte_kd(k);
      const size_t psize = is_complex_kd(k) ? size / 2 : size;
      for (size_t p = 0; nan && p < size; p += psize)
        nan = memcmp(r + p, g + p, psize) == 0 || (is_nan_part(k, r + p) && is_nan_part(k, g + p));
      if (nan) {
        ++nan_accepted;
        memcpy(g, r, size);
      } else if (bad++ < 3 && failures_shown < 40) {
        if (bad == 1) describe(c, li, "emulated cuda != cpu");
        fprintf(stderr, "      element %lld: cpu 0x", (long long)e);
        for (size_t i = size; i-- > 0;) fprintf(stderr, "%02x", r[i]);
        fprintf(stderr, " cuda 0x");
        for (size_t i = size; i-- > 0;) fprintf(stderr, "%02x", g[i]);
        fprintf(stderr, "\n");
      }
    }
    for (int32_t d = o->ndim - 1; d >= 0; --d) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
  if (bad > 0) {
    ++failures_shown;
    fprintf(stderr, "      %lld of %lld elements differ\n", (long long)bad, (long long)n);
    return false;
  }
  for (size_t i = 0; i < c->bytes; ++i) {
    if (ref[i] == got[i]) continue;
    if (failures_shown++ < 40) {
      describe(c, li, "arena differs outside the output's elements");
      fprintf(stderr, "      byte %zu: cpu %02x cuda %02x\n", i, ref[i], got[i]);
    }
    return false;
  }
  elements_compared += n;
  return true;
}

/* ---- running one op over many layouts ------------------------------------------------------------------ */

static const int launch_shapes[3][2] = {{256, 65536}, {32, 3}, {1, 1}};

static int64_t failed_cases;

static void run_op(dlx__ew_kind kind, int unop_or_op, double scalar, DLDataType o, DLDataType a, DLDataType b,
                   int layouts) {
  for (int li = 0; li < layouts; ++li) {
    scase c;
    memset(&c, 0, sizeof c);
    c.op.kind = kind;
    c.op.unop = (dlx_unop)(kind == DLX_EW_UNARY ? unop_or_op : 0);
    c.op.op = (dlx_binop)(kind == DLX_EW_BINARY ? unop_or_op : 0);
    c.op.ternop = (dlx_ternop)(kind == DLX_EW_TERNARY ? unop_or_op : 0);
    c.op.scalar = scalar;
    c.op.nin = kind == DLX_EW_TERNARY ? 3 : kind == DLX_EW_BINARY || kind == DLX_EW_FMA ? 2 : 1;
    c.op.dtype[0] = o;
    c.op.dtype[1] = a;
    c.op.dtype[2] = c.op.nin > 1 ? b : a;
    c.op.dtype[3] = c.op.dtype[2];
    c.op.device = CPU;
    c.nop = 1 + c.op.nin;
    make_layout(&c, li);
    dlx_iter it;
    if (make_plan(&c, &it)) {
      unsigned char *ref = malloc(c.bytes), *got = malloc(c.bytes);
      memcpy(ref, c.arena, c.bytes);
      memcpy(got, c.arena, c.bytes);
      dlx_iter ir = it, ig = it;
      for (int k = 0; k < c.nop; ++k) {
        ir.data[k] = (char *)ref + (it.data[k] - (char *)c.arena);
        ig.data[k] = (char *)got + (it.data[k] - (char *)c.arena);
      }
      const int *ls = launch_shapes[(int)(cases_run % 3)];
      dlx__cuda_set_launch_shape(ls[0], ls[1]);
      CHECK_OK(dlx__cpu_compute.execute(&c.op, &ir));
      const dlx_status st = dlx__cuda_execute_emulated(&c.op, &ig);
      CHECK_OK(st);
      if (st != DLX_OK || !compare(&c, li, ref, got)) ++failed_cases;
      ++cases_run;
      free(ref);
      free(got);
    }
    free(c.arena);
  }
  dlx__cuda_set_launch_shape(256, 65536);
}

/* ---- the tests ----------------------------------------------------------------------------------------- */

static void test_moves(void) {
  rng_state = 0x11;
  /* item sizes 1, 2, 4, 8, 16 and odd ones (3-byte uint8x3, 12-byte float32x3, 6-byte int16x3) */
  const DLDataType dts[] = {DLX_DTYPE_UINT8, DLX_DTYPE_FLOAT16, DLX_DTYPE_FLOAT32, DLX_DTYPE_FLOAT64,
                            DLX_DTYPE_COMPLEX128, DLX_DTYPE_INT128, DLX_DTYPE_MAKE(DLX_CODE_UINT, 8, 3),
                            DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 3), DLX_DTYPE_MAKE(DLX_CODE_INT, 16, 3),
                            DLX_DTYPE_FLOAT4_E2M1FN, DLX_DTYPE_BOOL};
  const int64_t before = cases_run, failed_before = failed_cases;
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; ++i) {
    run_op(DLX_EW_COPY, 0, 0, dts[i], dts[i], dts[i], 60);
    run_op(DLX_EW_FILL, 0, 0, dts[i], dts[i], dts[i], 20);
  }
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("moves: %lld cases\n", (long long)(cases_run - before));
}

static void test_casts(void) {
  rng_state = 0x22;
  const int64_t before = cases_run, failed_before = failed_cases;
  for (int s = 0; s < DLX_KD_COUNT; ++s)
    for (int d = 0; d < DLX_KD_COUNT; ++d) run_op(DLX_EW_CAST, 0, 0, kd_dtypes[d], kd_dtypes[s], kd_dtypes[s], 30);
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("casts: %d x %d dtypes, %lld cases\n", DLX_KD_COUNT, DLX_KD_COUNT, (long long)(cases_run - before));
}

static void test_unary(void) {
  rng_state = 0x33;
  const int64_t before = cases_run, failed_before = failed_cases;
  /* every (op, dtype) of the op table's unary rows (kernels/op_table.h); a narrow float's copy (positive) is
   * a move, never a unary kernel */
  for (int op = 0; op < DLX_UNOP_COUNT; ++op) {
    const dlx__op_info *info = &dlx__unop_info[op];
    for (int k = 0; k < DLX_KD_COUNT; ++k) {
      if (is_subbyte_kd(k) || !dlx__op_takes(info, k)) continue;
      if (k >= DLX_KD_NATIVE_COUNT && info->nar == DLX__NAR_MOVE) continue;
      const DLDataType o = info->bool_result ? DLX_DTYPE_BOOL : kd_dtypes[k];
      run_op(DLX_EW_UNARY, op, 0, o, kd_dtypes[k], kd_dtypes[k], op < 1 ? 90 : 24);
    }
  }
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("unary: %lld cases\n", (long long)(cases_run - before));
}

static void test_binary(void) {
  rng_state = 0x44;
  const int64_t before = cases_run, failed_before = failed_cases;
  for (int op = 0; op < DLX_OP_COUNT; ++op) {
    for (int k = 0; k < DLX_KD_COUNT; ++k) {
      if (is_subbyte_kd(k) || !dlx__op_takes(&dlx__binop_info[op], k)) continue;
      const DLDataType o = dlx__binop_info[op].bool_result ? DLX_DTYPE_BOOL : kd_dtypes[k];
      run_op(DLX_EW_BINARY, op, 0, o, kd_dtypes[k], kd_dtypes[k], op < DLX_OP_MAXIMUM ? 45 : 16);
    }
  }
  /* the one mixed pair: int64 with uint64 in the comparisons, both orders */
  for (int op = DLX_OP_LT; op <= DLX_OP_NE; ++op) {
    run_op(DLX_EW_BINARY, op, 0, DLX_DTYPE_BOOL, DLX_DTYPE_INT64, DLX_DTYPE_UINT64, 45);
    run_op(DLX_EW_BINARY, op, 0, DLX_DTYPE_BOOL, DLX_DTYPE_UINT64, DLX_DTYPE_INT64, 45);
  }
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("binary: %lld cases\n", (long long)(cases_run - before));
}

static void test_ternary(void) {
  rng_state = 0x66;
  const int64_t before = cases_run, failed_before = failed_cases;
  for (int op = 0; op < DLX_TERNOP_COUNT; ++op) {
    for (int k = 0; k < DLX_KD_COUNT; ++k) {
      if (is_subbyte_kd(k) || !dlx__op_takes(&dlx__ternop_info[op], k)) continue;
      const DLDataType a = op == DLX_TERNOP_WHERE ? DLX_DTYPE_BOOL : kd_dtypes[k];
      run_op(DLX_EW_TERNARY, op, 0, kd_dtypes[k], a, kd_dtypes[k], 24);
    }
  }
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("ternary: %lld cases\n", (long long)(cases_run - before));
}

static void test_fma(void) {
  rng_state = 0x55;
  const double scalars[] = {0.5, -1.0, 2.25, 1e3, -0.0, 3.0, NAN, -INFINITY, 1e-3, -7.5};
  const int64_t before = cases_run, failed_before = failed_cases;
  for (int k = 0; k < DLX_KD_COUNT; ++k) {
    if (is_subbyte_kd(k)) continue;
    for (int partner = 0; partner <= (k >= DLX_KD_U8 && k <= DLX_KD_U64); ++partner) {
      const DLDataType t1 = partner ? kd_dtypes[k - DLX_KD_U8 + DLX_KD_I8] : kd_dtypes[k];
      for (size_t s = 0; s < sizeof scalars / sizeof scalars[0]; ++s)
        run_op(DLX_EW_FMA, 0, scalars[s], kd_dtypes[k], t1, kd_dtypes[k], 9);
    }
  }
  CHECK_EQ(failed_cases - failed_before, 0);
  printf("fma: %lld cases\n", (long long)(cases_run - before));
}

/* Packed float6/float4 views: unpack and pack, emulated against the CPU. */
static void test_packed(void) {
  rng_state = 0x66;
  const DLDataType dts[] = {DLX_DTYPE_FLOAT4_E2M1FN, DLX_DTYPE_FLOAT6_E2M3FN, DLX_DTYPE_FLOAT6_E3M2FN};
  static const char styles[] = {'c', 'c', 't', 'p', 'n', 'r', 'r', 'r'};
  int64_t runs = 0, bad = 0, codes = 0;
  for (int rep = 0; rep < 3000; ++rep) {
    const DLDataType dt = dts[rep % 3];
    dlx_view v;
    int64_t shape[4];
    const int nd = rep % 5 == 0 ? 1 : (int)rnd_in(0, 4);
    for (int d = 0; d < nd; ++d) shape[d] = rnd_in(1, nd == 1 ? 300 : 9);
    set_view(&v, dt, nd, shape, rep % 5 == 0 ? (chance(50) ? 'c' : 'n') : styles[rnd() % sizeof styles]);
    v.flags = 0; /* packed */
    if (nd == 1 && chance(30)) v.strides[0] *= rnd_in(2, 5); /* float4 stride 2: every code its own byte */
    int64_t lo, hi;
    elem_extent(&v, &lo, &hi);
    const int64_t n = dlx_view_size(&v);
    const size_t bytes = (size_t)(((hi - lo + 1) * dt.bits + 7) / 8) + 2 * GUARD;
    unsigned char *init = malloc(bytes), *ref = malloc(bytes), *got = malloc(bytes);
    unsigned char *pref = malloc((size_t)n + 1), *pgot = malloc((size_t)n + 1), *codes_in = malloc((size_t)n + 1);
    for (size_t i = 0; i < bytes; ++i) init[i] = (unsigned char)rnd();
    for (int64_t i = 0; i < n; ++i) codes_in[i] = (unsigned char)rnd(); /* stray bits above each code */
    /* data (element offset 0, at bit 0 of its byte) placed so that the lowest element `lo` (negative
     * strides reach below data) lands past the guard */
    const int64_t data_byte = (GUARD * 8 - lo * (int64_t)dt.bits + 7) / 8;
    dlx_view vr = v, vg = v;
    memcpy(ref, init, bytes);
    memcpy(got, init, bytes);
    vr.data = ref + data_byte;
    vg.data = got + data_byte;
    CHECK_OK(dlx__cpu_compute.unpack(&vr, pref));
    CHECK_OK(dlx__cuda_unpack_emulated(&vg, pgot));
    if (memcmp(pref, pgot, (size_t)n) != 0) {
      ++bad;
      fprintf(stderr, "    unpack differs: %s ndim %d\n", dlx_dtype_name(dt), nd);
    }
    dlx__cuda_set_launch_shape(launch_shapes[rep % 3][0], launch_shapes[rep % 3][1]);
    CHECK_OK(dlx__cpu_compute.pack(&vr, codes_in));
    CHECK_OK(dlx__cuda_pack_emulated(&vg, codes_in));
    dlx__cuda_set_launch_shape(256, 65536);
    if (memcmp(ref, got, bytes) != 0) {
      ++bad;
      fprintf(stderr, "    pack differs: %s ndim %d", dlx_dtype_name(dt), nd);
      for (int d = 0; d < nd; ++d) fprintf(stderr, " %lld:%lld", (long long)v.shape[d], (long long)v.strides[d]);
      fprintf(stderr, "\n");
    }
    codes += n;
    ++runs;
    free(init);
    free(ref);
    free(got);
    free(pref);
    free(pgot);
    free(codes_in);
  }
  CHECK_EQ(bad, 0);
  printf("packed: %lld views unpacked and packed, %lld codes\n", (long long)runs, (long long)codes);
}

/* The divider and the offset calculator on values past 32 bits. */
static void test_index_math(void) {
  rng_state = 0x77;
  const uint64_t ds[] = {1, 2, 3, 5, 7, 10, 255, 256, 257, 65535, 65536, 65537, 1000003, (1ull << 31) - 1, 1ull << 31,
                         (1ull << 31) + 1, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, 6700417, 4294967311ull,
                         (1ull << 62) + 3, (1ull << 63) - 1, 1ull << 63};
  int64_t bad = 0, checks = 0;
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; ++i) {
    for (int t = 0; t < 2000; ++t) {
      uint64_t n = rnd();
      if (t < 8) n = (uint64_t[]){0, 1, ds[i] - 1, ds[i], ds[i] + 1, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX / ds[i] * ds[i]}[t];
      else if (t % 3 == 0) n >>= rnd() % 64;
      ++checks;
      if (dlx__cuda_udiv_emulated(n, ds[i]) != n / ds[i] && bad++ < 5)
        fprintf(stderr, "    %llu / %llu: got %llu\n", (unsigned long long)n, (unsigned long long)ds[i],
                (unsigned long long)dlx__cuda_udiv_emulated(n, ds[i]));
    }
    for (int t = 0; t < 2000; ++t) {
      const uint64_t d = (rnd() >> (rnd() % 63)) | 1u, n = rnd() >> (rnd() % 64);
      ++checks;
      if (dlx__cuda_udiv_emulated(n, d) != n / d) ++bad;
    }
  }
  /* offsets of plans with more than 2^32 elements (no memory behind them: only the arithmetic) */
  for (int t = 0; t < 200; ++t) {
    dlx_iter it;
    memset(&it, 0, sizeof it);
    it.nop = 3;
    it.ndim = (int32_t)rnd_in(1, DLX_CUDA_MAX_DIMS);
    it.size = 1;
    for (int d = 0; d < it.ndim; ++d) {
      it.shape[d] = d == 0 || chance(60) ? rnd_in(2, 9) : rnd_in(1000, 3000000);
      if ((double)it.size * (double)it.shape[d] > 9e18) it.shape[d] = 1;
      it.size *= it.shape[d];
      for (int k = 0; k < 3; ++k) it.strides[k][d] = chance(20) ? 0 : (int64_t)(rnd() % 20001) - 10000;
    }
    for (int r = 0; r < 50; ++r) {
      const int64_t index = (int64_t)(rnd() % (uint64_t)it.size);
      int64_t got[3], want[3] = {0, 0, 0}, rem = index;
      for (int d = it.ndim - 1; d >= 0; --d) {
        const int64_t i = rem % it.shape[d];
        rem /= it.shape[d];
        for (int k = 0; k < 3; ++k) want[k] += i * it.strides[k][d];
      }
      CHECK_OK(dlx__cuda_plan_offsets_emulated(&it, index, got));
      ++checks;
      if (memcmp(got, want, sizeof want) != 0 && bad++ < 5)
        fprintf(stderr, "    offsets of index %lld differ (ndim %d)\n", (long long)index, (int)it.ndim);
    }
  }
  CHECK_EQ(bad, 0);
  /* past the dimension limit: a clear refusal */
  dlx_iter it;
  memset(&it, 0, sizeof it);
  it.nop = 2;
  it.ndim = DLX_CUDA_MAX_DIMS + 1;
  it.size = 1;
  for (int d = 0; d < it.ndim; ++d) it.shape[d] = 1;
  dlx__ew_op op;
  memset(&op, 0, sizeof op);
  op.kind = DLX_EW_COPY;
  op.nin = 1;
  op.dtype[0] = op.dtype[1] = op.dtype[2] = DLX_DTYPE_FLOAT32;
  CHECK_FAIL(dlx__cuda_execute_emulated(&op, &it), DLX_ERR_UNSUPPORTED, "at most 16");
  printf("index math: %lld divisions and offsets checked\n", (long long)checks);
}

/* ---- reductions ------------------------------------------------------------------------------------ */

static const dlx__compute_ops emulated_reduce = {.name = "cuda-kernels-emulated", .reduce = dlx__cuda_reduce_emulated};

/* op over axes of v on the CPU and on the emulated kernels (mapping m, a grid of at most `blocks`), bytes
 * compared; the result's bytes into *bytes for the caller's checks. */
static bool reduce_both(dlx_reduce_op op, const dlx_view *v, int32_t naxes, const int32_t *axes, int keep, int m,
                        int blocks) {
  int32_t ond;
  int64_t oshape[DLX_MAX_NDIM];
  DLDataType odt;
  CHECK_OK(dlx_reduce_result(op, v, naxes, axes, keep, &ond, oshape, &odt));
  dlx_view o;
  static unsigned char one;
  CHECK_OK(dlx_view_init(&o, &one, odt, CPU, ond, oshape, NULL));
  const size_t bytes = (size_t)dlx_view_size(&o) * dlx_dtype_itemsize(odt) + 1;
  unsigned char *ref = calloc(1, bytes), *got = calloc(1, bytes);
  o.data = ref;
  const dlx_status st_ref = dlx_reduce(op, &o, v, naxes, axes, keep);
  o.data = got;
  dlx__cuda_set_reduce_mapping(m);
  dlx__cuda_set_launch_shape(256, blocks);
  const dlx__compute_ops *was = dlx__backend_override_host(&emulated_reduce);
  const dlx_status st = dlx_reduce(op, &o, v, naxes, axes, keep);
  dlx__backend_override_host(was);
  dlx__cuda_set_reduce_mapping(0);
  dlx__cuda_set_launch_shape(256, 65536);
  const bool same = st == st_ref && memcmp(ref, got, bytes) == 0;
  if (!same && failures_shown++ < 40)
    fprintf(stderr, "    reduction op %d of %s (ndim %d, naxes %d%s), mapping %d, %d blocks: cpu %s, emulated %s (%s)\n",
            (int)op, dlx_dtype_name(v->dtype), (int)v->ndim, (int)naxes, keep ? ", keepdims" : "", m, blocks,
            dlx_status_name(st_ref), dlx_status_name(st), dlx_last_error());
  free(ref);
  free(got);
  return same;
}

/* Random reductions: every op and dtype, random shapes, axes and strides (the layouts of the elementwise
 * cases), both mappings and three grid sizes, against the CPU's bits. */
static void test_reductions(void) {
  rng_state = 0x88;
  int64_t runs = 0, bad = 0;
  for (int rep = 0; rep < 700; ++rep) {
    const dlx_reduce_op op = (dlx_reduce_op)(rep % DLX_REDUCE_COUNT);
    int k = (int)(rnd() % DLX_KD_COUNT);
    if (is_subbyte_kd(k)) k = DLX_KD_F32;
    static const char styles[] = {'c', 't', 'p', 'n', 'r', 'r'};
    const int nd = (int)rnd_in(0, 3);
    int64_t shape[4];
    /* small, and now and then one long dimension (several blocks) beside short ones */
    const int long_dim = nd > 0 && chance(15) ? (int)(rnd() % (uint64_t)nd) : -1;
    for (int d = 0; d < nd; ++d) shape[d] = d == long_dim ? rnd_in(4097, 9000) : chance(10) ? 1 : rnd_in(2, 12);
    scase c;
    memset(&c, 0, sizeof c);
    c.nop = 1;
    set_view(&c.v[0], kd_dtypes[k], nd, shape, styles[rnd() % sizeof styles]);
    for (int d = 0; d < nd; ++d)
      if (chance(10)) c.v[0].strides[d] = 0;
    c.alias = true; /* place(): fill the operand's span with values */
    int mis[3] = {0, 0, 0};
    c.nop = 2;
    c.v[1] = c.v[0];
    place(&c, mis);
    int32_t axes[3], naxes = 0;
    for (int d = 0; d < nd; ++d)
      if (chance(50)) axes[naxes++] = d;
    const int32_t na = chance(25) ? DLX_REDUCE_ALL_AXES : naxes;
    const int keep = chance(30);
    for (int m = 1; m <= 2; ++m) {
      bad += !reduce_both(op, &c.v[0], na, axes, keep, m, (int)(rnd() % 3 == 0 ? 1 : rnd() % 3 == 0 ? 3 : 65536));
      ++runs;
    }
    free(c.arena);
  }
  CHECK_EQ(bad, 0);
  printf("reductions: %lld emulated runs against the CPU\n", (long long)runs);
}

/* More partials than one group of the tree over blocks: 2^25 elements (a broadcast, no memory behind it
 * but one element) is 8192 blocks, reduced in two levels of pass 2. */
static void test_reduction_levels(void) {
  float one = 0.1f;
  const int64_t n = INT64_C(1) << 25;
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, &one, DLX_DTYPE_FLOAT32, CPU, 1, &n, (const int64_t[]){0}));
  /* (one op: the levels run the slots' generic rules whatever the op; 2^25 emulated loads take a while) */
  CHECK(reduce_both(DLX_REDUCE_MEAN, &v, DLX_REDUCE_ALL_AXES, NULL, 0, 1, 65536));
  printf("reduction levels: 2^25 elements through two levels of the tree over blocks\n");
}

static void test_summary(void) {
  uint64_t launches = 0, vectorised = 0;
  dlx__cuda_emulation_counts(&launches, &vectorised);
  printf("total: %lld cases, %lld output elements compared, %lld NaN-vs-NaN accepted; %llu emulated launches, "
         "%llu of them on the vectorised path\n",
         (long long)cases_run, (long long)elements_compared, (long long)nan_accepted, (unsigned long long)launches,
         (unsigned long long)vectorised);
  CHECK(vectorised > 1000);
}

static const dlx_test_case tests[] = {
    {"moves", test_moves},   {"casts", test_casts},   {"unary", test_unary},           {"binary", test_binary},
    {"ternary", test_ternary}, {"fma", test_fma},       {"packed", test_packed}, {"index_math", test_index_math},
    {"reductions", test_reductions}, {"reduction_levels", test_reduction_levels}, {"summary", test_summary},
};

DLX_TEST_MAIN(tests)

/* The reference path: the N-d index walked element by element, each element loaded into a wide value,
 * computed with the rules of kernels/expr.h and stored back with its cast rules.
 *
 * It shares the per-element rules with every backend (so that a GPU cannot drift from the CPU), and
 * nothing else: no dlx_iter plan (broadcast strides come from the views themselves), no backend, no
 * threads, no typed loops, no decode tables (narrow floats go through the generic codec), packed
 * float6/float4 read and written by bit position in place. Tests run every op both ways and compare the
 * bits, which checks the backends' planning, tiling, staging, vectorised and threaded paths. */
#include <string.h>

#include "compute/reference.h"
#include "backends/backend.h"
#include "kernels/ew.h"
#include "kernels/expr.h"
#include "dlx/dtype.h"

static _Thread_local bool reference_mode;

bool dlx__ops_set_reference(bool on) {
  bool was = reference_mode;
  reference_mode = on;
  return was;
}

bool dlx__ops_reference_mode(void) { return reference_mode; }

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

typedef enum rvcat { RV_BOOL, RV_SINT, RV_UINT, RV_F32, RV_F64, RV_C64, RV_C128 } rvcat;

/* One element: integers exact in i / u, floats in f, complex parts in f and im. Float32-valued
 * categories (RV_F32, RV_C64) also keep their exact float bits in g / gim: widening a signalling NaN to
 * double quiets it, while a float32 -> float16 cast keeps its payload as it is (NumPy). */
typedef struct rv {
  rvcat cat;
  int64_t i;
  uint64_t u;
  double f, im;
  float g, gim;
} rv;

static void set_f32(rv *r, float re, float im) {
  r->g = re;
  r->gim = im;
  r->f = re;
  r->im = im;
}

static uint32_t get_code(const dlx_view *v, int64_t off) {
  const unsigned bits = v->dtype.bits;
  if (is_packed(v)) return dlx__cvt_bits_get(v->data, off * (int64_t)bits, bits);
  const unsigned char *p = (const unsigned char *)v->data + off * (int64_t)dlx_dtype_itemsize(v->dtype);
  if (bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    return h;
  }
  return bits < 8 ? (uint32_t)(*p & ((1u << bits) - 1u)) : *p;
}

static void set_code(const dlx_view *v, int64_t off, uint32_t code) {
  const unsigned bits = v->dtype.bits;
  if (is_packed(v)) {
    dlx__cvt_bits_set(v->data, off * (int64_t)bits, bits, code);
    return;
  }
  unsigned char *p = (unsigned char *)v->data + off * (int64_t)dlx_dtype_itemsize(v->dtype);
  if (bits == 16) {
    const uint16_t h = (uint16_t)code;
    memcpy(p, &h, 2);
  } else {
    *p = (unsigned char)code;
  }
}

static rv load(const dlx_view *v, int64_t off) {
  rv r;
  memset(&r, 0, sizeof r);
  const dlx__kd k = dlx__kd_of(v->dtype);
  const char *p = (const char *)v->data + (dlx__kd_is_native(k) ? off * (int64_t)dlx_dtype_itemsize(v->dtype) : 0);
  switch (k) {
    case DLX_KD_BOOL: r.cat = RV_BOOL; r.u = *(const unsigned char *)p != 0; break;
    case DLX_KD_I8: { int8_t x; memcpy(&x, p, 1); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I16: { int16_t x; memcpy(&x, p, 2); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I32: { int32_t x; memcpy(&x, p, 4); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I64: { int64_t x; memcpy(&x, p, 8); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_U8: { uint8_t x; memcpy(&x, p, 1); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U16: { uint16_t x; memcpy(&x, p, 2); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U32: { uint32_t x; memcpy(&x, p, 4); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U64: { uint64_t x; memcpy(&x, p, 8); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_F32: { float x; memcpy(&x, p, 4); r.cat = RV_F32; set_f32(&r, x, 0.0f); break; }
    case DLX_KD_F64: { double x; memcpy(&x, p, 8); r.cat = RV_F64; r.f = x; break; }
    case DLX_KD_C64: { float x[2]; memcpy(x, p, 8); r.cat = RV_C64; set_f32(&r, x[0], x[1]); break; }
    case DLX_KD_C128: { double x[2]; memcpy(x, p, 16); r.cat = RV_C128; r.f = x[0]; r.im = x[1]; break; }
    default: {
      /* narrow floats: exact in double through the generic codec (not the backends' tables), then
       * computed in float32 */
      const dlx__cvt_format fmt = dlx__cvt_format_value(v->dtype.code);
      const uint32_t code = get_code(v, off);
      r.cat = RV_F32;
      r.g = dlx__cvt_decode_f32(&fmt, code);
      r.f = dlx__cvt_decode_f64(&fmt, code); /* what a cast to float64 gives (NaN payloads included) */
      break;
    }
  }
  return r;
}

static double rv_real(const rv *x) {
  switch (x->cat) {
    case RV_BOOL:
    case RV_UINT: return (double)x->u;
    case RV_SINT: return (double)x->i;
    default: return x->f;
  }
}

static bool rv_nonzero(const rv *x) {
  switch (x->cat) {
    case RV_BOOL:
    case RV_UINT: return x->u != 0;
    case RV_SINT: return x->i != 0;
    case RV_C64:
    case RV_C128: return x->f != 0 || x->im != 0;
    default: return x->f != 0;
  }
}

/* Store x into element off of v, converted with the cast rules. */
static void store(const dlx_view *v, int64_t off, const rv *x) {
  const dlx__kd k = dlx__kd_of(v->dtype);
  char *p = (char *)v->data + (dlx__kd_is_native(k) ? off * (int64_t)dlx_dtype_itemsize(v->dtype) : 0);
  const bool is_int = x->cat == RV_BOOL || x->cat == RV_SINT || x->cat == RV_UINT;
  const uint64_t pattern = x->cat == RV_SINT ? (uint64_t)x->i : x->u; /* modular integer conversion */
  const double re = rv_real(x);
  switch (k) {
    case DLX_KD_BOOL: *(unsigned char *)p = rv_nonzero(x); return;
    /* integers convert modularly (CVT_*INT_*INT), floats with CVT_REAL_*INT */
#define STORE_INT(KD, N)                                                                               \
  case KD: {                                                                                          \
    const S_##N y = is_int ? (S_##N)pattern : CVT_(REAL, CAT_##N, re, N);                             \
    memcpy(p, &y, sizeof y);                                                                          \
    return;                                                                                           \
  }
      STORE_INT(DLX_KD_I8, i8)
      STORE_INT(DLX_KD_I16, i16)
      STORE_INT(DLX_KD_I32, i32)
      STORE_INT(DLX_KD_I64, i64)
      STORE_INT(DLX_KD_U8, u8)
      STORE_INT(DLX_KD_U16, u16)
      STORE_INT(DLX_KD_U32, u32)
      STORE_INT(DLX_KD_U64, u64)
#undef STORE_INT
    case DLX_KD_F32:
    case DLX_KD_C64: {
      /* integers convert straight to float (one rounding), not through double */
      float y[2];
      const bool f32 = x->cat == RV_F32 || x->cat == RV_C64;
      y[0] = x->cat == RV_SINT ? (float)x->i : (x->cat == RV_UINT || x->cat == RV_BOOL) ? (float)x->u
             : f32                                                                 ? x->g
                                                                                   : (float)x->f;
      y[1] = x->cat == RV_C64 ? x->gim : x->cat == RV_C128 ? (float)x->im : 0.0f;
      memcpy(p, y, k == DLX_KD_F32 ? 4 : 8);
      return;
    }
    case DLX_KD_F64:
    case DLX_KD_C128: {
      double y[2];
      y[0] = re;
      y[1] = (x->cat == RV_C64 || x->cat == RV_C128) ? x->im : 0.0;
      memcpy(p, y, k == DLX_KD_F64 ? 8 : 16);
      return;
    }
    default: {
      const dlx__cvt_format fmt = dlx__cvt_format_value(v->dtype.code);
      /* float32-valued sources encode from float, everything else (integers too) from double */
      const uint32_t code = (x->cat == RV_F32 || x->cat == RV_C64) ? dlx__cvt_encode_f32(&fmt, x->g)
                                                                   : dlx__cvt_encode_f64(&fmt, re);
      set_code(v, off, code);
      return;
    }
  }
}

/* ---- the ops of op_table.h, computed in a's wide category --------------------------------------------
 *
 * One function per row, generated from the table: each category the row's class takes runs the row's rule
 * of kernels/expr.h at the category's widest dtype (int64, uint64: wrap-around, truncated to the output's
 * width by the store, gives the same bits as the typed rule at the narrower width), float32 (narrow floats
 * too) or float64; a category outside the class is never reached (the compute layer refuses it). */

#define REF_IF_1(t) t
#define REF_IF_0(t)
#define REF_IF__(f) REF_IF_##f
#define REF_IF_(f) REF_IF__(f)

/* r = v, a result of category CAT (SAME: a's category) or a bool (BOOL) */
#define REF_SET_SAME_BOOL(r, v) (r).u = (v)
#define REF_SET_SAME_SINT(r, v) (r).i = (v)
#define REF_SET_SAME_UINT(r, v) (r).u = (v)
#define REF_SET_SAME_F32(r, v) set_f32(&(r), (v), 0.0f)
#define REF_SET_SAME_F64(r, v) (r).f = (v)
#define REF_SET_SAME_C64(r, v) do { const dlx__cf32 z_ = (v); set_f32(&(r), z_.re, z_.im); } while (0)
#define REF_SET_SAME_C128(r, v) do { const dlx__cf64 z_ = (v); (r).f = z_.re; (r).im = z_.im; } while (0)
#define REF_SET_BOOL_(r, v) do { const uint8_t b_ = (uint8_t)(v); memset(&(r), 0, sizeof(r)); (r).cat = RV_BOOL; (r).u = b_; } while (0)
#define REF_SET_BOOL_BOOL REF_SET_BOOL_
#define REF_SET_BOOL_SINT REF_SET_BOOL_
#define REF_SET_BOOL_UINT REF_SET_BOOL_
#define REF_SET_BOOL_F32 REF_SET_BOOL_
#define REF_SET_BOOL_F64 REF_SET_BOOL_
#define REF_SET_BOOL_C64 REF_SET_BOOL_
#define REF_SET_BOOL_C128 REF_SET_BOOL_
#define REF_SET(res, RV, r, v) REF_SET_##res##_##RV(r, v)

/* a's value in the wide type of each category */
#define REF_B8(x) ((uint8_t)(x)->u)
#define REF_I64(x) ((x)->i)
#define REF_U64(x) ((x)->u)
#define REF_F32(x) ((x)->g)
#define REF_F64(x) ((x)->f)
#define REF_C64(x) dlx_cf32_make((x)->g, (x)->gim)
#define REF_C128(x) dlx_cf64_make((x)->f, (x)->im)

#define REF_BIN_(A, op, E, np, k, cls, res, nar, py, swap)                                                      \
  static rv refb_##op(const rv *a, const rv *b) {                                                              \
    rv r = *a;                                                                                                 \
    switch (a->cat) {                                                                                          \
      case RV_BOOL: REF_IF_(DLX__CLSHAS_##cls##_BOOL)(REF_SET(res, BOOL, r, BIN_RULE(op, b8, REF_B8(a), REF_B8(b)));) break; \
      case RV_SINT: REF_IF_(DLX__CLSHAS_##cls##_SINT)(REF_SET(res, SINT, r, BIN_RULE(op, i64, REF_I64(a), REF_I64(b)));) break; \
      case RV_UINT: REF_IF_(DLX__CLSHAS_##cls##_UINT)(REF_SET(res, UINT, r, BIN_RULE(op, u64, REF_U64(a), REF_U64(b)));) break; \
      case RV_F32: REF_IF_(DLX__CLSHAS_##cls##_REAL)(REF_SET(res, F32, r, BIN_RULE(op, f32, REF_F32(a), REF_F32(b)));) break; \
      case RV_F64: REF_IF_(DLX__CLSHAS_##cls##_REAL)(REF_SET(res, F64, r, BIN_RULE(op, f64, REF_F64(a), REF_F64(b)));) break; \
      case RV_C64: REF_IF_(DLX__CLSHAS_##cls##_CPLX)(REF_SET(res, C64, r, BIN_RULE(op, c64, REF_C64(a), REF_C64(b)));) break; \
      case RV_C128: REF_IF_(DLX__CLSHAS_##cls##_CPLX)(REF_SET(res, C128, r, BIN_RULE(op, c128, REF_C128(a), REF_C128(b)));) break; \
    }                                                                                                          \
    return r;                                                                                                  \
  }
DLX__BINOP_TABLE(REF_BIN_, _)

#define REF_UN_(A, op, E, np, k, cls, res, nar, py)                                                             \
  static rv refu_##op(const rv *a) {                                                                           \
    rv r = *a;                                                                                                 \
    switch (a->cat) {                                                                                          \
      case RV_BOOL: REF_IF_(DLX__CLSHAS_##cls##_BOOL)(REF_SET(res, BOOL, r, UN_RULE(op, b8, REF_B8(a)));) break; \
      case RV_SINT: REF_IF_(DLX__CLSHAS_##cls##_SINT)(REF_SET(res, SINT, r, UN_RULE(op, i64, REF_I64(a)));) break; \
      case RV_UINT: REF_IF_(DLX__CLSHAS_##cls##_UINT)(REF_SET(res, UINT, r, UN_RULE(op, u64, REF_U64(a)));) break; \
      case RV_F32: REF_IF_(DLX__CLSHAS_##cls##_REAL)(REF_SET(res, F32, r, UN_RULE(op, f32, REF_F32(a)));) break; \
      case RV_F64: REF_IF_(DLX__CLSHAS_##cls##_REAL)(REF_SET(res, F64, r, UN_RULE(op, f64, REF_F64(a)));) break; \
      case RV_C64: REF_IF_(DLX__CLSHAS_##cls##_CPLX)(REF_SET(res, C64, r, UN_RULE(op, c64, REF_C64(a)));) break; \
      case RV_C128: REF_IF_(DLX__CLSHAS_##cls##_CPLX)(REF_SET(res, C128, r, UN_RULE(op, c128, REF_C128(a)));) break; \
    }                                                                                                          \
    return r;                                                                                                  \
  }
DLX__UNOP_TABLE(REF_UN_, _)

/* A comparison of int64 with uint64 (either order; the compute layer admits no other mixed pair):
 * expr.h's three-way rule on the exact values, then cmp OP 0 as its MIX_RULE does. */
#define REF_MIX_CASE_(op, E, A, B) \
  case DLX_OP_##E: return MIX_RULE(op, A, B, REF_##A(a), REF_##B(b));
#define REF_i64(x) ((x)->i)
#define REF_u64(x) ((x)->u)
static uint8_t mixed_compare(dlx_binop op, const rv *a, const rv *b) {
  if (a->cat == RV_SINT) {
    switch (op) {
#define REF_MIX_SU_(op, E, A, B) REF_MIX_PICK_##A(op, E, A, B)
#define REF_MIX_PICK_i64(op, E, A, B) REF_MIX_CASE_(op, E, A, B)
#define REF_MIX_PICK_u64(op, E, A, B)
      MIX_TABLE(REF_MIX_SU_)
      default: return 0;
    }
  }
  switch (op) {
#define REF_MIX_US_(op, E, A, B) REF_MIX_PICK2_##A(op, E, A, B)
#define REF_MIX_PICK2_u64(op, E, A, B) REF_MIX_CASE_(op, E, A, B)
#define REF_MIX_PICK2_i64(op, E, A, B)
    MIX_TABLE(REF_MIX_US_)
    default: return 0;
  }
}

static rv binop(dlx_binop op, const rv *a, const rv *b) {
  if (dlx__op_is_comparison(op) && a->cat != b->cat) {
    rv r;
    memset(&r, 0, sizeof r);
    r.cat = RV_BOOL;
    r.u = mixed_compare(op, a, b);
    return r;
  }
  switch (op) {
#define REF_BIN_CASE_(A, op, E, np, k, cls, res, nar, py, swap) \
  case DLX_OP_##E: return refb_##op(a, b);
    DLX__BINOP_TABLE(REF_BIN_CASE_, _)
    default: return *a; /* the compute layer refuses any other value */
  }
}

static rv unop(dlx_unop op, const rv *a) {
  switch (op) {
#define REF_UN_CASE_(A, op, E, np, k, cls, res, nar, py) \
  case DLX_UNOP_##E: return refu_##op(a);
    DLX__UNOP_TABLE(REF_UN_CASE_, _)
    default: return *a; /* the compute layer refuses any other value */
  }
}

/* A math function's double value for a narrow float's decoded x (expr_math.h's WIDE_RULE). */
static double wide_unop(dlx_unop op, float x) {
  switch (op) {
#define REF_WIDE_CASE_(op, E) \
  case DLX_UNOP_##E: return WIDE_RULE(op, x);
    WIDE_TABLE(REF_WIDE_CASE_)
    default: return (double)x; /* not a WIDE row: never called */
  }
}

/* clip(a, lo, hi) in a's category (the class ORDERED: bool, integers, floats). */
static rv clip_elem(const rv *a, const rv *lo, const rv *hi) {
  rv r = *a;
  switch (a->cat) {
    case RV_BOOL: r.u = CLIP_RULE(b8, REF_B8(a), REF_B8(lo), REF_B8(hi)); break;
    case RV_SINT: r.i = CLIP_RULE(i64, a->i, lo->i, hi->i); break;
    case RV_UINT: r.u = CLIP_RULE(u64, a->u, lo->u, hi->u); break;
    case RV_F32: set_f32(&r, CLIP_RULE(f32, a->g, lo->g, hi->g), 0.0f); break;
    case RV_F64: r.f = CLIP_RULE(f64, a->f, lo->f, hi->f); break;
    default: break; /* complex: refused by the compute layer */
  }
  return r;
}

/* out = s * t1 + t2, in out's (t2's) category. */
static rv fma_elem(double s, const rv *a, const rv *b) {
  rv r = *b;
  switch (b->cat) {
    case RV_BOOL: r.u = FMA_BOOL(s, rv_nonzero(a), rv_nonzero(b), b8); break;
    case RV_SINT:
    case RV_UINT:
      /* rounded here; the store truncates (exactly) and saturates: FMA_SINT / FMA_UINT at out's width */
      r.cat = RV_F64;
      r.f = dlx__round_half_even(s * rv_real(a) + rv_real(b));
      break;
    case RV_F32: set_f32(&r, FMA_REAL(s, a->g, b->g, f32), 0.0f); break;
    case RV_F64: r.f = FMA_REAL(s, a->f, b->f, f64); break;
    case RV_C64: {
      const dlx__cf32 z = FMA_CPLX(s, dlx_cf32_make(a->g, a->gim), dlx_cf32_make(b->g, b->gim), c64);
      set_f32(&r, z.re, z.im);
      break;
    }
    case RV_C128: {
      const dlx__cf64 z = FMA_CPLX(s, dlx_cf64_make(a->f, a->im), dlx_cf64_make(b->f, b->im), c128);
      r.f = z.re;
      r.im = z.im;
      break;
    }
  }
  return r;
}

/* A byte move of one element: bytes, or bit fields of packed elements. */
static void move_elem(const dlx_view *dst, int64_t oo, const dlx_view *src, int64_t io) {
  if (is_packed(dst) || is_packed(src)) {
    set_code(dst, oo, get_code(src, io));
  } else {
    const int64_t size = (int64_t)dlx_dtype_itemsize(dst->dtype);
    memcpy((char *)dst->data + oo * size, (const char *)src->data + io * size, (size_t)size);
  }
}

static void element(const dlx__ew_op *op, const dlx_view *const *v, int64_t oo, const int64_t *io) {
  /* a cast to the same dtype is a copy (bytes kept as they are, as the backends do) */
  if (dlx__ew_is_move(op)) {
    move_elem(v[0], oo, v[1], io[0]);
    return;
  }
  if (op->kind == DLX_EW_TERNARY && op->ternop == DLX_TERNOP_WHERE) {
    const bool cond = *((const unsigned char *)v[1]->data + io[0]) != 0;
    move_elem(v[0], oo, cond ? v[2] : v[3], cond ? io[1] : io[2]);
    return;
  }
  const rv a = load(v[1], io[0]);
  if (op->kind == DLX_EW_CAST) {
    store(v[0], oo, &a);
    return;
  }
  if (op->kind == DLX_EW_UNARY && !dlx__kd_is_native(dlx__kd_of(v[1]->dtype)) &&
      dlx__unop_info[op->unop].nar == DLX__NAR_CODE) {
    /* narrow formats negate their codes (NaN payloads kept) */
    const dlx__cvt_format fmt = dlx__cvt_format_value(v[0]->dtype.code);
    set_code(v[0], oo, dlx__cvt_negate(&fmt, get_code(v[1], io[0])));
    return;
  }
  if (op->kind == DLX_EW_UNARY && !dlx__kd_is_native(dlx__kd_of(v[1]->dtype)) &&
      dlx__unop_info[op->unop].nar == DLX__NAR_WIDE) {
    /* the math functions on narrow formats: the double value rounded once to the format (op_table.h) */
    rv r;
    memset(&r, 0, sizeof r);
    r.cat = RV_F64;
    r.f = wide_unop(op->unop, a.g);
    store(v[0], oo, &r);
    return;
  }
  if (op->kind == DLX_EW_UNARY) {
    const rv r = unop(op->unop, &a);
    store(v[0], oo, &r);
    return;
  }
  const rv b = load(v[2], io[1]);
  if (op->kind == DLX_EW_TERNARY) {
    const rv c = load(v[3], io[2]);
    const rv r = clip_elem(&a, &b, &c);
    store(v[0], oo, &r);
    return;
  }
  const rv r = op->kind == DLX_EW_BINARY ? binop(op->op, &a, &b) : fma_elem(op->scalar, &a, &b);
  store(v[0], oo, &r);
}

void dlx__ref_run(const dlx__ew_op *op, const dlx_view *const *views) {
  const dlx_view *o = views[0];
  const int32_t nd = o->ndim;
  int64_t st[DLX__EW_MAX_IN][DLX_MAX_NDIM];
  for (int k = 0; k < op->nin; ++k) {
    const dlx_view *v = views[k + 1];
    for (int32_t d = 0; d < nd; ++d) {
      const int32_t j = d - (nd - v->ndim); /* right-aligned */
      st[k][d] = (j < 0 || v->shape[j] == 1) ? 0 : v->strides[j];
    }
  }
  const int64_t n = dlx_view_size(o);
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < n; ++e) {
    int64_t oo = 0, io[DLX__EW_MAX_IN] = {0, 0, 0};
    for (int32_t d = 0; d < nd; ++d) {
      oo += idx[d] * o->strides[d];
      for (int k = 0; k < op->nin; ++k) io[k] += idx[d] * st[k][d];
    }
    element(op, views, oo, io);
    for (int32_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
}

void dlx__ref_gather(const dlx__gather_op *op) {
  const dlx_view *d = op->dense, *s = op->strided;
  const int32_t nd = d->ndim;
  const int64_t size = (int64_t)dlx_dtype_itemsize(d->dtype), n = dlx_view_size(d);
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < n; ++e) {
    int64_t pos = 0, doff = 0, boff = 0;
    for (int32_t j = 0; j < nd; ++j) {
      doff += idx[j] * d->strides[j];
      if (j < op->nb) pos = pos * d->shape[j] + idx[j];
      else boff += idx[j] * s->strides[j - op->nb];
    }
    char *dense = (char *)d->data + doff * size;
    const int64_t off = op->offsets[pos];
    if (!op->scatter) memcpy(dense, (const char *)s->data + off + boff * size, (size_t)size);
    else if (off != DLX__GATHER_SKIP) memcpy((char *)s->data + off + boff * size, dense, (size_t)size);
    for (int32_t j = nd - 1; j >= 0; --j) {
      if (++idx[j] < d->shape[j]) break;
      idx[j] = 0;
    }
  }
}

/* Internal, for kernel translation units (the CPU's reduction loops, the CUDA kernels, the reference
 * path): the per-element rules of reductions (kernels/reduce.h), written once for every backend. Plain
 * C that nvcc compiles too (DLX_HD), as expr.h, whose short names it uses. */
#ifndef DLX_KERNELS_REDUCE_RULES_H
#define DLX_KERNELS_REDUCE_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernels/expr.h"
#include "kernels/reduce.h"

/* ======================================================================================================
 * Selection: min and max pick one element's bits by a total order, so that the result does not depend on
 * which pairs meet: NaN before any number (of two NaNs the smaller bit pattern), then the numbers in
 * order with -0.0 below +0.0. argmin / argmax: NaN first, then the numbers (-0.0 == +0.0), ties to the
 * smaller index (NumPy's first occurrence).
 * ==================================================================================================== */

#define DLX_DEF_RED_REAL(N, T, U, BITS, SIGN)                                                         \
  /* whether a is the min (max) of a and b */                                                         \
  DLX_EXPR bool dlx__red_first_##N(T a, T b, bool is_max) {                                           \
    const bool na = a != a, nb = b != b;                                                              \
    if (na || nb) return na && (!nb || BITS(a) <= BITS(b));                                           \
    if (a != b) return is_max ? a > b : a < b;                                                        \
    /* equal: the same value, or +0.0 and -0.0 */                                                     \
    const bool sa = (BITS(a) & SIGN) != 0, sb = (BITS(b) & SIGN) != 0;                                \
    return is_max ? (!sa || sb) : (sa || !sb);                                                        \
  }                                                                                                   \
  /* whether (a, ia) is the argmin (argmax) of it and (b, ib) */                                      \
  DLX_EXPR bool dlx__red_arg_first_##N(T a, int64_t ia, T b, int64_t ib, bool is_max) {               \
    const bool na = a != a, nb = b != b;                                                              \
    if (na || nb) return na && (!nb || ia <= ib);                                                     \
    if (a == b) return ia <= ib;                                                                      \
    return is_max ? a > b : a < b;                                                                    \
  }
DLX_DEF_RED_REAL(f32, float, uint32_t, dlx__cvt_f32_bits, 0x80000000u)
DLX_DEF_RED_REAL(f64, double, uint64_t, dlx__cvt_f64_bits, UINT64_C(0x8000000000000000))

#define DLX_DEF_RED_INT(N, T)                                                                          \
  DLX_EXPR bool dlx__red_first_##N(T a, T b, bool is_max) { return is_max ? a >= b : a <= b; }         \
  DLX_EXPR bool dlx__red_arg_first_##N(T a, int64_t ia, T b, int64_t ib, bool is_max) {               \
    if (a == b) return ia <= ib;                                                                      \
    return is_max ? a > b : a < b;                                                                    \
  }
DLX_DEF_RED_INT(i64, int64_t)
DLX_DEF_RED_INT(u64, uint64_t)

/* Complex: by (real, imaginary), as NumPy orders complex numbers; an element with a NaN part is a NaN. */
#define DLX_DEF_RED_CPLX(N, P, R)                                                                      \
  DLX_EXPR bool dlx__red_first_##N(S_##N a, S_##N b, bool is_max) {                                   \
    const bool na = a.re != a.re || a.im != a.im, nb = b.re != b.re || b.im != b.im;                  \
    if (na || nb) {                                                                                   \
      if (!na || !nb) return na;                                                                      \
      /* two NaN elements: the smaller (real bits, imaginary bits) */                                 \
      if (dlx__cvt_##P##_bits(a.re) != dlx__cvt_##P##_bits(b.re))                                     \
        return dlx__cvt_##P##_bits(a.re) < dlx__cvt_##P##_bits(b.re);                                 \
      return dlx__cvt_##P##_bits(a.im) <= dlx__cvt_##P##_bits(b.im);                                  \
    }                                                                                                 \
    if (dlx__cvt_##P##_bits(a.re) != dlx__cvt_##P##_bits(b.re)) return dlx__red_first_##R(a.re, b.re, is_max); \
    return dlx__red_first_##R(a.im, b.im, is_max);                                                    \
  }                                                                                                   \
  DLX_EXPR bool dlx__red_arg_first_##N(S_##N a, int64_t ia, S_##N b, int64_t ib, bool is_max) {       \
    const bool na = a.re != a.re || a.im != a.im, nb = b.re != b.re || b.im != b.im;                  \
    if (na || nb) return na && (!nb || ia <= ib);                                                     \
    if (a.re == b.re && a.im == b.im) return ia <= ib;                                                \
    if (a.re != b.re) return is_max ? a.re > b.re : a.re < b.re;                                      \
    return is_max ? a.im > b.im : a.im < b.im;                                                        \
  }
DLX_DEF_RED_CPLX(c64, f32, f32)
DLX_DEF_RED_CPLX(c128, f64, f64)

/* min / max of a narrow float: codes, compared by their float32 values (two codes of one value are +0 and
 * -0); of two NaN codes the smaller code. */
DLX_EXPR bool dlx__red_first_code(float a, uint32_t ca, float b, uint32_t cb, bool is_max) {
  const bool na = a != a, nb = b != b;
  if (na || nb) return na && (!nb || ca <= cb);
  return dlx__red_first_f32(a, b, is_max);
}

/* ======================================================================================================
 * Loading: one element of kernel dtype S (a dlx__kd) at p, converted to the accumulation kind A, into a
 * slot. Native dtypes convert with expr.h's cast rules; narrow floats decode (float32, or float64 for A
 * F64, as the CPU's decoders) and then convert. Only the pairs dlx__red_direct allows occur.
 * ==================================================================================================== */

#define DLX__RED_LOAD_CASE(N, _)                                                                       \
  case KD_##N: {                                                                                      \
    S_##N x;                                                                                          \
    memcpy(&x, p, sizeof x);                                                                          \
    switch (acc) {                                                                                    \
      case DLX_KD_BOOL: s->v.u[0] = CVT_RULE(N, b8, x); return;                                       \
      case DLX_KD_I64: s->v.i[0] = CVT_RULE(N, i64, x); return;                                       \
      case DLX_KD_U64: s->v.u[0] = CVT_RULE(N, u64, x); return;                                       \
      case DLX_KD_F32: s->v.f[0] = CVT_RULE(N, f32, x); return;                                       \
      case DLX_KD_F64: s->v.d[0] = CVT_RULE(N, f64, x); return;                                       \
      case DLX_KD_C64: {                                                                              \
        const dlx__cf32 z = CVT_RULE(N, c64, x);                                                      \
        s->v.f[0] = z.re;                                                                             \
        s->v.f[1] = z.im;                                                                             \
        return;                                                                                       \
      }                                                                                               \
      case DLX_KD_C128: {                                                                             \
        const dlx__cf64 z = CVT_RULE(N, c128, x);                                                     \
        s->v.d[0] = z.re;                                                                             \
        s->v.d[1] = z.im;                                                                             \
        return;                                                                                       \
      }                                                                                               \
      default: return;                                                                                \
    }                                                                                                 \
  }
#define DLX__RED_LOAD_LIST(X) X(b8, _) X(i8, _) X(i16, _) X(i32, _) X(i64, _) X(u8, _) X(u16, _) X(u32, _) \
  X(u64, _) X(f32, _) X(f64, _) X(c64, _) X(c128, _)

/* The code of a narrow float element at p (one or two bytes). */
DLX_EXPR uint32_t dlx__red_code(int skd, const void *p) {
  if (skd == DLX_KD_F16 || skd == DLX_KD_BF16) {
    uint16_t h;
    memcpy(&h, p, 2);
    return h;
  }
  return *(const uint8_t *)p;
}

/* A narrow float code's float32 value (convert.h: the CPU's decoders give these bits). */
DLX_EXPR float dlx__red_decode(int skd, uint32_t code) {
  if (skd == DLX_KD_F16) return dlx__cvt_f16_to_f32((uint16_t)code);
  if (skd == DLX_KD_BF16) return dlx__cvt_bf16_to_f32((uint16_t)code);
  const dlx__cvt_format f = dlx__cvt_format_value(dlx__kd_narrow_code((dlx__kd)skd));
  return dlx__cvt_decode_f32(&f, code);
}

DLX_EXPR void dlx__red_load(int skd, const void *p, int acc, dlx__red_slot *s) {
  switch (skd) {
    DLX__RED_LOAD_LIST(DLX__RED_LOAD_CASE)
    default: break;
  }
  const uint32_t code = dlx__red_code(skd, p);
  if (acc == skd) { /* min / max of a narrow float: the code, its value beside it */
    s->v.u[0] = code;
    s->v.f[2] = dlx__red_decode(skd, code);
    return;
  }
  if (acc == DLX_KD_F64) {
    const dlx__cvt_format f = dlx__cvt_format_value(dlx__kd_narrow_code((dlx__kd)skd));
    s->v.d[0] = skd == DLX_KD_F16 ? dlx__cvt_f16_to_f64((uint16_t)code)
                : skd == DLX_KD_BF16 ? dlx__cvt_bf16_to_f64((uint16_t)code)
                                     : dlx__cvt_decode_f64(&f, code);
    return;
  }
  const float x = dlx__red_decode(skd, code);
  if (acc == DLX_KD_BOOL) s->v.u[0] = x != 0.0f; /* NaN is true */
  else s->v.f[0] = x;
}

/* ======================================================================================================
 * Combining two partial results (a before b in the reduced order) of kind acc, by op. Sums and products
 * are expr.h's add and mul (integers wrap, bool add is or and mul is and; complex products are NumPy's
 * formula).
 * ==================================================================================================== */

DLX_EXPR void dlx__red_combine_arith(bool product, int acc, dlx__red_slot *a, const dlx__red_slot *b) {
  switch (acc) {
    case DLX_KD_BOOL: a->v.u[0] = product ? (a->v.u[0] && b->v.u[0]) : (a->v.u[0] || b->v.u[0]); return;
    case DLX_KD_I64: a->v.i[0] = product ? MUL_SINT(a->v.i[0], b->v.i[0], i64) : ADD_SINT(a->v.i[0], b->v.i[0], i64); return;
    case DLX_KD_U64: a->v.u[0] = product ? a->v.u[0] * b->v.u[0] : a->v.u[0] + b->v.u[0]; return;
    case DLX_KD_F32: a->v.f[0] = product ? a->v.f[0] * b->v.f[0] : a->v.f[0] + b->v.f[0]; return;
    case DLX_KD_F64: a->v.d[0] = product ? a->v.d[0] * b->v.d[0] : a->v.d[0] + b->v.d[0]; return;
    case DLX_KD_C64: {
      const dlx__cf32 x = dlx_cf32_make(a->v.f[0], a->v.f[1]), y = dlx_cf32_make(b->v.f[0], b->v.f[1]);
      const dlx__cf32 r = product ? MUL_CPLX(x, y, c64) : ADD_CPLX(x, y, c64);
      a->v.f[0] = r.re;
      a->v.f[1] = r.im;
      return;
    }
    case DLX_KD_C128: {
      const dlx__cf64 x = dlx_cf64_make(a->v.d[0], a->v.d[1]), y = dlx_cf64_make(b->v.d[0], b->v.d[1]);
      const dlx__cf64 r = product ? MUL_CPLX(x, y, c128) : ADD_CPLX(x, y, c128);
      a->v.d[0] = r.re;
      a->v.d[1] = r.im;
      return;
    }
    default: return;
  }
}

/* Whether partial a is kept over b by min / max (select) or argmin / argmax (arg). */
DLX_EXPR bool dlx__red_keeps(bool arg, bool is_max, int acc, const dlx__red_slot *a, const dlx__red_slot *b) {
  switch (acc) {
    case DLX_KD_I64:
      return arg ? dlx__red_arg_first_i64(a->v.i[0], a->index, b->v.i[0], b->index, is_max)
                 : dlx__red_first_i64(a->v.i[0], b->v.i[0], is_max);
    case DLX_KD_U64:
      return arg ? dlx__red_arg_first_u64(a->v.u[0], a->index, b->v.u[0], b->index, is_max)
                 : dlx__red_first_u64(a->v.u[0], b->v.u[0], is_max);
    case DLX_KD_F32:
      return arg ? dlx__red_arg_first_f32(a->v.f[0], a->index, b->v.f[0], b->index, is_max)
                 : dlx__red_first_f32(a->v.f[0], b->v.f[0], is_max);
    case DLX_KD_F64:
      return arg ? dlx__red_arg_first_f64(a->v.d[0], a->index, b->v.d[0], b->index, is_max)
                 : dlx__red_first_f64(a->v.d[0], b->v.d[0], is_max);
    case DLX_KD_C64: {
      const dlx__cf32 x = dlx_cf32_make(a->v.f[0], a->v.f[1]), y = dlx_cf32_make(b->v.f[0], b->v.f[1]);
      return arg ? dlx__red_arg_first_c64(x, a->index, y, b->index, is_max) : dlx__red_first_c64(x, y, is_max);
    }
    case DLX_KD_C128: {
      const dlx__cf64 x = dlx_cf64_make(a->v.d[0], a->v.d[1]), y = dlx_cf64_make(b->v.d[0], b->v.d[1]);
      return arg ? dlx__red_arg_first_c128(x, a->index, y, b->index, is_max) : dlx__red_first_c128(x, y, is_max);
    }
    default: /* a narrow float's code, its value in f[2] */
      return dlx__red_first_code(a->v.f[2], (uint32_t)a->v.u[0], b->v.f[2], (uint32_t)b->v.u[0], is_max);
  }
}

/* a = a op b: the one combining rule of every op. */
DLX_EXPR void dlx__red_combine(dlx_reduce_op op, int acc, dlx__red_slot *a, const dlx__red_slot *b) {
  if (dlx__red_is_arith(op) || op == DLX_REDUCE_ANY || op == DLX_REDUCE_ALL) {
    dlx__red_combine_arith(dlx__red_is_product(op), acc, a, b);
    return;
  }
  const bool is_max = op == DLX_REDUCE_MAX || op == DLX_REDUCE_ARGMAX;
  if (!dlx__red_keeps(dlx__red_is_arg(op), is_max, acc, a, b)) *a = *b;
}

/* ======================================================================================================
 * The final value: a partial result of the whole reduction, stored into out as D. A sum starts from
 * +0.0 (NumPy's: a sum of negative zeros is +0.0), a mean divides that sum by n (complex: by n + 0j,
 * with NumPy's complex division), and a NaN result of sum, prod or mean is the positive quiet NaN, so
 * that every backend stores the same bytes (which NaN IEEE arithmetic returns is the hardware's).
 * ==================================================================================================== */

DLX_EXPR float dlx__red_canon_f32(float x) { return x != x ? dlx__cvt_f32_from_bits(0x7fc00000u) : x; }
DLX_EXPR double dlx__red_canon_f64(double x) {
  return x != x ? dlx__cvt_f64_from_bits(UINT64_C(0x7ff8000000000000)) : x;
}

/* The float parts of a sum, prod or mean result (acc F32, F64, C64, C128), finished in place. */
DLX_EXPR void dlx__red_finish_float(dlx_reduce_op op, int acc, int64_t n, dlx__red_slot *s) {
  const bool single = acc == DLX_KD_F32 || acc == DLX_KD_C64;
  const int parts = acc == DLX_KD_C64 || acc == DLX_KD_C128 ? 2 : 1;
  for (int k = 0; op != DLX_REDUCE_PROD && k < parts; ++k) { /* +0.0 + the sum */
    if (single && s->v.f[k] == 0.0f) s->v.f[k] = 0.0f;
    if (!single && s->v.d[k] == 0.0) s->v.d[k] = 0.0;
  }
  if (op == DLX_REDUCE_MEAN) {
    if (acc == DLX_KD_C64) {
      const dlx__cf32 q = dlx_cdiv_c64(dlx_cf32_make(s->v.f[0], s->v.f[1]), dlx_cf32_make((float)n, 0.0f));
      s->v.f[0] = q.re;
      s->v.f[1] = q.im;
    } else if (acc == DLX_KD_C128) {
      const dlx__cf64 q = dlx_cdiv_c128(dlx_cf64_make(s->v.d[0], s->v.d[1]), dlx_cf64_make((double)n, 0.0));
      s->v.d[0] = q.re;
      s->v.d[1] = q.im;
    } else if (single) {
      s->v.f[0] = s->v.f[0] / (float)n;
    } else {
      s->v.d[0] = s->v.d[0] / (double)n;
    }
  }
  for (int k = 0; k < parts; ++k) {
    if (single) s->v.f[k] = dlx__red_canon_f32(s->v.f[k]);
    else s->v.d[k] = dlx__red_canon_f64(s->v.d[k]);
  }
}

/* x (of native kernel dtype A) stored as native D. */
#define DLX__RED_STORE_CASE(A, D)                                                                       \
  case KD_##D: {                                                                                      \
    const S_##D y_ = CVT_RULE(A, D, x);                                                               \
    memcpy(out, &y_, sizeof y_);                                                                      \
    return;                                                                                           \
  }
#define DLX__RED_STORE_FN(A)                                                                           \
  DLX_EXPR void dlx__red_store_##A(S_##A x, int dkd, unsigned char *out) {                            \
    switch (dkd) {                                                                                    \
      NATIVE_LIST2(DLX__RED_STORE_CASE, A)                                                            \
      default: return;                                                                                \
    }                                                                                                 \
  }
DLX__RED_STORE_FN(i64)
DLX__RED_STORE_FN(u64)
DLX__RED_STORE_FN(f32)
DLX__RED_STORE_FN(f64)
DLX__RED_STORE_FN(c64)
DLX__RED_STORE_FN(c128)

/* A float32 result stored as the narrow D (one rounding; convert.h's encoders). */
DLX_EXPR void dlx__red_store_narrow(float x, int dkd, unsigned char *out) {
  if (dkd == DLX_KD_F16 || dkd == DLX_KD_BF16) {
    const uint16_t h = dkd == DLX_KD_F16 ? dlx__cvt_f32_to_f16(x) : dlx__cvt_f32_to_bf16(x);
    memcpy(out, &h, 2);
    return;
  }
  const dlx__cvt_format f = dlx__cvt_format_value(dlx__kd_narrow_code((dlx__kd)dkd));
  *out = (unsigned char)dlx__cvt_encode_f32(&f, x);
}

/* Store the whole reduction's partial s (n elements reduced) into out as the op's result of kind dkd
 * (dlx__kd of D; argmin / argmax: int64). s is finished in place. */
DLX_EXPR void dlx__red_store(dlx_reduce_op op, int acc, int dkd, int64_t n, dlx__red_slot *s, unsigned char *out) {
  if (dlx__red_is_arg(op)) {
    memcpy(out, &s->index, 8);
    return;
  }
  if (dlx__red_is_arith(op) && acc >= DLX_KD_F32 && acc <= DLX_KD_C128) dlx__red_finish_float(op, acc, n, s);
  if (dkd >= DLX_KD_NATIVE_COUNT) { /* narrow D: a float32 result, or min / max's selected code */
    if (acc == dkd) memcpy(out, s->v.b, dkd <= DLX_KD_BF16 ? 2 : 1);
    else dlx__red_store_narrow(s->v.f[0], dkd, out);
    return;
  }
  switch (acc) {
    case DLX_KD_BOOL:
    case DLX_KD_U64: dlx__red_store_u64(s->v.u[0], dkd, out); return;
    case DLX_KD_I64: dlx__red_store_i64(s->v.i[0], dkd, out); return;
    case DLX_KD_F32: dlx__red_store_f32(s->v.f[0], dkd, out); return;
    case DLX_KD_F64: dlx__red_store_f64(s->v.d[0], dkd, out); return;
    case DLX_KD_C64: dlx__red_store_c64(dlx_cf32_make(s->v.f[0], s->v.f[1]), dkd, out); return;
    case DLX_KD_C128: dlx__red_store_c128(dlx_cf64_make(s->v.d[0], s->v.d[1]), dkd, out); return;
    default: return;
  }
}

#endif

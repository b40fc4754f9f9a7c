/* Every rule of src/kernels/expr.h and every narrow-float conversion of src/kernels/convert.h, evaluated
 * on a list of odd values into one byte string. The same function is compiled as C (expr_eval.c, with
 * the library's flags), by nvcc for the host, and by nvcc for the GPU (test_expr_cuda.cu): equal bytes
 * prove that a CUDA kernel computes what the CPU computes, bit for bit. */
#ifndef DLX_TESTS_EXPR_EVAL_H
#define DLX_TESTS_EXPR_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/expr.h"

/* Odd values: zeros of both signs, infinities, NaNs of both signs, integer extremes, rounding midpoints
 * of the narrow formats, subnormals, ordinary numbers. */
#define DLX_EXPR_VALUES                                                                                  \
  {0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, -7.0, 0.5, 1.5, 127.0, 128.0, -128.0, 255.0, 256.0, 32767.0, -32768.0, \
   65535.0, 2147483647.0, -2147483648.0, 4294967295.0, 9.2233720368547758e18, -9.2233720368547758e18,        \
   1.8446744073709552e19, 1e300, -1e300, 3.4028234663852886e38, 1e-40, -1e-45, 5e-324, 1.00390625, 240.0,    \
   464.0, -431.99999999999994, 65504.0, 65520.0, 1.0 / 3.0, 1e-8, 448.0, 57344.0}
#define DLX_EXPR_NVALUES 40

/* Bytes one (a, b) pair writes: an upper bound for the rules below. */
#define DLX_EXPR_PAIR_BYTES 8192

DLX_EXPR size_t dlx_expr_put(unsigned char *out, size_t n, const void *p, size_t size) {
  memcpy(out + n, p, size);
  return n + size;
}

/* x stored as type T: what a kernel's store does (C promotes a ?: of int8_t operands to int, C++ does not,
 * so the expression's own type is not the element's). */
#define DLX_EXPR_PUT(T, x)                               \
  do {                                                   \
    const T v_ = (x);                                    \
    n = dlx_expr_put(out, n, &v_, sizeof v_);            \
  } while (0)

/* An arithmetic result stored with every NaN part made one canonical NaN: which NaN a computation returns
 * (sign and payload) is unspecified (dlx/ops.h) and differs between x86 (0xffc00000 for 0 * inf) and the
 * GPU (0x7fffffff). parts: 0 for integers and bools, else the float parts of the operands' dtype (1 real,
 * 2 complex), each size / parts bytes (float32 or float64). A comparison stores a bool from float operands:
 * its one byte holds no float part, and is stored as it is. */
DLX_EXPR size_t dlx_expr_put_arith(unsigned char *out, size_t n, const void *p, size_t size, int parts) {
  memcpy(out + n, p, size);
  const size_t psize = parts > 0 ? size / (size_t)parts : 0;
  if (psize != 4 && psize != 8) return n + size;
  for (int k = 0; k < parts; ++k) {
    unsigned char *q = out + n + (size_t)k * psize;
    if (psize == 4) {
      float f;
      memcpy(&f, q, 4);
      const uint32_t nan = 0x7fc00000u;
      if (f != f) memcpy(q, &nan, 4);
    } else {
      double d;
      memcpy(&d, q, 8);
      const uint64_t nan = 0x7ff8000000000000u;
      if (d != d) memcpy(q, &nan, 8);
    }
  }
  return n + size;
}
/* the float parts of a dtype, from its category (expr.h's CAT_##N) */
#define DLX_EXPR_PARTS_BOOL 0
#define DLX_EXPR_PARTS_SINT 0
#define DLX_EXPR_PARTS_UINT 0
#define DLX_EXPR_PARTS_REAL 1
#define DLX_EXPR_PARTS_CPLX 2
#define DLX_EXPR_PARTS_(CAT) DLX_EXPR_PARTS_##CAT
#define DLX_EXPR_PARTS(CAT) DLX_EXPR_PARTS_(CAT)
#define DLX_EXPR_PUT_ARITH(T, N, x)                                            \
  do {                                                                         \
    const T v_ = (x);                                                          \
    n = dlx_expr_put_arith(out, n, &v_, sizeof v_, DLX_EXPR_PARTS(CAT_##N));   \
  } while (0)

/* Every rule for the pair (a, b) and fma scalar s; returns the bytes written. */
DLX_EXPR size_t dlx_expr_eval_pair(double a, double b, double s, unsigned char *out) {
  size_t n = 0;
#define EVX_DECL(_, N)                                   \
  const S_##N x_##N = CVT_(REAL, CAT_##N, a, N);          \
  const S_##N y_##N = CVT_(REAL, CAT_##N, b, N);          \
  DLX_EXPR_PUT(S_##N, x_##N);
  NATIVE_LIST(EVX_DECL, _)
#define EVX_BIN(OP, E, RES, N) DLX_EXPR_PUT_ARITH(OUT_##RES(N), N, BIN_RULE(OP, N, x_##N, y_##N));
  BIN_TABLE(EVX_BIN)
#define EVX_UN(OP, E, RES, N) DLX_EXPR_PUT_ARITH(OUT_##RES(N), N, UN_RULE(OP, N, x_##N));
  UN_TABLE(EVX_UN)
#define EVX_CLIP(_, N) DLX_EXPR_PUT_ARITH(S_##N, N, CLIP_RULE(N, x_##N, y_##N, (S_##N)(x_##N + y_##N)));
  CLIP_LIST(EVX_CLIP, _)
#define EVX_FMA(_, N) DLX_EXPR_PUT_ARITH(S_##N, N, FMA_RULE(N, s, x_##N, y_##N));
  NATIVE_LIST(EVX_FMA, _)
  DLX_EXPR_PUT(uint8_t, FMA_RULE(u8, s, x_i8, y_u8));
  DLX_EXPR_PUT(uint64_t, FMA_RULE(u64, s, x_i64, y_u64));
#define EVX_CAST(S, D) DLX_EXPR_PUT(S_##D, CVT_RULE(S, D, x_##S));
#define EVX_CAST_ROW(_, S) NATIVE_LIST2(EVX_CAST, S)
  NATIVE_LIST(EVX_CAST_ROW, _)
  for (unsigned code = 2; code <= 17; ++code) {
    const dlx__cvt_format f = dlx__cvt_format_value((uint8_t)code);
    if (f.bits == 0) continue;
    DLX_EXPR_PUT(uint32_t, dlx__cvt_encode_f32(&f, (float)a));
    DLX_EXPR_PUT(uint32_t, dlx__cvt_encode_f64(&f, a));
    const uint32_t c = dlx__cvt_encode_f64(&f, b);
    DLX_EXPR_PUT(float, dlx__cvt_decode_f32(&f, c));
    DLX_EXPR_PUT(double, dlx__cvt_decode_f64(&f, c));
  }
  DLX_EXPR_PUT(uint16_t, dlx__cvt_f32_to_f16((float)a));
  DLX_EXPR_PUT(uint16_t, dlx__cvt_f64_to_f16(a));
  DLX_EXPR_PUT(uint16_t, dlx__cvt_f32_to_bf16((float)a));
  DLX_EXPR_PUT(uint16_t, dlx__cvt_f64_to_bf16(a));
  DLX_EXPR_PUT(float, dlx__cvt_f16_to_f32(dlx__cvt_f64_to_f16(b)));
  DLX_EXPR_PUT(double, dlx__cvt_f16_to_f64(dlx__cvt_f64_to_f16(b)));
  DLX_EXPR_PUT(float, dlx__cvt_bf16_to_f32(dlx__cvt_f64_to_bf16(b)));
  DLX_EXPR_PUT(double, dlx__cvt_bf16_to_f64(dlx__cvt_f64_to_bf16(b)));
  DLX_EXPR_PUT(double, dlx__round_half_even(a));
  return n;
}

#endif

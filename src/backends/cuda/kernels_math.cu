/* The CUDA backend's math functions: op_table.h's unary rows whose nar column is WIDE (exp, ...), in a
 * translation unit of their own (their polynomials and tables make long kernels, and nvcc builds this file
 * beside kernels_arith.cu, which has the other unary rows and hands these over). float32 and float64 run
 * expr.h's rules (kernels/math_*.h's dlx__<op>f and dlx__<op>); the narrow floats run as the CPU's staged
 * loop does (cpu.c: decoder to float32, the float32 -> float64 wide loop, the encoder from double):
 * decoded to float32 (exact), the function's double value (expr_math.h's WIDE_RULE), encoded ONCE to the
 * format from that double, never through float32 (double rounding). */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

/* float32 and float64: every (op, dtype) cell of the WIDE rows */
template <int OP, int K>
struct MathUn;
#define DLXCU_MATH_UN(OP, E, RES, N)                                         \
  template <>                                                                 \
  struct MathUn<DLX_UNOP_##E, KD_##N> {                                       \
    typedef OUT_##RES(N) out_t;                                               \
    typedef S_##N in0_t;                                                      \
    typedef S_##N in1_t;                                                      \
    static constexpr int nin = 1;                                             \
    DLX_HD out_t operator()(in0_t x) const { return UN_RULE(OP, N, x); }       \
  };
UN_TABLE_WIDE(DLXCU_MATH_UN)
#undef DLXCU_MATH_UN

/* the double value of each WIDE row, for a decoded narrow float */
template <int OP>
struct Wide;
#define DLXCU_WIDE(OP, E)                                                       \
  template <>                                                                   \
  struct Wide<DLX_UNOP_##E> {                                                   \
    DLX_HD double operator()(float x) const { return WIDE_RULE(OP, x); }        \
  };
WIDE_TABLE(DLXCU_WIDE)
#undef DLXCU_WIDE

template <int OP, class NF>
struct MathNarrow {
  typedef typename NF::T in0_t;
  typedef in0_t in1_t;
  typedef in0_t out_t;
  static constexpr int nin = 1;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t a) const { return nf.enc64(Wide<OP>()(nf.dec32_call(a))); }
};

dlx_status run_unary_math(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[1]);
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  if (dlx__kd_is_native(k)) {
#define DLXCU_CASE(OP, E, RES, N) \
  if (op->unop == DLX_UNOP_##E && k == KD_##N) return run_ew(p, MathUn<DLX_UNOP_##E, KD_##N>(), L);
    UN_TABLE_WIDE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  switch (op->unop) {
#define DLXCU_CASE(OP, E)                                                                              \
  case DLX_UNOP_##E:                                                                                   \
    return with_narrow(k, [&](auto nf) -> dlx_status {                                                 \
      return run_ew(p, MathNarrow<DLX_UNOP_##E, decltype(nf)>{nf}, L);                                 \
    });
    WIDE_TABLE(DLXCU_CASE)
#undef DLXCU_CASE
    default: return no_kernel(op);
  }
}

} // namespace dlxcu

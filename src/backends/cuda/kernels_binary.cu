/* The CUDA backend's binary ops: every binary row of kernels/op_table.h (the int64 / uint64 comparisons
 * included), one kernel per (op, dtype) from expr.h's rules, as the CPU's tables (loops_native_body.h);
 * narrow floats as the CPU's staged loops (cpu.c): inputs decoded to float32, the float32 rule, the result
 * encoded back with the float32 encoder (bool results written directly). */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

#define DLXCU_RES_SAME false
#define DLXCU_RES_BOOL true

/* ---- binary --------------------------------------------------------------------------------------- */

template <int OP, int K>
struct Bin;
#define DLXCU_BIN(OP, E, RES, N)                                                           \
  template <>                                                                              \
  struct Bin<DLX_OP_##E, KD_##N> {                                                         \
    typedef OUT_##RES(N) out_t;                                                            \
    typedef S_##N in0_t;                                                                   \
    typedef S_##N in1_t;                                                                   \
    static constexpr int nin = 2;                                                          \
    DLX_HD out_t operator()(in0_t a, in1_t b) const { return BIN_RULE(OP, N, a, b); }       \
  };
BIN_TABLE(DLXCU_BIN)
#undef DLXCU_BIN

/* int64 with uint64: the exact comparisons (expr.h's MIX_RULE), either order. */
template <int OP, int MIX>
struct BinMixed;
#define DLXCU_BIN_MIXED(OP, E, A, B)                                                       \
  template <>                                                                              \
  struct BinMixed<DLX_OP_##E, MIXIX_##A##_##B> {                                           \
    typedef uint8_t out_t;                                                                 \
    typedef S_##A in0_t;                                                                   \
    typedef S_##B in1_t;                                                                   \
    static constexpr int nin = 2;                                                          \
    DLX_HD out_t operator()(in0_t a, in1_t b) const { return MIX_RULE(OP, A, B, a, b); }    \
  };
MIX_TABLE(DLXCU_BIN_MIXED)
#undef DLXCU_BIN_MIXED

template <int OP, bool BOOLRES, class NF>
struct BinNarrow {
  typedef typename NF::T in0_t;
  typedef in0_t in1_t;
  typedef typename std::conditional<BOOLRES, uint8_t, in0_t>::type out_t;
  static constexpr int nin = 2;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t a, in1_t b) const {
    if constexpr (BOOLRES) return Bin<OP, DLX_KD_F32>()(nf.dec32_call(a), nf.dec32_call(b));
    else return nf.enc32_call(Bin<OP, DLX_KD_F32>()(nf.dec32_call(a), nf.dec32_call(b)));
  }
};

template <int OP, bool BOOLRES>
static dlx_status run_binary_narrow(dlx__kd k, const Plan &p, const Launch &L) {
  return with_narrow(k, [&](auto nf) -> dlx_status { return run_ew(p, BinNarrow<OP, BOOLRES, decltype(nf)>{nf}, L); });
}

/* the narrow path of a row: every binary row that takes floats computes them through float32 */
#define DLXCU_BIN_NAR_F32(E, RES) \
  case DLX_OP_##E: return run_binary_narrow<DLX_OP_##E, DLXCU_RES_##RES>(k, p, L);
#define DLXCU_BIN_NAR_NONE(E, RES)
#define DLXCU_BIN_NARROW_CASE(A, op, E, np, kind, cls, res, nar, py, swap) DLXCU_BIN_NAR_##nar(E, res)

dlx_status run_binary(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]);
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  const int mix = dlx__mixed_pair(dlx__kd_of(op->dtype[1]), k);
  if (mix >= 0) {
#define DLXCU_CASE(OP, E, A, B) \
  if (op->op == DLX_OP_##E && mix == MIXIX_##A##_##B) return run_ew(p, BinMixed<DLX_OP_##E, MIXIX_##A##_##B>(), L);
    MIX_TABLE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  if (dlx__kd_is_native(k)) {
#define DLXCU_CASE(OP, E, RES, N) \
  if (op->op == DLX_OP_##E && k == KD_##N) return run_ew(p, Bin<DLX_OP_##E, KD_##N>(), L);
    BIN_TABLE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  switch (op->op) {
    DLX__BINOP_TABLE(DLXCU_BIN_NARROW_CASE, _)
    default: return no_kernel(op);
  }
}

} // namespace dlxcu

/* The CUDA backend's arithmetic: unary negation, binary arithmetic and comparisons (the int64 / uint64
 * comparisons included), fma. One kernel per (op, dtype) from expr.h's rules, as the CPU's tables (loops_native.c); narrow floats as the CPU's staged
 * loops (cpu.c): inputs decoded to float32, the float32 rule, the result encoded back with the float32
 * encoder (comparisons write their bool directly), except negation, which flips their codes. */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

/* ---- unary ---------------------------------------------------------------------------------------- */

template <int K>
struct Neg;
#define DLXCU_NEG_INT(_, N)                                                   \
  template <>                                                                 \
  struct Neg<KD_##N> {                                                        \
    typedef S_##N out_t;                                                      \
    typedef S_##N in0_t;                                                      \
    typedef S_##N in1_t;                                                      \
    static constexpr int nin = 1;                                             \
    DLX_HD out_t operator()(in0_t x) const { return UN_RULE(neg, N, x); }      \
  };
INT_LIST(DLXCU_NEG_INT, _)
#undef DLXCU_NEG_INT

/* Floats: expr.h's NEG_REAL / NEG_CPLX are a sign flip of each part, NaN included; written as one, so
 * that no GPU arithmetic instruction sees the value (it would return its canonical NaN). */
#define DLXCU_NEG_FLOAT(N, EXPR)                                              \
  template <>                                                                 \
  struct Neg<KD_##N> {                                                        \
    typedef S_##N out_t;                                                      \
    typedef S_##N in0_t;                                                      \
    typedef S_##N in1_t;                                                      \
    static constexpr int nin = 1;                                             \
    DLX_HD out_t operator()(in0_t x) const { return EXPR; }                   \
  };
DLXCU_NEG_FLOAT(f32, neg_bits(x))
DLXCU_NEG_FLOAT(f64, neg_bits(x))
DLXCU_NEG_FLOAT(c64, dlx_cf32_make(neg_bits(x.re), neg_bits(x.im)))
DLXCU_NEG_FLOAT(c128, dlx_cf64_make(neg_bits(x.re), neg_bits(x.im)))
#undef DLXCU_NEG_FLOAT

/* Narrow formats negate their codes (convert.h's dlx__cvt_negate, as the CPU's narrow unary table): the
 * sign bit flips with NaN payloads kept; fnuz zero and NaN stay; e8m0fnu gives its NaN. */
template <class T>
struct NegNarrow {
  typedef T out_t;
  typedef T in0_t;
  typedef T in1_t;
  static constexpr int nin = 1;
  dlx__cvt_format fmt;
  DLX_HD out_t operator()(in0_t x) const { return (T)dlx__cvt_negate(&fmt, x); }
};

/* Negation of dtype k (a numeric dtype other than bool and float6/float4). */
static dlx_status run_neg(dlx__kd k, const Plan &p, const Launch &L) {
  switch (k) {
#define DLXCU_CASE(_, N) \
  case KD_##N: return run_ew(p, Neg<KD_##N>(), L);
    INT_LIST(DLXCU_CASE, _)
    REAL_LIST(DLXCU_CASE, _)
    CPLX_LIST(DLXCU_CASE, _)
#undef DLXCU_CASE
    default: break;
  }
  dlx__cvt_format fmt = dlx__cvt_format_value(dlx__kd_narrow_code(k));
  fmt.name = NULL; /* a host string: never read by a kernel */
  if (k == DLX_KD_F16 || k == DLX_KD_BF16) return run_ew(p, NegNarrow<uint16_t>{fmt}, L);
  return run_ew(p, NegNarrow<uint8_t>{fmt}, L);
}

/* One case per op of the unary list (ew_names.h): an op added there needs its run_<op> here. */
dlx_status run_unary(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[1]);
  if (k == DLX_KD_NONE || k == DLX_KD_BOOL || dlx__kd_is_subbyte(k)) return no_kernel(op);
  switch (op->unop) {
#define DLXCU_UNARY_CASE(OP, _) \
  case ENUM_##OP: return run_##OP(k, p, L);
    DLX__UNOP_LIST(DLXCU_UNARY_CASE, _)
#undef DLXCU_UNARY_CASE
    default: return no_kernel(op);
  }
}

/* ---- binary --------------------------------------------------------------------------------------- */

template <int OP, int K>
struct Bin;
#define DLXCU_BIN(OP, N)                                                                   \
  template <>                                                                              \
  struct Bin<ENUM_##OP, KD_##N> {                                                          \
    typedef OUT_##OP(N) out_t;                                                             \
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
#define DLXCU_BIN_MIXED(OP, A, B)                                                          \
  template <>                                                                              \
  struct BinMixed<ENUM_##OP, MIXIX_##A##_##B> {                                            \
    typedef uint8_t out_t;                                                                 \
    typedef S_##A in0_t;                                                                   \
    typedef S_##B in1_t;                                                                   \
    static constexpr int nin = 2;                                                          \
    DLX_HD out_t operator()(in0_t a, in1_t b) const { return MIX_RULE(OP, A, B, a, b); }    \
  };
MIX_TABLE(DLXCU_BIN_MIXED)
#undef DLXCU_BIN_MIXED

template <int OP, class NF>
struct BinNarrow {
  static constexpr bool cmp = OP >= DLX_OP_LT && OP <= DLX_OP_NE;
  typedef typename NF::T in0_t;
  typedef in0_t in1_t;
  typedef typename std::conditional<cmp, uint8_t, in0_t>::type out_t;
  static constexpr int nin = 2;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t a, in1_t b) const {
    if constexpr (cmp) return Bin<OP, DLX_KD_F32>()(nf.dec32_call(a), nf.dec32_call(b));
    else return nf.enc32(Bin<OP, DLX_KD_F32>()(nf.dec32(a), nf.dec32(b)));
  }
};

template <int OP>
static dlx_status run_binary_narrow(dlx__kd k, const Plan &p, const Launch &L) {
  return with_narrow(k, [&](auto nf) -> dlx_status { return run_ew(p, BinNarrow<OP, decltype(nf)>{nf}, L); });
}

dlx_status run_binary(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]);
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  const int mix = dlx__mixed_pair(dlx__kd_of(op->dtype[1]), k);
  if (mix >= 0) {
#define DLXCU_CASE(OP, A, B) \
  if (op->op == ENUM_##OP && mix == MIXIX_##A##_##B) return run_ew(p, BinMixed<ENUM_##OP, MIXIX_##A##_##B>(), L);
    MIX_TABLE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  if (dlx__kd_is_native(k)) {
#define DLXCU_CASE(OP, N) \
  if (op->op == ENUM_##OP && k == KD_##N) return run_ew(p, Bin<ENUM_##OP, KD_##N>(), L);
    BIN_TABLE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  switch (op->op) {
    case DLX_OP_ADD: return run_binary_narrow<DLX_OP_ADD>(k, p, L);
    case DLX_OP_SUB: return run_binary_narrow<DLX_OP_SUB>(k, p, L);
    case DLX_OP_MUL: return run_binary_narrow<DLX_OP_MUL>(k, p, L);
    case DLX_OP_DIV: return run_binary_narrow<DLX_OP_DIV>(k, p, L);
    case DLX_OP_LT: return run_binary_narrow<DLX_OP_LT>(k, p, L);
    case DLX_OP_LE: return run_binary_narrow<DLX_OP_LE>(k, p, L);
    case DLX_OP_GT: return run_binary_narrow<DLX_OP_GT>(k, p, L);
    case DLX_OP_GE: return run_binary_narrow<DLX_OP_GE>(k, p, L);
    case DLX_OP_EQ: return run_binary_narrow<DLX_OP_EQ>(k, p, L);
    case DLX_OP_NE: return run_binary_narrow<DLX_OP_NE>(k, p, L);
    default: return no_kernel(op);
  }
}

/* ---- fma ------------------------------------------------------------------------------------------ */

template <int K>
struct Fma;
#define DLXCU_FMA(_, N)                                                                    \
  template <>                                                                              \
  struct Fma<KD_##N> {                                                                     \
    typedef S_##N out_t;                                                                   \
    typedef S_##N in0_t;                                                                   \
    typedef S_##N in1_t;                                                                   \
    static constexpr int nin = 2;                                                          \
    double s;                                                                              \
    DLX_HD out_t operator()(in0_t a, in1_t b) const { return FMA_RULE(N, s, a, b); }        \
  };
NATIVE_LIST(DLXCU_FMA, _)
#undef DLXCU_FMA

/* t1 the signed partner of an unsigned t2 (an int8 delta scaled onto a uint8 image). */
template <int U>
struct FmaMixed;
#define DLXCU_FMA_MIXED(U, I)                                                              \
  template <>                                                                              \
  struct FmaMixed<KD_##U> {                                                                \
    typedef S_##U out_t;                                                                   \
    typedef S_##I in0_t;                                                                   \
    typedef S_##U in1_t;                                                                   \
    static constexpr int nin = 2;                                                          \
    double s;                                                                              \
    DLX_HD out_t operator()(in0_t a, in1_t b) const { return FMA_RULE(U, s, a, b); }        \
  };
DLXCU_FMA_MIXED(u8, i8)
DLXCU_FMA_MIXED(u16, i16)
DLXCU_FMA_MIXED(u32, i32)
DLXCU_FMA_MIXED(u64, i64)
#undef DLXCU_FMA_MIXED

template <class NF>
struct FmaNarrow {
  typedef typename NF::T out_t;
  typedef out_t in0_t;
  typedef out_t in1_t;
  static constexpr int nin = 2;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  double s;
  DLX_HD out_t operator()(in0_t a, in1_t b) const {
    return nf.enc32(Fma<DLX_KD_F32>{s}(nf.dec32(a), nf.dec32(b)));
  }
};

dlx_status run_fma(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]), k1 = dlx__kd_of(op->dtype[1]);
  const double s = op->scalar;
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  if (dlx__kd_is_native(k) && k1 == k) {
    switch (k) {
#define DLXCU_CASE(_, N) \
  case KD_##N: return run_ew(p, Fma<KD_##N>{s}, L);
      NATIVE_LIST(DLXCU_CASE, _)
#undef DLXCU_CASE
      default: return no_kernel(op);
    }
  }
  if (dlx__kd_is_native(k)) {
    if (k1 != k - DLX_KD_U8 + DLX_KD_I8) return no_kernel(op);
    switch (k) {
      case DLX_KD_U8: return run_ew(p, FmaMixed<DLX_KD_U8>{s}, L);
      case DLX_KD_U16: return run_ew(p, FmaMixed<DLX_KD_U16>{s}, L);
      case DLX_KD_U32: return run_ew(p, FmaMixed<DLX_KD_U32>{s}, L);
      case DLX_KD_U64: return run_ew(p, FmaMixed<DLX_KD_U64>{s}, L);
      default: return no_kernel(op);
    }
  }
  if (k1 != k) return no_kernel(op);
  return with_narrow(k, [&](auto nf) -> dlx_status { return run_ew(p, FmaNarrow<decltype(nf)>{nf, s}, L); });
}

} // namespace dlxcu

/* The CUDA backend's arithmetic: the unary and ternary ops of kernels/op_table.h and fma, every kernel
 * generated from the table (the binary ops are kernels_binary.cu's, the math functions' rows (nar WIDE)
 * kernels_math.cu's: a translation unit each, so that nvcc builds them side by side). One kernel per (op, dtype) from expr.h's rules, as the CPU's tables (loops_native.c); narrow floats as the CPU's staged
 * loops (cpu.c): inputs decoded to float32, the float32 rule, the result encoded back with the float32
 * encoder (bool results are written directly), except negation, which flips their codes. */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

/* ---- unary ---------------------------------------------------------------------------------------- */

/* Every (op, dtype) cell of op_table.h's unary rows, from expr.h's rules (negation of floats flips the
 * sign bit in bits on the device: expr.h's NEG_REAL). */
template <int OP, int K>
struct Un;
#define DLXCU_UN(OP, E, RES, N)                                               \
  template <>                                                                 \
  struct Un<DLX_UNOP_##E, KD_##N> {                                           \
    typedef OUT_##RES(N) out_t;                                               \
    typedef S_##N in0_t;                                                      \
    typedef S_##N in1_t;                                                      \
    static constexpr int nin = 1;                                             \
    DLX_HD out_t operator()(in0_t x) const { return UN_RULE(OP, N, x); }       \
  };
UN_TABLE_NOTWIDE(DLXCU_UN) /* the math functions' rows: kernels_math.cu */
#undef DLXCU_UN

/* Narrow formats on their codes (op_table.h's nar CODE: negation, convert.h's dlx__cvt_negate, as the
 * CPU's narrow unary table): the sign bit flips with NaN payloads kept; fnuz zero and NaN stay; e8m0fnu
 * gives its NaN. */
template <class T>
struct NegNarrow {
  typedef T out_t;
  typedef T in0_t;
  typedef T in1_t;
  static constexpr int nin = 1;
  dlx__cvt_format fmt;
  DLX_HD out_t operator()(in0_t x) const { return (T)dlx__cvt_negate(&fmt, x); }
};

/* Narrow formats through float32 (nar F32): decoded, the float32 rule, encoded back (bool results
 * written as they are), as the CPU's staged loops. */
template <int OP, bool BOOLRES, class NF>
struct UnNarrow {
  typedef typename NF::T in0_t;
  typedef in0_t in1_t;
  typedef typename std::conditional<BOOLRES, uint8_t, in0_t>::type out_t;
  static constexpr int nin = 1;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t a) const {
    if constexpr (BOOLRES) return Un<OP, DLX_KD_F32>()(nf.dec32_call(a));
    else return nf.enc32_call(Un<OP, DLX_KD_F32>()(nf.dec32_call(a)));
  }
};

template <int OP, bool BOOLRES>
static dlx_status run_unary_narrow(dlx__kd k, const Plan &p, const Launch &L) {
  return with_narrow(k, [&](auto nf) -> dlx_status { return run_ew(p, UnNarrow<OP, BOOLRES, decltype(nf)>{nf}, L); });
}

static dlx_status run_unary_codes(dlx__kd k, const Plan &p, const Launch &L) {
  dlx__cvt_format fmt = dlx__cvt_format_value(dlx__kd_narrow_code(k));
  fmt.name = NULL; /* a host string: never read by a kernel */
  if (k == DLX_KD_F16 || k == DLX_KD_BF16) return run_ew(p, NegNarrow<uint16_t>{fmt}, L);
  return run_ew(p, NegNarrow<uint8_t>{fmt}, L);
}

#define DLXCU_RES_SAME false
#define DLXCU_RES_BOOL true
/* the narrow path of a row, by its nar column: F32 staged, CODE on the codes, MOVE and NONE never here (the
 * compute layer makes a MOVE a copy and refuses narrow floats for NONE) */
#define DLXCU_UN_NAR_F32(E, RES) \
  case DLX_UNOP_##E: return run_unary_narrow<DLX_UNOP_##E, DLXCU_RES_##RES>(k, p, L);
#define DLXCU_UN_NAR_CODE(E, RES) \
  case DLX_UNOP_##E: return run_unary_codes(k, p, L);
#define DLXCU_UN_NAR_MOVE(E, RES)
#define DLXCU_UN_NAR_NONE(E, RES)
#define DLXCU_UN_NAR_WIDE(E, RES)
#define DLXCU_UN_NARROW_CASE(A, op, E, np, kind, cls, res, nar, py) DLXCU_UN_NAR_##nar(E, res)

dlx_status run_unary(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[1]);
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  if (dlx__unop_info[op->unop].nar == DLX__NAR_WIDE) return run_unary_math(op, p, L);
  if (dlx__kd_is_native(k)) {
#define DLXCU_CASE(OP, E, RES, N) \
  if (op->unop == DLX_UNOP_##E && k == KD_##N) return run_ew(p, Un<DLX_UNOP_##E, KD_##N>(), L);
    UN_TABLE_NOTWIDE(DLXCU_CASE)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  switch (op->unop) {
    DLX__UNOP_TABLE(DLXCU_UN_NARROW_CASE, _)
    default: return no_kernel(op);
  }
}

/* ---- three operands ------------------------------------------------------------------------------- */

/* where: the bits of b or c, by item size (any dtype, narrow codes included). */
template <class T>
struct Where {
  typedef T out_t;
  typedef uint8_t in0_t;
  typedef T in1_t;
  typedef T in2_t;
  static constexpr int nin = 3;
  DLX_HD out_t operator()(in0_t c, in1_t x, in2_t y) const { return c ? x : y; }
};

template <int K>
struct Clip;
#define DLXCU_CLIP(_, N)                                                                   \
  template <>                                                                              \
  struct Clip<KD_##N> {                                                                    \
    typedef S_##N out_t;                                                                   \
    typedef S_##N in0_t;                                                                   \
    typedef S_##N in1_t;                                                                   \
    typedef S_##N in2_t;                                                                   \
    static constexpr int nin = 3;                                                          \
    DLX_HD out_t operator()(in0_t a, in1_t lo, in2_t hi) const { return CLIP_RULE(N, a, lo, hi); } \
  };
CLIP_LIST(DLXCU_CLIP, _)
#undef DLXCU_CLIP

template <class NF>
struct ClipNarrow {
  typedef typename NF::T out_t;
  typedef out_t in0_t;
  typedef out_t in1_t;
  typedef out_t in2_t;
  static constexpr int nin = 3;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t a, in1_t lo, in2_t hi) const {
    return nf.enc32_call(Clip<DLX_KD_F32>()(nf.dec32_call(a), nf.dec32_call(lo), nf.dec32_call(hi)));
  }
};

struct Bytes16 {
  uint64_t lo, hi;
};

dlx_status run_ternary(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]);
  if (k == DLX_KD_NONE || dlx__kd_is_subbyte(k)) return no_kernel(op);
  if (op->ternop == DLX_TERNOP_WHERE) {
    switch (dlx_dtype_itemsize(op->dtype[2])) {
      case 1: return run_ew(p, Where<uint8_t>(), L);
      case 2: return run_ew(p, Where<uint16_t>(), L);
      case 4: return run_ew(p, Where<uint32_t>(), L);
      case 8: return run_ew(p, Where<uint64_t>(), L);
      case 16: return run_ew(p, Where<Bytes16>(), L);
      default: return no_kernel(op);
    }
  }
  if (dlx__kd_is_native(k)) {
#define DLXCU_CASE(_, N) \
  if (k == KD_##N) return run_ew(p, Clip<KD_##N>(), L);
    CLIP_LIST(DLXCU_CASE, _)
#undef DLXCU_CASE
    return no_kernel(op);
  }
  return with_narrow(k, [&](auto nf) -> dlx_status { return run_ew(p, ClipNarrow<decltype(nf)>{nf}, L); });
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

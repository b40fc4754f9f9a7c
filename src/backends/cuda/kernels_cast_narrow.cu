/* The CUDA backend's casts with a narrow float (float16, bfloat16, fp8, padded fp6/fp4) on either side,
 * along exactly the CPU's paths (cpu.c, dlx__cpu_select_loop):
 *  - native -> narrow: float32 encodes from float, float64 from double; complex64 through its float32
 *    real part; every other dtype (bool, integers, complex128) through float64 (convert.h: integers
 *    round once, from the double);
 *  - narrow -> native: to float32 / float64 by the decoders; complex128 through float64; every other
 *    dtype through float32 and then the float32 cast rule;
 *  - narrow -> another narrow format: decoded to float32 and encoded from it.
 * The formats' codecs are kernels_common.cuh's NarrowH / NarrowB / NarrowT: one kernel per native dtype
 * and codec family, the 8/6/4-bit format's descriptor a kernel argument. */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

template <int S, class NF>
struct CastToNarrow {
  typedef typename NF::T out_t;
  typedef typename St<S>::type in0_t;
  typedef in0_t in1_t;
  static constexpr int nin = 1;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t x) const {
    if constexpr (S == DLX_KD_F32) return nf.enc32(x);
    else if constexpr (S == DLX_KD_F64) return nf.enc64(x);
    else if constexpr (S == DLX_KD_C64) return nf.enc32(Cast<DLX_KD_C64, DLX_KD_F32>()(x));
    else return nf.enc64(Cast<S, DLX_KD_F64>()(x));
  }
};

template <class NF, int D>
struct CastFromNarrow {
  typedef typename St<D>::type out_t;
  typedef typename NF::T in0_t;
  typedef in0_t in1_t;
  static constexpr int nin = 1;
  static constexpr int vec_bytes = NF::vec_bytes;
  NF nf;
  DLX_HD out_t operator()(in0_t x) const {
    if constexpr (D == DLX_KD_F32) return nf.dec32(x);
    else if constexpr (D == DLX_KD_F64) return nf.dec64(x);
    else if constexpr (D == DLX_KD_C128) return Cast<DLX_KD_F64, DLX_KD_C128>()(nf.dec64(x));
    else return Cast<DLX_KD_F32, D>()(nf.dec32(x));
  }
};

template <class NS, class ND>
struct CastNarrowNarrow {
  typedef typename ND::T out_t;
  typedef typename NS::T in0_t;
  typedef in0_t in1_t;
  static constexpr int nin = 1;
  static constexpr int vec_bytes = NS::vec_bytes;
  NS src;
  ND dst;
  DLX_HD out_t operator()(in0_t x) const { return dst.enc32(src.dec32(x)); }
};

dlx_status run_cast_narrow(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd s = dlx__kd_of(op->dtype[1]), d = dlx__kd_of(op->dtype[0]);
  if (s == DLX_KD_NONE || d == DLX_KD_NONE) return no_kernel(op);
  if (dlx__kd_is_native(s)) {
    return with_narrow(d, [&](auto nf) -> dlx_status {
      typedef decltype(nf) NF;
      switch (s) {
#define DLXCU_CASE(_, S) \
  case KD_##S: return run_ew(p, CastToNarrow<KD_##S, NF>{nf}, L);
        NATIVE_LIST(DLXCU_CASE, _)
#undef DLXCU_CASE
        default: return no_kernel(op);
      }
    });
  }
  if (dlx__kd_is_native(d)) {
    return with_narrow(s, [&](auto nf) -> dlx_status {
      typedef decltype(nf) NF;
      switch (d) {
#define DLXCU_CASE(_, D) \
  case KD_##D: return run_ew(p, CastFromNarrow<NF, KD_##D>{nf}, L);
        NATIVE_LIST(DLXCU_CASE, _)
#undef DLXCU_CASE
        default: return no_kernel(op);
      }
    });
  }
  return with_narrow(s, [&](auto ns) -> dlx_status {
    return with_narrow(d, [&](auto nd) -> dlx_status {
      return run_ew(p, CastNarrowNarrow<decltype(ns), decltype(nd)>{ns, nd}, L);
    });
  });
}

} // namespace dlxcu

/* The CUDA backend's casts between native dtypes: one kernel per (source, destination) pair, each the
 * generic elementwise body (kernels_common.cuh) around expr.h's conversion rule, as the CPU's
 * dlx__cpu_cast table (loops_native.c). */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

template <int S, int D>
static dlx_status run_nn(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  /* a cast to its own dtype is a move, dispatched before it gets here: no kernel for it */
  if constexpr (S == D) return no_kernel(op);
  else return run_ew(p, Cast<S, D>(), L);
}

dlx_status run_cast_native(const dlx__ew_op *op, const Plan &p, const Launch &L) {
  const dlx__kd s = dlx__kd_of(op->dtype[1]), d = dlx__kd_of(op->dtype[0]);
  switch (s) {
#define DLXCU_CASE_D(S, D) \
  case KD_##D: return run_nn<KD_##S, KD_##D>(op, p, L);
#define DLXCU_CASE_S(_, S)                  \
  case KD_##S:                              \
    switch (d) {                            \
      NATIVE_LIST2(DLXCU_CASE_D, S)         \
      default: break;                       \
    }                                       \
    break;
    NATIVE_LIST(DLXCU_CASE_S, _)
#undef DLXCU_CASE_S
#undef DLXCU_CASE_D
    default: break;
  }
  return no_kernel(op);
}

} // namespace dlxcu

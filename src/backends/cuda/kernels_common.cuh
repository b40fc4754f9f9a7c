/* Internal to the CUDA backend's kernels (kernels*.cu): the launch parameters, the offset calculator,
 * element and vector accesses, the one generic elementwise body every op family instantiates, its
 * __global__ shell and its host emulation, and the element functors' building blocks.
 *
 * One body, two runners. ew_thread() is __host__ __device__: the kernel calls it with the thread's
 * global index, and the emulation (tests) calls it on the host for every thread index of the same grid.
 * Everything that decides what a thread does (fast path or not, chunking, tails, grid-stride steps,
 * offsets) is in that body or in host code both runners share; only the primitive loads and stores
 * differ (typed or vector loads on the device, memcpy on the host, where they mean the same bytes).
 *
 * Arithmetic: every element goes through the rules of kernels/expr.h and the codec of kernels/convert.h,
 * along the conversion paths of the CPU backend (cpu.c, dlx__cpu_select_loop), so results are the CPU's
 * bits. Build with --fmad=false (a fused multiply-add rounds once where the CPU rounds twice: complex
 * products, fma) and without --use_fast_math (IEEE division, subnormals kept). Two things are written out
 * in bits instead of left to the FPU, because GPU floating-point instructions may return their canonical
 * NaN 0x7fffffff where the CPU keeps a NaN operand's sign and payload: float32 <-> float64 conversions of
 * NaN (casts move NaN bits exactly) and negation (a sign flip, as expr.h specifies). Other arithmetic on
 * NaN may give another NaN than the CPU (dlx/ops.h leaves it unspecified). The emulation runs on the
 * host's FPU, so it checks everything but those device-only NaN bits and the device-only accesses. */
#ifndef DLX_BACKENDS_CUDA_KERNELS_COMMON_CUH
#define DLX_BACKENDS_CUDA_KERNELS_COMMON_CUH

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "backends/cuda/kernels.h"
#include "dlx/error.h"
/* convert.h's zero descriptor `= {0}` is C; g++'s -Wextra flags it in C++ */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "kernels/expr.h"
#pragma GCC diagnostic pop
#include "kernels/ew_names.h"

/* Unrolled on the device; the host compiler (the emulation) has no use for nvcc's pragma and warns. */
#ifdef __CUDA_ARCH__
#define DLXCU_UNROLL _Pragma("unroll")
#else
#define DLXCU_UNROLL
#endif

namespace dlxcu {

/* ======================================================================================================
 * Launching: on a stream, or emulated on the host.
 * ==================================================================================================== */

struct Launch {
  bool emulate;
  cudaStream_t stream;
};

/* The configured launch shape (kernels.cu; dlx__cuda_set_launch_shape). */
unsigned threads_per_block();
uint64_t max_blocks();
/* Count an emulated launch (dlx__cuda_emulation_counts). */
void count_emulated(bool vectorised);

struct Grid {
  unsigned blocks, threads;
  uint64_t total; /* threads in the grid: the grid-stride step */
};

/* Enough threads for `work` items (one thread each), at most max_blocks() blocks: larger work loops
 * grid-stride, so any int64 size launches (grid.x stays far below its 2^31 - 1 limit). */
inline Grid grid_for(uint64_t work) {
  Grid g;
  g.threads = threads_per_block();
  uint64_t blocks = (work + g.threads - 1) / g.threads;
  const uint64_t cap = max_blocks();
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  g.blocks = (unsigned)blocks;
  g.total = blocks * g.threads;
  return g;
}

/* The status of the launch just made (the runtime reports launch errors through cudaGetLastError). */
inline dlx_status launch_status(const char *what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return DLX_OK;
  return dlx_set_error(DLX_ERR_BACKEND, "dlx cuda backend: launching the %s kernel failed: %s (%s)", what,
                       cudaGetErrorString(e), cudaGetErrorName(e));
}

/* ======================================================================================================
 * The offset calculator: a linear index divided over the plan's shape, 64-bit throughout.
 * ==================================================================================================== */

/* n / d by multiply-high (Granlund & Montgomery, "Division by invariant integers using multiplication",
 * fig. 4.1): with l = ceil(log2 d) and m = floor(2^64 (2^l - d) / d) + 1, t = mulhi(m, n) and
 * q = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0) is floor(n / d) for every 64-bit n and d >= 1. A
 * 64-bit hardware division is a long software sequence on the GPU; this is one mul.hi and four ALU ops. */
struct Div {
  uint64_t d, m;
  uint32_t s1, s2;
};

DLX_HD inline uint64_t umulhi(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

DLX_HD inline uint64_t div_q(const Div &v, uint64_t n) {
  const uint64_t t = umulhi(v.m, n);
  return (t + ((n - t) >> v.s1)) >> v.s2;
}

inline Div make_div(uint64_t d) {
  Div v;
  if (d == 0) d = 1; /* only for extents of empty plans, which never launch */
  uint32_t l = 0; /* ceil(log2 d) */
  while (l < 63 && (UINT64_C(1) << l) < d) ++l;
  if ((UINT64_C(1) << l) < d) l = 64;
  const uint64_t pow_minus_d = (l == 64 ? 0 : (UINT64_C(1) << l)) - d; /* 2^l - d, modulo 2^64 */
  v.d = d;
  v.m = (uint64_t)((((unsigned __int128)pow_minus_d) << 64) / d) + 1;
  v.s1 = l < 1 ? l : 1;
  v.s2 = l > 1 ? l - 1 : 0;
  return v;
}

/* The plan as kernels take it (by value), its dimensions innermost first: operand k's element at
 * data[k] + sum idx[j] * st[k][j] over extents div[j].d, j = 0 the innermost (the plan's last). At least
 * one dimension (a 0-d plan becomes extent {1}). */
struct Plan {
  char *data[4];
  uint64_t size;
  int32_t ndim, nop;
  Div div[DLX_CUDA_MAX_DIMS];
  int64_t st[4][DLX_CUDA_MAX_DIMS];
  /* Inputs given by value (dlx__ew_op.byval: a host scalar): operand k's one element is val[k], passed
   * with the launch; its data pointer is NULL and its strides 0, so every element reads the same value. */
  bool byval[4];
  alignas(16) unsigned char val[4][DLX__EW_VALUE_BYTES];
};

/* A 16-byte item (complex128, and any other) moved as two 8-byte halves, so that 8-byte alignment keeps
 * it typed. */
struct B16 {
  uint64_t lo, hi;
};

/* A dlx_iter plan (byte strides) as kernel arguments; DLX_ERR_UNSUPPORTED past DLX_CUDA_MAX_DIMS
 * dimensions or outside 1 to 4 operands (kernels.cu). */
dlx_status make_plan(const dlx_iter *it, Plan *p);

/* Operand K's element at byte offset off: the launch's value when it was given by value, else a load. K is
 * a constant, so that val is read straight from the kernel's parameters. */
template <class T, int K>
DLX_HD inline T ld_in(const Plan &p, int64_t off, bool aligned);

/* Byte offsets of element i (row-major) for the first NOP operands. The loop is unrolled over the
 * largest rank with an exit at ndim, so that every extent and stride is read at a constant index,
 * straight from the kernel's parameters (a dynamically indexed parameter array would be copied to local
 * memory, per thread). The outermost dimension needs no division: what is left of the index is its
 * coordinate. */
template <int NOP>
DLX_HD inline void offsets(const Plan &p, uint64_t i, int64_t *off) {
  for (int k = 0; k < NOP; ++k) off[k] = 0;
  DLXCU_UNROLL
  for (int j = 0; j < DLX_CUDA_MAX_DIMS; ++j) {
    if (j == p.ndim - 1) {
      for (int k = 0; k < NOP; ++k) off[k] += (int64_t)i * p.st[k][j];
      break;
    }
    const uint64_t q = div_q(p.div[j], i);
    const int64_t idx = (int64_t)(i - q * p.div[j].d);
    i = q;
    for (int k = 0; k < NOP; ++k) off[k] += idx * p.st[k][j];
  }
}

/* ======================================================================================================
 * Element and vector accesses.
 * ==================================================================================================== */

/* One element at p: a typed access when every access of the launch is aligned to T (one uniform branch),
 * else byte by byte (DLPack producers may hand over misaligned data, where a typed access faults). */
template <class T>
DLX_HD inline T ld(const char *p, bool aligned) {
  T v;
#ifdef __CUDA_ARCH__
  if (aligned) return *reinterpret_cast<const T *>(p);
  unsigned char *b = reinterpret_cast<unsigned char *>(&v);
  for (size_t j = 0; j < sizeof(T); ++j) b[j] = (unsigned char)p[j];
#else
  (void)aligned;
  memcpy(&v, p, sizeof v);
#endif
  return v;
}

template <class T>
DLX_HD inline void st(char *p, const T &v, bool aligned) {
#ifdef __CUDA_ARCH__
  if (aligned) {
    *reinterpret_cast<T *>(p) = v;
    return;
  }
  const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);
  for (size_t j = 0; j < sizeof(T); ++j) p[j] = (char)b[j];
#else
  (void)aligned;
  memcpy(p, &v, sizeof v);
#endif
}

template <class T, int K>
DLX_HD inline T ld_in(const Plan &p, int64_t off, bool aligned) {
  static_assert(sizeof(T) <= DLX__EW_VALUE_BYTES, "a by-value element fits val");
  if (p.byval[K]) {
    T v;
    memcpy(&v, p.val[K], sizeof v);
    return v;
  }
  return ld<T>(p.data[K] + off, aligned);
}

/* One aligned access of U bytes (4, 8 or 16): a single load or store instruction on the device. */
template <int U>
DLX_HD inline void ld_unit(void *dst, const char *src) {
#ifdef __CUDA_ARCH__
  if constexpr (U == 16) {
    const uint4 v = *reinterpret_cast<const uint4 *>(src);
    memcpy(dst, &v, 16);
  } else if constexpr (U == 8) {
    const uint2 v = *reinterpret_cast<const uint2 *>(src);
    memcpy(dst, &v, 8);
  } else {
    static_assert(U == 4, "4, 8 or 16 bytes");
    const uint32_t v = *reinterpret_cast<const uint32_t *>(src);
    memcpy(dst, &v, 4);
  }
#else
  memcpy(dst, src, U);
#endif
}

template <int U>
DLX_HD inline void st_unit(char *dst, const void *src) {
#ifdef __CUDA_ARCH__
  if constexpr (U == 16) {
    uint4 v;
    memcpy(&v, src, 16);
    *reinterpret_cast<uint4 *>(dst) = v;
  } else if constexpr (U == 8) {
    uint2 v;
    memcpy(&v, src, 8);
    *reinterpret_cast<uint2 *>(dst) = v;
  } else {
    static_assert(U == 4, "4, 8 or 16 bytes");
    uint32_t v;
    memcpy(&v, src, 4);
    *reinterpret_cast<uint32_t *>(dst) = v;
  }
#else
  memcpy(dst, src, U);
#endif
}

/* E consecutive elements of T from a 16-byte aligned address, in accesses of up to 16 bytes. */
template <class T, int E>
DLX_HD inline void ld_vec(T (&dst)[E], const char *src) {
  constexpr int bytes = (int)(sizeof(T) * E), U = bytes < 16 ? bytes : 16;
  static_assert(bytes % U == 0, "whole accesses");
  alignas(16) unsigned char raw[bytes];
  DLXCU_UNROLL
  for (int j = 0; j < bytes / U; ++j) ld_unit<U>(raw + U * j, src + U * j);
  memcpy(dst, raw, sizeof raw);
}

template <class T, int E>
DLX_HD inline void st_vec(char *dst, const T (&src)[E]) {
  constexpr int bytes = (int)(sizeof(T) * E), U = bytes < 16 ? bytes : 16;
  static_assert(bytes % U == 0, "whole accesses");
  alignas(16) unsigned char raw[bytes];
  memcpy(raw, src, sizeof raw);
  DLXCU_UNROLL
  for (int j = 0; j < bytes / U; ++j) st_unit<U>(dst + U * j, raw + U * j);
}

/* ======================================================================================================
 * The elementwise body. A functor F gives out_t, in0_t, in1_t, nin (1, 2 or 3; in2_t too for 3) and a
 * __host__ __device__ operator() taking nin inputs.
 * ==================================================================================================== */

struct Ew {
  Plan p;
  bool aligned;  /* every operand's address and strides are multiples of its type's alignment */
  bool vec;      /* the fast path: 1-d, every stride its item size (or 0 for an input), 16-byte aligned */
  bool bcast[4]; /* fast path: input k is broadcast (stride 0) */
};

/* The third input's type: in2_t where the functor has three inputs, else in1_t (never loaded). */
template <class F, class = void>
struct In2 {
  typedef typename F::in1_t type;
};
template <class F>
struct In2<F, std::void_t<typename F::in2_t>> {
  typedef typename F::in2_t type;
};

/* The fast path's bytes per chunk of the smallest operand: 16 (one 128-bit access), or what the functor
 * asks for (vec_bytes) when its element work is heavy: 16 unrolled copies of the generic narrow codec
 * make large kernels, slow to compile, that are compute-bound anyway. 4-byte accesses by a warp's 32
 * threads are still fully coalesced. */
template <class F, class = void>
struct VecBytes {
  static constexpr int value = 16;
};
template <class F>
struct VecBytes<F, std::void_t<decltype(F::vec_bytes)>> {
  static constexpr int value = F::vec_bytes;
};

template <class F>
struct Shape {
  typedef typename F::out_t TO;
  typedef typename F::in0_t TA;
  typedef typename F::in1_t TB;
  typedef typename In2<F>::type TC;
  static constexpr size_t small2 = sizeof(TO) < sizeof(TA) ? (sizeof(TO) < sizeof(TB) ? sizeof(TO) : sizeof(TB))
                                                           : (sizeof(TA) < sizeof(TB) ? sizeof(TA) : sizeof(TB));
  static constexpr size_t smallest = F::nin == 3 && sizeof(TC) < small2 ? sizeof(TC) : small2;
  /* elements per fast-path chunk: VecBytes of the smallest operand (item sizes are powers of two up to 16,
   * so every operand's share is whole aligned accesses of 4 to 16 bytes) */
  static constexpr int E = VecBytes<F>::value > (int)smallest ? (int)(VecBytes<F>::value / smallest) : 1;
  static_assert(VecBytes<F>::value >= 4 && VecBytes<F>::value <= 16, "4 to 16 bytes per chunk");
};

/* Element i by the offset calculator (the general path, and the fast path's tail). */
template <class F>
DLX_HD inline void ew_elem(const Ew &a, const F &f, uint64_t i) {
  typedef typename F::out_t TO;
  typedef typename F::in0_t TA;
  typedef typename F::in1_t TB;
  int64_t off[4];
  offsets<F::nin + 1>(a.p, i, off);
  const TA x = ld_in<TA, 1>(a.p, off[1], a.aligned);
  if constexpr (F::nin == 1) {
    st<TO>(a.p.data[0] + off[0], f(x), a.aligned);
  } else if constexpr (F::nin == 3) {
    typedef typename In2<F>::type TC;
    const TB y = ld_in<TB, 2>(a.p, off[2], a.aligned);
    const TC z = ld_in<TC, 3>(a.p, off[3], a.aligned);
    st<TO>(a.p.data[0] + off[0], f(x, y, z), a.aligned);
  } else {
    const TB y = ld_in<TB, 2>(a.p, off[2], a.aligned);
    st<TO>(a.p.data[0] + off[0], f(x, y), a.aligned);
  }
}

/* What thread t of nt does. General path: elements t, t + nt, ... Fast path: chunks of E elements
 * t, t + nt, ... (vector loads and stores, broadcast inputs read once per thread), then the last
 * size % E elements one per thread. Each thread reads and writes only its own elements, so an output that
 * is exactly an input (in place) stays correct in any order. */
template <class F>
DLX_HD inline void ew_thread(const Ew &a, const F &f, uint64_t t, uint64_t nt) {
  if (!a.vec) {
    for (uint64_t i = t; i < a.p.size; i += nt) ew_elem(a, f, i);
    return;
  }
  typedef typename F::out_t TO;
  typedef typename F::in0_t TA;
  typedef typename F::in1_t TB;
  typedef typename In2<F>::type TC;
  constexpr int E = Shape<F>::E;
  const uint64_t chunks = a.p.size / E;
  if (t < chunks) {
    TA xb{};
    TB yb{};
    TC zb{};
    if (a.bcast[1]) xb = ld_in<TA, 1>(a.p, 0, a.aligned);
    if constexpr (F::nin >= 2) {
      if (a.bcast[2]) yb = ld_in<TB, 2>(a.p, 0, a.aligned);
    }
    if constexpr (F::nin == 3) {
      if (a.bcast[3]) zb = ld_in<TC, 3>(a.p, 0, a.aligned);
    }
    for (uint64_t c = t; c < chunks; c += nt) {
      TA x[E];
      TO o[E];
      if (a.bcast[1]) {
        DLXCU_UNROLL
        for (int j = 0; j < E; ++j) x[j] = xb;
      } else {
        ld_vec<TA, E>(x, a.p.data[1] + c * (E * sizeof(TA)));
      }
      if constexpr (F::nin == 1) {
        DLXCU_UNROLL
        for (int j = 0; j < E; ++j) o[j] = f(x[j]);
      } else {
        TB y[E];
        if (a.bcast[2]) {
          DLXCU_UNROLL
          for (int j = 0; j < E; ++j) y[j] = yb;
        } else {
          ld_vec<TB, E>(y, a.p.data[2] + c * (E * sizeof(TB)));
        }
        if constexpr (F::nin == 3) {
          TC z[E];
          if (a.bcast[3]) {
            DLXCU_UNROLL
            for (int j = 0; j < E; ++j) z[j] = zb;
          } else {
            ld_vec<TC, E>(z, a.p.data[3] + c * (E * sizeof(TC)));
          }
          DLXCU_UNROLL
          for (int j = 0; j < E; ++j) o[j] = f(x[j], y[j], z[j]);
        } else {
          DLXCU_UNROLL
          for (int j = 0; j < E; ++j) o[j] = f(x[j], y[j]);
        }
      }
      st_vec<TO, E>(a.p.data[0] + c * (E * sizeof(TO)), o);
    }
  }
  for (uint64_t i = chunks * E + t; i < a.p.size; i += nt) ew_elem(a, f, i);
}

template <class F>
__global__ void ew_kernel(const Ew a, const F f) {
  ew_thread(a, f, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}

inline bool aligned_to(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

/* Whether operand k's address and every stride are multiples of align. */
inline bool operand_aligned(const Plan &p, int k, size_t align) {
  if (!aligned_to(p.data[k], align)) return false;
  for (int d = 0; d < p.ndim; ++d)
    if ((uint64_t)p.st[k][d] & (align - 1)) return false;
  return true;
}

/* Run functor f over plan p: launched on L.stream, or emulated thread by thread. */
template <class F>
dlx_status run_ew(const Plan &p, const F &f, const Launch &L) {
  typedef typename F::out_t TO;
  typedef typename F::in0_t TA;
  typedef typename F::in1_t TB;
  typedef typename In2<F>::type TC;
  constexpr int E = Shape<F>::E;
  Ew a;
  a.p = p;
  a.aligned = operand_aligned(p, 0, alignof(TO)) && operand_aligned(p, 1, alignof(TA)) &&
              (F::nin == 1 || operand_aligned(p, 2, alignof(TB))) && (F::nin < 3 || operand_aligned(p, 3, alignof(TC)));
  const size_t size[4] = {sizeof(TO), sizeof(TA), sizeof(TB), sizeof(TC)};
  a.vec = p.ndim == 1 && p.st[0][0] == (int64_t)size[0] && aligned_to(p.data[0], 16);
  a.bcast[0] = false;
  for (int k = 1; k < 4; ++k) {
    a.bcast[k] = false;
    if (k > F::nin) continue;
    if (p.byval[k] || p.st[k][0] == 0) a.bcast[k] = true;
    else if (p.st[k][0] != (int64_t)size[k] || !aligned_to(p.data[k], 16)) a.vec = false;
  }
  const uint64_t chunks = a.vec ? p.size / E : 0;
  const uint64_t work = a.vec ? (chunks > p.size - chunks * E ? chunks : p.size - chunks * E) : p.size;
  const Grid g = grid_for(work);
  if (L.emulate) {
    count_emulated(a.vec);
    for (uint64_t t = 0; t < g.total; ++t) ew_thread(a, f, t, g.total);
    return DLX_OK;
  }
  ew_kernel<F><<<g.blocks, g.threads, 0, L.stream>>>(a, f);
  return launch_status("elementwise");
}

/* ======================================================================================================
 * Functor building blocks.
 * ==================================================================================================== */

/* Storage type of a native kernel dtype. */
template <int K>
struct St;
#define DLXCU_ST(_, N) \
  template <>          \
  struct St<KD_##N> {  \
    typedef S_##N type; \
  };
NATIVE_LIST(DLXCU_ST, _)
#undef DLXCU_ST

/* Bit-exact float32 <-> float64 conversions. Finite values and infinities convert as C converts them (the
 * GPU's cvt rounds to nearest even, subnormals kept: nothing here flushes to zero). A NaN is rebuilt in
 * bits as the CPU's conversion makes it (x86 cvtss2sd / cvtsd2ss, AArch64 fcvt): sign kept, payload
 * shifted (widened) or truncated (narrowed), quiet bit set. */
DLX_HD inline double widen(float x) {
  if (x != x) {
    const uint32_t u = dlx__cvt_f32_bits(x);
    return dlx__cvt_f64_from_bits(((uint64_t)(u >> 31) << 63) | UINT64_C(0x7ff8000000000000) |
                                  ((uint64_t)(u & 0x7fffffu) << 29));
  }
  return (double)x;
}

DLX_HD inline float narrow(double x) {
  if (x != x) {
    const uint64_t u = dlx__cvt_f64_bits(x);
    return dlx__cvt_f32_from_bits(((uint32_t)(u >> 63) << 31) | 0x7fc00000u | (uint32_t)((u >> 29) & 0x7fffffu));
  }
  return (float)x;
}

/* The narrow formats, as the CPU's loops_narrow.c treats them: float16 and bfloat16 through their own
 * conversions, the 8/6/4-bit formats through the generic codec with the format's descriptor carried by
 * value (the host's tables are not on the device). dec32 / dec64 / enc32 / enc64 are the CPU's
 * dlx__cpu_narrow_dec32 ... enc64 element for element. */
struct NarrowH {
  typedef uint16_t T;
  static constexpr int vec_bytes = 16; /* fast-path chunk of this codec's functors (VecBytes) */
  DLX_HD float dec32(T x) const { return dlx__cvt_f16_to_f32(x); }
  DLX_HD float dec32_call(T x) const { return dec32(x); }
  DLX_HD double dec64(T x) const { return dlx__cvt_f16_to_f64(x); }
  DLX_HD T enc32(float x) const { return dlx__cvt_f32_to_f16(x); }
  DLX_HD T enc32_call(float x) const { return enc32(x); }
  DLX_HD T enc64(double x) const { return dlx__cvt_f64_to_f16(x); }
};

struct NarrowB {
  typedef uint16_t T;
  static constexpr int vec_bytes = 16;
  DLX_HD float dec32(T x) const { return dlx__cvt_bf16_to_f32(x); }
  DLX_HD float dec32_call(T x) const { return dec32(x); }
  DLX_HD double dec64(T x) const { return dlx__cvt_bf16_to_f64(x); }
  DLX_HD T enc32(float x) const { return dlx__cvt_f32_to_bf16(x); }
  DLX_HD T enc32_call(float x) const { return enc32(x); }
  DLX_HD T enc64(double x) const { return dlx__cvt_f64_to_bf16(x); }
};

struct NarrowT {
  typedef uint8_t T;
  static constexpr int vec_bytes = 4; /* the generic codec is long: 4 codes per chunk, not 16 */
  dlx__cvt_format fmt;
  /* the CPU reads its decode table, built from dlx__cvt_decode_f32 of every code */
  DLX_HD float dec32(T x) const { return dlx__cvt_decode_f32(&fmt, x); }
  /* The same as a call: comparisons of two inlined decodes take cicc about 8 s per kernel to optimise
   * (a minute for the six comparisons), for code that gains nothing from it. */
  __noinline__ DLX_HD float dec32_call(T x) const { return dlx__cvt_decode_f32(&fmt, x); }
  /* the CPU widens its float table entry; decode_f64 gives those bits without the FPU (these formats
   * decode NaN to the quiet NaN of its sign, whose widening is the quiet float64 NaN of that sign) */
  DLX_HD double dec64(T x) const { return dlx__cvt_decode_f64(&fmt, x); }
  DLX_HD T enc32(float x) const { return (T)dlx__cvt_encode_f32(&fmt, x); }
  /* The op table's narrow kernels (kernels_arith.cu) decode and encode through calls: some forty ops, each
   * with the generic codec inlined twice or three times, took nvcc minutes to build for kernels whose time
   * goes into the codec either way. */
  __noinline__ DLX_HD T enc32_call(float x) const { return (T)dlx__cvt_encode_f32(&fmt, x); }
  DLX_HD T enc64(double x) const { return (T)dlx__cvt_encode_f64(&fmt, x); }
};

/* Call fn with the codec of narrow kernel dtype k (host side, at dispatch). */
template <class Fn>
dlx_status with_narrow(dlx__kd k, Fn &&fn) {
  if (k == DLX_KD_F16) return fn(NarrowH());
  if (k == DLX_KD_BF16) return fn(NarrowB());
  NarrowT t;
  t.fmt = dlx__cvt_format_value(dlx__kd_narrow_code(k));
  t.fmt.name = NULL; /* a host string: never read by a kernel */
  return fn(t);
}

/* ---- casts between native dtypes (both cast files: the narrow paths go through float32 / float64) --- */

/* The functor of every (source, destination) pair, from expr.h's CVT_RULE. */
template <int S, int D>
struct CastRule;
#define DLXCU_CAST_RULE(S, D)                                                    \
  template <>                                                                    \
  struct CastRule<KD_##S, KD_##D> {                                              \
    typedef S_##D out_t;                                                         \
    typedef S_##S in0_t;                                                         \
    typedef S_##S in1_t;                                                         \
    static constexpr int nin = 1;                                                \
    DLX_HD out_t operator()(in0_t x) const { return CVT_RULE(S, D, x); }          \
  };
#define DLXCU_CAST_RULE_ROW(_, S) NATIVE_LIST2(DLXCU_CAST_RULE, S)
NATIVE_LIST(DLXCU_CAST_RULE_ROW, _)
#undef DLXCU_CAST_RULE_ROW
#undef DLXCU_CAST_RULE

/* What the kernels run: the rule, except where a float changes precision. There the rule's C conversion
 * is replaced by widen / narrow, which give the same bits for every value but build a NaN's bits
 * explicitly (the one place a cast could otherwise depend on the GPU's NaN handling). */
template <int S, int D>
struct Cast : CastRule<S, D> {};
#define DLXCU_CAST_EXACT(S, D, EXPR)                                             \
  template <>                                                                    \
  struct Cast<KD_##S, KD_##D> {                                                  \
    typedef S_##D out_t;                                                         \
    typedef S_##S in0_t;                                                         \
    typedef S_##S in1_t;                                                         \
    static constexpr int nin = 1;                                                \
    DLX_HD out_t operator()(in0_t x) const { return EXPR; }                      \
  };
DLXCU_CAST_EXACT(f32, f64, widen(x))
DLXCU_CAST_EXACT(f64, f32, narrow(x))
DLXCU_CAST_EXACT(f32, c128, dlx_cf64_make(widen(x), 0))
DLXCU_CAST_EXACT(f64, c64, dlx_cf32_make(narrow(x), 0))
DLXCU_CAST_EXACT(c64, f64, widen(x.re))
DLXCU_CAST_EXACT(c128, f32, narrow(x.re))
DLXCU_CAST_EXACT(c64, c128, dlx_cf64_make(widen(x.re), widen(x.im)))
DLXCU_CAST_EXACT(c128, c64, dlx_cf32_make(narrow(x.re), narrow(x.im)))
#undef DLXCU_CAST_EXACT

/* ---- the op families' dispatchers (kernels_cast*.cu, kernels_arith.cu, kernels_math.cu) ------------------------------- */

/* cast between native dtypes / casts with a narrow float on either side; op->kind == DLX_EW_CAST and
 * not a move */
dlx_status run_cast_native(const dlx__ew_op *op, const Plan &p, const Launch &L);
dlx_status run_cast_narrow(const dlx__ew_op *op, const Plan &p, const Launch &L);
/* unary, binary, fma and the ops of three operands */
dlx_status run_unary(const dlx__ew_op *op, const Plan &p, const Launch &L);
/* the math functions, op_table.h's nar WIDE rows (kernels_math.cu; run_unary hands them over) */
dlx_status run_unary_math(const dlx__ew_op *op, const Plan &p, const Launch &L);
dlx_status run_binary(const dlx__ew_op *op, const Plan &p, const Launch &L);
dlx_status run_fma(const dlx__ew_op *op, const Plan &p, const Launch &L);
dlx_status run_ternary(const dlx__ew_op *op, const Plan &p, const Launch &L);

/* The error for an op no kernel exists for (the compute layer never hands one over). */
dlx_status no_kernel(const dlx__ew_op *op);

} // namespace dlxcu

#endif

/* The CUDA backend's kernel entry points (kernels.h): the plan made into kernel arguments, dispatch by op
 * family, same-dtype moves, packed float6/float4 <-> padded bytes, and the host emulation of all of it.
 * The op families' kernels are in kernels_cast.cu, kernels_cast_narrow.cu and kernels_arith.cu. */
#include <atomic>

#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

/* ======================================================================================================
 * Launch shape.
 * ==================================================================================================== */

/* 256 threads: a common choice for memory-bound elementwise kernels (8 warps, full occupancy on sm_90
 * with the registers these bodies take). 65536 blocks: 16.7M threads, several waves on any current GPU;
 * larger tensors loop grid-stride. */
static std::atomic<unsigned> g_threads{256};
static std::atomic<uint64_t> g_blocks{65536};

unsigned threads_per_block() { return g_threads.load(std::memory_order_relaxed); }
uint64_t max_blocks() { return g_blocks.load(std::memory_order_relaxed); }

static std::atomic<uint64_t> g_emulated{0}, g_emulated_vec{0};
void count_emulated(bool vectorised) {
  g_emulated.fetch_add(1, std::memory_order_relaxed);
  if (vectorised) g_emulated_vec.fetch_add(1, std::memory_order_relaxed);
}

dlx_status no_kernel(const dlx__ew_op *op) {
  return dlx_set_error(DLX_ERR_UNSUPPORTED,
                       "dlx cuda backend: no kernel for op kind %d (unop %d, binop %d) on dtypes "
                       "(code %u, bits %u, lanes %u) <- (%u, %u, %u), (%u, %u, %u)",
                       (int)op->kind, (int)op->unop, (int)op->op, op->dtype[0].code, op->dtype[0].bits,
                       op->dtype[0].lanes, op->dtype[1].code, op->dtype[1].bits, op->dtype[1].lanes,
                       op->dtype[2].code, op->dtype[2].bits, op->dtype[2].lanes);
}

/* ======================================================================================================
 * The plan as kernel arguments.
 * ==================================================================================================== */

static dlx_status too_many_dims(const char *what, int ndim) {
  return dlx_set_error(DLX_ERR_UNSUPPORTED,
                       "dlx cuda backend: %s has %d dimensions after merging contiguous ones; the CUDA kernels "
                       "take at most %d (DLX_CUDA_MAX_DIMS)",
                       what, ndim, DLX_CUDA_MAX_DIMS);
}

dlx_status make_plan(const dlx_iter *it, Plan *p) {
  if (it->nop < 1 || it->nop > 4)
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx cuda backend: a plan of %d operands (the kernels take 1 to 4)",
                         (int)it->nop);
  if (it->ndim > DLX_CUDA_MAX_DIMS) return too_many_dims("the loop plan", it->ndim);
  memset(p, 0, sizeof *p);
  p->nop = it->nop;
  p->size = (uint64_t)it->size;
  for (int k = 0; k < it->nop; ++k) p->data[k] = it->data[k];
  if (it->ndim == 0) { /* one element: a 1-d plan of extent 1 */
    p->ndim = 1;
    p->div[0] = make_div(1);
    return DLX_OK;
  }
  p->ndim = it->ndim;
  for (int d = 0; d < it->ndim; ++d) { /* innermost first */
    const int j = it->ndim - 1 - d;
    p->div[j] = make_div((uint64_t)it->shape[d]);
    for (int k = 0; k < it->nop; ++k) p->st[k][j] = it->strides[k][d];
  }
  return DLX_OK;
}

/* ======================================================================================================
 * Same-dtype moves: copy, fill, a cast to the operand's own dtype. Dtype-blind: item sizes 1, 2, 4, 8
 * and 16 move as unsigned words (16: two 8-byte halves, so 8-byte aligned complex128 stays typed), any
 * other size (3-byte opaque types, float32x3) byte by byte.
 * ==================================================================================================== */

template <class T>
struct Move {
  typedef T out_t;
  typedef T in0_t;
  typedef T in1_t;
  static constexpr int nin = 1;
  DLX_HD T operator()(T x) const { return x; }
};

DLX_HD inline void bytes_thread(const Plan &p, uint64_t w, uint64_t t, uint64_t nt) {
  /* a by-value input (w <= DLX__EW_VALUE_BYTES then) is read from a copy, its offsets all 0 */
  unsigned char val[DLX__EW_VALUE_BYTES];
  DLXCU_UNROLL
  for (int j = 0; j < DLX__EW_VALUE_BYTES; ++j) val[j] = p.val[1][j];
  const char *src = p.byval[1] ? reinterpret_cast<const char *>(val) : p.data[1];
  for (uint64_t i = t; i < p.size; i += nt) {
    int64_t off[2];
    offsets<2>(p, i, off);
    for (uint64_t b = 0; b < w; ++b) p.data[0][off[0] + (int64_t)b] = src[off[1] + (int64_t)b];
  }
}

__global__ void bytes_kernel(const Plan p, uint64_t w) {
  bytes_thread(p, w, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}

static dlx_status run_move_sized(uint64_t w, const Plan &p, const Launch &L) {
  switch (w) {
    case 1: return run_ew(p, Move<uint8_t>(), L);
    case 2: return run_ew(p, Move<uint16_t>(), L);
    case 4: return run_ew(p, Move<uint32_t>(), L);
    case 8: return run_ew(p, Move<uint64_t>(), L);
    case 16: return run_ew(p, Move<B16>(), L);
    default: break;
  }
  const Grid g = grid_for(p.size);
  if (L.emulate) {
    count_emulated(false);
    for (uint64_t t = 0; t < g.total; ++t) bytes_thread(p, w, t, g.total);
    return DLX_OK;
  }
  bytes_kernel<<<g.blocks, g.threads, 0, L.stream>>>(p, w);
  return launch_status("byte copy");
}

static dlx_status run_move(const dlx__ew_op *op, Plan p, const Launch &L) {
  const uint64_t w = dlx_dtype_itemsize(op->dtype[0]);
  /* out == in element for element (in place): nothing moves */
  bool same = p.data[0] == p.data[1];
  for (int d = 0; same && d < p.ndim; ++d) same = p.st[0][d] == p.st[1][d];
  if (same) return DLX_OK;
  /* both contiguous: one run of size * w bytes, moved in the widest unit that divides the item size and
   * both addresses (and with 16-byte aligned addresses, through the vector path) */
  if (p.ndim == 1 && p.st[0][0] == (int64_t)w && p.st[1][0] == (int64_t)w) {
    const uint64_t m = w | (uint64_t)(uintptr_t)p.data[0] | (uint64_t)(uintptr_t)p.data[1];
    const uint64_t unit = m % 8 == 0 ? 8 : m % 4 == 0 ? 4 : m % 2 == 0 ? 2 : 1;
    p.size = p.size * w / unit;
    p.div[0] = make_div(p.size);
    p.st[0][0] = p.st[1][0] = (int64_t)unit;
    return run_move_sized(unit, p, L);
  }
  return run_move_sized(w, p, L);
}

/* ======================================================================================================
 * The executor.
 * ==================================================================================================== */

/* Inputs given by value (a host scalar): their bytes go with the launch, never through a pointer. */
static void take_values(const dlx__ew_op *op, Plan *p) {
  for (int k = 1; k < p->nop; ++k) {
    if (!op->byval[k - 1]) continue;
    p->byval[k] = true;
    memcpy(p->val[k], op->value[k - 1].bytes, sizeof p->val[k]);
    p->data[k] = nullptr;
    for (int d = 0; d < p->ndim; ++d) p->st[k][d] = 0;
  }
}

static dlx_status execute(const dlx__ew_op *op, const dlx_iter *plan, const Launch &L) {
  if (plan->size <= 0) return DLX_OK;
  Plan p;
  const dlx_status st = make_plan(plan, &p);
  if (st != DLX_OK) return st;
  if (p.nop != 1 + op->nin) return no_kernel(op);
  take_values(op, &p);
  if (dlx__ew_is_move(op)) return run_move(op, p, L);
  switch (op->kind) {
    case DLX_EW_CAST: {
      const dlx__kd s = dlx__kd_of(op->dtype[1]), d = dlx__kd_of(op->dtype[0]);
      if (dlx__kd_is_native(s) && dlx__kd_is_native(d)) return run_cast_native(op, p, L);
      return run_cast_narrow(op, p, L);
    }
    case DLX_EW_UNARY: return run_unary(op, p, L);
    case DLX_EW_BINARY: return run_binary(op, p, L);
    case DLX_EW_FMA: return run_fma(op, p, L);
    case DLX_EW_TERNARY: return run_ternary(op, p, L);
    default: return no_kernel(op);
  }
}

/* ======================================================================================================
 * Packed float6/float4 <-> one code per byte.
 *
 * Element i of the view (row-major) sits at bit e * bits from data, e = sum idx[d] * strides[d] (elements,
 * any sign). Unpacking writes one byte per element: no sharing. Packing writes bit fields, and a byte can
 * hold parts of several elements, so no two threads may rewrite one byte at the same time:
 *  - a contiguous view (one dimension, stride 1): thread g packs elements [g*G, g*G + G), G = 8 /
 *    gcd(bits, 8) (2 float4, 4 float6 codes: exactly 1 or 3 whole bytes), and writes those bytes whole;
 *    the last, partial group keeps the bits past the view (read-modify-write by its one owner);
 *  - any other view: one launch per residue class c of e mod G. Within a class, two elements have
 *    different q = floor(e / G), and group q of G elements covers its own whole bytes, so no byte is
 *    written by two threads of a launch; launches on one stream run in order. Classes no element can
 *    reach (every stride a multiple of gcd(G, strides)) are skipped: float4 with even strides is one pass.
 * ==================================================================================================== */

struct Packed {
  Plan p;             /* one operand: the packed view, strides in elements, merged */
  unsigned char *buf; /* the padded codes, row-major */
  uint32_t bits;
  int64_t G, cls;
};

DLX_HD inline int64_t floor_mod(int64_t e, int64_t m) {
  const int64_t r = e % m;
  return r < 0 ? r + m : r;
}

DLX_HD inline void unpack_thread(const Packed &a, uint64_t t, uint64_t nt) {
  for (uint64_t i = t; i < a.p.size; i += nt) {
    int64_t e;
    offsets<1>(a.p, i, &e);
    a.buf[i] = (unsigned char)dlx__cvt_bits_get(a.p.data[0], e * (int64_t)a.bits, a.bits);
  }
}

DLX_HD inline void pack_class_thread(const Packed &a, uint64_t t, uint64_t nt) {
  for (uint64_t i = t; i < a.p.size; i += nt) {
    int64_t e;
    offsets<1>(a.p, i, &e);
    if (floor_mod(e, a.G) == a.cls) dlx__cvt_bits_set(a.p.data[0], e * (int64_t)a.bits, a.bits, a.buf[i]);
  }
}

DLX_HD inline void pack_contiguous_thread(const Packed &a, uint64_t t, uint64_t nt) {
  const uint64_t n = a.p.size, G = (uint64_t)a.G, groups = (n + G - 1) / G;
  const uint64_t mask = (UINT64_C(1) << a.bits) - 1u;
  const uint64_t bytes = G * a.bits / 8;
  unsigned char *data = reinterpret_cast<unsigned char *>(a.p.data[0]);
  for (uint64_t g = t; g < groups; g += nt) {
    const uint64_t i0 = g * G;
    if (n - i0 >= G) {
      uint64_t word = 0;
      for (uint64_t j = 0; j < G; ++j) word |= (a.buf[i0 + j] & mask) << (j * a.bits);
      unsigned char *dst = data + i0 * a.bits / 8;
      for (uint64_t b = 0; b < bytes; ++b) dst[b] = (unsigned char)(word >> (8 * b));
    } else {
      for (uint64_t j = 0; j < n - i0; ++j) dlx__cvt_bits_set(data, (int64_t)((i0 + j) * a.bits), a.bits, a.buf[i0 + j]);
    }
  }
}

__global__ void unpack_kernel(const Packed a) {
  unpack_thread(a, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}
__global__ void pack_class_kernel(const Packed a) {
  pack_class_thread(a, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}
__global__ void pack_contiguous_kernel(const Packed a) {
  pack_contiguous_thread(a, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* The packed view as kernel arguments: extent-1 dimensions dropped, a dimension merged into the one
 * outside it when that one's stride is its stride times its extent (the row-major order of the elements
 * is unchanged, so the padded buffer's index still matches). */
static dlx_status make_packed(const dlx_view *v, const void *padded, Packed *a) {
  memset(a, 0, sizeof *a);
  a->bits = (uint32_t)v->dtype.bits * v->dtype.lanes;
  if (v->dtype.lanes != 1 || a->bits == 0 || a->bits >= 8)
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx cuda backend: packed dtype of %u bits x %u lanes: only scalar "
                         "sub-byte elements are packed", v->dtype.bits, v->dtype.lanes);
  int64_t shape[DLX_MAX_NDIM], stride[DLX_MAX_NDIM];
  int nd = 0;
  for (int32_t d = 0; d < v->ndim; ++d) {
    if (v->shape[d] == 1) continue;
    __int128 outer = nd > 0 ? (__int128)stride[nd - 1] : 0;
    if (nd > 0 && outer == (__int128)v->strides[d] * v->shape[d]) {
      shape[nd - 1] *= v->shape[d];
      stride[nd - 1] = v->strides[d];
      continue;
    }
    shape[nd] = v->shape[d];
    stride[nd] = v->strides[d];
    ++nd;
  }
  if (nd > DLX_CUDA_MAX_DIMS) return too_many_dims("the packed view", nd);
  a->p.nop = 1;
  a->p.size = (uint64_t)dlx_view_size(v);
  a->p.data[0] = static_cast<char *>(v->data);
  a->buf = static_cast<unsigned char *>(const_cast<void *>(padded));
  a->p.ndim = nd > 0 ? nd : 1;
  a->p.div[0] = make_div(1);
  for (int d = 0; d < nd; ++d) { /* innermost first */
    a->p.div[nd - 1 - d] = make_div((uint64_t)shape[d]);
    a->p.st[0][nd - 1 - d] = stride[d];
  }
  a->G = (int64_t)(8 / gcd_u64(a->bits, 8));
  return DLX_OK;
}

static dlx_status unpack(const dlx_view *packed, void *padded, const Launch &L) {
  Packed a;
  const dlx_status st = make_packed(packed, padded, &a);
  if (st != DLX_OK || a.p.size == 0) return st;
  const Grid g = grid_for(a.p.size);
  if (L.emulate) {
    count_emulated(false);
    for (uint64_t t = 0; t < g.total; ++t) unpack_thread(a, t, g.total);
    return DLX_OK;
  }
  unpack_kernel<<<g.blocks, g.threads, 0, L.stream>>>(a);
  return launch_status("unpack");
}

static dlx_status pack(const dlx_view *packed, const void *padded, const Launch &L) {
  Packed a;
  const dlx_status st = make_packed(packed, padded, &a);
  if (st != DLX_OK || a.p.size == 0) return st;
  if (a.p.ndim == 1 && a.p.st[0][0] == 1) {
    const Grid g = grid_for((a.p.size + (uint64_t)a.G - 1) / (uint64_t)a.G);
    if (L.emulate) {
      count_emulated(false);
      for (uint64_t t = 0; t < g.total; ++t) pack_contiguous_thread(a, t, g.total);
      return DLX_OK;
    }
    pack_contiguous_kernel<<<g.blocks, g.threads, 0, L.stream>>>(a);
    return launch_status("pack");
  }
  /* the residue classes e mod G that elements reach: multiples of gcd(G, every stride) */
  uint64_t step = (uint64_t)a.G;
  for (int d = 0; d < a.p.ndim; ++d) {
    const int64_t s = a.p.st[0][d];
    step = gcd_u64(step, (s < 0 ? 0 - (uint64_t)s : (uint64_t)s) % (uint64_t)a.G);
  }
  const Grid g = grid_for(a.p.size);
  for (a.cls = 0; a.cls < a.G; a.cls += (int64_t)step) {
    if (L.emulate) {
      count_emulated(false);
      for (uint64_t t = 0; t < g.total; ++t) pack_class_thread(a, t, g.total);
      continue;
    }
    pack_class_kernel<<<g.blocks, g.threads, 0, L.stream>>>(a);
    const dlx_status ls = launch_status("pack");
    if (ls != DLX_OK) return ls;
  }
  return DLX_OK;
}

/* ======================================================================================================
 * Gather and scatter of integer-array indexing (backends/backend.h, dlx__gather_op), over the plan of
 * dlx__gather_plan: operand 0 dense, 1 the byte offsets (device memory: cuda.c copies them over; host
 * memory in the emulation), 2 the strided operand. One element per thread, as the moves: item sizes 1, 2,
 * 4, 8 and 16 as unsigned words, any other size byte by byte. A scatter's positions address distinct
 * blocks (the compute layer skips repeats), so no two threads write one element.
 * ==================================================================================================== */

template <class T>
DLX_HD inline void gather_elem(const Plan &p, bool scatter, bool aligned, uint64_t i) {
  int64_t off[3];
  offsets<3>(p, i, off);
  const int64_t o = ld<int64_t>(p.data[1] + off[1], true);
  if (!scatter) {
    st<T>(p.data[0] + off[0], ld<T>(p.data[2] + off[2] + o, aligned), aligned);
  } else if (o != DLX__GATHER_SKIP) {
    st<T>(p.data[2] + off[2] + o, ld<T>(p.data[0] + off[0], aligned), aligned);
  }
}

DLX_HD inline void gather_bytes_elem(const Plan &p, bool scatter, uint64_t w, uint64_t i) {
  int64_t off[3];
  offsets<3>(p, i, off);
  const int64_t o = ld<int64_t>(p.data[1] + off[1], true);
  if (scatter && o == DLX__GATHER_SKIP) return;
  char *dense = p.data[0] + off[0], *block = p.data[2] + off[2] + o;
  for (uint64_t b = 0; b < w; ++b) {
    if (scatter) block[b] = dense[b];
    else dense[b] = block[b];
  }
}

/* What thread t of nt does: elements t, t + nt, ... (w: 0 for a typed T, else the byte count). */
template <class T>
DLX_HD inline void gather_thread(const Plan &p, bool scatter, bool aligned, uint64_t w, uint64_t t, uint64_t nt) {
  for (uint64_t i = t; i < p.size; i += nt) {
    if (w == 0) gather_elem<T>(p, scatter, aligned, i);
    else gather_bytes_elem(p, scatter, w, i);
  }
}

template <class T>
__global__ void gather_kernel(const Plan p, bool scatter, bool aligned, uint64_t w) {
  gather_thread<T>(p, scatter, aligned, w, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                   (uint64_t)gridDim.x * blockDim.x);
}

template <class T>
static dlx_status run_gather(const Plan &p, bool scatter, uint64_t w, const Launch &L) {
  /* the offsets are multiples of the item size, so the operands' addresses and strides decide alignment */
  const bool aligned = w == 0 && operand_aligned(p, 0, alignof(T)) && operand_aligned(p, 2, alignof(T));
  const Grid g = grid_for(p.size);
  if (L.emulate) {
    count_emulated(false);
    for (uint64_t t = 0; t < g.total; ++t) gather_thread<T>(p, scatter, aligned, w, t, g.total);
    return DLX_OK;
  }
  gather_kernel<T><<<g.blocks, g.threads, 0, L.stream>>>(p, scatter, aligned, w);
  return launch_status(scatter ? "scatter" : "gather");
}

static dlx_status gather(const dlx__gather_op *op, const void *offsets, const Launch &L) {
  dlx_iter it;
  dlx_status s = dlx__gather_plan(op, offsets, &it);
  if (s != DLX_OK || it.size == 0) return s;
  Plan p;
  if ((s = make_plan(&it, &p)) != DLX_OK) return s;
  const uint64_t w = dlx_dtype_itemsize(op->dense->dtype);
  switch (w) {
    case 1: return run_gather<uint8_t>(p, op->scatter, 0, L);
    case 2: return run_gather<uint16_t>(p, op->scatter, 0, L);
    case 4: return run_gather<uint32_t>(p, op->scatter, 0, L);
    case 8: return run_gather<uint64_t>(p, op->scatter, 0, L);
    case 16: return run_gather<B16>(p, op->scatter, 0, L);
    default: return run_gather<uint8_t>(p, op->scatter, w, L);
  }
}

} // namespace dlxcu

/* ======================================================================================================
 * The C entry points (kernels.h).
 * ==================================================================================================== */

using dlxcu::Launch;

dlx_status dlx__cuda_execute(const dlx__ew_op *op, const dlx_iter *plan, void *stream) {
  return dlxcu::execute(op, plan, Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_unpack(const dlx_view *packed, void *padded, void *stream) {
  return dlxcu::unpack(packed, padded, Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_pack(const dlx_view *packed, const void *padded, void *stream) {
  return dlxcu::pack(packed, padded, Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_gather(const dlx__gather_op *op, const void *offsets, void *stream) {
  return dlxcu::gather(op, offsets, Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_gather_emulated(const dlx__gather_op *op) {
  return dlxcu::gather(op, op->offsets, Launch{true, nullptr});
}

dlx_status dlx__cuda_execute_emulated(const dlx__ew_op *op, const dlx_iter *plan) {
  return dlxcu::execute(op, plan, Launch{true, nullptr});
}

dlx_status dlx__cuda_unpack_emulated(const dlx_view *packed, void *padded) {
  return dlxcu::unpack(packed, padded, Launch{true, nullptr});
}

dlx_status dlx__cuda_pack_emulated(const dlx_view *packed, const void *padded) {
  return dlxcu::pack(packed, padded, Launch{true, nullptr});
}

void dlx__cuda_set_launch_shape(int threads_per_block, int max_blocks) {
  if (threads_per_block > 0) dlxcu::g_threads.store(threads_per_block > 1024 ? 1024u : (unsigned)threads_per_block);
  if (max_blocks > 0) dlxcu::g_blocks.store((uint64_t)max_blocks);
}

dlx_status dlx__cuda_plan_offsets_emulated(const dlx_iter *plan, int64_t index, int64_t *offsets) {
  dlxcu::Plan p;
  const dlx_status st = dlxcu::make_plan(plan, &p);
  if (st != DLX_OK) return st;
  int64_t off[4];
  dlxcu::offsets<4>(p, (uint64_t)index, off);
  for (int k = 0; k < plan->nop; ++k) offsets[k] = off[k];
  return DLX_OK;
}

uint64_t dlx__cuda_udiv_emulated(uint64_t n, uint64_t d) { return dlxcu::div_q(dlxcu::make_div(d), n); }

void dlx__cuda_emulation_counts(uint64_t *launches, uint64_t *vectorised) {
  *launches = dlxcu::g_emulated.load();
  *vectorised = dlxcu::g_emulated_vec.load();
}

/* The CUDA backend's reductions (kernels.h): kernels/reduce.h's fixed tree, so that a GPU gives the CPU's
 * bits, with no atomics on floats.
 *
 * Pass 1, one unit (a block of 4096 elements of one output) per group of 256 threads, in one of two
 * mappings that compute the same tree:
 *  - inner (a unit's elements close together): thread t takes lane t % 16 and the 16 leaves
 *    16 * (t / 16) ... of it (a warp reads 2 x 16 consecutive elements per step), its subtree of 16 leaves
 *    goes to shared memory, then four levels combine the 16 subtrees of each lane and four levels fold
 *    the lanes in halves;
 *  - outer (units side by side in memory: a reduction over an outer axis, the blocks of a transposed
 *    input): a thread block takes 16 units, thread t lane t / 16 of unit t % 16 (its whole tree of up to
 *    256 leaves; a warp reads 16 consecutive elements per step), then four levels fold the lanes.
 * A unit's result is stored (one block per output) or kept in scratch memory. Pass 2, while an output has
 * several partials: groups of 4096 of them reduced by the tree over blocks (each thread 16 partials,
 * then eight levels in shared memory), which are exactly its aligned subtrees: the same bits as one tree.
 *
 * Every step is a __host__ __device__ function of (thread block, thread): the kernels call them between
 * __syncthreads, and the emulation (tests) calls them on the host for every thread of every thread block
 * of the same grid, phase by phase. Elements load, combine and store by kernels/reduce_rules.h, in slots,
 * or as float / double for float sums and products of their own dtype (the common, bandwidth-bound
 * case); a node with one child is that child (no identity padding: a complex product would change). */
#include <atomic>

#include "backends/cuda/kernels_common.cuh"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "kernels/reduce_rules.h"
#pragma GCC diagnostic pop

namespace dlxcu {

constexpr int RT = 256;                 /* threads per thread block of these kernels: the tree's mapping */
constexpr int LANES = DLX__RED_LANES;   /* 16 */
constexpr int GROUPS = RT / LANES;      /* 16 groups of 16 leaves per lane, or 16 units */
constexpr int STACK = DLX__RED_LOG_BLOCK; /* levels of a thread's stack: up to 256 leaves */

static std::atomic<int> g_mapping{0}; /* test hook: 0 choose, 1 inner, 2 outer */

/* The reduction as kernel arguments, dimensions innermost first. */
struct RedPlan {
  const char *in;
  char *out;
  dlx_reduce_op op;
  int acc, skd, dkd;
  bool outer, aligned;
  int64_t isz;
  uint64_t nout, nred, nblocks, units;
  int32_t keep_ndim, red_ndim;
  Div keep_div[DLX_CUDA_MAX_DIMS], red_div[DLX_CUDA_MAX_DIMS], nb_div;
  int64_t keep_in[DLX_CUDA_MAX_DIMS], keep_out[DLX_CUDA_MAX_DIMS], red_in[DLX_CUDA_MAX_DIMS];
  dlx__red_slot *scratch;
};

/* Offsets of index i over dimensions (div, st_a, st_b); st_b may be NULL. */
DLX_HD inline void dim_offsets(const Div *div, const int64_t *st_a, const int64_t *st_b, int nd, uint64_t i,
                               int64_t *a, int64_t *b) {
  *a = 0;
  if (b != nullptr) *b = 0;
  for (int j = 0; j < nd; ++j) {
    const uint64_t q = j == nd - 1 ? 0 : div_q(div[j], i);
    const int64_t idx = (int64_t)(i - q * div[j].d);
    *a += idx * st_a[j];
    if (b != nullptr) *b += idx * st_b[j];
    i = q;
  }
}

/* Unit u's output o, its block, its input base and its element count. */
struct UnitPos {
  uint64_t o, b, len;
  int64_t in_off, out_off;
};

DLX_HD inline UnitPos unit_pos(const RedPlan &p, uint64_t u) {
  UnitPos s;
  s.o = div_q(p.nb_div, u);
  s.b = u - s.o * p.nblocks;
  dim_offsets(p.keep_div, p.keep_in, p.keep_out, p.keep_ndim, s.o, &s.in_off, &s.out_off);
  const uint64_t first = s.b * DLX__RED_BLOCK;
  s.len = p.nred - first < DLX__RED_BLOCK ? p.nred - first : DLX__RED_BLOCK;
  return s;
}

/* Element r of the reduced sequence, from its output's input base. */
DLX_HD inline const char *element(const RedPlan &p, const UnitPos &s, uint64_t r) {
  int64_t off;
  dim_offsets(p.red_div, p.red_in, nullptr, p.red_ndim, r, &off, nullptr);
  return p.in + s.in_off + off;
}

/* ---- accumulators ------------------------------------------------------------------------------------ */

/* Float sums and products of float32 / float64 input: plain values. */
template <class T, bool PROD>
struct Arith {
  typedef T acc_t;
  bool aligned;
  DLX_HD acc_t load(const char *p, uint64_t) const { return ld<T>(p, aligned); }
  DLX_HD void combine(acc_t &a, const acc_t &b) const { a = PROD ? a * b : a + b; }
  DLX_HD void to_slot(const acc_t &a, dlx__red_slot &s) const {
    memset(&s, 0, sizeof s);
    memcpy(s.v.b, &a, sizeof a);
  }
};

/* Everything else: slots and the shared rules. */
struct Generic {
  typedef dlx__red_slot acc_t;
  dlx_reduce_op op;
  int skd, acc;
  DLX_HD acc_t load(const char *p, uint64_t r) const {
    dlx__red_slot s;
    memset(&s, 0, sizeof s);
    dlx__red_load(skd, p, acc, &s);
    s.index = (int64_t)r;
    return s;
  }
  DLX_HD void combine(acc_t &a, const acc_t &b) const { dlx__red_combine(op, acc, &a, &b); }
  DLX_HD void to_slot(const acc_t &a, dlx__red_slot &s) const { s = a; }
};

/* A thread's pairwise tree: complete subtrees, bit k of occ saying s[k] holds one of 2^k leaves. */
template <class F>
struct Stack {
  typename F::acc_t s[STACK];
  unsigned occ;
  DLX_HD void push(const F &f, typename F::acc_t x) {
    int k = 0;
    for (; occ >> k & 1u; ++k) {
      f.combine(s[k], x);
      x = s[k];
      occ &= ~(1u << k);
    }
    s[k] = x;
    occ |= 1u << k;
  }
  /* the subtrees combined, earlier ones on the left; false when empty */
  DLX_HD bool flush(const F &f, typename F::acc_t *out) const {
    if (occ == 0) return false;
    int k = 0;
    while (!(occ >> k & 1u)) ++k;
    *out = s[k];
    for (++k; k < STACK; ++k) {
      if (!(occ >> k & 1u)) continue;
      typename F::acc_t left = s[k];
      f.combine(left, *out);
      *out = left;
    }
    return true;
  }
};

template <class F>
struct Shared {
  typename F::acc_t v[RT];
  bool present[RT];
};

/* ---- pass 1 ---------------------------------------------------------------------------------------- */

/* Thread t's leaves: inner, lane t % 16, leaves [16 g, 16 g + 16) (g = t / 16) of unit blk; outer, lane
 * t / 16 of unit 16 blk + t % 16. Its subtree goes to shared slot t. */
template <class F>
DLX_HD void unit_leaves(const RedPlan &p, const F &f, uint64_t blk, unsigned t, Shared<F> &sh) {
  const int lane = p.outer ? (int)(t / GROUPS) : (int)(t % LANES);
  const uint64_t u = p.outer ? blk * GROUPS + t % GROUPS : blk;
  Stack<F> st;
  st.occ = 0;
  if (u < p.units) {
    const UnitPos s = unit_pos(p, u);
    const uint64_t nq = s.len > (uint64_t)lane ? (s.len - lane + LANES - 1) / LANES : 0;
    const uint64_t q0 = p.outer ? 0 : (uint64_t)(t / LANES) * GROUPS;
    const uint64_t q1 = p.outer ? nq : (q0 + GROUPS < nq ? q0 + GROUPS : nq);
    for (uint64_t q = q0; q < q1; ++q) {
      const uint64_t r = s.b * DLX__RED_BLOCK + q * LANES + lane;
      st.push(f, f.load(element(p, s, r), r));
    }
  }
  sh.present[t] = st.flush(f, &sh.v[t]);
}

/* Combine slot t with slot t + dist when t's step says so: steps 0-3 (inner only) pair the groups of a
 * lane, steps 4-7 fold the lanes (dist 128, 64, 32, 16 outer; 8, 4, 2, 1 inner). */
template <class F>
DLX_HD void unit_step(const RedPlan &p, const F &f, int step, unsigned t, Shared<F> &sh) {
  unsigned dist;
  bool active;
  if (step < 4) { /* groups g and g + 2^step of lane t % 16, g a multiple of 2^(step + 1) */
    const unsigned g = t / LANES;
    dist = (1u << step) * LANES;
    active = g % (2u << step) == 0;
  } else {
    const unsigned h = 8u >> (step - 4); /* lanes k and k + h, k < h */
    if (p.outer) {
      dist = h * GROUPS;
      active = t / GROUPS < h;
    } else {
      dist = h;
      active = t < h;
    }
  }
  if (active && t + dist < RT && sh.present[t + dist]) f.combine(sh.v[t], sh.v[t + dist]);
}

/* Store (one block per output) or keep the unit's result. */
template <class F>
DLX_HD void unit_result(const RedPlan &p, const F &f, uint64_t u, const typename F::acc_t &v) {
  dlx__red_slot s;
  f.to_slot(v, s);
  const UnitPos pos = unit_pos(p, u);
  if (p.nblocks == 1) dlx__red_store(p.op, p.acc, p.dkd, (int64_t)p.nred, &s, (unsigned char *)p.out + pos.out_off);
  else p.scratch[u] = s;
}

template <class F>
DLX_HD void unit_write(const RedPlan &p, const F &f, uint64_t blk, unsigned t, const Shared<F> &sh) {
  if (p.outer) {
    const uint64_t u = blk * GROUPS + t;
    if (t < (unsigned)GROUPS && u < p.units) unit_result(p, f, u, sh.v[t]);
  } else if (t == 0) {
    unit_result(p, f, blk, sh.v[0]);
  }
}

template <class F>
__global__ void unit_kernel(const RedPlan p, const F f, uint64_t nblk) {
  __shared__ Shared<F> sh;
  for (uint64_t blk = blockIdx.x; blk < nblk; blk += gridDim.x) {
    unit_leaves(p, f, blk, threadIdx.x, sh);
    __syncthreads();
    for (int step = p.outer ? 4 : 0; step < 8; ++step) {
      unit_step(p, f, step, threadIdx.x, sh);
      __syncthreads();
    }
    unit_write(p, f, blk, threadIdx.x, sh);
    __syncthreads();
  }
}

template <class F>
dlx_status run_units(const RedPlan &p, const F &f, const Launch &L) {
  const uint64_t nblk = p.outer ? (p.units + GROUPS - 1) / GROUPS : p.units;
  const uint64_t grid = nblk < max_blocks() ? nblk : max_blocks();
  if (!L.emulate) {
    unit_kernel<F><<<(unsigned)grid, RT, 0, L.stream>>>(p, f, nblk);
    return launch_status("reduction");
  }
  count_emulated(false);
  static Shared<F> sh; /* one emulated thread block at a time (tests) */
  for (uint64_t bx = 0; bx < grid; ++bx)
    for (uint64_t blk = bx; blk < nblk; blk += grid) {
      for (unsigned t = 0; t < RT; ++t) unit_leaves(p, f, blk, t, sh);
      for (int step = p.outer ? 4 : 0; step < 8; ++step)
        for (unsigned t = 0; t < RT; ++t) unit_step(p, f, step, t, sh);
      for (unsigned t = 0; t < RT; ++t) unit_write(p, f, blk, t, sh);
    }
  return DLX_OK;
}

/* ---- pass 2: the tree over blocks --------------------------------------------------------------------- */

/* One level: n partials per output at in (output o's at in + o * n) reduced in groups of 4096 into
 * m = ceil(n / 4096) per output at next, or stored when m is 1. */
struct Level {
  const dlx__red_slot *in;
  dlx__red_slot *next;
  uint64_t n, m;
  Div m_div;
};

DLX_HD inline void level_leaves(const RedPlan &p, const Generic &f, const Level &l, uint64_t blk, unsigned t,
                                Shared<Generic> &sh) {
  const uint64_t o = div_q(l.m_div, blk), g = blk - o * l.m;
  Stack<Generic> st;
  st.occ = 0;
  const uint64_t first = g * DLX__RED_BLOCK + (uint64_t)t * LANES;
  for (uint64_t i = first; i < first + LANES && i < l.n; ++i) st.push(f, l.in[o * l.n + i]);
  (void)p;
  sh.present[t] = st.flush(f, &sh.v[t]);
}

/* step s (0-7): slots t and t + 2^s, t a multiple of 2^(s + 1) */
DLX_HD inline void level_step(const Generic &f, int step, unsigned t, Shared<Generic> &sh) {
  const unsigned dist = 1u << step;
  if (t % (2 * dist) == 0 && t + dist < RT && sh.present[t + dist]) f.combine(sh.v[t], sh.v[t + dist]);
}

DLX_HD inline void level_write(const RedPlan &p, const Level &l, uint64_t blk, unsigned t, Shared<Generic> &sh) {
  if (t != 0) return;
  if (l.m > 1) {
    l.next[blk] = sh.v[0];
    return;
  }
  int64_t in_off, out_off;
  dim_offsets(p.keep_div, p.keep_in, p.keep_out, p.keep_ndim, blk, &in_off, &out_off);
  dlx__red_store(p.op, p.acc, p.dkd, (int64_t)p.nred, &sh.v[0], (unsigned char *)p.out + out_off);
}

__global__ void level_kernel(const RedPlan p, const Generic f, const Level l, uint64_t nblk) {
  __shared__ Shared<Generic> sh;
  for (uint64_t blk = blockIdx.x; blk < nblk; blk += gridDim.x) {
    level_leaves(p, f, l, blk, threadIdx.x, sh);
    __syncthreads();
    for (int step = 0; step < 8; ++step) {
      level_step(f, step, threadIdx.x, sh);
      __syncthreads();
    }
    level_write(p, l, blk, threadIdx.x, sh);
    __syncthreads();
  }
}

static dlx_status run_levels(const RedPlan &p, const Generic &f, const Launch &L) {
  Level l;
  l.in = p.scratch;
  for (l.n = p.nblocks; l.n > 1; l.n = l.m) {
    l.m = (l.n + DLX__RED_BLOCK - 1) / DLX__RED_BLOCK;
    l.m_div = make_div(l.m);
    l.next = const_cast<dlx__red_slot *>(l.in) + p.nout * l.n;
    const uint64_t nblk = p.nout * l.m, grid = nblk < max_blocks() ? nblk : max_blocks();
    if (L.emulate) {
      count_emulated(false);
      static Shared<Generic> sh;
      for (uint64_t bx = 0; bx < grid; ++bx)
        for (uint64_t blk = bx; blk < nblk; blk += grid) {
          for (unsigned t = 0; t < RT; ++t) level_leaves(p, f, l, blk, t, sh);
          for (int step = 0; step < 8; ++step)
            for (unsigned t = 0; t < RT; ++t) level_step(f, step, t, sh);
          level_write(p, l, blk, 0, sh);
        }
    } else {
      level_kernel<<<(unsigned)grid, RT, 0, L.stream>>>(p, f, l, nblk);
      const dlx_status st = launch_status("reduction (tree over blocks)");
      if (st != DLX_OK) return st;
    }
    l.in = l.next;
  }
  return DLX_OK;
}

/* ---- the plan, and the entry ------------------------------------------------------------------------ */

static dlx_status make_red_plan(const dlx__red_op *op, RedPlan *p) {
  if (op->keep_ndim > DLX_CUDA_MAX_DIMS || op->red_ndim > DLX_CUDA_MAX_DIMS)
    return dlx_set_error(DLX_ERR_UNSUPPORTED,
                         "dlx cuda backend: a reduction with %d kept and %d reduced dimensions after merging "
                         "contiguous ones; the CUDA kernels take at most %d of each (DLX_CUDA_MAX_DIMS)",
                         (int)op->keep_ndim, (int)op->red_ndim, DLX_CUDA_MAX_DIMS);
  memset(p, 0, sizeof *p);
  p->in = op->in_data;
  p->out = op->out_data;
  p->op = op->op;
  p->acc = op->acc;
  p->skd = dlx__kd_of(op->in);
  p->dkd = dlx__kd_of(op->out);
  p->isz = (int64_t)dlx_dtype_itemsize(op->in);
  p->nout = (uint64_t)op->nout;
  p->nred = (uint64_t)op->nred;
  p->nblocks = (uint64_t)op->nblocks;
  p->units = p->nout * p->nblocks;
  p->nb_div = make_div(p->nblocks);
  p->scratch = op->scratch;
  p->keep_ndim = op->keep_ndim;
  p->red_ndim = op->red_ndim;
  bool aligned = ((uintptr_t)op->in_data % (uintptr_t)p->isz) == 0;
  for (int d = 0; d < op->keep_ndim; ++d) { /* innermost first */
    const int j = op->keep_ndim - 1 - d;
    p->keep_div[j] = make_div((uint64_t)op->keep_shape[d]);
    p->keep_in[j] = op->keep_in[d];
    p->keep_out[j] = op->keep_out[d];
    aligned = aligned && op->keep_in[d] % p->isz == 0;
  }
  for (int d = 0; d < op->red_ndim; ++d) {
    const int j = op->red_ndim - 1 - d;
    p->red_div[j] = make_div((uint64_t)op->red_shape[d]);
    p->red_in[j] = op->red_in[d];
    aligned = aligned && op->red_in[d] % p->isz == 0;
  }
  p->aligned = aligned;
  /* outer when unit 1's first element sits one element after unit 0's and a unit's own elements do not */
  const int mapping = g_mapping.load(std::memory_order_relaxed);
  if (mapping != 0 || p->units < 2) {
    p->outer = mapping == 2;
  } else {
    const UnitPos u0 = unit_pos(*p, 0), u1 = unit_pos(*p, 1);
    const int64_t next_unit = (element(*p, u1, u1.b * DLX__RED_BLOCK) - element(*p, u0, 0));
    const int64_t next_elem = p->nred > 1 ? element(*p, u0, 1) - element(*p, u0, 0) : 0;
    p->outer = next_unit == p->isz && next_elem != p->isz;
  }
  return DLX_OK;
}

static dlx_status reduce(const dlx__red_op *op, const Launch &L) {
  RedPlan p;
  const dlx_status st = make_red_plan(op, &p);
  if (st != DLX_OK) return st;
  dlx_status s1;
  const bool arith = dlx__red_is_arith(op->op), prod = op->op == DLX_REDUCE_PROD;
  if (arith && p.skd == DLX_KD_F32 && p.acc == DLX_KD_F32)
    s1 = prod ? run_units(p, Arith<float, true>{p.aligned}, L) : run_units(p, Arith<float, false>{p.aligned}, L);
  else if (arith && p.skd == DLX_KD_F64 && p.acc == DLX_KD_F64)
    s1 = prod ? run_units(p, Arith<double, true>{p.aligned}, L) : run_units(p, Arith<double, false>{p.aligned}, L);
  else
    s1 = run_units(p, Generic{op->op, p.skd, p.acc}, L);
  if (s1 != DLX_OK || p.nblocks == 1) return s1;
  return run_levels(p, Generic{op->op, p.skd, p.acc}, L);
}

} // namespace dlxcu

dlx_status dlx__cuda_reduce(const dlx__red_op *op, void *stream) {
  return dlxcu::reduce(op, dlxcu::Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_reduce_emulated(const dlx__red_op *op) { return dlxcu::reduce(op, dlxcu::Launch{true, nullptr}); }

void dlx__cuda_set_reduce_mapping(int mapping) { dlxcu::g_mapping.store(mapping >= 0 && mapping <= 2 ? mapping : 0); }

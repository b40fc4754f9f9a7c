/* The boolean-mask gather (backends/backend.h, dlx__mask_op) on the GPU, and its host emulation.
 *
 * The host makes the mask one compact run of 0/1 bytes (it is host memory; the pass counts its true
 * elements too, which out's extent must equal), copies it to the device, and then a prefix sum decides
 * where every true element goes, with no coordinates:
 *  1. tile_count: a thread per tile of TILE mask bytes counts its true ones (counts[t]);
 *  2. group_sum: a thread per group of GROUP tiles adds their counts (sums[g]);
 *  3. group_scan: one thread turns sums[] into exclusive prefix sums (there are n / (TILE * GROUP) of
 *     them: 256 for 16M elements);
 *  4. tile_scan: a thread per group turns its tiles' counts into each tile's first output position;
 *  5. compact: a thread per tile copies the blocks of its true elements, in order, from that position.
 * Every step is a per-thread body (DLX_HD) with a __global__ shell, so that the emulation runs the same
 * bodies on the host for every thread of the grid a launch would use (the file's convention: no shared
 * memory or warp votes, which a thread-by-thread emulation cannot run). The result is the same as the
 * CPU's bit for bit: every element lands where its row-major rank among the true ones says. */
#include "backends/cuda/kernels_common.cuh"

namespace dlxcu {

static const uint64_t TILE = 256, GROUP = 256;

DLX_HD inline void tile_count_thread(const unsigned char *m, uint64_t n, uint64_t *counts, uint64_t t, uint64_t nt) {
  const uint64_t tiles = (n + TILE - 1) / TILE;
  for (uint64_t i = t; i < tiles; i += nt) {
    const uint64_t b = i * TILE, e = b + TILE < n ? b + TILE : n;
    uint64_t c = 0;
    for (uint64_t j = b; j < e; ++j) c += m[j];
    counts[i] = c;
  }
}

DLX_HD inline void group_sum_thread(const uint64_t *counts, uint64_t tiles, uint64_t *sums, uint64_t t, uint64_t nt) {
  const uint64_t groups = (tiles + GROUP - 1) / GROUP;
  for (uint64_t g = t; g < groups; g += nt) {
    const uint64_t b = g * GROUP, e = b + GROUP < tiles ? b + GROUP : tiles;
    uint64_t s = 0;
    for (uint64_t j = b; j < e; ++j) s += counts[j];
    sums[g] = s;
  }
}

DLX_HD inline void group_scan_thread(uint64_t *sums, uint64_t groups, uint64_t t) {
  if (t != 0) return;
  uint64_t run = 0;
  for (uint64_t g = 0; g < groups; ++g) {
    const uint64_t s = sums[g];
    sums[g] = run;
    run += s;
  }
}

DLX_HD inline void tile_scan_thread(uint64_t *counts, uint64_t tiles, const uint64_t *sums, uint64_t t, uint64_t nt) {
  const uint64_t groups = (tiles + GROUP - 1) / GROUP;
  for (uint64_t g = t; g < groups; g += nt) {
    const uint64_t b = g * GROUP, e = b + GROUP < tiles ? b + GROUP : tiles;
    uint64_t run = sums[g];
    for (uint64_t j = b; j < e; ++j) {
      const uint64_t c = counts[j];
      counts[j] = run;
      run += c;
    }
  }
}

/* The compaction's arguments: the mask dimensions as a one-operand plan over src (M), the block as a
 * two-operand plan (R: 0 out, 1 src), out's step per position. */
struct MaskArgs {
  const unsigned char *m;
  uint64_t n;
  const uint64_t *first;
  Plan M, R;
  int64_t ostep;
  bool aligned;
  uint64_t w; /* 0: typed T; else the item's bytes */
};

template <class T>
DLX_HD inline void compact_thread(const MaskArgs &a, uint64_t t, uint64_t nt) {
  const uint64_t tiles = (a.n + TILE - 1) / TILE;
  for (uint64_t i = t; i < tiles; i += nt) {
    const uint64_t b = i * TILE, e = b + TILE < a.n ? b + TILE : a.n;
    uint64_t pos = a.first[i];
    for (uint64_t j = b; j < e; ++j) {
      if (a.m[j] == 0) continue;
      int64_t so[1];
      offsets<1>(a.M, j, so);
      /* R's operands start at the blocks of position 0 (the iterator may have moved them to flip a
       * negative stride): position pos and mask element j shift them */
      char *out = a.R.data[0] + (int64_t)pos * a.ostep;
      const char *src = a.R.data[1] + so[0];
      for (uint64_t r = 0; r < a.R.size; ++r) {
        int64_t ro[2];
        offsets<2>(a.R, r, ro);
        if (a.w == 0) {
          st<T>(out + ro[0], ld<T>(src + ro[1], a.aligned), a.aligned);
        } else {
          for (uint64_t k = 0; k < a.w; ++k) out[ro[0] + (int64_t)k] = src[ro[1] + (int64_t)k];
        }
      }
      ++pos;
    }
  }
}

__global__ void tile_count_kernel(const unsigned char *m, uint64_t n, uint64_t *counts) {
  tile_count_thread(m, n, counts, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}
__global__ void group_sum_kernel(const uint64_t *counts, uint64_t tiles, uint64_t *sums) {
  group_sum_thread(counts, tiles, sums, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                   (uint64_t)gridDim.x * blockDim.x);
}
__global__ void group_scan_kernel(uint64_t *sums, uint64_t groups) {
  group_scan_thread(sums, groups, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x);
}
__global__ void tile_scan_kernel(uint64_t *counts, uint64_t tiles, const uint64_t *sums) {
  tile_scan_thread(counts, tiles, sums, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                   (uint64_t)gridDim.x * blockDim.x);
}
template <class T>
__global__ void compact_kernel(const MaskArgs a) {
  compact_thread<T>(a, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, (uint64_t)gridDim.x * blockDim.x);
}

/* Steps 1 to 4 over scratch (tiles + groups words): each tile's first output position in scratch[0..). */
static dlx_status prefix(const unsigned char *m, uint64_t n, uint64_t *scratch, const Launch &L) {
  const uint64_t tiles = (n + TILE - 1) / TILE, groups = (tiles + GROUP - 1) / GROUP;
  uint64_t *counts = scratch, *sums = scratch + tiles;
  const Grid gt = grid_for(tiles), gg = grid_for(groups);
  if (L.emulate) {
    for (int k = 0; k < 4; ++k) count_emulated(false);
    for (uint64_t t = 0; t < gt.total; ++t) tile_count_thread(m, n, counts, t, gt.total);
    for (uint64_t t = 0; t < gg.total; ++t) group_sum_thread(counts, tiles, sums, t, gg.total);
    group_scan_thread(sums, groups, 0);
    for (uint64_t t = 0; t < gg.total; ++t) tile_scan_thread(counts, tiles, sums, t, gg.total);
    return DLX_OK;
  }
  tile_count_kernel<<<gt.blocks, gt.threads, 0, L.stream>>>(m, n, counts);
  group_sum_kernel<<<gg.blocks, gg.threads, 0, L.stream>>>(counts, tiles, sums);
  group_scan_kernel<<<1, 1, 0, L.stream>>>(sums, groups);
  tile_scan_kernel<<<gg.blocks, gg.threads, 0, L.stream>>>(counts, tiles, sums);
  return launch_status("mask prefix sum");
}

template <class T>
static dlx_status run_compact(const MaskArgs &a, const Launch &L) {
  const Grid g = grid_for((a.n + TILE - 1) / TILE);
  if (L.emulate) {
    count_emulated(false);
    for (uint64_t t = 0; t < g.total; ++t) compact_thread<T>(a, t, g.total);
    return DLX_OK;
  }
  compact_kernel<T><<<g.blocks, g.threads, 0, L.stream>>>(a);
  return launch_status("mask compaction");
}

/* The plans: M walks the mask dimensions of src (innermost first), R the block (out's and src's rest). */
static dlx_status mask_args(const dlx__mask_op *op, const unsigned char *m, const uint64_t *first, MaskArgs *a) {
  if (op->nm > DLX_CUDA_MAX_DIMS)
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx cuda backend: a mask of %d dimensions after merging (the kernels "
                         "take at most %d)", (int)op->nm, DLX_CUDA_MAX_DIMS);
  memset(a, 0, sizeof *a);
  a->m = m;
  a->first = first;
  a->n = 1;
  for (int32_t d = 0; d < op->nm; ++d) a->n *= (uint64_t)op->shape[d];
  a->M.nop = 1;
  a->M.ndim = op->nm;
  a->M.size = a->n;
  a->M.data[0] = (char *)op->src->data;
  for (int32_t d = 0; d < op->nm; ++d) {
    const int j = op->nm - 1 - d;
    a->M.div[j] = make_div((uint64_t)op->shape[d]);
    a->M.st[0][j] = op->src_strides[d];
  }
  dlx_view ro = *op->out, rs = *op->src; /* the block of position 0 on both sides */
  ro.ndim = op->out->ndim - 1;
  for (int32_t d = 0; d < ro.ndim; ++d) {
    ro.shape[d] = op->out->shape[d + 1];
    ro.strides[d] = op->out->strides[d + 1];
  }
  const dlx_view *views[2] = {&ro, &rs};
  dlx_iter it;
  dlx_status s = dlx_iter_init(&it, 2, views, 0);
  if (s == DLX_OK) s = make_plan(&it, &a->R);
  if (s != DLX_OK) return s;
  const uint64_t w = dlx_dtype_itemsize(op->out->dtype);
  a->ostep = op->out->strides[0] * (int64_t)w;
  a->w = (w == 1 || w == 2 || w == 4 || w == 8 || w == 16) ? 0 : w;
  const size_t al = w >= 8 ? 8 : w;
  a->aligned = a->w == 0 && operand_aligned(a->R, 0, al) && operand_aligned(a->R, 1, al) &&
               operand_aligned(a->M, 0, al) && ((uint64_t)a->ostep & (al - 1)) == 0;
  return DLX_OK;
}

static dlx_status mask_gather(const dlx__mask_op *op, const unsigned char *m, uint64_t *scratch, const Launch &L) {
  MaskArgs a;
  dlx_status s = mask_args(op, m, scratch, &a);
  if (s == DLX_OK) s = prefix(m, a.n, scratch, L);
  if (s != DLX_OK) return s;
  switch (a.w == 0 ? dlx_dtype_itemsize(op->out->dtype) : 0) {
    case 1: return run_compact<uint8_t>(a, L);
    case 2: return run_compact<uint16_t>(a, L);
    case 4: return run_compact<uint32_t>(a, L);
    case 8: return run_compact<uint64_t>(a, L);
    case 16: return run_compact<B16>(a, L);
    default: return run_compact<uint8_t>(a, L);
  }
}

} // namespace dlxcu

extern "C" {

uint64_t dlx__cuda_mask_scratch_words(int64_t n) {
  const uint64_t tiles = ((uint64_t)n + dlxcu::TILE - 1) / dlxcu::TILE;
  return tiles + (tiles + dlxcu::GROUP - 1) / dlxcu::GROUP;
}

int64_t dlx__cuda_mask_bytes(const dlx__mask_op *op, unsigned char *out) {
  const int32_t last = op->nm - 1;
  int64_t idx[DLX_MAX_NDIM] = {0}, count = 0, k = 0;
  for (;;) {
    int64_t off = 0;
    for (int32_t d = 0; d < last; ++d) off += idx[d] * op->mask_strides[d];
    const unsigned char *row = op->mask + off;
    for (int64_t i = 0; i < op->shape[last]; ++i) {
      const unsigned char b = row[i * op->mask_strides[last]] != 0;
      out[k++] = b;
      count += b;
    }
    int32_t d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < op->shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return count;
  }
}

dlx_status dlx__cuda_mask_gather(const dlx__mask_op *op, const unsigned char *mask, uint64_t *scratch, void *stream) {
  return dlxcu::mask_gather(op, mask, scratch, dlxcu::Launch{false, static_cast<cudaStream_t>(stream)});
}

dlx_status dlx__cuda_mask_gather_emulated(const dlx__mask_op *op) {
  int64_t n = 1;
  for (int32_t d = 0; d < op->nm; ++d) n *= op->shape[d];
  unsigned char *m = static_cast<unsigned char *>(malloc(n > 0 ? (size_t)n : 1));
  uint64_t *scratch = static_cast<uint64_t *>(malloc(dlx__cuda_mask_scratch_words(n) * sizeof(uint64_t) + 8));
  dlx_status s = DLX_OK;
  if (m == NULL || scratch == NULL) s = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_mask_gather: no memory");
  else if (dlx__cuda_mask_bytes(op, m) != op->count) s = DLX_ERR_BROADCAST;
  else if (op->count > 0) s = dlxcu::mask_gather(op, m, scratch, dlxcu::Launch{true, nullptr});
  free(m);
  free(scratch);
  return s;
}

} // extern "C"

/* The reference path of reductions (compute/reference.h): kernels/reduce.h's order written as its
 * definition, from the views themselves.
 *
 * It shares the per-element rules with every backend (kernels/reduce_rules.h: loading, combining, the
 * final store) and nothing else: no plan (the views' own strides and the axes mask), no blocks of
 * memory, no threads, no vectors, no identity padding. Each output element's inputs are addressed by
 * their index r in the reduced row-major order, and the tree is the recursion T(lo, hi) = T(lo, lo + h)
 * op T(lo + h, hi), h the largest power of two below hi - lo, over the leaves of each lane, then the
 * halving fold of the lanes, then T over the blocks. The tests compare the backends' bits with these. */
#include "compute/reference.h"
#include "kernels/reduce_rules.h"

typedef struct refred {
  const dlx__red_op *op;
  const dlx_view *in;
  const bool *mask;
  const unsigned char *base; /* the current output's first input element */
  int64_t isz;
} refred;

/* Element r of the current output's reduced sequence, loaded into s. */
static void element(const refred *f, int64_t r, dlx__red_slot *s) {
  int64_t off = 0;
  for (int32_t d = f->in->ndim - 1; d >= 0; --d) {
    if (!f->mask[d]) continue;
    off += (r % f->in->shape[d]) * f->in->strides[d];
    r /= f->in->shape[d];
  }
  memset(s, 0, sizeof *s);
  dlx__red_load(dlx__kd_of(f->op->in), f->base + off * f->isz, f->op->acc, s);
}

/* What T combines: the leaves of one lane of one block (lane >= 0: leaf q is element first + q * 16 +
 * lane), or the blocks' partials (lane < 0: leaf b is block b). */
typedef struct leaves {
  int64_t first;
  int lane;
} leaves;

static void block_partial(const refred *f, int64_t b, dlx__red_slot *out);

static void leaf(const refred *f, const leaves *l, int64_t q, dlx__red_slot *s) {
  if (l->lane < 0) {
    block_partial(f, q, s);
    return;
  }
  const int64_t r = l->first + q * DLX__RED_LANES + l->lane;
  element(f, r, s);
  s->index = r;
}

/* The pairwise tree over leaves [lo, hi) (hi > lo). */
static void tree(const refred *f, const leaves *l, int64_t lo, int64_t hi, dlx__red_slot *out) {
  if (hi - lo == 1) {
    leaf(f, l, lo, out);
    return;
  }
  int64_t h = 1;
  while (h * 2 < hi - lo) h *= 2;
  dlx__red_slot right;
  tree(f, l, lo, lo + h, out);
  tree(f, l, lo + h, hi, &right);
  dlx__red_combine(f->op->op, f->op->acc, out, &right);
}

/* Block b: each lane's tree over its leaves, then the lanes folded in halves (absent lanes left out). */
static void block_partial(const refred *f, int64_t b, dlx__red_slot *out) {
  const int64_t first = b * DLX__RED_BLOCK;
  const int64_t len = f->op->nred - first < DLX__RED_BLOCK ? f->op->nred - first : DLX__RED_BLOCK;
  dlx__red_slot lane[DLX__RED_LANES];
  const int present = len < DLX__RED_LANES ? (int)len : DLX__RED_LANES;
  for (int j = 0; j < present; ++j) {
    const leaves l = {first, j};
    tree(f, &l, 0, (len - j + DLX__RED_LANES - 1) / DLX__RED_LANES, &lane[j]);
  }
  for (int h = DLX__RED_LANES / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k)
      if (k + h < present) dlx__red_combine(f->op->op, f->op->acc, &lane[k], &lane[k + h]);
  *out = lane[0];
}

void dlx__red_ref_run(const dlx__red_op *op, const dlx_view *out, const dlx_view *in, const bool *mask, int keepdims) {
  refred f = {op, in, mask, NULL, (int64_t)dlx_dtype_itemsize(in->dtype)};
  const int64_t osz = (int64_t)dlx_dtype_itemsize(out->dtype);
  int64_t idx[DLX_MAX_NDIM] = {0}; /* the output's index over the input's kept axes */
  for (int64_t o = 0; o < op->nout; ++o) {
    int64_t ioff = 0, ooff = 0;
    for (int32_t d = 0, od = 0; d < in->ndim; ++d) {
      if (!mask[d]) {
        ioff += idx[d] * in->strides[d];
        ooff += idx[d] * out->strides[od];
      }
      if (!mask[d] || keepdims) ++od;
    }
    f.base = (const unsigned char *)in->data + ioff * f.isz;
    const leaves blocks = {0, -1};
    dlx__red_slot s;
    tree(&f, &blocks, 0, op->nblocks, &s);
    dlx__red_store(op->op, op->acc, dlx__kd_of(op->out), op->nred, &s, (unsigned char *)out->data + ooff * osz);
    for (int32_t d = in->ndim - 1; d >= 0; --d) { /* next output, row-major */
      if (mask[d]) continue;
      if (++idx[d] < in->shape[d]) break;
      idx[d] = 0;
    }
  }
}

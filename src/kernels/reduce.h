/* Internal: a reduction (dlx/ops.h's dlx_reduce) as the compute layer (src/compute/reduce.c) hands it to a
 * backend, and which type its elements accumulate in. The per-element rules every backend and the
 * reference path share (how one element is converted, how two partial results combine, how the final one
 * is stored) are in kernels/reduce_rules.h, for kernel translation units.
 *
 * The order of the floating-point operations (the determinism rule, docs/numerics.md "Reductions") is a
 * fixed function of the shape and the axes. For every output element, its n input elements in row-major
 * order over the reduced axes (index r = 0 .. n-1) are reduced as follows:
 *  - blocks: r is cut into blocks of DLX__RED_BLOCK (4096) elements, block b holding r = b*4096 + i;
 *  - inside a block, lane j (0..15) holds the elements i = q*16 + j (q = 0..255, "leaves"), and the
 *    leaves of a lane are combined by the pairwise tree T: T(x[0..m)) = T(x[0..h)) op T(x[h..m)) with h
 *    the largest power of two below m (so that a complete block is the balanced tree, and a short one is
 *    the balanced tree with its missing leaves left out: a node with one child is that child);
 *  - the 16 lane totals l[0..16) are folded in halves: for h = 8, 4, 2, 1: l[k] = l[k] op l[k + h]
 *    (k < h; a lane with no element is left out as above); l[0] is the block's partial result;
 *  - the block partials are combined by the same pairwise tree T, in block order.
 * Nothing else decides the order: a backend may split the work over threads, SIMD lanes or GPU blocks
 * only along this tree (whole subtrees), and the same shape and axes give the same bits whatever the
 * thread count, instruction set, memory layout (the index r is logical, not an address) or device. A
 * sum and a real product may pad missing leaves and lanes with their identity (-0.0 for sums: x + -0.0
 * is x for every x; 1.0 for products), which gives the same bits; a complex product may not (inf * 0).
 *
 * Only sums, products and means of floating-point values depend on that order; integer sums and
 * products wrap in 64 bits (exact modulo 2^64, so any order gives the same result), and min, max,
 * argmin, argmax, any and all select by total orders (commutative and associative), but backends use
 * the same blocks for them too. */
#ifndef DLX_KERNELS_REDUCE_H
#define DLX_KERNELS_REDUCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernels/convert.h" /* DLX_HD */
#include "kernels/ew.h"

#define DLX__RED_LANES 16
#define DLX__RED_BLOCK 4096
#define DLX__RED_LOG_BLOCK 12
/* leaves per lane in a complete block */
#define DLX__RED_LEAVES (DLX__RED_BLOCK / DLX__RED_LANES)

/* A partial result: a value of the accumulation type (or, for min and max, the selected element's own
 * bytes), and for argmin / argmax its index. 32 bytes, the unit of a backend's scratch memory. */
typedef struct dlx__red_slot {
  union {
    unsigned char b[16];
    float f[4];
    double d[2];
    int64_t i[2];
    uint64_t u[2];
  } v;
  int64_t index;
  int64_t pad_;
} dlx__red_slot;

/* A reduction, validated and planned: out[o] = op over the reduced elements of input o.
 * The kept dimensions (out's, coalesced, extent-1 ones dropped) give each output's place: input offset
 * sum idx[d] * keep_in[d] and output offset sum idx[d] * keep_out[d] (bytes, row-major over keep_shape,
 * o = the flat index). The reduced dimensions give its elements: r (row-major over red_shape) at input
 * offset sum idx[d] * red_in[d] (bytes; any sign, zero included: red_shape keeps the logical order). */
typedef struct dlx__red_op {
  dlx_reduce_op op;
  DLDataType in;   /* S: the input's dtype, byte-sized, with a kernel */
  DLDataType out;  /* D: the output's dtype */
  dlx__kd acc;     /* A: what elements are converted to and combined in (dlx__red_acc) */
  DLDevice device; /* where it runs: the backend's home */
  const char *in_data;
  char *out_data;
  int64_t nout;    /* output elements (> 0) */
  int64_t nred;    /* elements per output (> 0) */
  int64_t nblocks; /* ceil(nred / DLX__RED_BLOCK) */
  int32_t keep_ndim, red_ndim;
  int64_t keep_shape[DLX_MAX_NDIM], keep_in[DLX_MAX_NDIM], keep_out[DLX_MAX_NDIM];
  int64_t red_shape[DLX_MAX_NDIM], red_in[DLX_MAX_NDIM];
  /* dlx__red_scratch_slots(nout, nblocks) slots of the backend's memory when nblocks > 1, else NULL */
  dlx__red_slot *scratch;
} dlx__red_op;

/* The accumulation kind A of op on input dtype S into D: DLX_KD_BOOL (any, all, and sums and products
 * into bool: or / and), DLX_KD_I64 / DLX_KD_U64 (integers: sums wrap; signed / unsigned compares), F32,
 * F64, C64, C128; for min and max of a narrow float, the narrow kind itself (codes are selected, compared
 * by their float32 values). */
dlx__kd dlx__red_acc(dlx_reduce_op op, DLDataType in, DLDataType out);
/* Whether the kernels convert each element of S to A themselves (dlx__red_load); otherwise the compute
 * layer converts the input to D first (then S == D). */
bool dlx__red_direct(dlx_reduce_op op, DLDataType in, DLDataType out);
/* Slots a backend may use: nout * nblocks partials, and the levels of a tree over them in groups of
 * DLX__RED_BLOCK (a GPU's further passes). */
int64_t dlx__red_scratch_slots(int64_t nout, int64_t nblocks);

static inline DLX_HD bool dlx__red_is_arg(dlx_reduce_op op) { return op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX; }
static inline DLX_HD bool dlx__red_is_select(dlx_reduce_op op) { return op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX; }
/* sum, prod and mean: the ops whose float results depend on the order */
static inline DLX_HD bool dlx__red_is_arith(dlx_reduce_op op) {
  return op == DLX_REDUCE_SUM || op == DLX_REDUCE_PROD || op == DLX_REDUCE_MEAN;
}
/* Whether op combines with products (prod, all) rather than sums (sum, mean, any). */
static inline DLX_HD bool dlx__red_is_product(dlx_reduce_op op) { return op == DLX_REDUCE_PROD || op == DLX_REDUCE_ALL; }

#endif

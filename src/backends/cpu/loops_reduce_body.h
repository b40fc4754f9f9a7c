/* The CPU's vectorised reduction kernels: kernels/reduce.h's fixed tree for float sums and products,
 * on one unit (a block's elements, contiguous) or on 64 units at once (units side by side in memory,
 * each a strided run: a reduction over an outer axis, or the blocks of a transposed input), and integer
 * sums and products (exact, so any order).
 *
 * Compiled once per instruction-set level (target.h; loops_reduce.c, loops_reduce_avx2.c,
 * loops_reduce_avx512.c). The bits cannot differ between levels: a leaf is 16 elements (the tree's 16
 * lanes) held in GCC/clang vectors of 32 bytes, which every level splits into its registers (SSE: 4 per
 * 16 floats, AVX2: 2, AVX-512: 2 with 256-bit preference) with the same IEEE operation per lane, the tree
 * above the leaves is the same scalar schedule everywhere, and target.h forbids contraction. Missing
 * leaves and lanes are padded with the op's identity (-0.0 for sums, 1.0 for products), which
 * kernels/reduce.h allows for sums and real products. */
#include "backends/cpu/target.h"

#include "backends/cpu/loops.h"
#include "kernels/convert.h"
#include "kernels/reduce.h"

#if DLX_CPU_LEVEL == 0 || DLX_CPU_X86_LEVELS
DLX_CPU_TARGET_BEGIN

typedef float vf __attribute__((vector_size(32)));
typedef double vd __attribute__((vector_size(32)));

/* levels of a lane's tree in a block: 256 leaves */
#define LEVELS (DLX__RED_LOG_BLOCK - 4 + 1)
#define LANES DLX__RED_LANES

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))

/* One tree instance: NAME, part type P, its vector V, E parts per element, the op and its identity.
 * A leaf is 16 elements of E parts: NV vectors. Leaves go by pointer (a 32-byte vector by value is an
 * ABI GCC notes at the baseline level). */
#define DEF_TREE(NAME, P, V, E, OP, ID)                                                                 \
  enum { NAME##_NV = (int)(LANES * (E) * sizeof(P) / sizeof(V)) };                                    \
  typedef struct NAME##_leaf {                                                                        \
    V v[NAME##_NV];                                                                                   \
  } NAME##_leaf;                                                                                      \
  /* *a = *a op *b (a on the left: the earlier elements) */                                           \
  static inline void NAME##_op(NAME##_leaf *a, const NAME##_leaf *b) {                                \
    for (int k = 0; k < NAME##_NV; ++k) a->v[k] = OP(a->v[k], b->v[k]);                              \
  }                                                                                                   \
  /* *b = *a op *b */                                                                                 \
  static inline void NAME##_op_r(const NAME##_leaf *a, NAME##_leaf *b) {                              \
    for (int k = 0; k < NAME##_NV; ++k) b->v[k] = OP(a->v[k], b->v[k]);                              \
  }                                                                                                   \
  static inline void NAME##_load(NAME##_leaf *l, const P *x) { memcpy(l->v, x, sizeof l->v); }        \
  /* the first n < 16 elements of x, the rest the identity */                                         \
  static inline void NAME##_load_part(NAME##_leaf *l, const P *x, int64_t n) {                        \
    P tmp[LANES * (E)];                                                                               \
    for (int k = 0; k < LANES * (E); ++k) tmp[k] = (P)(ID);                                           \
    memcpy(tmp, x, (size_t)n * (E) * sizeof(P));                                                      \
    NAME##_load(l, tmp);                                                                              \
  }                                                                                                   \
  typedef struct NAME##_stack {                                                                       \
    NAME##_leaf s[LEVELS];                                                                            \
    unsigned occ;   /* bit k: s[k] holds a complete subtree of 2^k leaves */                          \
    int64_t leaves; /* pushed so far */                                                               \
  } NAME##_stack;                                                                                     \
  /* *x: a node of 2^level leaves at the next position (leaves a multiple of 2^level) */              \
  static inline void NAME##_push(NAME##_stack *t, int level, NAME##_leaf *x) {                        \
    t->leaves += (int64_t)1 << level;                                                                 \
    while (t->occ >> level & 1u) {                                                                    \
      NAME##_op_r(&t->s[level], x);                                                                   \
      t->occ &= ~(1u << level);                                                                       \
      ++level;                                                                                        \
    }                                                                                                 \
    t->s[level] = *x;                                                                                 \
    t->occ |= 1u << level;                                                                            \
  }                                                                                                   \
  static inline void NAME##_push_at(NAME##_stack *t, const P *x) {                                    \
    NAME##_leaf l;                                                                                    \
    NAME##_load(&l, x);                                                                               \
    NAME##_push(t, 0, &l);                                                                            \
  }                                                                                                   \
  /* a subtree of 8 leaves from x, in registers */                                                    \
  static inline void NAME##_eight(NAME##_leaf *r, const P *x) {                                       \
    NAME##_leaf l[8];                                                                                 \
    for (int i = 0; i < 8; ++i) NAME##_load(&l[i], x + i * LANES * (E));                             \
    for (int i = 0; i < 8; i += 2) NAME##_op(&l[i], &l[i + 1]);                                       \
    NAME##_op(&l[0], &l[2]);                                                                          \
    NAME##_op(&l[4], &l[6]);                                                                          \
    NAME##_op(&l[0], &l[4]);                                                                          \
    *r = l[0];                                                                                        \
  }                                                                                                   \
  /* n elements (a multiple of 16 unless it is the unit's last piece) */                              \
  static void NAME##_feed(NAME##_stack *t, const P *x, int64_t n) {                                   \
    const int64_t full = n / LANES;                                                                   \
    int64_t i = 0;                                                                                    \
    for (; i < full && (t->leaves & 7); ++i) NAME##_push_at(t, x + i * LANES * (E));                 \
    for (; i + 8 <= full; i += 8) {                                                                   \
      NAME##_leaf node;                                                                               \
      NAME##_eight(&node, x + i * LANES * (E));                                                       \
      NAME##_push(t, 3, &node);                                                                       \
    }                                                                                                 \
    for (; i < full; ++i) NAME##_push_at(t, x + i * LANES * (E));                                    \
    if (n % LANES) {                                                                                  \
      NAME##_leaf l;                                                                                  \
      NAME##_load_part(&l, x + full * LANES * (E), n % LANES);                                        \
      NAME##_push(t, 0, &l);                                                                          \
    }                                                                                                 \
  }                                                                                                   \
  /* the stack's subtrees combined (earlier ones on the left), then the lanes folded in halves */    \
  static void NAME##_finish(const NAME##_stack *t, P *out) {                                          \
    int level = 0;                                                                                    \
    while (!(t->occ >> level & 1u)) ++level;                                                          \
    NAME##_leaf r = t->s[level];                                                                      \
    for (++level; level < LEVELS; ++level)                                                            \
      if (t->occ >> level & 1u) NAME##_op_r(&t->s[level], &r);                                        \
    P l[LANES * (E)];                                                                                 \
    memcpy(l, r.v, sizeof l);                                                                         \
    for (int h = LANES / 2; h >= 1; h /= 2)                                                           \
      for (int k = 0; k < h * (E); ++k) l[k] = OP(l[k], l[k + h * (E)]);                              \
    memcpy(out, l, (E) * sizeof(P));                                                                  \
  }                                                                                                   \
  static void NAME##_tree(dlx__red_next_fn next, void *ctx, dlx__red_slot *out) {                     \
    NAME##_stack t;                                                                                   \
    t.occ = 0;                                                                                        \
    t.leaves = 0;                                                                                     \
    const void *x;                                                                                    \
    for (int64_t n; (n = next(ctx, &x)) > 0;) NAME##_feed(&t, (const P *)x, n);                      \
    NAME##_finish(&t, (P *)(void *)out->v.b);                                                         \
  }

DEF_TREE(sum_f32, float, vf, 1, OP_SUM, -0.0f)
DEF_TREE(sum_f64, double, vd, 1, OP_SUM, -0.0)
DEF_TREE(sum_c64, float, vf, 2, OP_SUM, -0.0f)
DEF_TREE(sum_c128, double, vd, 2, OP_SUM, -0.0)
DEF_TREE(prod_f32, float, vf, 1, OP_PROD, 1.0f)
DEF_TREE(prod_f64, double, vd, 1, OP_PROD, 1.0)

/* ---- 64 units at once ------------------------------------------------------------------------------ */

/* NAME(x, len, stride, w, out): the partial results of w <= 16 * G units side by side from x (unit u at x +
 * u elements of S), element k of each k * stride bytes further, k < len. Lane j of the units' trees is held
 * in G leaves of 16 units each; rows are read 256 bytes of the accumulation type at a time (G = 4 for
 * float32, 2 for float64), so that a reduction over an outer axis streams through whole cache lines, with
 * the stacks (about 36 KiB) still on the stack. CVT converts one element of S to P; absent units are the
 * identity. */
#define PREFETCH_ROWS 64
#define DEF_OUTER(NAME, TREE, P, S, CVT, ID, G, DIRECT)                                                 \
  /* row's units [16 gi, 16 gi + 16) of w, converted; absent ones the identity */                     \
  static inline void NAME##_group(TREE##_leaf *l, const char *row, int64_t w, int gi) {                \
    P tmp[LANES];                                                                                     \
    S src[LANES];                                                                                     \
    const int64_t have = w - gi * LANES;                                                              \
    if (have >= LANES && DIRECT) { /* the accumulation type itself: one load */                        \
      TREE##_load(l, (const P *)(const void *)(row + gi * LANES * (int64_t)sizeof(S)));               \
      return;                                                                                         \
    }                                                                                                 \
    if (have >= LANES) {                                                                              \
      memcpy(src, row + gi * LANES * (int64_t)sizeof(S), sizeof src);                                 \
      for (int u = 0; u < LANES; ++u) tmp[u] = CVT(src[u]);                                           \
    } else {                                                                                          \
      for (int u = 0; u < LANES; ++u) tmp[u] = (P)(ID);                                               \
      for (int64_t u = 0; u < have; ++u) {                                                            \
        S v;                                                                                          \
        memcpy(&v, row + (gi * LANES + u) * (int64_t)sizeof(S), sizeof v);                            \
        tmp[u] = CVT(v);                                                                              \
      }                                                                                               \
    }                                                                                                 \
    TREE##_load(l, tmp);                                                                              \
  }                                                                                                   \
  static inline void NAME##_row(TREE##_leaf *l, const char *x, int64_t stride, int64_t k, int64_t len, \
                                int64_t w) {                                                          \
    if (k + PREFETCH_ROWS < len) /* far-apart rows: new pages and DRAM rows, asked for early */        \
      for (int64_t b = 0; b < w * (int64_t)sizeof(S); b += 64) __builtin_prefetch(x + (k + PREFETCH_ROWS) * stride + b, 0, 0); \
    for (int gi = 0; gi < (G); ++gi) NAME##_group(&l[gi], x + k * stride, w, gi);                     \
  }                                                                                                   \
  typedef struct NAME##_state {                                                                       \
    TREE##_leaf s[LEVELS][LANES][G], g[LANES][G];                                                     \
    unsigned occ;                                                                                     \
  } NAME##_state;                                                                                     \
  /* g: every lane's node of 2^level leaves at the next position */                                   \
  static inline void NAME##_push(NAME##_state *t, int level) {                                        \
    for (; t->occ >> level & 1u; ++level) {                                                           \
      for (int j = 0; j < LANES; ++j)                                                                 \
        for (int gi = 0; gi < (G); ++gi) TREE##_op_r(&t->s[level][j][gi], &t->g[j][gi]);              \
      t->occ &= ~(1u << level);                                                                       \
    }                                                                                                 \
    memcpy(t->s[level], t->g, sizeof t->g);                                                           \
    t->occ |= 1u << level;                                                                            \
  }                                                                                                   \
  static void NAME(const char *x, int64_t len, int64_t stride, int64_t w, dlx__red_slot *out) {       \
    NAME##_state t;                                                                                   \
    t.occ = 0;                                                                                        \
    int64_t q = 0;                                                                                    \
    for (; (q + 4) * LANES <= len; q += 4) { /* four leaves per lane in registers: a level-2 node */  \
      for (int j = 0; j < LANES; ++j) {                                                               \
        TREE##_leaf a[G], b[G];                                                                       \
        NAME##_row(a, x, stride, q * LANES + j, len, w);                                              \
        NAME##_row(b, x, stride, (q + 1) * LANES + j, len, w);                                        \
        for (int gi = 0; gi < (G); ++gi) TREE##_op(&a[gi], &b[gi]);                                    \
        NAME##_row(t.g[j], x, stride, (q + 2) * LANES + j, len, w);                                   \
        NAME##_row(b, x, stride, (q + 3) * LANES + j, len, w);                                        \
        for (int gi = 0; gi < (G); ++gi) TREE##_op(&t.g[j][gi], &b[gi]);                               \
        for (int gi = 0; gi < (G); ++gi) TREE##_op_r(&a[gi], &t.g[j][gi]);                             \
      }                                                                                               \
      NAME##_push(&t, 2);                                                                             \
    }                                                                                                 \
    for (; q * LANES < len; ++q) { /* the last leaves one by one, missing rows the identity */        \
      for (int j = 0; j < LANES; ++j) {                                                               \
        if (q * LANES + j < len) NAME##_row(t.g[j], x, stride, q * LANES + j, len, w);                \
        else                                                                                          \
          for (int gi = 0; gi < (G); ++gi) NAME##_group(&t.g[j][gi], x, 0, gi);                      \
      }                                                                                               \
      NAME##_push(&t, 0);                                                                             \
    }                                                                                                 \
    int level = 0;                                                                                    \
    while (!(t.occ >> level & 1u)) ++level;                                                           \
    memcpy(t.g, t.s[level], sizeof t.g);                                                              \
    for (++level; level < LEVELS; ++level)                                                            \
      if (t.occ >> level & 1u)                                                                        \
        for (int j = 0; j < LANES; ++j)                                                               \
          for (int gi = 0; gi < (G); ++gi) TREE##_op_r(&t.s[level][j][gi], &t.g[j][gi]);              \
    for (int h = LANES / 2; h >= 1; h /= 2)                                                           \
      for (int j = 0; j < h; ++j)                                                                     \
        for (int gi = 0; gi < (G); ++gi) TREE##_op(&t.g[j][gi], &t.g[j + h][gi]);                      \
    for (int gi = 0; gi < (G); ++gi) {                                                                \
      P r[LANES];                                                                                     \
      memcpy(r, t.g[0][gi].v, sizeof r);                                                              \
      for (int64_t u = gi * LANES; u < w && u < (gi + 1) * LANES; ++u)                                \
        memcpy(out[u].v.b, &r[u - gi * LANES], sizeof(P));                                            \
    }                                                                                                 \
  }

#define SAME(x) (x)
#define BF16(x) dlx__cvt_bf16_to_f32(x)
#define F16(x) dlx__cvt_f16_to_f32(x)
DEF_OUTER(outer_sum_f32, sum_f32, float, float, SAME, -0.0f, 4, 1)
DEF_OUTER(outer_sum_bf16, sum_f32, float, uint16_t, BF16, -0.0f, 4, 0)
DEF_OUTER(outer_sum_f16, sum_f32, float, uint16_t, F16, -0.0f, 4, 0)
DEF_OUTER(outer_sum_f64, sum_f64, double, double, SAME, -0.0, 2, 1)
DEF_OUTER(outer_prod_f32, prod_f32, float, float, SAME, 1.0f, 4, 1)
DEF_OUTER(outer_prod_bf16, prod_f32, float, uint16_t, BF16, 1.0f, 4, 0)
DEF_OUTER(outer_prod_f16, prod_f32, float, uint16_t, F16, 1.0f, 4, 0)
DEF_OUTER(outer_prod_f64, prod_f64, double, double, SAME, 1.0, 2, 1)

/* ---- integers: 64-bit sums and products wrap, exact in any order ------------------------------------ */

static uint64_t int_sum(const uint64_t *x, int64_t n, bool product) {
  uint64_t acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = product ? 1u : 0u;
  int64_t i = 0;
  if (product) {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) acc[k] *= x[i + k];
  } else {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) acc[k] += x[i + k];
  }
  for (int k = 1; k < 8; ++k) acc[0] = product ? acc[0] * acc[k] : acc[0] + acc[k];
  for (; i < n; ++i) acc[0] = product ? acc[0] * x[i] : acc[0] + x[i];
  return acc[0];
}

DLX_CPU_TARGET_END

/* ---- this level's table ------------------------------------------------------------------------- */

const dlx__cpu_reduce_loops DLX_CPU_SUFFIX(dlx__cpu_reduce) = {
    .tree = {{sum_f32_tree, sum_f64_tree, sum_c64_tree, sum_c128_tree}, {prod_f32_tree, prod_f64_tree, NULL, NULL}},
    .outer = {{outer_sum_f32, outer_sum_bf16, outer_sum_f16, outer_sum_f64},
              {outer_prod_f32, outer_prod_bf16, outer_prod_f16, outer_prod_f64}},
    .outer_w = {4 * LANES, 4 * LANES, 4 * LANES, 2 * LANES},
    .int_sum = int_sum,
};
#endif

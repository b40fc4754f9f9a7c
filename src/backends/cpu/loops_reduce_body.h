/* The CPU's vectorised reduction kernels: kernels/reduce.h's fixed tree for float sums and products,
 * on one unit (a block's elements, contiguous) or on up to 1024 units at once (units side by side in
 * memory, each a strided run: a reduction over an outer axis, or the blocks of a transposed input), and
 * integer sums and products (exact, so any order).
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

#if (DLX_CPU_F16C && DLX_CPU_X86_LEVELS) || defined(__SSE2__)
#include <immintrin.h>
#endif

#if DLX_CPU_LEVEL == 0 || DLX_CPU_X86_LEVELS
DLX_CPU_TARGET_BEGIN

typedef float vf __attribute__((vector_size(32)));
typedef double vd __attribute__((vector_size(32)));

/* levels of a lane's tree in a block: 256 leaves */
#define LEVELS (DLX__RED_LOG_BLOCK - 4 + 1)
#define LANES DLX__RED_LANES

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))

/* One tree's leaves and stack: NAME, part type P, its vector V, E parts per element, the op and its
 * identity. A leaf is 16 elements of E parts: NV vectors. Leaves go by pointer (a 32-byte vector by value
 * is an ABI GCC notes at the baseline level). */
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
  /* vector by vector: one copy of the whole leaf goes through the stack at AVX2 (split 16-byte moves \
   * reloaded as 32-byte vectors, a store-forwarding stall per leaf) */                               \
  static inline void NAME##_load(NAME##_leaf *l, const P *x) {                                        \
    for (int k = 0; k < NAME##_NV; ++k) memcpy(&l->v[k], x + k * (int)(sizeof(V) / sizeof(P)), sizeof(V)); \
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
  }

/* How a whole leaf of 16 elements is read, WHOLE(TREE, P, l, x): 1 when done. In place (S is P); not at
 * all (0: CVT element by element, through memory); or bfloat16 widened in registers, whose bits are
 * dlx__cvt_bf16_to_f32's (shifted up 16) -- through memory, each leaf would be two 32-byte stores
 * reloaded as one 64-byte vector, a store-forwarding stall that halves the bfloat16 sum's speed. */
#define WHOLE_IN_PLACE(TREE, P, l, x) (TREE##_load(l, (const P *)(const void *)(x)), 1)
#define WHOLE_NONE(TREE, P, l, x) 0
#define WHOLE_BF16(TREE, P, l, x) (bf16_leaf((l)->v, x), 1)

/* On x86 the level's widening (GCC's __builtin_convertvector makes 512-bit vectors at level 2 only to
 * split them again); elsewhere the generic conversion. */
static inline void bf16_leaf(vf *v, const uint16_t *x) {
  for (int k = 0; k < (int)(LANES * sizeof(float) / sizeof(vf)); ++k) {
    const uint16_t *p = x + k * (int)(sizeof(vf) / sizeof(float));
#if DLX_CPU_F16C && DLX_CPU_X86_LEVELS
    const __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16);
#elif defined(__SSE2__)
    /* (0, b) pairs of 16-bit words: b << 16 in each 32-bit lane */
    const __m128i h = _mm_loadu_si128((const __m128i *)p), z = _mm_setzero_si128();
    const __m128i w[2] = {_mm_unpacklo_epi16(z, h), _mm_unpackhi_epi16(z, h)};
#else
    typedef uint16_t vh __attribute__((vector_size(sizeof(vf) / 2)));
    typedef uint32_t vu __attribute__((vector_size(sizeof(vf))));
    vh h;
    memcpy(&h, p, sizeof h);
    const vu w = __builtin_convertvector(h, vu) << 16;
#endif
    memcpy(&v[k], &w, sizeof w);
  }
}

/* A tree over elements of S (converted to P by CVT, or whole leaves by WHOLE): NAME##_tree, a
 * dlx__red_tree_fn over pieces of S. */
#define DEF_FEED(NAME, TREE, P, S, CVT, E, ID, WHOLE)                                                   \
  /* leaf from 16 elements of E parts at x; n < 16: the rest the identity */                          \
  static inline void NAME##_leaf_at(TREE##_leaf *l, const S *x, int64_t n) {                          \
    if (n == LANES && WHOLE(TREE, P, l, x)) return;                                                   \
    P tmp[LANES * (E)];                                                                               \
    S src[LANES * (E)];                                                                               \
    for (int k = 0; k < LANES * (E); ++k) tmp[k] = (P)(ID);                                           \
    if (n == LANES) {                                                                                 \
      memcpy(src, x, sizeof src);                                                                     \
      for (int k = 0; k < LANES * (E); ++k) tmp[k] = CVT(src[k]);                                     \
    } else {                                                                                          \
      for (int64_t k = 0; k < n * (E); ++k) tmp[k] = CVT(x[k]);                                       \
    }                                                                                                 \
    TREE##_load(l, tmp);                                                                              \
  }                                                                                                   \
  static inline void NAME##_push_at(TREE##_stack *t, const S *x) {                                    \
    TREE##_leaf l;                                                                                    \
    NAME##_leaf_at(&l, x, LANES);                                                                     \
    TREE##_push(t, 0, &l);                                                                            \
  }                                                                                                   \
  /* subtrees of 2, 4 and 8 leaves from x, in registers: no array of leaves, which the vectoriser would \
   * fill by a copy loop through the stack */                                                         \
  static inline void NAME##_two(TREE##_leaf *r, const S *x) {                                         \
    TREE##_leaf b;                                                                                    \
    NAME##_leaf_at(r, x, LANES);                                                                      \
    NAME##_leaf_at(&b, x + LANES * (E), LANES);                                                       \
    TREE##_op(r, &b);                                                                                 \
  }                                                                                                   \
  static inline void NAME##_four(TREE##_leaf *r, const S *x) {                                        \
    TREE##_leaf b;                                                                                    \
    NAME##_two(r, x);                                                                                 \
    NAME##_two(&b, x + 2 * LANES * (E));                                                              \
    TREE##_op(r, &b);                                                                                 \
  }                                                                                                   \
  static inline void NAME##_eight(TREE##_leaf *r, const S *x) {                                       \
    TREE##_leaf b;                                                                                    \
    NAME##_four(r, x);                                                                                \
    NAME##_four(&b, x + 4 * LANES * (E));                                                             \
    TREE##_op(r, &b);                                                                                 \
  }                                                                                                   \
  /* n elements (a multiple of 16 unless it is the unit's last piece) */                              \
  static void NAME##_feed(TREE##_stack *t, const S *x, int64_t n) {                                   \
    const int64_t full = n / LANES;                                                                   \
    int64_t i = 0;                                                                                    \
    for (; i < full && (t->leaves & 7); ++i) NAME##_push_at(t, x + i * LANES * (E));                 \
    for (; i + 8 <= full; i += 8) {                                                                   \
      TREE##_leaf node;                                                                               \
      NAME##_eight(&node, x + i * LANES * (E));                                                       \
      TREE##_push(t, 3, &node);                                                                       \
    }                                                                                                 \
    for (; i < full; ++i) NAME##_push_at(t, x + i * LANES * (E));                                    \
    if (n % LANES) {                                                                                  \
      TREE##_leaf l;                                                                                  \
      NAME##_leaf_at(&l, x + full * LANES * (E), n % LANES);                                          \
      TREE##_push(t, 0, &l);                                                                          \
    }                                                                                                 \
  }                                                                                                   \
  static void NAME##_tree(dlx__red_next_fn next, void *ctx, dlx__red_slot *out) {                     \
    TREE##_stack t;                                                                                   \
    t.occ = 0;                                                                                        \
    t.leaves = 0;                                                                                     \
    const void *x;                                                                                    \
    for (int64_t n; (n = next(ctx, &x)) > 0;) NAME##_feed(&t, (const S *)x, n);                      \
    TREE##_finish(&t, (P *)(void *)out->v.b);                                                         \
  }

#define SAME(x) (x)
#define BF16(x) dlx__cvt_bf16_to_f32(x)
#define F16(x) dlx__cvt_f16_to_f32(x)

DEF_TREE(sum_f32, float, vf, 1, OP_SUM, -0.0f)
DEF_TREE(sum_f64, double, vd, 1, OP_SUM, -0.0)
DEF_TREE(sum_c64, float, vf, 2, OP_SUM, -0.0f)
DEF_TREE(sum_c128, double, vd, 2, OP_SUM, -0.0)
DEF_TREE(prod_f32, float, vf, 1, OP_PROD, 1.0f)
DEF_TREE(prod_f64, double, vd, 1, OP_PROD, 1.0)
DEF_FEED(sum_f32, sum_f32, float, float, SAME, 1, -0.0f, WHOLE_IN_PLACE)
DEF_FEED(sum_f64, sum_f64, double, double, SAME, 1, -0.0, WHOLE_IN_PLACE)
DEF_FEED(sum_c64, sum_c64, float, float, SAME, 2, -0.0f, WHOLE_IN_PLACE)
DEF_FEED(sum_c128, sum_c128, double, double, SAME, 2, -0.0, WHOLE_IN_PLACE)
DEF_FEED(prod_f32, prod_f32, float, float, SAME, 1, 1.0f, WHOLE_IN_PLACE)
DEF_FEED(prod_f64, prod_f64, double, double, SAME, 1, 1.0, WHOLE_IN_PLACE)
/* bfloat16 and float16 decoded as they are read (no staging buffer): bandwidth-bound sums of them */
DEF_FEED(sum_bf16, sum_f32, float, uint16_t, BF16, 1, -0.0f, WHOLE_BF16)
DEF_FEED(sum_f16, sum_f32, float, uint16_t, F16, 1, -0.0f, WHOLE_NONE)
DEF_FEED(prod_bf16, prod_f32, float, uint16_t, BF16, 1, 1.0f, WHOLE_BF16)
DEF_FEED(prod_f16, prod_f32, float, uint16_t, F16, 1, 1.0f, WHOLE_NONE)

/* ---- many units at once -------------------------------------------------------------------------- */

/* NAME(x, len, stride, w, out, state): the partial results of w <= W units side by side from x (unit u at
 * x + u elements of S), element k of each k * stride bytes further (its "row" k), k < len. Lane by lane:
 * lane j's tree over its rows j, j + 16, ... is kept as a stack of rows of W partial results (binary
 * counter), the lanes' totals are folded in halves at the end. Eight of a lane's rows are read side by
 * side and combined as the tree's subtree of 8 in one pass (eight streams in flight: one row at a time
 * waits on memory latency at every row, each a different page), then pushed. Every row is read once,
 * whole (4 KiB of the accumulation type: W = 1024 float32 or 512 float64); the stacks are in the caller's
 * state (NAME##_state, about 104 KiB: L2-sized). The elementwise operations over a row are the tree's own
 * (each unit's bits are those of its unit alone); CVT converts an element of S to P. */
#define DEF_OUTER(NAME, P, S, CVT, OP, W)                                                               \
  typedef struct NAME##_state {                                                                       \
    P stack[LEVELS][W], g[W], lane[LANES][W];                                                         \
  } NAME##_state;                                                                                     \
  /* unit u of a row, as P */                                                                         \
  DLX_CPU_WIDE static inline P NAME##_at(const char *row, int64_t u) {                                             \
    S v;                                                                                              \
    memcpy(&v, row + u * (int64_t)sizeof(S), sizeof v);                                               \
    return CVT(v);                                                                                    \
  }                                                                                                   \
  /* t->g, a node of 2^level rows, pushed on the stack (occupancy *occ) */                            \
  DLX_CPU_WIDE static inline void NAME##_push(NAME##_state *t, unsigned *occ, int level, int64_t w) {              \
    for (; *occ >> level & 1u; ++level) {                                                             \
      const P *l = t->stack[level];                                                                   \
      for (int64_t u = 0; u < w; ++u) t->g[u] = OP(l[u], t->g[u]);                                    \
      *occ &= ~(1u << level);                                                                         \
    }                                                                                                 \
    memcpy(t->stack[level], t->g, (size_t)w * sizeof(P));                                             \
    *occ |= 1u << level;                                                                              \
  }                                                                                                   \
  /* dst[u], u in [lo, hi): the subtree of 8 rows r0..r7, merged under the node src (older, the left \
   * operand, as NAME##_push merges) when src is not NULL. Fusing that first merge into the pass saves \
   * the write of the subtree and its read back (restrict: dst and src are the state, never the input, \
   * so the loop vectorises without an overlap test per call). */                                     \
  DLX_CPU_WIDE static inline void NAME##_eight_at(P *restrict dst, const P *restrict src, const char *restrict r0, \
                                     const char *restrict r1, const char *restrict r2,                \
                                     const char *restrict r3, const char *restrict r4,                \
                                     const char *restrict r5, const char *restrict r6,                \
                                     const char *restrict r7, int64_t lo, int64_t hi) {               \
    if (src == NULL) {                                                                                \
      for (int64_t u = lo; u < hi; ++u) {                                                             \
        const P a = OP(NAME##_at(r0, u), NAME##_at(r1, u)), b = OP(NAME##_at(r2, u), NAME##_at(r3, u)); \
        const P c = OP(NAME##_at(r4, u), NAME##_at(r5, u)), d = OP(NAME##_at(r6, u), NAME##_at(r7, u)); \
        dst[u] = OP(OP(a, b), OP(c, d));                                                              \
      }                                                                                               \
    } else {                                                                                          \
      for (int64_t u = lo; u < hi; ++u) {                                                             \
        const P a = OP(NAME##_at(r0, u), NAME##_at(r1, u)), b = OP(NAME##_at(r2, u), NAME##_at(r3, u)); \
        const P c = OP(NAME##_at(r4, u), NAME##_at(r5, u)), d = OP(NAME##_at(r6, u), NAME##_at(r7, u)); \
        dst[u] = OP(src[u], OP(OP(a, b), OP(c, d)));                                                  \
      }                                                                                               \
    }                                                                                                 \
  }                                                                                                   \
  /* The subtree of the 8 rows k, k + 16, ..., k + 112 pushed on the stack (occupancy *occ) at level 3, \
   * written straight to its slot, or merged with the node at level 3 on the way (into level 4 when \
   * that is free, else into t->g and pushed on from level 4). kn >= 0: the first row of the next eight \
   * rows read (kn, kn + 16, ...), fetched into L2 while these are summed, a cache line of each per line \
   * of these: each row's slice is a short stream (4 KiB: often a page of its own), which the hardware \
   * prefetcher would take up only after its first misses, a stall per row that a contiguous sum never \
   * has. Prefetching reads nothing into a result: the bits are the same. */                         \
  DLX_CPU_WIDE static void NAME##_eight(NAME##_state *t, unsigned *occ, const char *x, int64_t stride, int64_t k, int64_t w, \
                           int64_t kn) {                                                              \
    const char *r[8];                                                                                 \
    for (int i = 0; i < 8; ++i) r[i] = x + (k + i * LANES) * stride;                                  \
    P *dst;                                                                                           \
    const P *src = NULL;                                                                              \
    int pending = -1; /* the level t->g is pushed on from afterwards, -1 for none */                  \
    if (!(*occ >> 3 & 1u)) {                                                                          \
      dst = t->stack[3];                                                                              \
      *occ |= 1u << 3;                                                                                \
    } else {                                                                                          \
      src = t->stack[3];                                                                              \
      *occ &= ~(1u << 3);                                                                             \
      if (!(*occ >> 4 & 1u)) {                                                                        \
        dst = t->stack[4];                                                                            \
        *occ |= 1u << 4;                                                                              \
      } else {                                                                                        \
        dst = t->g;                                                                                   \
        pending = 4;                                                                                  \
      }                                                                                               \
    }                                                                                                 \
    if (kn < 0) {                                                                                     \
      NAME##_eight_at(dst, src, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], 0, w);                \
    } else {                                                                                          \
      const int64_t ahead = (kn - k) * stride, line = 64 / (int64_t)sizeof(S);                        \
      int64_t u = 0;                                                                                  \
      for (; u + line <= w; u += line) {                                                              \
        for (int i = 0; i < 8; ++i) __builtin_prefetch(r[i] + ahead + u * (int64_t)sizeof(S), 0, 2);  \
        NAME##_eight_at(dst, src, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], u, u + line);       \
      }                                                                                               \
      for (int i = 0; i < 8 && u < w; ++i) __builtin_prefetch(r[i] + ahead + u * (int64_t)sizeof(S), 0, 2); \
      NAME##_eight_at(dst, src, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], u, w);                \
    }                                                                                                 \
    if (pending >= 0) NAME##_push(t, occ, pending, w);                                                \
  }                                                                                                   \
  /* lane j's tree over rows j, j + 16, ... (< len) into t->lane[j] */                                \
  DLX_CPU_WIDE static void NAME##_lane(NAME##_state *t, const char *x, int64_t len, int64_t stride, int64_t w, int j) { \
    const int64_t nq = (len - j + LANES - 1) / LANES;                                                 \
    unsigned occ = 0;                                                                                 \
    int64_t q = 0;                                                                                    \
    for (; q + 8 <= nq; q += 8) {                                                                     \
      /* the next eight rows read: this lane's next eight, or the next lane's first (all inside len) */ \
      const int64_t kn = q + 16 <= nq ? (q + 8) * LANES + j : j + 1 < LANES ? j + 1 : -1;             \
      NAME##_eight(t, &occ, x, stride, q * LANES + j, w, kn >= 0 && kn + 7 * LANES < len ? kn : -1);  \
    }                                                                                                 \
    for (; q < nq; ++q) {                                                                             \
      const char *row = x + (q * LANES + j) * stride;                                                 \
      for (int64_t u = 0; u < w; ++u) t->g[u] = NAME##_at(row, u);                                    \
      NAME##_push(t, &occ, 0, w);                                                                     \
    }                                                                                                 \
    int level = 0;                                                                                    \
    while (!(occ >> level & 1u)) ++level;                                                             \
    P *res = t->lane[j];                                                                              \
    memcpy(res, t->stack[level], (size_t)w * sizeof(P));                                              \
    for (++level; level < LEVELS; ++level)                                                            \
      if (occ >> level & 1u)                                                                          \
        for (int64_t u = 0; u < w; ++u) res[u] = OP(t->stack[level][u], res[u]);                      \
  }                                                                                                   \
  DLX_CPU_WIDE static void NAME(const char *x, int64_t len, int64_t stride, int64_t w, dlx__red_slot *out, void *state) { \
    NAME##_state *t = (NAME##_state *)state;                                                          \
    const int lanes = len < LANES ? (int)len : LANES;                                                 \
    for (int j = 0; j < lanes; ++j) NAME##_lane(t, x, len, stride, w, j);                             \
    for (int h = LANES / 2; h >= 1; h /= 2)                                                           \
      for (int k = 0; k < h; ++k)                                                                     \
        if (k + h < lanes)                                                                            \
          for (int64_t u = 0; u < w; ++u) t->lane[k][u] = OP(t->lane[k][u], t->lane[k + h][u]);       \
    for (int64_t u = 0; u < w; ++u) memcpy(out[u].v.b, &t->lane[0][u], sizeof(P));                    \
  }

DEF_OUTER(outer_sum_f32, float, float, SAME, OP_SUM, 1024)
DEF_OUTER(outer_sum_bf16, float, uint16_t, BF16, OP_SUM, 1024)
DEF_OUTER(outer_sum_f16, float, uint16_t, F16, OP_SUM, 1024)
DEF_OUTER(outer_sum_f64, double, double, SAME, OP_SUM, 512)
DEF_OUTER(outer_prod_f32, float, float, SAME, OP_PROD, 1024)
DEF_OUTER(outer_prod_bf16, float, uint16_t, BF16, OP_PROD, 1024)
DEF_OUTER(outer_prod_f16, float, uint16_t, F16, OP_PROD, 1024)
DEF_OUTER(outer_prod_f64, double, double, SAME, OP_PROD, 512)

_Static_assert(sizeof(outer_sum_f64_state) <= sizeof(outer_sum_f32_state) &&
                   sizeof(outer_prod_f64_state) <= sizeof(outer_sum_f32_state),
               "outer_state covers every many-unit kernel");

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
    .tree_narrow = {{sum_bf16_tree, sum_f16_tree}, {prod_bf16_tree, prod_f16_tree}},
    .outer = {{outer_sum_f32, outer_sum_bf16, outer_sum_f16, outer_sum_f64},
              {outer_prod_f32, outer_prod_bf16, outer_prod_f16, outer_prod_f64}},
    .outer_w = {1024, 1024, 1024, 512},
    /* every instance's state has one size: rows of 4 KiB (float32 of 1024 units, float64 of 512) */
    .outer_state = sizeof(outer_sum_f32_state),
    .int_sum = int_sum,
};
#endif

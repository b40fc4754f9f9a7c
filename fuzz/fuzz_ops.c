/* fuzz/fuzz_ops.c - libFuzzer harness for the op entry points of dlx/ops.h: dlx_copy, dlx_fill,
 * dlx_cast, dlx_unary, dlx_binary, dlx_ternary, dlx_fma and dlx_reduce on random strided views.
 *
 * The elementwise ops are taken from the op table (src/kernels/op_table.h) at run time: any row of
 * dlx__unop_info, dlx__binop_info or dlx__ternop_info (and values past the last one), with the model's
 * dtype rules read from the row (the dtype class it takes, whether it writes bool). A row added to the
 * table is fuzzed with no change here.
 *
 * Views are hand-made structs (as a caller or a DLPack import hands them over): any DLDataType (illegal
 * ones, vectors, packed or padded sub-byte), ranks 0..6 (rarely an impossible one), small extents (some
 * 0, rarely negative or huge), any strides (negative, zero, overlapping, INT64 extremes), host and
 * non-host devices, read-only flags. Their data pointers point into ONE shared heap arena, an exactly
 * sized malloc block, so that outputs alias or partially overlap inputs and ASan sees any access past
 * the arena. The views keep one promise of dlx/view.h: the element count, extents of 0 counted as 1,
 * fits int64 (dlx_view_size never overflows), as for every view dlx_view_init makes.
 *
 * Memory safety: each view's byte span (lowest and highest byte any element touches) is computed in
 * 128-bit arithmetic. An op is only called when every view with elements lies inside the arena, or when
 * the call must be refused before memory is touched (then it must fail), or when the output is empty
 * (then it must succeed without touching anything). An independent model of the documented validation
 * (ops.h, ops.c: ranks, dtypes and each op's dtype rule, devices without a host backend, NULL data,
 * read-only and broadcast outputs, broadcasting, packed vectors) gives the set of statuses a call may
 * fail with; an empty set means it must succeed.
 *
 * Oracle: every call runs twice, on the arena (the fast path: plan, typed loops, staging, tiles, the
 * thread pool when the input asks for a tiny grain) and on a copy of the original arena with
 * dlx__ops_set_reference(true) (the plain N-d walk of compute/reference.c). Both must return the same
 * status. A failure must have a status of the model's set and a message, and leave both arenas as they
 * were. A success must leave every bit outside the output's elements unchanged (in both runs), and the
 * two arenas must be byte-identical afterwards, except that an element where both paths wrote a NaN
 * may differ in NaN sign or payload for arithmetic (ops.h leaves which NaN an operation passes on
 * unspecified; tests/test_ops.c and tests/test_backends.c allow the same); copies, fills, casts, where
 * (a selection) and positive (a copy) must match bit for bit. Outputs whose
 * distinct indices share memory through non-zero strides (shape (3,3), strides (1,1)) have a result
 * that depends on the order of the writes (ops.c, "Limits"): they are detected and only the
 * memory-safety and outside-the-output checks apply.
 *
 * Reductions (dlx_reduce): the same views, axes (in range or not, repeated), keepdims, an out of the
 * result's shape or not, aliasing the input or not; the model adds the reductions' rules (the op, the
 * input's dtype, the axes, out's dtype and shape, an out overlapping the input, an empty min / max /
 * argmin / argmax), and a success must match the reference path byte for byte, NaN included (a NaN
 * result of a sum is the canonical NaN, and min / max select by a total order).
 *
 * Built with -DDLX_FUZZ_OPS_STATS, the harness prints at exit a census of what the inputs reached
 * (skipped, refused by status, written per op, self-overlapping, threaded, packed), and with
 * DLX_FUZZ_OPS_VERBOSE=1 in the environment each decoded case and its outcome.
 *
 * Input format (reads past the end yield zero bytes; fuzz/make_corpus.py writes the same encoding):
 *   kind u8     b & 7: 0 copy, 1 fill, 2 cast, 3 binary, 4 fma, 5 unary, 6 ternary, 7 binary; bit 3:
 *               fma's t1 is the signed partner of an unsigned t2, a binary op's b the other signedness of
 *               a 64-bit integer a (the mixed int64 / uint64 comparisons); bit 4: a reduction instead
 *               (its encoding below)
 *   arg u8      unary, binary, ternary: < 0xF0 the op (% the table's row count: DLX_UNOP_COUNT,
 *               DLX_OP_COUNT, DLX_TERNOP_COUNT), else a raw int32 op (u32 follows);
 *               fma: < 0xF0 the scalar from a table (% 16), else raw double bits (u64 follows)
 *   flags u8    1 threaded (grain 2 + 3 * (flags >> 4)), 2 NULL-argument checks
 *   fill u8     arena contents (% 4): random bytes, mostly zero bytes, small float32 values, special bytes
 *   seed u32    of the arena contents
 *   tail u8     slack bytes after the last view (% 16)
 *   T, U        the op's dtypes (dtype: u8 < 0xFF a table index, 0xFF raw code u8, bits u8, lanes u16):
 *               copy/fill out = in = T; cast out = T, in = U; unary a = T, out = T or bool for a row
 *               that writes bool; binary a = b = T (b flipped between int64 and uint64 by bit 3), out =
 *               T or bool for a row that writes bool; ternary: where a = bool, b = c = out = T, clip
 *               a = b = c = out = T; fma t2 = out = T, t1 = T or its signed partner
 *   then out, in0 (src / value / a / t1), in1 (b, t2), in2 (ternary c), each:
 *     dtype u8  < 0x80 the op's rule, < 0xFF table[(b - 0x80) % n], 0xFF raw (code, bits, lanes u16)
 *     flags u8  the dlx_view flags: 1 read-only, 2 sub-byte padded
 *     device u8 < 0xC0 cpu:0, < 0xFF a table of other devices, 0xFF raw (type u32, id u32)
 *     shape u8  out: rank (< 0xF0 % 7; 0xF0..0xF7 -1..-8; 0xF8..0xFF 65..72) then extents;
 *               inputs: (b & 3) 0 out's shape, 1 out's shape with (b >> 2) % (rank + 1) leading dims
 *               dropped and the dims whose bit is set in the next u8 made extent 1, 2 own rank
 *               ((b >> 2) < 0x38: % 7, else -1 or 65) then extents, 3 out's shape, strides and data
 *               (in place), moved by the int8 element count in the next u8 when (b >> 2) & 1 -
 *               nothing else follows for mode 3
 *     extent    u8: < 0xA0 1..4, < 0xD0 1..16, < 0xE0 0, < 0xF0 17..137, < 0xFE -1..-14, else raw u64
 *     strides   u8 (b % 8): 0 C, 1 F, 2 C with the dims of the next u8's bits reversed, 3 a permuted
 *               compact layout (rank - 1 bytes), 4 gapped (u8 per dim: factor 1..4, bit 2 negative),
 *               5 small (u8 per dim: -8..8), 6 extremes (u8 per dim: < 0xC0 -16..16, < 0xFF a table
 *               of INT64_MIN, INT64_MAX, 2^62..., 0xFF raw u64), 7 C with the next u8's dims zero
 *     offset u8 < 0x80 the lowest byte (b % 16) elements after the previous views, < 0xC0 the lowest
 *               byte at arena byte b & 63, < 0xEE element 0 at out's element 0 plus (int8 u8) elements,
 *               < 0xF0 NULL data, else element 0 at arena + raw int64 (u64 follows); "elements" are
 *               bytes for packed sub-byte views. The arena ends (tail % 16) bytes after the highest
 *               byte any view placed inside 64 KiB touches.
 * A reduction (kind bit 4): arg u8 (< 0xF0 the dlx_reduce_op % 9, else a raw int32 op, u32 follows), flags,
 * fill, seed, tail and T, U as above; the input as an out above (dtype < 0x80 T), at most 2^16 elements;
 * axes u8 (< 0xF0: naxes = b % (rank + 2) - 1, -1 meaning every axis; else a raw int32, u32 follows), then
 * min(naxes, 8) int8 axes, each taken % (rank + 1); keepdims u8 (bit 0); then out: dtype u8 (< 0x40 the
 * op's default for T, < 0x80 U, else as above), flags, device, shape u8 ((b & 3) 0 the result's shape, 1
 * the result's with one extent (b >> 2 picks it) one larger, 2 own rank and extents, 3 the input's layout
 * and place, moved by an int8 count when (b >> 2) & 1), strides and offset as above, "out's element 0"
 * meaning the input's. */
#include <math.h>
#include <stdlib.h>

#include "dlx/dlx.h"
#include "dlx/ops.h"
#include "fuzz_common.h"
/* Internal headers (src/ is not on the harness's include path): the reference switch and dtype
 * kinds, and the narrow-float decoder for NaN tests. */
#include "kernels/convert.h"
#include "compute/reference.h"
#include "kernels/ew.h"

/* From src/backends/cpu/loops.h (which needs src/ on the include path): the element count above which
 * an op is split over the pool's threads; 0 restores the default. */
int64_t dlx__ops_set_grain(int64_t grain);

#define MAX_OUT_ELEMS 4096
#define ARENA_MAX (64 * 1024)
#define MAX_RANK 6

typedef enum op_kind { K_COPY, K_FILL, K_CAST, K_BINARY, K_FMA, K_UNARY, K_TERNARY, K_COUNT, K_REDUCE = K_COUNT } op_kind;
static const char *const kind_names[K_COUNT + 1] = {"dlx_copy",  "dlx_fill",  "dlx_cast",    "dlx_binary",
                                                    "dlx_fma",   "dlx_unary", "dlx_ternary", "dlx_reduce"};
#define MAX_REDUCE_ELEMS 65536
#define MAX_VIEWS 4 /* out and three inputs (dlx_ternary) */

typedef enum off_mode { OFF_CURSOR, OFF_START, OFF_ALIAS, OFF_NULL, OFF_RAW } off_mode;
static const char *const off_names[] = {"after previous", "at arena byte", "out's element 0 +", "NULL", "raw"};

typedef struct vspec {
  const char *role;
  DLDataType dtype;
  uint32_t flags;
  DLDevice device;
  int32_t ndim; /* what the view says (may be impossible) */
  int32_t nd;   /* dims stored: ndim when 0..MAX_RANK, else 0 */
  int64_t shape[MAX_RANK], strides[MAX_RANK];
  int shape_mode, stride_mode;
  off_mode omode;
  int64_t oarg;
  /* derived */
  bool geom;          /* rank, extents and dtype valid: the span is defined */
  bool empty;         /* geom and some extent 0 */
  __int128 lo, hi;    /* bytes touched relative to data, [lo, hi) (elements only) */
  __int128 off;       /* data - arena */
  bool null;
  bool in_arena;      /* empty, or every byte touched inside the arena */
} vspec;

typedef struct opcase {
  op_kind kind;
  int32_t op;         /* unary, binary, ternary: the table's row; may be outside the table */
  double scalar;
  uint8_t flags;
  uint8_t fill;
  uint32_t seed;
  int nview;
  vspec v[MAX_VIEWS];
  size_t arena_size;
  uint32_t mask;      /* statuses the model allows; 0 = must succeed */
  bool oneapi_only;   /* every refusal reason is a oneAPI operand: an op with nothing to do may succeed */
  uint32_t oneapi;    /* the statuses a oneAPI operand allows (0: none is oneAPI) */
  /* reductions: v[0] is the input, v[1] out */
  int32_t rop, naxes, keepdims;
  int32_t axes[DLX_MAX_NDIM];
} opcase;

/* The view an op writes: the output (v[0]), or a reduction's out (v[1]). */
static const vspec *out_view(const opcase *c) { return c->kind == K_REDUCE ? &c->v[1] : &c->v[0]; }

static opcase g_case;

/* The op table's row of an elementwise op (op_table.h), or NULL for another kind or an op past the table. */
static const dlx__op_info *op_row(const opcase *c) {
  switch (c->kind) {
    case K_UNARY: return c->op >= 0 && c->op < DLX_UNOP_COUNT ? &dlx__unop_info[c->op] : NULL;
    case K_BINARY: return c->op >= 0 && c->op < DLX_OP_COUNT ? &dlx__binop_info[c->op] : NULL;
    case K_TERNARY: return c->op >= 0 && c->op < DLX_TERNOP_COUNT ? &dlx__ternop_info[c->op] : NULL;
    default: return NULL;
  }
}

static bool has_table_op(op_kind k) { return k == K_UNARY || k == K_BINARY || k == K_TERNARY; }

/* ---- printing a case (on failure) --------------------------------------------------------------- */

static const char *i128_text(char *buf, size_t cap, __int128 x) {
  if (x >= INT64_MIN && x <= INT64_MAX) snprintf(buf, cap, "%lld", (long long)x);
  else snprintf(buf, cap, "%s2^64*%lld+%llu", x < 0 ? "" : "", (long long)(x >> 64), (unsigned long long)(uint64_t)x);
  return buf;
}

static void describe_case(const opcase *c) {
  char t1[64], t2[64], t3[64];
  fprintf(stderr, "---- fuzz_ops case ----\n%s", kind_names[c->kind]);
  if (has_table_op(c->kind)) {
    const dlx__op_info *row = op_row(c);
    if (row != NULL) fprintf(stderr, " op %d (%s)", (int)c->op, row->name);
    else fprintf(stderr, " op %d (past the op table)", (int)c->op);
  }
  if (c->kind == K_FMA) fprintf(stderr, " scalar %.17g", c->scalar);
  if (c->kind == K_REDUCE) {
    fprintf(stderr, " op %d, naxes %d (", (int)c->rop, (int)c->naxes);
    for (int32_t i = 0; i < c->naxes && i < 8; ++i) fprintf(stderr, "%s%d", i ? ", " : "", (int)c->axes[i]);
    fprintf(stderr, ")%s", c->keepdims ? " keepdims" : "");
  }
  fprintf(stderr, "; arena %zu bytes (fill mode %u, seed %u); flags 0x%x; allowed statuses 0x%x\n", c->arena_size,
          (unsigned)c->fill % 4, (unsigned)c->seed, (unsigned)c->flags, (unsigned)c->mask);
  for (int k = 0; k < c->nview; ++k) {
    const vspec *v = &c->v[k];
    char name[DLX_DTYPE_NAME_MAX];
    if (dlx_dtype_format(v->dtype, name, sizeof name) != DLX_OK) snprintf(name, sizeof name, "illegal");
    fprintf(stderr, "  %-5s dtype %s (code %u bits %u lanes %u)%s%s device (%d, %d) ndim %d shape (", v->role, name,
            (unsigned)v->dtype.code, (unsigned)v->dtype.bits, (unsigned)v->dtype.lanes,
            (v->flags & DLX_VIEW_SUBBYTE_PADDED) ? " padded" : "", (v->flags & DLX_VIEW_READ_ONLY) ? " read-only" : "",
            (int)v->device.device_type, (int)v->device.device_id, (int)v->ndim);
    for (int32_t d = 0; d < v->nd; ++d) fprintf(stderr, "%s%lld", d ? ", " : "", (long long)v->shape[d]);
    fprintf(stderr, ") strides (");
    for (int32_t d = 0; d < v->nd; ++d) fprintf(stderr, "%s%lld", d ? ", " : "", (long long)v->strides[d]);
    fprintf(stderr, ") [shape mode %d, stride mode %d]\n", v->shape_mode, v->stride_mode);
    if (v->null)
      fprintf(stderr, "        data NULL");
    else
      fprintf(stderr, "        data = arena + %s", i128_text(t1, sizeof t1, v->off));
    fprintf(stderr, " (offset mode: %s %lld)", off_names[v->omode], (long long)v->oarg);
    if (v->geom && !v->empty)
      fprintf(stderr, "; bytes touched: arena[%s, %s)", i128_text(t2, sizeof t2, v->off + v->lo),
              i128_text(t3, sizeof t3, v->off + v->hi));
    fprintf(stderr, "%s%s\n", v->empty ? "; empty" : "", v->in_arena ? "; inside the arena" : "; NOT inside the arena");
  }
}

#define ORACLE(cond, ...)                                                                         \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      describe_case(&g_case);                                                                     \
      FUZZ_CHECK(cond, __VA_ARGS__);                                                              \
    }                                                                                             \
  } while (0)

/* ---- decoding ----------------------------------------------------------------------------------- */

static const DLDataType g_dtypes[] = {
    {DLX_CODE_BOOL, 8, 1},  {DLX_CODE_INT, 8, 1},   {DLX_CODE_INT, 16, 1},  {DLX_CODE_INT, 32, 1},
    {DLX_CODE_INT, 64, 1},  {DLX_CODE_UINT, 8, 1},  {DLX_CODE_UINT, 16, 1}, {DLX_CODE_UINT, 32, 1},
    {DLX_CODE_UINT, 64, 1}, {DLX_CODE_FLOAT, 16, 1}, {DLX_CODE_BFLOAT, 16, 1}, {DLX_CODE_FLOAT, 32, 1},
    {DLX_CODE_FLOAT, 64, 1}, {DLX_CODE_COMPLEX, 64, 1}, {DLX_CODE_COMPLEX, 128, 1},
    {DLX_CODE_FLOAT8_E3M4, 8, 1}, {DLX_CODE_FLOAT8_E4M3, 8, 1}, {DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, 1},
    {DLX_CODE_FLOAT8_E4M3FN, 8, 1}, {DLX_CODE_FLOAT8_E4M3FNUZ, 8, 1}, {DLX_CODE_FLOAT8_E5M2, 8, 1},
    {DLX_CODE_FLOAT8_E5M2FNUZ, 8, 1}, {DLX_CODE_FLOAT8_E8M0FNU, 8, 1},
    {DLX_CODE_FLOAT6_E2M3FN, 6, 1}, {DLX_CODE_FLOAT6_E3M2FN, 6, 1}, {DLX_CODE_FLOAT4_E2M1FN, 4, 1}, /* 23..25 */
    {DLX_CODE_INT, 128, 1}, {DLX_CODE_FLOAT, 128, 1}, {DLX_CODE_COMPLEX, 32, 1},                    /* 26..28 */
    {DLX_CODE_OPAQUE_HANDLE, 8, 1}, {DLX_CODE_OPAQUE_HANDLE, 64, 1},                                /* 29..30 */
    {DLX_CODE_FLOAT, 32, 4}, {DLX_CODE_INT, 8, 3}, {DLX_CODE_FLOAT4_E2M1FN, 4, 2},                  /* 31..33 */
    {DLX_CODE_FLOAT4_E2M1FN, 4, 3}, {DLX_CODE_FLOAT6_E2M3FN, 6, 4},                                 /* 34..35 */
    {DLX_CODE_FLOAT, 16, 0}, {DLX_CODE_FLOAT, 24, 1}, {18, 32, 1}, {DLX_CODE_UINT, 1, 1},           /* illegal */
};
#define N_DTYPES ((int)(sizeof g_dtypes / sizeof g_dtypes[0]))

static const DLDevice g_devices[] = {
    {kDLCUDAHost, 0}, {kDLCUDAManaged, 0}, {kDLROCMHost, 0}, {kDLCUDA, 0}, {kDLCPU, 1}, {kDLCPU, -1},
    {kDLOneAPI, 0},   {kDLROCM, 0},        {kDLVulkan, 0},   {(DLDeviceType)0, 0}, {(DLDeviceType)5, 0},
    {(DLDeviceType)99, 0}, {kDLCUDAManaged, 3},
};
#define N_DEVICES ((int)(sizeof g_devices / sizeof g_devices[0]))

static const double g_scalars[16] = {0.0, 1.0, -1.0, 0.5, 2.0, -0.0, 3.25, -2.5,
                                     1e10, -1e10, 1e300, INFINITY, -INFINITY, NAN, 0.1, 255.5};

static const int64_t g_extreme_strides[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_C(1) << 62, -(INT64_C(1) << 62),
                                            INT64_C(1) << 61, INT64_C(1) << 32, -(INT64_C(1) << 32), INT64_C(1) << 31,
                                            (INT64_C(1) << 62) - 1, INT64_C(0x100000001), INT64_C(1) << 20,
                                            -(INT64_C(1) << 20), INT64_MAX / 3};
#define N_EXTREMES ((int)(sizeof g_extreme_strides / sizeof g_extreme_strides[0]))

static DLDataType read_raw_dtype(fuzz_reader *r) {
  DLDataType dt;
  dt.code = fuzz_u8(r);
  dt.bits = fuzz_u8(r);
  dt.lanes = (uint16_t)(fuzz_u8(r) | (fuzz_u8(r) << 8));
  return dt;
}

static DLDataType read_base_dtype(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  return b == 0xFF ? read_raw_dtype(r) : g_dtypes[b % N_DTYPES];
}

static int64_t read_extent(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xA0) return 1 + b % 4;
  if (b < 0xD0) return 1 + (b - 0xA0) % 16;
  if (b < 0xE0) return 0;
  if (b < 0xF0) return 17 + (int64_t)(b - 0xE0) * 8;
  if (b < 0xFE) return -1 - (int64_t)(b - 0xF0);
  return (int64_t)fuzz_u64(r);
}

static int32_t rank_of(uint8_t b) {
  if (b < 0xF0) return b % 7;
  if (b < 0xF8) return -1 - (b & 7);
  return 65 + (b & 7);
}

static void set_rank(vspec *v, int32_t ndim) {
  v->ndim = ndim;
  v->nd = ndim >= 0 && ndim <= MAX_RANK ? ndim : 0;
}

/* Row-major compact strides, in wrapping arithmetic (huge extents give some stride, never UB). */
static void compact_strides(vspec *v, const int32_t *order) {
  uint64_t acc = 1;
  for (int32_t k = v->nd - 1; k >= 0; --k) {
    int32_t d = order ? order[k] : k;
    v->strides[d] = (int64_t)acc;
    acc *= (uint64_t)(v->shape[d] > 0 ? v->shape[d] : 1);
  }
}

static void read_strides(fuzz_reader *r, vspec *v) {
  uint8_t b = fuzz_u8(r);
  v->stride_mode = b % 8;
  int32_t order[MAX_RANK];
  for (int32_t d = 0; d < v->nd; ++d) order[d] = d;
  switch (v->stride_mode) {
    case 0:
      compact_strides(v, NULL);
      break;
    case 1:
      for (int32_t d = 0; d < v->nd; ++d) order[d] = v->nd - 1 - d;
      compact_strides(v, order);
      break;
    case 2: {
      compact_strides(v, NULL);
      uint8_t bits = fuzz_u8(r);
      for (int32_t d = 0; d < v->nd; ++d)
        if ((bits >> d) & 1) v->strides[d] = (int64_t)(0 - (uint64_t)v->strides[d]);
      break;
    }
    case 3:
      for (int32_t k = v->nd - 1; k > 0; --k) {
        int32_t j = (int32_t)(fuzz_u8(r) % (uint32_t)(k + 1)), t = order[k];
        order[k] = order[j];
        order[j] = t;
      }
      compact_strides(v, order);
      break;
    case 4: {
      uint64_t acc = 1;
      for (int32_t d = v->nd - 1; d >= 0; --d) {
        uint8_t g = fuzz_u8(r);
        uint64_t step = acc * (1u + (g & 3u));
        v->strides[d] = (int64_t)((g & 4) ? 0 - step : step);
        acc = step * (uint64_t)(v->shape[d] > 0 ? v->shape[d] : 1);
      }
      break;
    }
    case 5:
      for (int32_t d = 0; d < v->nd; ++d) v->strides[d] = (int64_t)(fuzz_u8(r) % 17) - 8;
      break;
    case 6:
      for (int32_t d = 0; d < v->nd; ++d) {
        uint8_t x = fuzz_u8(r);
        v->strides[d] = x < 0xC0 ? (int64_t)(x % 33) - 16
                        : x < 0xFF ? g_extreme_strides[(x - 0xC0) % N_EXTREMES]
                                   : (int64_t)fuzz_u64(r);
      }
      break;
    default: {
      compact_strides(v, NULL);
      uint8_t bits = fuzz_u8(r);
      for (int32_t d = 0; d < v->nd; ++d)
        if ((bits >> d) & 1) v->strides[d] = 0;
      break;
    }
  }
}

static void read_offset(fuzz_reader *r, vspec *v) {
  uint8_t b = fuzz_u8(r);
  if (b < 0x80) {
    v->omode = OFF_CURSOR;
    v->oarg = b % 16;
  } else if (b < 0xC0) {
    v->omode = OFF_START;
    v->oarg = b & 63;
  } else if (b < 0xEE) {
    v->omode = OFF_ALIAS;
    v->oarg = (int8_t)fuzz_u8(r);
  } else if (b < 0xF0) {
    v->omode = OFF_NULL;
    v->oarg = 0;
  } else {
    v->omode = OFF_RAW;
    v->oarg = (int64_t)fuzz_u64(r);
  }
}

/* Keep view.h's promise: the element count with extents of 0 counted as 1 fits int64. */
static void keep_count_in_int64(vspec *v) {
  for (;;) {
    __int128 n = 1;
    int32_t big = -1;
    for (int32_t d = 0; d < v->nd; ++d) {
      if (v->shape[d] < 0) return; /* refused anyway */
      if (v->shape[d] > 1) n *= v->shape[d];
      if (n > INT64_MAX) n = (__int128)INT64_MAX + 1; /* no 128-bit overflow either */
      if (big < 0 || v->shape[d] > v->shape[big]) big = d;
    }
    if (n <= INT64_MAX) return;
    v->shape[big] /= 2;
  }
}

/* The view has at most cap elements (the work an op does). */
static void cap_elements(vspec *v, int64_t cap) {
  for (;;) {
    __int128 n = 1;
    int32_t big = -1;
    for (int32_t d = 0; d < v->nd; ++d) {
      if (v->shape[d] <= 0) return; /* empty, or refused */
      n *= v->shape[d];
      if (n > INT64_MAX) n = (__int128)INT64_MAX + 1;
      if (big < 0 || v->shape[d] > v->shape[big]) big = d;
    }
    if (n <= cap) return;
    v->shape[big] = v->shape[big] / 2 + (v->shape[big] & 1);
  }
}

static DLDevice read_device(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  DLDevice dev = {kDLCPU, 0};
  if (b < 0xC0) return dev;
  if (b < 0xFF) return g_devices[(b - 0xC0) % N_DEVICES];
  dev.device_type = (DLDeviceType)(int32_t)fuzz_u32(r);
  dev.device_id = (int32_t)fuzz_u32(r);
  return dev;
}

/* The comparisons: the rows that take int64 with uint64 (dlx/ops.h). */
static bool is_comparison(const opcase *c) {
  const dlx__op_info *row = op_row(c);
  return c->kind == K_BINARY && row != NULL && row->kind == DLX__KIND_CMP;
}

/* What the op's rule makes operand k (0 out) from the case's dtypes T and U. */
static DLDataType rule_dtype(const opcase *c, int k, DLDataType t, DLDataType u, bool partner) {
  const dlx__op_info *row = op_row(c);
  switch (c->kind) {
    case K_CAST: return k == 0 ? t : u;
    case K_BINARY:
      if (k == 2 && partner && t.bits == 64 && t.lanes == 1 && (t.code == DLX_CODE_INT || t.code == DLX_CODE_UINT))
        t.code = t.code == DLX_CODE_INT ? DLX_CODE_UINT : DLX_CODE_INT;
      return k == 0 && row != NULL && row->bool_result ? DLX_DTYPE_BOOL : t;
    case K_UNARY: return k == 0 && row != NULL && row->bool_result ? DLX_DTYPE_BOOL : t;
    case K_TERNARY: return k == 1 && c->op == DLX_TERNOP_WHERE ? DLX_DTYPE_BOOL : t; /* where's condition */
    case K_FMA:
      if (k == 1 && partner && t.code == DLX_CODE_UINT) t.code = DLX_CODE_INT;
      return t;
    default: return t;
  }
}

static void read_view(fuzz_reader *r, opcase *c, int k, DLDataType rule) {
  vspec *v = &c->v[k];
  const vspec *out = &c->v[0];
  uint8_t b = fuzz_u8(r);
  v->dtype = b < 0x80 ? rule : b < 0xFF ? g_dtypes[(b - 0x80) % N_DTYPES] : read_raw_dtype(r);
  v->flags = fuzz_u8(r) & (DLX_VIEW_SUBBYTE_PADDED | DLX_VIEW_READ_ONLY);
  v->device = read_device(r);
  uint8_t s = fuzz_u8(r);
  if (k == 0) {
    v->shape_mode = -1;
    set_rank(v, rank_of(s));
    for (int32_t d = 0; d < v->nd; ++d) v->shape[d] = read_extent(r);
    keep_count_in_int64(v);
    cap_elements(v, c->kind == K_REDUCE ? MAX_REDUCE_ELEMS : MAX_OUT_ELEMS);
  } else {
    v->shape_mode = s & 3;
    switch (v->shape_mode) {
      case 0:
        set_rank(v, out->ndim);
        memcpy(v->shape, out->shape, sizeof v->shape);
        break;
      case 1: {
        int32_t drop = (int32_t)((uint32_t)(s >> 2) % (uint32_t)(out->nd + 1));
        set_rank(v, out->nd - drop);
        uint8_t ones = fuzz_u8(r);
        for (int32_t d = 0; d < v->nd; ++d) v->shape[d] = ((ones >> d) & 1) ? 1 : out->shape[drop + d];
        break;
      }
      case 2:
        set_rank(v, (s >> 2) < 0x38 ? (s >> 2) % 7 : ((s >> 2) & 1 ? 65 : -1));
        for (int32_t d = 0; d < v->nd; ++d) v->shape[d] = read_extent(r);
        keep_count_in_int64(v);
        break;
      default: /* in place: out's layout, maybe moved */
        set_rank(v, out->ndim);
        memcpy(v->shape, out->shape, sizeof v->shape);
        memcpy(v->strides, out->strides, sizeof v->strides);
        v->stride_mode = -1;
        v->omode = OFF_ALIAS;
        v->oarg = ((s >> 2) & 1) ? (int8_t)fuzz_u8(r) : 0;
        return;
    }
  }
  read_strides(r, v);
  read_offset(r, v);
}

/* ---- reductions: decoding ------------------------------------------------------------------------ */

/* NumPy's default result dtype of reduction op on t (dlx/ops.h), from the harness's own table. */
static DLDataType reduce_default(int32_t op, DLDataType t) {
  const bool sint = t.lanes == 1 && (t.code == DLX_CODE_BOOL || (t.code == DLX_CODE_INT && t.bits <= 64));
  const bool uint = t.lanes == 1 && t.code == DLX_CODE_UINT && t.bits <= 64;
  switch (op) {
    case DLX_REDUCE_SUM:
    case DLX_REDUCE_PROD: return sint ? DLX_DTYPE_INT64 : uint ? DLX_DTYPE_UINT64 : t;
    case DLX_REDUCE_MEAN: return sint || uint ? DLX_DTYPE_FLOAT64 : t;
    case DLX_REDUCE_ARGMIN:
    case DLX_REDUCE_ARGMAX: return DLX_DTYPE_INT64;
    case DLX_REDUCE_ANY:
    case DLX_REDUCE_ALL: return DLX_DTYPE_BOOL;
    default: return t;
  }
}

/* The reduced axes as a mask; false when the axes are refused (out of range, repeated, a bad count). */
static bool reduce_axes(const opcase *c, const vspec *in, bool *mask) {
  for (int32_t d = 0; d < in->nd; ++d) mask[d] = c->naxes == -1;
  if (c->naxes == -1) return true;
  if (c->naxes < 0 || c->naxes > DLX_MAX_NDIM) return false;
  for (int32_t i = 0; i < c->naxes; ++i) {
    const int32_t a = c->axes[i];
    if (a < -in->nd || a >= in->nd) return false;
    const int32_t d = a < 0 ? a + in->nd : a;
    if (mask[d]) return false;
    mask[d] = true;
  }
  return true;
}

/* The result's shape (the input's without the reduced axes, or with 1 there under keepdims). */
static int32_t reduce_shape(const opcase *c, const vspec *in, const bool *mask, int64_t *shape) {
  int32_t n = 0;
  for (int32_t d = 0; d < in->nd; ++d) {
    if (!mask[d]) shape[n++] = in->shape[d];
    else if (c->keepdims) shape[n++] = 1;
  }
  return n;
}

static void read_reduction(fuzz_reader *r, opcase *c, DLDataType t, DLDataType u) {
  c->v[0].role = "a";
  c->v[1].role = "out";
  read_view(r, c, 0, t);
  vspec *in = &c->v[0], *out = &c->v[1];
  const uint8_t ab = fuzz_u8(r);
  c->naxes = ab < 0xF0 ? (int32_t)(ab % (uint32_t)(in->nd + 2)) - 1 : (int32_t)fuzz_u32(r);
  for (int32_t i = 0; i < c->naxes && i < 8; ++i) c->axes[i] = (int32_t)(int8_t)fuzz_u8(r) % (in->nd + 1);
  c->keepdims = fuzz_u8(r) & 1;
  const uint8_t db = fuzz_u8(r);
  out->dtype = db < 0x40 ? reduce_default(c->rop, in->dtype) : db < 0x80 ? u
               : db < 0xFF ? g_dtypes[(db - 0x80) % N_DTYPES] : read_raw_dtype(r);
  out->flags = fuzz_u8(r) & (DLX_VIEW_SUBBYTE_PADDED | DLX_VIEW_READ_ONLY);
  out->device = read_device(r);
  const uint8_t sb = fuzz_u8(r);
  out->shape_mode = sb & 3;
  bool mask[DLX_MAX_NDIM] = {false};
  int64_t shape[MAX_RANK];
  int32_t n = in->nd;
  if (reduce_axes(c, in, mask)) n = reduce_shape(c, in, mask, shape);
  else memcpy(shape, in->shape, sizeof shape);
  if (out->shape_mode < 2) {
    set_rank(out, n);
    for (int32_t d = 0; d < n; ++d) out->shape[d] = shape[d];
    if (out->shape_mode == 1) {
      if (n == 0) set_rank(out, 1), out->shape[0] = 2;
      else ++out->shape[(sb >> 2) % (uint32_t)n];
    }
  } else if (out->shape_mode == 2) {
    set_rank(out, rank_of(fuzz_u8(r)));
    for (int32_t d = 0; d < out->nd; ++d) out->shape[d] = read_extent(r);
    keep_count_in_int64(out);
  } else { /* the input's layout and place */
    set_rank(out, in->ndim);
    memcpy(out->shape, in->shape, sizeof out->shape);
    memcpy(out->strides, in->strides, sizeof out->strides);
    out->stride_mode = -1;
    out->omode = OFF_ALIAS;
    out->oarg = ((sb >> 2) & 1) ? (int8_t)fuzz_u8(r) : 0;
    return;
  }
  read_strides(r, out);
  read_offset(r, out);
}

/* ---- spans and placement ------------------------------------------------------------------------ */

static bool is_packed(const vspec *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

static __int128 floor_div8(__int128 x) { return x >= 0 ? x / 8 : -((-x + 7) / 8); }
static __int128 ceil_div8(__int128 x) { return x >= 0 ? (x + 7) / 8 : -((-x) / 8); }

/* Bits of one element step (the stride unit): packed sub-byte data is addressed in bits. */
static int64_t unit_bits(const vspec *v) {
  return is_packed(v) ? (int64_t)dlx_dtype_element_bits(v->dtype) : 8 * (int64_t)dlx_dtype_itemsize(v->dtype);
}

#define SPAN_CLAMP ((__int128)1 << 100)

static void compute_span(vspec *v) {
  v->geom = v->ndim >= 0 && v->ndim <= MAX_RANK && dlx_dtype_is_valid(v->dtype);
  v->empty = false;
  v->lo = v->hi = 0;
  for (int32_t d = 0; d < v->nd; ++d) {
    if (v->shape[d] < 0) v->geom = false;
    if (v->shape[d] == 0) v->empty = true;
  }
  if (!v->geom) {
    v->empty = false;
    return;
  }
  if (v->empty) return;
  __int128 low = 0, high = 0;
  for (int32_t d = 0; d < v->nd; ++d) {
    if (v->shape[d] == 1) continue; /* its stride is never applied */
    /* below 2^126 in magnitude; the sums are clamped (such a view is far outside any arena) so that
     * neither they nor their product with the unit leave 128 bits */
    const __int128 reach = (__int128)(v->shape[d] - 1) * v->strides[d];
    if (reach < 0) low = low + reach < -SPAN_CLAMP ? -SPAN_CLAMP : low + reach;
    else high = high + reach > SPAN_CLAMP ? SPAN_CLAMP : high + reach;
  }
  const int64_t u = unit_bits(v);
  v->lo = floor_div8(low * u);
  v->hi = ceil_div8((high + 1) * u);
}

static void place_views(opcase *c, uint8_t tail) {
  __int128 cursor = 0, top = 0;
  for (int k = 0; k < c->nview; ++k) {
    vspec *v = &c->v[k];
    compute_span(v);
    v->null = false;
    off_mode m = v->omode;
    if (k == 0 && m == OFF_ALIAS) m = OFF_CURSOR;
    const int64_t step = v->geom ? (is_packed(v) ? 1 : (int64_t)dlx_dtype_itemsize(v->dtype)) : 1;
    switch (m) {
      case OFF_CURSOR: v->off = cursor + (k == 0 && v->omode == OFF_ALIAS ? 0 : v->oarg * step) - v->lo; break;
      case OFF_START: v->off = v->oarg - v->lo; break;
      case OFF_ALIAS:
        v->null = c->v[0].null;
        v->off = c->v[0].off + (__int128)v->oarg * step;
        break;
      case OFF_NULL: v->null = true; v->off = 0; break;
      default: v->off = v->oarg; break;
    }
    if (m != OFF_NULL && m != OFF_RAW && !v->null && v->geom && !v->empty && v->off + v->lo >= 0 &&
        v->off + v->hi <= ARENA_MAX) {
      if (v->off + v->hi > top) top = v->off + v->hi;
      if (v->off + v->hi > cursor) cursor = v->off + v->hi;
    }
  }
  c->arena_size = (size_t)top + tail % 16;
  if (c->arena_size == 0) c->arena_size = 1;
  for (int k = 0; k < c->nview; ++k) {
    vspec *v = &c->v[k];
    v->in_arena = v->geom && (v->empty || (!v->null && v->off + v->lo >= 0 && v->off + v->hi <= (__int128)c->arena_size));
  }
}

/* ---- the model of the validation ---------------------------------------------------------------- */

typedef enum kclass { KC_NONE, KC_BOOL, KC_SINT, KC_UINT, KC_FLOAT, KC_COMPLEX, KC_SUB } kclass;

/* Which typed kernel family a dtype has (ops.h): scalars of the numeric kinds only. */
static kclass kclass_of(DLDataType dt) {
  if (dt.lanes != 1 || !dlx_dtype_is_valid(dt)) return KC_NONE;
  switch (dt.code) {
    case DLX_CODE_BOOL: return KC_BOOL;
    case DLX_CODE_INT: return dt.bits <= 64 ? KC_SINT : KC_NONE;
    case DLX_CODE_UINT: return dt.bits <= 64 ? KC_UINT : KC_NONE; /* no uint128 kernels, as for int128 */
    case DLX_CODE_FLOAT: return dt.bits <= 64 ? KC_FLOAT : KC_NONE;
    case DLX_CODE_BFLOAT: return KC_FLOAT;
    case DLX_CODE_COMPLEX: return dt.bits >= 64 ? KC_COMPLEX : KC_NONE;
    case DLX_CODE_FLOAT6_E2M3FN:
    case DLX_CODE_FLOAT6_E3M2FN:
    case DLX_CODE_FLOAT4_E2M1FN: return KC_SUB;
    default: return dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT8_E8M0FNU ? KC_FLOAT : KC_NONE;
  }
}

static bool host_backend(DLDevice dev) {
  int32_t t = (int32_t)dev.device_type;
  return t == kDLCPU || t == kDLCUDAHost || t == kDLCUDAManaged || t == kDLROCMHost;
}

static bool broadcasts(const vspec *in, const vspec *out) {
  if (in->ndim > out->ndim) return false;
  for (int32_t j = 0; j < in->nd; ++j) {
    int64_t e = in->shape[in->nd - 1 - j], o = out->shape[out->nd - 1 - j];
    if (e != o && e != 1) return false;
  }
  return true;
}

#define BIT(s) (1u << (unsigned)(s))

/* What every operand must satisfy (ops.c's check_view): statuses into the result, oneAPI's possible ones
 * into *oneapi, and whether every rank is legal. */
static uint32_t view_checks(const opcase *c, uint32_t *oneapi_out, bool *ranks_out) {
  uint32_t m = 0, oneapi = 0;
  bool ranks_ok = true;
  for (int k = 0; k < c->nview; ++k) {
    const vspec *v = &c->v[k];
    if (v->ndim < 0 || v->ndim > DLX_MAX_NDIM) {
      m |= BIT(DLX_ERR_RANK);
      ranks_ok = false;
      continue;
    }
    if (!dlx_dtype_is_valid(v->dtype)) m |= BIT(DLX_ERR_INVALID_DTYPE);
    bool neg = false, empty = false;
    for (int32_t d = 0; d < v->nd; ++d) {
      if (v->shape[d] < 0) neg = true;
      if (v->shape[d] == 0) empty = true;
    }
    if (neg) m |= BIT(DLX_ERR_NEGATIVE_EXTENT);
    if (!neg && !empty && v->null) m |= BIT(DLX_ERR_NULL_DATA);
    /* oneAPI has a backend in every build, whose runtime (dpctl's C API) may be absent (UNSUPPORTED, naming
     * DLX_DPCTL_LIBRARY), and which, when present, checks the pointers against its devices; an op with
     * nothing to do may succeed before asking it */
    if ((int32_t)v->device.device_type == kDLOneAPI)
      oneapi |= BIT(DLX_ERR_UNSUPPORTED) | BIT(DLX_ERR_INVALID_DEVICE) | BIT(DLX_ERR_BACKEND) |
                BIT(DLX_ERR_DEVICE_MISMATCH);
    else if (!host_backend(v->device))
      m |= BIT(DLX_ERR_DEVICE_MISMATCH);
  }
  *oneapi_out = oneapi;
  *ranks_out = ranks_ok;
  return m;
}

/* The op table's category of a dtype (DLX__CAT_*), 0 for one with no arithmetic kernel (float6/float4
 * included: they take part only in copy, fill and cast). */
static unsigned category_of(DLDataType dt) {
  switch (kclass_of(dt)) {
    case KC_BOOL: return DLX__CAT_BOOL;
    case KC_SINT: return DLX__CAT_SINT;
    case KC_UINT: return DLX__CAT_UINT;
    case KC_FLOAT: return DLX__CAT_REAL;
    case KC_COMPLEX: return DLX__CAT_CPLX;
    default: return 0;
  }
}

/* The dtype rules of an op of the table (dlx_unary, dlx_binary, dlx_ternary), from its row: the inputs
 * share a dtype (where: a bool condition, then two values of one dtype; the comparisons also take int64
 * with uint64), of the row's class; out has that dtype, or bool for a row that writes bool. */
static uint32_t table_op_mask(const opcase *c) {
  const dlx__op_info *row = op_row(c);
  if (row == NULL) return BIT(DLX_ERR_INVALID_ARGUMENT);
  const vspec *out = &c->v[0], *a = &c->v[1], *b = &c->v[2], *third = &c->v[3];
  const vspec *lead = a; /* the operand whose dtype the class and out follow */
  uint32_t m = 0;
  if (c->kind == K_BINARY) {
    const kclass ka = kclass_of(a->dtype), kb = kclass_of(b->dtype);
    const bool mixed = is_comparison(c) && a->dtype.bits == 64 && b->dtype.bits == 64 &&
                       ((ka == KC_SINT && kb == KC_UINT) || (ka == KC_UINT && kb == KC_SINT));
    if (!dlx_dtype_equal(a->dtype, b->dtype) && !mixed) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
  } else if (c->kind == K_TERNARY) {
    if (c->op == DLX_TERNOP_WHERE) {
      if (!dlx_dtype_equal(a->dtype, DLX_DTYPE_BOOL)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
      lead = b;
    } else if (!dlx_dtype_equal(b->dtype, a->dtype)) {
      m |= BIT(DLX_ERR_DTYPE_MISMATCH);
    }
    if (!dlx_dtype_equal(third->dtype, lead->dtype)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
  }
  if ((row->cats & category_of(lead->dtype)) == 0) m |= BIT(DLX_ERR_UNSUPPORTED);
  if (!dlx_dtype_equal(out->dtype, row->bool_result ? DLX_DTYPE_BOOL : lead->dtype)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
  return m;
}

static uint32_t refusal_mask(opcase *c) {
  uint32_t oneapi;
  bool ranks_ok;
  uint32_t m = view_checks(c, &oneapi, &ranks_ok);
  const vspec *out = &c->v[0], *a = &c->v[1], *b = &c->v[2];
  /* each op's dtype rule */
  const kclass ko = kclass_of(out->dtype), ka = kclass_of(a->dtype);
  bool packed_check = false;
  switch (c->kind) {
    case K_COPY:
    case K_FILL:
      if (!dlx_dtype_equal(out->dtype, a->dtype)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
      packed_check = true;
      break;
    case K_CAST:
      if (!dlx_dtype_equal(out->dtype, a->dtype) && (ko == KC_NONE || ka == KC_NONE)) m |= BIT(DLX_ERR_UNSUPPORTED);
      packed_check = true;
      break;
    case K_UNARY:
    case K_BINARY:
    case K_TERNARY: m |= table_op_mask(c); break;
    default: { /* fma: a is t1, b is t2 */
      const kclass kb = kclass_of(b->dtype);
      if (kb == KC_NONE || kb == KC_SUB) m |= BIT(DLX_ERR_UNSUPPORTED);
      const bool partner = kb == KC_UINT && ka == KC_SINT && a->dtype.bits == b->dtype.bits;
      if (!(dlx_dtype_equal(a->dtype, b->dtype) && kb != KC_NONE) && !partner) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
      if (!dlx_dtype_equal(out->dtype, b->dtype)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
      break;
    }
  }
  if (packed_check) {
    for (int k = 0; k < c->nview; ++k) {
      const vspec *v = &c->v[k];
      if (is_packed(v) && (v->dtype.lanes != 1 || v->dtype.bits > 8)) m |= BIT(DLX_ERR_UNSUPPORTED);
    }
  }
  /* the output, broadcasting */
  if (out->flags & DLX_VIEW_READ_ONLY) m |= BIT(DLX_ERR_READ_ONLY);
  for (int32_t d = 0; d < out->nd; ++d)
    if (out->shape[d] > 1 && out->strides[d] == 0) m |= BIT(DLX_ERR_BAD_STRIDE);
  if (ranks_ok)
    for (int k = 1; k < c->nview; ++k)
      if (!broadcasts(&c->v[k], out)) m |= BIT(DLX_ERR_BROADCAST);
  c->oneapi_only = m == 0 && oneapi != 0;
  c->oneapi = oneapi;
  return m | oneapi;
}

/* Whether two views' byte ranges intersect (both with elements, placed in the arena). */
static bool spans_meet(const vspec *x, const vspec *y) {
  return !x->empty && !y->empty && x->off + x->lo < y->off + y->hi && y->off + y->lo < x->off + x->hi;
}

/* A view whose byte range does not fit int64 (dlx_view_byte_span's DLX_ERR_OVERFLOW). */
static bool span_overflows(const vspec *v) {
  return v->geom && !v->empty && (v->lo < INT64_MIN || v->hi > INT64_MAX);
}

/* The reductions' rules (reduce.c): the op, the input's dtype, the axes, out's dtype, shape and flags, the
 * devices, an out overlapping the input, an empty min / max / argmin / argmax. */
static uint32_t reduce_mask(opcase *c) {
  uint32_t oneapi;
  bool ranks_ok;
  uint32_t m = view_checks(c, &oneapi, &ranks_ok);
  const vspec *in = &c->v[0], *out = &c->v[1];
  const bool op_ok = c->rop >= 0 && c->rop < DLX_REDUCE_COUNT;
  if (!op_ok) m |= BIT(DLX_ERR_INVALID_ARGUMENT);
  const kclass ki = kclass_of(in->dtype), ko = kclass_of(out->dtype);
  if (ki == KC_NONE || ki == KC_SUB) m |= BIT(DLX_ERR_UNSUPPORTED);
  if (op_ok) {
    const bool arg = c->rop == DLX_REDUCE_ARGMIN || c->rop == DLX_REDUCE_ARGMAX;
    const bool logic = c->rop == DLX_REDUCE_ANY || c->rop == DLX_REDUCE_ALL;
    if (arg && !dlx_dtype_equal(out->dtype, DLX_DTYPE_INT64)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
    if (logic && !dlx_dtype_equal(out->dtype, DLX_DTYPE_BOOL)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
    if (ko == KC_NONE || ko == KC_SUB) m |= BIT(DLX_ERR_UNSUPPORTED);
    if (c->rop == DLX_REDUCE_MEAN && (ko == KC_BOOL || ko == KC_SINT || ko == KC_UINT)) m |= BIT(DLX_ERR_DTYPE_MISMATCH);
  }
  bool mask[DLX_MAX_NDIM] = {false};
  bool empty_reduction = false;
  /* the axes are checked against the input before out is looked at: whatever out's rank */
  if (in->ndim >= 0 && in->ndim <= MAX_RANK) {
    if (c->naxes != -1 && (c->naxes < 0 || c->naxes > DLX_MAX_NDIM)) m |= BIT(DLX_ERR_INVALID_ARGUMENT);
    else if (!reduce_axes(c, in, mask)) m |= BIT(DLX_ERR_INDEX) | BIT(DLX_ERR_INVALID_ARGUMENT);
    else {
      int64_t shape[MAX_RANK];
      const int32_t n = reduce_shape(c, in, mask, shape);
      bool same = ranks_ok && n == out->ndim;
      for (int32_t d = 0; same && d < n; ++d) same = shape[d] == out->shape[d];
      if (!same) m |= BIT(DLX_ERR_INVALID_ARGUMENT);
      for (int32_t d = 0; d < in->nd; ++d) empty_reduction |= mask[d] && in->shape[d] == 0;
    }
  }
  if (out->flags & DLX_VIEW_READ_ONLY) m |= BIT(DLX_ERR_READ_ONLY);
  for (int32_t d = 0; d < out->nd; ++d)
    if (out->shape[d] > 1 && out->strides[d] == 0) m |= BIT(DLX_ERR_BAD_STRIDE);
  if (host_backend(in->device) != host_backend(out->device)) m |= BIT(DLX_ERR_DEVICE_MISMATCH);
  /* the overlap test is exact on views in the arena; elsewhere (a refused call) it may come first */
  if (in->in_arena && out->in_arena) {
    if (spans_meet(in, out)) m |= BIT(DLX_ERR_INVALID_ARGUMENT);
  } else if (m != 0 || oneapi != 0) {
    m |= BIT(DLX_ERR_INVALID_ARGUMENT);
  }
  if (span_overflows(in) || span_overflows(out)) m |= BIT(DLX_ERR_OVERFLOW);
  const bool select = c->rop == DLX_REDUCE_MIN || c->rop == DLX_REDUCE_MAX || c->rop == DLX_REDUCE_ARGMIN ||
                      c->rop == DLX_REDUCE_ARGMAX;
  if (empty_reduction && select) m |= BIT(DLX_ERR_INVALID_ARGUMENT);
  c->oneapi_only = m == 0 && oneapi != 0;
  c->oneapi = oneapi;
  return m | oneapi;
}

/* ---- running ------------------------------------------------------------------------------------ */

static dlx_view g_views[MAX_VIEWS];

static void build_views(const opcase *c, unsigned char *base) {
  for (int k = 0; k < c->nview; ++k) {
    const vspec *s = &c->v[k];
    dlx_view *v = &g_views[k];
    memset(v, 0, sizeof *v);
    v->data = s->null ? NULL : (void *)((uintptr_t)base + (uintptr_t)(uint64_t)s->off);
    v->dtype = s->dtype;
    v->device = s->device;
    v->ndim = s->ndim;
    v->flags = s->flags;
    memcpy(v->shape, s->shape, (size_t)s->nd * sizeof(int64_t));
    memcpy(v->strides, s->strides, (size_t)s->nd * sizeof(int64_t));
  }
}

static dlx_status call_op(const opcase *c, unsigned char *base, bool reference) {
  build_views(c, base);
  bool was = dlx__ops_set_reference(reference);
  dlx_clear_error();
  dlx_status st;
  switch (c->kind) {
    case K_COPY: st = dlx_copy(&g_views[0], &g_views[1]); break;
    case K_FILL: st = dlx_fill(&g_views[0], &g_views[1]); break;
    case K_CAST: st = dlx_cast(&g_views[0], &g_views[1]); break;
    case K_UNARY: st = dlx_unary((dlx_unop)c->op, &g_views[0], &g_views[1]); break;
    case K_BINARY: st = dlx_binary((dlx_binop)c->op, &g_views[0], &g_views[1], &g_views[2]); break;
    case K_TERNARY: st = dlx_ternary((dlx_ternop)c->op, &g_views[0], &g_views[1], &g_views[2], &g_views[3]); break;
    case K_REDUCE:
      st = dlx_reduce((dlx_reduce_op)c->rop, &g_views[1], &g_views[0], c->naxes, c->axes, c->keepdims);
      break;
    default: st = dlx_fma(&g_views[0], c->scalar, &g_views[1], &g_views[2]); break;
  }
  dlx__ops_set_reference(was);
  return st;
}

static void null_argument_checks(const opcase *c, unsigned char *base) {
  build_views(c, base);
  const dlx_view *o = &g_views[0], *a = &g_views[1];
  dlx_status st[20];
  int n = 0;
  /* the NULL check comes before the op's: an op past the table still gives NULL_ARGUMENT */
  const dlx_unop uop = (dlx_unop)c->op;
  const dlx_binop bop = (dlx_binop)c->op;
  const dlx_ternop top = (dlx_ternop)c->op;
  st[n++] = dlx_unary(uop, NULL, a);
  st[n++] = dlx_unary(uop, o, NULL);
  st[n++] = dlx_binary(bop, o, NULL, a);
  st[n++] = dlx_ternary(top, NULL, a, a, a);
  st[n++] = dlx_ternary(top, o, NULL, a, a);
  st[n++] = dlx_ternary(top, o, a, NULL, a);
  st[n++] = dlx_ternary(top, o, a, a, NULL);
  st[n++] = dlx_copy(NULL, a);
  st[n++] = dlx_copy(o, NULL);
  st[n++] = dlx_fill(NULL, a);
  st[n++] = dlx_cast(o, NULL);
  st[n++] = dlx_binary(DLX_OP_ADD, o, a, NULL);
  st[n++] = dlx_binary(DLX_OP_ADD, NULL, a, a);
  st[n++] = dlx_fma(o, 1.0, NULL, a);
  st[n++] = dlx_fma(NULL, 1.0, a, a);
  st[n++] = dlx_reduce(DLX_REDUCE_SUM, NULL, a, DLX_REDUCE_ALL_AXES, NULL, 0);
  st[n++] = dlx_reduce(DLX_REDUCE_MAX, o, NULL, DLX_REDUCE_ALL_AXES, NULL, 0);
  for (int i = 0; i < n; ++i) ORACLE(st[i] == DLX_ERR_NULL_ARGUMENT, "NULL-argument call %d gave %s", i, dlx_status_name(st[i]));
}

/* ---- the output's elements ---------------------------------------------------------------------- */

/* Mark the bits of every output element in mask (arena_size bytes, one bit per arena bit). Returns
 * true when two distinct indices share memory (the result then depends on the write order). */
static bool mark_output(const opcase *c, uint8_t *mask) {
  const vspec *v = out_view(c);
  const bool packed = is_packed(v);
  const int64_t ub = unit_bits(v);
  const int64_t size = (int64_t)dlx_dtype_itemsize(v->dtype);
  const int64_t base_bit = (int64_t)v->off * 8;
  bool overlap = false;
  int64_t idx[MAX_RANK] = {0};
  for (;;) {
    int64_t e = 0;
    for (int32_t d = 0; d < v->nd; ++d) e += idx[d] * v->strides[d];
    if (packed) {
      const int64_t bits = (int64_t)dlx_dtype_element_bits(v->dtype);
      for (int64_t i = 0; i < bits; ++i) {
        const int64_t p = base_bit + e * ub + i;
        FUZZ_CHECK(p >= 0 && (size_t)(p / 8) < c->arena_size, "harness: output bit %lld outside the arena", (long long)p);
        if (mask[p / 8] & (1u << (p % 8))) overlap = true;
        mask[p / 8] |= (uint8_t)(1u << (p % 8));
      }
    } else {
      const int64_t start = (int64_t)v->off + e * size;
      FUZZ_CHECK(start >= 0 && (size_t)(start + size) <= c->arena_size, "harness: output byte %lld outside the arena",
                 (long long)start);
      if (mask[start]) overlap = true;
      memset(mask + start, 0xFF, (size_t)size);
    }
    int32_t d = v->nd - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < v->shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  return overlap;
}

static bool nan_at(const unsigned char *p, DLDataType dt, int part) {
  switch (dt.code) {
    case DLX_CODE_FLOAT:
      if (dt.bits == 32) {
        float f;
        memcpy(&f, p, 4);
        return f != f;
      }
      if (dt.bits == 64) {
        double f;
        memcpy(&f, p, 8);
        return f != f;
      }
      break;
    case DLX_CODE_COMPLEX:
      if (dt.bits == 64) {
        float f;
        memcpy(&f, p + 4 * part, 4);
        return f != f;
      }
      if (dt.bits == 128) {
        double f;
        memcpy(&f, p + 8 * part, 8);
        return f != f;
      }
      return false;
    default:
      break;
  }
  if ((dt.code == DLX_CODE_FLOAT && dt.bits == 16) || dt.code == DLX_CODE_BFLOAT) {
    uint16_t h;
    memcpy(&h, p, 2);
    double x = dlx__cvt_narrow_decode(dt.code, h);
    return x != x;
  }
  if (dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT8_E8M0FNU) {
    double x = dlx__cvt_narrow_decode(dt.code, *p);
    return x != x;
  }
  return false;
}

/* Whether the op computes (then which NaN it passes on is open), rather than moving bits: where selects,
 * positive copies (op_table.h's MOVE), and those must match bit for bit, as copies do. */
static bool arithmetic(const opcase *c) {
  const dlx__op_info *row = op_row(c);
  switch (c->kind) {
    case K_BINARY:
    case K_FMA: return true;
    case K_UNARY: return row != NULL && row->nar != DLX__NAR_MOVE;
    case K_TERNARY: return c->op != DLX_TERNOP_WHERE;
    default: return false;
  }
}

/* Where both arenas hold a NaN in the same output element (or complex part), take the reference's
 * bits: NaN sign and payload are not pinned down by ops.h. */
static void canonicalize_nans(const opcase *c, unsigned char *fast, const unsigned char *ref) {
  const vspec *v = &c->v[0];
  const kclass k = kclass_of(v->dtype);
  if ((k != KC_FLOAT && k != KC_COMPLEX) || is_packed(v)) return;
  const int64_t size = (int64_t)dlx_dtype_itemsize(v->dtype);
  const int parts = k == KC_COMPLEX ? 2 : 1;
  int64_t idx[MAX_RANK] = {0};
  for (;;) {
    int64_t e = 0;
    for (int32_t d = 0; d < v->nd; ++d) e += idx[d] * v->strides[d];
    const size_t pos = (size_t)((int64_t)v->off + e * size);
    for (int part = 0; part < parts; ++part) {
      if (nan_at(fast + pos, v->dtype, part) && nan_at(ref + pos, v->dtype, part)) {
        const size_t psize = (size_t)size / (size_t)parts;
        memcpy(fast + pos + (size_t)part * psize, ref + pos + (size_t)part * psize, psize);
      }
    }
    int32_t d = v->nd - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < v->shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

/* ---- the arena ---------------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void fill_arena(unsigned char *p, size_t n, uint8_t mode, uint32_t seed) {
  static const unsigned char special[8] = {0x00, 0x01, 0x3C, 0x7F, 0x80, 0xFF, 0x40, 0xC0};
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = splitmix(&s);
    switch (mode % 4) {
      case 0: p[i] = (unsigned char)x; break;
      case 1: p[i] = (x & 0x300) ? 0 : (unsigned char)x; break;
      case 2:
        if (i % 4 == 0 && i + 4 <= n) {
          const float f = (float)((int)(x % 17) - 8) / 4.0f;
          memcpy(p + i, &f, 4);
          i += 3;
        } else {
          p[i] = 0;
        }
        break;
      default: p[i] = special[x % 8]; break;
    }
  }
}

static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

/* ---- the harness -------------------------------------------------------------------------------- */

#ifdef DLX_FUZZ_OPS_STATS
/* A census of what the inputs reach (build with -DDLX_FUZZ_OPS_STATS; printed at exit). */
static long g_stats[9], g_ok_kind[K_COUNT + 1], g_status[DLX_STATUS_COUNT];
static long g_ok_unop[DLX_UNOP_COUNT], g_ok_binop[DLX_OP_COUNT], g_ok_ternop[DLX_TERNOP_COUNT];
static void print_rows(const char *what, const dlx__op_info *rows, const long *counts, int n) {
  fprintf(stderr, "  %s written per row:", what);
  for (int i = 0; i < n; ++i) fprintf(stderr, " %s %ld", rows[i].name, counts[i]);
  fprintf(stderr, "\n");
}
static void print_stats(void) {
  fprintf(stderr, "fuzz_ops: %ld inputs, %ld skipped, %ld refused, %ld empty outputs, %ld written (%ld self-overlapping, "
          "%ld threaded, %ld packed outputs, %ld with an input overlapping the output's span)\n", g_stats[0],
          g_stats[1], g_stats[2], g_stats[3], g_stats[4], g_stats[5], g_stats[6], g_stats[7], g_stats[8]);
  for (int k = 0; k <= K_COUNT; ++k) fprintf(stderr, "  %s written: %ld\n", kind_names[k], g_ok_kind[k]);
  print_rows("dlx_unary", dlx__unop_info, g_ok_unop, DLX_UNOP_COUNT);
  print_rows("dlx_binary", dlx__binop_info, g_ok_binop, DLX_OP_COUNT);
  print_rows("dlx_ternary", dlx__ternop_info, g_ok_ternop, DLX_TERNOP_COUNT);
  for (int s = 1; s < DLX_STATUS_COUNT; ++s)
    if (g_status[s]) fprintf(stderr, "  refused with %s: %ld\n", dlx_status_name((dlx_status)s), g_status[s]);
}
#define STAT(i) (++g_stats[i])
#else
#define STAT(i) ((void)0)
#endif

/* The case an input encodes (the format at the top), placed in its arena and with the model's statuses. */
static void decode_case(fuzz_reader *r, opcase *c) {
  memset(c, 0, sizeof *c);
  const uint8_t kb = fuzz_u8(r);
  /* 7 is a second door to binary, the largest table */
  static const op_kind kinds[8] = {K_COPY, K_FILL, K_CAST, K_BINARY, K_FMA, K_UNARY, K_TERNARY, K_BINARY};
  c->kind = (kb & 0x10) ? K_REDUCE : kinds[kb & 7];
  const bool partner = (kb & 8) != 0;
  const uint8_t arg = fuzz_u8(r);
  if (c->kind == K_REDUCE) c->rop = arg < 0xF0 ? arg % 9 : (int32_t)fuzz_u32(r);
  if (has_table_op(c->kind)) {
    const int32_t rows = c->kind == K_UNARY ? DLX_UNOP_COUNT : c->kind == K_BINARY ? DLX_OP_COUNT : DLX_TERNOP_COUNT;
    c->op = arg < 0xF0 ? arg % rows : (int32_t)fuzz_u32(r);
  }
  if (c->kind == K_FMA) {
    if (arg < 0xF0) {
      c->scalar = g_scalars[arg % 16];
    } else {
      uint64_t bits = fuzz_u64(r);
      memcpy(&c->scalar, &bits, sizeof bits);
    }
  }
  c->flags = fuzz_u8(r);
  c->fill = fuzz_u8(r);
  c->seed = fuzz_u32(r);
  const uint8_t tail = fuzz_u8(r);
  const DLDataType t = read_base_dtype(r), u = read_base_dtype(r);
  c->nview = c->kind == K_TERNARY ? 4 : (c->kind == K_BINARY || c->kind == K_FMA) ? 3 : 2;
  static const char *const roles[K_COUNT][MAX_VIEWS] = {
      {"dst", "src", "", ""}, {"dst", "value", "", ""}, {"dst", "src", "", ""}, {"out", "a", "b", ""},
      {"out", "t1", "t2", ""}, {"out", "a", "", ""},    {"out", "a", "b", "c"}};
  if (c->kind == K_REDUCE) {
    read_reduction(r, c, t, u);
  } else {
    for (int k = 0; k < c->nview; ++k) {
      c->v[k].role = roles[c->kind][k];
      read_view(r, c, k, rule_dtype(c, k, t, u, partner));
    }
  }
  place_views(c, tail);
  c->mask = c->kind == K_REDUCE ? reduce_mask(c) : refusal_mask(c);
}

#ifdef DLX_FUZZ_OPS_STATS
static void count_outcome(const opcase *c, dlx_status st, const char *msg, bool out_empty, bool self_overlap,
                          bool threaded) {
  const vspec *out = out_view(c);
  if (getenv("DLX_FUZZ_OPS_VERBOSE")) {
    describe_case(c);
    fprintf(stderr, "=> %s %s%s\n", dlx_status_name(st), msg, self_overlap ? " (self-overlapping output)" : "");
  }
  if (st != DLX_OK) {
    STAT(2);
    ++g_status[st];
  } else if (out_empty) {
    STAT(3);
  } else {
    STAT(4);
    ++g_ok_kind[c->kind];
    if (c->kind == K_UNARY) ++g_ok_unop[c->op]; /* a success: the op is a row */
    if (c->kind == K_BINARY) ++g_ok_binop[c->op];
    if (c->kind == K_TERNARY) ++g_ok_ternop[c->op];
    if (self_overlap) STAT(5);
    if (threaded) STAT(6);
    if (is_packed(out)) STAT(7);
    for (int k = 1; k < c->nview; ++k)
      if (!c->v[k].empty && c->v[k].off + c->v[k].hi > out->off + out->lo && out->off + out->hi > c->v[k].off + c->v[k].lo) {
        STAT(8);
        break;
      }
  }
}
#endif

/* The arenas after the two runs (orig: before them; mask: the output's bits): untouched by a failure or an
 * empty output; else changed only in the output's elements, and equal (NaN against NaN accepted for
 * arithmetic) unless the output overlaps itself. */
static void check_arenas(const opcase *c, dlx_status st, bool out_empty, bool self_overlap, const unsigned char *orig,
                         unsigned char *fast, const unsigned char *ref, const uint8_t *mask) {
  const size_t n = c->arena_size;
  if (st != DLX_OK || out_empty) {
    size_t i = first_difference(orig, fast, n), j = first_difference(orig, ref, n);
    ORACLE(i == n, "%s: the arena changed at byte %zu (0x%02x -> 0x%02x)", st != DLX_OK ? "failed op" : "empty output",
           i, i < n ? orig[i] : 0, i < n ? fast[i] : 0);
    ORACLE(j == n, "%s (reference): the arena changed at byte %zu", st != DLX_OK ? "failed op" : "empty output", j);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    ORACLE(((orig[i] ^ fast[i]) & ~mask[i]) == 0,
           "fast path wrote outside the output's elements: arena byte %zu 0x%02x -> 0x%02x (output bits 0x%02x)", i,
           orig[i], fast[i], mask[i]);
    ORACLE(((orig[i] ^ ref[i]) & ~mask[i]) == 0,
           "reference path wrote outside the output's elements: arena byte %zu 0x%02x -> 0x%02x (output bits 0x%02x)",
           i, orig[i], ref[i], mask[i]);
  }
  if (self_overlap) return;
  if (arithmetic(c)) canonicalize_nans(c, fast, ref);
  size_t i = first_difference(fast, ref, n);
  ORACLE(i == n, "fast and reference paths differ at arena byte %zu: fast 0x%02x, reference 0x%02x (original 0x%02x)",
         i, i < n ? fast[i] : 0, i < n ? ref[i] : 0, i < n ? orig[i] : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  fuzz_reader r = {bytes, size};
  opcase *c = &g_case;
  decode_case(&r, c);
  const vspec *out = out_view(c);
  bool all_in = true;
  for (int k = 0; k < c->nview; ++k) all_in = all_in && c->v[k].in_arena;
  const bool out_empty = out->geom && out->empty;
#ifdef DLX_FUZZ_OPS_STATS
  static bool registered;
  if (!registered) registered = atexit(print_stats) == 0;
#endif
  STAT(0);
  /* Calls that could touch memory outside the arena are never made. */
  if ((c->mask == 0 || c->oneapi_only) && !all_in && !out_empty) {
#ifdef DLX_FUZZ_OPS_STATS
    if (getenv("DLX_FUZZ_OPS_VERBOSE")) {
      describe_case(c);
      fprintf(stderr, "=> skipped (a view outside the arena)\n");
    }
#endif
    STAT(1);
    return 0;
  }

  const size_t n = c->arena_size;
  unsigned char *orig = (unsigned char *)malloc(n), *fast = (unsigned char *)malloc(n), *ref = (unsigned char *)malloc(n);
  uint8_t *mask = (uint8_t *)calloc(n, 1);
  FUZZ_CHECK(orig && fast && ref && mask, "out of memory for an arena of %zu bytes", n);
  fill_arena(orig, n, c->fill, c->seed);
  memcpy(fast, orig, n);
  memcpy(ref, orig, n);

  /* the output's elements (only for calls that must succeed and write) */
  const bool writes = c->mask == 0 && all_in && !out_empty;
  const bool self_overlap = writes ? mark_output(c, mask) : false;

  const bool threaded = (c->flags & 1) && !self_overlap;
  if (threaded) dlx__ops_set_grain(2 + 3 * (int64_t)(c->flags >> 4));
  const dlx_status st = call_op(c, fast, false);
  if (threaded) dlx__ops_set_grain(0);
  fuzz_check_status(st, kind_names[c->kind]);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", dlx_last_error());
  const dlx_status st_ref = call_op(c, ref, true);
  fuzz_check_status(st_ref, "reference");

  /* With dpctl's runtime present (DLX_DPCTL_LIBRARY) the fast path asks it about a oneAPI operand's pointer
   * (host memory: DEVICE_MISMATCH) where the reference path, host memory only, refuses the device
   * (UNSUPPORTED): both refuse, each for a reason a oneAPI operand allows. */
  const bool oneapi_refusals = st != DLX_OK && st_ref != DLX_OK && (c->oneapi & BIT(st)) && (c->oneapi & BIT(st_ref));
  ORACLE(st == st_ref || oneapi_refusals, "fast path gave %s (%s), reference path %s (%s)", dlx_status_name(st),
         msg, dlx_status_name(st_ref), dlx_last_error());
  if (c->mask != 0 && !(c->oneapi_only && out_empty && st == DLX_OK)) {
    ORACLE(st != DLX_OK, "accepted a call the documented checks refuse (allowed statuses 0x%x)", (unsigned)c->mask);
    ORACLE(c->mask & BIT(st), "refused with %s (%s), not one of the statuses the checks allow (0x%x)",
           dlx_status_name(st), msg, (unsigned)c->mask);
  } else {
    ORACLE(st == DLX_OK, "refused a valid call: %s (%s)", dlx_status_name(st), msg);
  }
#ifdef DLX_FUZZ_OPS_STATS
  count_outcome(c, st, msg, out_empty, self_overlap, threaded);
#endif
  check_arenas(c, st, out_empty, self_overlap, orig, fast, ref, mask);
  if (c->flags & 2) null_argument_checks(c, fast);
  free(orig);
  free(fast);
  free(ref);
  free(mask);
  return 0;
}

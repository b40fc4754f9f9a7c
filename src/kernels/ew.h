/* Internal: an elementwise op as the compute layer (src/compute/ops.c) hands it to a backend.
 *
 * By the time a backend sees a dlx__ew_op, everything backend-neutral is done: arguments validated, dtype
 * rules applied, broadcasting checked, inputs that partially overlap the output copied away, packed
 * float6/float4 operands unpacked to one code per byte, and the joint loop planned (a dlx_iter: operand 0
 * the output, broadcast, reordered, coalesced, with every dimension the output walks backwards flipped).
 * The backend only picks its typed loop for (kind, op, dtypes) and runs it over the plan. */
#ifndef DLX_KERNELS_EW_H
#define DLX_KERNELS_EW_H

#include <stdbool.h>
#include <stdint.h>

#include "dlx/layout.h"
#include "dlx/ops.h"
#include "kernels/convert.h" /* DLX_HD: the helpers below are device code too */
#include "kernels/op_table.h"

/* Kernel dtype index: the native C types first (they have typed loops), then the narrow floats, which
 * compute in float32 ("staged": decoded in blocks, computed, encoded back). */
typedef enum dlx__kd {
  DLX_KD_BOOL = 0,
  DLX_KD_I8,
  DLX_KD_I16,
  DLX_KD_I32,
  DLX_KD_I64,
  DLX_KD_U8,
  DLX_KD_U16,
  DLX_KD_U32,
  DLX_KD_U64,
  DLX_KD_F32,
  DLX_KD_F64,
  DLX_KD_C64,
  DLX_KD_C128,
  DLX_KD_NATIVE_COUNT,
  DLX_KD_F16 = DLX_KD_NATIVE_COUNT,
  DLX_KD_BF16,
  DLX_KD_F8_E3M4,
  DLX_KD_F8_E4M3,
  DLX_KD_F8_E4M3B11FNUZ,
  DLX_KD_F8_E4M3FN,
  DLX_KD_F8_E4M3FNUZ,
  DLX_KD_F8_E5M2,
  DLX_KD_F8_E5M2FNUZ,
  DLX_KD_F8_E8M0FNU,
  DLX_KD_F6_E2M3FN,
  DLX_KD_F6_E3M2FN,
  DLX_KD_F4_E2M1FN,
  DLX_KD_COUNT,
  DLX_KD_NONE = -1
} dlx__kd;

#define DLX_KD_NARROW_COUNT (DLX_KD_COUNT - DLX_KD_NATIVE_COUNT)

/* Kernel index of a dtype, DLX_KD_NONE when no kernel exists (int128, float128, complex32, vectors). */
dlx__kd dlx__kd_of(DLDataType dt);

static inline DLX_HD bool dlx__kd_is_native(dlx__kd k) { return k >= 0 && k < DLX_KD_NATIVE_COUNT; }
/* float6 / float4: cast, fill and copy only (ops.h) */
static inline DLX_HD bool dlx__kd_is_subbyte(dlx__kd k) { return k >= DLX_KD_F6_E2M3FN && k <= DLX_KD_F4_E2M1FN; }
/* Index among the narrow formats (0 for float16). */
static inline DLX_HD int dlx__kd_narrow_index(dlx__kd k) { return (int)k - DLX_KD_F16; }
/* The DLPack type code of a narrow format (the codec's key). */
static inline DLX_HD uint8_t dlx__kd_narrow_code(dlx__kd k) {
  return k == DLX_KD_F16 ? DLX_CODE_FLOAT
         : k == DLX_KD_BF16 ? DLX_CODE_BFLOAT
                            : (uint8_t)(k - DLX_KD_F8_E3M4 + DLX_CODE_FLOAT8_E3M4);
}

typedef enum dlx__ew_kind {
  DLX_EW_COPY,
  DLX_EW_FILL,
  DLX_EW_CAST,
  DLX_EW_UNARY,
  DLX_EW_BINARY,
  DLX_EW_FMA,
  DLX_EW_TERNARY
} dlx__ew_kind;

/* The most inputs an op takes (where, clip). */
#define DLX__EW_MAX_IN 3

/* The largest element an op takes by value (complex128, int128, float32x4). Larger elements (vector
 * dtypes of many lanes, which only copy and fill move) are staged through a copy instead. */
#define DLX__EW_VALUE_BYTES 16

/* One element's bytes, aligned for any element type's loads. */
typedef union dlx__ew_value {
  unsigned char bytes[DLX__EW_VALUE_BYTES];
  double align_;
  uint64_t align64_;
} dlx__ew_value;

typedef struct dlx__ew_op {
  dlx__ew_kind kind;
  dlx_unop unop;       /* DLX_EW_UNARY */
  dlx_binop op;        /* DLX_EW_BINARY */
  dlx_ternop ternop;   /* DLX_EW_TERNARY */
  double scalar;       /* DLX_EW_FMA: out = scalar * in0 + in1 */
  int nin;             /* inputs: 1 (copy, fill, cast, unary), 2 (binary, fma) or 3 (ternary) */
  DLDataType dtype[1 + DLX__EW_MAX_IN]; /* out, in0, in1, in2; byte-sized (padded when sub-byte); binary and fma
                                         * ops repeat in1 in dtype[3], unary ops in0 in dtype[2] and [3] */
  DLDevice device;     /* where it runs: the backend's home for the output (cpu:0 for host memory) */
  /* Inputs given by value: a one-element input in host memory of an op on another backend's memory (a
   * host scalar of an op on the GPU: t + 1, t.fill_(2)). Its element was read on the host when the op
   * was queued: byval[k] is set for input k, its bytes are in value[k] (a padded code for float6/float4),
   * the plan's pointer of that operand points at a host copy of them and its every stride is 0. A device backend hands
   * the bytes to its kernel with the launch, so no copy (and no host synchronisation) stages them. */
  bool byval[DLX__EW_MAX_IN];
  dlx__ew_value value[DLX__EW_MAX_IN];
  /* Inputs in host-accessible memory of an op on a backend whose loops read host memory in place
   * (dlx__compute_ops.reads_host: oneAPI, which runs the CPU loops): host[k] is set for input k, whose
   * plan pointer is plain host memory, no memory of the backend's device. */
  bool host[DLX__EW_MAX_IN];
} dlx__ew_op;

/* Same-dtype moves (copy, fill, a cast to the operand's own dtype) are dtype-blind byte copies. */
static inline bool dlx__ew_is_move(const dlx__ew_op *op) {
  return op->kind == DLX_EW_COPY || op->kind == DLX_EW_FILL ||
         (op->kind == DLX_EW_CAST && dlx_dtype_equal(op->dtype[0], op->dtype[1]));
}


/* The one pair of different input dtypes a binary op takes: int64 with uint64 (either order), in the six
 * comparisons only, compared exactly (expr.h's MIX_RULE). Its index in the backends' tables, or -1 for
 * any other pair. */
enum { DLX_MIX_I64_U64 = 0, DLX_MIX_U64_I64, DLX_MIX_COUNT };
static inline int dlx__mixed_pair(dlx__kd a, dlx__kd b) {
  return a == DLX_KD_I64 && b == DLX_KD_U64 ? DLX_MIX_I64_U64 : a == DLX_KD_U64 && b == DLX_KD_I64 ? DLX_MIX_U64_I64 : -1;
}

#endif

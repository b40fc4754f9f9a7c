/* Internal: the short names that the backends' loop tables paste together (KD_##N, ENUM_##op) when they
 * instantiate one kernel body per (op, dtype), so that the CPU loops (backends/cpu/loops_native_body.h)
 * and the CUDA kernels (backends/cuda/kernels_*.cu) spell their tables the same way and from one list.
 * Plain macros over kernels/ew.h's dlx__kd and dlx/ops.h's dlx_binop: usable from C and from CUDA. */
#ifndef DLX_KERNELS_EW_NAMES_H
#define DLX_KERNELS_EW_NAMES_H

#include "kernels/ew.h"

/* kernel dtype index by short dtype name */
#define KD_b8 DLX_KD_BOOL
#define KD_i8 DLX_KD_I8
#define KD_i16 DLX_KD_I16
#define KD_i32 DLX_KD_I32
#define KD_i64 DLX_KD_I64
#define KD_u8 DLX_KD_U8
#define KD_u16 DLX_KD_U16
#define KD_u32 DLX_KD_U32
#define KD_u64 DLX_KD_U64
#define KD_f32 DLX_KD_F32
#define KD_f64 DLX_KD_F64
#define KD_c64 DLX_KD_C64
#define KD_c128 DLX_KD_C128

/* The op vocabulary: every op by short name, in its enum's order (dlx/ops.h). Each backend's tables, the
 * reference path and the ops' messages are generated from these lists, so an op added to an enum and to
 * its list has no kernel anywhere until each backend and expr.h define it: the build fails (an undefined
 * UP_<op>, UN_DTYPES_<op> / BIN_DTYPES_<op>, ROW_UN_<op> or run_<op>), and a test that runs every op of
 * the enum (test_backends.c) fails where a backend has none. */
#define DLX__BINOP_LIST(X, A) X(add, A) X(sub, A) X(mul, A) X(div, A) X(lt, A) X(le, A) X(gt, A) X(ge, A) X(eq, A) X(ne, A)
#define DLX__UNOP_LIST(X, A) X(neg, A)

/* mixed pair of input dtypes (kernels/ew.h) by short names */
#define MIXIX_i64_u64 DLX_MIX_I64_U64
#define MIXIX_u64_i64 DLX_MIX_U64_I64

/* binary op by short name */
#define ENUM_add DLX_OP_ADD
#define ENUM_sub DLX_OP_SUB
#define ENUM_mul DLX_OP_MUL
#define ENUM_div DLX_OP_DIV
#define ENUM_lt DLX_OP_LT
#define ENUM_le DLX_OP_LE
#define ENUM_gt DLX_OP_GT
#define ENUM_ge DLX_OP_GE
#define ENUM_eq DLX_OP_EQ
#define ENUM_ne DLX_OP_NE

/* unary op by short name */
#define ENUM_neg DLX_UNOP_NEG

/* The lists hold every value of their enum, in order. */
#define DLX__OP_COUNT_(OP, A) +1
enum { DLX__BINOP_LISTED = 0 DLX__BINOP_LIST(DLX__OP_COUNT_, _), DLX__UNOP_LISTED = 0 DLX__UNOP_LIST(DLX__OP_COUNT_, _) };
#ifdef __cplusplus
static_assert((int)DLX__BINOP_LISTED == (int)DLX_OP_COUNT, "DLX__BINOP_LIST names every dlx_binop");
static_assert((int)DLX__UNOP_LISTED == (int)DLX_UNOP_COUNT, "DLX__UNOP_LIST names every dlx_unop");
#else
_Static_assert((int)DLX__BINOP_LISTED == (int)DLX_OP_COUNT, "DLX__BINOP_LIST names every dlx_binop");
_Static_assert((int)DLX__UNOP_LISTED == (int)DLX_UNOP_COUNT, "DLX__UNOP_LIST names every dlx_unop");
#endif

#endif /* DLX_KERNELS_EW_NAMES_H */

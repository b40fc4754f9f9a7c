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

#endif /* DLX_KERNELS_EW_NAMES_H */

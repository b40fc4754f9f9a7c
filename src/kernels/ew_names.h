/* Internal: the short names that the backends' loop tables paste together (KD_##N, ENUM_##op) when they
 * instantiate one kernel body per (op, dtype), so that the CPU loops (backends/cpu/loops_native_body.h)
 * and the CUDA kernels (backends/cuda/kernels_*.cu) spell their tables the same way. The ops themselves
 * come from one table (kernels/op_table.h).
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

/* mixed pair of input dtypes (kernels/ew.h) by short names */
#define MIXIX_i64_u64 DLX_MIX_I64_U64
#define MIXIX_u64_i64 DLX_MIX_U64_I64

#endif /* DLX_KERNELS_EW_NAMES_H */

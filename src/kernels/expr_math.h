/* Internal, part of kernels/expr.h: the rules of the math functions, op_table.h's rows whose nar column is
 * WIDE (exp, ...). The functions themselves are kernels/math_*.h's (the contract: kernels/math_common.h):
 *   float32   dlx__<op>f(x): correctly rounded (to nearest even) for every input;
 *   float64   dlx__<op>(x): one deterministic implementation, the same operations on every device;
 *   narrow    dlx__wide_<op>(x) of the decoded float32 value: a double that rounds ONCE to the narrow
 *             format's correctly rounded result. Rounding it to float32 first and then to the format would
 *             round twice, which is wrong for the values near the format's midpoints; so the backends
 *             run these rows on narrow floats as decode to float32 (exact), a float32 -> float64 loop
 *             (WIDE_RULE), and the encoder from double (convert.h's dlx__cvt_encode_f64).
 * Adding a math function: its header below, its rule (<OP>_REAL) and UP_<op>, DLX_MATH_TRY_<op> (0, or 1
 * with its float32 first try dlx__<op>f_try; a missing one stops the CPU build), its row in op_table.h
 * with nar WIDE, its constant in dlx/ops.h. */
#ifndef DLX_KERNELS_EXPR_MATH_H
#define DLX_KERNELS_EXPR_MATH_H

#include "kernels/math_exp.h"
#include "kernels/math_log.h"
#include "kernels/math_log_try.h"
#include "kernels/math_trig.h"

/* the float32 or float64 function of a math op (exp: dlx__expf, dlx__exp) */
#define MATH_f32(fn) dlx__##fn##f
#define MATH_f64(fn) dlx__##fn

#define EXP_REAL(x, N) MATH_##N(exp)(x)
#define EXP2_REAL(x, N) MATH_##N(exp2)(x)
#define EXPM1_REAL(x, N) MATH_##N(expm1)(x)
#define LOG_REAL(x, N) MATH_##N(log)(x)
#define LOG2_REAL(x, N) MATH_##N(log2)(x)
#define LOG10_REAL(x, N) MATH_##N(log10)(x)
#define LOG1P_REAL(x, N) MATH_##N(log1p)(x)
#define TANH_REAL(x, N) MATH_##N(tanh)(x)
#define SIN_REAL(x, N) MATH_##N(sin)(x)
#define COS_REAL(x, N) MATH_##N(cos)(x)
#define UP_exp EXP
#define UP_exp2 EXP2
#define UP_expm1 EXPM1
#define UP_log LOG
#define UP_log2 LOG2
#define UP_log10 LOG10
#define UP_log1p LOG1P
#define UP_tanh TANH
#define UP_sin SIN
#define UP_cos COS

/* The float32 first tries (math_common.h): MATH_HAS_TRY(OP, N) is 1 where dlx__<op>f_try exists (sin,
 * cos and the logarithms, which the CPU loops run through loops.h's DLX_DEF_UNARY_TRY), else 0. exp,
 * exp2, expm1 and tanh have none: their correctly rounded rules are single-double already. */
#define DLX_MATH_TRY_exp 0
#define DLX_MATH_TRY_exp2 0
#define DLX_MATH_TRY_expm1 0
#define DLX_MATH_TRY_tanh 0
#define DLX_MATH_TRY_log 1
#define DLX_MATH_TRY_log2 1
#define DLX_MATH_TRY_log10 1
#define DLX_MATH_TRY_log1p 1
#define DLX_MATH_TRY_sin 1
#define DLX_MATH_TRY_cos 1
#define MATH_HAS_TRY(OP, N) MATH_HASTRY_##N(OP)
#define MATH_HASTRY_f32(OP) DLX_MATH_TRY_##OP
#define MATH_HASTRY_f64(OP) 0
#define MATH_TRY_RULE(OP, x) dlx__##OP##f_try(x)

/* The double a narrow float's result of OP is encoded from (x: the decoded float32 value). */
#define WIDE_RULE(OP, x) dlx__wide_##OP(x)

/* X(op, ENUM) for each WIDE row of the op table */
#define WIDE_SEL_WIDE(X, op, E) X(op, E)
#define WIDE_SEL_F32(X, op, E)
#define WIDE_SEL_CODE(X, op, E)
#define WIDE_SEL_MOVE(X, op, E)
#define WIDE_SEL_NONE(X, op, E)
#define WIDE_TABLE_ROW_(X, op, E, np, k, cls, res, nar, py) WIDE_SEL_##nar(X, op, E)
#define WIDE_TABLE(X) DLX__UNOP_TABLE(WIDE_TABLE_ROW_, X)

/* UN_TABLE (expr.h) split by the nar column: the cells of the WIDE rows, and those of every other row (the
 * CUDA backend compiles the math kernels in a translation unit of their own) */
#define UN_KEEP_(...) __VA_ARGS__
#define UN_DROP_(...)
#define UN_ISWIDE_WIDE UN_KEEP_
#define UN_ISWIDE_F32 UN_DROP_
#define UN_ISWIDE_CODE UN_DROP_
#define UN_ISWIDE_MOVE UN_DROP_
#define UN_ISWIDE_NONE UN_DROP_
#define UN_NOTWIDE_WIDE UN_DROP_
#define UN_NOTWIDE_F32 UN_KEEP_
#define UN_NOTWIDE_CODE UN_KEEP_
#define UN_NOTWIDE_MOVE UN_KEEP_
#define UN_NOTWIDE_NONE UN_KEEP_
#define UN_WIDE_ROW_(X, op, E, np, k, cls, res, nar, py) UN_ISWIDE_##nar(CLSLIST_##cls(DLX__CELL_, (X, op, E, res)))
#define UN_NOTWIDE_ROW_(X, op, E, np, k, cls, res, nar, py) \
  UN_NOTWIDE_##nar(CLSLIST_##cls(DLX__CELL_, (X, op, E, res)))
#define UN_TABLE_WIDE(X) DLX__UNOP_TABLE(UN_WIDE_ROW_, X)
#define UN_TABLE_NOTWIDE(X) DLX__UNOP_TABLE(UN_NOTWIDE_ROW_, X)

#endif

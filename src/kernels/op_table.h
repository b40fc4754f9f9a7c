/* Internal: the one table of elementwise ops. Everything that lists ops is generated from it: the op
 * names in messages, the validation of dtypes and of the output's dtype (compute/ops.c), the reference
 * path (compute/reference.c), every backend's loop tables (the CPU's native and narrow tables, the CUDA
 * kernels and their narrow-float dispatch; oneAPI runs the CPU's), and the Python module's functions and
 * its routing of NumPy's ufuncs (pyext/ufuncs.c). The public enums (dlx/ops.h) are checked against it
 * below, row for row.
 *
 * Adding an op: a row here, its constant in dlx/ops.h, and its element rule in kernels/expr.h for every
 * category its dtype class takes (UP_<op> and <UP>_<CATEGORY>). A row whose rule is missing for one of
 * its categories does not compile (in the CPU tables, the reference path and the CUDA kernels alike), and
 * tests/test_backends.c runs every row on every backend against the reference path.
 *
 * Columns:
 *  op     short name: the rule's prefix (expr.h's UP_<op>) and the loops' names
 *  ENUM   the constant's suffix: DLX_OP_<ENUM>, DLX_UNOP_<ENUM>, DLX_TERNOP_<ENUM>
 *  numpy  NumPy's name of the op (dlx.<numpy> in Python; np.<numpy>(t) routes to it)
 *  kind   ARITH, CMP (comparison), LOGIC (logical), BIT (bitwise), PRED (predicate), ROUND, SELECT
 *  cls    the dtypes it takes (the categories below; narrow floats with REAL)
 *  res    its result: SAME (the inputs' dtype) or BOOL
 *  nar    how the narrow floats compute it: F32 (decoded to float32, the float32 rule, encoded back unless
 *         the result is bool), CODE (on the codes: negation), MOVE (a copy of the codes), NONE (not taken),
 *         WIDE (the math functions: decoded to float32, exact; the function's value in double,
 *         dlx__wide_<op> of kernels/math_*.h, encoded ONCE to the narrow format from double, never through
 *         float32, whose rounding would come first: double rounding); a WIDE row's rule for float32 and
 *         float64 is dlx__<op>f / dlx__<op>, and every backend has a float32 -> float64 loop per WIDE row
 *  py     the Python module's dtype rule: LOOP (NumPy's: the promoted dtype goes to the first dtype of the
 *         class it casts to safely, in NumPy's order), NOBOOL (LOOP, but bool is refused, as NumPy refuses
 *         -b, +b, b - b and sign(b)), TRUEDIV (integers and bool in float64)
 *  swap   binary only: the ENUM of the op with the operands swapped (a < b is b > a), for a scalar on the
 *         left of a comparison; NONE otherwise */
#ifndef DLX_KERNELS_OP_TABLE_H
#define DLX_KERNELS_OP_TABLE_H

#include <stdbool.h>

#include "dlx/ops.h"

/* X(A, op, ENUM, numpy, kind, cls, res, nar, py): A is the caller's argument, passed through */
#define DLX__UNOP_TABLE(X, A)                                                         \
  X(A, neg, NEG, negative, ARITH, NOBOOL, SAME, CODE, NOBOOL)                           \
  X(A, absolute, ABSOLUTE, absolute, ARITH, ORDERED, SAME, F32, LOOP)                 \
  X(A, sign, SIGN, sign, ARITH, INTREAL, SAME, F32, NOBOOL)                             \
  X(A, square, SQUARE, square, ARITH, NOBOOL, SAME, F32, LOOP)                        \
  X(A, sqrt, SQRT, sqrt, ARITH, REAL, SAME, F32, LOOP)                                \
  X(A, reciprocal, RECIPROCAL, reciprocal, ARITH, NOBOOL, SAME, F32, LOOP)            \
  X(A, floor, FLOOR, floor, ROUND, ORDERED, SAME, F32, LOOP)                          \
  X(A, ceil, CEIL, ceil, ROUND, ORDERED, SAME, F32, LOOP)                             \
  X(A, trunc, TRUNC, trunc, ROUND, ORDERED, SAME, F32, LOOP)                          \
  X(A, rint, RINT, rint, ROUND, REAL, SAME, F32, LOOP)                                \
  X(A, isnan, ISNAN, isnan, PRED, ALL, BOOL, F32, LOOP)                               \
  X(A, isinf, ISINF, isinf, PRED, ALL, BOOL, F32, LOOP)                               \
  X(A, isfinite, ISFINITE, isfinite, PRED, ALL, BOOL, F32, LOOP)                      \
  X(A, signbit, SIGNBIT, signbit, PRED, REAL, BOOL, F32, LOOP)                        \
  X(A, logical_not, LOGICAL_NOT, logical_not, LOGIC, ALL, BOOL, F32, LOOP)            \
  X(A, invert, INVERT, invert, BIT, INTBOOL, SAME, NONE, LOOP)                        \
  X(A, positive, POSITIVE, positive, ARITH, NOBOOL, SAME, MOVE, NOBOOL)                \
  X(A, exp, EXP, exp, ARITH, REAL, SAME, WIDE, LOOP)                                  \
  X(A, exp2, EXP2, exp2, ARITH, REAL, SAME, WIDE, LOOP)                               \
  X(A, expm1, EXPM1, expm1, ARITH, REAL, SAME, WIDE, LOOP)                            \
  X(A, log, LOG, log, ARITH, REAL, SAME, WIDE, LOOP)                                  \
  X(A, log2, LOG2, log2, ARITH, REAL, SAME, WIDE, LOOP)                               \
  X(A, log10, LOG10, log10, ARITH, REAL, SAME, WIDE, LOOP)                            \
  X(A, log1p, LOG1P, log1p, ARITH, REAL, SAME, WIDE, LOOP)                            \
  X(A, tanh, TANH, tanh, ARITH, REAL, SAME, WIDE, LOOP)                               \
  X(A, sin, SIN, sin, ARITH, REAL, SAME, WIDE, LOOP)                                  \
  X(A, cos, COS, cos, ARITH, REAL, SAME, WIDE, LOOP)

/* X(A, op, ENUM, numpy, kind, cls, res, nar, py, swap) */
#define DLX__BINOP_TABLE(X, A)                                                                 \
  X(A, add, ADD, add, ARITH, ALL, SAME, F32, LOOP, NONE)                                       \
  X(A, sub, SUB, subtract, ARITH, NOBOOL, SAME, F32, NOBOOL, NONE)                               \
  X(A, mul, MUL, multiply, ARITH, ALL, SAME, F32, LOOP, NONE)                                  \
  X(A, div, DIV, divide, ARITH, NOBOOL, SAME, F32, TRUEDIV, NONE)                              \
  X(A, lt, LT, less, CMP, ORDERED, BOOL, F32, LOOP, GT)                                        \
  X(A, le, LE, less_equal, CMP, ORDERED, BOOL, F32, LOOP, GE)                                  \
  X(A, gt, GT, greater, CMP, ORDERED, BOOL, F32, LOOP, LT)                                     \
  X(A, ge, GE, greater_equal, CMP, ORDERED, BOOL, F32, LOOP, LE)                               \
  X(A, eq, EQ, equal, CMP, ALL, BOOL, F32, LOOP, EQ)                                           \
  X(A, ne, NE, not_equal, CMP, ALL, BOOL, F32, LOOP, NE)                                       \
  X(A, maximum, MAXIMUM, maximum, ARITH, ORDERED, SAME, F32, LOOP, NONE)                       \
  X(A, minimum, MINIMUM, minimum, ARITH, ORDERED, SAME, F32, LOOP, NONE)                       \
  X(A, fmax, FMAX, fmax, ARITH, ORDERED, SAME, F32, LOOP, NONE)                                \
  X(A, fmin, FMIN, fmin, ARITH, ORDERED, SAME, F32, LOOP, NONE)                                \
  X(A, remainder, REMAINDER, remainder, ARITH, INTREAL, SAME, F32, LOOP, NONE)                 \
  X(A, floor_divide, FLOOR_DIVIDE, floor_divide, ARITH, INTREAL, SAME, F32, LOOP, NONE)        \
  X(A, power, POWER, power, ARITH, INT, SAME, NONE, LOOP, NONE)                                \
  X(A, copysign, COPYSIGN, copysign, ARITH, REAL, SAME, F32, LOOP, NONE)                       \
  X(A, bitwise_and, BITWISE_AND, bitwise_and, BIT, INTBOOL, SAME, NONE, LOOP, NONE)            \
  X(A, bitwise_or, BITWISE_OR, bitwise_or, BIT, INTBOOL, SAME, NONE, LOOP, NONE)               \
  X(A, bitwise_xor, BITWISE_XOR, bitwise_xor, BIT, INTBOOL, SAME, NONE, LOOP, NONE)            \
  X(A, left_shift, LEFT_SHIFT, left_shift, BIT, INT, SAME, NONE, LOOP, NONE)                   \
  X(A, right_shift, RIGHT_SHIFT, right_shift, BIT, INT, SAME, NONE, LOOP, NONE)                \
  X(A, logical_and, LOGICAL_AND, logical_and, LOGIC, ALL, BOOL, F32, LOOP, NONE)               \
  X(A, logical_or, LOGICAL_OR, logical_or, LOGIC, ALL, BOOL, F32, LOOP, NONE)                  \
  X(A, logical_xor, LOGICAL_XOR, logical_xor, LOGIC, ALL, BOOL, F32, LOOP, NONE)

/* X(A, op, ENUM, numpy, kind, cls): where's first operand is bool and its other two any dtype with a
 * kernel, picked bit for bit (the narrow floats' codes as they are); clip's three operands share a dtype
 * of the class (narrow floats decoded to float32, as the binary ops). */
#define DLX__TERNOP_TABLE(X, A)                       \
  X(A, where, WHERE, where, SELECT, ALL)              \
  X(A, clip, CLIP, clip, ARITH, ORDERED)

/* ---- the dtype classes, by category (expr.h's CAT_<dtype>: BOOL, SINT, UINT, REAL, CPLX) --------- */

enum {
  DLX__CAT_BOOL = 1,
  DLX__CAT_SINT = 2,
  DLX__CAT_UINT = 4,
  DLX__CAT_REAL = 8, /* float32, float64 and the narrow floats */
  DLX__CAT_CPLX = 16
};
#define DLX__CLS_ALL (DLX__CAT_BOOL | DLX__CAT_SINT | DLX__CAT_UINT | DLX__CAT_REAL | DLX__CAT_CPLX)
#define DLX__CLS_NOBOOL (DLX__CAT_SINT | DLX__CAT_UINT | DLX__CAT_REAL | DLX__CAT_CPLX)
#define DLX__CLS_ORDERED (DLX__CAT_BOOL | DLX__CAT_SINT | DLX__CAT_UINT | DLX__CAT_REAL)
#define DLX__CLS_INTREAL (DLX__CAT_SINT | DLX__CAT_UINT | DLX__CAT_REAL)
#define DLX__CLS_REAL (DLX__CAT_REAL)
#define DLX__CLS_INT (DLX__CAT_SINT | DLX__CAT_UINT)
#define DLX__CLS_INTBOOL (DLX__CAT_BOOL | DLX__CAT_SINT | DLX__CAT_UINT)

/* Per category, for the preprocessor: DLX__CLSHAS_<cls>_<CAT> is 1 or 0 (expr.h selects rules with it). */
#define DLX__CLSHAS_ALL_BOOL 1
#define DLX__CLSHAS_ALL_SINT 1
#define DLX__CLSHAS_ALL_UINT 1
#define DLX__CLSHAS_ALL_REAL 1
#define DLX__CLSHAS_ALL_CPLX 1
#define DLX__CLSHAS_NOBOOL_BOOL 0
#define DLX__CLSHAS_NOBOOL_SINT 1
#define DLX__CLSHAS_NOBOOL_UINT 1
#define DLX__CLSHAS_NOBOOL_REAL 1
#define DLX__CLSHAS_NOBOOL_CPLX 1
#define DLX__CLSHAS_ORDERED_BOOL 1
#define DLX__CLSHAS_ORDERED_SINT 1
#define DLX__CLSHAS_ORDERED_UINT 1
#define DLX__CLSHAS_ORDERED_REAL 1
#define DLX__CLSHAS_ORDERED_CPLX 0
#define DLX__CLSHAS_INTREAL_BOOL 0
#define DLX__CLSHAS_INTREAL_SINT 1
#define DLX__CLSHAS_INTREAL_UINT 1
#define DLX__CLSHAS_INTREAL_REAL 1
#define DLX__CLSHAS_INTREAL_CPLX 0
#define DLX__CLSHAS_REAL_BOOL 0
#define DLX__CLSHAS_REAL_SINT 0
#define DLX__CLSHAS_REAL_UINT 0
#define DLX__CLSHAS_REAL_REAL 1
#define DLX__CLSHAS_REAL_CPLX 0
#define DLX__CLSHAS_INT_BOOL 0
#define DLX__CLSHAS_INT_SINT 1
#define DLX__CLSHAS_INT_UINT 1
#define DLX__CLSHAS_INT_REAL 0
#define DLX__CLSHAS_INT_CPLX 0
#define DLX__CLSHAS_INTBOOL_BOOL 1
#define DLX__CLSHAS_INTBOOL_SINT 1
#define DLX__CLSHAS_INTBOOL_UINT 1
#define DLX__CLSHAS_INTBOOL_REAL 0
#define DLX__CLSHAS_INTBOOL_CPLX 0

/* ---- run-time facts of each row (op_table.c) ---------------------------------------------------- */

typedef enum dlx__op_kind { DLX__KIND_ARITH, DLX__KIND_CMP, DLX__KIND_LOGIC, DLX__KIND_BIT, DLX__KIND_PRED,
                            DLX__KIND_ROUND, DLX__KIND_SELECT } dlx__op_kind;
typedef enum dlx__op_nar { DLX__NAR_F32, DLX__NAR_CODE, DLX__NAR_MOVE, DLX__NAR_NONE, DLX__NAR_WIDE } dlx__op_nar;
typedef enum dlx__op_py { DLX__PY_LOOP, DLX__PY_NOBOOL, DLX__PY_TRUEDIV } dlx__op_py;

typedef struct dlx__op_info {
  const char *name;  /* short name (messages of the C API) */
  const char *numpy; /* NumPy's name */
  dlx__op_kind kind;
  unsigned cats;     /* DLX__CAT_* it takes */
  bool bool_result;
  dlx__op_nar nar;
  dlx__op_py py;
  int swap;          /* binary: the op with swapped operands, or -1 */
} dlx__op_info;

extern const dlx__op_info dlx__unop_info[DLX_UNOP_COUNT];
extern const dlx__op_info dlx__binop_info[DLX_OP_COUNT];
extern const dlx__op_info dlx__ternop_info[DLX_TERNOP_COUNT];

/* Whether a kernel dtype's category is in a class (cats: DLX__CAT_*); the narrow floats count as REAL. */
unsigned dlx__kd_category(int kd);
static inline bool dlx__op_takes(const dlx__op_info *info, int kd) { return (info->cats & dlx__kd_category(kd)) != 0; }
static inline bool dlx__op_is_comparison(dlx_binop op) { return dlx__binop_info[op].kind == DLX__KIND_CMP; }

/* ---- the table and the public enums agree, row for row ---------------------------------------------- */

#define DLX__ROWIX_UN_(A, op, E, np, k, c, r, n, p) DLX__UNROW_##op,
#define DLX__ROWIX_BIN_(A, op, E, np, k, c, r, n, p, s) DLX__BINROW_##op,
#define DLX__ROWIX_TER_(A, op, E, np, k, c) DLX__TERROW_##op,
enum { DLX__UNOP_TABLE(DLX__ROWIX_UN_, _) DLX__UNOP_ROWS };
enum { DLX__BINOP_TABLE(DLX__ROWIX_BIN_, _) DLX__BINOP_ROWS };
enum { DLX__TERNOP_TABLE(DLX__ROWIX_TER_, _) DLX__TERNOP_ROWS };
#ifdef __cplusplus
#define DLX__OPT_ASSERT_(c, m) static_assert(c, m);
#else
#define DLX__OPT_ASSERT_(c, m) _Static_assert(c, m);
#endif
#define DLX__ROWCHK_UN_(A, op, E, np, k, c, r, n, p) \
  DLX__OPT_ASSERT_((int)DLX__UNROW_##op == (int)DLX_UNOP_##E, "op_table.h row " #op " is DLX_UNOP_" #E)
#define DLX__ROWCHK_BIN_(A, op, E, np, k, c, r, n, p, s) \
  DLX__OPT_ASSERT_((int)DLX__BINROW_##op == (int)DLX_OP_##E, "op_table.h row " #op " is DLX_OP_" #E)
#define DLX__ROWCHK_TER_(A, op, E, np, k, c) \
  DLX__OPT_ASSERT_((int)DLX__TERROW_##op == (int)DLX_TERNOP_##E, "op_table.h row " #op " is DLX_TERNOP_" #E)
DLX__UNOP_TABLE(DLX__ROWCHK_UN_, _)
DLX__BINOP_TABLE(DLX__ROWCHK_BIN_, _)
DLX__TERNOP_TABLE(DLX__ROWCHK_TER_, _)
DLX__OPT_ASSERT_((int)DLX__UNOP_ROWS == (int)DLX_UNOP_COUNT, "op_table.h has a row per dlx_unop")
DLX__OPT_ASSERT_((int)DLX__BINOP_ROWS == (int)DLX_OP_COUNT, "op_table.h has a row per dlx_binop")
DLX__OPT_ASSERT_((int)DLX__TERNOP_ROWS == (int)DLX_TERNOP_COUNT, "op_table.h has a row per dlx_ternop")

#endif /* DLX_KERNELS_OP_TABLE_H */

/* dlx/ops.h - computing on strided views: fill, copy, cast, elementwise arithmetic, comparisons, fma, gemm,
 * reductions.
 *
 * Every op works on any strides (zero, negative, transposed) and broadcasts its inputs to the output's
 * shape with NumPy's rules (right-aligned); the output is never broadcast (a zero stride in out is an
 * error). Inputs share the output's dtype unless an op says otherwise, and a mismatch is
 * DLX_ERR_DTYPE_MISMATCH naming both dtypes. Outputs marked read-only give DLX_ERR_READ_ONLY. An output
 * that partially overlaps an input is handled: the input is copied first (the only allocation an op
 * makes, visible here).
 *
 * Devices: every operand is on one device, and the op runs on the backend of that memory: host-accessible
 * memory (cpu, pinned, managed) on the CPU's loops; CUDA device memory on the GPU, queued on the calling
 * thread's current stream of that device (dlx/cuda.h), asynchronously; oneAPI host and shared USM on the
 * CPU's loops (device USM is refused; dlx/oneapi.h). Three exceptions cross devices: dlx_copy between memory
 * kinds; a one-element input in host-accessible memory (a scalar), whose value is read on the host when
 * the op is queued and handed to the device's kernel with the launch; and inputs in host-accessible memory
 * of an op whose output is oneAPI USM, which the oneAPI backend's CPU loops read in place (an output in
 * device USM is computed into shared scratch and copied over). Two inputs on different devices give
 * DLX_ERR_DEVICE_MISMATCH naming both, an input and the output naming those; a device this build has no
 * backend for gives DLX_ERR_DEVICE_MISMATCH naming the operand and the build it needs.
 *
 * Arithmetic semantics:
 *  - integers wrap around (two's complement); integer division truncates toward zero, x / 0 is 0 and
 *    INT_MIN / -1 is INT_MIN (documented; never a trap);
 *  - float16, bfloat16 and the float8 formats compute in float32 and round back (round to nearest
 *    even, the format's saturation and NaN rules), as ml_dtypes does;
 *  - bool: add is OR, mul is AND, sub and div are DLX_ERR_UNSUPPORTED;
 *  - complex: lt/le/gt/ge are DLX_ERR_UNSUPPORTED; eq/ne compare both parts;
 *  - packed sub-byte dtypes (float6, float4) only take part in cast, fill and copy.
 *  - a NaN produced by arithmetic (add, sub, mul, div, fma) is a NaN of unspecified sign and payload:
 *    which input NaN an operation passes on depends on the hardware and the operand order (IEEE 754
 *    leaves it open, and a GPU returns one canonical NaN). Copies and fills keep NaN bits; a cast between
 *    float formats delivers a quiet NaN (never a signalling one), keeping the sign and as much of the
 *    payload as the target can (float32 -> float16 keeps the top payload bits, as NumPy);
 *  - complex products and quotients round every operation on its own (no fused multiply-add);
 *  - float -> integer casts truncate and saturate (NaN gives 0).
 * Comparisons write bool (one byte, 0 or 1). docs/numerics.md lists these rules with their tests, and
 * where they differ from NumPy and ml_dtypes.
 *
 * Threads: large ops split over the threads of a pool (dlx_set_num_threads); an op called while the
 * pool is busy (another thread's op, or a nested call) runs on its caller's thread alone, so threaded
 * callers never oversubscribe. Thread safety: every op is safe to call from many threads at once on
 * distinct outputs. */
#ifndef DLX_OPS_H
#define DLX_OPS_H

#include <stdint.h>

#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/view.h"

DLX_EXTERN_C_BEGIN

/* Room for one element of any byte-sized scalar dtype (complex128 is the widest). */
typedef struct dlx_scalar_buf {
  DLX_ALIGNAS(16) unsigned char bytes[16];
} dlx_scalar_buf;

/* A 0-d view of dtype dt holding re (+ i*im for complex), converted with the cast rules; storage in buf.
 * For integer dtypes re must be integral and in range (DLX_ERR_OVERFLOW otherwise). */
DLX_API dlx_status dlx_scalar_view(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, double re, double im);
/* The same from an exact 64-bit integer: integer dtypes take it exactly, float32 and float64 round it once;
 * the narrow formats encode it through double, as dlx_cast does (two roundings above 2^53). */
DLX_API dlx_status dlx_scalar_view_int(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, int64_t value);

/* dst[...] = value (value broadcast to dst; same dtype). */
DLX_API dlx_status dlx_fill(const dlx_view *dst, const dlx_view *value);
/* dst[...] = src (src broadcast to dst; same dtype). */
DLX_API dlx_status dlx_copy(const dlx_view *dst, const dlx_view *src);
/* dst[...] = src converted to dst's dtype (any pair of numeric dtypes, bool included; src broadcast). */
DLX_API dlx_status dlx_cast(const dlx_view *dst, const dlx_view *src);

/* ---- creation: arange and eye ---------------------------------------------------------------------
 *
 * arange gives NumPy 2's numpy.arange bits for every dtype with a kernel (bool, the integers, float16,
 * float32, float64, complex64, complex128, and bfloat16 / float8 / float6 / float4 as NumPy with
 * ml_dtypes). NumPy stores the first two values, x0 = start and x1 = start + step converted to the
 * dtype, then extrapolates from them in the dtype's own arithmetic:
 *  - integers: out[i] = x0 + i * (x1 - x0), wrapping modulo 2^bits (uint8 250, 251, ... goes on 0, 1);
 *  - float32 / float64 (each part of a complex): out[i] = x0 + (T)i * (x1 - x0), rounded per operation
 *    in T (no fused multiply-add), i converted to T;
 *  - float16, bfloat16 and the float8/6/4 formats: the same in float32, each result rounded to the dtype
 *    (round to nearest even, the format's overflow rule);
 *  - bool: at most two elements (NumPy refuses a longer bool arange).
 * out[0] and out[1] are x0 and x1 themselves (an empty out converts neither, as NumPy). The values are computed on the host: written in place into
 * host-accessible memory, or into a host buffer and moved with one dlx_copy (device memory, packed
 * float6/float4), which returns when the data is there. out is 1-d with any stride (not 0), writable.
 * Statuses: a NULL argument NULL_ARGUMENT; out with ndim other than 1 RANK; a dtype without kernel
 * (int128, float128, complex32, vectors), or bool with more than 2 elements, UNSUPPORTED; the checks of
 * every op on out (INVALID_DTYPE, NEGATIVE_EXTENT, DEVICE_MISMATCH for a device this build lacks,
 * NULL_DATA, READ_ONLY, BAD_STRIDE for stride 0). */

/* out from its first two values: first and second hold one element each of out's dtype (DTYPE_MISMATCH
 * otherwise; INVALID_ARGUMENT for another element count) in host-accessible memory (DEVICE_MISMATCH),
 * for example 0-d views from dlx_scalar_view. second is not read when out has fewer than 2 elements. */
DLX_API dlx_status dlx_arange_fill(const dlx_view *out, const dlx_view *first, const dlx_view *second);
/* out = arange(start, start + n*step, step) in out's dtype, with x0 = start, x1 = start + step (a double
 * sum) converted as NumPy converts a Python float: integer dtypes truncate toward zero (a value that is
 * then outside the dtype is OVERFLOW, NaN or an infinity INVALID_ARGUMENT, naming it), bool is x != 0,
 * bfloat16 rounds through float32 (ml_dtypes' conversion), every other float dtype rounds once. */
DLX_API dlx_status dlx_arange(const dlx_view *out, double start, double step);
/* The same from exact integers (NumPy's arange of Python ints): integer dtypes take x0 = start and
 * x1 = start + step exactly (OVERFLOW when outside the dtype, or when start + step overflows int64 and
 * out has 2 elements or more); float and complex dtypes convert them through double, as NumPy does. */
DLX_API dlx_status dlx_arange_int(const dlx_view *out, int64_t start, int64_t step);
/* NumPy's length of arange(start, stop, step): ceil((stop - start) / step) computed in double (the
 * difference and the quotient each rounded), 0 when negative; a quotient that underflowed to zero gives
 * 1 (positive) or 0. step 0, or a NaN quotient, is INVALID_ARGUMENT; a ceiling outside [-2^63, 2^63) is
 * OVERFLOW, as NumPy refuses it ("Maximum allowed size exceeded"; even far below zero, where the range
 * is empty; NumPy lets exactly 2^63 through to an undefined conversion and returns an empty array). */
DLX_API dlx_status dlx_arange_length(double start, double stop, double step, int64_t *length);
/* The same for integers, as NumPy computes it from Python ints: the exact difference divided by step
 * with one rounding to double (so arange(0, 2^62 + 1, 2^62) has length 1, as in NumPy), then ceil. */
DLX_API dlx_status dlx_arange_length_int(int64_t start, int64_t stop, int64_t step, int64_t *length);

/* out = the identity with its ones on diagonal k (numpy.eye(N, M, k)): out[i, j] = 1 where j - i == k,
 * else 0 (all-zero bits, as numpy.zeros: the value 2^-127 in float8_e8m0fnu, which has no zero). out is
 * 2-d (RANK otherwise) with any strides, of any dtype with a kernel (UNSUPPORTED otherwise); any k (none
 * of out's elements lies on a diagonal past its extents). Two fills on out's device: the zeros, then the
 * ones through a strided view of the diagonal (packed float6/float4 go through a host buffer and one
 * dlx_copy). The other statuses as dlx_fill's for out. */
DLX_API dlx_status dlx_eye(const dlx_view *out, int64_t k);

/* The ops, numbered as src/kernels/op_table.h lists them (one row per op: its NumPy name, the dtypes it
 * takes, its result). The constants after the first block follow NumPy's ufunc names. Every op follows
 * NumPy 2's semantics for the dtypes it takes (docs/numerics.md lists every deliberate difference); each
 * has an exactly defined result, so every backend gives the same bits. A dtype an op does not take is
 * DLX_ERR_UNSUPPORTED naming both. "Integers" below are int8..int64 and uint8..uint64; "floats" are
 * float32, float64 and the narrow formats (float16, bfloat16, float8), which compute in float32 and round
 * once to their format. */
typedef enum dlx_binop {
  DLX_OP_ADD = 0, /* a + b; bool: or */
  DLX_OP_SUB,     /* a - b; not bool */
  DLX_OP_MUL,     /* a * b; bool: and */
  DLX_OP_DIV,     /* a / b (integers truncate toward zero; x / 0 is 0); not bool */
  DLX_OP_LT,      /* the six comparisons write bool; complex only eq/ne */
  DLX_OP_LE,
  DLX_OP_GT,
  DLX_OP_GE,
  DLX_OP_EQ,
  DLX_OP_NE,
  DLX_OP_MAXIMUM,      /* the larger; a NaN in either wins; a tie (0 and -0) gives b (NumPy's SIMD loops);
                        * bool, integers, floats */
  DLX_OP_MINIMUM,      /* the smaller, as maximum */
  DLX_OP_FMAX,         /* the larger, a NaN loses to a number (C's fmax); a tie gives a */
  DLX_OP_FMIN,         /* the smaller, as fmax */
  DLX_OP_REMAINDER,    /* a - floor(a / b) * b with b's sign (Python's %); integers: x % 0 is 0; floats: NaN
                        * for b == 0, -0.0 % b is +0.0 for b > 0 (NumPy); integers and floats */
  DLX_OP_FLOOR_DIVIDE, /* floor(a / b) (Python's //); integers: x // 0 is 0, INT_MIN // -1 is INT_MIN;
                        * floats: a / b for b == 0 */
  DLX_OP_POWER,        /* a ** b for integers, wrapping; b < 0 gives 1 / a ** -b truncated (0 unless a is 1
                        * or -1; NumPy raises ValueError there, and so does the Python module) */
  DLX_OP_COPYSIGN,     /* |a| with b's sign bit; floats */
  DLX_OP_BITWISE_AND,  /* bool and integers */
  DLX_OP_BITWISE_OR,
  DLX_OP_BITWISE_XOR,
  DLX_OP_LEFT_SHIFT,   /* a << b; integers; b >= the bit width or b < 0 gives 0 (NumPy) */
  DLX_OP_RIGHT_SHIFT,  /* a >> b, arithmetic for signed a; b >= the width or b < 0 gives 0, or -1 for a < 0 */
  DLX_OP_LOGICAL_AND,  /* bool result of a != 0 and b != 0; every dtype */
  DLX_OP_LOGICAL_OR,
  DLX_OP_LOGICAL_XOR,
  DLX_OP_COUNT
} dlx_binop;

typedef enum dlx_unop {
  DLX_UNOP_NEG = 0, /* -a: integers wrap (0 - a); floats and complex flip the sign bit of each part, NaN
                     * included, as NumPy: -(1+inf j) is -1-inf j, -(0+0j) is -0-0j; bool is refused */
  DLX_UNOP_ABSOLUTE,    /* |a|: integers wrap (|INT_MIN| is INT_MIN), floats clear the sign bit; bool too;
                         * complex is refused (its modulus is not exactly rounded: the math functions) */
  DLX_UNOP_SIGN,        /* -1, 0 or 1 (NaN stays NaN, -0.0 gives +0.0); integers and floats */
  DLX_UNOP_SQUARE,      /* a * a; integers wrap; complex by dlx_binary's product */
  DLX_UNOP_SQRT,        /* correctly rounded (IEEE 754); floats */
  DLX_UNOP_RECIPROCAL,  /* 1 / a; integers: 1 / 0 is 0 (documented; NumPy's int32/int64 give INT_MIN there) */
  DLX_UNOP_FLOOR,       /* bool and integers unchanged; floats */
  DLX_UNOP_CEIL,
  DLX_UNOP_TRUNC,
  DLX_UNOP_RINT,        /* to the nearest integer, ties to even; floats */
  DLX_UNOP_ISNAN,       /* the predicates write bool; every dtype (complex: either part) */
  DLX_UNOP_ISINF,
  DLX_UNOP_ISFINITE,
  DLX_UNOP_SIGNBIT,     /* the sign bit, NaN included; floats */
  DLX_UNOP_LOGICAL_NOT, /* bool of a == 0; every dtype */
  DLX_UNOP_INVERT,      /* ~a; bool (not) and integers */
  DLX_UNOP_POSITIVE,    /* a copy of a (bits kept); not bool (NumPy refuses it) */
  /* The math functions: floats only (complex is refused). float32 and the narrow floats (float16, bfloat16,
   * float8) are correctly rounded (to nearest even) for every input, the same bits on every device;
   * float64 is one deterministic implementation for every device, within a measured few ulps
   * (docs/numerics.md). C Annex F's special values: NaN in, NaN out; exp(-inf) = 0; log(0) = -inf,
   * log(x < 0) = NaN; sin(inf) = NaN; -0.0 kept where the function is odd. */
  DLX_UNOP_EXP,         /* e^a */
  DLX_UNOP_EXP2,        /* 2^a */
  DLX_UNOP_EXPM1,       /* e^a - 1, accurate near 0 */
  DLX_UNOP_LOG,         /* natural logarithm */
  DLX_UNOP_LOG2,        /* base-2 logarithm */
  DLX_UNOP_LOG10,       /* base-10 logarithm */
  DLX_UNOP_LOG1P,       /* log(1 + a), accurate near 0 */
  DLX_UNOP_TANH,        /* hyperbolic tangent */
  DLX_UNOP_SIN,         /* sine (a in radians; every float reduced exactly) */
  DLX_UNOP_COS,         /* cosine */
  DLX_UNOP_COUNT
} dlx_unop;

/* Ops of three operands. */
typedef enum dlx_ternop {
  DLX_TERNOP_WHERE = 0, /* a ? b : c: a is bool, b and c (any numeric dtype, out's) are picked bit for bit */
  DLX_TERNOP_CLIP,      /* minimum(maximum(a, b), c): a clipped to [b, c], NaN in any operand wins;
                         * bool, integers and floats */
  DLX_TERNOP_COUNT
} dlx_ternop;

/* out = op(a), elementwise with a broadcast to out's shape; out has a's dtype, or bool for the
 * predicates (isnan, isinf, isfinite, signbit) and logical_not. */
DLX_API dlx_status dlx_unary(dlx_unop op, const dlx_view *out, const dlx_view *a);

/* out = a op b, elementwise with broadcasting. A scalar operand is a 0-d view (dlx_scalar_view);
 * reversed-scalar forms (s - t, s / t) are the same call with the operands swapped. a and b share a dtype,
 * with one exception: the six comparisons also take int64 with uint64 (either order) and compare their
 * exact values (-1 < 2^64 - 1, 2^63 - 1 < 2^63 + 1), as NumPy 2 does, where a common dtype (float64)
 * would round them. out has a's dtype, or bool for the comparisons and the logical ops. */
DLX_API dlx_status dlx_binary(dlx_binop op, const dlx_view *out, const dlx_view *a, const dlx_view *b);

/* out = op(a, b, c), elementwise with broadcasting: where (a bool; b, c and out of one dtype) and clip
 * (a, b, c and out of one dtype). */
DLX_API dlx_status dlx_ternary(dlx_ternop op, const dlx_view *out, const dlx_view *a, const dlx_view *b,
                               const dlx_view *c);

/* out = scalar * t1 + t2 (augpy's fma). t1 has t2's dtype, or is the signed partner of t2's unsigned
 * integer dtype (an int8 delta scaled onto a uint8 image); out has t2's dtype. Integer results are
 * computed in double, rounded to nearest and saturated to the output's range. */
DLX_API dlx_status dlx_fma(const dlx_view *out, double scalar, const dlx_view *t1, const dlx_view *t2);

/* Integer-array indexing (NumPy's advanced indexing of the first n dimensions): out = src[idx[0], ...,
 * idx[n-1]], that is out[b..., r...] = src[idx[0][b], ..., idx[n-1][b], r...]. The n index views broadcast
 * together to the index shape B; out has shape B + src.shape[n:] and src's dtype (any strides; not
 * read-only, never broadcast). Indices have any integer dtype (int8 .. uint64) and live in host-accessible
 * memory: they are read on the host when the call is made (a copy of them, not the views, goes to a device).
 * A negative index counts from the back; one outside [-extent, extent) is DLX_ERR_INDEX naming it, and then
 * nothing is written. src and out are on one device, whose backend moves the elements (asynchronously on a
 * GPU); out may overlap src (src is copied first then). The host memory for the resolved indices (8 bytes
 * per position of B) is this op's allocation. */
DLX_API dlx_status dlx_gather(const dlx_view *out, const dlx_view *src, int32_t n, const dlx_view *const *idx);

/* The other direction: dst[idx[0][b], ..., idx[n-1][b], r...] = value[b..., r...], value (dst's dtype)
 * broadcast to B + dst.shape[n:]. Where positions of B select the same element, the last position in
 * row-major order of B wins, on every backend and at every thread count (NumPy gives that for index arrays
 * in C order). The same rules as dlx_gather otherwise; value may overlap dst. */
DLX_API dlx_status dlx_scatter(const dlx_view *dst, int32_t n, const dlx_view *const *idx, const dlx_view *value);

/* Boolean-mask indexing, NumPy's src[mask] for a bool mask over src's first mask.ndim dimensions: out[j,
 * r...] = src[c_j, r...], where c_0, c_1, ... are the coordinates of mask's true elements in row-major
 * order (any nonzero byte is true). mask: bool, rank >= 1, any strides, the shape of src's first mask.ndim
 * dimensions, in host-accessible memory (read on the host when the call is made, as indices are). out:
 * shape (count,) + src.shape[mask.ndim:] with count = dlx_mask_count(mask), src's dtype, any strides (not
 * read-only, never broadcast), on src's device; another extent is DLX_ERR_BROADCAST naming both, and
 * nothing is written. out may overlap src (src is read first then). The CPU counts the true elements per
 * chunk and compacts each chunk into its part of out, on its threads, with no coordinates in between;
 * the result is the same on every backend and at every thread count. */
DLX_API dlx_status dlx_mask_count(const dlx_view *mask, int64_t *count);
DLX_API dlx_status dlx_mask_gather(const dlx_view *out, const dlx_view *src, const dlx_view *mask);

/* C = alpha * A @ B + beta * C for float32, float64, complex64, complex128 rank-2 views with any
 * strides (transposed included), through CBLAS on host memory and cuBLAS on CUDA memory, where float16
 * and bfloat16 work too (accumulated in float32, as torch.matmul; the CPU refuses them with
 * DLX_ERR_UNSUPPORTED). alpha and beta are complex (im ignored for real). */
DLX_API dlx_status dlx_gemm(double alpha_re, double alpha_im, const dlx_view *a, const dlx_view *b, double beta_re,
                            double beta_im, const dlx_view *c);

/* ---- reductions ---------------------------------------------------------------------------------
 *
 * out = op(a) over some axes of a: sum, prod, min, max, mean, argmin, argmax, any, all, as NumPy's
 * functions of the same names. a may have any strides (negative, zero: broadcast); out has the result's
 * shape (a's shape without the reduced axes, or with extent 1 there when keepdims), any strides but no
 * zero stride on an extent above 1, and must not overlap a (DLX_ERR_INVALID_ARGUMENT).
 *
 * Result dtypes: out's dtype is the op's dtype D, and for sum, prod, mean, min and max every element of a
 * is first converted to D with dlx_cast's rules (NumPy's dtype=). dlx_reduce_result gives NumPy 2's
 * default D: sum and prod of bool and signed integers int64, of unsigned integers uint64, of floats and
 * complex their own dtype; mean of bool and integers float64; min and max a's dtype; argmin and argmax
 * int64 (out must be int64); any and all bool (out must be bool). mean needs a floating-point or complex
 * D; float6/float4 and dtypes with no kernel (int128, float128, complex32, vectors) are
 * DLX_ERR_UNSUPPORTED.
 *
 * Numerics (docs/numerics.md, "Reductions"): integer sums and products wrap in 64 bits, then to D;
 * float16, bfloat16 and the float8 formats accumulate in float32 and round once to D; float32 in float32,
 * float64 in float64, complex part by part. The order of every floating-point operation is a fixed
 * function of a's shape and the axes only: blocks of 4096 elements of the reduced index space (row-major
 * over the reduced axes), in each block 16 interleaved lanes summed by a pairwise tree and folded in
 * halves, then a pairwise tree over the blocks. So the bits never depend on the thread count, the SIMD
 * level, a's memory layout or the backend. A sum starts from +0.0 (a sum of -0.0 is +0.0, as NumPy); a
 * NaN result of sum, prod or mean is the positive quiet NaN. min and max pick an element's bits: NaN
 * wins (of several NaNs the smallest bit pattern), -0.0 < +0.0; complex by (real, imaginary), a NaN in
 * either part winning. argmin and argmax give the first index (flat over the reduced axes) of the
 * extreme, NaN counting as the extreme. Empty reductions: sum 0, prod 1, mean NaN, any false, all true;
 * min, max, argmin and argmax over zero elements are DLX_ERR_INVALID_ARGUMENT naming the axis.
 *
 * Devices as the elementwise ops (out and a on one backend); large reductions split over the pool's
 * threads. A reduction over more than 4096 elements per output allocates scratch memory for the partial
 * results of its blocks (32 bytes per block), and one whose input needs a conversion the
 * kernels do not make on the fly (a dtype= that narrows) a converted copy of a. */
typedef enum dlx_reduce_op {
  DLX_REDUCE_SUM = 0,
  DLX_REDUCE_PROD,
  DLX_REDUCE_MIN,
  DLX_REDUCE_MAX,
  DLX_REDUCE_MEAN,
  DLX_REDUCE_ARGMIN,
  DLX_REDUCE_ARGMAX,
  DLX_REDUCE_ANY,
  DLX_REDUCE_ALL,
  DLX_REDUCE_COUNT
} dlx_reduce_op;

/* naxes value meaning every axis of a (axes may then be NULL). */
#define DLX_REDUCE_ALL_AXES (-1)

/* out = op(a) over axes[0..naxes) (negative axes count from the end; DLX_ERR_INDEX past the rank,
 * DLX_ERR_INVALID_ARGUMENT for a repeated axis), or over every axis when naxes is DLX_REDUCE_ALL_AXES.
 * naxes 0 reduces nothing (each output element is one converted input element, as NumPy's axis=()). */
DLX_API dlx_status dlx_reduce(dlx_reduce_op op, const dlx_view *out, const dlx_view *a, int32_t naxes,
                              const int32_t *axes, int keepdims);

/* The shape (*ndim extents into shape, room for DLX_MAX_NDIM) and NumPy's default dtype of op over those
 * axes of a, with every check of dlx_reduce that does not need out. */
DLX_API dlx_status dlx_reduce_result(dlx_reduce_op op, const dlx_view *a, int32_t naxes, const int32_t *axes,
                                     int keepdims, int32_t *ndim, int64_t *shape, DLDataType *dtype);

/* The pool's thread count for large ops (1 = serial). Default: the machine's cores. n <= 0 resets to
 * the default. Safe from any thread; takes effect for ops started afterwards. */
DLX_API void dlx_set_num_threads(int n);
DLX_API int dlx_get_num_threads(void);

/* Host memory that dlx allocates (new tensors, op results, astype) keeps recently freed blocks of 1 MiB
 * and more for reuse, so that a new result does not pay a page fault per page again: at most 16 blocks
 * and 256 MiB by default, set by the environment variables DLX_CPU_CACHE_BLOCKS and DLX_CPU_CACHE_BYTES
 * (read once, at first use; suffixes K, M, G; 0 disables the cache). dlx_cpu_empty_cache returns every
 * cached block to the system; it never fails (DLX_OK). Safe from any thread. */
DLX_API dlx_status dlx_cpu_empty_cache(void);

DLX_EXTERN_C_END

#endif

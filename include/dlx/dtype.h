/* dlx/dtype.h - DLPack data types: validity, canonical names, sizes, and C-type mapping.
 *
 * Canonical names follow NumPy / ml_dtypes / PyTorch spelling: "bool", "int8".."int64", "uint8".."uint64",
 * "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "float8_e4m3fn", ...,
 * "float6_e2m3fn", "float4_e2m1fn". Types with no common spelling: "int128", "uint128" (CCCL exports
 * unsigned __int128 as {kDLUInt, 128, 1}), "float128", "complex32" (two float16 halves, as PyTorch's
 * chalf), "opaque<bits>" for kDLOpaqueHandle. Vector types append "x<lanes>": "float32x4".
 * dlx_dtype_format and dlx_dtype_parse round-trip every valid dtype.
 * Thread safety: every function here is pure and safe from any thread. */
#ifndef DLX_DTYPE_H
#define DLX_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

/* Type codes as numbers, so that dlx never needs an enumerator an older 1.x header lacks. */
#define DLX_CODE_INT 0
#define DLX_CODE_UINT 1
#define DLX_CODE_FLOAT 2
#define DLX_CODE_OPAQUE_HANDLE 3
#define DLX_CODE_BFLOAT 4
#define DLX_CODE_COMPLEX 5
#define DLX_CODE_BOOL 6
#define DLX_CODE_FLOAT8_E3M4 7
#define DLX_CODE_FLOAT8_E4M3 8
#define DLX_CODE_FLOAT8_E4M3B11FNUZ 9
#define DLX_CODE_FLOAT8_E4M3FN 10
#define DLX_CODE_FLOAT8_E4M3FNUZ 11
#define DLX_CODE_FLOAT8_E5M2 12
#define DLX_CODE_FLOAT8_E5M2FNUZ 13
#define DLX_CODE_FLOAT8_E8M0FNU 14
#define DLX_CODE_FLOAT6_E2M3FN 15
#define DLX_CODE_FLOAT6_E3M2FN 16
#define DLX_CODE_FLOAT4_E2M1FN 17
#define DLX_CODE_COUNT 18

#define DLX_DTYPE_MAKE(code, bits, lanes) ((DLDataType){(uint8_t)(code), (uint8_t)(bits), (uint16_t)(lanes)})
/* Named constants for every scalar dtype. */
#define DLX_DTYPE_BOOL DLX_DTYPE_MAKE(DLX_CODE_BOOL, 8, 1)
#define DLX_DTYPE_INT8 DLX_DTYPE_MAKE(DLX_CODE_INT, 8, 1)
#define DLX_DTYPE_INT16 DLX_DTYPE_MAKE(DLX_CODE_INT, 16, 1)
#define DLX_DTYPE_INT32 DLX_DTYPE_MAKE(DLX_CODE_INT, 32, 1)
#define DLX_DTYPE_INT64 DLX_DTYPE_MAKE(DLX_CODE_INT, 64, 1)
#define DLX_DTYPE_INT128 DLX_DTYPE_MAKE(DLX_CODE_INT, 128, 1)
#define DLX_DTYPE_UINT8 DLX_DTYPE_MAKE(DLX_CODE_UINT, 8, 1)
#define DLX_DTYPE_UINT16 DLX_DTYPE_MAKE(DLX_CODE_UINT, 16, 1)
#define DLX_DTYPE_UINT32 DLX_DTYPE_MAKE(DLX_CODE_UINT, 32, 1)
#define DLX_DTYPE_UINT64 DLX_DTYPE_MAKE(DLX_CODE_UINT, 64, 1)
#define DLX_DTYPE_UINT128 DLX_DTYPE_MAKE(DLX_CODE_UINT, 128, 1)
#define DLX_DTYPE_FLOAT16 DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 16, 1)
#define DLX_DTYPE_FLOAT32 DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 1)
#define DLX_DTYPE_FLOAT64 DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 64, 1)
#define DLX_DTYPE_FLOAT128 DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 128, 1)
#define DLX_DTYPE_BFLOAT16 DLX_DTYPE_MAKE(DLX_CODE_BFLOAT, 16, 1)
#define DLX_DTYPE_COMPLEX32 DLX_DTYPE_MAKE(DLX_CODE_COMPLEX, 32, 1)
#define DLX_DTYPE_COMPLEX64 DLX_DTYPE_MAKE(DLX_CODE_COMPLEX, 64, 1)
#define DLX_DTYPE_COMPLEX128 DLX_DTYPE_MAKE(DLX_CODE_COMPLEX, 128, 1)
#define DLX_DTYPE_FLOAT8_E3M4 DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E3M4, 8, 1)
#define DLX_DTYPE_FLOAT8_E4M3 DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E4M3, 8, 1)
#define DLX_DTYPE_FLOAT8_E4M3B11FNUZ DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, 1)
#define DLX_DTYPE_FLOAT8_E4M3FN DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E4M3FN, 8, 1)
#define DLX_DTYPE_FLOAT8_E4M3FNUZ DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E4M3FNUZ, 8, 1)
#define DLX_DTYPE_FLOAT8_E5M2 DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E5M2, 8, 1)
#define DLX_DTYPE_FLOAT8_E5M2FNUZ DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E5M2FNUZ, 8, 1)
#define DLX_DTYPE_FLOAT8_E8M0FNU DLX_DTYPE_MAKE(DLX_CODE_FLOAT8_E8M0FNU, 8, 1)
#define DLX_DTYPE_FLOAT6_E2M3FN DLX_DTYPE_MAKE(DLX_CODE_FLOAT6_E2M3FN, 6, 1)
#define DLX_DTYPE_FLOAT6_E3M2FN DLX_DTYPE_MAKE(DLX_CODE_FLOAT6_E3M2FN, 6, 1)
#define DLX_DTYPE_FLOAT4_E2M1FN DLX_DTYPE_MAKE(DLX_CODE_FLOAT4_E2M1FN, 4, 1)

/* Compile-time mapping from a C type to its DLDataType: DLX_DTYPE_OF(int32_t) == DLX_DTYPE_INT32.
 * Covers bool, char, the standard integer types (so every <stdint.h> fixed-width type), float, double,
 * float/double _Complex, and _Float16 / __float128 / __int128 / unsigned __int128 where the compiler has
 * them. long double is left out: on x86-64 it is 80-bit extended precision, which no DLPack code describes. */
#if defined(__FLT16_MAX__) && !defined(__cplusplus)
#define DLX_HAS_FLOAT16 1
#define DLX__GENERIC_F16 _Float16: DLX_DTYPE_FLOAT16, _Float16 _Complex: DLX_DTYPE_COMPLEX32,
#else
#define DLX__GENERIC_F16
#endif
#if defined(__SIZEOF_FLOAT128__) && !defined(__cplusplus) && !defined(__clang__)
#define DLX__GENERIC_F128 __float128: DLX_DTYPE_FLOAT128,
#else
#define DLX__GENERIC_F128
#endif
#if defined(__SIZEOF_INT128__) && !defined(__cplusplus)
#define DLX__GENERIC_I128 __int128: DLX_DTYPE_INT128, unsigned __int128: DLX_DTYPE_UINT128,
#else
#define DLX__GENERIC_I128
#endif
#if !defined(__cplusplus)
#define DLX_DTYPE_OF(T)                                                                                    \
  _Generic((T){0},                                                                                         \
      _Bool: DLX_DTYPE_BOOL,                                                                               \
      char: DLX__CHAR_DTYPE,                                                                               \
      signed char: DLX_DTYPE_INT8, unsigned char: DLX_DTYPE_UINT8,                                         \
      short: DLX_DTYPE_MAKE(DLX_CODE_INT, 8 * sizeof(short), 1),                                           \
      unsigned short: DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * sizeof(short), 1),                                 \
      int: DLX_DTYPE_MAKE(DLX_CODE_INT, 8 * sizeof(int), 1),                                               \
      unsigned int: DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * sizeof(int), 1),                                     \
      long: DLX_DTYPE_MAKE(DLX_CODE_INT, 8 * sizeof(long), 1),                                             \
      unsigned long: DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * sizeof(long), 1),                                   \
      long long: DLX_DTYPE_MAKE(DLX_CODE_INT, 8 * sizeof(long long), 1),                                   \
      unsigned long long: DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * sizeof(long long), 1),                         \
      DLX__GENERIC_F16 DLX__GENERIC_F128 DLX__GENERIC_I128                                                  \
      float: DLX_DTYPE_FLOAT32, double: DLX_DTYPE_FLOAT64,                                                 \
      float _Complex: DLX_DTYPE_COMPLEX64, double _Complex: DLX_DTYPE_COMPLEX128)
/* plain char is signed or unsigned depending on the ABI */
#define DLX__CHAR_DTYPE DLX_DTYPE_MAKE(((char)-1 < 0) ? DLX_CODE_INT : DLX_CODE_UINT, 8, 1)
#endif

/* True when both dtypes are identical in code, bits and lanes. */
static inline bool dlx_dtype_equal(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/* DLX_OK when dt is a legal DLPack 1.3 dtype: a known code, a bit width the code allows, lanes >= 1.
 * Otherwise DLX_ERR_INVALID_DTYPE with a message naming code, bits and lanes. kDLOpaqueHandle accepts
 * any non-zero multiple of 8 bits (producer-defined). */
DLX_API dlx_status dlx_dtype_check(DLDataType dt);

/* Legal bit widths per type code: bit (b % 64) of word b / 64 is set when b bits is legal for the code
 * (kDLOpaqueHandle: every multiple of 8). Defined in dtype.c from the DLPack 1.3 table. */
DLX_API extern const uint64_t dlx_dtype_legal_bits[DLX_CODE_COUNT][4];

/* dlx_dtype_check without the message: true when legal. O(1) and inline, for import hot paths. */
static inline bool dlx_dtype_is_valid(DLDataType dt) {
  return dt.lanes != 0 && dt.code < DLX_CODE_COUNT && ((dlx_dtype_legal_bits[dt.code][dt.bits >> 6] >> (dt.bits & 63u)) & 1u);
}

/* Bits of one element, all lanes: bits * lanes. */
static inline uint32_t dlx_dtype_element_bits(DLDataType dt) { return (uint32_t)dt.bits * dt.lanes; }

/* Bytes one element occupies when not packed: ceil(bits * lanes / 8). For float4_e2m1fn this is 1
 * (the padded form, as ml_dtypes stores it). 0 for bits == 0. */
static inline size_t dlx_dtype_itemsize(DLDataType dt) { return (dlx_dtype_element_bits(dt) + 7u) / 8u; }

/* True for types whose elements are narrower than a byte when packed (bits * lanes < 8, or not a
 * multiple of 8): fp6 and fp4. Such tensors are packed unless the PADDED flag says otherwise. */
static inline bool dlx_dtype_is_subbyte(DLDataType dt) { return (dlx_dtype_element_bits(dt) % 8u) != 0; }

/* Natural alignment in bytes of one element: the largest power of two dividing its byte size, capped
 * at 16 (CUDA's widest vector alignment); a complex type aligns to one component; sub-byte types 1. */
DLX_API size_t dlx_dtype_alignment(DLDataType dt);

/* Bytes needed for n elements: ceil(n * bits * lanes / 8) when packed, n * itemsize when padded
 * (or when the type is byte-sized anyway). DLX_ERR_OVERFLOW when the count does not fit uint64_t;
 * DLX_ERR_INVALID_DTYPE for an illegal dtype. */
DLX_API dlx_status dlx_dtype_storage_bytes(DLDataType dt, uint64_t n, bool padded, uint64_t *bytes);

/* Longest name dlx_dtype_format can write, NUL included ("float8_e4m3b11fnuzx65535" fits). */
#define DLX_DTYPE_NAME_MAX 32

/* Canonical name of a legal dtype into buf (NUL-terminated). DLX_ERR_INVALID_DTYPE for an illegal one,
 * DLX_ERR_BUFFER_TOO_SMALL when cap is too small, DLX_ERR_NULL_ARGUMENT for a NULL buf. */
DLX_API dlx_status dlx_dtype_format(DLDataType dt, char *buf, size_t cap);

/* Static canonical name of a legal scalar (lanes == 1) dtype with a fixed name, or NULL for anything
 * else (vectors, kDLOpaqueHandle, illegal dtypes: use dlx_dtype_format). Never fails. */
DLX_API const char *dlx_dtype_name(DLDataType dt);

/* Parse a canonical name ("float32", "bfloat16", "float32x4", "opaque64"). DLX_ERR_PARSE with the
 * name quoted when it is not one; DLX_ERR_NULL_ARGUMENT for NULL pointers. Exact, case-sensitive. */
DLX_API dlx_status dlx_dtype_parse(const char *name, DLDataType *out);

/* dlx_dtype_parse for a name of known length (need not be NUL-terminated). */
DLX_API dlx_status dlx_dtype_parse_n(const char *name, size_t len, DLDataType *out);

DLX_EXTERN_C_END

#endif

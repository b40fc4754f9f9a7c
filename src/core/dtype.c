/* The dtype table: legal bits per code, canonical names, sizes. */
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"

/* One row per (code, bits) pair with a canonical name. kDLOpaqueHandle has no fixed row: any whole
 * number of bytes is legal there, because its meaning is producer-defined. */
typedef struct dtype_row {
  uint8_t code;
  uint8_t bits;
  const char *name;
} dtype_row;

static const dtype_row dtype_rows[] = {
    {DLX_CODE_BOOL, 8, "bool"},
    {DLX_CODE_INT, 8, "int8"},
    {DLX_CODE_INT, 16, "int16"},
    {DLX_CODE_INT, 32, "int32"},
    {DLX_CODE_INT, 64, "int64"},
    {DLX_CODE_INT, 128, "int128"},
    {DLX_CODE_UINT, 8, "uint8"},
    {DLX_CODE_UINT, 16, "uint16"},
    {DLX_CODE_UINT, 32, "uint32"},
    {DLX_CODE_UINT, 64, "uint64"},
    {DLX_CODE_UINT, 128, "uint128"},
    {DLX_CODE_FLOAT, 16, "float16"},
    {DLX_CODE_FLOAT, 32, "float32"},
    {DLX_CODE_FLOAT, 64, "float64"},
    {DLX_CODE_FLOAT, 128, "float128"},
    {DLX_CODE_BFLOAT, 16, "bfloat16"},
    {DLX_CODE_COMPLEX, 32, "complex32"},
    {DLX_CODE_COMPLEX, 64, "complex64"},
    {DLX_CODE_COMPLEX, 128, "complex128"},
    {DLX_CODE_FLOAT8_E3M4, 8, "float8_e3m4"},
    {DLX_CODE_FLOAT8_E4M3, 8, "float8_e4m3"},
    {DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, "float8_e4m3b11fnuz"},
    {DLX_CODE_FLOAT8_E4M3FN, 8, "float8_e4m3fn"},
    {DLX_CODE_FLOAT8_E4M3FNUZ, 8, "float8_e4m3fnuz"},
    {DLX_CODE_FLOAT8_E5M2, 8, "float8_e5m2"},
    {DLX_CODE_FLOAT8_E5M2FNUZ, 8, "float8_e5m2fnuz"},
    {DLX_CODE_FLOAT8_E8M0FNU, 8, "float8_e8m0fnu"},
    {DLX_CODE_FLOAT6_E2M3FN, 6, "float6_e2m3fn"},
    {DLX_CODE_FLOAT6_E3M2FN, 6, "float6_e3m2fn"},
    {DLX_CODE_FLOAT4_E2M1FN, 4, "float4_e2m1fn"},
};
#define DTYPE_ROWS (sizeof dtype_rows / sizeof dtype_rows[0])

static const char opaque_prefix[] = "opaque";

/* Bit b of the 256-bit row of a code: b bits is legal. Written out from the table above (and the
 * opaque rule) so that validity is one load; test_dtype checks every (code, bits) pair. */
/* every multiple of 8 in one 64-bit word */
#define BYTES64 0x0101010101010101ull
const uint64_t dlx_dtype_legal_bits[DLX_CODE_COUNT][4] = {
    [DLX_CODE_INT] = {(1ull << 8) | (1ull << 16) | (1ull << 32), 1ull << 0, 1ull << 0, 0},
    [DLX_CODE_UINT] = {(1ull << 8) | (1ull << 16) | (1ull << 32), 1ull << 0, 1ull << 0, 0},
    [DLX_CODE_FLOAT] = {(1ull << 16) | (1ull << 32), 1ull << 0, 1ull << 0, 0},
    [DLX_CODE_OPAQUE_HANDLE] = {BYTES64 & ~1ull, BYTES64, BYTES64, BYTES64},
    [DLX_CODE_BFLOAT] = {1ull << 16, 0, 0, 0},
    [DLX_CODE_COMPLEX] = {1ull << 32, 1ull << 0, 1ull << 0, 0},
    [DLX_CODE_BOOL] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E3M4] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E4M3] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E4M3B11FNUZ] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E4M3FN] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E4M3FNUZ] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E5M2] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E5M2FNUZ] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT8_E8M0FNU] = {1ull << 8, 0, 0, 0},
    [DLX_CODE_FLOAT6_E2M3FN] = {1ull << 6, 0, 0, 0},
    [DLX_CODE_FLOAT6_E3M2FN] = {1ull << 6, 0, 0, 0},
    [DLX_CODE_FLOAT4_E2M1FN] = {1ull << 4, 0, 0, 0},
};
#undef BYTES64

static const dtype_row *find_row(uint8_t code, uint8_t bits) {
  for (size_t i = 0; i < DTYPE_ROWS; ++i)
    if (dtype_rows[i].code == code && dtype_rows[i].bits == bits) return &dtype_rows[i];
  return NULL;
}

dlx_status dlx_dtype_check(DLDataType dt) {
  if (DLX_UNLIKELY(!dlx_dtype_is_valid(dt))) {
    DLX_FAIL_IF(dt.lanes == 0, DLX_ERR_INVALID_DTYPE, "dtype (code %u, bits %u, lanes 0): lanes must be >= 1",
                dt.code, dt.bits);
    DLX_FAIL_IF(dt.code >= DLX_CODE_COUNT, DLX_ERR_INVALID_DTYPE,
                "dtype (code %u, bits %u, lanes %u): unknown type code %u", dt.code, dt.bits, dt.lanes, dt.code);
    return dlx_set_error(DLX_ERR_INVALID_DTYPE, "dtype (code %u, bits %u, lanes %u): %u bits is not legal for code %u",
                         dt.code, dt.bits, dt.lanes, dt.bits, dt.code);
  }
  return DLX_OK;
}

size_t dlx_dtype_alignment(DLDataType dt) {
  if (dlx_dtype_is_subbyte(dt) || dt.bits == 0) return 1;
  size_t bytes = dlx_dtype_element_bits(dt) / 8u;
  /* a complex number aligns like one of its two parts (C's float _Complex aligns to 4) */
  if (dt.code == DLX_CODE_COMPLEX) bytes /= 2;
  size_t align = bytes & (~bytes + 1); /* largest power of two dividing bytes */
  return align > 16 ? 16 : align;
}

dlx_status dlx_dtype_storage_bytes(DLDataType dt, uint64_t n, bool padded, uint64_t *bytes) {
  DLX_CHECK_NULL(bytes);
  DLX_FORWARD(dlx_dtype_check(dt));
  uint64_t total;
  if (padded || !dlx_dtype_is_subbyte(dt)) {
    DLX_FAIL_IF(__builtin_mul_overflow(n, (uint64_t)dlx_dtype_itemsize(dt), &total), DLX_ERR_OVERFLOW,
                "%llu elements of %zu bytes overflow uint64", (unsigned long long)n, dlx_dtype_itemsize(dt));
  } else {
    /* packed: ceil(n * bits * lanes / 8), computed without overflowing the bit count */
    uint64_t ebits = dlx_dtype_element_bits(dt);
    uint64_t whole = n / 8, rest = n % 8;
    uint64_t rest_bytes = (rest * ebits + 7) / 8;
    DLX_FAIL_IF(__builtin_mul_overflow(whole, ebits, &total) || __builtin_add_overflow(total, rest_bytes, &total),
                DLX_ERR_OVERFLOW, "%llu packed elements of %llu bits overflow uint64", (unsigned long long)n,
                (unsigned long long)ebits);
  }
  *bytes = total;
  return DLX_OK;
}

const char *dlx_dtype_name(DLDataType dt) {
  if (dt.lanes != 1) return NULL;
  const dtype_row *row = find_row(dt.code, dt.bits);
  return row ? row->name : NULL;
}

dlx_status dlx_dtype_format(DLDataType dt, char *buf, size_t cap) {
  DLX_CHECK_NULL(buf);
  DLX_FORWARD(dlx_dtype_check(dt));
  char tmp[DLX_DTYPE_NAME_MAX];
  int len;
  const dtype_row *row = find_row(dt.code, dt.bits);
  const char *base = row ? row->name : opaque_prefix;
  if (row) {
    len = dt.lanes == 1 ? snprintf(tmp, sizeof tmp, "%s", base) : snprintf(tmp, sizeof tmp, "%sx%u", base, dt.lanes);
  } else {
    len = dt.lanes == 1 ? snprintf(tmp, sizeof tmp, "%s%u", base, dt.bits)
                        : snprintf(tmp, sizeof tmp, "%s%ux%u", base, dt.bits, dt.lanes);
  }
  DLX_FAIL_IF((size_t)len + 1 > cap, DLX_ERR_BUFFER_TOO_SMALL, "dtype name \"%s\" needs %d bytes, buffer has %zu",
              tmp, len + 1, cap);
  memcpy(buf, tmp, (size_t)len + 1);
  return DLX_OK;
}

/* Parse a decimal number in [lo, hi] from s[0..len) with no sign, no leading zero, no spaces. */
static bool parse_uint(const char *s, size_t len, unsigned lo, unsigned hi, unsigned *out) {
  if (len == 0 || len > 5 || (s[0] == '0' && len > 1)) return false;
  unsigned v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10u + (unsigned)(s[i] - '0');
  }
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* The scalar dtype spelled exactly name[0..len), lanes 1. */
static bool lookup_scalar(const char *name, size_t len, DLDataType *out) {
  for (size_t i = 0; i < DTYPE_ROWS; ++i) {
    const char *n = dtype_rows[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) {
      *out = DLX_DTYPE_MAKE(dtype_rows[i].code, dtype_rows[i].bits, 1);
      return true;
    }
  }
  const size_t plen = sizeof opaque_prefix - 1;
  unsigned bits;
  if (len > plen && memcmp(name, opaque_prefix, plen) == 0 && parse_uint(name + plen, len - plen, 8, 248, &bits) &&
      bits % 8 == 0) {
    *out = DLX_DTYPE_MAKE(DLX_CODE_OPAQUE_HANDLE, bits, 1);
    return true;
  }
  return false;
}

dlx_status dlx_dtype_parse_n(const char *name, size_t len, DLDataType *out) {
  DLX_CHECK_NULL(name);
  DLX_CHECK_NULL(out);
  /* the quoted name in messages is cut so that a hostile length cannot flood the message */
  const int shown = len > 64 ? 64 : (int)len;
  size_t base_len = len;
  unsigned lanes = 1;
  /* A vector suffix "x<lanes>" follows the last 'x'. "complex128" holds an 'x' too, so the whole name is
   * tried as a scalar first and split only when that fails. */
  if (!lookup_scalar(name, len, out)) {
    const char *x = NULL;
    for (size_t i = len; i-- > 0;)
      if (name[i] == 'x') {
        x = name + i;
        break;
      }
    DLX_FAIL_IF(x == NULL || x == name, DLX_ERR_PARSE,
                "\"%.*s\" is not a dtype name (expected e.g. \"float32\", \"bfloat16\", \"float8_e4m3fn\", "
                "\"float32x4\")", shown, name);
    base_len = (size_t)(x - name);
    DLX_FAIL_IF(!parse_uint(x + 1, len - base_len - 1, 1, 65535, &lanes), DLX_ERR_PARSE,
                "dtype name \"%.*s\": lanes after 'x' must be a number in [1, 65535]", shown, name);
    DLX_FAIL_IF(!lookup_scalar(name, base_len, out), DLX_ERR_PARSE,
                "\"%.*s\" is not a dtype name: \"%.*s\" is no scalar type", shown, name, (int)(base_len > 64 ? 64 : base_len), name);
    out->lanes = (uint16_t)lanes;
  }
  return DLX_OK;
}
dlx_status dlx_dtype_parse(const char *name, DLDataType *out) {
  DLX_CHECK_NULL(name);
  return dlx_dtype_parse_n(name, strlen(name), out);
}

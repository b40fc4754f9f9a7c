/* fuzz/fuzz_dtype_parse.c - libFuzzer harness for dlx_dtype_parse_n / dlx_dtype_parse / dlx_dtype_format.
 *
 * The input is a dtype name as a Python user might pass it (not NUL-terminated: parse_n must not read
 * past len; the bytes live in libFuzzer's exactly-sized buffer, so ASan sees any overread). A name that
 * parses must be legal and must format back to a name that parses to the same dtype; the canonical
 * name must be a fixed point. Every formatted name fits DLX_DTYPE_NAME_MAX, and a too-small buffer is
 * refused with BUFFER_TOO_SMALL, never overrun. The first 4 bytes are also tried as a raw DLDataType. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlx/dlx.h"

#define FUZZ_CHECK(cond, ...)                                                          \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "fuzz_dtype_parse: %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                                    \
      fprintf(stderr, "\n");                                                           \
      __builtin_trap();                                                                \
    }                                                                                  \
  } while (0)

static int dtype_eq(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

static void check_failure(dlx_status st, const char *what) {
  FUZZ_CHECK((int)st > 0 && (int)st < (int)DLX_STATUS_COUNT, "%s: status %d", what, (int)st);
  FUZZ_CHECK(dlx_last_error()[0] != '\0', "%s failed with %s but left no message", what, dlx_status_name(st));
}

/* Format dt into exactly-sized heap buffers of every length up to the name's: ASan sees an overrun. */
static void check_format(DLDataType dt) {
  char name[DLX_DTYPE_NAME_MAX];
  dlx_clear_error();
  dlx_status st = dlx_dtype_format(dt, name, sizeof name);
  if (!dlx_dtype_is_valid(dt)) {
    FUZZ_CHECK(st == DLX_ERR_INVALID_DTYPE, "illegal dtype (%d,%d,%d) formatted with %s", dt.code, dt.bits,
               dt.lanes, dlx_status_name(st));
    check_failure(st, "dlx_dtype_format");
    return;
  }
  FUZZ_CHECK(st == DLX_OK, "legal dtype (%d,%d,%d) has no name: %s", dt.code, dt.bits, dt.lanes, dlx_last_error());
  size_t len = 0;
  while (len < sizeof name && name[len] != '\0') ++len;
  FUZZ_CHECK(len > 0 && len < sizeof name, "name of length %zu", len);
  for (size_t cap = 0; cap <= len + 1; ++cap) {
    char *buf = (char *)malloc(cap); /* ASan gives a zero-byte block for cap 0 */
    if (buf == NULL) continue;
    dlx_clear_error();
    st = dlx_dtype_format(dt, buf, cap);
    if (cap > len) {
      FUZZ_CHECK(st == DLX_OK && strcmp(buf, name) == 0, "format into %zu bytes gave %s", cap, dlx_status_name(st));
    } else {
      FUZZ_CHECK(st == DLX_ERR_BUFFER_TOO_SMALL, "format of \"%s\" into %zu bytes returned %s", name, cap,
                 dlx_status_name(st));
    }
    free(buf);
  }
  DLDataType back;
  dlx_clear_error();
  st = dlx_dtype_parse(name, &back);
  FUZZ_CHECK(st == DLX_OK && dtype_eq(back, dt), "canonical name \"%s\" does not parse back", name);
  const char *static_name = dlx_dtype_name(dt);
  if (dt.lanes == 1) {
    /* opaque<bits> has no static string for every width: NULL is allowed there */
    if (dt.code != DLX_CODE_OPAQUE_HANDLE || static_name != NULL)
      FUZZ_CHECK(static_name != NULL && strcmp(static_name, name) == 0,
                 "dlx_dtype_name differs from format for \"%s\"", name);
  } else
    FUZZ_CHECK(static_name == NULL, "dlx_dtype_name named a vector type");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DLDataType dt;
  dlx_clear_error();
  dlx_status st = dlx_dtype_parse_n((const char *)data, size, &dt);
  if (st == DLX_OK) {
    FUZZ_CHECK(dlx_dtype_is_valid(dt), "parsed an illegal dtype (%d,%d,%d)", dt.code, dt.bits, dt.lanes);
    check_format(dt);
  } else {
    check_failure(st, "dlx_dtype_parse_n");
  }

  /* The NUL-terminated entry point agrees with parse_n on names without an embedded NUL. */
  if (size < 64 && memchr(data, 0, size) == NULL) {
    char z[64];
    memcpy(z, data, size);
    z[size] = '\0';
    DLDataType dt2;
    dlx_clear_error();
    dlx_status st2 = dlx_dtype_parse(z, &dt2);
    FUZZ_CHECK(st2 == st, "parse and parse_n disagree on \"%s\": %s vs %s", z, dlx_status_name(st2),
               dlx_status_name(st));
    if (st == DLX_OK) FUZZ_CHECK(dtype_eq(dt, dt2), "parse and parse_n give different dtypes for \"%s\"", z);
  }

  if (size >= 4) {
    DLDataType raw;
    raw.code = data[0];
    raw.bits = data[1];
    raw.lanes = (uint16_t)(data[2] | (data[3] << 8));
    check_format(raw);
    int storage_ok = dlx_dtype_is_valid(raw);
    uint64_t bytes = 0;
    dlx_clear_error();
    st = dlx_dtype_storage_bytes(raw, size, (data[0] & 1) != 0, &bytes);
    if (storage_ok) FUZZ_CHECK(st == DLX_OK, "storage of %zu elements: %s", size, dlx_last_error());
    else FUZZ_CHECK(st == DLX_ERR_INVALID_DTYPE, "storage of an illegal dtype: %s", dlx_status_name(st));
  }
  return 0;
}

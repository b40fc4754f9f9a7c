/* fuzz/fuzz_common.h - what the newer libFuzzer harnesses share: a byte reader that yields zeros past
 * the end of the input (so every input decodes to something), value pickers biased towards the
 * small values real tensors have with escapes to extremes, and a failure macro.
 *
 * A broken promise prints what differed and traps in harness code (never library code), so libFuzzer
 * records the input as a crash. The older harnesses (dltensor_import, dtype_parse) keep their own
 * copies of these helpers: their seed corpora depend on the exact encoding. */
#ifndef DLX_FUZZ_COMMON_H
#define DLX_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlx/error.h"

#define FUZZ_CHECK(cond, ...)                                                                     \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
      fprintf(stderr, __VA_ARGS__);                                                               \
      fprintf(stderr, "\n");                                                                      \
      __builtin_trap();                                                                           \
    }                                                                                             \
  } while (0)

typedef struct fuzz_reader {
  const uint8_t *p;
  size_t n;
} fuzz_reader;

static inline bool fuzz_more(const fuzz_reader *r) { return r->n > 0; }

static inline uint8_t fuzz_u8(fuzz_reader *r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}
static inline uint32_t fuzz_u32(fuzz_reader *r) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)fuzz_u8(r) << (8 * i);
  return v;
}
static inline uint64_t fuzz_u64(fuzz_reader *r) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)fuzz_u8(r) << (8 * i);
  return v;
}

/* Ranks: mostly 0..8, some around DLX_MAX_NDIM (64), some negative, rarely a raw int32. */
static inline int32_t fuzz_ndim(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xE0) return b % 9;                    /* 0..8 */
  if (b < 0xF0) return 56 + (b & 0x0F);          /* 56..71 */
  if (b < 0xFF) return -1 - (int32_t)(b & 0x0F); /* -1..-15 */
  return (int32_t)fuzz_u32(r);
}

/* Extents and strides: 0..15 mostly, -16..15 often, a raw int64 (INT64_MIN, huge) rarely. */
static inline int64_t fuzz_i64_small(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xC0) return b & 0x0F;                 /* 0..15 */
  if (b < 0xF0) return (int64_t)(b & 0x1F) - 16; /* -16..15 */
  return (int64_t)fuzz_u64(r);
}

/* Dimension arguments: -8..8 mostly (negative counts from the back in the view ops), raw rarely. */
static inline int32_t fuzz_dim(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xF0) return (int32_t)(b % 17) - 8;
  return (int32_t)fuzz_u32(r);
}

/* Every failure has a status in range, a name, and a non-empty NUL-terminated message. */
static inline void fuzz_check_status(dlx_status st, const char *what) {
  FUZZ_CHECK((int)st >= 0 && (int)st < (int)DLX_STATUS_COUNT, "%s returned status %d", what, (int)st);
  const char *name = dlx_status_name(st);
  FUZZ_CHECK(name != NULL && strcmp(name, "UNKNOWN_STATUS") != 0, "%s: no name for status %d", what, (int)st);
  const char *msg = dlx_last_error();
  FUZZ_CHECK(msg != NULL, "%s: dlx_last_error() is NULL", what);
  size_t len = strlen(msg);
  if (st != DLX_OK) FUZZ_CHECK(len > 0, "%s failed with %s but left no message", what, name);
}

#endif

/* src/kernels/convert.c - the generic narrow-float codec: one descriptor per format, one encoder and one
 * decoder for all of them (rules in convert.h), and the fp8/fp6/fp4 decode tables. */
#include "kernels/convert.h"

#include <stdatomic.h>

/* DLPack codes 7..17 are the 8/6/4-bit formats; they index the decode tables from 0. */
#define DLX_CVT_FIRST_SMALL DLX_CODE_FLOAT8_E3M4
#define DLX_CVT_SMALL_COUNT (DLX_CODE_FLOAT4_E2M1FN - DLX_CODE_FLOAT8_E3M4 + 1)

#define DLX_CVT_ENTRY(...) {__VA_ARGS__},
static const dlx__cvt_format dlx__cvt_formats[] = {DLX_CVT_FORMATS(DLX_CVT_ENTRY)};
#undef DLX_CVT_ENTRY

const dlx__cvt_format *dlx__cvt_format_of(uint8_t dlpack_code) {
  if (dlpack_code == DLX_CODE_FLOAT) return &dlx__cvt_formats[0];
  if (dlpack_code == DLX_CODE_BFLOAT) return &dlx__cvt_formats[1];
  if (dlpack_code >= DLX_CVT_FIRST_SMALL && dlpack_code < DLX_CVT_FIRST_SMALL + DLX_CVT_SMALL_COUNT)
    return &dlx__cvt_formats[2 + (dlpack_code - DLX_CVT_FIRST_SMALL)];
  return NULL;
}

/* ---- encode --------------------------------------------------------------------------------- */

uint32_t dlx__cvt_narrow_encode(uint8_t dlpack_code, double x) {
  const dlx__cvt_format *fmt = dlx__cvt_format_of(dlpack_code);
  return fmt ? dlx__cvt_encode_f64(fmt, x) : 0u;
}

uint32_t dlx__cvt_narrow_encode_f32(uint8_t dlpack_code, float x) {
  const dlx__cvt_format *fmt = dlx__cvt_format_of(dlpack_code);
  return fmt ? dlx__cvt_encode_f32(fmt, x) : 0u;
}

/* ---- decode --------------------------------------------------------------------------------- */

double dlx__cvt_narrow_decode(uint8_t dlpack_code, uint32_t bits) {
  const dlx__cvt_format *fmt = dlx__cvt_format_of(dlpack_code);
  return fmt ? dlx__cvt_decode_f64(fmt, bits) : dlx__cvt_f64_from_bits(UINT64_C(0x7ff8000000000000));
}

/* ---- decode tables -------------------------------------------------------------------------- */

static float dlx__cvt_tables[DLX_CVT_SMALL_COUNT][256];
/* 0: not built, 1: one thread is building, 2: ready (published with release, read with acquire) */
static atomic_int dlx__cvt_tables_state;

static void dlx__cvt_tables_build(void) {
  int expected = 0;
  if (atomic_compare_exchange_strong_explicit(&dlx__cvt_tables_state, &expected, 1, memory_order_acq_rel,
                                              memory_order_acquire)) {
    for (int f = 0; f < DLX_CVT_SMALL_COUNT; ++f) {
      const dlx__cvt_format *fmt = &dlx__cvt_formats[2 + f];
      for (uint32_t c = 0; c < 256; ++c) dlx__cvt_tables[f][c] = dlx__cvt_decode_f32(fmt, c);
    }
    atomic_store_explicit(&dlx__cvt_tables_state, 2, memory_order_release);
    return;
  }
  /* another thread is filling 2816 floats (microseconds): wait for it to publish */
  while (atomic_load_explicit(&dlx__cvt_tables_state, memory_order_acquire) != 2) {
  }
}

const float *dlx__cvt_decode_table(uint8_t dlpack_code) {
  if (dlpack_code < DLX_CVT_FIRST_SMALL || dlpack_code >= DLX_CVT_FIRST_SMALL + DLX_CVT_SMALL_COUNT) return NULL;
  if (atomic_load_explicit(&dlx__cvt_tables_state, memory_order_acquire) != 2) dlx__cvt_tables_build();
  return dlx__cvt_tables[dlpack_code - DLX_CVT_FIRST_SMALL];
}

/* The CPU backend: host memory (alloc.c: 64-byte aligned, huge pages and a cache for large blocks), the
 * typed loops of loops_native_body.h / loops_narrow_body.h at the level dispatch.c picked, run over a
 * plan by exec.c, packed sub-byte operands walked by bit position, and gemm through CBLAS
 * (gemm_cblas.c). Every host-accessible memory kind (cpu, pinned, managed, rocm_host) computes here: to
 * the loops they are one address space. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/cpu/cpu.h"
#include "backends/cpu/loops.h"
#include "kernels/convert.h"
#include "core/error_internal.h"

/* ---- packed float6 / float4 ----------------------------------------------------------------------- */

/* Contiguous packed data (element 0 at bit 0: packed views start on a byte) <-> padded codes, whole
 * groups of bytes at a time: a float4 byte holds two codes, three float6 bytes hold four. Plain byte
 * loops that the compiler vectorises, instead of a bit-position walk per element. Returns the elements
 * done; the caller does the rest element by element, because their last byte may also hold codes past
 * the view's end, which must stay as they are. */
static int64_t packed_groups(unsigned char *data, uint8_t *buf, int64_t n, unsigned bits, bool unpack) {
  if (bits == 4) {
    const int64_t g = n / 2;
    if (unpack) {
      for (int64_t k = 0; k < g; ++k) {
        buf[2 * k] = data[k] & 0xfu;
        buf[2 * k + 1] = data[k] >> 4;
      }
    } else {
      for (int64_t k = 0; k < g; ++k) data[k] = (unsigned char)((buf[2 * k] & 0xfu) | (buf[2 * k + 1] << 4));
    }
    return 2 * g;
  }
  if (bits == 6) {
    const int64_t g = n / 4;
    if (unpack) {
      for (int64_t k = 0; k < g; ++k) {
        const uint32_t w = data[3 * k] | (uint32_t)data[3 * k + 1] << 8 | (uint32_t)data[3 * k + 2] << 16;
        for (int j = 0; j < 4; ++j) buf[4 * k + j] = (uint8_t)((w >> (6 * j)) & 0x3fu);
      }
    } else {
      for (int64_t k = 0; k < g; ++k) {
        uint32_t w = 0;
        for (int j = 0; j < 4; ++j) w |= (uint32_t)(buf[4 * k + j] & 0x3fu) << (6 * j);
        data[3 * k] = (unsigned char)w;
        data[3 * k + 1] = (unsigned char)(w >> 8);
        data[3 * k + 2] = (unsigned char)(w >> 16);
      }
    }
    return 4 * g;
  }
  return 0;
}

/* Packed view p <-> row-major padded bytes buf (the low bits of each byte hold the code). Element i of a
 * view sits at bit i * bits from data, negative strides included. Serial: the byte holding two codes
 * would otherwise be written by two threads. */
static void packed_walk(const dlx_view *p, uint8_t *buf, bool unpack) {
  const int64_t n = dlx_view_size(p);
  const unsigned bits = (unsigned)p->dtype.bits;
  unsigned char *data = p->data;
  int64_t idx[DLX_MAX_NDIM] = {0};
  const bool contiguous = dlx_view_is_c_contiguous(p);
  if (contiguous) {
    for (int64_t i = packed_groups(data, buf, n, bits, unpack); i < n; ++i) {
      if (unpack) buf[i] = (uint8_t)dlx__cvt_bits_get(data, i * (int64_t)bits, bits);
      else dlx__cvt_bits_set(data, i * (int64_t)bits, bits, buf[i]);
    }
    return;
  }
  /* unsigned: stepping an extent-1 dimension adds its stride and takes it back at once, and that stride
   * may be anything (INT64_MAX included); modulo 2^64 the offset still comes out exact */
  uint64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = (int64_t)off;
    if (unpack) buf[i] = (uint8_t)dlx__cvt_bits_get(data, e * (int64_t)bits, bits);
    else dlx__cvt_bits_set(data, e * (int64_t)bits, bits, buf[i]);
    for (int32_t d = p->ndim - 1; d >= 0; --d) {
      off += (uint64_t)p->strides[d];
      if (++idx[d] < p->shape[d]) break;
      off -= (uint64_t)idx[d] * (uint64_t)p->strides[d];
      idx[d] = 0;
    }
  }
}

static dlx_status cpu_unpack(const dlx_view *packed, void *padded) {
  packed_walk(packed, padded, true);
  return DLX_OK;
}

static dlx_status cpu_pack(const dlx_view *packed, const void *padded) {
  packed_walk(packed, (uint8_t *)(uintptr_t)padded, false);
  return DLX_OK;
}

/* ---- the elementwise executor --------------------------------------------------------------------- */

/* The loops of an op whose operands are all byte-sized (packed ones already unpacked), one function per
 * op kind; the running level's tables (dispatch.c) are read once, so the whole op runs one level's loops. */

/* Narrow inputs decoded to float32 around a float32 core loop; the result encoded back unless it is bool
 * (the core writes out directly then). */
static void staged_f32(dlx__cpu_loop *s, const dlx__cpu_narrow_loops *nar, dlx__kd k, int nin, dlx__loop_fn core,
                       bool bool_result) {
  dlx__staged_plan *p = &s->plan;
  p->nin = nin;
  for (int j = 0; j < nin; ++j) {
    p->dec[j] = nar->dec32[dlx__kd_narrow_index(k)];
    p->dec_size[j] = 4;
  }
  p->core = core;
  if (!bool_result) {
    p->enc = nar->enc32[dlx__kd_narrow_index(k)];
    p->enc_size = 4;
  }
  s->fn = dlx__cpu_staged_loop;
  s->aux = p;
}

static void select_cast(const dlx__ew_op *op, const dlx__cpu_kernel_set *kern, dlx__cpu_loop *s) {
  const dlx__cpu_native_loops *nat = kern->native;
  const dlx__cpu_narrow_loops *nar = kern->narrow;
  dlx__staged_plan *p = &s->plan;
  const dlx__kd src = dlx__kd_of(op->dtype[1]), dst = dlx__kd_of(op->dtype[0]);
  p->nin = 1;
  if (dlx__kd_is_native(src) && dlx__kd_is_native(dst)) {
    s->fn = nat->cast[src][dst];
    return;
  }
  if (dlx__kd_is_native(src)) {
    const int nd = dlx__kd_narrow_index(dst);
    if (src == DLX_KD_F32 || src == DLX_KD_F64) {
      s->fn = src == DLX_KD_F32 ? nar->enc32[nd] : nar->enc64[nd];
      return;
    }
    /* convert.h: float32-valued sources encode from float, the others (integers too) from double */
    const dlx__kd mid = src == DLX_KD_C64 ? DLX_KD_F32 : DLX_KD_F64;
    p->dec[0] = nat->cast[src][mid];
    p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
    p->core = mid == DLX_KD_F32 ? nar->enc32[nd] : nar->enc64[nd];
  } else if (dlx__kd_is_native(dst)) {
    const int ns = dlx__kd_narrow_index(src);
    if (dst == DLX_KD_F32 || dst == DLX_KD_F64) {
      s->fn = dst == DLX_KD_F32 ? nar->dec32[ns] : nar->dec64[ns];
      return;
    }
    const dlx__kd mid = dst == DLX_KD_C128 ? DLX_KD_F64 : DLX_KD_F32;
    p->dec[0] = mid == DLX_KD_F32 ? nar->dec32[ns] : nar->dec64[ns];
    p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
    p->core = nat->cast[mid][dst];
  } else {
    p->dec[0] = nar->dec32[dlx__kd_narrow_index(src)];
    p->dec_size[0] = 4;
    p->core = nar->enc32[dlx__kd_narrow_index(dst)];
  }
  s->fn = dlx__cpu_staged_loop;
  s->aux = p;
}

static void select_unary(const dlx__ew_op *op, const dlx__cpu_kernel_set *kern, dlx__cpu_loop *s) {
  const dlx__kd k = dlx__kd_of(op->dtype[1]);
  if (dlx__kd_is_native(k)) {
    s->fn = kern->native->unary[op->unop][k];
    return;
  }
  const dlx__op_info *info = &dlx__unop_info[op->unop];
  if (info->nar == DLX__NAR_CODE) { /* on the codes (negation keeps NaN payloads, as ml_dtypes) */
    s->fn = kern->narrow->unary[op->unop][dlx__kd_narrow_index(k)];
    return;
  }
  if (info->nar == DLX__NAR_WIDE) {
    /* the math functions: decoded to float32, the function's value in double, encoded once from it (never
     * through float32: op_table.h) */
    staged_f32(s, kern->narrow, k, 1, kern->native->wide[op->unop], false);
    s->plan.enc = kern->narrow->enc64[dlx__kd_narrow_index(k)];
    s->plan.enc_size = 8;
    return;
  }
  staged_f32(s, kern->narrow, k, 1, kern->native->unary[op->unop][DLX_KD_F32], info->bool_result);
}

static void select_binary(const dlx__ew_op *op, const dlx__cpu_kernel_set *kern, dlx__cpu_loop *s) {
  /* the second input's dtype (a == b but for the mixed pairs) */
  const dlx__kd k = dlx__kd_of(op->dtype[2]);
  const int mix = dlx__mixed_pair(dlx__kd_of(op->dtype[1]), k);
  if (mix >= 0) {
    s->fn = kern->native->binary_mixed[op->op][mix];
  } else if (dlx__kd_is_native(k)) {
    s->fn = kern->native->binary[op->op][k];
  } else {
    staged_f32(s, kern->narrow, k, 2, kern->native->binary[op->op][DLX_KD_F32], dlx__binop_info[op->op].bool_result);
  }
}

static void select_fma(const dlx__ew_op *op, const dlx__cpu_kernel_set *kern, dlx__cpu_loop *s) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]), k1 = dlx__kd_of(op->dtype[1]);
  s->scalar = op->scalar;
  if (dlx__kd_is_native(k)) {
    s->aux = &s->scalar;
    s->fn = k1 == k ? kern->native->fma[k] : kern->native->fma_mixed[k - DLX_KD_U8];
    return;
  }
  staged_f32(s, kern->narrow, k, 2, kern->native->fma[DLX_KD_F32], false);
  s->plan.core_aux = &s->scalar;
}

static void select_ternary(const dlx__ew_op *op, const dlx__cpu_kernel_set *kern, dlx__cpu_loop *s) {
  const dlx__kd k = dlx__kd_of(op->dtype[2]);
  if (op->ternop == DLX_TERNOP_WHERE) { /* bits moved as they are: by item size */
    const size_t size = dlx_dtype_itemsize(op->dtype[2]);
    s->fn = kern->native->where[size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4];
  } else if (dlx__kd_is_native(k)) {
    s->fn = kern->native->clip[k];
  } else {
    staged_f32(s, kern->narrow, k, 3, kern->native->clip[DLX_KD_F32], false);
  }
}

void dlx__cpu_select_loop(const dlx__ew_op *op, dlx__cpu_loop *s) {
  memset(s, 0, sizeof *s);
  const dlx__cpu_kernel_set *kern = dlx__cpu_kernels();
  if (dlx__ew_is_move(op)) {
    s->itemsize = dlx_dtype_itemsize(op->dtype[0]);
    s->fn = kern->native->copy_any;
    s->aux = &s->itemsize;
    return;
  }
  switch (op->kind) {
    case DLX_EW_CAST: select_cast(op, kern, s); return;
    case DLX_EW_UNARY: select_unary(op, kern, s); return;
    case DLX_EW_BINARY: select_binary(op, kern, s); return;
    case DLX_EW_FMA: select_fma(op, kern, s); return;
    default: select_ternary(op, kern, s); return;
  }
}

static dlx_status cpu_execute(const dlx__ew_op *op, const dlx_iter *plan) {
  dlx__cpu_loop loop;
  dlx__cpu_select_loop(op, &loop);
  int64_t itemsize[1 + DLX__EW_MAX_IN];
  for (int k = 0; k <= op->nin; ++k) itemsize[k] = (int64_t)dlx_dtype_itemsize(op->dtype[k]);
  dlx__cpu_run_plan(plan, itemsize, loop.fn, loop.aux);
  return DLX_OK;
}

static int cpu_device_count(void) { return 1; }

const dlx__memory_ops dlx__cpu_memory = {
    .name = "cpu",
    .label = "CPU",
    .device_type = kDLCPU,
    .device_count = cpu_device_count,
    .alloc = dlx__cpu_alloc,
    .free = dlx__cpu_free,
    /* every host kind is one address space: copies among them are elementwise copies, and the host
     * orders itself (no streams, no events, no pointer query) */
};

const dlx__compute_ops dlx__cpu_compute = {
    .name = "cpu",
    .execute = cpu_execute,
    .reduce = dlx__cpu_reduce,
    .unpack = cpu_unpack,
    .pack = cpu_pack,
    .gemm = dlx__cpu_gemm,
    .gather = dlx__cpu_gather,
    .ordered = true,
    .mask_gather = dlx__cpu_mask_gather,
};

const dlx__backend dlx__cpu_backend = {.name = "cpu", .memory = &dlx__cpu_memory, .compute = &dlx__cpu_compute};

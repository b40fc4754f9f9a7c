/* The CPU backend: host memory (64-byte aligned, transparent huge pages for large blocks), the typed
 * loops of loops_native.c / loops_narrow.c run over a plan by exec.c, packed sub-byte operands walked by
 * bit position, and gemm through CBLAS (gemm_cblas.c). Every host-accessible memory kind (cpu, pinned,
 * managed, rocm_host) computes here: to the loops they are one address space. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* MADV_HUGEPAGE: a strict -std=c11 build hides it otherwise */
#endif
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "backends/backend.h"
#include "backends/cpu/cpu.h"
#include "backends/cpu/loops.h"
#include "compute/convert.h"
#include "core/error_internal.h"

/* ---- memory ------------------------------------------------------------------------------------- */

/* Blocks at least this large ask for transparent huge pages before their first touch, as NumPy does: a
 * 64 MiB result then costs 32 page faults instead of 16384 (a new result of t + t was 4x NumPy's time). */
#define HUGE_PAGE_MIN ((uint64_t)1 << 22)

static dlx_status cpu_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  DLX_FAIL_IF(device.device_type != kDLCPU, DLX_ERR_DEVICE_MISMATCH, "%s: the cpu backend allocates cpu memory, not "
              "device type %d", fn, (int)device.device_type);
  DLX_FAIL_IF(device.device_id != 0, DLX_ERR_INVALID_DEVICE, "%s: cpu device id %d (must be 0)", fn,
              (int)device.device_id);
  /* aligned_alloc wants a multiple of the alignment; 64 bytes: a cache line, and any vector load */
  DLX_FAIL_IF(bytes > (uint64_t)PTRDIFF_MAX - 64, DLX_ERR_OUT_OF_MEMORY, "%s: %llu bytes cannot be allocated", fn,
              (unsigned long long)bytes);
  const size_t size = bytes == 0 ? 64 : (size_t)((bytes + 63u) & ~(uint64_t)63u);
  void *p = aligned_alloc(64, size);
  DLX_FAIL_IF(p == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %llu bytes", fn,
              (unsigned long long)bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= HUGE_PAGE_MIN) {
    const uintptr_t a = (uintptr_t)p, start = (a + 4095u) & ~(uintptr_t)4095u;
    if (start < a + size) madvise((void *)start, (size_t)(a + size - start), MADV_HUGEPAGE);
  }
#endif
  if (zero) memset(p, 0, size);
  *out = p;
  return DLX_OK;
}

static void cpu_free(DLDevice device, void *ptr) {
  (void)device;
  free(ptr);
}

/* ---- packed float6 / float4 ----------------------------------------------------------------------- */

/* Packed view p <-> row-major padded bytes buf (the low bits of each byte hold the code). Element i of a
 * view sits at bit i * bits from data, negative strides included. Serial: the byte holding two codes
 * would otherwise be written by two threads. */
static void packed_walk(const dlx_view *p, uint8_t *buf, bool unpack) {
  const int64_t n = dlx_view_size(p);
  const unsigned bits = (unsigned)p->dtype.bits;
  unsigned char *data = p->data;
  int64_t idx[DLX_MAX_NDIM] = {0};
  const bool contiguous = dlx_view_is_c_contiguous(p);
  /* unsigned: stepping an extent-1 dimension adds its stride and takes it back at once, and that stride
   * may be anything (INT64_MAX included); modulo 2^64 the offset still comes out exact */
  uint64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = contiguous ? i : (int64_t)off;
    if (unpack) buf[i] = (uint8_t)dlx_cvt_bits_get(data, e * (int64_t)bits, bits);
    else dlx_cvt_bits_set(data, e * (int64_t)bits, bits, buf[i]);
    if (contiguous) continue;
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

/* The loop for an op whose operands are all byte-sized (packed ones already unpacked). */
void dlx__cpu_select_loop(const dlx_ew_op *op, dlx_cpu_loop *s) {
  memset(s, 0, sizeof *s);
  if (dlx__ew_is_move(op)) {
    s->itemsize = dlx_dtype_itemsize(op->dtype[0]);
    s->fn = dlx__cpu_copy_any;
    s->aux = &s->itemsize;
    return;
  }
  dlx_staged_plan *p = &s->plan;
  if (op->kind == DLX_EW_CAST) {
    const dlx_kd src = dlx__kd_of(op->dtype[1]), dst = dlx__kd_of(op->dtype[0]);
    p->nin = 1;
    if (dlx__kd_is_native(src) && dlx__kd_is_native(dst)) {
      s->fn = dlx__cpu_cast[src][dst];
      return;
    }
    if (dlx__kd_is_native(src)) {
      const int nd = dlx__kd_narrow_index(dst);
      if (src == DLX_KD_F32 || src == DLX_KD_F64) {
        s->fn = src == DLX_KD_F32 ? dlx__cpu_narrow_enc32[nd] : dlx__cpu_narrow_enc64[nd];
        return;
      }
      /* convert.h: float32-valued sources encode from float, the others (integers too) from double */
      const dlx_kd mid = src == DLX_KD_C64 ? DLX_KD_F32 : DLX_KD_F64;
      p->dec[0] = dlx__cpu_cast[src][mid];
      p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
      p->core = mid == DLX_KD_F32 ? dlx__cpu_narrow_enc32[nd] : dlx__cpu_narrow_enc64[nd];
    } else if (dlx__kd_is_native(dst)) {
      const int ns = dlx__kd_narrow_index(src);
      if (dst == DLX_KD_F32 || dst == DLX_KD_F64) {
        s->fn = dst == DLX_KD_F32 ? dlx__cpu_narrow_dec32[ns] : dlx__cpu_narrow_dec64[ns];
        return;
      }
      const dlx_kd mid = dst == DLX_KD_C128 ? DLX_KD_F64 : DLX_KD_F32;
      p->dec[0] = mid == DLX_KD_F32 ? dlx__cpu_narrow_dec32[ns] : dlx__cpu_narrow_dec64[ns];
      p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
      p->core = dlx__cpu_cast[mid][dst];
    } else {
      p->dec[0] = dlx__cpu_narrow_dec32[dlx__kd_narrow_index(src)];
      p->dec_size[0] = 4;
      p->core = dlx__cpu_narrow_enc32[dlx__kd_narrow_index(dst)];
    }
    s->fn = dlx__cpu_staged_loop;
    s->aux = p;
    return;
  }
  if (op->kind == DLX_EW_UNARY) {
    const dlx_kd k = dlx__kd_of(op->dtype[1]);
    if (dlx__kd_is_native(k)) {
      s->fn = dlx__cpu_unary[op->unop][k];
      return;
    }
    /* DLX_UNOP_NEG, the only one: on the codes (NaN payloads kept, as ml_dtypes) */
    s->fn = dlx__cpu_narrow_neg[dlx__kd_narrow_index(k)];
    return;
  }
  /* binary and fma: dtype of the second input (t2 for fma; a == b for binary) */
  const dlx_kd k = dlx__kd_of(op->dtype[2]);
  if (op->kind == DLX_EW_BINARY) {
    if (dlx__kd_is_native(k)) {
      s->fn = dlx__cpu_binary[op->op][k];
      return;
    }
    p->nin = 2;
    p->dec[0] = p->dec[1] = dlx__cpu_narrow_dec32[dlx__kd_narrow_index(k)];
    p->dec_size[0] = p->dec_size[1] = 4;
    p->core = dlx__cpu_binary[op->op][DLX_KD_F32];
    if (!dlx__op_is_comparison(op->op)) {
      p->enc = dlx__cpu_narrow_enc32[dlx__kd_narrow_index(k)];
      p->enc_size = 4;
    }
    s->fn = dlx__cpu_staged_loop;
    s->aux = p;
    return;
  }
  const dlx_kd k1 = dlx__kd_of(op->dtype[1]);
  if (dlx__kd_is_native(k)) {
    s->scalar = op->scalar;
    s->aux = &s->scalar;
    if (k1 == k) {
      s->fn = dlx__cpu_fma[k];
    } else {
      s->fn = dlx__cpu_fma_mixed[k - DLX_KD_U8];
    }
    return;
  }
  p->nin = 2;
  p->dec[0] = p->dec[1] = dlx__cpu_narrow_dec32[dlx__kd_narrow_index(k)];
  p->dec_size[0] = p->dec_size[1] = 4;
  p->core = dlx__cpu_fma[DLX_KD_F32];
  s->scalar = op->scalar;
  p->core_aux = &s->scalar;
  p->enc = dlx__cpu_narrow_enc32[dlx__kd_narrow_index(k)];
  p->enc_size = 4;
  s->fn = dlx__cpu_staged_loop;
  s->aux = p;
}

static dlx_status cpu_execute(const dlx_ew_op *op, const dlx_iter *plan) {
  dlx_cpu_loop loop;
  dlx__cpu_select_loop(op, &loop);
  int64_t itemsize[3];
  for (int k = 0; k <= op->nin; ++k) itemsize[k] = (int64_t)dlx_dtype_itemsize(op->dtype[k]);
  dlx__cpu_run_plan(plan, itemsize, loop.fn, loop.aux);
  return DLX_OK;
}

static int cpu_device_count(void) { return 1; }

const dlx_backend dlx__cpu_backend = {
    "cpu", kDLCPU, cpu_device_count, cpu_alloc, cpu_free, NULL, cpu_unpack, cpu_pack, cpu_execute, dlx__cpu_gemm,
    NULL,
};

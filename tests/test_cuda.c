/* The CUDA backend on a GPU, through the public C API: allocation on cuda:N, pinned and managed memory and
 * the device ids DLPack gives them; exports that take the id from the pointer (a label that disagrees is
 * an error naming both); dlx_copy host->device, device->host and device->device of any strides (negative,
 * stepped, permuted, broadcast, packed float4) against the CPU's copy of the same views, byte for byte;
 * the caching allocator's reuse, its stream guard and dlx_cuda_empty_cache, seen through the memory stats;
 * streams: per-thread current streams, dlx_cuda_stream_wait and dlx_tensor_record / dlx_tensor_wait without
 * a host wait (a stream held back by a host function shows what waits for what); cuBLAS gemm of every dtype
 * (float32, float64, complex64, complex128, float16, bfloat16) against a float64 reference on the CPU, and
 * against CBLAS where the CPU has it; reductions against the CPU's bytes.
 *
 * Needs a CUDA device: without one it prints why and exits 77, which CTest reports as skipped
 * (SKIP_RETURN_CODE). The error paths that need no device are in test_tensor.c (record / wait / stream
 * controls) and test_backends.c / test_cuda_emulated.c (the kernels). */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "runner.h"

#include "dlx/cuda.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/tensor.h"
#include "dlx/viewops.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define CPU ((DLDevice){kDLCPU, 0})
#define GPU0 ((DLDevice){kDLCUDA, 0})

#define DLX_TEST_RNG_SEED 0x1234567
#include "rng.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A new tensor of shape on device; NULL (and a failed check) when allocation fails. */
static dlx_tensor *tensor(DLDevice device, int32_t ndim, const int64_t *shape, DLDataType dt) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, ndim, shape, dt, device));
  return t;
}

static uint64_t storage_bytes(const dlx_view *v) {
  uint64_t b = 0;
  CHECK_OK(dlx_dtype_storage_bytes(v->dtype, (uint64_t)dlx_view_size(v), false, &b));
  return b;
}

static void fill_random(const dlx_view *v) {
  unsigned char *p = v->data;
  for (uint64_t i = 0; i < storage_bytes(v); ++i) p[i] = (unsigned char)rnd();
}

/* Two compact host views hold the same elements: bytes, or for packed sub-byte data the element codes
 * (the bits past the last element of a compact buffer belong to nobody). */
static bool same_elements(const dlx_view *a, const dlx_view *b) {
  if (dlx_view_size(a) != dlx_view_size(b)) return false;
  if (!dlx_dtype_is_subbyte(a->dtype)) return memcmp(a->data, b->data, storage_bytes(a)) == 0;
  dlx_tensor *x = tensor(CPU, a->ndim, a->shape, DLX_DTYPE_FLOAT32), *y = tensor(CPU, b->ndim, b->shape, DLX_DTYPE_FLOAT32);
  bool same = false;
  if (x != NULL && y != NULL && dlx_cast(dlx_tensor_view(x), a) == DLX_OK && dlx_cast(dlx_tensor_view(y), b) == DLX_OK)
    same = memcmp(dlx_tensor_view(x)->data, dlx_tensor_view(y)->data, (size_t)dlx_view_size(a) * 4) == 0;
  dlx_tensor_release(x);
  dlx_tensor_release(y);
  return same;
}

/* A device view's elements as a new compact host tensor. */
static dlx_tensor *to_host(const dlx_view *d) {
  dlx_tensor *h = tensor(CPU, d->ndim, d->shape, d->dtype);
  if (h != NULL) CHECK_OK(dlx_copy(dlx_tensor_view(h), d));
  return h;
}

/* ---- allocation, device ids, exports ------------------------------------------------------------------ */

static void test_alloc_and_ids(void) {
  dlx_tensor *t = tensor(GPU0, 2, I64(16, 16), DLX_DTYPE_FLOAT32);
  if (t == NULL) return;
  const dlx_view *v = dlx_tensor_view(t);
  CHECK_EQ(v->device.device_type, kDLCUDA);
  CHECK_EQ(v->device.device_id, 0);
  CHECK_EQ((uintptr_t)v->data % 64, 0);
  DLDevice d;
  CHECK_OK(dlx_cuda_pointer_device(v->data, &d));
  CHECK_EQ(d.device_type, kDLCUDA);
  CHECK_EQ(d.device_id, 0);
  /* the export's device is the pointer's */
  DLManagedTensorVersioned *m = NULL;
  CHECK_OK(dlx_tensor_to_managed_versioned(t, &m));
  if (m != NULL) {
    CHECK_EQ(m->dl_tensor.device.device_type, kDLCUDA);
    CHECK_EQ(m->dl_tensor.device.device_id, 0);
    CHECK(m->dl_tensor.data == v->data);
    m->deleter(m);
  }
  /* a caller-given id that disagrees with the pointer: an error naming both */
  dlx_view wrong = *v;
  wrong.device = (DLDevice){kDLCUDA, 1};
  dlx_dltensor dl;
  CHECK_FAIL(dlx_view_to_dltensor(&wrong, &dl), DLX_ERR_DEVICE_MISMATCH, "the view says cuda:1, but its data at 0x");
  CHECK_FAIL(dlx_view_to_dltensor(&wrong, &dl), DLX_ERR_DEVICE_MISMATCH, "is on cuda:0");
  wrong.device = (DLDevice){kDLCUDAManaged, 0};
  CHECK_FAIL(dlx_view_to_dltensor(&wrong, &dl), DLX_ERR_DEVICE_MISMATCH, "the view says cuda_managed:0");
  dlx_tensor_release(t);

  /* pinned and managed memory: DLPack's id 0, whatever device is current */
  const struct {
    DLDevice dev;
    const char *text;
  } kinds[] = {{{kDLCUDAHost, 0}, "cuda_host:0"}, {{kDLCUDAManaged, 0}, "cuda_managed:0"}};
  for (int k = 0; k < 2; ++k) {
    t = tensor(kinds[k].dev, 1, I64(1000), DLX_DTYPE_INT32);
    if (t == NULL) continue;
    v = dlx_tensor_view(t);
    CHECK_OK(dlx_cuda_pointer_device(v->data, &d));
    CHECK_EQ(d.device_type, kinds[k].dev.device_type);
    CHECK_EQ(d.device_id, 0);
    int32_t *p = v->data; /* host-accessible: the CPU computes on it */
    for (int i = 0; i < 1000; ++i) p[i] = i;
    dlx_tensor *sum = NULL;
    CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &sum, t, t));
    if (sum != NULL) {
      CHECK_EQ(dlx_tensor_view(sum)->device.device_type, kDLCPU); /* results of host compute are host memory */
      CHECK_EQ(((int32_t *)dlx_tensor_view(sum)->data)[999], 1998);
      dlx_tensor_release(sum);
    }
    CHECK_OK(dlx_tensor_to_managed_versioned(t, &m));
    if (m != NULL) {
      CHECK_EQ(m->dl_tensor.device.device_type, kinds[k].dev.device_type);
      CHECK_EQ(m->dl_tensor.device.device_id, 0);
      m->deleter(m);
    }
    /* labelled as the other kind: refused, naming both */
    dlx_view w = *v;
    w.device = k == 0 ? (DLDevice){kDLCUDAManaged, 0} : (DLDevice){kDLCUDA, 0};
    CHECK_FAIL(dlx_view_to_dltensor(&w, &dl), DLX_ERR_DEVICE_MISMATCH, kinds[k].text);
    dlx_tensor_release(t);
    /* ids other than 0 do not exist for these kinds */
    dlx_tensor *bad = NULL;
    const DLDevice id1 = {kinds[k].dev.device_type, 1};
    CHECK_FAIL(dlx_tensor_empty(&bad, 1, I64(4), DLX_DTYPE_INT32, id1), DLX_ERR_INVALID_DEVICE, "(DLPack: always 0)");
  }
  /* host memory CUDA does not know */
  int local = 0;
  CHECK_OK(dlx_cuda_pointer_device(&local, &d));
  CHECK_EQ(d.device_type, kDLCPU);
  /* a device that does not exist */
  dlx_tensor *bad = NULL;
  CHECK_FAIL(dlx_tensor_empty(&bad, 1, I64(4), DLX_DTYPE_INT32, ((DLDevice){kDLCUDA, 1000})), DLX_ERR_INVALID_DEVICE,
             "device cuda:1000 does not exist");
}

/* ---- copies across memory kinds ------------------------------------------------------------------------- */

/* The layouts a copy's strided side takes, applied alike to a host and a device view of the same base. */
enum { T_IDENTITY, T_PERMUTED, T_REVERSED_STEPPED, T_TRANSPOSED_SLICE, T_COUNT };

static dlx_status transform(int kind, const dlx_view *base, dlx_view *out) {
  switch (kind) {
    case T_IDENTITY: *out = *base; return DLX_OK;
    case T_PERMUTED: return dlx_view_permute(base, (const int32_t[]){2, 0, 1}, out);
    case T_REVERSED_STEPPED: {
      const dlx_index_item items[3] = {{DLX_IDX_SLICE, 0, {0, 0, -1, false, false}},
                                       {DLX_IDX_SLICE, 0, {1, 5, 2, true, true}},
                                       {DLX_IDX_SLICE, 0, {0, 0, -1, false, false}}};
      return dlx_view_subscript(base, 3, items, out);
    }
    default: {
      const dlx_index_item items[2] = {{DLX_IDX_SLICE, 0, {1, 6, 1, true, true}}, {DLX_IDX_INT, 2, {0}}};
      dlx_view s;
      const dlx_status st = dlx_view_subscript(base, 2, items, &s);
      return st != DLX_OK ? st : dlx_view_transpose(&s, out);
    }
  }
}

static void copy_case(DLDataType dt, int kind) {
  const int64_t shape[3] = {6, 5, 4};
  dlx_tensor *ah = tensor(CPU, 3, shape, dt), *ad = tensor(GPU0, 3, shape, dt);
  if (ah == NULL || ad == NULL) goto done0;
  const dlx_view *A = dlx_tensor_view(ah), *D = dlx_tensor_view(ad);
  fill_random(A);
  CHECK_OK(dlx_copy(D, A)); /* compact H2D: one cudaMemcpy */
  dlx_view ta, td;
  const dlx_status tst = transform(kind, A, &ta);
  if (tst == DLX_ERR_UNSUPPORTED && dt.bits < 8) {
    /* a view of packed sub-byte data must start on a byte: this layout does not exist for the dtype */
    printf("  (copy case: dtype %s, layout %d: no such packed view, %s)\n", dlx_dtype_name(dt), kind, dlx_last_error());
    goto done0;
  }
  CHECK_OK(tst);
  CHECK_OK(transform(kind, D, &td));
  dlx_tensor *ref = tensor(CPU, ta.ndim, ta.shape, dt), *out_h = tensor(CPU, ta.ndim, ta.shape, dt);
  dlx_tensor *out_d = tensor(GPU0, ta.ndim, ta.shape, dt), *out_d2 = tensor(GPU0, ta.ndim, ta.shape, dt);
  if (ref == NULL || out_h == NULL || out_d == NULL || out_d2 == NULL) goto done1;
  const dlx_view *R = dlx_tensor_view(ref);
  CHECK_OK(dlx_copy(R, &ta)); /* the CPU's answer */
  /* gather: D2H, H2D, D2D from the strided side */
  CHECK_OK(dlx_copy(dlx_tensor_view(out_h), &td));
  CHECK(same_elements(dlx_tensor_view(out_h), R));
  CHECK_OK(dlx_copy(dlx_tensor_view(out_d), &ta));
  dlx_tensor *back = to_host(dlx_tensor_view(out_d));
  CHECK(back != NULL && same_elements(dlx_tensor_view(back), R));
  dlx_tensor_release(back);
  CHECK_OK(dlx_copy(dlx_tensor_view(out_d2), &td));
  back = to_host(dlx_tensor_view(out_d2));
  CHECK(back != NULL && same_elements(dlx_tensor_view(back), R));
  dlx_tensor_release(back);
  /* scatter into the strided side: H2D, D2D, D2H, each against the CPU's scatter into the same layout */
  dlx_tensor *h1 = tensor(CPU, 3, shape, dt), *h2 = tensor(CPU, 3, shape, dt), *d1 = tensor(GPU0, 3, shape, dt);
  if (h1 != NULL && h2 != NULL && d1 != NULL) {
    for (int way = 0; way < 3; ++way) {
      fill_random(dlx_tensor_view(h1));
      memcpy(dlx_tensor_view(h2)->data, dlx_tensor_view(h1)->data, storage_bytes(dlx_tensor_view(h1)));
      CHECK_OK(dlx_copy(dlx_tensor_view(d1), dlx_tensor_view(h1)));
      dlx_view sh, sd;
      CHECK_OK(transform(kind, dlx_tensor_view(h2), &sh));
      CHECK_OK(transform(kind, dlx_tensor_view(d1), &sd));
      CHECK_OK(dlx_copy(&sh, R)); /* the CPU's answer, in h2 */
      if (way == 0) {
        CHECK_OK(dlx_copy(&sd, R)); /* H2D scatter */
      } else if (way == 1) {
        CHECK_OK(dlx_copy(&sd, dlx_tensor_view(out_d))); /* D2D scatter */
      } else {
        dlx_view s1;
        CHECK_OK(transform(kind, dlx_tensor_view(h1), &s1));
        CHECK_OK(dlx_copy(&s1, dlx_tensor_view(out_d))); /* D2H scatter, into h1 */
        CHECK(same_elements(dlx_tensor_view(h1), dlx_tensor_view(h2)));
        continue;
      }
      back = to_host(dlx_tensor_view(d1));
      CHECK(back != NULL && same_elements(dlx_tensor_view(back), dlx_tensor_view(h2)));
      dlx_tensor_release(back);
    }
  }
  dlx_tensor_release(h1);
  dlx_tensor_release(h2);
  dlx_tensor_release(d1);
done1:
  dlx_tensor_release(ref);
  dlx_tensor_release(out_h);
  dlx_tensor_release(out_d);
  dlx_tensor_release(out_d2);
done0:
  dlx_tensor_release(ah);
  dlx_tensor_release(ad);
}

static void test_copies(void) {
  const DLDataType dts[] = {DLX_DTYPE_UINT8,     DLX_DTYPE_INT16,      DLX_DTYPE_FLOAT32,         DLX_DTYPE_FLOAT64,
                            DLX_DTYPE_COMPLEX128, DLX_DTYPE_BFLOAT16,  DLX_DTYPE_FLOAT4_E2M1FN};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; ++i)
    for (int kind = 0; kind < T_COUNT; ++kind) {
      const int before = dlx_test_failures_;
      copy_case(dts[i], kind);
      if (dlx_test_failures_ != before) fprintf(stderr, "  (copy case: dtype #%zu, layout %d)\n", i, kind);
    }
  /* a broadcast source (a stride-0 dimension) into every kind */
  dlx_tensor *row_h = tensor(CPU, 3, I64(1, 5, 4), DLX_DTYPE_FLOAT32), *row_d = tensor(GPU0, 3, I64(1, 5, 4), DLX_DTYPE_FLOAT32);
  dlx_tensor *ref = tensor(CPU, 3, I64(6, 5, 4), DLX_DTYPE_FLOAT32), *out_d = tensor(GPU0, 3, I64(6, 5, 4), DLX_DTYPE_FLOAT32);
  dlx_tensor *out_h = tensor(CPU, 3, I64(6, 5, 4), DLX_DTYPE_FLOAT32);
  if (row_h && row_d && ref && out_d && out_h) {
    fill_random(dlx_tensor_view(row_h));
    CHECK_OK(dlx_copy(dlx_tensor_view(row_d), dlx_tensor_view(row_h)));
    CHECK_OK(dlx_copy(dlx_tensor_view(ref), dlx_tensor_view(row_h)));
    CHECK_OK(dlx_copy(dlx_tensor_view(out_h), dlx_tensor_view(row_d))); /* D2H broadcast */
    CHECK(same_elements(dlx_tensor_view(out_h), dlx_tensor_view(ref)));
    for (int src = 0; src < 2; ++src) { /* H2D and D2D broadcast */
      CHECK_OK(dlx_copy(dlx_tensor_view(out_d), dlx_tensor_view(src ? row_d : row_h)));
      dlx_tensor *back = to_host(dlx_tensor_view(out_d));
      CHECK(back != NULL && same_elements(dlx_tensor_view(back), dlx_tensor_view(ref)));
      dlx_tensor_release(back);
    }
  }
  dlx_tensor_release(row_h);
  dlx_tensor_release(row_d);
  dlx_tensor_release(ref);
  dlx_tensor_release(out_d);
  dlx_tensor_release(out_h);
  /* to and from pinned and managed memory (host-accessible: the host side of a transfer) */
  const DLDevice hosts[2] = {{kDLCUDAHost, 0}, {kDLCUDAManaged, 0}};
  for (int k = 0; k < 2; ++k) {
    dlx_tensor *p = tensor(hosts[k], 1, I64(4097), DLX_DTYPE_INT32), *d = tensor(GPU0, 1, I64(4097), DLX_DTYPE_INT32);
    dlx_tensor *q = tensor(hosts[k], 1, I64(4097), DLX_DTYPE_INT32);
    if (p && d && q) {
      fill_random(dlx_tensor_view(p));
      CHECK_OK(dlx_copy(dlx_tensor_view(d), dlx_tensor_view(p)));
      CHECK_OK(dlx_copy(dlx_tensor_view(q), dlx_tensor_view(d)));
      CHECK(memcmp(dlx_tensor_view(p)->data, dlx_tensor_view(q)->data, 4097 * 4) == 0);
    }
    dlx_tensor_release(p);
    dlx_tensor_release(d);
    dlx_tensor_release(q);
  }
  /* between devices, where there are two */
  if (dlx_cuda_device_count() >= 2) {
    dlx_tensor *h = tensor(CPU, 2, I64(300, 7), DLX_DTYPE_FLOAT64), *d0 = tensor(GPU0, 2, I64(300, 7), DLX_DTYPE_FLOAT64);
    dlx_tensor *d1 = tensor((DLDevice){kDLCUDA, 1}, 2, I64(7, 300), DLX_DTYPE_FLOAT64);
    dlx_tensor *ref2 = tensor(CPU, 2, I64(7, 300), DLX_DTYPE_FLOAT64);
    if (h && d0 && d1 && ref2) {
      fill_random(dlx_tensor_view(h));
      CHECK_OK(dlx_copy(dlx_tensor_view(d0), dlx_tensor_view(h)));
      dlx_view t0, th;
      CHECK_OK(dlx_view_transpose(dlx_tensor_view(d0), &t0));
      CHECK_OK(dlx_view_transpose(dlx_tensor_view(h), &th));
      CHECK_OK(dlx_copy(dlx_tensor_view(d1), &t0)); /* peer copy with a transposed source */
      CHECK_OK(dlx_copy(dlx_tensor_view(ref2), &th));
      dlx_tensor *back = to_host(dlx_tensor_view(d1));
      CHECK(back != NULL && same_elements(dlx_tensor_view(back), dlx_tensor_view(ref2)));
      dlx_tensor_release(back);
    }
    dlx_tensor_release(h);
    dlx_tensor_release(d0);
    dlx_tensor_release(d1);
    dlx_tensor_release(ref2);
  } else {
    printf("     (one CUDA device: the device-to-device copy between two devices is not tested)\n");
  }
  /* rows at a pitch on both sides (sub-matrices [:, 4:36] of 64 x 40 float32: 128-byte rows, pitch 160
   * bytes): the cudaMemcpy2D path, H2D, D2H and D2D, against the CPU's copy of the same views */
  {
    dlx_tensor *hs = tensor(CPU, 2, I64(64, 40), DLX_DTYPE_FLOAT32), *hr = tensor(CPU, 2, I64(64, 40), DLX_DTYPE_FLOAT32);
    dlx_tensor *hb = tensor(CPU, 2, I64(64, 40), DLX_DTYPE_FLOAT32), *d1 = tensor(GPU0, 2, I64(64, 40), DLX_DTYPE_FLOAT32);
    dlx_tensor *d2 = tensor(GPU0, 2, I64(64, 40), DLX_DTYPE_FLOAT32);
    if (hs && hr && hb && d1 && d2) {
      const dlx_index_item cols[2] = {{DLX_IDX_SLICE, 0, {0, 0, 1, false, false}}, {DLX_IDX_SLICE, 0, {4, 36, 1, true, true}}};
      dlx_view ss, sr, sb, s1, s2;
      CHECK_OK(dlx_view_subscript(dlx_tensor_view(hs), 2, cols, &ss));
      CHECK_OK(dlx_view_subscript(dlx_tensor_view(hr), 2, cols, &sr));
      CHECK_OK(dlx_view_subscript(dlx_tensor_view(hb), 2, cols, &sb));
      CHECK_OK(dlx_view_subscript(dlx_tensor_view(d1), 2, cols, &s1));
      CHECK_OK(dlx_view_subscript(dlx_tensor_view(d2), 2, cols, &s2));
      fill_random(dlx_tensor_view(hs));
      fill_random(dlx_tensor_view(hr));
      memcpy(dlx_tensor_view(hb)->data, dlx_tensor_view(hr)->data, 64 * 40 * 4);
      CHECK_OK(dlx_copy(dlx_tensor_view(d1), dlx_tensor_view(hr))); /* d1, d2 start as hr's bytes */
      CHECK_OK(dlx_copy(dlx_tensor_view(d2), dlx_tensor_view(hr)));
      CHECK_OK(dlx_copy(&sr, &ss));                                 /* the CPU's answer, in hr */
      CHECK_OK(dlx_copy(&s1, &ss));                                 /* H2D, pitched */
      CHECK_OK(dlx_copy(&s2, &s1));                                 /* D2D, pitched */
      CHECK_OK(dlx_copy(&sb, &s2));                                 /* D2H, pitched, into hb */
      CHECK(memcmp(dlx_tensor_view(hb)->data, dlx_tensor_view(hr)->data, 64 * 40 * 4) == 0); /* columns outside kept */
    }
    dlx_tensor_release(hs);
    dlx_tensor_release(hr);
    dlx_tensor_release(hb);
    dlx_tensor_release(d1);
    dlx_tensor_release(d2);
  }
  /* memory of another runtime's device (a oneAPI label over a CUDA buffer): refused both ways, with the
   * way through the host named, before any byte moves */
  dlx_tensor *g = tensor(GPU0, 1, I64(16), DLX_DTYPE_FLOAT32);
  if (g) {
    dlx_view other = *dlx_tensor_view(g);
    other.device = (DLDevice){kDLOneAPI, 0};
    /* without dpctl's library the oneAPI side is refused first, as UNSUPPORTED naming the library */
    for (int dir = 0; dir < 2; ++dir) {
      const dlx_status st = dir ? dlx_copy(&other, dlx_tensor_view(g)) : dlx_copy(dlx_tensor_view(g), &other);
      CHECK(st == DLX_ERR_DEVICE_MISMATCH || st == DLX_ERR_UNSUPPORTED);
      if (st == DLX_ERR_DEVICE_MISMATCH) CHECK(strstr(dlx_last_error(), "host") != NULL);
    }
  }
  dlx_tensor_release(g);
}

/* ---- a stream held back by the host ----------------------------------------------------------------------- */

static atomic_int gate_open;

/* Runs on CUDA's callback thread: the stream it was queued on waits until the gate opens (at most 20 s,
 * so that a failing test cannot hang). */
static void CUDART_CB gate_fn(void *arg) {
  (void)arg;
  for (int i = 0; i < 20000 && !atomic_load(&gate_open); ++i) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

static void hold(cudaStream_t s) {
  atomic_store(&gate_open, 0);
  CHECK_EQ(cudaLaunchHostFunc(s, gate_fn, NULL), cudaSuccess);
}

static void release_gate(void) { atomic_store(&gate_open, 1); }

/* Whether the work queued on s so far is done (an event, so a stream's pending waits count). */
static bool stream_done(cudaStream_t s) {
  cudaEvent_t e;
  if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return false;
  (void)cudaEventRecord(e, s);
  const cudaError_t q = cudaEventQuery(e);
  (void)cudaEventDestroy(e);
  (void)cudaGetLastError();
  return q == cudaSuccess;
}

static void *other_thread_stream(void *arg) {
  void **out = arg;
  *out = (void *)(uintptr_t)0xdead;
  (void)dlx_cuda_get_stream(0, out);
  return NULL;
}

static void test_streams(void) {
  void *s1 = NULL, *s2 = NULL, *prev = (void *)(uintptr_t)0xdead, *cur = NULL;
  CHECK_OK(dlx_cuda_stream_create(0, 1, &s1));
  CHECK_OK(dlx_cuda_stream_create(0, 0, &s2));
  if (s1 == NULL || s2 == NULL) return;
  /* the current stream is per thread */
  CHECK_OK(dlx_cuda_set_stream(0, s1, &prev));
  CHECK(prev == NULL);
  CHECK_OK(dlx_cuda_get_stream(0, &cur));
  CHECK(cur == s1);
  pthread_t th;
  void *seen = NULL;
  CHECK_EQ(pthread_create(&th, NULL, other_thread_stream, &seen), 0);
  pthread_join(th, NULL);
  CHECK(seen == NULL);
  CHECK_FAIL(dlx_cuda_set_stream(1000, s1, NULL), DLX_ERR_INVALID_DEVICE, "cuda:1000");
  CHECK_FAIL(dlx_cuda_get_stream(0, NULL), DLX_ERR_NULL_ARGUMENT, "'stream'");

  /* dlx's ops go on the current stream, asynchronously: with s1 held, a copy from device memory returns
   * at once (a host scalar would be staged with a host-to-device copy, which waits for the stream) */
  dlx_tensor *t = tensor(GPU0, 1, I64(1 << 20), DLX_DTYPE_FLOAT32), *one_t = tensor(GPU0, 0, NULL, DLX_DTYPE_FLOAT32);
  if (t == NULL || one_t == NULL) return;
  {
    dlx_view host_one;
    dlx_scalar_buf buf;
    CHECK_OK(dlx_scalar_view(&host_one, &buf, DLX_DTYPE_FLOAT32, 1.0, 0.0));
    CHECK_OK(dlx_fill(dlx_tensor_view(one_t), &host_one));
    CHECK_OK(dlx_cuda_stream_synchronize(0, s1));
  }
  const dlx_view one = *dlx_tensor_view(one_t); /* a 0-d device tensor: broadcast by dlx_copy */
  hold(s1);
  double t0 = now_ms();
  CHECK_OK(dlx_copy(dlx_tensor_view(t), &one));
  /* stream_wait: s2 waits for s1 (an event), the host does not */
  CHECK_OK(dlx_cuda_stream_wait(0, s2, s1));
  CHECK(now_ms() - t0 < 1000.0);
  CHECK(!stream_done(s1));
  CHECK(!stream_done(s2));
  release_gate();
  CHECK_OK(dlx_cuda_stream_synchronize(0, s2));
  CHECK(stream_done(s1)); /* s2 waited for all of s1's work */
  float first = 0;
  CHECK_EQ(cudaMemcpy(&first, dlx_tensor_view(t)->data, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  CHECK(first == 1.0f);
  CHECK_OK(dlx_cuda_stream_wait(0, s1, s1)); /* one stream: nothing to do */

  /* record / wait: the event lives with the storage, and a view sees it */
  hold(s1);
  CHECK_OK(dlx_copy(dlx_tensor_view(t), &one)); /* on s1, held */
  CHECK_OK(dlx_tensor_record(t, NULL));         /* NULL: the current stream, s1 */
  dlx_tensor *v = NULL;
  CHECK_OK(dlx_tensor_index(&v, t, 5));
  CHECK_OK(dlx_tensor_wait(v, s2));
  CHECK(!stream_done(s2));
  release_gate();
  CHECK_OK(dlx_cuda_stream_synchronize(0, s2));
  CHECK(stream_done(s1));
  dlx_tensor_release(v);

  /* the caching allocator: a block freed on a held stream is not handed to another stream until that
   * work is done, and the recorded use of a tensor holds its block back on its own stream */
  CHECK_OK(dlx_cuda_synchronize(0));
  CHECK_OK(dlx_cuda_empty_cache());
  dlx_cuda_memory_stats st0, st1;
  CHECK_OK(dlx_cuda_memory_stats_get(0, &st0));
  hold(s1);
  dlx_tensor *a = tensor(GPU0, 1, I64(1 << 18), DLX_DTYPE_FLOAT32); /* on s1 */
  void *pa = a ? dlx_tensor_view(a)->data : NULL;
  CHECK_OK(dlx_copy(dlx_tensor_view(a), &one));
  dlx_tensor_release(a); /* freed while s1 is held */
  CHECK_OK(dlx_cuda_set_stream(0, s2, NULL));
  dlx_tensor *b = tensor(GPU0, 1, I64(1 << 18), DLX_DTYPE_FLOAT32); /* on s2: must not take a's block */
  CHECK(b != NULL && dlx_tensor_view(b)->data != pa);
  CHECK_OK(dlx_cuda_memory_stats_get(0, &st1));
  CHECK_EQ(st1.driver_allocs, st0.driver_allocs + 2);
  release_gate();
  CHECK_OK(dlx_cuda_synchronize(0));
  dlx_tensor *c = tensor(GPU0, 1, I64(1 << 18), DLX_DTYPE_FLOAT32); /* a's block is free now */
  CHECK(c != NULL && dlx_tensor_view(c)->data == pa);
  dlx_tensor_release(b);
  dlx_tensor_release(c);

  /* recorded use on another stream guards reuse on the allocating one */
  CHECK_OK(dlx_cuda_set_stream(0, s1, NULL));
  dlx_tensor *e = tensor(GPU0, 1, I64(1 << 18), DLX_DTYPE_FLOAT32); /* allocated on s1 */
  void *pe = e ? dlx_tensor_view(e)->data : NULL;
  hold(s2);
  CHECK_OK(dlx_tensor_record(e, s2)); /* its last use is on s2, which is held */
  dlx_tensor_release(e);               /* s1 waits for that use before the block can be reused */
  dlx_tensor *f = tensor(GPU0, 1, I64(1 << 18), DLX_DTYPE_FLOAT32); /* same stream: takes it back at once */
  CHECK(f != NULL && dlx_tensor_view(f)->data == pe);
  CHECK_OK(dlx_copy(dlx_tensor_view(f), &one)); /* ...and its work is ordered after the recorded use */
  CHECK(!stream_done(s1));
  release_gate();
  CHECK_OK(dlx_cuda_synchronize(0));
  dlx_tensor_release(f);

  /* empty_cache: every cached block back to the driver */
  dlx_tensor_release(t);
  dlx_tensor_release(one_t);
  CHECK_OK(dlx_cuda_synchronize(0));
  CHECK_OK(dlx_cuda_memory_stats_get(0, &st1));
  CHECK(st1.cached > 0);
  CHECK(st1.peak_allocated >= (uint64_t)4 << 20);
  CHECK_OK(dlx_cuda_empty_cache());
  CHECK_OK(dlx_cuda_memory_stats_get(0, &st1));
  CHECK_EQ(st1.cached, 0);
  /* st0 counted t (4 MiB) and one_t (one 512-byte block), released since */
  CHECK_EQ(st1.allocated + ((uint64_t)4 << 20) + 512, st0.allocated);
  CHECK_FAIL(dlx_cuda_memory_stats_get(0, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");

  /* destroying the current stream puts this thread back on the legacy default stream */
  CHECK_OK(dlx_cuda_set_stream(0, s1, NULL));
  CHECK_OK(dlx_cuda_stream_destroy(0, s1));
  CHECK_OK(dlx_cuda_get_stream(0, &cur));
  CHECK(cur == NULL);
  CHECK_OK(dlx_cuda_stream_destroy(0, s2));
  CHECK_FAIL(dlx_cuda_stream_destroy(0, NULL), DLX_ERR_INVALID_ARGUMENT, "is a default stream");
}

/* ---- reuse without streams ----------------------------------------------------------------------------------- */

static void test_cache_reuse(void) {
  CHECK_OK(dlx_cuda_synchronize(0));
  CHECK_OK(dlx_cuda_empty_cache());
  dlx_cuda_memory_stats s0, s1;
  CHECK_OK(dlx_cuda_memory_stats_get(0, &s0));
  CHECK_EQ(s0.cached, 0);
  void *first = NULL;
  for (int i = 0; i < 10; ++i) {
    dlx_tensor *t = tensor(GPU0, 1, I64(3 << 20), DLX_DTYPE_UINT8); /* 3 MiB: rounded to 4 MiB */
    if (t == NULL) return;
    if (i == 0) first = dlx_tensor_view(t)->data;
    CHECK(dlx_tensor_view(t)->data == first); /* the same block every time */
    CHECK_OK(dlx_cuda_memory_stats_get(0, &s1));
    CHECK_EQ(s1.allocated, s0.allocated + ((uint64_t)4 << 20));
    dlx_tensor_release(t);
  }
  CHECK_OK(dlx_cuda_memory_stats_get(0, &s1));
  CHECK_EQ(s1.driver_allocs, s0.driver_allocs + 1);
  CHECK_EQ(s1.cached, (uint64_t)4 << 20);
  /* a smaller request within a factor two takes the cached block too; a much smaller one does not */
  dlx_tensor *t = tensor(GPU0, 1, I64(5 << 19), DLX_DTYPE_UINT8);
  CHECK(t != NULL && dlx_tensor_view(t)->data == first);
  dlx_tensor_release(t);
  t = tensor(GPU0, 1, I64(1000), DLX_DTYPE_UINT8);
  CHECK(t != NULL && dlx_tensor_view(t)->data != first);
  dlx_tensor_release(t);
  CHECK_OK(dlx_cuda_empty_cache());
  CHECK_OK(dlx_cuda_memory_stats_get(0, &s1));
  CHECK_EQ(s1.cached, 0);
}

/* ---- gemm --------------------------------------------------------------------------------------------------- */

/* Element i of a host float64 / complex128 view as (re, im). */
static void elem(const dlx_view *v, int64_t r, int64_t c, double *re, double *im) {
  const int64_t off = r * v->strides[0] + c * v->strides[1];
  if (v->dtype.code == DLX_CODE_COMPLEX) {
    *re = ((const double *)v->data)[2 * off];
    *im = ((const double *)v->data)[2 * off + 1];
  } else {
    *re = ((const double *)v->data)[off];
    *im = 0;
  }
}

/* x (host, any dtype) as a compact float64 / complex128 host tensor. */
static dlx_tensor *widened(const dlx_view *x) {
  const DLDataType wide = x->dtype.code == DLX_CODE_COMPLEX ? DLX_DTYPE_COMPLEX128 : DLX_DTYPE_FLOAT64;
  dlx_tensor *w = tensor(CPU, x->ndim, x->shape, wide);
  if (w != NULL) CHECK_OK(dlx_cast(dlx_tensor_view(w), x));
  return w;
}

static void gemm_case(DLDataType dt, double tol, bool transposed_b) {
  const int64_t m = 37, k = 45, n = 29;
  const bool cplx = dt.code == DLX_CODE_COMPLEX;
  const DLDataType wide = cplx ? DLX_DTYPE_COMPLEX128 : DLX_DTYPE_FLOAT64;
  dlx_tensor *aw = tensor(CPU, 2, I64(m, k), wide), *bw = tensor(CPU, 2, I64(transposed_b ? n : k, transposed_b ? k : n), wide);
  dlx_tensor *ah = tensor(CPU, 2, I64(m, k), dt), *bh = tensor(CPU, 2, dlx_tensor_view(bw)->shape, dt);
  dlx_tensor *ad = tensor(GPU0, 2, I64(m, k), dt), *bd = tensor(GPU0, 2, dlx_tensor_view(bw)->shape, dt);
  dlx_tensor *cd = tensor(GPU0, 2, I64(m, n), dt), *ch = tensor(CPU, 2, I64(m, n), dt);
  dlx_tensor *ai = NULL, *bi = NULL, *cw = NULL, *c0 = NULL;
  if (!aw || !bw || !ah || !bh || !ad || !bd || !cd || !ch) goto done;
  const dlx_view *AW = dlx_tensor_view(aw), *BW = dlx_tensor_view(bw);
  double *pa = AW->data, *pb = BW->data;
  for (int64_t i = 0; i < dlx_view_size(AW) * (cplx ? 2 : 1); ++i) pa[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
  for (int64_t i = 0; i < dlx_view_size(BW) * (cplx ? 2 : 1); ++i) pb[i] = (double)(rnd() % 2001) / 1000.0 - 1.0;
  /* the inputs in dt (host), on the device, and the values they hold back in float64 */
  CHECK_OK(dlx_cast(dlx_tensor_view(ah), AW));
  CHECK_OK(dlx_cast(dlx_tensor_view(bh), BW));
  CHECK_OK(dlx_copy(dlx_tensor_view(ad), dlx_tensor_view(ah)));
  CHECK_OK(dlx_copy(dlx_tensor_view(bd), dlx_tensor_view(bh)));
  ai = widened(dlx_tensor_view(ah));
  bi = widened(dlx_tensor_view(bh));
  /* C starts at 0.5 (beta applies to it) */
  dlx_view half;
  dlx_scalar_buf hb;
  CHECK_OK(dlx_scalar_view(&half, &hb, dt, 0.5, 0.0));
  CHECK_OK(dlx_fill(dlx_tensor_view(cd), &half));
  dlx_view a = *dlx_tensor_view(ad), b = *dlx_tensor_view(bd), bi_v = *dlx_tensor_view(bi), bh_v = *dlx_tensor_view(bh);
  if (transposed_b) {
    CHECK_OK(dlx_view_transpose(dlx_tensor_view(bd), &b));
    CHECK_OK(dlx_view_transpose(dlx_tensor_view(bi), &bi_v));
    CHECK_OK(dlx_view_transpose(dlx_tensor_view(bh), &bh_v));
  }
  const double alpha[2] = {1.5, cplx ? -0.5 : 0.0}, beta[2] = {2.0, cplx ? 0.25 : 0.0};
  CHECK_OK(dlx_gemm(alpha[0], alpha[1], &a, &b, beta[0], beta[1], dlx_tensor_view(cd)));
  CHECK_OK(dlx_copy(dlx_tensor_view(ch), dlx_tensor_view(cd)));
  cw = widened(dlx_tensor_view(ch));
  if (!ai || !bi || !cw) goto done;
  /* the float64 reference of the same (rounded) inputs; the error bound scales with sum |a||b| */
  double worst = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double sre = 0, sim = 0, mag = 0;
      for (int64_t q = 0; q < k; ++q) {
        double xr, xi, yr, yi;
        elem(dlx_tensor_view(ai), r, q, &xr, &xi);
        elem(&bi_v, q, c, &yr, &yi);
        sre += xr * yr - xi * yi;
        sim += xr * yi + xi * yr;
        mag += hypot(xr, xi) * hypot(yr, yi);
      }
      const double ere = alpha[0] * sre - alpha[1] * sim + beta[0] * 0.5 - beta[1] * 0.0;
      const double eim = alpha[0] * sim + alpha[1] * sre + beta[1] * 0.5;
      double gr, gi;
      elem(dlx_tensor_view(cw), r, c, &gr, &gi);
      const double err = hypot(gr - ere, gi - (cplx ? eim : 0.0)) / (mag * 2.0 + 1.0);
      if (err > worst) worst = err;
    }
  if (worst > tol) fprintf(stderr, "  gemm %s: relative error %.3g above %.3g\n", dlx_dtype_name(dt), worst, tol);
  CHECK(worst <= tol);
  /* the CPU's own gemm (CBLAS) on the same values, where it has this dtype */
  c0 = tensor(CPU, 2, I64(m, n), dt);
  if (c0 != NULL) {
    CHECK_OK(dlx_fill(dlx_tensor_view(c0), &half));
    dlx_clear_error();
    const dlx_status st = dlx_gemm(alpha[0], alpha[1], dlx_tensor_view(ah), &bh_v, beta[0], beta[1], dlx_tensor_view(c0));
    if (st == DLX_OK) {
      dlx_tensor *c0w = widened(dlx_tensor_view(c0));
      double diff = 0;
      for (int64_t r = 0; r < m && c0w; ++r)
        for (int64_t c = 0; c < n; ++c) {
          double xr, xi, yr, yi;
          elem(dlx_tensor_view(c0w), r, c, &xr, &xi);
          elem(dlx_tensor_view(cw), r, c, &yr, &yi);
          const double d = hypot(xr - yr, xi - yi) / ((double)k * 2.0 + 1.0);
          if (d > diff) diff = d;
        }
      CHECK(diff <= tol);
      dlx_tensor_release(c0w);
    } else {
      CHECK_EQ(st, DLX_ERR_UNSUPPORTED); /* no CBLAS, or a dtype only CUDA multiplies */
    }
  }
done:
  dlx_tensor_release(aw);
  dlx_tensor_release(bw);
  dlx_tensor_release(ah);
  dlx_tensor_release(bh);
  dlx_tensor_release(ad);
  dlx_tensor_release(bd);
  dlx_tensor_release(cd);
  dlx_tensor_release(ch);
  dlx_tensor_release(ai);
  dlx_tensor_release(bi);
  dlx_tensor_release(cw);
  dlx_tensor_release(c0);
}

static void test_gemm_every_dtype(void) {
  const struct {
    DLDataType dt;
    double tol;
  } cases[] = {{DLX_DTYPE_FLOAT64, 1e-14}, {DLX_DTYPE_COMPLEX128, 1e-14}, {DLX_DTYPE_FLOAT32, 1e-6},
               {DLX_DTYPE_COMPLEX64, 1e-6},  {DLX_DTYPE_FLOAT16, 2e-3},     {DLX_DTYPE_BFLOAT16, 1.6e-2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (int tb = 0; tb < 2; ++tb) gemm_case(cases[i].dt, cases[i].tol, tb != 0);
  /* operands on two kinds of memory: refused, naming both */
  dlx_tensor *a = tensor(GPU0, 2, I64(2, 2), DLX_DTYPE_FLOAT32), *h = tensor(CPU, 2, I64(2, 2), DLX_DTYPE_FLOAT32);
  if (a && h)
    CHECK_FAIL(dlx_gemm(1, 0, dlx_tensor_view(a), dlx_tensor_view(h), 0, 0, dlx_tensor_view(a)), DLX_ERR_DEVICE_MISMATCH,
               "B is on cpu:0 but C is on cuda:0");
  dlx_tensor_release(a);
  dlx_tensor_release(h);
}

/* Reductions on the GPU against the CPU, byte for byte (kernels/reduce.h's rule): float32 and bfloat16
 * sums and means over every axis, each axis and the transpose of a 1500 x 3000 tensor (several blocks per
 * output, both kernel mappings), and a sum over 2^25 elements (a broadcast: two levels of the tree over
 * blocks). test_backends runs its whole reduction table here too. */
static void reduce_both(dlx_reduce_op op, const dlx_view *gpu_in, const dlx_view *cpu_in, int32_t naxes, int32_t axis) {
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLDataType dt;
  CHECK_OK(dlx_reduce_result(op, cpu_in, naxes, &axis, 0, &nd, shape, &dt));
  dlx_tensor *g = tensor(GPU0, nd, shape, dt), *c = tensor(CPU, nd, shape, dt), *back = tensor(CPU, nd, shape, dt);
  if (g == NULL || c == NULL || back == NULL) return;
  CHECK_OK(dlx_reduce(op, dlx_tensor_view(g), gpu_in, naxes, &axis, 0));
  CHECK_OK(dlx_reduce(op, dlx_tensor_view(c), cpu_in, naxes, &axis, 0));
  CHECK_OK(dlx_copy(dlx_tensor_view(back), dlx_tensor_view(g)));
  CHECK(memcmp(dlx_tensor_view(back)->data, dlx_tensor_view(c)->data, storage_bytes(dlx_tensor_view(c))) == 0);
  dlx_tensor_release(g);
  dlx_tensor_release(c);
  dlx_tensor_release(back);
}

static void test_reductions(void) {
  for (int bf = 0; bf < 2; ++bf) {
    const DLDataType dt = bf ? DLX_DTYPE_BFLOAT16 : DLX_DTYPE_FLOAT32;
    dlx_tensor *h = tensor(CPU, 2, I64(1500, 3000), dt), *d = tensor(GPU0, 2, I64(1500, 3000), dt);
    if (h == NULL || d == NULL) return;
    fill_random(dlx_tensor_view(h));
    CHECK_OK(dlx_copy(dlx_tensor_view(d), dlx_tensor_view(h)));
    for (int tr = 0; tr < 2; ++tr) {
      dlx_view hv = *dlx_tensor_view(h), dv = *dlx_tensor_view(d);
      if (tr) {
        CHECK_OK(dlx_view_transpose(&hv, &hv));
        CHECK_OK(dlx_view_transpose(&dv, &dv));
      }
      for (int axis = -1; axis < 2; ++axis)
        for (int op = 0; op < 2; ++op)
          reduce_both(op ? DLX_REDUCE_MEAN : DLX_REDUCE_SUM, &dv, &hv, axis < 0 ? DLX_REDUCE_ALL_AXES : 1, axis);
    }
    dlx_tensor_release(h);
    dlx_tensor_release(d);
  }
  dlx_tensor *one = tensor(GPU0, 1, I64(1), DLX_DTYPE_FLOAT32);
  if (one == NULL) return;
  float v = 0.1f;
  dlx_view hv, dv = *dlx_tensor_view(one);
  CHECK_OK(dlx_view_init(&hv, &v, DLX_DTYPE_FLOAT32, CPU, 1, I64(1), NULL));
  CHECK_OK(dlx_copy(&dv, &hv));
  dv.shape[0] = hv.shape[0] = INT64_C(1) << 25;
  dv.strides[0] = hv.strides[0] = 0;
  reduce_both(DLX_REDUCE_SUM, &dv, &hv, DLX_REDUCE_ALL_AXES, 0);
  dlx_tensor_release(one);
}

static const dlx_test_case cases[] = {
    {"alloc_and_ids", test_alloc_and_ids},
    {"reductions", test_reductions},
    {"copies", test_copies},
    {"cache_reuse", test_cache_reuse},
    {"streams", test_streams},
    {"gemm_every_dtype", test_gemm_every_dtype},
};

int main(int argc, char **argv) {
  if (!dlx_cuda_built()) {
    printf("SKIP: dlx was built without CUDA\n");
    return 77;
  }
  if (dlx_cuda_device_count() == 0) {
    printf("SKIP: no CUDA device (cudaGetDeviceCount found none, or no driver): the device protocol needs a GPU\n");
    return 77;
  }
  return dlx_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}

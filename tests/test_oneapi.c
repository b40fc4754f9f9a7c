/* Tests for the oneAPI backend (src/backends/oneapi, dlx/oneapi.h) against the real dpctl C API
 * (libDPCTLSyclInterface.so, from the dpctl Python package), on whatever SYCL devices it finds (Intel's
 * OpenCL CPU runtime in the README's setup: two platforms, devices oneapi:0 and oneapi:1).
 *
 *   test_oneapi           everything: first without the library (DLX_DPCTL_LIBRARY is hidden), then
 *                         loaded with dlx_oneapi_load from DLX_DPCTL_LIBRARY's path
 *   test_oneapi env       the library loaded implicitly from DLX_DPCTL_LIBRARY
 *   test_oneapi env-bad   DLX_DPCTL_LIBRARY naming a missing file: the messages say so
 *   test_oneapi no-device the library loaded with OCL_ICD_VENDORS naming an empty folder: no device
 *
 * Exit 77 (CTest SKIP_RETURN_CODE) with the reason printed when the library or a device is missing and
 * every check that could run passed. The test makes its USM with dpctl's own C API, resolved here by
 * dlsym, independently of dlx's loader. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv under -std=c11 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/oneapi/oneapi_internal.h"
#include "dlx/dlx.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define CPU ((DLDevice){kDLCPU, 0})
#define ONEAPI(id) ((DLDevice){kDLOneAPI, (id)})

/* ---- dpctl's C API, for the test's own USM ------------------------------------------------------- */

typedef void *ref;
static struct {
  ref (*get_devices)(int);
  size_t (*vec_size)(ref);
  ref (*vec_get)(ref, size_t);
  ref (*get_platform)(ref);
  ref (*default_context)(ref);
  ref (*queue_create)(ref, ref, void *, int);
  ref (*memcpy_)(ref, void *, const void *, size_t);
  void (*event_wait)(ref);
  void (*event_delete)(ref);
  void *(*malloc_kind[4])(size_t, ref); /* by dlx_oneapi_usm */
  void (*free_ctx)(void *, ref);
  ref (*sub_devices_equally)(ref, size_t);
  ref (*context_create)(ref, void *, int);
  void (*vec_delete)(ref);
  void (*platform_delete)(ref);
  void (*device_delete)(ref);
  void (*context_delete)(ref);
  void (*queue_delete)(ref);
} dp;

static int ndev;
static ref dev[2], ctx[2], queue[2];
static const char *lib_path;

static bool resolve(void *h, const char *name, void *slot) {
  void *f = dlsym(h, name);
  if (f == NULL) fprintf(stderr, "  dpctl has no %s\n", name);
  memcpy(slot, &f, sizeof f);
  return f != NULL;
}

/* The test's handle on dpctl (after dlx_oneapi_load: dlopen returns the library dlx opened). */
static bool open_dpctl(void) {
  void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) return false;
  const struct {
    const char *name;
    void *slot;
  } fns[] = {
      {"DPCTLDeviceMgr_GetDevices", &dp.get_devices},
      {"DPCTLDeviceVector_Size", &dp.vec_size},
      {"DPCTLDeviceVector_GetAt", &dp.vec_get},
      {"DPCTLDevice_GetPlatform", &dp.get_platform},
      {"DPCTLPlatform_GetDefaultContext", &dp.default_context},
      {"DPCTLQueue_Create", &dp.queue_create},
      {"DPCTLQueue_Memcpy", &dp.memcpy_},
      {"DPCTLEvent_Wait", &dp.event_wait},
      {"DPCTLEvent_Delete", &dp.event_delete},
      {"DPCTLmalloc_device", &dp.malloc_kind[DLX_ONEAPI_USM_DEVICE]},
      {"DPCTLmalloc_shared", &dp.malloc_kind[DLX_ONEAPI_USM_SHARED]},
      {"DPCTLmalloc_host", &dp.malloc_kind[DLX_ONEAPI_USM_HOST]},
      {"DPCTLfree_with_context", &dp.free_ctx},
      {"DPCTLDevice_CreateSubDevicesEqually", &dp.sub_devices_equally},
      {"DPCTLContext_Create", &dp.context_create},
      {"DPCTLDeviceVector_Delete", &dp.vec_delete},
      {"DPCTLPlatform_Delete", &dp.platform_delete},
      {"DPCTLDevice_Delete", &dp.device_delete},
      {"DPCTLContext_Delete", &dp.context_delete},
      {"DPCTLQueue_Delete", &dp.queue_delete},
  };
  bool ok = true;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i) ok = resolve(h, fns[i].name, fns[i].slot) && ok;
  if (!ok) return false;
  ref v = dp.get_devices((((1 << 5) - 1) << 16) | ((1 << 6) - 1));
  for (int i = 0; i < 2 && i < ndev; ++i) {
    dev[i] = dp.vec_get(v, (size_t)i);
    ref platform = dp.get_platform(dev[i]);
    ctx[i] = dp.default_context(platform);
    dp.platform_delete(platform);
    queue[i] = dp.queue_create(ctx[i], dev[i], NULL, 0);
    if (queue[i] == NULL) return false;
  }
  dp.vec_delete(v);
  return true;
}

static void *usm(int d, dlx_oneapi_usm kind, size_t bytes) {
  void *p = dp.malloc_kind[kind](bytes, queue[d]);
  CHECK(p != NULL);
  return p;
}

static void qcopy(int d, void *dst, const void *src, size_t bytes) {
  ref e = dp.memcpy_(queue[d], dst, src, bytes);
  CHECK(e != NULL);
  if (e == NULL) return;
  dp.event_wait(e);
  dp.event_delete(e);
}

static const char *const kind_names[] = {"unknown", "device", "shared", "host"};

/* ---- a producer of managed tensors over USM --------------------------------------------------------- */

static _Atomic int deleted;

typedef struct usm_tensor {
  DLManagedTensorVersioned m;
  int64_t shape[2], strides[2];
  int d; /* the USM's device, freed in its context; -1: not USM */
} usm_tensor;

static void usm_deleter(DLManagedTensorVersioned *m) {
  usm_tensor *t = m->manager_ctx;
  if (t->d >= 0) dp.free_ctx(m->dl_tensor.data, ctx[t->d]);
  atomic_fetch_add(&deleted, 1);
  free(t);
}

/* A (3, 4) float32 managed tensor over data, labelled label; freed as device d's USM unless d < 0. */
static DLManagedTensorVersioned *make_managed(void *data, DLDevice label, int d) {
  usm_tensor *t = calloc(1, sizeof *t);
  t->d = d;
  t->shape[0] = 3, t->shape[1] = 4, t->strides[0] = 4, t->strides[1] = 1;
  t->m.version.major = DLPACK_MAJOR_VERSION;
  t->m.version.minor = DLPACK_MINOR_VERSION;
  t->m.manager_ctx = t;
  t->m.deleter = usm_deleter;
  t->m.dl_tensor = (DLTensor){data, label, 2, DLX_DTYPE_FLOAT32, t->shape, t->strides, 0};
  return &t->m;
}

static dlx_view view_of(void *data, DLDevice dev_, int32_t nd, const int64_t *shape, const int64_t *strides,
                        DLDataType dt) {
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, data, dt, dev_, nd, shape, strides));
  return v;
}

/* ---- without the library ---------------------------------------------------------------------------- */

static void test_absent(void) {
  float host[12] = {0};
  dlx_oneapi_usm k;
  DLDevice d;
  CHECK_EQ(dlx_oneapi_device_count(), 0);
  CHECK_FAIL(dlx_oneapi_pointer_device(host, &d, &k), DLX_ERR_UNSUPPORTED, "DLX_DPCTL_LIBRARY");
  CHECK_FAIL(dlx_oneapi_usm_kind(host, 0, &k), DLX_ERR_UNSUPPORTED, "dlx_oneapi_load(path)");
  CHECK_FAIL(dlx_oneapi_usm_kind(host, 0, &k), DLX_ERR_UNSUPPORTED, "DLX_DPCTL_LIBRARY is not set");
  dlx_tensor *t = NULL;
  CHECK_FAIL(dlx_tensor_empty(&t, 2, I64(3, 4), DLX_DTYPE_FLOAT32, ONEAPI(0)), DLX_ERR_UNSUPPORTED, "dlx_tensor_empty");
  CHECK(t == NULL);
  dlx_view hv = view_of(host, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  dlx_view ov = view_of(host, ONEAPI(0), 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  CHECK_FAIL(dlx_copy(&ov, &hv), DLX_ERR_UNSUPPORTED, "libDPCTLSyclInterface.so");
  CHECK_FAIL(dlx_copy(&hv, &ov), DLX_ERR_UNSUPPORTED, "dlx_copy");
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &ov, &ov, &ov), DLX_ERR_UNSUPPORTED, "dlx_ops");
  /* nothing to ask: imports and exports keep the label, as for any device without its runtime */
  dlx_dltensor out;
  CHECK_OK(dlx_view_to_dltensor(&ov, &out));
  dlx_view back;
  const dlx_import_spec any = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 0};
  CHECK_OK(dlx_view_from_dltensor(&back, &out.tensor, &any));
  CHECK(back.data == (void *)host && back.device.device_type == kDLOneAPI);
  /* dlx_oneapi_load's errors, each leaving dlx without the library */
  CHECK_FAIL(dlx_oneapi_load(NULL), DLX_ERR_NULL_ARGUMENT, "path");
  CHECK_FAIL(dlx_oneapi_load(""), DLX_ERR_INVALID_ARGUMENT, "empty");
  CHECK_FAIL(dlx_oneapi_load("/nonexistent/libDPCTLSyclInterface.so"), DLX_ERR_INVALID_ARGUMENT,
             "'/nonexistent/libDPCTLSyclInterface.so' could not be loaded");
  CHECK_FAIL(dlx_oneapi_load("libm.so.6"), DLX_ERR_INVALID_ARGUMENT, "no function DPCTLDeviceMgr_GetDevices");
  CHECK_EQ(dlx_oneapi_device_count(), 0);
}

/* Needs no library: arguments are checked first. */
static void test_argument_errors(void) {
  float host[4] = {0};
  dlx_oneapi_usm k, prev = DLX_ONEAPI_USM_UNKNOWN;
  DLDevice d;
  CHECK_FAIL(dlx_oneapi_pointer_device(host, NULL, &k), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_oneapi_pointer_device(NULL, &d, &k), DLX_ERR_NULL_ARGUMENT, "'ptr'");
  CHECK_FAIL(dlx_oneapi_usm_kind(host, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'kind'");
  CHECK_FAIL(dlx_oneapi_usm_kind(NULL, 0, &k), DLX_ERR_NULL_ARGUMENT, "'ptr'");
  CHECK_FAIL(dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_UNKNOWN, NULL), DLX_ERR_INVALID_ARGUMENT, "kind 0");
  CHECK_FAIL(dlx_oneapi_set_alloc_kind((dlx_oneapi_usm)7, NULL), DLX_ERR_INVALID_ARGUMENT, "kind 7");
  CHECK_FAIL(dlx_oneapi_set_alloc_kind((dlx_oneapi_usm)-1, NULL), DLX_ERR_INVALID_ARGUMENT, "kind -1");
  CHECK_OK(dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_HOST, &prev));
  CHECK_EQ(prev, DLX_ONEAPI_USM_DEVICE);
  CHECK_OK(dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_DEVICE, &prev));
  CHECK_EQ(prev, DLX_ONEAPI_USM_HOST);
}

/* ---- loaded ------------------------------------------------------------------------------------------ */

static void test_load_again(void) {
  CHECK_OK(dlx_oneapi_load(lib_path));
  CHECK_FAIL(dlx_oneapi_load("libm.so.6"), DLX_ERR_INVALID_ARGUMENT, "already loaded from");
  CHECK_EQ(dlx_oneapi_device_count(), ndev);
}

/* Zero-copy both ways on device d, for each USM kind: the same pointer through import, view, export and
 * re-import, writes on either side seen on the other, the id kept, the deleter run once at the end. */
static void roundtrip(int d) {
  for (int kind = DLX_ONEAPI_USM_DEVICE; kind <= DLX_ONEAPI_USM_HOST; ++kind) {
    float *p = usm(d, (dlx_oneapi_usm)kind, 12 * sizeof(float));
    if (p == NULL) continue;
    atomic_store(&deleted, 0);
    dlx_tensor *t = NULL, *t2 = NULL;
    CHECK_OK(dlx_tensor_from_managed_versioned(&t, make_managed(p, ONEAPI(d), d)));
    if (t == NULL) continue;
    const dlx_view *v = dlx_tensor_view(t);
    CHECK(v->data == (void *)p);
    CHECK_EQ(v->device.device_type, kDLOneAPI);
    CHECK_EQ(v->device.device_id, d);
    dlx_oneapi_usm k = DLX_ONEAPI_USM_UNKNOWN;
    CHECK_OK(dlx_oneapi_usm_kind(v->data, v->device.device_id, &k));
    CHECK_EQ(k, kind);
    DLDevice where = CPU;
    CHECK_OK(dlx_oneapi_pointer_device(p + 5, &where, &k)); /* an interior pointer too */
    CHECK_EQ(where.device_type, kDLOneAPI);
    CHECK_EQ(where.device_id, d);
    CHECK_EQ(k, kind);
    /* the full rule (pointer device, root, position), which platforms of one root device skip */
    const bool was = dlx__oneapi_export_full_walk(true);
    where = CPU;
    CHECK_OK(dlx_oneapi_pointer_device(p + 5, &where, &k));
    CHECK_EQ(where.device_id, d);
    CHECK_EQ(k, kind);
    dlx__oneapi_export_full_walk(was);
    /* the view exported and the export imported: the same pointer and device */
    dlx_dltensor out;
    CHECK_OK(dlx_view_to_dltensor(v, &out));
    CHECK(out.tensor.data == (void *)p && out.tensor.device.device_id == d);
    DLManagedTensorVersioned *e = NULL;
    CHECK_OK(dlx_tensor_to_managed_versioned(t, &e));
    CHECK(e != NULL && e->dl_tensor.data == (void *)p && e->dl_tensor.device.device_type == kDLOneAPI &&
          e->dl_tensor.device.device_id == d);
    CHECK_OK(dlx_tensor_from_managed_versioned(&t2, e));
    CHECK(t2 != NULL && dlx_tensor_view(t2)->data == (void *)p);
    /* writes through the producer's side are what dlx reads */
    float src[12], got[12];
    for (int i = 0; i < 12; ++i) src[i] = (float)i + 0.5f;
    qcopy(d, p, src, sizeof src);
    dlx_view hv = view_of(got, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
    CHECK_OK(dlx_copy(&hv, v));
    CHECK(memcmp(got, src, sizeof src) == 0);
    /* and dlx's writes are what the producer reads */
    for (int i = 0; i < 12; ++i) src[i] = 100.0f + (float)i;
    dlx_view sv = view_of(src, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
    CHECK_OK(dlx_copy(dlx_tensor_view(t2), &sv));
    memset(got, 0, sizeof got);
    qcopy(d, got, p, sizeof got);
    CHECK(memcmp(got, src, sizeof src) == 0);
    if (kind != DLX_ONEAPI_USM_DEVICE) {
      /* host-accessible: the CPU and dlx's ops use the pointer directly */
      p[3] = -7.0f;
      const float two = 2.0f;
      dlx_view two_v = view_of((void *)&two, CPU, 0, NULL, NULL, DLX_DTYPE_FLOAT32);
      CHECK_OK(dlx_binary(DLX_OP_MUL, v, v, &two_v));
      CHECK(p[3] == -14.0f && p[0] == 200.0f);
    } else {
      CHECK_FAIL(dlx_binary(DLX_OP_ADD, v, v, v), DLX_ERR_DEVICE_MISMATCH, "is device USM on oneapi:");
      CHECK_FAIL(dlx_binary(DLX_OP_ADD, v, v, v), DLX_ERR_DEVICE_MISMATCH, "dlx_copy");
      /* an output alone in device USM takes inputs in host memory, read in place (reads_host) */
      float h[12];
      for (int i = 0; i < 12; ++i) h[i] = (float)i;
      const float one = 1.0f;
      dlx_view h_v = view_of(h, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
      dlx_view one_v = view_of((void *)&one, CPU, 0, NULL, NULL, DLX_DTYPE_FLOAT32);
      CHECK_OK(dlx_binary(DLX_OP_ADD, v, &h_v, &one_v));
      qcopy(d, got, p, sizeof got);
      for (int i = 0; i < 12; ++i) CHECK(got[i] == (float)i + 1.0f);
      double hd[12]; /* a cast from host memory too */
      for (int i = 0; i < 12; ++i) hd[i] = -(double)i;
      dlx_view hd_v = view_of(hd, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT64);
      CHECK_OK(dlx_cast(v, &hd_v));
      qcopy(d, got, p, sizeof got);
      for (int i = 0; i < 12; ++i) CHECK(got[i] == -(float)i);
      /* inputs on two devices: the message names the two, not the output */
      CHECK_FAIL(dlx_binary(DLX_OP_ADD, &h_v, &h_v, v), DLX_ERR_DEVICE_MISMATCH, "a is on cpu:0 but b is on oneapi:");
    }
    /* the deleter runs once, when the last of the tensors and the export goes */
    dlx_tensor_release(t);
    CHECK_EQ(atomic_load(&deleted), 0);
    dlx_tensor_release(t2);
    CHECK_EQ(atomic_load(&deleted), 1);
    printf("  oneapi:%d %s USM: round trip ok\n", d, kind_names[kind]);
  }
}

static void test_roundtrip_device0(void) { roundtrip(0); }

static void test_roundtrip_device1(void) {
  if (ndev < 2) {
    printf("  skip: one SYCL device only (two .icd files in OCL_ICD_VENDORS give two)\n");
    return;
  }
  roundtrip(1);
}

/* A pointer of one device labelled as another: refused on import and on export. */
static void test_wrong_id(void) {
  if (ndev < 2) {
    printf("  skip: one SYCL device only\n");
    return;
  }
  float *p = usm(1, DLX_ONEAPI_USM_SHARED, 12 * sizeof(float));
  if (p == NULL) return;
  atomic_store(&deleted, 0);
  dlx_tensor *t = NULL;
  CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, make_managed(p, ONEAPI(0), 1)), DLX_ERR_DEVICE_MISMATCH,
             "not bound to the default context of device oneapi:0");
  CHECK(t == NULL);
  CHECK_EQ(atomic_load(&deleted), 1); /* the failed import released it, once */
  float *q = usm(1, DLX_ONEAPI_USM_DEVICE, 12 * sizeof(float));
  dlx_view v = view_of(q, ONEAPI(0), 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  dlx_dltensor out;
  CHECK_FAIL(dlx_view_to_dltensor(&v, &out), DLX_ERR_DEVICE_MISMATCH, "the view says oneapi:0");
  CHECK_FAIL(dlx_view_to_dltensor(&v, &out), DLX_ERR_DEVICE_MISMATCH, "is on oneapi:1");
  dlx_oneapi_usm k;
  CHECK_FAIL(dlx_oneapi_usm_kind(q, 0, &k), DLX_ERR_DEVICE_MISMATCH, "oneapi:0");
  CHECK_OK(dlx_oneapi_usm_kind(q, 1, &k));
  /* an op never mixes devices */
  float *r = usm(0, DLX_ONEAPI_USM_SHARED, 12 * sizeof(float));
  dlx_view a = view_of(r, ONEAPI(0), 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  dlx_view b = view_of(p, ONEAPI(1), 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &a, &a, &b), DLX_ERR_DEVICE_MISMATCH, "an op runs on one device");
  dp.free_ctx(q, ctx[1]);
  dp.free_ctx(r, ctx[0]);
}

/* Host memory labelled oneAPI: dlx refuses it everywhere it can ask. */
static void test_host_memory_refused(void) {
  float *host = calloc(12, sizeof(float));
  atomic_store(&deleted, 0);
  dlx_tensor *t = NULL;
  CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, make_managed(host, ONEAPI(0), -1)), DLX_ERR_DEVICE_MISMATCH,
             "is not bound to the default context of device oneapi:0");
  CHECK(t == NULL);
  CHECK_EQ(atomic_load(&deleted), 1); /* the failed import ran the deleter, once */
  dlx_view v = view_of(host, ONEAPI(0), 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  dlx_dltensor out;
  CHECK_FAIL(dlx_view_to_dltensor(&v, &out), DLX_ERR_DEVICE_MISMATCH,
             "only allocations bound to the default platform context can be exported");
  DLDevice d;
  dlx_oneapi_usm k;
  CHECK_FAIL(dlx_oneapi_pointer_device(host, &d, &k), DLX_ERR_DEVICE_MISMATCH, "default platform context");
  CHECK_FAIL(dlx_oneapi_usm_kind(host, 0, &k), DLX_ERR_DEVICE_MISMATCH, "oneapi:0");
  dlx_view hv = view_of(host, CPU, 2, I64(3, 4), NULL, DLX_DTYPE_FLOAT32);
  CHECK_FAIL(dlx_copy(&v, &hv), DLX_ERR_DEVICE_MISMATCH, "not bound to the default context");
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &v, &v, &v), DLX_ERR_DEVICE_MISMATCH, "not bound to the default context");
  free(host);
}

/* Device ids outside [0, count). */
static void test_id_range(void) {
  float *p = usm(0, DLX_ONEAPI_USM_SHARED, 12 * sizeof(float));
  if (p == NULL) return;
  char needle[64];
  snprintf(needle, sizeof needle, "oneapi:%d does not exist (%d", ndev, ndev);
  for (int bad = 0; bad < 2; ++bad) {
    const int32_t id = bad == 0 ? ndev : -1;
    atomic_store(&deleted, 0);
    dlx_tensor *t = NULL;
    CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, make_managed(p, ONEAPI(id), -1)), DLX_ERR_INVALID_DEVICE,
               bad == 0 ? needle : "oneapi:-1 does not exist");
    CHECK_EQ(atomic_load(&deleted), 1);
    dlx_oneapi_usm k;
    CHECK_FAIL(dlx_oneapi_usm_kind(p, id, &k), DLX_ERR_INVALID_DEVICE, bad == 0 ? needle : "oneapi:-1 does not exist");
    CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(id)), DLX_ERR_INVALID_DEVICE, "does not exist");
  }
  dp.free_ctx(p, ctx[0]);
}

/* Sub-devices: an allocation in a sub-device's own context is not in the default context (refused by
 * both rules); one in the default context, where the runtime allows it, exports as its root's id. */
static void test_sub_devices(void) {
  ref subs = dp.sub_devices_equally(dev[0], 1);
  if (subs == NULL || dp.vec_size(subs) == 0) {
    printf("  skip: oneapi:0 cannot be partitioned (DPCTLDevice_CreateSubDevicesEqually gives none)\n");
    return;
  }
  ref sub = dp.vec_get(subs, 0);
  dp.vec_delete(subs);
  ref sctx = dp.context_create(sub, NULL, 0);
  ref sq = sctx != NULL ? dp.queue_create(sctx, sub, NULL, 0) : NULL;
  CHECK(sq != NULL);
  if (sq == NULL) {
    dp.device_delete(sub);
    return;
  }
  void *p = dp.malloc_kind[DLX_ONEAPI_USM_SHARED](64, sq);
  CHECK(p != NULL);
  DLDevice d;
  dlx_oneapi_usm k;
  CHECK_FAIL(dlx_oneapi_pointer_device(p, &d, &k), DLX_ERR_DEVICE_MISMATCH,
             "only allocations bound to the default platform context can be exported");
  CHECK_FAIL(dlx_oneapi_usm_kind(p, 0, &k), DLX_ERR_DEVICE_MISMATCH, "not bound to the default context of device oneapi:0");
  dp.free_ctx(p, sctx);
  dp.queue_delete(sq);
  dp.context_delete(sctx);
  ref dq = dp.queue_create(ctx[0], sub, NULL, 0);
  if (dq == NULL) {
    printf("  skip (part): this runtime binds no sub-device allocation to the default platform context "
           "(DPCTLQueue_Create(default context, sub-device) fails), so the root-id mapping cannot be observed\n");
  } else {
    void *r = dp.malloc_kind[DLX_ONEAPI_USM_DEVICE](64, dq);
    CHECK_OK(dlx_oneapi_pointer_device(r, &d, &k));
    CHECK_EQ(d.device_id, 0);
    CHECK_OK(dlx_oneapi_usm_kind(r, 0, &k));
    dp.free_ctx(r, ctx[0]);
    dp.queue_delete(dq);
  }
  dp.device_delete(sub);
}

/* dlx's own memory: device USM by default, the chosen kind otherwise; zeroed when asked; freed. */
static void test_alloc(void) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 2, I64(3, 4), DLX_DTYPE_FLOAT32, ONEAPI(0)));
  if (t == NULL) return;
  void *p = dlx_tensor_view(t)->data;
  dlx_oneapi_usm k = DLX_ONEAPI_USM_UNKNOWN;
  CHECK_OK(dlx_oneapi_usm_kind(p, 0, &k));
  CHECK_EQ(k, DLX_ONEAPI_USM_DEVICE);
  /* released: the pointer is no USM any more */
  dlx_tensor_release(t);
  CHECK_FAIL(dlx_oneapi_usm_kind(p, 0, &k), DLX_ERR_DEVICE_MISMATCH, "not bound");
  /* shared: ops allocate their outputs there and compute on the CPU */
  dlx_oneapi_usm prev;
  CHECK_OK(dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_SHARED, &prev));
  dlx_tensor *a = NULL, *sum = NULL;
  CHECK_OK(dlx_tensor_empty(&a, 2, I64(3, 4), DLX_DTYPE_FLOAT32, ONEAPI(0)));
  if (a != NULL) {
    float *ap = dlx_tensor_view(a)->data;
    CHECK_OK(dlx_oneapi_usm_kind(ap, 0, &k));
    CHECK_EQ(k, DLX_ONEAPI_USM_SHARED);
    for (int i = 0; i < 12; ++i) ap[i] = (float)i;
    CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &sum, a, a));
    if (sum != NULL) {
      const float *sp = dlx_tensor_view(sum)->data;
      CHECK_EQ(dlx_tensor_view(sum)->device.device_type, kDLOneAPI);
      CHECK(sp[11] == 22.0f && sp[1] == 2.0f);
    }
  }
  dlx_tensor_release(sum);
  dlx_tensor_release(a);
  CHECK_OK(dlx_oneapi_set_alloc_kind(prev, NULL));
  /* device USM: a fresh op output cannot be computed on; the message says how */
  dlx_tensor *x = NULL, *y = NULL;
  CHECK_OK(dlx_tensor_empty(&x, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(0)));
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &y, x, x), DLX_ERR_DEVICE_MISMATCH, "dlx_oneapi_set_alloc_kind");
  CHECK(y == NULL);
  dlx_tensor_release(x);
  /* zeroed memory, through the memory backend's table */
  const dlx__memory_ops *be = NULL;
  CHECK_OK(dlx__backend_memory(ONEAPI(0), "test", &be));
  void *z = NULL;
  if (be != NULL) CHECK_OK(be->alloc(ONEAPI(0), 100, true, &z, "test"));
  if (z != NULL) {
    unsigned char got[100];
    memset(got, 0xAB, sizeof got);
    qcopy(0, got, z, sizeof got);
    bool zero = true;
    for (int i = 0; i < 100; ++i) zero = zero && got[i] == 0;
    CHECK(zero);
    be->free(ONEAPI(0), z);
  }
  CHECK_FAIL(be->alloc(CPU, 8, false, &z, "test_alloc"), DLX_ERR_DEVICE_MISMATCH, "test_alloc");
  CHECK_FAIL(be->alloc(ONEAPI(0), (uint64_t)1 << 62, false, &z, "test_alloc"), DLX_ERR_OUT_OF_MEMORY, "test_alloc");
}

/* The kind of USM at t's data on its device (UNKNOWN when it cannot be asked). */
static dlx_oneapi_usm kind_of(const dlx_tensor *t) {
  dlx_oneapi_usm k = DLX_ONEAPI_USM_UNKNOWN;
  if (t == NULL) return k;
  CHECK_OK(dlx_oneapi_usm_kind(dlx_tensor_view(t)->data, dlx_tensor_view(t)->device.device_id, &k));
  return k;
}

/* Tensors made from host or shared USM (op results, empty_like) keep its kind while the allocation kind
 * stays device USM, so ops on a producer's shared USM need no dlx_oneapi_set_alloc_kind. */
static void test_results_follow_kind(void) {
  for (int d = 0; d < ndev && d < 2; ++d) {
    for (int kind = DLX_ONEAPI_USM_SHARED; kind <= DLX_ONEAPI_USM_HOST; ++kind) {
      float *p = usm(d, (dlx_oneapi_usm)kind, 12 * sizeof(float));
      if (p == NULL) continue;
      for (int i = 0; i < 12; ++i) p[i] = (float)i - 5.5f;
      dlx_tensor *a = NULL, *sum = NULL, *neg = NULL, *half = NULL, *wide = NULL, *like = NULL, *fresh = NULL;
      CHECK_OK(dlx_tensor_from_managed_versioned(&a, make_managed(p, ONEAPI(d), d)));
      if (a == NULL) continue;
      CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &sum, a, a));
      CHECK_OK(dlx_tensor_unary(DLX_UNOP_NEG, &neg, a));
      CHECK_OK(dlx_tensor_binary_scalar(DLX_OP_MUL, &half, a, 0.5, 0));
      CHECK_OK(dlx_tensor_cast(&wide, a, DLX_DTYPE_FLOAT64));
      CHECK_OK(dlx_tensor_empty_like(&like, a));
      dlx_tensor *made[] = {sum, neg, half, wide, like};
      for (size_t j = 0; j < sizeof made / sizeof made[0]; ++j) {
        if (made[j] == NULL) continue;
        CHECK_EQ(dlx_tensor_view(made[j])->device.device_type, kDLOneAPI);
        CHECK_EQ(dlx_tensor_view(made[j])->device.device_id, d);
        CHECK_EQ(kind_of(made[j]), kind);
      }
      for (int i = 0; sum != NULL && neg != NULL && half != NULL && wide != NULL && i < 12; ++i) {
        const float x = (float)i - 5.5f;
        CHECK(((const float *)dlx_tensor_view(sum)->data)[i] == x + x);
        CHECK(((const float *)dlx_tensor_view(neg)->data)[i] == -x);
        CHECK(((const float *)dlx_tensor_view(half)->data)[i] == x * 0.5f);
        CHECK(((const double *)dlx_tensor_view(wide)->data)[i] == (double)x);
      }
      /* a tensor made from nothing still takes the allocation kind (device USM) */
      CHECK_OK(dlx_tensor_empty(&fresh, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(d)));
      CHECK_EQ(kind_of(fresh), DLX_ONEAPI_USM_DEVICE);
      dlx_tensor_release(fresh);
      /* one made from device USM takes the allocation kind too, and an op on it is refused, as before */
      dlx_tensor *dv = NULL, *dv_like = NULL, *r = NULL;
      CHECK_OK(dlx_tensor_empty(&dv, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(d)));
      if (dv != NULL) {
        CHECK_OK(dlx_tensor_empty_like(&dv_like, dv));
        CHECK_EQ(kind_of(dv_like), DLX_ONEAPI_USM_DEVICE);
        CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &r, dv, dv), DLX_ERR_DEVICE_MISMATCH, "device USM");
        CHECK(r == NULL);
      }
      dlx_tensor_release(dv_like);
      dlx_tensor_release(dv);
      for (size_t j = 0; j < sizeof made / sizeof made[0]; ++j) dlx_tensor_release(made[j]);
      atomic_store(&deleted, 0);
      dlx_tensor_release(a);
      CHECK_EQ(atomic_load(&deleted), 1);
    }
  }
}

/* An op whose output alone is device USM (a fill, a cast or an add from host-accessible inputs) is computed
 * into shared scratch and copied into place through the queue, strided outputs included. */
static void test_output_in_device_usm(void) {
  dlx_tensor *dv = NULL, *sh = NULL, *cast = NULL;
  CHECK_OK(dlx_tensor_empty(&dv, 2, I64(3, 4), DLX_DTYPE_FLOAT32, ONEAPI(0)));
  if (dv == NULL) return;
  const dlx_view *v = dlx_tensor_view(dv);
  float host[12];
  /* a fill from a host scalar, then a fill of every other column (a strided output) */
  float seven = 7.0f, two = -2.5f;
  dlx_view seven_v = view_of(&seven, CPU, 0, NULL, NULL, DLX_DTYPE_FLOAT32);
  dlx_view two_v = view_of(&two, CPU, 0, NULL, NULL, DLX_DTYPE_FLOAT32);
  CHECK_OK(dlx_fill(v, &seven_v));
  dlx_view cols = *v;
  cols.shape[1] = 2;
  cols.strides[1] = 2;
  CHECK_OK(dlx_fill(&cols, &two_v));
  qcopy(0, host, v->data, sizeof host);
  for (int i = 0; i < 12; ++i) CHECK(host[i] == (i % 2 == 0 ? -2.5f : 7.0f));
  /* a cast from shared USM into the transposed device tensor */
  dlx_oneapi_usm prev;
  CHECK_OK(dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_SHARED, &prev));
  CHECK_OK(dlx_tensor_empty(&sh, 2, I64(4, 3), DLX_DTYPE_FLOAT64, ONEAPI(0)));
  CHECK_OK(dlx_oneapi_set_alloc_kind(prev, NULL));
  if (sh != NULL) {
    double *sp = dlx_tensor_view(sh)->data;
    for (int i = 0; i < 12; ++i) sp[i] = i + 0.25;
    dlx_view t = *v;
    t.shape[0] = 4, t.shape[1] = 3, t.strides[0] = 1, t.strides[1] = 4; /* v transposed */
    CHECK_OK(dlx_cast(&t, dlx_tensor_view(sh)));
    qcopy(0, host, v->data, sizeof host);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 3; ++c) CHECK(host[c * 4 + r] == (float)(r * 3 + c + 0.25));
    /* the C tensor API's cast gives a shared result, which the host reads */
    CHECK_OK(dlx_tensor_cast(&cast, sh, DLX_DTYPE_INT32));
    if (cast != NULL) CHECK(((const int32_t *)dlx_tensor_view(cast)->data)[11] == 11);
  }
  /* an input in device USM is still refused, with the way out */
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, v, v, v), DLX_ERR_DEVICE_MISMATCH, "device USM");
  dlx_tensor_release(cast);
  dlx_tensor_release(sh);
  dlx_tensor_release(dv);
}

/* Copies to and from device USM: compact, strided both ways (gaps kept), broadcast, across devices,
 * within one device, packed float4 (odd count, strided), and a side no oneAPI copy can reach. */
static void test_copies(void) {
  int32_t h[24], got[24];
  for (int i = 0; i < 24; ++i) h[i] = i;
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 2, I64(4, 6), DLX_DTYPE_INT32, ONEAPI(0)));
  if (t == NULL) return;
  const dlx_view *tv = dlx_tensor_view(t);
  dlx_view hv = view_of(h, CPU, 2, I64(4, 6), NULL, DLX_DTYPE_INT32);
  dlx_view gv = view_of(got, CPU, 2, I64(4, 6), NULL, DLX_DTYPE_INT32);
  CHECK_OK(dlx_copy(tv, &hv));
  CHECK_OK(dlx_copy(&gv, tv));
  CHECK(memcmp(got, h, sizeof h) == 0);
  /* a strided device view: t[::2, 1::2], read into compact host memory */
  dlx_view sv = view_of((int32_t *)tv->data + 1, ONEAPI(0), 2, I64(2, 3), I64(12, 2), DLX_DTYPE_INT32);
  int32_t small[6] = {0};
  dlx_view smv = view_of(small, CPU, 2, I64(2, 3), NULL, DLX_DTYPE_INT32);
  CHECK_OK(dlx_copy(&smv, &sv));
  CHECK(small[0] == 1 && small[2] == 5 && small[3] == 13 && small[5] == 17);
  /* and written: only those elements change */
  int32_t minus[6] = {-1, -2, -3, -4, -5, -6};
  dlx_view mv = view_of(minus, CPU, 2, I64(2, 3), NULL, DLX_DTYPE_INT32);
  CHECK_OK(dlx_copy(&sv, &mv));
  CHECK_OK(dlx_copy(&gv, tv));
  CHECK(got[1] == -1 && got[3] == -2 && got[13] == -4 && got[17] == -6 && got[0] == 0 && got[2] == 2 && got[12] == 12);
  /* a host row broadcast into the device tensor */
  dlx_view row = view_of(h, CPU, 2, I64(1, 6), NULL, DLX_DTYPE_INT32);
  CHECK_OK(dlx_copy(tv, &row));
  CHECK_OK(dlx_copy(&gv, tv));
  CHECK(got[6] == 0 && got[23] == 5);
  /* within the device: compact and strided (the backend's own copy path) */
  dlx_tensor *u = NULL;
  CHECK_OK(dlx_tensor_empty(&u, 2, I64(4, 6), DLX_DTYPE_INT32, ONEAPI(0)));
  if (u != NULL) {
    CHECK_OK(dlx_copy(tv, &hv));
    CHECK_OK(dlx_copy(dlx_tensor_view(u), tv));
    memset(got, 0, sizeof got);
    CHECK_OK(dlx_copy(&gv, dlx_tensor_view(u)));
    CHECK(memcmp(got, h, sizeof h) == 0);
    dlx_view uv = view_of(dlx_tensor_view(u)->data, ONEAPI(0), 2, I64(2, 3), I64(12, 2), DLX_DTYPE_INT32);
    dlx_view tv2 = view_of(tv->data, ONEAPI(0), 2, I64(2, 3), I64(6, 1), DLX_DTYPE_INT32); /* t[:2, :3] */
    CHECK_OK(dlx_copy(&uv, &tv2));
    CHECK_OK(dlx_copy(&gv, dlx_tensor_view(u)));
    CHECK(got[0] == 0 && got[2] == 1 && got[4] == 2 && got[12] == 6 && got[16] == 8 && got[1] == 1 && got[13] == 13);
  }
  dlx_tensor_release(u);
  /* across devices */
  if (ndev > 1) {
    dlx_tensor *w = NULL;
    CHECK_OK(dlx_tensor_empty(&w, 2, I64(4, 6), DLX_DTYPE_INT32, ONEAPI(1)));
    if (w != NULL) {
      CHECK_OK(dlx_copy(tv, &hv));
      CHECK_OK(dlx_copy(dlx_tensor_view(w), tv));
      memset(got, 0, sizeof got);
      CHECK_OK(dlx_copy(&gv, dlx_tensor_view(w)));
      CHECK(memcmp(got, h, sizeof h) == 0);
      dlx_view wv = view_of(dlx_tensor_view(w)->data, ONEAPI(1), 2, I64(2, 3), I64(12, 2), DLX_DTYPE_INT32);
      CHECK_OK(dlx_copy(&wv, &sv)); /* strided on both devices */
      CHECK_OK(dlx_copy(&gv, dlx_tensor_view(w)));
      CHECK(got[0] == 1 && got[2] == 3 && got[12] == 13 && got[1] == 1);
    }
    dlx_tensor_release(w);
  }
  dlx_tensor_release(t);
  /* packed float4: 7 codes (the last byte half used), contiguous and every other one */
  uint8_t packed[4] = {0x21, 0x43, 0x65, 0x07}, back[4] = {0};
  dlx_tensor *f4 = NULL;
  CHECK_OK(dlx_tensor_empty(&f4, 1, I64(7), DLX_DTYPE_FLOAT4_E2M1FN, ONEAPI(0)));
  if (f4 != NULL) {
    dlx_view pv = view_of(packed, CPU, 1, I64(7), NULL, DLX_DTYPE_FLOAT4_E2M1FN);
    dlx_view bv = view_of(back, CPU, 1, I64(7), NULL, DLX_DTYPE_FLOAT4_E2M1FN);
    CHECK_OK(dlx_copy(dlx_tensor_view(f4), &pv));
    CHECK_OK(dlx_copy(&bv, dlx_tensor_view(f4)));
    CHECK(back[0] == 0x21 && back[1] == 0x43 && back[2] == 0x65 && (back[3] & 0x0F) == 0x07);
    dlx_view even = view_of(dlx_tensor_view(f4)->data, ONEAPI(0), 1, I64(4), I64(2), DLX_DTYPE_FLOAT4_E2M1FN);
    uint8_t e[2] = {0};
    dlx_view ev = view_of(e, CPU, 1, I64(4), NULL, DLX_DTYPE_FLOAT4_E2M1FN);
    CHECK_OK(dlx_copy(&ev, &even)); /* codes 1, 3, 5, 7 */
    CHECK(e[0] == 0x31 && e[1] == 0x75);
    uint8_t f[2] = {0xFF, 0xFF};
    dlx_view fv = view_of(f, CPU, 1, I64(4), NULL, DLX_DTYPE_FLOAT4_E2M1FN);
    CHECK_OK(dlx_copy(&even, &fv)); /* the odd codes stay */
    CHECK_OK(dlx_copy(&bv, dlx_tensor_view(f4)));
    CHECK(back[0] == 0x2F && back[1] == 0x4F && back[2] == 0x6F && (back[3] & 0x0F) == 0x0F);
  }
  dlx_tensor_release(f4);
  /* memory no oneAPI copy reaches */
  int32_t fake[4] = {0};
  void *sh = usm(0, DLX_ONEAPI_USM_SHARED, 16);
  dlx_view cuda = view_of(fake, (DLDevice){kDLCUDA, 0}, 1, I64(4), NULL, DLX_DTYPE_INT32);
  dlx_view o = view_of(sh, ONEAPI(0), 1, I64(4), NULL, DLX_DTYPE_INT32);
  CHECK_FAIL(dlx_copy(&o, &cuda), DLX_ERR_DEVICE_MISMATCH, "cuda:0");
  dp.free_ctx(sh, ctx[0]);
}

/* gemm on device USM is refused by the backend; on shared USM it runs on the CPU (or says no CBLAS). */
static void test_gemm(void) {
  float *a = usm(0, DLX_ONEAPI_USM_DEVICE, 4 * sizeof(float));
  float *s = usm(0, DLX_ONEAPI_USM_SHARED, 12 * sizeof(float));
  if (a == NULL || s == NULL) return;
  dlx_view av = view_of(a, ONEAPI(0), 2, I64(2, 2), NULL, DLX_DTYPE_FLOAT32);
  dlx_view s1 = view_of(s, ONEAPI(0), 2, I64(2, 2), NULL, DLX_DTYPE_FLOAT32);
  dlx_view s2 = view_of(s + 4, ONEAPI(0), 2, I64(2, 2), NULL, DLX_DTYPE_FLOAT32);
  dlx_view s3 = view_of(s + 8, ONEAPI(0), 2, I64(2, 2), NULL, DLX_DTYPE_FLOAT32);
  CHECK_FAIL(dlx_gemm(1, 0, &av, &s2, 0, 0, &s3), DLX_ERR_DEVICE_MISMATCH, "dlx_gemm: A at");
  for (int i = 0; i < 12; ++i) s[i] = i < 8 ? (float)(i % 4 == 0 || i % 4 == 3) : 0.0f; /* two identities */
  s[1] = 2.0f;
  const dlx_status st = dlx_gemm(1, 0, &s1, &s2, 0, 0, &s3);
  CHECK(st == DLX_OK || st == DLX_ERR_UNSUPPORTED);
  if (st == DLX_OK) CHECK(s[8] == 1.0f && s[9] == 2.0f && s[11] == 1.0f);
  dp.free_ctx(a, ctx[0]);
  dp.free_ctx(s, ctx[0]);
}

/* The legacy managed tensor over USM: deleter once, on success and on a refused import. */
static void legacy_deleter(DLManagedTensor *m) {
  if (m->manager_ctx != NULL) dp.free_ctx(m->dl_tensor.data, m->manager_ctx);
  atomic_fetch_add(&deleted, 1);
  free(m);
}

static void test_legacy(void) {
  static int64_t shape[1] = {8};
  for (int ok = 0; ok < 2; ++ok) {
    DLManagedTensor *m = calloc(1, sizeof *m);
    void *p = ok ? usm(0, DLX_ONEAPI_USM_HOST, 32) : calloc(8, 4);
    m->dl_tensor = (DLTensor){p, ONEAPI(0), 1, DLX_DTYPE_FLOAT32, shape, NULL, 0};
    m->manager_ctx = ok ? ctx[0] : NULL;
    m->deleter = legacy_deleter;
    atomic_store(&deleted, 0);
    dlx_tensor *t = NULL;
    if (ok) {
      CHECK_OK(dlx_tensor_from_managed(&t, m));
      CHECK_EQ(atomic_load(&deleted), 0);
      dlx_tensor_release(t);
    } else {
      CHECK_FAIL(dlx_tensor_from_managed(&t, m), DLX_ERR_DEVICE_MISMATCH, "oneapi:0");
      free(p);
    }
    CHECK_EQ(atomic_load(&deleted), 1);
  }
}

static const dlx_test_case loaded_cases[] = {
    {"load_again", test_load_again},
    {"roundtrip_device0", test_roundtrip_device0},
    {"roundtrip_device1", test_roundtrip_device1},
    {"wrong_id", test_wrong_id},
    {"host_memory_refused", test_host_memory_refused},
    {"id_range", test_id_range},
    {"sub_devices", test_sub_devices},
    {"alloc", test_alloc},
    {"results_follow_kind", test_results_follow_kind},
    {"output_in_device_usm", test_output_in_device_usm},
    {"copies", test_copies},
    {"gemm", test_gemm},
    {"legacy", test_legacy},
};

static int skip(const char *why) {
  printf("skip: %s\n", why);
  return dlx_test_failures_ != 0 ? 1 : 77;
}

/* DLX_DPCTL_LIBRARY read at the first call that needs the library. */
static int env_mode(bool bad) {
  if (bad) {
    setenv("DLX_DPCTL_LIBRARY", "/nonexistent/dir/libDPCTLSyclInterface.so", 1);
    CHECK_EQ(dlx_oneapi_device_count(), 0);
    dlx_oneapi_usm k;
    int x = 0;
    CHECK_FAIL(dlx_oneapi_usm_kind(&x, 0, &k), DLX_ERR_UNSUPPORTED,
               "DLX_DPCTL_LIBRARY='/nonexistent/dir/libDPCTLSyclInterface.so' could not be loaded");
    CHECK_FAIL(dlx_oneapi_usm_kind(&x, 0, &k), DLX_ERR_UNSUPPORTED, "No such file");
    printf("%s env-bad\n", dlx_test_failures_ ? "FAIL" : "ok  ");
    return dlx_test_failures_ != 0;
  }
  lib_path = getenv("DLX_DPCTL_LIBRARY");
  if (lib_path == NULL) return skip("DLX_DPCTL_LIBRARY is not set (the path of dpctl's libDPCTLSyclInterface.so)");
  ndev = dlx_oneapi_device_count();
  if (ndev == 0) return skip("no SYCL device (Intel's OpenCL CPU runtime needs OCL_ICD_VENDORS: see the README)");
  CHECK_OK(dlx_oneapi_load(lib_path)); /* the same file: nothing to do */
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(0)));
  dlx_tensor_release(t);
  printf("%s env (%d devices)\n", dlx_test_failures_ ? "FAIL" : "ok  ", ndev);
  return dlx_test_failures_ != 0;
}

/* The library loaded, SYCL with no device (OpenCL's loader finds no driver in an empty folder). */
static int no_device_mode(void) {
  lib_path = getenv("DLX_DPCTL_LIBRARY");
  if (lib_path == NULL) return skip("DLX_DPCTL_LIBRARY is not set (the path of dpctl's libDPCTLSyclInterface.so)");
  char dir[] = "/tmp/dlx-no-icd-XXXXXX";
  if (mkdtemp(dir) == NULL) return skip("mkdtemp failed");
  setenv("OCL_ICD_VENDORS", dir, 1);
  setenv("OCL_ICD_FILENAMES", "", 1);
  CHECK_OK(dlx_oneapi_load(lib_path));
  rmdir(dir);
  if (dlx_oneapi_device_count() != 0) return skip("SYCL still finds a device (a driver outside OpenCL's ICD loader)");
  int x = 0;
  dlx_oneapi_usm k;
  DLDevice d;
  CHECK_FAIL(dlx_oneapi_usm_kind(&x, 0, &k), DLX_ERR_INVALID_DEVICE, "oneapi:0 does not exist: SYCL finds no device");
  dlx_tensor *t = NULL;
  CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(4), DLX_DTYPE_FLOAT32, ONEAPI(0)), DLX_ERR_INVALID_DEVICE, "SYCL finds no device");
  CHECK_FAIL(dlx_oneapi_pointer_device(&x, &d, &k), DLX_ERR_DEVICE_MISMATCH, "default platform context");
  /* no device to ask about: an import labelled oneapi:0 names the count */
  const dlx_import_spec any = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 0};
  DLTensor dt = {&x, ONEAPI(0), 0, DLX_DTYPE_INT32, NULL, NULL, 0};
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &dt, &any), DLX_ERR_INVALID_DEVICE, "(0 SYCL devices)");
  printf("%s no-device\n", dlx_test_failures_ ? "FAIL" : "ok  ");
  return dlx_test_failures_ != 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1 && strcmp(argv[1], "env") == 0) return env_mode(false);
  if (argc > 1 && strcmp(argv[1], "env-bad") == 0) return env_mode(true);
  if (argc > 1 && strcmp(argv[1], "no-device") == 0) return no_device_mode();
  /* first without the library: the implicit load must not find it */
  lib_path = getenv("DLX_DPCTL_LIBRARY");
  unsetenv("DLX_DPCTL_LIBRARY");
  test_absent();
  test_argument_errors();
  printf("%s absent\n", dlx_test_failures_ ? "FAIL" : "ok  ");
  if (lib_path == NULL) return skip("DLX_DPCTL_LIBRARY is not set (the path of dpctl's libDPCTLSyclInterface.so)");
  CHECK_OK(dlx_oneapi_load(lib_path));
  if (dlx_test_failures_ != 0) return 1;
  ndev = dlx_oneapi_device_count();
  if (ndev == 0) return skip("no SYCL device (Intel's OpenCL CPU runtime needs OCL_ICD_VENDORS: see the README)");
  if (!open_dpctl()) {
    fprintf(stderr, "  cannot use dpctl's C API from the test\n");
    return 1;
  }
  printf("%d SYCL device%s\n", ndev, ndev == 1 ? "" : "s");
  const int rc = dlx_test_main(1, argv, loaded_cases, sizeof loaded_cases / sizeof loaded_cases[0]);
  return rc != 0 || dlx_test_failures_ != 0 ? 1 : 0;
}

/* Loading dpctl's C API at run time (dlopen), the SYCL device list, queues, and dlx/oneapi.h's controls.
 *
 * The library comes from dlx_oneapi_load(path), else from DLX_DPCTL_LIBRARY, tried once at the first call
 * that needs it. Nothing is resolved at build time. Once loaded, the state (functions, root devices, their
 * default contexts) is published through one atomic pointer and never changes or goes away; only the
 * per-device queues are made later, at first use, under the same lock as the load. */
#if !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* realpath under a strict -std=c11 build */
#endif
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"

/* DPCTLQueue_Create's property flag for an in-order queue (every copy waits for its event anyway). */
#define DPCTL_IN_ORDER_QUEUE 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const dlx__oneapi_runtime *) loaded;
/* under lock: whether DLX_DPCTL_LIBRARY was tried, and why the last attempt failed */
static bool env_tried;
static char why_absent[320] = "DLX_DPCTL_LIBRARY is not set";
static _Atomic int alloc_kind = DLX_ONEAPI_USM_DEVICE;

/* ---- symbols ------------------------------------------------------------------------------------ */

typedef struct symbol {
  const char *name;
  size_t offset; /* of its function pointer in dlx__dpctl_api */
} symbol;

#define SYM(field, name) {name, offsetof(dlx__dpctl_api, field)}
static const symbol symbols[] = {
    SYM(device_mgr_get_devices, "DPCTLDeviceMgr_GetDevices"),
    SYM(device_mgr_position, "DPCTLDeviceMgr_GetPositionInDevices"),
    SYM(device_vector_size, "DPCTLDeviceVector_Size"),
    SYM(device_vector_get_at, "DPCTLDeviceVector_GetAt"),
    SYM(device_vector_delete, "DPCTLDeviceVector_Delete"),
    SYM(device_delete, "DPCTLDevice_Delete"),
    SYM(device_are_eq, "DPCTLDevice_AreEq"),
    SYM(device_get_parent, "DPCTLDevice_GetParentDevice"),
    SYM(device_get_platform, "DPCTLDevice_GetPlatform"),
    SYM(platform_delete, "DPCTLPlatform_Delete"),
    SYM(platform_default_context, "DPCTLPlatform_GetDefaultContext"),
    SYM(context_are_eq, "DPCTLContext_AreEq"),
    SYM(queue_create, "DPCTLQueue_Create"),
    SYM(queue_memcpy, "DPCTLQueue_Memcpy"),
    SYM(queue_memset, "DPCTLQueue_Memset"),
    SYM(event_wait, "DPCTLEvent_Wait"),
    SYM(event_delete, "DPCTLEvent_Delete"),
    SYM(malloc_device, "DPCTLmalloc_device"),
    SYM(malloc_shared, "DPCTLmalloc_shared"),
    SYM(malloc_host, "DPCTLmalloc_host"),
    SYM(free_with_context, "DPCTLfree_with_context"),
    SYM(usm_pointer_type, "DPCTLUSM_GetPointerType"),
    SYM(usm_pointer_device, "DPCTLUSM_GetPointerDevice"),
};
#undef SYM

/* ---- loading (under lock) ------------------------------------------------------------------------ */

/* The root devices and their platforms' default contexts. */
static bool list_devices(dlx__oneapi_runtime *s, char *why, size_t cap) {
  const dlx__dpctl_api *a = &s->api;
  dpctl_ref vec = a->device_mgr_get_devices(DLX_DPCTL_ALL);
  const size_t n = vec != NULL ? a->device_vector_size(vec) : 0;
  if (n > (size_t)INT32_MAX) {
    snprintf(why, cap, "dpctl lists %zu devices", n);
    a->device_vector_delete(vec);
    return false;
  }
  s->count = (int)n;
  s->devices = n > 0 ? calloc(n, sizeof *s->devices) : NULL;
  if (n > 0 && s->devices == NULL) {
    snprintf(why, cap, "out of memory listing %zu devices", n);
    a->device_vector_delete(vec);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    dlx__oneapi_devinfo *d = &s->devices[i];
    d->device = a->device_vector_get_at(vec, i);
    dpctl_ref platform = d->device != NULL ? a->device_get_platform(d->device) : NULL;
    d->context = platform != NULL ? a->platform_default_context(platform) : NULL;
    if (platform != NULL) a->platform_delete(platform);
    d->context_first = d->context != NULL ? (int)i : -1;
    d->context_devices = d->context != NULL;
    for (size_t j = 0; j < i && d->context_first == (int)i; ++j) {
      if (s->devices[j].context_first == (int)j && a->context_are_eq(s->devices[j].context, d->context)) {
        d->context_first = (int)j;
        ++s->devices[j].context_devices;
      }
    }
    atomic_init(&d->queue, NULL);
  }
  if (vec != NULL) a->device_vector_delete(vec);
  return true;
}

/* A new state loaded from path, or NULL with the reason in why. */
static dlx__oneapi_runtime *load_path(const char *path, char *why, size_t cap) {
  /* Intel's runtime (libimf.so, under libsycl) resolves IFUNC symbols such as cosf against libm without
   * naming libm as a dependency: in a process that did not link libm, dlopen then crashes. Loading libm
   * globally first is harmless where it is already there (and fails harmlessly where libm is libc). */
  (void)dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(why, cap, "%s", e != NULL ? e : "dlopen failed");
    return NULL;
  }
  dlx__oneapi_runtime *s = calloc(1, sizeof *s);
  if (s == NULL) {
    snprintf(why, cap, "out of memory");
    return NULL; /* the handle stays open: a library is never closed once opened */
  }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; ++i) {
    void *f = dlsym(h, symbols[i].name);
    if (f == NULL) {
      snprintf(why, cap, "it has no function %s: it is not dpctl's C API (libDPCTLSyclInterface.so)", symbols[i].name);
      free(s);
      return NULL;
    }
    /* POSIX: a data pointer from dlsym holds the function's address */
    memcpy((char *)&s->api + symbols[i].offset, &f, sizeof f);
  }
  char real[PATH_MAX];
  snprintf(s->path, sizeof s->path, "%s", realpath(path, real) != NULL ? real : path);
  if (!list_devices(s, why, cap)) {
    free(s->devices);
    free(s);
    return NULL;
  }
  return s;
}

/* DLX_DPCTL_LIBRARY, the first time nothing is loaded (under lock). */
static const dlx__oneapi_runtime *try_env_locked(void) {
  const dlx__oneapi_runtime *s = atomic_load_explicit(&loaded, memory_order_acquire);
  if (s != NULL || env_tried) return s;
  env_tried = true;
  const char *path = getenv("DLX_DPCTL_LIBRARY");
  if (path == NULL || path[0] == '\0') return NULL; /* why_absent already says it is not set */
  char why[256];
  dlx__oneapi_runtime *n = load_path(path, why, sizeof why);
  if (n == NULL) {
    snprintf(why_absent, sizeof why_absent, "DLX_DPCTL_LIBRARY='%s' could not be loaded: %s", path, why);
    return NULL;
  }
  atomic_store_explicit(&loaded, n, memory_order_release);
  return n;
}

const dlx__oneapi_runtime *dlx__oneapi_state(void) {
  const dlx__oneapi_runtime *s = atomic_load_explicit(&loaded, memory_order_acquire);
  if (s != NULL) return s;
  pthread_mutex_lock(&lock);
  s = try_env_locked();
  pthread_mutex_unlock(&lock);
  return s;
}

dlx_status dlx__oneapi_require(const char *fn, const dlx__oneapi_runtime **out) {
  const dlx__oneapi_runtime *s = dlx__oneapi_state();
  if (s != NULL) {
    *out = s;
    return DLX_OK;
  }
  char why[sizeof why_absent];
  pthread_mutex_lock(&lock);
  memcpy(why, why_absent, sizeof why);
  pthread_mutex_unlock(&lock);
  return dlx_set_error(DLX_ERR_UNSUPPORTED,
                       "%s: oneAPI memory needs dpctl's C API library (libDPCTLSyclInterface.so, in the dpctl "
                       "package), which was not found (%s): call dlx_oneapi_load(path) or set DLX_DPCTL_LIBRARY",
                       fn, why);
}

dlx_status dlx__oneapi_device(const char *fn, int32_t id, const dlx__oneapi_runtime **out) {
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_require(fn, &s));
  DLX_FAIL_IF(s->count == 0, DLX_ERR_INVALID_DEVICE,
              "%s: device oneapi:%d does not exist: SYCL finds no device (dpctl library %s)", fn, (int)id, s->path);
  DLX_FAIL_IF(id < 0 || id >= s->count, DLX_ERR_INVALID_DEVICE, "%s: device oneapi:%d does not exist (%d device%s)", fn,
              (int)id, s->count, s->count == 1 ? "" : "s");
  DLX_FAIL_IF(s->devices[id].context == NULL, DLX_ERR_BACKEND,
              "%s: device oneapi:%d has no default platform context (sycl_ext_oneapi_default_context)", fn, (int)id);
  *out = s;
  return DLX_OK;
}

dlx_status dlx__oneapi_queue(const dlx__oneapi_runtime *s, int32_t id, const char *fn, dpctl_ref *out) {
  dlx__oneapi_devinfo *d = &s->devices[id];
  dpctl_ref q = atomic_load_explicit(&d->queue, memory_order_acquire);
  if (q == NULL) {
    pthread_mutex_lock(&lock);
    q = atomic_load_explicit(&d->queue, memory_order_acquire);
    if (q == NULL) {
      q = s->api.queue_create(d->context, d->device, NULL, DPCTL_IN_ORDER_QUEUE);
      if (q != NULL) atomic_store_explicit(&d->queue, q, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
  }
  DLX_FAIL_IF(q == NULL, DLX_ERR_BACKEND, "%s: DPCTLQueue_Create failed for device oneapi:%d", fn, (int)id);
  *out = q;
  return DLX_OK;
}

dlx_oneapi_usm dlx__oneapi_alloc_kind(void) {
  return (dlx_oneapi_usm)atomic_load_explicit(&alloc_kind, memory_order_relaxed);
}

/* ---- dlx/oneapi.h --------------------------------------------------------------------------------- */

dlx_status dlx_oneapi_load(const char *path) {
  DLX_CHECK_NULL(path);
  DLX_FAIL_IF(path[0] == '\0', DLX_ERR_INVALID_ARGUMENT, "dlx_oneapi_load: path is empty");
  pthread_mutex_lock(&lock);
  const dlx__oneapi_runtime *s = atomic_load_explicit(&loaded, memory_order_acquire);
  dlx_status st = DLX_OK;
  if (s != NULL) {
    char real[PATH_MAX];
    const char *p = realpath(path, real) != NULL ? real : path;
    if (strcmp(p, s->path) != 0)
      st = dlx_set_error(DLX_ERR_INVALID_ARGUMENT,
                         "dlx_oneapi_load: dpctl's C API is already loaded from '%s'; '%s' cannot replace it", s->path,
                         path);
  } else {
    char why[256];
    dlx__oneapi_runtime *n = load_path(path, why, sizeof why);
    if (n == NULL) {
      st = dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "dlx_oneapi_load: '%s' could not be loaded: %s", path, why);
    } else {
      atomic_store_explicit(&loaded, n, memory_order_release);
    }
  }
  pthread_mutex_unlock(&lock);
  return st;
}

int dlx_oneapi_device_count(void) {
  const dlx__oneapi_runtime *s = dlx__oneapi_state();
  return s != NULL ? s->count : 0;
}

dlx_status dlx_oneapi_set_alloc_kind(dlx_oneapi_usm kind, dlx_oneapi_usm *previous) {
  DLX_FAIL_IF(kind != DLX_ONEAPI_USM_DEVICE && kind != DLX_ONEAPI_USM_SHARED && kind != DLX_ONEAPI_USM_HOST,
              DLX_ERR_INVALID_ARGUMENT,
              "dlx_oneapi_set_alloc_kind: kind %d is not DLX_ONEAPI_USM_DEVICE (1), _SHARED (2) or _HOST (3)", (int)kind);
  const int was = atomic_exchange_explicit(&alloc_kind, (int)kind, memory_order_relaxed);
  if (previous != NULL) *previous = (dlx_oneapi_usm)was;
  return DLX_OK;
}

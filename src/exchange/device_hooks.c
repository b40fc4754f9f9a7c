/* The exchange layer's device hooks (device_hooks.h): what is installed, and the defaults.
 *
 * The default is CCCL's pointer rule for a program that links the exchange layer alone: the device a CUDA
 * pointer belongs to, asked of the CUDA driver (libcuda.so.1, loaded with dlopen at the first export of
 * CUDA-labelled memory, never linked). These are the exchange layer's default hooks; libdlx installs its own
 * when it is loaded (the CUDA backend's pointer query, through its rows).
 *
 * Without a driver (no libcuda.so.1, or cuInit fails: no GPU), nothing can be asked, and labels are taken as
 * given, as dlx/view.h says. DLX_CUDA_DRIVER may name another driver library by absolute path (tests load
 * an emulated one). */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/view_internal.h"
#include "exchange/device_hooks.h"

/* The CUDA driver API's values (cuda.h, CUpointer_attribute and CUmemorytype), restated. */
enum {
  CU_SUCCESS = 0,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_UNIFIED = 4,
};
typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_pointer_get_attribute_fn)(void *data, int attribute, unsigned long long ptr);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cu_pointer_get_attribute_fn get_attribute; /* NULL: no driver to ask */

static void load_driver(void) {
  const char *path = getenv("DLX_CUDA_DRIVER");
  if (path == NULL || path[0] != '/') path = "libcuda.so.1"; /* by soname, from the system's library path */
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) return;
  void *init_sym = dlsym(h, "cuInit"), *attr_sym = dlsym(h, "cuPointerGetAttribute");
  cu_init_fn init;
  cu_pointer_get_attribute_fn attr;
  memcpy(&init, &init_sym, sizeof init); /* object pointers to function pointers, as POSIX dlsym requires */
  memcpy(&attr, &attr_sym, sizeof attr);
  /* no device (or no working driver): CUDA knows no memory at all */
  if (init == NULL || attr == NULL || init(0) != CU_SUCCESS) return;
  get_attribute = attr;
}

/* The device of ptr by the driver, as dlx_cuda_pointer_device says it (pinned memory cuda_host:0, managed
 * cuda_managed:0, memory CUDA does not know cpu:0). */
static DLDevice driver_device(const void *ptr) {
  int type = 0, managed = 0, ordinal = 0;
  const unsigned long long p = (unsigned long long)(uintptr_t)ptr;
  if (get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CU_SUCCESS) return (DLDevice){kDLCPU, 0};
  if (get_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) == CU_SUCCESS && managed)
    return (DLDevice){kDLCUDAManaged, 0};
  if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED) {
    if (get_attribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) != CU_SUCCESS) return (DLDevice){kDLCPU, 0};
    return (DLDevice){kDLCUDA, ordinal};
  }
  return type == CU_MEMORYTYPE_HOST ? (DLDevice){kDLCUDAHost, 0} : (DLDevice){kDLCPU, 0};
}

static dlx_status check_pointer(const dlx_view *v, const char *fn) {
  pthread_once(&once, load_driver);
  if (get_attribute == NULL || v->data == NULL) return DLX_OK;
  return dlx__device_label_check(v, driver_device(v->data), fn);
}

dlx_status dlx__device_label_check(const dlx_view *v, DLDevice found, const char *fn) {
  if (found.device_type == v->device.device_type && found.device_id == v->device.device_id) return DLX_OK;
  char said[DLX_DEVICE_TEXT_CAP], is[DLX_DEVICE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: the view says %s, but its data at 0x%" PRIxPTR " is %s%s", fn,
                       dlx__device_text(said, sizeof said, v->device), (uintptr_t)v->data,
                       found.device_type == kDLCPU ? "memory CUDA does not know, " : "on ",
                       dlx__device_text(is, sizeof is, found));
}

/* the driver's check for CUDA device and managed memory; no import rule */
static const dlx__device_hooks defaults = {DEV_BIT(kDLCUDA) | DEV_BIT(kDLCUDAManaged), 0, check_pointer, NULL};

dlx__device_hooks dlx__exchange_hooks = {DEV_BIT(kDLCUDA) | DEV_BIT(kDLCUDAManaged), 0, check_pointer, NULL};

void dlx__exchange_set_device_hooks(const dlx__device_hooks *hooks) { dlx__exchange_hooks = hooks != NULL ? *hooks : defaults; }

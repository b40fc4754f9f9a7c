/* The one place a backend is chosen by device type (see backend.h). */
#include <inttypes.h>
#include <stddef.h>

#include "backends/backend.h"
#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"
#include "core/view_internal.h"

#ifdef DLX_WITH_CUDA
#include "backends/cuda/cuda_internal.h"
#define CUDA_BACKEND &dlx__cuda_backend
#else
#define CUDA_BACKEND NULL
#endif

typedef struct backend_row {
  int32_t device_type;
  const dlx__backend *compute; /* computes on this memory; NULL: not in this build */
  const dlx__backend *memory;  /* allocates it; NULL: not in this build */
  const char *needs;          /* what a build needs for it, when a column is NULL */
  /* The device type's import rule, run on a non-empty import's data (dlx__device_check_import); NULL:
   * none. A property of the exchange protocol of the device type (the oneAPI USM protocol for kDLOneAPI), not of a
   * backend's table, whose entries every backend would then have to name. */
  dlx_status (*check_import)(const void *data, DLDevice device);
} backend_row;

/* Every DLPack device type. Host-accessible kinds compute on the CPU; pinned and managed memory are
 * allocated by the CUDA runtime. oneAPI USM computes through the oneAPI backend's compute table (the
 * CPU loops on host and shared USM, scratch memory in shared USM) and is allocated by its memory table
 * (device USM by default). A new backend fills its columns here. */
static const backend_row backend_rows[] = {
    {kDLCPU, &dlx__cpu_backend, &dlx__cpu_backend, NULL, NULL},
    {kDLCUDAHost, &dlx__cpu_backend, CUDA_BACKEND, "a build with CUDA (DLX_WITH_CUDA=ON)", NULL},
    {kDLCUDAManaged, &dlx__cpu_backend, CUDA_BACKEND, "a build with CUDA (DLX_WITH_CUDA=ON)", NULL},
    {kDLROCMHost, &dlx__cpu_backend, NULL, "a ROCm backend, which dlx does not have", NULL},
    {kDLCUDA, CUDA_BACKEND, CUDA_BACKEND, "a build with CUDA (DLX_WITH_CUDA=ON)", NULL},
    {kDLROCM, NULL, NULL, "a ROCm backend, which dlx does not have", NULL},
    {kDLOneAPI, &dlx__oneapi_backend, &dlx__oneapi_memory_backend, NULL, dlx__oneapi_check_import},
};

/* Every backend compiled in. */
static const dlx__backend *const backends[] = {
    &dlx__cpu_backend,
#ifdef DLX_WITH_CUDA
    &dlx__cuda_backend,
#endif
    &dlx__oneapi_backend, /* always built: dpctl's C API is loaded at run time */
};

int dlx__backend_count(void) { return (int)(sizeof backends / sizeof backends[0]); }

const dlx__backend *dlx__backend_at(int i) { return i >= 0 && i < dlx__backend_count() ? backends[i] : NULL; }

static const backend_row *row_of(int32_t device_type) {
  for (size_t i = 0; i < sizeof backend_rows / sizeof backend_rows[0]; ++i)
    if (backend_rows[i].device_type == device_type) return &backend_rows[i];
  return NULL;
}

static dlx_status no_backend(const backend_row *row, DLDevice device, const char *fn, const char *what) {
  char dev[DLX_DEVICE_TEXT_CAP];
  dlx__device_text(dev, sizeof dev, device);
  const char *needs = row != NULL ? row->needs : NULL;
  if (what != NULL) {
    if (needs != NULL)
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s, which needs %s", fn, what, dev, needs);
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s, and dlx has no backend for that memory", fn,
                         what, dev);
  }
  if (needs != NULL)
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: cannot allocate on %s, which needs %s", fn, dev, needs);
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: cannot allocate on %s: dlx has no backend for that memory",
                       fn, dev);
}

/* Tests only: the table that computes on host memory instead of the CPU backend, for the calling thread. */
static _Thread_local const dlx__backend *host_override;

const dlx__backend *dlx__backend_override_host(const dlx__backend *be) {
  const dlx__backend *was = host_override;
  host_override = be;
  return was;
}

dlx_status dlx__backend_compute(DLDevice device, const char *fn, const char *what, const dlx__backend **out,
                                DLDevice *home) {
  const backend_row *row = row_of((int32_t)device.device_type);
  if (row == NULL || row->compute == NULL) return no_backend(row, device, fn, what != NULL ? what : "an operand");
  *out = row->compute == &dlx__cpu_backend && host_override != NULL ? host_override : row->compute;
  /* all host-accessible memory is one address space to the CPU's loops */
  if (home != NULL) *home = row->compute == &dlx__cpu_backend ? (DLDevice){kDLCPU, 0} : device;
  return DLX_OK;
}

dlx_status dlx__backend_memory(DLDevice device, const char *fn, const dlx__backend **out) {
  const backend_row *row = row_of((int32_t)device.device_type);
  if (row == NULL || row->memory == NULL) return no_backend(row, device, fn, NULL);
  *out = row->memory;
  return DLX_OK;
}

dlx_status dlx__device_check_pointer(const dlx_view *v, const char *fn) {
  const backend_row *row = row_of((int32_t)v->device.device_type);
  /* without the runtime that owns this memory in the build, the label cannot be checked: it is kept */
  if (row == NULL || row->memory == NULL || row->memory->pointer_device == NULL || v->data == NULL) return DLX_OK;
  /* nor can it with no device present: the runtime knows no memory then */
  if (row->memory->device_count() == 0) return DLX_OK;
  DLDevice d;
  DLX_FORWARD(row->memory->pointer_device(v->data, &d));
  if (d.device_type == v->device.device_type && d.device_id == v->device.device_id) return DLX_OK;
  char said[DLX_DEVICE_TEXT_CAP], found[DLX_DEVICE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: the view says %s, but its data at 0x%" PRIxPTR " is %s%s", fn,
                       dlx__device_text(said, sizeof said, v->device), (uintptr_t)v->data,
                       d.device_type == kDLCPU ? "memory CUDA does not know, " : "on ",
                       dlx__device_text(found, sizeof found, d));
}

dlx_status dlx__device_check_import(const dlx_view *v) {
  const backend_row *row = row_of((int32_t)v->device.device_type);
  if (row == NULL || row->check_import == NULL || v->data == NULL) return DLX_OK;
  return row->check_import(v->data, v->device);
}

/* dlx.Tensor's DLPack 1.3 C exchange API: what a consumer in C calls instead of __dlpack__. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "dlx/cuda.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"

static int check_tensor(void *py_object) {
  if (!Py_IS_TYPE((PyObject *)py_object, &dlx__py_tensor_type)) {
    PyErr_Format(PyExc_TypeError, "expected a dlx.Tensor, got '%.100s'", Py_TYPE((PyObject *)py_object)->tp_name);
    return -1;
  }
  return 0;
}

static int x_allocator(DLTensor *proto, DLManagedTensorVersioned **out, void *error_ctx,
                       void (*set_error)(void *error_ctx, const char *kind, const char *message)) {
  const char *kind = "BufferError";
  char msg[256];
  if (proto == NULL || out == NULL) {
    kind = "ValueError";
    snprintf(msg, sizeof msg, "managed_tensor_allocator: prototype and out must not be NULL");
    goto fail;
  }
  /* The prototype's strides do not matter: the new tensor is compact row-major. dlx_view_init wants
   * non-NULL data for a non-empty view; a placeholder stands in until the allocation below. */
  dlx_view v;
  uint64_t nbytes = 0;
  dlx__storage *s = NULL;
  dlx_status st = dlx_view_init(&v, &v, proto->dtype, proto->device, proto->ndim, proto->shape, NULL);
  if (st == DLX_OK) st = dlx_dtype_storage_bytes(v.dtype, (uint64_t)dlx_view_size(&v), false, &nbytes);
  /* on the prototype's device, through the backend that owns its memory (or its error) */
  if (st == DLX_OK) st = dlx__storage_alloc(proto->device, nbytes, true, "managed_tensor_allocator", &s);
  if (st == DLX_OK) {
    v.data = s->ptr;
    st = dlx__export_versioned(s, &v, 0, "managed_tensor_allocator", out);
    dlx__storage_release(s); /* the export holds it now */
  }
  if (st != DLX_OK) {
    if (st == DLX_ERR_OUT_OF_MEMORY) kind = "MemoryError";
    snprintf(msg, sizeof msg, "%s", dlx_last_error());
    goto fail;
  }
  return 0;
fail:
  if (set_error) {
    set_error(error_ctx, kind, msg);
  } else {
    PyErr_SetString(strcmp(kind, "MemoryError") == 0 ? PyExc_MemoryError : PyExc_BufferError, msg);
  }
  return -1;
}

static int x_from_py(void *py_object, DLManagedTensorVersioned **out) {
  if (check_tensor(py_object) != 0) return -1;
  *out = dlx__py_export_versioned((dlx__py_tensor *)py_object, 0, NULL);
  return *out ? 0 : -1;
}

static int x_to_py(DLManagedTensorVersioned *tensor, void **out_py_object) {
  if (tensor == NULL) {
    PyErr_SetString(PyExc_BufferError, "managed_tensor_to_py_object_no_sync: tensor is NULL");
    return -1;
  }
  PyObject *t = dlx__py_import_versioned_owned(tensor, 0);
  if (t == NULL) return -1;
  *out_py_object = t;
  return 0;
}

static int x_dltensor_from_py(void *py_object, DLTensor *out) {
  if (check_tensor(py_object) != 0) return -1;
  dlx__py_tensor *t = py_object;
  /* non-owning: shape and strides point into the object, valid while the caller holds it */
  out->data = t->view.data;
  out->device = t->view.device;
  out->ndim = t->view.ndim;
  out->dtype = t->view.dtype;
  out->shape = t->view.shape;
  out->strides = t->view.strides;
  out->byte_offset = 0;
  return 0;
}

static int x_current_work_stream(DLDeviceType device_type, int32_t device_id, void **out_stream) {
  if (out_stream == NULL) {
    PyErr_SetString(PyExc_ValueError, "current_work_stream: out_stream must not be NULL");
    return -1;
  }
  /* host work has no stream; NULL is also the legacy default stream. Where dlx can queue no CUDA work (no
   * CUDA in the build, or no device) that is what its work is ordered by. */
  *out_stream = NULL;
  if ((device_type != kDLCUDA && device_type != kDLCUDAManaged) || dlx_cuda_device_count() == 0) return 0;
  /* dlx's current stream of the device on the calling thread (managed memory: device 0, its DLPack id) */
  dlx_status st = dlx_cuda_get_stream(device_type == kDLCUDAManaged ? 0 : device_id, out_stream);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    return -1;
  }
  return 0;
}

const DLPackExchangeAPI dlx__py_exchange_api = {
    {{DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR}, NULL},
    x_allocator,
    x_from_py,
    x_to_py,
    x_dltensor_from_py,
    x_current_work_stream,
};

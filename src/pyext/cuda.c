/* Devices and streams in the Python module: dlx._dlx._cuda (what python/dlx/cuda.py wraps), the parsing of
 * device= arguments, tensors on any device (dlx.empty(..., device=), Tensor.to), copies across devices
 * for from_dlpack(device=) and __dlpack__(dl_device=), the stream rules of __dlpack__(stream=), and
 * Tensor.record / Tensor.wait.
 *
 * Streams are cudaStream_t handles as Python ints (0: the legacy default stream). dlx's current stream
 * is per thread and per device (dlx_cuda_set_stream), so a `with dlx.cuda.stream(s)` in one thread does
 * not change another's. Everything here works in a build without CUDA and on machines without a GPU:
 * dlx.cuda.is_built() / device_count() say so, and what needs a device raises with the reason. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlx/cuda.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "pyext/oneapi.h"

/* CUDA's own handles for the default streams (cudaStreamLegacy, cudaStreamPerThread), which are also
 * DLPack's stream values 1 and 2. */
#define LEGACY_STREAM ((void *)(uintptr_t)1)
#define PER_THREAD_STREAM ((void *)(uintptr_t)2)

static int is_cuda_kind(DLDevice d) { return d.device_type == kDLCUDA || d.device_type == kDLCUDAManaged; }

/* The CUDA device whose streams order work on d (managed memory: 0, its DLPack id). */
static int32_t cuda_id_of(DLDevice d) { return d.device_type == kDLCUDAManaged ? 0 : d.device_id; }

/* ---- device= arguments ------------------------------------------------------------------------------ */

#define DEVICE_FORMS                                                                                     \
  "'cpu', 'cuda', 'cuda:N', 'cuda_host', 'cuda_managed', 'oneapi', 'oneapi:N', a (name, id) tuple such as " \
  "('cuda', 0), or a DLPack (device_type, device_id) tuple such as (2, 0)"

/* A device name ("cpu", "cuda", "cuda_host", "cuda_managed", "oneapi", with an optional ":N") into *out; id is the
 * id to use when the name has none (-1: none allowed). 0, or -1 with ValueError. */
static int parse_device_name(PyObject *name, long id, DLDevice *out) {
  Py_ssize_t len;
  const char *s = PyUnicode_AsUTF8AndSize(name, &len);
  if (s == NULL) return -1;
  static const struct {
    const char *name;
    int32_t type;
  } names[] = {{"cpu", kDLCPU},           {"cuda", kDLCUDA},
               {"cuda_host", kDLCUDAHost}, {"cuda_managed", kDLCUDAManaged},
               {"oneapi", kDLOneAPI}};
  const char *colon = memchr(s, ':', (size_t)len);
  const size_t head = colon ? (size_t)(colon - s) : (size_t)len;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (strlen(names[i].name) != head || strncmp(s, names[i].name, head) != 0) continue;
    long n = id < 0 ? 0 : id;
    if (colon) {
      /* "cuda:N": N a decimal number (no sign, no spaces), and no second id from a tuple */
      const char *p = colon + 1;
      if (*p == '\0' || id >= 0) goto bad;
      n = 0;
      for (; *p; ++p) {
        if (*p < '0' || *p > '9' || n > 100000000) goto bad;
        n = n * 10 + (*p - '0');
      }
    }
    *out = (DLDevice){(DLDeviceType)names[i].type, (int32_t)n};
    return 0;
  }
bad:
  PyErr_Format(PyExc_ValueError, "unknown device %R (expected " DEVICE_FORMS ")", name);
  return -1;
}

int dlx__py_parse_device(PyObject *o, DLDevice *out) {
  if (PyUnicode_Check(o)) return parse_device_name(o, -1, out);
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2 && PyLong_Check(PyTuple_GET_ITEM(o, 1))) {
    PyObject *a = PyTuple_GET_ITEM(o, 0);
    int overflow = 0;
    long id = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(o, 1), &overflow);
    if (id == -1 && PyErr_Occurred()) return -1;
    if (overflow || id < 0 || id > INT32_MAX) {
      PyErr_Format(PyExc_ValueError, "device id %S of %R is out of range", PyTuple_GET_ITEM(o, 1), o);
      return -1;
    }
    if (PyUnicode_Check(a)) return parse_device_name(a, id, out);
    if (PyLong_Check(a) && !PyBool_Check(a)) {
      long type = PyLong_AsLongAndOverflow(a, &overflow);
      if (type == -1 && PyErr_Occurred()) return -1;
      if (overflow || type < 1 || type > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "device type %S of %R is no DLPack device type", a, o);
        return -1;
      }
      *out = (DLDevice){(DLDeviceType)type, (int32_t)id};
      return 0;
    }
  }
  /* torch.device and the like: .type a name and .index an int or None */
  if (!PyTuple_Check(o) && !PyLong_Check(o) && PyObject_HasAttrString(o, "type") && PyObject_HasAttrString(o, "index")) {
    PyObject *type = PyObject_GetAttrString(o, "type"), *index = type ? PyObject_GetAttrString(o, "index") : NULL;
    int r = -2;
    if (index != NULL && PyUnicode_Check(type) && (index == Py_None || PyLong_Check(index))) {
      long id = index == Py_None ? -1 : PyLong_AsLong(index);
      r = id == -1 && PyErr_Occurred() ? -1 : parse_device_name(type, id < 0 ? 0 : id, out);
    }
    Py_XDECREF(type);
    Py_XDECREF(index);
    if (r != -2) return r;
    if (PyErr_Occurred()) return -1;
  }
  PyErr_Format(PyExc_TypeError, "device must be " DEVICE_FORMS ", not %.100s", Py_TYPE(o)->tp_name);
  return -1;
}

DLDevice dlx__py_home(DLDevice d) {
  /* host-accessible memory computes on the CPU, so results go to plain host memory */
  return dlx_device_is_host_accessible(d) ? (DLDevice){kDLCPU, 0} : d;
}

static int same_device(DLDevice a, DLDevice b) { return a.device_type == b.device_type && a.device_id == b.device_id; }

int dlx__py_is_on(DLDevice d, DLDevice want) {
  /* host-accessible memory (pinned, managed) already is where "cpu" is, as from_dlpack always took it */
  return same_device(d, want) ||
         (want.device_type == kDLCPU && want.device_id == 0 && dlx_device_is_host_accessible(d));
}

/* ---- tensors on a device ------------------------------------------------------------------------------ */

static PyObject *tensor_new(DLDevice device, const void *like, int32_t ndim, const int64_t *shape, DLDataType dt,
                            int zero) {
  dlx_view v;
  /* a placeholder data pointer until the size is known and the memory allocated */
  dlx_status st = dlx_view_init(&v, &v, dt, (DLDevice){kDLCPU, 0}, ndim, shape, NULL);
  uint64_t nbytes = 0;
  if (st == DLX_OK) st = dlx_dtype_storage_bytes(dt, (uint64_t)dlx_view_size(&v), false, &nbytes);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  dlx__storage *s = dlx__py_storage_alloc(device, like, nbytes, zero);
  if (s == NULL) return NULL;
  v.data = s->ptr;
  v.device = device;
  return dlx__py_tensor_wrap(s, &v, 0);
}

PyObject *dlx__py_tensor_new_on(DLDevice device, int32_t ndim, const int64_t *shape, DLDataType dt, int zero) {
  return tensor_new(device, NULL, ndim, shape, dt, zero);
}

PyObject *dlx__py_tensor_new_like(const dlx_view *like, int32_t ndim, const int64_t *shape, DLDataType dt) {
  return tensor_new(dlx__py_home(like->device), like->data, ndim, shape, dt, 0);
}

int dlx__py_copy_to(const dlx_view *src, DLDevice device, PyObject *exc, dlx__storage **out, dlx_view *out_view) {
  const bool padded = (src->flags & DLX_VIEW_SUBBYTE_PADDED) != 0;
  uint64_t bytes = 0;
  dlx__storage *s = NULL;
  dlx_view v;
  dlx_status st = dlx_dtype_storage_bytes(src->dtype, (uint64_t)dlx_view_size(src), padded, &bytes);
  /* a copy on the same device keeps src's kind of memory (oneAPI host and shared USM) */
  const void *like = same_device(device, src->device) ? src->data : NULL;
  if (st == DLX_OK) st = dlx__storage_alloc_like(device, like, bytes, false, "copy", &s);
  if (st == DLX_OK) st = dlx_view_init(&v, s->ptr, src->dtype, device, src->ndim, src->shape, NULL);
  if (st == DLX_OK) {
    if (padded) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
    /* across memory kinds through the device backend's copy; host buffers are done when it returns */
    DLX__PY_RUN_OP(st, dlx_view_size(src), dlx_copy(&v, src));
  }
  if (st != DLX_OK) {
    dlx__storage_release(s);
    dlx__py_raise(st, exc);
    return -1;
  }
  *out = s;
  *out_view = v;
  return 0;
}

PyObject *dlx__py_to_device(PyObject *obj, DLDevice device, int copy, PyObject *exc) {
  dlx__py_tensor *t = (dlx__py_tensor *)obj;
  DLDevice d = t->view.device;
  const int there = dlx__py_is_on(d, device);
  if (there && copy != 1) {
    Py_INCREF(obj);
    return obj;
  }
  if (!there && copy == 0)
    return PyErr_Format(PyExc_BufferError, "moving data from device (%d, %d) to (%d, %d) needs a copy, but copy=False",
                        (int)d.device_type, (int)d.device_id, (int)device.device_type, (int)device.device_id);
  dlx__storage *s;
  dlx_view v;
  if (dlx__py_copy_to(&t->view, device, exc, &s, &v) != 0) return NULL;
  return dlx__py_tensor_wrap(s, &v, 0);
}

/* Tensor.to(device, copy=False) */
PyObject *dlx__py_tensor_to(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"device", "copy", NULL};
  PyObject *device_obj;
  int copy = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$p:to", kw, &device_obj, &copy)) return NULL;
  DLDevice device;
  if (dlx__py_parse_device(device_obj, &device) != 0) return NULL;
  return dlx__py_to_device(self, device, copy ? 1 : -1, PyExc_ValueError);
}

/* ---- streams ------------------------------------------------------------------------------------------ */

/* A stream argument as a handle: an int (a cudaStream_t; 0 the legacy default stream), or an object with
 * a cuda_stream (dlx.cuda.Stream, torch.cuda.Stream) or ptr (cupy.cuda.Stream) attribute holding one.
 * 0, or -1 with TypeError / ValueError. */
static int stream_handle(PyObject *o, void **out) {
  PyObject *h = NULL;
  if (PyLong_Check(o)) {
    h = o;
    Py_INCREF(h);
  } else {
    static const char *const attrs[] = {"cuda_stream", "ptr"};
    for (int i = 0; i < 2 && h == NULL; ++i) {
      if (!PyObject_HasAttrString(o, attrs[i])) continue;
      if ((h = PyObject_GetAttrString(o, attrs[i])) == NULL) return -1;
      if (!PyLong_Check(h)) {
        PyErr_Format(PyExc_TypeError, "%.100s.%s is %.100s, not an int stream handle", Py_TYPE(o)->tp_name, attrs[i],
                     Py_TYPE(h)->tp_name);
        Py_DECREF(h);
        return -1;
      }
    }
    if (h == NULL) {
      PyErr_Format(PyExc_TypeError, "a stream must be an int cudaStream_t handle or an object with a 'cuda_stream' or "
                   "'ptr' attribute (dlx.cuda.Stream, torch.cuda.Stream, cupy.cuda.Stream), not %.100s",
                   Py_TYPE(o)->tp_name);
      return -1;
    }
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(h);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "stream handle %R is not a cudaStream_t (a pointer-sized unsigned int)", h);
    Py_DECREF(h);
    return -1;
  }
  Py_DECREF(h);
  *out = (void *)(uintptr_t)v;
  return 0;
}

/* For Tensor.record / wait: None is dlx's current stream (NULL to the C API), a handle 0 the legacy default
 * stream (CUDA's own handle for it, so that it does not read as "current"). */
static int stream_arg(PyObject *o, void **out) {
  *out = NULL;
  if (o == Py_None) return 0;
  if (stream_handle(o, out) != 0) return -1;
  if (*out == NULL) *out = LEGACY_STREAM;
  return 0;
}

/* The exception of a failed stream or event call. */
static PyObject *raise_runtime(dlx_status st) {
  return dlx__py_raise(st, st == DLX_ERR_INVALID_ARGUMENT ? PyExc_ValueError : PyExc_RuntimeError);
}

static PyObject *record_or_wait(PyObject *self, PyObject *args, PyObject *kwargs, int record) {
  static char *kw[] = {"stream", NULL};
  PyObject *stream_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, record ? "|O:record" : "|O:wait", kw, &stream_obj)) return NULL;
  void *stream;
  if (stream_arg(stream_obj, &stream) != 0) return NULL;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  dlx_status st = record ? dlx__storage_record(t->storage, t->view.device, stream, "Tensor.record")
                         : dlx__storage_wait(t->storage, t->view.device, stream, "Tensor.wait");
  if (st != DLX_OK) return raise_runtime(st);
  Py_INCREF(self);
  return self;
}

PyObject *dlx__py_tensor_record(PyObject *self, PyObject *args, PyObject *kwargs) {
  return record_or_wait(self, args, kwargs, 1);
}

PyObject *dlx__py_tensor_wait(PyObject *self, PyObject *args, PyObject *kwargs) {
  return record_or_wait(self, args, kwargs, 0);
}

/* ---- __dlpack__(stream=...) ------------------------------------------------------------------------- */

int dlx__py_dlpack_stream(PyObject *stream, DLDevice source, DLDevice target, void **consumer) {
  *consumer = NULL;
  const int dt = target.device_type;
  if (stream != Py_None && !PyLong_Check(stream)) {
    PyErr_Format(PyExc_TypeError, "stream must be an int or None, not %.100s", Py_TYPE(stream)->tp_name);
    return -1;
  }
  if (dt == kDLCPU || dt == kDLCUDAHost || dt == kDLROCMHost) {
    if (stream == Py_None) return 0;
    /* device memory copied to the host (dl_device): the consumer may name its stream on the source
     * device; the copy is done when __dlpack__ returns, so there is nothing to order */
    if (is_cuda_kind(source)) {
      const int r = dlx__py_dlpack_stream(stream, source, source, consumer);
      *consumer = NULL;
      return r < 0 ? -1 : 0;
    }
    PyErr_Format(PyExc_BufferError, "stream=%R given for host memory: only stream=None is allowed", stream);
    return -1;
  }
  if (stream == Py_None && !is_cuda_kind(target)) return 0;
  long long sv = 1; /* None: the legacy default stream, for CUDA */
  if (stream != Py_None) {
    int overflow = 0;
    sv = PyLong_AsLongLongAndOverflow(stream, &overflow);
    if (sv == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
      PyErr_Format(PyExc_ValueError, "stream=%R is out of the range of a stream handle", stream);
      return -1;
    }
  }
  if (dt == kDLROCM && (sv == 1 || sv == 2)) {
    PyErr_Format(PyExc_ValueError, "stream=%lld is not allowed for ROCm memory (use None or 0 for the default stream)",
                 sv);
    return -1;
  }
  if (!is_cuda_kind(target)) return 0; /* other devices: dlx queues no work there */
  /* The standard's stream values for CUDA: 0 is ambiguous between the legacy and per-thread default streams */
  if (sv == 0) {
    PyErr_SetString(PyExc_ValueError, "stream=0 is not allowed for CUDA memory (use 1 for the legacy default "
                    "stream, 2 for the per-thread default stream, or -1 for no synchronisation)");
    return -1;
  }
  if (sv < -1) {
    PyErr_Format(PyExc_ValueError, "stream=%lld is not a CUDA stream (1 legacy default, 2 per-thread default, a "
                 "cudaStream_t above 2, -1 no synchronisation)", sv);
    return -1;
  }
  /* -1: the consumer orders the work itself. Without a device dlx can have queued no work to order. */
  if (sv == -1 || dlx_cuda_device_count() == 0) return 0;
  /* 1 and 2 are cudaStreamLegacy and cudaStreamPerThread, CUDA's handles for the same streams */
  *consumer = (void *)(uintptr_t)sv;
  return 1;
}

int dlx__py_dlpack_sync(dlx__py_tensor *t, DLDevice target, int copied, void *consumer) {
  const int32_t id = cuda_id_of(target);
  void *producer = NULL;
  /* the consumer's stream waits for what dlx queued on its current stream (the copy, when one was made),
   * with an event: the host and the rest of the device go on */
  dlx_status st = dlx_cuda_get_stream(id, &producer);
  if (st == DLX_OK) st = dlx_cuda_stream_wait(id, consumer, producer);
  /* and for the last use recorded on the tensor (Tensor.record) */
  if (st == DLX_OK && !copied) st = dlx__storage_wait(t->storage, t->view.device, consumer, "__dlpack__");
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    return -1;
  }
  return 0;
}

/* dl_device= and copy= of __dlpack__: *target the export's device (t's unless dl_device moves it), *copy
 * set when a copy is needed. 0, or -1 with TypeError / BufferError. */
int dlx__py_dlpack_target(dlx__py_tensor *t, PyObject *dl_device, PyObject *copy_obj, int *copy, DLDevice *target) {
  *target = t->view.device;
  if (dl_device == Py_None) return 0;
  PyObject *a, *b;
  if (!PyTuple_Check(dl_device) || PyTuple_GET_SIZE(dl_device) != 2 || !PyLong_Check(a = PyTuple_GET_ITEM(dl_device, 0)) ||
      !PyLong_Check(b = PyTuple_GET_ITEM(dl_device, 1))) {
    PyErr_Format(PyExc_TypeError, "dl_device must be a tuple of two ints, not %R", dl_device);
    return -1;
  }
  const long dt = PyLong_AsLong(a), id = PyLong_AsLong(b);
  if (PyErr_Occurred()) return -1;
  if (dt == t->view.device.device_type && id == t->view.device.device_id) return 0;
  if (dt < 1 || dt > INT32_MAX || id < 0 || id > INT32_MAX) {
    PyErr_Format(PyExc_BufferError, "cannot export to dl_device (%ld, %ld): no such device", dt, id);
    return -1;
  }
  if (copy_obj == Py_False) {
    PyErr_Format(PyExc_BufferError, "exporting to dl_device (%ld, %ld) needs a copy, but copy=False", dt, id);
    return -1;
  }
  *target = (DLDevice){(DLDeviceType)dt, (int32_t)id};
  *copy = 1;
  return 0;
}

/* ---- dlx._dlx._cuda ----------------------------------------------------------------------------------- */

/* A device id argument: an int in [0, 2^31). -1 with an exception. */
static int device_id_arg(PyObject *o, int32_t *out) {
  if (!PyLong_Check(o) || PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "device must be an int, not %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow || v < 0 || v > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "device %R is not a CUDA device id (0, 1, ...)", o);
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

static PyObject *c_built(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return PyBool_FromLong(dlx_cuda_built());
}

static PyObject *c_device_count(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return PyLong_FromLong(dlx_cuda_device_count());
}

static PyObject *c_synchronize(PyObject *m, PyObject *arg) {
  (void)m;
  int32_t id;
  if (device_id_arg(arg, &id) != 0) return NULL;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_cuda_synchronize(id);
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_synchronize(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream;
  if (!PyArg_ParseTuple(args, "OO:stream_synchronize", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_cuda_stream_synchronize(id, stream);
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_empty_cache(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_cuda_empty_cache();
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_memory_stats(PyObject *m, PyObject *arg) {
  (void)m;
  int32_t id;
  if (device_id_arg(arg, &id) != 0) return NULL;
  dlx_cuda_memory_stats s;
  dlx_status st = dlx_cuda_memory_stats_get(id, &s);
  if (st != DLX_OK) return raise_runtime(st);
  return Py_BuildValue("{sKsKsKsK}", "allocated", (unsigned long long)s.allocated, "cached",
                       (unsigned long long)s.cached, "peak_allocated", (unsigned long long)s.peak_allocated,
                       "driver_allocs", (unsigned long long)s.driver_allocs);
}

static PyObject *c_get_stream(PyObject *m, PyObject *arg) {
  (void)m;
  int32_t id;
  if (device_id_arg(arg, &id) != 0) return NULL;
  void *stream = NULL;
  dlx_status st = dlx_cuda_get_stream(id, &stream);
  if (st != DLX_OK) return raise_runtime(st);
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_set_stream(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream, *previous = NULL;
  if (!PyArg_ParseTuple(args, "OO:set_stream", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st = dlx_cuda_set_stream(id, stream, &previous);
  if (st != DLX_OK) return raise_runtime(st);
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)previous);
}

static PyObject *c_stream_create(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev;
  int non_blocking = 1;
  int32_t id;
  if (!PyArg_ParseTuple(args, "O|p:stream_create", &dev, &non_blocking)) return NULL;
  if (device_id_arg(dev, &id) != 0) return NULL;
  void *stream = NULL;
  dlx_status st = dlx_cuda_stream_create(id, non_blocking, &stream);
  if (st != DLX_OK) return raise_runtime(st);
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_stream_destroy(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream;
  if (!PyArg_ParseTuple(args, "OO:stream_destroy", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st = dlx_cuda_stream_destroy(id, stream);
  if (st != DLX_OK) return raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_wait(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *waiter_obj, *producer_obj;
  int32_t id;
  void *waiter, *producer;
  if (!PyArg_ParseTuple(args, "OOO:stream_wait", &dev, &waiter_obj, &producer_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || stream_handle(waiter_obj, &waiter) != 0 ||
      stream_handle(producer_obj, &producer) != 0)
    return NULL;
  dlx_status st = dlx_cuda_stream_wait(id, waiter, producer);
  if (st != DLX_OK) return raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_handle(PyObject *m, PyObject *arg) {
  (void)m;
  void *stream;
  if (stream_handle(arg, &stream) != 0) return NULL;
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_pointer_device(PyObject *m, PyObject *arg) {
  (void)m;
  void *p = PyLong_AsVoidPtr(arg);
  if (p == NULL && PyErr_Occurred()) return NULL;
  DLDevice d;
  dlx_status st = dlx_cuda_pointer_device(p, &d);
  if (st != DLX_OK) return raise_runtime(st);
  return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

static PyObject *c_parse_device(PyObject *m, PyObject *arg) {
  (void)m;
  DLDevice d;
  if (dlx__py_parse_device(arg, &d) != 0) return NULL;
  return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

static PyMethodDef cuda_methods[] = {
    {"built", c_built, METH_NOARGS, "built() -> bool: whether this dlx has the CUDA backend"},
    {"device_count", c_device_count, METH_NOARGS, "device_count() -> int: CUDA devices present"},
    {"synchronize", c_synchronize, METH_O, "synchronize(device): wait for all work on the device"},
    {"stream_synchronize", c_stream_synchronize, METH_VARARGS, "stream_synchronize(device, stream)"},
    {"empty_cache", c_empty_cache, METH_NOARGS, "empty_cache(): cached device blocks back to the driver"},
    {"memory_stats", c_memory_stats, METH_O, "memory_stats(device) -> dict of the caching allocator's counters"},
    {"get_stream", c_get_stream, METH_O, "get_stream(device) -> int: this thread's current stream (0: legacy)"},
    {"set_stream", c_set_stream, METH_VARARGS, "set_stream(device, stream) -> int: the stream it replaces"},
    {"stream_create", c_stream_create, METH_VARARGS, "stream_create(device, non_blocking=True) -> int handle"},
    {"stream_destroy", c_stream_destroy, METH_VARARGS, "stream_destroy(device, stream)"},
    {"stream_wait", c_stream_wait, METH_VARARGS, "stream_wait(device, waiter, producer): an event between them"},
    {"stream_handle", c_stream_handle, METH_O, "stream_handle(obj) -> int: the cudaStream_t of an int or stream object"},
    {"pointer_device", c_pointer_device, METH_O, "pointer_device(address) -> (device_type, device_id)"},
    {"parse_device", c_parse_device, METH_O, "parse_device(device) -> (device_type, device_id)"},
    {NULL, NULL, 0, NULL},
};

int dlx__py_cuda_init(PyObject *module) {
  PyObject *sub = PyModule_New("dlx._dlx._cuda");
  if (sub == NULL) return -1;
  if (PyModule_AddFunctions(sub, cuda_methods) < 0 || PyModule_AddObject(module, "_cuda", sub) < 0) {
    Py_DECREF(sub);
    return -1;
  }
  return dlx__py_oneapi_init(module); /* dlx._dlx._oneapi, what dlx.oneapi wraps (oneapi.c) */
}

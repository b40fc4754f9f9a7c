/* Devices in the Python module: the parsing of device= arguments, where ops on a device put their
 * results, copies across devices (Tensor.to, from_dlpack(device=), __dlpack__(dl_device=),
 * dlx.asarray(device=)), and the stream arguments of Tensor.record / Tensor.wait.
 *
 * A stream argument is a cudaStream_t handle as a Python int (0: the legacy default stream) or a stream
 * object holding one; None means dlx's current stream of the device (cuda.c has the rest of streams).
 * Everything here works in a build without CUDA and on machines without a GPU: what needs a device
 * raises with the reason. */
#include "internal.h" /* Python.h first, as CPython requires */

#include "backends/backend.h"

#include <stdint.h>
#include <string.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* CUDA's own handles for the default streams (cudaStreamLegacy, cudaStreamPerThread), which are also
 * DLPack's stream values 1 and 2. */
#define LEGACY_STREAM ((void *)(uintptr_t)1)
#define PER_THREAD_STREAM ((void *)(uintptr_t)2)

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

/* ---- copies across devices ---------------------------------------------------------------------------- */

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
int dlx__py_stream_handle(PyObject *o, void **out) {
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
int dlx__py_queue(DLDevice d, const char *fn, dlx__queue *q) {
  if (!dlx__any_queue_present()) return 0;
  const dlx_status st = dlx__device_queue(d, fn, q);
  if (st == DLX_OK) return q->mem != NULL;
  if (st == DLX_ERR_UNSUPPORTED) { /* no streams for that memory: nothing dlx queued to order */
    dlx_clear_error();
    return 0;
  }
  dlx__py_raise(st, PyExc_BufferError);
  return -1;
}

static int stream_arg(PyObject *o, void **out) {
  *out = NULL;
  if (o == Py_None) return 0;
  if (dlx__py_stream_handle(o, out) != 0) return -1;
  if (*out == NULL) *out = LEGACY_STREAM;
  return 0;
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
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_INCREF(self);
  return self;
}

PyObject *dlx__py_tensor_record(PyObject *self, PyObject *args, PyObject *kwargs) {
  return record_or_wait(self, args, kwargs, 1);
}

PyObject *dlx__py_tensor_wait(PyObject *self, PyObject *args, PyObject *kwargs) {
  return record_or_wait(self, args, kwargs, 0);
}

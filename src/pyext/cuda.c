/* dlx._dlx._cuda: the C half of dlx.cuda (python/dlx/cuda.py), over dlx/cuda.h: devices, synchronisation,
 * the caching allocator's controls and counters, and streams.
 *
 * Streams are cudaStream_t handles as Python ints (0: the legacy default stream). dlx's current stream
 * is per thread and per device (dlx_cuda_set_stream), so a `with dlx.cuda.stream(s)` in one thread does
 * not change another's. Everything here works in a build without CUDA and on machines without a GPU:
 * dlx.cuda.is_built() / device_count() say so, and what needs a device raises with the reason. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdint.h>

#include "dlx/cuda.h"

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
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_synchronize(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream;
  if (!PyArg_ParseTuple(args, "OO:stream_synchronize", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || dlx__py_stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_cuda_stream_synchronize(id, stream);
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_empty_cache(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_cuda_empty_cache();
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_memory_stats(PyObject *m, PyObject *arg) {
  (void)m;
  int32_t id;
  if (device_id_arg(arg, &id) != 0) return NULL;
  dlx_cuda_memory_stats s;
  dlx_status st = dlx_cuda_memory_stats_get(id, &s);
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
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
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_set_stream(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream, *previous = NULL;
  if (!PyArg_ParseTuple(args, "OO:set_stream", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || dlx__py_stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st = dlx_cuda_set_stream(id, stream, &previous);
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
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
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_stream_destroy(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *stream_obj;
  int32_t id;
  void *stream;
  if (!PyArg_ParseTuple(args, "OO:stream_destroy", &dev, &stream_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || dlx__py_stream_handle(stream_obj, &stream) != 0) return NULL;
  dlx_status st = dlx_cuda_stream_destroy(id, stream);
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_wait(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dev, *waiter_obj, *producer_obj;
  int32_t id;
  void *waiter, *producer;
  if (!PyArg_ParseTuple(args, "OOO:stream_wait", &dev, &waiter_obj, &producer_obj)) return NULL;
  if (device_id_arg(dev, &id) != 0 || dlx__py_stream_handle(waiter_obj, &waiter) != 0 ||
      dlx__py_stream_handle(producer_obj, &producer) != 0)
    return NULL;
  dlx_status st = dlx_cuda_stream_wait(id, waiter, producer);
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
  Py_RETURN_NONE;
}

static PyObject *c_stream_handle(PyObject *m, PyObject *arg) {
  (void)m;
  void *stream;
  if (dlx__py_stream_handle(arg, &stream) != 0) return NULL;
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)stream);
}

static PyObject *c_pointer_device(PyObject *m, PyObject *arg) {
  (void)m;
  void *p = PyLong_AsVoidPtr(arg);
  if (p == NULL && PyErr_Occurred()) return NULL;
  DLDevice d;
  dlx_status st = dlx_cuda_pointer_device(p, &d);
  if (st != DLX_OK) return dlx__py_raise_runtime(st);
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
  return 0;
}

/* dlx._dlx._oneapi: the C half of dlx.oneapi (python/dlx/oneapi.py), over dlx/oneapi.h.
 *
 * dlx loads dpctl's C API (libDPCTLSyclInterface.so) at run time. oneapi.py finds the installed dpctl
 * package without importing it and, unless DLX_DPCTL_LIBRARY is set, points DLX_DPCTL_LIBRARY at the
 * package's copy, so the C library loads it lazily at the first kDLOneAPI need; load() here loads it now.
 * Device strings ("oneapi", "oneapi:N", (14, N)) are parsed with the others in device.c. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdint.h>
#include <string.h>

#include "dlx/oneapi.h"

static const char *const usm_names[] = {NULL, "device", "shared", "host"};

/* load(path: str) -> None: dlx_oneapi_load. ValueError naming the path and the reason. */
static PyObject *o_load(PyObject *m, PyObject *arg) {
  (void)m;
  if (!PyUnicode_Check(arg)) return PyErr_Format(PyExc_TypeError, "path must be a str, not %.100s", Py_TYPE(arg)->tp_name);
  const char *path = PyUnicode_AsUTF8(arg);
  if (path == NULL) return NULL;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_oneapi_load(path);
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  Py_RETURN_NONE;
}

static PyObject *o_device_count(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  int n;
  Py_BEGIN_ALLOW_THREADS n = dlx_oneapi_device_count();
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(n);
}

/* usm_kind(tensor) -> "device" | "shared" | "host" | None (None: not oneAPI memory). Errors of the
 * query (no library, a pointer the device's context does not know) raise. */
static PyObject *o_usm_kind(PyObject *m, PyObject *arg) {
  (void)m;
  if (!PyObject_TypeCheck(arg, &dlx__py_tensor_type))
    return PyErr_Format(PyExc_TypeError, "usm_kind: expected a dlx.Tensor, not %.100s", Py_TYPE(arg)->tp_name);
  const dlx_view *v = &((dlx__py_tensor *)arg)->view;
  if (v->device.device_type != kDLOneAPI) Py_RETURN_NONE;
  dlx_oneapi_usm kind = DLX_ONEAPI_USM_UNKNOWN;
  dlx_status st;
  Py_BEGIN_ALLOW_THREADS st = dlx_oneapi_usm_kind(v->data, v->device.device_id, &kind);
  Py_END_ALLOW_THREADS
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_RuntimeError);
  if (kind < DLX_ONEAPI_USM_DEVICE || kind > DLX_ONEAPI_USM_HOST)
    return PyErr_Format(PyExc_RuntimeError, "usm_kind: dpctl reports USM kind %d", (int)kind);
  return PyUnicode_FromString(usm_names[kind]);
}

/* set_alloc_kind(kind: str) -> str: the kind it replaces. */
static PyObject *o_set_alloc_kind(PyObject *m, PyObject *arg) {
  (void)m;
  if (!PyUnicode_Check(arg))
    return PyErr_Format(PyExc_TypeError, "kind must be 'device', 'shared' or 'host', not %.100s", Py_TYPE(arg)->tp_name);
  const char *s = PyUnicode_AsUTF8(arg);
  if (s == NULL) return NULL;
  int kind = 0;
  for (int k = DLX_ONEAPI_USM_DEVICE; k <= DLX_ONEAPI_USM_HOST; ++k)
    if (strcmp(s, usm_names[k]) == 0) kind = k;
  if (kind == 0) return PyErr_Format(PyExc_ValueError, "USM kind %R is not 'device', 'shared' or 'host'", arg);
  dlx_oneapi_usm previous = DLX_ONEAPI_USM_DEVICE;
  dlx_status st = dlx_oneapi_set_alloc_kind((dlx_oneapi_usm)kind, &previous);
  if (st != DLX_OK) return dlx__py_raise(st, PyExc_ValueError);
  if (previous < DLX_ONEAPI_USM_DEVICE || previous > DLX_ONEAPI_USM_HOST) previous = DLX_ONEAPI_USM_DEVICE;
  return PyUnicode_FromString(usm_names[previous]);
}

static PyMethodDef oneapi_methods[] = {
    {"load", o_load, METH_O, "load(path): load dpctl's C API (libDPCTLSyclInterface.so) from path"},
    {"device_count", o_device_count, METH_NOARGS, "device_count() -> int: SYCL root devices (0 without the library)"},
    {"usm_kind", o_usm_kind, METH_O, "usm_kind(tensor) -> 'device' | 'shared' | 'host' | None"},
    {"set_alloc_kind", o_set_alloc_kind, METH_O, "set_alloc_kind(kind) -> str: the USM kind it replaces"},
    {NULL, NULL, 0, NULL},
};

int dlx__py_oneapi_init(PyObject *module) {
  PyObject *sub = PyModule_New("dlx._dlx._oneapi");
  if (sub == NULL) return -1;
  if (PyModule_AddFunctions(sub, oneapi_methods) < 0 || PyModule_AddObject(module, "_oneapi", sub) < 0) {
    Py_DECREF(sub);
    return -1;
  }
  return 0;
}

/* dlx._testing: producer capsules with counting deleters, for the ownership tests. Real code paths:
 * the capsules are ordinary DLPack producers written in C, like any extension's. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dlx/dtype.h"
#include "dlx/layout.h"

static atomic_long deleter_calls;

/* One block: the managed struct, shape, strides, then the data buffer. */
typedef struct test_block {
  union {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
  } m;
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_MAX_NDIM];
  _Alignas(64) unsigned char data[];
} test_block;

static void test_deleter_v(DLManagedTensorVersioned *m) {
  atomic_fetch_add(&deleter_calls, 1);
  free(m);
}
static void test_deleter_l(DLManagedTensor *m) {
  atomic_fetch_add(&deleter_calls, 1);
  free(m);
}

static void cap_destroy_v(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (m->deleter) m->deleter(m);
    else free(m); /* a NULL deleter: the test still frees its block so nothing leaks */
  }
}
static void cap_destroy_l(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (m->deleter) m->deleter(m);
    else free(m);
  }
}

/* shape= of make_capsule into shape[*ndim]. -1 + exception. */
static int capsule_shape(PyObject *obj, int64_t *shape, Py_ssize_t *ndim) {
  PyObject *shape_seq = PySequence_Fast(obj, "shape must be a sequence");
  if (shape_seq == NULL) return -1;
  *ndim = PySequence_Fast_GET_SIZE(shape_seq);
  if (*ndim > DLX_MAX_NDIM) {
    Py_DECREF(shape_seq);
    PyErr_Format(PyExc_ValueError, "too many dimensions");
    return -1;
  }
  for (Py_ssize_t i = 0; i < *ndim; ++i) shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(shape_seq, i));
  Py_DECREF(shape_seq);
  return PyErr_Occurred() ? -1 : 0;
}

/* strides= of make_capsule into strides[ndim] (None: compact row-major), and *count raised to the
 * elements the strides reach. -1 + exception. */
static int capsule_strides(PyObject *obj, const int64_t *shape, Py_ssize_t ndim, int64_t *strides, int64_t *count) {
  if (obj == Py_None) {
    int64_t s = 1;
    for (Py_ssize_t i = ndim - 1; i >= 0; --i) {
      strides[i] = s;
      s *= shape[i] > 0 ? shape[i] : 1;
    }
    return 0;
  }
  PyObject *sseq = PySequence_Fast(obj, "strides must be a sequence");
  if (sseq == NULL) return -1;
  if (PySequence_Fast_GET_SIZE(sseq) != ndim) {
    Py_DECREF(sseq);
    PyErr_Format(PyExc_ValueError, "strides must have ndim entries");
    return -1;
  }
  for (Py_ssize_t i = 0; i < ndim; ++i) strides[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(sseq, i));
  Py_DECREF(sseq);
  if (PyErr_Occurred()) return -1;
  /* elements the strides reach; a span past int64 (a test of dlx refusing it) gets no more memory:
   * dlx must refuse the tensor before it touches any */
  uint64_t span = 1;
  bool huge = false;
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    if (shape[i] <= 0) continue;
    const uint64_t st = strides[i] < 0 ? (uint64_t)0 - (uint64_t)strides[i] : (uint64_t)strides[i];
    uint64_t step;
    huge |= __builtin_mul_overflow((uint64_t)(shape[i] - 1), st, &step) || __builtin_add_overflow(span, step, &span);
  }
  if (!huge && span <= (uint64_t)INT64_MAX && (int64_t)span > *count) *count = (int64_t)span;
  return 0;
}

/* The capsule of b's managed tensor, versioned or legacy (b is freed when it cannot be made). */
static PyObject *capsule_of(test_block *b, int versioned, PyObject *version_obj, int readonly, int null_deleter) {
  if (versioned) {
    unsigned major = 1, minor = 3;
    if (version_obj != Py_None && !PyArg_ParseTuple(version_obj, "II", &major, &minor)) {
      free(b);
      return NULL;
    }
    b->m.v.version.major = major;
    b->m.v.version.minor = minor;
    b->m.v.manager_ctx = NULL;
    b->m.v.deleter = null_deleter ? NULL : test_deleter_v;
    b->m.v.flags = readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    PyObject *cap = PyCapsule_New(&b->m.v, "dltensor_versioned", cap_destroy_v);
    if (cap == NULL) free(b);
    return cap;
  }
  b->m.l.manager_ctx = NULL;
  b->m.l.deleter = null_deleter ? NULL : test_deleter_l;
  PyObject *cap = PyCapsule_New(&b->m.l, "dltensor", cap_destroy_l);
  if (cap == NULL) free(b);
  return cap;
}

static PyObject *make_capsule(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kw[] = {"shape", "dtype", "strides", "versioned", "version", "readonly", "byte_offset", "null_data",
                       "null_strides", "device", "null_deleter", "dtype_code", NULL};
  PyObject *shape_obj, *strides_obj = Py_None, *version_obj = Py_None, *device_obj = Py_None, *code_obj = Py_None;
  const char *dtype_name = "float32";
  int versioned = 1, readonly = 0, null_data = 0, null_strides = 0, null_deleter = 0;
  unsigned long long byte_offset = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s$OpOpKppOpO:make_capsule", kw, &shape_obj, &dtype_name,
                                   &strides_obj, &versioned, &version_obj, &readonly, &byte_offset, &null_data,
                                   &null_strides, &device_obj, &null_deleter, &code_obj))
    return NULL;
  Py_ssize_t ndim;
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
  if (capsule_shape(shape_obj, shape, &ndim) != 0) return NULL;
  DLDataType dt;
  if (code_obj != Py_None) { /* a raw (code, bits, lanes), possibly illegal */
    unsigned c, b, l;
    if (!PyArg_ParseTuple(code_obj, "III", &c, &b, &l)) return NULL;
    dt = DLX_DTYPE_MAKE(c, b, l);
  } else if (dlx_dtype_parse(dtype_name, &dt) != DLX_OK) {
    return PyErr_Format(PyExc_ValueError, "%s", dlx_last_error());
  }
  /* buffer: the span of the compact layout (or of the given strides), plus the byte offset */
  int64_t count = 1;
  for (Py_ssize_t i = 0; i < ndim; ++i) count *= shape[i] > 0 ? shape[i] : 0;
  if (capsule_strides(strides_obj, shape, ndim, strides, &count) != 0) return NULL;
  size_t item = dlx_dtype_itemsize(dt) ? dlx_dtype_itemsize(dt) : 1;
  size_t nbytes = (size_t)count * item + (size_t)byte_offset + 64;
  test_block *b = calloc(1, sizeof(test_block) + nbytes);
  if (b == NULL) return PyErr_NoMemory();
  memcpy(b->shape, shape, sizeof(int64_t) * (size_t)ndim);
  memcpy(b->strides, strides, sizeof(int64_t) * (size_t)ndim);
  DLTensor *t = versioned ? &b->m.v.dl_tensor : &b->m.l.dl_tensor;
  t->data = null_data ? NULL : b->data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  if (device_obj != Py_None) {
    int dtp, did;
    if (!PyArg_ParseTuple(device_obj, "ii", &dtp, &did)) {
      free(b);
      return NULL;
    }
    t->device.device_type = (DLDeviceType)dtp;
    t->device.device_id = did;
  }
  t->ndim = (int32_t)ndim;
  t->dtype = dt;
  t->shape = b->shape;
  t->strides = null_strides ? NULL : b->strides;
  t->byte_offset = byte_offset;
  return capsule_of(b, versioned, version_obj, readonly, null_deleter);
}

static PyObject *get_deleter_calls(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLong(atomic_load(&deleter_calls));
}

static PyObject *get_exported_alive(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLongLong(dlx__exports_alive());
}

/* Run the exchange API's allocator from C, as a C consumer would (for tests). */
static PyObject *exchange_allocate(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *shape_obj;
  const char *dtype_name;
  int device_type = kDLCPU;
  if (!PyArg_ParseTuple(args, "Os|i", &shape_obj, &dtype_name, &device_type)) return NULL;
  PyObject *seq = PySequence_Fast(shape_obj, "shape must be a sequence");
  if (seq == NULL) return NULL;
  int64_t shape[DLX_MAX_NDIM];
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n && i < DLX_MAX_NDIM; ++i) shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  if (PyErr_Occurred()) return NULL;
  DLTensor proto = {0};
  if (dlx_dtype_parse(dtype_name, &proto.dtype) != DLX_OK) return PyErr_Format(PyExc_ValueError, "%s", dlx_last_error());
  proto.device.device_type = (DLDeviceType)device_type;
  proto.ndim = (int32_t)n;
  proto.shape = shape;
  DLManagedTensorVersioned *m = NULL;
  if (dlx__py_exchange_api.managed_tensor_allocator(&proto, &m, NULL, NULL) != 0) return NULL;
  void *out = NULL;
  if (dlx__py_exchange_api.managed_tensor_to_py_object_no_sync(m, &out) != 0) return NULL;
  return out;
}

/* ns per tensor for a C consumer of obj's exchange API, by mode:
 *   "managed"  (default) export through the producer's table, validate with dlx_view_from_managed_versioned,
 *              run the deleter: what dlx.from_dlpack does below its Python call;
 *   "export"   the producer's share of that: its export and its deleter, nothing of dlx's;
 *   "view"     dlx_py_view and dlx_py_release (dlx/python.h): what an extension on dlx's C API pays
 *              (PyTorch's borrowed DLTensor where it offers one, with the refusal checks);
 *   "dltensor" the producer's share of that: its dltensor_from_py_object_no_sync alone.
 * bench/bench_python.py reports them beside the Python-level calls. */
static PyObject *exchange_import_ns(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *obj;
  long n;
  const char *mode = "managed";
  if (!PyArg_ParseTuple(args, "Ol|s", &obj, &n, &mode)) return NULL;
  const int m_managed = strcmp(mode, "managed") == 0, m_export = strcmp(mode, "export") == 0,
            m_view = strcmp(mode, "view") == 0, m_dltensor = strcmp(mode, "dltensor") == 0;
  if (!(m_managed || m_export || m_view || m_dltensor))
    return PyErr_Format(PyExc_ValueError, "mode '%s': one of managed, export, view, dltensor", mode);
  const DLPackExchangeAPI *api = dlx__py_lookup_exchange_api(Py_TYPE(obj));
  if (api == NULL && !m_view)
    return PyErr_Format(PyExc_TypeError, "'%.100s' has no DLPack C exchange API", Py_TYPE(obj)->tp_name);
  if (m_dltensor && api->dltensor_from_py_object_no_sync == NULL)
    return PyErr_Format(PyExc_TypeError, "'%.100s' has no dltensor_from_py_object_no_sync", Py_TYPE(obj)->tp_name);
  dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i) {
    if (m_view) {
      dlx_view v;
      PyObject *h = NULL;
      if (dlx__py_capi_view_from_object(obj, &spec, &v, &h) != 0) return NULL;
      Py_DECREF(h);
      continue;
    }
    if (m_dltensor) {
      DLTensor dl;
      if (api->dltensor_from_py_object_no_sync(obj, &dl) != 0) return NULL;
      continue;
    }
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) return NULL;
    dlx_status st = DLX_OK;
    if (m_managed) {
      dlx_view v;
      st = dlx_view_from_managed_versioned(&v, m, &spec);
    }
    if (m->deleter) m->deleter(m);
    if (st != DLX_OK) return PyErr_Format(PyExc_BufferError, "%s", dlx_last_error());
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
  return PyFloat_FromDouble(n > 0 ? ns / (double)n : 0.0);
}

/* ---- the fast paths, for tests that compare them with the general ones ------------------------------ */

/* set_ndarray_path(mode) -> the previous mode: how dlx.from_dlpack reads an exact numpy.ndarray, 0
 * through __dlpack__ like any other producer, 2 (the default) through its fields where NumPy's ABI is 2.x,
 * else through __dlpack__. */
static PyObject *set_ndarray_path(PyObject *self, PyObject *arg) {
  (void)self;
  const long mode = PyLong_AsLong(arg);
  if (mode == -1 && PyErr_Occurred()) return NULL;
  if (mode != DLX__PY_NDARRAY_OFF && mode != DLX__PY_NDARRAY_AUTO)
    return PyErr_Format(PyExc_ValueError, "mode %ld", mode);
  const int was = dlx__py_ndarray_path;
  dlx__py_ndarray_path = (int)mode;
  return PyLong_FromLong(was);
}

/* (ndarray imports without __dlpack__, dlx_py_view calls through a producer's borrowed DLTensor) so far */
static PyObject *fast_path_counts(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("(ll)", dlx__py_ndarray_path_hits, dlx__py_borrowed_views);
}

/* capi_view(obj, ndim=-1) -> dict: what dlx_py_view (the C API of dlx/python.h) gives a C extension for
 * obj under an any-dtype, any-layout spec: data, shape, strides, dtype, flags, device and the handle's
 * type; the handle is released before returning. */
static PyObject *capi_view(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *obj;
  int ndim = DLX_NDIM_ANY;
  if (!PyArg_ParseTuple(args, "O|i", &obj, &ndim)) return NULL;
  dlx_import_spec spec = {DLX_DTYPE_ANY, ndim, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 0};
  dlx_view v;
  PyObject *handle = NULL;
  if (dlx__py_capi_view_from_object(obj, &spec, &v, &handle) != 0) return NULL;
  PyObject *shape = PyTuple_New(v.ndim), *strides = PyTuple_New(v.ndim), *r = NULL;
  for (int32_t i = 0; shape && strides && i < v.ndim; ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(v.shape[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(v.strides[i]));
  }
  char dt[DLX_DTYPE_NAME_MAX];
  if (shape && strides && !PyErr_Occurred() && dlx_dtype_format(v.dtype, dt, sizeof dt) == DLX_OK)
    r = Py_BuildValue("{s:K,s:O,s:O,s:s,s:I,s:(ii),s:s}", "data", (unsigned long long)(uintptr_t)v.data, "shape",
                      shape, "strides", strides, "dtype", dt, "flags", (unsigned)v.flags, "device",
                      (int)v.device.device_type, (int)v.device.device_id, "handle", Py_TYPE(handle)->tp_name);
  else if (!PyErr_Occurred())
    PyErr_SetString(PyExc_ValueError, dlx_last_error());
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_DECREF(handle);
  return r;
}

/* ---- deleters after finalization ------------------------------------------------------------------ */

/* Managed tensors whose deleters run on a C thread after Py_FinalizeEx has returned (DLPack edge case 8:
 * a consumer may release a tensor long after the interpreter is gone). The thread is started and
 * joined from a C atexit handler, which runs in exit() once Python's main has finalized. */
#define LATE_MAX 64
static DLManagedTensorVersioned *late_tensors[LATE_MAX];
static atomic_int late_count;
static int late_deleted;

static void *late_thread(void *arg) {
  (void)arg;
  int n = atomic_load(&late_count);
  for (int i = 0; i < n && i < LATE_MAX; ++i) {
    DLManagedTensorVersioned *m = late_tensors[i];
    if (m != NULL && m->deleter != NULL) {
      m->deleter(m);
      ++late_deleted;
    }
  }
  return NULL;
}

static void run_late_deleters(void) {
  int initialized = Py_IsInitialized();
  pthread_t th;
  if (pthread_create(&th, NULL, late_thread, NULL) == 0) pthread_join(th, NULL);
  /* Python's streams are gone: report with write(2) for the test that started the process */
  char msg[160];
  int len = snprintf(msg, sizeof msg,
                     "dlx._testing: %d deleter(s) ran on a C thread after finalization (Py_IsInitialized %d, "
                     "exported alive %ld)\n",
                     late_deleted, initialized, (long)dlx__exports_alive());
  if (len > 0) {
    ssize_t w = write(2, msg, (size_t)len);
    (void)w;
  }
}

static PyObject *delete_after_finalize(PyObject *self, PyObject *arg) {
  (void)self;
  void *p = PyLong_AsVoidPtr(arg);
  if (p == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a managed tensor address, not 0");
    return NULL;
  }
  int i = atomic_load(&late_count);
  if (i >= LATE_MAX) return PyErr_Format(PyExc_OverflowError, "at most %d tensors", LATE_MAX);
  if (i == 0 && atexit(run_late_deleters) != 0) return PyErr_Format(PyExc_RuntimeError, "atexit refused");
  late_tensors[i] = p;
  atomic_store(&late_count, i + 1);
  Py_RETURN_NONE;
}

/* ---- the C creation ops (dlx/ops.h), for test_creation.py to hold against NumPy ------------------- */

/* A Tensor argument's view (writable, as the ops check). NULL + TypeError. */
static const dlx_view *tensor_arg(PyObject *o) {
  if (!dlx__py_is_tensor(o)) {
    PyErr_SetString(PyExc_TypeError, "expected a dlx.Tensor");
    return NULL;
  }
  return &((dlx__py_tensor *)o)->view;
}

static PyObject *status_result(dlx_status st) {
  if (st != DLX_OK) return dlx__py_raise_op(st);
  Py_RETURN_NONE;
}

/* Whether every item of args from index `from` on is a Python int (then the C function of ints runs). */
static int all_ints(PyObject *args, Py_ssize_t from) {
  for (Py_ssize_t i = from; i < PyTuple_GET_SIZE(args); ++i)
    if (!PyLong_Check(PyTuple_GET_ITEM(args, i))) return 0;
  return 1;
}

static PyObject *arange_c(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *out;
  double start, step;
  long long istart, istep;
  const dlx_view *v;
  if (all_ints(args, 1)) {
    if (!PyArg_ParseTuple(args, "OLL:arange_c", &out, &istart, &istep) || (v = tensor_arg(out)) == NULL) return NULL;
    return status_result(dlx_arange_int(v, istart, istep));
  }
  if (!PyArg_ParseTuple(args, "Odd:arange_c", &out, &start, &step) || (v = tensor_arg(out)) == NULL) return NULL;
  return status_result(dlx_arange(v, start, step));
}

static PyObject *arange_length(PyObject *self, PyObject *args) {
  (void)self;
  double start, stop, step;
  long long istart, istop, istep;
  int64_t n = 0;
  dlx_status st;
  if (all_ints(args, 0)) {
    if (!PyArg_ParseTuple(args, "LLL:arange_length", &istart, &istop, &istep)) return NULL;
    st = dlx_arange_length_int(istart, istop, istep, &n);
  } else {
    if (!PyArg_ParseTuple(args, "ddd:arange_length", &start, &stop, &step)) return NULL;
    st = dlx_arange_length(start, stop, step, &n);
  }
  if (st != DLX_OK) return dlx__py_raise_op(st);
  return PyLong_FromLongLong(n);
}

static PyObject *eye_c(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *out;
  long long k;
  const dlx_view *v;
  if (!PyArg_ParseTuple(args, "OL:eye_c", &out, &k) || (v = tensor_arg(out)) == NULL) return NULL;
  return status_result(dlx_eye(v, k));
}

static PyMethodDef testing_methods[] = {
    {"exchange_import_ns", exchange_import_ns, METH_VARARGS,
     "exchange_import_ns(obj, n, mode='managed') -> ns per tensor of a C consumer of obj's exchange API "
     "(managed: export, validate, delete; export: the producer's share; view: dlx_py_view + release; dltensor: "
     "the producer's borrowed DLTensor alone)"},
    {"make_capsule", (PyCFunction)(void (*)(void))make_capsule, METH_VARARGS | METH_KEYWORDS,
     "make_capsule(shape, dtype='float32', *, strides=None, versioned=True, version=(1, 3), readonly=False, "
     "byte_offset=0, null_data=False, null_strides=False, device=(1, 0), null_deleter=False, dtype_code=None)"},
    {"deleter_calls", get_deleter_calls, METH_NOARGS, "calls of make_capsule deleters so far"},
    {"exported_alive", get_exported_alive, METH_NOARGS, "managed tensors dlx exported and not yet deleted"},
    {"delete_after_finalize", delete_after_finalize, METH_O,
     "delete_after_finalize(address): run this DLManagedTensorVersioned's deleter on a C thread after "
     "the interpreter has finalized (the caller owns the tensor and gives it up)"},
    {"set_ndarray_path", set_ndarray_path, METH_O,
     "set_ndarray_path(mode) -> previous: dlx.from_dlpack of an exact numpy.ndarray through __dlpack__ (0), its "
     "buffer (1), or its fields where NumPy's ABI is known (2, the default)"},
    {"fast_path_counts", fast_path_counts, METH_NOARGS,
     "fast_path_counts() -> (ndarray imports without __dlpack__, dlx_py_view calls on a borrowed DLTensor)"},
    {"capi_view", capi_view, METH_VARARGS,
     "capi_view(obj, ndim=-1) -> dict of the view dlx_py_view gives a C extension (handle released)"},
    {"exchange_allocate", exchange_allocate, METH_VARARGS,
     "exchange_allocate(shape, dtype, device_type=1): the C exchange API's allocator, called from C"},
    {"arange_c", arange_c, METH_VARARGS,
     "arange_c(out, start, step): dlx_arange_int when both are ints (C long long), else dlx_arange (doubles)"},
    {"arange_length", arange_length, METH_VARARGS,
     "arange_length(start, stop, step) -> dlx_arange_length_int when all are ints, else dlx_arange_length"},
    {"eye_c", eye_c, METH_VARARGS, "eye_c(out, k): dlx_eye on the tensor's view (any strides)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef testing_def = {
    PyModuleDef_HEAD_INIT, "dlx._testing", "Test hooks of dlx (producer capsules with counting deleters).", -1,
    testing_methods, NULL, NULL, NULL, NULL,
};

int dlx__py_testing_init(PyObject *module) {
  PyObject *t = PyModule_Create(&testing_def);
  if (t == NULL) return -1;
  if (PyModule_AddObject(module, "_testing", t) < 0) {
    Py_DECREF(t);
    return -1;
  }
  return 0;
}

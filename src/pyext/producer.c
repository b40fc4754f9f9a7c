/* The producer side of DLPack: dlx.Tensor's __dlpack__ and __dlpack_device__, with the rules of their
 * stream=, dl_device= and copy= arguments, the managed tensors they export, and the DLPack 1.3 C exchange
 * API table (what a consumer in C calls instead of __dlpack__).
 *
 * Which memory is ordered by which device's streams, and which stream= values the standard allows for it,
 * are the device interface's (src/backends/backend.h: dlx__dlpack_stream, dlx__device_queue): nothing here
 * knows a device type. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"

/* ---- exports ---------------------------------------------------------------------------------------- */

/* Source of an export: the tensor's own storage, or a fresh compact copy, on target when given (one new
 * reference either way). */
static int export_source(dlx__py_tensor *t, int copy, const DLDevice *target, dlx__storage **s, dlx_view *v) {
  if (copy && target != NULL) return dlx__py_copy_to(&t->view, *target, PyExc_BufferError, s, v);
  if (copy) return dlx__py_copy_compact(&t->view, s, v);
  *s = dlx__storage_retain(t->storage);
  *v = t->view;
  return 0;
}

/* t as a versioned managed tensor in one allocation (struct, shape, strides). With copy set, the data is
 * first copied into new compact storage (on *target when not NULL, else on t's device, cpu for
 * host-accessible memory) and IS_COPIED is flagged. NULL + exception. */
static DLManagedTensorVersioned *export_versioned(dlx__py_tensor *t, int copy, const DLDevice *target) {
  DLManagedTensorVersioned *m = NULL;
  if (!copy) {
    /* the export takes its own reference to the tensor's storage: no retain / release pair around it */
    dlx_status st = dlx__export_versioned(t->storage, &t->view, 0, "__dlpack__", &m);
    return st == DLX_OK ? m : (DLManagedTensorVersioned *)dlx__py_raise(st, PyExc_BufferError);
  }
  dlx__storage *s;
  dlx_view v;
  if (export_source(t, copy, target, &s, &v) != 0) return NULL;
  dlx_status st = dlx__export_versioned(s, &v, copy ? DLPACK_FLAG_BITMASK_IS_COPIED : 0, "__dlpack__", &m);
  dlx__storage_release(s); /* the export holds its own reference */
  if (st != DLX_OK) return (DLManagedTensorVersioned *)dlx__py_raise(st, PyExc_BufferError);
  return m;
}

/* The same as a legacy DLManagedTensor (refused for read-only and padded sub-byte data). */
static DLManagedTensor *export_legacy(dlx__py_tensor *t, int copy, const DLDevice *target) {
  if ((t->view.flags & DLX_VIEW_READ_ONLY) && !copy) {
    /* a legacy capsule has no READ_ONLY flag: the consumer would be free to write (NumPy refuses too) */
    PyErr_SetString(PyExc_BufferError,
                    "cannot export read-only data as a legacy DLPack capsule (it has no read-only flag); "
                    "pass max_version=(1, 0) or later");
    return NULL;
  }
  if ((t->view.flags & DLX_VIEW_SUBBYTE_PADDED)) {
    PyErr_SetString(PyExc_BufferError, "cannot export padded sub-byte data as a legacy DLPack capsule");
    return NULL;
  }
  DLManagedTensor *m = NULL;
  if (!copy) {
    /* as export_versioned: the export takes its own reference */
    dlx_status st = dlx__export_legacy(t->storage, &t->view, "__dlpack__", &m);
    return st == DLX_OK ? m : (DLManagedTensor *)dlx__py_raise(st, PyExc_BufferError);
  }
  dlx__storage *s;
  dlx_view v;
  if (export_source(t, copy, target, &s, &v) != 0) return NULL;
  dlx_status st = dlx__export_legacy(s, &v, "__dlpack__", &m);
  dlx__storage_release(s);
  if (st != DLX_OK) return (DLManagedTensor *)dlx__py_raise(st, PyExc_BufferError);
  return m;
}

/* ---- __dlpack__(stream=...) ------------------------------------------------------------------------- */

/* __dlpack__'s stream= for an export of memory on source to target: 1 with *consumer the stream to order
 * the export before (dlpack_sync), 0 when nothing is to be done, -1 with TypeError / BufferError /
 * ValueError. */
static int dlpack_stream(PyObject *stream, DLDevice source, DLDevice target, void **consumer) {
  *consumer = NULL;
  if (stream != Py_None && !PyLong_Check(stream)) {
    PyErr_Format(PyExc_TypeError, "stream must be an int or None, not %.100s", Py_TYPE(stream)->tp_name);
    return -1;
  }
  long long value = 0;
  if (stream != Py_None) {
    int overflow = 0;
    value = PyLong_AsLongLongAndOverflow(stream, &overflow);
    if (value == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
      /* host memory refuses any stream; elsewhere a stream must fit a handle */
      dlx__stream_action a;
      void *s;
      if (dlx__dlpack_stream(source, target, true, 0, &a, &s) == DLX_ERR_UNSUPPORTED)
        PyErr_Format(PyExc_BufferError, "stream=%R given for host memory: only stream=None is allowed", stream);
      else
        PyErr_Format(PyExc_ValueError, "stream=%R is out of the range of a stream handle", stream);
      return -1;
    }
  }
  dlx__stream_action action;
  const dlx_status st = dlx__dlpack_stream(source, target, stream != Py_None, value, &action, consumer);
  if (st != DLX_OK) {
    dlx__py_raise(st, st == DLX_ERR_INVALID_ARGUMENT ? PyExc_ValueError : PyExc_BufferError);
    return -1;
  }
  return action == DLX__STREAM_ORDER;
}

/* The ordering of an export before the consumer's stream that dlpack_stream gave. 0, or -1 with BufferError. */
static int dlpack_sync(dlx__py_tensor *t, DLDevice target, int copied, void *consumer) {
  dlx__queue q;
  void *producer = NULL;
  /* the consumer's stream waits for what dlx queued on its current stream of the memory's queue (the copy,
   * when one was made), with an event: the host and the rest of the device go on */
  dlx_status st = dlx__device_queue(target, "__dlpack__", &q);
  if (st == DLX_OK && q.mem != NULL) st = dlx__queue_current_stream(&q, &producer);
  if (st == DLX_OK && q.mem != NULL) st = dlx__queue_stream_wait(&q, consumer, producer);
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
static int dlpack_target(dlx__py_tensor *t, PyObject *dl_device, PyObject *copy_obj, int *copy, DLDevice *target) {
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

/* ---- capsules --------------------------------------------------------------------------------------- */

/* An unconsumed capsule deletes its tensor; a consumed one ("used_...") belongs to its consumer.
 *
 * The capsule is made with these very strings as its name and the tensor as its context too, so that the
 * destructor of an unconsumed one (every capsule that never reached a consumer, and the one a consumer
 * that renames nothing leaves) knows it by pointer: PyCapsule_IsValid and GetPointer compare the name
 * character by character, twice. A consumer renames it with a string of its own; a name that is not
 * this pointer is compared as before. */
static const char name_versioned[] = "dltensor_versioned", name_legacy[] = "dltensor";

static void *unconsumed(PyObject *cap, const char *name) {
  if (PyCapsule_GetName(cap) == name) {
    void *m = PyCapsule_GetContext(cap);
    if (m != NULL) return m;
  }
  return PyCapsule_IsValid(cap, name) ? PyCapsule_GetPointer(cap, name) : NULL;
}
static void capsule_destructor_versioned(PyObject *cap) {
  DLManagedTensorVersioned *m = unconsumed(cap, name_versioned);
  if (m && m->deleter) m->deleter(m);
}
static void capsule_destructor_legacy(PyObject *cap) {
  DLManagedTensor *m = unconsumed(cap, name_legacy);
  if (m && m->deleter) m->deleter(m);
}

/* A capsule owning m (its deleter runs if the capsule cannot be made). */
static PyObject *new_capsule(void *m, const char *name, PyCapsule_Destructor destructor, void (*del)(void *)) {
  PyObject *cap = PyCapsule_New(m, name, destructor);
  if (cap != NULL && PyCapsule_SetContext(cap, m) == 0) return cap;
  if (cap != NULL) {
    /* no context: the destructor finds m by its name and deletes it */
    Py_DECREF(cap);
    return NULL;
  }
  del(m);
  return NULL;
}
static void del_versioned(void *m) { ((DLManagedTensorVersioned *)m)->deleter(m); }
static void del_legacy(void *m) { ((DLManagedTensor *)m)->deleter(m); }

/* ---- __dlpack__ and __dlpack_device__ ------------------------------------------------------------------ */

/* Parse "(int, int)" into *a, *b; -1 + TypeError naming what when it is not that. */
static int parse_int_pair(PyObject *o, const char *what, long *a, long *b) {
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2 || !PyLong_Check(PyTuple_GET_ITEM(o, 0)) ||
      !PyLong_Check(PyTuple_GET_ITEM(o, 1))) {
    PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints, not %R", what, o);
    return -1;
  }
  *a = PyLong_AsLong(PyTuple_GET_ITEM(o, 0));
  *b = PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
  return PyErr_Occurred() ? -1 : 0;
}

/* The slot of keyword k among __dlpack__'s four (0 max_version, 1 copy, 2 dl_device, 3 stream), or -1.
 * Callers' keyword names are interned by the compiler, so they are the module's interned strings: the
 * pointers are compared first, and only a name built at run time pays for comparing characters. */
static int dlpack_kw_slot(PyObject *k) {
  PyObject *const names[4] = {dlx__py_str_max_version, dlx__py_str_copy, dlx__py_str_dl_device, dlx__py_str_stream};
  for (int j = 0; j < 4; ++j)
    if (k == names[j]) return j;
  for (int j = 0; j < 4; ++j)
    if (PyUnicode_Check(k) && PyUnicode_Compare(k, names[j]) == 0) return j;
  return -1;
}

PyObject *dlx__py_tensor_dlpack(dlx__py_tensor *t, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "__dlpack__() takes only keyword arguments (%zd positional given)", nargs);
  PyObject *kw[4] = {Py_None, Py_None, Py_None, Py_None};
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject *k = PyTuple_GET_ITEM(kwnames, i);
    const int j = dlpack_kw_slot(k);
    if (j < 0) return PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%U'", k);
    kw[j] = args[i];
  }
  PyObject *max_version = kw[0], *copy_obj = kw[1], *dl_device = kw[2], *stream = kw[3];
  /* A consumer passes the same max_version tuple on every call (a constant of its code, or NumPy's and
   * dlx's own module-level one), and a tuple cannot change: the last one that asked for a versioned
   * capsule is held and known by identity, with no parse. */
  static PyObject *last_versioned_max;
  int versioned = 0;
  if (max_version == last_versioned_max && max_version != NULL) {
    versioned = 1;
  } else if (max_version != Py_None) {
    long major, minor;
    if (parse_int_pair(max_version, "max_version", &major, &minor) != 0) return NULL;
    versioned = major >= 1;
    if (versioned) {
      Py_INCREF(max_version);
      Py_XSETREF(last_versioned_max, max_version);
    }
  }
  int copy = 0;
  if (copy_obj != Py_None) {
    if (!PyBool_Check(copy_obj)) return PyErr_Format(PyExc_TypeError, "copy must be a bool or None, not %.100s",
                                                     Py_TYPE(copy_obj)->tp_name);
    copy = copy_obj == Py_True;
  }
  /* dl_device: the export's device (a copy when it is another); stream: the consumer's stream on it,
   * which waits for dlx's work there (dlpack_stream) */
  DLDevice target;
  void *consumer = NULL;
  if (dlpack_target(t, dl_device, copy_obj, &copy, &target) != 0) return NULL;
  const int sync = dlpack_stream(stream, t->view.device, target, &consumer);
  if (sync < 0) return NULL;
  const DLDevice *to = dl_device != Py_None ? &target : NULL;
  if (versioned) {
    DLManagedTensorVersioned *m = export_versioned(t, copy, to);
    if (m == NULL) return NULL;
    if (sync && dlpack_sync(t, target, copy, consumer) != 0) {
      m->deleter(m);
      return NULL;
    }
    return new_capsule(m, name_versioned, capsule_destructor_versioned, del_versioned);
  }
  DLManagedTensor *m = export_legacy(t, copy, to);
  if (m == NULL) return NULL;
  if (sync && dlpack_sync(t, target, copy, consumer) != 0) {
    m->deleter(m);
    return NULL;
  }
  return new_capsule(m, name_legacy, capsule_destructor_legacy, del_legacy);
}

PyObject *dlx__py_tensor_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  const DLDevice d = ((dlx__py_tensor *)self)->view.device;
  return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

/* ---- the C exchange API ------------------------------------------------------------------------------ */

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
  *out = export_versioned((dlx__py_tensor *)py_object, 0, NULL);
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
  /* host work has no stream; NULL is also CUDA's legacy default stream. Where dlx can queue no work (no
   * backend with streams for that memory, or no device) that is what its work is ordered by. */
  *out_stream = NULL;
  dlx__queue q;
  const int r = dlx__py_queue((DLDevice){device_type, device_id}, "current_work_stream", &q);
  if (r <= 0) return r;
  /* dlx's current stream of the memory's queue on the calling thread */
  const dlx_status st = dlx__queue_current_stream(&q, out_stream);
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

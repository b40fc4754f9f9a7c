/* The consumer side: dlx.from_dlpack over the C exchange API, __dlpack__, or a raw capsule; an exact
 * numpy.ndarray read through its fields; and the non-owning view of dlx_py_view (dlx/python.h).
 *
 * Which memory a stream orders is the device interface's (src/backends/backend.h): consumer_stream and
 * order_after_producer ask it, knowing no device type. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "dlx/dtype.h"

/* DLPack sets device_id 0 for host-accessible memory (CPU, pinned, managed), where there is one memory space
 * whatever the id says: dlx imports such a tensor as device id 0 rather than refusing it (a producer's slip
 * there misplaces nothing), so that t.device and every later export say (type, 0). */
static DLDevice normalised_device(DLDevice d) {
  if (dlx_device_is_host_accessible(d)) d.device_id = 0;
  return d;
}

/* The import every consumer path ends in: validate, then hand ownership to a new Tensor. */
static PyObject *import_checked(const dlx_view *v, dlx__storage *s, uint32_t alignment) {
  if (s == NULL) return NULL;
  dlx_view nv = *v;
  nv.device = normalised_device(v->device);
  return dlx__py_tensor_wrap(s, &nv, alignment);
}

static dlx_import_spec any_spec(uint32_t version, uint32_t alignment) {
  dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, version, alignment};
  return spec;
}

PyObject *dlx__py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment) {
  dlx_view v;
  dlx_import_spec spec = any_spec(0, alignment);
  dlx_status st = dlx_view_from_managed_versioned(&v, m, &spec);
  if (st != DLX_OK) {
    /* the deleter first: a producer's deleter may run Python code, which must not see a pending error */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", dlx_last_error());
    if (m->deleter) m->deleter(m);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, msg);
    return NULL;
  }
  return import_checked(&v, dlx__py_storage_of_versioned(m), alignment);
}

/* 0 when the capsule's device is the one x.__dlpack_device__() named (expect; NULL: nothing to compare),
 * else -1 with BufferError naming both: one of the two is wrong, and dlx cannot tell which memory it got. */
static int check_device_agrees(DLDevice got, const DLDevice *expect) {
  if (expect == NULL) return 0;
  const DLDevice a = normalised_device(got), b = normalised_device(*expect);
  if (a.device_type == b.device_type && a.device_id == b.device_id) return 0;
  PyErr_Format(PyExc_BufferError, "the capsule's device (%d, %d) is not the device (%d, %d) that __dlpack_device__() "
               "returned", (int)got.device_type, (int)got.device_id, (int)expect->device_type, (int)expect->device_id);
  return -1;
}

/* The capsule is consumed: renamed, so that its destructor leaves the tensor to dlx, and its destructor
 * cleared, so that a producer whose destructor ignores the name (deletes a "used_" capsule's tensor too)
 * still cannot run the deleter a second time. JAX does the same. */
static int take_capsule(PyObject *cap, const char *used_name) {
  if (PyCapsule_SetName(cap, used_name) != 0) return -1;
  return PyCapsule_SetDestructor(cap, NULL);
}

/* Consume a capsule. Until it is renamed the capsule still owns the tensor, so every failure before
 * the rename leaves the deleter to the capsule's destructor: it runs exactly once either way. expect:
 * the device __dlpack__'s object reported (NULL for a raw capsule); *final set when the refusal is one no
 * copy would cure (the capsule contradicts __dlpack_device__). */
static PyObject *import_capsule(PyObject *cap, uint32_t alignment, const DLDevice *expect, int *final,
                                int legacy_writable) {
  const char *name = PyCapsule_GetName(cap);
  if (name == NULL && PyErr_Occurred()) return NULL;
  if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(0, alignment);
    dlx_status st = dlx_view_from_managed_versioned(&v, m, &spec);
    if (st != DLX_OK) return dlx__py_raise(st, PyExc_BufferError);
    *final = check_device_agrees(m->dl_tensor.device, expect) != 0;
    if (*final || take_capsule(cap, "used_dltensor_versioned") != 0) return NULL;
    return import_checked(&v, dlx__py_storage_of_versioned(m), alignment);
  }
  if (name != NULL && strcmp(name, "dltensor") == 0) {
    DLManagedTensor *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(DLX_DLPACK_VERSION_LEGACY, alignment);
    dlx_status st = dlx_view_from_managed(&v, m, &spec);
    if (st != DLX_OK) return dlx__py_raise(st, PyExc_BufferError);
    /* a legacy capsule has no READ_ONLY flag, and immutable arrays (JAX's, TensorFlow's, MLX's) are exported
     * so: read-only unless the caller vouches otherwise (from_dlpack(writable=True)), as NumPy imports them */
    if (!legacy_writable) v.flags |= DLX_VIEW_READ_ONLY;
    *final = check_device_agrees(m->dl_tensor.device, expect) != 0;
    if (*final || take_capsule(cap, "used_dltensor") != 0) return NULL;
    return import_checked(&v, dlx__py_storage_of_legacy(m), alignment);
  }
  if (name != NULL && strncmp(name, "used_", 5) == 0)
    return PyErr_Format(PyExc_BufferError, "DLPack capsule '%s' was already consumed", name);
  return PyErr_Format(PyExc_BufferError, "a PyCapsule named '%s' is not a DLPack tensor (expected 'dltensor' or "
                      "'dltensor_versioned')", name ? name : "(null)");
}

/* ---- exchange API lookup, cached per type -------------------------------------------------------- */

/* Types seen, with their table or NULL, and their producer's quirks. A handful of array types are
 * ever exchanged, so a short array searched by pointer beats a dict; past its end, types are looked
 * up each time. Each cached type is held by a strong reference, so its address cannot be reused. */
#define API_CACHE_SIZE 16
static struct {
  PyTypeObject *type;
  const DLPackExchangeAPI *api;
  const dlx__py_quirks *quirks;
} api_cache[API_CACHE_SIZE];
static int api_cache_len;

static const DLPackExchangeAPI *api_from_attr(PyObject *attr) {
  void *p = NULL;
  if (PyCapsule_CheckExact(attr) && PyCapsule_IsValid(attr, "dlpack_exchange_api")) {
    p = PyCapsule_GetPointer(attr, "dlpack_exchange_api");
  } else if (PyLong_Check(attr)) { /* DLPack 1.2 stored the address as an int */
    p = PyLong_AsVoidPtr(attr);
  }
  if (p == NULL) {
    PyErr_Clear();
    return NULL;
  }
  /* walk the chain until a table of our major version */
  const DLPackExchangeAPIHeader *h = p;
  while (h != NULL && h->version.major != DLX_DLPACK_MAJOR) h = h->prev_api;
  return (const DLPackExchangeAPI *)h;
}

static const DLPackExchangeAPI *lookup_exchange(PyTypeObject *type, const dlx__py_quirks **quirks) {
  for (int i = 0; i < api_cache_len; ++i)
    if (api_cache[i].type == type) {
      *quirks = api_cache[i].quirks;
      return api_cache[i].api;
    }
  const DLPackExchangeAPI *api = NULL;
  static const char *const names[] = {"__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"};
  for (int k = 0; k < 2 && api == NULL; ++k) {
    PyObject *attr = PyObject_GetAttrString((PyObject *)type, names[k]);
    if (attr == NULL) {
      PyErr_Clear();
      continue;
    }
    api = api_from_attr(attr);
    Py_DECREF(attr);
  }
  if (dlx__py_quirks_of(type, quirks) < 0) api = NULL;
  if (api_cache_len < API_CACHE_SIZE) {
    Py_INCREF(type);
    api_cache[api_cache_len].type = type;
    api_cache[api_cache_len].api = api;
    api_cache[api_cache_len].quirks = *quirks;
    ++api_cache_len;
  }
  return api;
}

const DLPackExchangeAPI *dlx__py_lookup_exchange_api(PyTypeObject *type) {
  const dlx__py_quirks *quirks;
  return lookup_exchange(type, &quirks);
}

/* ---- from_dlpack --------------------------------------------------------------------------------- */

/* 1 when x has a __dlpack__ (on its type, or else on x itself: a proxy's __getattr__ may forward it),
 * 0 when it has none, -1 with an exception set when looking raised something else. */
static int has_dlpack(PyObject *x) {
  PyObject *a = PyObject_GetAttr((PyObject *)Py_TYPE(x), dlx__py_str_dlpack);
  if (a == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    a = PyObject_GetAttr(x, dlx__py_str_dlpack);
    if (a == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      return 0;
    }
  }
  if (a == NULL) return -1;
  Py_DECREF(a);
  return 1;
}

/* x.__dlpack_device__(), which the standard's consumer calls before __dlpack__ (for the stream, and here
 * also to hold the capsule to it): 1 with *dev set; 0 when x has no __dlpack_device__ (an old producer:
 * nothing to compare then); -1 with an exception set, whatever it raised or TypeError naming a result
 * that is not two ints. */
static int dlpack_device_of(PyObject *x, DLDevice *dev) {
  PyObject *meth = PyObject_GetAttr(x, dlx__py_str_dlpack_device);
  if (meth == NULL) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  PyObject *r = PyObject_CallNoArgs(meth);
  Py_DECREF(meth);
  if (r == NULL) return -1;
  long type = -1, id = -1;
  int ok = PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2 && PyLong_Check(PyTuple_GET_ITEM(r, 0)) &&
           PyLong_Check(PyTuple_GET_ITEM(r, 1));
  if (ok) {
    type = PyLong_AsLong(PyTuple_GET_ITEM(r, 0));
    id = PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
    if (PyErr_Occurred()) PyErr_Clear();
    ok = type >= 0 && type <= INT32_MAX && id >= INT32_MIN && id <= INT32_MAX;
  }
  if (!ok)
    PyErr_Format(PyExc_TypeError, "__dlpack_device__() of '%.100s' returned %R, not a (device_type, device_id) "
                 "tuple of ints", Py_TYPE(x)->tp_name, r);
  Py_DECREF(r);
  if (!ok) return -1;
  *dev = (DLDevice){(DLDeviceType)type, (int32_t)id};
  return 1;
}

/* The stream= dlx passes to x.__dlpack__ (a new reference), or NULL for none: for memory a queue of dlx
 * orders (CUDA device and managed memory), dlx's current stream of that queue as the standard's int (1 for
 * CUDA's legacy default stream), so that the producer orders its work before dlx's. dev: what
 * __dlpack_device__ said (NULL: not asked, as where no device with streams is present). Anything
 * unexpected means no stream argument. */
static PyObject *consumer_stream(const DLDevice *dev) {
  if (dev == NULL || dev->device_id < 0) return NULL;
  dlx__queue q;
  void *stream = NULL;
  if (dlx__device_queue(*dev, "from_dlpack", &q) != DLX_OK || q.mem == NULL ||
      dlx__queue_current_stream(&q, &stream) != DLX_OK) {
    dlx_clear_error();
    return NULL;
  }
  return PyLong_FromLongLong(dlx__dlpack_stream_value(*dev, stream));
}

/* x.__dlpack__(max_version=(1, 3), copy=True[, stream=s]): the producer's own copy, asked for when its
 * zero-copy export, or dlx's import of it, was refused (a field of a structured array, misaligned data) and
 * a copy is allowed. NULL + exception (TypeError from a producer that knows no copy=). */
static PyObject *call_dlpack_copied(PyObject *x, const DLDevice *dev) {
  PyObject *stream = consumer_stream(dev);
  PyObject *args[4] = {x, dlx__py_version_tuple, Py_True, stream};
  PyObject *kw = stream ? PyTuple_Pack(3, dlx__py_str_max_version, dlx__py_str_copy, dlx__py_str_stream)
                        : PyTuple_Pack(2, dlx__py_str_max_version, dlx__py_str_copy);
  PyObject *cap = kw ? PyObject_VectorcallMethod(dlx__py_str_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kw)
                     : NULL;
  Py_XDECREF(kw);
  Py_XDECREF(stream);
  return cap;
}

static PyObject *call_dlpack(PyObject *x, const DLDevice *dev) {
  /* x.__dlpack__(max_version=(1, 3)[, stream=s]). copy is not passed on: dlx makes any copy itself, once,
   * unless the zero-copy export is refused (call_dlpack_copied) */
  PyObject *stream = consumer_stream(dev);
  PyObject *args[3] = {x, dlx__py_version_tuple, stream}, *kw = NULL, *cap;
  if (stream != NULL && (kw = PyTuple_Pack(2, dlx__py_str_max_version, dlx__py_str_stream)) == NULL) {
    Py_DECREF(stream);
    return NULL;
  }
  cap = PyObject_VectorcallMethod(dlx__py_str_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                   kw ? kw : dlx__py_kw_max_version);
  if (cap == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
    /* an old producer that knows no max_version: it gives a legacy capsule (stream= is older) */
    PyErr_Clear();
    PyObject *a[2] = {x, stream};
    PyObject *kw1 = stream ? PyTuple_Pack(1, dlx__py_str_stream) : NULL;
    if (stream == NULL || kw1 != NULL)
      cap = PyObject_VectorcallMethod(dlx__py_str_dlpack, a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kw1);
    Py_XDECREF(kw1);
  }
  Py_XDECREF(kw);
  Py_XDECREF(stream);
  if (cap == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
    /* Only a missing __dlpack__ means "no DLPack": an AttributeError raised while an existing one runs
     * is the producer's bug, and hiding it behind "no __dlpack__" would hide where it is. Asked only
     * now, so that successful calls pay nothing. */
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    int has = has_dlpack(x);
    if (has != 0) {
      if (has < 0) PyErr_Clear();
      PyErr_Restore(et, ev, tb);
      return NULL;
    }
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(tb);
    return PyErr_Format(PyExc_TypeError, "object of type '%.100s' does not support DLPack (no __dlpack__)",
                        Py_TYPE(x)->tp_name);
  }
  return cap;
}

/* x.__dlpack__ and x.__dlpack_device__ (*has_dev: whether it had one, *dev its answer). The device first
 * where a stream may have to be passed, as the standard's consumer does; else after __dlpack__, so that a
 * missing __dlpack__ is reported as such whatever the object's __getattr__ does for the other name. The
 * capsule (a new reference), or NULL with an exception. */
static PyObject *dlpack_with_device(PyObject *x, DLDevice *dev, int *has_dev) {
  const int early = dlx__any_queue_present();
  *has_dev = early ? dlpack_device_of(x, dev) : 0;
  if (*has_dev < 0) return NULL;
  PyObject *cap = call_dlpack(x, *has_dev ? dev : NULL);
  if (cap == NULL || early || (*has_dev = dlpack_device_of(x, dev)) >= 0) return cap;
  PyObject *et, *ev, *tb; /* the unconsumed capsule's deleter may run Python code */
  PyErr_Fetch(&et, &ev, &tb);
  Py_DECREF(cap);
  PyErr_Restore(et, ev, tb);
  return NULL;
}

static PyObject *copy_tensor(PyObject *src_obj) {
  dlx__py_tensor *src = (dlx__py_tensor *)src_obj;
  dlx__storage *s;
  dlx_view v;
  if (dlx__py_copy_compact(&src->view, PyExc_BufferError, &s, &v) != 0) return NULL;
  return dlx__py_tensor_wrap(s, &v, src->alignment);
}

/* The exchange API's export does not synchronise (..._no_sync): for memory a queue of dlx orders (CUDA
 * device and managed memory) the consumer orders its own stream after the producer's current one. dlx's
 * current stream of the queue waits for the producer's (an event, never a host wait). 0, or -1 with
 * BufferError. */
static int order_after_producer(const DLPackExchangeAPI *api, DLDevice d) {
  if (api->current_work_stream == NULL) return 0;
  dlx__queue q;
  const int r = dlx__py_queue(d, "from_dlpack", &q);
  if (r <= 0) return r;
  void *producer = NULL, *mine = NULL;
  if (api->current_work_stream(d.device_type, d.device_id, &producer) != 0) return -1;
  dlx_status st = dlx__queue_current_stream(&q, &mine);
  if (st == DLX_OK) st = dlx__queue_stream_wait(&q, mine, producer);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    return -1;
  }
  return 0;
}

/* ---- exact numpy.ndarray without __dlpack__ -------------------------------------------------------
 *
 * NumPy's __dlpack__ costs a method call, a managed tensor, a capsule and its deleter, where the array
 * itself holds all the tensor is: data, shape, strides in bytes (DLPack's times the item size), the
 * dtype, and WRITEABLE (NumPy 2 flags a read-only array READ_ONLY in its capsule). An exact ndarray --
 * a subclass may override __dlpack__ -- is read directly, and imported by the capsule path's own code
 * (dlx_view_from_managed_versioned on a managed tensor built on the stack) under a reference to the
 * array, which is what NumPy's capsule holds too. The array's fields are read (PyArrayObject_fields, the
 * layout every compiled NumPy extension reads through PyArray_DATA & co) only where NumPy's C API reports
 * the 2.x ABI, whose __dlpack__ this path reproduces (python/tests/test_buffer_path.py compares every
 * observable of the two). NumPy 1.x's __dlpack__ refuses read-only arrays and rewrites the strides of
 * extents of 1, which this path would not do, so NumPy 1.x (and an ABI dlx does not know) goes through
 * __dlpack__ as any producer. Anything not mapped one to one falls back to __dlpack__ too, which accepts
 * or refuses as it always did: dtypes other than NumPy's own bool / integer / IEEE float / complex
 * (ml_dtypes', structured, long double, ...), non-native byte order, strides that are not whole elements,
 * a failed import. (A PEP 3118 buffer path was tried first: NumPy builds a buffer's description on each
 * request, which cost as much as the rest of the import, and makes up strides for extents of 1.) */

int dlx__py_ndarray_path = DLX__PY_NDARRAY_AUTO;
long dlx__py_ndarray_path_hits;

/* NumPy's array and dtype objects as far as dlx reads them: the leading fields of NumPy 2.x's layout (2.0
 * kept type_num where 1.x had it, for that reason) */
typedef struct np_descr {
  PyObject_HEAD
  PyTypeObject *typeobj;
  char kind, type, byteorder, former_flags;
  int type_num;
} np_descr;
typedef struct np_array {
  PyObject_HEAD
  char *data;
  int nd;
  Py_ssize_t *dimensions;
  Py_ssize_t *strides;
  PyObject *base;
  np_descr *descr;
  int flags;
} np_array;
#define NP_ARRAY_WRITEABLE 0x0400
#if PY_BIG_ENDIAN
#define NP_OTHER_ORDER '<'
#else
#define NP_OTHER_ORDER '>'
#endif

/* numpy.ndarray, held once seen (a static type: its address is never reused), and whether its fields
 * may be read. Recognised by name, as dlx does not link against NumPy; a heap type (a Python class) of
 * that name is not it. */
static PyTypeObject *numpy_ndarray;
static int numpy_fields_ok;

/* 1 when NumPy's C API (the _ARRAY_API capsule every NumPy extension imports) says its ABI is 2.x and its
 * ndarray type is tp. Anything else (NumPy 1.x, an ABI to come): 0, and __dlpack__ is called. */
static int numpy_abi_2(PyTypeObject *tp) {
  static const char *const modules[] = {"numpy._core._multiarray_umath", "numpy.core.multiarray"};
  for (int k = 0; k < 2; ++k) {
    PyObject *m = PyImport_ImportModule(modules[k]);
    PyObject *cap = m ? PyObject_GetAttrString(m, "_ARRAY_API") : NULL;
    Py_XDECREF(m);
    void **api = cap && PyCapsule_CheckExact(cap) ? PyCapsule_GetPointer(cap, NULL) : NULL;
    Py_XDECREF(cap); /* the module keeps the table */
    PyErr_Clear();
    if (api == NULL) continue;
    /* PyArray_GetNDArrayCVersion (slot 0): NPY_ABI_VERSION, 0x02000000 for 2.x (0x01000009 for 1.x) */
    const unsigned abi = ((unsigned (*)(void))api[0])();
    return abi == 0x02000000u && (PyTypeObject *)api[2] == tp; /* PyArray_Type */
  }
  return 0;
}

int dlx__py_is_exact_ndarray(PyObject *x) {
  PyTypeObject *tp = Py_TYPE(x);
  if (tp == numpy_ndarray) return 1;
  if (numpy_ndarray != NULL || (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) || tp->tp_as_buffer == NULL ||
      tp->tp_as_buffer->bf_getbuffer == NULL || strcmp(tp->tp_name, "numpy.ndarray") != 0)
    return 0;
  numpy_fields_ok = numpy_abi_2(tp);
  Py_INCREF(tp);
  numpy_ndarray = tp;
  return 1;
}

/* The DLPack dtype of a NumPy type number (NPY_BOOL ... NPY_HALF, numbered alike in 1.x and 2.x) and the
 * log2 of its item size; -1 for any other (then __dlpack__ decides). The table holds whole DLDataTypes so
 * that the import reads the dtype back as one word, as it was stored (no store-forwarding stall). */
static int numpy_dtype(int type_num, DLDataType *dt, int *log2_itemsize) {
#define NP_DT(code, bytes) {{(uint8_t)(code), (uint8_t)((bytes) * 8), 1}, (uint8_t)__builtin_ctz(bytes)}
  static const struct {
    DLDataType dt;
    uint8_t log2_size;
  } types[24] = {
      [0] = NP_DT(kDLBool, 1),
      [1] = NP_DT(kDLInt, 1),
      [2] = NP_DT(kDLUInt, 1),
      [3] = NP_DT(kDLInt, sizeof(short)),
      [4] = NP_DT(kDLUInt, sizeof(short)),
      [5] = NP_DT(kDLInt, sizeof(int)),
      [6] = NP_DT(kDLUInt, sizeof(int)),
      [7] = NP_DT(kDLInt, sizeof(long)),
      [8] = NP_DT(kDLUInt, sizeof(long)),
      [9] = NP_DT(kDLInt, sizeof(long long)),
      [10] = NP_DT(kDLUInt, sizeof(long long)),
      [11] = NP_DT(kDLFloat, 4),
      [12] = NP_DT(kDLFloat, 8),
      /* 13 long double, 16 complex long double: not IEEE interchange formats; 17.. object, strings, void,
       * datetimes */
      [14] = NP_DT(kDLComplex, 8),
      [15] = NP_DT(kDLComplex, 16),
      [23] = NP_DT(kDLFloat, 2),
  };
#undef NP_DT
  if (type_num < 0 || type_num >= 24 || types[type_num].dt.lanes == 0) return -1;
  *dt = types[type_num].dt;
  *log2_itemsize = types[type_num].log2_size;
  return 0;
}

/* The view of what NumPy's __dlpack__ would export for an array of these properties: 0, or -1 to fall
 * back (strides that are not whole elements, which __dlpack__ refuses; a failed import, which it
 * raises). dims holds 2 * DLX_MAX_NDIM entries. Every item size is a power of two, so a stride converts by
 * a shift where a division would cost more than the whole import. */
static int ndarray_view(dlx_view *v, void *data, int nd, const Py_ssize_t *shape, const Py_ssize_t *strides,
                        int log2_itemsize, DLDataType dt, int readonly, uint32_t alignment, int64_t *dims) {
  if (nd < 0 || nd > DLX_MAX_NDIM || (nd > 0 && (shape == NULL || strides == NULL))) return -1;
  const Py_ssize_t mask = ((Py_ssize_t)1 << log2_itemsize) - 1;
  Py_ssize_t rem = 0;
  for (int i = 0; i < nd; ++i) {
    rem |= strides[i] & mask;
    dims[i] = shape[i];
    dims[nd + i] = strides[i] >> log2_itemsize; /* arithmetic: a negative multiple stays exact */
  }
  if (rem != 0) return -1;
  DLTensor t; /* only carries the description to the import */
  t.data = data;
  t.device = (DLDevice){kDLCPU, 0};
  t.ndim = nd;
  t.dtype = dt;
  t.shape = dims;
  t.strides = dims + nd;
  t.byte_offset = 0;
  /* what dlx_view_from_managed_versioned does for a 1.x tensor whose flags say READ_ONLY or not */
  const dlx_import_spec spec = any_spec(DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR), alignment);
  if (dlx_view_from_dltensor(v, &t, &spec) != DLX_OK) return -1;
  v->flags = readonly ? DLX_VIEW_READ_ONLY : 0;
  return 0;
}

/* A Tensor of x read through its fields, or NULL with no exception set when x takes __dlpack__ instead
 * (NULL with an exception only when out of memory). */
static PyObject *import_ndarray_fields(PyObject *x, uint32_t alignment) {
  const np_array *a = (const np_array *)x;
  DLDataType dt;
  int log2_itemsize;
  if (a->descr == NULL || a->descr->byteorder == NP_OTHER_ORDER ||
      numpy_dtype(a->descr->type_num, &dt, &log2_itemsize) != 0)
    return NULL;
  int64_t dims[2 * DLX_MAX_NDIM];
  dlx_view v;
  if (ndarray_view(&v, a->data, a->nd, a->dimensions, a->strides, log2_itemsize, dt, !(a->flags & NP_ARRAY_WRITEABLE),
                   alignment, dims) != 0)
    return NULL;
  dlx__storage *s = dlx__py_storage_of_object(x, v.data, v.device); /* NumPy's capsule holds x too */
  if (s == NULL) return NULL;
  ++dlx__py_ndarray_path_hits;
  return dlx__py_tensor_wrap(s, &v, alignment);
}

/* A capsule from __dlpack__ (a new reference taken over) imported; the capsule dies either way. expect: the
 * device __dlpack_device__ named (NULL: not asked). */
static PyObject *import_returned(PyObject *x, PyObject *cap, uint32_t alignment, const DLDevice *expect,
                                 int *final, int legacy_writable) {
  PyObject *t = NULL;
  if (PyCapsule_CheckExact(cap)) {
    t = import_capsule(cap, alignment, expect, final, legacy_writable);
  } else {
    PyErr_Format(PyExc_TypeError, "__dlpack__ of '%.100s' returned '%.100s', not a PyCapsule", Py_TYPE(x)->tp_name,
                 Py_TYPE(cap)->tp_name);
  }
  /* An unconsumed capsule runs the producer's deleter as it dies, and that deleter may run Python
   * code: it must not see (or clobber) the error being raised. */
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  Py_DECREF(cap);
  PyErr_Restore(et, ev, tb);
  return t;
}

/* The zero-copy import of x was refused with the pending BufferError, and a copy is allowed (copy=None, the
 * standard's "copy if needed", or True): the producer's own copy, through __dlpack__(copy=True). The
 * BufferError stands when that fails too (a producer that cannot or will not copy). */
static PyObject *import_producer_copy(PyObject *x, uint32_t alignment, const DLDevice *expect, int legacy_writable) {
  PyObject *exc = dlx__py_fetch_exception();
  PyObject *cap = call_dlpack_copied(x, expect);
  int final = 0;
  PyObject *t = cap ? import_returned(x, cap, alignment, expect, &final, legacy_writable) : NULL;
  if (t == NULL) {
    PyErr_Clear();
    dlx__py_restore_exception(exc);
  } else {
    Py_DECREF(exc);
  }
  return t;
}

/* Whether the pending error is a refusal a producer's copy may cure, and a copy may be made: copy None or
 * True, and no assumed_align (CuTe's promise about the data given, which a copy would hide). */
static int may_copy(int copy, uint32_t alignment) {
  return copy != 0 && alignment == 0 && PyErr_ExceptionMatches(PyExc_BufferError);
}

/* dlx__py_from_dlpack; ndarray_ok 0 keeps an exact numpy.ndarray off the fields path (from_dlpack's device=
 * names a device other than the cpu). */
static PyObject *from_dlpack_ex(PyObject *x, uint32_t alignment, int copy, int ndarray_ok, int legacy_writable) {
  PyObject *t = NULL;
  if (Py_IS_TYPE(x, &dlx__py_tensor_type)) {
    dlx__py_tensor *src = (dlx__py_tensor *)x;
    if (copy == 1) return copy_tensor(x);
    if (alignment && ((uintptr_t)src->view.data % alignment) != 0)
      return PyErr_Format(PyExc_BufferError, "data 0x%llx is not aligned to assumed_align=%u bytes",
                          (unsigned long long)(uintptr_t)src->view.data, alignment);
    return dlx__py_tensor_wrap(dlx__storage_retain(src->storage), &src->view, alignment ? alignment : src->alignment);
  }
  /* copy=True copies whatever the import is; the ndarray path only stands in for a zero-copy one */
  if (ndarray_ok && copy != 1 && dlx__py_ndarray_path == DLX__PY_NDARRAY_AUTO && dlx__py_is_exact_ndarray(x) &&
      numpy_fields_ok) {
    t = import_ndarray_fields(x, alignment);
    if (t != NULL) return t;
    if (PyErr_Occurred())
      return may_copy(copy, alignment) ? import_producer_copy(x, alignment, NULL, legacy_writable) : NULL;
  }
  const dlx__py_quirks *quirks;
  const DLPackExchangeAPI *api = lookup_exchange(Py_TYPE(x), &quirks);
  if (api != NULL) {
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &m) != 0) {
      if (quirks != NULL) quirks->export_failed(x);
      return NULL;
    }
    if ((quirks != NULL && quirks->refuse(x, m->dl_tensor.dtype, m->version.major != DLX_DLPACK_MAJOR) != 0) ||
        order_after_producer(api, m->dl_tensor.device) != 0) {
      /* the deleter may run Python code, which must not see the pending error */
      PyObject *et, *ev, *tb;
      PyErr_Fetch(&et, &ev, &tb);
      if (m->deleter) m->deleter(m);
      PyErr_Restore(et, ev, tb);
      return NULL;
    }
    t = dlx__py_import_versioned_owned(m, alignment);
  } else if (PyCapsule_CheckExact(x)) {
    int final;
    t = import_capsule(x, alignment, NULL, &final, legacy_writable);
  } else {
    if (quirks != NULL && quirks->before_dlpack(x) != 0) return NULL;
    DLDevice dev;
    int has_dev;
    PyObject *cap = dlpack_with_device(x, &dev, &has_dev);
    const DLDevice *expect = has_dev ? &dev : NULL;
    int final = 0;
    t = cap ? import_returned(x, cap, alignment, expect, &final, legacy_writable) : NULL;
    /* the producer's copy is already the copy copy=True asks for; a capsule on another device than
     * __dlpack_device__ said is no refusal a copy cures */
    if (t == NULL && !final && may_copy(copy, alignment))
      return import_producer_copy(x, alignment, expect, legacy_writable);
  }
  if (t != NULL && copy == 1) {
    PyObject *c = copy_tensor(t);
    Py_DECREF(t);
    return c;
  }
  return t;
}

PyObject *dlx__py_from_dlpack(PyObject *x, uint32_t alignment, int copy) {
  return from_dlpack_ex(x, alignment, copy, 1, 0);
}

/* ---- dlx_py_view without a managed tensor ---------------------------------------------------------- */

long dlx__py_borrowed_views;

/* A C extension's view (dlx/python.h) lives no longer than its handle, so where the producer fills a
 * DLTensor that borrows from the object (PyTorch's dltensor_from_py_object_no_sync: no allocation, no
 * deleter), a reference to the object is all the handle needs. The producer's refusals apply as on the
 * managed path (issue 12: what torch's __dlpack__ refuses, dlx refuses), and CUDA memory is ordered
 * after the producer's stream the same way. */
int dlx__py_view_borrowed(PyObject *obj, const dlx_import_spec *spec, dlx_view *view) {
  const dlx__py_quirks *quirks;
  const DLPackExchangeAPI *api = lookup_exchange(Py_TYPE(obj), &quirks);
  if (api == NULL || api->dltensor_from_py_object_no_sync == NULL || quirks == NULL || !quirks->borrow_ok) return 0;
  DLTensor dl;
  if (api->dltensor_from_py_object_no_sync(obj, &dl) != 0) {
    quirks->export_failed(obj);
    return -1;
  }
  /* the table is of dlx's major (lookup_exchange walks the chain to it) */
  if (quirks->refuse(obj, dl.dtype, 0) != 0 || order_after_producer(api, dl.device) != 0) return -1;
  dlx_status st = dlx_view_from_dltensor(view, &dl, spec);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    return -1;
  }
  ++dlx__py_borrowed_views;
  return 1;
}

/* ---- dlx.from_dlpack ------------------------------------------------------------------------------ */

/* from_dlpack(writable=): True promises that the producer's memory may be written (a legacy capsule, which
 * cannot say, then imports writable) and refuses data the producer marked READ_ONLY; False imports read-only
 * whatever the producer said. A copy (copy=True) is the caller's own either way. */
static PyObject *apply_writable(PyObject *t, int writable) {
  dlx__py_tensor *r = (dlx__py_tensor *)t;
  if (!writable) {
    r->view.flags |= DLX_VIEW_READ_ONLY;
    return t;
  }
  if (r->view.flags & DLX_VIEW_READ_ONLY) {
    Py_DECREF(t);
    return PyErr_Format(PyExc_BufferError, "from_dlpack(writable=True): the producer's data is read-only "
                        "(DLPACK_FLAG_BITMASK_READ_ONLY); copy=True gives a writable copy");
  }
  return t;
}

static PyObject *m_from_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  if (nargs != 1)
    return PyErr_Format(PyExc_TypeError, "from_dlpack() takes exactly 1 positional argument (%zd given)", nargs);
  PyObject *device = Py_None, *copy_obj = Py_None, *align_obj = Py_None, *writable_obj = Py_None;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = args[1 + i];
    if (k == dlx__py_str_device || PyUnicode_Compare(k, dlx__py_str_device) == 0) device = v;
    else if (k == dlx__py_str_copy || PyUnicode_Compare(k, dlx__py_str_copy) == 0) copy_obj = v;
    else if (k == dlx__py_str_assumed_align || PyUnicode_Compare(k, dlx__py_str_assumed_align) == 0) align_obj = v;
    else if (PyUnicode_CompareWithASCIIString(k, "writable") == 0) writable_obj = v;
    else return PyErr_Format(PyExc_TypeError, "from_dlpack() got an unexpected keyword argument '%U'", k);
  }
  int copy = -1;
  if (copy_obj != Py_None) {
    if (!PyBool_Check(copy_obj))
      return PyErr_Format(PyExc_TypeError, "copy must be a bool or None, not %.100s", Py_TYPE(copy_obj)->tp_name);
    copy = copy_obj == Py_True;
  }
  if (writable_obj != Py_None && !PyBool_Check(writable_obj))
    return PyErr_Format(PyExc_TypeError, "writable must be a bool or None, not %.100s", Py_TYPE(writable_obj)->tp_name);
  uint32_t alignment = 0;
  if (align_obj != Py_None) {
    if (!PyLong_Check(align_obj))
      return PyErr_Format(PyExc_TypeError, "assumed_align must be an int or None, not %.100s",
                          Py_TYPE(align_obj)->tp_name);
    long a = PyLong_AsLong(align_obj);
    if (a == -1 && PyErr_Occurred()) return NULL;
    if (a <= 0 || a > (1L << 30) || (a & (a - 1)) != 0)
      return PyErr_Format(PyExc_ValueError, "assumed_align must be a positive power of two, got %ld", a);
    alignment = (uint32_t)a;
  }
  /* device: the import lands there, copied across devices when it is elsewhere (device.c); a device dlx
   * cannot name is BufferError here, as any device the data cannot be put on */
  DLDevice want = {kDLCPU, 0};
  if (device != Py_None && dlx__py_parse_device(device, &want) != 0) {
    if (PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyObject *et, *ev, *tb;
      PyErr_Fetch(&et, &ev, &tb);
      PyErr_SetObject(PyExc_BufferError, ev);
      Py_XDECREF(et);
      Py_XDECREF(ev);
      Py_XDECREF(tb);
    }
    return NULL;
  }
  /* a NumPy array's fields path only where the import stays on the cpu: a move to another device costs
   * a copy, next to which a capsule's cost is nothing */
  const int ndarray_ok = device == Py_None || want.device_type == kDLCPU;
  PyObject *t = from_dlpack_ex(args[0], alignment, device != Py_None && copy == 1 ? -1 : copy, ndarray_ok,
                               writable_obj == Py_True);
  if (t != NULL && writable_obj != Py_None) t = apply_writable(t, writable_obj == Py_True);
  if (t == NULL || device == Py_None) return t;
  PyObject *r = dlx__py_to_device(t, want, copy, PyExc_BufferError);
  Py_DECREF(t);
  return r;
}

PyMethodDef dlx__py_consumer_methods[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))m_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, *, device=None, copy=None, assumed_align=None, writable=None) -> Tensor\n\n"
     "Import any DLPack object (C exchange API, __dlpack__, or capsule) without a copy, unless copy=True or "
     "device= names another device. A legacy capsule (no READ_ONLY flag) imports read-only unless "
     "writable=True; writable=False imports read-only whatever the producer said."},
    {NULL, NULL, 0, NULL},
};

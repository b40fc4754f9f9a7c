/* The consumer side: dlx.from_dlpack over the C exchange API, __dlpack__, or a raw capsule. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "dlx/cuda.h"
#include "dlx/dtype.h"

/* DLPack sets device_id 0 for CPU, pinned and managed memory, where there is one memory space whatever the
 * id says: dlx imports such a tensor as device id 0 rather than refusing it (a producer's slip there
 * misplaces nothing), so that t.device and every later export say (type, 0). */
static DLDevice normalised_device(DLDevice d) {
  if (d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLROCMHost ||
      d.device_type == kDLCUDAManaged)
    d.device_id = 0;
  return d;
}

/* The import every consumer path ends in: validate, then hand ownership to a new Tensor. */
static PyObject *import_checked(const dlx_view *v, dlx_storage *s, uint32_t alignment) {
  if (s == NULL) return NULL;
  dlx_view nv = *v;
  nv.device = normalised_device(v->device);
  return dlx_py_tensor_wrap(s, &nv, alignment);
}

static dlx_import_spec any_spec(uint32_t version, uint32_t alignment) {
  dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, version, alignment};
  return spec;
}

PyObject *dlx_py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment) {
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
  return import_checked(&v, dlx_py_storage_of_versioned(m), alignment);
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
 * the device __dlpack__'s object reported (NULL for a raw capsule). */
static PyObject *import_capsule(PyObject *cap, uint32_t alignment, const DLDevice *expect) {
  const char *name = PyCapsule_GetName(cap);
  if (name == NULL && PyErr_Occurred()) return NULL;
  if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(0, alignment);
    dlx_status st = dlx_view_from_managed_versioned(&v, m, &spec);
    if (st != DLX_OK) return dlx_py_raise(st, PyExc_BufferError);
    if (check_device_agrees(m->dl_tensor.device, expect) != 0 || take_capsule(cap, "used_dltensor_versioned") != 0)
      return NULL;
    return import_checked(&v, dlx_py_storage_of_versioned(m), alignment);
  }
  if (name != NULL && strcmp(name, "dltensor") == 0) {
    DLManagedTensor *m = PyCapsule_GetPointer(cap, name);
    if (m == NULL) return NULL;
    dlx_view v;
    dlx_import_spec spec = any_spec(DLX_DLPACK_VERSION_LEGACY, alignment);
    dlx_status st = dlx_view_from_managed(&v, m, &spec);
    if (st != DLX_OK) return dlx_py_raise(st, PyExc_BufferError);
    if (check_device_agrees(m->dl_tensor.device, expect) != 0 || take_capsule(cap, "used_dltensor") != 0) return NULL;
    return import_checked(&v, dlx_py_storage_of_legacy(m), alignment);
  }
  if (name != NULL && strncmp(name, "used_", 5) == 0)
    return PyErr_Format(PyExc_BufferError, "DLPack capsule '%s' was already consumed", name);
  return PyErr_Format(PyExc_BufferError, "a PyCapsule named '%s' is not a DLPack tensor (expected 'dltensor' or "
                      "'dltensor_versioned')", name ? name : "(null)");
}

/* ---- producer quirks ------------------------------------------------------------------------------
 *
 * A producer's C exchange API exports whatever memory a tensor has, while its __dlpack__ may first
 * refuse tensors whose memory does not hold their values. Taking the table instead of __dlpack__ must
 * not skip those refusals, so the rules of each such producer live here, found once per type.
 *
 * PyTorch (as of torch 2.15) needs them. Its managed_tensor_from_py_object_no_sync
 *  - exports a tensor with the conjugate bit (torch.conj of a complex tensor) or the negative bit
 *    (torch._neg_view, .imag of a conj tensor) as its memory, un-conjugated / un-negated: wrong values.
 *    torch.Tensor.__dlpack__ refuses the conjugate bit but exports the negative bit unresolved, a
 *    torch bug that dlx does not copy;
 *  - exports a tensor that requires grad, which __dlpack__ refuses (writes would bypass autograd);
 *  - fails on sparse / mkldnn / jagged layouts, quantized dtypes and the meta device with a
 *    RuntimeError carrying a C++ backtrace, where __dlpack__ raises a one-line BufferError.
 * Zero-size, non-contiguous and 0-d tensors it exports as __dlpack__ does. A torch without the table
 * (before 2.10), or a subclass that hides it, goes through __dlpack__: the same checks run first there,
 * for the negative bit's sake. */

typedef struct producer_quirks {
  /* after x exported a tensor of dtype (from a table of another major when other_major): 0 to import
   * it, -1 with an exception set to refuse (the caller deletes what was exported) */
  int (*refuse)(PyObject *x, DLDataType dtype, int other_major);
  /* after the export of x failed: turn the pending exception into the one __dlpack__ raises */
  void (*export_failed)(PyObject *x);
  /* before x.__dlpack__() (a type without a table): 0 to call it, -1 with an exception set to refuse */
  int (*before_dlpack)(PyObject *x);
  /* 1 when the table's non-owning dltensor_from_py_object_no_sync says all its managed export would:
   * a DLTensor carries no flags, so a producer that may flag READ_ONLY or IS_SUBBYTE_TYPE_PADDED must
   * not be borrowed from (dlx_py_view then takes the managed export) */
  int borrow_ok;
} producer_quirks;

/* The descriptors of torch._C.TensorBase, the C type holding a tensor's flags. Taken from that type
 * rather than from x's: they read the C++ tensor that the table exports, whatever a subclass defines
 * (a subclass's __torch_function__ still runs: torch's getters call it). Looked up once, kept forever. */
static struct {
  int state;                           /* 0 not yet looked up, 1 usable, -1 unusable */
  PyGetSetDef *requires_grad, *layout; /* called directly: no attribute lookup, no bound object */
  PyObject *is_conj, *is_neg;          /* method descriptors (strong references) */
  PyCFunction conj_fn, neg_fn;         /* their C functions when they take no arguments, else NULL */
} torch_d;

static PyTypeObject *torch_tensor_base(PyTypeObject *type) {
  PyObject *mro = type->tp_mro;
  if (mro == NULL || !PyTuple_Check(mro)) return NULL;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); ++i) {
    PyTypeObject *b = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
    /* torch >= 2.2 spells it TensorBase; _TensorBase before */
    if (strcmp(b->tp_name, "torch._C.TensorBase") == 0 || strcmp(b->tp_name, "torch._C._TensorBase") == 0) return b;
  }
  return NULL;
}

static PyGetSetDef *getset_of(PyObject *dict, const char *name) {
  PyObject *d = PyDict_GetItemString(dict, name); /* borrowed: the PyGetSetDef is static data of torch */
  return d != NULL && Py_IS_TYPE(d, &PyGetSetDescr_Type) ? ((PyGetSetDescrObject *)d)->d_getset : NULL;
}

/* A METH_NOARGS method's C function, called without the descriptor's argument and type checks: the
 * callers pass instances of the type that defines it (x's type derives from TensorBase). */
static PyCFunction noargs_fn(PyObject *descr) {
  if (!Py_IS_TYPE(descr, &PyMethodDescr_Type)) return NULL;
  PyMethodDef *def = ((PyMethodDescrObject *)descr)->d_method;
  return def->ml_flags == METH_NOARGS ? def->ml_meth : NULL;
}

static int torch_descriptors(PyTypeObject *base) {
  if (torch_d.state != 0) return torch_d.state;
  torch_d.state = -1;
  PyObject *dict = base->tp_dict, *c, *n;
  if (dict == NULL) return -1;
  torch_d.requires_grad = getset_of(dict, "requires_grad");
  torch_d.layout = getset_of(dict, "layout");
  c = PyDict_GetItemString(dict, "is_conj");
  n = PyDict_GetItemString(dict, "is_neg");
  if (torch_d.requires_grad == NULL || torch_d.requires_grad->get == NULL || torch_d.layout == NULL ||
      torch_d.layout->get == NULL || c == NULL || !PyCallable_Check(c) || n == NULL || !PyCallable_Check(n))
    return -1;
  Py_INCREF(c);
  Py_INCREF(n);
  torch_d.is_conj = c;
  torch_d.is_neg = n;
  torch_d.conj_fn = noargs_fn(c);
  torch_d.neg_fn = noargs_fn(n);
  return torch_d.state = 1;
}

/* A flag from torch: 1, 0, or -1 with an exception set. r is a new reference (or NULL). */
static int torch_truth(PyObject *r) {
  if (r == NULL) return -1;
  int b = r == Py_True ? 1 : r == Py_False ? 0 : PyObject_IsTrue(r);
  Py_DECREF(r);
  return b;
}

static int torch_getset_flag(PyObject *x, PyGetSetDef *g) { return torch_truth(g->get(x, g->closure)); }

static int torch_method_flag(PyObject *x, PyObject *descr, PyCFunction fn) {
  if (fn != NULL) return torch_truth(fn(x, NULL));
  PyObject *args[1] = {x};
  return torch_truth(PyObject_Vectorcall(descr, args, 1, NULL));
}

/* 1 with BufferError set when x must not be exported, 0 when it may, -1 when asking torch failed.
 * __dlpack__'s checks in its order (requires_grad, conj, layout) plus the negative bit. The conjugate
 * bit only where maybe_conj: torch sets it on complex dtypes only (it asserts so), so the fast path
 * asks for it only after a complex export. The layout only where check_layout: a strided tensor is
 * all the table exports, so only a failed export asks. */
static int torch_refusal(PyObject *x, int maybe_conj, int check_layout) {
  int b = torch_getset_flag(x, torch_d.requires_grad);
  if (b != 0) {
    if (b > 0) PyErr_SetString(PyExc_BufferError, "Can't export tensors that require gradient, use tensor.detach()");
    return b;
  }
  if (maybe_conj && (b = torch_method_flag(x, torch_d.is_conj, torch_d.conj_fn)) != 0) {
    if (b > 0)
      PyErr_SetString(PyExc_BufferError,
                      "Can't export tensors with the conjugate bit set, use tensor.resolve_conj() (a copy)");
    return b;
  }
  if ((b = torch_method_flag(x, torch_d.is_neg, torch_d.neg_fn)) != 0) {
    if (b > 0)
      PyErr_SetString(PyExc_BufferError,
                      "Can't export tensors with the negative bit set, use tensor.resolve_neg() (a copy)");
    return b;
  }
  if (check_layout) {
    PyObject *layout = torch_d.layout->get(x, torch_d.layout->closure);
    PyObject *s = layout ? PyObject_Str(layout) : NULL;
    Py_XDECREF(layout);
    if (s == NULL) return -1;
    b = PyUnicode_CompareWithASCIIString(s, "torch.strided") != 0;
    if (b)
      PyErr_Format(PyExc_BufferError, "Can't export tensors with layout other than torch.strided (this one is %U)", s);
    Py_DECREF(s);
    return b;
  }
  return 0;
}

static int torch_refuse(PyObject *x, DLDataType dtype, int other_major) {
  /* a tensor of another major may lay its fields out otherwise: then ask about conj too (the import
   * refuses that major anyway) */
  int maybe_conj = other_major || dtype.code == kDLComplex;
  return torch_refusal(x, maybe_conj, 0) != 0 ? -1 : 0;
}

static void torch_export_failed(PyObject *x) {
  /* torch's table turns every C++ exception into a RuntimeError; other kinds are left as they are */
  if (!PyErr_ExceptionMatches(PyExc_RuntimeError)) return;
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  PyErr_NormalizeException(&et, &ev, &tb);
  int r = torch_refusal(x, 1, 1);
  if (r > 0) goto drop; /* __dlpack__'s own reason is set */
  if (r < 0) PyErr_Clear(); /* a check that failed tells less than the export's own error */
  PyObject *msg = ev ? PyObject_Str(ev) : NULL;
  if (msg == NULL) {
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    return;
  }
  /* the first line is torch's message; the rest is "Exception raised from ..." and a C++ backtrace */
  Py_ssize_t nl = PyUnicode_FindChar(msg, '\n', 0, PyUnicode_GET_LENGTH(msg), 1);
  if (nl >= 0) {
    PyObject *line = PyUnicode_Substring(msg, 0, nl);
    Py_DECREF(msg);
    if (line == NULL) goto drop; /* MemoryError set */
    msg = line;
  }
  PyErr_SetObject(PyExc_BufferError, msg);
  Py_DECREF(msg);
drop:
  Py_XDECREF(et);
  Py_XDECREF(ev);
  Py_XDECREF(tb);
}

static int torch_before_dlpack(PyObject *x) { return torch_refusal(x, 1, 0) != 0 ? -1 : 0; }

/* torch has no read-only tensors and exports no padded sub-byte dtypes: its DLTensor export says all its
 * managed one does (the flags of both are compared in python/tests/test_exchange_api.py) */
static const producer_quirks torch_quirks = {torch_refuse, torch_export_failed, torch_before_dlpack, 1};

/* The quirks of the producer of type (NULL: none). -1 when it has quirks dlx cannot apply: then its
 * table is not used, and __dlpack__ makes its own checks. */
static int quirks_of(PyTypeObject *type, const producer_quirks **q) {
  *q = NULL;
  PyTypeObject *base = torch_tensor_base(type);
  if (base == NULL) return 0;
  if (torch_descriptors(base) < 0) return -1;
  *q = &torch_quirks;
  return 0;
}

/* ---- exchange API lookup, cached per type -------------------------------------------------------- */

/* Types seen, with their table or NULL, and their producer's quirks. A handful of array types are
 * ever exchanged, so a short array searched by pointer beats a dict; past its end, types are looked
 * up each time. Each cached type is held by a strong reference, so its address cannot be reused. */
#define API_CACHE_SIZE 16
static struct {
  PyTypeObject *type;
  const DLPackExchangeAPI *api;
  const producer_quirks *quirks;
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

static const DLPackExchangeAPI *lookup_exchange(PyTypeObject *type, const producer_quirks **quirks) {
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
  if (quirks_of(type, quirks) < 0) api = NULL;
  if (api_cache_len < API_CACHE_SIZE) {
    Py_INCREF(type);
    api_cache[api_cache_len].type = type;
    api_cache[api_cache_len].api = api;
    api_cache[api_cache_len].quirks = *quirks;
    ++api_cache_len;
  }
  return api;
}

const DLPackExchangeAPI *dlx_lookup_exchange_api(PyTypeObject *type) {
  const producer_quirks *quirks;
  return lookup_exchange(type, &quirks);
}

/* ---- from_dlpack --------------------------------------------------------------------------------- */

/* 1 when x has a __dlpack__ (on its type, or else on x itself: a proxy's __getattr__ may forward it),
 * 0 when it has none, -1 with an exception set when looking raised something else. */
static int has_dlpack(PyObject *x) {
  PyObject *a = PyObject_GetAttr((PyObject *)Py_TYPE(x), dlx_str_dlpack);
  if (a == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    a = PyObject_GetAttr(x, dlx_str_dlpack);
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
  PyObject *meth = PyObject_GetAttr(x, dlx_str_dlpack_device);
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

/* The stream= dlx passes to x.__dlpack__ (a new reference), or NULL for none: for CUDA memory, dlx's
 * current stream of its device as the standard's int (1 for the legacy default stream), so that the
 * producer orders its work before dlx's. Asked only where a CUDA device exists (no CUDA tensor can be
 * used without one), so host imports pay nothing; anything unexpected means no stream argument. */
static PyObject *consumer_stream(const DLDevice *dev) {
  if (dev == NULL || dlx_cuda_device_count() == 0) return NULL;
  const int type = (int)dev->device_type;
  const int32_t id = dev->device_id;
  void *stream = NULL;
  if ((type != kDLCUDA && type != kDLCUDAManaged) || id < 0 ||
      dlx_cuda_get_stream(type == kDLCUDAManaged ? 0 : id, &stream) != DLX_OK) {
    PyErr_Clear();
    return NULL;
  }
  return PyLong_FromUnsignedLongLong(stream == NULL ? 1 : (unsigned long long)(uintptr_t)stream);
}

static PyObject *call_dlpack(PyObject *x, const DLDevice *dev) {
  /* x.__dlpack__(max_version=(1, 3)[, stream=s]). copy is never passed on: dlx makes any copy itself, once. */
  PyObject *stream = consumer_stream(dev);
  PyObject *args[3] = {x, dlx_version_tuple, stream}, *kw = NULL, *cap;
  if (stream != NULL && (kw = PyTuple_Pack(2, dlx_str_max_version, dlx_str_stream)) == NULL) {
    Py_DECREF(stream);
    return NULL;
  }
  cap = PyObject_VectorcallMethod(dlx_str_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kw ? kw : dlx_kw_max_version);
  if (cap == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
    /* an old producer that knows no max_version: it gives a legacy capsule (stream= is older) */
    PyErr_Clear();
    PyObject *a[2] = {x, stream};
    PyObject *kw1 = stream ? PyTuple_Pack(1, dlx_str_stream) : NULL;
    if (stream == NULL || kw1 != NULL)
      cap = PyObject_VectorcallMethod(dlx_str_dlpack, a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kw1);
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

static PyObject *copy_tensor(PyObject *src_obj) {
  TensorObject *src = (TensorObject *)src_obj;
  dlx_storage *s;
  dlx_view v;
  if (dlx_py_copy_compact(&src->view, &s, &v) != 0) return NULL;
  return dlx_py_tensor_wrap(s, &v, src->alignment);
}

/* The exchange API's export does not synchronise (..._no_sync): for CUDA memory the consumer orders its
 * own stream after the producer's current one. dlx's current stream of the device waits for the
 * producer's (an event, never a host wait). 0, or -1 with BufferError. */
static int order_after_producer(const DLPackExchangeAPI *api, DLDevice d) {
  if ((d.device_type != kDLCUDA && d.device_type != kDLCUDAManaged) || dlx_cuda_device_count() == 0 ||
      api->current_work_stream == NULL)
    return 0;
  const int32_t id = d.device_type == kDLCUDAManaged ? 0 : d.device_id;
  void *producer = NULL, *mine = NULL;
  if (api->current_work_stream(d.device_type, d.device_id, &producer) != 0) return -1;
  dlx_status st = dlx_cuda_get_stream(id, &mine);
  if (st == DLX_OK) st = dlx_cuda_stream_wait(id, mine, producer);
  if (st != DLX_OK) {
    dlx_py_raise(st, PyExc_BufferError);
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

int dlx_py_ndarray_path = DLX_NDARRAY_AUTO;
long dlx_py_ndarray_path_hits;

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

static int is_exact_ndarray(PyObject *x) {
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

/* The DLPack dtype of a NumPy type number (NPY_BOOL ... NPY_HALF, numbered alike in 1.x and 2.x) and its
 * item size; -1 for any other (then __dlpack__ decides). */
static int numpy_dtype(int type_num, DLDataType *dt, Py_ssize_t *itemsize) {
  static const struct {
    uint8_t code, size;
  } types[24] = {
      [0] = {kDLBool, 1},
      [1] = {kDLInt, 1},
      [2] = {kDLUInt, 1},
      [3] = {kDLInt, sizeof(short)},
      [4] = {kDLUInt, sizeof(short)},
      [5] = {kDLInt, sizeof(int)},
      [6] = {kDLUInt, sizeof(int)},
      [7] = {kDLInt, sizeof(long)},
      [8] = {kDLUInt, sizeof(long)},
      [9] = {kDLInt, sizeof(long long)},
      [10] = {kDLUInt, sizeof(long long)},
      [11] = {kDLFloat, 4},
      [12] = {kDLFloat, 8},
      /* 13 long double, 16 complex long double: not IEEE interchange formats; 17.. object, strings, void,
       * datetimes */
      [14] = {kDLComplex, 8},
      [15] = {kDLComplex, 16},
      [23] = {kDLFloat, 2},
  };
  if (type_num < 0 || type_num >= 24 || types[type_num].size == 0) return -1;
  dt->code = types[type_num].code;
  dt->bits = (uint8_t)(types[type_num].size * 8);
  dt->lanes = 1;
  *itemsize = types[type_num].size;
  return 0;
}

/* The view of what NumPy's __dlpack__ would export for an array of these properties: 0, or -1 to fall
 * back (strides that are not whole elements, which __dlpack__ refuses; a failed import, which it
 * raises). dims holds 2 * DLX_MAX_NDIM entries. */
static int ndarray_view(dlx_view *v, void *data, int nd, const Py_ssize_t *shape, const Py_ssize_t *strides,
                        Py_ssize_t itemsize, DLDataType dt, int readonly, uint32_t alignment, int64_t *dims) {
  if (nd < 0 || nd > DLX_MAX_NDIM || (nd > 0 && (shape == NULL || strides == NULL))) return -1;
  for (int i = 0; i < nd; ++i) {
    if (strides[i] % itemsize != 0) return -1;
    dims[i] = shape[i];
    dims[nd + i] = strides[i] / itemsize;
  }
  DLManagedTensorVersioned m; /* no deleter: it only carries the description to the import */
  m.version.major = DLX_DLPACK_MAJOR;
  m.version.minor = DLX_DLPACK_MINOR;
  m.manager_ctx = NULL;
  m.deleter = NULL;
  m.flags = readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  m.dl_tensor.data = data;
  m.dl_tensor.device = (DLDevice){kDLCPU, 0};
  m.dl_tensor.ndim = nd;
  m.dl_tensor.dtype = dt;
  m.dl_tensor.shape = dims;
  m.dl_tensor.strides = dims + nd;
  m.dl_tensor.byte_offset = 0;
  dlx_import_spec spec = any_spec(0, alignment);
  return dlx_view_from_managed_versioned(v, &m, &spec) == DLX_OK ? 0 : -1;
}

/* A Tensor of x read through its fields, or NULL with no exception set when x takes __dlpack__ instead
 * (NULL with an exception only when out of memory). */
static PyObject *import_ndarray_fields(PyObject *x, uint32_t alignment) {
  const np_array *a = (const np_array *)x;
  DLDataType dt;
  Py_ssize_t itemsize;
  if (a->descr == NULL || a->descr->byteorder == NP_OTHER_ORDER || numpy_dtype(a->descr->type_num, &dt, &itemsize) != 0)
    return NULL;
  int64_t dims[2 * DLX_MAX_NDIM];
  dlx_view v;
  if (ndarray_view(&v, a->data, a->nd, a->dimensions, a->strides, itemsize, dt, !(a->flags & NP_ARRAY_WRITEABLE),
                   alignment, dims) != 0)
    return NULL;
  dlx_storage *s = dlx_py_storage_of_object(x, v.data, v.device); /* NumPy's capsule holds x too */
  if (s == NULL) return NULL;
  ++dlx_py_ndarray_path_hits;
  return dlx_py_tensor_wrap(s, &v, alignment);
}

PyObject *dlx_from_dlpack_impl(PyObject *x, uint32_t alignment, int copy) {
  return dlx_from_dlpack_impl_ex(x, alignment, copy, 1);
}

PyObject *dlx_from_dlpack_impl_ex(PyObject *x, uint32_t alignment, int copy, int ndarray_ok) {
  PyObject *t = NULL;
  if (Py_IS_TYPE(x, &dlx_TensorType)) {
    TensorObject *src = (TensorObject *)x;
    if (copy == 1) return copy_tensor(x);
    if (alignment && ((uintptr_t)src->view.data % alignment) != 0)
      return PyErr_Format(PyExc_BufferError, "data 0x%llx is not aligned to assumed_align=%u bytes",
                          (unsigned long long)(uintptr_t)src->view.data, alignment);
    return dlx_py_tensor_wrap(dlx__storage_retain(src->storage), &src->view, alignment ? alignment : src->alignment);
  }
  /* copy=True copies whatever the import is; the ndarray path only stands in for a zero-copy one */
  if (ndarray_ok && copy != 1 && dlx_py_ndarray_path == DLX_NDARRAY_AUTO && is_exact_ndarray(x) && numpy_fields_ok) {
    t = import_ndarray_fields(x, alignment);
    if (t != NULL || PyErr_Occurred()) return t;
  }
  const producer_quirks *quirks;
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
    t = dlx_py_import_versioned_owned(m, alignment);
  } else if (PyCapsule_CheckExact(x)) {
    t = import_capsule(x, alignment, NULL);
  } else {
    if (quirks != NULL && quirks->before_dlpack(x) != 0) return NULL;
    /* __dlpack_device__ first where a CUDA stream may have to be passed, as the standard's consumer does;
     * else after __dlpack__, so that a missing __dlpack__ is reported as such whatever the object's
     * __getattr__ does for the other name */
    DLDevice dev;
    const int early = dlx_cuda_device_count() > 0;
    int has_dev = early ? dlpack_device_of(x, &dev) : 0;
    if (has_dev < 0) return NULL;
    PyObject *cap = call_dlpack(x, has_dev ? &dev : NULL);
    if (cap == NULL) return NULL;
    if (!early && (has_dev = dlpack_device_of(x, &dev)) < 0) {
      PyObject *et, *ev, *tb; /* the unconsumed capsule's deleter may run Python code */
      PyErr_Fetch(&et, &ev, &tb);
      Py_DECREF(cap);
      PyErr_Restore(et, ev, tb);
      return NULL;
    }
    if (PyCapsule_CheckExact(cap)) {
      t = import_capsule(cap, alignment, has_dev ? &dev : NULL);
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
  }
  if (t != NULL && copy == 1) {
    PyObject *c = copy_tensor(t);
    Py_DECREF(t);
    return c;
  }
  return t;
}

/* ---- dlx_py_view without a managed tensor ---------------------------------------------------------- */

long dlx_py_borrowed_views;

/* A C extension's view (dlx/python.h) lives no longer than its handle, so where the producer fills a
 * DLTensor that borrows from the object (PyTorch's dltensor_from_py_object_no_sync: no allocation, no
 * deleter), a reference to the object is all the handle needs. The producer's refusals apply as on the
 * managed path (issue 12: what torch's __dlpack__ refuses, dlx refuses), and CUDA memory is ordered
 * after the producer's stream the same way. */
int dlx_py_view_borrowed(PyObject *obj, const dlx_import_spec *spec, dlx_view *view) {
  const producer_quirks *quirks;
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
    dlx_py_raise(st, PyExc_BufferError);
    return -1;
  }
  ++dlx_py_borrowed_views;
  return 1;
}

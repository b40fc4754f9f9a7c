/* dlx.Tensor for NumPy and every other reader of Python memory: the buffer protocol (PEP 3118),
 * Tensor.__array__ / numpy() / tolist(), and dlx.asarray.
 *
 * The extension is built without NumPy's headers (NumPy is optional), so NumPy is reached through
 * Python calls only: an ndarray is made from a memoryview of the tensor (NumPy's own buffer import,
 * zero-copy) and, for bfloat16 and the float8/6/4 formats, viewed as ml_dtypes' dtype of the same size.
 *
 * Narrow formats in the buffer protocol: PEP 3118 has no format for bfloat16, float8, float6 or float4
 * (nor for int128, float128, complex32). A request with PyBUF_FORMAT is refused with BufferError rather
 * than answered with the bits' unsigned type ('H' for bfloat16): NumPy asks for the buffer before it
 * calls __array__, so 'H' would make np.asarray(bf16_tensor) a uint16 array without a word, while a
 * refusal sends NumPy on to __array__, which gives ml_dtypes' bfloat16. A request without PyBUF_FORMAT
 * means "bytes" (PEP 3118: format NULL is 'B'), so it is served, with itemsize the element's size.
 * Packed float6/float4 elements are not byte-addressable: refused whatever the flags. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/oneapi.h"
#include "dlx/ops.h"

/* The format codes below name C types by their sizes on every platform CPython supports. */
_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long long) == 8, "PEP 3118 codes h/i/q");

/* ---- exceptions as objects (PyErr_GetRaisedException is Python 3.12's) ----------------------------- */

static PyObject *fetch_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != NULL) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return value;
#endif
}

static void restore_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exc);
#else
  Py_INCREF(Py_TYPE(exc));
  PyErr_Restore((PyObject *)Py_TYPE(exc), exc, PyException_GetTraceback(exc));
#endif
}

/* ---- host memory only ----------------------------------------------------------------------------- */

/* 1 when the host can read t's memory: host-accessible device types, and oneAPI host or shared USM
 * (asked of the runtime: the device type alone does not say). *usm names device USM for messages. */
static int host_readable(const dlx__py_tensor *t, const char **usm) {
  DLDevice d = t->view.device;
  *usm = "";
  if (dlx_device_is_host_accessible(d)) return 1;
  if (d.device_type == kDLOneAPI && t->view.data != NULL) {
    dlx_oneapi_usm k = DLX_ONEAPI_USM_UNKNOWN;
    if (dlx_oneapi_usm_kind(t->view.data, d.device_id, &k) == DLX_OK) {
      if (k == DLX_ONEAPI_USM_SHARED || k == DLX_ONEAPI_USM_HOST) return 1;
      *usm = " (device USM)";
    }
  }
  return 0;
}

/* -1 with exc when t's memory is not readable by the host. The message says where the data is and how to
 * bring it over (Tensor.to copies from any device). */
static int require_host(const dlx__py_tensor *t, PyObject *exc, const char *what) {
  DLDevice d = t->view.device;
  const char *usm;
  if (host_readable(t, &usm)) return 0;
  /* a tensor only ever holds a known device type, and every known type has a name */
  PyErr_Format(exc, "%s: the tensor is in %s:%d memory%s, which the host cannot read; copy it to the host first: "
               "t.to(\"cpu\")", what, dlx_device_type_name(d.device_type), (int)d.device_id, usm);
  return -1;
}

/* ---- dtypes --------------------------------------------------------------------------------------- */

static DLDataType one_lane(DLDataType dt) { return DLX_DTYPE_MAKE(dt.code, dt.bits, 1); }

/* The PEP 3118 format of a one-lane dtype, spelled as NumPy's own buffers spell it (int64 is 'l' where
 * long has 64 bits), or NULL when the format language has none. */
static const char *pep3118_format(DLDataType dt) {
  switch (dt.code) {
    case DLX_CODE_BOOL: return dt.bits == 8 ? "?" : NULL;
    case DLX_CODE_INT:
      switch (dt.bits) {
        case 8: return "b";
        case 16: return "h";
        case 32: return "i";
        case 64: return sizeof(long) == 8 ? "l" : "q";
        default: return NULL;
      }
    case DLX_CODE_UINT:
      switch (dt.bits) {
        case 8: return "B";
        case 16: return "H";
        case 32: return "I";
        case 64: return sizeof(long) == 8 ? "L" : "Q";
        default: return NULL;
      }
    case DLX_CODE_FLOAT: return dt.bits == 16 ? "e" : dt.bits == 32 ? "f" : dt.bits == 64 ? "d" : NULL;
    case DLX_CODE_COMPLEX: return dt.bits == 64 ? "Zf" : dt.bits == 128 ? "Zd" : NULL;
    default: return NULL;
  }
}

/* bfloat16, the float8 formats, float6 and float4: the dtypes ml_dtypes gives NumPy. */
static int is_narrow_float(DLDataType dt) {
  return dt.code == DLX_CODE_BFLOAT || (dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT4_E2M1FN);
}

/* Vectors of float6/float4 lanes: the lanes of one element share bytes (float4_e2m1fnx2 is one byte). */
static int lanes_share_bytes(DLDataType dt) { return dt.lanes > 1 && dt.bits % 8 != 0; }

static int is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* ---- the buffer protocol -------------------------------------------------------------------------- */

/* What a Py_buffer points into, freed by bf_releasebuffer: shape and strides (Py_ssize_t, bytes), and
 * the format of a vector dtype ("(4)f"). */
typedef struct buffer_info {
  char format[32];
  Py_ssize_t dims[]; /* shape[ndim], then strides[ndim] */
} buffer_info;

/* The address an empty tensor exports when its data is NULL (DLPack allows that): consumers such as
 * NumPy read a NULL buf as "allocate for me", so an empty buffer points at this instead. */
static max_align_t empty_data;

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  const dlx_view *v = &t->view;
  char name[DLX_DTYPE_NAME_MAX];
  view->obj = NULL;
  if (require_host(t, PyExc_BufferError, "dlx.Tensor buffer") != 0) return -1;
  if (is_packed(v)) {
    PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: packed %s elements are not byte-addressable; t.numpy() "
                 "unpacks them into ml_dtypes' one-byte type (a copy)", dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && (v->flags & DLX_VIEW_READ_ONLY)) {
    PyErr_SetString(PyExc_BufferError, "dlx.Tensor buffer: the tensor is read-only, a writable buffer was requested");
    return -1;
  }
  const char *fmt = pep3118_format(one_lane(v->dtype));
  if ((flags & PyBUF_FORMAT) && fmt == NULL) {
    dlx__dtype_text(name, sizeof name, v->dtype);
    if (is_narrow_float(v->dtype))
      PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s has no PEP 3118 format; t.numpy() gives an ml_dtypes "
                   "array without a copy, a buffer of its bits needs no format (or t.view() as an unsigned type)",
                   name);
    else
      PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s has no PEP 3118 format; request the buffer without "
                   "PyBUF_FORMAT to read its bytes", name);
    return -1;
  }
  const int32_t nd = v->ndim;
  const Py_ssize_t itemsize = (Py_ssize_t)dlx_dtype_itemsize(v->dtype);
  const int64_t n = dlx_view_size(v);
  if (n > PY_SSIZE_T_MAX / itemsize) { /* only a broadcast view can claim that many bytes */
    PyErr_SetString(PyExc_BufferError, "dlx.Tensor buffer: the tensor has more bytes than a buffer can describe");
    return -1;
  }
  const int c_contig = dlx_view_is_c_contiguous(v), f_contig = dlx_view_is_f_contiguous(v);
  /* Without strides a consumer reads the memory as C-contiguous (PEP 3118), so that is all it gets. */
  const int want_shape = (flags & PyBUF_ND) == PyBUF_ND, want_strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
  const char *refuse = NULL;
  if (!want_strides && !c_contig) refuse = "the tensor is not C-contiguous and no strides were requested";
  else if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig) refuse = "the tensor is not C-contiguous";
  else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contig)
    refuse = "the tensor is not Fortran-contiguous";
  else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !f_contig)
    refuse = "the tensor is neither C- nor Fortran-contiguous";
  if (refuse) {
    PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s (layout %R); copy it first (t.reshape(-1) or "
                 "dlx.asarray(t, copy=True))", refuse, self);
    return -1;
  }
  buffer_info *info = NULL;
  const int vector_format = fmt != NULL && (flags & PyBUF_FORMAT) && v->dtype.lanes > 1;
  if ((want_shape && nd > 0) || vector_format) {
    info = PyMem_Malloc(sizeof(buffer_info) + 2 * (size_t)nd * sizeof(Py_ssize_t));
    if (info == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    /* A contiguous tensor exports the compact strides of its order (C unless Fortran was asked for), as
     * NumPy does: strides of extent-1 dimensions are never applied, so they may be anything, and some
     * consumers test contiguity by comparing every stride. */
    const int order = c_contig && !((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && f_contig) ? 'C'
                      : f_contig                                                                 ? 'F'
                                                                                                 : 0;
    Py_ssize_t step = itemsize;
    for (int32_t k = 0; k < nd; ++k) {
      const int32_t i = order == 'C' ? nd - 1 - k : k;
      const int64_t s = v->strides[i];
      info->dims[i] = (Py_ssize_t)v->shape[i];
      if (order) info->dims[nd + i] = step;
      /* a stride too large to scale to bytes is that of an extent-1 dimension (the import checked the
       * span of the others): never applied, exported as 0 */
      else if (s > PY_SSIZE_T_MAX / itemsize || s < -PY_SSIZE_T_MAX / itemsize) info->dims[nd + i] = 0;
      else info->dims[nd + i] = (Py_ssize_t)s * itemsize;
      /* only an empty tensor's extents can multiply past the bytes a buffer holds: its strides are
       * never applied either, and from there they are 0 */
      step = v->shape[i] > 0 && step > PY_SSIZE_T_MAX / v->shape[i] ? 0 : step * (Py_ssize_t)v->shape[i];
    }
    if (vector_format) snprintf(info->format, sizeof info->format, "(%u)%s", (unsigned)v->dtype.lanes, fmt);
  }
  view->buf = v->data != NULL ? v->data : (void *)&empty_data;
  view->obj = self; /* the tensor holds the storage: the memory lives until PyBuffer_Release */
  Py_INCREF(self);
  view->len = (Py_ssize_t)n * itemsize;
  view->readonly = (v->flags & DLX_VIEW_READ_ONLY) != 0;
  view->itemsize = itemsize;
  view->format = (flags & PyBUF_FORMAT) ? (vector_format ? info->format : (char *)fmt) : NULL;
  /* as PyBuffer_FillInfo: a request without PyBUF_ND sees one dimension of len bytes */
  view->ndim = want_shape ? nd : 1;
  view->shape = want_shape && nd > 0 ? info->dims : NULL;
  view->strides = want_strides && nd > 0 ? info->dims + nd : NULL;
  view->suboffsets = NULL; /* never indirect: every PyBUF_INDIRECT consumer accepts NULL */
  view->internal = info;
  return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view) {
  (void)self;
  PyMem_Free(view->internal);
}

PyBufferProcs dlx__py_tensor_as_buffer = {tensor_getbuffer, tensor_releasebuffer};

/* ---- Tensor -> NumPy ------------------------------------------------------------------------------ */

static PyObject *import_attr(const char *module, const char *attr) {
  PyObject *m = PyImport_ImportModule(module);
  if (m == NULL) return NULL;
  PyObject *a = PyObject_GetAttrString(m, attr);
  Py_DECREF(m);
  return a;
}

/* ml_dtypes' scalar type for a narrow dtype. NULL with TypeError (chained to the ImportError or
 * AttributeError) when ml_dtypes, or that type in it, is missing: *missing is then set. */
static PyObject *ml_dtypes_type(DLDataType dt, int *missing) {
  const char *name = dlx_dtype_name(one_lane(dt));
  PyObject *type = import_attr("ml_dtypes", name);
  if (type != NULL) return type;
  if (!PyErr_ExceptionMatches(PyExc_ImportError) && !PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
  *missing = 1;
  PyObject *cause = fetch_exception();
  PyErr_Format(PyExc_TypeError, "%s reaches NumPy as ml_dtypes.%s, which is not available (%S); install ml_dtypes, "
               "or convert first, e.g. t.astype(\"float32\")", name, name, cause);
  PyObject *exc = fetch_exception();
  PyException_SetCause(exc, cause); /* steals cause */
  restore_exception(exc);
  return NULL;
}

/* How a tensor becomes an ndarray: NumPy reads src's buffer, and the array is then viewed as ml_type
 * when that is set. */
typedef struct np_plan {
  PyObject *src;     /* the tensor whose buffer NumPy imports (a new reference) */
  PyObject *ml_type; /* ml_dtypes scalar type, or NULL */
  int copied;        /* src is a new copy (packed float6/float4, unpacked) */
} np_plan;

/* 0, or -1 with an exception (TypeError when NumPy cannot hold the dtype; *missing set when only
 * ml_dtypes is lacking). */
static int plan_numpy(dlx__py_tensor *t, np_plan *p, int *missing, const char *what) {
  const dlx_view *v = &t->view;
  char name[DLX_DTYPE_NAME_MAX];
  memset(p, 0, sizeof *p);
  if (require_host(t, PyExc_TypeError, what) != 0) return -1;
  if (pep3118_format(one_lane(v->dtype)) != NULL) {
    Py_INCREF(t);
    p->src = (PyObject *)t;
    return 0;
  }
  if (!is_narrow_float(v->dtype)) {
    PyErr_Format(PyExc_TypeError, "%s: NumPy has no dtype for %s; convert first with t.astype()", what,
                 dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if (lanes_share_bytes(v->dtype)) {
    PyErr_Format(PyExc_TypeError, "%s: the lanes of %s share bytes, which no NumPy dtype describes", what,
                 dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if ((p->ml_type = ml_dtypes_type(v->dtype, missing)) == NULL) return -1;
  if (is_packed(v)) {
    /* ml_dtypes keeps one code per byte in the low bits, which is DLPack's padded form: unpack into
     * a uint8 tensor through a padded view of its memory */
    PyObject *u = dlx__py_tensor_new_owned(v->ndim, v->shape, DLX_DTYPE_UINT8, 0);
    if (u == NULL) goto fail;
    dlx_view padded = ((dlx__py_tensor *)u)->view;
    padded.dtype = v->dtype;
    padded.flags = DLX_VIEW_SUBBYTE_PADDED;
    /* the memory is host-readable (require_host): the CPU loops unpack it, whatever its label */
    dlx_view host = *v;
    host.device = (DLDevice){kDLCPU, 0};
    dlx_status st;
    DLX__PY_RUN_OP(st, dlx_view_size(v), dlx_copy(&padded, &host));
    if (st != DLX_OK) {
      Py_DECREF(u);
      dlx__py_raise_op(st);
      goto fail;
    }
    p->src = u;
    p->copied = 1;
    return 0;
  }
  /* the same bytes as the unsigned type of the lane's size, which has a format */
  dlx_view alias = *v;
  alias.dtype = DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * dlx_dtype_itemsize(one_lane(v->dtype)), v->dtype.lanes);
  alias.flags &= ~(uint32_t)DLX_VIEW_SUBBYTE_PADDED;
  if ((p->src = dlx__py_wrap_view(t, &alias)) != NULL) return 0;
fail:
  Py_CLEAR(p->ml_type);
  return -1;
}

/* The ndarray of a plan: zero-copy over src (read-only when src is). */
static PyObject *run_plan(np_plan *p) {
  PyObject *arr = NULL, *mv = PyMemoryView_FromObject(p->src), *asarray = NULL;
  if (mv == NULL || (asarray = import_attr("numpy", "asarray")) == NULL) goto done;
  /* through the memoryview, not the tensor: NumPy would answer a failed buffer import by calling
   * __array__, which is where this came from */
  arr = PyObject_CallOneArg(asarray, mv);
  if (arr != NULL && p->ml_type != NULL) {
    PyObject *viewed = PyObject_CallMethod(arr, "view", "O", p->ml_type);
    Py_SETREF(arr, viewed);
  }
done:
  Py_XDECREF(mv);
  Py_XDECREF(asarray);
  Py_CLEAR(p->src);
  Py_CLEAR(p->ml_type);
  return arr;
}

PyObject *dlx__py_tensor_numpy(PyObject *self, PyObject *unused) {
  (void)unused;
  np_plan p;
  int missing = 0;
  if (plan_numpy((dlx__py_tensor *)self, &p, &missing, "dlx.Tensor.numpy()") != 0) return NULL;
  return run_plan(&p);
}

/* copy=: None -1, False 0, True 1 (bools only, as from_dlpack takes it). -1 + TypeError. */
static int parse_copy(PyObject *o, int *copy) {
  *copy = o == Py_None ? -1 : o == Py_True;
  if (o == Py_None || PyBool_Check(o)) return 0;
  PyErr_Format(PyExc_TypeError, "copy must be True, False or None, not %.100s", Py_TYPE(o)->tp_name);
  return -1;
}

/* obj.method(arg, copy=False), or obj.method(copy=False) when arg is NULL. */
static PyObject *call_with_copy_false(PyObject *obj, const char *method, PyObject *arg) {
  PyObject *name = PyUnicode_FromString(method), *kwnames = PyTuple_Pack(1, dlx__py_str_copy), *r = NULL;
  PyObject *call[3] = {obj, arg ? arg : Py_False, Py_False};
  if (name != NULL && kwnames != NULL) r = PyObject_VectorcallMethod(name, call, arg ? 2 : 1, kwnames);
  Py_XDECREF(name);
  Py_XDECREF(kwnames);
  return r;
}

static PyObject *copy_refused(const char *what, const char *why) {
  return PyErr_Format(PyExc_ValueError, "%s: copy=False, but %s needs a copy", what, why);
}

/* __array__(dtype=None, copy=None), NumPy 2's protocol: zero-copy when dtype allows, ValueError for
 * copy=False when it does not, a new array for copy=True. */
PyObject *dlx__py_tensor_array(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"dtype", "copy", NULL};
  static const char what[] = "dlx.Tensor.__array__";
  PyObject *dtype = Py_None, *copy_obj = Py_None, *arr = NULL;
  int copy;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kw, &dtype, &copy_obj)) return NULL;
  if (parse_copy(copy_obj, &copy) != 0) return NULL;
  np_plan p;
  int missing = 0;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (plan_numpy(t, &p, &missing, what) != 0) {
    DLDataType dt;
    /* without ml_dtypes a narrow tensor still converts to a dtype NumPy has, through dlx's cast */
    if (!missing || dtype == Py_None) return NULL;
    PyObject *exc = fetch_exception();
    if (dlx__py_parse_dtype(dtype, &dt) != 0 || is_narrow_float(dt)) {
      PyErr_Clear();
      restore_exception(exc);
      return NULL;
    }
    Py_DECREF(exc);
    if (copy == 0) return copy_refused(what, "a dtype conversion");
    PyObject *c = dlx__py_cast_new(&t->view, dt);
    const int r = c ? plan_numpy((dlx__py_tensor *)c, &p, &missing, what) : -1;
    Py_XDECREF(c);
    return r == 0 ? run_plan(&p) : NULL;
  }
  int copied = p.copied;
  if ((arr = run_plan(&p)) == NULL) return NULL;
  if (dtype != Py_None) {
    /* NumPy's astype: copy=False returns the array itself when the dtype is already right */
    PyObject *conv = call_with_copy_false(arr, "astype", dtype);
    if (conv == NULL) goto fail;
    copied |= conv != arr;
    Py_SETREF(arr, conv);
  }
  if (copy == 0 && copied) {
    copy_refused(what, p.copied ? "unpacking packed sub-byte elements" : "a dtype conversion");
    goto fail;
  }
  if (copy == 1 && !copied) Py_SETREF(arr, PyObject_CallMethod(arr, "copy", "s", "K"));
  return arr;
fail:
  Py_DECREF(arr);
  return NULL;
}

/* ---- tolist --------------------------------------------------------------------------------------- */

/* A 128-bit integer (two's complement when signed) as a Python int. */
static PyObject *int128_to_py(const unsigned char *p, int is_signed) {
  uint64_t w[2];
  memcpy(w, p, 16);
  const uint64_t lo = w[PY_LITTLE_ENDIAN ? 0 : 1], hi = w[PY_LITTLE_ENDIAN ? 1 : 0];
  PyObject *h = is_signed ? PyLong_FromLongLong((long long)hi) : PyLong_FromUnsignedLongLong(hi);
  PyObject *l = PyLong_FromUnsignedLongLong(lo), *sixty_four = PyLong_FromLong(64), *r = NULL;
  if (h != NULL && l != NULL && sixty_four != NULL) {
    /* (hi << 64) has 64 zero low bits, so or-ing lo in adds it, for a negative hi as well */
    PyObject *shifted = PyNumber_Lshift(h, sixty_four);
    if (shifted != NULL) r = PyNumber_Or(shifted, l);
    Py_XDECREF(shifted);
  }
  Py_XDECREF(h);
  Py_XDECREF(l);
  Py_XDECREF(sixty_four);
  return r;
}

static PyObject *scalar_to_py(const unsigned char *p, DLDataType dt) {
  switch (dt.code) {
    case DLX_CODE_BOOL: return PyBool_FromLong(*p != 0);
    case DLX_CODE_INT:
    case DLX_CODE_UINT: {
      if (dt.bits == 128) return int128_to_py(p, dt.code == DLX_CODE_INT);
      uint64_t x;
      memcpy(&x, p, 8);
      return dt.code == DLX_CODE_INT ? PyLong_FromLongLong((long long)x) : PyLong_FromUnsignedLongLong(x);
    }
    case DLX_CODE_COMPLEX: {
      double z[2];
      memcpy(z, p, 16);
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    default: {
      double x;
      memcpy(&x, p, 8);
      return PyFloat_FromDouble(x);
    }
  }
}

/* Nested lists of the compact view c, from dimension d on, of the block at p. */
static PyObject *nested_list(const dlx_view *c, int32_t d, const unsigned char *p, size_t block) {
  if (d == c->ndim) return scalar_to_py(p, c->dtype);
  const Py_ssize_t n = (Py_ssize_t)c->shape[d];
  const size_t sub = n ? block / (size_t)n : 0;
  PyObject *list = PyList_New(n);
  for (Py_ssize_t i = 0; list != NULL && i < n; ++i) {
    PyObject *item = nested_list(c, d + 1, p + (size_t)i * sub, sub);
    if (item == NULL) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, item);
  }
  return list;
}

/* tolist(): NumPy's, with the dtype's Python scalars: bool, int, float (float16, bfloat16 and the
 * float8/6/4 formats exactly, through float64), complex. A vector dtype's lanes are the innermost list. */
PyObject *dlx__py_tensor_tolist(PyObject *self, PyObject *unused) {
  (void)unused;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (require_host(t, PyExc_TypeError, "dlx.Tensor.tolist()") != 0) return NULL;
  dlx_view src = t->view;
  src.device = (DLDevice){kDLCPU, 0}; /* host-readable (above): the CPU loops read it, whatever its label */
  char name[DLX_DTYPE_NAME_MAX];
  const uint16_t lanes = src.dtype.lanes;
  if (lanes > 1) {
    if (lanes_share_bytes(src.dtype) || src.ndim == DLX_MAX_NDIM)
      return PyErr_Format(PyExc_TypeError, "dlx.Tensor.tolist(): cannot split %s into lanes here",
                          dlx__dtype_text(name, sizeof name, src.dtype));
    /* lanes as a last dimension of stride 1 (strides count elements, so the others scale by lanes; an
     * extent-1 dimension's stride, which may be anything, is never applied) */
    for (int32_t i = 0; i < src.ndim; ++i) src.strides[i] = src.shape[i] > 1 ? src.strides[i] * lanes : 0;
    src.shape[src.ndim] = lanes;
    src.strides[src.ndim++] = 1;
    src.dtype = one_lane(src.dtype);
  }
  DLDataType to;
  const DLDataType dt = src.dtype;
  switch (dt.code) {
    case DLX_CODE_BOOL: to = DLX_DTYPE_BOOL; break;
    case DLX_CODE_INT: to = dt.bits == 128 ? dt : DLX_DTYPE_INT64; break;
    case DLX_CODE_UINT: to = dt.bits == 128 ? dt : DLX_DTYPE_UINT64; break;
    case DLX_CODE_COMPLEX: to = DLX_DTYPE_COMPLEX128; break;
    case DLX_CODE_OPAQUE_HANDLE:
      return PyErr_Format(PyExc_TypeError, "dlx.Tensor.tolist(): %s has no Python value",
                          dlx__dtype_text(name, sizeof name, dt));
    default: to = DLX_DTYPE_FLOAT64; break; /* the cast refuses float128, which a float cannot hold */
  }
  PyObject *c = dlx__py_tensor_new_owned(src.ndim, src.shape, to, 0);
  if (c == NULL) return NULL;
  dlx_view *cv = &((dlx__py_tensor *)c)->view;
  dlx_status st;
  if (dlx_dtype_equal(to, dt)) DLX__PY_RUN_OP(st, dlx_view_size(&src), dlx_copy(cv, &src));
  else DLX__PY_RUN_OP(st, dlx_view_size(&src), dlx_cast(cv, &src));
  PyObject *r = st == DLX_OK ? nested_list(cv, 0, cv->data, (size_t)dlx_view_size(cv) * dlx_dtype_itemsize(to))
                             : dlx__py_raise_op(st);
  Py_DECREF(c);
  return r;
}

const char dlx__py_doc_array[] =
    "__array__($self, /, dtype=None, copy=None)\n--\n\n"
    "NumPy's conversion protocol (NumPy 2): the tensor's memory without a copy when dtype allows it;\n"
    "copy=False raises ValueError when a copy is needed, copy=True always copies. NumPy calls it for\n"
    "the dtypes the buffer protocol has no format for (bfloat16, float8/6/4: ml_dtypes' dtypes).";
const char dlx__py_doc_numpy[] =
    "numpy($self, /)\n--\n\n"
    "The tensor as a numpy.ndarray sharing its memory (read-only when the tensor is). bfloat16 and the\n"
    "float8 formats become ml_dtypes' dtypes without a copy, as do padded float6/float4; packed\n"
    "float6/float4 are unpacked into ml_dtypes' one-byte types, which is a copy. Host memory only.";
/* item(): the one element as tolist() gives it, from any memory (device memory is copied to the host). */
PyObject *dlx__py_tensor_item(PyObject *self, PyObject *unused) {
  (void)unused;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  const int64_t n = dlx_view_size(&t->view);
  char name[DLX_DTYPE_NAME_MAX];
  if (n != 1)
    return PyErr_Format(PyExc_TypeError, "only a tensor of one element converts to a Python scalar (this one has "
                        "%lld)", (long long)n);
  if (t->view.dtype.lanes != 1)
    return PyErr_Format(PyExc_TypeError, "an element of %s is a vector, not a Python scalar (tolist() gives its "
                        "lanes)", dlx__dtype_text(name, sizeof name, t->view.dtype));
  const char *usm;
  PyObject *host = NULL;
  if (!host_readable(t, &usm) && (host = dlx__py_to_device(self, (DLDevice){kDLCPU, 0}, 1, PyExc_ValueError)) == NULL)
    return NULL;
  dlx__py_tensor *h = host != NULL ? (dlx__py_tensor *)host : t;
  /* the element as a 0-d view of the same storage: the view's data already points at it */
  dlx_view v = h->view;
  v.ndim = 0;
  PyObject *zero_d = dlx__py_wrap_view(h, &v);
  Py_XDECREF(host);
  if (zero_d == NULL) return NULL;
  PyObject *r = dlx__py_tensor_tolist(zero_d, NULL);
  Py_DECREF(zero_d);
  return r;
}

/* float(t), int(t), complex(t) and operator.index(t): Python's own conversions of item(), as NumPy's
 * scalars convert (int() truncates a float, NaN is ValueError and infinity OverflowError there; a complex
 * is TypeError for float() and int()). __index__ takes integer tensors only (the Array API's rule). */
static PyObject *item_as(PyObject *self, PyObject *(*convert)(PyObject *)) {
  PyObject *x = dlx__py_tensor_item(self, NULL);
  if (x == NULL) return NULL;
  PyObject *r = convert(x);
  Py_DECREF(x);
  return r;
}

static PyObject *to_complex(PyObject *x) { return PyObject_CallOneArg((PyObject *)&PyComplex_Type, x); }

PyObject *dlx__py_tensor_float(PyObject *self) { return item_as(self, PyNumber_Float); }

PyObject *dlx__py_tensor_int(PyObject *self) { return item_as(self, PyNumber_Long); }

PyObject *dlx__py_tensor_index(PyObject *self) {
  const DLDataType dt = ((dlx__py_tensor *)self)->view.dtype;
  if (dt.code != DLX_CODE_INT && dt.code != DLX_CODE_UINT) {
    char name[DLX_DTYPE_NAME_MAX];
    return PyErr_Format(PyExc_TypeError, "only an integer tensor of one element can be an index, not %s",
                        dlx__dtype_text(name, sizeof name, dt));
  }
  return item_as(self, PyNumber_Long);
}

PyObject *dlx__py_tensor_complex(PyObject *self, PyObject *unused) {
  (void)unused;
  return item_as(self, to_complex);
}

const char dlx__py_doc_item[] =
    "item($self, /)\n--\n\n"
    "The one element as a Python scalar (bool, int, float or complex, as tolist() gives it), copied\n"
    "from device memory when needed. TypeError unless the tensor has exactly one element.";

const char dlx__py_doc_tolist[] =
    "tolist($self, /)\n--\n\n"
    "Nested lists of Python scalars (bool, int, float, complex), as numpy.ndarray.tolist(); a 0-d\n"
    "tensor gives a scalar. Narrow floats are Python floats holding their exact values.";

/* ---- dlx.asarray ---------------------------------------------------------------------------------- */

/* device= of asarray: t (a reference taken over) where want says (NULL: where it is). A tensor already
 * there (host-accessible memory counts as "cpu") is kept; otherwise it moves with Tensor.to's copy, which
 * copy=False refuses (ValueError, as the Array API asks). *fresh is set when the result is a new copy. */
static PyObject *to_device(PyObject *t, const DLDevice *want, int copy, int *fresh) {
  if (want == NULL || dlx__py_is_on(((dlx__py_tensor *)t)->view.device, *want)) return t;
  if (copy == 0) {
    Py_DECREF(t);
    return copy_refused("dlx.asarray", "moving the data to another device");
  }
  PyObject *r = dlx__py_to_device(t, *want, 1, PyExc_ValueError); /* as Tensor.to */
  Py_DECREF(t);
  if (r != NULL) *fresh = 1;
  return r;
}

/* An ndarray of an ml_dtypes dtype, which NumPy does not export through DLPack, imported as the
 * unsigned type of its size and relabelled (float6/float4, one per byte, as padded). NULL with no
 * exception when obj is not such an array. */
static PyObject *import_ml_dtypes_array(PyObject *obj) {
  PyObject *descr = PyObject_GetAttrString(obj, "dtype"), *name = NULL, *size = NULL, *u = NULL, *t = NULL;
  DLDataType dt;
  Py_ssize_t len;
  const char *s;
  if (descr == NULL || (name = PyObject_GetAttrString(descr, "name")) == NULL ||
      (size = PyObject_GetAttrString(descr, "itemsize")) == NULL || !PyUnicode_Check(name) ||
      (s = PyUnicode_AsUTF8AndSize(name, &len)) == NULL || dlx_dtype_parse_n(s, (size_t)len, &dt) != DLX_OK ||
      !is_narrow_float(dt) || dt.lanes != 1 || PyLong_AsSsize_t(size) != (Py_ssize_t)dlx_dtype_itemsize(dt))
    goto done;
  if ((u = PyObject_CallMethod(obj, "view", "s", dt.bits > 8 ? "uint16" : "uint8")) == NULL) goto done;
  if ((t = dlx__py_from_dlpack(u, 0, -1)) != NULL) {
    /* a new Tensor of this call's own, not yet seen by anyone: relabelled in place */
    dlx__py_tensor *tt = (dlx__py_tensor *)t;
    tt->view.dtype = dt;
    if (dlx_dtype_is_subbyte(dt)) tt->view.flags |= DLX_VIEW_SUBBYTE_PADDED;
  }
done:
  if (t == NULL) PyErr_Clear();
  Py_XDECREF(descr);
  Py_XDECREF(name);
  Py_XDECREF(size);
  Py_XDECREF(u);
  return t;
}

/* A DLPack object, zero-copy (the ml_dtypes arrays NumPy cannot export included). */
static PyObject *import_dlpack(PyObject *obj) {
  PyObject *t = dlx__py_from_dlpack(obj, 0, -1);
  if (t != NULL || !(PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_TypeError))) return t;
  PyObject *exc = fetch_exception();
  if ((t = import_ml_dtypes_array(obj)) != NULL) {
    Py_DECREF(exc);
    return t;
  }
  restore_exception(exc);
  return NULL;
}

/* The dtype of a buffer's format (one native scalar, NumPy's subset of PEP 3118) and item size. -1 with
 * TypeError for anything else: structs, repeat counts, long double, pointers, the other byte order. */
static int dtype_of_format(const char *format, Py_ssize_t itemsize, DLDataType *dt) {
  const char *f = format ? format : "B";
  if (*f == '@' || *f == '=') {
    ++f;
  } else if (*f == '<' || *f == '>' || *f == '!') {
    if ((*f == '<') != PY_LITTLE_ENDIAN) goto refuse;
    ++f;
  }
  const int cplx = *f == 'Z';
  f += cplx;
  if (f[0] == '\0' || f[1] != '\0') goto refuse;
  int code, need = 0; /* need: the item size the code fixes */
  switch (f[0]) {
    case '?': code = DLX_CODE_BOOL, need = 1; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': code = DLX_CODE_INT; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': code = DLX_CODE_UINT; break;
    case 'e': code = DLX_CODE_FLOAT, need = 2; break;
    case 'f': code = DLX_CODE_FLOAT, need = 4; break;
    case 'd': code = DLX_CODE_FLOAT, need = 8; break;
    default: goto refuse;
  }
  if (cplx) {
    if (code != DLX_CODE_FLOAT) goto refuse;
    code = DLX_CODE_COMPLEX;
    need *= 2;
  }
  if ((need && itemsize != need) || (!need && itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8))
    goto refuse;
  *dt = DLX_DTYPE_MAKE(code, 8 * itemsize, 1);
  return 0;
refuse:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: no dlx dtype for buffer format '%s' (itemsize %zd)",
               format ? format : "B", itemsize);
  return -1;
}

/* A buffer object's memory, zero-copy and holding the buffer (a bytearray cannot resize meanwhile).
 * A buffer dlx cannot view in place (misaligned, or strides not a multiple of the item size) is copied
 * unless copy is False; *fresh tells that it was. */
static PyObject *import_buffer(PyObject *obj, int copy, int *fresh) {
  PyObject *mv = PyMemoryView_FromObject(obj), *t = NULL;
  if (mv == NULL) return NULL;
  /* a memoryview's own Py_buffer always has shape and strides for ndim >= 1 */
  const Py_buffer *b = PyMemoryView_GET_BUFFER(mv);
  DLDataType dt;
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
  if (dtype_of_format(b->format, b->itemsize, &dt) != 0) goto done;
  int in_place = (uintptr_t)b->buf % dlx_dtype_alignment(dt) == 0;
  for (int i = 0; i < b->ndim; ++i) {
    if (b->suboffsets != NULL && b->suboffsets[i] >= 0) {
      PyErr_SetString(PyExc_BufferError, "dlx.asarray: indirect buffers (PIL-style suboffsets) are not supported");
      goto done;
    }
    shape[i] = b->shape[i];
    strides[i] = b->strides[i] / b->itemsize;
    in_place &= b->strides[i] % b->itemsize == 0;
  }
  if (!in_place) {
    if (copy == 0) {
      copy_refused("dlx.asarray", "a buffer that is misaligned or strided in partial items");
      goto done;
    }
    /* CPython copies any strided buffer in C order, byte by byte where it must */
    if ((t = dlx__py_tensor_new_owned(b->ndim, shape, dt, 0)) != NULL &&
        PyBuffer_ToContiguous(((dlx__py_tensor *)t)->view.data, b, b->len, 'C') != 0)
      Py_CLEAR(t);
    *fresh = 1;
    goto done;
  }
  dlx_view v;
  const DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&v, b->buf, dt, cpu, b->ndim, shape, strides);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    goto done;
  }
  if (b->readonly) v.flags |= DLX_VIEW_READ_ONLY;
  dlx__storage *s = dlx__py_storage_of_object(mv, b->buf, cpu);
  if (s != NULL) t = dlx__py_tensor_wrap(s, &v, 0);
done:
  Py_DECREF(mv);
  return t;
}

/* ---- Python scalars and nested sequences ---- */

typedef struct seq_scan {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  int has_bool, has_int64, has_uint64, has_float, has_complex;
  PyObject *too_big; /* an int outside [-2^63, 2^64) (a reference) */
} seq_scan;

/* What nests: lists, tuples and ranges (NumPy takes any sequence; dlx only these, so that a str, an
 * array or a tensor among the scalars is an error, not a dimension). */
static int is_nested(PyObject *o) { return PyList_Check(o) || PyTuple_Check(o) || PyRange_Check(o); }

static int ragged(int32_t d) {
  PyErr_Format(PyExc_ValueError, "dlx.asarray: inhomogeneous nested sequence: its lengths or depths differ after %d "
               "dimension(s) (NumPy refuses it too)", d);
  return -1;
}

/* The shape, from the first element at each depth. */
static int discover_shape(PyObject *o, seq_scan *s) {
  Py_INCREF(o);
  while (is_nested(o)) {
    if (s->ndim == DLX_MAX_NDIM) {
      Py_DECREF(o);
      PyErr_Format(PyExc_ValueError, "dlx.asarray: sequences nested more than %d deep", DLX_MAX_NDIM);
      return -1;
    }
    Py_ssize_t n = PySequence_Size(o);
    PyObject *first = n > 0 ? PySequence_GetItem(o, 0) : NULL;
    Py_DECREF(o);
    if (n < 0 || (n > 0 && first == NULL)) return -1;
    s->shape[s->ndim++] = n;
    if (n == 0) return 0;
    o = first;
  }
  Py_DECREF(o);
  return 0;
}

static int classify(PyObject *o, seq_scan *s) {
  if (PyBool_Check(o)) {
    s->has_bool = 1;
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow == 0) {
      s->has_int64 = 1;
    } else if (overflow > 0 && !(PyLong_AsUnsignedLongLong(o) == (unsigned long long)-1 && PyErr_Occurred())) {
      s->has_uint64 = 1;
    } else {
      PyErr_Clear();
      if (s->too_big == NULL) {
        Py_INCREF(o);
        s->too_big = o;
      }
    }
  } else if (PyFloat_Check(o)) {
    s->has_float = 1;
  } else if (PyComplex_Check(o)) {
    s->has_complex = 1;
  } else {
    PyErr_Format(PyExc_TypeError, "dlx.asarray: expected bool, int, float, complex, or lists / tuples of them, not "
                 "%.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  return 0;
}

/* Checks that o is rectangular with s's shape, and notes its scalars' kinds. */
static int scan(PyObject *o, int32_t d, seq_scan *s) {
  if (d == s->ndim) return is_nested(o) ? ragged(d) : classify(o, s);
  if (!is_nested(o)) return ragged(d);
  PyObject *fast = PySequence_Fast(o, "dlx.asarray");
  if (fast == NULL) return -1;
  int r = PySequence_Fast_GET_SIZE(fast) == s->shape[d] ? 0 : ragged(d);
  for (Py_ssize_t i = 0; r == 0 && i < PySequence_Fast_GET_SIZE(fast); ++i)
    r = scan(PySequence_Fast_GET_ITEM(fast, i), d + 1, s);
  Py_DECREF(fast);
  return r;
}

typedef struct fill_ctx {
  DLDataType dt; /* the buffer's: bool, an integer of <= 64 bits, float64 or complex128 */
  unsigned char *p;
} fill_ctx;

/* o (bool, int or float) into an integer dtype, as NumPy's setitem: floats truncated, NaN ValueError,
 * infinity and values out of range OverflowError. */
static int put_int(PyObject *o, const fill_ctx *f) {
  PyObject *num = NULL;
  if (PyFloat_Check(o)) {
    double d = PyFloat_AS_DOUBLE(o);
    if (isnan(d)) {
      PyErr_SetString(PyExc_ValueError, "cannot convert float NaN to integer");
      return -1;
    }
    if (isinf(d)) {
      PyErr_SetString(PyExc_OverflowError, "cannot convert float infinity to integer");
      return -1;
    }
    if ((num = PyLong_FromDouble(d)) == NULL) return -1;
    o = num;
  } /* else a bool or an int: scan saw nothing else, and the integer conversions run no Python code */
  const int bits = f->dt.bits, is_signed = f->dt.code == DLX_CODE_INT;
  int overflow = 0, ok;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  uint64_t u = (uint64_t)x;
  if (x == -1 && PyErr_Occurred()) {
    Py_XDECREF(num);
    return -1;
  }
  if (overflow == 0) {
    const long long max = bits == 64 ? INT64_MAX : (1LL << (bits - is_signed)) - 1;
    ok = is_signed ? (x >= -max - 1 && x <= max) : (x >= 0 && (bits == 64 || x <= max));
  } else {
    ok = overflow > 0 && !is_signed && bits == 64;
    if (ok && (u = PyLong_AsUnsignedLongLong(o)) == (uint64_t)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      ok = 0;
    }
  }
  if (!ok) dlx__py_int_out_of_bounds(o, f->dt);
  Py_XDECREF(num);
  if (!ok) return -1;
  /* two's complement: the low bytes of x are the value in every width */
  switch (bits) {
    case 8: { uint8_t w = (uint8_t)u; memcpy(f->p, &w, 1); break; }
    case 16: { uint16_t w = (uint16_t)u; memcpy(f->p, &w, 2); break; }
    case 32: { uint32_t w = (uint32_t)u; memcpy(f->p, &w, 4); break; }
    default: memcpy(f->p, &u, 8); break;
  }
  return 0;
}

/* One scalar into the buffer at f->p (which then moves on). */
static int put(PyObject *o, fill_ctx *f) {
  char name[DLX_DTYPE_NAME_MAX];
  if (f->dt.code == DLX_CODE_BOOL) {
    int b = PyObject_IsTrue(o); /* NumPy's bool of a number: NaN and 0j + 1 are True */
    if (b < 0) return -1;
    *f->p = (unsigned char)b;
  } else if (f->dt.code == DLX_CODE_INT || f->dt.code == DLX_CODE_UINT) {
    if (PyComplex_Check(o)) goto complex_to_real;
    if (put_int(o, f) != 0) return -1;
  } else {
    Py_complex z = {0.0, 0.0};
    if (PyComplex_Check(o)) {
      if (f->dt.code != DLX_CODE_COMPLEX) goto complex_to_real;
      z = PyComplex_AsCComplex(o);
    } else {
      /* ints through double, as NumPy converts them (OverflowError past float64's range) */
      z.real = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
      if (z.real == -1.0 && PyErr_Occurred()) return -1;
    }
    memcpy(f->p, &z, f->dt.code == DLX_CODE_COMPLEX ? 16 : 8);
  }
  f->p += dlx_dtype_itemsize(f->dt);
  return 0;
complex_to_real:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: cannot convert complex to %s", dlx__dtype_text(name, sizeof name, f->dt));
  return -1;
}

/* Writes o's scalars in C order. The shape is checked again: converting a scalar may run Python code
 * (a float subclass's __bool__) that changes the lists. */
static int fill(PyObject *o, int32_t d, const seq_scan *s, fill_ctx *f) {
  if (d == s->ndim) {
    if (is_nested(o)) return ragged(d);
    Py_INCREF(o);
    int r = put(o, f);
    Py_DECREF(o);
    return r;
  }
  if (!is_nested(o)) return ragged(d);
  PyObject *fast = PySequence_Fast(o, "dlx.asarray");
  if (fast == NULL) return -1;
  int r = 0;
  for (Py_ssize_t i = 0; r == 0 && i < s->shape[d]; ++i) {
    if (PySequence_Fast_GET_SIZE(fast) != s->shape[d]) {
      r = ragged(d);
      break;
    }
    PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
    Py_INCREF(item);
    r = fill(item, d + 1, s, f);
    Py_DECREF(item);
  }
  Py_DECREF(fast);
  return r;
}

/* A new tensor of Python scalars or nested lists / tuples of them: NumPy 2's dtype (bool < int64 <
 * uint64 < float64 < complex128, int64 with uint64 is float64) or, given one, NumPy's setitem rules into
 * want: ints range-checked, floats truncated into integers, complex refused by real dtypes but bool. */
static PyObject *from_scalars(PyObject *obj, const DLDataType *want) {
  seq_scan s;
  memset(&s, 0, sizeof s);
  PyObject *t = NULL;
  char name[DLX_DTYPE_NAME_MAX];
  if (discover_shape(obj, &s) != 0 || scan(obj, 0, &s) != 0) goto done;
  DLDataType buf, out;
  if (want == NULL) {
    if (s.too_big != NULL) { /* where NumPy would make an object array */
      PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for int64 and uint64", s.too_big);
      goto done;
    }
    out = s.has_complex                   ? DLX_DTYPE_COMPLEX128
          : s.has_float                   ? DLX_DTYPE_FLOAT64
          : s.has_int64 && s.has_uint64   ? DLX_DTYPE_FLOAT64
          : s.has_uint64                  ? DLX_DTYPE_UINT64
          : s.has_int64                   ? DLX_DTYPE_INT64
          : s.has_bool                    ? DLX_DTYPE_BOOL
                                          : DLX_DTYPE_FLOAT64; /* empty: NumPy's default */
    buf = out;
  } else {
    out = *want;
    const int code = out.code;
    if (out.lanes != 1) goto unsupported;
    if (code == DLX_CODE_BOOL || ((code == DLX_CODE_INT || code == DLX_CODE_UINT) && out.bits <= 64)) buf = out;
    else if ((code == DLX_CODE_FLOAT && out.bits <= 64) || is_narrow_float(out)) buf = DLX_DTYPE_FLOAT64;
    else if (code == DLX_CODE_COMPLEX && out.bits >= 64) buf = DLX_DTYPE_COMPLEX128;
    else goto unsupported;
  }
  if ((t = dlx__py_tensor_new_owned(s.ndim, s.shape, buf, 0)) == NULL) goto done;
  fill_ctx f = {buf, ((dlx__py_tensor *)t)->view.data};
  if (fill(obj, 0, &s, &f) != 0) {
    Py_CLEAR(t);
    goto done;
  }
  if (!dlx_dtype_equal(buf, out)) Py_SETREF(t, dlx__py_cast_new(&((dlx__py_tensor *)t)->view, out));
  goto done;
unsupported:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: Python scalars do not convert to %s",
               dlx__dtype_text(name, sizeof name, *want));
done:
  Py_XDECREF(s.too_big);
  return t;
}

/* dlx.asarray(obj, /, *, dtype=None, device=None, copy=None), the Array API's. */
PyObject *dlx__py_asarray(PyObject *module, PyObject *args, PyObject *kwargs) {
  (void)module;
  static char *kw[] = {"", "dtype", "device", "copy", NULL};
  PyObject *obj, *dtype_obj = Py_None, *device = Py_None, *copy_obj = Py_None, *t;
  DLDataType dt;
  DLDevice where = {kDLCPU, 0};
  int copy, fresh = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOO:asarray", kw, &obj, &dtype_obj, &device, &copy_obj) ||
      parse_copy(copy_obj, &copy) != 0 || (dtype_obj != Py_None && dlx__py_parse_dtype(dtype_obj, &dt) != 0) ||
      (device != Py_None && dlx__py_parse_device(device, &where) != 0))
    return NULL;
  const DLDataType *want = dtype_obj != Py_None ? &dt : NULL;
  if (dlx__py_is_tensor(obj)) {
    Py_INCREF(obj);
    t = obj;
  } else if (PyObject_HasAttr(obj, dlx__py_str_dlpack) || PyCapsule_CheckExact(obj)) {
    t = import_dlpack(obj);
  } else if (PyObject_HasAttrString(obj, "dtype") && PyObject_HasAttrString(obj, "__array__")) {
    /* a NumPy scalar (numpy.float32(2), ml_dtypes.bfloat16(1)): its 0-d array. copy=False is passed on
     * (NumPy 2's protocol); an __array__ that takes no copy= (NumPy's scalars) promises nothing */
    PyObject *arr = copy != 0 ? PyObject_CallMethod(obj, "__array__", NULL)
                              : call_with_copy_false(obj, "__array__", NULL);
    if (arr == NULL && copy == 0 && PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      return copy_refused("dlx.asarray", "an __array__ without copy=");
    }
    t = arr ? import_dlpack(arr) : NULL;
    Py_XDECREF(arr);
  } else if (PyObject_CheckBuffer(obj) && !PyUnicode_Check(obj)) {
    t = import_buffer(obj, copy, &fresh);
  } else if (is_nested(obj) || PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj)) {
    if (copy == 0) return copy_refused("dlx.asarray", "a Python scalar or sequence");
    /* in host memory in the asked dtype: done but for the device */
    t = from_scalars(obj, want);
    return t == NULL ? NULL : to_device(t, device != Py_None ? &where : NULL, 1, &fresh);
  } else {
    return PyErr_Format(PyExc_TypeError, "dlx.asarray: cannot make a tensor of %.100s (expected a DLPack object, a "
                        "buffer, a Python scalar, or nested lists / tuples of scalars)", Py_TYPE(obj)->tp_name);
  }
  if (t == NULL) return NULL;
  const DLDevice *to = device != Py_None ? &where : NULL;
  const int moves = to != NULL && !dlx__py_is_on(((dlx__py_tensor *)t)->view.device, *to);
  /* a dtype conversion runs where dlx computes on the host: before a move off host memory, after a move
   * onto it (device USM cannot be computed on, and the copy engines move bytes either way) */
  const int convert_first = !moves || dlx_device_is_host_accessible(((dlx__py_tensor *)t)->view.device);
  if (!convert_first && (t = to_device(t, to, copy, &fresh)) == NULL) return NULL;
  dlx__py_tensor *tt = (dlx__py_tensor *)t;
  if (want != NULL && !dlx_dtype_equal(*want, tt->view.dtype)) {
    Py_SETREF(t, copy == 0 ? copy_refused("dlx.asarray", "a dtype conversion") : dlx__py_cast_new(&tt->view, *want));
  } else if (copy == 1 && !fresh && !(moves && convert_first)) { /* (a move still to come is the copy) */
    dlx__storage *s;
    dlx_view v;
    if (dlx__py_copy_compact(&tt->view, &s, &v) != 0) {
      Py_DECREF(t);
      return NULL;
    }
    v.flags &= ~(uint32_t)DLX_VIEW_READ_ONLY; /* a copy is the caller's own */
    Py_SETREF(t, dlx__py_tensor_wrap(s, &v, 0));
  }
  if (t != NULL && moves && convert_first) t = to_device(t, to, copy, &fresh);
  return t;
}

const char dlx__py_doc_asarray[] =
    "asarray(obj, /, *, dtype=None, device=None, copy=None)\n--\n\n"
    "A tensor of obj, the Array API's asarray: a dlx.Tensor or any DLPack object (also NumPy arrays of\n"
    "ml_dtypes' types), a buffer (bytes, bytearray, array.array, memoryview), a Python scalar, or nested\n"
    "lists / tuples of Python scalars (NumPy 2's dtype inference). copy=None reuses obj's memory when it\n"
    "can, copy=False never copies (ValueError when a copy is needed), copy=True always copies. dtype:\n"
    "as dlx.empty takes it; device: None (where obj's data is) or any device dlx.empty takes; data\n"
    "elsewhere is copied there (Tensor.to), which copy=False refuses.";

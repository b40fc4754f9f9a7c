/* dlx.Tensor for NumPy: Tensor.__array__ and Tensor.numpy(), the thin methods of NumPy's protocols (whose rules
 * are python/dlx/_numpy_protocol.py's), and what the NumPy bridge's files share
 * (buffer.c, tolist.c, fromlist.c and create.c's asarray): which memory the host can read, which dtypes
 * NumPy and PEP 3118 have, and NumPy 2's copy= protocol.
 *
 * The extension is built without NumPy's headers (NumPy is optional), so NumPy is reached through
 * Python calls only: an ndarray is made from a memoryview of the tensor (NumPy's own buffer import,
 * zero-copy) and, for bfloat16 and the float8/6/4 formats, viewed as ml_dtypes' dtype of the same size. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/oneapi.h"
#include "dlx/ops.h"

/* The format codes below name C types by their sizes on every platform CPython supports. */
_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long long) == 8, "PEP 3118 codes h/i/q");

/* ---- host memory only ----------------------------------------------------------------------------- */

/* 1 when the host can read t's memory: host-accessible device types, and oneAPI host or shared USM
 * (asked of the runtime: the device type alone does not say). *usm names device USM for messages. */
int dlx__py_host_readable(const dlx__py_tensor *t, const char **usm) {
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
int dlx__py_require_host(const dlx__py_tensor *t, PyObject *exc, const char *what) {
  DLDevice d = t->view.device;
  const char *usm;
  if (dlx__py_host_readable(t, &usm)) return 0;
  /* a tensor only ever holds a known device type, and every known type has a name */
  PyErr_Format(exc, "%s: the tensor is in %s:%d memory%s, which the host cannot read; copy it to the host first: "
               "t.to(\"cpu\")", what, dlx_device_type_name(d.device_type), (int)d.device_id, usm);
  return -1;
}

/* ---- dtypes --------------------------------------------------------------------------------------- */

DLDataType dlx__py_one_lane(DLDataType dt) { return DLX_DTYPE_MAKE(dt.code, dt.bits, 1); }

/* The PEP 3118 format of a one-lane dtype, spelled as NumPy's own buffers spell it (int64 is 'l' where
 * long has 64 bits), or NULL when the format language has none. */
const char *dlx__py_pep3118_format(DLDataType dt) {
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
int dlx__py_is_narrow_float(DLDataType dt) {
  return dt.code == DLX_CODE_BFLOAT || (dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT4_E2M1FN);
}

/* Vectors of float6/float4 lanes: the lanes of one element share bytes (float4_e2m1fnx2 is one byte). */
int dlx__py_lanes_share_bytes(DLDataType dt) { return dt.lanes > 1 && dt.bits % 8 != 0; }

int dlx__py_is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

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
  const char *name = dlx_dtype_name(dlx__py_one_lane(dt));
  PyObject *type = import_attr("ml_dtypes", name);
  if (type != NULL) return type;
  if (!PyErr_ExceptionMatches(PyExc_ImportError) && !PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
  *missing = 1;
  PyObject *cause = dlx__py_fetch_exception();
  PyErr_Format(PyExc_TypeError, "%s reaches NumPy as ml_dtypes.%s, which is not available (%S); install ml_dtypes, "
               "or convert first, e.g. t.astype(\"float32\")", name, name, cause);
  PyObject *exc = dlx__py_fetch_exception();
  PyException_SetCause(exc, cause); /* steals cause */
  dlx__py_restore_exception(exc);
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
  if (dlx__py_require_host(t, PyExc_TypeError, what) != 0) return -1;
  if (dlx__py_pep3118_format(dlx__py_one_lane(v->dtype)) != NULL) {
    Py_INCREF(t);
    p->src = (PyObject *)t;
    return 0;
  }
  if (!dlx__py_is_narrow_float(v->dtype)) {
    PyErr_Format(PyExc_TypeError, "%s: NumPy has no dtype for %s; convert first with t.astype()", what,
                 dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if (dlx__py_lanes_share_bytes(v->dtype)) {
    PyErr_Format(PyExc_TypeError, "%s: the lanes of %s share bytes, which no NumPy dtype describes", what,
                 dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if ((p->ml_type = ml_dtypes_type(v->dtype, missing)) == NULL) return -1;
  if (dlx__py_is_packed(v)) {
    /* ml_dtypes keeps one code per byte in the low bits, which is DLPack's padded form: unpack into
     * a uint8 tensor through a padded view of its memory */
    PyObject *u = dlx__py_tensor_new_owned(v->ndim, v->shape, DLX_DTYPE_UINT8, 0);
    if (u == NULL) goto fail;
    dlx_view padded = ((dlx__py_tensor *)u)->view;
    padded.dtype = v->dtype;
    padded.flags = DLX_VIEW_SUBBYTE_PADDED;
    /* the memory is host-readable (dlx__py_require_host): the CPU loops unpack it, whatever its label */
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
  alias.dtype = DLX_DTYPE_MAKE(DLX_CODE_UINT, 8 * dlx_dtype_itemsize(dlx__py_one_lane(v->dtype)), v->dtype.lanes);
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
int dlx__py_parse_copy(PyObject *o, int *copy) {
  *copy = o == Py_None ? -1 : o == Py_True;
  if (o == Py_None || PyBool_Check(o)) return 0;
  PyErr_Format(PyExc_TypeError, "copy must be True, False or None, not %.100s", Py_TYPE(o)->tp_name);
  return -1;
}

/* obj.method(arg, copy=False), or obj.method(copy=False) when arg is NULL. */
PyObject *dlx__py_call_with_copy_false(PyObject *obj, const char *method, PyObject *arg) {
  PyObject *name = PyUnicode_FromString(method), *kwnames = PyTuple_Pack(1, dlx__py_str_copy), *r = NULL;
  PyObject *call[3] = {obj, arg ? arg : Py_False, Py_False};
  if (name != NULL && kwnames != NULL) r = PyObject_VectorcallMethod(name, call, arg ? 2 : 1, kwnames);
  Py_XDECREF(name);
  Py_XDECREF(kwnames);
  return r;
}

PyObject *dlx__py_copy_refused(const char *what, const char *why) {
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
  if (dlx__py_parse_copy(copy_obj, &copy) != 0) return NULL;
  np_plan p;
  int missing = 0;
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (plan_numpy(t, &p, &missing, what) != 0) {
    DLDataType dt;
    /* without ml_dtypes a narrow tensor still converts to a dtype NumPy has, through dlx's cast */
    if (!missing || dtype == Py_None) return NULL;
    PyObject *exc = dlx__py_fetch_exception();
    if (dlx__py_parse_dtype(dtype, &dt) != 0 || dlx__py_is_narrow_float(dt)) {
      PyErr_Clear();
      dlx__py_restore_exception(exc);
      return NULL;
    }
    Py_DECREF(exc);
    if (copy == 0) return dlx__py_copy_refused(what, "a dtype conversion");
    PyObject *c = dlx__py_cast_new(&t->view, dt);
    const int r = c ? plan_numpy((dlx__py_tensor *)c, &p, &missing, what) : -1;
    Py_XDECREF(c);
    return r == 0 ? run_plan(&p) : NULL;
  }
  int copied = p.copied;
  if ((arr = run_plan(&p)) == NULL) return NULL;
  if (dtype != Py_None) {
    /* NumPy's astype: copy=False returns the array itself when the dtype is already right */
    PyObject *conv = dlx__py_call_with_copy_false(arr, "astype", dtype);
    if (conv == NULL) goto fail;
    copied |= conv != arr;
    Py_SETREF(arr, conv);
  }
  if (copy == 0 && copied) {
    dlx__py_copy_refused(what, p.copied ? "unpacking packed sub-byte elements" : "a dtype conversion");
    goto fail;
  }
  if (copy == 1 && !copied) Py_SETREF(arr, PyObject_CallMethod(arr, "copy", "s", "K"));
  return arr;
fail:
  Py_DECREF(arr);
  return NULL;
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

/* ---- NumPy's protocols: __array_ufunc__, __array_function__ ----------------------------------------- */

/* Their rules are written once, in Python (python/dlx/_numpy_protocol.py): these methods hand the call
 * over. An operator of a Tensor (t + 1) never comes here; NumPy calls them for np.add(t, ...), np.sqrt(t),
 * np.sum(t), and for an ndarray on the left of an operator (a + t). */
static PyObject *protocol_call(const char *name, PyObject *self, PyObject *args, PyObject *kwargs) {
  static PyObject *helper; /* the module, imported at the first call and kept */
  if (helper == NULL && (helper = PyImport_ImportModule("dlx._numpy_protocol")) == NULL) return NULL;
  PyObject *fn = PyObject_GetAttrString(helper, name);
  if (fn == NULL) return NULL;
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject *full = PyTuple_New(n + 1), *r = NULL;
  if (full != NULL) {
    Py_INCREF(self);
    PyTuple_SET_ITEM(full, 0, self);
    for (Py_ssize_t i = 0; i < n; ++i) {
      Py_INCREF(PyTuple_GET_ITEM(args, i));
      PyTuple_SET_ITEM(full, i + 1, PyTuple_GET_ITEM(args, i));
    }
    r = PyObject_Call(fn, full, kwargs);
    Py_DECREF(full);
  }
  Py_DECREF(fn);
  return r;
}

/* An operand the helper would hand to dlx as it is: a Tensor, a Python scalar, an exact ndarray. */
static int plain_operand(PyObject *o) {
  return dlx__py_is_tensor(o) || dlx__py_scalar_kind(o) != DLX__PY_SCALAR_NONE || dlx__py_is_exact_ndarray(o);
}

PyObject *dlx__py_tensor_array_ufunc(PyObject *self, PyObject *args, PyObject *kwargs) {
  /* a + t with a an ndarray comes here as np.add(a, t): dlx's op is called in C, without the helper's
   * Python, when the call is the plain one (two plain operands, no keywords) of one of dlx's binary ops */
  if ((kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0) && PyTuple_GET_SIZE(args) == 4 &&
      PyUnicode_Check(PyTuple_GET_ITEM(args, 1)) &&
      PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(args, 1), "__call__") == 0 &&
      plain_operand(PyTuple_GET_ITEM(args, 2)) && plain_operand(PyTuple_GET_ITEM(args, 3))) {
    PyObject *name = PyObject_GetAttrString(PyTuple_GET_ITEM(args, 0), "__name__");
    if (name == NULL) return NULL;
    int found = 0;
    PyObject *r = PyUnicode_Check(name)
                      ? dlx__py_binary_named(name, PyTuple_GET_ITEM(args, 2), PyTuple_GET_ITEM(args, 3), &found)
                      : NULL;
    Py_DECREF(name);
    /* a dtype dlx does not take (TypeError) goes the helper's way, which hands host memory to NumPy */
    if (found && (r != NULL || !PyErr_ExceptionMatches(PyExc_TypeError))) return r;
    if (found) PyErr_Clear();
  }
  return protocol_call("array_ufunc", self, args, kwargs);
}

PyObject *dlx__py_tensor_array_function(PyObject *self, PyObject *args, PyObject *kwargs) {
  return protocol_call("array_function", self, args, kwargs);
}

const char dlx__py_doc_array_ufunc[] =
    "__array_ufunc__(ufunc, method, *inputs, **kwargs)\n\n"
    "NumPy's ufunc protocol (NEP 13): a ufunc dlx has (add, subtract, multiply, divide, the comparisons,\n"
    "negative, positive, matmul) runs in dlx and gives tensors; any other runs in NumPy on host memory and\n"
    "gives NumPy arrays; device memory is TypeError (move it with t.to('cpu')).";
const char dlx__py_doc_array_function[] =
    "__array_function__(func, types, args, kwargs)\n\n"
    "NumPy's function protocol (NEP 18): np.<name>(t) runs dlx.<name> when dlx has it and it takes the\n"
    "arguments, else NumPy's function on host memory; device memory is TypeError (move it with t.to('cpu')).";

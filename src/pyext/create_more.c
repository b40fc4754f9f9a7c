/* dlx.ones, the *_like functions (empty_like, zeros_like, ones_like, full_like), dlx.arange and dlx.eye, with
 * NumPy 2's semantics: the values of ones and full_like are assigned as Tensor.fill_ assigns them
 * (dlx__py_assign); arange and eye are dlx_arange_fill and dlx_eye (dlx/ops.h) on a new tensor. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "dlx/dtype.h"
#include "dlx/ops.h"

static const dlx_view *view_of(PyObject *t) { return &((dlx__py_tensor *)t)->view; }

/* r with `value` assigned to every element (NULL r passes through); r, or NULL + exception. */
static PyObject *filled(PyObject *r, PyObject *value) {
  if (r != NULL && dlx__py_assign(view_of(r), value) != 0) Py_CLEAR(r);
  return r;
}

/* The Python int 1, whose assignment gives one in every dtype (True for bool), as numpy.ones. */
static PyObject *filled_one(PyObject *r) {
  PyObject *one = PyLong_FromLong(1);
  if (one == NULL) {
    Py_XDECREF(r);
    return NULL;
  }
  r = filled(r, one);
  Py_DECREF(one);
  return r;
}

/* device= (None: cpu) and dtype= (None: *dt kept) of a creation function. 0, or -1 + exception. */
static int parse_where(PyObject *device_obj, DLDevice *device, PyObject *dtype_obj, DLDataType *dt) {
  if (device_obj != Py_None && dlx__py_parse_device(device_obj, device) != 0) return -1;
  if (dtype_obj != Py_None && dlx__py_parse_dtype(dtype_obj, dt) != 0) return -1;
  return 0;
}

/* ---- dlx.ones ------------------------------------------------------------------------------------------ */

static PyObject *m_ones(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"shape", "dtype", "device", NULL};
  PyObject *shape_obj, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:ones", kw, &shape_obj, &dtype_obj, &device_obj)) return NULL;
  DLDevice device = {kDLCPU, 0};
  DLDataType dt = DLX_DTYPE_FLOAT32; /* dtype=None: dlx's default, float32, as dlx.zeros and dlx.empty */
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  if (dlx__py_parse_shape(shape_obj, &ndim, shape) != 0 || parse_where(device_obj, &device, dtype_obj, &dt) != 0)
    return NULL;
  return filled_one(dlx__py_tensor_new_on(device, NULL, ndim, shape, dt, 0));
}

/* ---- the *_like functions ------------------------------------------------------------------------------ */

typedef enum like_kind { LIKE_EMPTY, LIKE_ZEROS, LIKE_ONES, LIKE_FULL } like_kind;

/* x as a tensor: anything dlx.asarray takes (a Tensor, a DLPack object, a NumPy array of an ml_dtypes dtype,
 * a buffer, Python scalars and nested lists with NumPy 2's dtypes: numpy.zeros_like([1, 2]) is int64). */
static PyObject *like_source(PyObject *x) {
  if (dlx__py_is_tensor(x)) {
    Py_INCREF(x);
    return x;
  }
  return dlx__py_asarray(x);
}

/* A new tensor of x's shape: x's dtype unless dtype= says, on x's device (its kind of memory where that
 * device has several, as dlx.empty_like always did) unless device= says. */
static PyObject *make_like(PyObject *x, PyObject *dtype_obj, PyObject *device_obj, like_kind kind, PyObject *value) {
  PyObject *t = like_source(x);
  if (t == NULL) return NULL;
  const dlx_view *v = view_of(t);
  DLDevice device = dlx__py_home(v->device);
  DLDataType dt = v->dtype;
  PyObject *r = NULL;
  if (parse_where(device_obj, &device, dtype_obj, &dt) == 0) {
    const int same = device.device_type == v->device.device_type && device.device_id == v->device.device_id;
    const int home = device_obj == Py_None || same;
    r = dlx__py_tensor_new_on(device, home ? v->data : NULL, v->ndim, v->shape, dt, kind == LIKE_ZEROS);
  }
  Py_DECREF(t);
  if (kind == LIKE_ONES) return filled_one(r);
  return kind == LIKE_FULL ? filled(r, value) : r;
}

static PyObject *like_call(PyObject *args, PyObject *kwargs, like_kind kind, const char *fmt) {
  static char *kw[] = {"x", "dtype", "device", NULL};
  PyObject *x, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &x, &dtype_obj, &device_obj)) return NULL;
  return make_like(x, dtype_obj, device_obj, kind, NULL);
}

static PyObject *m_empty_like(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  return like_call(args, kwargs, LIKE_EMPTY, "O|OO:empty_like");
}
static PyObject *m_zeros_like(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  return like_call(args, kwargs, LIKE_ZEROS, "O|OO:zeros_like");
}
static PyObject *m_ones_like(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  return like_call(args, kwargs, LIKE_ONES, "O|OO:ones_like");
}

static PyObject *m_full_like(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"x", "fill_value", "dtype", "device", NULL};
  PyObject *x, *value, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:full_like", kw, &x, &value, &dtype_obj, &device_obj))
    return NULL;
  return make_like(x, dtype_obj, device_obj, LIKE_FULL, value);
}

/* ---- dlx.arange ----------------------------------------------------------------------------------------- */

/* o as a real Python number: an int (a bool, or anything with __index__) or a float (a float, or anything
 * with __float__: NumPy's float scalars). New reference, or NULL + TypeError naming the argument. */
static PyObject *real_number(PyObject *o, const char *name) {
  if (PyLong_Check(o) || PyFloat_Check(o)) {
    Py_INCREF(o);
    return o;
  }
  if (PyComplex_Check(o))
    return PyErr_Format(PyExc_TypeError, "dlx.arange: %s is the complex number %R; dlx.arange takes real numbers",
                        name, o);
  if (PyIndex_Check(o)) return PyNumber_Index(o);
  if (Py_TYPE(o)->tp_as_number != NULL && Py_TYPE(o)->tp_as_number->nb_float != NULL) return PyNumber_Float(o);
  return PyErr_Format(PyExc_TypeError, "dlx.arange: %s must be a real number, not %.100s", name, Py_TYPE(o)->tp_name);
}

/* NumPy's default dtype for the given numbers (NULL: not given): float64 if any is a float, else int64, or
 * float64 when an int needs uint64 (NumPy's promotion of int64 with uint64). An int neither holds would make
 * NumPy an object array: OverflowError. 0, or -1 + exception. */
static int default_dtype(PyObject *const *nums, int n, DLDataType *dt) {
  *dt = DLX_DTYPE_INT64;
  for (int i = 0; i < n; ++i) {
    if (nums[i] == NULL) continue;
    if (PyFloat_Check(nums[i])) {
      *dt = DLX_DTYPE_FLOAT64;
      continue;
    }
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(nums[i], &overflow);
    if (overflow == 0) continue;
    if (overflow < 0 || (PyLong_AsUnsignedLongLong(nums[i]) == (unsigned long long)-1 && PyErr_Occurred())) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "dlx.arange: Python integer %S out of bounds for int64 and uint64", nums[i]);
      return -1;
    }
    *dt = DLX_DTYPE_FLOAT64;
  }
  return 0;
}

/* NumPy's _calc_length on Python numbers: ceil((stop - start) / step) with Python's arithmetic (an int
 * difference exact, the quotient rounded once), 0 or 1 for a quotient that underflowed to zero. 0, or -1 with
 * NumPy's exception: ZeroDivisionError for step 0, ValueError for a NaN quotient or a length past int64. */
static int arange_length(PyObject *start, PyObject *stop, PyObject *step, int64_t *len) {
  PyObject *diff = PyNumber_Subtract(stop, start), *q = NULL;
  int nonzero = diff == NULL ? -1 : PyObject_IsTrue(diff);
  if (nonzero >= 0) q = PyNumber_TrueDivide(diff, step);
  Py_XDECREF(diff);
  const double value = q == NULL ? -1.0 : PyFloat_AsDouble(q);
  Py_XDECREF(q);
  if (q == NULL || (value == -1.0 && PyErr_Occurred())) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "Maximum allowed size exceeded");
    }
    return -1;
  }
  if (value == 0.0 && nonzero) {
    *len = signbit(value) ? 0 : 1;
    return 0;
  }
  const double c = ceil(value);
  if (isnan(c)) {
    PyErr_SetString(PyExc_ValueError, "arange: cannot compute length");
    return -1;
  }
  /* NumPy's bounds [-2^63, 2^63] (far below zero too, an empty range); it lets 2^63 through to an undefined
   * conversion, refused here */
  if (!(c < 9223372036854775808.0 && c >= -9223372036854775808.0)) {
    PyErr_SetString(PyExc_ValueError, "Maximum allowed size exceeded");
    return -1;
  }
  *len = c < 0 ? 0 : (int64_t)c;
  return 0;
}

/* The Python number o stored in dtype dt as NumPy's setitem stores it (ml_dtypes' for its dtypes), into v
 * (0-d, over buf). 0, or -1 with NumPy's exception. */
static int arange_seed(PyObject *o, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf) {
  const dlx__py_dtclass c = dlx__py_dtype_class(dt);
  dlx_status st;
  if (c == DLX__PY_CLASS_BOOL) {
    const int truth = PyObject_IsTrue(o); /* NaN is True */
    if (truth < 0) return -1;
    st = dlx_scalar_view(v, buf, dt, truth, 0.0);
  } else if (c == DLX__PY_CLASS_INT || c == DLX__PY_CLASS_UINT) {
    /* int(o): a float truncates (NaN ValueError, infinity OverflowError), then the range check */
    if (PyFloat_Check(o) && dlx__py_float_has_int(PyFloat_AS_DOUBLE(o)) != 0) return -1;
    PyObject *i = PyNumber_Long(o);
    if (i == NULL) return -1;
    int sign = 0;
    const int r = dlx__py_scalar_view(i, DLX__PY_SCALAR_INT, dt, v, buf, &sign);
    if (r > 0) dlx__py_int_out_of_bounds(i, dt); /* "Python integer 300 out of bounds for int8" */
    Py_DECREF(i);
    return r == 0 ? 0 : -1;
  } else {
    double d = PyFloat_AsDouble(o); /* an int rounds once; OverflowError past float64, as NumPy */
    if (d == -1.0 && PyErr_Occurred()) return -1;
    if (dt.code == DLX_CODE_BFLOAT) d = (double)(float)d; /* ml_dtypes' bfloat16(double) goes through float32 */
    st = dlx_scalar_view(v, buf, dt, d, 0.0);
  }
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    return -1;
  }
  return 0;
}

/* arange(start, stop, step) of n elements (arange_length's) in dtype dt on device. */
static PyObject *arange_make(PyObject *start, PyObject *step, int64_t n, DLDataType dt, DLDevice device) {
  dlx_view v0, v1;
  dlx_scalar_buf b0, b1;
  if (n > 0 && arange_seed(start, dt, &v0, &b0) != 0) return NULL;
  if (n > 1) {
    PyObject *next = PyNumber_Add(start, step); /* NumPy's next: Python's sum, exact for ints */
    const int bad = next == NULL || arange_seed(next, dt, &v1, &b1) != 0;
    Py_XDECREF(next);
    if (bad) return NULL;
  }
  PyObject *r = dlx__py_tensor_new_on(device, NULL, 1, &n, dt, 0);
  if (r == NULL || n == 0) return r;
  dlx_status st;
  DLX__PY_RUN_OP(st, n, dlx_arange_fill(view_of(r), &v0, n > 1 ? &v1 : &v0));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

/* start, stop, step: the numbers given (stop, step NULL when not), as real_number makes them. NumPy's order:
 * the length (its errors first), then the dtype, then the values. */
static PyObject *arange_numbers(PyObject *const *nums, PyObject *dtype_obj, PyObject *device_obj) {
  PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1), *r = NULL;
  if (zero != NULL && one != NULL) {
    /* arange(stop) counts from 0; the step defaults to 1 */
    PyObject *start = nums[1] == NULL ? zero : nums[0], *stop = nums[1] == NULL ? nums[0] : nums[1];
    PyObject *step = nums[2] == NULL ? one : nums[2];
    int64_t n;
    DLDevice device = {kDLCPU, 0};
    DLDataType dt;
    dt = DLX_DTYPE_INT64;
    if (arange_length(start, stop, step, &n) == 0 && (dtype_obj != Py_None || default_dtype(nums, 3, &dt) == 0) &&
        parse_where(device_obj, &device, dtype_obj, &dt) == 0)
      r = arange_make(start, step, n, dt, device);
  }
  Py_XDECREF(zero);
  Py_XDECREF(one);
  return r;
}

static PyObject *m_arange(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"start", "stop", "step", "dtype", "device", NULL};
  PyObject *start_obj, *stop_obj = Py_None, *step_obj = Py_None, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:arange", kw, &start_obj, &stop_obj, &step_obj, &dtype_obj,
                                   &device_obj))
    return NULL;
  if (stop_obj == Py_None && kwargs != NULL && PyDict_GetItemString(kwargs, "start") != NULL)
    return PyErr_Format(PyExc_TypeError, "arange() requires stop to be specified."); /* NumPy's words */
  PyObject *nums[3] = {NULL, NULL, NULL}, *r = NULL;
  if ((nums[0] = real_number(start_obj, "start")) != NULL &&
      (stop_obj == Py_None || (nums[1] = real_number(stop_obj, "stop")) != NULL) &&
      (step_obj == Py_None || (nums[2] = real_number(step_obj, "step")) != NULL))
    r = arange_numbers(nums, dtype_obj, device_obj);
  for (int i = 0; i < 3; ++i) Py_XDECREF(nums[i]);
  return r;
}

/* ---- dlx.eye ---------------------------------------------------------------------------------------------- */

static PyObject *m_eye(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"N", "M", "k", "dtype", "device", NULL};
  PyObject *n_obj, *m_obj = Py_None, *k_obj = NULL, *dtype_obj = Py_None, *device_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO:eye", kw, &n_obj, &m_obj, &k_obj, &dtype_obj, &device_obj))
    return NULL;
  DLDevice device = {kDLCPU, 0};
  DLDataType dt = DLX_DTYPE_FLOAT64; /* numpy.eye's default, also for dtype=None */
  PyObject *sizes = m_obj == Py_None ? PyTuple_Pack(2, n_obj, n_obj) : PyTuple_Pack(2, n_obj, m_obj);
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = 0;
  /* sizes as shapes take them: ints and __index__, no bools or floats (NumPy's TypeErrors) */
  const int bad = sizes == NULL || dlx__py_parse_shape(sizes, &ndim, shape) != 0;
  Py_XDECREF(sizes);
  if (bad || parse_where(device_obj, &device, dtype_obj, &dt) != 0) return NULL;
  long long k = 0;
  if (k_obj != NULL) {
    PyObject *ki = PyNumber_Index(k_obj);
    if (ki == NULL) return NULL;
    int overflow = 0;
    k = PyLong_AsLongLongAndOverflow(ki, &overflow);
    Py_DECREF(ki);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (overflow != 0) k = overflow > 0 ? INT64_MAX : INT64_MIN; /* past every extent: no diagonal, as NumPy */
  }
  PyObject *r = dlx__py_tensor_new_on(device, NULL, 2, shape, dt, 0);
  if (r == NULL) return NULL;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(view_of(r)), dlx_eye(view_of(r), (int64_t)k));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

/* ---- the table ---------------------------------------------------------------------------------------------- */

static const char doc_arange[] =
    "arange(start, stop=None, step=1, dtype=None, device=None)\n--\n\n"
    "Evenly spaced values in [start, stop) (arange(stop): from 0), numpy.arange's bits for every dtype with a\n"
    "kernel: the length ceil((stop - start) / step) as NumPy computes it, start and start + step stored as\n"
    "NumPy stores Python numbers, then start + i * (x1 - x0) in the dtype's arithmetic (float16 and the ml_dtypes\n"
    "formats in float32; integers wrap). dtype None: int64 for ints, float64 if any number is a float.";
static const char doc_eye[] =
    "eye(N, M=None, k=0, dtype='float64', device=None)\n--\n\n"
    "An N x M (M None: N) tensor with ones on diagonal k (0 the main diagonal, > 0 above, < 0 below) and zeros\n"
    "elsewhere, as numpy.eye. dtype None: float64.";

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef dlx__py_create_more_methods[] = {
    {"ones", FN(m_ones), KW,
     "ones(shape, dtype='float32', device=None)\n--\n\nA tensor of ones (True for bool), C-contiguous, on device."},
    {"empty_like", FN(m_empty_like), KW,
     "empty_like(x, dtype=None, device=None)\n--\n\nAn uninitialised C-contiguous tensor of x's shape (x's dtype and "
     "device unless given)."},
    {"zeros_like", FN(m_zeros_like), KW,
     "zeros_like(x, dtype=None, device=None)\n--\n\nA tensor of zeros of x's shape (x's dtype and device unless given)."},
    {"ones_like", FN(m_ones_like), KW,
     "ones_like(x, dtype=None, device=None)\n--\n\nA tensor of ones of x's shape (x's dtype and device unless given)."},
    {"full_like", FN(m_full_like), KW,
     "full_like(x, fill_value, dtype=None, device=None)\n--\n\nA tensor of x's shape filled with fill_value, converted "
     "to x's dtype (or dtype) as Tensor.fill_ converts it."},
    {"arange", FN(m_arange), KW, doc_arange},
    {"eye", FN(m_eye), KW, doc_eye},
    {NULL, NULL, 0, NULL},
};

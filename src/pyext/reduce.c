/* dlx.sum, prod, min, max, mean, argmin, argmax, any, all(t, axis=None, dtype=None, keepdims=False,
 * out=None) and the Tensor methods of the same names, over dlx_reduce (dlx/ops.h).
 *
 * NumPy's signature and result dtypes (dlx_reduce_result gives the defaults); what the core does not take
 * is arranged here:
 *  - axis: None (every axis), an int, or a tuple of ints (argmin / argmax too: the index is then flat over
 *    the reduced axes, row-major);
 *  - dtype: sum and prod accumulate in it, mean too; min and max convert every element to it first (the
 *    core's rule for out's dtype); argmin, argmax, any and all compare the input converted to it;
 *  - without dtype, sum and prod compute in NumPy's promotion of out's dtype and the input's when out is
 *    given (NumPy resolves its reduction's loop from both), the others in their default;
 *  - t may also be a Python scalar or nested lists of them (NumPy's np.sum(5)): the array NumPy makes;
 *  - out: written, and returned; a result dtype other than out's is computed into a temporary and cast
 *    into out (dlx_cast's rules).
 * The result is a Tensor, 0-d for a reduction over every axis (NumPy returns a scalar there). */
#include "internal.h" /* Python.h first, as CPython requires */

#include "reduce.h"

#include "dlx/dtype.h"
#include "dlx/ops.h"

static const char *const names[DLX_REDUCE_COUNT] = {"sum",    "prod",   "min", "max", "mean",
                                                    "argmin", "argmax", "any", "all"};

/* axis= into axes[*naxes] (DLX_REDUCE_ALL_AXES for None). -1 + TypeError. */
static int parse_axis(PyObject *o, dlx_reduce_op op, int32_t *naxes, int32_t *axes) {
  if (o == NULL || o == Py_None) {
    *naxes = DLX_REDUCE_ALL_AXES;
    return 0;
  }
  PyObject *seq = PyTuple_Check(o) ? o : NULL;
  const Py_ssize_t n = seq != NULL ? PyTuple_GET_SIZE(seq) : 1;
  if (n > DLX_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "%s: %zd axes given, at most %d", names[op], n, DLX_MAX_NDIM);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = seq != NULL ? PyTuple_GET_ITEM(seq, i) : o;
    if (PyBool_Check(item) || !PyIndex_Check(item)) {
      PyErr_Format(PyExc_TypeError, "%s: axis must be None, an int or a tuple of ints, not %.100s", names[op],
                   Py_TYPE(item)->tp_name);
      return -1;
    }
    const Py_ssize_t a = PyNumber_AsSsize_t(item, PyExc_IndexError);
    if (a == -1 && PyErr_Occurred()) return -1;
    if (a < INT32_MIN || a > INT32_MAX) {
      PyErr_Format(PyExc_IndexError, "%s: axis %zd is out of range", names[op], a);
      return -1;
    }
    axes[i] = (int32_t)a;
  }
  *naxes = (int32_t)n;
  return 0;
}

/* The arguments of one call, parsed. */
typedef struct call {
  dlx_reduce_op op;
  PyObject *t;   /* the input Tensor (a new reference) */
  PyObject *out; /* out= as a Tensor (a new reference), or NULL */
  PyObject *out_obj;
  int32_t naxes, axes[DLX_MAX_NDIM];
  int keepdims, has_dtype;
  DLDataType dtype;
} call;

static int parse(call *c, PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw_function[] = {"t", "axis", "dtype", "keepdims", "out", NULL};
  static char *kw_method[] = {"axis", "dtype", "keepdims", "out", NULL};
  PyObject *t = self, *axis = Py_None, *dtype = Py_None, *keep = Py_False, *out = Py_None;
  char fmt[48];
  if (self == NULL) {
    snprintf(fmt, sizeof fmt, "O|OOOO:%s", names[c->op]);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw_function, &t, &axis, &dtype, &keep, &out)) return -1;
  } else {
    snprintf(fmt, sizeof fmt, "|OOOO:%s", names[c->op]);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw_method, &axis, &dtype, &keep, &out)) return -1;
  }
  if (parse_axis(axis, c->op, &c->naxes, c->axes) != 0) return -1;
  c->has_dtype = dtype != Py_None;
  if (c->has_dtype && dlx__py_parse_dtype(dtype, &c->dtype) != 0) return -1;
  if ((c->keepdims = PyObject_IsTrue(keep)) < 0) return -1;
  int unsupported;
  /* a Python scalar or nested lists of them: the array NumPy makes of it, as np.sum(5) and np.sum([1, 2]) */
  const int py_values =
      dlx__py_is_nested(t) || (!dlx__py_is_tensor(t) && dlx__py_scalar_kind(t) != DLX__PY_SCALAR_NONE);
  if ((c->t = py_values ? dlx__py_from_scalars(t, NULL) : dlx__py_as_tensor(t, &unsupported)) == NULL) return -1;
  c->out_obj = out;
  if (out != Py_None && (c->out = dlx__py_as_tensor(out, &unsupported)) == NULL) return -1;
  return 0;
}

/* The dtype the core computes into, and the input converted first when the op compares in dtype=. A sum or
 * product into out without dtype= computes in NumPy's promotion of out's dtype with the input's (NumPy's
 * reduction resolves its loop from both), then casts into out: np.sum of float64 into int32 sums the floats
 * and truncates once, of int64 into float32 sums in float64, of int64 into bool sums before the truth. */
static int result_dtype(call *c, DLDataType fallback, DLDataType *d) {
  const dlx_reduce_op op = c->op;
  *d = fallback;
  if ((op == DLX_REDUCE_SUM || op == DLX_REDUCE_PROD) && !c->has_dtype && c->out != NULL) {
    const DLDataType o = ((dlx__py_tensor *)c->out)->view.dtype, in = ((dlx__py_tensor *)c->t)->view.dtype;
    *d = o;
    return dlx_dtype_equal(o, in) ? 0 : dlx__py_promote(o, in, d);
  }
  if (!c->has_dtype) return 0;
  if (op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX || op == DLX_REDUCE_ANY || op == DLX_REDUCE_ALL) {
    dlx__py_tensor *t = (dlx__py_tensor *)c->t;
    if (dlx_dtype_equal(t->view.dtype, c->dtype)) return 0;
    PyObject *cast = dlx__py_cast_new(&t->view, c->dtype);
    if (cast == NULL) return -1;
    Py_DECREF(c->t);
    c->t = cast;
    return 0;
  }
  *d = c->dtype;
  return 0;
}

static PyObject *reduce(dlx_reduce_op op, PyObject *self, PyObject *args, PyObject *kwargs) {
  call c;
  memset(&c, 0, sizeof c);
  c.op = op;
  PyObject *result = NULL, *tmp = NULL;
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLDataType fallback, d;
  if (parse(&c, self, args, kwargs) != 0) goto done;
  const dlx_view *in = &((dlx__py_tensor *)c.t)->view;
  dlx_status st = dlx_reduce_result(op, in, c.naxes, c.axes, c.keepdims, &nd, shape, &fallback);
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (result_dtype(&c, fallback, &d) != 0) goto done;
  in = &((dlx__py_tensor *)c.t)->view;
  PyObject *target = c.out;
  if (target == NULL || !dlx_dtype_equal(((dlx__py_tensor *)target)->view.dtype, d)) {
    if ((tmp = dlx__py_tensor_new_like(in, nd, shape, d)) == NULL) goto done;
    target = tmp;
  }
  DLX__PY_RUN_OP(st, dlx_view_size(in),
         dlx_reduce(op, &((dlx__py_tensor *)target)->view, in, c.naxes, c.axes, c.keepdims));
  if (st == DLX_OK && c.out != NULL && target != c.out) { /* out= of another dtype: cast into it */
    dlx__py_tensor *o = (dlx__py_tensor *)c.out;
    const dlx_view *tv = &((dlx__py_tensor *)target)->view;
    if (o->view.ndim != tv->ndim || memcmp(o->view.shape, tv->shape, sizeof(int64_t) * (size_t)tv->ndim) != 0) {
      /* a cast would broadcast a (1,) result over a (3,) out: refuse as the core refuses a wrong shape */
      PyObject *want = PyObject_GetAttrString(target, "shape"), *got = PyObject_GetAttrString(c.out, "shape");
      if (want != NULL && got != NULL)
        PyErr_Format(PyExc_ValueError, "%s: out has shape %R, but the result has shape %R", names[op], got, want);
      Py_XDECREF(want);
      Py_XDECREF(got);
      goto done;
    }
    DLX__PY_RUN_OP(st, dlx_view_size(tv), dlx_cast(&o->view, tv));
  }
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (c.out != NULL) {
    result = c.out_obj; /* NumPy returns out itself */
    Py_INCREF(result);
  } else {
    result = tmp;
    tmp = NULL;
  }
done:
  Py_XDECREF(c.t);
  Py_XDECREF(c.out);
  Py_XDECREF(tmp);
  return result;
}

#define REDUCTION(name, op)                                                                          \
  PyObject *dlx__py_reduce_##name(PyObject *self, PyObject *args, PyObject *kwargs) {                 \
    return reduce(op, self, args, kwargs);                                                           \
  }                                                                                                  \
  static PyObject *m_##name(PyObject *m, PyObject *args, PyObject *kwargs) {                         \
    (void)m;                                                                                         \
    return reduce(op, NULL, args, kwargs);                                                           \
  }
REDUCTION(sum, DLX_REDUCE_SUM)
REDUCTION(prod, DLX_REDUCE_PROD)
REDUCTION(min, DLX_REDUCE_MIN)
REDUCTION(max, DLX_REDUCE_MAX)
REDUCTION(mean, DLX_REDUCE_MEAN)
REDUCTION(argmin, DLX_REDUCE_ARGMIN)
REDUCTION(argmax, DLX_REDUCE_ARGMAX)
REDUCTION(any, DLX_REDUCE_ANY)
REDUCTION(all, DLX_REDUCE_ALL)

#define DOC_TAIL                                                                                     \
  " over axis (None: every axis; an int or a tuple of ints), keeping reduced axes as extent 1 when "  \
  "keepdims. The order of every floating-point operation is fixed by the shape and the axes "        \
  "(docs/numerics.md): the same bits on any thread count, SIMD level, layout and device."
/* "name(params)\n--\n\n": CPython's text signature, so that inspect.signature (and NumPy's function protocol,
 * python/dlx/_numpy_protocol.py, which routes np.sum(t, ...) here only when the arguments fit) can read it */
#define FN(name, sig, what)                                                                          \
  {#name, (PyCFunction)(void (*)(void))m_##name, METH_VARARGS | METH_KEYWORDS,                        \
   #name "(t, axis=None, dtype=None, keepdims=False, out=None)\n--\n\n" #name sig "\n\n" what DOC_TAIL}
PyMethodDef dlx__py_reduce_methods[] = {
    FN(sum, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The sum (bool and signed integers in int64, unsigned in uint64, float16 / bfloat16 / float8 in float32)"),
    FN(prod, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor", "The product (accumulated as sum)"),
    FN(min, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The minimum (NaN wins; -0.0 < +0.0; an empty reduction is ValueError)"),
    FN(max, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The maximum (NaN wins; -0.0 < +0.0; an empty reduction is ValueError)"),
    FN(mean, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The mean (integers in float64; float16 / bfloat16 / float8 computed in float32)"),
    FN(argmin, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The int64 index of the first minimum (NaN first)"),
    FN(argmax, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor",
       "The int64 index of the first maximum (NaN first)"),
    FN(any, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor", "Whether any element is non-zero"),
    FN(all, "(t, axis=None, dtype=None, keepdims=False, out=None) -> Tensor", "Whether every element is non-zero"),
    {NULL, NULL, 0, NULL},
};

/* The rules of producers whose C exchange API skips what their __dlpack__ refuses (PyTorch's), applied by
 * the consumer (consumer.c) when it takes such a producer's table.
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
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

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
static const dlx__py_quirks torch_quirks = {torch_refuse, torch_export_failed, torch_before_dlpack, 1};

/* The quirks of the producer of type (NULL: none). -1 when it has quirks dlx cannot apply: then its
 * table is not used, and __dlpack__ makes its own checks. */
int dlx__py_quirks_of(PyTypeObject *type, const dlx__py_quirks **q) {
  *q = NULL;
  PyTypeObject *base = torch_tensor_base(type);
  if (base == NULL) return 0;
  if (torch_descriptors(base) < 0) return -1;
  *q = &torch_quirks;
  return 0;
}

/* Python exceptions from dlx_status: the one mapping (dlx__py_raise) and its variants for ops and for
 * stream and event calls, and exceptions held as objects while other code runs. */
#include "internal.h" /* Python.h first, as CPython requires */

PyObject *dlx__py_raise(dlx_status st, PyObject *default_exc) {
  PyObject *exc = default_exc;
  switch (st) {
    case DLX_ERR_OUT_OF_MEMORY:
      exc = PyExc_MemoryError;
      break;
    case DLX_ERR_NULL_ARGUMENT:
      exc = PyExc_SystemError; /* a NULL from C code, never from Python input */
      break;
    default:
      break;
  }
  PyErr_SetString(exc, dlx_last_error()[0] ? dlx_last_error() : dlx_status_name(st));
  return NULL;
}

PyObject *dlx__py_raise_op(dlx_status st) {
  PyObject *exc;
  switch (st) {
    case DLX_ERR_INDEX: exc = PyExc_IndexError; break;
    case DLX_ERR_UNSUPPORTED: exc = PyExc_TypeError; break;
    default: exc = PyExc_ValueError; break; /* dlx__py_raise turns OUT_OF_MEMORY into MemoryError */
  }
  return dlx__py_raise(st, exc);
}

/* The exception of a failed stream or event call. */
PyObject *dlx__py_raise_runtime(dlx_status st) {
  return dlx__py_raise(st, st == DLX_ERR_INVALID_ARGUMENT ? PyExc_ValueError : PyExc_RuntimeError);
}

/* ---- exceptions as objects (PyErr_GetRaisedException is Python 3.12's) ----------------------------- */

PyObject *dlx__py_fetch_exception(void) {
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

void dlx__py_restore_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exc);
#else
  Py_INCREF(Py_TYPE(exc));
  PyErr_Restore((PyObject *)Py_TYPE(exc), exc, PyException_GetTraceback(exc));
#endif
}

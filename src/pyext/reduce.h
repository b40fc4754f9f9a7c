/* dlx.sum & co and the Tensor methods of the same names (reduce.c). */
#ifndef DLX_PYEXT_REDUCE_H
#define DLX_PYEXT_REDUCE_H

#include "tensor.h" /* Python.h first, as CPython requires */

/* The module's functions: sum, prod, min, max, mean, argmin, argmax, any, all. */
extern PyMethodDef dlx__py_reduce_methods[];

/* The Tensor methods (self the tensor): t.sum(axis=None, dtype=None, keepdims=False, out=None), ... */
PyObject *dlx__py_reduce_sum(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_prod(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_min(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_max(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_mean(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_argmin(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_argmax(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_any(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_reduce_all(PyObject *self, PyObject *args, PyObject *kwargs);

/* The entries of those methods, for the Tensor's method table (tensor.c): one line there. */
#define DLX__PY_REDUCE_METHOD_(name)                                                                  \
  {#name, (PyCFunction)(void (*)(void))dlx__py_reduce_##name, METH_VARARGS | METH_KEYWORDS,             \
   #name "(axis=None, dtype=None, keepdims=False, out=None) -> Tensor: dlx." #name " of this tensor"},
#define DLX__PY_REDUCE_METHODS                                                                        \
  DLX__PY_REDUCE_METHOD_(sum) DLX__PY_REDUCE_METHOD_(prod) DLX__PY_REDUCE_METHOD_(min) DLX__PY_REDUCE_METHOD_(max) \
  DLX__PY_REDUCE_METHOD_(mean) DLX__PY_REDUCE_METHOD_(argmin) DLX__PY_REDUCE_METHOD_(argmax)                  \
  DLX__PY_REDUCE_METHOD_(any) DLX__PY_REDUCE_METHOD_(all)

#endif

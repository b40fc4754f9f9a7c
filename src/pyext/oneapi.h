/* oneapi.c: dlx._dlx._oneapi, the C half of dlx.oneapi. */
#ifndef DLX_PYEXT_ONEAPI_H
#define DLX_PYEXT_ONEAPI_H

#include <Python.h>

/* Add dlx._dlx._oneapi to the module (called from dlx__py_cuda_init, beside dlx._dlx._cuda). */
int dlx__py_oneapi_init(PyObject *module);

#endif

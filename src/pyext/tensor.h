/* dlx.Tensor: a dlx_view over refcounted storage, plus CuTe layout state. */
#ifndef DLX_PYEXT_TENSOR_H
#define DLX_PYEXT_TENSOR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "dlx/dynlayout.h"
#include "dlx/view.h"
#include "storage.h"

typedef struct dlx__py_tensor {
  PyObject_HEAD
  dlx__storage *storage;
  dlx_dynlayout *dyn; /* NULL while the layout is fully static */
  uint32_t alignment; /* assumed alignment of data in bytes (CuTe DSL's assumed_align) */
  dlx_view view;      /* last: only its first ndim shape/stride entries are ever written */
} dlx__py_tensor;

extern PyTypeObject dlx__py_tensor_type;

/* New tensor over storage (the reference is taken over, even on failure). The view is copied. */
PyObject *dlx__py_tensor_wrap(dlx__storage *storage, const dlx_view *view, uint32_t alignment);

#endif

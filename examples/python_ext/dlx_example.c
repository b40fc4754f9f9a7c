/* An example CPython extension built on dlx/python.h: it accepts any DLPack object (NumPy, PyTorch,
 * JAX, dlx) and returns dlx tensors, with no capsule code of its own. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

#include "dlx/python.h"

/* scale_(x, alpha): x *= alpha in place. x must be a writable float32 host tensor of rank 2, any
 * positive strides (layout_stride). */
static PyObject *scale_(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *obj;
  float alpha;
  if (!PyArg_ParseTuple(args, "Of:scale_", &obj, &alpha)) return NULL;
  dlx_import_spec spec = {DLX_DTYPE_FLOAT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE, 0, 0};
  dlx_view v;
  PyObject *handle;
  if (dlx_py_view(obj, &spec, &v, &handle) != 0) return NULL;
  if (v.flags & DLX_VIEW_READ_ONLY) {
    dlx_py_release(handle);
    PyErr_SetString(PyExc_ValueError, "scale_: the tensor is read-only");
    return NULL;
  }
  float *base = v.data;
  for (int64_t i = 0; i < v.shape[0]; ++i)
    for (int64_t j = 0; j < v.shape[1]; ++j) base[i * v.strides[0] + j * v.strides[1]] *= alpha;
  dlx_py_release(handle);
  Py_RETURN_NONE;
}

/* row_sums(x): a new float64 tensor with the sums of each row of a C-contiguous float64 matrix. */
static void free_capsule(PyObject *cap) { free(PyCapsule_GetPointer(cap, NULL)); }

static PyObject *row_sums(PyObject *self, PyObject *obj) {
  (void)self;
  dlx_import_spec spec = {DLX_DTYPE_FLOAT64, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT, 0, 0};
  dlx_view v;
  PyObject *handle;
  if (dlx_py_view(obj, &spec, &v, &handle) != 0) return NULL;
  int64_t rows = v.shape[0], cols = v.shape[1];
  double *out = malloc(sizeof(double) * (size_t)(rows ? rows : 1));
  if (out == NULL) {
    dlx_py_release(handle);
    return PyErr_NoMemory();
  }
  const double *in = v.data;
  for (int64_t i = 0; i < rows; ++i) {
    double s = 0;
    for (int64_t j = 0; j < cols; ++j) s += in[i * cols + j];
    out[i] = s;
  }
  dlx_py_release(handle);
  /* the result's memory is owned by a capsule that the new tensor keeps alive */
  PyObject *owner = PyCapsule_New(out, NULL, free_capsule);
  if (owner == NULL) {
    free(out);
    return NULL;
  }
  /* a view filled by hand; dlx_py_tensor_from_view validates it like any import */
  dlx_view r;
  r.data = out;
  r.dtype = DLX_DTYPE_FLOAT64;
  r.device.device_type = kDLCPU;
  r.device.device_id = 0;
  r.ndim = 1;
  r.flags = 0;
  r.shape[0] = rows;
  r.strides[0] = 1;
  PyObject *t = dlx_py_tensor_from_view(&r, owner);
  Py_DECREF(owner);
  return t;
}

static PyMethodDef methods[] = {
    {"scale_", scale_, METH_VARARGS, "scale_(x, alpha): x *= alpha in place (float32, rank 2)"},
    {"row_sums", row_sums, METH_O, "row_sums(x) -> dlx.Tensor (float64, rank 2, C-contiguous)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "dlx_example", "dlx C API example", -1, methods,
                                 NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_dlx_example(void) {
  if (dlx_py_import() != 0) return NULL;
  return PyModule_Create(&def);
}

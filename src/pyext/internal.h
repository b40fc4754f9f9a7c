/* Shared between the files of the extension. */
#ifndef DLX_PY_INTERNAL_H
#define DLX_PY_INTERNAL_H

#include "tensor.h"

/* Export t as a versioned managed tensor in one allocation (struct, shape, strides). With copy set,
 * the data is first copied into new compact storage and IS_COPIED is flagged. NULL + exception. */
DLManagedTensorVersioned *dlx_py_export_versioned(TensorObject *t, int copy);
/* The same as a legacy DLManagedTensor (refused for read-only and padded sub-byte data). */
DLManagedTensor *dlx_py_export_legacy(TensorObject *t, int copy);

/* Import a managed tensor that dlx now owns (ownership passes to the new Tensor, or its deleter runs
 * on failure). alignment 0 = natural. NULL + BufferError on failure. */
PyObject *dlx_py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment);

/* The DLPack 1.3 C exchange API table dlx.Tensor advertises. */
extern const DLPackExchangeAPI dlx_exchange_api;

/* from_dlpack core: x any DLPack object, alignment 0 = natural, copy -1 None / 0 / 1. */
PyObject *dlx_from_dlpack_impl(PyObject *x, uint32_t alignment, int copy);

/* Build and validate a view of any DLPack-capable object against spec (the C API of dlx/python.h). */
int dlx_capi_view_from_object(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle);

/* The DLPack 1.x exchange API a Python type advertises (either spelling), cached per type; NULL if none. */
const DLPackExchangeAPI *dlx_lookup_exchange_api(PyTypeObject *type);

/* Register dlx._testing helpers on the module (test builds: DLX_PY_TESTING). */
int dlx_testing_init(PyObject *module);

/* ---- ops.c: arithmetic, comparisons, indexing, shape methods, module functions ---- */

/* Raise the Python exception for an op's failure: IndexError for INDEX, TypeError for UNSUPPORTED,
 * MemoryError for OUT_OF_MEMORY, ValueError otherwise. Returns NULL. */
PyObject *dlx_py_raise_op(dlx_status st);
/* A new C-contiguous owned tensor (zero-filled when zero is set). NULL + exception. */
PyObject *dlx_py_tensor_new_owned(int32_t ndim, const int64_t *shape, DLDataType dt, int zero);
/* A dtype from a name or a dtype-like object (numpy.dtype, numpy.float32, ml_dtypes.bfloat16). -1 + exception. */
int dlx_parse_dtype_obj(PyObject *o, DLDataType *dt);

extern PyNumberMethods dlx_pyops_as_number;
extern PyMappingMethods dlx_pyops_as_mapping;
PyObject *dlx_pyops_richcompare(PyObject *self, PyObject *other, int op);
PyObject *dlx_pyops_fill_(PyObject *self, PyObject *value);
PyObject *dlx_pyops_copy_(PyObject *self, PyObject *src);
PyObject *dlx_pyops_reshape(PyObject *self, PyObject *args);
PyObject *dlx_pyops_permute(PyObject *self, PyObject *args);
PyObject *dlx_pyops_transpose(PyObject *self, PyObject *args);
PyObject *dlx_pyops_astype(PyObject *self, PyObject *dtype);
PyObject *dlx_pyops_view(PyObject *self, PyObject *dtype);
PyObject *dlx_pyops_T(PyObject *self, void *closure);
/* dlx.add & co, matmul, fma, full, empty_like, set_num_threads / get_num_threads. */
extern PyMethodDef dlx_ops_module_methods[];

/* Interned strings used on hot paths. */
extern PyObject *dlx_str_dlpack, *dlx_str_max_version, *dlx_str_copy, *dlx_str_dl_device, *dlx_str_stream,
    *dlx_version_tuple, *dlx_kw_max_version;

#endif

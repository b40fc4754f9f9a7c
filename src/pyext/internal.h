/* Shared between the files of the extension. */
#ifndef DLX_PY_INTERNAL_H
#define DLX_PY_INTERNAL_H

#include "tensor.h" /* Python.h first, as CPython requires */

#include "dlx/ops.h"

/* Export t as a versioned managed tensor in one allocation (struct, shape, strides). With copy set,
 * the data is first copied into new compact storage (on *target when not NULL, else on t's device, cpu
 * for host-accessible memory) and IS_COPIED is flagged. NULL + exception. */
DLManagedTensorVersioned *dlx_py_export_versioned(TensorObject *t, int copy, const DLDevice *target);
/* The same as a legacy DLManagedTensor (refused for read-only and padded sub-byte data). */
DLManagedTensor *dlx_py_export_legacy(TensorObject *t, int copy, const DLDevice *target);

/* ---- cuda.c: devices, streams, dlx._dlx._cuda ---- */

/* A device= argument: "cpu", "cuda", "cuda:N", "cuda_host", "cuda_managed", ("cuda", N), a DLPack
 * (device_type, device_id) tuple, or a torch.device-like object. 0, or -1 with TypeError / ValueError. */
int dlx_py_parse_device(PyObject *o, DLDevice *out);
/* Where ops on memory of d put their results: cpu:0 for host-accessible memory, d otherwise. */
DLDevice dlx_py_home(DLDevice d);
/* A new C-contiguous owned tensor on device (zero-filled when zero). NULL + exception. */
PyObject *dlx_py_tensor_new_on(DLDevice device, int32_t ndim, const int64_t *shape, DLDataType dt, int zero);
/* A new C-contiguous owned tensor for a result computed on like's memory: on dlx_py_home(like->device), in
 * like's kind of memory where that device has several (oneAPI host and shared USM stay so, so that the CPU
 * loops can write it). NULL + exception. */
PyObject *dlx_py_tensor_new_like(const dlx_view *like, int32_t ndim, const int64_t *shape, DLDataType dt);
/* A compact copy of src on device (dlx_copy across memory kinds). -1 + exc (MemoryError when out of memory). */
int dlx_py_copy_to(const dlx_view *src, DLDevice device, PyObject *exc, dlx_storage **out, dlx_view *out_view);
/* 1 when memory on d needs no move to be on want: the same device, or host-accessible memory for cpu:0. */
int dlx_py_is_on(DLDevice d, DLDevice want);
/* The Tensor obj on device: obj itself when it is there (host-accessible memory counts as cpu:0) and copy
 * is not 1, else a copy; copy 0 with a move is BufferError. New reference, or NULL + exception (exc for a
 * failed copy). */
PyObject *dlx_py_to_device(PyObject *obj, DLDevice device, int copy, PyObject *exc);
/* Tensor.to, Tensor.record, Tensor.wait. */
PyObject *dlx_py_tensor_to(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx_py_tensor_record(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx_py_tensor_wait(PyObject *self, PyObject *args, PyObject *kwargs);
/* __dlpack__'s stream= for an export of memory on source to target: 1 with *consumer the stream to order
 * the export before (dlx_py_dlpack_sync), 0 when nothing is to be done, -1 with TypeError / BufferError /
 * ValueError. */
int dlx_py_dlpack_stream(PyObject *stream, DLDevice source, DLDevice target, void **consumer);
int dlx_py_dlpack_sync(TensorObject *t, DLDevice target, int copied, void *consumer);
/* __dlpack__'s dl_device= and copy=: the export's device, and whether a copy is needed. */
int dlx_py_dlpack_target(TensorObject *t, PyObject *dl_device, PyObject *copy_obj, int *copy, DLDevice *target);
/* Add dlx._dlx._cuda to the module. */
int dlx_py_cuda_init(PyObject *module);

/* Import a managed tensor that dlx now owns (ownership passes to the new Tensor, or its deleter runs
 * on failure). alignment 0 = natural. NULL + BufferError on failure. */
PyObject *dlx_py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment);

/* The DLPack 1.3 C exchange API table dlx.Tensor advertises. */
extern const DLPackExchangeAPI dlx_exchange_api;

/* from_dlpack core: x any DLPack object, alignment 0 = natural, copy -1 None / 0 / 1. */
PyObject *dlx_from_dlpack_impl(PyObject *x, uint32_t alignment, int copy);
/* The same; ndarray_ok 0 keeps an exact numpy.ndarray off the fields path (from_dlpack's device= names
 * a device other than the cpu). */
PyObject *dlx_from_dlpack_impl_ex(PyObject *x, uint32_t alignment, int copy, int ndarray_ok);
/* How dlx.from_dlpack reads an exact numpy.ndarray (consumer.c): AUTO its fields where NumPy's ABI is
 * 2.x, else through __dlpack__; OFF through __dlpack__ as any producer. AUTO unless a test sets OFF
 * (dlx._testing); hits counts the imports that read the fields (both under the GIL). */
enum { DLX_NDARRAY_OFF = 0, DLX_NDARRAY_AUTO = 2 };
extern int dlx_py_ndarray_path;
extern long dlx_py_ndarray_path_hits;
/* dlx_py_view's non-owning import: a producer's dltensor_from_py_object_no_sync (PyTorch's), checked
 * as dlx.from_dlpack checks its managed export. 1 with *view filled (obj's reference keeps the memory),
 * 0 when obj's type offers no such path (nothing set), -1 with an exception. */
int dlx_py_view_borrowed(PyObject *obj, const dlx_import_spec *spec, dlx_view *view);
extern long dlx_py_borrowed_views;

/* Build and validate a view of any DLPack-capable object against spec (the C API of dlx/python.h). */
int dlx_capi_view_from_object(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle);

/* The DLPack 1.x exchange API a Python type advertises (either spelling), cached per type; NULL if none. */
const DLPackExchangeAPI *dlx_lookup_exchange_api(PyTypeObject *type);

/* Register dlx._testing helpers on the module (test builds: DLX_PY_TESTING). */
int dlx_testing_init(PyObject *module);

/* ---- ops.c: arithmetic, comparisons and module functions; methods.c: indexing and shape methods ---- */

/* Below this many elements an op is cheaper than dropping and retaking the GIL. */
#define GIL_FREE_MIN_ELEMENTS 16384

#define RUN_OP(st, nelem, call)                                                                       \
  do {                                                                                                \
    if ((nelem) >= GIL_FREE_MIN_ELEMENTS) {                                                           \
      Py_BEGIN_ALLOW_THREADS(st) = (call);                                                            \
      Py_END_ALLOW_THREADS                                                                            \
    } else {                                                                                          \
      (st) = (call);                                                                                  \
    }                                                                                                 \
  } while (0)

/* Dtype classes of NumPy's promotion rules (C_EXT: bfloat16 and the float8 formats, ml_dtypes' kinds). */
typedef enum dtclass { C_BOOL, C_INT, C_UINT, C_FLOAT, C_COMPLEX, C_EXT, C_OTHER } dtclass;
dtclass dlx_pyops_class_of(DLDataType dt);
/* What a Python scalar operand is (SK_NONE: not a Python scalar; NumPy scalars count as tensors). */
typedef enum skind { SK_NONE = 0, SK_BOOL, SK_INT, SK_FLOAT, SK_COMPLEX } skind;
skind dlx_pyops_scalar_kind(PyObject *o);
int dlx_pyops_is_tensor(PyObject *o);
/* A view of t's storage (one more reference to it). */
PyObject *dlx_pyops_wrap_view(TensorObject *t, const dlx_view *v);
/* src converted to dtype dt in a new compact tensor. */
PyObject *dlx_pyops_cast_new(const dlx_view *src, DLDataType dt);
/* A tensor for a tensor-like operand (a Tensor, or anything dlx.from_dlpack or NumPy takes); *unsupported
 * set when o is no tensor-like at all. */
PyObject *dlx_pyops_as_tensor(PyObject *o, int *unsupported);
/* A 0-d view of the Python scalar o (kind k) converted to dt, in buf. */
int dlx_pyops_scalar_view(PyObject *o, skind k, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign);
/* OverflowError for an int that does not fit dt. NULL. */
PyObject *dlx_pyops_int_out_of_bounds(PyObject *o, DLDataType dt);
/* dst[...] = value (a scalar or a tensor-like, broadcast, cast to dst's dtype). -1 + exception. */
int dlx_pyops_assign(const dlx_view *dst, PyObject *value);
/* ints from args (one sequence or several ints) into vals; *n their count. Each may be anything with
 * __index__ but a bool, as NumPy takes sizes. -1 + exception. */
int dlx_pyops_parse_int_args(PyObject *args, const char *what, int64_t *vals, int32_t *n);
/* A shape (one int or a sequence of them, as dlx_pyops_parse_int_args) into shape[*ndim]. -1 + exception. */
int dlx_pyops_parse_shape(PyObject *obj, int32_t *ndim, int64_t *shape);

/* Raise the Python exception for an op's failure: IndexError for INDEX, TypeError for UNSUPPORTED,
 * MemoryError for OUT_OF_MEMORY, ValueError otherwise. Returns NULL. */
PyObject *dlx_py_raise_op(dlx_status st);
/* A new C-contiguous owned tensor (zero-filled when zero is set). NULL + exception. */
PyObject *dlx_py_tensor_new_owned(int32_t ndim, const int64_t *shape, DLDataType dt, int zero);
/* The module's one dtype parser: a dlx dtype name, bool / int / float / complex, or what numpy.dtype takes
 * (numpy.dtype, numpy.float32, ml_dtypes.bfloat16). -1 + ValueError for an unknown name, TypeError else. */
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

/* ---- numpy.c: the buffer protocol, Tensor.__array__ / numpy / tolist, dlx.asarray ---- */
extern PyBufferProcs dlx_tensor_as_buffer;
PyObject *dlx_py_tensor_array(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx_py_tensor_numpy(PyObject *self, PyObject *unused);
PyObject *dlx_py_tensor_tolist(PyObject *self, PyObject *unused);
/* Tensor.item, and float() / int() / operator.index() / complex() of a one-element tensor. */
PyObject *dlx_py_tensor_item(PyObject *self, PyObject *unused);
PyObject *dlx_py_tensor_float(PyObject *self);
PyObject *dlx_py_tensor_int(PyObject *self);
PyObject *dlx_py_tensor_index(PyObject *self);
PyObject *dlx_py_tensor_complex(PyObject *self, PyObject *unused);
PyObject *dlx_py_asarray(PyObject *module, PyObject *args, PyObject *kwargs);
extern const char dlx_doc_array[], dlx_doc_numpy[], dlx_doc_tolist[], dlx_doc_item[], dlx_doc_asarray[];

/* dlx._dlx._check_callbacks (check.c): the C callbacks of dlx.check's reference producer. */
PyObject *dlx_py_check_callbacks(PyObject *self, PyObject *unused);

/* Interned strings used on hot paths. */
extern PyObject *dlx_str_dlpack, *dlx_str_dlpack_device, *dlx_str_max_version, *dlx_str_copy, *dlx_str_dl_device, *dlx_str_stream,
    *dlx_version_tuple, *dlx_kw_max_version;

#endif

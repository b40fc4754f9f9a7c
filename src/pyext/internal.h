/* Shared between the files of the extension: one section per file, in the order of the rooms (errors,
 * devices, creation, dtypes, ops, the producer and consumer sides of DLPack, the NumPy bridge, the
 * submodules, the module). dlx.Tensor's struct is in tensor.h, the Python side of storage in storage.h.
 *
 * Names: the extension's own functions, variables and types take the prefix dlx__py_, its macros and enum
 * constants DLX__PY_ (STYLE.md: internal names look internal, as dlx__ does in the library). The public C API
 * of dlx/python.h keeps its dlx_py_ / DLX_PY_ names, which the internal prefix cannot be mistaken for; names
 * that live in one file are static there and take no prefix. */
#ifndef DLX_PYEXT_INTERNAL_H
#define DLX_PYEXT_INTERNAL_H

#include "tensor.h" /* Python.h first, as CPython requires */

#include "dlx/ops.h"

/* ---- errors.c: exceptions -------------------------------------------------------------------------- */

/* The Python exception a dlx_status becomes in the given context; the message is dlx_last_error(). */
PyObject *dlx__py_raise(dlx_status st, PyObject *default_exc);
/* Raise the Python exception for an op's failure: IndexError for INDEX, TypeError for UNSUPPORTED,
 * MemoryError for OUT_OF_MEMORY, ValueError otherwise. Returns NULL. */
PyObject *dlx__py_raise_op(dlx_status st);
/* The exception of a failed stream or event call: ValueError for INVALID_ARGUMENT, RuntimeError else. */
PyObject *dlx__py_raise_runtime(dlx_status st);
/* The pending exception as one object (taken: none is pending after), and back. */
PyObject *dlx__py_fetch_exception(void);
void dlx__py_restore_exception(PyObject *exc);

/* ---- device.c: devices, copies across them, stream arguments --------------------------------------- */

/* A device= argument: "cpu", "cuda", "cuda:N", "cuda_host", "cuda_managed", ("cuda", N), a DLPack
 * (device_type, device_id) tuple, or a torch.device-like object. 0, or -1 with TypeError / ValueError. */
int dlx__py_parse_device(PyObject *o, DLDevice *out);
/* Where ops on memory of d put their results: cpu:0 for host-accessible memory, d otherwise. */
DLDevice dlx__py_home(DLDevice d);
/* 1 when memory on d needs no move to be on want: the same device, or host-accessible memory for cpu:0. */
int dlx__py_is_on(DLDevice d, DLDevice want);
/* A compact copy of src on device (dlx_copy across memory kinds). -1 + exc (MemoryError when out of memory). */
int dlx__py_copy_to(const dlx_view *src, DLDevice device, PyObject *exc, dlx__storage **out, dlx_view *out_view);
/* The Tensor obj on device: obj itself when it is there (host-accessible memory counts as cpu:0) and copy
 * is not 1, else a copy; copy 0 with a move is BufferError. New reference, or NULL + exception (exc for a
 * failed copy). */
PyObject *dlx__py_to_device(PyObject *obj, DLDevice device, int copy, PyObject *exc);
/* A stream argument as a handle: an int (a cudaStream_t; 0 the legacy default stream), or an object with
 * a cuda_stream or ptr attribute holding one. 0, or -1 with TypeError / ValueError. */
int dlx__py_stream_handle(PyObject *o, void **out);
/* The queue that orders work on memory of d (backends/backend.h): 1 with *q filled; 0 when there is none to
 * order (host memory, memory dlx queues no work on, or no device with streams in this process); -1 with
 * BufferError (a device that does not exist). fn names the caller in messages. */
struct dlx__queue;
int dlx__py_queue(DLDevice d, const char *fn, struct dlx__queue *q);
/* Tensor.to, Tensor.record, Tensor.wait. */
PyObject *dlx__py_tensor_to(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_tensor_record(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_tensor_wait(PyObject *self, PyObject *args, PyObject *kwargs);

/* Below this many elements an op is cheaper than dropping and retaking the GIL. */
#define DLX__PY_GIL_FREE_MIN_ELEMENTS 16384

/* st = call, with the GIL released when the op is large enough to be worth it. */
#define DLX__PY_RUN_OP(st, nelem, call)                                                               \
  do {                                                                                                \
    if ((nelem) >= DLX__PY_GIL_FREE_MIN_ELEMENTS) {                                                   \
      Py_BEGIN_ALLOW_THREADS(st) = (call);                                                            \
      Py_END_ALLOW_THREADS                                                                            \
    } else {                                                                                          \
      (st) = (call);                                                                                  \
    }                                                                                                 \
  } while (0)

/* ---- create.c: new tensors, dlx.empty / zeros / full / asarray; create_more.c: the rest ------------- */

/* A new C-contiguous owned tensor on device (zero-filled when zero is set), in the kind of memory at like
 * (NULL: none) where device has several. NULL + exception (ValueError for a shape too large). */
PyObject *dlx__py_tensor_new_on(DLDevice device, const void *like, int32_t ndim, const int64_t *shape, DLDataType dt,
                                int zero);

/* A new C-contiguous owned tensor for a result computed on like's memory: on dlx__py_home(like->device), in
 * like's kind of memory where that device has several (oneAPI host and shared USM stay so, so that the CPU
 * loops can write it). NULL + exception. */
PyObject *dlx__py_tensor_new_like(const dlx_view *like, int32_t ndim, const int64_t *shape, DLDataType dt);
/* A new C-contiguous owned tensor in host memory (zero-filled when zero is set). NULL + exception. */
PyObject *dlx__py_tensor_new_owned(int32_t ndim, const int64_t *shape, DLDataType dt, int zero);
/* dlx.asarray(obj): obj as a tensor, without a copy where it can be viewed. NULL + exception. */
PyObject *dlx__py_asarray(PyObject *obj);
/* dlx.empty, zeros, full, asarray. */
extern PyMethodDef dlx__py_create_methods[];
/* dlx.ones, empty_like, zeros_like, ones_like, full_like, arange, eye (create_more.c). */
extern PyMethodDef dlx__py_create_more_methods[];

/* ---- dtype.c: dtypes from Python objects, NumPy's dtype rules --------------------------------------- */

/* The module's one dtype parser: a dlx dtype name, bool / int / float / complex, or what numpy.dtype takes
 * (numpy.dtype, numpy.float32, ml_dtypes.bfloat16). -1 + ValueError for an unknown name, TypeError else. */
int dlx__py_parse_dtype(PyObject *o, DLDataType *dt);
/* Dtype classes of NumPy's promotion rules (EXT: bfloat16 and the float8 formats, ml_dtypes' kinds). */
typedef enum dlx__py_dtclass {
  DLX__PY_CLASS_BOOL,
  DLX__PY_CLASS_INT,
  DLX__PY_CLASS_UINT,
  DLX__PY_CLASS_FLOAT,
  DLX__PY_CLASS_COMPLEX,
  DLX__PY_CLASS_EXT,
  DLX__PY_CLASS_OTHER
} dlx__py_dtclass;
dlx__py_dtclass dlx__py_dtype_class(DLDataType dt);
/* NumPy's refusal of a float that has no integer value, for a float going into an integer dtype: NaN is
 * ValueError, infinity OverflowError. 0 when d is finite, else -1 with the exception. */
int dlx__py_float_has_int(double d);
/* What a Python scalar operand is (NONE: not a Python scalar; NumPy scalars count as tensors). */
typedef enum dlx__py_skind {
  DLX__PY_SCALAR_NONE = 0,
  DLX__PY_SCALAR_BOOL,
  DLX__PY_SCALAR_INT,
  DLX__PY_SCALAR_FLOAT,
  DLX__PY_SCALAR_COMPLEX
} dlx__py_skind;
dlx__py_skind dlx__py_scalar_kind(PyObject *o);
/* NumPy's result_type for two dtypes (ml_dtypes' for bfloat16 / float8). 0, or -1 with TypeError. */
int dlx__py_promote(DLDataType a, DLDataType b, DLDataType *out);
/* The dtype of tensor (dtype t) op weak Python scalar (kind s). */
DLDataType dlx__py_weak_result(DLDataType t, dlx__py_skind s);
/* Whether an in-place op may cast its result (dtype from) into its target (dtype to): NumPy's same_kind. */
int dlx__py_same_kind_castable(DLDataType from, DLDataType to);

/* ---- ops.c: arithmetic, comparisons, operands; methods.c: assignment and shape methods -------------- */

int dlx__py_is_tensor(PyObject *o);
/* A view of t's storage (one more reference to it). */
PyObject *dlx__py_wrap_view(dlx__py_tensor *t, const dlx_view *v);
/* src converted to dtype dt in a new compact tensor. */
PyObject *dlx__py_cast_new(const dlx_view *src, DLDataType dt);
/* A tensor for a tensor-like operand (a Tensor, or anything dlx.from_dlpack or NumPy takes); *unsupported
 * set when o is no tensor-like at all. */
PyObject *dlx__py_as_tensor(PyObject *o, int *unsupported);
/* A 0-d view of the Python scalar o (kind k) converted to dt, in buf. */
int dlx__py_scalar_view(PyObject *o, dlx__py_skind k, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign);
/* OverflowError for an int that does not fit dt. NULL. */
PyObject *dlx__py_int_out_of_bounds(PyObject *o, DLDataType dt);
/* dst[...] = value (a scalar or a tensor-like, broadcast, cast to dst's dtype). -1 + exception. */
int dlx__py_assign(const dlx_view *dst, PyObject *value);
/* A shape (one int or a sequence of them; each anything with __index__ but a bool, as NumPy takes sizes)
 * into shape[*ndim]. -1 + exception. */
int dlx__py_parse_shape(PyObject *obj, int32_t *ndim, int64_t *shape);

extern PyNumberMethods dlx__py_tensor_as_number;
PyObject *dlx__py_tensor_richcompare(PyObject *self, PyObject *other, int op);
PyObject *dlx__py_tensor_fill_(PyObject *self, PyObject *value);
PyObject *dlx__py_tensor_copy_(PyObject *self, PyObject *src);
PyObject *dlx__py_tensor_reshape(PyObject *self, PyObject *args);
PyObject *dlx__py_tensor_permute(PyObject *self, PyObject *args);
PyObject *dlx__py_tensor_transpose(PyObject *self, PyObject *args);
PyObject *dlx__py_tensor_astype(PyObject *self, PyObject *dtype);
PyObject *dlx__py_tensor_view(PyObject *self, PyObject *dtype);
PyObject *dlx__py_tensor_T(PyObject *self, void *closure);
/* dlx.add & co, matmul, fma, set_num_threads / get_num_threads. */
extern PyMethodDef dlx__py_ops_methods[];
/* dlx.compress (compress.c) */
extern PyMethodDef dlx__py_index_methods[];
/* dlx.<name>(x, y) for the name of one of dlx's binary ops ("add", "divide", "less", ...): *found 1 and its
 * result (NULL + exception on failure); *found 0 and NULL, nothing raised, for another name. */
PyObject *dlx__py_binary_named(PyObject *name, PyObject *x, PyObject *y, int *found);

/* ---- ufuncs.c: dlx.<ufunc> for every row of the op table (kernels/op_table.h), where, clip ---------- */

struct dlx__op_info;
/* The dtype an op's loop computes a promoted dtype dt in (NumPy's loop search among the dtypes the op's row
 * takes; true division; bool refused where NumPy refuses it). 0, or -1 with TypeError naming dlx.<name>. */
int dlx__py_loop_dtype(const struct dlx__op_info *info, const char *name, DLDataType dt, DLDataType *out);
/* The same where the operands' own dtypes are known (n of them; tensors, not weak scalars): NumPy's search
 * for the first loop every one casts to safely (copysign of int8 and uint8 computes in float16). */
int dlx__py_loop_dtype_n(const struct dlx__op_info *info, const char *name, DLDataType dt, int n,
                         const DLDataType *operands, DLDataType *out);
extern PyMethodDef dlx__py_ufunc_methods[];
/* dlx._op_table: a tuple of (NumPy's name, operand count, kind) per row. NULL + exception. */
PyObject *dlx__py_op_table(void);
/* Tensor's number slots of ufuncs.c's ops (ops.c's table refers to them). */
PyObject *dlx__py_nb_absolute(PyObject *x);
PyObject *dlx__py_nb_invert(PyObject *x);
PyObject *dlx__py_nb_positive(PyObject *x);
PyObject *dlx__py_nb_power(PyObject *a, PyObject *b, PyObject *mod);
PyObject *dlx__py_nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod);
#define DLX__PY_NB_DECL_(name) \
  PyObject *dlx__py_nb_##name(PyObject *a, PyObject *b); \
  PyObject *dlx__py_nb_inplace_##name(PyObject *a, PyObject *b);
DLX__PY_NB_DECL_(floor_divide)
DLX__PY_NB_DECL_(remainder)
DLX__PY_NB_DECL_(and)
DLX__PY_NB_DECL_(or)
DLX__PY_NB_DECL_(xor)
DLX__PY_NB_DECL_(lshift)
DLX__PY_NB_DECL_(rshift)
#undef DLX__PY_NB_DECL_

/* ---- index.c: t[key] (basic: a view; advanced: dlx_gather / dlx_scatter), len, iter, `in` --------------- */

extern PyMappingMethods dlx__py_tensor_as_mapping;
extern PySequenceMethods dlx__py_tensor_as_sequence;
/* iter(t) over the first axis, and its iterator type (made ready by the module's init). */
PyObject *dlx__py_tensor_iter(PyObject *self);
/* Tensor.__reversed__: the same iterator from the last row back. */
PyObject *dlx__py_tensor_reversed(PyObject *self, PyObject *unused);
extern PyTypeObject dlx__py_tensor_iter_type;

/* ---- producer.c: __dlpack__, its stream / dl_device / copy rules, the C exchange API ---------------- */

/* Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) and __dlpack_device__. */
PyObject *dlx__py_tensor_dlpack(dlx__py_tensor *t, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *dlx__py_tensor_dlpack_device(PyObject *self, PyObject *unused);
/* The DLPack 1.3 C exchange API table dlx.Tensor advertises. */
extern const DLPackExchangeAPI dlx__py_exchange_api;

/* ---- consumer.c: from_dlpack; quirks.c: the rules of producers whose table skips __dlpack__'s checks -- */

/* Import a managed tensor that dlx now owns (ownership passes to the new Tensor, or its deleter runs
 * on failure). alignment 0 = natural. NULL + BufferError on failure. */
PyObject *dlx__py_import_versioned_owned(DLManagedTensorVersioned *m, uint32_t alignment);
/* from_dlpack core: x any DLPack object, alignment 0 = natural, copy -1 None / 0 / 1. */
PyObject *dlx__py_from_dlpack(PyObject *x, uint32_t alignment, int copy);
/* How dlx.from_dlpack reads an exact numpy.ndarray (consumer.c): AUTO its fields where NumPy's ABI is
 * 2.x, else through __dlpack__; OFF through __dlpack__ as any producer. AUTO unless a test sets OFF
 * (dlx._testing); hits counts the imports that read the fields (both under the GIL). */
enum { DLX__PY_NDARRAY_OFF = 0, DLX__PY_NDARRAY_AUTO = 2 };
extern int dlx__py_ndarray_path;
/* Whether x is an exact numpy.ndarray (not a subclass), known without importing NumPy. */
int dlx__py_is_exact_ndarray(PyObject *x);
extern long dlx__py_ndarray_path_hits;
/* dlx_py_view's non-owning import: a producer's dltensor_from_py_object_no_sync (PyTorch's), checked
 * as dlx.from_dlpack checks its managed export. 1 with *view filled (obj's reference keeps the memory),
 * 0 when obj's type offers no such path (nothing set), -1 with an exception. */
int dlx__py_view_borrowed(PyObject *obj, const dlx_import_spec *spec, dlx_view *view);
extern long dlx__py_borrowed_views;
/* The DLPack 1.x exchange API a Python type advertises (either spelling), cached per type; NULL if none. */
const DLPackExchangeAPI *dlx__py_lookup_exchange_api(PyTypeObject *type);
/* from_dlpack. */
extern PyMethodDef dlx__py_consumer_methods[];

typedef struct dlx__py_quirks {
  /* after x exported a tensor of dtype (from a table of another major when other_major): 0 to import
   * it, -1 with an exception set to refuse (the caller deletes what was exported) */
  int (*refuse)(PyObject *x, DLDataType dtype, int other_major);
  /* after the export of x failed: turn the pending exception into the one __dlpack__ raises */
  void (*export_failed)(PyObject *x);
  /* before x.__dlpack__() (a type without a table): 0 to call it, -1 with an exception set to refuse */
  int (*before_dlpack)(PyObject *x);
  /* 1 when the table's non-owning dltensor_from_py_object_no_sync says all its managed export would:
   * a DLTensor carries no flags, so a producer that may flag READ_ONLY or IS_SUBBYTE_TYPE_PADDED must
   * not be borrowed from (dlx_py_view then takes the managed export) */
  int borrow_ok;
} dlx__py_quirks;
/* The quirks of the producer of type (NULL: none). -1 when it has quirks dlx cannot apply: then its
 * table is not used, and __dlpack__ makes its own checks. */
int dlx__py_quirks_of(PyTypeObject *type, const dlx__py_quirks **q);

/* ---- capi.c: the C API of dlx/python.h -------------------------------------------------------------- */

/* Build and validate a view of any DLPack-capable object against spec (dlx_py_view). */
int dlx__py_capi_view_from_object(PyObject *obj, const dlx_import_spec *spec, dlx_view *view, PyObject **handle);
/* Add the capsule dlx._dlx._C_API to the module. */
int dlx__py_capi_init(PyObject *module);

/* ---- numpy.c: Tensor.__array__ / numpy() / NumPy's protocols, and what the NumPy bridge's files share ---- */

/* 1 when the host can read t's memory: host-accessible device types, and oneAPI host or shared USM
 * (asked of the runtime). *usm names device USM for messages. */
int dlx__py_host_readable(const dlx__py_tensor *t, const char **usm);
/* -1 with exc when t's memory is not readable by the host, naming what was asked (what) and t.to("cpu"). */
int dlx__py_require_host(const dlx__py_tensor *t, PyObject *exc, const char *what);
/* dt with one lane. */
DLDataType dlx__py_one_lane(DLDataType dt);
/* The PEP 3118 format of a one-lane dtype (NumPy's spelling), or NULL when the format language has none. */
const char *dlx__py_pep3118_format(DLDataType dt);
/* bfloat16, the float8 formats, float6 and float4: the dtypes ml_dtypes gives NumPy. */
int dlx__py_is_narrow_float(DLDataType dt);
/* Vectors of float6/float4 lanes: the lanes of one element share bytes. */
int dlx__py_lanes_share_bytes(DLDataType dt);
/* Packed (not padded) sub-byte elements. */
int dlx__py_is_packed(const dlx_view *v);
/* copy=: None -1, False 0, True 1 (bools only). -1 + TypeError. */
int dlx__py_parse_copy(PyObject *o, int *copy);
/* obj.method(arg, copy=False), or obj.method(copy=False) when arg is NULL. */
PyObject *dlx__py_call_with_copy_false(PyObject *obj, const char *method, PyObject *arg);
/* ValueError "<what>: copy=False, but <why> needs a copy". NULL. */
PyObject *dlx__py_copy_refused(const char *what, const char *why);
PyObject *dlx__py_tensor_array(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_tensor_numpy(PyObject *self, PyObject *unused);
extern const char dlx__py_doc_array[], dlx__py_doc_numpy[];
/* Tensor.__array_ufunc__ and __array_function__: python/dlx/_numpy_protocol.py's array_ufunc and
 * array_function, called with self first. */
PyObject *dlx__py_tensor_array_ufunc(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dlx__py_tensor_array_function(PyObject *self, PyObject *args, PyObject *kwargs);
extern const char dlx__py_doc_array_ufunc[], dlx__py_doc_array_function[];

/* ---- buffer.c: the buffer protocol, both ways -------------------------------------------------------- */

extern PyBufferProcs dlx__py_tensor_as_buffer;
/* A buffer object's memory as a tensor, zero-copy where dlx can view it in place, else copied (unless copy
 * is 0: ValueError); *fresh set when it was. NULL + exception. */
PyObject *dlx__py_import_buffer(PyObject *obj, int copy, int *fresh);

/* ---- tolist.c: Python values of a tensor ------------------------------------------------------------- */

PyObject *dlx__py_tensor_tolist(PyObject *self, PyObject *unused);
/* Tensor.item, and float() / int() / operator.index() / complex() of a one-element tensor. */
PyObject *dlx__py_tensor_item(PyObject *self, PyObject *unused);
PyObject *dlx__py_tensor_float(PyObject *self);
PyObject *dlx__py_tensor_int(PyObject *self);
PyObject *dlx__py_tensor_index(PyObject *self);
PyObject *dlx__py_tensor_complex(PyObject *self, PyObject *unused);
/* bool(t): the one element's truth, for every dtype item() reads (ops.c's nb_bool). */
int dlx__py_tensor_bool(PyObject *self);
extern const char dlx__py_doc_tolist[], dlx__py_doc_item[];

/* ---- fromlist.c: tensors of Python scalars and nested sequences ------------------------------------- */

/* What nests: lists, tuples and ranges. */
int dlx__py_is_nested(PyObject *o);
/* A new host tensor of Python scalars or nested lists / tuples of them, of NumPy 2's dtype, or of *want
 * under NumPy's setitem rules. NULL + exception. */
PyObject *dlx__py_from_scalars(PyObject *obj, const DLDataType *want);

/* ---- check.c: dlx._dlx._check_callbacks, the C callbacks of dlx.check's reference producer ---------- */

extern PyMethodDef dlx__py_check_methods[];

/* ---- cuda.c, oneapi.c: the submodules ---------------------------------------------------------------- */

/* Add dlx._dlx._cuda (what dlx.cuda wraps) to the module. */
int dlx__py_cuda_init(PyObject *module);
/* Add dlx._dlx._oneapi (what dlx.oneapi wraps) to the module. */
int dlx__py_oneapi_init(PyObject *module);

/* ---- module.c: interned strings; testing.c: dlx._testing --------------------------------------------- */

/* Interned strings used on hot paths. */
extern PyObject *dlx__py_str_dlpack, *dlx__py_str_dlpack_device, *dlx__py_str_max_version, *dlx__py_str_copy, *dlx__py_str_dl_device,
    *dlx__py_str_stream, *dlx__py_str_device, *dlx__py_str_assumed_align, *dlx__py_version_tuple,
    *dlx__py_kw_max_version;

/* Register dlx._testing helpers on the module (test builds: DLX_PY_TESTING). */
int dlx__py_testing_init(PyObject *module);

#endif

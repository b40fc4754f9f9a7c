/* The buffer protocol (PEP 3118) both ways: dlx.Tensor's buffer, for NumPy and every other reader of
 * Python memory, and dlx.asarray's import of a buffer object (bytes, bytearray, array.array, memoryview).
 *
 * Narrow formats in the buffer protocol: PEP 3118 has no format for bfloat16, float8, float6 or float4
 * (nor for int128, float128, complex32). A request with PyBUF_FORMAT is refused with BufferError rather
 * than answered with the bits' unsigned type ('H' for bfloat16): NumPy asks for the buffer before it
 * calls __array__, so 'H' would make np.asarray(bf16_tensor) a uint16 array without a word, while a
 * refusal sends NumPy on to __array__, which gives ml_dtypes' bfloat16. A request without PyBUF_FORMAT
 * means "bytes" (PEP 3118: format NULL is 'B'), so it is served, with itemsize the element's size.
 * Packed float6/float4 elements are not byte-addressable: refused whatever the flags. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"

/* ---- the buffer protocol -------------------------------------------------------------------------- */

/* What a Py_buffer points into, freed by bf_releasebuffer: shape and strides (Py_ssize_t, bytes), and
 * the format of a vector dtype ("(4)f"). */
typedef struct buffer_info {
  char format[32];
  Py_ssize_t dims[]; /* shape[ndim], then strides[ndim] */
} buffer_info;

/* The address an empty tensor exports when its data is NULL (DLPack allows that): consumers such as
 * NumPy read a NULL buf as "allocate for me", so an empty buffer points at this instead. */
static max_align_t empty_data;

/* The refusals that depend on the elements, in order: memory the host cannot read, packed sub-byte
 * elements, a writable request for read-only data, a format request PEP 3118 has no answer to (fmt: the
 * element's format, or NULL). 0, or -1 with BufferError. */
static int check_elements(const dlx__py_tensor *t, int flags, const char *fmt) {
  const dlx_view *v = &t->view;
  char name[DLX_DTYPE_NAME_MAX];
  if (dlx__py_require_host(t, PyExc_BufferError, "dlx.Tensor buffer") != 0) return -1;
  if (dlx__py_is_packed(v)) {
    PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: packed %s elements are not byte-addressable; t.numpy() "
                 "unpacks them into ml_dtypes' one-byte type (a copy)", dlx__dtype_text(name, sizeof name, v->dtype));
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && (v->flags & DLX_VIEW_READ_ONLY)) {
    PyErr_SetString(PyExc_BufferError, "dlx.Tensor buffer: the tensor is read-only, a writable buffer was requested");
    return -1;
  }
  if ((flags & PyBUF_FORMAT) && fmt == NULL) {
    dlx__dtype_text(name, sizeof name, v->dtype);
    if (dlx__py_is_narrow_float(v->dtype))
      PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s has no PEP 3118 format; t.numpy() gives an ml_dtypes "
                   "array without a copy, a buffer of its bits needs no format (or t.view() as an unsigned type)",
                   name);
    else
      PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s has no PEP 3118 format; request the buffer without "
                   "PyBUF_FORMAT to read its bytes", name);
    return -1;
  }
  return 0;
}

/* Why a tensor of this contiguity cannot serve a request of these flags, or NULL. Without strides a
 * consumer reads the memory as C-contiguous (PEP 3118), so that is all it gets. */
static const char *layout_refusal(int flags, int c_contig, int f_contig) {
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig)
    return "the tensor is not C-contiguous and no strides were requested";
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig) return "the tensor is not C-contiguous";
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contig) return "the tensor is not Fortran-contiguous";
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !f_contig)
    return "the tensor is neither C- nor Fortran-contiguous";
  return NULL;
}

/* The shape, then the strides in bytes, into dims[2 * ndim]. A contiguous tensor exports the compact
 * strides of its order (C unless Fortran was asked for), as NumPy does: strides of extent-1 dimensions
 * are never applied, so they may be anything, and some consumers test contiguity by comparing every
 * stride. */
static void fill_dims(const dlx_view *v, int flags, int c_contig, int f_contig, Py_ssize_t itemsize,
                      Py_ssize_t *dims) {
  const int32_t nd = v->ndim;
  const int order = c_contig && !((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && f_contig) ? 'C'
                    : f_contig                                                                 ? 'F'
                                                                                               : 0;
  Py_ssize_t step = itemsize;
  for (int32_t k = 0; k < nd; ++k) {
    const int32_t i = order == 'C' ? nd - 1 - k : k;
    const int64_t s = v->strides[i];
    dims[i] = (Py_ssize_t)v->shape[i];
    if (order) dims[nd + i] = step;
    /* a stride too large to scale to bytes is that of an extent-1 dimension (the import checked the
     * span of the others): never applied, exported as 0 */
    else if (s > PY_SSIZE_T_MAX / itemsize || s < -PY_SSIZE_T_MAX / itemsize) dims[nd + i] = 0;
    else dims[nd + i] = (Py_ssize_t)s * itemsize;
    /* only an empty tensor's extents can multiply past the bytes a buffer holds: its strides are
     * never applied either, and from there they are 0 */
    step = v->shape[i] > 0 && step > PY_SSIZE_T_MAX / v->shape[i] ? 0 : step * (Py_ssize_t)v->shape[i];
  }
}

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  const dlx_view *v = &t->view;
  view->obj = NULL;
  const char *fmt = dlx__py_pep3118_format(dlx__py_one_lane(v->dtype));
  if (check_elements(t, flags, fmt) != 0) return -1;
  const int32_t nd = v->ndim;
  const Py_ssize_t itemsize = (Py_ssize_t)dlx_dtype_itemsize(v->dtype);
  const int64_t n = dlx_view_size(v);
  if (n > PY_SSIZE_T_MAX / itemsize) { /* only a broadcast view can claim that many bytes */
    PyErr_SetString(PyExc_BufferError, "dlx.Tensor buffer: the tensor has more bytes than a buffer can describe");
    return -1;
  }
  const int c_contig = dlx_view_is_c_contiguous(v), f_contig = dlx_view_is_f_contiguous(v);
  const int want_shape = (flags & PyBUF_ND) == PyBUF_ND, want_strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
  const char *refuse = layout_refusal(flags, c_contig, f_contig);
  if (refuse) {
    PyErr_Format(PyExc_BufferError, "dlx.Tensor buffer: %s (layout %R); copy it first (t.reshape(-1) or "
                 "dlx.asarray(t, copy=True))", refuse, self);
    return -1;
  }
  buffer_info *info = NULL;
  const int vector_format = fmt != NULL && (flags & PyBUF_FORMAT) && v->dtype.lanes > 1;
  if ((want_shape && nd > 0) || vector_format) {
    info = PyMem_Malloc(sizeof(buffer_info) + 2 * (size_t)nd * sizeof(Py_ssize_t));
    if (info == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    fill_dims(v, flags, c_contig, f_contig, itemsize, info->dims);
    if (vector_format) snprintf(info->format, sizeof info->format, "(%u)%s", (unsigned)v->dtype.lanes, fmt);
  }
  view->buf = v->data != NULL ? v->data : (void *)&empty_data;
  view->obj = self; /* the tensor holds the storage: the memory lives until PyBuffer_Release */
  Py_INCREF(self);
  view->len = (Py_ssize_t)n * itemsize;
  view->readonly = (v->flags & DLX_VIEW_READ_ONLY) != 0;
  view->itemsize = itemsize;
  view->format = (flags & PyBUF_FORMAT) ? (vector_format ? info->format : (char *)fmt) : NULL;
  /* as PyBuffer_FillInfo: a request without PyBUF_ND sees one dimension of len bytes */
  view->ndim = want_shape ? nd : 1;
  view->shape = want_shape && nd > 0 ? info->dims : NULL;
  view->strides = want_strides && nd > 0 ? info->dims + nd : NULL;
  view->suboffsets = NULL; /* never indirect: every PyBUF_INDIRECT consumer accepts NULL */
  view->internal = info;
  return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view) {
  (void)self;
  PyMem_Free(view->internal);
}

PyBufferProcs dlx__py_tensor_as_buffer = {tensor_getbuffer, tensor_releasebuffer};

/* ---- buffer objects as tensors (dlx.asarray) ------------------------------------------------------- */

/* The dtype of a buffer's format (one native scalar, NumPy's subset of PEP 3118) and item size. -1 with
 * TypeError for anything else: structs, repeat counts, long double, pointers, the other byte order. */
static int dtype_of_format(const char *format, Py_ssize_t itemsize, DLDataType *dt) {
  const char *f = format ? format : "B";
  if (*f == '@' || *f == '=') {
    ++f;
  } else if (*f == '<' || *f == '>' || *f == '!') {
    if ((*f == '<') != PY_LITTLE_ENDIAN) goto refuse;
    ++f;
  }
  const int cplx = *f == 'Z';
  f += cplx;
  if (f[0] == '\0' || f[1] != '\0') goto refuse;
  int code, need = 0; /* need: the item size the code fixes */
  switch (f[0]) {
    case '?': code = DLX_CODE_BOOL, need = 1; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': code = DLX_CODE_INT; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': code = DLX_CODE_UINT; break;
    case 'e': code = DLX_CODE_FLOAT, need = 2; break;
    case 'f': code = DLX_CODE_FLOAT, need = 4; break;
    case 'd': code = DLX_CODE_FLOAT, need = 8; break;
    default: goto refuse;
  }
  if (cplx) {
    if (code != DLX_CODE_FLOAT) goto refuse;
    code = DLX_CODE_COMPLEX;
    need *= 2;
  }
  if ((need && itemsize != need) || (!need && itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8))
    goto refuse;
  *dt = DLX_DTYPE_MAKE(code, 8 * itemsize, 1);
  return 0;
refuse:
  PyErr_Format(PyExc_TypeError, "dlx.asarray: no dlx dtype for buffer format '%s' (itemsize %zd)",
               format ? format : "B", itemsize);
  return -1;
}

/* A buffer object's memory, zero-copy and holding the buffer (a bytearray cannot resize meanwhile).
 * A buffer dlx cannot view in place (misaligned, or strides not a multiple of the item size) is copied
 * unless copy is False; *fresh tells that it was. */
PyObject *dlx__py_import_buffer(PyObject *obj, int copy, int *fresh) {
  PyObject *mv = PyMemoryView_FromObject(obj), *t = NULL;
  if (mv == NULL) return NULL;
  /* a memoryview's own Py_buffer always has shape and strides for ndim >= 1 */
  const Py_buffer *b = PyMemoryView_GET_BUFFER(mv);
  DLDataType dt;
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
  if (dtype_of_format(b->format, b->itemsize, &dt) != 0) goto done;
  int in_place = (uintptr_t)b->buf % dlx_dtype_alignment(dt) == 0;
  for (int i = 0; i < b->ndim; ++i) {
    if (b->suboffsets != NULL && b->suboffsets[i] >= 0) {
      PyErr_SetString(PyExc_BufferError, "dlx.asarray: indirect buffers (PIL-style suboffsets) are not supported");
      goto done;
    }
    shape[i] = b->shape[i];
    strides[i] = b->strides[i] / b->itemsize;
    in_place &= b->strides[i] % b->itemsize == 0;
  }
  if (!in_place) {
    if (copy == 0) {
      dlx__py_copy_refused("dlx.asarray", "a buffer that is misaligned or strided in partial items");
      goto done;
    }
    /* CPython copies any strided buffer in C order, byte by byte where it must */
    if ((t = dlx__py_tensor_new_owned(b->ndim, shape, dt, 0)) != NULL &&
        PyBuffer_ToContiguous(((dlx__py_tensor *)t)->view.data, b, b->len, 'C') != 0)
      Py_CLEAR(t);
    *fresh = 1;
    goto done;
  }
  dlx_view v;
  const DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&v, b->buf, dt, cpu, b->ndim, shape, strides);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_BufferError);
    goto done;
  }
  if (b->readonly) v.flags |= DLX_VIEW_READ_ONLY;
  dlx__storage *s = dlx__py_storage_of_object(mv, b->buf, cpu);
  if (s != NULL) t = dlx__py_tensor_wrap(s, &v, 0);
done:
  Py_DECREF(mv);
  return t;
}

/* dlx.Tensor indexing, t[key] and t[key] = value, with NumPy's rules; len(t), iter(t) and `x in t`.
 *
 * Basic indices (ints, slices, `...`, None, and 0-d integer tensors and arrays, which act as ints) give a
 * view (dlx_view_subscript): the hot path, parsed item by item with no allocation. A key that holds an
 * array index (an integer or bool dlx.Tensor of any rank but 0-d integer, a NumPy array or other DLPack
 * object, a list or tuple of ints or bools nested in the key, a Python or NumPy bool) is NumPy's advanced
 * indexing, a copy, in four steps:
 *  1. parse: each array index becomes a tensor in host memory (device memory is copied over: indices are
 *     read on the host); a bool array becomes the coordinates of its true elements, one integer index per
 *     dimension it covers, and a 0-d bool a new axis indexed by [0] (True) or [] (False); but a getitem
 *     whose one advanced index is a bool array (t[mask], t[:, mask]) keeps the mask: dlx_mask_gather
 *     compacts the selected elements in one pass, with no coordinates;
 *  2. walk: the basic items make a view V, every array-indexed dimension kept whole; ints among arrays are
 *     advanced indices too (NumPy's rule): they drop their dimension, but count in deciding where the
 *     index dimensions go;
 *  3. place: the index tensors broadcast to the index shape B, which takes the place of the first advanced
 *     index when the advanced indices are adjacent in the key, and goes first otherwise (NumPy's rule; an
 *     ellipsis, a slice or None between them separates them);
 *  4. move: dlx_gather from V into a new C-contiguous tensor on V's device (getitem), or dlx_scatter of the
 *     value, broadcast and cast into a temporary of the selected shape first (setitem).
 * The element moves are the C core's (src/compute/gather.c), on whatever backend holds V. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

/* The most index items one subscript may hold: every dimension consumed, plus as many newaxes as the
 * rank allows, plus an ellipsis. */
#define MAX_ITEMS (2 * DLX_MAX_NDIM + 1)

static const char valid_indices[] =
    "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays are valid indices";

/* IndexError for what is no index at all. -1. */
static int not_an_index(PyObject *o) {
  PyErr_Format(PyExc_IndexError, "%s, not %.100s", valid_indices, Py_TYPE(o)->tp_name);
  return -1;
}

/* ---- basic indexing ------------------------------------------------------------------------------ */

static int is_integer_dtype(DLDataType dt) {
  return (dt.code == DLX_CODE_INT || dt.code == DLX_CODE_UINT) && dt.bits <= 64 && dt.lanes == 1;
}

/* One item of a key: 0 with *it filled (a basic item), 1 when o is an array index, -1 with an exception. */
static int parse_basic(PyObject *o, dlx_index_item *it) {
  memset(it, 0, sizeof *it);
  if (PyLong_CheckExact(o)) {
    Py_ssize_t i = PyLong_AsSsize_t(o);
    if (i == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_IndexError, "index %S is out of bounds", o);
      return -1;
    }
    it->kind = DLX_IDX_INT;
    it->i = i;
    return 0;
  }
  if (o == Py_None) {
    it->kind = DLX_IDX_NEWAXIS;
  } else if (o == Py_Ellipsis) {
    it->kind = DLX_IDX_ELLIPSIS;
  } else if (PySlice_Check(o)) {
    Py_ssize_t start, stop, step;
    /* absent bounds come back as the extreme values, which clamp to the same result */
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) return -1;
    it->kind = DLX_IDX_SLICE;
    it->s.start = start;
    it->s.stop = stop;
    it->s.step = step;
    it->s.has_start = it->s.has_stop = true;
  } else if (PyBool_Check(o)) {
    return 1;
  } else if (dlx__py_is_tensor(o) &&
             (((dlx__py_tensor *)o)->view.ndim != 0 || !is_integer_dtype(((dlx__py_tensor *)o)->view.dtype))) {
    return 1; /* only a 0-d integer tensor is an int; a one-element tensor of rank 1 indexes as an array */
  } else if (PyIndex_Check(o)) {
    Py_ssize_t i = PyNumber_AsSsize_t(o, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) {
      /* __index__ refused: an array of more than zero dimensions (numpy.array([1])), or a numpy.bool */
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
      PyErr_Clear();
      return 1;
    }
    it->kind = DLX_IDX_INT;
    it->i = i;
  } else {
    return 1;
  }
  return 0;
}

/* The items of key: 0 when all are basic (items[*n] filled), 1 when one is an array index, -1 + exception. */
static int parse_basic_key(const dlx__py_tensor *t, PyObject *key, dlx_index_item *items, int32_t *n) {
  *n = 0;
  if (!PyTuple_Check(key)) {
    *n = 1;
    return parse_basic(key, &items[0]);
  }
  const Py_ssize_t len = PyTuple_GET_SIZE(key);
  if (len > MAX_ITEMS) {
    PyErr_Format(PyExc_IndexError, "too many indices: %zd for ndim %d", len, t->view.ndim);
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; ++i) {
    const int r = parse_basic(PyTuple_GET_ITEM(key, i), &items[i]);
    if (r != 0) return r;
  }
  *n = (int32_t)len;
  return 0;
}

/* The exception of a view that cannot be made: TypeError for what the dtype cannot do (a view of packed
 * sub-byte data that does not start on a byte), IndexError for the rest. NULL. */
static PyObject *raise_view_error(dlx_status st) {
  return dlx__py_raise(st, st == DLX_ERR_UNSUPPORTED ? PyExc_TypeError : PyExc_IndexError);
}

static int subscript_basic(const dlx__py_tensor *t, int32_t n, const dlx_index_item *items, dlx_view *out) {
  dlx_status st = dlx_view_subscript(&t->view, n, items, out);
  if (st == DLX_OK) return 0;
  raise_view_error(st);
  return -1;
}

/* ---- 1. advanced indexing: the key's items ----------------------------------------------------------- */

typedef enum akind { A_BASIC, A_ARRAY, A_BOOL } akind;

typedef struct aitem {
  akind kind;
  dlx_index_item basic; /* A_BASIC */
  PyObject *tensor;     /* A_ARRAY: an integer tensor, A_BOOL: a bool tensor (any rank), in host memory */
} aitem;

typedef struct advanced {
  const dlx__py_tensor *t;
  aitem items[MAX_ITEMS];
  int32_t nitems;
  /* the walk's results */
  dlx_view v;                      /* V */
  int32_t m;                       /* advanced (array) indices, in key order */
  PyObject *index[DLX_MAX_NDIM];   /* their integer tensors in host memory */
  int32_t vdim[DLX_MAX_NDIM];      /* their dimensions of V */
  int32_t axis[DLX_MAX_NDIM];      /* their axes of t (-1: the new axis of a 0-d bool) */
  int32_t first;                   /* V's dimensions before the first advanced index */
  int adjacent;
  /* the placement's results */
  dlx_view w;                      /* V with the advanced dimensions first, in order */
  int32_t nb, nr;                  /* B's rank; the result's rank */
  int64_t shape[DLX_MAX_NDIM];     /* the result's shape */
  int32_t to_gather[DLX_MAX_NDIM]; /* the result's dimensions in gather order (B, then the rest) */
  int mask_mode; /* a getitem whose one advanced index is a bool array: index[] holds NULLs for it */
  const dlx_view *mask; /* (its item holds the tensor) */
  int64_t mask_count;
} advanced;

static void advanced_clear(advanced *a) {
  for (int32_t i = 0; i < a->nitems; ++i) Py_CLEAR(a->items[i].tensor);
  for (int32_t k = 0; k < a->m; ++k) Py_CLEAR(a->index[k]);
}

/* An index array whose byte order is not the machine's, which DLPack cannot carry (NumPy's export refuses
 * it with BufferError, the error pending on entry), as a tensor of it in native order: a copy,
 * o.astype(o.dtype.newbyteorder("=")), as NumPy casts its index arrays. NULL with the pending error kept
 * when o is no such array (one whose dtype says it is native). */
static PyObject *native_order_tensor(PyObject *o) {
  PyObject *exc = dlx__py_fetch_exception(), *r = NULL;
  PyObject *dt = PyObject_GetAttrString(o, "dtype");
  PyObject *isnative = dt != NULL ? PyObject_GetAttrString(dt, "isnative") : NULL;
  if (isnative == Py_False) { /* a failure of the conversion is the error then */
    PyObject *ndt = PyObject_CallMethod(dt, "newbyteorder", "s", "=");
    PyObject *native = ndt != NULL ? PyObject_CallMethod(o, "astype", "O", ndt) : NULL;
    int unsupported = 0;
    if (native != NULL) r = dlx__py_as_tensor(native, &unsupported);
    Py_XDECREF(native);
    Py_XDECREF(ndt);
    Py_DECREF(exc);
  } else {
    PyErr_Clear();
    dlx__py_restore_exception(exc); /* no array of another byte order: the import's own error stands */
  }
  Py_XDECREF(isnative);
  Py_XDECREF(dt);
  return r;
}

/* o as a tensor in host memory (a new reference): dlx tensors and DLPack objects (NumPy arrays) as they
 * are, device memory copied to the host; bools, and lists / tuples / ranges of ints or bools as NumPy
 * makes arrays of them (an empty one int64, as NumPy's index rule). NULL + exception (IndexError for what
 * makes no array). */
static PyObject *as_host_tensor(PyObject *o) {
  PyObject *r;
  if (PyBool_Check(o) || dlx__py_is_nested(o)) {
    r = dlx__py_from_scalars(o, NULL);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_IndexError, "%s; a sequence in an index must hold ints or bools only", valid_indices);
    } else if (r == NULL && PyErr_ExceptionMatches(PyExc_OverflowError)) {
      /* an int outside int64 and uint64 is out of bounds of every axis: IndexError, as NumPy's (whose
       * object array of it is no index) and as an int of the key says it */
      PyObject *exc = dlx__py_fetch_exception(), *msg = exc != NULL ? PyObject_Str(exc) : NULL;
      if (msg != NULL) PyErr_Format(PyExc_IndexError, "index out of bounds: %U", msg);
      Py_XDECREF(msg);
      Py_XDECREF(exc);
    }
    dlx_view *v = r != NULL ? &((dlx__py_tensor *)r)->view : NULL;
    /* a sequence with no elements makes float64, but indexes as an integer array (NumPy's rule) */
    if (v != NULL && dlx_view_size(v) == 0)
      Py_SETREF(r, dlx__py_tensor_new_owned(v->ndim, v->shape, DLX_DTYPE_INT64, 0));
    return r;
  }
  int unsupported = 0;
  r = dlx__py_as_tensor(o, &unsupported);
  if (r == NULL && PyErr_ExceptionMatches(PyExc_BufferError)) r = native_order_tensor(o);
  if (r == NULL) {
    if (unsupported || PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_BufferError)) {
      PyErr_Clear();
      not_an_index(o);
    }
    return NULL;
  }
  if (dlx_device_is_host_accessible(((dlx__py_tensor *)r)->view.device)) return r;
  /* indices are read on the host when the op is made (dlx_gather): a copy, which waits for the device */
  Py_SETREF(r, dlx__py_to_device(r, (DLDevice){kDLCPU, 0}, -1, PyExc_ValueError));
  return r;
}

static int parse_array_item(PyObject *o, aitem *it) {
  PyObject *t = as_host_tensor(o);
  if (t == NULL) return -1;
  const DLDataType dt = ((dlx__py_tensor *)t)->view.dtype;
  if (dt.code == DLX_CODE_BOOL && dt.lanes == 1) {
    it->kind = A_BOOL;
  } else if (is_integer_dtype(dt)) {
    it->kind = A_ARRAY;
  } else {
    char b[DLX_DTYPE_NAME_MAX];
    Py_DECREF(t);
    PyErr_Format(PyExc_IndexError, "arrays used as indices must be of integer (or boolean) type, not %s",
                 dlx__dtype_text(b, sizeof b, dt));
    return -1;
  }
  it->tensor = t;
  return 0;
}

static int parse_advanced_key(advanced *a, PyObject *key) {
  const int tuple = PyTuple_Check(key);
  const Py_ssize_t len = tuple ? PyTuple_GET_SIZE(key) : 1;
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject *o = tuple ? PyTuple_GET_ITEM(key, i) : key;
    aitem *it = &a->items[a->nitems++];
    it->tensor = NULL;
    it->kind = A_BASIC;
    const int r = parse_basic(o, &it->basic);
    if (r < 0 || (r > 0 && parse_array_item(o, it) != 0)) return -1;
  }
  return 0;
}

/* ---- 2. the walk --------------------------------------------------------------------------------- */

/* A bool view's true elements, row-major, as one new int64 tensor of coordinates per dimension. */
static int nonzero(const dlx_view *v, PyObject **out) {
  const int32_t nd = v->ndim;
  const int64_t n = dlx_view_size(v);
  int64_t idx[DLX_MAX_NDIM] = {0}, count = 0;
  int64_t *dst[DLX_MAX_NDIM];
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (int32_t d = 0; d < nd; ++d) {
        if ((out[d] = dlx__py_tensor_new_owned(1, &count, DLX_DTYPE_INT64, 0)) == NULL) {
          for (int32_t e = 0; e < d; ++e) Py_CLEAR(out[e]);
          return -1;
        }
        dst[d] = ((dlx__py_tensor *)out[d])->view.data;
      }
    }
    int64_t pos = 0;
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = 0;
      for (int32_t d = 0; d < nd; ++d) off += idx[d] * v->strides[d];
      if (((const unsigned char *)v->data)[off] != 0) { /* any nonzero byte is true, as NumPy reads a bool */
        if (pass == 1)
          for (int32_t d = 0; d < nd; ++d) dst[d][pos] = idx[d];
        ++pos;
      }
      for (int32_t d = nd - 1; d >= 0; --d) {
        if (++idx[d] < v->shape[d]) break;
        idx[d] = 0;
      }
    }
    count = pos;
  }
  return 0;
}

/* The walk's running state. */
typedef struct walk {
  dlx_index_item sub[2 * MAX_ITEMS]; /* the basic key that makes V */
  int32_t nsub, vdim, axis;
  int seen, ended;
} walk;

static int add_full_slices(walk *w, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    dlx_index_item *s = &w->sub[w->nsub++];
    memset(s, 0, sizeof *s);
    s->kind = DLX_IDX_SLICE;
    s->s.step = 1;
  }
  w->vdim += count;
  w->axis += count;
  return 0;
}

/* An advanced item starts here: the first sets where B goes, one after a separator breaks adjacency. */
static void mark_advanced(advanced *a, walk *w) {
  if (!w->seen) {
    w->seen = 1;
    a->first = w->vdim;
  } else if (w->ended) {
    a->adjacent = 0;
  }
}

static int add_index(advanced *a, walk *w, PyObject *tensor, int32_t axis) {
  if (a->m >= DLX_MAX_NDIM) {
    Py_XDECREF(tensor);
    PyErr_Format(PyExc_IndexError, "too many array indices (more than %d)", DLX_MAX_NDIM);
    return -1;
  }
  a->index[a->m] = tensor;
  a->vdim[a->m] = w->vdim;
  a->axis[a->m] = axis;
  ++a->m;
  return 0;
}

/* A bool index of rank k >= 1: its shape must be that of the k dimensions it covers. */
static int walk_bool(advanced *a, walk *w, const dlx_view *b) {
  for (int32_t d = 0; d < b->ndim; ++d) {
    const int64_t extent = a->t->view.shape[w->axis + d];
    if (b->shape[d] != extent) {
      PyErr_Format(PyExc_IndexError,
                   "boolean index did not match indexed tensor along axis %d; size of axis is %lld but size of "
                   "corresponding boolean axis is %lld",
                   (int)(w->axis + d), (long long)extent, (long long)b->shape[d]);
      return -1;
    }
  }
  if (a->mask_mode) { /* the mask itself goes to dlx_mask_gather: counted now, for the result's shape */
    a->mask = b;
    const dlx_status st = dlx_mask_count(b, &a->mask_count);
    if (st != DLX_OK) return dlx__py_raise_op(st), -1;
    for (int32_t d = 0; d < b->ndim; ++d) {
      if (add_index(a, w, NULL, w->axis) != 0) return -1;
      add_full_slices(w, 1);
    }
    return 0;
  }
  PyObject *coords[DLX_MAX_NDIM];
  if (nonzero(b, coords) != 0) return -1;
  for (int32_t d = 0; d < b->ndim; ++d) {
    if (add_index(a, w, coords[d], w->axis) != 0) {
      for (int32_t e = d + 1; e < b->ndim; ++e) Py_DECREF(coords[e]);
      return -1;
    }
    add_full_slices(w, 1);
  }
  return 0;
}

/* A 0-d bool: a new axis, indexed by [0] when true (extent 1) and [] when false (extent 0). */
static int walk_bool0(advanced *a, walk *w, const dlx_view *b) {
  const int64_t n = ((const unsigned char *)b->data)[0] != 0;
  PyObject *idx = dlx__py_tensor_new_owned(1, &n, DLX_DTYPE_INT64, 1);
  if (idx == NULL || add_index(a, w, idx, -1) != 0) return -1;
  dlx_index_item *s = &w->sub[w->nsub++];
  memset(s, 0, sizeof *s);
  s->kind = DLX_IDX_NEWAXIS;
  ++w->vdim;
  return 0;
}

static int walk_item(advanced *a, walk *w, aitem *it, int32_t ellipsis_dims) {
  if (it->kind == A_BASIC && it->basic.kind != DLX_IDX_INT) {
    if (w->seen) w->ended = 1; /* slices, None and `...` (even an empty one) separate advanced indices */
    if (it->basic.kind == DLX_IDX_ELLIPSIS) return add_full_slices(w, ellipsis_dims);
    w->sub[w->nsub++] = it->basic;
    ++w->vdim;
    if (it->basic.kind == DLX_IDX_SLICE) ++w->axis;
    return 0;
  }
  mark_advanced(a, w);
  if (it->kind == A_BASIC) { /* an int: drops its dimension */
    w->sub[w->nsub++] = it->basic;
    ++w->axis;
    return 0;
  }
  const dlx_view *tv = &((dlx__py_tensor *)it->tensor)->view;
  if (it->kind == A_BOOL) return tv->ndim == 0 ? walk_bool0(a, w, tv) : walk_bool(a, w, tv);
  PyObject *idx = it->tensor;
  it->tensor = NULL; /* taken over by the index list */
  if (add_index(a, w, idx, w->axis) != 0) return -1;
  return add_full_slices(w, 1);
}

/* The dimensions each item covers, and the ellipsis's share. */
static int count_dims(const advanced *a, int32_t *ellipsis_dims) {
  int32_t consumed = 0, ellipses = 0;
  for (int32_t i = 0; i < a->nitems; ++i) {
    const aitem *it = &a->items[i];
    if (it->kind == A_BASIC) {
      if (it->basic.kind == DLX_IDX_INT || it->basic.kind == DLX_IDX_SLICE) ++consumed;
      else if (it->basic.kind == DLX_IDX_ELLIPSIS) ++ellipses;
    } else if (it->kind == A_ARRAY) {
      ++consumed;
    } else {
      consumed += ((dlx__py_tensor *)it->tensor)->view.ndim;
    }
  }
  if (ellipses > 1) {
    PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
    return -1;
  }
  if (consumed > a->t->view.ndim) {
    PyErr_Format(PyExc_IndexError, "too many indices: %d for ndim %d", (int)consumed, (int)a->t->view.ndim);
    return -1;
  }
  *ellipsis_dims = a->t->view.ndim - consumed;
  return 0;
}

static int advanced_walk(advanced *a) {
  int32_t ellipsis_dims;
  if (count_dims(a, &ellipsis_dims) != 0) return -1;
  walk w;
  w.nsub = w.vdim = w.axis = 0;
  w.seen = w.ended = 0;
  a->adjacent = 1;
  a->first = 0;
  for (int32_t i = 0; i < a->nitems; ++i)
    if (walk_item(a, &w, &a->items[i], ellipsis_dims) != 0) return -1;
  return subscript_basic(a->t, w.nsub, w.sub, &a->v);
}

/* ---- 3. placement -------------------------------------------------------------------------------- */

static int broadcast_indices(advanced *a, int64_t *bshape) {
  if (a->mask_mode) { /* one index dimension: the true elements */
    a->nb = 1;
    bshape[0] = a->mask_count;
    return 0;
  }
  int32_t ndims[DLX_MAX_NDIM];
  const int64_t *shapes[DLX_MAX_NDIM];
  for (int32_t k = 0; k < a->m; ++k) {
    ndims[k] = ((dlx__py_tensor *)a->index[k])->view.ndim;
    shapes[k] = ((dlx__py_tensor *)a->index[k])->view.shape;
  }
  if (dlx_broadcast_shapes(a->m, ndims, shapes, &a->nb, bshape) == DLX_OK) return 0;
  dlx_clear_error();
  char text[DLX_SHAPE_TEXT_CAP];
  PyObject *all = PyUnicode_FromString("");
  for (int32_t k = 0; all != NULL && k < a->m; ++k) {
    dlx__shape_text(text, sizeof text, ndims[k], shapes[k]);
    Py_SETREF(all, PyUnicode_FromFormat("%U%s%s", all, k ? " " : "", text));
  }
  if (all != NULL) {
    PyErr_Format(PyExc_IndexError, "shape mismatch: indexing arrays could not be broadcast together with shapes %U",
                 all);
    Py_DECREF(all);
  }
  return -1;
}

/* W, the result's shape, and its dimensions in gather order. */
static int advanced_place(advanced *a) {
  int64_t bshape[DLX_MAX_NDIM];
  if (broadcast_indices(a, bshape) != 0) return -1;
  int32_t perm[DLX_MAX_NDIM], is_adv[DLX_MAX_NDIM] = {0}, nrest = 0;
  int64_t rest[DLX_MAX_NDIM];
  for (int32_t k = 0; k < a->m; ++k) {
    perm[k] = a->vdim[k];
    is_adv[a->vdim[k]] = 1;
  }
  for (int32_t d = 0; d < a->v.ndim; ++d) {
    if (is_adv[d]) continue;
    perm[a->m + nrest] = d;
    rest[nrest++] = a->v.shape[d];
  }
  dlx_status st = dlx_view_permute(&a->v, perm, &a->w);
  if (st != DLX_OK) {
    dlx__py_raise(st, PyExc_IndexError);
    return -1;
  }
  a->nr = a->nb + nrest;
  if (a->nr > DLX_MAX_NDIM) {
    PyErr_Format(PyExc_IndexError, "the result would have %d dimensions, more than %d", (int)a->nr, DLX_MAX_NDIM);
    return -1;
  }
  /* B goes where the first advanced index was (the rest dimensions before it count), else first */
  int32_t f = a->adjacent ? a->first : 0;
  if (f > nrest) f = nrest;
  for (int32_t d = 0; d < f; ++d) a->shape[d] = rest[d];
  for (int32_t j = 0; j < a->nb; ++j) a->shape[f + j] = bshape[j];
  for (int32_t d = f; d < nrest; ++d) a->shape[a->nb + d] = rest[d];
  for (int32_t j = 0; j < a->nb; ++j) a->to_gather[j] = f + j;
  for (int32_t d = 0; d < nrest; ++d) a->to_gather[a->nb + d] = d < f ? d : a->nb + d;
  return 0;
}

/* ---- 4. the moves -------------------------------------------------------------------------------- */

/* IndexError for an index out of range, in NumPy's words and the axis of t it indexes. */
static void raise_out_of_bounds(const advanced *a) {
  const char *msg = dlx_last_error();
  const char *v = strstr(msg, "index "), *d = strstr(msg, " for dimension "), *e = strstr(msg, " with extent ");
  int k = -1;
  if (v == NULL || d == NULL || e == NULL || sscanf(d, " for dimension %d", &k) != 1 || k < 0 || k >= a->m) {
    dlx__py_raise_op(DLX_ERR_INDEX);
    return;
  }
  char value[32];
  snprintf(value, sizeof value, "%s", v + 6);
  char *end = strchr(value, ' ');
  if (end != NULL) *end = '\0';
  PyErr_Format(PyExc_IndexError, "index %s is out of bounds for axis %d with size %s", value, (int)a->axis[k], e + 13);
}

static const dlx_view *index_view(const advanced *a, int32_t k) {
  return a->index[k] != NULL ? &((dlx__py_tensor *)a->index[k])->view : NULL;
}

static PyObject *advanced_get(advanced *a) {
  PyObject *r = dlx__py_tensor_new_like(&a->v, a->nr, a->shape, a->v.dtype);
  if (r == NULL) return NULL;
  dlx_view out;
  const dlx_view *idx[DLX_MAX_NDIM];
  for (int32_t k = 0; k < a->m; ++k) idx[k] = index_view(a, k);
  dlx_status st = dlx_view_permute(&((dlx__py_tensor *)r)->view, a->to_gather, &out);
  if (st == DLX_OK && a->mask_mode)
    DLX__PY_RUN_OP(st, dlx_view_size(&a->w), dlx_mask_gather(&out, &a->w, a->mask));
  else if (st == DLX_OK)
    DLX__PY_RUN_OP(st, dlx_view_size(&out), dlx_gather(&out, &a->w, a->m, idx));
  if (st == DLX_OK) return r;
  Py_DECREF(r);
  if (st == DLX_ERR_INDEX) raise_out_of_bounds(a);
  else dlx__py_raise_op(st);
  return NULL;
}

/* dst[...] = value for t[key] = value: dlx__py_assign's rules, with two of NumPy's setitem rules on top:
 * a list or tuple (nested) is an array of dst's dtype, its scalars converted as NumPy's setitem converts
 * them (ints range-checked, floats truncated into integers); and a value of higher rank loses leading
 * extent-1 dimensions until it has dst's rank (t[:] = ones((1, 3)) into a (3,) view), as NumPy and PyTorch
 * drop them. -1 + exception. */
static int assign(const dlx_view *dst, PyObject *value) {
  if (!dlx__py_is_tensor(value) && dlx__py_scalar_kind(value) != DLX__PY_SCALAR_NONE) return dlx__py_assign(dst, value);
  int unsupported = 0;
  PyObject *src = dlx__py_is_nested(value) ? dlx__py_from_scalars(value, &dst->dtype)
                                           : dlx__py_as_tensor(value, &unsupported);
  if (src == NULL) return -1;
  while (((dlx__py_tensor *)src)->view.ndim > dst->ndim && ((dlx__py_tensor *)src)->view.shape[0] == 1) {
    dlx_view v;
    dlx_status st = dlx_view_index(&((dlx__py_tensor *)src)->view, 0, 0, &v);
    if (st != DLX_OK) { /* element 0 always starts on a byte: a failure here is the dtype's own */
      Py_DECREF(src);
      raise_view_error(st);
      return -1;
    }
    Py_SETREF(src, dlx__py_wrap_view((dlx__py_tensor *)src, &v));
    if (src == NULL) return -1;
  }
  const int r = dlx__py_assign(dst, src);
  Py_DECREF(src);
  return r;
}

/* The value as the scatter takes it, in *tv, and what holds its memory (a new reference): a dlx tensor of
 * V's dtype and device that broadcasts to the selected shape as it is (dlx_scatter copies one that overlaps),
 * else a temporary it is broadcast and cast into by basic setitem's rules (assign); a Python scalar 0-d. */
static PyObject *advanced_value(const advanced *a, PyObject *value, dlx_view *tv) {
  if (dlx__py_is_tensor(value)) {
    const dlx_view *vv = &((dlx__py_tensor *)value)->view;
    if (dlx_dtype_equal(vv->dtype, a->v.dtype) && vv->device.device_type == a->v.device.device_type &&
        vv->device.device_id == a->v.device.device_id && vv->ndim <= a->nr &&
        dlx_view_broadcast_to(vv, a->nr, a->shape, tv) == DLX_OK) {
      Py_INCREF(value);
      return value;
    }
    dlx_clear_error();
  }
  const int scalar = !dlx__py_is_tensor(value) && dlx__py_scalar_kind(value) != DLX__PY_SCALAR_NONE;
  PyObject *tmp = dlx__py_tensor_new_like(&a->v, scalar ? 0 : a->nr, a->shape, a->v.dtype);
  if (tmp == NULL) return NULL;
  if (assign(&((dlx__py_tensor *)tmp)->view, value) != 0) Py_CLEAR(tmp);
  if (tmp != NULL) *tv = ((dlx__py_tensor *)tmp)->view;
  return tmp;
}

static int advanced_set(advanced *a, PyObject *value) {
  dlx_view tview;
  PyObject *tmp = advanced_value(a, value, &tview);
  if (tmp == NULL) return -1;
  const dlx_view *tv = &tview;
  dlx_view val;
  const dlx_view *idx[DLX_MAX_NDIM];
  for (int32_t k = 0; k < a->m; ++k) idx[k] = index_view(a, k);
  dlx_status st = tv->ndim == 0 ? DLX_OK : dlx_view_permute(tv, a->to_gather, &val);
  if (st == DLX_OK)
    DLX__PY_RUN_OP(st, dlx_view_size(tv), dlx_scatter(&a->w, a->m, idx, tv->ndim == 0 ? tv : &val));
  Py_DECREF(tmp);
  if (st == DLX_OK) return 0;
  if (st == DLX_ERR_INDEX) raise_out_of_bounds(a);
  else dlx__py_raise_op(st);
  return -1;
}

/* Whether the key's one advanced index (ints among arrays are some) is a bool array of rank >= 1. */
static int one_mask(const advanced *a) {
  int advanced_items = 0, mask = 0;
  for (int32_t i = 0; i < a->nitems; ++i) {
    const aitem *it = &a->items[i];
    if (it->kind == A_BASIC && it->basic.kind != DLX_IDX_INT) continue;
    ++advanced_items;
    mask = it->kind == A_BOOL && ((dlx__py_tensor *)it->tensor)->view.ndim >= 1;
  }
  return advanced_items == 1 && mask;
}

/* t[key] (value NULL) or t[key] = value, by advanced indexing. */
static PyObject *advanced_index(const dlx__py_tensor *t, PyObject *key, PyObject *value, int *set_status) {
  advanced *a = PyMem_Malloc(sizeof *a); /* 20 KiB: too much for the stack of a thread that indexes */
  if (a == NULL) return PyErr_NoMemory();
  a->t = t;
  a->nitems = a->m = 0;
  a->mask = NULL;
  a->mask_mode = 0;
  PyObject *r = NULL;
  if (parse_advanced_key(a, key) == 0) {
    a->mask_mode = value == NULL && one_mask(a);
    if (advanced_walk(a) == 0 && advanced_place(a) == 0) {
      if (value == NULL) r = advanced_get(a);
      else *set_status = advanced_set(a, value);
    }
  }
  advanced_clear(a);
  PyMem_Free(a);
  return r;
}

/* ---- the mapping protocol ------------------------------------------------------------------------ */

static PyObject *mp_subscript(PyObject *self, PyObject *key) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  dlx_index_item items[MAX_ITEMS];
  int32_t n;
  const int r = parse_basic_key(t, key, items, &n);
  if (r < 0) return NULL;
  if (r > 0) return advanced_index(t, key, NULL, NULL);
  dlx_view v;
  if (subscript_basic(t, n, items, &v) != 0) return NULL;
  return dlx__py_wrap_view(t, &v);
}

static int mp_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  if (value == NULL) {
    PyErr_SetString(PyExc_TypeError, "dlx.Tensor does not support item deletion");
    return -1;
  }
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  dlx_index_item items[MAX_ITEMS];
  int32_t n;
  const int r = parse_basic_key(t, key, items, &n);
  if (r < 0) return -1;
  if (r > 0) {
    int status = -1;
    advanced_index(t, key, value, &status);
    return status;
  }
  dlx_view v;
  if (subscript_basic(t, n, items, &v) != 0) return -1;
  return assign(&v, value);
}

static Py_ssize_t mp_length(PyObject *self) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (t->view.ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return (Py_ssize_t)t->view.shape[0];
}

PyMappingMethods dlx__py_tensor_as_mapping = {mp_length, mp_subscript, mp_ass_subscript};

/* ---- iteration and `in` -------------------------------------------------------------------------- */

/* iter(t): the views t[0], t[1], ... over the first axis, as NumPy and PyTorch iterate (0-d tensors for a
 * 1-d t); reversed(t): t[n-1], ..., t[0], as reversed() walks a NumPy array. Views need no element read, so
 * tensors on any device iterate; reading the elements is what may need t.to("cpu"). */
typedef struct tensor_iter {
  PyObject_HEAD
  PyObject *t; /* NULL once exhausted */
  int64_t i, step;
} tensor_iter;

static void iter_dealloc(tensor_iter *it) {
  Py_XDECREF(it->t);
  PyObject_Free(it);
}

static PyObject *iter_next(tensor_iter *it) {
  if (it->t == NULL) return NULL;
  dlx__py_tensor *t = (dlx__py_tensor *)it->t;
  if (it->i < 0 || it->i >= t->view.shape[0]) {
    Py_CLEAR(it->t);
    return NULL; /* StopIteration */
  }
  dlx_view v;
  dlx_status st = dlx_view_index(&t->view, 0, it->i, &v);
  it->i += it->step;
  /* i is in range, so what fails is the dtype: a row of packed float4 that does not start on a byte, with
   * the TypeError t[i] raises */
  if (st != DLX_OK) return raise_view_error(st);
  return dlx__py_wrap_view(t, &v);
}

PyTypeObject dlx__py_tensor_iter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dlx._dlx.TensorIterator",
    .tp_basicsize = sizeof(tensor_iter),
    .tp_dealloc = (destructor)iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Iterator over the first axis of a dlx.Tensor (iter(t), reversed(t)).",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)iter_next,
};

static PyObject *new_iter(PyObject *self, int reverse) {
  const dlx_view *v = &((dlx__py_tensor *)self)->view;
  if (v->ndim == 0) {
    PyErr_Format(PyExc_TypeError, "%s over a 0-d tensor", reverse ? "reversed()" : "iteration");
    return NULL;
  }
  tensor_iter *it = PyObject_New(tensor_iter, &dlx__py_tensor_iter_type);
  if (it == NULL) return NULL;
  Py_INCREF(self);
  it->t = self;
  it->i = reverse ? v->shape[0] - 1 : 0;
  it->step = reverse ? -1 : 1;
  return (PyObject *)it;
}

PyObject *dlx__py_tensor_iter(PyObject *self) { return new_iter(self, 0); }

PyObject *dlx__py_tensor_reversed(PyObject *self, PyObject *unused) {
  (void)unused;
  return new_iter(self, 1);
}

/* `x in t`: (t == x).any(), NumPy's rule (x broadcast against t; a list is an array). The comparison runs where t is; a result
 * in device memory comes to the host to be read (oneAPI device USM is refused by the comparison, saying how
 * to move it). */
static int sq_contains(PyObject *self, PyObject *x) {
  /* a list or tuple is an array here, as NumPy's `in` takes it */
  PyObject *xt = dlx__py_is_nested(x) ? dlx__py_from_scalars(x, NULL) : (Py_INCREF(x), x);
  if (xt == NULL) return -1;
  PyObject *eq = PyObject_RichCompare(self, xt, Py_EQ);
  Py_DECREF(xt);
  if (eq == NULL) return -1;
  if (!dlx__py_is_tensor(eq)) { /* NotImplemented turned into a bool by Python: no elementwise answer */
    const int r = PyObject_IsTrue(eq);
    Py_DECREF(eq);
    return r;
  }
  const char *usm;
  if (!dlx__py_host_readable((dlx__py_tensor *)eq, &usm))
    Py_SETREF(eq, dlx__py_to_device(eq, (DLDevice){kDLCPU, 0}, -1, PyExc_ValueError));
  if (eq == NULL) return -1;
  const dlx_view *v = &((dlx__py_tensor *)eq)->view; /* C-contiguous bools, one byte each */
  const int64_t n = dlx_view_size(v);
  int found = 0;
  for (int64_t i = 0; i < n && !found; ++i) found = ((const unsigned char *)v->data)[i] != 0;
  Py_DECREF(eq);
  return found;
}

PySequenceMethods dlx__py_tensor_as_sequence = {.sq_contains = sq_contains};

/* dlx.Tensor arithmetic and comparisons, and dlx.add & co, matmul, fma, set_num_threads; with the operand
 * helpers every file uses (dlx__py_as_tensor, dlx__py_cast_new, the scalar views).
 *
 * The C core computes on operands of one dtype (but int64 compared with uint64); the ops decide that dtype
 * the way NumPy 2 does (dtype.c: ml_dtypes' rules for bfloat16 and the float8 formats), casting an operand
 * first when needed:
 *  - tensor with tensor: NumPy's promotion table (int8 + uint8 -> int16, int64 + float32 -> float64, ...);
 *  - tensor with a Python scalar: the scalar is "weak" and takes the tensor's dtype (uint8 + 1 stays
 *    uint8; an int that does not fit is OverflowError), except where its kind is higher (int + 1.5 ->
 *    float64, float32 + 1j -> complex64);
 *  - `/` of integers or bools is true division in float64.
 * Views share the parent's storage (one more reference), so a view keeps its memory alive on its own.
 * Kernels of any size run with the GIL released; the Python references held for the call keep every
 * operand's storage alive meanwhile. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <math.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"
#include "kernels/op_table.h"

/* ---- operands ------------------------------------------------------------------------------------- */

int dlx__py_is_tensor(PyObject *o) { return Py_IS_TYPE(o, &dlx__py_tensor_type); }

/* A view of t's storage (one more reference to it). */
PyObject *dlx__py_wrap_view(dlx__py_tensor *t, const dlx_view *v) {
  return dlx__py_tensor_wrap(dlx__storage_retain(t->storage), v, 0);
}

/* t converted to dtype dt in a new compact tensor (on the device ops on src compute on). */
PyObject *dlx__py_cast_new(const dlx_view *src, DLDataType dt) {
  PyObject *r = dlx__py_tensor_new_like(src, src->ndim, src->shape, dt);
  if (r == NULL) return NULL;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(src), dlx_cast(&((dlx__py_tensor *)r)->view, src));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

/* A Tensor for any tensor-like object: a new reference (the object itself for a dlx.Tensor), NULL with
 * TypeError when it speaks no DLPack (or NotImplemented semantics left to the caller: *unsupported). */
PyObject *dlx__py_as_tensor(PyObject *o, int *unsupported) {
  *unsupported = 0;
  if (dlx__py_is_tensor(o)) {
    Py_INCREF(o);
    return o;
  }
  if (!PyObject_HasAttr(o, dlx__py_str_dlpack) && !PyCapsule_CheckExact(o)) {
    /* a NumPy scalar (numpy.float32(2)) speaks no DLPack, but its __array__ is a 0-d array that does */
    if (PyObject_HasAttrString(o, "dtype") && PyObject_HasAttrString(o, "__array__")) {
      PyObject *arr = PyObject_CallMethod(o, "__array__", NULL);
      if (arr == NULL) return NULL;
      PyObject *t = PyObject_HasAttr(arr, dlx__py_str_dlpack) ? dlx__py_from_dlpack(arr, 0, -1) : NULL;
      if (t == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%.100s.__array__() gave no DLPack object", Py_TYPE(o)->tp_name);
      Py_DECREF(arr);
      return t;
    }
    *unsupported = 1;
    return PyErr_Format(PyExc_TypeError, "expected a dlx.Tensor, a DLPack object or a Python scalar, not %.100s",
                        Py_TYPE(o)->tp_name);
  }
  return dlx__py_from_dlpack(o, 0, -1);
}

/* ---- scalars ------------------------------------------------------------------------------------ */

/* A Python int / bool as a 0-d view of an integer dtype. 0, or 1 with *sign = +1 / -1 when it lies
 * above / below the dtype's range (no exception), or -1 with an exception. */
static int int_scalar(PyObject *o, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (x == -1 && PyErr_Occurred()) return -1;
  if (overflow == 0) {
    dlx_status st = dlx_scalar_view_int(v, buf, dt, x);
    if (st == DLX_OK) return 0;
    if (st != DLX_ERR_OVERFLOW) {
      dlx__py_raise_op(st);
      return -1;
    }
    *sign = x < 0 ? -1 : 1;
    return 1;
  }
  if (overflow > 0 && dt.code == DLX_CODE_UINT && dt.bits == 64) {
    /* [2^63, 2^64) fits uint64 but not the int64 of dlx_scalar_view_int */
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
      uint64_t w = u;
      memcpy(buf->bytes, &w, sizeof w);
      dlx_status st = dlx_view_init(v, buf->bytes, dt, (DLDevice){kDLCPU, 0}, 0, NULL, NULL);
      if (st != DLX_OK) {
        dlx__py_raise_op(st);
        return -1;
      }
      return 0;
    }
    PyErr_Clear();
  }
  *sign = overflow;
  return 1;
}

/* A Python scalar of kind k as a 0-d view of dtype dt (the weak-scalar conversion). 0; 1 for an int
 * outside an integer dtype's range (*sign tells which side); -1 with an exception. */
int dlx__py_scalar_view(PyObject *o, dlx__py_skind k, DLDataType dt, dlx_view *v, dlx_scalar_buf *buf, int *sign) {
  dlx__py_dtclass c = dlx__py_dtype_class(dt);
  dlx_status st;
  if (k == DLX__PY_SCALAR_BOOL || k == DLX__PY_SCALAR_INT) {
    if (c == DLX__PY_CLASS_INT || c == DLX__PY_CLASS_UINT) return int_scalar(o, dt, v, buf, sign);
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow == 0) {
      st = dlx_scalar_view_int(v, buf, dt, x);
    } else {
      double d = PyLong_AsDouble(o); /* OverflowError past float64's range, as NumPy */
      if (d == -1.0 && PyErr_Occurred()) return -1;
      st = dlx_scalar_view(v, buf, dt, d, 0.0);
    }
  } else if (k == DLX__PY_SCALAR_FLOAT) {
    st = dlx_scalar_view(v, buf, dt, PyFloat_AsDouble(o), 0.0);
  } else {
    Py_complex z = PyComplex_AsCComplex(o);
    if (z.real == -1.0 && PyErr_Occurred()) return -1;
    st = dlx_scalar_view(v, buf, dt, z.real, z.imag);
  }
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    return -1;
  }
  return 0;
}

PyObject *dlx__py_int_out_of_bounds(PyObject *o, DLDataType dt) {
  char b[DLX_DTYPE_NAME_MAX];
  return PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for %s", o, dlx__dtype_text(b, sizeof b, dt));
}

/* ---- elementwise binary ops --------------------------------------------------------------------- */

/* The ops' NumPy names and facts come from the op table (kernels/op_table.h). */
static int is_comparison(dlx_binop op) { return dlx__op_is_comparison(op); }

/* a OP b == b SWAP(OP) a (the comparisons) */
static dlx_binop swapped(dlx_binop op) {
  const int s = dlx__binop_info[op].swap;
  return s >= 0 ? (dlx_binop)s : op;
}

/* Whether `t op value` holds for every t when value lies above (sign > 0) or below every t. */
static int out_of_range_comparison(dlx_binop op, int sign) {
  switch (op) {
    case DLX_OP_LT:
    case DLX_OP_LE: return sign > 0;
    case DLX_OP_GT:
    case DLX_OP_GE: return sign < 0;
    case DLX_OP_EQ: return 0;
    default: return 1;
  }
}

/* Where the result goes: a new tensor, the given out, or (in place) x itself. */
typedef enum out_mode { OUT_NEW, OUT_GIVEN, OUT_INPLACE } out_mode;

/* Write `result` (dtype rdt, shape already final) into target: directly when the dtypes match. */
static PyObject *finish_into(PyObject *target, PyObject *result) {
  dlx__py_tensor *t = (dlx__py_tensor *)target, *r = (dlx__py_tensor *)result;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(&t->view), dlx_cast(&t->view, &r->view));
  Py_DECREF(result);
  if (st != DLX_OK) return dlx__py_raise_op(st);
  Py_INCREF(target);
  return target;
}

/* ---- binary: one call in five steps ---------------------------------------------------------------
 *
 * x op y with NumPy's dtype rules, its checks in this order:
 *  1. classify: each operand is a Python scalar or a tensor-like (imported); a comparison with the scalar
 *     on the left is turned around, so that the scalar always takes one side of a tensor op;
 *  2. promote: the computation's dtype (NumPy's promotion, or the weak scalar's rule; `/` of integers in
 *     float64), the tensors cast to it (but for a signed int compared with uint64: int64 with uint64,
 *     compared exactly), the scalar converted to it (an int outside an integer dtype's range decides a
 *     comparison by itself);
 *  3. broadcast: the output's dtype and shape;
 *  4. resolve out: the tensor the caller's result must end up in (out=, or x in place) and its dtype;
 *  5. run: the kernel writes the target itself when the dtypes agree, else a new tensor that is then
 *     cast into the target.
 * Operators pass mode OUT_NEW / OUT_INPLACE and get NotImplemented for operands they do not know;
 * functions (strict) raise TypeError instead. */

/* One call's state. binary() drops the references it holds. */
typedef struct binary_call {
  dlx_binop op;
  const char *name;                  /* the caller's op's NumPy name (before a comparison is turned around) */
  out_mode mode;
  int strict;
  PyObject *x, *y, *out_obj;         /* the caller's arguments (borrowed) */
  PyObject *tx, *ty, *cx, *cy, *out; /* held: x's and y's tensors, their casts, out's import */
  PyObject *scalar;                  /* the Python scalar operand (borrowed), NULL when both are tensors */
  dlx__py_skind sk;                  /* its kind */
  const dlx_view *vx, *vy;           /* the operands (the scalar's 0-d view among them), in rdt once cast */
  DLDataType rdt, odt;               /* the computation's dtype and the output's */
  DLDataType dtx, dty;               /* the dtypes x and y are cast to: rdt, but for a mixed-sign comparison */
  int const_result;                  /* 0 / 1: a comparison decided by an int outside rdt's range; else -1 */
  int32_t nd;                        /* the output's broadcast shape */
  int64_t shape[DLX_MAX_NDIM];
  PyObject *target;                  /* the tensor the result must end up in (borrowed), if any */
  dlx_view sv;                       /* the scalar's 0-d view and its bytes */
  dlx_scalar_buf sbuf;
} binary_call;

/* 1. The operands. 0; 1 when the call is NotImplemented (no exception set); -1 with an exception. */
static int binary_classify(binary_call *c) {
  const dlx__py_skind kx = dlx__py_is_tensor(c->x) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(c->x);
  const dlx__py_skind ky = dlx__py_is_tensor(c->y) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(c->y);
  if (kx != DLX__PY_SCALAR_NONE && ky != DLX__PY_SCALAR_NONE) {
    if (!c->strict) return 1;
    PyErr_Format(PyExc_TypeError, "dlx.%s: at least one operand must be a tensor", c->name);
    return -1;
  }
  int unsupported = 0;
  if ((kx == DLX__PY_SCALAR_NONE && (c->tx = dlx__py_as_tensor(c->x, &unsupported)) == NULL) ||
      (ky == DLX__PY_SCALAR_NONE && (c->ty = dlx__py_as_tensor(c->y, &unsupported)) == NULL)) {
    if (!unsupported || c->strict) return -1;
    PyErr_Clear();
    return 1;
  }
  /* comparisons are evaluated as tensor OP scalar, the scalar on the right */
  if (is_comparison(c->op) && c->tx == NULL) {
    c->op = swapped(c->op);
    c->tx = c->ty;
    c->ty = NULL;
    c->scalar = c->x;
    c->sk = kx;
  } else if (c->tx == NULL || c->ty == NULL) {
    c->scalar = c->tx == NULL ? c->x : c->y;
    c->sk = c->tx == NULL ? kx : ky;
  }
  c->vx = c->tx ? &((dlx__py_tensor *)c->tx)->view : NULL;
  c->vy = c->ty ? &((dlx__py_tensor *)c->ty)->view : NULL;
  return 0;
}

/* 2a. The computation's dtype. 0, or -1 with TypeError. */
static int binary_dtype(binary_call *c) {
  if (c->vx && c->vy) {
    if (dlx__py_promote(c->vx->dtype, c->vy->dtype, &c->rdt) != 0) return -1;
  } else {
    c->rdt = dlx__py_weak_result((c->vx ? c->vx : c->vy)->dtype, c->sk);
  }
  /* the dtype the op's loop takes (NumPy's loop search; true division; bool refused where NumPy does) */
  {
    DLDataType dts[2];
    int n = 0;
    /* two tensors: each one's dtype (NumPy's loop search); a weak scalar: the dtype it promoted to */
    if (c->scalar != NULL) dts[n++] = c->rdt;
    else dts[n++] = c->vx->dtype, dts[n++] = c->vy->dtype;
    if (dlx__py_loop_dtype_n(&dlx__binop_info[c->op], c->name, c->rdt, n, dts, &c->rdt) != 0) return -1;
  }
  c->dtx = c->dty = c->rdt;
  /* A signed integer compared with uint64: NumPy 2 compares the exact values, where their promotion
   * (float64) rounds past 2^53 (2^63 + 1 == 2^63 - 1 there). The signed side widens exactly to int64 and
   * the core compares int64 with uint64 (dlx_binary's one mixed pair). */
  if (is_comparison(c->op) && c->vx && c->vy) {
    const int ux = dlx_dtype_equal(c->vx->dtype, DLX_DTYPE_UINT64), uy = dlx_dtype_equal(c->vy->dtype, DLX_DTYPE_UINT64);
    if (ux && dlx__py_dtype_class(c->vy->dtype) == DLX__PY_CLASS_INT) c->dtx = DLX_DTYPE_UINT64, c->dty = DLX_DTYPE_INT64;
    if (uy && dlx__py_dtype_class(c->vx->dtype) == DLX__PY_CLASS_INT) c->dtx = DLX_DTYPE_INT64, c->dty = DLX_DTYPE_UINT64;
  }
  return 0;
}

/* 2b. The tensor operands converted to their computation dtypes. */
static int binary_cast(binary_call *c) {
  if (c->vx && !dlx_dtype_equal(c->vx->dtype, c->dtx)) {
    if ((c->cx = dlx__py_cast_new(c->vx, c->dtx)) == NULL) return -1;
    c->vx = &((dlx__py_tensor *)c->cx)->view;
  }
  if (c->vy && !dlx_dtype_equal(c->vy->dtype, c->dty)) {
    if ((c->cy = dlx__py_cast_new(c->vy, c->dty)) == NULL) return -1;
    c->vy = &((dlx__py_tensor *)c->cy)->view;
  }
  return 0;
}

/* 2c. The scalar as a 0-d view of the computation's dtype, on the side no tensor took. */
static int binary_scalar(binary_call *c) {
  if (c->scalar == NULL) return 0;
  /* NumPy's refusal of a negative integer exponent (the C op truncates 1 / a ** -b instead) */
  if (c->op == DLX_OP_POWER && c->vx != NULL && (c->sk == DLX__PY_SCALAR_INT || c->sk == DLX__PY_SCALAR_BOOL) &&
      dlx__py_dtype_class(c->rdt) == DLX__PY_CLASS_INT) { /* (unsigned: the conversion's OverflowError) */
    PyObject *zero = PyLong_FromLong(0);
    const int neg = zero ? PyObject_RichCompareBool(c->scalar, zero, Py_LT) : -1;
    Py_XDECREF(zero);
    if (neg != 0) {
      if (neg > 0) PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
      return -1;
    }
  }
  int sign = 0;
  const int r = dlx__py_scalar_view(c->scalar, c->sk, c->rdt, &c->sv, &c->sbuf, &sign);
  if (r < 0) return -1;
  if (r > 0) {
    if (!is_comparison(c->op)) {
      dlx__py_int_out_of_bounds(c->scalar, c->rdt);
      return -1;
    }
    c->const_result = out_of_range_comparison(c->op, sign);
    /* a stand-in of the right dtype, for the shape logic below (its value is never used) */
    dlx_status st = dlx_scalar_view_int(&c->sv, &c->sbuf, c->rdt, 0);
    if (st != DLX_OK) {
      dlx__py_raise_op(st);
      return -1;
    }
  }
  if (c->vx == NULL) c->vx = &c->sv;
  else c->vy = &c->sv;
  return 0;
}

/* 3. The output's dtype and broadcast shape. */
static int binary_broadcast(binary_call *c) {
  c->odt = dlx__binop_info[c->op].bool_result ? DLX_DTYPE_BOOL : c->rdt;
  int32_t ndims[2] = {c->vx->ndim, c->vy->ndim};
  const int64_t *shapes[2] = {c->vx->shape, c->vy->shape};
  dlx_status st = dlx_broadcast_shapes(2, ndims, shapes, &c->nd, c->shape);
  if (st == DLX_OK) return 0;
  dlx__py_raise_op(st);
  return -1;
}

/* 4. The tensor the caller's result must end up in, if any, and NumPy's rules for its dtype: out= must
 * have the output's, an in-place operand one the output casts into (same_kind). */
static int binary_resolve_out(binary_call *c) {
  if (c->mode == OUT_INPLACE) {
    c->target = c->x;
  } else if (c->mode == OUT_GIVEN) {
    /* a DLPack object (a NumPy array) as out is imported; `out` keeps the import alive */
    int unsupported;
    if ((c->out = dlx__py_as_tensor(c->out_obj, &unsupported)) == NULL) return -1;
    c->target = c->out;
  }
  if (c->target == NULL) return 0;
  const dlx_view *tv = &((dlx__py_tensor *)c->target)->view;
  char a[DLX_DTYPE_NAME_MAX], b[DLX_DTYPE_NAME_MAX];
  if (c->mode == OUT_GIVEN && !dlx_dtype_equal(tv->dtype, c->odt)) {
    PyErr_Format(PyExc_ValueError, "dlx.%s: out has dtype %s, but the result is %s", c->name,
                 dlx__dtype_text(a, sizeof a, tv->dtype), dlx__dtype_text(b, sizeof b, c->odt));
    return -1;
  }
  if (c->mode == OUT_INPLACE && !dlx__py_same_kind_castable(c->odt, tv->dtype)) {
    PyErr_Format(PyExc_TypeError, "cannot cast the %s result from %s to %s in place (NumPy's same_kind rule)",
                 c->name, dlx__dtype_text(a, sizeof a, c->odt), dlx__dtype_text(b, sizeof b, tv->dtype));
    return -1;
  }
  return 0;
}

/* 5a. The tensor the kernel writes (a new reference): the target itself when the dtypes agree, else a
 * new one of the target's shape (or the broadcast shape) where the op computes. NULL + exception. */
static PyObject *binary_dest(const binary_call *c) {
  if (c->target && dlx_dtype_equal(((dlx__py_tensor *)c->target)->view.dtype, c->odt)) {
    Py_INCREF(c->target);
    return c->target;
  }
  const dlx_view *tv = c->target ? &((dlx__py_tensor *)c->target)->view : NULL;
  const dlx_view *like = &((dlx__py_tensor *)(c->tx ? c->tx : c->ty))->view; /* where the op computes */
  return tv ? dlx__py_tensor_new_like(like, tv->ndim, tv->shape, c->odt)
            : dlx__py_tensor_new_like(like, c->nd, c->shape, c->odt);
}

/* 5b. The kernel into dv: the op, or the constant of a comparison the scalar's range decided. */
static dlx_status binary_kernel(const binary_call *c, dlx_view *dv) {
  dlx_status st;
  if (c->const_result >= 0) {
    /* the constant broadcast to the operands' shape, so that the fill checks shapes as a kernel would */
    dlx_view bv;
    dlx_scalar_buf bb;
    st = dlx_scalar_view_int(&bv, &bb, DLX_DTYPE_BOOL, c->const_result);
    /* (a device output takes the 0-d host constant, which the engine stages; broadcast it is no scalar) */
    if (st == DLX_OK && dlx_device_is_host_accessible(dv->device))
      st = dlx_view_broadcast_to(&bv, c->nd, c->shape, &bv);
    if (st == DLX_OK) DLX__PY_RUN_OP(st, dlx_view_size(dv), dlx_fill(dv, &bv));
  } else {
    DLX__PY_RUN_OP(st, dlx_view_size(dv), dlx_binary(c->op, dv, c->vx, c->vy));
  }
  return st;
}

/* 5. Run, and hand back the result: the new tensor, or out (or the in-place operand) itself, as NumPy
 * returns it. NULL + exception. */
static PyObject *binary_run(const binary_call *c) {
  PyObject *dest = binary_dest(c);
  if (dest == NULL) return NULL;
  dlx_status st = binary_kernel(c, &((dlx__py_tensor *)dest)->view);
  if (st != DLX_OK) {
    Py_DECREF(dest);
    return dlx__py_raise_op(st);
  }
  if (c->target == NULL) return dest;
  if (dest != c->target) {
    PyObject *r = finish_into(c->target, dest); /* consumes dest */
    if (r == NULL) return NULL;
    Py_DECREF(r);
  } else {
    Py_DECREF(dest);
  }
  PyObject *result = c->mode == OUT_GIVEN ? c->out_obj : c->x;
  Py_INCREF(result);
  return result;
}

static PyObject *binary(dlx_binop op, PyObject *x, PyObject *y, PyObject *out_obj, out_mode mode, int strict) {
  binary_call c;
  /* every field but the scalar's view and bytes, which stay unwritten until used (a view is 1 KiB) */
  c.op = op, c.name = dlx__binop_info[op].numpy, c.mode = mode, c.strict = strict, c.x = x, c.y = y, c.out_obj = out_obj;
  c.tx = c.ty = c.cx = c.cy = c.out = c.scalar = c.target = NULL;
  c.sk = DLX__PY_SCALAR_NONE, c.vx = c.vy = NULL, c.const_result = -1, c.nd = 0;
  PyObject *result = NULL;
  const int r = binary_classify(&c);
  if (r > 0) {
    result = Py_NotImplemented;
    Py_INCREF(result);
  } else if (r == 0 && binary_dtype(&c) == 0 && binary_cast(&c) == 0 && binary_scalar(&c) == 0 &&
             binary_broadcast(&c) == 0 && binary_resolve_out(&c) == 0) {
    result = binary_run(&c);
  }
  Py_XDECREF(c.tx);
  Py_XDECREF(c.ty);
  Py_XDECREF(c.cx);
  Py_XDECREF(c.cy);
  Py_XDECREF(c.out);
  return result;
}

PyObject *dlx__py_binary_named(PyObject *name, PyObject *x, PyObject *y, int *found) {
  *found = 0;
  for (int op = 0; op < DLX_OP_COUNT; ++op) {
    if (PyUnicode_CompareWithASCIIString(name, dlx__binop_info[op].numpy) != 0) continue;
    *found = 1;
    return binary((dlx_binop)op, x, y, NULL, OUT_NEW, 1);
  }
  return NULL;
}

#define BINARY_SLOTS(name, op)                                                                        \
  static PyObject *nb_##name(PyObject *a, PyObject *b) { return binary(op, a, b, NULL, OUT_NEW, 0); } \
  static PyObject *nb_inplace_##name(PyObject *a, PyObject *b) {                                      \
    return binary(op, a, b, NULL, OUT_INPLACE, 0);                                                    \
  }
BINARY_SLOTS(add, DLX_OP_ADD)
BINARY_SLOTS(subtract, DLX_OP_SUB)
BINARY_SLOTS(multiply, DLX_OP_MUL)
BINARY_SLOTS(true_divide, DLX_OP_DIV)

PyObject *dlx__py_tensor_richcompare(PyObject *self, PyObject *other, int op) {
  static const dlx_binop ops[] = {[Py_LT] = DLX_OP_LT, [Py_LE] = DLX_OP_LE, [Py_EQ] = DLX_OP_EQ,
                                  [Py_NE] = DLX_OP_NE, [Py_GT] = DLX_OP_GT, [Py_GE] = DLX_OP_GE};
  return binary(ops[op], self, other, NULL, OUT_NEW, 0);
}

static PyObject *nb_negative(PyObject *self) {
  dlx__py_tensor *t = (dlx__py_tensor *)self;
  if (dlx__py_dtype_class(t->view.dtype) == DLX__PY_CLASS_BOOL)
    return PyErr_Format(PyExc_TypeError, "negation of a bool tensor is not supported (NumPy refuses it too)");
  /* dlx_unary: integers wrap; floats and complex flip the sign bit of each part, NaN, inf and 0 included,
   * as NumPy's negative (x * -1 would turn -(1+inf j) into nan-inf j) */
  PyObject *r = dlx__py_tensor_new_like(&t->view, t->view.ndim, t->view.shape, t->view.dtype);
  if (r == NULL) return NULL;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(&t->view), dlx_unary(DLX_UNOP_NEG, &((dlx__py_tensor *)r)->view, &t->view));
  if (st != DLX_OK) {
    Py_DECREF(r);
    return dlx__py_raise_op(st);
  }
  return r;
}

/* ---- matmul ------------------------------------------------------------------------------------- */

static PyObject *matmul(PyObject *x, PyObject *y, PyObject *out_obj, int strict) {
  int unsupported = 0;
  PyObject *tx = dlx__py_as_tensor(x, &unsupported), *ty = NULL, *cx = NULL, *cy = NULL, *out = NULL, *result = NULL;
  if (tx == NULL || (ty = dlx__py_as_tensor(y, &unsupported)) == NULL) {
    if (unsupported && !strict) {
      PyErr_Clear();
      Py_XDECREF(tx);
      Py_RETURN_NOTIMPLEMENTED;
    }
    Py_XDECREF(tx);
    return NULL;
  }
  const dlx_view *a = &((dlx__py_tensor *)tx)->view, *b = &((dlx__py_tensor *)ty)->view;
  DLDataType rdt;
  if (a->ndim != 2 || b->ndim != 2) {
    PyErr_Format(PyExc_ValueError, "matmul: dlx multiplies rank-2 tensors, got ndim %d and %d", a->ndim, b->ndim);
    goto done;
  }
  if (dlx__py_promote(a->dtype, b->dtype, &rdt) != 0) goto done;
  if (!dlx_dtype_equal(a->dtype, rdt)) {
    if ((cx = dlx__py_cast_new(a, rdt)) == NULL) goto done;
    a = &((dlx__py_tensor *)cx)->view;
  }
  if (!dlx_dtype_equal(b->dtype, rdt)) {
    if ((cy = dlx__py_cast_new(b, rdt)) == NULL) goto done;
    b = &((dlx__py_tensor *)cy)->view;
  }
  if (a->shape[1] != b->shape[0]) {
    PyErr_Format(PyExc_ValueError, "matmul: shapes (%lld,%lld) and (%lld,%lld) do not align: %lld != %lld",
                 (long long)a->shape[0], (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1],
                 (long long)a->shape[1], (long long)b->shape[0]);
    goto done;
  }
  if (out_obj && out_obj != Py_None) {
    if ((out = dlx__py_as_tensor(out_obj, &unsupported)) == NULL) goto done;
  } else {
    int64_t shape[2] = {a->shape[0], b->shape[1]};
    if ((out = dlx__py_tensor_new_like(a, 2, shape, rdt)) == NULL) goto done;
  }
  dlx_status st;
  /* the work is m*n*k: worth dropping the GIL much sooner than an elementwise op (in double: no overflow) */
  DLX__PY_RUN_OP(st, (double)a->shape[0] * (double)b->shape[1] * (double)(a->shape[1] + 1),
         dlx_gemm(1, 0, a, b, 0, 0, &((dlx__py_tensor *)out)->view));
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (out_obj && out_obj != Py_None) {
    result = out_obj; /* NumPy returns out itself */
    Py_INCREF(result);
  } else {
    result = out;
    out = NULL;
  }
done:
  Py_XDECREF(tx);
  Py_XDECREF(ty);
  Py_XDECREF(cx);
  Py_XDECREF(cy);
  Py_XDECREF(out);
  return result;
}

static PyObject *nb_matrix_multiply(PyObject *a, PyObject *b) { return matmul(a, b, NULL, 0); }

static PyObject *nb_inplace_matrix_multiply(PyObject *a, PyObject *b) {
  (void)a, (void)b;
  /* NumPy refuses a @= b as well: the result could not reuse a's memory while reading it */
  return PyErr_Format(PyExc_TypeError, "in-place matrix multiplication is not supported; use a = a @ b");
}

PyNumberMethods dlx__py_tensor_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_subtract,
    .nb_multiply = nb_multiply,
    .nb_true_divide = nb_true_divide,
    .nb_inplace_add = nb_inplace_add,
    .nb_inplace_subtract = nb_inplace_subtract,
    .nb_inplace_multiply = nb_inplace_multiply,
    .nb_inplace_true_divide = nb_inplace_true_divide,
    .nb_negative = nb_negative,
    .nb_positive = dlx__py_nb_positive,
    .nb_absolute = dlx__py_nb_absolute,
    .nb_invert = dlx__py_nb_invert,
    .nb_floor_divide = dlx__py_nb_floor_divide,
    .nb_inplace_floor_divide = dlx__py_nb_inplace_floor_divide,
    .nb_remainder = dlx__py_nb_remainder,
    .nb_inplace_remainder = dlx__py_nb_inplace_remainder,
    .nb_power = dlx__py_nb_power,
    .nb_inplace_power = dlx__py_nb_inplace_power,
    .nb_and = dlx__py_nb_and,
    .nb_inplace_and = dlx__py_nb_inplace_and,
    .nb_or = dlx__py_nb_or,
    .nb_inplace_or = dlx__py_nb_inplace_or,
    .nb_xor = dlx__py_nb_xor,
    .nb_inplace_xor = dlx__py_nb_inplace_xor,
    .nb_lshift = dlx__py_nb_lshift,
    .nb_inplace_lshift = dlx__py_nb_inplace_lshift,
    .nb_rshift = dlx__py_nb_rshift,
    .nb_inplace_rshift = dlx__py_nb_inplace_rshift,
    .nb_bool = dlx__py_tensor_bool,
    .nb_int = dlx__py_tensor_int,
    .nb_float = dlx__py_tensor_float,
    .nb_index = dlx__py_tensor_index,
    .nb_matrix_multiply = nb_matrix_multiply,
    .nb_inplace_matrix_multiply = nb_inplace_matrix_multiply,
};

/* ---- module functions --------------------------------------------------------------------------- */

/* The entry points of ufuncs.c: a binary op in each of binary()'s modes. */
PyObject *dlx__py_binary_call(dlx_binop op, PyObject *x, PyObject *y, PyObject *out) {
  return binary(op, x, y, out == Py_None ? NULL : out, out == NULL || out == Py_None ? OUT_NEW : OUT_GIVEN, 1);
}

PyObject *dlx__py_binary_slot(dlx_binop op, PyObject *x, PyObject *y, int inplace) {
  return binary(op, x, y, NULL, inplace ? OUT_INPLACE : OUT_NEW, 0);
}

static PyObject *m_matmul(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"a", "b", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O:matmul", kw, &a, &b, &out)) return NULL;
  return matmul(a, b, out, 1);
}

static PyObject *m_fma(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"scalar", "t1", "t2", "out", NULL};
  double scalar;
  PyObject *a, *b, *out_obj = Py_None, *t1 = NULL, *t2 = NULL, *out = NULL, *result = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dOO|$O:fma", kw, &scalar, &a, &b, &out_obj)) return NULL;
  int unsupported;
  if ((t1 = dlx__py_as_tensor(a, &unsupported)) == NULL || (t2 = dlx__py_as_tensor(b, &unsupported)) == NULL) goto done;
  const dlx_view *v1 = &((dlx__py_tensor *)t1)->view, *v2 = &((dlx__py_tensor *)t2)->view;
  if (out_obj != Py_None) {
    if ((out = dlx__py_as_tensor(out_obj, &unsupported)) == NULL) goto done;
  } else {
    int32_t nd, ndims[2] = {v1->ndim, v2->ndim};
    const int64_t *shapes[2] = {v1->shape, v2->shape};
    int64_t shape[DLX_MAX_NDIM];
    dlx_status st = dlx_broadcast_shapes(2, ndims, shapes, &nd, shape);
    if (st != DLX_OK) {
      dlx__py_raise_op(st);
      goto done;
    }
    if ((out = dlx__py_tensor_new_like(v2, nd, shape, v2->dtype)) == NULL) goto done;
  }
  dlx_view *ov = &((dlx__py_tensor *)out)->view;
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(ov), dlx_fma(ov, scalar, v1, v2));
  if (st != DLX_OK) {
    dlx__py_raise_op(st);
    goto done;
  }
  if (out_obj != Py_None) {
    result = out_obj;
    Py_INCREF(result);
  } else {
    result = out;
    out = NULL;
  }
done:
  Py_XDECREF(t1);
  Py_XDECREF(t2);
  Py_XDECREF(out);
  return result;
}

static PyObject *m_set_num_threads(PyObject *m, PyObject *arg) {
  (void)m;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  dlx_set_num_threads(n > INT32_MAX ? INT32_MAX : n < INT32_MIN ? 0 : (int)n);
  Py_RETURN_NONE;
}

static PyObject *m_get_num_threads(PyObject *m, PyObject *unused) {
  (void)m, (void)unused;
  return PyLong_FromLong(dlx_get_num_threads());
}

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef dlx__py_ops_methods[] = {
    {"matmul", FN(m_matmul), KW, "matmul(a, b, *, out=None) -> Tensor: rank-2 a @ b through CBLAS"},
    {"fma", FN(m_fma), KW, "fma(scalar, t1, t2, *, out=None) -> Tensor: scalar * t1 + t2 (augpy's fma)"},
    {"set_num_threads", m_set_num_threads, METH_O, "set_num_threads(n): threads for large ops (n <= 0: default)"},
    {"get_num_threads", m_get_num_threads, METH_NOARGS, "get_num_threads() -> int"},
    {NULL, NULL, 0, NULL},
};

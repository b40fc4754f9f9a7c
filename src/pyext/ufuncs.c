/* dlx.<ufunc>: one module function per row of the op table (kernels/op_table.h), named as NumPy names
 * the ufunc, so that np.<ufunc>(t) reaches it through __array_ufunc__ (python/dlx/_numpy_protocol.py
 * looks dlx.<name> up); the operators of a Tensor that NumPy has (abs, ~, //, %, **, &, |, ^, <<, >>); and
 * dlx.where and dlx.clip.
 *
 * Dtypes follow NumPy 2: the operands promote (ops.c's rules, weak Python scalars included), then the
 * op's loop is NumPy's first loop the promoted dtype casts to safely, among the dtypes the op's row takes
 * (sqrt of int8 computes in float16, of int32 in float64; copysign of ints in float64; shifts of bool in
 * int8); where NumPy has no loop, TypeError names the function and the dtype. */
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "kernels/ew.h"
#include "kernels/op_table.h"

PyObject *dlx__py_binary_call(dlx_binop op, PyObject *x, PyObject *y, PyObject *out);
PyObject *dlx__py_binary_slot(dlx_binop op, PyObject *x, PyObject *y, int inplace);

/* ---- the loop's dtype ------------------------------------------------------------------------------- */

/* NumPy's order of its loops' dtypes. */
static const DLDataType loop_order[] = {
    DLX_DTYPE_BOOL,  DLX_DTYPE_INT8,    DLX_DTYPE_UINT8,   DLX_DTYPE_INT16,     DLX_DTYPE_UINT16,
    DLX_DTYPE_INT32, DLX_DTYPE_UINT32,  DLX_DTYPE_INT64,   DLX_DTYPE_UINT64,    DLX_DTYPE_FLOAT16,
    DLX_DTYPE_FLOAT32, DLX_DTYPE_FLOAT64, DLX_DTYPE_COMPLEX64, DLX_DTYPE_COMPLEX128};

static const char *takes_text(unsigned cats) {
  switch (cats) {
    case DLX__CLS_NOBOOL: return "numbers but bool";
    case DLX__CLS_ORDERED: return "bool, integers and floats";
    case DLX__CLS_INTREAL: return "integers and floats";
    case DLX__CLS_REAL: return "floats";
    case DLX__CLS_INT: return "integers";
    case DLX__CLS_INTBOOL: return "bool and integers";
    default: return "every numeric dtype";
  }
}

/* Whether dtype from casts to dtype to safely: NumPy's promotion of the two gives `to` back. */
static bool safe_cast(DLDataType from, DLDataType to) {
  DLDataType p;
  if (dlx__py_promote(from, to, &p) != 0) {
    PyErr_Clear();
    return false;
  }
  return dlx_dtype_equal(p, to);
}

int dlx__py_loop_dtype_n(const struct dlx__op_info *info, const char *name, DLDataType dt, int n,
                         const DLDataType *operands, DLDataType *out) {
  char t[DLX_DTYPE_NAME_MAX];
  const int kd = dlx__kd_of(dt);
  const bool is_bool = dlx_dtype_equal(dt, DLX_DTYPE_BOOL);
  if (info->py == DLX__PY_NOBOOL && is_bool) {
    PyErr_Format(PyExc_TypeError, "dlx.%s: bool is not supported (NumPy refuses it too; use logical_not or ~)", name);
    return -1;
  }
  if (info->py == DLX__PY_TRUEDIV && (is_bool || (kd >= DLX_KD_I8 && kd <= DLX_KD_U64))) {
    *out = DLX_DTYPE_FLOAT64;
    return 0;
  }
  /* the promoted dtype when the op takes it: the first loop two operands both cast to (NumPy's promotion is
   * that minimum); three can share an earlier one (int8, uint8 and float16 all cast to float16, their
   * promotion is float32), found by the search below */
  if (kd != DLX_KD_NONE && dlx__op_takes(info, kd) && (n < 3 || dlx__py_dtype_class(dt) == DLX__PY_CLASS_EXT)) {
    *out = dt;
    return 0;
  }
  /* NumPy's loop search: the first loop dtype every operand casts to safely (the promoted dtype stands in
   * for operands whose dtypes are not given: weak Python scalars take the tensors' side) */
  if (kd != DLX_KD_NONE && !dlx__kd_is_subbyte((dlx__kd)kd)) {
    for (size_t i = 0; i < sizeof loop_order / sizeof loop_order[0]; ++i) {
      if (!dlx__op_takes(info, dlx__kd_of(loop_order[i]))) continue;
      bool all = n > 0;
      for (int j = 0; j < n && all; ++j) all = safe_cast(operands[j], loop_order[i]);
      if (n == 0) all = safe_cast(dt, loop_order[i]);
      if (all) {
        *out = loop_order[i];
        return 0;
      }
    }
  }
  if (kd != DLX_KD_NONE && dlx__op_takes(info, kd)) {
    *out = dt;
    return 0;
  }
  const bool cplx = kd == DLX_KD_C64 || kd == DLX_KD_C128;
  PyErr_Format(PyExc_TypeError, "dlx.%s is not supported for %s (it takes %s%s)", name,
               dlx__dtype_text(t, sizeof t, dt), takes_text(info->cats),
               cplx ? "; complex numbers are not ordered, or the result would not be exactly rounded" : "");
  return -1;
}

int dlx__py_loop_dtype(const struct dlx__op_info *info, const char *name, DLDataType dt, DLDataType *out) {
  return dlx__py_loop_dtype_n(info, name, dt, 0, NULL, out);
}

/* ---- unary -------------------------------------------------------------------------------------------- */

/* Where the kernel writes: out= itself (imported, *held) when its dtype is the result's; a new tensor of the
 * output's shape on like's device when there is no out, or when out's dtype is another one the result
 * casts to by NumPy's same_kind rule (hand_back casts it into *held then); TypeError otherwise, as NumPy's.
 * A new reference, or NULL + exception. */
static PyObject *result_target(const char *name, PyObject *out_obj, const dlx_view *like, int32_t nd,
                               const int64_t *shape, DLDataType odt, PyObject **held) {
  if (out_obj == NULL || out_obj == Py_None) return dlx__py_tensor_new_like(like, nd, shape, odt);
  int unsupported;
  PyObject *o = dlx__py_as_tensor(out_obj, &unsupported);
  if (o == NULL) return NULL;
  const dlx_view *ov = &((dlx__py_tensor *)o)->view;
  *held = o;
  if (dlx_dtype_equal(ov->dtype, odt)) {
    Py_INCREF(o);
    return o;
  }
  if (!dlx__py_same_kind_castable(odt, ov->dtype) || dlx_dtype_is_subbyte(ov->dtype)) {
    char a[DLX_DTYPE_NAME_MAX], b[DLX_DTYPE_NAME_MAX];
    *held = NULL;
    Py_DECREF(o);
    return PyErr_Format(PyExc_TypeError, "dlx.%s: cannot cast the result from %s to out's %s (NumPy's same_kind rule)",
                        name, dlx__dtype_text(b, sizeof b, odt), dlx__dtype_text(a, sizeof a, ov->dtype));
  }
  return dlx__py_tensor_new_like(like, ov->ndim, ov->shape, odt);
}

/* Hand back what NumPy returns: out itself when given (the result cast into it when dest is not out),
 * else the new tensor. Consumes dest and held. */
static PyObject *hand_back(dlx_status st, PyObject *dest, PyObject *held, PyObject *out_obj) {
  if (st == DLX_OK && held != NULL && held != dest) {
    dlx_view *ov = &((dlx__py_tensor *)held)->view;
    DLX__PY_RUN_OP(st, dlx_view_size(ov), dlx_cast(ov, &((dlx__py_tensor *)dest)->view));
  }
  Py_XDECREF(held);
  if (st != DLX_OK) {
    Py_DECREF(dest);
    return dlx__py_raise_op(st);
  }
  if (out_obj == NULL || out_obj == Py_None) return dest;
  Py_DECREF(dest);
  Py_INCREF(out_obj);
  return out_obj;
}

static PyObject *unary(dlx_unop op, PyObject *x, PyObject *out_obj) {
  const dlx__op_info *info = &dlx__unop_info[op];
  /* a Python scalar alone has no dtype to compute in (as two scalars of a binary op) */
  if (!dlx__py_is_tensor(x) && dlx__py_scalar_kind(x) != DLX__PY_SCALAR_NONE)
    return PyErr_Format(PyExc_TypeError, "dlx.%s: x must be a tensor, not a Python %.20s", info->numpy,
                        Py_TYPE(x)->tp_name);
  int unsupported;
  PyObject *tx = dlx__py_as_tensor(x, &unsupported), *cx = NULL, *held = NULL;
  if (tx == NULL) return NULL;
  const dlx_view *v = &((dlx__py_tensor *)tx)->view;
  DLDataType rdt;
  PyObject *dest = NULL;
  if (dlx__py_loop_dtype(info, info->numpy, v->dtype, &rdt) != 0) goto done;
  if (!dlx_dtype_equal(rdt, v->dtype)) {
    if ((cx = dlx__py_cast_new(v, rdt)) == NULL) goto done;
    v = &((dlx__py_tensor *)cx)->view;
  }
  dest = result_target(info->numpy, out_obj, v, v->ndim, v->shape, info->bool_result ? DLX_DTYPE_BOOL : rdt, &held);
  if (dest == NULL) Py_CLEAR(held);
  if (dest != NULL) {
    dlx_status st;
    DLX__PY_RUN_OP(st, dlx_view_size(v), dlx_unary(op, &((dlx__py_tensor *)dest)->view, v));
    dest = hand_back(st, dest, held, out_obj);
  }
done:
  Py_DECREF(tx);
  Py_XDECREF(cx);
  return dest;
}

/* ---- where and clip ------------------------------------------------------------------------------------- */

/* One operand of where / clip: a tensor (held) or a Python scalar (its 0-d view once the dtype is known). */
typedef struct operand {
  PyObject *obj, *t, *cast;
  dlx__py_skind sk;
  const dlx_view *v;
  dlx_view sv;
  dlx_scalar_buf buf;
} operand;

static int operand_load(operand *o, PyObject *obj) {
  o->obj = obj;
  o->t = o->cast = NULL;
  o->v = NULL;
  o->sk = dlx__py_is_tensor(obj) ? DLX__PY_SCALAR_NONE : dlx__py_scalar_kind(obj);
  if (o->sk != DLX__PY_SCALAR_NONE) return 0;
  int unsupported;
  if ((o->t = dlx__py_as_tensor(obj, &unsupported)) == NULL) return -1;
  o->v = &((dlx__py_tensor *)o->t)->view;
  return 0;
}

static void operand_drop(operand *o) {
  Py_XDECREF(o->t);
  Py_XDECREF(o->cast);
}

/* The common dtype of n value operands: the tensors' promotion, then each weak scalar's rule; Python
 * scalars alone give NumPy's defaults (bool, int64, float64, complex128). */
static int common_dtype(operand *ops, int n, DLDataType *dt) {
  int have = 0;
  for (int i = 0; i < n; ++i) {
    if (ops[i].v == NULL) continue;
    if (!have) *dt = ops[i].v->dtype;
    else if (dlx__py_promote(*dt, ops[i].v->dtype, dt) != 0) return -1;
    have = 1;
  }
  for (int i = 0; i < n; ++i) {
    if (ops[i].v != NULL) continue;
    if (have) {
      *dt = dlx__py_weak_result(*dt, ops[i].sk);
      continue;
    }
    *dt = ops[i].sk == DLX__PY_SCALAR_BOOL ? DLX_DTYPE_BOOL
          : ops[i].sk == DLX__PY_SCALAR_INT ? DLX_DTYPE_INT64
          : ops[i].sk == DLX__PY_SCALAR_FLOAT ? DLX_DTYPE_FLOAT64 : DLX_DTYPE_COMPLEX128;
    have = 1;
  }
  return 0;
}

/* Operand o in dtype dt: a cast tensor, or the scalar's 0-d view. */
static int operand_as(operand *o, DLDataType dt) {
  if (o->v == NULL) {
    int sign = 0;
    const int r = dlx__py_scalar_view(o->obj, o->sk, dt, &o->sv, &o->buf, &sign);
    if (r > 0) dlx__py_int_out_of_bounds(o->obj, dt);
    if (r != 0) return -1;
    o->v = &o->sv;
    return 0;
  }
  if (dlx_dtype_equal(o->v->dtype, dt)) return 0;
  if ((o->cast = dlx__py_cast_new(o->v, dt)) == NULL) return -1;
  o->v = &((dlx__py_tensor *)o->cast)->view;
  return 0;
}

/* op(a, b, c) into a new tensor or out=, the three operands already in their dtypes. */
static PyObject *ternary_run(dlx_ternop op, const char *name, operand *ops, DLDataType odt, PyObject *out_obj) {
  int32_t nd, ndims[3];
  const int64_t *shapes[3];
  int64_t shape[DLX_MAX_NDIM];
  const dlx_view *like = NULL;
  for (int i = 0; i < 3; ++i) {
    ndims[i] = ops[i].v->ndim;
    shapes[i] = ops[i].v->shape;
    if (like == NULL && ops[i].t != NULL) like = ops[i].v;
  }
  dlx_status st = dlx_broadcast_shapes(3, ndims, shapes, &nd, shape);
  if (st != DLX_OK) return dlx__py_raise_op(st);
  PyObject *held = NULL;
  PyObject *dest = result_target(name, out_obj, like, nd, shape, odt, &held);
  if (dest == NULL) {
    Py_XDECREF(held);
    return NULL;
  }
  DLX__PY_RUN_OP(st, dlx_view_size(&((dlx__py_tensor *)dest)->view),
                 dlx_ternary(op, &((dlx__py_tensor *)dest)->view, ops[0].v, ops[1].v, ops[2].v));
  return hand_back(st, dest, held, out_obj);
}

static PyObject *m_where(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"condition", "x", "y", "out", NULL};
  PyObject *cond, *x, *y, *out = Py_None, *result = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$O:where", kw, &cond, &x, &y, &out)) return NULL;
  operand ops[3];
  int loaded = 0;
  for (; loaded < 3; ++loaded)
    if (operand_load(&ops[loaded], loaded == 0 ? cond : loaded == 1 ? x : y) != 0) break;
  DLDataType dt;
  if (loaded == 3) {
    if (ops[0].v == NULL && ops[1].v == NULL && ops[2].v == NULL) {
      PyErr_SetString(PyExc_TypeError, "dlx.where: at least one operand must be a tensor");
    } else if (common_dtype(ops + 1, 2, &dt) == 0 && operand_as(&ops[0], DLX_DTYPE_BOOL) == 0 &&
               operand_as(&ops[1], dt) == 0 && operand_as(&ops[2], dt) == 0) {
      result = ternary_run(DLX_TERNOP_WHERE, "where", ops, dt, out);
    }
  }
  for (int i = 0; i < loaded; ++i) operand_drop(&ops[i]);
  return result;
}

/* Whether bound (a Python int, not a bool) lies past integer tensor a's range on the side `below` names:
 * a_min below the dtype's minimum, a_max above its maximum. Such a bound clips nothing, and NumPy's clip
 * drops it (np.clip(uint8, -1, 300) is a copy), where converting it to a's dtype would raise OverflowError. */
static int bound_past_range(PyObject *a, PyObject *bound, int below) {
  if (!PyLong_CheckExact(bound) || (!dlx__py_is_tensor(a) && dlx__py_scalar_kind(a) != DLX__PY_SCALAR_NONE)) return 0;
  int unsupported;
  PyObject *t = dlx__py_as_tensor(a, &unsupported); /* a DLPack object (a NumPy array) is imported */
  if (t == NULL) {
    PyErr_Clear(); /* the call reports it below */
    return 0;
  }
  const DLDataType dt = ((dlx__py_tensor *)t)->view.dtype;
  Py_DECREF(t);
  const dlx__py_dtclass c = dlx__py_dtype_class(dt);
  if (c != DLX__PY_CLASS_INT && c != DLX__PY_CLASS_UINT) return 0;
  dlx_view v;
  dlx_scalar_buf buf;
  int sign = 0;
  const int r = dlx__py_scalar_view(bound, DLX__PY_SCALAR_INT, dt, &v, &buf, &sign);
  if (r < 0) PyErr_Clear(); /* the conversion below reports it */
  return r > 0 && (below ? sign < 0 : sign > 0);
}

/* clip with one bound: NumPy's maximum(a, a_min) or minimum(a, a_max), which clip is made of, but with
 * clip's out=: the result cast into out by NumPy's same_kind rule, as with both bounds (a binary op's own
 * out= must have the result's dtype). */
static PyObject *clip_one_bound(dlx_binop op, PyObject *a, PyObject *bound, PyObject *out_obj) {
  PyObject *r = dlx__py_binary_call(op, a, bound, Py_None), *held = NULL;
  if (r == NULL || out_obj == Py_None) return r;
  const dlx_view *rv = &((dlx__py_tensor *)r)->view;
  PyObject *dest = result_target("clip", out_obj, rv, rv->ndim, rv->shape, rv->dtype, &held);
  if (dest == NULL) {
    Py_XDECREF(held);
    Py_DECREF(r);
    return NULL;
  }
  /* r into out itself, or into a tensor of out's shape in r's dtype that hand_back casts into out */
  dlx_status st;
  DLX__PY_RUN_OP(st, dlx_view_size(&((dlx__py_tensor *)dest)->view), dlx_cast(&((dlx__py_tensor *)dest)->view, rv));
  Py_DECREF(r);
  return hand_back(st, dest, held, out_obj);
}

/* clip's loop: NumPy's search over its tensor operands' dtypes (weak scalars have taken their side). */
static int clip_loop_dtype(const operand *ops, DLDataType *dt) {
  DLDataType dts[4];
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    if (ops[i].v != NULL) dts[n++] = ops[i].v->dtype;
    else dts[3] = *dt; /* a weak scalar: the dtype it promoted to stands for it */
  }
  if (n < 3) dts[n++] = dts[3];
  return dlx__py_loop_dtype_n(&dlx__ternop_info[DLX_TERNOP_CLIP], "clip", *dt, n, dts, dt);
}

static PyObject *m_clip(PyObject *m, PyObject *args, PyObject *kwargs) {
  (void)m;
  static char *kw[] = {"a", "a_min", "a_max", "out", NULL};
  PyObject *a, *lo = Py_None, *hi = Py_None, *out = Py_None, *result = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO$O:clip", kw, &a, &lo, &hi, &out)) return NULL;
  if (lo == Py_None && hi == Py_None) return PyErr_Format(PyExc_ValueError, "dlx.clip: one of a_min and a_max must be given");
  const int drop_lo = bound_past_range(a, lo, 1), drop_hi = bound_past_range(a, hi, 0);
  if ((drop_lo || lo == Py_None) && (drop_hi || hi == Py_None)) return unary(DLX_UNOP_POSITIVE, a, out); /* a copy */
  if (drop_lo) lo = Py_None;
  if (drop_hi) hi = Py_None;
  /* one bound: NumPy's maximum / minimum, which clip is made of */
  if (hi == Py_None) return clip_one_bound(DLX_OP_MAXIMUM, a, lo, out);
  if (lo == Py_None) return clip_one_bound(DLX_OP_MINIMUM, a, hi, out);
  operand ops[3];
  int loaded = 0;
  for (; loaded < 3; ++loaded)
    if (operand_load(&ops[loaded], loaded == 0 ? a : loaded == 1 ? lo : hi) != 0) break;
  DLDataType dt;
  if (loaded == 3) {
    if (ops[0].v == NULL) {
      PyErr_SetString(PyExc_TypeError, "dlx.clip: a must be a tensor");
    } else if (common_dtype(ops, 3, &dt) == 0 && clip_loop_dtype(ops, &dt) == 0 &&
               operand_as(&ops[0], dt) == 0 && operand_as(&ops[1], dt) == 0 && operand_as(&ops[2], dt) == 0) {
      result = ternary_run(DLX_TERNOP_CLIP, "clip", ops, dt, out);
    }
  }
  for (int i = 0; i < loaded; ++i) operand_drop(&ops[i]);
  return result;
}

/* ---- the module functions, one per row ---------------------------------------------------------------- */

#define UN_FN_(A, op, E, np, k, c, r, n, p)                                                            \
  static PyObject *m_un_##op(PyObject *m, PyObject *args, PyObject *kwargs) {                          \
    (void)m;                                                                                           \
    static char *kw[] = {"x", "out", NULL};                                                            \
    PyObject *x, *out = Py_None;                                                                       \
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O:" #np, kw, &x, &out)) return NULL;            \
    return unary(DLX_UNOP_##E, x, out);                                                                \
  }
DLX__UNOP_TABLE(UN_FN_, _)

#define BIN_FN_(A, op, E, np, k, c, r, n, p, s)                                                        \
  static PyObject *m_bin_##op(PyObject *m, PyObject *args, PyObject *kwargs) {                         \
    (void)m;                                                                                           \
    static char *kw[] = {"a", "b", "out", NULL};                                                       \
    PyObject *a, *b, *out = Py_None;                                                                   \
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O:" #np, kw, &a, &b, &out)) return NULL;       \
    return dlx__py_binary_call(DLX_OP_##E, a, b, out);                                                 \
  }
DLX__BINOP_TABLE(BIN_FN_, _)

#define KW (METH_VARARGS | METH_KEYWORDS)
#define FN(f) (PyCFunction)(void (*)(void))(f)
#define UN_ENTRY_(A, op, E, np, k, c, r, n, p) \
  {#np, FN(m_un_##op), KW, #np "(x, /, *, out=None) -> Tensor: NumPy's " #np ", elementwise (dlx/ops.h: DLX_UNOP_" #E ")"},
#define BIN_ENTRY_(A, op, E, np, k, c, r, n, p, s)                                                       \
  {#np, FN(m_bin_##op), KW,                                                                              \
   #np "(a, b, /, *, out=None) -> Tensor: NumPy's " #np ", elementwise with NumPy's dtype rules and broadcasting " \
       "(dlx/ops.h: DLX_OP_" #E ")"},
PyMethodDef dlx__py_ufunc_methods[] = {
    DLX__UNOP_TABLE(UN_ENTRY_, _) DLX__BINOP_TABLE(BIN_ENTRY_, _)
    /* NumPy's other names of two of them */
    {"abs", FN(m_un_absolute), KW, "abs(x, /, *, out=None) -> Tensor: absolute"},
    {"bitwise_not", FN(m_un_invert), KW, "bitwise_not(x, /, *, out=None) -> Tensor: invert"},
    {"where", FN(m_where), KW,
     "where(condition, x, y, /, *, out=None) -> Tensor: x where condition (cast to bool) holds, else y, "
     "bit for bit; x and y promote as NumPy's (Python scalars weak)"},
    {"clip", FN(m_clip), KW,
     "clip(a, a_min=None, a_max=None, /, *, out=None) -> Tensor: minimum(maximum(a, a_min), a_max); NaN in any "
     "operand wins; a Python int bound past an integer a's range clips nothing, as NumPy's"},
    {NULL, NULL, 0, NULL},
};

/* dlx._op_table: (NumPy's name, operand count, kind) of every row, for the tests and the protocol. */
PyObject *dlx__py_op_table(void) {
  static const char *const kinds[] = {"arithmetic", "comparison", "logical", "bitwise", "predicate", "rounding",
                                      "selection"};
#define UN_ROW_(A, op, E, np, k, c, r, n, p) {#np, 1, (int)DLX__KIND_##k},
#define BIN_ROW_(A, op, E, np, k, c, r, n, p, s) {#np, 2, (int)DLX__KIND_##k},
#define TER_ROW_(A, op, E, np, k, c) {#np, 3, (int)DLX__KIND_##k},
  static const struct {
    const char *name;
    int nin, kind;
  } rows[] = {DLX__UNOP_TABLE(UN_ROW_, _) DLX__BINOP_TABLE(BIN_ROW_, _) DLX__TERNOP_TABLE(TER_ROW_, _)};
  const Py_ssize_t n = (Py_ssize_t)(sizeof rows / sizeof rows[0]);
  PyObject *t = PyTuple_New(n);
  for (Py_ssize_t i = 0; t != NULL && i < n; ++i) {
    PyObject *row = Py_BuildValue("(sis)", rows[i].name, rows[i].nin, kinds[rows[i].kind]);
    if (row == NULL) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, i, row);
  }
  return t;
}

/* ---- Tensor operators ------------------------------------------------------------------------------------ */

PyObject *dlx__py_nb_absolute(PyObject *x) { return unary(DLX_UNOP_ABSOLUTE, x, NULL); }
PyObject *dlx__py_nb_invert(PyObject *x) { return unary(DLX_UNOP_INVERT, x, NULL); }
PyObject *dlx__py_nb_positive(PyObject *x) { return unary(DLX_UNOP_POSITIVE, x, NULL); }

PyObject *dlx__py_nb_power(PyObject *a, PyObject *b, PyObject *mod) {
  if (mod != Py_None) return PyErr_Format(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
  return dlx__py_binary_slot(DLX_OP_POWER, a, b, 0);
}

PyObject *dlx__py_nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod) {
  if (mod != Py_None) return PyErr_Format(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
  return dlx__py_binary_slot(DLX_OP_POWER, a, b, 1);
}

#define SLOTS_(name, E)                                                                                    \
  PyObject *dlx__py_nb_##name(PyObject *a, PyObject *b) { return dlx__py_binary_slot(DLX_OP_##E, a, b, 0); } \
  PyObject *dlx__py_nb_inplace_##name(PyObject *a, PyObject *b) { return dlx__py_binary_slot(DLX_OP_##E, a, b, 1); }
SLOTS_(floor_divide, FLOOR_DIVIDE)
SLOTS_(remainder, REMAINDER)
SLOTS_(and, BITWISE_AND)
SLOTS_(or, BITWISE_OR)
SLOTS_(xor, BITWISE_XOR)
SLOTS_(lshift, LEFT_SHIFT)
SLOTS_(rshift, RIGHT_SHIFT)

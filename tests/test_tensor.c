/* Tests for src/core/tensor.c: owned and borrowed storage, the deleter-exactly-once rule across views
 * and exports (from any thread), views sharing memory, ops with optional outputs, and every error path
 * of dlx/tensor.h. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "runner.h"

#include "dlx/cuda.h"
#include "dlx/tensor.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define CPU ((DLDevice){kDLCPU, 0})

/* ---- a producer ------------------------------------------------------------------------------------ */

/* A versioned managed tensor over its own float buffer; the deleter counts its calls. */
typedef struct producer {
  DLManagedTensorVersioned m;
  int64_t shape[4], strides[4];
  float data[64];
  _Atomic int *deleted;
} producer;

static void producer_deleter(DLManagedTensorVersioned *m) {
  producer *p = m->manager_ctx;
  atomic_fetch_add(p->deleted, 1);
  free(p);
}

static DLManagedTensorVersioned *make_producer(_Atomic int *deleted, int32_t ndim, const int64_t *shape) {
  producer *p = calloc(1, sizeof *p);
  p->deleted = deleted;
  int64_t acc = 1;
  for (int32_t d = ndim - 1; d >= 0; --d) {
    p->shape[d] = shape[d];
    p->strides[d] = acc;
    acc *= shape[d];
  }
  for (int i = 0; i < 64; ++i) p->data[i] = (float)i;
  p->m.version.major = DLPACK_MAJOR_VERSION;
  p->m.version.minor = DLPACK_MINOR_VERSION;
  p->m.manager_ctx = p;
  p->m.deleter = producer_deleter;
  p->m.dl_tensor.data = p->data;
  p->m.dl_tensor.device = CPU;
  p->m.dl_tensor.ndim = ndim;
  p->m.dl_tensor.dtype = DLX_DTYPE_FLOAT32;
  p->m.dl_tensor.shape = p->shape;
  p->m.dl_tensor.strides = p->strides;
  return &p->m;
}

/* The legacy form. */
typedef struct legacy {
  DLManagedTensor m;
  int64_t shape[2];
  int32_t data[6];
  _Atomic int *deleted;
} legacy;

static void legacy_deleter(DLManagedTensor *m) {
  legacy *p = m->manager_ctx;
  atomic_fetch_add(p->deleted, 1);
  free(p);
}

static DLManagedTensor *make_legacy(_Atomic int *deleted) {
  legacy *p = calloc(1, sizeof *p);
  p->deleted = deleted;
  p->shape[0] = 2;
  p->shape[1] = 3;
  for (int i = 0; i < 6; ++i) p->data[i] = 10 * i;
  p->m.manager_ctx = p;
  p->m.deleter = legacy_deleter;
  p->m.dl_tensor.data = p->data;
  p->m.dl_tensor.device = CPU;
  p->m.dl_tensor.ndim = 2;
  p->m.dl_tensor.dtype = DLX_DTYPE_INT32;
  p->m.dl_tensor.shape = p->shape;
  p->m.dl_tensor.strides = NULL; /* legacy: row-major */
  return &p->m;
}

static float at2(const dlx_tensor *t, int64_t i, int64_t j) {
  const dlx_view *v = dlx_tensor_view(t);
  return ((const float *)v->data)[i * v->strides[0] + j * v->strides[1]];
}

/* ---- owned tensors ---------------------------------------------------------------------------------- */

static void test_empty(void) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 3, I64(2, 3, 4), DLX_DTYPE_FLOAT64, CPU));
  const dlx_view *v = dlx_tensor_view(t);
  CHECK_EQ(v->ndim, 3);
  CHECK_EQ(v->strides[0], 12);
  CHECK_EQ(v->strides[2], 1);
  CHECK_EQ((uintptr_t)v->data % 64, 0);
  CHECK(dlx_dtype_equal(v->dtype, DLX_DTYPE_FLOAT64));
  CHECK(dlx_tensor_retain(t) == t);
  dlx_tensor_release(t);
  ((double *)v->data)[23] = 1.0; /* still alive: one reference left */
  dlx_tensor *like = NULL;
  CHECK_OK(dlx_tensor_empty_like(&like, t));
  CHECK_EQ(dlx_tensor_view(like)->shape[1], 3);
  CHECK(dlx_tensor_view(like)->data != v->data);
  dlx_tensor_release(like);
  dlx_tensor_release(t);
  dlx_tensor_release(NULL); /* no-op */
  CHECK(dlx_tensor_retain(NULL) == NULL);
  CHECK(dlx_tensor_view(NULL) == NULL);
  /* 0-d, empty, packed sub-byte */
  CHECK_OK(dlx_tensor_empty(&t, 0, NULL, DLX_DTYPE_INT8, CPU));
  CHECK_EQ(dlx_view_size(dlx_tensor_view(t)), 1);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_empty(&t, 2, I64(0, 5), DLX_DTYPE_INT8, CPU));
  CHECK(dlx_tensor_view(t)->data != NULL);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_empty(&t, 1, I64(7), DLX_DTYPE_FLOAT4_E2M1FN, CPU));
  CHECK_EQ(dlx_tensor_view(t)->flags & DLX_VIEW_SUBBYTE_PADDED, 0);
  dlx_tensor_release(t);
  /* errors */
  t = NULL;
  CHECK_FAIL(dlx_tensor_empty(NULL, 1, I64(2), DLX_DTYPE_INT8, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_empty(&t, 1, NULL, DLX_DTYPE_INT8, CPU), DLX_ERR_NULL_ARGUMENT, "'shape' is NULL with ndim 1");
  /* CUDA memory: the build or the machine decides */
  if (!dlx_cuda_built()) {
    CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(2), DLX_DTYPE_INT8, ((DLDevice){kDLCUDA, 0})), DLX_ERR_DEVICE_MISMATCH,
               "cannot allocate on cuda:0, which needs a build with CUDA");
  } else if (dlx_cuda_device_count() == 0) {
    CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(2), DLX_DTYPE_INT8, ((DLDevice){kDLCUDA, 0})), DLX_ERR_INVALID_DEVICE,
               "device cuda:0 does not exist: no CUDA device is present");
  } else {
    CHECK_OK(dlx_tensor_empty(&t, 1, I64(2), DLX_DTYPE_INT8, ((DLDevice){kDLCUDA, 0})));
    CHECK_EQ(dlx_tensor_view(t)->device.device_type, kDLCUDA);
    dlx_tensor_release(t);
    t = NULL;
  }
  CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(2), DLX_DTYPE_INT8, ((DLDevice){kDLCPU, 1})), DLX_ERR_INVALID_DEVICE,
             "cpu device id 1");
  CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(-2), DLX_DTYPE_INT8, CPU), DLX_ERR_NEGATIVE_EXTENT, "-2");
  CHECK_FAIL(dlx_tensor_empty(&t, 65, I64(1), DLX_DTYPE_INT8, CPU), DLX_ERR_RANK, "65");
  CHECK_FAIL(dlx_tensor_empty(&t, 1, I64(2), DLX_DTYPE_MAKE(DLX_CODE_INT, 12, 1), CPU), DLX_ERR_INVALID_DTYPE, "12");
  CHECK_FAIL(dlx_tensor_empty(&t, 2, I64(INT64_MAX, 4), DLX_DTYPE_INT8, CPU), DLX_ERR_OVERFLOW, "");
  CHECK(t == NULL);
  CHECK_FAIL(dlx_tensor_empty_like(&t, NULL), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_empty_like(NULL, t), DLX_ERR_NULL_ARGUMENT, "'out'");
}

/* dlx_tensor_zeros: the allocation's zeroed memory, for any dtype (int128 has no kernel to fill with) */
static void test_zeros(void) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_zeros(&t, 2, I64(3, 5), DLX_DTYPE_INT128, CPU));
  const dlx_view *v = dlx_tensor_view(t);
  CHECK_EQ(v->shape[1], 5);
  const unsigned char *p = v->data;
  int nonzero = 0;
  for (int i = 0; i < 15 * 16; ++i) nonzero |= p[i];
  CHECK_EQ(nonzero, 0);
  dlx_tensor_release(t);
  t = NULL;
  CHECK_FAIL(dlx_tensor_zeros(NULL, 1, I64(2), DLX_DTYPE_INT8, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_zeros(&t, 1, NULL, DLX_DTYPE_INT8, CPU), DLX_ERR_NULL_ARGUMENT,
             "dlx_tensor_zeros: argument 'shape' is NULL with ndim 1");
  CHECK_FAIL(dlx_tensor_zeros(&t, 1, I64(-3), DLX_DTYPE_INT8, CPU), DLX_ERR_NEGATIVE_EXTENT, "-3");
  CHECK(t == NULL);
}

/* ---- borrowed tensors and the deleter --------------------------------------------------------------- */

static void test_deleter_once_views_and_exports(void) {
  for (int order = 0; order < 3; ++order) {
    _Atomic int deleted = 0;
    dlx_tensor *t = NULL, *row = NULL, *tr = NULL, *flat = NULL, *sub = NULL, *bc = NULL, *sq = NULL, *un = NULL,
               *pm = NULL;
    CHECK_OK(dlx_tensor_from_managed_versioned(&t, make_producer(&deleted, 2, I64(4, 6))));
    CHECK_EQ(at2(t, 2, 3), 15.0f);
    CHECK_OK(dlx_tensor_index(&row, t, -1));
    CHECK_OK(dlx_tensor_transpose(&tr, t));
    CHECK_OK(dlx_tensor_reshape(&flat, t, 1, I64(-1)));
    dlx_index_item items[2] = {{.kind = DLX_IDX_SLICE, .s = {1, 3, 1, true, true}}, {.kind = DLX_IDX_INT, .i = 2}};
    CHECK_OK(dlx_tensor_subscript(&sub, t, 2, items));
    CHECK_OK(dlx_tensor_broadcast_to(&bc, row, 2, I64(5, 6)));
    CHECK_OK(dlx_tensor_unsqueeze(&un, t, 0));
    CHECK_OK(dlx_tensor_squeeze(&sq, un, 0));
    CHECK_OK(dlx_tensor_permute(&pm, t, (const int32_t[]){1, 0}));
    CHECK_EQ(at2(tr, 3, 2), 15.0f);
    CHECK_EQ(((float *)dlx_tensor_view(row)->data)[5], 23.0f);
    CHECK_EQ(dlx_tensor_view(sub)->shape[0], 2);
    CHECK_EQ(((float *)dlx_tensor_view(sub)->data)[0], 8.0f);
    CHECK_EQ(dlx_tensor_view(bc)->strides[0], 0);
    CHECK_EQ(dlx_tensor_view(sq)->ndim, 2);
    DLManagedTensorVersioned *ex = NULL;
    CHECK_OK(dlx_tensor_to_managed_versioned(tr, &ex));
    CHECK_EQ(ex->version.major, 1);
    CHECK_EQ(ex->dl_tensor.ndim, 2);
    CHECK_EQ(ex->dl_tensor.shape[0], 6);
    CHECK_EQ(ex->dl_tensor.strides[0], 1);
    CHECK_EQ(ex->dl_tensor.strides[1], 6);
    CHECK_EQ(ex->dl_tensor.byte_offset, 0);
    CHECK_EQ(ex->flags, 0);
    /* writes through a view reach the producer's memory */
    ((float *)dlx_tensor_view(flat)->data)[1] = -1.0f;
    CHECK_EQ(at2(tr, 1, 0), -1.0f);
    dlx_tensor *all[] = {t, row, tr, flat, sub, bc, un, sq, pm};
    const int n = (int)(sizeof all / sizeof all[0]);
    if (order == 0) {
      for (int i = 0; i < n; ++i) dlx_tensor_release(all[i]);
      CHECK_EQ(atomic_load(&deleted), 0); /* the export still uses it */
      CHECK_EQ(((float *)ex->dl_tensor.data)[1 * 1 + 0 * 6], -1.0f);
      ex->deleter(ex);
    } else if (order == 1) {
      ex->deleter(ex);
      for (int i = n - 1; i >= 0; --i) {
        CHECK_EQ(atomic_load(&deleted), 0);
        dlx_tensor_release(all[i]);
      }
    } else {
      /* an extra retain must be matched */
      dlx_tensor_retain(sub);
      for (int i = 0; i < n; ++i) dlx_tensor_release(all[i]);
      ex->deleter(ex);
      CHECK_EQ(atomic_load(&deleted), 0);
      dlx_tensor_release(sub);
    }
    CHECK_EQ(atomic_load(&deleted), 1);
  }
}

static void *release_on_thread(void *arg) {
  dlx_tensor_release(arg);
  return NULL;
}

typedef struct churn {
  dlx_tensor *t;
  DLManagedTensorVersioned *ex[50];
} churn;

static void *churn_thread(void *arg) {
  churn *c = arg;
  for (int i = 0; i < 50; ++i) {
    dlx_tensor *v = NULL;
    if (dlx_tensor_index(&v, c->t, i % 4) == DLX_OK) {
      dlx_tensor_retain(v);
      dlx_tensor_release(v);
      c->ex[i] = NULL;
      dlx_tensor_to_managed_versioned(v, &c->ex[i]);
      dlx_tensor_release(v);
    }
  }
  return NULL;
}

/* The last release may happen on any thread; many threads making and dropping views at once. */
static void test_deleter_threads(void) {
  _Atomic int deleted = 0;
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_from_managed_versioned(&t, make_producer(&deleted, 2, I64(4, 4))));
  churn cs[4];
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) {
    cs[i].t = t;
    pthread_create(&th[i], NULL, churn_thread, &cs[i]);
  }
  for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  CHECK_EQ(atomic_load(&deleted), 0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 50; ++j)
      if (cs[i].ex[j] != NULL) cs[i].ex[j]->deleter(cs[i].ex[j]);
  CHECK_EQ(atomic_load(&deleted), 0);
  pthread_t last;
  pthread_create(&last, NULL, release_on_thread, t);
  pthread_join(last, NULL);
  CHECK_EQ(atomic_load(&deleted), 1);
}

static void test_from_managed_errors(void) {
  _Atomic int deleted = 0;
  dlx_tensor *t = NULL;
  /* a failed import still runs the deleter: ownership was handed over */
  DLManagedTensorVersioned *m = make_producer(&deleted, 1, I64(4));
  m->dl_tensor.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1);
  CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, m), DLX_ERR_INVALID_DTYPE, "24");
  CHECK_EQ(atomic_load(&deleted), 1);
  m = make_producer(&deleted, 1, I64(4));
  m->version.major = 2;
  CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, m), DLX_ERR_VERSION, "2");
  CHECK_EQ(atomic_load(&deleted), 2);
  m = make_producer(&deleted, 1, I64(4));
  CHECK_FAIL(dlx_tensor_from_managed_versioned(NULL, m), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_EQ(atomic_load(&deleted), 3);
  CHECK_FAIL(dlx_tensor_from_managed_versioned(&t, NULL), DLX_ERR_NULL_ARGUMENT, "'m'");
  CHECK(t == NULL);
  /* a read-only producer: the flag survives views and exports, and ops refuse to write */
  m = make_producer(&deleted, 2, I64(2, 2));
  m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK_OK(dlx_tensor_from_managed_versioned(&t, m));
  dlx_tensor *tr = NULL;
  CHECK_OK(dlx_tensor_transpose(&tr, t));
  CHECK(dlx_tensor_view(tr)->flags & DLX_VIEW_READ_ONLY);
  DLManagedTensorVersioned *ex = NULL;
  CHECK_OK(dlx_tensor_to_managed_versioned(tr, &ex));
  CHECK(ex->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &tr, t, t), DLX_ERR_READ_ONLY, "out is read-only");
  CHECK_FAIL(dlx_tensor_to_managed_versioned(NULL, &ex), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_to_managed_versioned(t, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  ex->deleter(ex);
  dlx_tensor_release(tr);
  dlx_tensor_release(t);
  CHECK_EQ(atomic_load(&deleted), 4);
  /* a NULL deleter is allowed (the producer keeps the memory) */
  m = make_producer(&deleted, 1, I64(4));
  producer *keep = m->manager_ctx;
  m->deleter = NULL;
  CHECK_OK(dlx_tensor_from_managed_versioned(&t, m));
  dlx_tensor_release(t);
  free(keep);
  /* memory labelled as a device no backend of this machine can compute on is held, not computed on (with
   * a GPU present, this host pointer labelled cuda:0 would be refused when exported, so skip it there) */
  if (dlx_cuda_device_count() == 0) {
    m = make_producer(&deleted, 1, I64(4));
    m->dl_tensor.device = (DLDevice){kDLCUDA, 0};
    CHECK_OK(dlx_tensor_from_managed_versioned(&t, m));
    dlx_tensor *o = NULL;
    const dlx_status want = dlx_cuda_built() ? DLX_ERR_INVALID_DEVICE : DLX_ERR_DEVICE_MISMATCH;
    CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &o, t, t), want, "cuda:0");
    CHECK(o == NULL);
    dlx_tensor *like = NULL;
    CHECK_FAIL(dlx_tensor_empty_like(&like, t), want, "cuda:0");
    dlx_tensor_release(t);
  } else {
    atomic_fetch_add(&deleted, 1); /* the case above counts one producer */
  }
  CHECK_EQ(atomic_load(&deleted), 5);
}

static void test_from_legacy(void) {
  _Atomic int deleted = 0;
  dlx_tensor *t = NULL, *row = NULL;
  CHECK_OK(dlx_tensor_from_managed(&t, make_legacy(&deleted)));
  CHECK_EQ(dlx_tensor_view(t)->strides[0], 3);
  CHECK_OK(dlx_tensor_index(&row, t, 1));
  dlx_tensor_release(t);
  CHECK_EQ(atomic_load(&deleted), 0);
  CHECK_EQ(((int32_t *)dlx_tensor_view(row)->data)[2], 50);
  DLManagedTensorVersioned *ex = NULL;
  CHECK_OK(dlx_tensor_to_managed_versioned(row, &ex));
  dlx_tensor_release(row);
  CHECK_EQ(atomic_load(&deleted), 0);
  ex->deleter(ex);
  CHECK_EQ(atomic_load(&deleted), 1);
  DLManagedTensor *m = make_legacy(&deleted);
  m->dl_tensor.ndim = -1;
  CHECK_FAIL(dlx_tensor_from_managed(&t, m), DLX_ERR_RANK, "-1");
  CHECK_EQ(atomic_load(&deleted), 2);
  CHECK_FAIL(dlx_tensor_from_managed(NULL, make_legacy(&deleted)), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_EQ(atomic_load(&deleted), 3);
  CHECK_FAIL(dlx_tensor_from_managed(&t, NULL), DLX_ERR_NULL_ARGUMENT, "'m'");
}

/* ---- views ------------------------------------------------------------------------------------------ */

static void test_views_and_reshape_copy(void) {
  dlx_tensor *t = NULL, *v = NULL, *c = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 2, I64(3, 4), DLX_DTYPE_FLOAT32, CPU));
  float *d = dlx_tensor_view(t)->data;
  for (int i = 0; i < 12; ++i) d[i] = (float)i;
  /* a reshape that is a view shares memory */
  CHECK_OK(dlx_tensor_reshape_copy(&v, t, 2, I64(2, 6)));
  CHECK(dlx_tensor_view(v)->data == d);
  dlx_tensor_release(v);
  /* a transpose cannot be flattened without a copy */
  dlx_tensor *tr = NULL;
  CHECK_OK(dlx_tensor_transpose(&tr, t));
  CHECK_FAIL(dlx_tensor_reshape(&v, tr, 1, I64(12)), DLX_ERR_LAYOUT_MISMATCH, "without a copy");
  CHECK_OK(dlx_tensor_reshape_copy(&c, tr, 1, I64(12)));
  const float *cd = dlx_tensor_view(c)->data;
  CHECK(cd != d);
  CHECK(cd[0] == 0 && cd[1] == 4 && cd[2] == 8 && cd[3] == 1 && cd[11] == 11);
  dlx_tensor_release(tr);
  dlx_tensor_release(t); /* the copy owns its memory */
  CHECK(cd[5] == 9);
  CHECK_FAIL(dlx_tensor_reshape_copy(&v, c, 1, I64(13)), DLX_ERR_INVALID_ARGUMENT, "");
  dlx_tensor_release(c);
  /* view errors and NULLs */
  CHECK_OK(dlx_tensor_empty(&t, 2, I64(3, 4), DLX_DTYPE_FLOAT32, CPU));
  v = NULL;
  CHECK_FAIL(dlx_tensor_index(&v, t, 3), DLX_ERR_INDEX, "3");
  CHECK_FAIL(dlx_tensor_squeeze(&v, t, 0), DLX_ERR_INVALID_ARGUMENT, "");
  CHECK_FAIL(dlx_tensor_broadcast_to(&v, t, 1, I64(4)), DLX_ERR_BROADCAST, "");
  CHECK_FAIL(dlx_tensor_permute(&v, t, (const int32_t[]){0, 0}), DLX_ERR_INVALID_ARGUMENT, "");
  CHECK_FAIL(dlx_tensor_index(NULL, t, 0), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_transpose(&v, NULL), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_reshape_copy(&v, NULL, 1, I64(12)), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_reshape_copy(NULL, t, 1, I64(12)), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK(v == NULL);
  dlx_tensor_release(t);
}

/* ---- ops ----------------------------------------------------------------------------------------------- */

static void test_ops_optional_out(void) {
  dlx_tensor *a = NULL, *b = NULL, *o = NULL;
  CHECK_OK(dlx_tensor_empty(&a, 2, I64(2, 3), DLX_DTYPE_INT32, CPU));
  CHECK_OK(dlx_tensor_empty(&b, 1, I64(3), DLX_DTYPE_INT32, CPU));
  int32_t *ad = dlx_tensor_view(a)->data, *bd = dlx_tensor_view(b)->data;
  for (int i = 0; i < 6; ++i) ad[i] = i;
  for (int i = 0; i < 3; ++i) bd[i] = 10 * i;
  /* NULL out: allocated with the broadcast shape */
  CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &o, a, b));
  CHECK(o != NULL);
  CHECK_EQ(dlx_tensor_view(o)->shape[0], 2);
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[5], 25);
  /* given out: written and kept */
  dlx_tensor *keep = o;
  CHECK_OK(dlx_tensor_binary(DLX_OP_MUL, &o, a, b));
  CHECK(o == keep);
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[5], 100);
  dlx_tensor_release(o);
  /* comparisons allocate bool */
  o = NULL;
  CHECK_OK(dlx_tensor_binary(DLX_OP_LT, &o, a, b));
  CHECK(dlx_dtype_equal(dlx_tensor_view(o)->dtype, DLX_DTYPE_BOOL));
  CHECK_EQ(((uint8_t *)dlx_tensor_view(o)->data)[0], 0);
  CHECK_EQ(((uint8_t *)dlx_tensor_view(o)->data)[1], 1);
  dlx_tensor_release(o);
  /* scalars, both ways round */
  o = NULL;
  CHECK_OK(dlx_tensor_binary_scalar(DLX_OP_SUB, &o, a, 10, 1));
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[4], 6);
  CHECK_OK(dlx_tensor_binary_scalar(DLX_OP_SUB, &o, a, 10, 0));
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[4], -6);
  CHECK_FAIL(dlx_tensor_binary_scalar(DLX_OP_ADD, &o, a, 0.5, 0), DLX_ERR_OVERFLOW, "0.5");
  dlx_tensor_release(o);
  /* unary: a new result, then in place */
  o = NULL;
  CHECK_OK(dlx_tensor_unary(DLX_UNOP_NEG, &o, a));
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[4], -4);
  CHECK_OK(dlx_tensor_unary(DLX_UNOP_NEG, &o, o));
  CHECK_EQ(((int32_t *)dlx_tensor_view(o)->data)[4], 4);
  CHECK_FAIL(dlx_tensor_unary(DLX_UNOP_NEG, NULL, a), DLX_ERR_NULL_ARGUMENT, "'out'");
  dlx_tensor_release(o);
  /* results of the op table's result column: bool for isnan and logical_and, a's dtype for maximum */
  o = NULL;
  CHECK_OK(dlx_tensor_unary(DLX_UNOP_ISNAN, &o, a));
  CHECK(dlx_dtype_equal(dlx_tensor_view(o)->dtype, DLX_DTYPE_BOOL) && ((uint8_t *)dlx_tensor_view(o)->data)[4] == 0);
  dlx_tensor_release(o);
  o = NULL;
  CHECK_OK(dlx_tensor_binary(DLX_OP_MAXIMUM, &o, a, b));
  CHECK(dlx_dtype_equal(dlx_tensor_view(o)->dtype, DLX_DTYPE_INT32));
  dlx_tensor_release(o);
  o = NULL;
  CHECK_OK(dlx_tensor_binary_scalar(DLX_OP_LOGICAL_AND, &o, a, 1.0, 0));
  CHECK(dlx_dtype_equal(dlx_tensor_view(o)->dtype, DLX_DTYPE_BOOL));
  CHECK(((uint8_t *)dlx_tensor_view(o)->data)[0] == 0 && ((uint8_t *)dlx_tensor_view(o)->data)[1] == 1);
  dlx_tensor_release(o);
  char needle[64]; /* the count grows with the op table */
  snprintf(needle, sizeof needle, "op %d is not a dlx_unop", (int)DLX_UNOP_COUNT);
  CHECK_FAIL(dlx_tensor_unary((dlx_unop)DLX_UNOP_COUNT, &o, a), DLX_ERR_INVALID_ARGUMENT, needle);
  /* ternary: clip in a's dtype, where in its values' (b's), broadcast over the three */
  dlx_tensor *lo = NULL, *hi = NULL, *m = NULL;
  CHECK_OK(dlx_tensor_empty(&lo, 0, NULL, DLX_DTYPE_INT32, CPU));
  CHECK_OK(dlx_tensor_empty(&hi, 1, I64(3), DLX_DTYPE_INT32, CPU));
  CHECK_OK(dlx_tensor_empty(&m, 2, I64(2, 1), DLX_DTYPE_BOOL, CPU));
  *(int32_t *)dlx_tensor_view(lo)->data = 1;
  int32_t *hd = dlx_tensor_view(hi)->data;
  hd[0] = 0, hd[1] = 2, hd[2] = 3;
  uint8_t *md = dlx_tensor_view(m)->data;
  md[0] = 1, md[1] = 0;
  o = NULL;
  CHECK_OK(dlx_tensor_ternary(DLX_TERNOP_CLIP, &o, a, lo, hi)); /* a: 0..5 in (2, 3) */
  const int32_t *cd = dlx_tensor_view(o)->data;
  CHECK(cd[0] == 0 && cd[1] == 1 && cd[2] == 2 && cd[3] == 0 && cd[4] == 2 && cd[5] == 3);
  dlx_tensor_release(o);
  o = NULL;
  CHECK_OK(dlx_tensor_ternary(DLX_TERNOP_WHERE, &o, m, hi, a));
  CHECK(dlx_tensor_view(o)->ndim == 2 && dlx_tensor_view(o)->shape[0] == 2 && dlx_tensor_view(o)->shape[1] == 3);
  cd = dlx_tensor_view(o)->data;
  CHECK(cd[0] == 0 && cd[2] == 3 && cd[3] == 3 && cd[5] == 5);
  dlx_tensor_release(o);
  o = NULL;
  CHECK_FAIL(dlx_tensor_ternary(DLX_TERNOP_WHERE, &o, a, hi, a), DLX_ERR_DTYPE_MISMATCH, "condition a must be bool");
  CHECK(o == NULL);
  CHECK_FAIL(dlx_tensor_ternary((dlx_ternop)7, &o, m, hi, a), DLX_ERR_INVALID_ARGUMENT, "op 7 is not a dlx_ternop");
  CHECK_FAIL(dlx_tensor_ternary(DLX_TERNOP_CLIP, &o, a, lo, NULL), DLX_ERR_NULL_ARGUMENT, "'c'");
  dlx_tensor *x4 = NULL;
  CHECK_OK(dlx_tensor_empty(&x4, 1, I64(4), DLX_DTYPE_INT32, CPU));
  CHECK_FAIL(dlx_tensor_ternary(DLX_TERNOP_CLIP, &o, a, lo, x4), DLX_ERR_BROADCAST, "do not broadcast");
  CHECK(o == NULL);
  dlx_tensor_release(x4);
  dlx_tensor_release(lo);
  dlx_tensor_release(hi);
  dlx_tensor_release(m);
  /* in place: out is a */
  CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &a, a, b));
  CHECK_EQ(ad[5], 25);
  /* cast */
  o = NULL;
  CHECK_OK(dlx_tensor_cast(&o, a, DLX_DTYPE_FLOAT16));
  CHECK_EQ(((uint16_t *)dlx_tensor_view(o)->data)[1], 0x4980); /* 11.0 */
  CHECK_FAIL(dlx_tensor_cast(&o, a, DLX_DTYPE_FLOAT32), DLX_ERR_DTYPE_MISMATCH, "out is float16 but the cast is to float32");
  dlx_tensor_release(o);
  o = NULL;
  CHECK_OK(dlx_tensor_cast(&o, a, DLX_DTYPE_FLOAT4_E2M1FN)); /* packed output */
  CHECK_EQ(((uint8_t *)dlx_tensor_view(o)->data)[0], 0x7 << 4 | 0x0); /* 0 -> 0, 11 -> 6 (code 7) */
  dlx_tensor_release(o);
  /* fma with the signed partner */
  dlx_tensor *img = NULL, *delta = NULL;
  CHECK_OK(dlx_tensor_empty(&img, 1, I64(3), DLX_DTYPE_UINT8, CPU));
  CHECK_OK(dlx_tensor_empty(&delta, 1, I64(3), DLX_DTYPE_INT8, CPU));
  uint8_t *im = dlx_tensor_view(img)->data;
  int8_t *de = dlx_tensor_view(delta)->data;
  im[0] = 250, im[1] = 5, im[2] = 100;
  de[0] = 10, de[1] = -10, de[2] = 3;
  o = NULL;
  CHECK_OK(dlx_tensor_fma(&o, 2.0, delta, img));
  const uint8_t *od = dlx_tensor_view(o)->data;
  CHECK(od[0] == 255 && od[1] == 0 && od[2] == 106);
  dlx_tensor_release(o);
  /* failures leave a NULL out NULL (and free what was allocated) */
  dlx_tensor *f = NULL;
  CHECK_OK(dlx_tensor_empty(&f, 1, I64(3), DLX_DTYPE_FLOAT32, CPU));
  o = NULL;
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &o, a, f), DLX_ERR_DTYPE_MISMATCH, "a is int32 but b is float32");
  CHECK(o == NULL);
  CHECK_FAIL(dlx_tensor_fma(&o, 1.0, img, delta), DLX_ERR_DTYPE_MISMATCH, "t1 is uint8 but t2 is int8");
  CHECK(o == NULL);
  CHECK_FAIL(dlx_tensor_cast(&o, a, DLX_DTYPE_INT128), DLX_ERR_UNSUPPORTED, "int128");
  CHECK(o == NULL);
  dlx_tensor *two = NULL;
  CHECK_OK(dlx_tensor_empty(&two, 1, I64(2), DLX_DTYPE_INT32, CPU));
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_ADD, &o, a, two), DLX_ERR_BROADCAST, "(2,3) and (2)");
  CHECK_FAIL(dlx_tensor_fma(&o, 1.0, a, two), DLX_ERR_BROADCAST, "do not broadcast");
  dlx_tensor_release(two);
  CHECK_FAIL(dlx_tensor_binary((dlx_binop)-1, &o, a, a), DLX_ERR_INVALID_ARGUMENT, "op -1");
  CHECK_FAIL(dlx_tensor_binary_scalar(DLX_OP_COUNT, &o, a, 1, 0), DLX_ERR_INVALID_ARGUMENT, "op 26");
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_SUB, &o, NULL, a), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_SUB, &o, a, NULL), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK_FAIL(dlx_tensor_binary(DLX_OP_SUB, NULL, a, a), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_binary_scalar(DLX_OP_SUB, NULL, a, 1, 0), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_binary_scalar(DLX_OP_SUB, &o, NULL, 1, 0), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_tensor_cast(NULL, a, DLX_DTYPE_INT8), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_cast(&o, NULL, DLX_DTYPE_INT8), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_fma(NULL, 1, a, a), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_fma(&o, 1, NULL, a), DLX_ERR_NULL_ARGUMENT, "'t1'");
  CHECK_FAIL(dlx_tensor_fma(&o, 1, a, NULL), DLX_ERR_NULL_ARGUMENT, "'t2'");
  CHECK(o == NULL);
  dlx_tensor_release(f);
  dlx_tensor_release(img);
  dlx_tensor_release(delta);
  dlx_tensor_release(a);
  dlx_tensor_release(b);
}

static void test_gemm(void) {
  dlx_tensor *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(dlx_tensor_empty(&a, 2, I64(2, 3), DLX_DTYPE_FLOAT32, CPU));
  CHECK_OK(dlx_tensor_empty(&b, 2, I64(3, 2), DLX_DTYPE_FLOAT32, CPU));
  float *ad = dlx_tensor_view(a)->data, *bd = dlx_tensor_view(b)->data;
  for (int i = 0; i < 6; ++i) ad[i] = (float)(i + 1), bd[i] = (float)(i % 2);
  /* beta is irrelevant for a new C (it starts at zero) */
  dlx_status st = dlx_tensor_gemm(&c, 1.0, a, b, 3.0);
  if (st == DLX_ERR_UNSUPPORTED) {
    CHECK(c == NULL); /* a build without CBLAS */
  } else {
    CHECK_OK(st);
    const float *cd = dlx_tensor_view(c)->data;
    CHECK(cd[0] == 0 && cd[1] == 6 && cd[2] == 0 && cd[3] == 15);
    dlx_tensor_release(c);
  }
  c = NULL;
  dlx_tensor *v = NULL;
  CHECK_OK(dlx_tensor_reshape(&v, a, 1, I64(6)));
  CHECK_FAIL(dlx_tensor_gemm(&c, 1.0, v, b, 0.0), DLX_ERR_RANK, "ranks 1 and 2");
  CHECK_FAIL(dlx_tensor_gemm(NULL, 1.0, a, b, 0.0), DLX_ERR_NULL_ARGUMENT, "'c'");
  CHECK_FAIL(dlx_tensor_gemm(&c, 1.0, NULL, b, 0.0), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_tensor_gemm(&c, 1.0, a, NULL, 0.0), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK(c == NULL);
  dlx_tensor_release(v);
  dlx_tensor_release(a);
  dlx_tensor_release(b);
}

/* ---- streams and events: dlx_tensor_record / dlx_tensor_wait, dlx_cuda_stream_create / destroy ------------ */

static _Atomic int labelled_deleted;

/* A producer's tensor of 4 floats labelled device (host memory: events never touch the data). */
static dlx_tensor *labelled(DLDevice device) {
  _Atomic int *const deleted_p = &labelled_deleted;
  DLManagedTensorVersioned *m = make_producer(deleted_p, 1, I64(4));
  m->dl_tensor.device = device;
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_from_managed_versioned(&t, m));
  return t;
}

static void test_record_wait(void) {
  const int before = atomic_load(&labelled_deleted);
  /* host memory: nothing to order, whatever the stream */
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 1, I64(8), DLX_DTYPE_FLOAT32, CPU));
  CHECK_OK(dlx_tensor_record(t, NULL));
  CHECK_OK(dlx_tensor_record(t, (void *)(uintptr_t)0x1234));
  CHECK_OK(dlx_tensor_wait(t, NULL));
  dlx_tensor_release(t);
  t = labelled((DLDevice){kDLCUDAHost, 0});
  CHECK_OK(dlx_tensor_record(t, NULL));
  CHECK_OK(dlx_tensor_wait(t, NULL));
  dlx_tensor_release(t);
  /* NULL */
  CHECK_FAIL(dlx_tensor_record(NULL, NULL), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_tensor_wait(NULL, NULL), DLX_ERR_NULL_ARGUMENT, "'t'");
  /* memory dlx has no events for: a device type without a backend, and oneAPI USM (dpctl's queues) */
  t = labelled((DLDevice){kDLROCM, 0});
  CHECK_FAIL(dlx_tensor_record(t, NULL), DLX_ERR_UNSUPPORTED, "dlx_tensor_record: the tensor is on rocm:0, which "
             "needs a ROCm backend, which dlx does not have");
  CHECK_FAIL(dlx_tensor_wait(t, NULL), DLX_ERR_UNSUPPORTED, "dlx_tensor_wait: the tensor is on rocm:0");
  dlx_tensor_release(t);
  /* (host memory labelled oneAPI imports only where dpctl cannot be asked; the deleter runs either way) */
  DLManagedTensorVersioned *m = make_producer(&labelled_deleted, 1, I64(4));
  m->dl_tensor.device = (DLDevice){kDLOneAPI, 0};
  t = NULL;
  if (dlx_tensor_from_managed_versioned(&t, m) == DLX_OK) {
    CHECK_FAIL(dlx_tensor_record(t, NULL), DLX_ERR_UNSUPPORTED, "dlx_tensor_record: the tensor is on oneapi:0: dlx "
               "has no streams or events for that memory");
    CHECK_FAIL(dlx_tensor_wait(t, NULL), DLX_ERR_UNSUPPORTED, "dlx_tensor_wait: the tensor is on oneapi:0");
    dlx_tensor_release(t);
  }
  /* CUDA device and managed memory: the build and the machine decide */
  const DLDevice cuda_kinds[2] = {{kDLCUDA, 0}, {kDLCUDAManaged, 0}};
  for (int k = 0; k < 2; ++k) {
    t = labelled(cuda_kinds[k]);
    const char *name = k == 0 ? "cuda:0" : "cuda_managed:0";
    char want[128];
    if (!dlx_cuda_built()) {
      snprintf(want, sizeof want, "dlx_tensor_record: the tensor is on %s, which needs a build with CUDA", name);
      CHECK_FAIL(dlx_tensor_record(t, NULL), DLX_ERR_UNSUPPORTED, want);
      CHECK_FAIL(dlx_tensor_wait(t, NULL), DLX_ERR_UNSUPPORTED, "needs a build with CUDA (DLX_WITH_CUDA=ON)");
    } else if (dlx_cuda_device_count() == 0) {
      snprintf(want, sizeof want, "dlx_tensor_record: the tensor is on %s, but no CUDA device is present", name);
      CHECK_FAIL(dlx_tensor_record(t, NULL), DLX_ERR_INVALID_DEVICE, want);
      CHECK_FAIL(dlx_tensor_wait(t, NULL), DLX_ERR_INVALID_DEVICE, "no CUDA device is present");
    } else {
      /* an event on a stream never touches the data: the label is all it needs (the producer's memory is
       * handed back only after the recorded point, waited for on the host at release) */
      CHECK_OK(dlx_tensor_wait(t, NULL)); /* nothing recorded yet */
      CHECK_OK(dlx_tensor_record(t, NULL));
      CHECK_OK(dlx_tensor_record(t, NULL)); /* moves the mark */
      CHECK_OK(dlx_tensor_wait(t, NULL));
      dlx_tensor *v = NULL;
      CHECK_OK(dlx_tensor_index(&v, t, 1)); /* a view shares the storage's event */
      CHECK_OK(dlx_tensor_wait(v, NULL));
      dlx_tensor_release(v);
    }
    dlx_tensor_release(t);
  }
  if (dlx_cuda_device_count() > 0) {
    t = labelled((DLDevice){kDLCUDA, 1000});
    CHECK_FAIL(dlx_tensor_record(t, NULL), DLX_ERR_INVALID_DEVICE, "the tensor is on cuda:1000, which does not exist");
    dlx_tensor_release(t);
  } else {
    atomic_fetch_add(&labelled_deleted, 1);
  }
  CHECK_EQ(atomic_load(&labelled_deleted), before + 6); /* every producer deleted once */
}

static void test_stream_controls_without_device(void) {
  void *s = NULL;
  CHECK_FAIL(dlx_cuda_stream_create(0, 1, NULL), dlx_cuda_built() ? DLX_ERR_NULL_ARGUMENT : DLX_ERR_UNSUPPORTED,
             dlx_cuda_built() ? "'stream'" : "dlx_cuda_stream_create: dlx was built without CUDA");
  if (!dlx_cuda_built()) {
    CHECK_FAIL(dlx_cuda_stream_create(0, 1, &s), DLX_ERR_UNSUPPORTED, "dlx_cuda_stream_create: dlx was built without CUDA");
    CHECK_FAIL(dlx_cuda_stream_destroy(0, (void *)(uintptr_t)0x1234), DLX_ERR_UNSUPPORTED,
               "dlx_cuda_stream_destroy: dlx was built without CUDA (DLX_WITH_CUDA=OFF)");
    return;
  }
  if (dlx_cuda_device_count() == 0) {
    CHECK_FAIL(dlx_cuda_stream_create(0, 1, &s), DLX_ERR_INVALID_DEVICE,
               "dlx_cuda_stream_create: device cuda:0 does not exist: no CUDA device is present");
    CHECK_FAIL(dlx_cuda_stream_destroy(0, (void *)(uintptr_t)0x1234), DLX_ERR_INVALID_DEVICE,
               "dlx_cuda_stream_destroy: device cuda:0 does not exist");
    return;
  }
  /* with a device (tests/test_cuda.c covers streams in full): the default streams cannot be destroyed */
  CHECK_FAIL(dlx_cuda_stream_create(-1, 1, &s), DLX_ERR_INVALID_DEVICE, "cuda:-1");
  CHECK_FAIL(dlx_cuda_stream_destroy(0, NULL), DLX_ERR_INVALID_ARGUMENT, "is a default stream");
  CHECK_FAIL(dlx_cuda_stream_destroy(0, (void *)(uintptr_t)0x2), DLX_ERR_INVALID_ARGUMENT, "0x2 is a default stream");
}

static const dlx_test_case cases[] = {
    {"empty", test_empty},
    {"zeros", test_zeros},
    {"deleter_once_views_and_exports", test_deleter_once_views_and_exports},
    {"deleter_threads", test_deleter_threads},
    {"from_managed_errors", test_from_managed_errors},
    {"from_legacy", test_from_legacy},
    {"views_and_reshape_copy", test_views_and_reshape_copy},
    {"ops_optional_out", test_ops_optional_out},
    {"gemm", test_gemm},
    {"record_wait", test_record_wait},
    {"stream_controls_without_device", test_stream_controls_without_device},
};
DLX_TEST_MAIN(cases)

/* tests/header/coexist_body.h - the part of the coexistence TUs that is the same whichever header came
 * first: it names official enumerators and types next to dlx's API, in the common subset of C11 and
 * C++11, so that one body checks both languages. Compiled only (never linked) by check_coexistence.sh. */
#ifndef DLX_TESTS_COEXIST_BODY_H
#define DLX_TESTS_COEXIST_BODY_H

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
#define COEXIST_ASSERT static_assert
extern "C" {
#else
#define COEXIST_ASSERT _Static_assert
#endif

/* Whoever declared them, the enumerators are the standard's numbers and dlx's codes agree. */
COEXIST_ASSERT(kDLCPU == 1 && kDLCUDAManaged == 13 && kDLTrn == 18, "device type values");
COEXIST_ASSERT(kDLFloat4_e2m1fn == 17 && kDLFloat4_e2m1fn == DLX_CODE_FLOAT4_E2M1FN, "fp4 code");
COEXIST_ASSERT(kDLFloat8_e8m0fnu == DLX_CODE_FLOAT8_E8M0FNU && kDLBool == DLX_CODE_BOOL, "type codes");
COEXIST_ASSERT(DLPACK_MAJOR_VERSION == 1, "a 1.x header");
COEXIST_ASSERT(sizeof(DLManagedTensorVersioned) == 80, "versioned tensor size");
COEXIST_ASSERT(offsetof(DLManagedTensorVersioned, dl_tensor) == 32, "dl_tensor offset");
COEXIST_ASSERT(offsetof(DLPackExchangeAPI, current_work_stream) == 48, "exchange API layout");
COEXIST_ASSERT(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED == 4, "padded flag");

/* A consumer as a C extension writes it: take a versioned tensor from a producer's exchange table,
 * import it through dlx, export a view back. Prototyped, so -Wmissing-prototypes stays quiet. */
int coexist_consume(const DLPackExchangeAPI *api, void *py_object, dlx_view *out);
int coexist_roundtrip(const dlx_view *v, dlx_dltensor *holder, dlx_view *back);
int coexist_fp4(DLManagedTensorVersioned *m);

int coexist_consume(const DLPackExchangeAPI *api, void *py_object, dlx_view *out) {
  const DLPackExchangeAPIHeader *h = &api->header;
  while (h != NULL && h->version.major != DLPACK_MAJOR_VERSION) h = h->prev_api;
  if (h == NULL) return -1;
  const DLPackExchangeAPI *table = (const DLPackExchangeAPI *)h;
  DLManagedTensorVersioned *m = NULL;
  if (table->managed_tensor_from_py_object_no_sync(py_object, &m) != 0) return -1;
  dlx_import_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.dtype.code = kDLFloat;
  spec.dtype.bits = 32;
  spec.dtype.lanes = 1;
  spec.ndim = DLX_NDIM_ANY;
  spec.memspace = DLX_MEMSPACE_HOST;
  spec.layout = DLX_LAYOUT_RIGHT;
  spec.version = DLX_DLPACK_VERSION_NUM(m->version.major, m->version.minor);
  dlx_status st = dlx_view_from_managed_versioned(out, m, &spec);
  if (st == DLX_OK) st = dlx_view_from_dltensor(out, &m->dl_tensor, &spec);
  if (m->deleter != NULL) m->deleter(m);
  return st == DLX_OK ? 0 : -1;
}

int coexist_roundtrip(const dlx_view *v, dlx_dltensor *holder, dlx_view *back) {
  if (dlx_view_to_dltensor(v, holder) != DLX_OK) return -1;
  dlx_import_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.ndim = DLX_NDIM_ANY;
  spec.memspace = DLX_MEMSPACE_ANY;
  spec.layout = DLX_LAYOUT_ANY;
  spec.version = DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  spec.alignment = 1;
  return dlx_view_from_dltensor(back, &holder->tensor, &spec) == DLX_OK ? 0 : -1;
}

int coexist_fp4(DLManagedTensorVersioned *m) {
  m->dl_tensor.dtype.code = (uint8_t)kDLFloat4_e2m1fn;
  m->dl_tensor.dtype.bits = 4;
  m->dl_tensor.dtype.lanes = 1;
  m->flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  return dlx_dtype_is_subbyte(m->dl_tensor.dtype) ? 0 : -1;
}

#ifdef __cplusplus
}
#endif
#endif

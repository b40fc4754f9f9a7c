/* tests/test_dlpack_header.c - runtime checks of the DLPack 1.3 ABI that include/dlx/dlpack.h declares.
 *
 * The header already static-asserts sizes and offsets; these tests repeat them at run time (so a
 * failure names the value) and go further: every enumerator's number, the flag bits, the version
 * macros, and the byte position of each field of a managed tensor, found by writing through the
 * struct and reading the raw bytes back. Coexistence with official headers is checked separately by
 * tests/header/check_coexistence.sh. */
#include "dlx/dlpack.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dlx/dtype.h"
#include "dlx/view.h"
#include "runner.h"

/* The host is little-endian on every platform dlx targets; the byte checks below depend on it. */
static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static uint64_t read_u64(const void *base, size_t off) {
  uint64_t v;
  memcpy(&v, (const unsigned char *)base + off, sizeof v);
  return v;
}
static uint32_t read_u32(const void *base, size_t off) {
  uint32_t v;
  memcpy(&v, (const unsigned char *)base + off, sizeof v);
  return v;
}
static uint16_t read_u16(const void *base, size_t off) {
  uint16_t v;
  memcpy(&v, (const unsigned char *)base + off, sizeof v);
  return v;
}
static uintptr_t read_ptr(const void *base, size_t off) {
  uintptr_t v;
  memcpy(&v, (const unsigned char *)base + off, sizeof v);
  return v;
}

static void test_version_macros(void) {
  CHECK_EQ(DLPACK_MAJOR_VERSION, 1);
  CHECK_EQ(DLPACK_MINOR_VERSION, 3);
  CHECK_EQ(DLX_DLPACK_MAJOR, 1);
  CHECK_EQ(DLX_DLPACK_MINOR, 3);
  CHECK_EQ(DLX_DLPACK_VERSION_NUM(1, 3), 0x00010003u);
  CHECK_EQ(DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR), DLX_DLPACK_VERSION_NUM(1, 3));
  CHECK_EQ(DLX_DLPACK_VERSION_NUM(0, 0), 0u);
  CHECK_EQ(DLX_DLPACK_VERSION_LEGACY, 0u);
  /* The number must order versions as (major, minor) pairs do, including a large minor. */
  CHECK(DLX_DLPACK_VERSION_NUM(1, 1) < DLX_DLPACK_VERSION_NUM(1, 2));
  CHECK(DLX_DLPACK_VERSION_NUM(1, 2) < DLX_DLPACK_VERSION_NUM(1, 3));
  CHECK(DLX_DLPACK_VERSION_NUM(0, 65535) < DLX_DLPACK_VERSION_NUM(1, 0));
  CHECK(DLX_DLPACK_VERSION_NUM(1, 65535) < DLX_DLPACK_VERSION_NUM(2, 0));
  CHECK(DLX_DLPACK_VERSION_LEGACY < DLX_DLPACK_VERSION_NUM(1, 0));
  /* The macro takes any integer expression and yields uint32_t arithmetic. */
  uint32_t major = 1, minor = 2;
  CHECK_EQ(DLX_DLPACK_VERSION_NUM(major, minor), 0x00010002u);
  CHECK_EQ(sizeof(DLX_DLPACK_VERSION_NUM(1, 3)), sizeof(uint32_t));
}

static void test_own_declarations(void) {
  /* Included alone, dlx provides the declarations and claims the official include guard. */
#if defined(DLX_DLPACK_OWN_DECLARATIONS) && defined(DLPACK_DLPACK_H_) && !defined(DLX_DLPACK_FOREIGN)
  CHECK(1);
#else
  CHECK(!"dlx/dlpack.h included alone should use its own declarations");
#endif
}

static void test_device_types(void) {
  CHECK_EQ(sizeof(DLDeviceType), 4);
  CHECK_EQ(kDLCPU, 1);
  CHECK_EQ(kDLCUDA, 2);
  CHECK_EQ(kDLCUDAHost, 3);
  CHECK_EQ(kDLOpenCL, 4);
  CHECK_EQ(kDLVulkan, 7);
  CHECK_EQ(kDLMetal, 8);
  CHECK_EQ(kDLVPI, 9);
  CHECK_EQ(kDLROCM, 10);
  CHECK_EQ(kDLROCMHost, 11);
  CHECK_EQ(kDLExtDev, 12);
  CHECK_EQ(kDLCUDAManaged, 13);
  CHECK_EQ(kDLOneAPI, 14);
  CHECK_EQ(kDLWebGPU, 15);
  CHECK_EQ(kDLHexagon, 16);
  CHECK_EQ(kDLMAIA, 17);
  CHECK_EQ(kDLTrn, 18);
  /* Values are distinct and 5, 6 are unused: the known set is exactly {1..4, 7..18}. */
  const int known[] = {kDLCPU,      kDLCUDA,   kDLCUDAHost, kDLOpenCL,      kDLVulkan, kDLMetal,
                       kDLVPI,      kDLROCM,   kDLROCMHost, kDLExtDev,      kDLCUDAManaged,
                       kDLOneAPI,   kDLWebGPU, kDLHexagon,  kDLMAIA,        kDLTrn};
  unsigned seen = 0;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) {
    CHECK(known[i] >= 1 && known[i] <= 18 && known[i] != 5 && known[i] != 6);
    CHECK((seen & (1u << known[i])) == 0);
    seen |= 1u << known[i];
  }
  CHECK_EQ(seen, 0x7FF9Eu); /* bits 1..4 and 7..18 */
}

static void test_type_codes(void) {
  CHECK_EQ(kDLInt, 0);
  CHECK_EQ(kDLUInt, 1);
  CHECK_EQ(kDLFloat, 2);
  CHECK_EQ(kDLOpaqueHandle, 3);
  CHECK_EQ(kDLBfloat, 4);
  CHECK_EQ(kDLComplex, 5);
  CHECK_EQ(kDLBool, 6);
  CHECK_EQ(kDLFloat8_e3m4, 7);
  CHECK_EQ(kDLFloat8_e4m3, 8);
  CHECK_EQ(kDLFloat8_e4m3b11fnuz, 9);
  CHECK_EQ(kDLFloat8_e4m3fn, 10);
  CHECK_EQ(kDLFloat8_e4m3fnuz, 11);
  CHECK_EQ(kDLFloat8_e5m2, 12);
  CHECK_EQ(kDLFloat8_e5m2fnuz, 13);
  CHECK_EQ(kDLFloat8_e8m0fnu, 14);
  CHECK_EQ(kDLFloat6_e2m3fn, 15);
  CHECK_EQ(kDLFloat6_e3m2fn, 16);
  CHECK_EQ(kDLFloat4_e2m1fn, 17);
}

/* dlx's numeric codes must be the standard's enumerators, one for one. */
static void test_dlx_codes_match_enumerators(void) {
  CHECK_EQ(DLX_CODE_INT, kDLInt);
  CHECK_EQ(DLX_CODE_UINT, kDLUInt);
  CHECK_EQ(DLX_CODE_FLOAT, kDLFloat);
  CHECK_EQ(DLX_CODE_OPAQUE_HANDLE, kDLOpaqueHandle);
  CHECK_EQ(DLX_CODE_BFLOAT, kDLBfloat);
  CHECK_EQ(DLX_CODE_COMPLEX, kDLComplex);
  CHECK_EQ(DLX_CODE_BOOL, kDLBool);
  CHECK_EQ(DLX_CODE_FLOAT8_E3M4, kDLFloat8_e3m4);
  CHECK_EQ(DLX_CODE_FLOAT8_E4M3, kDLFloat8_e4m3);
  CHECK_EQ(DLX_CODE_FLOAT8_E4M3B11FNUZ, kDLFloat8_e4m3b11fnuz);
  CHECK_EQ(DLX_CODE_FLOAT8_E4M3FN, kDLFloat8_e4m3fn);
  CHECK_EQ(DLX_CODE_FLOAT8_E4M3FNUZ, kDLFloat8_e4m3fnuz);
  CHECK_EQ(DLX_CODE_FLOAT8_E5M2, kDLFloat8_e5m2);
  CHECK_EQ(DLX_CODE_FLOAT8_E5M2FNUZ, kDLFloat8_e5m2fnuz);
  CHECK_EQ(DLX_CODE_FLOAT8_E8M0FNU, kDLFloat8_e8m0fnu);
  CHECK_EQ(DLX_CODE_FLOAT6_E2M3FN, kDLFloat6_e2m3fn);
  CHECK_EQ(DLX_CODE_FLOAT6_E3M2FN, kDLFloat6_e3m2fn);
  CHECK_EQ(DLX_CODE_FLOAT4_E2M1FN, kDLFloat4_e2m1fn);
  CHECK_EQ(DLX_CODE_COUNT, kDLFloat4_e2m1fn + 1);
}

/* The named dtype constants carry the (code, bits, lanes) the standard gives each type. */
static void test_dtype_constants(void) {
  static const struct {
    const char *name;
    DLDataType dt;
    int code, bits;
  } table[] = {
      {"bool", DLX_DTYPE_BOOL, kDLBool, 8},
      {"int8", DLX_DTYPE_INT8, kDLInt, 8},
      {"int16", DLX_DTYPE_INT16, kDLInt, 16},
      {"int32", DLX_DTYPE_INT32, kDLInt, 32},
      {"int64", DLX_DTYPE_INT64, kDLInt, 64},
      {"int128", DLX_DTYPE_INT128, kDLInt, 128},
      {"uint8", DLX_DTYPE_UINT8, kDLUInt, 8},
      {"uint16", DLX_DTYPE_UINT16, kDLUInt, 16},
      {"uint32", DLX_DTYPE_UINT32, kDLUInt, 32},
      {"uint64", DLX_DTYPE_UINT64, kDLUInt, 64},
      {"uint128", DLX_DTYPE_UINT128, kDLUInt, 128},
      {"float16", DLX_DTYPE_FLOAT16, kDLFloat, 16},
      {"float32", DLX_DTYPE_FLOAT32, kDLFloat, 32},
      {"float64", DLX_DTYPE_FLOAT64, kDLFloat, 64},
      {"float128", DLX_DTYPE_FLOAT128, kDLFloat, 128},
      {"bfloat16", DLX_DTYPE_BFLOAT16, kDLBfloat, 16},
      {"complex32", DLX_DTYPE_COMPLEX32, kDLComplex, 32},
      {"complex64", DLX_DTYPE_COMPLEX64, kDLComplex, 64},
      {"complex128", DLX_DTYPE_COMPLEX128, kDLComplex, 128},
      {"float8_e3m4", DLX_DTYPE_FLOAT8_E3M4, kDLFloat8_e3m4, 8},
      {"float8_e4m3", DLX_DTYPE_FLOAT8_E4M3, kDLFloat8_e4m3, 8},
      {"float8_e4m3b11fnuz", DLX_DTYPE_FLOAT8_E4M3B11FNUZ, kDLFloat8_e4m3b11fnuz, 8},
      {"float8_e4m3fn", DLX_DTYPE_FLOAT8_E4M3FN, kDLFloat8_e4m3fn, 8},
      {"float8_e4m3fnuz", DLX_DTYPE_FLOAT8_E4M3FNUZ, kDLFloat8_e4m3fnuz, 8},
      {"float8_e5m2", DLX_DTYPE_FLOAT8_E5M2, kDLFloat8_e5m2, 8},
      {"float8_e5m2fnuz", DLX_DTYPE_FLOAT8_E5M2FNUZ, kDLFloat8_e5m2fnuz, 8},
      {"float8_e8m0fnu", DLX_DTYPE_FLOAT8_E8M0FNU, kDLFloat8_e8m0fnu, 8},
      {"float6_e2m3fn", DLX_DTYPE_FLOAT6_E2M3FN, kDLFloat6_e2m3fn, 6},
      {"float6_e3m2fn", DLX_DTYPE_FLOAT6_E3M2FN, kDLFloat6_e3m2fn, 6},
      {"float4_e2m1fn", DLX_DTYPE_FLOAT4_E2M1FN, kDLFloat4_e2m1fn, 4},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
    if (table[i].dt.code != table[i].code || table[i].dt.bits != table[i].bits || table[i].dt.lanes != 1) {
      fprintf(stderr, "  DLX_DTYPE constant for %s is (%d, %d, %d), expected (%d, %d, 1)\n", table[i].name,
              table[i].dt.code, table[i].dt.bits, table[i].dt.lanes, table[i].code, table[i].bits);
      CHECK(!"dtype constant");
    }
  }
  DLDataType any = DLX_DTYPE_ANY;
  CHECK_EQ(any.lanes, 0); /* lanes 0 never names a legal dtype */
  CHECK_EQ(DLX_NDIM_ANY, -1);
}

static void test_flags(void) {
  CHECK_EQ(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
  CHECK_EQ(DLPACK_FLAG_BITMASK_IS_COPIED, 2);
  CHECK_EQ(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, 4);
  /* The masks must fit the 64-bit flags field without sign surprises. */
  uint64_t all = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED |
                 DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  CHECK_EQ(all, 7);
}

/* Mirrors of the static asserts in dlx/dlpack.h. */
static void test_sizes_and_offsets(void) {
  CHECK_EQ(sizeof(DLPackVersion), 8);
  CHECK_EQ(offsetof(DLPackVersion, major), 0);
  CHECK_EQ(offsetof(DLPackVersion, minor), 4);
  CHECK_EQ(sizeof(DLDevice), 8);
  CHECK_EQ(offsetof(DLDevice, device_type), 0);
  CHECK_EQ(offsetof(DLDevice, device_id), 4);
  CHECK_EQ(sizeof(DLDataType), 4);
  CHECK_EQ(offsetof(DLDataType, code), 0);
  CHECK_EQ(offsetof(DLDataType, bits), 1);
  CHECK_EQ(offsetof(DLDataType, lanes), 2);
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
  CHECK_EQ(sizeof(DLTensor), 48);
  CHECK_EQ(offsetof(DLTensor, data), 0);
  CHECK_EQ(offsetof(DLTensor, device), 8);
  CHECK_EQ(offsetof(DLTensor, ndim), 16);
  CHECK_EQ(offsetof(DLTensor, dtype), 20);
  CHECK_EQ(offsetof(DLTensor, shape), 24);
  CHECK_EQ(offsetof(DLTensor, strides), 32);
  CHECK_EQ(offsetof(DLTensor, byte_offset), 40);
  CHECK_EQ(sizeof(DLManagedTensor), 64);
  CHECK_EQ(offsetof(DLManagedTensor, dl_tensor), 0);
  CHECK_EQ(offsetof(DLManagedTensor, manager_ctx), 48);
  CHECK_EQ(offsetof(DLManagedTensor, deleter), 56);
  CHECK_EQ(sizeof(DLManagedTensorVersioned), 80);
  CHECK_EQ(offsetof(DLManagedTensorVersioned, version), 0);
  CHECK_EQ(offsetof(DLManagedTensorVersioned, manager_ctx), 8);
  CHECK_EQ(offsetof(DLManagedTensorVersioned, deleter), 16);
  CHECK_EQ(offsetof(DLManagedTensorVersioned, flags), 24);
  CHECK_EQ(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
  CHECK_EQ(sizeof(DLPackExchangeAPIHeader), 16);
  CHECK_EQ(offsetof(DLPackExchangeAPIHeader, version), 0);
  CHECK_EQ(offsetof(DLPackExchangeAPIHeader, prev_api), 8);
  CHECK_EQ(sizeof(DLPackExchangeAPI), 56);
  CHECK_EQ(offsetof(DLPackExchangeAPI, header), 0);
  CHECK_EQ(offsetof(DLPackExchangeAPI, managed_tensor_allocator), 16);
  CHECK_EQ(offsetof(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync), 24);
  CHECK_EQ(offsetof(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync), 32);
  CHECK_EQ(offsetof(DLPackExchangeAPI, dltensor_from_py_object_no_sync), 40);
  CHECK_EQ(offsetof(DLPackExchangeAPI, current_work_stream), 48);
#endif
}

static void versioned_deleter(DLManagedTensorVersioned *self) { (void)self; }
static void legacy_deleter(DLManagedTensor *self) { (void)self; }

/* Write every field of a DLManagedTensorVersioned through the struct, then read the raw bytes at the
 * offsets the standard gives: this is what a producer compiled against another header sees. */
static void test_versioned_field_bytes(void) {
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
  if (!host_is_little_endian()) return;
  static int64_t shape[2] = {3, 4};
  static int64_t strides[2] = {4, 1};
  static float payload[12];
  int ctx_marker = 0;
  DLManagedTensorVersioned m;
  memset(&m, 0xA5, sizeof m); /* padding must not matter: every field is written below */
  m.version.major = 1;
  m.version.minor = 3;
  m.manager_ctx = &ctx_marker;
  m.deleter = versioned_deleter;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  m.dl_tensor.data = payload;
  m.dl_tensor.device.device_type = kDLCUDAManaged;
  m.dl_tensor.device.device_id = 7;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype.code = kDLFloat4_e2m1fn;
  m.dl_tensor.dtype.bits = 4;
  m.dl_tensor.dtype.lanes = 0x0102;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  m.dl_tensor.byte_offset = 0x1122334455667788u;

  const unsigned char *raw = (const unsigned char *)&m;
  CHECK_EQ(read_u32(raw, 0), 1);
  CHECK_EQ(read_u32(raw, 4), 3);
  CHECK(read_ptr(raw, 8) == (uintptr_t)&ctx_marker);
  {
    void (*fn)(DLManagedTensorVersioned *);
    memcpy(&fn, raw + 16, sizeof fn);
    CHECK(fn == versioned_deleter);
  }
  CHECK_EQ(read_u64(raw, 24), 5);
  CHECK(read_ptr(raw, 32) == (uintptr_t)payload);
  CHECK_EQ(read_u32(raw, 40), 13); /* kDLCUDAManaged as a 4-byte integer */
  CHECK_EQ(read_u32(raw, 44), 7);
  CHECK_EQ(read_u32(raw, 48), 2);
  CHECK_EQ(raw[52], 17);
  CHECK_EQ(raw[53], 4);
  CHECK_EQ(read_u16(raw, 54), 0x0102);
  CHECK_EQ(raw[54], 0x02); /* lanes is native (little) endian */
  CHECK(read_ptr(raw, 56) == (uintptr_t)shape);
  CHECK(read_ptr(raw, 64) == (uintptr_t)strides);
  CHECK(read_u64(raw, 72) == 0x1122334455667788u);

  /* And the other way round: bytes laid out by hand read back through the struct. */
  unsigned char buf[80];
  memset(buf, 0, sizeof buf);
  const uint32_t major = 1, minor = 2, dev_type = kDLROCMHost, ndim = 3;
  const int32_t dev_id = -1;
  const uint64_t flags = DLPACK_FLAG_BITMASK_IS_COPIED, offset = 256;
  memcpy(buf + 0, &major, 4);
  memcpy(buf + 4, &minor, 4);
  memcpy(buf + 24, &flags, 8);
  memcpy(buf + 40, &dev_type, 4);
  memcpy(buf + 44, &dev_id, 4);
  memcpy(buf + 48, &ndim, 4);
  buf[52] = kDLBfloat;
  buf[53] = 16;
  buf[54] = 4;
  memcpy(buf + 72, &offset, 8);
  DLManagedTensorVersioned back;
  memcpy(&back, buf, sizeof back);
  CHECK_EQ(back.version.major, 1);
  CHECK_EQ(back.version.minor, 2);
  CHECK_EQ(back.flags, DLPACK_FLAG_BITMASK_IS_COPIED);
  CHECK_EQ(back.dl_tensor.device.device_type, kDLROCMHost);
  CHECK_EQ(back.dl_tensor.device.device_id, -1);
  CHECK_EQ(back.dl_tensor.ndim, 3);
  CHECK_EQ(back.dl_tensor.dtype.code, kDLBfloat);
  CHECK_EQ(back.dl_tensor.dtype.bits, 16);
  CHECK_EQ(back.dl_tensor.dtype.lanes, 4);
  CHECK(back.dl_tensor.data == NULL && back.dl_tensor.shape == NULL && back.dl_tensor.strides == NULL);
  CHECK_EQ(back.dl_tensor.byte_offset, 256);
  CHECK(back.manager_ctx == NULL && back.deleter == NULL);
#endif
}

static void test_legacy_field_bytes(void) {
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
  if (!host_is_little_endian()) return;
  int ctx_marker = 0;
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 0;
  m.dl_tensor.dtype.code = kDLBool;
  m.dl_tensor.dtype.bits = 8;
  m.dl_tensor.dtype.lanes = 1;
  m.manager_ctx = &ctx_marker;
  m.deleter = legacy_deleter;
  const unsigned char *raw = (const unsigned char *)&m;
  CHECK_EQ(read_u32(raw, 8), 1);
  CHECK_EQ(raw[20], 6);
  CHECK_EQ(raw[21], 8);
  CHECK_EQ(read_u16(raw, 22), 1);
  CHECK(read_ptr(raw, 48) == (uintptr_t)&ctx_marker);
  void (*fn)(DLManagedTensor *);
  memcpy(&fn, raw + 56, sizeof fn);
  CHECK(fn == legacy_deleter);
#endif
}

static int fake_to_py(DLManagedTensorVersioned *tensor, void **out) {
  (void)tensor;
  *out = NULL;
  return 0;
}
static int fake_stream(DLDeviceType type, int32_t id, void **out) {
  (void)type;
  (void)id;
  *out = NULL;
  return 0;
}

/* An exchange table and its header chain, as a producer builds one: prev_api sits at byte 8. */
static void test_exchange_api_bytes(void) {
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
  if (!host_is_little_endian()) return;
  static DLPackExchangeAPI older;
  static DLPackExchangeAPI api;
  memset(&older, 0, sizeof older);
  memset(&api, 0, sizeof api);
  older.header.version.major = 0;
  older.header.version.minor = 9;
  api.header.version.major = DLPACK_MAJOR_VERSION;
  api.header.version.minor = DLPACK_MINOR_VERSION;
  api.header.prev_api = &older.header;
  api.managed_tensor_to_py_object_no_sync = fake_to_py;
  api.current_work_stream = fake_stream;
  const unsigned char *raw = (const unsigned char *)&api;
  CHECK_EQ(read_u32(raw, 0), 1);
  CHECK_EQ(read_u32(raw, 4), 3);
  CHECK(read_ptr(raw, 8) == (uintptr_t)&older.header);
  CHECK(read_ptr(raw, 16) == 0 && read_ptr(raw, 24) == 0 && read_ptr(raw, 40) == 0);
  {
    DLPackManagedTensorToPyObjectNoSync fn;
    memcpy(&fn, raw + 32, sizeof fn);
    CHECK(fn == fake_to_py);
  }
  {
    DLPackCurrentWorkStream fn;
    memcpy(&fn, raw + 48, sizeof fn);
    CHECK(fn == fake_stream);
  }
  /* Walking the chain for major 0 finds the older table through the header alone. */
  const DLPackExchangeAPIHeader *h = &api.header;
  while (h != NULL && h->version.major != 0) h = h->prev_api;
  CHECK(h == &older.header);
  CHECK((const void *)h == (const void *)&older); /* the header is the table's first member */
#endif
}

static const dlx_test_case cases[] = {
    {"version_macros", test_version_macros},
    {"own_declarations", test_own_declarations},
    {"device_types", test_device_types},
    {"type_codes", test_type_codes},
    {"dlx_codes_match_enumerators", test_dlx_codes_match_enumerators},
    {"dtype_constants", test_dtype_constants},
    {"flags", test_flags},
    {"sizes_and_offsets", test_sizes_and_offsets},
    {"versioned_field_bytes", test_versioned_field_bytes},
    {"legacy_field_bytes", test_legacy_field_bytes},
    {"exchange_api_bytes", test_exchange_api_bytes},
};
DLX_TEST_MAIN(cases)

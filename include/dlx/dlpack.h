/* dlx/dlpack.h - dlx's own declarations of the DLPack 1.3 C ABI.
 *
 * Written from the standard's facts (enum values, struct layouts); not a copy of the official header.
 * Coexistence with an official <dlpack/dlpack.h> in one translation unit:
 *  - official 1.x included first: its declarations are used, and this header only adds what an older
 *    1.x header lacks (the 1.3 C exchange API types) and checks the layouts below;
 *  - this header first: it defines the official include guard, so a later <dlpack/dlpack.h> is skipped
 *    and this header's complete 1.3 declarations stand in for it;
 *  - a pre-1.0 official header (no DLPACK_MAJOR_VERSION, no versioned tensors) is refused with #error.
 * dlx's own headers never name an enumerator that a 1.0 header might lack: they use numeric codes.
 * Thread safety: types and constants only; no dlx function is declared here. A managed tensor's deleter
 * may be called on any thread (dlx's own deleters need neither a lock nor the interpreter). */
#ifndef DLX_DLPACK_H
#define DLX_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#if defined(DLPACK_DLPACK_H_) && !defined(DLX_DLPACK_OWN_DECLARATIONS)
#if !defined(DLPACK_MAJOR_VERSION) || (DLPACK_MAJOR_VERSION < 1)
#error "dlx: a pre-1.0 <dlpack/dlpack.h> was included before <dlx/dlpack.h>; dlx needs DLPack >= 1.0 (versioned tensors). Include <dlx/dlpack.h> first or upgrade the DLPack header."
#endif
#define DLX_DLPACK_FOREIGN 1
#if DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION < 3
#define DLX_DLPACK_NEED_EXCHANGE_API 1
#endif
#else /* dlx provides the declarations */
#define DLX_DLPACK_OWN_DECLARATIONS 1
#define DLX_DLPACK_NEED_EXCHANGE_API 1
/* The official guard: a later #include <dlpack/dlpack.h> becomes a no-op instead of a redefinition. */
#define DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3
#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif
#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t major; /* a consumer seeing another major may only call the deleter */
  uint32_t minor; /* a newer minor only adds enum values */
} DLPackVersion;

typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3, /* pinned host memory (cudaMallocHost) */
  kDLOpenCL = 4,
  /* 5 and 6 are unused */
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14, /* SYCL USM */
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id; /* 0 for CPU, pinned and managed memory */
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U, /* bits count both parts */
  kDLBool = 6U,
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U
} DLDataTypeCode;

typedef struct {
  uint8_t code;   /* a DLDataTypeCode */
  uint8_t bits;   /* bits of one lane */
  uint16_t lanes; /* > 1 for vector types */
} DLDataType;

typedef struct {
  void *data;             /* NULL allowed when the tensor has no elements */
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;         /* may be NULL when ndim == 0 */
  int64_t *strides;       /* elements; NULL = row-major only before DLPack 1.2 */
  uint64_t byte_offset;   /* first element at (char *)data + byte_offset */
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self); /* may be NULL; frees the struct too */
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif
#endif /* own declarations */

#ifdef DLX_DLPACK_NEED_EXCHANGE_API
#undef DLX_DLPACK_NEED_EXCHANGE_API
#ifdef __cplusplus
extern "C" {
#endif
/* The DLPack 1.3 C exchange API. Every function returns 0 on success, -1 with a Python exception set. */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                            void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind,
                                                             const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id, void **out_current_stream);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor, void **out_py_object);

typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader *prev_api; /* walk until version.major matches */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* the only one that may be NULL */
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;
#ifdef __cplusplus
}
#endif
#endif

/* Layout checks: whichever header declared the types, the ABI must be the standard's. */
#ifdef __cplusplus
#define DLX_STATIC_ASSERT static_assert
#else
#define DLX_STATIC_ASSERT _Static_assert
#endif
DLX_STATIC_ASSERT(sizeof(DLPackVersion) == 8, "DLPackVersion is 8 bytes");
DLX_STATIC_ASSERT(sizeof(DLDeviceType) == 4, "DLDeviceType is a 4-byte enum");
DLX_STATIC_ASSERT(sizeof(DLDevice) == 8, "DLDevice is 8 bytes");
DLX_STATIC_ASSERT(sizeof(DLDataType) == 4, "DLDataType is 4 bytes");
DLX_STATIC_ASSERT(offsetof(DLDataType, bits) == 1 && offsetof(DLDataType, lanes) == 2, "DLDataType layout");
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
DLX_STATIC_ASSERT(sizeof(DLTensor) == 48, "DLTensor is 48 bytes on 64-bit targets");
DLX_STATIC_ASSERT(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 &&
                      offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
                      offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
                      offsetof(DLTensor, byte_offset) == 40,
                  "DLTensor field offsets");
DLX_STATIC_ASSERT(sizeof(DLManagedTensor) == 64, "DLManagedTensor is 64 bytes");
DLX_STATIC_ASSERT(offsetof(DLManagedTensor, manager_ctx) == 48 && offsetof(DLManagedTensor, deleter) == 56,
                  "DLManagedTensor field offsets");
DLX_STATIC_ASSERT(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned is 80 bytes");
DLX_STATIC_ASSERT(offsetof(DLManagedTensorVersioned, version) == 0 &&
                      offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                      offsetof(DLManagedTensorVersioned, deleter) == 16 &&
                      offsetof(DLManagedTensorVersioned, flags) == 24 &&
                      offsetof(DLManagedTensorVersioned, dl_tensor) == 32,
                  "DLManagedTensorVersioned field offsets");
DLX_STATIC_ASSERT(sizeof(DLPackExchangeAPIHeader) == 16, "DLPackExchangeAPIHeader is 16 bytes");
DLX_STATIC_ASSERT(sizeof(DLPackExchangeAPI) == 56, "DLPackExchangeAPI is 56 bytes");
#endif

/* dlx's names for the DLPack version it speaks, as a single comparable number. */
#define DLX_DLPACK_MAJOR 1
#define DLX_DLPACK_MINOR 3
#define DLX_DLPACK_VERSION_NUM(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
/* The version a legacy (unversioned) DLManagedTensor is taken to have: older than 1.2. */
#define DLX_DLPACK_VERSION_LEGACY DLX_DLPACK_VERSION_NUM(0, 0)

#endif /* DLX_DLPACK_H */

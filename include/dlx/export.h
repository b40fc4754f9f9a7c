/* dlx/export.h - symbol visibility for libdlx.
 * Thread safety: macros only; nothing here runs. */
#ifndef DLX_EXPORT_H
#define DLX_EXPORT_H
#if defined(_WIN32) && defined(DLX_SHARED)
#ifdef DLX_BUILDING
#define DLX_API __declspec(dllexport)
#else
#define DLX_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define DLX_API __attribute__((visibility("default")))
#else
#define DLX_API
#endif
/* Alignment of a struct member, in C11 and in C++11 alike. */
#ifdef __cplusplus
#define DLX_ALIGNAS(n) alignas(n)
#else
#define DLX_ALIGNAS(n) _Alignas(n)
#endif
#ifdef __cplusplus
#define DLX_EXTERN_C_BEGIN extern "C" {
#define DLX_EXTERN_C_END }
#else
#define DLX_EXTERN_C_BEGIN
#define DLX_EXTERN_C_END
#endif
#endif

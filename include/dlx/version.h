/* dlx/version.h - the library's own version. CMake and the Python build read it from here.
 *
 * The macros are the version of the headers a program was compiled with; dlx_version() is the version of
 * the library it runs with (as zstd's ZSTD_versionNumber), so a program can tell when the two differ.
 * Thread safety: macros, and two functions that only return constants. */
#ifndef DLX_VERSION_H
#define DLX_VERSION_H
#include "dlx/export.h"
#define DLX_VERSION_MAJOR 0
#define DLX_VERSION_MINOR 1
#define DLX_VERSION_PATCH 0
#define DLX_VERSION_STRING "0.1.0"
/* major * 10000 + minor * 100 + patch: 100 for 0.1.0 */
#define DLX_VERSION_NUMBER (DLX_VERSION_MAJOR * 10000 + DLX_VERSION_MINOR * 100 + DLX_VERSION_PATCH)
DLX_EXTERN_C_BEGIN
/* DLX_VERSION_NUMBER of the library loaded at run time (in libdlx_exchange, so every dlx program has it). */
DLX_API unsigned dlx_version(void);
/* DLX_VERSION_STRING of the library loaded at run time. */
DLX_API const char *dlx_version_string(void);
DLX_EXTERN_C_END
#endif

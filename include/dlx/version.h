/* dlx/version.h - the library's own version. CMake and the Python build read it from here.
 * Thread safety: macros only; nothing here runs. */
#ifndef DLX_VERSION_H
#define DLX_VERSION_H
#define DLX_VERSION_MAJOR 0
#define DLX_VERSION_MINOR 1
#define DLX_VERSION_PATCH 0
#define DLX_VERSION_STRING "0.1.0"
#endif

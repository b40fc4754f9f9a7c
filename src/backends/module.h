/* Internal: backends built as modules, loaded at run time (ggml's GGML_BACKEND_DL, sized for dlx).
 *
 * A module is a shared object holding one backend's halves (backend.h) and everything it needs but two
 * things it must share with the library that loads it (its host: libdlx.so, or a program or the Python
 * extension with dlx linked in): the thread's error message, and the host's dlx_copy (staging copies
 * that run through the host's compute layer). The host hands both over at load time (dlx__module_host);
 * the module exports one symbol, DLX__MODULE_ENTRY, and nothing else (a version script keeps its private
 * copies of core code local). So one module serves a static program and a shared library alike, and a
 * CPU-only install never builds, ships or loads it.
 *
 * Where it is looked for: DLX_<NAME>_MODULE when set (an absolute path), else the module's file name
 * next to the host's own file (dladdr of the host's code). Never the current directory, never a
 * relative path. A module whose ABI differs from the host's is refused, naming both versions. */
#ifndef DLX_BACKENDS_MODULE_H
#define DLX_BACKENDS_MODULE_H

#include <pthread.h>
#include <stdint.h>

#include "backends/backend.h"

/* Bumped whenever backend.h's tables, kernels/ew.h's dlx__ew_op or the two structs below change. */
#define DLX__MODULE_ABI 1
/* The one symbol a module exports: a function taking the host's services, returning its info. */
#define DLX__MODULE_ENTRY "dlx_backend_module"

typedef struct dlx__module_host {
  uint32_t abi;        /* DLX__MODULE_ABI of the host */
  const char *version; /* DLX_VERSION_STRING of the host */
  /* The host's dlx_set_error: the message a caller reads with dlx_last_error(). */
  dlx_status (*set_error)(dlx_status status, const char *fmt, ...);
  /* The host's dlx_copy. */
  dlx_status (*copy)(const dlx_view *dst, const dlx_view *src);
} dlx__module_host;

typedef struct dlx__module_info {
  uint32_t abi;        /* DLX__MODULE_ABI the module was built with */
  const char *version; /* its DLX_VERSION_STRING */
  const dlx__backend *backend;
} dlx__module_info;

typedef const dlx__module_info *(*dlx__module_entry_fn)(const dlx__module_host *host);

/* What loading a module found (module.c; one per module, loaded once). */
typedef struct dlx__module_state {
  pthread_mutex_t lock;
  const dlx__backend *_Atomic backend; /* set once loaded */
  _Atomic int tried;
  char path[1024]; /* where it was loaded from, or looked for */
  char why[2048];  /* why it is not loaded */
} dlx__module_state;

/* One module a row may need (backend.c). */
typedef struct dlx__module {
  const char *file;  /* "libdlx_cuda.so" */
  const char *env;   /* "DLX_CUDA_MODULE" */
  const char *label; /* "CUDA", for messages */
  dlx__module_state *state;
} dlx__module;

/* The module's backend, loading it at the first call (once per process; thread-safe); NULL when it
 * cannot be loaded, dlx__module_why then saying why (which file, where it was looked for, what failed). */
const dlx__backend *dlx__module_backend(const dlx__module *m);
const char *dlx__module_why(const dlx__module *m);
/* Whether a load was tried yet (tests: a module loads on first device use, not before). */
int dlx__module_tried(const dlx__module *m);
/* The path it was loaded from, or "" when not loaded. */
const char *dlx__module_path(const dlx__module *m);

/* The CUDA backend's module (backend.c's CUDA rows). */
extern const dlx__module dlx__cuda_module;

#endif

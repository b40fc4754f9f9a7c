/* Loading backend modules (module.h): find the file, dlopen it, check its ABI, keep its backend. */
#define _GNU_SOURCE /* dladdr */
#include "backends/module.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "dlx/version.h"

/* The file of the code running this: libdlx.so, or the program or extension dlx is linked into. "" when it
 * is unknown or not an absolute path (a module is never looked for relative to the current directory). */
static void host_file(char *out, size_t cap) {
  Dl_info info;
  out[0] = '\0';
  if (dladdr((const void *)(uintptr_t)&host_file, &info) == 0 || info.dli_fname == NULL) return;
  if (info.dli_fname[0] != '/') return;
  snprintf(out, cap, "%s", info.dli_fname);
}

/* Where m's file is looked for: m->env when set (an absolute path), else beside the host's own file.
 * 0, or -1 with st->why saying why there is no place to look. */
static int module_path(const dlx__module *m, dlx__module_state *st) {
  const char *env = getenv(m->env);
  if (env != NULL && env[0] != '\0') {
    if (env[0] != '/') {
      snprintf(st->why, sizeof st->why, "%s=%.400s is not an absolute path (a module is never looked for relative to the "
               "current directory)", m->env, env);
      return -1;
    }
    snprintf(st->path, sizeof st->path, "%s", env);
    return 0;
  }
  char host[1024];
  host_file(host, sizeof host);
  char *slash = strrchr(host, '/');
  if (slash == NULL) {
    snprintf(st->why, sizeof st->why, "%s is looked for beside dlx's own file, whose location is unknown here; set %s "
             "to its absolute path", m->file, m->env);
    return -1;
  }
  *slash = '\0';
  snprintf(st->path, sizeof st->path, "%s/%s", host, m->file);
  return 0;
}

static dlx_status host_copy(const dlx_view *dst, const dlx_view *src) { return dlx_copy(dst, src); }

static const dlx__module_host host = {DLX__MODULE_ABI, DLX_VERSION_STRING, dlx_set_error, host_copy};

/* Load m (called once, under its lock). */
static void load(const dlx__module *m, dlx__module_state *st) {
  if (module_path(m, st) != 0) return;
  if (access(st->path, F_OK) != 0) {
    snprintf(st->why, sizeof st->why, "the %s backend module is not installed (no %s; %s names another path)",
             m->label, st->path, m->env);
    return;
  }
  void *h = dlopen(st->path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(st->why, sizeof st->why, "the %s backend module %s could not be loaded: %.400s", m->label, st->path,
             e != NULL ? e : "dlopen failed");
    return;
  }
  dlx__module_entry_fn entry;
  void *sym = dlsym(h, DLX__MODULE_ENTRY);
  memcpy(&entry, &sym, sizeof entry); /* object pointer to function pointer, as POSIX dlsym requires */
  const dlx__module_info *info = entry != NULL ? entry(&host) : NULL;
  if (info == NULL) {
    snprintf(st->why, sizeof st->why, "%s is no dlx backend module (no %s)", st->path, DLX__MODULE_ENTRY);
    dlclose(h);
    return;
  }
  if (info->abi != DLX__MODULE_ABI || info->backend == NULL) {
    snprintf(st->why, sizeof st->why, "the %s backend module %s was built for module ABI %u (dlx %.40s), but this dlx "
             "has ABI %u (dlx %s): rebuild the module with this dlx", m->label, st->path, (unsigned)info->abi,
             info->version != NULL ? info->version : "?", (unsigned)DLX__MODULE_ABI, DLX_VERSION_STRING);
    dlclose(h);
    return;
  }
  /* kept loaded for the life of the process: kernels and callbacks of the module may still run at exit */
  atomic_store_explicit(&st->backend, info->backend, memory_order_release);
}

const dlx__backend *dlx__module_backend(const dlx__module *m) {
  dlx__module_state *st = m->state;
  const dlx__backend *b = atomic_load_explicit(&st->backend, memory_order_acquire);
  if (b != NULL || atomic_load_explicit(&st->tried, memory_order_acquire)) return b;
  pthread_mutex_lock(&st->lock);
  if (!atomic_load_explicit(&st->tried, memory_order_relaxed)) {
    load(m, st);
    atomic_store_explicit(&st->tried, 1, memory_order_release);
  }
  pthread_mutex_unlock(&st->lock);
  return atomic_load_explicit(&st->backend, memory_order_acquire);
}

const char *dlx__module_why(const dlx__module *m) {
  return dlx__module_backend(m) != NULL ? "" : m->state->why;
}

int dlx__module_tried(const dlx__module *m) { return atomic_load_explicit(&m->state->tried, memory_order_acquire); }

const char *dlx__module_path(const dlx__module *m) { return dlx__module_backend(m) != NULL ? m->state->path : ""; }

static dlx__module_state cuda_state = {.lock = PTHREAD_MUTEX_INITIALIZER};
const dlx__module dlx__cuda_module = {"libdlx_cuda.so", "DLX_CUDA_MODULE", "CUDA", &cuda_state};

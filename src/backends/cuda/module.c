/* The CUDA backend as a module (backends/module.h): the one exported entry, and the two services the module
 * takes from its host instead of keeping its own. Linked only into libdlx_cuda.so, beside private copies of
 * the core code the backend calls (views, dtypes, layouts, formatting, the kernel dtype index), which a
 * version script keeps local: the module exports DLX__MODULE_ENTRY and nothing else. */
#include <stdarg.h>
#include <stdio.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/module.h"
#include "core/error_internal.h"
#include "dlx/ops.h"
#include "dlx/version.h"

static const dlx__module_host *host;

/* The module's own code and its copies of core code report errors here: the host keeps the thread's
 * message, so that its dlx_last_error() says what failed inside the module. */
dlx_status dlx_set_error(dlx_status status, const char *fmt, ...) {
  if (host == NULL) return status;
  if (fmt == NULL) return host->set_error(status, NULL);
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return host->set_error(status, "%s", text);
}

void dlx_clear_error(void) {
  if (host != NULL) (void)host->set_error(DLX_OK, NULL);
}

/* Staging copies run through the host's compute layer (its CPU loops, and this backend again through the
 * host's rows). */
dlx_status dlx_copy(const dlx_view *dst, const dlx_view *src) {
  if (host == NULL) return DLX_ERR_BACKEND;
  return host->copy(dst, src);
}

__attribute__((visibility("default"))) const dlx__module_info *dlx_backend_module(const dlx__module_host *h);

const dlx__module_info *dlx_backend_module(const dlx__module_host *h) {
  static const dlx__module_info info = {DLX__MODULE_ABI, DLX_VERSION_STRING, &dlx__cuda_backend};
  /* a host of another ABI is refused by the host itself (it reads info first); its table is not used */
  if (h != NULL && h->abi == DLX__MODULE_ABI) host = h;
  return &info;
}

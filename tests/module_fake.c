/* A stand-in for a backend module, for tests/test_module.c: built once with an ABI that is not dlx's
 * (FAKE_ABI), and once without the entry point at all (FAKE_NO_ENTRY). */
#include "backends/module.h"

#ifndef FAKE_NO_ENTRY
__attribute__((visibility("default"))) const dlx__module_info *dlx_backend_module(const dlx__module_host *host);

const dlx__module_info *dlx_backend_module(const dlx__module_host *host) {
  (void)host;
  static const dlx__module_info info = {FAKE_ABI, "0.0.0-fake", NULL};
  return &info;
}
#else
__attribute__((visibility("default"))) int dlx_fake_module_without_entry(void);
int dlx_fake_module_without_entry(void) { return 0; }
#endif

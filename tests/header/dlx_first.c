/* tests/header/dlx_first.c - dlx first, then an official <dlpack/dlpack.h> (compile-only check).
 * dlx claims the official include guard, so the later header is skipped whatever its version. */
#include "dlx/dlx.h"

#include <dlpack/dlpack.h>

#if !defined(DLX_DLPACK_OWN_DECLARATIONS) || defined(DLX_DLPACK_FOREIGN)
#error "dlx should keep its own declarations when it comes first"
#endif

#include "coexist_body.h"

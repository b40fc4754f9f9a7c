/* tests/header/official_first.c - an official DLPack 1.x header first, then dlx (compile-only check).
 * With a pre-1.0 official header this TU must fail with dlx's "pre-1.0" #error. */
#include <dlpack/dlpack.h>

#include "dlx/dlx.h"

#if !defined(DLX_DLPACK_FOREIGN) || defined(DLX_DLPACK_OWN_DECLARATIONS)
#error "dlx should use the official declarations when they come first"
#endif

#include "coexist_body.h"

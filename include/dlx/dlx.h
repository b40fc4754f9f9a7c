/* dlx/dlx.h - the whole C core of dlx in one include.
 * Thread safety: as each included header states (every one is reentrant; errors are per thread). */
#ifndef DLX_DLX_H
#define DLX_DLX_H
#include "dlx/check.h"
#include "dlx/cuda.h"
#include "dlx/dlpack.h"
#include "dlx/dtype.h"
#include "dlx/dynlayout.h"
#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/layout.h"
#include "dlx/oneapi.h"
#include "dlx/ops.h"
#include "dlx/tensor.h"
#include "dlx/version.h"
#include "dlx/view.h"
#include "dlx/viewops.h"
/* dlx/python.h is for CPython extensions: it needs Python.h first, so it is included on its own. */
#endif

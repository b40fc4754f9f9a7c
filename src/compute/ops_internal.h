/* Internal to the compute layer: the checks and view helpers every op shares (ops.c), for the other ops
 * of the layer (reduce.c, gather.c). */
#ifndef DLX_COMPUTE_OPS_INTERNAL_H
#define DLX_COMPUTE_OPS_INTERNAL_H

#include "dlx/error.h"
#include "dlx/view.h"

/* What every operand must satisfy: a rank in [0, DLX_MAX_NDIM], a legal dtype, no negative extent, a
 * device this build computes on, data unless empty. fn and name: the message's function and operand. */
dlx_status dlx__ops_check_view(const char *fn, const char *name, const dlx_view *v);
/* What an output must satisfy besides: writable, and no zero stride on an extent above 1 (several
 * elements at one address: the result would depend on the write order). */
dlx_status dlx__ops_check_output(const char *fn, const char *name, const dlx_view *v);
/* Copy a view's header and its first ndim extents and strides: a dlx_view holds 64 of each (1 KiB), and
 * small ops would otherwise spend most of their time moving unused entries. */
void dlx__ops_view_copy(dlx_view *dst, const dlx_view *src);

#endif

/* Internal to the compute layer: the operand checks every op shares (ops.c), for the ops written in other
 * files of the layer (gather.c). */
#ifndef DLX_COMPUTE_OPS_INTERNAL_H
#define DLX_COMPUTE_OPS_INTERNAL_H

#include "dlx/error.h"
#include "dlx/view.h"

/* What every operand must satisfy: a rank in [0, DLX_MAX_NDIM], a legal dtype, no negative extent, memory
 * of a backend this build has, data when it has elements. fn and name are the message's. */
dlx_status dlx__ops_check_operand(const char *fn, const char *name, const dlx_view *v);
/* What a written operand must satisfy besides: not read-only, no zero stride over several elements. */
dlx_status dlx__ops_check_output(const char *fn, const char *name, const dlx_view *v);

#endif

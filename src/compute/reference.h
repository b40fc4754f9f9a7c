/* Internal to the compute layer: the reference path (compute/reference.c), which tests compare every
 * backend with. */
#ifndef DLX_COMPUTE_REFERENCE_H
#define DLX_COMPUTE_REFERENCE_H

#include <stdbool.h>

#include "kernels/ew.h"
#include "kernels/reduce.h"

struct dlx__gather_op;

/* Run op element by element over the views (views[0] the output, then nin inputs, broadcast to it,
 * packed sub-byte operands read and written by bit position): a plain N-d index walk, no plan, no
 * backend, no threads. Host-accessible memory only; the caller checked everything. */
void dlx__ref_run(const dlx__ew_op *op, const dlx_view *const *views);

/* A gather or scatter (backends/backend.h) element by element over dense's N-d index, position by
 * position as the offsets give them: no plan, no backend. Host-accessible memory only. */
void dlx__ref_gather(const struct dlx__gather_op *op);
/* Run reduction op (planned, for its dtypes and counts) element by element from the views themselves (out,
 * in and the reduced axes mask[in->ndim]): each output's elements gathered in the reduced row-major order
 * and combined by kernels/reduce.h's tree written as its recursive definition (compute/reduce_reference.c),
 * with no plan, no threads, no vectors. Host-accessible memory only. */
void dlx__red_ref_run(const dlx__red_op *op, const dlx_view *out, const dlx_view *in, const bool *mask, int keepdims);

/* Route every op of the calling thread through dlx__ref_run, so that tests can compare it with the
 * backends. Returns the previous setting. */
bool dlx__ops_set_reference(bool on);
/* Whether the calling thread is in reference mode. */
bool dlx__ops_reference_mode(void);

#endif

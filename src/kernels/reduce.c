/* The accumulation kinds of reductions (kernels/reduce.h): which type each op converts elements to and
 * combines in, and which conversions the kernels make themselves. */
#include "kernels/reduce.h"

/* The kind values of kernel dtype k compare in (argmin, argmax, min, max): signed integers as int64,
 * unsigned integers and bool (0 or 1) as uint64, floats and complex as themselves, narrow floats by
 * their float32 values. */
static dlx__kd compare_kind(dlx__kd k) {
  if (k >= DLX_KD_I8 && k <= DLX_KD_I64) return DLX_KD_I64;
  if (k == DLX_KD_BOOL || (k >= DLX_KD_U8 && k <= DLX_KD_U64)) return DLX_KD_U64;
  if (k >= DLX_KD_F16) return DLX_KD_F32;
  return k;
}

dlx__kd dlx__red_acc(dlx_reduce_op op, DLDataType in, DLDataType out) {
  const dlx__kd s = dlx__kd_of(in), d = dlx__kd_of(out);
  switch (op) {
    case DLX_REDUCE_ANY:
    case DLX_REDUCE_ALL: return DLX_KD_BOOL;
    case DLX_REDUCE_ARGMIN:
    case DLX_REDUCE_ARGMAX: return compare_kind(s);
    case DLX_REDUCE_MIN:
    case DLX_REDUCE_MAX: return d >= DLX_KD_F16 ? d : compare_kind(d);
    default: break;
  }
  /* sum, prod, mean: in D's family, 64-bit for integers, float32 for the narrow floats */
  if (d == DLX_KD_BOOL) return DLX_KD_BOOL;
  if (d >= DLX_KD_I8 && d <= DLX_KD_I64) return DLX_KD_I64;
  if (d >= DLX_KD_U8 && d <= DLX_KD_U64) return DLX_KD_U64;
  if (d >= DLX_KD_F16) return DLX_KD_F32;
  return d;
}

bool dlx__red_direct(dlx_reduce_op op, DLDataType in, DLDataType out) {
  const dlx__kd s = dlx__kd_of(in), d = dlx__kd_of(out);
  /* argmin, argmax, any and all read the input as it is; so does everything of the input's own dtype */
  if (dlx__red_is_arg(op) || op == DLX_REDUCE_ANY || op == DLX_REDUCE_ALL || s == d) return true;
  if (dlx__red_is_select(op)) return false;
  const bool s_native = dlx__kd_is_native(s);
  /* S -> D -> A is then one conversion S -> A: integers (bool included) into int64 / uint64 are C's
   * conversion either way; any native number into a float or complex D is one cast; a narrow float into
   * float32 / float64 is its exact decoding */
  if ((d == DLX_KD_I64 || d == DLX_KD_U64) && s_native && s <= DLX_KD_U64) return true;
  if (d >= DLX_KD_F32 && d <= DLX_KD_C128 && s_native) return true;
  return !s_native && (d == DLX_KD_F32 || d == DLX_KD_F64);
}

int64_t dlx__red_scratch_slots(int64_t nout, int64_t nblocks) {
  int64_t total = 0;
  for (int64_t n = nblocks; n > 1; n = (n + DLX__RED_BLOCK - 1) / DLX__RED_BLOCK) total += nout * n;
  return total;
}

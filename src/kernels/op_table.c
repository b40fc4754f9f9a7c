/* The run-time facts of op_table.h's rows: names, classes, results, how narrow floats compute them. */
#include "kernels/op_table.h"

#include "kernels/ew.h"

#define KIND_(k) DLX__KIND_##k
#define NAR_(n) DLX__NAR_##n
#define PY_(p) DLX__PY_##p
#define RES_SAME false
#define RES_BOOL true
#define SWAP_NONE (-1)
#define SWAP_(s) SWAP_##s
#define SWAP_LT DLX_OP_LT
#define SWAP_LE DLX_OP_LE
#define SWAP_GT DLX_OP_GT
#define SWAP_GE DLX_OP_GE
#define SWAP_EQ DLX_OP_EQ
#define SWAP_NE DLX_OP_NE

#define UN_INFO_(A, op, E, np, k, c, r, n, p) \
  [DLX_UNOP_##E] = {#op, #np, KIND_(k), DLX__CLS_##c, RES_##r, NAR_(n), PY_(p), -1},
#define BIN_INFO_(A, op, E, np, k, c, r, n, p, s) \
  [DLX_OP_##E] = {#op, #np, KIND_(k), DLX__CLS_##c, RES_##r, NAR_(n), PY_(p), SWAP_(s)},
#define TER_INFO_(A, op, E, np, k, c) [DLX_TERNOP_##E] = {#op, #np, KIND_(k), DLX__CLS_##c, false, DLX__NAR_F32, DLX__PY_LOOP, -1},

const dlx__op_info dlx__unop_info[DLX_UNOP_COUNT] = {DLX__UNOP_TABLE(UN_INFO_, _)};
const dlx__op_info dlx__binop_info[DLX_OP_COUNT] = {DLX__BINOP_TABLE(BIN_INFO_, _)};
const dlx__op_info dlx__ternop_info[DLX_TERNOP_COUNT] = {DLX__TERNOP_TABLE(TER_INFO_, _)};

unsigned dlx__kd_category(int kd) {
  switch (kd) {
    case DLX_KD_BOOL: return DLX__CAT_BOOL;
    case DLX_KD_I8:
    case DLX_KD_I16:
    case DLX_KD_I32:
    case DLX_KD_I64: return DLX__CAT_SINT;
    case DLX_KD_U8:
    case DLX_KD_U16:
    case DLX_KD_U32:
    case DLX_KD_U64: return DLX__CAT_UINT;
    case DLX_KD_C64:
    case DLX_KD_C128: return DLX__CAT_CPLX;
    default: return kd >= DLX_KD_F32 && kd < DLX_KD_COUNT && !dlx__kd_is_subbyte((dlx__kd)kd) ? DLX__CAT_REAL : 0u;
  }
}

/* The kernel dtype index (kernels/ew.h): which typed kernel family a DLPack dtype computes with. Every
 * backend's loop tables and the reference path index by it. */
#include "kernels/ew.h"

#include "dlx/dtype.h"

dlx__kd dlx__kd_of(DLDataType dt) {
  if (dt.lanes != 1 || !dlx_dtype_is_valid(dt)) return DLX_KD_NONE;
  switch (dt.code) {
    case DLX_CODE_BOOL: return DLX_KD_BOOL;
    case DLX_CODE_INT:
      switch (dt.bits) {
        case 8: return DLX_KD_I8;
        case 16: return DLX_KD_I16;
        case 32: return DLX_KD_I32;
        case 64: return DLX_KD_I64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_UINT:
      switch (dt.bits) {
        case 8: return DLX_KD_U8;
        case 16: return DLX_KD_U16;
        case 32: return DLX_KD_U32;
        case 64: return DLX_KD_U64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_FLOAT:
      switch (dt.bits) {
        case 16: return DLX_KD_F16;
        case 32: return DLX_KD_F32;
        case 64: return DLX_KD_F64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_BFLOAT: return DLX_KD_BF16;
    case DLX_CODE_COMPLEX:
      switch (dt.bits) {
        case 64: return DLX_KD_C64;
        case 128: return DLX_KD_C128;
        default: return DLX_KD_NONE;
      }
    default:
      if (dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT4_E2M1FN)
        return (dlx__kd)(DLX_KD_F8_E3M4 + (dt.code - DLX_CODE_FLOAT8_E3M4));
      return DLX_KD_NONE;
  }
}

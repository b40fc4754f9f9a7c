/* Internal to the CPU backend: what its files share beyond the loops (loops.h). */
#ifndef DLX_BACKENDS_CPU_CPU_H
#define DLX_BACKENDS_CPU_CPU_H

#include "backends/backend.h"

/* The gemm entry of dlx__cpu_backend (gemm_cblas.c): CBLAS, or DLX_ERR_UNSUPPORTED without it. */
dlx_status dlx__cpu_gemm(const dlx_gemm_call *call);

#endif

/* The reduction loops (loops_reduce_body.h) for level 1: AVX2 + F16C + FMA; dispatch.c picks a level at run time (target.h). */
#define DLX_CPU_LEVEL 1
#include "backends/cpu/loops_reduce_body.h"

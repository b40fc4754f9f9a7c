/* The narrow loops (loops_narrow_body.h) for level 1: AVX2 + F16C + FMA; dispatch.c picks a level at run time (target.h). */
#define DLX_CPU_LEVEL 1
#include "backends/cpu/loops_narrow_body.h"

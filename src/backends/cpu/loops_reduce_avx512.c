/* The reduction loops (loops_reduce_body.h) for level 2: AVX-512 F/BW/VL/DQ; dispatch.c picks a level at run time (target.h). */
#define DLX_CPU_LEVEL 2
#include "backends/cpu/loops_reduce_body.h"

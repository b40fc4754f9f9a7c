/* The reduction loops (loops_reduce_body.h) for the baseline level (the compiler's default target: SSE2 on x86-64); dispatch.c picks a level at run time (target.h). */
#define DLX_CPU_LEVEL 0
#include "backends/cpu/loops_reduce_body.h"

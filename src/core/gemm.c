/* src/core/gemm.c: being written (see include/dlx/). */

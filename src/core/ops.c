/* src/core/ops.c: being written (see include/dlx/). */

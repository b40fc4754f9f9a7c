/* src/core/tensor.c: being written (see include/dlx/). */

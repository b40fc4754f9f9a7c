/* src/core/convert.c: being written (see include/dlx/). */

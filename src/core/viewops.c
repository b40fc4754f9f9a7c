/* src/core/viewops.c: being written (see include/dlx/). */

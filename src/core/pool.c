/* src/core/pool.c: being written (see include/dlx/). */

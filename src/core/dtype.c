/* src/core/dtype.c: see include/dlx/ */

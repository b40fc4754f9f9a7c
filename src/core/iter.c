/* src/core/iter.c: see include/dlx/ */

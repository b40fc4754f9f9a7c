/* src/core/layout.c: see include/dlx/ */

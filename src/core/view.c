/* src/core/view.c: see include/dlx/ */

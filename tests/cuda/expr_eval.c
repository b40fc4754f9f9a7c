/* The C side of the CUDA expression test: the rules as the library's C compiler builds them. */
#include "cuda/expr_eval.h"

size_t dlx_expr_eval_c(double a, double b, double s, unsigned char *out);
size_t dlx_expr_eval_c(double a, double b, double s, unsigned char *out) { return dlx_expr_eval_pair(a, b, s, out); }

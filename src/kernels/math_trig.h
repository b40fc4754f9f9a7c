/* Internal: sin and cos, per-element rules (see kernels/math_common.h for the contract).
 *
 * float32 (dlx__wide_sin, dlx__wide_cos): one branch-free method for every input, so that the CPU loops
 * vectorise (the selects below become blends), and a first try in plain double for |x| < 2^15
 * (dlx__sinf_try below, math_common.h), which the CPU loops take wherever its rounding is certain.
 *  1. Reduction to quarter turns: |x| = m 2^E (m the 24-bit integer significand). Since m is an integer,
 *     m (2^E 2/pi) = m f_E (mod 4) with f_E = 2^E 2/pi mod 4, which the table holds per exponent in five
 *     pieces of 24 bits (on the grids 2^-22, 2^-46, ... 2^-118): every product m c_i is exact in double,
 *     the first two sums are exact too (see dlx__trig_reduce_f32), and the rest is a double-double
 *     sum. This is Payne-Hanek's method with the bits of 2/pi pre-shifted per exponent; the result is
 *     the quadrant q and r = x 2/pi - k in [-1/2, 1/2] (plus 2^-22) as rh + rl, absolute error below
 *     2^-93 (the truncated tail of 2/pi times m), relative error below 2^-63 since no float32 x >= 1/2 has
 *     |r| below 2^-29.86 (at x = 0x1.f37c8ap+95: dev_trig.c's minr scans all of them). |x| < 1/2 takes
 *     r = x 2/pi in double-double (2/pi in a 29-bit and a 53-bit part), q = 0.
 *  2. sin(pi/2 r) = (pi/2) r + r u P(u) and cos(pi/2 r) = 1 - (pi r)^2/8 + u^2 Q(u), u = r^2, both
 *     computed (one is selected by the quadrant), near-minimax polynomials (Chebyshev fits, approximation
 *     error below 2^-57 relative); the leading terms are computed exactly or nearly (Dekker's splitting,
 *     no FMA) so that the rounding errors left are those of the smaller terms: below 2^-53.5 relative
 *     (the largest seen by dev_trig.c's relerr, 2^-53.6 over 3e5 random inputs).
 *  3. The double-double result is rounded to double by round-to-odd (a sticky last bit when inexact), so
 *     that the caller's one rounding to float32 or any narrower format is the rounding of the double-double
 *     value (Boldo and Melquiond: rounding to odd at 53 bits, then to nearest at p <= 51 bits, is rounding
 *     to nearest once).
 *     The float32 results round twice instead, with three exceptions (dlx__trig_f32_plain).
 *  The odd-rounded result needs no exception: dev_trig.c's near mode decides with MPFR every input whose
 *  double lies within 2^-48 of a float32 rounding boundary (111 for sin, 120 for cos), and all come out
 *  right; its f32 and f32fast modes compare all 2^32 inputs with an oracle. (An earlier version, with a
 *  2^-52.7 error in cos, got cos(0x1.887814p+51), 2^-55.5 below a midpoint, wrong.)
 *
 * float64 (dlx__sin, dlx__cos): Cody-Waite reduction in radians with pi/2 in three 33-bit parts and a
 * fourth for |x| < 2^20, Payne-Hanek with 1248 bits of 2/pi in 24-bit chunks above (a branch: such inputs
 * are rare); then sin/cos polynomials in radians, evaluated in double with the leading terms compensated.
 * Deterministic (no FMA, same operations everywhere); at most 0.78 ulp measured (dev_trig.c f64, 10^7 inputs). */
#ifndef DLX_KERNELS_MATH_TRIG_H
#define DLX_KERNELS_MATH_TRIG_H

#include <math.h> /* fabs */

#include "kernels/math_common.h"

/* The rules below are large for GCC's inliner, which then calls them from the CPU loops, and a loop
 * with a call does not vectorise: force them inline (nvcc inlines device functions by itself). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define DLX_TRIG_FN DLX_MATH __attribute__((always_inline))
#else
#define DLX_TRIG_FN DLX_MATH
#endif

/* f_E = 2^E 2/pi mod 4 in five 24-bit pieces, for the biased exponents 126..254 (E = e - 150) */
#define DLX_TRIG_F32_2OPI_VALUES \
  { \
    0x0p+0, 0x1.45f3p-25, 0x1.b72722p-47, 0x1.529fcp-76, 0x1.3abe8p-99, \
    0x0p+0, 0x1.45f304p-24, 0x1.6e4e44p-47, 0x1.529fcp-75, 0x1.3abe8p-98, \
    0x0p+0, 0x1.45f306p-23, 0x1.b9391p-48, 0x1.529fcp-74, 0x1.3abe88p-97, \
    0x1p-22, 0x1.17cc18p-24, 0x1.b9391p-47, 0x1.529fcp-73, 0x1.3abe8cp-96, \
    0x1p-21, 0x1.17cc1ap-23, 0x1.72722p-47, 0x1.529fcp-72, 0x1.3abe8ep-95, \
    0x1.4p-20, 0x1.7cc1bp-26, 0x1.c9c88p-48, 0x1.529fc2p-71, 0x1.d5f478p-97, \
    0x1.4p-19, 0x1.7cc1bp-25, 0x1.c9c882p-47, 0x1.4a7f08p-72, 0x1.d5f47cp-96, \
    0x1.4p-18, 0x1.7cc1b4p-24, 0x1.939104p-47, 0x1.4a7f08p-71, 0x1.d5f47cp-95, \
    0x1.4p-17, 0x1.7cc1b6p-23, 0x1.27220ap-47, 0x1.29fc24p-72, 0x1.abe8fap-95, \
    0x1.44p-16, 0x1.f306dcp-24, 0x1.39105p-49, 0x1.29fc26p-71, 0x1.57d1f4p-95, \
    0x1.44p-15, 0x1.f306dcp-23, 0x1.391054p-48, 0x1.4fe138p-73, 0x1.5f47d4p-96, \
    0x1.45p-14, 0x1.e60db8p-23, 0x1.391054p-47, 0x1.4fe138p-72, 0x1.5f47d4p-95, \
    0x1.458p-13, 0x1.cc1b72p-23, 0x1.c882ap-49, 0x1.4fe13ap-71, 0x1.7d1f5p-96, \
    0x1.45cp-12, 0x1.9836e4p-23, 0x1.c882a4p-48, 0x1.3f84e8p-72, 0x1.7d1f52p-95, \
    0x1.45ep-11, 0x1.306dc8p-23, 0x1.c882a4p-47, 0x1.3f84eap-71, 0x1.f47d4cp-96, \
    0x1.45fp-10, 0x1.836e48p-25, 0x1.91054ap-47, 0x1.fc275p-73, 0x1.f47d4cp-95, \
    0x1.45fp-9, 0x1.836e4cp-24, 0x1.220a94p-47, 0x1.fc2754p-72, 0x1.e8fa9ap-95, \
    0x1.45fp-8, 0x1.836e4ep-23, 0x1.1054ap-49, 0x1.fc2756p-71, 0x1.d1f534p-95, \
    0x1.45f2p-7, 0x1.06dc9cp-23, 0x1.1054a4p-48, 0x1.f84eaep-71, 0x1.a3ea68p-95, \
    0x1.45f3p-6, 0x1.b727p-28, 0x1.1054a6p-47, 0x1.f09d5ep-71, 0x1.47d4d2p-95, \
    0x1.45f3p-5, 0x1.b7272p-27, 0x1.054a7p-50, 0x1.e13abep-71, 0x1.1f534cp-96, \
    0x1.45f3p-4, 0x1.b7272p-26, 0x1.054a78p-49, 0x1.c2757cp-71, 0x1.1f534cp-95, \
    0x1.45f3p-3, 0x1.b7272p-25, 0x1.054a7cp-48, 0x1.84eafap-71, 0x1.f534dp-98, \
    0x1.45f3p-2, 0x1.b7272p-24, 0x1.054a7ep-47, 0x1.09d5f4p-71, 0x1.f534d8p-97, \
    0x1.45f3p-1, 0x1.b72722p-23, 0x1.529fcp-52, 0x1.3abe8p-75, 0x1.f534dcp-96, \
    0x1.45f304p+0, 0x1.6e4e44p-23, 0x1.529fcp-51, 0x1.3abe8p-74, 0x1.f534dcp-95, \
    0x1.45f306p+1, 0x1.b9391p-24, 0x1.529fcp-50, 0x1.3abe88p-73, 0x1.ea69bap-95, \
    0x1.17cc18p+0, 0x1.b9391p-23, 0x1.529fcp-49, 0x1.3abe8cp-72, 0x1.d4d376p-95, \
    0x1.17cc1ap+1, 0x1.72722p-23, 0x1.529fcp-48, 0x1.3abe8ep-71, 0x1.a9a6eep-95, \
    0x1.7cc1bp-2, 0x1.c9c88p-24, 0x1.529fc2p-47, 0x1.d5f478p-73, 0x1.534ddcp-95, \
    0x1.7cc1bp-1, 0x1.c9c882p-23, 0x1.4a7f08p-48, 0x1.d5f47cp-72, 0x1.4d377p-96, \
    0x1.7cc1b4p+0, 0x1.939104p-23, 0x1.4a7f08p-47, 0x1.d5f47cp-71, 0x1.4d377p-95, \
    0x1.7cc1b6p+1, 0x1.27220ap-23, 0x1.29fc24p-48, 0x1.abe8fap-71, 0x1.34ddcp-96, \
    0x1.f306dcp+0, 0x1.39105p-25, 0x1.29fc26p-47, 0x1.57d1f4p-71, 0x1.34ddcp-95, \
    0x1.f306dcp+1, 0x1.391054p-24, 0x1.4fe138p-49, 0x1.5f47d4p-72, 0x1.a6eep-97, \
    0x1.e60db8p+1, 0x1.391054p-23, 0x1.4fe138p-48, 0x1.5f47d4p-71, 0x1.a6ee04p-96, \
    0x1.cc1b72p+1, 0x1.c882ap-25, 0x1.4fe13ap-47, 0x1.7d1f5p-72, 0x1.a6ee06p-95, \
    0x1.9836e4p+1, 0x1.c882a4p-24, 0x1.3f84e8p-48, 0x1.7d1f52p-71, 0x1.4ddc0cp-95, \
    0x1.306dc8p+1, 0x1.c882a4p-23, 0x1.3f84eap-47, 0x1.f47d4cp-72, 0x1.377034p-96, \
    0x1.836e48p-1, 0x1.91054ap-23, 0x1.fc275p-49, 0x1.f47d4cp-71, 0x1.377036p-95, \
    0x1.836e4cp+0, 0x1.220a94p-23, 0x1.fc2754p-48, 0x1.e8fa9ap-71, 0x1.bb81bp-97, \
    0x1.836e4ep+1, 0x1.1054ap-25, 0x1.fc2756p-47, 0x1.d1f534p-71, 0x1.bb81b4p-96, \
    0x1.06dc9cp+1, 0x1.1054a4p-24, 0x1.f84eaep-47, 0x1.a3ea68p-71, 0x1.bb81b6p-95, \
    0x1.b727p-4, 0x1.1054a6p-23, 0x1.f09d5ep-47, 0x1.47d4d2p-71, 0x1.77036cp-95, \
    0x1.b7272p-3, 0x1.054a7p-26, 0x1.e13abep-47, 0x1.1f534cp-72, 0x1.dc0db4p-96, \
    0x1.b7272p-2, 0x1.054a78p-25, 0x1.c2757cp-47, 0x1.1f534cp-71, 0x1.dc0db6p-95, \
    0x1.b7272p-1, 0x1.054a7cp-24, 0x1.84eafap-47, 0x1.f534dp-74, 0x1.b81b6cp-95, \
    0x1.b7272p+0, 0x1.054a7ep-23, 0x1.09d5f4p-47, 0x1.f534d8p-73, 0x1.7036d8p-95, \
    0x1.b72722p+1, 0x1.529fcp-28, 0x1.3abe8p-51, 0x1.f534dcp-72, 0x1.c0db6p-96, \
    0x1.6e4e44p+1, 0x1.529fcp-27, 0x1.3abe8p-50, 0x1.f534dcp-71, 0x1.c0db62p-95, \
    0x1.b9391p+0, 0x1.529fcp-26, 0x1.3abe88p-49, 0x1.ea69bap-71, 0x1.81b6c4p-95, \
    0x1.b9391p+1, 0x1.529fcp-25, 0x1.3abe8cp-48, 0x1.d4d376p-71, 0x1.036d8ap-95, \
    0x1.72722p+1, 0x1.529fcp-24, 0x1.3abe8ep-47, 0x1.a9a6eep-71, 0x1.b6c5p-101, \
    0x1.c9c88p+0, 0x1.529fc2p-23, 0x1.d5f478p-49, 0x1.534ddcp-71, 0x1.b6c5p-100, \
    0x1.c9c882p+1, 0x1.4a7f08p-24, 0x1.d5f47cp-48, 0x1.4d377p-72, 0x1.b6c52p-99, \
    0x1.939104p+1, 0x1.4a7f08p-23, 0x1.d5f47cp-47, 0x1.4d377p-71, 0x1.b6c52p-98, \
    0x1.27220ap+1, 0x1.29fc24p-24, 0x1.abe8fap-47, 0x1.34ddcp-72, 0x1.b6c528p-97, \
    0x1.39105p-1, 0x1.29fc26p-23, 0x1.57d1f4p-47, 0x1.34ddcp-71, 0x1.b6c528p-96, \
    0x1.391054p+0, 0x1.4fe138p-25, 0x1.5f47d4p-48, 0x1.a6eep-73, 0x1.b6c52ap-95, \
    0x1.391054p+1, 0x1.4fe138p-24, 0x1.5f47d4p-47, 0x1.a6ee04p-72, 0x1.6d8a56p-95, \
    0x1.c882ap-1, 0x1.4fe13ap-23, 0x1.7d1f5p-48, 0x1.a6ee06p-71, 0x1.b62958p-96, \
    0x1.c882a4p+0, 0x1.3f84e8p-24, 0x1.7d1f52p-47, 0x1.4ddc0cp-71, 0x1.b62958p-95, \
    0x1.c882a4p+1, 0x1.3f84eap-23, 0x1.f47d4cp-48, 0x1.377034p-72, 0x1.6c52b2p-95, \
    0x1.91054ap+1, 0x1.fc275p-25, 0x1.f47d4cp-47, 0x1.377036p-71, 0x1.b14accp-96, \
    0x1.220a94p+1, 0x1.fc2754p-24, 0x1.e8fa9ap-47, 0x1.bb81bp-73, 0x1.b14accp-95, \
    0x1.1054ap-1, 0x1.fc2756p-23, 0x1.d1f534p-47, 0x1.bb81b4p-72, 0x1.629598p-95, \
    0x1.1054a4p+0, 0x1.f84eaep-23, 0x1.a3ea68p-47, 0x1.bb81b6p-71, 0x1.8a5664p-96, \
    0x1.1054a6p+1, 0x1.f09d5ep-23, 0x1.47d4d2p-47, 0x1.77036cp-71, 0x1.8a5664p-95, \
    0x1.054a7p-2, 0x1.e13abep-23, 0x1.1f534cp-48, 0x1.dc0db4p-72, 0x1.14acc8p-95, \
    0x1.054a78p-1, 0x1.c2757cp-23, 0x1.1f534cp-47, 0x1.dc0db6p-71, 0x1.4acc9p-98, \
    0x1.054a7cp+0, 0x1.84eafap-23, 0x1.f534dp-50, 0x1.b81b6cp-71, 0x1.4acc98p-97, \
    0x1.054a7ep+1, 0x1.09d5f4p-23, 0x1.f534d8p-49, 0x1.7036d8p-71, 0x1.4acc9cp-96, \
    0x1.529fcp-4, 0x1.3abe8p-27, 0x1.f534dcp-48, 0x1.c0db6p-72, 0x1.4acc9ep-95, \
    0x1.529fcp-3, 0x1.3abe8p-26, 0x1.f534dcp-47, 0x1.c0db62p-71, 0x1.2b3278p-96, \
    0x1.529fcp-2, 0x1.3abe88p-25, 0x1.ea69bap-47, 0x1.81b6c4p-71, 0x1.2b3278p-95, \
    0x1.529fcp-1, 0x1.3abe8cp-24, 0x1.d4d376p-47, 0x1.036d8ap-71, 0x1.5993cp-97, \
    0x1.529fcp+0, 0x1.3abe8ep-23, 0x1.a9a6eep-47, 0x1.b6c5p-77, 0x1.5993c4p-96, \
    0x1.529fc2p+1, 0x1.d5f478p-25, 0x1.534ddcp-47, 0x1.b6c5p-76, 0x1.5993c4p-95, \
    0x1.4a7f08p+0, 0x1.d5f47cp-24, 0x1.4d377p-48, 0x1.b6c52p-75, 0x1.664f1p-96, \
    0x1.4a7f08p+1, 0x1.d5f47cp-23, 0x1.4d377p-47, 0x1.b6c52p-74, 0x1.664f1p-95, \
    0x1.29fc24p+0, 0x1.abe8fap-23, 0x1.34ddcp-48, 0x1.b6c528p-73, 0x1.993c4p-96, \
    0x1.29fc26p+1, 0x1.57d1f4p-23, 0x1.34ddcp-47, 0x1.b6c528p-72, 0x1.993c42p-95, \
    0x1.4fe138p-1, 0x1.5f47d4p-24, 0x1.a6eep-49, 0x1.b6c52ap-71, 0x1.327886p-95, \
    0x1.4fe138p+0, 0x1.5f47d4p-23, 0x1.a6ee04p-48, 0x1.6d8a56p-71, 0x1.93c438p-97, \
    0x1.4fe13ap+1, 0x1.7d1f5p-24, 0x1.a6ee06p-47, 0x1.b62958p-72, 0x1.93c438p-96, \
    0x1.3f84e8p+0, 0x1.7d1f52p-23, 0x1.4ddc0cp-47, 0x1.b62958p-71, 0x1.93c438p-95, \
    0x1.3f84eap+1, 0x1.f47d4cp-24, 0x1.377034p-48, 0x1.6c52b2p-71, 0x1.278872p-95, \
    0x1.fc275p-1, 0x1.f47d4cp-23, 0x1.377036p-47, 0x1.b14accp-72, 0x1.3c439p-97, \
    0x1.fc2754p+0, 0x1.e8fa9ap-23, 0x1.bb81bp-49, 0x1.b14accp-71, 0x1.3c439p-96, \
    0x1.fc2756p+1, 0x1.d1f534p-23, 0x1.bb81b4p-48, 0x1.629598p-71, 0x1.3c439p-95, \
    0x1.f84eaep+1, 0x1.a3ea68p-23, 0x1.bb81b6p-47, 0x1.8a5664p-72, 0x1.e21c8p-97, \
    0x1.f09d5ep+1, 0x1.47d4d2p-23, 0x1.77036cp-47, 0x1.8a5664p-71, 0x1.e21c8p-96, \
    0x1.e13abep+1, 0x1.1f534cp-24, 0x1.dc0db4p-48, 0x1.14acc8p-71, 0x1.e21c82p-95, \
    0x1.c2757cp+1, 0x1.1f534cp-23, 0x1.dc0db6p-47, 0x1.4acc9p-74, 0x1.c43904p-95, \
    0x1.84eafap+1, 0x1.f534dp-26, 0x1.b81b6cp-47, 0x1.4acc98p-73, 0x1.887208p-95, \
    0x1.09d5f4p+1, 0x1.f534d8p-25, 0x1.7036d8p-47, 0x1.4acc9cp-72, 0x1.10e41p-95, \
    0x1.3abe8p-3, 0x1.f534dcp-24, 0x1.c0db6p-48, 0x1.4acc9ep-71, 0x1.0e41p-98, \
    0x1.3abe8p-2, 0x1.f534dcp-23, 0x1.c0db62p-47, 0x1.2b3278p-72, 0x1.0e41p-97, \
    0x1.3abe88p-1, 0x1.ea69bap-23, 0x1.81b6c4p-47, 0x1.2b3278p-71, 0x1.0e4104p-96, \
    0x1.3abe8cp+0, 0x1.d4d376p-23, 0x1.036d8ap-47, 0x1.5993cp-73, 0x1.0e4106p-95, \
    0x1.3abe8ep+1, 0x1.a9a6eep-23, 0x1.b6c5p-53, 0x1.5993c4p-72, 0x1.c820ep-99, \
    0x1.d5f478p-1, 0x1.534ddcp-23, 0x1.b6c5p-52, 0x1.5993c4p-71, 0x1.c820fp-98, \
    0x1.d5f47cp+0, 0x1.4d377p-24, 0x1.b6c52p-51, 0x1.664f1p-72, 0x1.c820f8p-97, \
    0x1.d5f47cp+1, 0x1.4d377p-23, 0x1.b6c52p-50, 0x1.664f1p-71, 0x1.c820fcp-96, \
    0x1.abe8fap+1, 0x1.34ddcp-24, 0x1.b6c528p-49, 0x1.993c4p-72, 0x1.c820fep-95, \
    0x1.57d1f4p+1, 0x1.34ddcp-23, 0x1.b6c528p-48, 0x1.993c42p-71, 0x1.9041fep-95, \
    0x1.5f47d4p+0, 0x1.a6eep-25, 0x1.b6c52ap-47, 0x1.327886p-71, 0x1.2083fcp-95, \
    0x1.5f47d4p+1, 0x1.a6ee04p-24, 0x1.6d8a56p-47, 0x1.93c438p-73, 0x1.041fep-97, \
    0x1.7d1f5p+0, 0x1.a6ee06p-23, 0x1.b62958p-48, 0x1.93c438p-72, 0x1.041fe4p-96, \
    0x1.7d1f52p+1, 0x1.4ddc0cp-23, 0x1.b62958p-47, 0x1.93c438p-71, 0x1.041fe4p-95, \
    0x1.f47d4cp+0, 0x1.377034p-24, 0x1.6c52b2p-47, 0x1.278872p-71, 0x1.07f94p-100, \
    0x1.f47d4cp+1, 0x1.377036p-23, 0x1.b14accp-48, 0x1.3c439p-73, 0x1.07f94p-99, \
    0x1.e8fa9ap+1, 0x1.bb81bp-25, 0x1.b14accp-47, 0x1.3c439p-72, 0x1.07f94p-98, \
    0x1.d1f534p+1, 0x1.bb81b4p-24, 0x1.629598p-47, 0x1.3c439p-71, 0x1.07f94p-97, \
    0x1.a3ea68p+1, 0x1.bb81b6p-23, 0x1.8a5664p-48, 0x1.e21c8p-73, 0x1.07f944p-96, \
    0x1.47d4d2p+1, 0x1.77036cp-23, 0x1.8a5664p-47, 0x1.e21c8p-72, 0x1.07f944p-95, \
    0x1.1f534cp+0, 0x1.dc0db4p-24, 0x1.14acc8p-47, 0x1.e21c82p-71, 0x1.fe514p-100, \
    0x1.1f534cp+1, 0x1.dc0db6p-23, 0x1.4acc9p-50, 0x1.c43904p-71, 0x1.fe516p-99, \
    0x1.f534dp-2, 0x1.b81b6cp-23, 0x1.4acc98p-49, 0x1.887208p-71, 0x1.fe516p-98, \
    0x1.f534d8p-1, 0x1.7036d8p-23, 0x1.4acc9cp-48, 0x1.10e41p-71, 0x1.fe516p-97, \
    0x1.f534dcp+0, 0x1.c0db6p-24, 0x1.4acc9ep-47, 0x1.0e41p-74, 0x1.fe516p-96, \
    0x1.f534dcp+1, 0x1.c0db62p-23, 0x1.2b3278p-48, 0x1.0e41p-73, 0x1.fe5162p-95, \
    0x1.ea69bap+1, 0x1.81b6c4p-23, 0x1.2b3278p-47, 0x1.0e4104p-72, 0x1.fca2c6p-95, \
    0x1.d4d376p+1, 0x1.036d8ap-23, 0x1.5993cp-49, 0x1.0e4106p-71, 0x1.f9458ep-95, \
    0x1.a9a6eep+1, 0x1.b6c5p-29, 0x1.5993c4p-48, 0x1.c820ep-75, 0x1.f28b1cp-95, \
    0x1.534ddcp+1, 0x1.b6c5p-28, 0x1.5993c4p-47, 0x1.c820fp-74, 0x1.e5163ap-95, \
    0x1.4d377p+0, 0x1.b6c52p-27, 0x1.664f1p-48, 0x1.c820f8p-73, 0x1.ca2c74p-95, \
    0x1.4d377p+1, 0x1.b6c52p-26, 0x1.664f1p-47, 0x1.c820fcp-72, 0x1.9458eap-95, \
    0x1.34ddcp+0, 0x1.b6c528p-25, 0x1.993c4p-48, 0x1.c820fep-71, 0x1.28b1d4p-95, \
  }
DLX_MTABLE_DEFINE(double, dlx__trig_f32_2opi, 645, DLX_TRIG_F32_2OPI_VALUES)

/* sin(pi/2 r) = pi/2 r + r u P(u), cos(pi/2 r) = 1 - (pi r)^2/8 + u^2 Q(u), u = r^2 <= 1/4 + 2^-22: the
 * coefficients of P (S0..S6) and Q (C1..C6), lowest first: Chebyshev fits of (sin(pi/2 r)/r - pi/2)/u and
 * (cos(pi/2 r) - 1 + (pi r)^2/8)/u^2, approximation errors (coefficients in double) below 2^-57.5 and 2^-59
 * of the result */
#define DLX_TRIG_S0 -0x1.4abbce625be53p-1
#define DLX_TRIG_S1 0x1.466bc6775aae1p-4
#define DLX_TRIG_S2 -0x1.32d2cce62b872p-8
#define DLX_TRIG_S3 0x1.50783486fac0bp-13
#define DLX_TRIG_S4 -0x1.e3074d25ff57ep-19
#define DLX_TRIG_S5 0x1.e8f036a7f2070p-25
#define DLX_TRIG_S6 -0x1.6cc570434eb0ap-31
#define DLX_TRIG_C1 0x1.03c1f081b5ac4p-2
#define DLX_TRIG_C2 -0x1.55d3c7e3cbd74p-6
#define DLX_TRIG_C3 0x1.e1f506883022bp-11
#define DLX_TRIG_C4 -0x1.a6d1f0ab699ccp-16
#define DLX_TRIG_C5 0x1.f9cfc06368684p-22
#define DLX_TRIG_C6 -0x1.b383382780f8ep-28
#define DLX_TRIG_PIO2_HI 0x1.921fb5p+0           /* pi/2 in 25 bits (its products are exact) */
#define DLX_TRIG_PIO2_LO 0x1.110b4611a6263p-26   /* pi/2 - DLX_TRIG_PIO2_HI */
#define DLX_TRIG_PIO2 0x1.921fb54442d18p+0       /* pi/2 rounded */
#define DLX_TRIG_2OPI_HI 0x1.45f306dp-1          /* 2/pi in 29 bits (its products with a float32 are exact) */
#define DLX_TRIG_2OPI_LO 0x1.9391054a7f09dp-30   /* 2/pi - DLX_TRIG_2OPI_HI */

typedef struct dlx__trig_dd {
  double hi, lo;
} dlx__trig_dd;

/* round to the nearest integer (ties to even) for |y| < 2^51: adding 1.5 2^52 leaves no fraction bits */
DLX_TRIG_FN double dlx__trig_rint(double y) { return (y + 0x1.8p52) - 0x1.8p52; }

/* a + b = hi + lo exactly, given |a| >= |b| or a = 0 (Dekker's Fast2Sum) */
DLX_TRIG_FN dlx__trig_dd dlx__trig_fast_sum(double a, double b) {
  dlx__trig_dd r;
  r.hi = a + b;
  r.lo = b - (r.hi - a);
  return r;
}

/* a + b = hi + lo exactly, any magnitudes (Knuth's TwoSum) */
DLX_TRIG_FN dlx__trig_dd dlx__trig_two_sum(double a, double b) {
  dlx__trig_dd r;
  r.hi = a + b;
  const double bb = r.hi - a;
  r.lo = (a - (r.hi - bb)) + (b - bb);
  return r;
}

/* a = hi + lo, hi with 26 significant bits and lo with 27 (Veltkamp; |a| < 2^995) */
DLX_TRIG_FN dlx__trig_dd dlx__trig_split(double a) {
  dlx__trig_dd r;
  const double c = a * 134217729.0; /* 2^27 + 1 */
  r.hi = c - (c - a);
  r.lo = a - r.hi;
  return r;
}

/* hi + lo rounded to double by round-to-odd: the nearer double when exact, otherwise the one of the two
 * neighbours of the exact sum whose last bit is 1. Needs |hi| >= |lo|. A later rounding to nearest at
 * 51 bits or fewer is then the correct rounding of hi + lo: an odd double is never a midpoint there. */
DLX_TRIG_FN double dlx__trig_round_odd(double hi, double lo) {
  const dlx__trig_dd s = dlx__trig_fast_sum(hi, lo);
  const uint64_t b = dlx__m_bits64(s.hi);
  /* inexact and even: step to the neighbour on the side of the remainder (up in magnitude when the
   * remainder has the sign of the sum) */
  const uint64_t step = (s.lo != 0.0 && (b & 1u) == 0u) ? ((s.lo > 0.0) == (s.hi > 0.0) ? 1u : ~(uint64_t)0)
                                                          : 0u;
  return dlx__m_from64(b + step);
}

/* |x| (its bits ua) = k pi/2 + pi/2 (hi + lo), q = k mod 4, |hi + lo| <= 1/2 + 2^-22, |lo| <= 2^-53 |hi| */
typedef struct dlx__trig_red {
  double hi, lo;
  int q;
} dlx__trig_red;

DLX_TRIG_FN dlx__trig_red dlx__trig_reduce_f32(uint32_t ua) {
  dlx__trig_red red;
  const uint32_t e = ua >> 23;
  const double m = (double)(int32_t)((ua & 0x7fffffu) | 0x800000u);
  /* rows for e in 126..254; inf and NaN read the last row (their result is replaced), |x| < 1/2 the first */
  const uint32_t ec = e < 126u ? 126u : (e > 254u ? 254u : e);
  /* a 64-bit index: GCC 12 vectorises these reads as gathers only then (not with a 32-bit one) */
  const int64_t row = 5 * (int64_t)(ec - 126u);
  const double p0 = m * DLX_MT(dlx__trig_f32_2opi)[row];    /* exact: 24 x 24 bits */
  const double a0 = p0 - 4.0 * dlx__trig_rint(p0 * 0.25);  /* exact: on the grid 2^-22, |a0| <= 2 */
  const double s1 = a0 + m * DLX_MT(dlx__trig_f32_2opi)[row + 1]; /* exact: on the grid 2^-46, |s1| < 6 */
  const double k = dlx__trig_rint(s1);
  const double t = s1 - k;                                  /* exact, |t| <= 1/2 */
  const dlx__trig_dd h = dlx__trig_two_sum(t, m * DLX_MT(dlx__trig_f32_2opi)[row + 2]);
  /* the tail (< 2^-46) is far below |t + m c2|, which is at least 2^-30 for every float32 x >= 1/2 */
  const double tail = m * DLX_MT(dlx__trig_f32_2opi)[row + 3] + m * DLX_MT(dlx__trig_f32_2opi)[row + 4];
  const dlx__trig_dd big = dlx__trig_fast_sum(h.hi, h.lo + tail);
  /* |x| < 1/2: r = |x| 2/pi, the first product exact */
  const double a = (double)dlx__m_from32(ua);
  const dlx__trig_dd small = dlx__trig_fast_sum(a * DLX_TRIG_2OPI_HI, a * DLX_TRIG_2OPI_LO);
  const int is_small = e < 126u;
  red.hi = is_small ? small.hi : big.hi;
  red.lo = is_small ? small.lo : big.lo;
  red.q = is_small ? 0 : ((int)k & 3);
  return red;
}

/* sin(pi/2 r) for r = hi + lo (a reduction's result), as a double-double, relative error below 2^-53.5:
 * the leading pi/2 r is computed to 2^-78, the rest (below 0.11 of the result) in double */
DLX_TRIG_FN dlx__trig_dd dlx__trig_sin_qt(double hi, double lo) {
  const double u = hi * hi;
  const double p =
      u * (DLX_TRIG_S0 +
           u * (DLX_TRIG_S1 +
                u * (DLX_TRIG_S2 + u * (DLX_TRIG_S3 + u * (DLX_TRIG_S4 + u * (DLX_TRIG_S5 + u * DLX_TRIG_S6))))));
  const dlx__trig_dd h = dlx__trig_split(hi);
  dlx__trig_dd r;
  r.hi = h.hi * DLX_TRIG_PIO2_HI; /* exact: 26 x 25 bits */
  r.lo = h.lo * DLX_TRIG_PIO2_HI + (hi * DLX_TRIG_PIO2_LO + (lo * DLX_TRIG_PIO2 + hi * p));
  return r;
}

/* cos(pi/2 r) as a double-double, relative error below 2^-54: with w = pi/2 r = wh + wl, 1 - w^2/2 =
 * 1 - a^2/2 - ab - b^2/2 - wl (wh + wl/2) is computed to 2^-70 (wh = a + b split, a^2 and ab exact), and
 * the rest, u^2 Q(u), is below 0.016 */
DLX_TRIG_FN dlx__trig_dd dlx__trig_cos_qt(double hi, double lo) {
  const double u = hi * hi;
  const double q =
      DLX_TRIG_C1 + u * (DLX_TRIG_C2 + u * (DLX_TRIG_C3 + u * (DLX_TRIG_C4 + u * (DLX_TRIG_C5 + u * DLX_TRIG_C6))));
  const dlx__trig_dd h = dlx__trig_split(hi);
  const double wh = h.hi * DLX_TRIG_PIO2_HI; /* exact */
  const double wl = h.lo * DLX_TRIG_PIO2_HI + (hi * DLX_TRIG_PIO2_LO + lo * DLX_TRIG_PIO2);
  const dlx__trig_dd w = dlx__trig_split(wh);
  const dlx__trig_dd c = dlx__trig_fast_sum(1.0, -0.5 * (w.hi * w.hi)); /* w.hi^2 exact: 26 x 26 bits */
  dlx__trig_dd r;
  r.hi = c.hi;
  /* wl is not a normalised low part (h.lo's product is up to 2^-26 of w): its square counts */
  r.lo = c.lo - (w.hi * w.lo + (0.5 * (w.lo * w.lo) + wl * (wh + 0.5 * wl))) + (u * u) * q;
  return r;
}

/* The first try (math_common.h) for |x| < 2^15, in plain double. 2/pi = C0 + C1 + C2 (29, 29 and 53
 * bits, the rest below 2^-114): p0 = a C0 is exact (24 x 29 bits), so is t = p0 - k, and r = (t + a C1)
 * + a C2 rounds twice, each time to within 2^-53 of r; the tail of 2/pi adds a 2^-99 absolute error,
 * below 2^-69 of r since no float32 x >= 1/2 has |r| under 2^-29.86 (dev_trig.c's minr). sin(pi/2 r) is
 * r pi/2 + r u P(u) and cos(pi/2 r) is 1 - (pi^2/8) u + u^2 Q(u) (u = r^2, the polynomials of the
 * correctly rounded path), each within about 2^-50 of the result; only the one the quadrant selects is
 * kept. Outside |x| < 2^15, and for inf and NaN: DLX_M_TRY_NONE. */
#define DLX_TRIG_TRY_C0 0x1.45f306dp-1
#define DLX_TRIG_TRY_C1 0x1.9391055p-30
#define DLX_TRIG_TRY_C2 -0x1.603d8a82e0acbp-60
#define DLX_TRIG_MPI2O8 -0x1.3bd3cc9be45dep+0 /* -pi^2/8 rounded */

DLX_TRIG_FN double dlx__trig_try(float x, int cosine) {
  const uint32_t u = dlx__m_bits32(x), ua = u & 0x7fffffffu;
  const double a = (double)dlx__m_from32(ua);
  const double p0 = a * DLX_TRIG_TRY_C0; /* exact */
  /* k = rint(p0), whose low bits (the quadrant) are those of kt's significand while |p0| < 2^51: read as
   * bits, since past the range (inf, NaN, huge) a conversion to an integer type would be undefined */
  const double kt = p0 + 0x1.8p52;
  const double k = kt - 0x1.8p52;
  const double r = ((p0 - k) + a * DLX_TRIG_TRY_C1) + a * DLX_TRIG_TRY_C2;
  const double v = r * r;
  const double s =
      r * DLX_TRIG_PIO2 +
      r * (v * (DLX_TRIG_S0 +
                v * (DLX_TRIG_S1 +
                     v * (DLX_TRIG_S2 + v * (DLX_TRIG_S3 + v * (DLX_TRIG_S4 + v * (DLX_TRIG_S5 + v * DLX_TRIG_S6)))))));
  const double c =
      1.0 + v * (DLX_TRIG_MPI2O8 +
                 v * (DLX_TRIG_C1 +
                      v * (DLX_TRIG_C2 + v * (DLX_TRIG_C3 + v * (DLX_TRIG_C4 + v * (DLX_TRIG_C5 + v * DLX_TRIG_C6))))));
  /* as dlx__trig_f32_res: cos is sin a quadrant on; quadrants 1 and 3 take the cosine, 2 and 3 negate,
   * and sin is odd (the sign bit of x, flipped onto the result: sin(-0) = -0) */
  const uint64_t q = dlx__m_bits64(kt) + (uint64_t)cosine;
  const double y0 = (q & 1u) ? c : s;
  const uint64_t neg = ((q >> 1) ^ (uint64_t)((u >> 31) & (uint32_t)(1 - cosine))) & 1u;
  const double y = dlx__m_from64(dlx__m_bits64(y0) ^ (neg << 63));
  return ua < 0x47000000u ? y : DLX_M_TRY_NONE;
}

/* The double-double of sin or cos from a reduction (the float32 path's step 2), as hi + lo with hi the
 * nearest double, and whether to negate */
typedef struct dlx__trig_res {
  double hi, lo;
  int neg;
} dlx__trig_res;

DLX_TRIG_FN dlx__trig_res dlx__trig_f32_res(uint32_t u, dlx__trig_red red, int cosine) {
  const dlx__trig_dd s = dlx__trig_sin_qt(red.hi, red.lo);
  const dlx__trig_dd c = dlx__trig_cos_qt(red.hi, red.lo);
  /* cos(x) = sin(x + pi/2): one quadrant on; quadrants 1 and 3 take cos(pi/2 r), 2 and 3 negate */
  const int q = red.q + cosine;
  const int odd = q & 1;
  dlx__trig_res r;
  r.hi = odd ? c.hi : s.hi;
  r.lo = odd ? c.lo : s.lo;
  /* sin is odd (sin(-0) = -0 comes out of r = +0 negated), cos even */
  r.neg = ((q >> 1) ^ (int)((u >> 31) & (uint32_t)(1 - cosine))) & 1;
  return r;
}

/* step 3 for the narrow formats: rounded to odd */
DLX_TRIG_FN double dlx__trig_f32_from(uint32_t u, dlx__trig_red red, int cosine) {
  const dlx__trig_res r = dlx__trig_f32_res(u, red, cosine);
  const double y = dlx__trig_round_odd(r.hi, r.lo);
  return r.neg ? -y : y;
}

/* step 3 for float32: rounded to double, then to float32, a fifth of the time of the rounding to odd.
 * Twice rounded, the result is wrong only where the double lands exactly on a float32 midpoint that the
 * double-double is not on; bench/math/dev_plain.c compares the two over all 2^32 inputs (an earlier
 * table-free reduction below 2^15 gave the same two lists): sin differs at |x| = 0x46199998 (both reductions) and cos at
 * |x| = 0x5f18b878 and 0x6115cb11, whose correctly rounded magnitudes (the odd-rounded ones, which
 * math_exhaustive checks against MPFR) are blended in (dlx__m_pick32). */
DLX_TRIG_FN float dlx__trig_f32_plain(uint32_t u, dlx__trig_red red, int cosine) {
  const dlx__trig_res r = dlx__trig_f32_res(u, red, cosine);
  const uint32_t ua = u & 0x7fffffffu;
  const uint32_t pb = dlx__m_bits32((float)(r.hi + r.lo));
  uint32_t mb = pb & 0x7fffffffu; /* the magnitude; the sign is the sum's, negated where r.neg says */
  if (cosine) {
    mb = dlx__m_pick32(ua, 0x5f18b878u, 0x3f7f14bbu, mb);
    mb = dlx__m_pick32(ua, 0x6115cb11u, 0x3f78142fu, mb);
  } else {
    mb = dlx__m_pick32(ua, 0x46199998u, 0x3eb1fa5du, mb);
  }
  const uint32_t sign = (pb & 0x80000000u) ^ ((uint32_t)r.neg << 31);
  return dlx__m_from32(mb | sign);
}

/* sin (cosine = 0) or cos (cosine = 1) of the float32 with bits u, any input */
DLX_TRIG_FN double dlx__trig_f32(uint32_t u, int cosine) {
  const uint32_t ua = u & 0x7fffffffu;
  const double v = dlx__trig_f32_from(u, dlx__trig_reduce_f32(ua), cosine);
  const double xd = (double)dlx__m_from32(u);
  return ua >= 0x7f800000u ? xd - xd : v; /* inf: NaN; NaN: quiet NaN */
}

DLX_TRIG_FN double dlx__wide_sin(float x) { return dlx__trig_f32(dlx__m_bits32(x), 0); }
DLX_TRIG_FN double dlx__wide_cos(float x) { return dlx__trig_f32(dlx__m_bits32(x), 1); }
/* float32: step 3 rounded twice, with the exceptions (dlx__trig_f32_plain) */
DLX_TRIG_FN float dlx__trig_f32_float(uint32_t u, int cosine) {
  const uint32_t ua = u & 0x7fffffffu;
  const float v = dlx__trig_f32_plain(u, dlx__trig_reduce_f32(ua), cosine);
  const float xf = dlx__m_from32(u);
  return ua >= 0x7f800000u ? xf - xf : v; /* inf: NaN; NaN: quiet NaN */
}
DLX_TRIG_FN float dlx__sinf(float x) { return dlx__trig_f32_float(dlx__m_bits32(x), 0); }
DLX_TRIG_FN float dlx__cosf(float x) { return dlx__trig_f32_float(dlx__m_bits32(x), 1); }
DLX_TRIG_FN double dlx__sinf_try(float x) { return dlx__trig_try(x, 0); }
DLX_TRIG_FN double dlx__cosf_try(float x) { return dlx__trig_try(x, 1); }

/* ---- float64 ---- */

/* 2/pi = sum_j T_j 2^(-24(j+1)), T_j 24-bit integers (as doubles): 1248 bits, enough for the largest
 * exponent (1023: the group of 2/pi that matters starts near bit 1000) plus 150 */
#define DLX_TRIG_2OPI24_VALUES \
  { \
    10680707.0, 7228996.0, 1387004.0, 2578385.0, 16069853.0, 12639074.0, 9804092.0, 4427841.0, 16666979.0, 11263675.0, \
    12935607.0, 2387514.0, 4345298.0, 14681673.0, 3074569.0, 13734428.0, 16653803.0, 1880361.0, 10960616.0, 8533493.0, \
    3062596.0, 8710556.0, 7349940.0, 6258241.0, 3772886.0, 3769171.0, 3798172.0, 8675211.0, 12450088.0, 3874808.0, \
    9961438.0, 366607.0, 15675153.0, 9132554.0, 7151469.0, 3571407.0, 2607881.0, 12013382.0, 4155038.0, 6285869.0, \
    7677882.0, 13102053.0, 15825725.0, 473591.0, 9065106.0, 15363067.0, 6271263.0, 9264392.0, 5636912.0, 4652155.0, \
    7056368.0, 13614112.0, \
  }
DLX_MTABLE_DEFINE(double, dlx__trig_2opi24, 52, DLX_TRIG_2OPI24_VALUES)

/* sin(t) = t + t^3 D(t^2), cos(t) = 1 - t^2/2 + t^4 E(t^2) for |t| <= pi/4 + 2^-20 (Chebyshev fits,
 * approximation errors below 2^-66 and 2^-71 relative) */
#define DLX_TRIG_D0 -0x1.5555555555555p-3
#define DLX_TRIG_D1 0x1.1111111111110p-7
#define DLX_TRIG_D2 -0x1.a01a01a019934p-13
#define DLX_TRIG_D3 0x1.71de3a546026cp-19
#define DLX_TRIG_D4 -0x1.ae64541204b95p-26
#define DLX_TRIG_D5 0x1.61217e72d9727p-33
#define DLX_TRIG_D6 -0x1.ab177a0d70a2dp-41
#define DLX_TRIG_E0 0x1.5555555555555p-5
#define DLX_TRIG_E1 -0x1.6c16c16c16c16p-10
#define DLX_TRIG_E2 0x1.a01a01a019d09p-16
#define DLX_TRIG_E3 -0x1.27e4fb7712a4fp-22
#define DLX_TRIG_E4 0x1.1eed8deb41f92p-29
#define DLX_TRIG_E5 -0x1.9394b9850bdfcp-37
#define DLX_TRIG_E6 0x1.ab780af89cc5dp-45
/* pi/2 in three 33-bit parts and a fourth (k p_i exact for k < 2^20), and as a double-double */
#define DLX_TRIG_PIO2_C1 0x1.921fb544p+0
#define DLX_TRIG_PIO2_C2 0x1.0b4611a6p-34
#define DLX_TRIG_PIO2_C3 0x1.3198a2ep-69
#define DLX_TRIG_PIO2_C4 0x1.b839a252049c1p-104
#define DLX_TRIG_PIO2_DL 0x1.1a62633145c07p-54 /* pi/2 - DLX_TRIG_PIO2 */

/* a b = hi + lo exactly (Dekker's product: no FMA, so that every backend rounds the same) */
DLX_TRIG_FN dlx__trig_dd dlx__trig_two_prod(double a, double b) {
  const dlx__trig_dd as = dlx__trig_split(a), bs = dlx__trig_split(b);
  dlx__trig_dd r;
  r.hi = a * b;
  r.lo = ((as.hi * bs.hi - r.hi) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
  return r;
}

/* 2^p for -1022 <= p <= 1023 */
DLX_TRIG_FN double dlx__trig_pow2(int p) { return dlx__m_from64((uint64_t)(p + 1023) << 52); }

/* Payne-Hanek for finite a >= 2^20: a 2/pi = k + r (mod 4), r = hi + lo in quarter turns, |r| <= 1/2 +
 * 2^-21. a = X0 2^(E+48) + X1 2^(E+24) + X2 2^E with 24-bit integers X_i; the products X_i T_j are exact
 * and grouped by n = i + j (sums below 2^50, exact); groups whose weight is a multiple of 4 are dropped,
 * the next seven (from 2^1 down to 2^-150) are summed mod 4, the first three exactly. */
DLX_TRIG_FN dlx__trig_dd dlx__trig_reduce_big(double a, int *q) {
  const uint64_t b = dlx__m_bits64(a);
  const int e = (int)(b >> 52) - 1075; /* a = M 2^e, M the 53-bit integer significand */
  const uint64_t m = (b & ((UINT64_C(1) << 52) - 1u)) | (UINT64_C(1) << 52);
  const double x0 = (double)(m >> 48), x1 = (double)((m >> 24) & 0xffffffu), x2 = (double)(m & 0xffffffu);
  const int s = e + 48;
  const int n0 = s > 25 ? (s - 25 + 23) / 24 : 0; /* the first group with weight exponent below 2 */
  double f[7];
  for (int d = 0; d < 7; ++d) {
    const int n = n0 + d;
    double sum = x0 * DLX_MT(dlx__trig_2opi24)[n];
    if (n >= 1) sum += x1 * DLX_MT(dlx__trig_2opi24)[n - 1];
    if (n >= 2) sum += x2 * DLX_MT(dlx__trig_2opi24)[n - 2];
    f[d] = sum * dlx__trig_pow2(s - 24 * (n + 1));
  }
  /* f0, f1, f2 mod 4 (exact), then their sum split into the integer k and the rest */
  const double f0 = f[0] - 4.0 * dlx__trig_rint(f[0] * 0.25), f1 = f[1] - 4.0 * dlx__trig_rint(f[1] * 0.25);
  const double f2 = f[2] - 4.0 * dlx__trig_rint(f[2] * 0.25);
  const double s01 = f0 + f1; /* exact: |s01| <= 4 on the grid 2^-46 */
  const double k = dlx__trig_rint(s01 + f2);
  dlx__trig_dd r = dlx__trig_two_sum(s01 - k, f2);
  for (int d = 3; d < 7; ++d) {
    const dlx__trig_dd t = dlx__trig_two_sum(r.hi, f[d]);
    r.hi = t.hi;
    r.lo += t.lo;
  }
  *q = (int)k & 3;
  return dlx__trig_fast_sum(r.hi, r.lo);
}

/* |x| = k pi/2 + t, t = hi + lo in radians (|t| <= pi/4 + 2^-20), q = k mod 4; a finite */
DLX_TRIG_FN dlx__trig_dd dlx__trig_reduce_f64(double a, int *q) {
  if (a < 0x1p20) {
    /* Cody-Waite: k p1, k p2, k p3 exact; a - k p1 exact (Sterbenz, or k = 0) */
    const double k = dlx__trig_rint(a * 0x1.45f306dc9c883p-1);
    dlx__trig_dd r = dlx__trig_two_sum(a - k * DLX_TRIG_PIO2_C1, -(k * DLX_TRIG_PIO2_C2));
    const dlx__trig_dd t = dlx__trig_two_sum(r.hi, -(k * DLX_TRIG_PIO2_C3));
    r.lo = (r.lo + t.lo) - k * DLX_TRIG_PIO2_C4;
    *q = (int)k & 3;
    return dlx__trig_fast_sum(t.hi, r.lo);
  }
  /* quarter turns to radians: pi/2 (hi + lo) in double-double */
  const dlx__trig_dd r = dlx__trig_reduce_big(a, q);
  dlx__trig_dd t = dlx__trig_two_prod(r.hi, DLX_TRIG_PIO2);
  t.lo += r.hi * DLX_TRIG_PIO2_DL + r.lo * DLX_TRIG_PIO2;
  return dlx__trig_fast_sum(t.hi, t.lo);
}

/* sin(hi + lo), |lo| <= 2^-52 |hi|: hi + (lo (1 - z/2) + hi z D(z)), z = hi^2 */
DLX_TRIG_FN double dlx__trig_sin_rad(double hi, double lo) {
  const double z = hi * hi;
  const double d =
      DLX_TRIG_D0 +
      z * (DLX_TRIG_D1 + z * (DLX_TRIG_D2 + z * (DLX_TRIG_D3 + z * (DLX_TRIG_D4 + z * (DLX_TRIG_D5 + z * DLX_TRIG_D6)))));
  return hi + ((lo - 0.5 * z * lo) + hi * z * d);
}

/* cos(hi + lo): (1 - zh/2) exactly as a double-double, zh + zl = hi^2 exactly, then the small terms */
DLX_TRIG_FN double dlx__trig_cos_rad(double hi, double lo) {
  const dlx__trig_dd z = dlx__trig_two_prod(hi, hi);
  const double e =
      DLX_TRIG_E0 +
      z.hi * (DLX_TRIG_E1 +
              z.hi * (DLX_TRIG_E2 + z.hi * (DLX_TRIG_E3 + z.hi * (DLX_TRIG_E4 + z.hi * (DLX_TRIG_E5 + z.hi * DLX_TRIG_E6)))));
  const dlx__trig_dd w = dlx__trig_fast_sum(1.0, -0.5 * z.hi);
  return w.hi + (w.lo - (0.5 * z.lo + hi * lo) + (z.hi * z.hi) * e);
}

DLX_TRIG_FN double dlx__trig_f64(double x, int cosine) {
  const double a = fabs(x);
  if (!(a <= 0x1.fffffffffffffp+1023)) return x - x; /* inf: NaN; NaN: quiet NaN */
  int q;
  const dlx__trig_dd t = dlx__trig_reduce_f64(a, &q);
  q += cosine; /* cos(x) = sin(x + pi/2) */
  const double y = (q & 1) ? dlx__trig_cos_rad(t.hi, t.lo) : dlx__trig_sin_rad(t.hi, t.lo);
  const int neg = ((q >> 1) ^ (cosine ? 0 : (int)(dlx__m_bits64(x) >> 63))) & 1; /* sin odd, cos even */
  return neg ? -y : y;
}

/* float64: deterministic (the same operations in the same order everywhere); error measured by dev_trig */
DLX_MATH double dlx__sin(double x) { return dlx__trig_f64(x, 0); }
DLX_MATH double dlx__cos(double x) { return dlx__trig_f64(x, 1); }

#endif /* DLX_KERNELS_MATH_TRIG_H */

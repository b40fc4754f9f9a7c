/* The exponential family: exp, exp2, expm1 and tanh, in float32 (correctly rounded) and float64.
 *
 * One reduction serves all four: x = (k/N) ln2 + r with N = 128, k = round(x N / ln2), |r| <= ln2/256,
 * so e^x = 2^(k>>7) * 2^((k&127)/128) * e^r. The table holds 2^(j/128) as a double T_hi[j] and the
 * rest T_lo[j] (T_hi + T_lo is 2^(j/128) to about 106 bits); the power 2^(k>>7) is added to the
 * exponent bits; e^r - 1 is a Taylor polynomial in double (degree 5: its truncation error r^6/720 is
 * below 2^-60 for |r| <= ln2/256). ln2/128 is split in two (Cody-Waite): the high part has 35 bits,
 * so k * hi is exact for every |k| < 2^18 and r loses nothing to cancellation.
 *
 * float32 (dlx__wide_<f>): the double result has a relative error below about 2^-51, far inside the
 * 2^-25 a single rounding to float32 needs, except for inputs whose true value lies within that error
 * of a float32 rounding boundary; the exhaustive check (bench/math/dev_exp.c) finds them, and the few
 * there are get their value from a short list (dlx__exp_fix_ below), blended in by selects. The only
 * rounding to float32 is the caller's (float) cast, which also rounds subnormal results right: the
 * double value itself is a normal double everywhere (arguments are clamped to |x| <= 200 first, past
 * which every float32 result has already overflowed to inf or underflowed to 0).
 *
 * float64 (dlx__<f>): the same reduction, the table's tail added in, and the scale 2^(k>>7) applied as
 * two exact powers of two so that overflow and gradual underflow round once (the second multiply).
 * Measured maximum errors are in docs/math-exp.md. No FMA anywhere: every operation is one IEEE double
 * operation, so scalar, SIMD and device code give the same bits.
 *
 * Everything is branch-free (clamps and selects), so the CPU loops vectorise; the table reads become
 * gathers. */
#ifndef DLX_KERNELS_MATH_EXP_H
#define DLX_KERNELS_MATH_EXP_H

#include <math.h>
#include <stdint.h>

#include "kernels/math_common.h"

/* The rules are past GCC's inlining limits at -O2 once a translation unit calls them from several
 * loops (float64's expm1 and tanh at once), and a call left in a loop stops its vectorisation: they are
 * inlined by force (nvcc inlines device code anyway). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define DLX_EXP_INLINE static inline __attribute__((always_inline)) DLX_HD
#else
#define DLX_EXP_INLINE DLX_MATH
#endif

/* 2^(j/128), j = 0..127, rounded to double */
#define DLX_EXP_THI_VALUES { \
  0x1.0000000000000p+0, 0x1.0163da9fb3335p+0, 0x1.02c9a3e778061p+0, 0x1.04315e86e7f85p+0, \
  0x1.059b0d3158574p+0, 0x1.0706b29ddf6dep+0, 0x1.0874518759bc8p+0, 0x1.09e3ecac6f383p+0, \
  0x1.0b5586cf9890fp+0, 0x1.0cc922b7247f7p+0, 0x1.0e3ec32d3d1a2p+0, 0x1.0fb66affed31bp+0, \
  0x1.11301d0125b51p+0, 0x1.12abdc06c31ccp+0, 0x1.1429aaea92de0p+0, 0x1.15a98c8a58e51p+0, \
  0x1.172b83c7d517bp+0, 0x1.18af9388c8deap+0, 0x1.1a35beb6fcb75p+0, 0x1.1bbe084045cd4p+0, \
  0x1.1d4873168b9aap+0, 0x1.1ed5022fcd91dp+0, 0x1.2063b88628cd6p+0, 0x1.21f49917ddc96p+0, \
  0x1.2387a6e756238p+0, 0x1.251ce4fb2a63fp+0, 0x1.26b4565e27cddp+0, 0x1.284dfe1f56381p+0, \
  0x1.29e9df51fdee1p+0, 0x1.2b87fd0dad990p+0, 0x1.2d285a6e4030bp+0, 0x1.2ecafa93e2f56p+0, \
  0x1.306fe0a31b715p+0, 0x1.32170fc4cd831p+0, 0x1.33c08b26416ffp+0, 0x1.356c55f929ff1p+0, \
  0x1.371a7373aa9cbp+0, 0x1.38cae6d05d866p+0, 0x1.3a7db34e59ff7p+0, 0x1.3c32dc313a8e5p+0, \
  0x1.3dea64c123422p+0, 0x1.3fa4504ac801cp+0, 0x1.4160a21f72e2ap+0, 0x1.431f5d950a897p+0, \
  0x1.44e086061892dp+0, 0x1.46a41ed1d0057p+0, 0x1.486a2b5c13cd0p+0, 0x1.4a32af0d7d3dep+0, \
  0x1.4bfdad5362a27p+0, 0x1.4dcb299fddd0dp+0, 0x1.4f9b2769d2ca7p+0, 0x1.516daa2cf6642p+0, \
  0x1.5342b569d4f82p+0, 0x1.551a4ca5d920fp+0, 0x1.56f4736b527dap+0, 0x1.58d12d497c7fdp+0, \
  0x1.5ab07dd485429p+0, 0x1.5c9268a5946b7p+0, 0x1.5e76f15ad2148p+0, 0x1.605e1b976dc09p+0, \
  0x1.6247eb03a5585p+0, 0x1.6434634ccc320p+0, 0x1.6623882552225p+0, 0x1.68155d44ca973p+0, \
  0x1.6a09e667f3bcdp+0, 0x1.6c012750bdabfp+0, 0x1.6dfb23c651a2fp+0, 0x1.6ff7df9519484p+0, \
  0x1.71f75e8ec5f74p+0, 0x1.73f9a48a58174p+0, 0x1.75feb564267c9p+0, 0x1.780694fde5d3fp+0, \
  0x1.7a11473eb0187p+0, 0x1.7c1ed0130c132p+0, 0x1.7e2f336cf4e62p+0, 0x1.80427543e1a12p+0, \
  0x1.82589994cce13p+0, 0x1.8471a4623c7adp+0, 0x1.868d99b4492edp+0, 0x1.88ac7d98a6699p+0, \
  0x1.8ace5422aa0dbp+0, 0x1.8cf3216b5448cp+0, 0x1.8f1ae99157736p+0, 0x1.9145b0b91ffc6p+0, \
  0x1.93737b0cdc5e5p+0, 0x1.95a44cbc8520fp+0, 0x1.97d829fde4e50p+0, 0x1.9a0f170ca07bap+0, \
  0x1.9c49182a3f090p+0, 0x1.9e86319e32323p+0, 0x1.a0c667b5de565p+0, 0x1.a309bec4a2d33p+0, \
  0x1.a5503b23e255dp+0, 0x1.a799e1330b358p+0, 0x1.a9e6b5579fdbfp+0, 0x1.ac36bbfd3f37ap+0, \
  0x1.ae89f995ad3adp+0, 0x1.b0e07298db666p+0, 0x1.b33a2b84f15fbp+0, 0x1.b59728de5593ap+0, \
  0x1.b7f76f2fb5e47p+0, 0x1.ba5b030a1064ap+0, 0x1.bcc1e904bc1d2p+0, 0x1.bf2c25bd71e09p+0, \
  0x1.c199bdd85529cp+0, 0x1.c40ab5fffd07ap+0, 0x1.c67f12e57d14bp+0, 0x1.c8f6d9406e7b5p+0, \
  0x1.cb720dcef9069p+0, 0x1.cdf0b555dc3fap+0, 0x1.d072d4a07897cp+0, 0x1.d2f87080d89f2p+0, \
  0x1.d5818dcfba487p+0, 0x1.d80e316c98398p+0, 0x1.da9e603db3285p+0, 0x1.dd321f301b460p+0, \
  0x1.dfc97337b9b5fp+0, 0x1.e264614f5a129p+0, 0x1.e502ee78b3ff6p+0, 0x1.e7a51fbc74c83p+0, \
  0x1.ea4afa2a490dap+0, 0x1.ecf482d8e67f1p+0, 0x1.efa1bee615a27p+0, 0x1.f252b376bba97p+0, \
  0x1.f50765b6e4540p+0, 0x1.f7bfdad9cbe14p+0, 0x1.fa7c1819e90d8p+0, 0x1.fd3c22b8f71f1p+0 }
/* 2^(j/128) - T_hi[j], rounded to double */
#define DLX_EXP_TLO_VALUES { \
  0x0.0p+0, 0x1.b61299ab8cdb7p-54, -0x1.19083535b085dp-56, -0x1.0a31c1977c96ep-54, \
  0x1.d73e2a475b465p-55, -0x1.c91dfe2b13c27p-55, 0x1.186be4bb284ffp-57, 0x1.1487818316136p-54, \
  0x1.8a62e4adc610bp-54, 0x1.01edc16e24f71p-54, 0x1.03a1727c57b53p-59, -0x1.b9bedc44ebd7bp-57, \
  -0x1.6c51039449b3ap-54, -0x1.1b514b36ca5c7p-58, -0x1.32fbf9af1369ep-54, 0x1.2406ab9eeab0ap-55, \
  -0x1.19041b9d78a76p-55, -0x1.11023d1970f6cp-54, 0x1.e5b4c7b4968e4p-55, -0x1.95386352ef607p-54, \
  0x1.e016e00a2643cp-54, -0x1.1df98027bb78cp-54, 0x1.dc775814a8495p-55, 0x1.2a97e9494a5eep-55, \
  0x1.9b07eb6c70573p-54, 0x1.ac155bef4f4a4p-55, 0x1.2bd339940e9d9p-55, -0x1.a4c3a8c3f0d7ep-54, \
  0x1.612e8afad1255p-55, -0x1.10adcd6381aa4p-59, 0x1.0024754db41d5p-54, 0x1.1ca0f45d52383p-56, \
  0x1.6f46ad23182e4p-55, 0x1.a9ce78e18047cp-55, 0x1.32721843659a6p-54, -0x1.b5cee5c4e4628p-55, \
  -0x1.63aeabf42eae2p-54, -0x1.e958d3c9904bdp-54, -0x1.5e436d661f5e3p-56, -0x1.efff8375d29c3p-54, \
  0x1.ada0911f09ebcp-55, -0x1.7d023f956f9f3p-54, -0x1.ef3691c309278p-58, -0x1.1c7dde35f7999p-55, \
  0x1.89b7a04ef80d0p-59, 0x1.c944bd1648a76p-54, 0x1.3c1a3b69062f0p-56, 0x1.9cb62f3d1be56p-54, \
  0x1.d4397afec42e2p-56, 0x1.8ecdbbc6a7833p-54, -0x1.4b309d25957e3p-54, -0x1.f768569bd93efp-55, \
  -0x1.07abe1db13cadp-55, -0x1.d689cefede59bp-55, 0x1.9bb2c011d93adp-54, 0x1.295e15b9a1de8p-55, \
  0x1.6324c054647adp-54, 0x1.c4b1b816986a2p-60, 0x1.ba6f93080e65ep-54, -0x1.3e2429b56de47p-54, \
  -0x1.383c17e40b497p-54, -0x1.c483c759d8933p-55, -0x1.bb60987591c34p-54, 0x1.038ae44f73e65p-57, \
  -0x1.bdd3413b26456p-54, -0x1.2895667ff0b0dp-56, -0x1.bbe3a683c88abp-57, -0x1.83c0f25860ef6p-55, \
  -0x1.16e4786887a99p-55, -0x1.0a8d96c65d53cp-54, -0x1.0245957316dd3p-54, 0x1.866b80a02162dp-54, \
  -0x1.41577ee04992fp-55, 0x1.f124cd1164dd6p-54, 0x1.05d02ba15797ep-56, -0x1.27c86626d972bp-54, \
  -0x1.d4c1dd41532d8p-54, -0x1.8d684a341cdfbp-55, -0x1.fc6f89bd4f6bap-54, 0x1.994c2f37cb53ap-54, \
  0x1.6e9f156864b27p-54, -0x1.0d55e32e9e3aap-56, 0x1.5cc13a2e3976cp-55, -0x1.dd6792e582524p-54, \
  -0x1.75fc781b57ebcp-57, -0x1.64b7c96a5f039p-56, -0x1.d185b7c1b85d1p-54, -0x1.173bd91cee632p-54, \
  0x1.c7c46b071f2bep-56, 0x1.824ca78e64c6ep-56, -0x1.359495d1cd533p-54, 0x1.6305c7ddc36abp-54, \
  -0x1.d2f6edb8d41e1p-54, 0x1.bcb7ecac563c7p-54, 0x1.0fac90ef7fd31p-54, -0x1.f9234cae76cd0p-55, \
  0x1.7a1cd345dcc81p-54, -0x1.bdef54c80e425p-54, -0x1.2805e3084d708p-57, -0x1.c71dfbbba6de3p-54, \
  -0x1.5584f7e54ac3bp-56, -0x1.efcd30e54292ep-54, 0x1.23dd07a2d9e84p-55, -0x1.efdca3f6b9c73p-54, \
  0x1.11065895048ddp-55, 0x1.b4537e083c60ap-54, 0x1.2884dff483cadp-54, 0x1.1acbc48805c44p-56, \
  0x1.503cbd1e949dbp-56, -0x1.dd83b53829d72p-55, -0x1.cbc3743797a9cp-54, -0x1.d487b719d8578p-54, \
  0x1.2ed02d75b3707p-55, -0x1.11ec18beddfe8p-54, 0x1.c2300696db532p-54, 0x1.2da5778f018c3p-54, \
  -0x1.1a5cd4f184b5cp-54, -0x1.7b627817a1496p-54, 0x1.39e8980a9cc8fp-55, 0x1.2d522ca0c8de2p-54, \
  -0x1.e9c23179c2893p-54, -0x1.c93f3b411ad8cp-54, 0x1.dc7f486a4b6b0p-54, 0x1.3a1a5bf0d8e43p-54, \
  0x1.9d3e12dd8a18bp-54, -0x1.dbb12d006350ap-54, 0x1.74853f3a5931ep-55, 0x1.2eb74966579e7p-57 }
DLX_MTABLE_DEFINE(double, dlx__exp_thi, 128, DLX_EXP_THI_VALUES)
DLX_MTABLE_DEFINE(double, dlx__exp_tlo, 128, DLX_EXP_TLO_VALUES)

#define DLX_EXP_SHIFT 0x1.8p52             /* adding it rounds |v| < 2^51 to an integer, kept in the low bits */
#define DLX_EXP_INVLN2N 0x1.71547652b82fep+7 /* 128 / ln2 (only picks k: its error just widens r a little) */
#define DLX_EXP_LN2N_HI 0x1.62e42fefc0000p-8 /* ln2/128, 35 significant bits */
#define DLX_EXP_LN2N_LO -0x1.c610ca86c3899p-44 /* ln2/128 - hi, to double (the rest is 2^-98) */
/* the bias that keeps k's integer bits positive: a multiple of 256, far above every |k| here */
#define DLX_EXP_KBIAS (UINT64_C(1) << 40)

/* A reduced argument: r, the table index j, and e = k >> 7 plus 2^33 (an unsigned value, so that every
 * shift below is well defined in C; the bias comes off where the exponent bits are formed). */
typedef struct dlx__exp_red {
  double r;
  uint64_t j; /* 64 bits wide: GCC 12 gathers doubles by 64-bit indices, not by 32-bit ones */
  uint64_t eb;
} dlx__exp_red;

/* k from t = v + DLX_EXP_SHIFT: the low bits of t are k (two's complement below the shift's bits) */
DLX_EXP_INLINE void dlx__exp_split_k(double t, dlx__exp_red *red) {
  const uint64_t kb = dlx__m_bits64(t) - dlx__m_bits64(DLX_EXP_SHIFT) + DLX_EXP_KBIAS;
  red->j = kb & 127u;
  red->eb = kb >> 7; /* floor(k / 128) + 2^33 */
}

/* x = (k/128) ln2 + r for |x| <= 1100 (or NaN, which gives a NaN r) */
DLX_EXP_INLINE dlx__exp_red dlx__exp_reduce(double x) {
  dlx__exp_red red;
  const double t = x * DLX_EXP_INVLN2N + DLX_EXP_SHIFT;
  const double kd = t - DLX_EXP_SHIFT;
  red.r = (x - kd * DLX_EXP_LN2N_HI) - kd * DLX_EXP_LN2N_LO; /* the first difference is exact */
  dlx__exp_split_k(t, &red);
  return red;
}

/* x = k/128 + r/ln2 for |x| <= 1100: r is x - k/128 (exact: x * 128 and k are close) times ln2; the
 * polynomial takes r / ln2 instead, so here r holds x - k/128 and dlx__exp2_poly scales it */
DLX_EXP_INLINE dlx__exp_red dlx__exp2_reduce(double x) {
  dlx__exp_red red;
  const double t = x * 128.0 + DLX_EXP_SHIFT;
  const double kd = t - DLX_EXP_SHIFT;
  red.r = x - kd * 0x1p-7;
  dlx__exp_split_k(t, &red);
  return red;
}

/* e^r - 1 for |r| <= ln2/256 (Taylor to degree 5) */
DLX_EXP_INLINE double dlx__exp_poly5(double r) {
  const double q = 0.5 + r * (0x1.5555555555555p-3 + r * (0x1.5555555555555p-5 + r * 0x1.1111111111111p-7));
  return r + (r * r) * q;
}

/* 2^r - 1 for |r| <= 1/256 (the Taylor series of e^(r ln2), coefficients ln2^i / i!) */
DLX_EXP_INLINE double dlx__exp2_poly5(double r) {
  const double q = 0x1.ebfbdff82c58fp-3 +
                   r * (0x1.c6b08d704a0c0p-5 + r * (0x1.3b2ab6fba4e77p-7 + r * 0x1.5d87fe78a6731p-10));
  return r * 0x1.62e42fefa39efp-1 + (r * r) * q;
}

/* 2^(e) from a biased e (eb = e + 2^33) for a normal double's exponent range */
DLX_EXP_INLINE double dlx__exp_pow2(uint64_t eb) {
  return dlx__m_from64((eb - (UINT64_C(1) << 33) + 1023u) << 52);
}

/* T_hi[j] * 2^e, built by adding e to the exponent bits (exact while the result is a normal double) */
DLX_EXP_INLINE double dlx__exp_scaled_hi(const dlx__exp_red *red) {
  return dlx__m_from64(dlx__m_bits64(DLX_MT(dlx__exp_thi)[red->j]) + ((red->eb - (UINT64_C(1) << 33)) << 52));
}

/* x clamped to [-lim, lim] (lim > 0); NaN passes. Past |x| = 200 every float32 result is already inf,
 * 0, -1 or +-1, and past 800 every float64 one. Done on the bits, keeping x's sign: a clamp by selects
 * of the constants +-lim lets GCC fold the whole function for those two values and then read the
 * table under a condition, which its vectoriser cannot gather; (sign | lim) is not a constant. */
DLX_EXP_INLINE double dlx__exp_clamp(double x, double lim) {
  const uint64_t u = dlx__m_bits64(x), a = u & UINT64_C(0x7fffffffffffffff), l = dlx__m_bits64(lim);
  const uint64_t big = (uint64_t)0 - (uint64_t)((a > l) & (a <= UINT64_C(0x7ff0000000000000)));
  return dlx__m_from64((u & ~big) | (((u & ~UINT64_C(0x7fffffffffffffff)) | l) & big));
}

/* ---- float32 ------------------------------------------------------------------------------------ */

/* e^x - 1 in double for |x| <= 200 (float32's expm1 and tanh): (2^e T_hi - 1) + 2^e (T_lo + T_hi p).
 * Near 0 the first term is exact (Sterbenz: 2^e T_hi is within [1/2, 2] of 1), and for k = 0 it is 0,
 * so the result is p itself: its relative error stays that of the polynomial, 2^-52 at |r| = ln2/256. */
DLX_EXP_INLINE double dlx__expm1_core(double x) {
  const dlx__exp_red red = dlx__exp_reduce(x);
  const double p = dlx__exp_poly5(red.r);
  const double sc = dlx__exp_pow2(red.eb);
  const double thi = DLX_MT(dlx__exp_thi)[red.j], tlo = DLX_MT(dlx__exp_tlo)[red.j];
  return (sc * thi - 1.0) + sc * (tlo + thi * p);
}

DLX_EXP_INLINE double dlx__wide_exp(float xf) {
  const double xd = (double)xf;
  const dlx__exp_red red = dlx__exp_reduce(dlx__exp_clamp(xd, 200.0));
  const double s = dlx__exp_scaled_hi(&red);
  return s + s * dlx__exp_poly5(red.r); /* a NaN x gives a NaN r, and a quiet NaN here */
}
DLX_EXP_INLINE float dlx__expf(float x) { return (float)dlx__wide_exp(x); }

/* y, or v where the input's bits u are xb: an exception of the exhaustive check, blended in by a mask (a
 * select would let GCC fold the function for that one input and read the table under a condition,
 * which its vectoriser cannot gather) */
DLX_EXP_INLINE double dlx__exp_fix(uint32_t u, uint32_t xb, double v, double y) {
  return dlx__m_from64(dlx__m_pick64(u, xb, dlx__m_bits64(v), dlx__m_bits64(y)));
}

/* exact for integer x (r = 0, p = 0, T_hi[0] = 1), as IEEE 754 wants 2^n to be. Two inputs of the 2^32
 * have a true value within 2^-53 (relative) above a float32 midpoint, where the double sum lands on the
 * midpoint itself; they return the double just above it (the true value rounded to double would be
 * the midpoint too). */
DLX_EXP_INLINE double dlx__wide_exp2(float xf) {
  const double xd = (double)xf;
  const dlx__exp_red red = dlx__exp2_reduce(dlx__exp_clamp(xd, 200.0));
  const double s = dlx__exp_scaled_hi(&red);
  const double y = s + s * dlx__exp2_poly5(red.r);
  const uint32_t u = dlx__m_bits32(xf);
  return dlx__exp_fix(u, 0x3b429d37u, 0x1.0087090000001p+0, dlx__exp_fix(u, 0xbcf3a937u, 0x1.f58d610000001p-1, y));
}
DLX_EXP_INLINE float dlx__exp2f(float x) { return (float)dlx__wide_exp2(x); }

/* expm1(x) has x's sign, which copysign restores where the core computes +0 (x = -0); below -200 the
 * result is -1 to every format. (Copying the sign instead of selecting x: a select would let GCC move
 * the table reads under a condition, which its vectoriser cannot gather.) */
DLX_EXP_INLINE double dlx__wide_expm1(float xf) {
  const double xd = (double)xf;
  return copysign(dlx__expm1_core(dlx__exp_clamp(xd, 200.0)), xd);
}
DLX_EXP_INLINE float dlx__expm1f(float x) { return (float)dlx__wide_expm1(x); }

/* tanh|x| = e / (e + 2) with e = expm1(2|x|) (2|x| is exact); its relative error stays near e's for
 * small |x| too (e ~ 2|x|), so no separate series is needed. Past |x| = 20, tanh is 1 to within 2^-57
 * (float32 rounds it to 1 from 9.01 on). The sign is copied back: tanh(-0) = -0, NaN stays NaN. */
DLX_EXP_INLINE double dlx__wide_tanh(float xf) {
  const double xd = (double)xf;
  const double a = fabs(xd);
  const double e = dlx__expm1_core(dlx__exp_clamp(a + a, 40.0));
  return copysign(e / (e + 2.0), xd);
}
DLX_EXP_INLINE float dlx__tanhf(float x) { return (float)dlx__wide_tanh(x); }

/* ---- float64 ------------------------------------------------------------------------------------ */

/* y * 2^e (eb = e + 2^33, |e| <= 1160) as (y * 2^floor(e/2)) * 2^(e - floor(e/2)): the first product is
 * exact for y near 1, the second rounds once, to a subnormal, 0 or inf where the result lies there. */
DLX_EXP_INLINE double dlx__exp_scale2(double y, uint64_t eb) {
  const uint64_t e1b = (eb >> 1) + (UINT64_C(1) << 32); /* floor(e/2) + 2^33 */
  const uint64_t e2b = eb - e1b + (UINT64_C(1) << 33);  /* e - floor(e/2) + 2^33 */
  return (y * dlx__exp_pow2(e1b)) * dlx__exp_pow2(e2b);
}

/* 2^(j/128) e^r = T_hi + (T_lo + T_hi p): the table's tail keeps its rounding out of the result */
DLX_EXP_INLINE double dlx__exp_tail(const dlx__exp_red *red, double p) {
  const double thi = DLX_MT(dlx__exp_thi)[red->j], tlo = DLX_MT(dlx__exp_tlo)[red->j];
  return thi + (tlo + thi * p);
}

/* e^x: |x| is clamped to 800, past both overflow (709.79) and underflow to 0 (-745.14) */
DLX_EXP_INLINE double dlx__exp(double x) {
  const dlx__exp_red red = dlx__exp_reduce(dlx__exp_clamp(x, 800.0));
  return dlx__exp_scale2(dlx__exp_tail(&red, dlx__exp_poly5(red.r)), red.eb); /* NaN in, NaN out */
}

/* 2^x: clamped to |x| <= 1100 (2^1024 overflows, 2^-1075 rounds to 0); integers are exact */
DLX_EXP_INLINE double dlx__exp2(double x) {
  const dlx__exp_red red = dlx__exp2_reduce(dlx__exp_clamp(x, 1100.0));
  return dlx__exp_scale2(dlx__exp_tail(&red, dlx__exp2_poly5(red.r)), red.eb);
}

/* a + b = s + *err exactly (Knuth's two-sum: any order of magnitudes) */
DLX_EXP_INLINE double dlx__exp_two_sum(double a, double b, double *err) {
  const double s = a + b, bb = s - a;
  *err = (a - (s - bb)) + (b - bb);
  return s;
}

/* a * b = h + *lo exactly (Dekker's product from Veltkamp's 26-bit halves; no FMA), for |a|, |b| < 2^995 */
DLX_EXP_INLINE double dlx__exp_two_prod(double a, double b, double *lo) {
  const double ca = a * 134217729.0, cb = b * 134217729.0; /* 2^27 + 1 */
  const double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
  const double h = a * b;
  *lo = ((ah * bh - h) + ah * bl + al * bh) + al * bl;
  return h;
}

/* e^x - 1 = (2^e T_hi - 1) + 2^e (T_hi p + T_lo (1 + p)), with the rounding errors of r, of p's last
 * sum, of T_hi p and of both sums carried as a second double to the end, so the result is rounded about
 * once: near 0, where the two terms cancel (x ~ ln2/256: k = 1 and r ~ -x), a plain double sum would
 * err by 2 ulps. For e >= 1000 (x > 693) 2^e would overflow at the top (e = 1024 at x = 709.78), so there
 * the sum is formed at half scale and doubled (exactly, or into the true overflow); for e < -1000
 * (x < -693) the result is -1 to double precision and 2^e stays 2^-1000. For k = 0 the sum is p, which
 * is x for tiny and subnormal x; the sign is copied from x, as expm1(-0) = -0 wants (selects of
 * constants only: a select of x would move the table reads under a condition, which GCC's vectoriser
 * cannot gather). */
DLX_EXP_INLINE double dlx__expm1_dd(double xc, double *lo, double *m) {
  dlx__exp_red red;
  const double t = xc * DLX_EXP_INVLN2N + DLX_EXP_SHIFT;
  const double kd = t - DLX_EXP_SHIFT;
  double rl, pl, bl, al, sl;
  const double r = dlx__exp_two_sum(xc - kd * DLX_EXP_LN2N_HI, -(kd * DLX_EXP_LN2N_LO), &rl);
  dlx__exp_split_k(t, &red);
  const uint64_t eb_min = (UINT64_C(1) << 33) - 1000u;
  const uint64_t eb = red.eb < eb_min ? eb_min : red.eb;
  const int big = eb >= (UINT64_C(1) << 33) + 1000u;
  const double sc = dlx__exp_pow2(eb - (uint64_t)big);
  /* p = e^r - 1 = ph + pl: r + r^2 q with the sum's error and r's */
  const double r2q = (r * r) * (0.5 + r * (0x1.5555555555555p-3 +
                                           r * (0x1.5555555555555p-5 + r * (0x1.1111111111111p-7 +
                                                                            r * 0x1.6c16c16c16c17p-10))));
  const double ph = r + r2q;
  pl = ((r - ph) + r2q) + rl;
  const double thi = DLX_MT(dlx__exp_thi)[red.j], tlo = DLX_MT(dlx__exp_tlo)[red.j];
  const double bh = dlx__exp_two_prod(thi, ph, &bl);
  const double a = dlx__exp_two_sum(sc * thi, big ? -0.5 : -1.0, &al);
  const double s = dlx__exp_two_sum(a, sc * bh, &sl);
  *lo = (sl + al) + sc * (((bl + thi * pl) + tlo) + tlo * ph);
  *m = big ? 2.0 : 1.0;
  return s;
}

/* e^x - 1 for x clamped to |x| <= 710: (s + lo) * m, the sign copied from x */
DLX_EXP_INLINE double dlx__expm1(double x) {
  double lo, m;
  const double s = dlx__expm1_dd(dlx__exp_clamp(x, 710.0), &lo, &m);
  return copysign((s + lo) * m, x);
}

/* tanh|x| = e / (e + 2) with e = expm1(2|x|) as a double-double eh + el (2|x| <= 40: no half scale).
 * The quotient is corrected by its remainder (e - q (e + 2)), formed exactly with a two-sum and a
 * Dekker product, so the result is rounded about once (a plain e / (e + 2) errs by 2 ulps). Past |x| =
 * 20, tanh is 1 to double precision (1 - 2e^-40). The sign is copied back: tanh(-0) = -0, NaN stays. */
DLX_EXP_INLINE double dlx__tanh(double x) {
  double el, m, dl, qdl;
  const double eh = dlx__expm1_dd(dlx__exp_clamp(fabs(x) + fabs(x), 40.0), &el, &m);
  const double d = dlx__exp_two_sum(eh, 2.0, &dl); /* e + 2 = d + dl */
  const double dl2 = dl + el;
  const double q = eh / d;
  const double qdh = dlx__exp_two_prod(q, d, &qdl);
  const double rem = (((eh - qdh) - qdl) + el) - q * dl2; /* e - q (e + 2), to first order */
  return copysign(q + rem / d, x);
}

#endif /* DLX_KERNELS_MATH_EXP_H */

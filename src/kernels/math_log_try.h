/* Internal: the first tries (kernels/math_common.h) of the float32 logarithms log, log2, log10 and log1p:
 * the log in plain double to within 2^-44, which the CPU loops round wherever dlx__m_undecided32 accepts
 * it, taking math_log.h's correctly rounded rules for the rest. Its own table and rules; the reduction
 * (the interval index, invc, e) is math_log.h's. docs/math-log.md has the error argument and the checks. */
#ifndef DLX_KERNELS_MATH_LOG_TRY_H
#define DLX_KERNELS_MATH_LOG_TRY_H

#include <stdint.h>

#include "kernels/math_log.h"

#define DLX_MLOG_LN2 0x1.62e42fefa39efp-1 /* log(2) rounded */

/* T_i = -log(invc_i) rounded whole (math_log.h's hi + lo, to double) */
#define DLX__MLOG_LN_VALUES \
  {-0x1.5ff3070a793d4p-2, -0x1.5d1bdbf5809cap-2, -0x1.5a42ab0f4cfe2p-2, -0x1.5767717455a6cp-2, \
   -0x1.548a2c3add263p-2, -0x1.51aad872df82dp-2, -0x1.4ec973260026ap-2, -0x1.4be5f957778a1p-2, \
   -0x1.4a7373cecf997p-2, -0x1.478cd5959b3d9p-2, -0x1.44a41b463c47cp-2, -0x1.41b941cce0beep-2, \
   -0x1.3ecc460ef5f5p-2, -0x1.3bdd24eb14b6ap-2, -0x1.38ebdb38ed321p-2, -0x1.3772662bfd85bp-2, \
   -0x1.347dd9a987d55p-2, -0x1.31871c9544185p-2, -0x1.2e8e2bae11d31p-2, -0x1.2b9303ab89d25p-2, \
   -0x1.2895a13de86a3p-2, -0x1.27161913f853dp-2, -0x1.241558bfd1404p-2, -0x1.211255986160cp-2, \
   -0x1.1e0d0c33716bep-2, -0x1.1c898c16999fbp-2, -0x1.1980d2dd4236fp-2, -0x1.1675cababa60ep-2, \
   -0x1.136870293a8bp-2, -0x1.11e0e2dad9cb7p-2, -0x1.0ed005f657da4p-2, -0x1.0bbccdb0d24bdp-2, \
   -0x1.0a324e27390e3p-2, -0x1.071b85fcd590dp-2, -0x1.0402594b4d041p-2, -0x1.0274dc16c232fp-2, \
   -0x1.feb0233e607ccp-3, -0x1.f871b28955045p-3, -0x1.f550a564b7b37p-3, -0x1.ef0adcbdc5936p-3, \
   -0x1.e8c0252aa5a6p-3, -0x1.e598ed5a87e2fp-3, -0x1.df46c0c722d2fp-3, -0x1.dc1bca0abec7dp-3, \
   -0x1.d5c216b4fbb91p-3, -0x1.d293581b6b3e7p-3, -0x1.cc320c0176502p-3, -0x1.c5cba543ae425p-3, \
   -0x1.c2968558c18c1p-3, -0x1.bc286742d8cd6p-3, -0x1.b8ef670420c3bp-3, -0x1.b2797ee46320cp-3, \
   -0x1.af3c94e80bff3p-3, -0x1.a8becfc882f19p-3, -0x1.a57df28244dcdp-3, -0x1.9ef83d2769a34p-3, \
   -0x1.9bb362e7dfb83p-3, -0x1.9525a9cf456b4p-3, -0x1.91dcc8c340bdep-3, -0x1.8b46f8223625bp-3, \
   -0x1.87fa06520c911p-3, -0x1.815c0a14357ebp-3, -0x1.7e0afd630c274p-3, -0x1.7764c128f2127p-3, \
   -0x1.740f8f54037a5p-3, -0x1.6d60fe719d21dp-3, -0x1.6a079d0f7aad2p-3, -0x1.66acd4272ad51p-3, \
   -0x1.5ff3070a793d4p-3, -0x1.5c940075972b9p-3, -0x1.55d1ad4232d6fp-3, -0x1.526e5e3a1b438p-3, \
   -0x1.4f099f4a230b2p-3, -0x1.483bccce6e3ddp-3, -0x1.44d2b6ccb7d1ep-3, -0x1.41682bf727bcp-3, \
   -0x1.3a8eb2d31a376p-3, -0x1.371fc201e8f74p-3, -0x1.303d718e47fd3p-3, -0x1.2cca0f5f5f251p-3, \
   -0x1.29552f81ff523p-3, -0x1.2266f190a5acbp-3, -0x1.1eed90e2dc2c3p-3, -0x1.1b72ad52f67ap-3, \
   -0x1.14785846742acp-3, -0x1.10f8e422539b1p-3, -0x1.0d77e7cd08e59p-3, -0x1.09f561ee719c3p-3, \
   -0x1.02ebb42bf3d4bp-3, -0x1.fec9131dbeabbp-4, -0x1.f7b79fec37ddfp-4, -0x1.e98b549671467p-4, \
   -0x1.e27076e2af2e6p-4, -0x1.db5270187d927p-4, -0x1.d4313d66cb35dp-4, -0x1.c5e548f5bc743p-4, \
   -0x1.beba818146765p-4, -0x1.b78c82bb0eda1p-4, -0x1.b05b49bee43fep-4, -0x1.a1ef1d8061cd4p-4, \
   -0x1.9ab42462033adp-4, -0x1.9375e55595edep-4, -0x1.8c345d6319b21p-4, -0x1.84ef898e8282ap-4, \
   -0x1.765bf23a6be13p-4, -0x1.6f0d28ae56b4cp-4, -0x1.67bb0726ec0fcp-4, -0x1.60658a93750c4p-4, \
   -0x1.590cafdf01c28p-4, -0x1.4a50d3aa1b04p-4, -0x1.42edcbea646fp-4, -0x1.3b87598b1b6eep-4, \
   -0x1.341d7961bd1d1p-4, -0x1.2cb0283f5de1fp-4, -0x1.253f62f0a1417p-4, -0x1.16536eea37ae1p-4, \
   -0x1.0ed839b5526fep-4, -0x1.075983598e471p-4, -0x1.ffae9119b9303p-5, -0x1.f0a30c01162a6p-5, \
   -0x1.e19070c276016p-5, -0x1.d276b8adb0b52p-5, -0x1.c355dd0921f2dp-5, -0x1.a4fe9ffa3d235p-5, \
   -0x1.95c830ec8e3ebp-5, -0x1.868a83083f6cfp-5, -0x1.77458f632dcfcp-5, -0x1.67f94f094bd98p-5, \
   -0x1.58a5bafc8e4d5p-5, -0x1.494acc34d911cp-5, -0x1.39e87b9febd6p-5, -0x1.2a7ec2214e873p-5, \
   -0x1.1b0d98923d98p-5, -0x1.0b94f7c196176p-5, -0x1.d91a66c543cc4p-6, -0x1.b9fc027af9198p-6, \
   -0x1.9ace7551cc514p-6, -0x1.7b91b07d5b11bp-6, -0x1.5c45a51b8d389p-6, -0x1.3cea44346a575p-6, \
   -0x1.1d7f7eb9eebe7p-6, -0x1.fc0a8b0fc03e4p-7, -0x1.bcf712c74384cp-7, -0x1.7dc475f810a77p-7, \
   -0x1.3e7295d25a7d9p-7, -0x1.fe02a6b106789p-8, -0x1.7ee11ebd82e94p-8, -0x1.ff00aa2b10bcp-9, \
   -0x1.ff802a9ab10e6p-10, 0x0p+0, 0x1.0080559588b35p-8, 0x1.010157588de71p-7, \
   0x1.82448a388a2aap-7, 0x1.0205658935847p-6, 0x1.432a925980cc1p-6, 0x1.74321d3d006d3p-6, \
   0x1.b5cc258b718e6p-6, 0x1.f7a9b16782856p-6, 0x1.1ce5a62bc353ap-5, 0x1.35c8bfaa1306bp-5, \
   0x1.5715c4c03ceefp-5, 0x1.788595a3577bap-5, 0x1.91b073efd7314p-5, 0x1.b35dd9b58baadp-5, \
   0x1.d52ed6405d86fp-5, 0x1.eea31c006b87cp-5, 0x1.08598b59e3a07p-4, 0x1.152b799bb3cc9p-4, \
   0x1.26536c3d8c369p-4, 0x1.333d7f8183f4bp-4, 0x1.4485e03dbdfadp-4, 0x1.518874226130ap-4, \
   0x1.5e95a4d9791cbp-4, 0x1.700d30aeac0e1p-4, 0x1.7d33687c293c9p-4, 0x1.8a6477a91dc29p-4, \
   0x1.9c0c32d4d2548p-4, 0x1.a956d3ecade63p-4, 0x1.b6ac88dad5b1cp-4, 0x1.c40d6425a5cb1p-4, \
   0x1.d5f55659210e2p-4, 0x1.e3707ee30487bp-4, 0x1.f0f70cdd992e3p-4, 0x1.fe89139dbd566p-4, \
   0x1.06135354d4b18p-3, 0x1.0ce7ecdccc28dp-3, 0x1.13c2605c398c3p-3, 0x1.1aa2b7e23f72ap-3, \
   0x1.2188fd9807263p-3, 0x1.28753bc11aba5p-3, 0x1.2f677cbbc0a96p-3, 0x1.365fcb0159016p-3, \
   0x1.3d5e3126bc27fp-3, 0x1.4462b9dc9b3dcp-3, 0x1.4b6d6fefe22a4p-3, 0x1.527e5e4a1b58dp-3, \
   0x1.59958ff1d52f1p-3, 0x1.60b3100b09476p-3, 0x1.67d6e9d785771p-3, 0x1.6c9d07d203fc7p-3, \
   0x1.73cb9074fd14dp-3, 0x1.7b0091651528cp-3, 0x1.823c16551a3c2p-3, 0x1.871213750e994p-3, \
   0x1.8e588ebac2dbfp-3, 0x1.95a5adcf7017fp-3, 0x1.9a8778debaa38p-3, 0x1.a1dfc40f1b7f1p-3, \
   0x1.a93ed3c8ad9e3p-3, 0x1.ae2ca6f672bd4p-3, 0x1.b5971a213acdbp-3, 0x1.bd087383bd8adp-3, \
   0x1.c2028ab17f9b4p-3, 0x1.c97f8079d44ecp-3, 0x1.ce816157f1988p-3, 0x1.d60a17f903515p-3, \
   0x1.db13db0d4894p-3, 0x1.e2a877a6b2c12p-3, 0x1.e7ba35eb77e2ap-3, 0x1.ef5ade4dcffe6p-3, \
   0x1.f474b134df229p-3, 0x1.fc218be620a5ep-3, 0x1.00a1c6adda473p-2, 0x1.047e60cde83b8p-2, \
   0x1.07138604d5862p-2, 0x1.09aa572e6c6d4p-2, 0x1.0d8fb813eb1efp-2, 0x1.102ac0a35cc1cp-2, \
   0x1.12c77cd00713bp-2, 0x1.16b5ccbacfb73p-2, 0x1.1956d3b9bc2fap-2, 0x1.1bf99635a6b95p-2, \
   0x1.1ff0fe7cf47a7p-2, 0x1.22981fbef797bp-2, 0x1.25410494e56c7p-2, 0x1.27ebaf58d8c9dp-2, \
   0x1.2bef07cdc9354p-2, 0x1.2e9e2bce12286p-2, 0x1.314f1e1d35ce4p-2, 0x1.3401e12aecba1p-2, \
   0x1.3811728564cb2p-2, 0x1.3ac8ca38e5c5fp-2, 0x1.3d81fb5946dbap-2, 0x1.403d086cea79cp-2, \
   0x1.42f9f3ff62642p-2, 0x1.45b8c0a17df13p-2, 0x1.487970e95877p-2, 0x1.4b3c077267e9ap-2, \
   0x1.4f637ebba981p-2, 0x1.522ae0738a3d8p-2, 0x1.54f431b7be1a9p-2, 0x1.57bf753c8d1fbp-2, \
   0x1.5a8cadbbedfa1p-2, 0x1.5d5bddf595f3p-2, 0x1.602d08af091ecp-2, 0x1.630030b3aac49p-2, \
  }
DLX_MTABLE_DEFINE(double, dlx__mlog_ln, 256, DLX__MLOG_LN_VALUES)

/* log1p(r) to r^5 (Taylor): the first term left out, r^6/6, is below 2^-46 of r for |r| < 2^-8.7. The
 * form r (1 + r q) keeps r's sign where r = -0. */
DLX_MLOG double dlx__mlog_p5(double r) {
  return r * (1.0 + r * (-0.5 + r * (0x1.5555555555555p-2 + r * (-0.25 + r * 0x1.999999999999ap-3))));
}

/* log(v) = e log(2) + T_i + log1p(r) in plain double for a positive normal v, times inv (1, 1/log(2) or
 * 1/log(10)). r = m invc - 1 is exact when v has at most 43 bits, and otherwise within 2^-53 (absolute).
 * |r| < 2^-8.71 in every interval, and the terms' magnitudes add up to at most 3.02 times the result's
 * (the tables scanned interval by interval, and e != 0, where the result is at least 0.34): the five
 * roundings cost under 2^-49 of the result, the polynomial's truncation 3.02 * 2^-46.1, together under
 * 2^-44. */
DLX_MLOG double dlx__mlog_try_core(double v, double inv) {
  uint64_t t;
  const uint64_t i = dlx__mlog_index(v, &t);
  const double e = dlx__mlog_edbl(t);
  const double r = dlx__mlog_mant(t) * DLX_MT(dlx__mlog_invc)[i] - 1.0;
  return ((e * DLX_MLOG_LN2 + DLX_MT(dlx__mlog_ln)[i]) + dlx__mlog_p5(r)) * inv;
}

/* log, log2 and log10 of a positive finite float32 (a double normal: no subnormal step); 1/log(2) and
 * 1/log(10) add one rounding each (exact cases such as log10(1000) = 3 come out within a few double ulps
 * of the integer, far from any midpoint) */
DLX_MLOG double dlx__logf_try(float x) {
  const double y = dlx__mlog_try_core((double)x, 1.0);
  return dlx__mlog_special32(x) ? DLX_M_TRY_NONE : y;
}
DLX_MLOG double dlx__log2f_try(float x) {
  const double y = dlx__mlog_try_core((double)x, DLX_MLOG_INVLN2);
  return dlx__mlog_special32(x) ? DLX_M_TRY_NONE : y;
}
DLX_MLOG double dlx__log10f_try(float x) {
  const double y = dlx__mlog_try_core((double)x, DLX_MLOG_INVLN10);
  return dlx__mlog_special32(x) ? DLX_M_TRY_NONE : y;
}

/* log1p: |x| < 2^-10 takes the polynomial of x itself (1 + x would round; +-0 stays); above, 1 + x is
 * exact up to 2^53 (at most 34 bits below 1, 47 up to 2^24), beyond it rounds by 2^-53, a 2^-58 share of
 * a result above 36. r's error of 2^-53 past 43 bits arises only where the result is above 0.69. */
DLX_MLOG double dlx__log1pf_try(float xf) {
  const double x = (double)xf;
  const double big = dlx__mlog_try_core(1.0 + x, 1.0);
  const double y = (xf > -0x1p-10f && xf < 0x1p-10f) ? dlx__mlog_p5(x) : big;
  return (xf > -1.0f && xf <= 0x1.fffffep127f) ? y : DLX_M_TRY_NONE;
}

#endif /* DLX_KERNELS_MATH_LOG_TRY_H */

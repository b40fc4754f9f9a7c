/* Internal: the logarithms log, log2, log10 and log1p (float32 correctly rounded, float64 deterministic),
 * per-element rules under math_common.h's contract. docs/math-log.md has the derivation and the checks.
 *
 * One reduction serves all of them. A positive v = 2^e * m with m in [0.708, 1.416): the index i of m's
 * top 8 bits (256 intervals, the one around 1.0 centred on it) picks invc_i, 1/c_i for the interval's
 * centre c_i rounded to 10 significant bits (exactly 1 for the interval around 1.0), so that
 *     log(v) = e*log(2) + T_i + log1p(r),   r = m*invc_i - 1,   T_i = -log(invc_i),   |r| < 2^-8.7,
 * and r is exact in double: m*invc_i has at most 53 bits when m has at most 43, and subtracting 1 from a
 * value in [1/2, 2] is exact (Sterbenz). T_i is stored as T_hi, a multiple of 2^-42, plus T_lo, and
 * log(2) likewise, so that e*L_hi + T_hi is exact for every |e| < 2^11. log1p(r) is r + r^2*Q(r) with
 * Q the Taylor polynomial to r^5/7, whose truncation error is below 2^-63 of the result.
 * The pieces are added as a double-double (hi exact, the rounding error of hi + r kept by Fast2Sum).
 *
 * float32 (dlx__wide_log ...): the double-double is summed into one double y with the final rounding
 * error known exactly, and y is moved to the odd neighbour when that error is nonzero and y is even:
 * y is then the sum rounded to odd, and rounding it once more to any precision p <= 51 (float32,
 * float16, bfloat16, the float8 formats) is the correct rounding of the double-double (Boldo and
 * Melquiond's round-to-odd). The double-double's error is below about 2^-62 relative, so the result is
 * correctly rounded unless log(x) lies that close to a rounding boundary; the exhaustive checks of
 * bench/math/dev_log.c find no such float32 input (and no narrow-format one).
 * log2f and log10f skip the rounding to odd (see dlx__mlog_plain32 below: one exception).
 * The CPU loops' first tries of these four (plain double, kernels/math_common.h) are math_log_try.h's.
 *
 * float64 (dlx__log ...): m has 53 bits, so it is split into mh (its top 43 bits) and ml: r_hi =
 * mh*invc - 1 is exact, and d = ml*invc (exact too) enters as log1p(r_hi + d) = log1p(r_hi) +
 * d/(1 + r_hi) - d^2/2 (in the interval around 1.0, where invc = 1, m - 1 is exact unsplit). log1p
 * reduces 1 + x as the double-double hi + lo, lo entering d; for 1 + x near 1.0, r = x itself. The
 * double-double is rounded once to nearest: at most 0.504 ulp measured (docs/math-log.md).
 * Every operation is one IEEE double operation, in the same order everywhere: no FMA, no libm call. */
#ifndef DLX_KERNELS_MATH_LOG_H
#define DLX_KERNELS_MATH_LOG_H

#include <stdint.h>

#include "kernels/math_common.h"

/* m's interval 0 starts at the double whose upper 32 bits are DLX_MLOG_OFF32 (0.70801, near sqrt(1/2));
 * interval i spans 2^12 values of those upper bits, and 1.0 (0x3ff00000) is the centre of interval 149 */
#define DLX_MLOG_OFF32 0x3fe6a800u
#define DLX_MLOG_ONE 149u

/* log(2) and log10(2) as a multiple of 2^-42 plus the rest; 1/log(2) and 1/log(10) as 26 bits plus the
 * rest (r has at most 25 bits in the float32 path: m*invc is a multiple of 2^-33 below 2^-8.7 away from
 * 1, so r * INV*_HI is exact there), and rounded whole */
#define DLX_MLOG_LN2_HI 0x1.62e42fefa38p-1
#define DLX_MLOG_LN2_LO 0x1.ef35793c7673p-45
#define DLX_MLOG_LOG10_2_HI 0x1.34413509f8p-2
#define DLX_MLOG_LOG10_2_LO -0x1.80433b83b532ap-44
#define DLX_MLOG_INVLN2_HI 0x1.7154768p+0
#define DLX_MLOG_INVLN2_LO -0x1.6a3e80f444178p-27
#define DLX_MLOG_INVLN10_HI 0x1.bcb7b18p-2
#define DLX_MLOG_INVLN10_LO -0x1.6c8d78e6acaa4p-29
#define DLX_MLOG_INVLN2 0x1.71547652b82fep+0
#define DLX_MLOG_INVLN10 0x1.bcb7b1526e50ep-2

/* Tables (generated: docs/math-log.md has the generator). invc: 1/c_i to 10 bits; T_i = -log_b(invc_i) as
 * hi (a multiple of 2^-42) + lo, for b = e, 2 and 10. */
#define DLX__MLOG_INVC_VALUES \
  {0x1.69p+0, 0x1.68p+0, 0x1.67p+0, 0x1.66p+0, 0x1.65p+0, \
   0x1.64p+0, 0x1.63p+0, 0x1.62p+0, 0x1.618p+0, 0x1.608p+0, \
   0x1.5f8p+0, 0x1.5e8p+0, 0x1.5d8p+0, 0x1.5c8p+0, 0x1.5b8p+0, \
   0x1.5bp+0, 0x1.5ap+0, 0x1.59p+0, 0x1.58p+0, 0x1.57p+0, \
   0x1.56p+0, 0x1.558p+0, 0x1.548p+0, 0x1.538p+0, 0x1.528p+0, \
   0x1.52p+0, 0x1.51p+0, 0x1.5p+0, 0x1.4fp+0, 0x1.4e8p+0, \
   0x1.4d8p+0, 0x1.4c8p+0, 0x1.4cp+0, 0x1.4bp+0, 0x1.4ap+0, \
   0x1.498p+0, 0x1.488p+0, 0x1.478p+0, 0x1.47p+0, 0x1.46p+0, \
   0x1.45p+0, 0x1.448p+0, 0x1.438p+0, 0x1.43p+0, 0x1.42p+0, \
   0x1.418p+0, 0x1.408p+0, 0x1.3f8p+0, 0x1.3fp+0, 0x1.3ep+0, \
   0x1.3d8p+0, 0x1.3c8p+0, 0x1.3cp+0, 0x1.3bp+0, 0x1.3a8p+0, \
   0x1.398p+0, 0x1.39p+0, 0x1.38p+0, 0x1.378p+0, 0x1.368p+0, \
   0x1.36p+0, 0x1.35p+0, 0x1.348p+0, 0x1.338p+0, 0x1.33p+0, \
   0x1.32p+0, 0x1.318p+0, 0x1.31p+0, 0x1.3p+0, 0x1.2f8p+0, \
   0x1.2e8p+0, 0x1.2ep+0, 0x1.2d8p+0, 0x1.2c8p+0, 0x1.2cp+0, \
   0x1.2b8p+0, 0x1.2a8p+0, 0x1.2ap+0, 0x1.29p+0, 0x1.288p+0, \
   0x1.28p+0, 0x1.27p+0, 0x1.268p+0, 0x1.26p+0, 0x1.25p+0, \
   0x1.248p+0, 0x1.24p+0, 0x1.238p+0, 0x1.228p+0, 0x1.22p+0, \
   0x1.218p+0, 0x1.208p+0, 0x1.2p+0, 0x1.1f8p+0, 0x1.1fp+0, \
   0x1.1ep+0, 0x1.1d8p+0, 0x1.1dp+0, 0x1.1c8p+0, 0x1.1b8p+0, \
   0x1.1bp+0, 0x1.1a8p+0, 0x1.1ap+0, 0x1.198p+0, 0x1.188p+0, \
   0x1.18p+0, 0x1.178p+0, 0x1.17p+0, 0x1.168p+0, 0x1.158p+0, \
   0x1.15p+0, 0x1.148p+0, 0x1.14p+0, 0x1.138p+0, 0x1.13p+0, \
   0x1.12p+0, 0x1.118p+0, 0x1.11p+0, 0x1.108p+0, 0x1.1p+0, \
   0x1.0f8p+0, 0x1.0fp+0, 0x1.0e8p+0, 0x1.0d8p+0, 0x1.0dp+0, \
   0x1.0c8p+0, 0x1.0cp+0, 0x1.0b8p+0, 0x1.0bp+0, 0x1.0a8p+0, \
   0x1.0ap+0, 0x1.098p+0, 0x1.09p+0, 0x1.088p+0, 0x1.078p+0, \
   0x1.07p+0, 0x1.068p+0, 0x1.06p+0, 0x1.058p+0, 0x1.05p+0, \
   0x1.048p+0, 0x1.04p+0, 0x1.038p+0, 0x1.03p+0, 0x1.028p+0, \
   0x1.02p+0, 0x1.018p+0, 0x1.01p+0, 0x1.008p+0, 0x1p+0, \
   0x1.fep-1, 0x1.fcp-1, 0x1.fap-1, 0x1.f8p-1, 0x1.f6p-1, \
   0x1.f48p-1, 0x1.f28p-1, 0x1.f08p-1, 0x1.ee8p-1, 0x1.edp-1, \
   0x1.ebp-1, 0x1.e9p-1, 0x1.e78p-1, 0x1.e58p-1, 0x1.e38p-1, \
   0x1.e2p-1, 0x1.ep-1, 0x1.de8p-1, 0x1.dc8p-1, 0x1.dbp-1, \
   0x1.d9p-1, 0x1.d78p-1, 0x1.d6p-1, 0x1.d4p-1, 0x1.d28p-1, \
   0x1.d1p-1, 0x1.cfp-1, 0x1.cd8p-1, 0x1.ccp-1, 0x1.ca8p-1, \
   0x1.c88p-1, 0x1.c7p-1, 0x1.c58p-1, 0x1.c4p-1, 0x1.c28p-1, \
   0x1.c1p-1, 0x1.bf8p-1, 0x1.bep-1, 0x1.bc8p-1, 0x1.bbp-1, \
   0x1.b98p-1, 0x1.b8p-1, 0x1.b68p-1, 0x1.b5p-1, 0x1.b38p-1, \
   0x1.b2p-1, 0x1.b08p-1, 0x1.afp-1, 0x1.ad8p-1, 0x1.ac8p-1, \
   0x1.abp-1, 0x1.a98p-1, 0x1.a8p-1, 0x1.a7p-1, 0x1.a58p-1, \
   0x1.a4p-1, 0x1.a3p-1, 0x1.a18p-1, 0x1.ap-1, 0x1.9fp-1, \
   0x1.9d8p-1, 0x1.9cp-1, 0x1.9bp-1, 0x1.998p-1, 0x1.988p-1, \
   0x1.97p-1, 0x1.96p-1, 0x1.948p-1, 0x1.938p-1, 0x1.92p-1, \
   0x1.91p-1, 0x1.8f8p-1, 0x1.8e8p-1, 0x1.8dp-1, 0x1.8cp-1, \
   0x1.8bp-1, 0x1.898p-1, 0x1.888p-1, 0x1.878p-1, 0x1.86p-1, \
   0x1.85p-1, 0x1.84p-1, 0x1.828p-1, 0x1.818p-1, 0x1.808p-1, \
   0x1.7f8p-1, 0x1.7ep-1, 0x1.7dp-1, 0x1.7cp-1, 0x1.7bp-1, \
   0x1.798p-1, 0x1.788p-1, 0x1.778p-1, 0x1.768p-1, 0x1.758p-1, \
   0x1.748p-1, 0x1.738p-1, 0x1.728p-1, 0x1.71p-1, 0x1.7p-1, \
   0x1.6fp-1, 0x1.6ep-1, 0x1.6dp-1, 0x1.6cp-1, 0x1.6bp-1, \
   0x1.6ap-1}
#define DLX__MLOG_LN_HI_VALUES \
  {-0x1.5ff3070a79p-2, -0x1.5d1bdbf581p-2, -0x1.5a42ab0f4dp-2, -0x1.5767717456p-2, -0x1.548a2c3addp-2, \
   -0x1.51aad872ep-2, -0x1.4ec97326p-2, -0x1.4be5f95778p-2, -0x1.4a7373cedp-2, -0x1.478cd5959bp-2, \
   -0x1.44a41b463cp-2, -0x1.41b941cce1p-2, -0x1.3ecc460ef6p-2, -0x1.3bdd24eb15p-2, -0x1.38ebdb38edp-2, \
   -0x1.3772662bfep-2, -0x1.347dd9a988p-2, -0x1.31871c9544p-2, -0x1.2e8e2bae12p-2, -0x1.2b9303ab8ap-2, \
   -0x1.2895a13de8p-2, -0x1.27161913f8p-2, -0x1.241558bfd1p-2, -0x1.2112559861p-2, -0x1.1e0d0c3371p-2, \
   -0x1.1c898c169ap-2, -0x1.1980d2dd42p-2, -0x1.1675cababap-2, -0x1.136870293bp-2, -0x1.11e0e2dadap-2, \
   -0x1.0ed005f658p-2, -0x1.0bbccdb0d2p-2, -0x1.0a324e2739p-2, -0x1.071b85fcd6p-2, -0x1.0402594b4dp-2, \
   -0x1.0274dc16c2p-2, -0x1.feb0233e6p-3, -0x1.f871b28956p-3, -0x1.f550a564b8p-3, -0x1.ef0adcbdc6p-3, \
   -0x1.e8c0252aa6p-3, -0x1.e598ed5a88p-3, -0x1.df46c0c722p-3, -0x1.dc1bca0abep-3, -0x1.d5c216b4fcp-3, \
   -0x1.d293581b6cp-3, -0x1.cc320c0176p-3, -0x1.c5cba543aep-3, -0x1.c2968558c2p-3, -0x1.bc286742d8p-3, \
   -0x1.b8ef67042p-3, -0x1.b2797ee464p-3, -0x1.af3c94e80cp-3, -0x1.a8becfc882p-3, -0x1.a57df28244p-3, \
   -0x1.9ef83d276ap-3, -0x1.9bb362e7ep-3, -0x1.9525a9cf46p-3, -0x1.91dcc8c34p-3, -0x1.8b46f82236p-3, \
   -0x1.87fa06520cp-3, -0x1.815c0a1436p-3, -0x1.7e0afd630cp-3, -0x1.7764c128f2p-3, -0x1.740f8f5404p-3, \
   -0x1.6d60fe719ep-3, -0x1.6a079d0f7ap-3, -0x1.66acd4272ap-3, -0x1.5ff3070a7ap-3, -0x1.5c94007598p-3, \
   -0x1.55d1ad4232p-3, -0x1.526e5e3a1cp-3, -0x1.4f099f4a24p-3, -0x1.483bccce6ep-3, -0x1.44d2b6ccb8p-3, \
   -0x1.41682bf728p-3, -0x1.3a8eb2d31ap-3, -0x1.371fc201e8p-3, -0x1.303d718e48p-3, -0x1.2cca0f5f6p-3, \
   -0x1.29552f82p-3, -0x1.2266f190a6p-3, -0x1.1eed90e2dcp-3, -0x1.1b72ad52f6p-3, -0x1.1478584674p-3, \
   -0x1.10f8e42254p-3, -0x1.0d77e7cd08p-3, -0x1.09f561ee72p-3, -0x1.02ebb42bf4p-3, -0x1.fec9131dcp-4, \
   -0x1.f7b79fec38p-4, -0x1.e98b54967p-4, -0x1.e27076e2bp-4, -0x1.db5270187cp-4, -0x1.d4313d66ccp-4, \
   -0x1.c5e548f5bcp-4, -0x1.beba818148p-4, -0x1.b78c82bb1p-4, -0x1.b05b49bee4p-4, -0x1.a1ef1d806p-4, \
   -0x1.9ab4246204p-4, -0x1.9375e55594p-4, -0x1.8c345d6318p-4, -0x1.84ef898e84p-4, -0x1.765bf23a6cp-4, \
   -0x1.6f0d28ae58p-4, -0x1.67bb0726ecp-4, -0x1.60658a9374p-4, -0x1.590cafdfp-4, -0x1.4a50d3aa1cp-4, \
   -0x1.42edcbea64p-4, -0x1.3b87598b1cp-4, -0x1.341d7961bcp-4, -0x1.2cb0283f5cp-4, -0x1.253f62f0ap-4, \
   -0x1.16536eea38p-4, -0x1.0ed839b554p-4, -0x1.075983599p-4, -0x1.ffae9119b8p-5, -0x1.f0a30c0118p-5, \
   -0x1.e19070c278p-5, -0x1.d276b8adbp-5, -0x1.c355dd092p-5, -0x1.a4fe9ffa4p-5, -0x1.95c830ec9p-5, \
   -0x1.868a83084p-5, -0x1.77458f633p-5, -0x1.67f94f0948p-5, -0x1.58a5bafc9p-5, -0x1.494acc34d8p-5, \
   -0x1.39e87b9fe8p-5, -0x1.2a7ec2215p-5, -0x1.1b0d98924p-5, -0x1.0b94f7c198p-5, -0x1.d91a66c54p-6, \
   -0x1.b9fc027bp-6, -0x1.9ace7551dp-6, -0x1.7b91b07d6p-6, -0x1.5c45a51b9p-6, -0x1.3cea44347p-6, \
   -0x1.1d7f7eb9fp-6, -0x1.fc0a8b0fcp-7, -0x1.bcf712c74p-7, -0x1.7dc475f82p-7, -0x1.3e7295d26p-7, \
   -0x1.fe02a6b1p-8, -0x1.7ee11ebd8p-8, -0x1.ff00aa2bp-9, -0x1.ff802a9bp-10, 0x0p+0, \
   0x1.008055958p-8, 0x1.010157588p-7, 0x1.82448a388p-7, 0x1.020565893p-6, 0x1.432a92598p-6, \
   0x1.74321d3dp-6, 0x1.b5cc258b7p-6, 0x1.f7a9b1678p-6, 0x1.1ce5a62bcp-5, 0x1.35c8bfaa1p-5, \
   0x1.5715c4c04p-5, 0x1.788595a358p-5, 0x1.91b073efd8p-5, 0x1.b35dd9b588p-5, 0x1.d52ed6406p-5, \
   0x1.eea31c0068p-5, 0x1.08598b59e4p-4, 0x1.152b799bb4p-4, 0x1.26536c3d8cp-4, 0x1.333d7f8184p-4, \
   0x1.4485e03dbcp-4, 0x1.518874226p-4, 0x1.5e95a4d978p-4, 0x1.700d30aeacp-4, 0x1.7d33687c28p-4, \
   0x1.8a6477a91cp-4, 0x1.9c0c32d4d4p-4, 0x1.a956d3ecacp-4, 0x1.b6ac88dad4p-4, 0x1.c40d6425a4p-4, \
   0x1.d5f556592p-4, 0x1.e3707ee304p-4, 0x1.f0f70cdd98p-4, 0x1.fe89139dbcp-4, 0x1.06135354d4p-3, \
   0x1.0ce7ecdcccp-3, 0x1.13c2605c3ap-3, 0x1.1aa2b7e24p-3, 0x1.2188fd9808p-3, 0x1.28753bc11ap-3, \
   0x1.2f677cbbcp-3, 0x1.365fcb015ap-3, 0x1.3d5e3126bcp-3, 0x1.4462b9dc9cp-3, 0x1.4b6d6fefe2p-3, \
   0x1.527e5e4a1cp-3, 0x1.59958ff1d6p-3, 0x1.60b3100b0ap-3, 0x1.67d6e9d786p-3, 0x1.6c9d07d204p-3, \
   0x1.73cb9074fep-3, 0x1.7b00916516p-3, 0x1.823c16551ap-3, 0x1.871213750ep-3, 0x1.8e588ebac2p-3, \
   0x1.95a5adcf7p-3, 0x1.9a8778debap-3, 0x1.a1dfc40f1cp-3, 0x1.a93ed3c8aep-3, 0x1.ae2ca6f672p-3, \
   0x1.b5971a213ap-3, 0x1.bd087383bep-3, 0x1.c2028ab18p-3, 0x1.c97f8079d4p-3, 0x1.ce816157f2p-3, \
   0x1.d60a17f904p-3, 0x1.db13db0d48p-3, 0x1.e2a877a6b2p-3, 0x1.e7ba35eb78p-3, 0x1.ef5ade4ddp-3, \
   0x1.f474b134ep-3, 0x1.fc218be62p-3, 0x1.00a1c6addap-2, 0x1.047e60cde8p-2, 0x1.07138604d6p-2, \
   0x1.09aa572e6cp-2, 0x1.0d8fb813ebp-2, 0x1.102ac0a35dp-2, 0x1.12c77cd007p-2, 0x1.16b5ccbadp-2, \
   0x1.1956d3b9bcp-2, 0x1.1bf99635a7p-2, 0x1.1ff0fe7cf4p-2, 0x1.22981fbef8p-2, 0x1.25410494e5p-2, \
   0x1.27ebaf58d9p-2, 0x1.2bef07cdc9p-2, 0x1.2e9e2bce12p-2, 0x1.314f1e1d36p-2, 0x1.3401e12aedp-2, \
   0x1.3811728565p-2, 0x1.3ac8ca38e6p-2, 0x1.3d81fb5947p-2, 0x1.403d086ceap-2, 0x1.42f9f3ff62p-2, \
   0x1.45b8c0a17ep-2, 0x1.487970e958p-2, 0x1.4b3c077268p-2, 0x1.4f637ebbaap-2, 0x1.522ae0738ap-2, \
   0x1.54f431b7bep-2, 0x1.57bf753c8dp-2, 0x1.5a8cadbbeep-2, 0x1.5d5bddf596p-2, 0x1.602d08af09p-2, \
   0x1.630030b3abp-2}
#define DLX__MLOG_LN_LO_VALUES \
  {-0x1.e9e439f105039p-45, 0x1.8d6bdc9c7c238p-44, 0x1.e63af2df7ba69p-50, 0x1.64ead9524d7cap-44, -0x1.3167e63081cf7p-45, \
   0x1.f4bd8db0a7cc1p-44, -0x1.34d7aaf04d104p-45, 0x1.d7c92cd9ad824p-44, 0x1.9a234ebf35449p-44, -0x1.ec89bf0c8d098p-45, \
   -0x1.1ee28f37cf612p-44, 0x1.0469013e43fc9p-44, 0x1.6028627c1300fp-47, 0x1.257b4970e6ed9p-44, -0x1.90582e67d4cap-45, \
   0x1.e9436ac53b023p-44, 0x1.5594dd4c58092p-45, -0x1.84fab94cecfd9p-46, 0x1.67b1e99b72bd8p-45, 0x1.6db12d6bfb0a5p-45, \
   -0x1.a8d7ad24c13fp-44, -0x1.4f4f1f61564b4p-44, -0x1.00fff3228fcadp-44, -0x1.82e78ba2950c4p-44, -0x1.af8f2a9b0d4ap-44, \
   0x1.81410e5c62affp-44, -0x1.b7b3a7a361c9ap-45, -0x1.8380e731f55c4p-44, 0x1.d3e8499d67123p-44, 0x1.a47f88fcce5bap-45, \
   0x1.2dc75285aa803p-45, -0x1.2f32ccc5dcdfbp-44, -0x1.c6bee7ef4030ep-47, 0x1.bcb8ba3e01a11p-44, -0x1.036b89ef42d7fp-48, \
   -0x1.979e89cf835c2p-45, -0x1.f316e32d5e8c7p-45, 0x1.f75fd6a526efep-44, 0x1.323e3a09202fep-45, 0x1.b26b79c86af24p-45, \
   0x1.6805b80e8e6ffp-45, 0x1.d134bcf1e98a1p-47, -0x1.a5e82b0b79039p-44, -0x1.8fac1a628ccc6p-44, 0x1.1ba91bbca681bp-45, \
   0x1.83270128aaa5fp-44, -0x1.409039a653794p-45, -0x1.0929decb454fcp-45, 0x1.cfd73dee38a4p-45, -0x1.9ac53f39d121cp-44, \
   -0x1.87533321788ep-44, 0x1.be88a906d00a9p-44, 0x1.a4e633fcd9066p-52, -0x1.e3185cf21b9cfp-44, -0x1.b99c8ca1d9abbp-44, \
   0x1.730b7b3f9cep-45, 0x1.1f2a8a1ce0ffcp-45, 0x1.297137d9f158fp-44, -0x1.7bc6abddeff46p-44, -0x1.2d9f2102dd7c9p-46, \
   -0x1.22120401202fcp-44, 0x1.02a52f9201ce8p-44, -0x1.39e7c1d8f1034p-46, -0x1.274903479e3d1p-47, 0x1.0b66c99018aa1p-44, \
   0x1.bc6e557134767p-44, -0x1.5a3f8448d14f5p-44, -0x1.aa1bdbfc6c785p-44, 0x1.8586f183bebf2p-44, 0x1.a8d948cd23322p-44, \
   -0x1.add94dda647e8p-44, 0x1.790ba37fc5238p-44, 0x1.e9bf2fafeaf27p-44, -0x1.eea52723f6369p-46, 0x1.70cc16135783cp-46, \
   0x1.10047081f849dp-45, -0x1.bafb77d5d503ep-46, -0x1.ee8779b2d8abcp-44, 0x1.680b5ce3ecb05p-50, 0x1.b5ef191aff12p-44, \
   0x1.5b967f4471dfcp-44, 0x1.4d20ab840e7f6p-45, -0x1.615637097648fp-46, -0x1.e80a41811a396p-45, -0x1.563451027c75p-46, \
   0x1.93b3843396307p-45, -0x1.cb2cd2ee2f482p-44, 0x1.8f3057157d1a8p-45, 0x1.5a8fa5ce00e5dp-46, 0x1.54555d1ae6607p-44, \
   0x1.10987e897ed01p-47, -0x1.4677489c50e97p-44, 0x1.a342c2af0003cp-45, -0x1.9277856ae181fp-44, 0x1.9454379135713p-45, \
   -0x1.d0c57585fbe06p-46, 0x1.89b78b6df1f57p-44, 0x1.25ef7bc3987e7p-44, -0x1.ff22c18f84a5ep-47, -0x1.cd4176df97bcbp-44, \
   0x1.8a64826787061p-45, -0x1.eddc37380c364p-44, -0x1.b20f5acb42a66p-44, 0x1.7d5cd246977c9p-44, 0x1.ecbc035c4256ap-48, \
   0x1.4b4641b664613p-44, -0x1.f724b69ef5912p-49, -0x1.0c3b1dee9c4f8p-44, -0x1.c284f5722abaap-44, 0x1.f7fe1308973e2p-45, \
   -0x1.bc0eeea7c9acdp-46, 0x1.2241594aca313p-45, -0x1.1d0929983761p-44, -0x1.e1ee2ca657021p-44, -0x1.416f8fb69a701p-44, \
   0x1.47c5e768fa309p-46, 0x1.901f46d48abb4p-44, 0x1.b8ecfe4b59987p-44, -0x1.303374262c554p-45, 0x1.d599e83368e91p-45, \
   0x1.fea4664629e86p-45, -0x1.6a423c78a64bp-46, -0x1.f2ccc9abf8388p-45, 0x1.6e584a0402925p-44, 0x1.c148297c5feb8p-45, \
   0x1.2623a134ac693p-46, 0x1.181dce586af09p-44, -0x1.ecc1f3e7e4ed7p-44, 0x1.b2b739570ad39p-45, -0x1.11c78a56fd247p-45, \
   -0x1.eafd480ad9015p-44, 0x1.78ce77a9163fep-45, 0x1.3401e9ae889bbp-44, 0x1.e89896f022783p-45, -0x1.e61f1658cfb9ap-45, \
   0x1.b9a010ae6922ap-44, 0x1.d75d97ec7c41p-45, 0x1.3b955b602ace4p-44, 0x1.63bb6216d87d8p-45, 0x1.6a2c432d6a40bp-44, \
   0x1.4193a83fcc7a6p-46, -0x1.f1e7cf6d3a69cp-50, -0x1.c25e097bd9771p-46, 0x1.eb1245b5da1f5p-44, 0x1.609c1ff29a114p-45, \
   -0x1.9e23f0dda40e4p-46, -0x1.749d3c2d23a07p-47, -0x1.0bc04a086b56ap-45, 0x1.3bc661d61c5ebp-44, 0x0p+0, \
   0x1.166afcb31c67bp-45, 0x1.bce251998b506p-44, 0x1.4554412c584ep-44, 0x1.611d27c8e8417p-44, 0x1.98139928637fep-47, \
   0x1.b4a690fe94778p-48, 0x1.8e611b8afbfe8p-46, 0x1.42ad9271be7d7p-45, 0x1.a9cc78d8df999p-44, 0x1.8357d5ef9eb35p-44, \
   -0x1.8888ddfc47628p-44, -0x1.08b0d083b3a4cp-46, -0x1.9d7c53f76ca96p-46, 0x1.d5674d6cf558ep-44, -0x1.3c85d2a29bbd6p-44, \
   0x1.c3dd83606d891p-44, -0x1.7e5dd7009902cp-46, -0x1.9bb2907030829p-47, 0x1.b4bac097c5ba3p-47, -0x1.692b6a81b8848p-49, \
   0x1.fad46e8d26ab7p-44, 0x1.30a1d96258b3ep-44, 0x1.1cb7ce1d17171p-44, 0x1.c1e8da99ded32p-49, 0x1.3c88c3e706706p-44, \
   0x1.c28c0af9bd6dfp-44, -0x1.ab7c09e838668p-44, 0x1.e63794c02c4afp-44, 0x1.b1bdff50225c7p-44, 0x1.cb1121d1930ddp-44, \
   0x1.0e239cc185469p-44, 0x1.0f684e6766abdp-45, 0x1.2e31f6c272c1ep-44, 0x1.56594d82f7a82p-44, 0x1.6304628340ee9p-44, \
   0x1.4652dabff5447p-46, -0x1.cf5fdd94f6509p-45, -0x1.1ac38dde3b366p-44, -0x1.b3a1e7f50c701p-44, 0x1.7494e359302e6p-44, \
   0x1.52b302160f40dp-44, -0x1.fd3a0afb9691bp-44, 0x1.3fb2f85096c4bp-46, -0x1.84858a711b062p-44, 0x1.522ecf56e7952p-46, \
   -0x1.4e60b8d4b411dp-44, -0x1.a1d059769ca05p-44, -0x1.71456c988f814p-44, -0x1.11e8830a706d3p-44, -0x1.c73fafd9b2dcap-50, \
   -0x1.d66a90d0005a6p-44, -0x1.ae75fcb067e57p-44, 0x1.e0ddb9a631e83p-46, 0x1.328eb42f9af75p-44, 0x1.b7d5cab2d114p-44, \
   0x1.7f22858a0ff6fp-47, 0x1.470fa3efec39p-44, -0x1.01e0f004f3781p-44, -0x1.8724350562169p-45, 0x1.7a8d5ae54f55p-44, \
   0x1.9b50e83aa91dfp-44, -0x1.d4bc4595412b6p-45, -0x1.92e0ee55c7ac6p-45, 0x1.3b161a8c6e6c5p-45, -0x1.9e0aba2099515p-45, \
   -0x1.5d6e06fc20d39p-44, 0x1.2806a847527e6p-44, 0x1.823817787081ap-44, -0x1.d5eee23793649p-47, -0x1.a211565bb8e11p-51, \
   -0x1.bae49f1df7b5ep-44, 0x1.4bba46f1cf6ap-44, 0x1.1cd8d688b9e18p-44, 0x1.dbdf10d397f3cp-45, -0x1.e76324e912b17p-44, \
   0x1.b50a1e1734342p-44, 0x1.ee8c88753fa35p-46, -0x1.f1fbddfdfd686p-45, 0x1.3b2948a11f797p-46, -0x1.23299042d74bfp-44, \
   0x1.7d2f73ad1aa14p-45, -0x1.1ac89575c2125p-44, 0x1.e9d5b513ff0c1p-44, -0x1.a1421609580dap-44, 0x1.b1d7ac0ef77f2p-44, \
   -0x1.b198800b4bda7p-45, 0x1.a9cfa4a5004f4p-45, 0x1.4300c128d1dc2p-45, -0x1.8e27ad3213cb8p-45, -0x1.17c73556e291dp-44, \
   -0x1.a71e493a0702bp-45, -0x1.d0befbc02be4ap-45, -0x1.22c7c2a9d37a4p-45, 0x1.e6ef574487308p-44, 0x1.906440f7d3354p-44, \
   -0x1.d9120e7d0a853p-47, 0x1.dc1b8465cf25fp-44, -0x1.65b4681052b9fp-46, -0x1.fc158cb3124b9p-44, 0x1.ebe708164c759p-45, \
   0x1.a8954c0910952p-46, 0x1.fadedee5d40efp-46, -0x1.7c79b0af7ecf8p-48, -0x1.a0b2a08a465dcp-47, 0x1.ebe9176df3f65p-46, \
   -0x1.db623e731aep-45}
#define DLX__MLOG_LOG2_HI_VALUES \
  {-0x1.fbc16b9027p-2, -0x1.f7a8568cbp-2, -0x1.f38c567bccp-2, -0x1.ef6d67328ep-2, -0x1.eb4b847d16p-2, \
   -0x1.e726aa1e75p-2, -0x1.e2fed3d097p-2, -0x1.ded3fd4423p-2, -0x1.dcbd708b17p-2, -0x1.d88e11777bp-2, \
   -0x1.d45ba735bbp-2, -0x1.d0262d554p-2, -0x1.cbed9f5bb9p-2, -0x1.c7b1f8c4f5p-2, -0x1.c3733502dp-2, \
   -0x1.c152a6c24dp-2, -0x1.bd0f2e9e79p-2, -0x1.b8c88dbf88p-2, -0x1.b47ebf7388p-2, -0x1.b031befe06p-2, \
   -0x1.abe18797f2p-2, -0x1.a9b835c98cp-2, -0x1.a56322edd3p-2, -0x1.a10acd0096p-2, -0x1.9caf2f1499p-2, \
   -0x1.9a802391e2p-2, -0x1.961f905274p-2, -0x1.91bba891f1p-2, -0x1.8d54673b5cp-2, -0x1.8b1f835e0bp-2, \
   -0x1.86b332056ep-2, -0x1.82437a2ee7p-2, -0x1.800a563162p-2, -0x1.7b957ac51bp-2, -0x1.771d2ba7fp-2, \
   -0x1.74dfb70a66p-2, -0x1.7062305157p-2, -0x1.6be12866f8p-2, -0x1.699f5248cdp-2, -0x1.6518fe4678p-2, \
   -0x1.608f1b4295p-2, -0x1.5e48d25f63p-2, -0x1.59b98e4de2p-2, -0x1.577091b338p-2, -0x1.52dbdfc4c9p-2, \
   -0x1.509028ff8ep-2, -0x1.4bf5fc36e8p-2, -0x1.475820e3a4p-2, -0x1.4507cfedd5p-2, -0x1.406463b1bp-2, \
   -0x1.3e1146ebcap-2, -0x1.39683c4a9dp-2, -0x1.37124cea4dp-2, -0x1.32639636b3p-2, -0x1.300acd58ccp-2, \
   -0x1.2b565cb331p-2, -0x1.28fab35b32p-2, -0x1.24407ab0ep-2, -0x1.21e1e9c877p-2, -0x1.1d21dad295p-2, \
   -0x1.1ac05b291fp-2, -0x1.15fa676bb1p-2, -0x1.1395f1b5b6p-2, -0x1.0eca0a7e92p-2, -0x1.0c62975543p-2, \
   -0x1.0790adbb03p-2, -0x1.0526359babp-2, -0x1.02baba24dp-2, -0x1.fbc16b9026p-3, -0x1.f6e456568p-3, \
   -0x1.ed2401865ep-3, -0x1.e840be74e6p-3, -0x1.e35b689cd2p-3, -0x1.d98a7d8a6p-3, -0x1.d49ee4c326p-3, \
   -0x1.cfb1321b8cp-3, -0x1.c5cf77f86p-3, -0x1.c0db6cdd94p-3, -0x1.b6ecf175fap-3, -0x1.b1f27d7bd8p-3, \
   -0x1.acf5e2db4ep-3, -0x1.a2f632320cp-3, -0x1.9df31868c2p-3, -0x1.98edd077e8p-3, -0x1.8edcae8352p-3, \
   -0x1.89d0d0ab44p-3, -0x1.84c2bd02fp-3, -0x1.7fb27199ep-3, -0x1.758b2bb6c8p-3, -0x1.70742d4efp-3, \
   -0x1.6b5aef4aaep-3, -0x1.6121ac7482p-3, -0x1.5c01a39fbep-3, -0x1.56df5328d6p-3, -0x1.51bab907a6p-3, \
   -0x1.476a9f984p-3, -0x1.423f1c2c12p-3, -0x1.3d1146d9a8p-3, -0x1.37e11d8b1p-3, -0x1.2d79c6937ep-3, \
   -0x1.284294b07ap-3, -0x1.2309065d2ap-3, -0x1.1dcd197552p-3, -0x1.188ecbd1d2p-3, -0x1.0e0b05ac84p-3, \
   -0x1.08c588cda8p-3, -0x1.037da278f2p-3, -0x1.fc66a0f0bp-4, -0x1.f1cd21258p-4, -0x1.dc8b7c49ap-4, \
   -0x1.d1e34e35b8p-4, -0x1.c73632513cp-4, -0x1.bc84240adcp-4, -0x1.b1cd1ecae8p-4, -0x1.a7111df348p-4, \
   -0x1.918a16e464p-4, -0x1.86bf07507cp-4, -0x1.7beee96b8cp-4, -0x1.7119b876cp-4, -0x1.663f6fac9p-4, \
   -0x1.5b600a40bcp-4, -0x1.507b836034p-4, -0x1.4591d6310cp-4, -0x1.2faef55cccp-4, -0x1.24b5b7e134p-4, \
   -0x1.19b74069f4p-4, -0x1.0eb389fa28p-4, -0x1.03aa8f8dc8p-4, -0x1.f138983328p-5, -0x1.db1175161p-5, \
   -0x1.c4dfab90a8p-5, -0x1.aea3316098p-5, -0x1.985bfc3498p-5, -0x1.820a01ac78p-5, -0x1.554592bb9p-5, \
   -0x1.3ed3094688p-5, -0x1.2855905ca8p-5, -0x1.11cd1d513p-5, -0x1.f6734acf8p-6, -0x1.c9363ba85p-6, \
   -0x1.9be2f774ap-6, -0x1.6e79685c3p-6, -0x1.40f978668p-6, -0x1.1363117a9p-6, -0x1.cb6c3abd2p-7, \
   -0x1.6fe50b6fp-7, -0x1.143068126p-7, -0x1.709c46d7cp-8, -0x1.70f83ff08p-9, 0x0p+0, \
   0x1.720d9c06cp-8, 0x1.72c7ba21p-7, 0x1.16a21e20ap-6, 0x1.743ee861fp-6, 0x1.d23afc491p-6, \
   0x1.0c7b844efp-5, 0x1.3bcdd9b9fp-5, 0x1.6b50e297bp-5, 0x1.9b05038d88p-5, 0x1.beec9151a8p-5, \
   0x1.eef7925088p-5, 0x1.0f9a634664p-4, 0x1.21c1ef55fp-4, 0x1.3a0cf56a08p-4, 0x1.5271a78624p-4, \
   0x1.64ce26c068p-4, 0x1.7d60496cfcp-4, 0x1.8fdf1ca8fp-4, 0x1.a89f5a6dc8p-4, 0x1.bb4102f924p-4, \
   0x1.d4300a2524p-4, 0x1.e6f50c2dap-4, 0x1.f9c95dc1dp-4, 0x1.097e38ce6p-3, 0x1.12fa6f551p-3, \
   0x1.1c7e77dde4p-3, 0x1.293ac3dc1ap-3, 0x1.32d13e4692p-3, 0x1.3c6fb650cep-3, 0x1.46163957bp-3, \
   0x1.5300d796ep-3, 0x1.5cba53a076p-3, 0x1.667c08270cp-3, 0x1.7046031c7ap-3, 0x1.7a18529636p-3, \
   0x1.83f304cdc6p-3, 0x1.8dd628214p-3, 0x1.97c1cb13c8p-3, 0x1.a1b5fc4e0cp-3, 0x1.abb2ca9ec8p-3, \
   0x1.b5b844fb4cp-3, 0x1.bfc67a8p-3, 0x1.c9dd7a70eep-3, 0x1.d3fd543a4ap-3, 0x1.de26177108p-3, \
   0x1.e857d3d362p-3, 0x1.f29299496ap-3, 0x1.fcd677e5acp-3, 0x1.0391bff2dcp-2, 0x1.070352293dp-2, \
   0x1.0c318aedffp-2, 0x1.11646e7791p-2, 0x1.169c05363fp-2, 0x1.1a190a5d67p-2, 0x1.1f588973c8p-2, \
   0x1.249cd2b13dp-2, 0x1.28225bb5e6p-2, 0x1.2d6eb41523p-2, 0x1.32bfee370fp-2, 0x1.364e2511cdp-2, \
   0x1.3ba7963fc2p-2, 0x1.4106017c3fp-2, 0x1.449d115ef8p-2, 0x1.4a03dcbd2ep-2, 0x1.4da08ac465p-2, \
   0x1.530fd08f2ap-2, 0x1.56b22e6b58p-2, 0x1.5c2a096a13p-2, 0x1.5fd2291fc3p-2, 0x1.6552b49986p-2, \
   0x1.6900a8836dp-2, 0x1.6e8a004222p-2, 0x1.723ddb1347p-2, 0x1.77d01b66fcp-2, 0x1.7b89f02cf3p-2, \
   0x1.7f462e58e1p-2, 0x1.84e5181475p-2, 0x1.88a76b7e55p-2, 0x1.8c6c335d8cp-2, 0x1.921800924ep-2, \
   0x1.95e2f9b51fp-2, 0x1.99b072a96cp-2, 0x1.9f695efbbdp-2, 0x1.a33d25fcb2p-2, 0x1.a713787ad9p-2, \
   0x1.aaec59dadbp-2, 0x1.b0b67f4f47p-2, 0x1.b495d4e918p-2, 0x1.b877c57b1bp-2, 0x1.bc5c548925p-2, \
   0x1.c2381c08bbp-2, 0x1.c62346dca2p-2, 0x1.ca111cb2aap-2, 0x1.ce01a12f5ep-2, 0x1.d1f4d7fecp-2, \
   0x1.d5eac4d464p-2, 0x1.d9e36b6b82p-2, 0x1.dddecf870cp-2, 0x1.e3dd11565p-2, 0x1.e7df5fe539p-2, \
   0x1.ebe47960e4p-2, 0x1.efec61b012p-2, 0x1.f3f71cc1b6p-2, 0x1.f804ae8d0dp-2, 0x1.fc151b11b3p-2, \
   0x1.0014332bep-1}
#define DLX__MLOG_LOG2_LO_VALUES \
  {0x1.fd7715c999d62p-44, -0x1.b3b3864c60011p-44, -0x1.50343f8df4b43p-44, -0x1.103e8f00d41c8p-45, 0x1.0c6b068d867f1p-44, \
   -0x1.3483146784bd2p-44, -0x1.4c06f912ab9d1p-45, -0x1.9313aec658458p-44, -0x1.ac444ea257ffap-45, -0x1.48ad9b560f3b7p-46, \
   0x1.6c3d8ec0f3731p-44, -0x1.46fab3fa1a144p-44, 0x1.e57e89bfdfd51p-44, -0x1.a3f6c066ebdd5p-46, -0x1.3de15e265b5d9p-44, \
   0x1.468ff68d6d2d3p-44, -0x1.855a216719009p-49, -0x1.9e65cd77582e2p-44, -0x1.50520a377c7ecp-45, -0x1.0d199805b0aecp-44, \
   0x1.6e3cb71b554e7p-47, -0x1.c27e675df639dp-44, -0x1.cc58a505d117ap-44, 0x1.52e8978a6cc8ap-44, 0x1.7159b944f7fd7p-48, \
   -0x1.979a5db68721dp-45, -0x1.3719eb3af5b8dp-47, -0x1.c22d2cad415aep-44, -0x1.b8d59e8492d6ep-45, -0x1.906944ba567f4p-44, \
   0x1.3fae191bb5173p-44, -0x1.edb9d09608783p-47, 0x1.d5e6a8a4fb059p-45, 0x1.4eea27240b049p-44, 0x1.3106e404cabb7p-44, \
   -0x1.c3e1e30d370eap-45, 0x1.7158a37417c3ap-45, -0x1.06adfcaa4bcf5p-45, -0x1.2e1a3152150d3p-44, 0x1.1646b761c48dep-44, \
   0x1.d49a43fc62b7ep-44, 0x1.51a6bb8ad2771p-44, -0x1.c70f15d3ebabdp-44, 0x1.cd53be1f94c5p-44, -0x1.acdf73d83987fp-44, \
   -0x1.432648cfc8738p-47, -0x1.5dcccaf649933p-44, -0x1.286fbc7f749ffp-45, 0x1.e35952fb0019dp-49, -0x1.125d6cbcd1095p-44, \
   0x1.c79237996a42bp-51, 0x1.664deafdbfed5p-46, 0x1.0993376649b5p-45, 0x1.f29947070fc4bp-44, 0x1.3c1a3716ee61fp-44, \
   -0x1.dafbfd96d5335p-45, -0x1.a0d8c0e85a909p-44, -0x1.ce60916e52e91p-44, -0x1.8e36471414f76p-44, -0x1.8c9a2f2dbcaf9p-44, \
   -0x1.c14a31ce1b7e3p-48, 0x1.c029a071eeb1p-44, -0x1.a5bd9bcda22fdp-46, 0x1.f4c2417f39394p-46, 0x1.5c56c13816f9fp-44, \
   -0x1.2de0634d33aa9p-51, -0x1.b361c7dddadb6p-46, -0x1.98eec5e85b29fp-44, -0x1.0144751b3314fp-44, 0x1.aaa72ba2c6ba2p-47, \
   0x1.5c14e55f57802p-48, -0x1.4998f93e7aa3cp-44, -0x1.953e61f15bd9bp-45, -0x1.69affffe47644p-45, 0x1.a40dc2d2a6bf7p-45, \
   -0x1.0009770ea1465p-45, -0x1.04cc6600a133ep-44, -0x1.bdc81c4db3134p-44, 0x1.42d2824e663a1p-44, 0x1.601ccfac2b557p-45, \
   -0x1.927dfc23d978p-44, 0x1.e54d71deb636ap-45, 0x1.c5667a12e8f3p-44, 0x1.e41fa0a62e6aep-44, -0x1.6d76b9a843329p-44, \
   0x1.e665e245fe368p-44, -0x1.d97ee9124773bp-46, 0x1.d25cfd9459b34p-44, 0x1.2280434bda911p-45, -0x1.3f94e00e7d6bcp-46, \
   -0x1.f7081b8e33aadp-45, 0x1.861e01d200ce1p-44, 0x1.2f0c0bfe9dbecp-44, 0x1.cea9347cb6655p-45, 0x1.badba7fbb3d2p-46, \
   0x1.1659d8e2d7d38p-44, -0x1.d449e80431d92p-44, -0x1.4c7e0166e1f56p-44, -0x1.f1140264356b8p-44, -0x1.fb9b1aaf54bccp-44, \
   -0x1.8fe35da2ab291p-45, 0x1.0dd830ee74ef2p-44, -0x1.6f6bd48a860fp-44, 0x1.2836bac777dd6p-44, -0x1.1da156756faadp-44, \
   0x1.871a7610e40bdp-45, -0x1.0e0f9c896007dp-44, -0x1.49209a68c72a1p-49, 0x1.e742a6951096dp-44, -0x1.ddb7886f88587p-44, \
   -0x1.6d26859c7991ep-47, 0x1.58b34834a501ep-47, 0x1.4459c4d3a591bp-44, 0x1.9195e52c2b4ffp-44, -0x1.24fad116078efp-46, \
   0x1.94aa31b9b6d65p-45, 0x1.f38e940118241p-44, 0x1.d7ec3be51cdcbp-44, 0x1.57a036639e53ap-44, -0x1.3167ccc538261p-44, \
   -0x1.4f286d207e2c8p-44, 0x1.124ac34b21259p-46, -0x1.85a047f97bb3ep-44, 0x1.91b415eeb24edp-45, -0x1.a3c89a2cf3516p-44, \
   -0x1.f09941811b2eep-44, -0x1.f9ab3cf74babap-44, -0x1.53121e9af5428p-46, 0x1.6302f197ca224p-44, 0x1.8a0e14f76d994p-46, \
   -0x1.5af7a7c7c34f3p-44, 0x1.04725738f699ep-44, 0x1.735cfaf8e2578p-44, 0x1.59a77da8ad64ap-44, 0x1.95432268e3e1ep-44, \
   0x1.2ecefec5a47ep-44, 0x1.e14ebaf30c95ep-46, -0x1.a0976c0a2827dp-44, -0x1.a5671e1bd4ae8p-44, -0x1.f0cccdd01ee2fp-47, \
   0x1.4cf6b3e0185a2p-44, 0x1.6eb3ac8ec0ef7p-45, -0x1.74a4cb0be9e8ap-44, -0x1.ec312ed069b24p-44, 0x1.754e95c6a4ad8p-44, \
   0x1.ef5d00e390ap-44, 0x1.1790209e88471p-46, 0x1.5388b52642db7p-44, -0x1.3ab2631d4676dp-44, 0x0p+0, \
   -0x1.7ca15910e7069p-44, -0x1.19b14945cf6bap-44, 0x1.48a179268271dp-47, 0x1.aab1b2a41b09p-45, 0x1.cfc4de6d73deap-45, \
   0x1.794d4c6c8f327p-45, 0x1.e66be73b9da04p-50, -0x1.98fd2dca61c14p-48, -0x1.fb554647678d1p-44, 0x1.61728d82263edp-44, \
   0x1.b4eb09b992dcep-44, -0x1.48cd0a7bb24b2p-46, 0x1.b08127eec65d2p-46, -0x1.3b55bcb161bacp-44, -0x1.5f097b0fe80a3p-44, \
   -0x1.d5297837adb4bp-45, -0x1.2ce6312ebb81dp-46, -0x1.595f2f68d91fdp-44, 0x1.acbebd7e444ecp-44, 0x1.393c664ed16b7p-44, \
   0x1.a82ed66976b91p-45, -0x1.15844900583dep-45, 0x1.164e932b2d51cp-44, 0x1.924ae921f7ecap-45, -0x1.da89e835cc3d2p-45, \
   -0x1.848e9d1d92d88p-44, 0x1.9a1979619fe2fp-45, 0x1.d6d57e540628ep-44, -0x1.af5e9bb5386c2p-47, -0x1.fa4a9eb6b8621p-44, \
   -0x1.98cc3b5d08e15p-44, 0x1.769a8e6b40f5ep-46, -0x1.bebde1ac6e983p-45, -0x1.ed0798d1aa217p-49, -0x1.b6967f02b01d8p-45, \
   -0x1.5651ccd0e088p-45, 0x1.2a424c693063dp-45, -0x1.3f7a55cd2af4cp-47, -0x1.73647bf25fa5fp-44, -0x1.71b3a63cddadfp-44, \
   -0x1.821d36e0b7548p-44, -0x1.667f21fa8423fp-44, -0x1.d400fd651da9ap-44, 0x1.ab8f49b9239d6p-44, 0x1.a06e2b9b128bfp-44, \
   -0x1.9308437e74325p-44, 0x1.11159ca9c9783p-44, 0x1.039b772eda08ep-44, -0x1.866405210e49ep-45, 0x1.c91a3dbbb501dp-44, \
   0x1.e03b336c24b74p-45, 0x1.1a55c2b07d3a5p-44, 0x1.5872350f805d6p-46, 0x1.281a3174c8d06p-44, 0x1.d1c61f4accdd7p-44, \
   -0x1.49d97df07e357p-45, 0x1.28fa3aac2fde9p-44, 0x1.27ae8037b21bfp-45, -0x1.979a5db68721dp-46, -0x1.f7cc3df8803d1p-44, \
   -0x1.c4413fd83dec1p-48, -0x1.aeb8cb1ac05cdp-45, -0x1.3c49c247ab6afp-45, 0x1.bdc90791aef03p-46, -0x1.a96d7a36f1545p-44, \
   -0x1.63d8bd35fdc18p-48, -0x1.c6d8d86531d56p-44, 0x1.770d330890c82p-44, 0x1.e77ad7a4b71cp-45, 0x1.3bb5921006679p-45, \
   0x1.aa0e9e6bca777p-47, -0x1.3859a74f0d148p-44, -0x1.26baaf0b591f8p-44, -0x1.64adb1adca9a8p-45, -0x1.54b383b0e8a55p-44, \
   0x1.a20a0968271abp-44, 0x1.123e24ebf7a85p-44, -0x1.8e9b57298d22fp-44, -0x1.a69393bab4fdp-44, -0x1.62404772a151dp-45, \
   0x1.38bc99b3611cep-48, 0x1.ac9bca36fd02ep-44, 0x1.dd3d30f5deaa7p-47, -0x1.4f144da6e4533p-48, 0x1.e92e07396497fp-44, \
   -0x1.2100986691daap-45, -0x1.fc02bc277071dp-44, 0x1.7dd4bcb97f73cp-44, 0x1.bfbf899cf2b3cp-48, 0x1.32e75785e97abp-44, \
   -0x1.62c45c4bc31c9p-47, -0x1.012f1593ee62ap-45, 0x1.7150fe371d52bp-44, -0x1.cbb828084fcb1p-44, -0x1.e6009faee4be8p-44, \
   -0x1.410f5d3161a62p-45, 0x1.6c28f5a9b58fdp-44, 0x1.305af9767a02p-44, 0x1.f77628aa1aed8p-44, -0x1.532c412ba94dbp-44, \
   -0x1.fbc00d8d6cbcfp-45, -0x1.ea92d9e0e8ac2p-48, 0x1.4dc166e0e0c68p-45, -0x1.7f33943464056p-45, 0x1.9006e6a042173p-44, \
   0x1.9518ce032f41dp-48}
#define DLX__MLOG_LOG10_HI_VALUES \
  {-0x1.31b3055c48p-3, -0x1.2f3b691c5ap-3, -0x1.2cc20b1734p-3, -0x1.2a46e8ca7cp-3, -0x1.27c9ffae72p-3, \
   -0x1.254b4d35e8p-3, -0x1.22cacece26p-3, -0x1.204881dee8p-3, -0x1.1f06ad235ap-3, -0x1.1c81a57fp-3, \
   -0x1.19fac8bda8p-3, -0x1.1772143306p-3, -0x1.14e7852cf6p-3, -0x1.125b18f35cp-3, -0x1.0fccccc824p-3, \
   -0x1.0e84f1dadcp-3, -0x1.0bf3d0937cp-3, -0x1.0960c8648ep-3, -0x1.06cbd67a6cp-3, -0x1.0434f7fb2p-3, \
   -0x1.019c2a064cp-3, -0x1.004f0857eep-3, -0x1.fb669b7ffp-4, -0x1.f62b38ca3cp-4, -0x1.f0ebe2a014p-4, \
   -0x1.ee4aba611p-4, -0x1.e9056bcb3p-4, -0x1.e3bc1ab0ep-4, -0x1.de6ec0f394p-4, -0x1.dbc68eea68p-4, \
   -0x1.d6731ca08cp-4, -0x1.d11b922978p-4, -0x1.ce6e41e464p-4, -0x1.c910874e08p-4, -0x1.c3aea4a5c8p-4, \
   -0x1.c0fc2246d4p-4, -0x1.bb93f762ccp-4, -0x1.b627942aecp-4, -0x1.b36fcb5f8cp-4, -0x1.adfd07416cp-4, \
   -0x1.a885fa2d6p-4, -0x1.a5c8d62ae4p-4, -0x1.a04b4ef3b8p-4, -0x1.9d8aea084cp-4, -0x1.9806d9414cp-4, \
   -0x1.95432ba8d4p-4, -0x1.8fb881adf4p-4, -0x1.8a2968c438p-4, -0x1.8760307d34p-4, -0x1.81ca63d05cp-4, \
   -0x1.7efdcd9ca8p-4, -0x1.79613cefdcp-4, -0x1.769140a254p-4, -0x1.70eddb7d8p-4, -0x1.6e1a70cb0cp-4, \
   -0x1.68702679a8p-4, -0x1.659944f8bcp-4, -0x1.5fe80488bp-4, -0x1.5d0da3b09cp-4, -0x1.57555bf108p-4, \
   -0x1.5477731974p-4, -0x1.4eb812997cp-4, -0x1.4bd698f9c4p-4, -0x1.46100e075p-4, -0x1.432afab5dcp-4, \
   -0x1.3d5d335c54p-4, -0x1.3a747d4dfcp-4, -0x1.378a8ef848p-4, -0x1.31b3055c48p-4, -0x1.2ec568056cp-4, \
   -0x1.28e67712d8p-4, -0x1.25f5215eb4p-4, -0x1.23028c1b7cp-4, -0x1.1d199ea83cp-4, -0x1.1a234455p-4, \
   -0x1.172ba62c4cp-4, -0x1.11389a04f4p-4, -0x1.0e3d29d81p-4, -0x1.08426fcdbp-4, -0x1.054323b97cp-4, \
   -0x1.02428c1f08p-4, -0x1.f87aebb44p-5, -0x1.f271e9dabp-5, -0x1.ec6647eb58p-5, -0x1.e0471aa188p-5, \
   -0x1.da338aaa98p-5, -0x1.d41d5164f8p-5, -0x1.ce046c7ad8p-5, -0x1.c1ca96526p-5, -0x1.bba9a058ep-5, \
   -0x1.b585f54498p-5, -0x1.a9367632bp-5, -0x1.a30a9d60ap-5, -0x1.9cdc05cad8p-5, -0x1.96aaacffp-5, \
   -0x1.8a3fadeb88p-5, -0x1.840602aec8p-5, -0x1.7dc98c51c8p-5, -0x1.778a48519p-5, -0x1.6b034d4adp-5, \
   -0x1.64bb912d68p-5, -0x1.5e70fd3ee8p-5, -0x1.58238eeb38p-5, -0x1.51d3439abp-5, -0x1.452a0b92dp-5, \
   -0x1.3ed1199a6p-5, -0x1.38754022ep-5, -0x1.32167c82cp-5, -0x1.2bb4cc0cbp-5, -0x1.1ee899d748p-5, \
   -0x1.187e12aad8p-5, -0x1.121093ce38p-5, -0x1.0ba01a817p-5, -0x1.052ca400a8p-5, -0x1.fd6c5b085p-6, \
   -0x1.e3806acbdp-6, -0x1.d6815c427p-6, -0x1.c97c3735ep-6, -0x1.bc70f5ef6p-6, -0x1.af5f92b01p-6, \
   -0x1.a24807b0ep-6, -0x1.952a4f22cp-6, -0x1.8806632e4p-6, -0x1.6dabd98bp-6, -0x1.60753003bp-6, \
   -0x1.53383b64cp-6, -0x1.45f4f5accp-6, -0x1.38ab58d17p-6, -0x1.2b5b5ec02p-6, -0x1.1e05015d3p-6, \
   -0x1.10a83a844p-6, -0x1.034504082p-6, -0x1.ebb6af654p-7, -0x1.d0d65e89p-7, -0x1.9aeea1e8ap-7, \
   -0x1.7fe71ccc4p-7, -0x1.64d26cce6p-7, -0x1.49b085144p-7, -0x1.2e8158b08p-7, -0x1.1344daa2ep-7, \
   -0x1.eff5fbaf4p-8, -0x1.b9476a4fcp-8, -0x1.827de6b3p-8, -0x1.4b99563d4p-8, -0x1.14999e2acp-8, \
   -0x1.bafd4722p-9, -0x1.4c9096b98p-9, -0x1.bbd9e948p-10, -0x1.bc48a868p-11, 0x0p+0, \
   0x1.bd96a1d8p-10, 0x1.be76bd778p-9, 0x1.4f8205234p-8, 0x1.c03a80ae4p-8, 0x1.18b2dc8d2p-7, \
   0x1.4348fe2bap-7, 0x1.7c441aa5ep-7, 0x1.b579db6dep-7, 0x1.eeeab9b44p-7, 0x1.0d133abfcp-6, \
   0x1.29fff7b8dp-6, 0x1.470aede97p-6, 0x1.5ce72239ap-6, 0x1.7a27959edp-6, 0x1.9786f287ap-6, \
   0x1.ada2e8e3ep-6, 0x1.cb38fccd9p-6, 0x1.e17e48fa5p-6, 0x1.ff4be13b9p-6, 0x1.0add8f75ap-5, \
   0x1.19e086b3b8p-5, 0x1.252d6de158p-5, 0x1.30838cdc3p-5, 0x1.3faf7c663p-5, 0x1.4b1b588128p-5, \
   0x1.56909f44a8p-5, 0x1.65e6692548p-5, 0x1.7171e59fp-5, 0x1.7d070145f8p-5, 0x1.88a5cc3158p-5, \
   0x1.98335cd4ap-5, 0x1.a3e9002c7p-5, 0x1.afa88992bp-5, 0x1.bb7209d1ep-5, 0x1.c74591df7p-5, \
   0x1.d32332dc38p-5, 0x1.df0afe1508p-5, 0x1.eafd050358p-5, 0x1.f6f9594de8p-5, 0x1.0180066494p-4, \
   0x1.078898bc04p-4, 0x1.0d966cc65p-4, 0x1.13a98bb45p-4, 0x1.19c1fecf18p-4, 0x1.1fdfcf7838p-4, \
   0x1.2603072a24p-4, 0x1.2c2baf788p-4, 0x1.3259d2107cp-4, 0x1.388d78b934p-4, 0x1.3cb2fd2f68p-4, \
   0x1.42efeb4b5p-4, 0x1.4932780c58p-4, 0x1.4f7aad9bbcp-4, 0x1.53adfb462cp-4, 0x1.59ffb662b8p-4, \
   0x1.605735ee98p-4, 0x1.6494c46ac8p-4, 0x1.6af5f838dp-4, 0x1.715d0ce368p-4, 0x1.75a50ebb18p-4, \
   0x1.7c1607b7d8p-4, 0x1.828cfed29cp-4, 0x1.86dfa808d4p-4, 0x1.8d60b4ee4cp-4, 0x1.91ba21d6cp-4, \
   0x1.9845642facp-4, 0x1.9ca5aa1728p-4, 0x1.a33b422244p-4, 0x1.a7a276badcp-4, 0x1.ae42855098p-4, \
   0x1.b2b0beb418p-4, 0x1.b95b654a78p-4, 0x1.bdd0b9fd08p-4, 0x1.c4861aab94p-4, 0x1.c902a19e64p-4, \
   0x1.cd820ffd28p-4, 0x1.d446afb64cp-4, 0x1.d8cd71303cp-4, 0x1.dd5727676cp-4, 0x1.e42b4c16ccp-4, \
   0x1.e8bc77271cp-4, 0x1.ed50a4a27p-4, 0x1.f4349618fcp-4, 0x1.f8d05b16a8p-4, 0x1.fd6f308ce4p-4, \
   0x1.01088d48d6p-3, 0x1.0484e4942ap-3, 0x1.06d9bc53c2p-3, 0x1.093025a19ap-3, 0x1.0b88229b72p-3, \
   0x1.0f0f17a062p-3, 0x1.116b0f26b6p-3, 0x1.13c8a1e35p-3, 0x1.1627d2079ep-3, 0x1.1888a1c996p-3, \
   0x1.1aeb1363b4p-3, 0x1.1d4f291514p-3, 0x1.1fb4e52174p-3, 0x1.23509c1e6ep-3, 0x1.25ba8215bp-3, \
   0x1.2826167a6cp-3, 0x1.2a935ba5f2p-3, 0x1.2d0253f67ep-3, 0x1.2f7301cf4ep-3, 0x1.31e56798aap-3, \
   0x1.345987bfeep-3}
#define DLX__MLOG_LOG10_LO_VALUES \
  {0x1.dcffc97be8c9cp-44, -0x1.7c697e103ceaap-56, -0x1.3cac4432a6ecdp-46, 0x1.759aa8c8a1f1cp-45, -0x1.382270dacef5ap-44, \
   0x1.61f143538008cp-46, -0x1.d590237ba79aep-44, -0x1.ddd54b04da9d8p-45, 0x1.50a78256ec9ap-45, 0x1.c0c4db986cf0ap-45, \
   0x1.da427c0391384p-45, -0x1.b8bb99d8799a8p-44, 0x1.79fa60c9eebd9p-44, 0x1.1c840d7cad4afp-45, 0x1.f4da4c877478bp-44, \
   0x1.5b3545950d96ep-44, -0x1.070f0bd0341b7p-45, -0x1.01962350c9786p-45, -0x1.db2a2c6287ecp-46, 0x1.9f28002957cb8p-44, \
   0x1.6f31d0b132f8fp-44, 0x1.d218966360097p-46, 0x1.caf1f7d15c965p-45, 0x1.8fa44d20ece0ap-44, 0x1.a155bfe1d645bp-44, \
   0x1.bf71dec67fbefp-45, -0x1.5e7b0d1296446p-44, -0x1.9fe3d562a53fp-44, 0x1.4fb46fcd56eddp-44, -0x1.15ac3f0ba9dbep-44, \
   0x1.147026795fa8bp-44, 0x1.cd57c914b5aaap-44, 0x1.2d85bc180e427p-47, -0x1.f986b84811b07p-44, 0x1.10162e464084cp-44, \
   0x1.f0b2b6656c7f2p-44, -0x1.c9d629a26df8ep-45, -0x1.dba29d8601f93p-45, 0x1.766a8abaa9efp-48, 0x1.f902891596119p-48, \
   -0x1.51d88b2679d95p-44, 0x1.0a1a7adda1ce4p-47, 0x1.627b621c66912p-44, 0x1.56414945caae4p-44, 0x1.df68df8cd708ap-44, \
   0x1.1d142bd45c754p-44, 0x1.1da9bee9fdda8p-45, -0x1.a82909fa92ddep-45, -0x1.5aae9997fb166p-44, 0x1.bb67d8e7b2c03p-44, \
   0x1.2717d42b3b5bbp-44, -0x1.f5738f0e65429p-50, 0x1.9036b130dc2b9p-44, 0x1.5f89d049ffd9dp-44, 0x1.998af72eaa028p-46, \
   -0x1.80a03a70ab7e8p-44, 0x1.fd3676723abe2p-44, 0x1.606adb567e739p-45, 0x1.b81de7b6c0dfdp-44, 0x1.016119abf2df8p-45, \
   0x1.7b786f3ec11dcp-48, -0x1.bc74d0b95527p-45, -0x1.ce91f75cf6fe5p-48, -0x1.b4237039b5162p-45, -0x1.3feb9a7cd080dp-44, \
   0x1.d0e6a0f629baep-45, 0x1.90afa20f56b5ep-44, -0x1.71e18847c4d89p-44, 0x1.dcffc97be8c9cp-45, -0x1.6e95635907534p-48, \
   -0x1.dfbbdcdb9df2cp-44, -0x1.949df2a5fb46cp-44, -0x1.aecff1b44ae64p-44, 0x1.07165a9c258d4p-50, -0x1.815c0cde7a7fp-44, \
   -0x1.6ddee0592d983p-44, -0x1.45b867a04014dp-45, -0x1.65e62559618f2p-44, -0x1.ee6e333b614f5p-44, 0x1.6b83f06da980ap-44, \
   -0x1.5ea6bc2bc8c2cp-52, 0x1.8fd11436f9361p-44, 0x1.87011e3d000eap-44, -0x1.0108fa031185ap-46, 0x1.70b753590c5d3p-45, \
   -0x1.4173b2a06eb58p-46, -0x1.659d00c475908p-44, -0x1.346a323a2bb75p-44, 0x1.85524e64e2a5fp-44, 0x1.3df2b4349e5dcp-48, \
   0x1.72e382fd9e528p-44, 0x1.3b49bc8394523p-44, 0x1.0163d7e67d282p-45, 0x1.fdf0a81101c8ap-44, 0x1.862239186139bp-44, \
   0x1.c063628960c25p-44, -0x1.59eaebef3d5bep-44, -0x1.2127595668247p-48, -0x1.bcd51444ab4fp-47, -0x1.9efa9137a1fa4p-44, \
   0x1.1fc708031099dp-44, 0x1.4cc1c6bf68dbp-45, 0x1.612c205756103p-44, 0x1.95ae2836c3efap-44, 0x1.f8a145593666p-44, \
   0x1.bdafc8ad828b8p-45, -0x1.8e1f6251b9492p-45, 0x1.193325724a3ddp-44, 0x1.72ffd7ffe731bp-49, -0x1.01f1010f86affp-44, \
   -0x1.dd9adc1c7f97fp-51, -0x1.1027b7ed42f6dp-44, -0x1.5f1d45244f437p-60, 0x1.8328c28c5de2ap-44, -0x1.c4b8600163d9fp-46, \
   -0x1.63c35e7d67688p-48, -0x1.774e831b960aap-46, -0x1.f028fb72dfe8ap-44, -0x1.69dd9d9aeedc4p-44, 0x1.9f05921f59258p-46, \
   -0x1.ad70142ffbdb7p-44, -0x1.6ba3837b618d8p-44, -0x1.473fae5a8e918p-44, 0x1.9fd76cbaba4e4p-45, 0x1.ac42915db7ec8p-44, \
   0x1.d82564e0ad4cep-47, 0x1.d07e22587685bp-44, -0x1.f4853edba0639p-45, -0x1.3a62b79ada68bp-47, -0x1.4e241ecdd26bfp-47, \
   -0x1.b1de84602abd8p-44, -0x1.6eb34d4aa89ep-44, 0x1.d11c9508ca27ap-47, -0x1.0169545b91b96p-45, 0x1.00429e06e1f32p-44, \
   -0x1.cd60c6a5111d3p-44, -0x1.0dd3afe4cd0b2p-47, -0x1.b41e70df8592fp-46, -0x1.b2ae8a612cfe6p-44, 0x1.155ac9c1a811dp-44, \
   0x1.a87eeb5600788p-44, -0x1.a21db136b482ep-45, -0x1.03502db0555dp-44, 0x1.5e42f025b514ep-44, -0x1.8ea5eaca88675p-44, \
   -0x1.ed2665c1ba949p-45, 0x1.a081515cbbf14p-44, -0x1.5784564411e7p-45, 0x1.ded251d1ef535p-45, 0x0p+0, \
   -0x1.31a1eb97093b9p-45, 0x1.a7e186b65af39p-44, 0x1.102c95c0dc644p-44, 0x1.e05382d51f71bp-44, 0x1.7721c86a32e2ap-44, \
   -0x1.bff60d297cc02p-45, 0x1.b4533966c4829p-45, 0x1.86b09fefb3005p-44, -0x1.77467df16102ap-44, 0x1.f8d484ac7f8e4p-45, \
   -0x1.618b4ef79c38fp-44, -0x1.80e1fcdb87b8cp-46, -0x1.d1a132eeb5289p-44, -0x1.b958b4b043d19p-44, -0x1.d651a345db748p-49, \
   0x1.51bd19e6e701ap-44, -0x1.00925a535ae72p-44, -0x1.da7741603665bp-44, 0x1.48fd764dea1d9p-45, -0x1.9356bbdbfffd8p-44, \
   0x1.99ac1fd443e4p-48, -0x1.b3f6a1447d572p-45, -0x1.00c12f7a1b586p-47, 0x1.83662f181f53fp-47, 0x1.20287dac177e6p-45, \
   -0x1.a04483513cf5bp-46, -0x1.d8cf527f38ac6p-48, -0x1.a50b9700c2ac9p-44, -0x1.8145a563de9f8p-44, 0x1.e533f553fef1cp-45, \
   0x1.6c2c0931d0032p-45, 0x1.1d257c8d0d386p-45, -0x1.5e6edad46beacp-45, 0x1.272a95ead4056p-44, 0x1.22aea9b40f263p-44, \
   -0x1.9214901c9aef8p-44, -0x1.463f99aa83d1ap-44, 0x1.e9d92d38dc40cp-44, -0x1.f0f9c4cf885d9p-45, -0x1.7e8c80c5d00f2p-44, \
   0x1.bf44e72402874p-44, 0x1.f3735158d42c3p-49, 0x1.f0168af5d72d9p-45, -0x1.1fc0e1acaa2c7p-48, 0x1.8038fc483bdc1p-44, \
   0x1.f822d060ec876p-44, 0x1.7b6b8c091127dp-44, 0x1.b5474ae667c99p-44, 0x1.0feadd5856604p-44, -0x1.0f6d74f54f373p-48, \
   0x1.ba270494ee73dp-46, -0x1.01da9994ead07p-44, 0x1.75da8a5871b9ap-45, 0x1.c2c6f11e3581cp-45, 0x1.5bcd1450d31d8p-48, \
   0x1.7c3cf23a17d9fp-46, -0x1.1b294ba31c9a5p-44, -0x1.358b67f75a3d9p-45, -0x1.41149840eaa65p-46, -0x1.db5c368bd3023p-44, \
   -0x1.cdee31de0d912p-48, -0x1.deb4fc182476ep-44, -0x1.2c09bb60238bap-45, 0x1.900e5cc4e4c82p-44, -0x1.088de1de62c8cp-44, \
   0x1.1e0d4cb374e1p-45, 0x1.f44a74b04a5b6p-44, 0x1.6f17034675735p-44, 0x1.2c79e9957c9d4p-44, 0x1.50b57a903b366p-44, \
   0x1.ad02ad13bc4d7p-44, 0x1.90e5e24764ec7p-45, 0x1.a0fc2eafba507p-44, -0x1.775b6b51fca7bp-46, 0x1.1117390924cd5p-44, \
   -0x1.c358f377e27bcp-46, 0x1.f95fec4153145p-46, -0x1.6d13f77d50b7ap-47, 0x1.2b2443f2d985p-45, -0x1.50d780639590cp-44, \
   -0x1.a197240569ddfp-46, -0x1.50408544a92fap-44, -0x1.6e6791f17a5c9p-44, -0x1.2b8ad2ea4442dp-44, 0x1.b51fe006d8435p-44, \
   0x1.c055a0b1de245p-44, 0x1.4867cc62a8c08p-44, 0x1.2818deee1fa45p-44, -0x1.128d0950e065ap-44, -0x1.bb284c008ba7cp-44, \
   0x1.a9547d2cbfbb2p-46, 0x1.eeb24143ef26bp-45, -0x1.0bfa55f697578p-44, 0x1.cc5153fe60877p-45, -0x1.b3c1301ae9ac8p-45, \
   0x1.3219d92f934ccp-45, -0x1.fed10b114338bp-47, 0x1.e7216e57e6c06p-48, -0x1.b2215ab3ec84fp-45, -0x1.007bf2d8bf07ap-44, \
   -0x1.b1d55056642p-46, -0x1.70e07d84e08ffp-44, 0x1.32ac22596b4ap-45, 0x1.0f5c70d1a6341p-44, -0x1.debad218b9aa2p-44, \
   0x1.521558148a413p-44}
DLX_MTABLE_DEFINE(double, dlx__mlog_invc, 256, DLX__MLOG_INVC_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_ln_hi, 256, DLX__MLOG_LN_HI_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_ln_lo, 256, DLX__MLOG_LN_LO_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_log2_hi, 256, DLX__MLOG_LOG2_HI_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_log2_lo, 256, DLX__MLOG_LOG2_LO_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_log10_hi, 256, DLX__MLOG_LOG10_HI_VALUES)
DLX_MTABLE_DEFINE(double, dlx__mlog_log10_lo, 256, DLX__MLOG_LOG10_LO_VALUES)

/* The rules are long enough that GCC would call them (a call is never vectorised) rather than inline
 * them into a loop: force it. nvcc inlines device code by itself. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define DLX_MLOG static inline __attribute__((always_inline))
#else
#define DLX_MLOG DLX_MATH
#endif

/* ---- reduction ----------------------------------------------------------------------------------- */

/* v = 2^e * m for a positive normal double v: the interval index of m and its bits, and t whose top
 * bits are eb = e + 1024, from 64-bit unsigned integer operations only (GCC 12 vectorises a table
 * lookup only when the index is as wide as the double it loads). 2^62 keeps t - 2^62 = bits(v) -
 * bits(m_0) from wrapping for every positive v (m_0 the start of interval 0); m's bits are m_0's plus
 * the low 52 bits of that difference, e's being the rest. */
DLX_MLOG uint64_t dlx__mlog_index(double v, uint64_t *t) {
  *t = dlx__m_bits64(v) - ((uint64_t)DLX_MLOG_OFF32 << 32) + (UINT64_C(1024) << 52);
  return (*t >> 44) & 255u;
}

/* m = v * 2^-e, exact */
DLX_MLOG double dlx__mlog_mant(uint64_t t) {
  return dlx__m_from64((t & ((UINT64_C(1) << 52) - 1u)) + ((uint64_t)DLX_MLOG_OFF32 << 32));
}

/* e = eb - 1024 as a double, exactly, eb = t >> 52 (eb < 2^12 sits in the low bits of 2^52's
 * significand: no 64-bit integer conversion, which AVX2 lacks) */
DLX_MLOG double dlx__mlog_edbl(uint64_t t) {
  return dlx__m_from64(UINT64_C(0x4330000000000000) | (t >> 52)) - (0x1p52 + 1024.0);
}

/* Q(r) = (log1p(r) - r) / r^2 to the term r^5/7: the next, -r^6/8, is below 2^-63 of log1p(r) for
 * |r| < 2^-8.7 (Taylor's coefficients, so the constants are what they say) */
DLX_MLOG double dlx__mlog_q(double r) {
  return -0.5 + r * (0x1.5555555555555p-2 + r * (-0.25 + r * (0x1.999999999999ap-3 +
                                                                 r * (-0x1.5555555555555p-3 + r * 0x1.2492492492492p-3))));
}

/* The reduced argument: log(v) = e*log(2) + T_i + log1p(r + d) with r + d exact, d tiny (|d| < 2^-42)
 * or zero. */
typedef struct dlx__mlog_red {
  double r, d, e;
  uint64_t i;
} dlx__mlog_red;

/* v a positive double with at most 43 significant bits (every float32, and 1 + x for float32 x in the
 * range log1pf sends here): r = m*invc - 1 exact, d = 0 */
DLX_MLOG dlx__mlog_red dlx__mlog_reduce_short(double v) {
  dlx__mlog_red z;
  uint64_t t;
  z.i = dlx__mlog_index(v, &t);
  z.e = dlx__mlog_edbl(t);
  z.r = dlx__mlog_mant(t) * DLX_MT(dlx__mlog_invc)[z.i] - 1.0;
  z.d = 0.0;
  return z;
}

/* v + lo, v a positive normal double, |lo| <= half an ulp of v (lo is the rounding error of 1 + x in
 * log1p, 0 in log): m = mh + ml with mh its top 43 bits, so that r = mh*invc - 1 is exact; d gathers
 * ml*invc (exact: at most 10 bits times 10 bits) and lo's share, lo * 2^-e * invc (rounded, but it is
 * below 2^-53 of the whole). In the interval around 1.0 (invc = 1) m is not split: r = m - 1 is exact
 * anyway, and there r + ml could cancel to far below ml, whose rounding in the sum would then show.
 * lo is scaled only while 2^-e is a normal double; past that (v > 2^1000, log1p of x > 2^1000) lo is
 * dropped: it is then below 2^-1000 and the result above 693. */
DLX_MLOG dlx__mlog_red dlx__mlog_reduce_long(double v, double lo, int with_lo) {
  dlx__mlog_red z;
  uint64_t t;
  z.i = dlx__mlog_index(v, &t);
  z.e = dlx__mlog_edbl(t);
  const double invc = DLX_MT(dlx__mlog_invc)[z.i];
  const double m = dlx__mlog_mant(t);
  const uint64_t eb = t >> 52;
  const uint64_t keep = z.i == DLX_MLOG_ONE ? ~(uint64_t)0 : ~(uint64_t)0x3ff;
  const double mh = dlx__m_from64(dlx__m_bits64(m) & keep);
  z.r = mh * invc - 1.0;
  z.d = (m - mh) * invc;
  if (with_lo) {
    const uint64_t es = eb < 2024u ? eb : 2024u; /* e = eb - 1024, at most 1000 */
    const double scale = dlx__m_from64((2047u - es) << 52); /* 2^-e */
    const double lo_kept = eb < 2024u ? lo : 0.0;
    z.d = z.d + lo_kept * scale * invc;
  }
  return z;
}

/* ---- the sum -------------------------------------------------------------------------------------- */

/* log_b(v) as hi + lo (|lo| tiny against hi), b = e (base 0), 2 (1) or 10 (2), from a reduction. The
 * constant arguments fold when this is inlined; long_r says r may have more than 26 bits (the float64
 * path), so that log2 and log10 split it before the exact product r * INV*_HI. */
typedef struct dlx__mlog_dd {
  double hi, lo;
} dlx__mlog_dd;

DLX_MLOG dlx__mlog_dd dlx__mlog_sum(dlx__mlog_red z, int base, int with_d, int long_r) {
  const double r = z.r, r2 = r * r;
  double p = r2 * dlx__mlog_q(r); /* log1p(r) - r */
  if (with_d == 1) {
    /* log1p(r + d) - log1p(r) = d/(1+r) - d^2/2 + ..., to within 2^-60 of the result */
    p = p + (z.d + z.d * ((r2 - r) - 0.5 * z.d));
  } else if (with_d == 2) {
    /* the same where the result is above 16 (float32 log1p of x >= 2^24): d - d*r is within 2^-60 */
    p = p + (z.d - z.d * r);
  }
  double A, lo, B;
  if (base == 0) {
    A = z.e * DLX_MLOG_LN2_HI + DLX_MT(dlx__mlog_ln_hi)[z.i]; /* exact: multiples of 2^-42 below 2^10 */
    lo = z.e * DLX_MLOG_LN2_LO + DLX_MT(dlx__mlog_ln_lo)[z.i];
    B = r;
    lo = lo + p;
  } else {
    const double il_hi = base == 1 ? DLX_MLOG_INVLN2_HI : DLX_MLOG_INVLN10_HI;
    const double il_lo = base == 1 ? DLX_MLOG_INVLN2_LO : DLX_MLOG_INVLN10_LO;
    const double il = base == 1 ? DLX_MLOG_INVLN2 : DLX_MLOG_INVLN10;
    if (base == 1) {
      A = z.e + DLX_MT(dlx__mlog_log2_hi)[z.i];
      lo = DLX_MT(dlx__mlog_log2_lo)[z.i];
    } else {
      A = z.e * DLX_MLOG_LOG10_2_HI + DLX_MT(dlx__mlog_log10_hi)[z.i];
      lo = z.e * DLX_MLOG_LOG10_2_LO + DLX_MT(dlx__mlog_log10_lo)[z.i];
    }
    double rh = r, rest = r * il_lo;
    if (long_r) { /* keep r's top 26 bits in rh, so that rh * il_hi is exact */
      rh = dlx__m_from64(dlx__m_bits64(r) & ~(uint64_t)0x7ffffff);
      rest = rest + (r - rh) * il_hi;
    }
    B = rh * il_hi;
    lo = lo + (rest + p * il);
  }
  /* Fast2Sum: |A| >= |B| whenever A != 0 (the table generator checks it per interval) */
  const double a = A + B;
  const double b = B - (a - A);
  dlx__mlog_dd s;
  s.hi = a;
  s.lo = b + lo;
  return s;
}

/* hi + lo rounded to odd: rounded to nearest, then, when the rounding error is nonzero and the nearest
 * is even, moved to its odd neighbour on the error's side: (bits - 1) | 1 is the neighbour toward zero,
 * bits | 1 the one away from it (the bits of a double are its magnitude's order) */
DLX_MLOG double dlx__mlog_odd(dlx__mlog_dd s) {
  const double y = s.hi + s.lo;
  const double err = s.lo - (y - s.hi); /* exact (Fast2Sum, |hi| >= |lo|) */
  const uint64_t yb = dlx__m_bits64(y);
  const uint64_t odd = (yb - ((dlx__m_bits64(err) ^ yb) >> 63)) | 1u;
  return dlx__m_from64(err != 0.0 ? odd : yb);
}

/* ---- float32 -------------------------------------------------------------------------------------- */

/* log_b of a float32 x > 0 (finite), odd-rounded */
DLX_MLOG double dlx__mlog_core32(float x, int base) {
  /* float32 subnormals are double normals: no normalisation step */
  return dlx__mlog_odd(dlx__mlog_sum(dlx__mlog_reduce_short((double)x), base, 0, 0));
}

/* Annex F's special values: log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN -> quiet NaN. The
 * float32 rules select them in float32 (twice the lanes of a double vector), with the same values. */
DLX_MLOG int dlx__mlog_special32(float x) { return !(x > 0.0f && x <= 0x1.fffffep127f); }
DLX_MLOG float dlx__mlog_value32(float x) {
  return x == 0.0f ? dlx__m_from32(0xff800000u) : (x < 0.0f ? dlx__m_from32(0xffc00000u) : x + x);
}

DLX_MLOG double dlx__wide_log(float x) {
  const double y = dlx__mlog_core32(x, 0);
  return dlx__mlog_special32(x) ? (double)dlx__mlog_value32(x) : y;
}
DLX_MLOG double dlx__wide_log2(float x) {
  const double y = dlx__mlog_core32(x, 1);
  return dlx__mlog_special32(x) ? (double)dlx__mlog_value32(x) : y;
}
DLX_MLOG double dlx__wide_log10(float x) {
  const double y = dlx__mlog_core32(x, 2);
  return dlx__mlog_special32(x) ? (double)dlx__mlog_value32(x) : y;
}
/* log2 and log10 in float32 skip the rounding to odd, 15% of their time: (float)(hi + lo) rounds twice,
 * to double and then to float32, and is wrong only where the double lands exactly on a float32 midpoint
 * that the double-double is not on. bench/math/dev_plain.c compares the two roundings over all 2^32
 * inputs: log2 differs on none, log10 on one input, whose correctly rounded result (the odd-rounded one,
 * which math_exhaustive checks against MPFR) is blended in here. log differs on five: selecting them
 * cost more than the rounding to odd saves, so log keeps it; so do log1p (nine) and the narrow formats
 * (dlx__wide_log ...). */
DLX_MLOG float dlx__mlog_plain32(float x, int base) {
  const dlx__mlog_dd s = dlx__mlog_sum(dlx__mlog_reduce_short((double)x), base, 0, 0);
  return (float)(s.hi + s.lo);
}
DLX_MLOG float dlx__logf(float x) {
  const float y = (float)dlx__mlog_core32(x, 0);
  return dlx__mlog_special32(x) ? dlx__mlog_value32(x) : y;
}
DLX_MLOG float dlx__log2f(float x) {
  const float y = dlx__mlog_plain32(x, 1);
  return dlx__mlog_special32(x) ? dlx__mlog_value32(x) : y;
}
DLX_MLOG float dlx__log10f(float x) {
  const uint32_t yb = dlx__m_pick32(dlx__m_bits32(x), 0x0efeee7au, 0xc1e99d23u, dlx__m_bits32(dlx__mlog_plain32(x, 2)));
  const float y = dlx__m_from32(yb);
  return dlx__mlog_special32(x) ? dlx__mlog_value32(x) : y;
}

/* log1p of a double x > -1 (finite) as a double-double: 1 + x as hi + lo (TwoSum), hi reduced with its
 * 53 bits split and lo carried in d. */
DLX_MLOG dlx__mlog_dd dlx__mlog_log1p_dd(double x) {
  const double hi = 1.0 + x;
  const double z = hi - x;
  const double lo = (1.0 - z) + (x - (hi - z)); /* TwoSum(1, x): hi + lo = 1 + x exactly */
  dlx__mlog_red red = dlx__mlog_reduce_long(hi, lo, 1);
  /* 1 + x in the interval around 1.0: r + d = x exactly, so take r = x itself (no cancellation) */
  const int near0 = red.i == DLX_MLOG_ONE && red.e == 0.0;
  red.r = near0 ? x : red.r;
  red.d = near0 ? 0.0 : red.d;
  return dlx__mlog_sum(red, 0, 1, 0);
}

/* log1p of a float32 x > -1 (finite, nonzero) as a double-double. 1 + x is exact in double with at
 * most 34 significant bits for 2^-9 <= |x| < 2^24 (r exact without a split); for |x| below that, 1 + x
 * falls in the interval around 1.0 and r = x itself, exact; for 2^24 <= x < 2^53, 1 + x is exact but
 * longer, and m is split as in the float64 path (d = ml*invc); for x >= 2^53 the reduction is of x, and
 * log1p(x) = log(x) + log1p(1/x) with 1/x = 2^-e*invc / (1 + r), d = 2^-e*invc. In the last two cases
 * |d| < 2^-42 and log1p(x) > 16, so d - d*r is close enough to log1p(r + d) - log1p(r). */
DLX_MLOG dlx__mlog_dd dlx__mlog_log1p_dd32(float xf) {
  const double x = (double)xf;
  const double v = x >= 0x1p53 ? x : 1.0 + x;
  uint64_t t;
  dlx__mlog_red z;
  z.i = dlx__mlog_index(v, &t);
  z.e = dlx__mlog_edbl(t);
  const double invc = DLX_MT(dlx__mlog_invc)[z.i];
  const double m = dlx__mlog_mant(t);
  const double mh = dlx__m_from64(dlx__m_bits64(m) & ~(uint64_t)0x3ff);
  const double scale = dlx__m_from64((2047u - (t >> 52)) << 52); /* 2^-e, a normal double (e <= 128) */
  const double d = x >= 0x1p53 ? scale * invc : (m - mh) * invc;
  const int near0 = (t >> 44) == ((UINT64_C(1024) << 8) | DLX_MLOG_ONE); /* e = 0, interval of 1.0 */
  z.r = near0 ? x : mh * invc - 1.0;
  z.d = near0 ? 0.0 : d;
  return dlx__mlog_sum(z, 0, 2, 0);
}

/* log1p's special values, selected as log's: +-0 stays (x + x keeps -0.0, where the sum would give
 * +0.0), -1 -> -inf, x < -1 -> NaN, +inf -> +inf, NaN -> quiet NaN */
DLX_MLOG int dlx__mlog_special1p(float x) { return !(x > -1.0f && x <= 0x1.fffffep127f) || x == 0.0f; }
DLX_MLOG float dlx__mlog_value1p(float x) {
  return x == -1.0f ? dlx__m_from32(0xff800000u) : (x < -1.0f ? dlx__m_from32(0xffc00000u) : x + x);
}

DLX_MLOG double dlx__wide_log1p(float x) {
  const double y = dlx__mlog_odd(dlx__mlog_log1p_dd32(x));
  return dlx__mlog_special1p(x) ? (double)dlx__mlog_value1p(x) : y;
}
DLX_MLOG float dlx__log1pf(float x) {
  const float y = (float)dlx__mlog_odd(dlx__mlog_log1p_dd32(x));
  return dlx__mlog_special1p(x) ? dlx__mlog_value1p(x) : y;
}

/* ---- float64 -------------------------------------------------------------------------------------- */

/* log_b of a double: subnormals scaled by 2^52 first; the double-double rounded once to nearest */
DLX_MLOG double dlx__mlog_f64(double x, int base) {
  dlx__mlog_red z = dlx__mlog_reduce_long(x < 0x1p-1022 ? x * 0x1p52 : x, 0.0, 0);
  z.e = x < 0x1p-1022 ? z.e - 52.0 : z.e;
  const dlx__mlog_dd s = dlx__mlog_sum(z, base, 1, 1);
  const double y = s.hi + s.lo;
  const double special = x == 0.0 ? dlx__m_from64(UINT64_C(0xfff0000000000000))
                                  : (x < 0.0 ? dlx__m_from64(UINT64_C(0xfff8000000000000)) : x + x);
  return (x > 0.0 && x <= 0x1.fffffffffffffp1023) ? y : special;
}

DLX_MLOG double dlx__log(double x) { return dlx__mlog_f64(x, 0); }
DLX_MLOG double dlx__log2(double x) { return dlx__mlog_f64(x, 1); }
DLX_MLOG double dlx__log10(double x) { return dlx__mlog_f64(x, 2); }

DLX_MLOG double dlx__log1p(double x) {
  const dlx__mlog_dd s = dlx__mlog_log1p_dd(x);
  const double y = s.hi + s.lo;
  const double special = x == -1.0 ? dlx__m_from64(UINT64_C(0xfff0000000000000))
                                   : (x < -1.0 ? dlx__m_from64(UINT64_C(0xfff8000000000000)) : x + x);
  const double finite = x == 0.0 ? x : y; /* keeps -0.0 */
  return (x > -1.0 && x <= 0x1.fffffffffffffp1023) ? finite : special;
}

#endif /* DLX_KERNELS_MATH_LOG_H */

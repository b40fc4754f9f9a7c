"""Reference rules of docs/numerics.md for the tests: where dlx deliberately gives other bits than its peers
(NumPy for float16, ml_dtypes for bfloat16 and the fp8/fp6/fp4 formats), and an exact encoder that rounds a
real number into any narrow format with Python's fractions, independently of both.

- documented_encode: a peer's codes for inputs x, with dlx's documented differences applied;
- quiet: float32 / float64 arrays with every NaN's quiet bit set (what a dlx conversion delivers);
- exact_encode: the correctly rounded code of a float64 value (rounding to nearest, ties to even, ties up
  for float8_e8m0fnu; the format's overflow, zero and NaN rules), from the formats' own definitions.
"""
import bisect
import math
from fractions import Fraction

import numpy as np

# float8_e8m0fnu's smallest value and the tie above it: (2**-127, 1.5 * 2**-127) is nearer 2**-127, which
# ml_dtypes 0.6 rounds up to 2**-126 (as if code 0x00 were zero)
E8M0_MIN = 2.0**-127
E8M0_TIE = 1.5 * 2.0**-127


def quiet(a):
    """a (float32 or float64 array) with the quiet bit of every NaN set."""
    a = np.array(a)
    u = a.view(np.uint32 if a.dtype == np.float32 else np.uint64)
    u[np.isnan(a)] |= np.array(1 << (22 if a.dtype == np.float32 else 51), u.dtype)
    return a


def documented_encode(name, x, peer_codes):
    """The codes dlx gives for float32 / float64 inputs x into format `name`, from the peer's codes for
    them (ml_dtypes' astype, NumPy's for float16; x is what the peer rounded from):
    - float16: a NaN keeps its top 10 payload bits, as NumPy, but with the quiet bit set: sign | 0x7E00 |
      payload (NumPy: sign | 0x7C00 | payload, 0x7C01 for a payload whose top bits are zero, so that a
      signalling NaN stays signalling);
    - float8_e8m0fnu: inputs in (2**-127, 1.5 * 2**-127) give 2**-127 (code 0), the nearest value, where
      ml_dtypes gives 2**-126."""
    want = np.array(peer_codes, dtype=np.uint16)
    x = np.asarray(x)
    if name == "float16":
        nan = np.isnan(x)
        u = x.view(np.uint32 if x.dtype == np.float32 else np.uint64)[nan]
        top = (u >> np.array(13 if x.dtype == np.float32 else 42, u.dtype)) & np.array(0x3FF, u.dtype)
        neg = (u >> np.array(x.dtype.itemsize * 8 - 1, u.dtype)) != 0
        want[nan] = (np.where(neg, 0x8000, 0) | 0x7E00 | top.astype(np.int64)).astype(np.uint16)
    if name == "float8_e8m0fnu":
        a = x.astype(np.float64)
        want[(a > E8M0_MIN) & (a < E8M0_TIE)] = 0
    return want


# The formats' definitions (bits, exponent bits, mantissa bits, bias, kind), restated from the OCP / ml_dtypes
# documentation: "ieee" has inf and NaN at exponent all ones; "fn" has only S.1111.111 as NaN; "fnuz" has
# 0x80 as its one NaN and no -0; "e8m0" is unsigned powers of two with 0xFF NaN; "fp" (fp6/fp4) has neither
# inf nor NaN.
SPECS = {
    "float16": (16, 5, 10, 15, "ieee"),
    "bfloat16": (16, 8, 7, 127, "ieee"),
    "float8_e3m4": (8, 3, 4, 3, "ieee"),
    "float8_e4m3": (8, 4, 3, 7, "ieee"),
    "float8_e4m3b11fnuz": (8, 4, 3, 11, "fnuz"),
    "float8_e4m3fn": (8, 4, 3, 7, "fn"),
    "float8_e4m3fnuz": (8, 4, 3, 8, "fnuz"),
    "float8_e5m2": (8, 5, 2, 15, "ieee"),
    "float8_e5m2fnuz": (8, 5, 2, 16, "fnuz"),
    "float8_e8m0fnu": (8, 8, 0, 127, "e8m0"),
    "float6_e2m3fn": (6, 2, 3, 1, "fp"),
    "float6_e3m2fn": (6, 3, 2, 3, "fp"),
    "float4_e2m1fn": (4, 2, 1, 1, "fp"),
}


def _value(name, code):
    """The exact value of a non-negative finite code, or None for NaN / inf codes."""
    bits, eb, mb, bias, kind = SPECS[name]
    ones = (1 << eb) - 1
    e, m = code >> mb, code & ((1 << mb) - 1)
    if kind == "e8m0":
        return None if code == 0xFF else Fraction(2) ** (code - 127)
    if (kind == "ieee" and e == ones) or (kind == "fn" and e == ones and m == (1 << mb) - 1):
        return None
    if e == 0:
        return Fraction(m) * Fraction(2) ** (1 - bias - mb)
    return Fraction((1 << mb) | m) * Fraction(2) ** (e - bias - mb)


_TABLES = {}


def _table(name):
    """(values, codes) of the non-negative finite codes in increasing order, then a virtual value one step
    past the largest (its binade's spacing again: where rounding with an unbounded exponent would go),
    whose code -1 means overflow."""
    if name not in _TABLES:
        bits, eb, mb, bias, kind = SPECS[name]
        ncodes = 256 if kind == "e8m0" else 1 << (bits - 1)
        rows = [(v, c) for c in range(ncodes) if (v := _value(name, c)) is not None]
        if kind == "fnuz":
            rows = [r for r in rows if r[1] != 0x80]
        vmax = rows[-1][0]
        rows.append((vmax + Fraction(2) ** (vmax.numerator.bit_length() - vmax.denominator.bit_length() - mb), -1))
        _TABLES[name] = ([r[0] for r in rows], [r[1] for r in rows])
    return _TABLES[name]


def _special(name, what, neg):
    """The codes of NaN inputs, overflow (and inf) and zeros, per format kind (docs/numerics.md)."""
    bits, eb, mb, bias, kind = SPECS[name]
    sign = 1 << (bits - 1)
    s = sign if neg else 0
    if kind == "e8m0":
        return 0xFF
    if what == "zero":
        return 0 if kind == "fnuz" else s
    if kind == "fnuz":
        return 0x80
    if kind == "fn":
        return s | (sign - 1)
    if kind == "fp":
        return (0 if neg else sign) if what == "nan" else s | (sign - 1)  # NaN: the zero of the other sign
    ones = ((1 << eb) - 1) << mb
    return s | ones | (1 << (mb - 1)) if what == "nan" else s | ones


def exact_encode(name, x):
    """The code dlx must give for the float x (a float64 value) in format `name`: correctly rounded."""
    neg = math.copysign(1.0, x) < 0
    if math.isnan(x):
        return _special(name, "nan", neg)
    kind = SPECS[name][4]
    if kind == "e8m0" and (neg or x == 0):
        return 0xFF
    if math.isinf(x):
        return _special(name, "ovf", neg)
    if x == 0:
        return _special(name, "zero", neg)
    a = abs(Fraction(x))
    values, codes = _table(name)
    if a < values[0]:  # e8m0fnu: its smallest value is the nearest (no zero)
        pick = 0
    else:
        lo = bisect.bisect_right(values, a) - 1  # values[lo] <= a < values[lo + 1]
        if lo == len(values) - 1:
            return _special(name, "ovf", neg)
        mid = (values[lo] + values[lo + 1]) / 2
        if a != mid:
            pick = lo if a < mid else lo + 1
        elif kind == "e8m0":
            pick = lo + 1  # no mantissa bit: the kept bit is the implicit one, ties go up
        else:
            pick = lo if codes[lo] % 2 == 0 else lo + 1  # ties to the even code (the even significand)
    if codes[pick] == -1:
        return _special(name, "ovf", neg)
    c = codes[pick]
    if not neg:
        return c
    return _special(name, "zero", True) if c == 0 else c | (1 << (SPECS[name][0] - 1))

/* Internal to the CPU backend: compiling one loop body for one instruction-set level.
 *
 * The typed loops (loops_native_body.h, loops_narrow_body.h) are compiled three times, once per level,
 * by tiny variant files that set DLX_CPU_LEVEL and include a body:
 *   0 baseline  the compiler's default target (x86-64: SSE2);
 *   1 avx2      AVX2 + F16C + FMA (Haswell and later, Zen);
 *   2 avx512    AVX-512 F/BW/VL/DQ on top of level 1 (Skylake-SP and later, Zen 4).
 * dispatch.c picks one table at run time from cpuid. The levels are function attributes (GCC's
 * `#pragma GCC target`, clang's `#pragma clang attribute`), not per-file -m flags, so that CMake and
 * setup.py (which compiles every C file of src/backends/cpu with one set of flags) build the same thing.
 *
 * Include this first in a body, before any other header: GCC refuses to inline across different
 * optimisation options, so the optimize pragma must cover the inline rules of expr.h and convert.h too.
 * The target pragma (DLX_CPU_TARGET_BEGIN) goes after the includes: clang would otherwise stamp the
 * target on every declaration in the system headers. Inline helpers compiled for the default target
 * still inline into the target's loops (a callee's ISA may be a subset of its caller's) and vectorise
 * there with the caller's ISA.
 *
 * Results must not depend on the level. Hence, for every level and both compilers:
 *  - no floating-point contraction: an FMA rounds once where the portable code rounds twice (float32
 *    fma, complex products). Clang contracts by default even in -std=c11, GCC in gnu modes; the pragmas
 *    below turn it off for these files whatever the command line says;
 *  - no fast-math of any kind (never set here; the build never passes it).
 * Two flags that change no value are set for these files (the pragmas below for GCC, CMakeLists.txt's
 * flags for both compilers): -fno-math-errno, since nothing in dlx reads errno after a loop, and
 * -fno-trapping-math, since nothing reads the floating-point exception flags either (NumPy's warnings
 * are not emulated) and the rounding mode stays the default. Without the first, sqrt compiles to a
 * scalar square root with a call to sqrtf for negative inputs (for errno); without the second, GCC
 * vectorises neither floor, ceil nor trunc (vroundps) nor a rule that computes an operation on one side
 * of a condition only (remainder and floor_divide), which it may not speculate while a trap could
 * tell. Neither flag lets the compiler reassociate, contract, or assume away NaN, infinities or signed
 * zeros: every result keeps its bits, and tests/test_cpu_simd.c and test_backends.c check it. One cost
 * (GCC 12): in the scalar loops that strided rows run (a transposed walk's tiles), maximum, minimum,
 * fmax, fmin and clip then test a > b first and branch on it, where they used a conditional move, so
 * those rows run slower on data of random order (bench/bench_ufuncs.py's transposed cases). */
#ifndef DLX_BACKENDS_CPU_TARGET_H
#define DLX_BACKENDS_CPU_TARGET_H

#ifndef DLX_CPU_LEVEL
#error "a variant file defines DLX_CPU_LEVEL (0, 1 or 2) before including a loop body"
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && defined(__OPTIMIZE__)
/* GCC's -O2 only vectorises loops that need no runtime alias check ("very cheap" cost model); every
 * loop here needs one (out may be an input), so ask for the -O3 model. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-math-errno", \
                     "no-trapping-math")
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off", "no-math-errno", "no-trapping-math")
#endif

/* The variant's suffix for the tables it defines (dlx__cpu_native_avx2, ...). */
#if DLX_CPU_LEVEL == 0
#define DLX_CPU_SUFFIX(name) name##_baseline
#elif DLX_CPU_LEVEL == 1
#define DLX_CPU_SUFFIX(name) name##_avx2
#elif DLX_CPU_LEVEL == 2
#define DLX_CPU_SUFFIX(name) name##_avx512
#else
#error "DLX_CPU_LEVEL must be 0, 1 or 2"
#endif

/* F16C's conversions are there from level 1 on; AVX-512's 16-lane forms at level 2. */
#define DLX_CPU_F16C (DLX_CPU_LEVEL >= 1)
#define DLX_CPU_AVX512 (DLX_CPU_LEVEL >= 2)

/* _Pragma with its argument macro-expanded, then stringised (quotes escaped for us) */
#define DLX_CPU_PRAGMA_(x) _Pragma(#x)
#define DLX_CPU_PRAGMA(x) DLX_CPU_PRAGMA_(x)
#if DLX_CPU_LEVEL == 1
#define DLX_CPU_TARGET_LIST "avx2,f16c,fma"
#elif DLX_CPU_LEVEL == 2 && defined(__clang__)
/* clang takes no vector-width preference in the attribute; its auto-vectoriser keeps to 256 bits unless
 * told otherwise (-mprefer-vector-width), which is what GCC is asked for below */
#define DLX_CPU_TARGET_LIST "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma"
#elif DLX_CPU_LEVEL == 2
#define DLX_CPU_TARGET_LIST "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,prefer-vector-width=256"
#endif

#if DLX_CPU_LEVEL == 0
#define DLX_CPU_TARGET_BEGIN
#define DLX_CPU_TARGET_END
#elif defined(__clang__)
#define DLX_CPU_TARGET_BEGIN \
  DLX_CPU_PRAGMA(clang attribute push(__attribute__((target(DLX_CPU_TARGET_LIST))), apply_to = function))
#define DLX_CPU_TARGET_END DLX_CPU_PRAGMA(clang attribute pop)
#else
#define DLX_CPU_TARGET_BEGIN DLX_CPU_PRAGMA(GCC push_options) DLX_CPU_PRAGMA(GCC target(DLX_CPU_TARGET_LIST))
#define DLX_CPU_TARGET_END DLX_CPU_PRAGMA(GCC pop_options)
#endif

/* 512-bit vectors at level 2 where they were measured faster than the level's 256-bit preference, which
 * suits everything else: the many-unit reduction, which reads eight rows side by side (half the loads per
 * cache line), and the math functions, whose float32 rules compute in double (8 lanes a vector instead of
 * 4: 12-26% less time per element, bench/math/dev_*.c speed). The same operations in the same order
 * either way, so the same bits. GCC only: clang's vectoriser takes no width in an attribute. */
#if DLX_CPU_LEVEL == 2 && defined(__GNUC__) && !defined(__clang__)
#define DLX_CPU_WIDE __attribute__((target("prefer-vector-width=512")))
#else
#define DLX_CPU_WIDE
#endif

/* GCC 12's vectoriser fuses the alternating subtract/add of a complex product or quotient into
 * vfmaddsub / vfmsubadd whatever -ffp-contract says (its SLP "addsub" pattern never asks), which rounds
 * once where the rule rounds twice. Loops on complex dtypes therefore drop FMA (and AVX-512F, which
 * implies it) at levels 1 and 2; they still vectorise with AVX2. Clang honours the contraction pragma. */
#if DLX_CPU_LEVEL >= 1 && defined(__GNUC__) && !defined(__clang__)
#define DLX_CPU_NO_FUSE __attribute__((target("no-avx512f,no-fma")))
#else
#define DLX_CPU_NO_FUSE
#endif

#endif

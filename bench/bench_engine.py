"""dlx's compute engine against NumPy (and ml_dtypes for the narrow casts), in one run.

    python bench/bench_engine.py [--quick]     (after pip install .)

16M float32 elements (4096 x 4096): elementwise add (contiguous, one operand transposed, a broadcast
row), scalar multiply, casts to float16 / bfloat16 / float8_e4m3fn, fill, copy of a transposed view, and
gemm at 1024^3 and 2048^3 against numpy.matmul. dlx runs with 1 and with 2 threads
(dlx.set_num_threads); NumPy's elementwise loops are single-threaded and its matmul uses its own BLAS
with its own thread count (shown below). Outputs are preallocated where both sides allow it (out=), so
that the figures are the kernels, not the allocator. Each figure is the best of several runs; ratio =
dlx time / NumPy time (below 1: dlx is faster). Nothing here asserts: timings depend on the machine.
"""

import os
import sys
import time

N = 4096  # 4096 x 4096 = 16M elements


def best_s(fn, repeat, warmup=1):
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def numpy_blas():
    import numpy as np

    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        name = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy: no dicts mode
        name = "unknown"
    threads = "?"
    try:
        from threadpoolctl import threadpool_info

        threads = ",".join(str(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas")
    except ImportError:
        threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return f"{name} (threads: {threads})"


def main():
    import numpy as np

    import dlx

    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None

    quick = "--quick" in sys.argv
    rep = 3 if quick else 7
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N), dtype=np.float32)
    b = rng.standard_normal((N, N), dtype=np.float32)
    row = rng.standard_normal((N,), dtype=np.float32)
    out = np.empty((N, N), np.float32)
    ta, tb, trow = dlx.from_dlpack(a), dlx.from_dlpack(b), dlx.from_dlpack(row)
    tout = dlx.from_dlpack(out)

    print(f"dlx {dlx.__version__}, numpy {np.__version__}, ml_dtypes {getattr(ml_dtypes, '__version__', 'absent')}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"numpy BLAS: {numpy_blas()}; dlx default threads: {dlx.get_num_threads()}")
    print(f"{N} x {N} float32 ({N * N / 1e6:.0f}M elements); best of {rep}; ratio = dlx / numpy")

    cases = [
        ("add, contiguous (out=)", lambda: np.add(a, b, out=out), lambda: dlx.add(ta, tb, out=tout)),
        ("add, contiguous (new result)", lambda: a + b, lambda: ta + tb),
        ("add, one operand transposed", lambda: np.add(a, b.T, out=out), lambda: dlx.add(ta, tb.T, out=tout)),
        ("add, row broadcast", lambda: np.add(a, row, out=out), lambda: dlx.add(ta, trow, out=tout)),
        ("multiply by a scalar", lambda: np.multiply(a, 2.5, out=out), lambda: dlx.multiply(ta, 2.5, out=tout)),
        ("cast float32 -> float16", lambda: a.astype(np.float16), lambda: ta.astype("float16")),
    ]
    if ml_dtypes is not None:
        cases += [
            ("cast float32 -> bfloat16 (ml_dtypes)", lambda: a.astype(ml_dtypes.bfloat16),
             lambda: ta.astype("bfloat16")),
            ("cast float32 -> float8_e4m3fn (ml_dtypes)", lambda: a.astype(ml_dtypes.float8_e4m3fn),
             lambda: ta.astype("float8_e4m3fn")),
        ]
    cases += [
        ("fill", lambda: out.fill(1.5), lambda: tout.fill_(1.5)),
        ("copy of a transposed view", lambda: np.copyto(out, a.T), lambda: tout.copy_(ta.T)),
    ]
    gemms = []
    for n in (1024, 2048):
        x = rng.standard_normal((n, n), dtype=np.float32)
        y = rng.standard_normal((n, n), dtype=np.float32)
        tx, ty = dlx.from_dlpack(x), dlx.from_dlpack(y)
        gemms.append((f"gemm {n}^3 float32 (@)", (lambda x=x, y=y: x @ y), (lambda tx=tx, ty=ty: tx @ ty), 2 * n**3))

    header = f"  {'case':44s} {'numpy ms':>9s} {'dlx t=1 ms':>11s} {'ratio':>6s} {'dlx t=2 ms':>11s} {'ratio':>6s}"
    print(header)
    default_threads = dlx.get_num_threads()
    try:
        for label, np_fn, dlx_fn in cases:
            t_np = best_s(np_fn, rep)
            res = []
            for threads in (1, 2):
                dlx.set_num_threads(threads)
                res.append(best_s(dlx_fn, rep))
            print(f"  {label:44s} {t_np * 1e3:9.2f} {res[0] * 1e3:11.2f} {res[0] / t_np:6.2f} "
                  f"{res[1] * 1e3:11.2f} {res[1] / t_np:6.2f}")
            sys.stdout.flush()
        for label, np_fn, dlx_fn, flops in gemms:
            r = 2 if quick else 3
            t_np = best_s(np_fn, r)
            res = []
            for threads in (1, 2):
                dlx.set_num_threads(threads)
                res.append(best_s(dlx_fn, r))
            print(f"  {label:44s} {t_np * 1e3:9.2f} {res[0] * 1e3:11.2f} {res[0] / t_np:6.2f} "
                  f"{res[1] * 1e3:11.2f} {res[1] / t_np:6.2f}   ({flops / t_np / 1e9:.0f} GFLOP/s numpy, "
                  f"{flops / res[1] / 1e9:.0f} dlx t=2)")
            sys.stdout.flush()
    finally:
        dlx.set_num_threads(0)


if __name__ == "__main__":
    main()

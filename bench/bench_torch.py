"""dlx's compute engine against PyTorch (CPU), NumPy and ml_dtypes, in one run, with STREAM as the limit.

    PYTHONPATH=<dir with the built dlx package> python bench/bench_torch.py [options]

dlx must be importable: installed (pip install .), or a build's package directory on PYTHONPATH (the
directory holding dlx/_dlx*.so), e.g. PYTHONPATH=/tmp/dlx-lib python bench/bench_torch.py --quick.
torch and ml_dtypes are optional: without torch the script says so and benchmarks the rest (ml_dtypes
likewise for NumPy's narrow-float casts).

Options:
    --quick            2048 x 2048 elements instead of 4096 x 4096, fewer repetitions
    --threads 1,2      thread counts (torch.set_num_threads and dlx.set_num_threads; NumPy's elementwise
                       loops are single-threaded, its matmul uses its BLAS's threads)
    --cases LIST       any of casts,ew,new,gemm (default: all)
    --pairs f32|all    casts between float32 and each narrow format both ways (default), or every
                       ordered pair of the formats
    --level LEVEL      run dlx's loops at baseline, avx2 or avx512 (sets DLX_CPU_FEATURES before dlx is
                       imported; a level the CPU lacks falls back to the best it has)
    --reps N           repetitions (default 7, --quick 3)

What is measured (16M elements, far beyond every cache, so every case is bound by memory traffic or by
the conversion's arithmetic):
  - casts: out.copy_(src) into a preallocated output, for float32, float16, bfloat16 and the float8
    formats (torch has e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu; NumPy + ml_dtypes and dlx have all).
    Sources are standard normal float32 values (their absolute values for the unsigned e8m0fnu), cast
    to the source format first;
  - ew: add and multiply, contiguous, with one operand transposed, and with a broadcast row, into a
    preallocated output;
  - new: the same with a new result each call (astype / a + b): the allocator's share;
  - gemm: float32 1024^3 and 2048^3 (dlx through CBLAS, torch through its own BLAS, NumPy through its).
Every repetition runs every case and every peer, in an order rotated per repetition (round-robin), so
that all of them see the same stretch of machine load; each figure is the best of the repetitions. The
spread (worst / best of dlx's repetitions) is printed as a noise estimate.

STREAM: "copy" (NumPy's memcpy, np.copyto), "scale" (np.multiply by a scalar into out) and "add" (np.add
into out), split over the same number of threads (NumPy releases the GIL in them), on the same arrays, in
the same rotation. The %STREAM columns give the bytes an op must read and write (as STREAM counts them:
no write-allocate traffic) per second as a share of the STREAM figure with the same number of streams
(add for two inputs; the better of copy and scale for one: glibc's memcpy is the slower of the two on
some machines). A contiguous case near 100% runs at the memory's limit; casts to narrower formats move
fewer bytes per element than the baseline's loop and can pass 100% where arithmetic is cheap.

Ratios: dlx time / peer time (below 1: dlx is faster). Nothing here asserts: timings depend on the
machine, and this is a program, not a test.
"""

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--cases", default="casts,ew,new,gemm")
    p.add_argument("--pairs", default="f32", choices=["f32", "all"])
    p.add_argument("--level", choices=["baseline", "avx2", "avx512"])
    p.add_argument("--reps", type=int)
    return p.parse_args()


# (name, ml_dtypes attribute, torch attribute or None, bytes per element)
FORMATS = [
    ("float32", None, "float32", 4),
    ("float16", None, "float16", 2),
    ("bfloat16", "bfloat16", "bfloat16", 2),
    ("float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn", 1),
    ("float8_e5m2", "float8_e5m2", "float8_e5m2", 1),
    ("float8_e4m3fnuz", "float8_e4m3fnuz", "float8_e4m3fnuz", 1),
    ("float8_e5m2fnuz", "float8_e5m2fnuz", "float8_e5m2fnuz", 1),
    ("float8_e8m0fnu", "float8_e8m0fnu", "float8_e8m0fnu", 1),
    ("float8_e4m3", "float8_e4m3", None, 1),
    ("float8_e3m4", "float8_e3m4", None, 1),
    ("float8_e4m3b11fnuz", "float8_e4m3b11fnuz", None, 1),
]


class Case:
    def __init__(self, label, group, peers, nbytes=None, streams=2, reps=None):
        self.label, self.group, self.peers = label, group, peers  # peers: {"dlx": fn, "torch": fn, ...}
        self.nbytes, self.streams, self.reps = nbytes, streams, reps
        self.best = {}
        self.worst = {}


def main():
    args = parse()
    if args.level:
        os.environ["DLX_CPU_FEATURES"] = args.level
    import numpy as np

    import dlx

    try:
        import torch
    except ImportError:
        torch = None
        print("torch: not installed; benchmarking dlx, NumPy and ml_dtypes only")
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
        print("ml_dtypes: not installed; NumPy's narrow-float casts are skipped")

    side = 2048 if args.quick else 4096
    reps = args.reps or (3 if args.quick else 7)
    groups = set(args.cases.split(","))
    threads_list = [int(t) for t in args.threads.split(",")]
    n = side * side
    rng = np.random.default_rng(0)
    a = rng.standard_normal((side, side), dtype=np.float32)
    b = rng.standard_normal((side, side), dtype=np.float32)
    row = rng.standard_normal((side,), dtype=np.float32)
    out = np.empty((side, side), np.float32)
    out2 = np.empty((side, side), np.float32)
    print(f"dlx {dlx.__version__} (DLX_CPU_FEATURES={os.environ.get('DLX_CPU_FEATURES', 'unset: the best level')}), "
          f"torch {getattr(torch, '__version__', 'absent')}, numpy {np.__version__}, "
          f"ml_dtypes {getattr(ml_dtypes, '__version__', 'absent')}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores")
    print(f"{side} x {side} ({n / 1e6:.0f}M elements); best of {reps}, round-robin; ratio = dlx / peer")

    # One buffer per format, shared by the three libraries (torch and dlx view NumPy's memory).
    def torch_of(arr, tname):
        if torch is None or tname is None:
            return None
        t = torch.from_numpy(arr.view(np.uint8 if arr.itemsize == 1 else np.uint16 if arr.itemsize == 2 else np.float32))
        return t.view(getattr(torch, tname)) if tname != "float32" else t

    def np_dtype(name, mlname):
        if name == "float32":
            return np.float32
        if name == "float16":
            return np.float16
        return getattr(ml_dtypes, mlname) if ml_dtypes is not None else None

    bufs = {}
    for name, mlname, tname, size in FORMATS:
        dt = np_dtype(name, mlname)
        if dt is None:
            continue
        src32 = np.abs(a) if name == "float8_e8m0fnu" else a
        src = src32 if name == "float32" else src32.astype(dt)
        dst = np.empty((side, side), dt)
        bufs[name] = {
            "size": size,
            "np": (src, dst),
            "torch": (torch_of(src, tname), torch_of(dst, tname)),
            "dlx": (dlx.from_dlpack(src.view(np.uint8 if size == 1 else np.uint16)).view(name) if size < 4
                    else dlx.from_dlpack(src),
                    dlx.from_dlpack(dst.view(np.uint8 if size == 1 else np.uint16)).view(name) if size < 4
                    else dlx.from_dlpack(dst)),
        }
    # e8m0fnu's float32 source is |a|
    abs_a = np.abs(a)
    f32_for = {name: (abs_a if name == "float8_e8m0fnu" else a) for name in bufs}

    cases = []
    pool = ThreadPoolExecutor(max(threads_list))
    state = {"threads": 1}

    def split(fn):
        """fn(slice) over the rows, on state['threads'] threads (NumPy releases the GIL)."""
        k = state["threads"]
        if k == 1:
            fn(slice(0, side))
            return
        bounds = [side * i // k for i in range(k + 1)]
        list(pool.map(fn, [slice(bounds[i], bounds[i + 1]) for i in range(k)]))

    def stream_copy(s):
        np.copyto(out[s], a[s])

    def stream_add(s):
        np.add(a[s], b[s], out=out[s])

    def stream_scale(s):
        np.multiply(a[s], 3.0, out=out[s])

    cases.append(Case("STREAM copy (np.copyto)", "stream", {"stream": lambda: split(stream_copy)}, 8 * n, 2))
    cases.append(Case("STREAM scale (np.multiply)", "stream", {"stream": lambda: split(stream_scale)}, 8 * n, 2))
    cases.append(Case("STREAM add (np.add)", "stream", {"stream": lambda: split(stream_add)}, 12 * n, 3))

    if "casts" in groups:
        names = [f[0] for f in FORMATS if f[0] in bufs]
        pairs = [(s, d) for s in names for d in names if s != d]
        if args.pairs == "f32":
            pairs = [(s, d) for s, d in pairs if "float32" in (s, d)]
        for s, d in pairs:
            # the float32 source of an e8m0fnu target is |a|
            if s == "float32":
                src_np = f32_for[d]
                src_t = torch.from_numpy(src_np) if torch is not None else None
                src_x = dlx.from_dlpack(src_np)
            else:
                src_np, src_t, src_x = bufs[s]["np"][0], bufs[s]["torch"][0], bufs[s]["dlx"][0]
            dst_np, dst_t, dst_x = bufs[d]["np"][1], bufs[d]["torch"][1], bufs[d]["dlx"][1]
            peers = {"dlx": (lambda o=dst_x, i=src_x: o.copy_(i))}
            if src_t is not None and dst_t is not None:
                peers["torch"] = lambda o=dst_t, i=src_t: o.copy_(i)
            if ml_dtypes is not None or (s in ("float32", "float16") and d in ("float32", "float16")):
                peers["numpy"] = lambda o=dst_np, i=src_np: np.copyto(o, i, casting="unsafe")
            nbytes = n * (bufs[s]["size"] + bufs[d]["size"])
            cases.append(Case(f"cast {s} -> {d}", "casts", peers, nbytes, 2))

    ta, tb, trow, tout = (dlx.from_dlpack(x) for x in (a, b, row, out))
    if torch is not None:
        pa, pb, prow, pout = (torch.from_numpy(x) for x in (a, b, row, out))
    if "ew" in groups:
        for opname, npf, dlxf, torchf in (("add", np.add, dlx.add, torch.add if torch else None),
                                          ("mul", np.multiply, dlx.multiply, torch.mul if torch else None)):
            spec = [
                ("contiguous", (a, b), (ta, tb), (pa, pb) if torch else None, 12 * n, 3),
                ("a.T + b", (a.T, b), (ta.T, tb), (pa.T, pb) if torch else None, 12 * n, 3),
                ("row broadcast", (a, row), (ta, trow), (pa, prow) if torch else None, 8 * n, 2),
                ("scalar", (a, 2.5), (ta, 2.5), (pa, 2.5) if torch else None, 8 * n, 2),
            ]
            for what, npargs, xargs, targs, nbytes, streams in spec:
                peers = {"dlx": lambda f=dlxf, x=xargs: f(*x, out=tout),
                         "numpy": lambda f=npf, x=npargs: f(*x, out=out)}
                if torch is not None:
                    peers["torch"] = lambda f=torchf, x=targs: f(*x, out=pout)
                cases.append(Case(f"{opname} {what} (out=)", "ew", peers, nbytes, streams))
    if "new" in groups:
        peers = {"dlx": lambda: ta + tb, "numpy": lambda: a + b}
        if torch is not None:
            peers["torch"] = lambda: pa + pb
        cases.append(Case("add contiguous (new result)", "new", peers, 12 * n, 3))
        for d in ("float16", "bfloat16", "float8_e4m3fn"):
            if d not in bufs:
                continue
            peers = {"dlx": lambda d=d: ta.astype(d)}
            if torch is not None:
                peers["torch"] = lambda d=d: pa.to(getattr(torch, d))
            if d == "float16" or ml_dtypes is not None:
                peers["numpy"] = lambda d=d: a.astype(np.float16 if d == "float16" else getattr(ml_dtypes, d))
            cases.append(Case(f"astype float32 -> {d} (new result)", "new", peers, n * (4 + bufs[d]["size"]), 2))
    if "gemm" in groups:
        for m in (1024, 2048):
            x = rng.standard_normal((m, m), dtype=np.float32)
            y = rng.standard_normal((m, m), dtype=np.float32)
            z = np.empty((m, m), np.float32)
            tx, ty, tz = dlx.from_dlpack(x), dlx.from_dlpack(y), dlx.from_dlpack(z)
            peers = {"dlx": lambda tx=tx, ty=ty, tz=tz: dlx.matmul(tx, ty, out=tz),
                     "numpy": lambda x=x, y=y, z=z: np.matmul(x, y, out=z)}
            if torch is not None:
                px, py, pz = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(z)
                peers["torch"] = lambda px=px, py=py, pz=pz: torch.mm(px, py, out=pz)
            c = Case(f"gemm {m}^3 float32", "gemm", peers, None, 0, reps=min(reps, 3))
            c.flops = 2 * m ** 3
            cases.append(c)

    torch_threads = torch.get_num_threads() if torch is not None else None
    try:
        for threads in threads_list:
            state["threads"] = threads
            dlx.set_num_threads(threads)
            if torch is not None:
                torch.set_num_threads(threads)
            for c in cases:
                c.best, c.worst = {}, {}
                for fn in c.peers.values():  # warm-up, and the one check that each peer runs
                    fn()
            t_start = time.perf_counter()
            for r in range(reps):
                for c in cases:
                    if c.reps is not None and r >= c.reps:
                        continue
                    names = list(c.peers)
                    k = r % len(names)
                    for name in names[k:] + names[:k]:
                        t0 = time.perf_counter()
                        c.peers[name]()
                        dt = time.perf_counter() - t0
                        c.best[name] = min(c.best.get(name, dt), dt)
                        c.worst[name] = max(c.worst.get(name, dt), dt)
            report(cases, threads, n, time.perf_counter() - t_start)
    finally:
        dlx.set_num_threads(0)
        if torch is not None:
            torch.set_num_threads(torch_threads)


def report(cases, threads, n, elapsed):
    stream = {c.label: c for c in cases if c.group == "stream"}
    copy_c = stream["STREAM copy (np.copyto)"]
    scale_c = stream["STREAM scale (np.multiply)"]
    add_c = stream["STREAM add (np.add)"]
    gbs = {k: c.nbytes / c.best["stream"] for k, c in (("copy", copy_c), ("scale", scale_c), ("add", add_c))}
    # one input, one output: the better of memcpy (glibc's non-temporal stores) and a plain loop
    bw = {2: max(gbs["copy"], gbs["scale"]), 3: gbs["add"]}
    noise = max(c.worst["stream"] / c.best["stream"] for c in (copy_c, scale_c, add_c))
    print(f"\n== {threads} thread{'s' if threads > 1 else ''} ({elapsed:.0f} s): STREAM copy {gbs['copy'] / 1e9:.1f}, "
          f"scale {gbs['scale'] / 1e9:.1f}, add {gbs['add'] / 1e9:.1f} GB/s (worst/best of the STREAM runs: "
          f"{noise:.2f}); %STR: of max(copy, scale) for one input, of add for two")
    hdr = (f"{'case':44s} {'dlx ms':>8s} {'torch ms':>9s} {'numpy ms':>9s} {'/torch':>7s} {'/numpy':>7s} "
           f"{'dlx %STR':>8s} {'torch %STR':>10s} {'noise':>6s}")
    print(hdr)
    group = None
    for c in cases:
        if c.group == "stream":
            continue
        if c.group != group:
            group = c.group
            print(f"-- {group}")
        t = c.best
        dlx_t, torch_t, np_t = t.get("dlx"), t.get("torch"), t.get("numpy")

        def ms(x):
            return f"{x * 1e3:.2f}" if x is not None else "-"

        def ratio(x, y):
            return f"{x / y:.2f}" if x is not None and y is not None else "-"

        def pct(x):
            if x is None or not c.nbytes:
                return "-"
            return f"{100 * c.nbytes / x / bw[c.streams]:.0f}%"

        noise = f"{c.worst['dlx'] / c.best['dlx']:.2f}" if "dlx" in c.worst else "-"
        line = (f"{c.label:44s} {ms(dlx_t):>8s} {ms(torch_t):>9s} {ms(np_t):>9s} {ratio(dlx_t, torch_t):>7s} "
                f"{ratio(dlx_t, np_t):>7s} {pct(dlx_t):>8s} {pct(torch_t):>10s} {noise:>6s}")
        if c.group == "gemm":
            line += f"  ({c.flops / dlx_t / 1e9:.0f} GFLOP/s dlx)"
        print(line)
        sys.stdout.flush()


if __name__ == "__main__":
    main()

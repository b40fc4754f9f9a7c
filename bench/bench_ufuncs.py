"""dlx's elementwise ops (every row of its op table) against NumPy and PyTorch on the CPU, in one run,
with the machine's copy bandwidth as the limit.

    PYTHONPATH=<dir with the built dlx package> python bench/bench_ufuncs.py [--quick] [--reps N]
                                   [--threads N] [--ops NAME,...] [--level baseline|avx2|avx512]

The ops are the rows of dlx._dlx._op_table (NumPy's name, operand count, kind), so a row added to the
table (src/kernels/op_table.h) is benchmarked here without touching this file. Each op runs on a
4096 x 4096 tensor (16M elements, far beyond every cache; --quick: 64 x 64 and 1 repetition, a smoke
run for CI) in float32, or in int32 where NumPy's op takes no float32 (the bitwise ops, shifts, power).
Inputs are standard normal floats (their absolute values for sqrt, whose domain they are) or integers
in [-1000, 1000) with a second operand in [1, 31) (a shift count, an exponent, a divisor); where takes
a random bool condition; clip takes the scalar bounds -0.5 and 0.5, its common use.

Two layouts: "contiguous", and "transposed", where every tensor operand is the transpose of a
contiguous 4096 x 4096 array (a view: the same memory walked the other way). Per op and layout:
  - dlx, NumPy and PyTorch each into a preallocated C-contiguous output (out=), which for the
    transposed layout is a real transpose;
  - the same with a fresh result each call, whose layout each library chooses (NumPy and PyTorch follow
    their inputs' strides, so their fresh transposed results are contiguous walks), allocation and
    page faults included;
  - the ratios dlx / NumPy and dlx / PyTorch, out= against out= and fresh against fresh (below 1: dlx is
    faster; the target of issue 28 is at most 1.1 against both), and dlx's out= rate: bytes read and
    written per second, and that as a share of the copy bandwidth.
PyTorch runs torch.<name> (or its name for the op: torch.pow for power, torch.bitwise_left_shift and
bitwise_right_shift for the shifts, bitwise_not for invert, round (half to even, as rint) for rint, eq
for equal, whose torch.equal is another function), on
torch.set_num_threads equal to dlx's thread count (--threads sets both). NumPy's elementwise loops are
single-threaded: its columns are there for context as much as for the target.

The copy bandwidth: np.copyto of 64 MiB split over the same number of threads, counted as STREAM counts
it (bytes read + bytes written), and on one thread, NumPy's case. Every repetition runs every case and
every peer, in an order rotated per repetition, so that all see the same machine load; each figure is
the best of the repetitions; the spread (worst / best of dlx's out= runs) is printed as a noise figure.

OpenBLAS: some machines set OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for old OpenBLAS builds, which slow a
current NumPy. Elementwise ufuncs do not call BLAS, but run the script with both unset to compare like
with like (`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_ufuncs.py`); it prints them
when set, and the BLAS kernels threadpoolctl reports when it is installed. Nothing here asserts: timings
depend on the machine, and this is a program, not a test.
"""

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

# torch's names where they differ from NumPy's (torch.round rounds half to even, as rint does)
TORCH_NAMES = {"power": "pow", "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
               "invert": "bitwise_not", "rint": "round", "equal": "eq"}
# ops whose trailing operands are Python scalars in the benchmark, as in their common use
SCALAR_ARGS = {"clip": (-0.5, 0.5)}
# ops measured on non-negative inputs only: the rest of the line is NaN, which is not the case to time
NONNEGATIVE = {"sqrt", "log", "log2", "log10", "log1p"}
PEERS = ("dlx", "numpy", "torch")
MODES = ("out", "new")
TARGET = 1.1


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="64 x 64 and 1 repetition: a smoke run for CI")
    p.add_argument("--reps", type=int, help="repetitions (default 5; --quick 1)")
    p.add_argument("--threads", type=int, help="dlx and torch threads (default: dlx's default, the cores)")
    p.add_argument("--ops", help="comma-separated NumPy names: only these rows of the op table")
    p.add_argument("--level", choices=["baseline", "avx2", "avx512"],
                   help="dlx's loops at this level (DLX_CPU_FEATURES, set before dlx is imported)")
    return p.parse_args()


class Inputs:
    """The arrays every case reads, made once, and one output buffer per result dtype. torch and dlx view
    NumPy's memory (torch.from_numpy, dlx.from_dlpack), so the three libraries read the same bytes."""

    def __init__(self, np, dlx, torch, side):
        rng = np.random.default_rng(0)
        self.np, self.dlx, self.torch, self.side = np, dlx, torch, side
        shape = (side, side)
        self.arrays = {
            ("float32", 0): rng.standard_normal(shape, dtype=np.float32),
            ("float32", 1): rng.standard_normal(shape, dtype=np.float32),
            ("float32", 2): rng.standard_normal(shape, dtype=np.float32),
            ("int32", 0): rng.integers(-1000, 1000, shape, dtype=np.int32),
            ("int32", 1): rng.integers(1, 31, shape, dtype=np.int32),
            ("int32", 2): rng.integers(-1000, 1000, shape, dtype=np.int32),
            ("bool", 0): rng.random(shape) < 0.5,
            ("abs_float32", 0): np.abs(rng.standard_normal(shape, dtype=np.float32)),
        }
        self.outs = {}
        self.views = {}

    def out(self, dtype):
        if dtype not in self.outs:
            self.outs[dtype] = self.np.empty((self.side, self.side), dtype)
        return self.outs[dtype]

    def peer_view(self, peer, arr, transposed):
        """arr as peer's array (a view of the same memory), transposed or not."""
        key = (peer, id(arr), transposed)
        if key not in self.views:
            if peer == "numpy":
                v = arr
            elif peer == "dlx":
                v = self.dlx.from_dlpack(arr)
            else:
                v = self.torch.from_numpy(arr)
            self.views[key] = (v.T if transposed else v, arr)  # arr kept alive with its view
        return self.views[key][0]


def operand_dtype(np, dlx, name, nin, kind):
    """float32 where both NumPy's op and dlx's take it, else int32 (bitwise ops, shifts, integer power)."""
    for dt in ("float32", "int32"):
        args = [np.ones(4, dt) for _ in range(nin)]
        if kind == "selection":
            args[0] = np.ones(4, bool)
        try:
            with np.errstate(all="ignore"):
                getattr(np, name)(*args)
                getattr(dlx, name)(*[dlx.from_dlpack(a) for a in args])
            return dt
        except TypeError:
            continue
    return None


def op_arrays(inputs, name, nin, kind, dt):
    """The NumPy arrays of one op's operands (scalars stay Python numbers) and its result's dtype."""
    np = inputs.np
    if name in SCALAR_ARGS:
        arrays = [inputs.arrays[(dt, 0)]] + list(SCALAR_ARGS[name])
    else:
        arrays = [inputs.arrays[(dt, k)] for k in range(nin)]
    if kind == "selection":
        arrays[0] = inputs.arrays[("bool", 0)]
    if name in NONNEGATIVE and dt == "float32":
        arrays[0] = inputs.arrays[("abs_float32", 0)]
    tiny = [a[:2, :2] if hasattr(a, "shape") else a for a in arrays]
    with np.errstate(all="ignore"):
        res_dtype = getattr(np, name)(*tiny).dtype
    return arrays, res_dtype


def peer_fns(inputs, peer, fn, arrays, res_dtype, transposed):
    """{mode: callable} for one peer: into the preallocated output, and a fresh result; and the peer's
    first operand (to tell a "fresh" result that is the input itself)."""
    args = [inputs.peer_view(peer, a, transposed) if hasattr(a, "shape") else a for a in arrays]
    out = inputs.peer_view(peer, inputs.out(res_dtype), False)
    return {"out": lambda: fn(*args, out=out), "new": lambda: fn(*args)}, args[0]


def build_cases(np, dlx, torch, inputs, rows):
    """[(label, op name, dtype, layout, bytes moved, {(peer, mode): callable})] and the skipped rows."""
    cases, skipped = [], []
    for name, nin, kind in rows:
        dt = operand_dtype(np, dlx, name, nin, kind)
        if dt is None:
            skipped.append(f"{name}: NumPy or dlx takes neither float32 nor int32")
            continue
        arrays, res_dtype = op_arrays(inputs, name, nin, kind, dt)
        nbytes = sum(a.nbytes for a in arrays if hasattr(a, "nbytes")) + inputs.out(res_dtype).nbytes
        libs = {"dlx": getattr(dlx, name), "numpy": getattr(np, name)}
        tname = TORCH_NAMES.get(name, name)
        if torch is not None and hasattr(torch, tname):
            libs["torch"] = getattr(torch, tname)
        elif torch is not None:
            skipped.append(f"{name}: torch has no torch.{tname}; its torch columns are empty")
        if "torch" in libs and tname != name:
            skipped.append(f"{name}: torch's columns time torch.{tname}")
        for layout in ("contiguous", "transposed"):
            fns, firsts = {}, {}
            for peer, fn in libs.items():
                calls, firsts[peer] = peer_fns(inputs, peer, fn, arrays, res_dtype, layout == "transposed")
                for mode, call in calls.items():
                    fns[(peer, mode)] = call
            cases.append((name, name, dt, layout, nbytes, fns, firsts))
    return cases, skipped


def warm_up(np, cases):
    """One call of each: page faults, the pools' threads, allocators' caches. A peer that fails (torch
    refusing out= for some op, say) is dropped from its case, with the reason; a fresh result that is the
    input itself (torch.positive) is said, since its time is that of no work."""
    notes = []
    for label, _, _, layout, _, fns, firsts in cases:
        for key in list(fns):
            try:
                with np.errstate(all="ignore"):
                    res = fns[key]()
            except Exception as e:  # noqa: BLE001 - a peer's refusal is reported, not fatal
                notes.append(f"{label} {layout}: {key[0]} {key[1]} not timed: {type(e).__name__}: {str(e)[:100]}")
                del fns[key]
                continue
            first = firsts.get(key[0])
            if key == ("torch", "new") and hasattr(res, "data_ptr") and hasattr(first, "data_ptr") and \
                    res.data_ptr() == first.data_ptr():
                notes.append(f"{label} {layout}: torch's fresh result is its input (no copy), so its 'torch new' "
                             "ratio compares work with none")
    return notes


def copy_bandwidth(np, threads, side, reps):
    """np.copyto of a float32 side x side array split over `threads` threads and on one: bytes read +
    written per second, the best of reps."""
    src = np.random.default_rng(1).standard_normal((side, side), dtype=np.float32)
    dst = np.empty_like(src)
    pool = ThreadPoolExecutor(threads)
    bounds = [side * i // threads for i in range(threads + 1)]
    parts = [slice(bounds[i], bounds[i + 1]) for i in range(threads)]

    def split():
        list(pool.map(lambda s: np.copyto(dst[s], src[s]), parts))

    best = {}
    for label, fn in (("threads", split), ("one", lambda: np.copyto(dst, src))):
        fn()
        t = min(timed(fn) for _ in range(max(reps, 3)))
        best[label] = 2 * src.nbytes / t
    pool.shutdown()
    return best


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(np, cases, reps):
    """{(case index, peer, mode): [seconds per repetition]}, round-robin over every job."""
    jobs = [(i, key, fn) for i, c in enumerate(cases) for key, fn in c[5].items()]
    times = {}
    with np.errstate(all="ignore"):
        for r in range(reps):
            k = (r * len(jobs)) // max(reps, 1)
            for i, key, fn in jobs[k:] + jobs[:k]:
                times.setdefault((i,) + key, []).append(timed(fn))
    return times


def cell(best, i, peer, mode):
    t = best.get((i, peer, mode))
    return f"{t * 1e3:8.2f}" if t is not None else f"{'-':>8}"


def ratio(best, i, peer, mode):
    d, p = best.get((i, "dlx", mode)), best.get((i, peer, mode))
    if d is None or p is None:
        return None
    return d / p


def report(cases, times, bw, threads):
    best = {k: min(v) for k, v in times.items()}
    spread = max((max(v) / min(v) for k, v in times.items() if k[1:] == ("dlx", "out")), default=1.0)
    print(f"  worst / best of dlx's out= repetitions: up to {spread:.2f}")
    print(f"  ms per call; ratio = dlx / peer (out= vs out=, fresh vs fresh); GB/s and %copy: dlx out=, "
          f"against the {threads}-thread copy; '!' marks a ratio over {TARGET}")
    cols = [f"{p} {m}" for p in PEERS for m in MODES]
    hdr = f"  {'op':14s} {'dtype':7s} {'layout':10s} " + " ".join(f"{c:>9s}" for c in cols)
    hdr += " " + " ".join(f"{'/' + p + ' ' + m:>10s}" for p in PEERS[1:] for m in MODES) + f" {'GB/s':>6s} {'%copy':>6s}"
    print(hdr)
    over = []
    for i, (label, _, dt, layout, nbytes, _, _) in enumerate(cases):
        line = f"  {label:14s} {dt:7s} {layout:10s} " + " ".join(f" {cell(best, i, p, m)}" for p in PEERS for m in MODES)
        for p in PEERS[1:]:
            for m in MODES:
                r = ratio(best, i, p, m)
                if r is None:
                    line += f" {'-':>10s}"
                    continue
                mark = "!" if r > TARGET else " "
                line += f" {r:9.2f}{mark}"
                if r > TARGET:
                    over.append(f"{label} {layout} vs {p} {m}: {r:.2f}x")
        d = best.get((i, "dlx", "out"))
        line += f" {nbytes / d / 1e9:6.1f} {100 * nbytes / d / bw:5.0f}%" if d else ""
        print(line)
    print(f"  over {TARGET}x: {len(over)}")
    for o in over:
        print(f"    {o}")


def blas_note(np):
    """The OpenBLAS environment and, when threadpoolctl is there, the BLAS kernels loaded."""
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    if env:
        print(f"note: {env} is set: it can slow NumPy; run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`")
    try:
        import threadpoolctl
    except ImportError:
        return
    for info in threadpoolctl.threadpool_info():
        if info.get("internal_api") == "openblas":
            print(f"  {info.get('prefix')} {info.get('version')}: kernel {info.get('architecture')}, "
                  f"{info.get('num_threads')} threads")


def main():
    args = parse()
    if args.level:
        os.environ["DLX_CPU_FEATURES"] = args.level
    import numpy as np

    import dlx

    try:
        # PyTorch's OpenMP threads spin after each call; interleaved with dlx's calls they took the second
        # core from dlx's worker (dlx ran at one thread's speed in about half the repetitions). Asleep
        # between calls, they cost PyTorch nothing measurable here. A value the caller set is kept.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import torch
    except Exception as e:  # noqa: BLE001 - not installed, or a broken install: say which
        print(f"torch: not available ({type(e).__name__}: {e}); its columns are left empty")
        torch = None
    if args.threads:
        dlx.set_num_threads(args.threads)
    threads = dlx.get_num_threads()
    if torch is not None:
        torch.set_num_threads(threads)
    side = 64 if args.quick else 4096
    reps = args.reps or (1 if args.quick else 5)
    rows = list(dlx._dlx._op_table)
    if args.ops:
        wanted = set(args.ops.split(","))
        unknown = wanted - {r[0] for r in rows}
        if unknown:
            sys.exit(f"--ops: not in dlx's op table: {', '.join(sorted(unknown))}")
        rows = [r for r in rows if r[0] in wanted]
    print(f"dlx {dlx.__version__} (DLX_CPU_FEATURES={os.environ.get('DLX_CPU_FEATURES', 'unset: the best level')}), "
          f"numpy {np.__version__}, torch {getattr(torch, '__version__', 'absent')}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores")
    blas_note(np)
    inputs = Inputs(np, dlx, torch, side)
    cases, skipped = build_cases(np, dlx, torch, inputs, rows)
    notes = skipped + warm_up(np, cases)
    bw = copy_bandwidth(np, threads, side, reps)
    print(f"{side} x {side} ({side * side / 1e6:.2f}M elements), {len(rows)} ops of the op table, {threads} thread(s) "
          f"for dlx and torch, NumPy on one; best of {reps}, round-robin")
    print(f"  copy bandwidth (np.copyto, read + write): {bw['threads'] / 1e9:.1f} GB/s on {threads} thread(s), "
          f"{bw['one'] / 1e9:.1f} GB/s on one")
    for n in notes:
        print(f"  note: {n}")
    report(cases, run(np, cases, reps), bw["threads"], threads)


if __name__ == "__main__":
    main()

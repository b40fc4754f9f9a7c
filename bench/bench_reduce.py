"""dlx's reductions against NumPy and PyTorch (CPU), with an in-run STREAM measure as the limit, and on a
lent GPU against the device's copy bandwidth.

    PYTHONPATH=<dir with the built dlx package> python bench/bench_reduce.py [--quick] [--reps N]
                                                                                 [--threads N] [--gib 4]

What is measured, in one run:
  - CPU: dlx.sum against numpy.sum and torch.sum over a 4096 x 4096 tensor (16M elements, far beyond
    every cache): over every element, over axis 0 and over axis 1, of the tensor and of its transpose
    (a view: the same memory walked the other way), in float32 and in bfloat16 (NumPy through ml_dtypes,
    whose bfloat16 sums are its own loops); and a transposed full sum of a (side - 1) x (side + 1) float32,
    whose blocks of 4096 span rows. dlx and torch run on --threads threads (default: dlx's
    default, the machine's cores); NumPy's sums are single-threaded.
  - STREAM, in the same run and on the same threads: "copy" (np.copyto) and "read" (a sum of float64
    chunks through np.add.reduce with its own pairwise loop, one chunk per thread: the rate NumPy reads
    at) split over the threads. A reduction reads its input once and writes next to nothing, so its
    %STREAM is the bytes it reads per second against the better of the two figures (copy counted as
    STREAM counts it: read + write).
  - GPU (when dlx was built with CUDA and a device is present): a full float32 sum of --gib GiB against
    the device-to-device copy bandwidth of the same run (bytes read against bytes read + written by
    cudaMemcpy through torch's copy_). Otherwise it says why it skipped.
Every repetition runs every case and every peer, in an order rotated per repetition, so that all see the
same machine load; each figure is the best of the repetitions. Ratios: dlx time / peer time (below 1: dlx
is faster). Targets (from issue 23): at most 1.0x PyTorch's time, and at least 80% of the in-run STREAM
figure for full sums; on a GPU, 90% of the copy bandwidth. Nothing here asserts: timings depend on the
machine, and this is a program, not a test.
"""

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="2048 x 2048, 3 repetitions")
    p.add_argument("--reps", type=int)
    p.add_argument("--threads", type=int, help="dlx and torch threads (default: dlx's default)")
    p.add_argument("--gib", type=float, default=4.0, help="GiB of float32 for the GPU's full sum")
    return p.parse_args()


def timed_once(fn, store, key):
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    store.setdefault(key, []).append(dt)


def cpu_cases(np, dlx, torch, ml_dtypes, side):
    """(label, dtype name, {peer: fn}, bytes read, full sum?) for every CPU case."""
    rng = np.random.default_rng(0)
    a32 = rng.standard_normal((side, side), dtype=np.float32)
    cases = []
    for dname in ("float32", "bfloat16"):
        if dname == "bfloat16" and ml_dtypes is None:
            print("ml_dtypes: not installed; the bfloat16 cases are skipped")
            continue
        arr = a32 if dname == "float32" else a32.astype(ml_dtypes.bfloat16)
        carrier = arr.view(np.uint16) if dname == "bfloat16" else arr
        t = dlx.from_dlpack(carrier).view(dname) if dname == "bfloat16" else dlx.from_dlpack(arr)
        x = None
        if torch is not None:
            x = torch.from_numpy(carrier)
            x = x.view(torch.bfloat16) if dname == "bfloat16" else x
        for layout in ("contiguous", "transposed"):
            tv = t if layout == "contiguous" else t.T
            av = arr if layout == "contiguous" else arr.T
            xv = None if x is None else (x if layout == "contiguous" else x.t())
            for axis in (None, 0, 1):
                peers = {"dlx": (lambda tv=tv, axis=axis: dlx.sum(tv, axis=axis)),
                         "numpy": (lambda av=av, axis=axis: np.sum(av, axis=axis))}
                if xv is not None:
                    peers["torch"] = (lambda xv=xv, axis=axis: xv.sum() if axis is None else xv.sum(dim=axis))
                what = "all" if axis is None else f"axis {axis}"
                cases.append((f"{dname} {layout} {what}", dname, peers, arr.nbytes, axis is None))
    # rows that are not whole blocks: a transposed full sum whose blocks span rows of the strided dimension
    # (staged in groups by the CPU backend), float32, (side - 1) x (side + 1)
    odd = rng.standard_normal((side - 1, side + 1), dtype=np.float32)
    to = dlx.from_dlpack(odd)
    peers = {"dlx": lambda: dlx.sum(to.T), "numpy": lambda: np.sum(odd.T)}
    if torch is not None:
        xo = torch.from_numpy(odd)
        peers["torch"] = lambda: xo.t().sum()
    cases.append((f"float32 transposed all {side - 1}x{side + 1}", "float32", peers, odd.nbytes, True))
    return cases


def stream_cases(np, threads, side):
    n = side * side
    src = np.random.default_rng(1).standard_normal(n)  # float64: 8 bytes per element
    dst = np.empty_like(src)
    pool = ThreadPoolExecutor(threads)
    chunks = [slice(i * n // threads, (i + 1) * n // threads) for i in range(threads)]

    def split(fn):
        list(pool.map(fn, chunks))

    copy = lambda: split(lambda s: np.copyto(dst[s], src[s]))  # noqa: E731
    read = lambda: split(lambda s: np.add.reduce(src[s]))  # noqa: E731
    return [("STREAM copy (np.copyto)", copy, 2 * src.nbytes), ("STREAM read (np.add.reduce)", read, src.nbytes)], pool


def run_cpu(args, np, dlx, torch, ml_dtypes):
    side = 2048 if args.quick else 4096
    reps = args.reps or (3 if args.quick else 7)
    if args.threads:
        dlx.set_num_threads(args.threads)
    threads = dlx.get_num_threads()
    if torch is not None:
        torch.set_num_threads(threads)
    cases = cpu_cases(np, dlx, torch, ml_dtypes, side)
    streams, pool = stream_cases(np, threads, side)
    print(f"CPU: {side} x {side} ({side * side / 1e6:.0f}M elements), {threads} thread(s) for dlx and torch; "
          f"best of {reps}, round-robin")
    times = {}
    jobs = [(label, peer, fn) for label, _, peers, _, _ in cases for peer, fn in peers.items()]
    jobs += [(label, "stream", fn) for label, fn, _ in streams]
    for fn in [j[2] for j in jobs]:  # warm up: page faults, the pool's threads, caches of allocations
        fn()
    for r in range(reps):
        k = r % len(jobs)
        for label, peer, fn in jobs[k:] + jobs[:k]:
            timed_once(fn, times, (label, peer))
    pool.shutdown()
    bw = max(nbytes / min(times[(label, "stream")]) for label, _, nbytes in streams)
    for label, _, nbytes in streams:
        print(f"  {label}: {nbytes / min(times[(label, 'stream')]) / 1e9:.1f} GB/s")
    report_cpu(cases, times, bw)


def report_cpu(cases, times, bw):
    best = {k: min(v) for k, v in times.items()}
    spread = max(max(v) / min(v) for (label, peer), v in times.items() if peer == "dlx")
    print(f"  limit: {bw / 1e9:.1f} GB/s (the better STREAM figure); worst/best of dlx's repetitions up to {spread:.2f}")
    hdr = f"  {'case':34s} {'dlx ms':>8s} {'numpy ms':>9s} {'torch ms':>9s} {'vs numpy':>9s} {'vs torch':>9s} {'%STREAM':>8s}"
    print(hdr)
    for label, _, peers, nbytes, full in cases:
        d = best[(label, "dlx")]
        n = best.get((label, "numpy"))
        t = best.get((label, "torch"))
        cells = [f"{d * 1e3:8.2f}", f"{n * 1e3:9.2f}" if n else f"{'-':>9s}", f"{t * 1e3:9.2f}" if t else f"{'-':>9s}",
                 f"{d / n:8.2f}x" if n else f"{'-':>9s}", f"{d / t:8.2f}x" if t else f"{'-':>9s}",
                 f"{100 * nbytes / d / bw:7.0f}%"]
        mark = "  (full sum: target <= 1.0x torch, >= 80%)" if full else ""
        print(f"  {label:34s} " + " ".join(cells) + mark)


def run_gpu(args, dlx, torch):
    cuda = dlx.cuda
    if not cuda.is_built():
        print("GPU: skipped: this dlx was built without CUDA (DLX_WITH_CUDA=OFF, or no nvcc at build time)")
        return
    if cuda.device_count() == 0:
        print("GPU: skipped: dlx.cuda.device_count() is 0 (no CUDA device or driver on this machine)")
        return
    if torch is None or not torch.cuda.is_available():
        print("GPU: skipped: torch with CUDA is needed for the reference copy and the device buffers")
        return
    n = int(args.gib * (1 << 30)) // 4
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    t = dlx.from_dlpack(x)

    def timed(fn, number=5, repeats=5):
        fn()
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            torch.cuda.synchronize()
            cuda.synchronize()
            best = min(best, (time.perf_counter() - t0) / number)
        return best

    copy_s = timed(lambda: y.copy_(x))
    dlx_s = timed(lambda: dlx.sum(t))
    torch_s = timed(lambda: x.sum())
    copy_bw = 2 * x.nbytes / copy_s
    print(f"GPU ({torch.cuda.get_device_name()}): {args.gib:g} GiB float32 full sum")
    print(f"  device copy (torch copy_): {copy_bw / 1e9:.0f} GB/s (read + write)")
    print(f"  dlx.sum   {dlx_s * 1e3:8.2f} ms  {x.nbytes / dlx_s / 1e9:6.0f} GB/s  {100 * x.nbytes / dlx_s / copy_bw:5.0f}% "
          f"of the copy (target >= 90%)")
    print(f"  torch.sum {torch_s * 1e3:8.2f} ms  {x.nbytes / torch_s / 1e9:6.0f} GB/s  ratio dlx / torch {dlx_s / torch_s:.2f}x")


def main():
    args = parse()
    import numpy as np

    import dlx

    try:
        # PyTorch's OpenMP threads spin after each call; interleaved with dlx's calls they took the second
        # core from dlx's worker (dlx ran at one thread's speed in about half the repetitions). Asleep
        # between calls, they cost PyTorch nothing measurable here. A value the caller set is kept.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import torch
    except ImportError:
        torch = None
        print("torch: not installed; benchmarking dlx and NumPy only")
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
    print(f"dlx {dlx.__version__}, numpy {np.__version__}, torch {getattr(torch, '__version__', 'absent')}, "
          f"ml_dtypes {getattr(ml_dtypes, '__version__', 'absent')}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, DLX_CPU_FEATURES={os.environ.get('DLX_CPU_FEATURES', 'unset')}")
    run_cpu(args, np, dlx, torch, ml_dtypes)
    run_gpu(args, dlx, torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())

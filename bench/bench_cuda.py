"""dlx on a CUDA device: elementwise bandwidth, gemm against torch.matmul, and DLPack exchange without a sync.

    python bench/bench_cuda.py [--gib 4] [--strict]      (after pip install .; torch is used when importable)

What it measures, in one run on one device:
  - elementwise add (c = a + b), cast (float32 -> float16) and copy (dlx's copy kernel) on --gib GiB float32
    operands, each as a fraction of the device-to-device copy bandwidth measured in the same run
    (cudaMemcpyAsync D2D through the CUDA runtime, else torch's copy_, else dlx's copy of compact tensors).
    Bandwidth counts the bytes an op must move: add reads 2 and writes 1 operand, cast reads 4 and writes 2
    bytes per element, a copy reads and writes one operand. Target: >= 90% of the copy's bandwidth.
  - gemm: dlx.matmul(a, b, out=c) against torch.matmul(a, b, out=c) on the same memory (float32 without
    TF32 on both sides, float16, bfloat16, float64). Target: >= 0.95x torch's throughput.
  - export / import of a device tensor while a long kernel runs on dlx's stream: __dlpack__(stream=other)
    must return at once and leave that kernel running (no synchronisation); the per-call costs of
    t.__dlpack__, torch.from_dlpack(t) and dlx.from_dlpack(torch tensor).
Each figure is the best of --repeats timed batches (host clock around a batch, synchronised at both ends).
Prints "no CUDA device" and exits 0 where there is none. --strict exits 1 when a target is missed.
"""

import argparse
import ctypes
import sys
import time
import timeit


def _cudart():
    """The CUDA runtime through ctypes (cudaMemcpyAsync for the reference copy, cudaStreamQuery), or None:
    the system's, else the one the nvidia-cuda-runtime wheel (torch's dependency) installs."""
    import glob
    import os

    names = ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]
    for path in sys.path:
        names += sorted(glob.glob(os.path.join(path, "nvidia", "cu*", "lib", "libcudart.so.*")))
        names += sorted(glob.glob(os.path.join(path, "nvidia", "cuda_runtime", "lib", "libcudart.so.*")))
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                        ctypes.c_void_p]
        lib.cudaMemcpyAsync.restype = ctypes.c_int
        lib.cudaStreamQuery.argtypes = [ctypes.c_void_p]
        lib.cudaStreamQuery.restype = ctypes.c_int
        return lib
    return None


def best_s(fn, sync, repeats, number):
    """Seconds per call: the best of `repeats` batches of `number` calls, synchronised at both ends."""
    fn()
    sync()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


class Report:
    def __init__(self):
        self.missed = []

    def line(self, label, value, unit, ratio=None, target=None, ok=None, note=""):
        r = "" if ratio is None else f"{ratio:7.3f}"
        verdict = "" if ok is None else ("met" if ok else "MISSED")
        if ok is False:
            self.missed.append(label)
        print(f"  {label:46s} {value:10.2f} {unit:7s} {r:>7s}  {target or '':10s} {verdict:6s} {note}".rstrip())
        sys.stdout.flush()


def elementwise(dlx, rep, gib, repeats, cudart, torch):
    n = int(gib * (1 << 30)) // 4
    sync = dlx.cuda.synchronize
    a = dlx.full((n,), 1.5, "float32", device="cuda")
    b = dlx.full((n,), 2.5, "float32", device="cuda")
    c = dlx.empty((n,), "float32", device="cuda")
    h = dlx.empty((n,), "float16", device="cuda")
    nbytes = 4 * n
    # the reference: a device-to-device copy of one operand
    if cudart is not None:
        stream = dlx.cuda.current_stream().cuda_stream

        def ref():
            err = cudart.cudaMemcpyAsync(c.data_ptr, a.data_ptr, nbytes, 3, stream)  # cudaMemcpyDeviceToDevice
            if err:
                raise RuntimeError(f"cudaMemcpyAsync failed: error {err}")

        ref_name = "cudaMemcpyAsync D2D"
    elif torch is not None:
        ta, tc = torch.from_dlpack(a), torch.from_dlpack(c)

        def ref():
            tc.copy_(ta)

        ref_name = "torch copy_ (cudaMemcpy D2D)"
    else:
        def ref():
            c.copy_(a)

        ref_name = "dlx copy_ of compact tensors"
    t_ref = best_s(ref, sync, repeats, 5)
    bw_ref = 2 * nbytes / t_ref
    print(f"\nelementwise on {gib:g} GiB float32 operands ({n} elements); reference: {ref_name}")
    print(f"  {'op':46s} {'GB/s':>10s} {'':7s} {'of copy':>7s}  {'target':10s}")
    rep.line(f"reference: {ref_name}", bw_ref / 1e9, "GB/s", 1.0)
    cases = [
        ("add: dlx.add(a, b, out=c)", lambda: dlx.add(a, b, out=c), 3 * nbytes),
        ("cast: h.copy_(a) float32 -> float16", lambda: h.copy_(a), nbytes + nbytes // 2),
        ("copy: c.copy_(a) (dlx's copy kernel)", lambda: c.copy_(a), 2 * nbytes),
        ("add in place: a += b", lambda: a.__iadd__(b), 3 * nbytes),
    ]
    for label, fn, moved in cases:
        t = best_s(fn, sync, repeats, 5)
        frac = (moved / t) / bw_ref
        rep.line(label, moved / t / 1e9, "GB/s", frac, ">= 0.90", frac >= 0.90)
    # informational: a transposed (gather) copy of a square 2-D view
    side = int(n ** 0.5)
    sq = a[: side * side].reshape(side, side)
    out = c[: side * side].reshape(side, side)
    t = best_s(lambda: out.copy_(sq.T), sync, repeats, 3)
    rep.line(f"copy of a transposed {side}x{side} view", 2 * 4 * side * side / t / 1e9, "GB/s",
             (2 * 4 * side * side / t) / bw_ref, note="(no target: strided reads)")
    del a, b, c, h, sq, out


def gemm(dlx, rep, repeats, torch):
    if torch is None:
        print("\ngemm: skipped (torch not installed: torch.matmul is the baseline)")
        return
    torch.backends.cuda.matmul.allow_tf32 = False  # torch's default; dlx's float32 never uses TF32 either
    print("\ngemm: dlx.matmul(a, b, out=c) vs torch.matmul(a, b, out=c), the same device memory")
    print(f"  {'case':46s} {'TFLOP/s':>10s} {'':7s} {'x torch':>7s}  {'target':10s}")
    sync = torch.cuda.synchronize
    for dtype, size in (("float32", 8192), ("float16", 8192), ("bfloat16", 8192), ("float64", 4096)):
        tdt = getattr(torch, dtype)
        ta = torch.randn(size, size, device="cuda", dtype=tdt)
        tb = torch.randn(size, size, device="cuda", dtype=tdt)
        tc = torch.empty(size, size, device="cuda", dtype=tdt)
        a, b, c = dlx.from_dlpack(ta), dlx.from_dlpack(tb), dlx.from_dlpack(tc)
        flops = 2.0 * size ** 3
        t_torch = best_s(lambda: torch.matmul(ta, tb, out=tc), sync, repeats, 5)
        t_dlx = best_s(lambda: dlx.matmul(a, b, out=c), sync, repeats, 5)
        rep.line(f"torch.matmul {dtype} {size}^3", flops / t_torch / 1e12, "TFLOP/s", 1.0)
        ratio = t_torch / t_dlx
        rep.line(f"dlx.matmul   {dtype} {size}^3", flops / t_dlx / 1e12, "TFLOP/s", ratio, ">= 0.95x", ratio >= 0.95)
        # the transposed operand too (a view: cuBLAS's transpose flag, no copy)
        t_torch = best_s(lambda: torch.matmul(ta, tb.T, out=tc), sync, repeats, 5)
        bt = b.T
        t_dlx = best_s(lambda: dlx.matmul(a, bt, out=c), sync, repeats, 5)
        ratio = t_torch / t_dlx
        rep.line(f"dlx.matmul   {dtype} {size}^3, b transposed", flops / t_dlx / 1e12, "TFLOP/s", ratio, ">= 0.95x",
                 ratio >= 0.95)
        del ta, tb, tc, a, b, c, bt


def exchange(dlx, rep, cudart, torch):
    print("\nexport / import of a device tensor")
    t = dlx.zeros((1 << 20,), device="cuda")
    one = dlx.full((1 << 20,), 1.0, device="cuda")
    busy, other = dlx.cuda.Stream(), dlx.cuda.Stream()
    dlx.cuda.synchronize()

    def still_running():
        if torch is not None:
            return not torch.cuda.ExternalStream(busy.cuda_stream).query()
        if cudart is not None:
            return cudart.cudaStreamQuery(busy.cuda_stream) != 0  # cudaErrorNotReady
        return None

    with dlx.cuda.stream(busy):
        if torch is not None:
            with torch.cuda.stream(torch.cuda.ExternalStream(busy.cuda_stream)):
                torch.cuda._sleep(int(1.8e9 * 0.3))  # about 300 ms of GPU time
        else:
            big = dlx.zeros((1 << 28,), device="cuda")
            for _ in range(50):
                big += big  # about 50 x 3 GiB of traffic
        running_before_op = still_running()
        t0 = time.perf_counter()
        t += one  # dlx's work on t, behind the long kernel
        dt_op = time.perf_counter() - t0
        running_before = still_running()
        t0 = time.perf_counter()
        cap = t.__dlpack__(max_version=(1, 3), stream=other.cuda_stream)
        dt = time.perf_counter() - t0
        running = still_running()
    # the long kernel must still run when __dlpack__ starts, else the figure proves nothing: say which step
    # waited for it (the op queued behind it, or the export)
    ok = running is not False and running_before is not False and dt < 0.01
    note = {True: "the long kernel was still running after it", False: "the long kernel had finished: a sync?",
            None: "(no runtime to ask whether the stream still runs)"}[running]
    if running_before is False:
        note = (f"the long kernel had finished before __dlpack__ (running before the op: {running_before_op}; "
                f"the op t += one took {dt_op * 1e3:.1f} ms)")
    rep.line("__dlpack__(stream=other) behind a long kernel", dt * 1e6, "us", target="no sync", ok=ok, note=note)
    rep.line("t += one queued behind the long kernel", dt_op * 1e6, "us", note=f"kernel running after it: {running_before}")
    del cap
    dlx.cuda.synchronize()
    env = {"t": t, "dlx": dlx, "s": other.cuda_stream}
    rep.line("t.__dlpack__(max_version=(1, 3), stream=s)",
             _best_call_ns(env, "t.__dlpack__(max_version=(1, 3), stream=s)") / 1000, "us")
    if torch is not None:
        env.update(torch=torch, x=torch.zeros(1 << 20, device="cuda"))
        rep.line("torch.from_dlpack(t) (a dlx device tensor)", _best_call_ns(env, "torch.from_dlpack(t)") / 1000, "us")
        rep.line("dlx.from_dlpack(x) (a torch.cuda tensor)", _best_call_ns(env, "dlx.from_dlpack(x)") / 1000, "us")
    dlx.cuda.synchronize()


def _best_call_ns(env, stmt):
    timer = timeit.Timer(stmt, globals=env)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=max(number, 200))) / max(number, 200) * 1e9


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gib", type=float, default=4.0, help="size of each elementwise operand in GiB (default 4)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--skip-gemm", action="store_true")
    args = ap.parse_args(argv)
    import dlx

    if not dlx.cuda.is_available():
        why = "dlx was built without CUDA" if not dlx.cuda.is_built() else "dlx.cuda.device_count() is 0"
        print(f"no CUDA device ({why}): nothing to measure")
        return 0
    try:
        import torch

        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    cudart = _cudart()
    name = torch.cuda.get_device_name(0) if torch is not None else "cuda:0"
    print(f"dlx {dlx.__version__} on {name} ({dlx.cuda.device_count()} device(s)); torch: "
          f"{torch.__version__ if torch is not None else 'not available'}; best of {args.repeats} batches")
    rep = Report()
    elementwise(dlx, rep, args.gib, args.repeats, cudart, torch)
    if not args.skip_gemm:
        gemm(dlx, rep, args.repeats, torch)
    exchange(dlx, rep, cudart, torch)
    print()
    print("all targets met" if not rep.missed else f"targets missed: {', '.join(rep.missed)}")
    return 1 if (args.strict and rep.missed) else 0


if __name__ == "__main__":
    sys.exit(main())

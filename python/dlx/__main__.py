"""`python -m dlx`: an interoperability matrix of the installed frameworks.

For every producer -> consumer pair (dlx, NumPy, JAX, PyTorch; bfloat16 and fp8 in NumPy through
ml_dtypes) and every dtype: does the exchange work, is it zero-copy (the consumer's data pointer is the
producer's), and what one call costs in ns (a short loop, best of 3). Where dlx has a CUDA device, a
second matrix of device tensors on cuda:0: dlx, torch.cuda, CuPy and JAX's GPU (each missing peer listed
with its reason). Where dpctl imports and finds a SYCL device, a matrix of SYCL device USM on oneapi:0:
dlx and dpctl.tensor. Takes well under 30 s.

`python -m dlx check producer|consumer <target>` is the DLPack conformance checker instead (dlx.check).
"""

import os
import sys
import time

SHAPE = (32, 32)
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
          "float8_e5m2fnuz", "float8_e8m0fnu"]
CALLS = 2000  # per repeat, fewer for slow pairs (each repeat is capped near TARGET_NS)
REPEATS = 3
TARGET_NS = 4_000_000
BUDGET_S = 25.0


class Framework:
    """How to make an array of a dtype, import with from_dlpack, and find the data pointer."""

    def __init__(self, name, version, make, consume, ptr, note=""):
        self.name, self.version, self.make, self.consume, self.ptr, self.note = name, version, make, consume, ptr, note


def _frameworks():
    import dlx

    fws = [Framework("dlx", dlx.__version__, lambda dt: dlx.zeros(SHAPE, dt), dlx.from_dlpack, lambda t: t.data_ptr,
                     "C exchange API: yes")]
    missing = []
    try:
        import numpy as np
    except ImportError as e:
        missing.append(f"numpy ({e})")
        return fws, missing, {}
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
        missing.append("ml_dtypes (bfloat16/fp8 NumPy arrays unavailable)")

    def np_dtype(dt):
        try:
            return np.dtype(dt)
        except TypeError:
            if ml_dtypes is None or not hasattr(ml_dtypes, dt):
                return None
            return np.dtype(getattr(ml_dtypes, dt))

    def np_make(dt):
        d = np_dtype(dt)
        return None if d is None else np.zeros(SHAPE, d)

    fws.append(Framework("numpy", np.__version__, np_make, np.from_dlpack,
                         lambda a: a.__array_interface__["data"][0], "C exchange API: no"))
    versions = {"ml_dtypes": getattr(ml_dtypes, "__version__", None)}

    os.environ.setdefault("JAX_PLATFORMS", _jax_platforms())
    os.environ.setdefault("JAX_ENABLE_X64", "1")  # so int64/float64/complex128 stay themselves
    try:
        import jax
        import jax.dlpack
        import jax.numpy as jnp

        def jax_make(dt):
            d = getattr(jnp, dt, None)
            return None if d is None else jax.device_put(jnp.zeros(SHAPE, d), jax.devices("cpu")[0])

        fws.append(Framework("jax", jax.__version__, jax_make, jax.dlpack.from_dlpack,
                             lambda a: a.unsafe_buffer_pointer(), "C exchange API: no"))
        import jaxlib

        versions["jaxlib"] = jaxlib.__version__
    except Exception as e:  # noqa: BLE001 - any import failure means "not available"
        missing.append(f"jax ({type(e).__name__}: {e})")

    try:
        import torch

        def torch_make(dt):
            d = getattr(torch, dt, None)
            return None if d is None else torch.zeros(SHAPE, dtype=d)

        has = hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or hasattr(torch.Tensor, "__c_dlpack_exchange_api__")
        fws.append(Framework("torch", torch.__version__, torch_make, torch.from_dlpack, lambda t: t.data_ptr(),
                             f"C exchange API: {'yes (dlx.from_dlpack uses it)' if has else 'no'}"))
    except Exception as e:  # noqa: BLE001
        missing.append(f"torch ({type(e).__name__}: {e}; install: bash scripts/install_torch.sh)")
    return fws, missing, versions


def _jax_platforms():
    """JAX's platforms: the CPU, plus CUDA when dlx has a device and JAX's CUDA plugin is installed (the CPU
    stays the default, so the host matrix is JAX's CPU arrays either way)."""
    import importlib.util

    import dlx

    if dlx.cuda.is_available() and any(importlib.util.find_spec(p) for p in ("jax_cuda13_plugin", "jax_cuda12_plugin")):
        return "cpu,cuda"
    return "cpu"


def _cuda_frameworks():
    """(frameworks, missing) for the CUDA matrix: dlx, torch.cuda, CuPy and JAX on cuda:0."""
    import dlx

    fws = [Framework("dlx", dlx.__version__, lambda dt: dlx.zeros(SHAPE, dt, device="cuda"), dlx.from_dlpack,
                     lambda t: t.data_ptr, "cuda:0")]
    missing = []
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")

        def torch_make(dt):
            d = getattr(torch, dt, None)
            return None if d is None else torch.zeros(SHAPE, dtype=d, device="cuda")

        fws.append(Framework("torch", torch.__version__, torch_make, torch.from_dlpack, lambda t: t.data_ptr(),
                             "torch.cuda"))
    except Exception as e:  # noqa: BLE001 - any failure means "not available"
        missing.append(f"torch.cuda ({type(e).__name__}: {e})")
    try:
        import importlib

        cupy = importlib.import_module("cupy")  # optional, and untyped where it is installed
        cupy.cuda.runtime.getDeviceCount()

        def cupy_make(dt):
            try:
                return cupy.zeros(SHAPE, cupy.dtype(dt))
            except TypeError:
                return None

        fws.append(Framework("cupy", cupy.__version__, cupy_make, cupy.from_dlpack, lambda a: a.data.ptr, "cuda:0"))
    except Exception as e:  # noqa: BLE001
        missing.append(f"cupy ({type(e).__name__}: {e}; pip install cupy-cuda13x)")
    try:
        import jax
        import jax.dlpack
        import jax.numpy as jnp

        gpu = jax.devices("cuda")[0]

        def jax_make(dt):
            d = getattr(jnp, dt, None)
            return None if d is None else jax.device_put(jnp.zeros(SHAPE, d), gpu)

        fws.append(Framework("jax", jax.__version__, jax_make, jax.dlpack.from_dlpack,
                             lambda a: a.unsafe_buffer_pointer(), "GPU"))
    except Exception as e:  # noqa: BLE001
        first = str(e).splitlines()[0] if str(e) else ""
        missing.append(f"jax GPU ({type(e).__name__}: {first}; needs jax[cuda13])")
    return fws, missing


def _matrix(fws, deadline, notes, width=11):
    for cons in fws:
        print()
        print(f"consumer: {cons.name}.from_dlpack" if cons.name != "jax" else "consumer: jax.dlpack.from_dlpack")
        print(f"  {'dtype':16s}" + "".join(f"{'from ' + p.name:>{width}s}" for p in fws))
        for dt in DTYPES:
            cells = [_cell(p, cons, dt, deadline, notes)[0] for p in fws]
            print(f"  {dt:16s}" + "".join(f"{c:>{width}s}" for c in cells))


def _cuda_section(deadline, notes):
    import dlx

    print()
    if not dlx.cuda.is_available():
        why = "dlx was built without CUDA" if not dlx.cuda.is_built() else "dlx.cuda.device_count() is 0"
        print(f"CUDA: no device ({why}): the CUDA matrix is skipped")
        return
    fws, missing = _cuda_frameworks()
    print(f"CUDA matrix: device tensors on cuda:0 ({dlx.cuda.device_count()} device(s); each exchange on the "
          "consumer's current stream, ordered by an event)")
    for f in fws:
        print(f"  {f.name:6s} {f.version:22s} {f.note}")
    for m in missing:
        print(f"  missing: {m}")
    _matrix(fws, deadline, notes)


def _oneapi_section(deadline, notes):
    """dlx and dpctl.tensor exchanging device USM on oneapi:0, when dpctl imports and finds a device."""
    import importlib
    import warnings

    import dlx

    print()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # dpctl.tensor moves to dpnp.tensor
            # optional, and untyped where it is installed (no py.typed)
            dpctl = importlib.import_module("dpctl")
            dpt = importlib.import_module("dpctl.tensor")
    except Exception as e:  # noqa: BLE001 - any import failure means "not available"
        print(f"oneAPI: dpctl cannot be imported ({type(e).__name__}: {e}): the oneAPI matrix is skipped")
        return
    devices = dpctl.get_devices()
    if not devices:
        print(f"oneAPI: dpctl {dpctl.__version__} finds no SYCL device (an OpenCL CPU runtime needs "
              "OCL_ICD_VENDORS: see the README): the oneAPI matrix is skipped")
        return
    try:
        n = dlx.oneapi.device_count()
    except Exception as e:  # noqa: BLE001
        n, why = 0, f"{type(e).__name__}: {e}"
    else:
        why = f"DLX_DPCTL_LIBRARY={dlx.oneapi.default_library()}"
    if n == 0:
        print(f"oneAPI: dlx cannot load dpctl's C API ({why}): the oneAPI matrix is skipped")
        return
    dev = devices[0]

    def dpt_make(dt):
        try:
            x = dpt.zeros(SHAPE, dtype=dt, device=dev)
        except (TypeError, ValueError):  # a dtype dpctl.tensor lacks
            return None
        x.sycl_queue.wait()
        return x

    def dpt_ptr(x):
        return x.usm_data._pointer + x._element_offset * x.itemsize

    fws = [Framework("dlx", dlx.__version__, lambda dt: dlx.zeros(SHAPE, dt, device="oneapi:0"), dlx.from_dlpack,
                     lambda t: t.data_ptr, "oneapi:0 device USM"),
           Framework("dpctl", dpctl.__version__, dpt_make, dpt.from_dlpack, dpt_ptr, f"dpctl.tensor on {dev.name}")]
    print(f"oneAPI matrix: device USM on oneapi:0 ({n} SYCL device(s), {why})")
    for f in fws:
        print(f"  {f.name:6s} {f.version:22s} {f.note}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _matrix(fws, deadline, notes)


def _time_ns(fn, x):
    t0 = time.perf_counter_ns()
    fn(x)
    one = max(time.perf_counter_ns() - t0, 1)
    n = max(20, min(CALLS, TARGET_NS // one))
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn(x)
        best = min(best, (time.perf_counter_ns() - t0) / n)
    return best


def _cell(prod, cons, dt, deadline, notes):
    """(text, ok) for one producer/consumer/dtype."""
    try:
        x = prod.make(dt)
    except Exception:  # noqa: BLE001
        x = None
    if x is None:
        return ".", None
    try:
        y = cons.consume(x)
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:110]
        if msg not in notes:
            notes.append(msg)
        return f"x{notes.index(msg) + 1}", False
    try:
        zero = cons.ptr(y) == prod.ptr(x)
    except Exception:  # noqa: BLE001
        zero = False
    mark = "Z" if zero else "C"
    if time.perf_counter() > deadline:
        return f"{mark} ?", True
    return f"{mark} {_fmt_ns(_time_ns(cons.consume, x))}", True


def _fmt_ns(ns):
    if ns < 9_999.5:
        return f"{ns:.0f}"
    if ns < 99_950:
        return f"{ns / 1000:.1f}k"
    return f"{ns / 1000:.0f}k"


def main(argv=None):
    start = time.perf_counter()
    deadline = start + BUDGET_S
    fws, missing, versions = _frameworks()

    print(f"dlx interoperability matrix  (Python {sys.version.split()[0]}, shape {SHAPE})")
    for f in fws:
        print(f"  {f.name:6s} {f.version:22s} {f.note}")
    for k, v in versions.items():
        if v:
            print(f"  {k:6s} {v}")
    for m in missing:
        print(f"  missing: {m}")
    import dlx

    print(f"  DLPack {dlx.DLPACK_VERSION[0]}.{dlx.DLPACK_VERSION[1]}")
    print()
    print("Cells: Z = zero-copy (same data pointer), C = works but copies; then ns per from_dlpack call "
          "(best of 3; k = 1000 ns).")
    print("       x<n> = fails (reason n below), . = the producer has no such dtype.")

    notes = []
    _matrix(fws, deadline, notes)
    _cuda_section(deadline, notes)
    _oneapi_section(deadline, notes)
    if notes:
        print()
        print("Failures:")
        for i, n in enumerate(notes, 1):
            print(f"  x{i}: {n}")
    elapsed = time.perf_counter() - start
    if elapsed > BUDGET_S:
        print(f"\n(time budget of {BUDGET_S:.0f} s reached: cells marked '?' were not timed)")
    print(f"\n{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:  # `python -m dlx check ...`: the conformance checker (dlx.check)
        from dlx.check.cli import main as check_main

        sys.exit(check_main(sys.argv[2:]))
    sys.exit(main())

"""Per-call cost of DLPack exchanges through dlx against each framework's own, in one run.

    python bench/bench_python.py        (after pip install .; torch and jax are used when importable)

Targets (issues 14 and 30): dlx.from_dlpack of a NumPy array <= 0.3x NumPy's own import of it; dlx's
__dlpack__(max_version=(1, 3)) <= 0.8x NumPy's; np.from_dlpack of a dlx tensor no slower than of a NumPy
array; <= 80 ns per tensor through a producer's C exchange API. Each figure is the best of several
repeats of a timeit loop (autoranged to >= 0.2 s); the "loop floor" row is the same loop around a
trivial C call (id), the part of every figure that is Python's, not the exchange's. The C rows time a
loop in C (dlx._testing.exchange_import_ns): a C consumer of torch's exchange API, next to torch's own
share of it. Nothing here asserts: timings depend on the machine (run it on an idle one).
"""

import os
import sys
import timeit

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# nothing here calls BLAS: OpenBLAS's idle threads would only compete for a small machine's cores
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPEAT = 5
SHAPE = (32, 32)


def best_ns(stmt, env):
    t = timeit.Timer(stmt, globals=env)
    number, _ = t.autorange()
    number = max(number, 1000)
    return min(t.repeat(repeat=REPEAT, number=number)) / number * 1e9


class Report:
    def __init__(self):
        self.rows = []

    def row(self, label, ns, base=None, base_ns=None, target=None, ok=None, note=""):
        ratio = None if base_ns is None else ns / base_ns
        self.rows.append((label, ns, base, ratio, target, ok, note))
        r = f"{ratio:6.2f}x" if ratio is not None else ""
        verdict = "" if ok is None else ("met" if ok else "MISSED")
        print(f"  {label:48s} {ns:9.1f} ns {r:>7s}  {base or '':36s} {target or '':9s} {verdict:6s} {note}".rstrip())
        sys.stdout.flush()


def main():
    import numpy as np

    import dlx

    rep = Report()
    print(f"dlx {dlx.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}; shape {SHAPE} float32; "
          f"best of {REPEAT} timeit repeats")
    print(f"  {'call':48s} {'per call':>12s} {'ratio':>7s}  {'baseline (ratio = call / baseline)':36s} {'target':9s}")

    a = np.zeros(SHAPE, np.float32)
    t = dlx.from_dlpack(np.zeros(SHAPE, np.float32))
    env = {"np": np, "dlx": dlx, "a": a, "t": t}

    floor = best_ns("id(a)", env)
    rep.row("loop floor: id(a)", floor)

    # --- imports of a NumPy array -----------------------------------------------------------------
    np_imp = best_ns("np.from_dlpack(a)", env)
    rep.row("np.from_dlpack(numpy array)", np_imp)
    dlx_imp = best_ns("dlx.from_dlpack(a)", env)
    T = getattr(dlx, "_testing", None)
    ways = hasattr(T, "set_ndarray_path") and hasattr(T, "fast_path_counts")
    note = ""
    if ways:
        hits = T.fast_path_counts()[0]
        dlx.from_dlpack(a)
        note = "(the array's fields)" if T.fast_path_counts()[0] > hits else "(__dlpack__)"
    rep.row("dlx.from_dlpack(numpy array)", dlx_imp, "np.from_dlpack(numpy array)", np_imp, "<= 0.30x",
            dlx_imp <= 0.3 * np_imp, note)
    if ways:
        # the general way dlx can read an exact ndarray (dlx._testing.set_ndarray_path; test builds only)
        for mode, label in ((0, "its __dlpack__"),):
            was = T.set_ndarray_path(mode)
            try:
                ns = best_ns("dlx.from_dlpack(a)", env)
            finally:
                T.set_ndarray_path(was)
            rep.row(f"  the same through {label}", ns, "np.from_dlpack(numpy array)", np_imp)
    cap_imp = best_ns("dlx.from_dlpack(a.__dlpack__(max_version=(1, 3)))", env)
    rep.row("dlx.from_dlpack(numpy capsule)", cap_imp, "np.from_dlpack(numpy array)", np_imp)
    self_imp = best_ns("dlx.from_dlpack(t)", env)
    rep.row("dlx.from_dlpack(dlx tensor)", self_imp, "np.from_dlpack(numpy array)", np_imp)

    # --- exports ----------------------------------------------------------------------------------
    np_from_dlx = best_ns("np.from_dlpack(t)", env)
    rep.row("np.from_dlpack(dlx tensor)", np_from_dlx, "np.from_dlpack(numpy array)", np_imp, "<= 1.00x",
            np_from_dlx <= np_imp)
    exp_np = best_ns("a.__dlpack__(max_version=(1, 3))", env)
    rep.row("numpy.__dlpack__(max_version=(1, 3))", exp_np)
    exp_dlx = best_ns("t.__dlpack__(max_version=(1, 3))", env)
    rep.row("dlx.Tensor.__dlpack__(max_version=(1, 3))", exp_dlx, "numpy.__dlpack__(max_version=(1, 3))", exp_np,
            "<= 0.80x", exp_dlx <= 0.8 * exp_np)
    rep.row("  the same minus the loop floor", exp_dlx - floor, "numpy's minus the loop floor", exp_np - floor)
    exp_np_l = best_ns("a.__dlpack__()", env)
    exp_dlx_l = best_ns("t.__dlpack__()", env)
    rep.row("dlx.Tensor.__dlpack__() (legacy)", exp_dlx_l, "numpy.__dlpack__() (legacy)", exp_np_l, "<= 1.00x",
            exp_dlx_l <= exp_np_l)

    # --- PyTorch ----------------------------------------------------------------------------------
    try:
        import torch
    except ImportError:
        print("  torch: not installed (bash scripts/install_torch.sh) -- torch rows skipped")
        torch = None
    if torch is not None:
        x = torch.zeros(SHAPE)
        env.update(torch=torch, x=x)
        has_api = hasattr(type(x), "__dlpack_c_exchange_api__")
        has_api12 = hasattr(type(x), "__c_dlpack_exchange_api__")
        via = ("its C exchange API (__dlpack_c_exchange_api__)" if has_api else
               "its C exchange API (1.2 spelling __c_dlpack_exchange_api__)" if has_api12 else
               "__dlpack__ (torch has no C exchange API)")
        print(f"  torch {torch.__version__}: dlx.from_dlpack(torch tensor) goes through {via}")
        t_self = best_ns("torch.from_dlpack(x)", env)
        rep.row("torch.from_dlpack(torch tensor)", t_self)
        d_t = best_ns("dlx.from_dlpack(x)", env)
        api = has_api or has_api12
        rep.row("dlx.from_dlpack(torch tensor)", d_t, "torch.from_dlpack(torch tensor)", t_self,
                "<= 80 ns" if api else None, (d_t <= 80) if api else None)
        rep.row("  the same minus the loop floor", d_t - floor, note="(the exchange's own share)")
        d_cap = best_ns("dlx.from_dlpack(x.__dlpack__(max_version=(1, 3)))", env)
        rep.row("dlx.from_dlpack(torch capsule)", d_cap, "dlx.from_dlpack(torch tensor)", d_t,
                note="(torch's __dlpack__ path)")
        if api and T is not None and hasattr(T, "exchange_import_ns"):
            # a C consumer of torch's exchange API, timed in C: no Python call around it
            def c_ns(mode):
                n = 200000
                return min(T.exchange_import_ns(x, n, mode) for _ in range(REPEAT))

            own = None
            try:
                own = c_ns("export")
            except TypeError:
                print("  (this dlx's _testing.exchange_import_ns has no modes: torch's own share not measured)")
            c_imp = min(T.exchange_import_ns(x, 200000) for _ in range(REPEAT))
            rep.row("C consumer: torch export + dlx validate + delete", c_imp,
                    "torch's own share (export + delete)" if own else None, own)
            if own:
                rep.row("  torch's own share (export + delete)", own)
                view = c_ns("view")
                borrowed = c_ns("dltensor")
                rep.row("C API dlx_py_view + release (torch)", view, "torch's dltensor_from_py_object_no_sync",
                        borrowed, note="(issue 12's checks: requires_grad, is_neg)")
                rep.row("  torch's dltensor_from_py_object_no_sync alone", borrowed)
        t_dlx = best_ns("torch.from_dlpack(t)", env)
        rep.row("torch.from_dlpack(dlx tensor)", t_dlx, "torch.from_dlpack(torch tensor)", t_self)
        t_np = best_ns("torch.from_dlpack(a)", env)
        rep.row("torch.from_dlpack(numpy array)", t_np)
        rep.row("torch.from_dlpack(dlx tensor)", t_dlx, "torch.from_dlpack(numpy array)", t_np, "<= 1.00x",
                t_dlx <= t_np)

    # --- JAX --------------------------------------------------------------------------------------
    try:
        import jax
        import jax.dlpack
        import jax.numpy as jnp
    except Exception as e:  # noqa: BLE001
        print(f"  jax: not available ({type(e).__name__}: {e}) -- jax rows skipped")
        jax = None
    if jax is not None:
        j = jnp.zeros(SHAPE, jnp.float32)
        env.update(jax=jax, j=j)
        has_api = hasattr(type(j), "__dlpack_c_exchange_api__") or hasattr(type(j), "__c_dlpack_exchange_api__")
        print(f"  jax {jax.__version__}: dlx.from_dlpack(jax array) goes through "
              f"{'its C exchange API' if has_api else '__dlpack__ (JAX has no C exchange API)'}")
        j_self = best_ns("jax.dlpack.from_dlpack(j)", env)
        rep.row("jax.dlpack.from_dlpack(jax array)", j_self)
        d_j = best_ns("dlx.from_dlpack(j)", env)
        rep.row("dlx.from_dlpack(jax array)", d_j, "jax.dlpack.from_dlpack(jax array)", j_self)
        j_np = best_ns("jax.dlpack.from_dlpack(a)", env)
        rep.row("jax.dlpack.from_dlpack(numpy array)", j_np)
        j_dlx = best_ns("jax.dlpack.from_dlpack(t)", env)
        rep.row("jax.dlpack.from_dlpack(dlx tensor)", j_dlx, "jax.dlpack.from_dlpack(numpy array)", j_np,
                "<= 1.00x", j_dlx <= j_np)

    targets = [r for r in rep.rows if r[5] is not None]
    met = sum(1 for r in targets if r[5])
    missed = "; ".join(f"{r[0].strip()} ({r[4]})" for r in targets if not r[5])
    print(f"targets met: {met}/{len(targets)}" + (f"; missed: {missed}" if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

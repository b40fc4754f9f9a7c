"""Ownership stress: random programs of produce / consume / view / drop across dlx, NumPy, PyTorch and JAX
(the last two where installed), run on several threads at once, with C-level exports released on threads
that do not hold the GIL, and interpreters that exit with tensors still exported.

Each hypothesis example is one program per thread. A program is a list of steps interpreted against the
thread's pool of live objects: make a tensor in some framework, import it into another (zero-copy),
take a view, export a capsule or a raw DLManagedTensorVersioned through the C exchange API, hand an
object to another thread, drop something, release a managed tensor (inline, on a new thread, or on a
reaper thread: ctypes CFUNCTYPE calls drop the GIL while the deleter runs). Every buffer is filled
with one marker value, so any element read anywhere must be that value (freed memory would not be,
and ASan catches the read itself in scripts/test_python_asan.sh). After all threads finish:
  - every dlx._testing.make_capsule deleter ran exactly once (the count equals the capsules made),
  - no dlx export is left and none was deleted twice (dlx._testing.exported_alive() is back to 0),
  - every NumPy array that went into DLPack is freed (a weak reference to it is dead), so NumPy's own
    deleters ran too.

Short by default, as CI runs it. Long mode (see README, "Hardening"):
    DLX_STRESS_EXAMPLES=2000 DLX_STRESS_THREADS=8 DLX_STRESS_STEPS=200 .venv/bin/python -m pytest \
        python/tests/test_stress.py -q
"""

import collections
import ctypes as C
import gc
import os
import queue
import subprocess
import sys
import textwrap
import threading
import traceback
import weakref

import numpy as np
import pytest
from peers import need

import dlx
from dlpack_ctypes import (
    FN_FROM_PY,
    FN_TO_PY,
    NAME_USED_VERSIONED,
    DLManagedTensorVersioned,
    capsule_pointer,
    exchange_api,
)

hypothesis = need("hypothesis", reason="hypothesis is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

T = dlx._testing

EXAMPLES = int(os.environ.get("DLX_STRESS_EXAMPLES", "20"))
THREADS = int(os.environ.get("DLX_STRESS_THREADS", "4"))
STEPS = int(os.environ.get("DLX_STRESS_STEPS", "40"))

try:
    import torch
except Exception:  # noqa: BLE001 - optional framework, any import failure means "not here"
    torch = None
try:
    import jax
    import jax.dlpack  # noqa: F401
    import jax.numpy as jnp
except Exception:  # noqa: BLE001
    jax = jnp = None

API = exchange_api(dlx.Tensor)
# The deleter of a managed tensor, called through a plain C function pointer: ctypes releases the GIL
# for the duration of a CFUNCTYPE call, so the deleter runs exactly as a C consumer's thread would.
DELETER_FN = C.CFUNCTYPE(None, C.c_void_p)
_api = C.pythonapi
_api.Py_DecRef.argtypes = [C.c_void_p]
_api.Py_DecRef.restype = None
_api.PyCapsule_SetName.restype = C.c_int
_api.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]

# What a framework may refuse for a reason of its own (documented limitations, not dlx bugs): PyTorch
# refuses negative strides, JAX non-compact layouts and read-only legacy capsules. dlx itself only ever
# raises BufferError for a refused import.
FOREIGN_REFUSALS = (BufferError, RuntimeError, ValueError, TypeError)
if jax is not None:
    try:
        from jax.errors import JaxRuntimeError

        FOREIGN_REFUSALS = FOREIGN_REFUSALS + (JaxRuntimeError,)
    except ImportError:
        pass

OPS = ["dlx_zeros", "np_full", "torch_full", "jax_full", "make_capsule", "export_capsule", "export_legacy",
       "to_dlx", "to_numpy", "to_torch", "to_jax", "view", "mark", "copy", "c_export", "c_to_py", "c_release",
       "read", "drop", "drop", "handoff", "take", "reconsume"]


class Managed:
    """An owned DLManagedTensorVersioned* (from the exchange API or a renamed capsule): release it once."""

    def __init__(self, addr, marker):
        self.addr = addr
        self.marker = marker
        self.deleter = DLManagedTensorVersioned.from_address(addr).deleter

    def read(self):
        m = DLManagedTensorVersioned.from_address(self.addr)
        t = m.dl_tensor
        if t.ndim and any(t.shape[i] == 0 for i in range(t.ndim)):
            return None
        return C.c_int32.from_address(t.data + t.byte_offset).value

    def release_here(self):
        if self.deleter:
            DELETER_FN(self.deleter)(self.addr)


class World:
    """What the threads of one example share."""

    def __init__(self):
        self.lock = threading.Lock()
        self.handoff = queue.Queue()
        self.reaper_q = queue.Queue()
        self.capsules_made = 0
        self.numpy_refs = []
        self.release_threads = []
        self.errors = []
        self.stats = collections.Counter()
        self.reaper = threading.Thread(target=self._reap, name="dlx-reaper")
        self.reaper.start()

    def _reap(self):
        while True:
            m = self.reaper_q.get()
            if m is None:
                return
            m.release_here()

    def count(self, what):
        with self.lock:
            self.stats[what] += 1


def _shape(a):
    return [(), (a % 5,), (a % 3 + 1, a % 4 + 1), (2, a % 3, 3)][a % 4]


def _read(kind, obj):
    """The marker value of one element, or None for an empty tensor (every element holds the marker)."""
    if kind == "np":
        return int(obj.flat[0]) if obj.size else None
    if kind == "dlx":
        a = np.from_dlpack(obj)
        return int(a.flat[0]) if a.size else None
    if kind == "torch":
        return int(obj.flatten()[0].item()) if obj.numel() else None
    if kind == "jax":
        return int(np.asarray(obj).flat[0]) if obj.size else None
    if kind == "managed":
        return obj.read()
    return None  # an unconsumed capsule: nothing to read without taking it


def run_program(world, program):
    pool = []  # (kind, object, marker)

    def pick(kinds, b):
        cands = [i for i, e in enumerate(pool) if e[0] in kinds]
        return cands[b % len(cands)] if cands else None

    for op, a, b in program:
        marker = a % 1000
        world.count(op)
        if op == "dlx_zeros":
            t = dlx.zeros(_shape(a), "int32")
            np.from_dlpack(t)[...] = marker
            pool.append(("dlx", t, marker))
        elif op == "np_full":
            arr = np.full(_shape(a), marker, np.int32)
            with world.lock:
                world.numpy_refs.append(weakref.ref(arr))
            pool.append(("np", arr, marker))
        elif op == "torch_full" and torch is not None:
            pool.append(("torch", torch.full(_shape(a), marker, dtype=torch.int32), marker))
        elif op == "jax_full" and jax is not None:
            pool.append(("jax", jnp.full(_shape(a), marker, dtype=jnp.int32), marker))
        elif op == "make_capsule":
            cap = T.make_capsule(_shape(a), "int32", versioned=bool(b & 1))
            with world.lock:
                world.capsules_made += 1
            pool.append(("capsule", cap, 0))  # make_capsule buffers are zeroed
        elif op in ("export_capsule", "export_legacy"):
            i = pick({"dlx"}, b)
            if i is not None:
                t, mk = pool[i][1], pool[i][2]
                try:
                    cap = t.__dlpack__(max_version=(1, 3)) if op == "export_capsule" else t.__dlpack__()
                except BufferError:
                    assert t.readonly, "only read-only data is refused as a legacy capsule"
                    continue
                pool.append(("capsule", cap, mk))
        elif op == "to_dlx":
            i = pick({"np", "torch", "jax", "dlx", "capsule"}, b)
            if i is not None:
                kind, x, mk = pool[i]
                t = dlx.from_dlpack(x)
                if kind == "capsule":
                    pool.pop(i)  # consumed: the new tensor owns it now
                pool.append(("dlx", t, mk))
        elif op == "to_numpy":
            i = pick({"dlx"}, b)
            if i is not None:
                pool.append(("np", np.from_dlpack(pool[i][1]), pool[i][2]))
        elif op == "to_torch" and torch is not None:
            i = pick({"dlx"}, b)
            if i is not None:
                try:
                    pool.append(("torch", torch.from_dlpack(pool[i][1]), pool[i][2]))
                except FOREIGN_REFUSALS:
                    world.count("torch_refused")
        elif op == "to_jax" and jax is not None:
            i = pick({"dlx"}, b)
            if i is not None:
                try:
                    pool.append(("jax", jax.dlpack.from_dlpack(pool[i][1]), pool[i][2]))
                except FOREIGN_REFUSALS:
                    world.count("jax_refused")
        elif op == "view":
            i = pick({"np", "torch", "dlx"}, b)
            if i is not None:
                kind, x, mk = pool[i]
                if kind == "np":
                    v = [x.T, x[::-1], x[..., ::2]][b % 3] if x.ndim else x[()]
                    pool.append(("np", np.asarray(v), mk))
                elif kind == "torch":
                    pool.append(("torch", x.t() if x.ndim == 2 else x.flip(0) if x.ndim else x, mk))
                else:
                    # a strided view of a dlx tensor made through NumPy, then imported back zero-copy
                    arr = np.from_dlpack(x)
                    v = arr[::-1] if arr.ndim else arr
                    pool.append(("dlx", dlx.from_dlpack(v), mk))
        elif op == "mark":
            i = pick({"dlx"}, b)
            if i is not None:
                u = dlx.from_dlpack(pool[i][1])
                try:
                    u.mark_layout_dynamic()
                except ValueError:
                    pass  # several stride-1 dims: CuTe cannot deduce a leading dim either
                pool.append(("dlx", u, pool[i][2]))
        elif op == "copy":
            i = pick({"np", "dlx", "torch"}, b)
            if i is not None:
                pool.append(("dlx", dlx.from_dlpack(pool[i][1], copy=True), pool[i][2]))
        elif op == "c_export":
            i = pick({"dlx"}, b)
            if i is not None:
                if b & 2:
                    out = C.c_void_p()
                    assert FN_FROM_PY(API.managed_tensor_from_py_object_no_sync)(id(pool[i][1]), C.byref(out)) == 0
                    pool.append(("managed", Managed(out.value, pool[i][2]), pool[i][2]))
                else:
                    # a capsule taken over by a C consumer: renamed, then its pointer is the consumer's
                    cap = pool[i][1].__dlpack__(max_version=(1, 3))
                    addr = capsule_pointer(cap)
                    assert _api.PyCapsule_SetName(cap, NAME_USED_VERSIONED) == 0
                    del cap  # a used capsule's destructor does nothing
                    pool.append(("managed", Managed(addr, pool[i][2]), pool[i][2]))
        elif op == "c_to_py":
            i = pick({"managed"}, b)
            if i is not None:
                m = pool.pop(i)[1]
                out = C.c_void_p()
                assert FN_TO_PY(API.managed_tensor_to_py_object_no_sync)(m.addr, C.byref(out)) == 0
                obj = C.cast(out.value, C.py_object).value
                _api.Py_DecRef(out.value)  # the new reference is ours now, held by obj
                pool.append(("dlx", obj, m.marker))
        elif op == "c_release":
            i = pick({"managed"}, b)
            if i is not None:
                m = pool.pop(i)[1]
                mode = b % 3
                if mode == 0:
                    m.release_here()
                elif mode == 1:
                    th = threading.Thread(target=m.release_here, name="dlx-release")
                    th.start()
                    with world.lock:
                        world.release_threads.append(th)
                else:
                    world.reaper_q.put(m)
        elif op == "read":
            i = pick({"np", "dlx", "torch", "jax", "managed"}, b)
            if i is not None:
                kind, x, mk = pool[i]
                got = _read(kind, x)
                assert got is None or got == mk, f"{kind} element reads {got}, the buffer was filled with {mk}"
        elif op == "drop":
            if pool:
                kind, x, _ = pool.pop(b % len(pool))
                if kind == "managed":
                    world.reaper_q.put(x)  # a managed tensor is never just forgotten: its owner releases it
        elif op == "handoff":
            if pool:
                world.handoff.put(pool.pop(b % len(pool)))
        elif op == "take":
            try:
                pool.append(world.handoff.get_nowait())
            except queue.Empty:
                pass
        elif op == "reconsume":
            i = pick({"capsule"}, b)
            if i is not None:
                kind, cap, mk = pool.pop(i)
                t = dlx.from_dlpack(cap)
                with pytest.raises(BufferError, match="already consumed"):
                    dlx.from_dlpack(cap)
                pool.append(("dlx", t, mk))
    # What is left: managed tensors go to the reaper, the rest dies with the pool.
    for kind, x, _ in pool:
        if kind == "managed":
            world.reaper_q.put(x)
    pool.clear()


def run_world(programs):
    gc.collect()
    base_calls, base_alive = T.deleter_calls(), T.exported_alive()
    world = World()
    barrier = threading.Barrier(len(programs))

    def body(prog):
        try:
            barrier.wait()
            run_program(world, prog)
        except BaseException:  # noqa: BLE001 - reported below with its traceback
            world.errors.append(traceback.format_exc())

    threads = [threading.Thread(target=body, args=(p,), name=f"dlx-stress-{k}") for k, p in enumerate(programs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not any(th.is_alive() for th in threads), "a stress thread hung"
    assert not world.errors, "\n".join(world.errors)
    # objects handed off and never taken
    while not world.handoff.empty():
        kind, x, _ = world.handoff.get_nowait()
        if kind == "managed":
            world.reaper_q.put(x)
        del x
    for th in world.release_threads:
        th.join(timeout=60)
    world.reaper_q.put(None)
    world.reaper.join(timeout=60)
    gc.collect()
    gc.collect()
    calls = T.deleter_calls() - base_calls
    alive = T.exported_alive() - base_alive
    assert calls == world.capsules_made, f"{world.capsules_made} producer capsules, {calls} deleter calls"
    assert alive == 0, f"{alive} dlx exports left (negative: deleted twice)"
    live_numpy = sum(r() is not None for r in world.numpy_refs)
    assert live_numpy == 0, f"{live_numpy} NumPy arrays never released by their DLPack consumers"
    return world


program_st = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1 << 16), st.integers(0, 1 << 16)),
                      min_size=max(1, STEPS // 2), max_size=STEPS)

TOTALS = collections.Counter()


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(program_st, min_size=THREADS, max_size=THREADS))
def test_random_programs_on_threads(programs):
    world = run_world(programs)
    TOTALS.update(world.stats)
    TOTALS["examples"] += 1
    TOTALS["capsules_made"] += world.capsules_made


def test_stress_report():
    """Prints what the random programs did (run with -s to see it); fails if they never released without the GIL."""
    if not TOTALS:
        pytest.skip("test_random_programs_on_threads did not run first")
    line = ", ".join(f"{k} {v}" for k, v in sorted(TOTALS.items()))
    print(f"\ndlx stress ({THREADS} threads, up to {STEPS} steps): {line}")
    assert TOTALS["c_release"] > 0 and TOTALS["c_export"] > 0


def test_release_without_gil_while_others_import():
    """A fixed schedule of the riskiest pattern: C exports of tensors over NumPy, PyTorch and make_capsule
    memory released on threads without the GIL while other threads keep importing and exporting."""
    gc.collect()
    base_calls, base_alive = T.deleter_calls(), T.exported_alive()
    sources = [lambda: np.full((4, 4), 7, np.int32), lambda: T.make_capsule((4, 4), "int32")]
    if torch is not None:
        sources.append(lambda: torch.full((4, 4), 7, dtype=torch.int32))
    made = [0]
    lock = threading.Lock()
    managed = queue.Queue()
    stop = threading.Event()

    def producer():
        for k in range(300):
            src = sources[k % len(sources)]()
            if k % len(sources) == 1:
                with lock:
                    made[0] += 1
            t = dlx.from_dlpack(src)
            out = C.c_void_p()
            assert FN_FROM_PY(API.managed_tensor_from_py_object_no_sync)(id(t), C.byref(out)) == 0
            managed.put(Managed(out.value, None))
            del t, src
        managed.put(None)

    def releaser():  # never touches Python objects: only C calls that drop the GIL
        while True:
            m = managed.get()
            if m is None:
                return
            m.release_here()

    def churn():
        while not stop.is_set():
            np.from_dlpack(dlx.from_dlpack(np.arange(16, dtype=np.int32)))

    threads = [threading.Thread(target=f) for f in (producer, releaser, churn, churn)]
    for th in threads:
        th.start()
    threads[0].join(timeout=120)
    threads[1].join(timeout=120)
    stop.set()
    for th in threads[2:]:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads)
    gc.collect()
    assert T.deleter_calls() - base_calls == made[0]
    assert T.exported_alive() - base_alive == 0


# ---- interpreter exit with tensors still exported --------------------------------------------------

_PRELUDE = """
import ctypes as C, gc, sys, threading
sys.path.insert(0, {tests!r})
import numpy as np
import dlx
from dlpack_ctypes import FN_FROM_PY, exchange_api, capsule_pointer
T = dlx._testing
API = exchange_api(dlx.Tensor)
DELETER = C.CFUNCTYPE(None, C.c_void_p)
C.pythonapi.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
try:
    import torch
except Exception:
    torch = None
try:
    import jax.numpy as jnp
except Exception:
    jnp = None

def c_export(t):
    out = C.c_void_p()
    assert FN_FROM_PY(API.managed_tensor_from_py_object_no_sync)(id(t), C.byref(out)) == 0
    return out.value

def take(cap):
    addr = capsule_pointer(cap)
    assert C.pythonapi.PyCapsule_SetName(cap, b"used_dltensor_versioned") == 0
    return addr

def delete(addr):
    m = C.c_void_p.from_address(addr + 16).value  # DLManagedTensorVersioned.deleter
    DELETER(m)(addr)

def sources():
    out = [dlx.zeros((3, 4), "int32"), dlx.from_dlpack(np.arange(12, dtype=np.int32)),
           dlx.from_dlpack(T.make_capsule((5,), "int32"))]
    if torch is not None:
        out.append(dlx.from_dlpack(torch.arange(6, dtype=torch.int32)))
    if jnp is not None:
        out.append(dlx.from_dlpack(jnp.arange(6, dtype=jnp.int32)))
    return out
"""


def _run_script(body, timeout=120):
    code = textwrap.dedent(_PRELUDE.format(tests=os.path.dirname(os.path.abspath(__file__)))) + textwrap.dedent(body)
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


def _assert_clean_exit(r):
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-4000:]}"
    for bad in ("Fatal Python error", "Segmentation fault", "AddressSanitizer", "runtime error:", "Traceback"):
        assert bad not in r.stderr, r.stderr[-4000:]


def test_exit_with_exports_alive():
    """Capsules unconsumed, managed tensors handed to C and never freed, imports from every framework
    alive, and a thread releasing managed tensors without the GIL while the interpreter exits."""
    r = _run_script(
        """
        keep_tensors = sources()
        keep_caps = [t.__dlpack__(max_version=(1, 3)) for t in keep_tensors] + [keep_tensors[0].__dlpack__()]
        keep_caps += [T.make_capsule((2, 2)) for _ in range(3)]
        leaked = [c_export(t) for t in keep_tensors] + [take(t.__dlpack__(max_version=(1, 3))) for t in keep_tensors]
        keep_np = [np.from_dlpack(t) for t in keep_tensors]

        def churn():  # exports and GIL-free releases until the process ends
            # dlx, NumPy and make_capsule memory only: a daemon thread that has once touched JAX aborts
            # the process at exit ("terminate called ... exception not rethrown") with no dlx involved
            # (CPython ends such threads with pthread_exit during finalization); that is JAX's to fix
            src = [dlx.zeros((3, 4), "int32"), dlx.from_dlpack(np.arange(12, dtype=np.int32)),
                   dlx.from_dlpack(T.make_capsule((5,), "int32"))]
            while True:
                for t in src:
                    delete(c_export(t))
        for _ in range(3):
            threading.Thread(target=churn, daemon=True).start()
        print("ok", len(leaked))
        """
    )
    _assert_clean_exit(r)
    assert r.stdout.split()[0] == "ok"


def test_deleters_at_atexit_and_after_finalize():
    """dlx exports deleted from a Python atexit handler (the interpreter still runs: every producer's
    deleter runs), and from a C thread after Py_FinalizeEx has returned (dlx's deleter must not touch
    Python then: it frees its own memory and leaves the producer's to the process's exit)."""
    r = _run_script(
        """
        import atexit, weakref
        base_calls, base_alive = T.deleter_calls(), T.exported_alive()
        arr = np.arange(12, dtype=np.int32)
        arr_ref = weakref.ref(arr)
        early = [c_export(t) for t in sources()] + [take(dlx.from_dlpack(arr).__dlpack__(max_version=(1, 3)))]
        late = [c_export(t) for t in sources()] + [take(t.__dlpack__(max_version=(1, 3))) for t in sources()]
        del arr
        gc.collect()
        for addr in late:
            T.delete_after_finalize(addr)

        def at_exit():
            for addr in early:
                delete(addr)
            gc.collect()
            print("atexit", len(early), T.exported_alive() - base_alive - len(late), T.deleter_calls() - base_calls,
                  arr_ref() is None, flush=True)
        atexit.register(at_exit)
        print("late", len(late), flush=True)
        """
    )
    _assert_clean_exit(r)
    lines = dict(line.split(" ", 1) for line in r.stdout.strip().splitlines())
    n_late = int(lines["late"])
    n_early, alive, calls, np_freed = lines["atexit"].split()
    # in atexit: every early export gone, make_capsule's deleter ran once, NumPy's array freed
    assert int(alive) == 0 and int(calls) == 1 and np_freed == "True", lines
    tail = [ln for ln in r.stderr.splitlines() if ln.startswith("dlx._testing:")]
    assert tail == [f"dlx._testing: {n_late} deleter(s) ran on a C thread after finalization "
                    "(Py_IsInitialized 0, exported alive 0)"], r.stderr[-3000:]
    assert int(n_early) > 0 and n_late > 0

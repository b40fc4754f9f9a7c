"""Lifetimes: every deleter runs exactly once, when the last user dies, whichever side dies first."""

import gc
import random
import weakref

import numpy as np
import pytest

import dlx
T = dlx._testing
from dlpack_ctypes import Owner, Parsed, capsule_name


def test_producer_deleted_first_keeps_memory_alive():
    a = np.arange(1000, dtype=np.float64)
    ref = weakref.ref(a)
    addr = a.__array_interface__["data"][0]
    t = dlx.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None, "dlx must keep the producer's array alive"
    b = np.from_dlpack(t)
    assert b.__array_interface__["data"][0] == addr
    np.testing.assert_array_equal(b, np.arange(1000, dtype=np.float64))
    del t
    gc.collect()
    assert ref() is not None  # b still uses it
    del b
    gc.collect()
    assert ref() is None


def test_consumer_deleted_first(exported_alive):
    t = dlx.zeros((100,), "int32")
    a = np.from_dlpack(t)
    del a
    assert exported_alive() == 0
    a = np.from_dlpack(t)
    assert exported_alive() == 1
    a[:] = 5
    del a
    assert exported_alive() == 0
    assert np.from_dlpack(t).sum() == 500


def test_dlx_tensor_deleted_before_its_export(exported_alive):
    t = dlx.zeros((64,), "uint8")
    a = np.from_dlpack(t)
    b = np.from_dlpack(t)
    del t
    gc.collect()
    a[:] = 3  # memory still owned through the exports
    assert b.sum() == 3 * 64
    assert exported_alive() == 2
    del a
    assert exported_alive() == 1
    del b
    assert exported_alive() == 0


def test_make_capsule_deleter_runs_once_when_last_user_dies(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((8,), "int64"))
    views = [np.from_dlpack(t) for _ in range(3)]
    u = dlx.from_dlpack(views[0])
    del t
    assert deleter_calls() == 0
    del views[:2]
    assert deleter_calls() == 0
    del views
    assert deleter_calls() == 0
    del u
    assert deleter_calls() == 1


def test_unconsumed_make_capsule_runs_its_deleter_once(deleter_calls):
    caps = [T.make_capsule((2, 2)) for _ in range(7)]
    assert deleter_calls() == 0
    del caps
    assert deleter_calls() == 7


def test_gc_cycle_frees_the_tensor(deleter_calls):
    class Node:
        pass

    n = Node()
    n.self = n
    n.t = dlx.from_dlpack(T.make_capsule((16,)))
    n.view = np.from_dlpack(n.t)
    lst = [n]
    lst.append(lst)
    del n, lst
    gc.collect()
    assert deleter_calls() == 1


def test_gc_cycle_through_a_producer(producer):
    """A producer object that holds the dlx tensor made from itself: only the collector can free it."""

    class Holder:
        def __init__(self):
            self.arr = np.arange(10, dtype=np.float32)
            self.t = None

        def __dlpack__(self, **kw):
            return producer.capsule(self.arr)

        def __dlpack_device__(self):
            return (1, 0)

    h = Holder()
    h.t = dlx.from_dlpack(h)
    h.back = np.from_dlpack(h.t)
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is None
    assert producer.calls == 1 and producer.live == 0


@pytest.mark.parametrize("seed", range(5))
def test_chains_deleted_in_random_order(seed, exported_alive, deleter_calls):
    rng = random.Random(seed)
    base = np.arange(24, dtype=np.int32)
    ref = weakref.ref(base)
    objs = [base]
    for i in range(10):
        prev = objs[-1]
        objs.append(dlx.from_dlpack(prev) if i % 2 == 0 else np.from_dlpack(prev))
    objs.append(dlx.from_dlpack(T.make_capsule((3,))))
    addr = base.__array_interface__["data"][0]
    assert all((o.data_ptr if isinstance(o, dlx.Tensor) else o.__array_interface__["data"][0]) == addr
               for o in objs[:-1])
    del base, prev
    rng.shuffle(objs)
    while objs:
        objs.pop()
    gc.collect()
    assert ref() is None
    assert exported_alive() == 0
    assert deleter_calls() == 1


def test_capsule_outlives_tensor(exported_alive):
    t = dlx.zeros((4,), "float32")
    np.from_dlpack(t)[:] = 2.5
    cap = t.__dlpack__(max_version=(1, 3))
    del t
    gc.collect()
    p = Parsed(cap)
    np.testing.assert_array_equal(p.as_numpy(np.float32), [2.5] * 4)
    assert exported_alive() == 1
    del p, cap
    assert exported_alive() == 0


def test_consumer_runs_the_deleter_it_took(exported_alive):
    """Our ctypes consumer takes ownership (renames), then calls the deleter: dlx frees exactly once."""
    t = dlx.zeros((4,), "float32")
    cap = t.__dlpack__(max_version=(1, 3))
    p = Parsed(cap)
    p.consume()
    assert capsule_name(cap) == "used_dltensor_versioned"
    del cap  # the destructor of a used capsule does nothing
    assert exported_alive() == 1
    p.delete()
    assert exported_alive() == 0


def test_owner_wrapper_for_numpy(exported_alive):
    t = dlx.zeros((3,), "int8")
    a = np.from_dlpack(Owner(t.__dlpack__(max_version=(1, 3))))
    assert a.__array_interface__["data"][0] == t.data_ptr
    del t
    assert exported_alive() == 1
    del a
    assert exported_alive() == 0


def test_refused_import_releases_everything(deleter_calls):
    for kwargs in ({"version": (2, 0)}, {"device": (99, 0)}, {"null_data": True}):
        cap = T.make_capsule((4,), **kwargs)
        with pytest.raises(BufferError):
            dlx.from_dlpack(cap)
        del cap
    assert deleter_calls() == 3


def test_deleter_runs_at_interpreter_exit():
    """A capsule and a tensor alive at exit: finalisation must neither crash nor hang."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import numpy as np, dlx; T = dlx._testing
        keep_t = dlx.from_dlpack(T.make_capsule((4,)))
        keep_cap = dlx.zeros((4,)).__dlpack__(max_version=(1, 3))
        keep_np = np.from_dlpack(dlx.zeros((8,), "int32"))
        class Cycle: pass
        c = Cycle(); c.c = c; c.t = dlx.zeros((2,))
        print("ok")
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_finalization_while_daemon_threads_exchange():
    """Daemon threads still importing and exporting while the interpreter exits (edge case 8)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import threading, time, numpy as np, dlx
        T = dlx._testing
        def work():
            a = np.zeros(100, np.float32)
            while True:
                t = dlx.from_dlpack(a)
                b = np.from_dlpack(t)
                u = dlx.from_dlpack(T.make_capsule((3,)))
                c = t.__dlpack__(max_version=(1, 3))
                del t, b, u, c
        for _ in range(4):
            threading.Thread(target=work, daemon=True).start()
        keep = [np.from_dlpack(dlx.zeros((8,))) for _ in range(10)]
        keep2 = [dlx.from_dlpack(np.zeros(4)) for _ in range(10)]
        time.sleep(0.05)
        print("ok")
        """
    )
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.strip() == "ok"


def test_recycled_tensor_objects_carry_no_stale_state():
    """Tensor objects are recycled: marks, alignment, read-only and stride order must not leak into the next."""
    a = np.empty((16, 4, 8, 2), np.float32).transpose(2, 1, 0, 3)
    ro = np.zeros((4, 4), np.float32)
    ro.flags.writeable = False
    for _ in range(200):
        t = dlx.from_dlpack(a, assumed_align=4).mark_compact_shape_dynamic(mode=0, divisibility=2)
        r = dlx.from_dlpack(ro)
        s = dlx.from_dlpack(a).mark_layout_dynamic()
        del t, r, s
        u = dlx.from_dlpack(np.zeros((4, 4), np.float32).T)
        assert (u.layout, u.readonly, u.alignment) == ("(4,4):(1,4)", False, 4)
        assert u.mark_compact_shape_dynamic(mode=1, stride_order=(1, 0)).layout == "(4,?):(1,4)"

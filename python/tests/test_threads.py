"""Several threads exchanging at once: no crash, no lost or doubled deleter call."""

import gc
import queue
import threading

import numpy as np

import dlx
T = dlx._testing

N_THREADS = 8
ROUNDS = 300


def _run(target, n=N_THREADS):
    errors = []
    barrier = threading.Barrier(n)

    def wrapped(i):
        try:
            barrier.wait()
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors


def test_round_trips_in_threads(deleter_calls, exported_alive):
    def work(i):
        for r in range(ROUNDS):
            t = dlx.from_dlpack(T.make_capsule((4, r % 5 + 1), "int32"))
            a = np.from_dlpack(t)
            a[...] = i
            u = dlx.from_dlpack(a)
            assert u.data_ptr == t.data_ptr
            b = np.from_dlpack(u)
            assert int(b.sum()) == i * a.size
            cap = u.__dlpack__(max_version=(1, 3))
            if r % 2:
                del cap  # dropped unconsumed
            else:
                dlx.from_dlpack(cap)

    _run(work)
    assert deleter_calls() == N_THREADS * ROUNDS
    assert exported_alive() == 0


def test_numpy_round_trips_in_threads(exported_alive):
    arrays = [np.full((32, 8), i, dtype=np.float64) for i in range(N_THREADS)]

    def work(i):
        a = arrays[i]
        addr = a.__array_interface__["data"][0]
        for _ in range(ROUNDS):
            t = dlx.from_dlpack(a[::2, 1:])
            assert t.data_ptr == addr + 8
            back = np.from_dlpack(t)
            assert back[0, 0] == i
            assert np.shares_memory(back, a)

    _run(work)
    assert exported_alive() == 0


def test_deleters_run_on_other_threads(deleter_calls, exported_alive):
    """Tensors made on one thread and dropped on another (the deleter runs on whichever thread frees)."""
    q = queue.Queue()
    total = N_THREADS // 2 * ROUNDS

    def work(i):
        if i % 2 == 0:
            for _ in range(ROUNDS):
                t = dlx.from_dlpack(T.make_capsule((3,), "float32"))
                q.put((t, np.from_dlpack(t), dlx.zeros((2,)).__dlpack__(max_version=(1, 3))))
            q.put(None)
        else:
            while True:
                item = q.get()
                if item is None:
                    break
                del item

    _run(work)
    while not q.empty():
        q.get()
    gc.collect()
    assert deleter_calls() == total
    assert exported_alive() == 0


def test_shared_tensor_exported_from_many_threads(exported_alive):
    t = dlx.zeros((1024,), "int64")

    def work(i):
        for _ in range(ROUNDS):
            a = np.from_dlpack(t)
            assert a.__array_interface__["data"][0] == t.data_ptr
            u = dlx.from_dlpack(t)
            assert u.data_ptr == t.data_ptr
            a[i] += 1

    _run(work)
    assert exported_alive() == 0
    assert list(np.from_dlpack(t)[:N_THREADS]) == [ROUNDS] * N_THREADS


def test_layout_marking_in_threads():
    def work(i):
        for r in range(ROUNDS // 3):
            a = np.empty((16, 4, 8, 2), np.float32).transpose(2, 1, 0, 3)
            t = dlx.from_dlpack(a).mark_compact_shape_dynamic(mode=1, divisibility=2)
            assert t.layout == "(8,?{div=2},16,2):(2,16,?{div=32},1)"
            try:
                dlx.from_dlpack(a).mark_layout_dynamic(leading_dim=1)
            except ValueError as e:
                assert "but got 16" in str(e)  # error messages are per thread
            else:
                raise AssertionError("no error")

    _run(work)

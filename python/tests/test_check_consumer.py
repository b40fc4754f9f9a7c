"""`dlx check consumer`: every check fails on a consumer broken in its way, and on no other; dlx's own
from_dlpack passes them all, including the three rules issue 22 added to it (the destructor cleared once
consumed, __dlpack_device__ held to the capsule, CPU device_id 1 imported as 0)."""

import pytest

import dlx
from dlx import check
from dlx.check import _capsule as cap
from dlx.check import rules

import check_peers_broken as B

CONSUMER_IDS = {c.id for c in rules.checks("consumer")}


def failed(fw):
    rec = check.run("consumer", fw)
    return set(rec.failed()), rec


def _explain(rec):
    return "\n".join(f"{r['id']}: {r['result']} {r['reason']}" for r in rec.results() if r["result"] == "fail")


def test_dlx_passes_every_consumer_check():
    fails, rec = failed("dlx")
    assert not fails, _explain(rec)
    assert {r["id"] for r in rec.results() if r["result"] == "pass"} == CONSUMER_IDS


def test_the_harnesses_pass_every_check():
    for fn in (B.through_dlx(), B.PyConsumer()):
        fails, rec = failed(B.BrokenConsumer(fn))
        assert not fails, _explain(rec)


@pytest.mark.parametrize("index", range(len(B.CONSUMER_DEFECTS)), ids=[c for _, c in B.CONSUMER_DEFECTS])
def test_each_defect_fails_exactly_its_check(index):
    # in the checker's worker process, as `python -m dlx check consumer check_peers_broken:consumer_defect_N`
    check_id = B.CONSUMER_DEFECTS[index][1]
    fails, rec = failed(f"check_peers_broken:consumer_defect_{index}")
    assert fails == {check_id}, f"expected only {check_id} to fail\n{_explain(rec)}"


def test_every_consumer_check_is_proven_able_to_fail():
    assert {c for _, c in B.CONSUMER_DEFECTS} == CONSUMER_IDS


# ---- dlx's own consumer: the three fixes of issue 22, item 7, one by one ----------------------------------


def test_dlx_clears_the_capsule_destructor_once_consumed():
    buf = cap.HostBuffer(64)
    e = cap.Export(buf, (4,), "float32", sloppy=True)  # its destructor ignores used_
    t = dlx.from_dlpack(e)
    c = e.capsules.pop()
    assert cap.capsule_name(c) == "used_dltensor_versioned"
    assert cap._api.PyCapsule_GetDestructor(c) is None
    del c, t
    import gc

    gc.collect()
    assert e.deletions == 1


def test_dlx_refuses_a_capsule_on_another_device_than_dlpack_device_says():
    buf = cap.HostBuffer(64)
    e = cap.Export(buf, (4,), "float32", device=(cap.KDL_CUDA_HOST, 0), reported=(cap.KDL_CPU, 0))
    with pytest.raises(BufferError, match=r"capsule's device \(3, 0\) is not the device \(1, 0\) that "
                                          r"__dlpack_device__\(\) returned"):
        dlx.from_dlpack(e)
    e.capsules.clear()
    import gc

    gc.collect()
    assert e.deletions == 1  # refused before the rename: the capsule's destructor deleted it


def test_dlx_dlpack_device_errors():
    t = dlx.zeros((2,))

    class Odd:
        def __init__(self, dev):
            self.dev = dev

        def __dlpack__(self, **kw):
            return t.__dlpack__(**kw)

        def __dlpack_device__(self):
            if isinstance(self.dev, Exception):
                raise self.dev
            return self.dev

    for bad in ("cpu", (1,), (1, "0"), (1.0, 0), (-1, 0), (1, 2**40)):
        with pytest.raises(TypeError, match="__dlpack_device__\\(\\) of 'Odd' returned"):
            dlx.from_dlpack(Odd(bad))
    with pytest.raises(KeyError):
        dlx.from_dlpack(Odd(KeyError("raised inside")))
    # an IntEnum device type is an int
    import enum

    class DL(enum.IntEnum):
        kDLCPU = 1

    assert dlx.from_dlpack(Odd((DL.kDLCPU, 0))).device == (1, 0)

    class NoDevice:  # an old producer: nothing to compare
        def __dlpack__(self, **kw):
            return t.__dlpack__(**kw)

    assert dlx.from_dlpack(NoDevice()).shape == (2,)


@pytest.mark.parametrize("device_type", [cap.KDL_CPU, cap.KDL_CUDA_HOST, cap.KDL_ROCM_HOST])
def test_dlx_imports_host_memory_with_a_device_id_as_id_0(device_type):
    buf = cap.HostBuffer(64)
    buf.write(cap.pattern("float32", 4))
    e = cap.Export(buf, (4,), "float32", device=(device_type, 1), reported=(device_type, 1))
    t = dlx.from_dlpack(e)
    assert t.device == (device_type, 0) and t.__dlpack_device__() == (device_type, 0)
    assert t.data_ptr == buf.address
    # a raw capsule too, and the id the producer's __dlpack_device__ gives may be 0 or the capsule's
    e2 = cap.Export(buf, (4,), "float32", device=(device_type, 3), reported=(device_type, 0))
    assert dlx.from_dlpack(e2).device == (device_type, 0)
    assert dlx.from_dlpack(e2.__dlpack__(max_version=(1, 3))).device == (device_type, 0)

"""`dlx check producer`: every check fails on a producer broken in its way, and on no other; dlx itself
passes them all (python -m dlx check producer dlx)."""

import pytest

import dlx
from dlx import check
from dlx.check import rules

import check_peers_broken as B

PRODUCER_IDS = {c.id for c in rules.checks("producer")}


def failed(fw):
    rec = check.run("producer", fw)
    return set(rec.failed()), rec


def _explain(rec):
    return "\n".join(f"{r['id']}: {r['result']} {r['reason']}" for r in rec.results() if r["result"] == "fail")


def test_dlx_passes_every_producer_check():
    fails, rec = failed("dlx")
    assert not fails, _explain(rec)
    # and most checks had something to check on the host (the device ones are n/a here)
    passed = {r["id"] for r in rec.results() if r["result"] == "pass"}
    assert passed >= PRODUCER_IDS - {"p-dl-device-cpu", "p-stream-cuda", "p-stream-order"}


def test_the_wrapped_dlx_producer_passes_every_check():
    # the harness of the broken producers, without a defect, is a conforming producer
    fails, rec = failed(B.BrokenProducer(B.good))
    assert not fails, _explain(rec)
    fails, rec = failed(B.BrokenProducer(B.good, wrapper=B.AgreeingTableWrapper))
    assert not fails, _explain(rec)


@pytest.mark.parametrize("index", range(len(B.PRODUCER_DEFECTS)),
                         ids=[f"{c}:{d.__name__}" for d, c, _ in B.PRODUCER_DEFECTS])
def test_each_defect_fails_exactly_its_check(index):
    # in the checker's worker process, as `python -m dlx check producer check_peers_broken:producer_defect_N`
    defect, check_id, _ = B.PRODUCER_DEFECTS[index]
    fails, rec = failed(f"check_peers_broken:producer_defect_{index}")
    assert fails == {check_id}, f"{defect.__doc__}: expected only {check_id} to fail\n{_explain(rec)}"


def test_unresolved_values_fail_p_values():
    # a view whose values are not its memory's (PyTorch's negative bit), exported unresolved
    fails, rec = failed(B.NegProducer(B.neg_values))
    assert fails == {"p-values"}, _explain(rec)


def test_dlpack_device_disagreeing_fails_p_device():
    fails, rec = failed(B.DisagreeingDevice(B.good))
    assert fails == {"p-device"}, _explain(rec)


def test_cuda_stream_rules_on_a_fake_cuda_producer():
    # host memory labelled kDLCUDA: the stream values are checked without a GPU
    fails, rec = failed(B.FakeCuda())
    assert not fails, _explain(rec)
    res = {r["id"]: r for r in rec.results()}
    assert res["p-stream-cuda"]["result"] == "pass" and res["p-dl-device-cpu"]["result"] == "pass"
    fails, rec = failed(B.FakeCuda(accept_stream_0=True))
    assert fails == {"p-stream-cuda"}, _explain(rec)


def test_every_producer_check_is_proven_able_to_fail():
    shown = {c for _, c, _ in B.PRODUCER_DEFECTS} | {"p-values", "p-device", "p-stream-cuda"}
    shown |= {"p-keywords"}  # the old-style producer of test_check_isolation.py
    # p-dl-device-cpu and p-stream-order need device memory: test_check_devices.py; the 256-byte alignment is
    # advice, which never fails
    assert PRODUCER_IDS - shown == {"p-dl-device-cpu", "p-stream-order", "p-aligned-256"}


def test_a_leaking_destructor_is_reported_and_not_freed_twice():
    def never(d):
        def destructor(cap_addr):
            pass  # the tensor leaks

        return destructor

    fails, rec = failed(B.BrokenProducer(B._with_destructor(never)))
    assert fails == {"p-deleter-dropped"}
    r = {x["id"]: x for x in rec.results()}["p-deleter-dropped"]
    assert "never released" in r["reason"] and "after the capsule was dropped" in r["reason"], r


def test_a_producer_that_raises_on_everything():
    class Refuser(B.Wrapper):
        def __dlpack__(self, **kw):
            raise RuntimeError("no")

    fails, rec = failed(B.BrokenProducer(B.good, wrapper=Refuser))
    assert {"p-capsule-versioned", "p-refusal-buffererror"} <= fails


def test_generic_module_function_target(tmp_path, monkeypatch):
    # module:function makes arrays from (shape, dtype, device); dlx's own asarray behind it
    (tmp_path / "mkarr.py").write_text(
        "import dlx\n"
        "def make(shape, dtype, device):\n"
        "    n = 1\n"
        "    for e in shape: n *= e\n"
        "    vals = [(i % 7) + 1 for i in range(n)]\n"
        "    if dtype == 'bool': vals = [v % 2 == 1 for v in vals]\n"
        "    return dlx.asarray(vals, dtype=dtype).reshape(shape) if n else dlx.zeros(shape, dtype)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rec = check.run("producer", "mkarr:make")
    assert not rec.failed(), _explain(rec)
    res = {r["id"]: r for r in rec.results()}
    # a dlx tensor has no __array_interface__: what needs the producer's own view is n/a, and says so
    assert res["p-address"]["result"] == "n/a" and "data pointer" in res["p-address"]["reason"]
    assert res["p-values"]["result"] == "pass"  # the views, from the model of each view and the base


def test_unknown_targets():
    with pytest.raises(check.Unavailable, match="neither a known framework"):
        check.run("producer", "nosuchthing")
    with pytest.raises(check.Unavailable, match="cannot be imported"):
        check.run("producer", "no_such_module_dlx:make")
    with pytest.raises(check.Unavailable, match="not a callable"):
        check.run("producer", "dlx:no_such_function")
    with pytest.raises(ValueError, match="side must be"):
        check.run("sideways", "dlx")

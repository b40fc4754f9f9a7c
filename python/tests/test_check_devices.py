"""`dlx check` on device memory: SYCL USM through dlx.oneapi (dpctl's CPU runtime, two devices) and CUDA
(skipped without a GPU, saying so). The checks only device memory can fail are proven here: a producer
that refuses dl_device=(kDLCPU, 0) fails p-dl-device-cpu, and one that ignores the consumer's stream
fails p-stream-order."""

import pytest
from peers import need

import dlx
from dlx import check
from dlx.check import _capsule as cap

import check_peers_broken as B


def _oneapi_devices():
    import os

    if not os.environ.get("OCL_ICD_VENDORS"):
        pytest.skip("OCL_ICD_VENDORS is not set: no SYCL device (source scripts/oneapi_env.sh)")
    try:
        n = dlx.oneapi.device_count()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"dlx cannot load dpctl's C API: {type(e).__name__}: {e}")
    if n == 0:
        pytest.skip("dpctl finds no SYCL device")
    return n


class OneapiProducer(B.BrokenProducer):
    """dlx tensors in device USM on oneapi:0, behind a defect."""

    def __init__(self, defect):
        super().__init__(defect, name="oneapi", device=(cap.KDL_ONEAPI, 0))

    def make(self, shape, dtype, dev):
        return self._wrap(B.F.Dlx.make(self, shape, dtype, dev))

    def make_readonly(self, x):
        return None

    def dtypes(self, dev):
        return ["float32", "int16"]


def to_cpu_refused(w, kw):
    """refuses dl_device=(kDLCPU, 0)"""
    if kw["dl_device"] == (cap.KDL_CPU, 0):
        raise BufferError("no copies to the host here")
    return w.t.__dlpack__(**kw)


def test_dlx_on_sycl_devices_passes_both_sides():
    n = _oneapi_devices()
    for side in ("producer", "consumer"):
        rec = check.run(side, "dlx", devices=["oneapi"])
        assert not rec.failed(), rec.failed()
    rec = check.run("producer", "dlx", devices=["oneapi"])
    res = {r["id"]: r for r in rec.results()}
    assert res["p-dl-device-cpu"]["result"] == "pass" and res["p-values"]["result"] == "pass"
    assert res["p-copy-false"]["cases"]["pass"] == n * n  # from each device: to the host and each other one


def test_a_device_producer_refusing_the_host_fails_p_dl_device_cpu():
    _oneapi_devices()
    assert not check.run("producer", OneapiProducer(B.good)).failed()
    assert set(check.run("producer", OneapiProducer(to_cpu_refused)).failed()) == {"p-dl-device-cpu"}


def test_dpctl_both_ways_on_its_two_devices():
    need("dpctl.tensor")
    n = _oneapi_devices()
    rec = check.run("consumer", "dpctl", devices=["oneapi"])
    res = {r["id"]: r for r in rec.results()}
    assert res["c-values"]["cases"]["pass"] >= 2 * n  # values and dtype, per dtype, on every device


# ---- CUDA: written for a GPU machine, skipped (with the reason) without one


def _cuda_or_skip():
    if not dlx.cuda.is_available():
        why = "dlx was built without CUDA" if not dlx.cuda.is_built() else "no CUDA device"
        pytest.skip(f"{why}: the CUDA checks need a GPU")


@pytest.mark.parametrize("peer", ["torch", "cupy", "jax", "dlx"])
def test_gpu_peers(peer):
    _cuda_or_skip()
    if peer != "dlx":
        need(peer)
    try:
        rec = check.run("producer", peer, devices=["cuda"])
    except check.Unavailable as e:
        pytest.skip(str(e))
    res = {r["id"]: r for r in rec.results()}
    assert res["p-stream-cuda"]["result"] != "n/a", res["p-stream-cuda"]
    if peer in ("torch", "cupy"):
        assert res["p-stream-order"]["result"] == "pass", res["p-stream-order"]


def test_a_producer_ignoring_the_stream_fails_p_stream_order():
    _cuda_or_skip()
    torch = need("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    fw = check.frameworks.Torch()

    class NoOrder(check.frameworks.Torch):
        def pending(self, shape, dtype, dev):
            made = fw.pending(shape, dtype, dev)
            return None if made is None else (_IgnoresStream(made[0]), made[1])

        def devices(self):
            return [d for d in fw.devices() if d[0] == cap.KDL_CUDA]

    rec = check.run("producer", NoOrder())
    assert "p-stream-order" in rec.failed()


class _IgnoresStream:
    """A CUDA tensor whose __dlpack__ never orders the consumer's stream (stream=-1 to torch)."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, stream=None, **kw):
        return self.x.__dlpack__(stream=-1, **kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

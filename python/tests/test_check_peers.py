"""`dlx check` against the real peers, both ways: each fails exactly the checks dlx.check.known lists for
it (with the version they were seen in), and dlx none. docs/conformance.md is the same matrix, written
by scripts/gen_conformance.py (its --check runs in scripts/test_python.sh)."""

import pytest
from peers import need

from dlx import check
from dlx.check import known
from dlx.check.adapters import spec

PEERS = ["numpy", "torch", "jax", "dpctl"]
# the heavy peers, checked through their adapters where installed (scripts/conformance_all.sh's venv); CI's
# venv lacks them, and their tests skip saying so: docs/conformance.md keeps their recorded results
ADAPTED = {"tensorflow": "tensorflow", "paddle": "paddle", "mlx": "mlx.core", "tvm_ffi": "tvm_ffi",
           "array_api_strict": "array_api_strict", "pyarrow": "pyarrow", "warp": "warp", "ndonnx": "ndonnx"}
NOT_HERE = "not compared here: scripts/conformance_all.sh installs it and checks it for docs/conformance.md"


def _explain(rec):
    return "\n".join(f"{r['id']}: {r['result']} {r['reason']}" for r in rec.results() if r["result"] == "fail")


@pytest.mark.parametrize("side", ["producer", "consumer"])
@pytest.mark.parametrize("peer", PEERS)
def test_peer_fails_exactly_its_known_checks(peer, side):
    need("dpctl.tensor" if peer == "dpctl" else peer)
    try:
        rec = check.run(side, peer, devices=["cpu", "oneapi"])
    except check.Unavailable as e:
        pytest.skip(str(e))
    want = set(known.failures(peer, side))
    assert set(rec.failed()) == want, (f"{peer} {rec.version} {side}: the failures differ from "
                                       f"dlx.check.known\n{_explain(rec)}")


@pytest.mark.parametrize("side", ["producer", "consumer"])
@pytest.mark.parametrize("peer", sorted(ADAPTED))
def test_adapted_peer_fails_exactly_its_known_checks(peer, side):
    need(ADAPTED[peer], NOT_HERE)
    # a framework restarted after a crash replays its set-up first: TensorFlow and Paddle need more than 30 s
    rec = check.run(side, spec(peer), devices=["cpu"], timeout=120)
    want = set(known.failures(peer, side))
    assert set(rec.failed()) == want, (f"{peer} {rec.version} {side}: the failures differ from "
                                       f"dlx.check.known\n{_explain(rec)}")


def test_known_entries_are_complete():
    # every entry explains itself, names a check of its side, and a bug comes with its reproducer
    ids = {(c.side, c.id) for c in check.rules.CHECKS}
    for k in known.KNOWN:
        assert (k.side, k.check) in ids, k
        assert k.version and len(k.why) > 30, k
        assert not k.bug or "print(" in k.repro or "# " in k.repro, k

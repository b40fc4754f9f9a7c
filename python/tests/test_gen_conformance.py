"""scripts/gen_conformance.py --check's tolerance: what it compares with docs/conformance.md and what it does not
(the words of a failure, the verdicts of advice-level checks, a verdict that flips once and not on a rerun)."""
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _gc():
    spec = importlib.util.spec_from_file_location("gen_conformance", os.path.join(ROOT, "scripts", "gen_conformance.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _side(**results):
    return {"version": "1", "failed": [c for c, v in results.items() if v[0] == "fail"], "results": results}


def test_a_verdict_that_flips_once_is_rerun_and_reported(monkeypatch):
    gc = _gc()
    doc = {"numpy": {"producer": _side(a=["pass", ""], b=["fail", "x"])}}
    now = {"numpy": {"producer": _side(a=["n/a", ""], b=["fail", "x"])}}
    calls = []

    def rerun(peer, side):
        calls.append((peer, side))
        return _side(a=["pass", ""], b=["fail", "x"]), None

    monkeypatch.setattr(gc, "run_peer", rerun)
    notes = gc.rerun_differing(now, doc, set())
    assert calls == [("numpy", "producer")]
    assert len(notes) == 1 and "a differed" in notes[0]
    assert now["numpy"]["producer"]["results"]["a"] == ["pass", ""]


def test_a_real_change_stays_after_the_rerun(monkeypatch):
    gc = _gc()
    doc = {"numpy": {"producer": _side(a=["pass", ""])}}
    now = {"numpy": {"producer": _side(a=["fail", "broken"])}}
    monkeypatch.setattr(gc, "run_peer", lambda peer, side: (_side(a=["fail", "broken"]), None))
    assert gc.rerun_differing(now, doc, set()) == []
    assert now["numpy"]["producer"]["results"]["a"] == ["fail", "broken"]
    assert gc.keep_doc_reasons(now, doc, set()) == []  # a changed verdict keeps this run's data: the doc differs


def test_words_of_a_failure_and_advice_verdicts_are_not_compared():
    gc = _gc()
    doc = {"jax": {"consumer": _side(a=["fail", "crashed; its last words: x"], adv=["pass", ""])}}
    now = {"jax": {"consumer": _side(a=["fail", "crashed; its last words: y"], adv=["n/a", ""])}}
    notes = gc.keep_doc_reasons(now, doc, {"adv"})
    assert now["jax"]["consumer"]["results"] == doc["jax"]["consumer"]["results"]
    assert any("adv (advice)" in n for n in notes) and any("reason now" in n for n in notes)


def test_the_advice_ids_come_from_the_rules():
    from dlx.check import rules

    assert "p-aligned-256" in {r.id for r in rules.CHECKS if r.level == "advice"}

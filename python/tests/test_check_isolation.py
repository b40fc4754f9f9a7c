"""`dlx check` against code that would take a checker down with it (issue 27): producers and consumers that
segfault, abort, hang, raise for everything, hand over a mislabelled capsule, leak behind a NULL deleter,
drop READ_ONLY, take only `stream`, or set argtypes on ctypes.pythonapi. Every case runs in the checker's
worker process (dlx.check.isolate): each of these fails exactly its check, and the report is whole.

The targets are in check_hostile.py, named as a user names them ("check_hostile:segv"); one worker
serves the runs of this file between crashes, so that process starts stay few."""

import json
import os
import subprocess
import sys

import pytest

from dlx import check
from dlx.check import rules

HERE = os.path.dirname(os.path.abspath(__file__))


def _res(rec, check_id):
    return next(r for r in rec.results() if r["id"] == check_id)


def _explain(rec):
    return "\n".join(f"{r['id']}: {r['result']} {r['reason']}" for r in rec.results() if r["result"] == "fail")


def _musts(rec):
    return {r["id"] for r in rec.results() if r["result"] == "fail" and r["level"] == "must"}


@pytest.mark.parametrize("target,signal", [("segv", "SIGSEGV"), ("abort", "SIGABRT")])
def test_a_crashing_producer_fails_the_running_check_and_the_rest_runs(target, signal):
    rec = check.run("producer", f"check_hostile:{target}")
    assert set(rec.failed()) == {"p-capsule-versioned"}, _explain(rec)
    r = _res(rec, "p-capsule-versioned")
    assert signal in r["reason"] and "int16" in r["reason"], r
    # the cases after the crash ran in a new worker
    assert _res(rec, "p-unknown-keyword")["result"] == "pass"
    assert _res(rec, "p-values")["cases"]["pass"] > 10


def test_a_hanging_producer_fails_no_answer():
    rec = check.run("producer", "check_hostile:hang", timeout=3)
    assert set(rec.failed()) == {"p-capsule-versioned"}, _explain(rec)
    assert "no answer in 3 s" in _res(rec, "p-capsule-versioned")["reason"]
    assert _res(rec, "p-stream-cpu")["result"] == "pass"


@pytest.mark.parametrize("target,signal", [("consumer_segv", "SIGSEGV"), ("consumer_abort", "SIGABRT")])
def test_a_crashing_consumer_fails_the_running_check(target, signal):
    rec = check.run("consumer", f"check_hostile:{target}")
    assert set(rec.failed()) == {"c-values"} | _dlx_legacy_writable(rec), _explain(rec)
    assert signal in _res(rec, "c-values")["reason"]
    assert _res(rec, "c-null-shape")["result"] == "pass"


def test_a_hanging_consumer_fails_no_answer():
    rec = check.run("consumer", "check_hostile:consumer_hang", timeout=3)
    assert set(rec.failed()) == {"c-values"} | _dlx_legacy_writable(rec), _explain(rec)
    assert "no answer in 3 s" in _res(rec, "c-values")["reason"]


def _dlx_legacy_writable(rec):
    """dlx.from_dlpack (behind these consumers) imports legacy capsules read-only: nothing else fails."""
    return set()


def test_a_mislabelled_capsule_gives_a_report_not_a_dead_checker():
    rec = check.run("producer", "check_hostile:mislabelled")
    fails = set(rec.failed())
    assert fails and fails <= {"p-capsule-versioned", "p-shape", "p-dtype", "p-version", "p-device",
                               "p-device-id", "p-aligned", "p-capsule-legacy"}, _explain(rec)
    assert all("int16" in f["case"] for r in rec.as_json()["checks"] for f in r["failures"]), _explain(rec)
    assert _res(rec, "p-values")["result"] == "pass"


def test_an_old_style_producer_has_no_must_failure():
    rec = check.run("producer", "check_hostile:old_style")
    assert set(rec.failed()) == {"p-keywords"}, _explain(rec)
    assert _res(rec, "p-capsule-legacy")["result"] == "pass"
    assert "old-style" in _res(rec, "p-keywords")["reason"]


def test_the_ctypes_clash_leaves_the_checker_working():
    # check_hostile sets argtypes on ctypes.pythonapi's capsule functions at import, as warp-lang does
    rec = check.run("producer", "check_hostile:good")
    assert not rec.failed(), _explain(rec)
    rec = check.run("consumer", "check_hostile:consumer_segv")
    assert _res(rec, "c-rename")["result"] == "pass"


def test_exports_never_released_fail_p_deleter_dropped():
    rec = check.run("producer", "check_hostile:leaky")
    assert set(rec.failed()) == {"p-deleter-dropped"}, _explain(rec)
    r = _res(rec, "p-deleter-dropped")
    assert "never released" in r["reason"] and "NULL" in r["reason"], r
    assert any("NULL deleter" in n for n in rec.notes)


def test_a_function_taking_readonly_is_asked_for_a_read_only_array():
    rec = check.run("producer", "check_hostile:drops_read_only")
    assert set(rec.failed()) == {"p-flag-read-only"}, _explain(rec)


# ---- the command line: exit status and JSON, whatever happens


def _cli(*args, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in sys.path if p])
    return subprocess.run([sys.executable, "-m", "dlx", "check", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_cli_a_crash_is_a_whole_json_report_exit_1():
    r = _cli("producer", "check_hostile:segv", "--json")
    assert r.returncode == 1, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["failed"] == ["p-capsule-versioned"] and out["status"] == 1
    assert {c["id"] for c in out["checks"]} == {c.id for c in rules.checks("producer")}
    row = next(c for c in out["checks"] if c["id"] == "p-capsule-versioned")
    assert len(row["failures"]) == row["cases"]["fail"] == 1 and "SIGSEGV" in row["failures"][0]["reason"]


@pytest.mark.parametrize("target", ["raise_all", "none_all"])
def test_cli_nothing_checked_exits_3_with_the_reason(target):
    r = _cli("producer", f"check_hostile:{target}", "--json")
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["status"] == 3 and "nothing could be checked" in out["error"]
    assert "nothing could be checked" in r.stderr


def test_cli_usage_errors_print_json_too():
    r = _cli("producer", "--json")
    assert r.returncode == 2 and json.loads(r.stdout)["error"].startswith("give a side")
    r = _cli("producer", "no_such_module_dlx:make", "--json")
    assert r.returncode == 2 and "cannot be imported" in json.loads(r.stdout)["error"]
    r = _cli("sideways", "dlx", "--json")
    assert r.returncode == 2 and "invalid choice" in json.loads(r.stdout)["error"]
    r = _cli("producer", "numpy", "--device", "cuda", "--json")
    assert r.returncode == 3 and "has no producer device" in json.loads(r.stdout)["error"]


def test_an_adapter_says_what_array_interface_would():
    rec = check.run("producer", "check_hostile:DlxAdapter")
    assert not rec.failed(), _explain(rec)
    assert rec.target == "dlx-adapter" and rec.version == "1.0"
    for cid in ("p-address", "p-strides", "p-values", "p-flag-read-only", "p-copy-true"):
        assert _res(rec, cid)["result"] == "pass", _res(rec, cid)
    rec = check.run("consumer", "check_hostile:DlxAdapter")
    assert not rec.failed(), _explain(rec)
    # dtypes named "paddle.int16" compare through their names; the refused bfloat16 is n/a, not a failure
    assert _res(rec, "c-values")["cases"]["pass"] >= 6 and _res(rec, "c-values")["cases"]["n/a"] == 1


def test_an_adapter_hook_that_raises_is_named_in_a_note():
    rec = check.run("producer", "check_hostile:BuggyAdapter")
    assert not rec.failed(), _explain(rec)
    notes = [n for n in rec.notes if "raised" in n]
    assert any("values() raised KeyError" in n and "adapter bug in values" in n for n in notes), rec.notes
    assert any("strides() raised ZeroDivisionError" in n for n in notes), rec.notes
    assert len(notes) == 2, notes  # once per hook, not once per case
    # unknown strides are n/a; the values still come from the model of each view over the base's values
    assert _res(rec, "p-strides")["result"] == "n/a"
    assert _res(rec, "p-address")["result"] == "pass"


def test_cli_a_target_that_crashes_while_loading(tmp_path):
    (tmp_path / "dlx_crash_at_import.py").write_text("import ctypes\nctypes.string_at(0)\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), HERE] + [p for p in sys.path if p])
    r = subprocess.run([sys.executable, "-m", "dlx", "check", "producer", "dlx_crash_at_import:make", "--json"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    assert "SIGSEGV" in json.loads(r.stdout)["error"]

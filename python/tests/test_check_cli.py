"""`python -m dlx check`: the command line (table, --json, --list, --device, exit status), and `python -m
dlx` without arguments still being the interoperability matrix."""

import json
import os
import subprocess
import sys

from dlx.check import rules


def run(*args, timeout=300):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "dlx", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def test_list_prints_every_check_with_rule_and_clause():
    r = run("check", "--list")
    assert r.returncode == 0, r.stderr
    for c in rules.CHECKS:
        assert c.id in r.stdout and c.rule in r.stdout and c.clause in r.stdout
    r = run("check", "--list", "consumer")
    assert "c-rename" in r.stdout and "p-shape" not in r.stdout


def test_dlx_passes_and_exits_0():
    r = run("check", "producer", "dlx", "--device", "cpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p-deleter-dropped" in r.stdout and " pass " in r.stdout and "FAIL" not in r.stdout
    assert " 0 fail, " in r.stdout.rstrip().splitlines()[-1]


def test_failures_exit_1_and_json_lists_them():
    # NumPy's consumer leaves the destructor of a consumed capsule in place (a known failure)
    r = run("check", "consumer", "numpy", "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["side"] == "consumer" and out["target"] == "numpy" and out["version"]
    assert "c-destructor-cleared" in out["failed"] and "c-destructor-cleared" in out["known"]
    row = next(c for c in out["checks"] if c["id"] == "c-destructor-cleared")
    assert row["result"] == "fail" and "ran 2 time(s)" in row["reason"] and row["cases"]["fail"] >= 1
    assert {c["id"] for c in out["checks"]} == {c.id for c in rules.checks("consumer")}
    r = run("check", "consumer", "numpy")
    assert r.returncode == 1 and "FAIL  [known]" in r.stdout


def test_usage_errors_exit_2_and_nothing_to_check_3():
    r = run("check", "producer", "no_such_module_dlx:make")
    assert r.returncode == 2 and "cannot be imported" in r.stderr
    r = run("check", "producer")
    assert r.returncode == 2 and "give a side and a target" in r.stderr
    r = run("check", "sideways", "dlx")
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = run("check", "producer", "dlx", "--device", "moon")
    assert r.returncode == 2
    r = run("check", "producer", "numpy", "--device", "cuda")  # loads, but has nothing to check here
    assert r.returncode == 3 and "has no producer device of the kind(s) cuda" in r.stderr


def test_python_m_dlx_without_arguments_is_still_the_matrix():
    r = run(timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("dlx interoperability matrix")

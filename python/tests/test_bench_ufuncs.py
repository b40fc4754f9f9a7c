"""bench/bench_ufuncs.py --quick, the smoke run CI gets: it runs, and it benchmarks every row of the op
table (a row added to src/kernels/op_table.h lands in the benchmark without touching it). Timings are
not checked: at 64 x 64 they mean nothing."""

import os
import pathlib
import subprocess
import sys

import pytest

import dlx

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "bench_ufuncs.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))


@pytest.mark.skipif(not SCRIPT.exists(), reason="bench/ is not part of this tree (an installed wheel)")
def test_quick_run_covers_every_row_of_the_op_table():
    r = run("--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if line.startswith("  ") and len(line.split()) > 3]
    timed = {(cells[0], cells[2]) for cells in rows if cells[2] in ("contiguous", "transposed")}
    for name, _, _ in dlx._dlx._op_table:
        assert (name, "contiguous") in timed and (name, "transposed") in timed, name
    assert "NumPy or dlx takes neither" not in r.stdout


@pytest.mark.skipif(not SCRIPT.exists(), reason="bench/ is not part of this tree (an installed wheel)")
def test_unknown_op_is_refused_by_name():
    r = run("--quick", "--ops", "add,no_such_op")
    assert r.returncode != 0
    assert "no_such_op" in r.stderr and "op table" in r.stderr

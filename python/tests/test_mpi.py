"""dlx.mpi over real MPI processes: mpirun -n 2 and -n 4 of python/tests/mpi_worker.py.

Each world size is one mpirun launch doing every check (mpi_worker.py); the tests here read its results,
one test per dtype and per topic, so a failure names what failed and on which rank. Every reduction is
compared bit for bit with a reduction computed locally with dlx. Skipped, with the reason, when mpi4py or
mpirun is missing (install: apt-get install libopenmpi-dev openmpi-bin; pip install mpi4py).
"""

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

import mpi_worker as W

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 300


@functools.lru_cache(maxsize=None)
def _why_missing():
    """None when mpi4py loads its MPI library and mpirun is on PATH, else the reason to skip."""
    if importlib.util.find_spec("mpi4py") is None:
        why = "mpi4py is not installed"
        try:  # scripts/venv.sh records why pip could not install it
            with open(os.path.join(sys.prefix, "dlx-peers-missing.txt")) as f:
                for line in f:
                    mod, _, reason = line.rstrip("\n").partition("\t")
                    if mod == "mpi4py":
                        why = reason
        except OSError:
            pass
        return f"{why} (pip install mpi4py; it needs an MPI: apt-get install libopenmpi-dev openmpi-bin)"
    if shutil.which("mpirun") is None:
        return "mpirun is not on PATH (apt-get install openmpi-bin libopenmpi-dev)"
    # load the MPI library without initializing MPI (that is mpirun's job)
    probe = "import mpi4py; mpi4py.rc.initialize = mpi4py.rc.finalize = False; from mpi4py import MPI; MPI.Get_library_version()"
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return f"mpi4py cannot load an MPI library: {(p.stderr.strip().splitlines() or ['?'])[-1]}"
    return None


def _skip_if_missing():
    why = _why_missing()
    if why is not None:
        pytest.skip(f"dlx.mpi: {why}")


@functools.lru_cache(maxsize=None)
def _is_open_mpi():
    try:
        out = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out.stdout + out.stderr or "OpenRTE" in out.stdout + out.stderr


def mpirun(n, argv, timeout=TIMEOUT, open_mpi_env=None):
    """Run `python argv...` on n ranks; the ranks get this interpreter and this PYTHONPATH (the dlx
    under test). Open MPI: as root it needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM); --oversubscribe lets n
    exceed the cores (CI has 2); the single-copy mechanism is off, since containers often forbid the
    ptrace it needs (it only speeds up large messages); `open_mpi_env` adds MCA settings."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.environ.get("PYTHONPATH", ""), HERE] if p)
    cmd = ["mpirun", "-n", str(n)]
    if _is_open_mpi():
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        env.setdefault("OMPI_MCA_btl_sm_single_copy_mechanism", "none")
        env.update(open_mpi_env or {})
        cmd += ["--oversubscribe", "-x", "PYTHONPATH"]
    cmd += [sys.executable, *argv]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{' '.join(cmd)} did not finish in {timeout} s (a rank waiting on a collective?)\n"
                    f"stdout: {e.stdout}\nstderr: {e.stderr}")


# Open MPI 4.1's AVX op component saturates 8- and 16-bit integer sums that overflow (open-mpi/ompi#8045)
# where dlx wraps: the 2-rank run keeps its defaults (and such sums in range), the 4-rank run turns the
# component off and checks wrapping sums bit for bit.
_WORKER_ENV = {2: {}, 4: {"OMPI_MCA_op": "^avx"}}


@functools.lru_cache(maxsize=None)
def _run_worker(n, tmpdir):
    out = os.path.join(tmpdir, f"mpi_results_{n}.json")
    p = mpirun(n, [os.path.join(HERE, "mpi_worker.py"), out], open_mpi_env=_WORKER_ENV[n])
    if p.returncode != 0 or not os.path.exists(out):
        return None, f"mpirun -n {n} failed (rc {p.returncode})\nstdout:\n{p.stdout[-6000:]}\nstderr:\n{p.stderr[-6000:]}"
    with open(out) as f:
        data = json.load(f)
    return data, p.stdout


@pytest.fixture(scope="module", params=[2, 4], ids=["n2", "n4"])
def results(request, tmp_path_factory):
    _skip_if_missing()
    data, log = _run_worker(request.param, str(tmp_path_factory.getbasetemp()))
    if data is None:
        pytest.fail(log)
    assert data["size"] == request.param
    if request.param == 4 and _is_open_mpi():
        assert data["int_sums_wrap"], "the 4-rank run should check wrapping 8/16-bit sums (op ^avx)"
    return data["results"]


def _check(results, name):
    assert name in results, f"check {name!r} never ran (worker checks: {sorted(results)[:8]}...)"
    failures = results[name]
    assert not failures, f"{name}:\n" + "\n".join(failures[:20])


REDUCE_CASES = [f"{d}:{o}" for d in W.REDUCIBLE for o in W.supported_ops(d)]


@pytest.mark.parametrize("case", REDUCE_CASES)
def test_reduce_bit_exact(results, case):
    """allreduce, reduce (onto the last rank), comm.Allreduce with message()/op(), IN_PLACE."""
    _check(results, f"reduce:{case}")


@pytest.mark.parametrize("dtype", W.NATIVE + W.NARROW + W.TRANSFER_ONLY)
def test_transfer_every_dtype(results, dtype):
    """bcast, a send/recv ring, recv from any source: the bytes arrive unchanged."""
    _check(results, f"transfer:{dtype}")


@pytest.mark.parametrize("topic", ["refused", "packed", "strided", "readonly", "api", "large"])
def test_topic(results, topic):
    _check(results, topic)


def test_every_check_ran(results):
    missing = sorted(set(W.check_names()) - set(results))
    assert not missing, f"checks that never ran: {missing}"


def test_dlx_does_not_import_mpi():
    code = "import sys, dlx; bad = [m for m in ('mpi4py', 'dlx.mpi') if m in sys.modules]; print(bad); assert not bad"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def test_example_runs():
    _skip_if_missing()
    p = mpirun(2, [os.path.join(ROOT, "examples", "mpi_allreduce.py")], timeout=120)
    assert p.returncode == 0, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    assert "check: ok" in p.stdout, p.stdout

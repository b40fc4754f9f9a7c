"""Runs the checks of a target in a worker process (_worker.py), so that the broken code the checker exists
to judge cannot take the judge down with it: a crash (a signal, an abort) fails the check of the case that
was running, naming the signal and the case; a case that does not answer in `timeout` seconds fails "no
answer in S s"; the worker is then restarted after that case. The parent imports no target and reads no
capsule.

One worker serves many runs (a test suite's, say) while it lives; a new one starts after a crash or a hang.
"""

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

from .frameworks import NothingToCheck, Unavailable
from .report import Recorder

DEFAULT_TIMEOUT = 30.0
MAX_RESTARTS = 50  # crashes in one run before the rest of it is given up


class _Worker:
    def __init__(self):
        r, w = os.pipe()
        self.err = tempfile.TemporaryFile()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env.setdefault("PYTHONFAULTHANDLER", "1")  # a crash leaves the Python stack on stderr
        env.setdefault("DLX_CPU_CACHE_BYTES", "0")  # dlx's cache of freed blocks would hide leaks from the probe
        self.proc = subprocess.Popen([sys.executable, "-m", "dlx.check._worker", str(w)], stdin=subprocess.PIPE,
                                     stdout=self.err, stderr=self.err, pass_fds=(w,), env=env)
        os.close(w)
        self.fd, self.buf = r, b""

    def alive(self):
        return self.proc.poll() is None

    def send(self, req):
        self.mark = os.fstat(self.err.fileno()).st_size  # what the worker writes from here is this run's
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()

    def recv(self, timeout):
        """The next message; "eof" when the worker died; "timeout" when it said nothing in time."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return "timeout"
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return "eof"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def kill(self):
        if self.alive():
            self.proc.kill()
        self.proc.wait()
        self.close()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for f in (self.fd,):
            try:
                os.close(f)
            except OSError:
                pass
        self.err.close()

    def death(self):
        """How the worker ended, in words, with the last line it wrote to stderr."""
        rc = self.proc.wait()
        if rc < 0:
            try:
                what = f"{signal.Signals(-rc).name} (signal {-rc})"
            except ValueError:
                what = f"signal {-rc}"
        else:
            what = f"exit status {rc}"
        self.err.seek(getattr(self, "mark", 0))
        lines = [x.strip() for x in self.err.read()[-16384:].decode(errors="replace").splitlines() if x.strip()]
        fatal = max((i for i, x in enumerate(lines) if x.startswith("Fatal Python error")), default=len(lines))
        # the target's own words come before faulthandler's report (JAX's "Check failed", glibc's
        # "double free detected"); the report itself only repeats the signal
        last = lines[fatal - 1] if fatal > 0 else ""
        if last.startswith(("File ", "Current thread", "Thread 0x", "Extension modules", "<")):
            last = ""
        return what + (f"; its last words: {last[:200]}" if last else "")


_pool: list = []  # the live worker, if any


def _worker():
    while _pool and not _pool[-1].alive():
        _pool.pop().close()
    if not _pool:
        _pool.append(_Worker())
    return _pool[-1]


def _drop(w, kill=False):
    if _pool and _pool[-1] is w:
        _pool.pop()
    if kill:
        w.kill()


@atexit.register
def shutdown():
    while _pool:
        _pool.pop().close()


def run(side, target, devices=None, timeout=None, untried=None):
    """The Recorder of side's checks of target (a name or spec string), every case in a worker process.
    Raises Unavailable (usage) or NothingToCheck."""
    timeout = float(timeout or DEFAULT_TIMEOUT)
    load_limit = max(4 * timeout, 120.0)  # importing a framework can take a while on a loaded machine
    state = {"rec": None, "resume_after": 0, "skip": [], "untried": dict(untried or {}),
             "done": False}
    for _ in range(MAX_RESTARTS + 1):
        w = _worker()
        failed = state["rec"].failed() if state["rec"] is not None else []
        w.send({"side": side, "target": target, "devices": devices, "path": sys.path,
                "resume_after": state["resume_after"], "skip": state["skip"], "failed": failed})
        if _serve(w, side, timeout, load_limit, state):
            break
    rec = state["rec"]
    if not state["done"]:
        rec.notes.append(f"gave up after {MAX_RESTARTS} crashes or hangs: the cases after the last are not run")
    rec.explain_untried(state["untried"])
    return rec


def _serve(w, side, timeout, load_limit, state):
    """Reads one run's messages; True when the run is over, False when the worker must be restarted."""
    current = None  # [step, check, case] of the running case
    while True:
        msg = w.recv(load_limit if state["rec"] is None else timeout)
        if msg in ("eof", "timeout"):
            how = f"no answer in {timeout:g} s" if msg == "timeout" and state["rec"] is not None else None
            if msg == "timeout":
                _drop(w, kill=True)
                how = how or f"the target did not load in {load_limit:g} s"
                died = how
            else:
                died = f"the target crashed: {w.death()}"
                _drop(w)
                w.close()
            if state["rec"] is None:
                raise NothingToCheck(died)
            if current is None:
                state["rec"].notes.append(f"the worker died between cases: {died}")
                state["done"] = True
                return True
            step, check, case = current
            if check is None:
                state["rec"].notes.append(f"{case}: {died} (skipped)")
            else:
                state["rec"].fail(check, case, died)
            state["resume_after"] = max(state["resume_after"], step)
            state["skip"].append(step)
            return False
        if "begin" in msg:
            current = [msg["begin"], msg["check"], msg["case"]]
        elif "stage" in msg:
            if current is not None:
                current[1] = msg["stage"]
        elif "record" in msg:
            state["rec"].record(*msg["record"])
        elif "note" in msg:
            state["rec"].notes.append(msg["note"])
        elif "hello" in msg:
            if state["rec"] is None:
                state["rec"] = Recorder(side, *msg["hello"])
        elif "untried" in msg:
            state["untried"] = msg["untried"]
        elif "unavailable" in msg:
            raise (NothingToCheck if msg["nothing"] else Unavailable)(msg["unavailable"])
        elif "error" in msg:
            _error(state, current, msg["error"])
            state["done"] = True
            return True
        elif "done" in msg:
            state["done"] = True
            return True


def _error(state, current, tb):
    """The run stopped on an exception no case caught: the target raised where nothing expected it (in
    devices(), say), or the checker has a bug. Either way the report says so, with the traceback's end."""
    last = [x for x in tb.strip().splitlines() if x.strip()][-1]
    if current is not None and current[1] is not None:
        state["rec"].fail(current[1], current[2], f"the run stopped: {last}")
    state["rec"].notes.append(f"the run stopped on an exception: {last}")
    state["rec"].error = tb

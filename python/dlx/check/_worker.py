"""The worker process of `dlx check` (isolate.py starts it): it imports the target and runs the checks, and
streams every step and every result to the parent as JSON lines on a pipe, so that a target that crashes,
aborts or hangs costs the parent one case, never the report.

Requests come on stdin, one JSON object a line: side, target, devices, path (the parent's sys.path),
resume_after (steps up to that number ran in a worker that died: the cases among them are skipped, the
setup steps run again silently) and skip (steps that crashed or hung: never run again). The worker serves
requests until stdin closes, so that many runs share one process start.
"""

import json
import os
import sys
import traceback

from . import report


class _Notes(list):
    def __init__(self, rec):
        super().__init__()
        self._rec = rec

    def append(self, text):
        super().append(text)
        self._rec._send({"note": text})


class StreamRecorder(report.Recorder):
    """A Recorder whose results go to the parent as they are made."""

    def __init__(self, out, side, resume_after, skip):
        super().__init__(side, "?", "")
        self._out, self._resume_after, self._skip = out, resume_after, set(skip)
        self._step = 0
        self.notes = _Notes(self)

    def _send(self, msg):
        if self._step > self._resume_after or "begin" in msg or "hello" in msg:
            self._out.write((json.dumps(msg) + "\n").encode())

    def begin(self, check_id, case, setup=False):
        self._step += 1
        n = self._step
        if n in self._skip or (not setup and n <= self._resume_after):
            return False
        if n > self._resume_after:
            self._send({"begin": n, "check": check_id, "case": str(case)})
        return True

    def stage(self, check_id):
        self._send({"stage": check_id})

    def record(self, check_id, status, case, reason=""):
        super().record(check_id, status, case, reason)
        self._send({"record": [check_id, status, str(case), str(reason)]})

    def explain_untried(self, reasons):
        self._out.write((json.dumps({"untried": reasons}) + "\n").encode())


def serve(req, out):
    from . import _keep_devices
    from .frameworks import NothingToCheck, Unavailable, load

    sys.path[:] = req["path"]
    rec = StreamRecorder(out, req["side"], req.get("resume_after", 0), req.get("skip", ()))
    for cid in req.get("failed", ()):  # what failed before a restart: the premises of later checks (not resent)
        report.Recorder.record(rec, cid, report.FAIL, "(before the worker was restarted)")
    try:
        fw = load(req["target"])
        if req.get("devices") is not None:
            _keep_devices(fw, req["devices"])
            if not (fw.devices() if req["side"] == "producer" else fw.consumer_devices()):
                raise NothingToCheck(f"{fw.name} has no {req['side']} device of the kind(s) "
                                     f"{', '.join(req['devices'])} here")
    except Unavailable as e:
        out.write((json.dumps({"unavailable": str(e), "nothing": isinstance(e, NothingToCheck)}) + "\n").encode())
        return
    rec._send({"hello": [fw.name, str(fw.version or "")]})
    if req["side"] == "producer":
        from . import producer as side
    else:
        from . import consumer as side
    try:
        side.run(fw, rec)
    except Exception:  # noqa: BLE001 - the target raised where no case expected it, or a checker bug
        rec._send({"error": traceback.format_exc(limit=8)})
        return
    out.write(b'{"done": true}\n')


def main():
    out = os.fdopen(int(sys.argv[1]), "wb", buffering=0)
    for line in sys.stdin:
        if line.strip():
            serve(json.loads(line), out)


if __name__ == "__main__":
    main()

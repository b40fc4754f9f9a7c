"""Outcomes of the checks and their output: a table for people, JSON for machines.

A check is tried on many cases (arrays, dtypes, calls); its result is "fail" when any case fails, else
"pass" when any case passes, else "n/a" (no case applied), with the reason of the first failing case (and
how many failed) or of the first n/a one.
"""

import json
import shutil
import sys

from . import rules

PASS, FAIL, NA = "pass", "fail", "n/a"


class Recorder:
    """Outcomes per check id, in the order the checks are listed."""

    def __init__(self, side, target, version):
        self.side, self.target, self.version = side, target, version
        self.cases = {c.id: [] for c in rules.checks(side)}
        self.notes = []
        self.error = None  # why nothing could be checked, when nothing could

    def begin(self, check_id, case, setup=False):
        """A case starts: check_id is the check a crash or a hang of the target in it fails (None: a step
        that checks nothing, such as making an array). Returns whether to run it (a worker restarted after
        a crash skips what it ran before: isolate.py)."""
        return True

    def stage(self, check_id):
        """The case goes on with another check at stake (a crash from here on fails check_id)."""

    def record(self, check_id, status, case, reason=""):
        if check_id not in self.cases:
            raise KeyError(f"no {self.side} check {check_id!r}")
        self.cases[check_id].append((status, case, reason))

    def ok(self, check_id, case):
        self.record(check_id, PASS, case)

    def fail(self, check_id, case, reason):
        self.record(check_id, FAIL, case, reason)

    def na(self, check_id, case, reason):
        self.record(check_id, NA, case, reason)

    def explain_untried(self, reasons):
        """An n/a with its reason for each check no case reached (reasons: {id: why}, else a general one)."""
        for cid, cases in self.cases.items():
            if not cases:
                self.na(cid, "all cases", reasons.get(cid, "no case of the catalogue applies to this target"))

    def expect(self, check_id, case, cond, reason):
        """pass when cond holds, else fail with reason; returns cond."""
        self.record(check_id, PASS if cond else FAIL, case, "" if cond else reason)
        return cond

    def results(self):
        out = []
        for c in rules.checks(self.side):
            cases = self.cases[c.id]
            fails = [x for x in cases if x[0] == FAIL]
            if fails:
                status, first = FAIL, fails[0]
                reason = f"{first[1]}: {first[2]}" + (f" (and {len(fails) - 1} more)" if len(fails) > 1 else "")
            elif any(x[0] == PASS for x in cases):
                status, reason = PASS, f"{sum(x[0] == PASS for x in cases)} case(s)"
            else:
                status = NA
                reason = f"{cases[0][1]}: {cases[0][2]}" if cases else "not tried"
            counts = {s: sum(x[0] == s for x in cases) for s in (PASS, FAIL, NA)}
            out.append({"id": c.id, "level": c.level, "rule": c.rule, "clause": c.clause, "result": status,
                        "reason": reason, "cases": counts})
        return out

    def failed(self):
        return [r["id"] for r in self.results() if r["result"] == FAIL]

    def ran(self):
        """Whether any check passed or failed (not everything n/a)."""
        return any(x[0] != NA for cases in self.cases.values() for x in cases)

    def as_json(self):
        res = self.results()
        for r in res:
            r["failures"] = [{"case": c, "reason": why} for st, c, why in self.cases[r["id"]] if st == FAIL]
        return {"side": self.side, "target": self.target, "version": self.version,
                "python": sys.version.split()[0], "notes": self.notes, "checks": res,
                "failed": [r["id"] for r in res if r["result"] == FAIL], "error": self.error}


def table(rec, known=None, width=None):
    """The report as text: one row per check. known: {check_id: note} of expected failures."""
    known = known or {}
    width = width or shutil.get_terminal_size((160, 24)).columns
    lines = [f"DLPack {rec.side} checks of {rec.target} {rec.version}".rstrip()]
    lines += [f"  note: {n}" for n in rec.notes]
    rows = rec.results()
    idw = max(len(r["id"]) for r in rows)
    for r in rows:
        mark = r["result"].upper() if r["result"] == FAIL else r["result"]
        reason = r["reason"]
        if r["result"] == FAIL and r["id"] in known:
            reason = f"[known] {reason}"
        head = f"{r['id']:<{idw}}  {mark:<4}  "
        lines.append(head + _cut(reason, max(20, width - len(head))))
    fails = rec.failed()
    lines.append(f"{len(rows)} checks: {sum(r['result'] == PASS for r in rows)} pass, {len(fails)} fail, "
                 f"{sum(r['result'] == NA for r in rows)} n/a")
    return "\n".join(lines)


def _cut(s, n):
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def listing(side=None):
    lines = []
    for c in rules.checks(side):
        lines.append(f"{c.id}  [{c.side}, {c.level}]")
        lines.append(f"    {c.rule}")
        lines.append(f"    clause: {c.clause}")
    return "\n".join(lines)


def dumps(rec):
    return json.dumps(rec.as_json(), indent=2)

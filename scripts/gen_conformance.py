#!/usr/bin/env python3
"""Write docs/conformance.md: `python -m dlx check` run against the real peers, both ways.

    python scripts/gen_conformance.py            # run the checker on every peer and rewrite the doc
    python scripts/gen_conformance.py --check    # exit 1 when the doc's verdicts are not what the peers do now
                                                 # (a differing peer is rerun once; the words of a failure and
                                                 # advice-level verdicts are reported, not compared)

Each peer and side runs in its own process (`python -m dlx check <side> <peer> --json --device cpu
--device oneapi`): CPU memory and SYCL USM (dpctl's two devices), the kinds CI has. GPU peers (CuPy,
torch.cuda, JAX on the GPU) are checked on a GPU machine with `--device cuda`; see the doc.

Every failure must be explained in dlx.check.known (with the version it was seen in, and a reproducer
when it is a real bug), and every entry there must still fail: either drift stops the run. A peer that
cannot be imported here is reported, never silently skipped: the doc records why, and in --check mode
its recorded results are kept (and said to be unchecked) rather than compared.
"""

import argparse
import difflib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "conformance.md")
CORE_PEERS = ["numpy", "torch", "jax", "dpctl", "dlx"]  # CI's venv has these (scripts/venv.sh)
# the heavy peers: checked through dlx.check.adapters in the venv of scripts/conformance_all.sh; elsewhere
# their recorded results stand, reported as not compared
ADAPTED = ["tensorflow", "paddle", "mlx", "tvm_ffi", "array_api_strict", "pyarrow", "warp", "ndonnx"]
PEERS = CORE_PEERS + ADAPTED
# a case's time limit: a framework restarted after a crash replays its set-up before answering again, and
# TensorFlow or Paddle take more than the default 30 s to import on a loaded machine
TIMEOUT = os.environ.get("DLX_CHECK_TIMEOUT", "120")
SIDES = ["producer", "consumer"]
DATA_MARK = "<!-- conformance-data "
MARK = {"pass": "pass", "fail": "**FAIL**", "n/a": "n/a"}


def target(peer):
    """The checker's target of a peer: its name, or its adapter's spec (dlx.check.adapters)."""
    from dlx.check.adapters import spec

    return spec(peer)


def _missing_reasons():
    """{module: why} of the peers scripts/conformance_all.sh could not install (DLX_PEERS_MISSING)."""
    path = os.environ.get("DLX_PEERS_MISSING")
    out = {}
    if path and os.path.exists(path):
        for line in open(path):
            mod, _, why = line.rstrip("\n").partition("\t")
            out[mod] = why
    return out


def run_peer(peer, side):
    """(results dict, None) or (None, why it cannot run here)."""
    cmd = [sys.executable, "-m", "dlx", "check", side, target(peer), "--json", "--device", "cpu", "--device",
           "oneapi", "--timeout", TIMEOUT]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if r.returncode in (2, 3):  # cannot be used here (usage), or nothing could be checked
        why = _missing_reasons().get(peer)
        if why:
            return None, why
        try:
            why = json.loads(r.stdout).get("error")
        except ValueError:
            why = None
        why = why or (r.stderr.strip().splitlines() or ["cannot be used here"])[-1]
        return None, why.replace("python -m dlx check: ", "")
    if r.returncode not in (0, 1):
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-20:])
        raise SystemExit(f"gen_conformance: {' '.join(cmd[1:])} exited {r.returncode}:\n{tail}")
    out = json.loads(r.stdout)
    return {"version": out["version"], "failed": out["failed"],
            "results": {c["id"]: [c["result"], _plain(c["reason"])] for c in out["checks"]}}, None


def _plain(reason):
    """A reason without what differs from run to run: addresses."""
    return re.sub(r"0x[0-9a-f]{6,}", "0x...", reason)


def collect(previous):
    """{peer: {side: data}} for every peer and side; missing ones keep previous data, marked unchecked.
    The checker runs are processes of their own, DLX_CONFORMANCE_JOBS at a time (default: the CPU count)."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = int(os.environ.get("DLX_CONFORMANCE_JOBS", "0")) or os.cpu_count() or 1
    pairs = [(peer, side) for peer in PEERS for side in SIDES]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = dict(zip(pairs, pool.map(lambda ps: run_peer(*ps), pairs)))
    data, skipped = {}, []
    for peer in PEERS:
        for side in SIDES:
            got, why = runs[(peer, side)]
            if got is None:
                old = previous.get(peer, {}).get(side)
                skipped.append(f"{peer} ({side}): {why}" + (" (the doc's results are kept)" if old else ""))
                got = old or {"unavailable": why}
            data.setdefault(peer, {})[side] = got
    return data, skipped


def verify_known(data, known):
    """Errors: failures that dlx.check.known does not explain, and entries that no longer fail."""
    errors = []
    for peer, sides in data.items():
        for side, d in sides.items():
            if "failed" not in d or peer == "dlx":
                if peer == "dlx" and d.get("failed"):
                    errors.append(f"dlx fails its own {side} checks: {d['failed']}")
                continue
            expected = {k.check for k in known if k.target == peer and k.side == side}
            for c in sorted(set(d["failed"]) - expected):
                errors.append(f"{peer} {side}: {c} fails and dlx.check.known does not explain it: "
                              f"{d['results'][c][1]}")
            for c in sorted(expected - set(d["failed"])):
                errors.append(f"{peer} {side}: dlx.check.known lists {c}, which now {d['results'][c][0]}s "
                              f"(version {d['version']}): remove the entry")
    return errors


def render(data, rules, known):
    lines = [
        "# DLPack conformance of the frameworks dlx exchanges with",
        "",
        "Generated by `python scripts/gen_conformance.py` from `python -m dlx check <producer|consumer> <target>`",
        "(CPU memory and SYCL USM, the device kinds CI has). All thirteen frameworks are checked by",
        "`scripts/conformance_all.sh`, which installs the heavy ones (TensorFlow, Paddle, MLX, tvm-ffi,",
        "array-api-strict, pyarrow, warp, ndonnx: CPU wheels from PyPI) into a venv of their own and runs this",
        "script there. `scripts/test_python.sh` runs it with `--check` in CI's venv, which fails when this file",
        "is not what the peers installed there do now (NumPy, PyTorch, JAX, dpctl, dlx); the others are reported",
        "as not compared, with the reason, and their recorded results stand. Do not edit by hand (except the",
        "section on targets and adapters, which is kept as written): explain a failure in",
        "`python/dlx/check/known.py` (the heavy peers' in `python/dlx/check/adapters/known.py`) and regenerate.",
        "",
        "- `pass`: every case of the check held; `**FAIL**`: some case broke the rule (explained below);",
        "  `n/a`: no case applied (the reason is in `python -m dlx check`'s table).",
        "- A check of level *should* follows a recommendation of the standard rather than a requirement.",
        "- GPU peers (CuPy, torch.cuda, JAX on the GPU) are checked with `--device cuda` on a machine with a",
        "  GPU (`python -m dlx check producer cupy --device cuda`); their stream checks (`p-stream-cuda`,",
        "  `p-stream-order`) need one. They are not in this matrix.",
        "- A framework without `__array_interface__` is checked through its adapter in `dlx.check.adapters`",
        "  (the target is named under Versions), which tells the checker what the framework's own API says",
        "  of its arrays; each adapter's docstring says which API that is.",
        "",
        *protocol_section(),
        "## Versions",
        "",
    ]
    for peer in PEERS:
        for side in SIDES:
            d = data[peer][side]
            state = f"version {d['version']}" if "version" in d else f"**not checked**: {d['unavailable']}"
            how = f" (target `{target(peer)}`)" if target(peer) != peer else ""
            lines.append(f"- {peer} ({side}): {state}{how}")
    for side in SIDES:
        lines += ["", f"## {side.capitalize()} checks", ""]
        lines.append("| check | level | " + " | ".join(PEERS) + " |")
        lines.append("|---|---|" + "---|" * len(PEERS))
        for r in rules:
            if r.side != side:
                continue
            cells = [MARK[data[p][side]["results"][r.id][0]] if "results" in data[p][side] else "-" for p in PEERS]
            lines.append(f"| `{r.id}` | {r.level} | " + " | ".join(cells) + " |")
        lines += ["", "Rules:", ""]
        lines += [f"- `{r.id}`: {r.rule}. *{r.clause}.*" for r in rules if r.side == side]
    lines += ["", "## Failures, explained", ""]
    for peer in PEERS:
        entries = [k for k in known if k.target == peer]
        if not entries:
            continue
        lines += ["", f"### {peer}", ""]
        for k in entries:
            d = data[peer][k.side]
            got = d.get("results", {}).get(k.check, ["?", ""])[1]
            kind = "**bug**" if k.bug else "expected"
            lines.append(f"- `{k.check}` ({k.side}, {kind}, seen in {peer} {k.version}): {k.why}.")
            lines.append(f"  - checker: {got}")
            if k.repro:
                lines += ["", "  ```python"] + [f"  {x}" for x in k.repro.splitlines()] + ["  ```", ""]
    lines += ["", DATA_MARK + json.dumps(_stable(data), sort_keys=True) + " -->", ""]
    return "\n".join(lines)


PROTOCOL_BEGIN, PROTOCOL_END = "<!-- protocol:", "<!-- /protocol -->"


def protocol_section():
    """The hand-written section on targets and adapters, as the doc has it (lines, with a blank after)."""
    try:
        text = open(DOC).read()
    except OSError:
        return []
    i, j = text.find(PROTOCOL_BEGIN), text.find(PROTOCOL_END)
    if i < 0 or j < 0:
        return []
    return text[i:j + len(PROTOCOL_END)].splitlines() + [""]


def _stable(data):
    """What --check needs of a peer that cannot run: its version and its results."""
    out = {}
    for peer, sides in data.items():
        for side, d in sides.items():
            keep = {k: d[k] for k in ("version", "failed", "unavailable") if k in d}
            if "results" in d:
                # the reasons of failures are rendered ("checker: ..."), so they are kept to render again
                keep["results"] = {c: [v[0], v[1] if v[0] == "fail" else ""] for c, v in d["results"].items()}
            out.setdefault(peer, {})[side] = keep
    return out


def keep_other_versions(data, previous):
    """--check on a machine whose peer is another version than the doc's (pip installs the newest): that peer's
    results say nothing about whether the doc is current, so the doc's own results stand in for them, and
    the difference is reported rather than failed. Regenerating the doc records the new version."""
    moved = []
    for peer, sides in data.items():
        if peer == "dlx":
            continue
        for side, d in sides.items():
            old = previous.get(peer, {}).get(side)
            if old is None or "version" not in d or "version" not in old or old["version"] == d["version"]:
                continue
            moved.append(f"{peer} ({side}): version {d['version']} here, {old['version']} in the doc; "
                         f"{len(d.get('failed', []))} check(s) fail here, {len(old.get('failed', []))} there")
            sides[side] = {k: v for k, v in old.items() if k != "unchecked"}
    return moved


def rerun_differing(data, previous, advice):
    """--check: a peer and side whose verdicts differ from the doc's is checked a second time. A real change
    stays, and still fails the check; a verdict that a busy machine or an allocation's address flipped
    once (CI saw both) agrees on the second run, whose results are then used and the flip reported."""
    notes = []
    for peer, sides in data.items():
        for side, d in sides.items():
            old = previous.get(peer, {}).get(side, {})
            new_r, old_r = d.get("results"), old.get("results")
            if not new_r or not old_r or d.get("version") != old.get("version"):
                continue
            diff = sorted(c for c in set(new_r) | set(old_r)
                          if c not in advice and new_r.get(c, [None])[0] != old_r.get(c, [None])[0])
            if not diff:
                continue
            got, _ = run_peer(peer, side)
            if got is not None and all(got["results"].get(c, [None])[0] == old_r.get(c, [None])[0] for c in diff):
                notes.append(f"{peer} ({side}): {', '.join(diff)} differed from the doc in the first run and "
                             "agreed in a second (a verdict that flipped once)")
                sides[side] = got
    return notes


def keep_doc_reasons(data, previous, advice):
    """--check compares verdicts (pass, fail, n/a per check), not the words of a failure: a reason may name
    what a crashed target last printed, or how many more cases failed, which a loaded machine or a
    restarted worker can change while the verdict stands. Nor does it compare the verdicts of the checks of
    level "advice" (the ids in advice): they never fail, and whether one is pass or n/a can depend on where
    an allocation landed (p-aligned-256: NumPy's arrays are 256-byte aligned in one run and not in the
    next). Where the compared verdicts of a peer and side are the doc's, the doc's words and advice verdicts
    stand in for this run's, and the differences are reported, not failed."""
    notes = []
    for peer, sides in data.items():
        for side, d in sides.items():
            old = previous.get(peer, {}).get(side, {})
            new_r, old_r = d.get("results"), old.get("results")
            if not new_r or not old_r or set(new_r) != set(old_r):
                continue
            if any(new_r[c][0] != old_r[c][0] for c in new_r if c not in advice):
                continue
            for c in sorted(new_r):
                if c in advice and new_r[c][0] != old_r[c][0]:
                    notes.append(f"{peer} ({side}) {c} (advice): {new_r[c][0]} now, the doc has {old_r[c][0]}")
                    new_r[c] = list(old_r[c])
                    continue
                if new_r[c][0] == "fail" and new_r[c][1] != old_r[c][1]:
                    notes.append(f"{peer} ({side}) {c}: reason now {new_r[c][1]!r}, the doc has {old_r[c][1]!r}")
                new_r[c] = [new_r[c][0], old_r[c][1] if new_r[c][0] == "fail" else new_r[c][1]]
    return notes


def previous_data():
    try:
        text = open(DOC).read()
    except OSError:
        return {}
    i = text.find(DATA_MARK)
    if i < 0:
        return {}
    raw = json.loads(text[i + len(DATA_MARK):text.index(" -->", i)])
    for sides in raw.values():
        for d in sides.values():
            d["unchecked"] = True
    return raw


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with docs/conformance.md instead of writing it")
    args = ap.parse_args()
    from dlx.check import known, rules

    previous = previous_data()
    data, skipped = collect(previous)
    for s in skipped:
        print(f"gen_conformance: NOT COMPARED {s}", file=sys.stderr)
    moved = []
    if args.check:
        moved = keep_other_versions(data, previous)
        for m in moved:
            print(f"gen_conformance: NOT COMPARED {m}", file=sys.stderr)
        advice = {r.id for r in rules.CHECKS if r.level == "advice"}
        for m in rerun_differing(data, previous, advice):
            print(f"gen_conformance: note: {m}", file=sys.stderr)
        for m in keep_doc_reasons(data, previous, advice):
            print(f"gen_conformance: note (the verdict is the doc's): {m}", file=sys.stderr)
    errors = verify_known(data, known.KNOWN)
    for e in errors:
        print(f"gen_conformance: {e}", file=sys.stderr)
    text = render(data, rules.CHECKS, known.KNOWN)
    if args.check:
        old = open(DOC).read() if os.path.exists(DOC) else ""
        if old != text:
            diff = difflib.unified_diff(old.splitlines(), text.splitlines(), "docs/conformance.md", "now", lineterm="")
            print("\n".join(list(diff)[:80]), file=sys.stderr)
            print("gen_conformance: docs/conformance.md is out of date: run python scripts/gen_conformance.py",
                  file=sys.stderr)
            return 1
        print(f"gen_conformance: docs/conformance.md is current ({len(skipped)} peer/side(s) skipped)")
        return 1 if errors else 0
    with open(DOC, "w") as f:
        f.write(text)
    print(f"gen_conformance: wrote {os.path.relpath(DOC, ROOT)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

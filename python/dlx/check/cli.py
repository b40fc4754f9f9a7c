"""The command line of `python -m dlx check`."""

import argparse
import json
import sys

from . import DEVICE_KINDS, known, report, run
from .frameworks import FRAMEWORKS, NothingToCheck, Unavailable

USAGE_ERROR, NOTHING_CHECKED = 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so that --json can still print its one object."""

    def error(self, message):
        raise _Usage(message)


class _Usage(Exception):
    pass


def _parser():
    p = _Parser(
        prog="python -m dlx check",
        description="Check a framework's DLPack producer (__dlpack__) or consumer (from_dlpack) against the "
                    "standard, every case in a worker process. Exit status: 0 every check that ran passed (at "
                    "least one ran), 1 some check fails, 2 usage error or a target that cannot be loaded, 3 "
                    "nothing could be checked (the reason is given).")
    p.add_argument("side", nargs="?", choices=["producer", "consumer"], help="which side to check")
    p.add_argument("target", nargs="?",
                   help=f"{', '.join(FRAMEWORKS)}, module:function (producer: function(shape, dtype, device) "
                        "returns an array; consumer: a from_dlpack-like function), or an adapter "
                        "(module:Adapter, or a module): docs/conformance.md")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object (errors too)")
    p.add_argument("--device", action="append", choices=sorted(DEVICE_KINDS),
                   help="check only the target's devices of this kind (repeatable; default: all it has)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds a case may take before it fails as a hang (default 30)")
    p.add_argument("--list", action="store_true", help="print the checks (of one side if given) and exit")
    return p


def _fail(args, status, why, side=None, target=None):
    """Report an error: on stderr, and as the JSON object under --json."""
    print(f"python -m dlx check: {why}", file=sys.stderr)
    if args is not None and args.json:
        print(json.dumps({"side": side, "target": target, "error": why, "status": status, "checks": [],
                          "failed": []}, indent=2))
    return status


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(argv)
    except _Usage as e:
        _parser().print_usage(sys.stderr)
        return _fail(argparse.Namespace(json="--json" in argv), USAGE_ERROR, str(e))
    if args.list:
        print(report.listing(args.side))
        return 0
    if args.side is None or args.target is None:
        _parser().print_usage(sys.stderr)
        return _fail(args, USAGE_ERROR, "give a side and a target, or --list")
    if args.timeout is not None and args.timeout <= 0:
        return _fail(args, USAGE_ERROR, f"--timeout must be positive, not {args.timeout:g}")
    try:
        rec = run(args.side, args.target, args.device, timeout=args.timeout)
    except NothingToCheck as e:
        return _fail(args, NOTHING_CHECKED, str(e), args.side, args.target)
    except Unavailable as e:
        return _fail(args, USAGE_ERROR, str(e), args.side, args.target)
    status = 1 if rec.failed() else 0
    if not rec.failed() and not rec.ran():
        status = NOTHING_CHECKED
        rec.error = rec.error or ("nothing could be checked: every check is n/a (" +
                                  "; ".join(rec.notes[:3] or ["no case applied"]) + ")")
    if args.json:
        out = rec.as_json()
        out["known"] = {k: v for k, v in known.failures(rec.target, rec.side, rec.version).items()}
        out["status"] = status
        print(json.dumps(out, indent=2))
    else:
        print(report.table(rec, known.failures(rec.target, rec.side, rec.version)))
    if status == NOTHING_CHECKED:
        print(f"python -m dlx check: {rec.error}", file=sys.stderr)
    return status

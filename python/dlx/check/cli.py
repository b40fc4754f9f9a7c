"""The command line of `python -m dlx check`."""

import argparse
import json
import sys

from . import DEVICE_KINDS, known, report, run
from .frameworks import FRAMEWORKS, Unavailable

USAGE_ERROR = 2


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m dlx check",
        description="Check a framework's DLPack producer (__dlpack__) or consumer (from_dlpack) against the "
                    "standard. Exit status: 0 all checks pass or are n/a, 1 some check fails, 2 usage error or "
                    "a target that cannot be used here.")
    p.add_argument("side", nargs="?", choices=["producer", "consumer"], help="which side to check")
    p.add_argument("target", nargs="?",
                   help=f"{', '.join(FRAMEWORKS)}, or module:function (producer: function(shape, dtype, device) "
                        "returns an array; consumer: a from_dlpack-like function)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--device", action="append", choices=sorted(DEVICE_KINDS),
                   help="check only the target's devices of this kind (repeatable; default: all it has)")
    p.add_argument("--list", action="store_true", help="print the checks (of one side if given) and exit")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.list:
        print(report.listing(args.side))
        return 0
    if args.side is None or args.target is None:
        _parser().print_usage(sys.stderr)
        print("python -m dlx check: give a side and a target, or --list", file=sys.stderr)
        return USAGE_ERROR
    try:
        rec = run(args.side, args.target, args.device)
    except Unavailable as e:
        print(f"python -m dlx check: {e}", file=sys.stderr)
        return USAGE_ERROR
    if args.json:
        out = rec.as_json()
        out["known"] = {k: v for k, v in known.failures(rec.target, rec.side, rec.version).items()}
        print(json.dumps(out, indent=2))
    else:
        print(report.table(rec, known.failures(rec.target, rec.side, rec.version)))
    return 1 if rec.failed() else 0

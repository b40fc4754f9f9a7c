"""Known failures of real frameworks: what the checker finds in them, with the version it was seen in and
why. scripts/gen_conformance.py writes docs/conformance.md from these and from fresh runs, and fails on a
failure not listed here or an entry that no longer fails (so the list cannot drift from the frameworks).

bug: True where the failure is a real defect of the framework (the doc gives its minimal reproducer);
False where it is a documented limitation, a choice the standard allows in spirit, or a "should".
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    target: str
    side: str
    check: str
    version: str  # the version the failure was recorded with
    why: str
    bug: bool = False
    repro: str = ""


KNOWN = []


def failures(target, side, version=None):
    """{check id: why} of the known failures of target on side."""
    return {k.check: k.why for k in KNOWN if k.target == target and k.side == side}

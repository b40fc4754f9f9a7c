"""`python -m dlx check`: a DLPack conformance checker for producers and consumers.

    python -m dlx check producer numpy        # numpy's __dlpack__ against the standard
    python -m dlx check consumer torch        # torch.from_dlpack against dlx's catalogue of capsules
    python -m dlx check producer mymod:make   # make(shape, dtype, device) -> an array
    python -m dlx check --list                # every check: id, rule, clause

From Python: ``dlx.check.run("producer", "numpy")`` returns a Recorder (``.failed()``, ``.results()``,
``.as_json()``). The checks and their clauses are in ``dlx.check.rules``; known failures of real
frameworks, with versions and reasons, in ``dlx.check.known``.
"""

from . import rules  # noqa: F401
from ._capsule import Export, HostBuffer  # noqa: F401 - the reference producer, for reproducers
from .frameworks import Framework, Generic, Unavailable, load  # noqa: F401
from .report import Recorder


def run(side, target):
    """Check one side ("producer" or "consumer") of a target: a framework name, "module:function", or a
    Framework instance. Raises Unavailable when the target cannot be used here."""
    fw = load(target)
    rec = Recorder(side, fw.name, fw.version)
    if side == "producer":
        from . import producer

        producer.run(fw, rec)
    elif side == "consumer":
        from . import consumer

        consumer.run(fw, rec)
    else:
        raise ValueError(f"side must be 'producer' or 'consumer', not {side!r}")
    return rec

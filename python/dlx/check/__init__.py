"""`python -m dlx check`: a DLPack conformance checker for producers and consumers.

    python -m dlx check producer numpy        # numpy's __dlpack__ against the standard
    python -m dlx check consumer torch        # torch.from_dlpack against dlx's catalogue of capsules
    python -m dlx check producer mymod:make   # make(shape, dtype, device) -> an array
    python -m dlx check producer mymod:MyAdapter   # an Adapter subclass: docs/conformance.md
    python -m dlx check --list                # every check: id, rule, clause

Every case runs in a worker process (isolate.py), under --timeout seconds: a target that crashes or hangs
fails the check that was running, and the report stays whole. Exit status 0 pass, 1 fail, 2 usage, 3
nothing could be checked.

From Python: ``dlx.check.run("producer", "numpy")`` returns a Recorder (``.failed()``, ``.results()``,
``.as_json()``). The checks and their clauses are in ``dlx.check.rules``; known failures of real
frameworks, with versions and reasons, in ``dlx.check.known``.
"""

from . import rules  # noqa: F401
from ._capsule import Described, Export, HostBuffer  # noqa: F401 - the reference producer, for reproducers
from .frameworks import Adapter, Framework, Generic, NothingToCheck, Unavailable, load, same_dtype  # noqa: F401
from .report import Recorder


def describe(capsule):
    """What an unconsumed DLPack capsule holds (version, flags, data, byte_offset, device, dtype, shape,
    strides), read with ctypes; the capsule stays unconsumed."""
    return Described.of(capsule)


DEVICE_KINDS = {"cpu": (1, 3, 11, 13), "cuda": (2, 13), "rocm": (10, 11), "oneapi": (14,)}


def run(side, target, devices=None, timeout=None):
    """Check one side ("producer" or "consumer") of a target: a framework name or a spec (module:function,
    module:Adapter, an adapter module: docs/conformance.md), run case by case in a worker process with a
    time limit of `timeout` seconds a case (isolate.DEFAULT_TIMEOUT); or a Framework instance, run in this
    process (no isolation: for adapters made in the caller's own code, trusted not to crash).
    devices: kinds of DEVICE_KINDS to keep (None: every device the target has).
    Raises Unavailable when the target cannot be used here (NothingToCheck when it loads but has nothing
    to check)."""
    if side not in ("producer", "consumer"):
        raise ValueError(f"side must be 'producer' or 'consumer', not {side!r}")
    bad = [k for k in devices or () if k not in DEVICE_KINDS]
    if bad:
        raise ValueError(f"unknown device kind(s) {bad}: use {', '.join(DEVICE_KINDS)}")
    if not isinstance(target, Framework):
        from . import isolate, producer, consumer

        untried = (producer if side == "producer" else consumer).UNTRIED
        return isolate.run(side, target, devices, timeout, untried)
    fw = load(target)
    if devices is not None:
        _keep_devices(fw, devices)
        if not (fw.devices() if side == "producer" else fw.consumer_devices()):
            raise NothingToCheck(f"{fw.name} has no {side} device of the kind(s) {', '.join(devices)} here")
    rec = Recorder(side, fw.name, fw.version)
    if side == "producer":
        from . import producer

        producer.run(fw, rec)
    else:
        from . import consumer

        consumer.run(fw, rec)
    return rec


def _keep_devices(fw, kinds):
    bad = [k for k in kinds if k not in DEVICE_KINDS]
    if bad:
        raise ValueError(f"unknown device kind(s) {bad}: use {', '.join(DEVICE_KINDS)}")
    types = {t for k in kinds for t in DEVICE_KINDS[k]}
    for name in ("devices", "consumer_devices"):
        every = getattr(fw, name)
        setattr(fw, name, lambda every=every: [d for d in every() if d[0] in types])

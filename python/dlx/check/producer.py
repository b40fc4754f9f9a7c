"""`dlx check producer`: calls a framework's __dlpack__ on a catalogue of arrays with every legal (and some
illegal) combination of max_version, dl_device, copy and stream, and checks each capsule against what the
framework itself says about the array.

Steps, per device of the framework:
 1. the catalogue: a compact (4, 6) array of every dtype, a 0-d and an empty one, views (stepped, offset,
    extent 1, new axis, negative and zero strides, transposed), a read-only array, and the framework's own
    odd views (PyTorch's negative and conjugate bits);
 2. each entry is exported with max_version=(1, 3), and the capsule is read field by field (never through
    dlx's import, which would refuse what it should report);
 3. three entries get every combination of max_version (None, (1, 0), (1, 3), a future (2, 0)), copy
    (None, False, True) and dl_device (None, the array's own device);
 4. the refusals: copy=False needing a copy, a device the producer cannot reach, streams, an unknown
    keyword; then the C exchange API against __dlpack__.
Every capsule ends by being dropped or, alternately, consumed (renamed "used_*" and its deleter called), and
nothing of it is changed but the name (the release is seen through reference counts and a memory probe:
ProducerRun.end). A producer whose __dlpack__ takes only `stream` is called as consumers call it.
A check whose premise failed on a case (values read through a wrong shape) is n/a there, so that one
defect fails one check.
"""

import gc
import sys

from . import _capsule as cap
from . import model
from .consumer import _forget_frames
from .frameworks import as_bytes
from .probe import MemoryProbe

MAX_VERSIONS = [None, (1, 0), (1, 3), (2, 0)]
DEFAULT = {"max_version": (1, 3)}
BASE = (4, 6)
KDL_HEXAGON = 16  # a device type no checked framework exports to


class Entry:
    """One array of the catalogue, with what the checks expect of its exports."""

    def __init__(self, label, x, dtype, dev, may_copy=False, may_refuse=False, expected=None):
        self.label, self.x, self.dtype, self.dev = label, x, dtype, dev
        self.may_copy, self.may_refuse, self.expected = may_copy, may_refuse, expected
        self.default = None  # the default export's summary, or the exception it raised

    def case(self, kw=None):
        args = "" if not kw else " " + ", ".join(f"{k}={v}" for k, v in kw.items())
        return f"{self.label} [{self.dtype} on {self.dev}]{args}"


def _err(e):
    first = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {first}"[:160]


class ProducerRun(MemoryProbe):
    def __init__(self, fw, rec):
        self.fw, self.rec = fw, rec
        self._consume_next = {True: False, False: False}
        self._base, self._null_seen = 0, False
        self._old = {}  # type -> whether its __dlpack__ is old-style (stream only)

    # ---- the catalogue -------------------------------------------------------------------------------

    def catalogue(self, dev):
        fw, out = self.fw, []
        for dt in fw.dtypes(dev):
            e = self._entry(f"compact {BASE}", lambda dt=dt: fw.make(BASE, dt, dev), dt, dev)
            if e is not None:
                out.append(e)
        base = next((e for e in out if e.dtype == "float32"), None)
        if base is None:
            self.rec.notes.append(f"no float32 array on {dev}: the layout catalogue is skipped there")
            return out
        for shape, label in (((), "0-d"), ((0, 3), "empty (0, 3)"), ((1, 6), "extent 1 (1, 6)")):
            e = self._entry(label, lambda shape=shape: fw.make(shape, "float32", dev), "float32", dev)
            if e is not None:
                out.append(e)
        out += self._views(base)
        ro = self._entry("read-only", lambda: fw.make_readonly(base.x), "float32", dev)
        if ro is not None:
            out.append(ro)
        for label, x, dt, may_copy in self._extras(dev):
            out.append(Entry(label, x, dt, dev, may_copy=may_copy, may_refuse=True,
                             expected=self._values(x)))
        return out

    def _extras(self, dev):
        if not self.rec.begin(None, f"making the framework's own views on {dev}", setup=True):
            return []
        try:
            return self.fw.extras(dev)
        except Exception as e:  # noqa: BLE001
            self.rec.notes.append(f"the framework's own views could not be made on {dev}: {_err(e)}")
            return []

    def _entry(self, label, make, dtype, dev):
        if not self.rec.begin(None, f"making {label} {dtype} on {dev}", setup=True):
            return None
        try:
            x = make()
        except Exception as e:  # noqa: BLE001
            self.rec.notes.append(f"{label} {dtype} on {dev} could not be made: {_err(e)}")
            return None
        return None if x is None else Entry(label, x, dtype, dev, expected=self._values(x))

    def _hook(self, name, x, convert=lambda v: v):
        """An adapter hook's answer about x, or None where it raised: the checks then treat the fact as unknown
        (n/a, or the model of a view decides), and a note names the hook and its first exception, so that a
        bug in an adapter shows instead of passing for a framework with nothing to say."""
        try:
            return convert(getattr(self.fw, name)(x))
        except Exception as e:  # noqa: BLE001
            raised = self.__dict__.setdefault("_hooks_raised", set())
            if name not in raised:
                raised.add(name)
                self.rec.notes.append(f"the adapter's {name}() raised {_err(e)} (its answers count as unknown)")
            return None

    def _values(self, x):
        return self._hook("values", x, as_bytes)

    def _views(self, base):
        """The view catalogue over the compact float32 base; expected values from the framework, or
        else from the model of each view applied to the base's values."""
        out = []
        base_bytes = base.expected if base.expected is not None else self._exported_bytes(base)
        for v in model.VIEWS:
            if not self.rec.begin(None, f"making view {v.label}", setup=True):
                continue
            try:
                x = v.apply(base.x, self.fw)
            except Exception as e:  # noqa: BLE001
                self.rec.notes.append(f"view {v.label} could not be made: {_err(e)}")
                continue
            if x is None:
                continue
            want = self._values(x)
            if want is None and base_bytes is not None:
                want = v.model(BASE).take(base_bytes, 4)
            out.append(Entry(v.label, x, "float32", base.dev, may_refuse=v.may_refuse, expected=want))
        return out

    def _exported_bytes(self, e):
        """The values of a compact array as its export shows them (host memory only), for a framework that
        shows no values itself: the views' expected values are then consistent with the base's export."""
        if not self.rec.begin("p-capsule-versioned", e.case({"max_version": (1, 3), "for": "the views' values"}),
                              setup=True):
            return None
        try:
            self._base = sys.getrefcount(e.x)
            box = [e.x.__dlpack__(max_version=(1, 3))]
            self.rec.stage("p-shape")
            d = cap.Described.of(box[0])
        except Exception:  # noqa: BLE001 - the default export of the base is checked on its own
            return None
        ok = d.device[0] in cap.HOST_TYPES and d.shape == BASE and d.dtype == (2, 32, 1)
        got = cap.read_elements(d.first, d.shape, d.row_major_strides(), 4) if ok else None
        self.end(box, d, e.case({"max_version": (1, 3), "for": "the views' expected values"}), e, ok)
        return got

    # ---- old-style producers: __dlpack__(stream=None) only --------------------------------------------

    def _adapt(self, e, kw):
        """The keywords to call e.x.__dlpack__ with, as a consumer does: a producer whose __dlpack__ takes
        only `stream` is called without the others (the standard's TypeError fallback), and a request it
        cannot hear (copy, dl_device) is not made: (kw, None), or (None, why the case is n/a)."""
        if not set(kw) <= {"stream", "max_version", "copy", "dl_device"} or not self._old_style(e):
            return kw, None
        if kw.get("copy") is not None or kw.get("dl_device") is not None:
            return None, "an old-style __dlpack__ (stream only) cannot be asked for copy or dl_device"
        return ({"stream": kw["stream"]} if kw.get("stream") is not None else {}), None

    def _old_style(self, e):
        """Whether e.x's type answers max_version with TypeError and a call without keywords with a capsule
        (found once per type, and reported by p-keywords)."""
        tp = type(e.x)
        if tp in self._old:
            return self._old[tp]
        self._old[tp] = False
        case = f"type {tp.__module__}.{tp.__qualname__}: __dlpack__(max_version=(1, 3), dl_device=None, copy=None)"
        if not self.rec.begin("p-keywords", case):
            return False
        try:
            box = [e.x.__dlpack__(max_version=(1, 3), dl_device=None, copy=None)]
            box.clear()
            self.rec.ok("p-keywords", case)
            return False
        except TypeError as err:
            first = err
        except Exception:  # noqa: BLE001 - a refusal of this array: its export's checks say so
            return False
        try:
            box = [e.x.__dlpack__()]
            box.clear()
        except Exception:  # noqa: BLE001 - not old-style: broken; the checks of each call say how
            return False
        self.rec.fail("p-keywords", case, f"{_err(first)}; __dlpack__() works: an old-style producer (the "
                      "checker calls it as consumers do, without keywords)")
        self._old[tp] = True
        return True

    # ---- one export --------------------------------------------------------------------------------

    def export(self, e, kw, on_error=None):
        """e.x.__dlpack__(**kw) checked: the capsule's summary; the exception when refused; None when the
        capsule could not be read. on_error: the check a refusal of this legal call fails."""
        case = e.case(kw)
        legacy = kw.get("max_version") is None
        if not self.rec.begin(on_error or ("p-capsule-legacy" if legacy else "p-capsule-versioned"), case):
            return None
        kw, why = self._adapt(e, kw)
        if why:
            self.rec.na(on_error or "p-capsule-versioned", case, why)
            return None
        legacy = kw.get("max_version") is None
        try:
            self._base = sys.getrefcount(e.x)
            c = e.x.__dlpack__(**kw)
        except BufferError as err:
            _forget_frames(err)
            self.rec.ok("p-refusal-buffererror", case)
            if legacy:
                self.rec.ok("p-capsule-legacy", case)
                if self._readonly(e) and kw.get("copy") is not True:
                    self.rec.ok("p-read-only-legacy", case)
            elif on_error and not e.may_refuse:
                self.rec.fail(on_error, case, f"refused: {_err(err)}")
            else:
                self.rec.na("p-values", case, f"refused: {_err(err)}")
            return err
        except Exception as err:  # noqa: BLE001
            _forget_frames(err)
            self.rec.fail("p-refusal-buffererror", case, _err(err))
            if on_error:
                self.rec.fail(on_error, case, _err(err))
            return err
        box = [c]
        del c  # the box holds the only reference: end() must be able to drop it
        return self.inspect(e, box, kw, case)

    def inspect(self, e, box, kw, case):
        name = self._check_name(box[0], kw, case)
        if name is None:
            box.clear()
            return None
        self.rec.stage("p-shape")  # reading the fields follows the shape and strides pointers
        d = cap.Described.of(box[0])
        if d.versioned and not self._check_version(d, kw, case):
            self.end(box, d, case, e, False)
            return None
        copied = self._check_flags(e, d, kw, case)
        s = self._check_layout(e, d, kw, case, copied)
        self._check_device(e, d, kw, case)
        self.end(box, d, case, e, s is not None)
        if s is not None:
            s["copied"] = copied
        return s

    def _check_name(self, c, kw, case):
        rec = self.rec
        try:
            name = cap.capsule_name(c)
        except TypeError as err:
            rec.fail("p-capsule-versioned" if kw.get("max_version") else "p-capsule-legacy", case, str(err))
            return None
        want = "dltensor" if kw.get("max_version") is None else "dltensor_versioned"
        if kw.get("max_version") is None:
            rec.expect("p-capsule-legacy", case, name == want, f"capsule named {name!r}, not 'dltensor'")
        else:
            rec.expect("p-capsule-versioned", case, name == want, f"capsule named {name!r}, not {want!r}")
        return name if name in ("dltensor", "dltensor_versioned") else None

    def _check_version(self, d, kw, case):
        asked = kw.get("max_version") or (1, 0)
        ok = 1 <= d.version[0] <= max(asked[0], 1)
        self.rec.expect("p-version", case, ok, f"version {d.version[0]}.{d.version[1]} for max_version {asked}")
        return d.version[0] == 1

    def _check_flags(self, e, d, kw, case):
        """The flag checks; returns whether the export is a copy (by its IS_COPIED flag)."""
        rec, copy = self.rec, kw.get("copy")
        known = 7 if d.versioned and d.version >= (1, 1) else 3
        if d.versioned:
            rec.expect("p-flags-known", case, not d.flags & ~known, f"flags 0x{d.flags:x}: unknown bits "
                       f"0x{d.flags & ~known:x} in a {d.version[0]}.{d.version[1]} capsule")
        copied = bool(d.flags & cap.FLAG_IS_COPIED)
        if copy is True:
            rec.expect("p-flag-is-copied", case, copied or not d.versioned, "copy=True export lacks IS_COPIED")
        elif copy is False:
            rec.expect("p-flag-is-copied", case, not copied, "copy=False export is flagged IS_COPIED")
        ro = self._readonly(e)
        if d.versioned and not copied and copy is not True and ro is not None:
            rec.expect("p-flag-read-only", case, bool(d.flags & cap.FLAG_READ_ONLY) == ro,
                       f"READ_ONLY is {'clear' if ro else 'set'} but the array is {'' if ro else 'not '}read-only")
        if not d.versioned and ro and copy is not True:
            rec.fail("p-read-only-legacy", case, "read-only data exported as a legacy capsule (no READ_ONLY flag)")
        return copied or copy is True  # a requested copy has its own layout, flagged or not

    def _ptr(self, e):
        return self._hook("data_ptr", e.x)

    def _readonly(self, e):
        return self._hook("readonly", e.x)

    def _check_layout(self, e, d, kw, case, copied):
        rec, x = self.rec, e.x
        code, bits = cap.DTYPES[e.dtype]
        rec.expect("p-dtype", case, d.dtype == (code, bits, 1), f"dtype {d.dtype}, expected {(code, bits, 1)}")
        shape = tuple(int(v) for v in x.shape)
        if not rec.expect("p-shape", case, d.ndim == len(shape) and d.shape == shape,
                          f"ndim {d.ndim} shape {d.shape}, the array's shape is {shape}"):
            return None
        aligned = self._check_alignment(d, case)
        strides_ok = self._check_strides(e, d, case, copied)
        address_ok = self._check_address(e, d, kw, case, copied)
        if strides_ok is not False and address_ok is not False and aligned is not False:
            self._check_values(e, d, kw, case)
        return summary(d)

    def _check_alignment(self, d, case):
        """p-aligned (must) and the 256-byte advice; whether element 0 is aligned (None: nothing to check)."""
        if d.size == 0 or not d.data:
            return None
        isize = max(1, d.dtype[1] * d.dtype[2] // 8)
        aligned = self.rec.expect("p-aligned", case, d.first % isize == 0, f"data 0x{d.data:x} + byte_offset {d.byte_offset} "
                        f"is not a multiple of the element size {isize}")
        if d.data % 256 == 0:
            self.rec.ok("p-aligned-256", case)
        else:  # advice: never a failure (NumPy, PyTorch, JAX and dlx allocate 64-byte aligned)
            self.rec.na("p-aligned-256", case, f"advice not followed: data 0x{d.data:x} is not 256-byte aligned "
                        f"(byte_offset {d.byte_offset})")
        return aligned

    def _check_strides(self, e, d, case, copied):
        rec = self.rec
        if d.strides is None and d.ndim > 0:
            if d.versioned and d.version >= (1, 2):
                rec.fail("p-strides", case, f"strides is NULL in a {d.version[0]}.{d.version[1]} capsule")
                return False
        if copied:
            return None  # a copy has its own layout
        own = self._hook("strides", e.x)
        if own is None:
            rec.na("p-strides", case, "the framework does not say the array's strides")
            return None
        got = d.row_major_strides()
        bad = [i for i, n in enumerate(d.shape) if n > 1 and got[i] != own[i]]
        if d.size == 0:
            bad = []
        return rec.expect("p-strides", case, not bad,
                          f"strides {d.strides} (NULL: compact) where the array's are {own} (dims {bad})")

    def _check_address(self, e, d, kw, case, copied):
        rec = self.rec
        if kw.get("copy") is True or d.size == 0 or kw.get("dl_device") not in (None, e.dev):
            return None
        if copied and kw.get("copy") is None:
            return rec.expect("p-address", case, e.may_copy, "copied although a zero-copy export was possible")
        ptr = self._ptr(e)
        if ptr is None:
            rec.na("p-address", case, "the framework does not say the array's data pointer")
            return None
        return rec.expect("p-address", case, d.first == ptr, f"data 0x{d.data:x} + byte_offset {d.byte_offset} "
                          f"is not the array's element 0 at 0x{ptr:x}")

    def _check_values(self, e, d, kw, case):
        rec = self.rec
        if e.expected is None:
            rec.na("p-values", case, "no values to compare with (the framework does not show them)")
            return
        if d.size == 0:
            return
        if d.device[0] not in cap.HOST_TYPES:
            if kw != DEFAULT:
                return  # another export's memory: only the default one is read back through dlx
            got = self._device_values(e)
            if isinstance(got, str):
                rec.na("p-values", case, got)
                return
        else:
            self.rec.stage("p-values")  # reading the memory the capsule describes
            got = cap.read_elements(d.first, d.shape, d.row_major_strides(), cap.itemsize(e.dtype))
        rec.expect("p-values", case, got == e.expected, f"the capsule's memory holds {_hex(got)}, the array "
                   f"{_hex(e.expected)}")

    def _device_values(self, e):
        """The values of device memory, read by dlx from a fresh export of the same array."""
        try:
            import dlx

            from .frameworks import _dlx_bytes

            return _dlx_bytes(dlx.from_dlpack(e.x.__dlpack__(max_version=(1, 3))))
        except Exception as err:  # noqa: BLE001
            return f"dlx cannot read this device's memory to compare: {_err(err)}"

    def _check_device(self, e, d, kw, case):
        rec = self.rec
        if d.device[0] in cap.HOST_TYPES:
            rec.expect("p-device-id", case, d.device[1] == 0, f"device {d.device}: id must be 0")
        if kw.get("dl_device") is not None:
            return
        try:
            dev = e.x.__dlpack_device__()
            ok = isinstance(dev, tuple) and len(dev) == 2 and all(isinstance(v, int) for v in dev)
            why = f"__dlpack_device__() returned {dev!r}, the capsule's device is {d.device}"
            rec.expect("p-device", case, ok and tuple(int(v) for v in dev) == d.device, why)
        except Exception as err:  # noqa: BLE001
            rec.fail("p-device", case, f"__dlpack_device__() raised {_err(err)}")

    # ---- the end of a capsule ------------------------------------------------------------------------

    def end(self, box, d, case, e, sane=True):
        """Drop the capsule, or consume it (rename to used_*, drop it, call the deleter as a consumer does),
        alternately; the source must be released once dropped, and not by the destructor of a consumed
        one. Nothing of the capsule is changed but its name (what a consumer does): the release is seen
        through the reference count of e.x, where the export holds one (memory_probe() covers the rest).
        sane: the fields read as the name says (else the capsule is only dropped: a deleter read at the
        wrong offset is never called)."""
        consume = self._consume_next[d.versioned] and sane
        self._consume_next[d.versioned] = not self._consume_next[d.versioned]
        kind = "versioned" if d.versioned else "legacy"
        check = "p-deleter-consumed" if consume else "p-deleter-dropped"
        case = f"{case} ({kind}, {'consumed' if consume else 'dropped'})"
        self.rec.stage(check)
        held = sys.getrefcount(e.x) - self._base  # references the export holds to the array
        deleter, addr = d.deleter, d.addr
        if not deleter:
            self._null_deleter(case)
        c = box.pop()
        if consume:
            cap.rename(c, "used_dltensor_versioned" if d.versioned else "used_dltensor")
        del c
        gc.collect()
        left = sys.getrefcount(e.x) - self._base
        if left < 0:
            return  # the count before the export included garbage that gc.collect() freed: no telling
        if consume:
            if held > 0 and left < held:
                self.rec.fail(check, case, f"dropping the used_ capsule released the array ({held - left} of "
                              f"{held} reference(s)): its destructor ran the deleter")
                return
            if deleter:
                cap.DELETER(deleter)(addr)  # the consumer's own call (in the worker process)
            gc.collect()
            left = sys.getrefcount(e.x) - self._base
            if held > 0:
                self.rec.ok(check, case)
                self.rec.expect("p-deleter-dropped", case, left == 0, self._leak(left, deleter, "the deleter ran"))
            return
        if held <= 0:
            return  # the export holds no reference the checker can see: memory_probe() decides
        self.rec.expect(check, case, left == 0, self._leak(left, deleter, "the capsule was dropped"))

    @staticmethod
    def _leak(left, deleter, after):
        why = f"the export still holds {left} reference(s) to the array after {after}: it is never released"
        return why + (" (the deleter is NULL)" if not deleter else "")

    def _null_deleter(self, case):
        if not self._null_seen:
            self._null_seen = True
            self.rec.notes.append(f"NULL deleter (legal only when the export owns nothing): {case}")

def summary(d):
    """What two exports of one array must agree on."""
    st = d.row_major_strides()
    return {"first": d.first if d.size else None, "device": d.device, "dtype": d.dtype, "shape": d.shape,
            "strides": tuple(s if n > 1 else None for s, n in zip(st, d.shape)) if d.size else None,
            "flags": d.flags & (cap.FLAG_READ_ONLY | cap.FLAG_PADDED)}


def _hex(b):
    b = b or b""
    return b[:16].hex() + ("..." if len(b) > 16 else "")


class _Steps(ProducerRun):
    """The run: the catalogue's default exports, the combinations, the refusals and the exchange API."""

    def run(self):
        for dev in self.fw.devices():
            entries = self.catalogue(dev)
            for e in entries:
                on_error = "p-capsule-versioned" if e.label.startswith("compact") and e.dtype == "float32" else None
                e.default = self.export(e, dict(DEFAULT), on_error)
            chosen = [e for e in entries if e.label.startswith("compact") and e.dtype == "float32"]
            chosen += [e for e in entries if e.label in ("x[:, ::2]", "read-only")]
            for e in chosen:
                self.combinations(e)
            if chosen:
                self.requests(chosen[0])
            self.exchange(entries)
            entries.clear()
            gc.collect()
            self.memory_probe(dev)

    def combinations(self, e):
        done = {}
        for mv in MAX_VERSIONS:
            for copy in (None, True, False):
                for dl in (None, e.dev):
                    kw = {"max_version": mv, "copy": copy, "dl_device": dl}
                    s = done[(mv, copy, dl)] = self.export(e, kw, self._blame(done, mv, copy, dl))
                    if isinstance(s, dict):
                        self._after_call(e, kw, s)

    @staticmethod
    def _blame(done, mv, copy, dl):
        """The check a refusal of this legal call fails: its newest keyword, where the call without it
        worked (else the refusal is that call's own)."""
        if dl is not None and not isinstance(done.get((mv, copy, None)), Exception):
            return "p-dl-device-same"
        if copy and not isinstance(done.get((mv, None, dl)), Exception):
            return "p-copy-true"
        return "p-capsule-versioned" if mv else "p-capsule-legacy"

    def _after_call(self, e, kw, s):
        case, rec = e.case(kw), self.rec
        if kw["copy"] is True and s["first"] is not None:
            ptr = self._ptr(e)
            if ptr is not None:
                rec.expect("p-copy-true", case, s["first"] != ptr, "copy=True exported the array's own memory")
        if kw["dl_device"] is not None:
            rec.expect("p-dl-device-same", case, s["device"] == e.dev and (kw["copy"] is True or not s["copied"]),
                       f"dl_device={e.dev} gave a capsule on {s['device']}{' (a copy)' if s['copied'] else ''}")

    # ---- requests to refuse, and the streams -----------------------------------------------------------

    def requests(self, e):
        self.no_arguments(e)
        self.copy_false(e)
        self.foreign_device(e)
        self.to_cpu(e)
        self.streams(e)
        self.unknown_keyword(e)

    def _call(self, e, kw, check, raw=False):
        """(capsule summary, None) or (None, exception); a returned capsule is checked and ended. check: the
        check a crash or hang of the call fails. A case skipped after a crash is (None, None)."""
        kw = {"max_version": (1, 3), **kw} if not raw else kw
        if not self.rec.begin(check, e.case(kw)):
            return None, None
        kw, why = self._adapt(e, kw)
        if why:
            self.rec.na(check, e.case(kw), why)
            return None, None
        try:
            self._base = sys.getrefcount(e.x)
            box = [e.x.__dlpack__(**kw)]
        except Exception as err:  # noqa: BLE001
            _forget_frames(err)
            return None, err
        return self.inspect(e, box, kw, e.case(kw)) or {}, None

    def copy_false(self, e):
        others = [(cap.KDL_CUDA, 0)] if e.dev[0] in cap.HOST_TYPES else [(cap.KDL_CPU, 0)]
        others += [d for d in self.fw.devices() if d[0] == e.dev[0] and d != e.dev]
        for other in others:
            kw = {"max_version": (1, 3), "dl_device": other, "copy": False}
            s, err = self._call(e, kw, "p-copy-false")
            if s is None and err is None:
                continue
            allowed = (BufferError, ValueError) if other[0] == cap.KDL_CPU else (BufferError,)
            why = f"returned a capsule on {s.get('device') if s else '?'}" if err is None else _err(err)
            self.rec.expect("p-copy-false", e.case(kw), isinstance(err, allowed), why)

    def foreign_device(self, e):
        kw = {"max_version": (1, 3), "dl_device": (KDL_HEXAGON, 0)}
        s, err = self._call(e, kw, "p-dl-device-refused")
        if s is None and err is None:
            return
        ok = isinstance(err, BufferError) or (err is None and s.get("device") == (KDL_HEXAGON, 0))
        why = f"returned a capsule on {s.get('device')}" if err is None else _err(err)
        self.rec.expect("p-dl-device-refused", e.case(kw), ok, why)

    def to_cpu(self, e):
        kw = {"max_version": (1, 3), "dl_device": (cap.KDL_CPU, 0)}
        if e.dev[0] in cap.HOST_TYPES:
            self.rec.na("p-dl-device-cpu", e.case(kw), "the array is in host memory already")
            return
        s, err = self._call(e, kw, "p-dl-device-cpu")
        if s is None and err is None:
            return
        ok = err is None and s.get("device") == (cap.KDL_CPU, 0) and s.get("copied")
        why = _err(err) if err is not None else f"capsule on {s.get('device')}, IS_COPIED {s.get('copied')}"
        self.rec.expect("p-dl-device-cpu", e.case(kw), ok, why)

    def streams(self, e):
        rec = self.rec
        if e.dev[0] in cap.HOST_TYPES:
            s, err = self._call(e, {"stream": None}, "p-stream-cpu")
            if s is not None or err is not None:
                rec.expect("p-stream-cpu", e.case({"stream": None}), err is None, f"stream=None refused: {_err(err)}")
            s, err = self._call(e, {"stream": 1}, "p-stream-cpu")
            if s is not None or err is not None:
                rec.expect("p-stream-cpu", e.case({"stream": 1}), err is not None,
                           "stream=1 accepted for host memory")
            rec.na("p-stream-cuda", e.case(), "host memory")
            rec.na("p-stream-order", e.case(), "host memory has no streams")
            return
        rec.na("p-stream-cpu", e.case(), "device memory")
        if e.dev[0] != cap.KDL_CUDA:
            why = "the standard defines no stream values for this device type"
            rec.na("p-stream-cuda", e.case(), why)
            rec.na("p-stream-order", e.case(), why)
            return
        for v in (0, 1, 2, -1):
            s, err = self._call(e, {"stream": v}, "p-stream-cuda")
            if s is None and err is None:
                continue
            bad = err is None if v == 0 else err is not None
            rec.expect("p-stream-cuda", e.case({"stream": v}), not bad,
                       "stream=0 accepted" if v == 0 else f"stream={v} refused: {_err(err)}")
        self.stream_order(e)

    def stream_order(self, e):
        """Work still queued on the producer's stream must be done before the consumer's stream reads."""
        if not self.rec.begin("p-stream-order", e.case({"stream": "a dlx stream"})):
            return
        try:
            import dlx

            from .frameworks import _dlx_bytes

            made = self.fw.pending((1 << 20,), "float32", e.dev)
            if made is None:
                self.rec.na("p-stream-order", e.case(), "the framework cannot queue work for this check")
                return
            x, want = made
            s = dlx.cuda.Stream(device=e.dev[1])
            c = x.__dlpack__(max_version=(1, 3), stream=s.cuda_stream)
            with dlx.cuda.stream(s):
                got = _dlx_bytes(dlx.from_dlpack(c))
        except Exception as err:  # noqa: BLE001
            self.rec.fail("p-stream-order", e.case(), _err(err))
            return
        self.rec.expect("p-stream-order", e.case({"stream": "a dlx stream"}), got == want,
                        "the consumer's stream read values the producer had not finished writing")

    def no_arguments(self, e):
        """__dlpack__() as an old consumer calls it: a legacy capsule, or BufferError."""
        s, err = self._call(e, {}, "p-capsule-legacy", raw=True)
        if s is None and err is None:
            return
        if err is not None:
            self.rec.expect("p-capsule-legacy", e.case({}) + " (no arguments)", isinstance(err, BufferError),
                            f"__dlpack__() raised {_err(err)}")

    def unknown_keyword(self, e):
        kw = {"max_version": (1, 3), "dlx_check_unknown": 1}
        s, err = self._call(e, kw, "p-unknown-keyword")
        if s is None and err is None:
            return
        self.rec.expect("p-unknown-keyword", e.case(kw), isinstance(err, TypeError),
                        "accepted" if err is None else _err(err))

    # ---- the C exchange API ------------------------------------------------------------------------

    def exchange(self, entries):
        if not entries:
            return
        tp = type(entries[0].x)
        case = f"type {tp.__module__}.{tp.__qualname__}"
        if not self.rec.begin("p-exchange-api", case):
            return
        api, why = cap.exchange_api(tp)
        if api is None and why is None:
            old = "; it has the DLPack 1.2 __c_dlpack_exchange_api__" if hasattr(tp, "__c_dlpack_exchange_api__") else ""
            self.rec.na("p-exchange-api", case, f"no __dlpack_c_exchange_api__{old}")
            self.rec.na("p-exchange-agrees", case, "no exchange API")
            return
        if api is None:
            self.rec.fail("p-exchange-api", case, why)
            return
        missing = [f for f, _ in cap.DLPackExchangeAPI._fields_[1:5] if f != "dltensor_from_py_object_no_sync"
                   and not getattr(api, f)] + ([] if api.current_work_stream else ["current_work_stream"])
        if not self.rec.expect("p-exchange-api", case, not missing, f"NULL functions: {missing}"):
            return
        for e in entries:
            self._agrees(api, e)

    def _agrees(self, api, e):
        case = e.case({"exchange API": "managed_tensor_from_py_object_no_sync"})
        if not self.rec.begin("p-exchange-agrees", case):
            return
        out = cap.C.c_void_p()
        try:
            cap.FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(e.x, cap.C.byref(out))
            got = cap.Described(out.value, True)
        except Exception as err:  # noqa: BLE001
            got = err
        want = e.default
        if isinstance(got, cap.Described):
            s = summary(got)
            if got.deleter:
                cap.DELETER(got.deleter)(got.addr)
            if isinstance(want, dict):
                diff = [k for k in ("first", "device", "dtype", "shape", "strides", "flags") if s[k] != want[k]]
                self.rec.expect("p-exchange-agrees", case, not diff,
                                "; ".join(f"{k}: table {s[k]}, __dlpack__ {want[k]}" for k in diff))
            elif isinstance(want, Exception):
                self.rec.fail("p-exchange-agrees", case, f"the table exports what __dlpack__ refuses ({_err(want)})")
        elif isinstance(want, dict):
            self.rec.fail("p-exchange-agrees", case, f"the table refuses ({_err(got)}) what __dlpack__ exports")
        elif want is None:
            self.rec.na("p-exchange-agrees", case, "__dlpack__'s export of this array was not read")
        else:
            self.rec.ok("p-exchange-agrees", case)


UNTRIED = {
    "p-version": "no versioned capsule was returned",
    "p-flags-known": "no versioned capsule was returned",
    "p-flag-read-only": "no versioned capsule of an array whose read-only state the framework says",
    "p-read-only-legacy": "no read-only array (the framework has none, or does not say which are)",
    "p-refusal-buffererror": "nothing was refused",
    "p-copy-true": "no copy=True export could be compared with the array",
    "p-dl-device-same": "no export with dl_device could be read",
}


def run(fw, rec):
    _Steps(fw, rec).run()
    gc.collect()
    rec.explain_untried(UNTRIED)

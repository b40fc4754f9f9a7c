"""`dlx check consumer`: hands a framework's from_dlpack capsules made by the checker's own producer
(cap.Export: memory the checker owns, described field by field as each case says, every __dlpack__ call
recorded, every deleter call counted) and reads back what the framework made of them.

Cases, per device the framework imports from (host memory, and SYCL USM for dpctl and dlx):
 - values: a compact array of every dtype the framework has; byte_offset; strides (transposed, stepped,
   extent 1 with a huge stride, negative, zero); NULL strides (legacy, 1.1); 0-d and empty arrays;
 - ownership: the rename to used_*, the deleter once and only after the array dies, a producer whose
   destructor ignores used_, a refused capsule's deleter;
 - refusals: READ_ONLY data, a major version 2, a device __dlpack_device__ contradicts, a CPU device_id 1;
 - the call itself: max_version and stream as passed; zero-copy; copy=True.
The deleter of cap.Export frees nothing (the memory lives as long as the case), so a consumer that calls it
twice is counted, never crashed.
"""

import gc

from . import _capsule as cap
from .frameworks import as_bytes, same_dtype

SHAPE = (3, 4)


def _err(e):
    first = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {first}"[:160]


def _expect_elements(buf, shape, strides, first, dtype):
    """The elements the description names, row-major, from the buffer's bytes (element 0 at byte first)."""
    data, isize = buf.read(), cap.itemsize(dtype)
    return b"".join(data[first + o * isize:first + (o + 1) * isize] for o in cap.element_offsets(shape, strides))


class ConsumerRun:
    def __init__(self, fw, rec):
        self.fw, self.rec = fw, rec
        self.exports = []

    # ---- helpers -------------------------------------------------------------------------------------

    def buffer(self, dev, dtype, n, salt=0):
        """A buffer of n elements of dtype holding the pattern, on dev."""
        buf = _buffer(dev, max(n, 1) * cap.itemsize(dtype) + 256)
        buf.write(cap.pattern(dtype, (buf.nbytes) // cap.itemsize(dtype), salt))
        return buf

    def export(self, buf, shape, dtype, **kw):
        e = cap.Export(buf, shape, dtype, **kw)
        self.exports.append(e)
        return e

    def consume(self, e, **kw):
        """([array], None) or ([], exception): the list holds the only reference, so that settle() can
        let the array die."""
        try:
            return [self.fw.from_dlpack(e, **kw)], None
        except Exception as err:  # noqa: BLE001
            _forget_frames(err)
            return [], err

    def read(self, y):
        """The array's bytes, or the exception reading raised, its frames dropped: a traceback holds the
        array, which must be free to die when settle() counts deleter calls (paddle's read of a
        negative-stride import raised, and its kept traceback looked like a late deleter)."""
        try:
            return as_bytes(self.fw.read(y))
        except Exception as err:  # noqa: BLE001
            _forget_frames(err)
            return err

    def settle(self, e, y_box):
        """Drop the imported array and every capsule reference; the number of deleter calls after."""
        y_box.clear()
        e.capsules.clear()
        gc.collect()
        return e.deletions

    # ---- values --------------------------------------------------------------------------------------

    def values(self, dev):
        for dt in self.fw.consumer_dtypes():
            buf = self.buffer(dev, dt, 12)
            e = self.export(buf, SHAPE, dt)
            case = f"compact {SHAPE} {dt} on {dev}"
            if not self.rec.begin("c-values", case):
                continue
            self.layout_case("c-values", case, e, SHAPE, (4, 1), 0, dt, generic_refusal=True)

    def layout_case(self, check, case, e, shape, strides, first_items, dtype, may_refuse=False,
                    generic_refusal=False):
        """Import e and compare the values read back with the elements the description names."""
        box, err = self.consume(e)
        if err is not None:
            self.calls(e, case)
            if may_refuse and isinstance(err, BufferError):
                self.rec.ok(check, f"{case} (refused with BufferError)")
            elif generic_refusal and self._refusal(err):
                self.rec.na(check, case, f"refused: {_err(err)}")
            else:
                self.rec.fail(check, case, f"refused: {_err(err)}")
            self.settle(e, box)
            return
        first = first_items * cap.itemsize(dtype)
        want = _expect_elements(e.buffer, shape, strides, first, dtype) if 0 not in shape else b""
        got = self.read(box[0])
        if isinstance(got, Exception):
            self.rec.na(check, case, f"the imported array cannot be read back: {_err(got)}")
        else:
            self.rec.expect(check, case, got == want, f"read back {got[:16].hex()}, exported {want[:16].hex()}")
        if check == "c-values":
            try:
                dt = self.fw.dtype_of(box[0])
            except Exception as err:  # noqa: BLE001
                dt = _err(err)
            self.rec.expect(check, case, same_dtype(dt, dtype), f"imported as dtype {dt}")
        self.ownership(e, box, case, first, empty=not want)

    def _refusal(self, err):
        """A refusal of a dtype the framework lacks: BufferError or TypeError from a module:function target,
        or an exception class the adapter names in `refusals`."""
        from .frameworks import Generic

        return (isinstance(self.fw, Generic) and isinstance(err, (BufferError, TypeError))) or \
            isinstance(err, tuple(self.fw.refusals))

    def layouts(self, dev):
        dt = "float32"
        cases = [
            ("c-byte-offset", "byte_offset 64", SHAPE, (4, 1), 16, {"byte_offset": 64}, False),
            ("c-strides", "transposed (4, 3):(1, 4)", (4, 3), (1, 4), 0, {}, False),
            ("c-strides", "stepped (3, 2):(4, 2)", (3, 2), (4, 2), 0, {}, False),
            ("c-strides", "extent 1 (1, 4):(12345, 1)", (1, 4), (12345, 1), 0, {}, False),
            ("c-strides", "negative (4,):(-1,)", (4,), (-1,), 3, {"data_offset": 12}, True),
            ("c-strides", "zero (3, 4):(0, 1)", SHAPE, (0, 1), 0, {}, True),
            ("c-null-strides", "legacy, NULL strides", SHAPE, None, 0, {"version": None}, False),
            ("c-null-strides", "1.1, NULL strides", SHAPE, None, 0, {"version": (1, 1)}, False),
            ("c-zero-size", "0-d", (), (), 0, {}, False),
            ("c-zero-size", "empty (0, 4), strides (0, 0)", (0, 4), (0, 0), 0, {}, False),
        ]
        # the negative case: data 12 bytes in puts element 0 at item 3, and element i at item 3 - i
        for check, label, shape, strides, first, kw, may_refuse in cases:
            buf = self.buffer(dev, dt, 16)
            desc = cap._compact(shape) if strides is None else strides
            e = self.export(buf, shape, dt, strides=strides, **kw)
            if not self.rec.begin(check, f"{label} on {dev}"):
                continue
            self.layout_case(check, f"{label} on {dev}", e, shape, desc, first, dt, may_refuse=may_refuse)

    # ---- ownership, and the call itself -----------------------------------------------------------------

    def calls(self, e, case):
        rec = self.rec
        for kw in e.calls:
            mv = kw.get("max_version")
            rec.expect("c-max-version", case, mv is not None and mv[0] >= 1,
                       f"__dlpack__ called with max_version={mv!r}")
            stream = kw.get("stream")
            if e.reported[0] in cap.HOST_TYPES:
                rec.expect("c-stream", case, stream is None, f"stream={stream!r} passed for host memory")
            elif e.reported[0] == cap.KDL_CUDA:
                ok = stream is None or (isinstance(stream, int) and stream >= -1 and stream != 0)
                rec.expect("c-stream", case, ok, f"stream={stream!r} passed for CUDA memory")

    def ownership(self, e, y_box, case, first=0, empty=False):
        """The rename, and the deleter: not while the array uses the memory (element 0 at byte first of the
        buffer), exactly once after."""
        rec = self.rec
        self.calls(e, case)
        names = [cap.capsule_name(c) for c in e.capsules]
        rec.expect("c-rename", case, all(n.startswith("used_") for n in names),
                   f"capsule names after the import: {names}")
        early = e.deletions
        if early and not empty:
            # a copy may let go of the capsule at once; a view may not
            shared = self._shares(e, y_box[0], first)
            rec.expect("c-deleter-once", case, shared is False,
                       f"the deleter ran while the imported array still {'uses' if shared else 'may use'} the memory")
        n = self.settle(e, y_box)
        rec.expect("c-deleter-once", case, n == 1, f"the deleter ran {n} time(s) once the array died")

    def _shares(self, e, y, first=0):
        """True when a write to the exported element 0 (at byte first) shows in y, False when it does not,
        None when y cannot be read."""
        before = self.read(y)
        if isinstance(before, Exception) or not before:
            return None
        old = e.buffer.read(first, 1)
        e.buffer.write(bytes([old[0] ^ 0x01]), first)
        after = self.read(y)
        e.buffer.write(old, first)
        return None if isinstance(after, Exception) else after != before

    def zero_copy(self, dev):
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32")
        case = f"compact {SHAPE} float32 on {dev}"
        if self.rec.begin("c-zero-copy", case):
            self._zero_copy(e, case)
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32")
        case += " copy=True"
        if self.rec.begin("c-copy-true", case):
            self._copy_true(e, case)

    def _zero_copy(self, e, case):
        box, err = self.consume(e)
        if err is not None:
            self.rec.na("c-zero-copy", case, f"refused: {_err(err)}")
        else:
            shared = self._shares(e, box[0])
            if shared is None:
                self.rec.na("c-zero-copy", case, "the imported array cannot be read back")
            else:
                self.rec.expect("c-zero-copy", case, shared, "the imported array is a copy")
        self.settle(e, box)

    def _copy_true(self, e, case):
        box, err = self.consume(e, copy=True)
        if err is not None:
            self.rec.fail("c-copy-true", case, _err(err))
        else:
            shared = self._shares(e, box[0])
            self.rec.expect("c-copy-true", case, shared is False,
                            "the imported array shares the exported memory" if shared else "cannot be read back")
        self.settle(e, box)

    # ---- refusals ------------------------------------------------------------------------------------

    def read_only(self, dev):
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32", flags=cap.FLAG_READ_ONLY)
        case = f"READ_ONLY {SHAPE} float32 on {dev}"
        if not self.rec.begin("c-read-only", case):
            return
        box, err = self.consume(e)
        if err is not None:
            self.rec.ok("c-read-only", f"{case} (refused: {_err(err)})")
            self.settle(e, box)
            return
        before = buf.read()
        try:
            self.fw.write(box[0])
            wrote = buf.read() != before
            why = "a write through the imported array changed the read-only memory"
        except Exception:  # noqa: BLE001 - refused: read-only, or immutable
            wrote, why = False, ""
        buf.write(before)
        self.rec.expect("c-read-only", case, not wrote, why)
        self.settle(e, box)

    def refused(self, dev):
        """Capsules a consumer must refuse: each refusal must still run the deleter once."""
        cases = [
            ("c-major", "version 2.0 (whatever was asked)", {"version": (2, 0), "always_versioned": True}),
            (None, "dtype code 99", {"code": (99, 32)}),
            (None, "device type 99", {"device": (99, 0), "reported": (99, 0)}),
            ("c-device-agrees", "capsule on (3, 0), __dlpack_device__ (1, 0)",
             {"device": (cap.KDL_CUDA_HOST, 0), "reported": (cap.KDL_CPU, 0)}),
            ("c-device-agrees", "capsule on (1, 0), __dlpack_device__ (3, 0)",
             {"device": (cap.KDL_CPU, 0), "reported": (cap.KDL_CUDA_HOST, 0)}),
        ]
        for check, label, kw in cases:
            if dev[0] != cap.KDL_CPU and "device" in kw:
                continue
            buf = self.buffer(dev, "float32", 12)
            e = self.export(buf, SHAPE, "float32", **kw)
            case = f"{label} on {dev}"
            if not self.rec.begin(check or "c-refused-deleter", case):
                continue
            box, err = self.consume(e)
            if check:
                self.rec.expect(check, case, err is not None, "imported")
            made = e.made  # none when refused before (or by) the __dlpack__ call
            n = self.settle(e, box)
            if err is not None and made:
                self.rec.expect("c-refused-deleter", case, n == made,
                                f"the deleter ran {n} time(s) for {made} capsule(s) after the refusal")
            elif err is not None:
                self.rec.na("c-refused-deleter", case, f"refused before any __dlpack__ call ({_err(err)})")

    def legacy_answer(self, dev):
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32", version=None)
        case = f"legacy capsule for a versioned request on {dev}"
        if not self.rec.begin("c-legacy", case):
            return
        box, err = self.consume(e)
        if err is not None:
            self.rec.expect("c-legacy", case, isinstance(err, BufferError), f"refused with {_err(err)}")
            self.settle(e, box)
            return
        got = self.read(box[0])
        want = _expect_elements(buf, SHAPE, (4, 1), 0, "float32")
        self.rec.expect("c-legacy", case, got == want, "the values read back are not the exported ones")
        self.settle(e, box)

    def cpu_device_id(self):
        buf = self.buffer((cap.KDL_CPU, 0), "float32", 12)
        e = self.export(buf, SHAPE, "float32", device=(cap.KDL_CPU, 1), reported=(cap.KDL_CPU, 1))
        case = "kDLCPU device_id 1"
        if not self.rec.begin("c-cpu-device-id", case):
            return
        box, err = self.consume(e)
        if err is not None:
            self.rec.ok("c-cpu-device-id", f"{case} (refused: {_err(err)})")
        else:
            try:
                dev = self.fw.device_of(box[0])
            except Exception as err2:  # noqa: BLE001
                dev = _err(err2)
            self.rec.expect("c-cpu-device-id", case, dev == (cap.KDL_CPU, 0), f"imported as device {dev}")
        self.settle(e, box)

    def sloppy_destructor(self, dev):
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32", sloppy=True)
        case = f"producer whose destructor ignores 'used_' on {dev}"
        if not self.rec.begin("c-destructor-cleared", case):
            return
        box, err = self.consume(e)
        if err is not None:
            self.rec.fail("c-destructor-cleared", case, f"refused: {_err(err)}")
        n = self.settle(e, box)
        if err is None:
            self.rec.expect("c-destructor-cleared", case, n == 1, f"the deleter ran {n} time(s)")

    def hostile(self, dev):
        """Capsules that crash careless consumers (NULL shape, negative ndim, NULL deleter, misaligned data,
        a mislabelled capsule, unknown flags, lanes 0, 12-bit floats): each in its own case, so that a
        consumer that crashes on one fails that check and the others still run (isolate.py)."""
        for check, label, kw, expect in HOSTILE:
            buf = self.buffer(dev, "float32", 16)
            e = self.export(buf, SHAPE, "float32", **kw)
            case = f"{label} on {dev}"
            if not self.rec.begin(check, case):
                continue
            box, err = self.consume(e)
            if err is not None:
                self.rec.expect(check, case, expect != "import", f"refused a legal capsule: {_err(err)}")
            elif expect == "refuse":
                self.rec.fail(check, case, "imported")
            else:
                got = self.read(box[0])
                want = _expect_elements(buf, SHAPE, (4, 1), kw.get("byte_offset", 0), "float32")
                if "byte_offset" in kw and any(x[0] == "fail" for x in self.rec.cases["c-byte-offset"]):
                    self.rec.na(check, case, "byte_offset is not honoured even when aligned (c-byte-offset)")
                elif isinstance(got, Exception):
                    self.rec.na(check, case, f"the imported array cannot be read back: {_err(got)}")
                else:
                    self.rec.expect(check, case, got == want, f"read back {got[:16].hex()}, exported {want[:16].hex()}")
            self.settle(e, box)

    def legacy_read_only(self, dev):
        """A legacy capsule cannot say READ_ONLY, and immutable arrays (JAX's, TensorFlow's) are exported so:
        the import should be read-only (or a copy), as NumPy's is."""
        buf = self.buffer(dev, "float32", 12)
        e = self.export(buf, SHAPE, "float32", version=None)
        case = f"legacy capsule {SHAPE} float32 on {dev}"
        if not self.rec.begin("c-legacy-read-only", case):
            return
        box, err = self.consume(e)
        if err is not None:
            self.rec.na("c-legacy-read-only", case, f"refused: {_err(err)}")
            self.settle(e, box)
            return
        before = buf.read()
        try:
            self.fw.write(box[0])
            wrote = buf.read() != before
        except Exception:  # noqa: BLE001 - refused: read-only, or immutable
            wrote = False
        buf.write(before)
        self.rec.expect("c-legacy-read-only", case, not wrote,
                        "a write through the array imported from a legacy capsule reached the producer's memory")
        self.settle(e, box)

    def run(self):
        for dev in self.fw.consumer_devices():
            self.values(dev)
            self.layouts(dev)
            self.zero_copy(dev)
            self.read_only(dev)
            self.refused(dev)
            self.legacy_answer(dev)
            self.sloppy_destructor(dev)
            self.hostile(dev)
            self.legacy_read_only(dev)
        self.cpu_device_id()
        gc.collect()


def _forget_frames(err):
    """Drop an exception's tracebacks (and its context's): their frames may hold the capsule, which must
    be free to die when the checker counts deleter calls."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        err.__traceback__ = None
        err = err.__context__ or err.__cause__


def _buffer(dev, nbytes):
    if dev[0] == cap.KDL_CPU:
        return cap.HostBuffer(nbytes)
    return DeviceBuffer(dev, nbytes)


class DeviceBuffer:
    """Device memory (SYCL USM on oneapi:N, CUDA memory on cuda:N) allocated by dlx, read and written through
    dlx's copies (the device's queue or stream)."""

    def __init__(self, dev, nbytes):
        import dlx

        self.device, self.nbytes = dev, nbytes
        self._name = f"{'oneapi' if dev[0] == cap.KDL_ONEAPI else 'cuda'}:{dev[1]}"
        self._t = dlx.zeros((nbytes + 64,), "uint8", device=self._name)
        self.address = (self._t.data_ptr + 63) & ~63
        self._skip = self.address - self._t.data_ptr

    def clone(self):
        other = DeviceBuffer(self.device, self.nbytes)
        other.write(self.read())
        return other

    def write(self, data, offset=0):
        import dlx

        host = cap.HostBuffer(len(data))
        host.write(data)
        src = dlx.from_dlpack(cap.Export(host, (len(data),), "uint8"), copy=True)
        start = self._skip + offset
        self._t[start:start + len(data)].copy_(src)

    def read(self, offset=0, n=None):
        from .frameworks import _dlx_bytes

        n = self.nbytes - offset if n is None else n
        start = self._skip + offset
        return _dlx_bytes(self._t[start:start + n])


def run(fw, rec):
    ConsumerRun(fw, rec).run()
    rec.explain_untried(UNTRIED)


def _set(field, value):
    def tamper(m, t, versioned):
        setattr(t, field, value)

    return tamper


def _lanes_0(m, t, versioned):
    t.dtype.lanes = 0


def _bits_12(m, t, versioned):
    t.dtype.bits = 12


def _no_deleter(m, t, versioned):
    m.deleter = None


def _named(name):
    def tamper(m, t, versioned):
        return cap.NAMES[name]

    return tamper


# (check, case, Export keywords, "refuse" | "import" | "either")
HOSTILE = [
    ("c-null-shape", "ndim 2 with shape NULL", {"tamper": _set("shape", None)}, "refuse"),
    ("c-ndim-negative", "ndim -1", {"tamper": _set("ndim", -1)}, "refuse"),
    ("c-ndim-negative", "ndim -1, legacy", {"tamper": _set("ndim", -1), "version": None}, "refuse"),
    ("c-null-deleter", "deleter NULL", {"tamper": _no_deleter}, "import"),
    ("c-misaligned", "float32 at byte_offset 2", {"byte_offset": 2}, "either"),
    ("c-mislabelled", "a DLManagedTensorVersioned in a 'dltensor' capsule",
     {"tamper": _named("dltensor"), "always_versioned": True}, "refuse"),
    ("c-mislabelled", "a DLManagedTensor in a 'dltensor_versioned' capsule",
     {"tamper": _named("dltensor_versioned"), "version": None}, "refuse"),
    ("c-flags-unknown", "flag bit 20 in a 1.3 capsule", {"flags": 1 << 20}, "either"),
    ("c-lanes", "lanes 0", {"tamper": _lanes_0}, "refuse"),
    ("c-bits", "float32 code with bits 12", {"tamper": _bits_12}, "refuse"),
]


UNTRIED = {"c-refused-deleter": "the consumer refused no capsule after calling __dlpack__"}

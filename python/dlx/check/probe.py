"""The producer's memory probe: a leak that no Python reference count shows (an export that holds the array
in C, as PyTorch's at::Tensor and JAX's buffers do) shows in the process's resident memory. A mixin of
producer.ProducerRun (self.fw, self.rec)."""

import gc
import os

from . import _capsule as cap


def _err(e):
    first = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {first}"[:160]


class MemoryProbe:
    def memory_probe(self, dev):
        """A 64 MiB array, exported and dropped (or consumed and deleted), must give its memory back.
        For exports that hold the array in C (PyTorch's at::Tensor, JAX's buffer), where no Python
        reference count moves. A control run without an export first: a framework that keeps freed memory
        for itself makes the probe n/a."""
        if dev[0] not in cap.HOST_TYPES or _rss() is None or not self._has_make_big():
            return
        for consume in (False, True):
            check = "p-deleter-consumed" if consume else "p-deleter-dropped"
            case = f"64 MiB float32 on {dev} ({'consumed' if consume else 'dropped'}, memory probe)"
            if not self.rec.begin(check, case):
                continue
            why = self._probe(dev, consume)
            if why is None:
                self.rec.ok(check, case)
            elif why.startswith("n/a: "):
                self.rec.na(check, case, why[5:])
            else:
                self.rec.fail(check, case, why)

    def _has_make_big(self):
        """Only an adapter that makes a big array cheaply (make_big) is probed: make() of a module:function
        target may build 16 M elements in Python."""
        from .frameworks import Ducked, Framework

        if isinstance(self.fw, Ducked):
            return hasattr(self.fw.obj, "make_big")
        return type(self.fw).make_big is not Framework.make_big

    def _probe(self, dev, consume):
        n = PROBE_BYTES // 4
        for control in (True, False):
            gc.collect()
            before = _rss()
            try:
                box = [self.fw.make_big(n, dev)]
            except Exception as err:  # noqa: BLE001
                return f"n/a: the framework cannot make a {PROBE_BYTES >> 20} MiB array: {_err(err)}"
            if box[0] is None or _rss() - before < PROBE_BYTES // 2:
                box.clear()
                return "n/a: making the array did not take its memory at once"
            if not control:
                out = self._probe_export(box, consume, before)
                if out != "":
                    return out
            box.clear()
            gc.collect()
            if _rss() - before > PROBE_BYTES // 2:
                if control:
                    return "n/a: the framework keeps freed memory (even without an export)"
                return (f"the {PROBE_BYTES >> 20} MiB of the array were not freed once the array and its "
                        f"{'deleted ' if consume else 'dropped '}capsule were gone: the export is never released")
        return None

    def _probe_export(self, box, consume, before):
        """Export box[0] and let go of the capsule; "" to go on, else a result of _probe."""
        x = box[0]
        try:
            c = x.__dlpack__(max_version=(1, 3))
        except TypeError:
            c = x.__dlpack__()
        except Exception as err:  # noqa: BLE001
            return f"n/a: the export was refused: {_err(err)}"
        del x
        d = cap.Described.of(c)
        if not consume:
            del c
            return ""
        cap.rename(c, "used_dltensor_versioned" if d.versioned else "used_dltensor")
        del c
        box.clear()
        gc.collect()
        if _rss() - before < PROBE_BYTES // 2:
            return "dropping the used_ capsule freed the array: its destructor ran the deleter"
        if d.deleter:
            cap.DELETER(d.deleter)(d.addr)
        return ""


PROBE_BYTES = 64 << 20  # above glibc's largest mmap threshold (32 MiB): freed memory goes back at once


def _rss():
    """The resident set size of this process in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None

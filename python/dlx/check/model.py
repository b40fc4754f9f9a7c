"""The catalogue's views, each with a model: which elements of the compact base it holds. The model gives
the expected values of a view where the framework cannot show them, from the base's values alone.

Views use the Array API's indexing (x[key], x.T) and, for zero strides, the framework's broadcast.
"""

from . import _capsule as cap


class Strided:
    """A strided view of a compact row-major base, in items: shape, strides and the offset of element 0."""

    def __init__(self, shape, strides=None, offset=0):
        self.shape = tuple(shape)
        self.strides = tuple(cap._compact(self.shape) if strides is None else strides)
        self.offset = offset

    def index(self, key):
        shape, strides, off, dim = [], [], self.offset, 0
        for k in key:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            e, s = self.shape[dim], self.strides[dim]
            if isinstance(k, slice):
                r = range(*k.indices(e))
                off += (r.start * s) if len(r) else 0
                shape.append(len(r))
                strides.append(s * r.step)
            else:
                off += (k % e) * s
            dim += 1
        return Strided(shape + list(self.shape[dim:]), strides + list(self.strides[dim:]), off)

    def transposed(self):
        return Strided(self.shape[::-1], self.strides[::-1], self.offset)

    def broadcast(self, shape):
        lead = len(shape) - len(self.shape)
        st = [0] * lead + [0 if n == 1 and m != 1 else s for s, n, m in zip(self.strides, self.shape, shape[lead:])]
        return Strided(shape, st, self.offset)

    def take(self, base_bytes, isize):
        """The view's elements, row-major, as bytes, from the base's compact bytes."""
        idx = [self.offset + o for o in cap.element_offsets(self.shape, self.strides)]
        return b"".join(base_bytes[i * isize:(i + 1) * isize] for i in idx)


class View:
    def __init__(self, label, apply, model, may_refuse=False):
        self.label, self._apply, self._model, self.may_refuse = label, apply, model, may_refuse

    def apply(self, x, fw):
        return self._apply(x, fw)

    def model(self, base_shape):
        return self._model(Strided(base_shape))


def _key(key):
    return View(f"x[{_key_text(key)}]", lambda x, fw: x[key], lambda m: m.index(key),
                may_refuse=any(isinstance(k, slice) and (k.step or 1) < 0 for k in key))


def _key_text(key):
    def one(k):
        if k is None:
            return "None"
        if isinstance(k, slice):
            return ":".join("" if v is None else str(v) for v in (k.start, k.stop, k.step)).rstrip(":") or ":"
        return str(k)

    return ", ".join(one(k) for k in key)


# (4, 6) base: a step, an offset (a byte offset or a moved data pointer), an extent 1 with a large stride,
# a new axis, negative strides, the transpose, and zero strides
VIEWS = [
    _key((slice(None), slice(None, None, 2))),
    _key((slice(1, None), slice(2, None))),
    _key((slice(1, 2),)),
    _key((slice(None), None)),
    _key((slice(None, None, -1),)),
    _key((slice(None, None, -1), slice(None, None, -2))),
    View("x.T", lambda x, fw: x.T, lambda m: m.transposed()),
    View("broadcast_to(x[1], (4, 6))", lambda x, fw: fw.broadcast(x[1], (4, 6)),
         lambda m: m.index((1,)).broadcast((4, 6)), may_refuse=True),
]

"""dlx.cuda: CUDA devices, streams and dlx's caching allocator.

Everything works in every build: without the CUDA backend (``is_built()`` False) or without a GPU
(``device_count()`` 0), ``is_available()`` is False and what needs a device raises RuntimeError saying why.

Streams are ``cudaStream_t`` handles. dlx runs its device work on the calling thread's *current stream*
of each device (the legacy default stream until changed); ``with dlx.cuda.stream(s):`` makes ``s``
current for the block, in this thread only. ``Stream`` wraps a handle dlx created (``Stream()``) or a
foreign one: an int, or any object with a ``cuda_stream`` (torch.cuda.Stream) or ``ptr``
(cupy.cuda.Stream) attribute.
"""
import contextlib as _contextlib

from ._dlx import _cuda as _c

__all__ = ["Stream", "current_stream", "device_count", "empty_cache", "is_available", "is_built",
           "memory_stats", "stream", "synchronize"]


def is_built() -> bool:
    """Whether this dlx has the CUDA backend: its module, libdlx_cuda.so, beside the extension (a build with
    CUDA puts it there), loaded now if it was not yet."""
    return _c.built()


def device_count() -> int:
    """The CUDA devices present (0 without the backend, a driver or a GPU)."""
    return _c.device_count()


def is_available() -> bool:
    """Whether dlx can compute on a CUDA device here: built with CUDA and at least one device."""
    return _c.built() and _c.device_count() > 0


def _device_index(device) -> int:
    """A CUDA device as an int id: an int, "cuda", "cuda:N", ("cuda", N), (2, N) or a torch.device."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    kind, index = _c.parse_device(device)
    if kind != 2:  # kDLCUDA
        raise ValueError(f"{device!r} is not a CUDA device")
    return index


def synchronize(device=None) -> None:
    """Wait for all work on a device (every device when None). Never needed between dlx ops, which
    are ordered on their stream; for timing, or before reading device memory by other means."""
    if not is_built():
        raise RuntimeError("dlx.cuda.synchronize: dlx was built without CUDA (DLX_WITH_CUDA=OFF)")
    if device is None:
        n = _c.device_count()
        if n == 0:
            raise RuntimeError("dlx.cuda.synchronize: no CUDA device is present")
        for d in range(n):
            _c.synchronize(d)
        return
    _c.synchronize(_device_index(device))


def empty_cache() -> None:
    """Return every cached block of dlx's caching allocator to the driver (a no-op without CUDA)."""
    _c.empty_cache()


def memory_stats(device=0) -> dict:
    """The caching allocator's counters for a device: ``allocated`` (bytes handed out), ``cached``
    (bytes of freed blocks kept for reuse), ``peak_allocated``, ``driver_allocs`` (cudaMalloc calls)."""
    return _c.memory_stats(_device_index(device))


class Stream:
    """A CUDA stream: ``Stream(device=0)`` creates one (non-blocking with respect to the legacy default
    stream; destroyed with the object, after its queued work), ``Stream(handle)`` wraps a foreign one
    (an int cudaStream_t, 0 the legacy default; or an object with ``cuda_stream`` / ``ptr``), which
    dlx never destroys. ``cuda_stream`` is the handle, as torch names it, so dlx, torch and CuPy streams
    are interchangeable wherever a stream is taken."""

    def __init__(self, handle=None, device=None, *, non_blocking=True):
        self._owned = False
        if handle is None:
            self.device = 0 if device is None else _device_index(device)
            self.cuda_stream = _c.stream_create(self.device, non_blocking)
            self._owned = True
            return
        self.cuda_stream = _c.stream_handle(handle)
        if device is None:
            # torch.cuda.Stream: device_index; cupy.cuda.Stream: device_id; dlx.cuda.Stream: device
            for attr in ("device_index", "device_id", "device"):
                d = getattr(handle, attr, None)
                if isinstance(d, int) and not isinstance(d, bool):
                    device = d
                    break
        self.device = 0 if device is None else _device_index(device)

    @property
    def ptr(self) -> int:
        """The handle, as CuPy names it."""
        return self.cuda_stream

    def synchronize(self) -> None:
        """Wait on the host until the work queued on this stream is done."""
        _c.stream_synchronize(self.device, self.cuda_stream)

    def wait_stream(self, other) -> None:
        """Make this stream wait for the work queued on ``other`` so far (an event; the host goes on)."""
        _c.stream_wait(self.device, self.cuda_stream, _c.stream_handle(other))

    def close(self) -> None:
        """Destroy a stream dlx created (its queued work still runs); a no-op for a wrapped one."""
        if self._owned:
            self._owned = False
            _c.stream_destroy(self.device, self.cuda_stream)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the runtime may be gone
            pass

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.cuda_stream, self.device) == (other.cuda_stream, other.device)

    def __hash__(self):
        return hash((self.cuda_stream, self.device))

    def __repr__(self):
        kind = "" if self._owned else ", wrapped"
        return f"<dlx.cuda.Stream cuda:{self.device} 0x{self.cuda_stream:x}{kind}>"


def current_stream(device=0) -> Stream:
    """This thread's current stream on a device (handle 0: the legacy default stream)."""
    d = _device_index(device)
    return Stream(_c.get_stream(d), d)


@_contextlib.contextmanager
def stream(s):
    """``with dlx.cuda.stream(s): ...`` makes s (a Stream, a torch or CuPy stream, or an int handle on
    device 0) this thread's current stream on its device for the block, then restores the previous one.
    None is a no-op, as in torch."""
    if s is None:
        yield None
        return
    if not isinstance(s, Stream):
        s = Stream(s)
    previous = _c.set_stream(s.device, s.cuda_stream)
    try:
        yield s
    finally:
        _c.set_stream(s.device, previous)

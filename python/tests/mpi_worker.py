"""The MPI side of test_mpi.py: run under mpirun, every rank does every check, rank 0 writes the results.

    mpirun -n 2 python python/tests/mpi_worker.py results.json

Each check is recorded by name ("reduce:bfloat16:sum", "transfer:int128", "strided", ...) with the
failures every rank saw; test_mpi.py asserts that each name it expects is there and clean. References are
computed locally with dlx (and NumPy for min/max) from the data of every rank, which every rank
regenerates from the same seeds. Importing this module does not import mpi4py (test_mpi.py reads the
dtype lists below without it).

Data: over two ranks, the narrow formats get all bit patterns (float8: every pair of bytes, exhaustively;
16-bit: random pairs), NaN, inf and -0 included; native floats get random values (no NaN, no zero, since
MPI's own min/max leave those to the order). Over more ranks MPI chooses the order in which partial
results combine, so sum and prod get data whose every partial result is exact (small integers; for
float8_e8m0fnu, one dominant power of two), and min/max (associative) keep the full random data.
"""

import json
import os
import sys
import traceback
import zlib

import numpy as np

NATIVE = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
NARROW = ["float16", "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
          "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
# transferred as bytes, never reduced
TRANSFER_ONLY = ["int128", "uint128", "float128", "complex32", "float32x4", "bfloat16x2"]
PACKED = ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
OPS = ["sum", "prod", "min", "max"]
REDUCIBLE = NATIVE + NARROW
# whether MPI's 8/16-bit integer sums wrap as dlx's do (set by main(): not with Open MPI's AVX op component)
INT_SUMS_WRAP = True


def supported_ops(dtype):
    if dtype in ("complex64", "complex128"):
        return ["sum", "prod"]
    return OPS if dtype in REDUCIBLE else []


def refused_pairs():
    """(op, dtype) pairs dlx.mpi must refuse with TypeError."""
    pairs = [(o, d) for d in ("complex64", "complex128") for o in ("min", "max")]
    pairs += [(o, d) for d in TRANSFER_ONLY + PACKED for o in OPS]
    return pairs


def check_names():
    names = [f"reduce:{d}:{o}" for d in REDUCIBLE for o in supported_ops(d)]
    names += [f"transfer:{d}" for d in NATIVE + NARROW + TRANSFER_ONLY]
    names += ["refused", "packed", "strided", "readonly", "api", "large"]
    return names


# ---------------------------------------------------------------------------------------------
# Bits in and out of dlx tensors of any dtype (NumPy knows none of the narrow ones: go through uintK)

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _carrier(itemsize):
    """(NumPy dtype, dlx dtype name) of an item size dlx can .view() any dtype of that size as."""
    if itemsize == 16:
        return np.complex128, "complex128"
    return _UINT[itemsize], f"uint{8 * itemsize}"


def from_bytes(dlx, raw, dtype, shape):
    """A dlx tensor of dtype and shape holding the bytes `raw` (a NumPy uint8 array)."""
    itemsize = dlx.empty((0,), dtype).itemsize
    npt, _ = _carrier(itemsize)
    a = np.ascontiguousarray(raw).view(npt).reshape(shape).copy()
    return dlx.from_dlpack(a).view(dtype)


def to_bytes(dlx, t):
    """The bytes of a dlx tensor, in C order, as a NumPy uint8 array."""
    _, name = _carrier(t.itemsize)
    c = dlx.empty(t.shape, t.dtype).copy_(t) if not t.is_contiguous else t
    return np.from_dlpack(c.view(name)).reshape(-1).view(np.uint8).copy()


def seed(*parts):
    return zlib.crc32(repr(parts).encode())


# ---------------------------------------------------------------------------------------------
# Data per (dtype, op, rank)


def make_data(dlx, dtype, op, rank, size):
    """Rank `rank`'s operand for reducing `dtype` by `op` over `size` ranks (every rank can make any rank's)."""
    rng = np.random.default_rng(seed(dtype, op, rank, size))
    exact = size > 2 and op in ("sum", "prod")
    n = 4099
    if dtype in NARROW:
        itemsize = dlx.empty((0,), dtype).itemsize
        if not exact:
            if itemsize == 1 and size == 2:
                # every pair of bytes: rank 0 the high byte of i, rank 1 the low one
                i = np.arange(65536)
                raw = ((i >> 8) if rank == 0 else (i & 255)).astype(np.uint8)
            else:
                raw = rng.integers(0, 1 << (8 * itemsize), n, dtype=_UINT[itemsize]).view(np.uint8)
            return from_bytes(dlx, raw, dtype, (-1,))
        if dtype == "float8_e8m0fnu":
            # no zero, no sign, no mantissa: rank 0 dominates by far, so the order cannot matter
            e = rng.integers(6, 9, n) if rank == 0 else rng.integers(-4, -1, n)
            if op == "prod":
                e = rng.integers(-3, 4, n)
            return dlx.from_dlpack(np.ldexp(1.0, e).astype(np.float32)).astype(dtype)
        v = rng.integers(-2, 3, n).astype(np.float32)
        return dlx.from_dlpack(v).astype(dtype)
    if dtype == "bool":
        return dlx.from_dlpack(rng.integers(0, 2, n).astype(np.bool_))
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        lo, hi = info.min, info.max
        if op == "sum" and info.bits <= 16 and not INT_SUMS_WRAP:
            # Open MPI's AVX ops saturate 8- and 16-bit sums that overflow (open-mpi/ompi#8045): stay in range
            lo, hi = lo // size, hi // size
        return dlx.from_dlpack(rng.integers(lo, hi, n, dtype=dtype, endpoint=True))
    if dtype.startswith("float"):
        if exact:
            v = rng.integers(-8, 9, n)
        else:
            v = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))
            v[:3] = [np.inf, -np.inf, 1.0]
        return dlx.from_dlpack(v.astype(dtype))
    # complex
    if exact:
        # +-(a + 1j) with a in 3..7: arguments below pi/8 (mod pi), so no partial product of four has a
        # zero part, whose sign would depend on the order ((p + 0j) * (q + 0j) with p, q < 0 is -0 imag)
        v = rng.choice([-1, 1], n) * (rng.integers(3, 8, n) + 1j)
    else:
        v = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    return dlx.from_dlpack(v.astype(dtype))


# ---------------------------------------------------------------------------------------------
# References


def reference(dlx, dtype, op, operands):
    """The left fold of `operands` by `op`, computed locally."""
    acc = operands[0]
    for x in operands[1:]:
        acc = combine(dlx, dtype, op, acc, x)
    return acc


def combine(dlx, dtype, op, a, b):
    if op in ("sum", "prod"):
        f = dlx.add if op == "sum" else dlx.multiply
        if dtype in NARROW:  # dlx.sum / dlx.prod of the pair: float32, rounded once; a sum starts from +0.0
            pair = dlx.empty((2,) + tuple(a.shape), dtype)
            pair[0].copy_(a)
            pair[1].copy_(b)
            return getattr(dlx, op)(pair, axis=0)
        return f(a, b)  # bool: + is or, * is and; integers wrap; floats and complex as MPI computes them
    if dtype in NARROW:
        return narrow_minmax(dlx, dtype, op, a, b)
    na, nb = np.from_dlpack(a), np.from_dlpack(b)
    if dtype == "bool":
        r = (na & nb) if op == "min" else (na | nb)
    else:
        r = np.minimum(na, nb) if op == "min" else np.maximum(na, nb)
    return dlx.from_dlpack(np.ascontiguousarray(r))


def narrow_minmax(dlx, dtype, op, a, b):
    """IEEE 754-2019 minimum / maximum on the decoded values, choosing the operand's own bits:
    NaN wins (two NaNs: the smaller bit pattern), -0 < +0."""
    A, B = to_bytes(dlx, a), to_bytes(dlx, b)
    npt, _ = _carrier(a.itemsize)
    A, B = A.view(npt), B.view(npt)
    af = np.from_dlpack(a.astype("float32"))
    bf = np.from_dlpack(b.astype("float32"))
    an, bn = np.isnan(af), np.isnan(bf)
    with np.errstate(invalid="ignore"):
        value = np.minimum(af, bf) if op == "min" else np.maximum(af, bf)
    both_zero = (af == 0) & (bf == 0)
    want_neg = op == "min"
    zero_pick = np.where(np.signbit(af) == want_neg, A, B)
    pick = np.where(af == value, A, B)
    pick = np.where(both_zero, zero_pick, pick)
    pick = np.where(an | bn, np.where(an & bn, np.minimum(A, B), np.where(an, A, B)), pick)
    return from_bytes(dlx, pick.view(np.uint8), dtype, a.shape)


def compare(dlx, dtype, op, got, want):
    """None when got equals want bit for bit (NaN for NaN after sum/prod of floats), else a message."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
    g, w = to_bytes(dlx, got), to_bytes(dlx, want)
    if dtype in NARROW + ["float32", "float64", "complex64", "complex128"] and op in ("sum", "prod"):
        gf = np.from_dlpack(got.astype("complex128" if dtype.startswith("complex") else "float64"))
        wf = np.from_dlpack(want.astype("complex128" if dtype.startswith("complex") else "float64"))
        gn, wn = np.isnan(gf), np.isnan(wf)
        if (gn != wn).any():
            i = int(np.flatnonzero(gn != wn)[0])
            return f"element {i}: got {gf[i]!r}, want {wf[i]!r} (NaN mismatch)"
        k = got.itemsize
        ok = (g.reshape(-1, k) == w.reshape(-1, k)).all(axis=1) | wn.reshape(-1)
    else:
        k = got.itemsize
        ok = (g.reshape(-1, k) == w.reshape(-1, k)).all(axis=1)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        i = int(bad[0])
        gv = np.from_dlpack(got.reshape(-1)[i:i + 1].astype("float64" if dtype in NARROW else dtype))[0] \
            if dtype not in ("bool",) else None
        wv = np.from_dlpack(want.reshape(-1)[i:i + 1].astype("float64" if dtype in NARROW else dtype))[0] \
            if dtype not in ("bool",) else None
        return (f"{len(bad)} of {ok.size} elements differ; first at {i}: got bytes "
                f"{g.reshape(-1, k)[i].tobytes().hex()} ({gv!r}), want {w.reshape(-1, k)[i].tobytes().hex()} ({wv!r})")
    return None


# ---------------------------------------------------------------------------------------------
# The checks


class Checks:
    def __init__(self):
        self.results = {}

    def run(self, name, fn, *args):
        self.results.setdefault(name, [])
        try:
            fn(self, name, *args)
        except Exception:  # noqa: BLE001 - reported, never swallowed
            self.results[name].append("exception: " + traceback.format_exc(limit=6))

    def fail(self, name, msg):
        self.results[name].append(msg)

    def expect(self, name, cond, msg):
        if not cond:
            self.fail(name, msg)


def expect_raises(ck, name, exc, fragments, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        text = str(e)
        missing = [f for f in fragments if f not in text]
        if missing:
            ck.fail(name, f"{exc.__name__} message {text!r} lacks {missing}")
        return
    except Exception as e:  # noqa: BLE001
        ck.fail(name, f"expected {exc.__name__}, got {type(e).__name__}: {e}")
        return
    ck.fail(name, f"expected {exc.__name__}, nothing raised")


def check_reduce(ck, name, dlx, M, comm, dtype, op):
    size, rank = comm.Get_size(), comm.Get_rank()
    data = [make_data(dlx, dtype, op, r, size) for r in range(size)]
    want = reference(dlx, dtype, op, data)
    mine = data[rank]
    # the wrapper, recvbuf allocated
    got = M.allreduce(comm, mine, op=op)
    msg = compare(dlx, dtype, op, got, want)
    if msg:
        ck.fail(name, f"allreduce: {msg}")
    # the wrapper, reduce onto the last rank, into a given NumPy-free recvbuf
    root = size - 1
    out = dlx.empty(mine.shape, dtype)
    res = M.reduce(comm, mine, out, op=op, root=root)
    if rank == root:
        ck.expect(name, res is out, "reduce did not return recvbuf at the root")
        msg = compare(dlx, dtype, op, out, want)
        if msg:
            ck.fail(name, f"reduce: {msg}")
    else:
        ck.expect(name, res is None, "reduce returned something off the root")
    # mpi4py directly, with the triples and the op
    out2 = dlx.empty(mine.shape, dtype)
    comm.Allreduce(M.message(mine), M.message(out2), op=M.op(op, dtype))
    msg = compare(dlx, dtype, op, out2, want)
    if msg:
        ck.fail(name, f"comm.Allreduce(message, message, op): {msg}")
    # in place
    buf = dlx.empty(mine.shape, dtype).copy_(mine)
    M.allreduce(comm, M.IN_PLACE, buf, op=op)
    msg = compare(dlx, dtype, op, buf, want)
    if msg:
        ck.fail(name, f"allreduce IN_PLACE: {msg}")


def check_transfer(ck, name, dlx, M, comm, dtype):
    size, rank = comm.Get_size(), comm.Get_rank()
    itemsize = dlx.empty((0,), dtype).itemsize
    shape = (5, 7)

    def payload(who):
        rng = np.random.default_rng(seed("transfer", dtype, who))
        return rng.integers(0, 256, int(np.prod(shape)) * itemsize, dtype=np.uint8)

    expect_dt = M.datatype(dtype)
    ck.expect(name, expect_dt.Get_size() == itemsize, f"datatype size {expect_dt.Get_size()} != itemsize {itemsize}")
    # bcast from the last rank
    root = size - 1
    buf = from_bytes(dlx, payload("bcast"), dtype, shape) if rank == root else dlx.zeros(shape, dtype)
    r = M.bcast(comm, buf, root=root)
    ck.expect(name, r is buf, "bcast did not return buf")
    ck.expect(name, (to_bytes(dlx, buf) == payload("bcast")).all(), f"bcast: bytes differ on rank {rank}")
    # a ring of send / recv: rank r sends its payload to r+1
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    mine = from_bytes(dlx, payload(("ring", rank)), dtype, shape)
    into = dlx.zeros(shape, dtype)
    if rank == 0:
        M.send(comm, mine, nxt, tag=7)
        r = M.recv(comm, into, source=prv, tag=7)
    else:
        r = M.recv(comm, into, source=prv, tag=7)
        M.send(comm, mine, nxt, tag=7)
    ck.expect(name, r is into, "recv did not return buf")
    ck.expect(name, (to_bytes(dlx, into) == payload(("ring", prv))).all(), f"send/recv: bytes differ on rank {rank}")
    # a status with any source / tag
    if size >= 2:
        st = M.MPI.Status()
        if rank == 0:
            M.send(comm, mine, 1, tag=11)
        elif rank == 1:
            M.recv(comm, into, status=st)
            ck.expect(name, st.Get_source() == 0 and st.Get_tag() == 11, "status source/tag")
            ck.expect(name, (to_bytes(dlx, into) == payload(("ring", 0))).all(), "recv(any): bytes differ")


def check_refused(ck, name, dlx, M, comm):
    for o, d in refused_pairs():
        if d in PACKED:
            continue
        expect_raises(ck, name, TypeError, [o, d], M.op, o, d)
        t = dlx.zeros((3,), d)
        # through the wrapper: refused before any communication (every rank raises)
        expect_raises(ck, name, TypeError, [o, d], M.allreduce, comm, t, op=o)
    expect_raises(ck, name, ValueError, ["mean", "sum, prod, min, max"], M.op, "mean", "float32")
    expect_raises(ck, name, TypeError, ["list"], M.allreduce, comm, [1.0, 2.0])
    # MPI.SUM on bfloat16 is dlx's sum, not a byte-wise garbage sum
    a = dlx.from_dlpack(np.array([1, 2], np.float32)).astype("bfloat16")
    got = M.allreduce(comm, a, op=M.MPI.SUM)
    want = dlx.from_dlpack(np.array([comm.Get_size(), 2 * comm.Get_size()], np.float32)).astype("bfloat16")
    ck.expect(name, (to_bytes(dlx, got) == to_bytes(dlx, want)).all(), "MPI.SUM on bfloat16 not mapped to dlx's op")


def check_packed(ck, name, dlx, M, comm):
    for d in PACKED:
        t = dlx.zeros((6,), d)
        expect_raises(ck, name, TypeError, [d, "packed", "astype('float16')"], M.datatype, d)
        expect_raises(ck, name, TypeError, [d, "packed"], M.datatype, t)
        for o in OPS:
            expect_raises(ck, name, TypeError, [o, d, "packed"], M.op, o, d)
        expect_raises(ck, name, TypeError, [d], M.bcast, comm, t)
        expect_raises(ck, name, TypeError, [d], M.send, comm, t, 0)
        expect_raises(ck, name, TypeError, [d], M.recv, comm, t)
        # the documented way: astype('float16') is exact
        r = dlx.from_dlpack(np.arange(-6, 7, dtype=np.float32) / 2).astype(d)
        h = r.astype("float16")
        ck.expect(name, (to_bytes(dlx, h.astype(d).astype("float16")) == to_bytes(dlx, h)).all(),
                  f"{d} -> float16 -> {d} not exact")


def _sentinel_base(dlx, dtype, n):
    return dlx.full((n,), 99, dtype)


def check_strided(ck, name, dlx, M, comm):
    size, rank = comm.Get_size(), comm.Get_rank()
    for dtype in ("bfloat16", "float32", "int16", "float8_e4m3fn"):
        n = 12
        vals = [dlx.from_dlpack((np.arange(n, dtype=np.float32) % 5 + r)).astype(dtype) for r in range(size)]
        want = reference(dlx, dtype, "sum", vals)
        # 1-D: sendbuf every 2nd element, recvbuf every 3rd; the gaps of recvbuf keep their sentinel
        sbase = dlx.zeros((2 * n,), dtype)
        sbase[::2] = vals[rank]
        rbase = _sentinel_base(dlx, dtype, 3 * n)
        r = rbase[::3]
        M.allreduce(comm, sbase[::2], r, op="sum")
        msg = compare(dlx, dtype, "sum", r, want)
        if msg:
            ck.fail(name, f"{dtype} allreduce 1-D strided: {msg}")
        gaps = to_bytes(dlx, rbase[1::3]), to_bytes(dlx, rbase[2::3])
        s = to_bytes(dlx, _sentinel_base(dlx, dtype, n))
        ck.expect(name, all((g == s).all() for g in gaps), f"{dtype}: strided recvbuf gaps written")
        # 2-D transposed (column-major) send and receive buffers: element [i, j] reduces with [i, j]
        m2 = vals[rank].reshape(3, 4)
        sendT = dlx.empty((4, 3), dtype).copy_(m2.T).T  # (3, 4) view, column-major
        recvT = dlx.zeros((4, 3), dtype).T
        ck.expect(name, not sendT.is_contiguous and not recvT.is_contiguous, "transposed views are contiguous?")
        M.allreduce(comm, sendT, recvT, op="sum")
        msg = compare(dlx, dtype, "sum", dlx.empty((3, 4), dtype).copy_(recvT), want.reshape(3, 4))
        if msg:
            ck.fail(name, f"{dtype} allreduce transposed: {msg}")
        # in place into a strided buffer
        ibase = _sentinel_base(dlx, dtype, 2 * n)
        ib = ibase[1::2]
        ib.copy_(vals[rank])
        M.allreduce(comm, M.IN_PLACE, ib, op="sum")
        msg = compare(dlx, dtype, "sum", ib, want)
        if msg:
            ck.fail(name, f"{dtype} allreduce IN_PLACE strided: {msg}")
        ck.expect(name, (to_bytes(dlx, ibase[0::2]) == s).all(), f"{dtype}: IN_PLACE strided gaps written")
        # reduce into a strided buffer at the root
        rb = _sentinel_base(dlx, dtype, 2 * n)
        res = M.reduce(comm, sbase[::2], rb[::2], op="sum", root=0)
        if rank == 0:
            msg = compare(dlx, dtype, "sum", res, want)
            if msg:
                ck.fail(name, f"{dtype} reduce strided: {msg}")
        # bcast: strided on the root (packed) and on the others (temporary + copy_)
        bb = _sentinel_base(dlx, dtype, 2 * n)
        if rank == 0:
            bb[::2] = vals[0]
        M.bcast(comm, bb[::2], root=0)
        ck.expect(name, (to_bytes(dlx, bb[::2]) == to_bytes(dlx, vals[0])).all(), f"{dtype} bcast strided values")
        ck.expect(name, (to_bytes(dlx, bb[1::2]) == s).all(), f"{dtype} bcast strided gaps written")
        # send a reversed view, receive into a stepped one
        if size >= 2:
            if rank == 0:
                rev = dlx.empty((n,), dtype).copy_(vals[0])[::-1]
                M.send(comm, rev, 1, tag=3)
            elif rank == 1:
                rb = _sentinel_base(dlx, dtype, 2 * n)
                M.recv(comm, rb[1::2], source=0, tag=3)
                ck.expect(name, (to_bytes(dlx, rb[1::2]) == to_bytes(dlx, vals[0][::-1])).all(),
                          f"{dtype} send reversed / recv stepped values")
                ck.expect(name, (to_bytes(dlx, rb[::2]) == s).all(), f"{dtype} recv strided gaps written")
        # message() refuses a strided view
        expect_raises(ck, name, BufferError, ["not C-contiguous"], M.message, sbase[::2])


def check_readonly(ck, name, dlx, M, comm):
    size, rank = comm.Get_size(), comm.Get_rank()
    for dtype in ("bfloat16", "float32"):
        a = dlx.full((4,), 1, dtype)
        ro_np = np.zeros(4, np.uint16 if dtype == "bfloat16" else np.float32)
        ro_np.flags.writeable = False
        ro = dlx.from_dlpack(ro_np).view(dtype)
        ck.expect(name, ro.readonly, "the read-only fixture is writable")
        # every rank raises before any communication
        expect_raises(ck, name, BufferError, ["allreduce", "recvbuf", "read-only"], M.allreduce, comm, a, ro)
        expect_raises(ck, name, BufferError, ["allreduce", "recvbuf", "read-only"], M.allreduce, comm, M.IN_PLACE, ro)
        # only the ranks that would receive call these (the others would otherwise wait for them)
        if rank == 0:
            expect_raises(ck, name, BufferError, ["reduce", "recvbuf", "read-only"], M.reduce, comm, a, ro, root=0)
        else:
            expect_raises(ck, name, BufferError, ["bcast", "buf", "read-only"], M.bcast, comm, ro, root=0)
            expect_raises(ck, name, BufferError, ["recv", "buf", "read-only"], M.recv, comm, ro, source=0)
        comm.Barrier()
        # a read-only send buffer is fine, and so is the root's bcast buffer
        got = M.allreduce(comm, ro, op="sum")
        ck.expect(name, (to_bytes(dlx, got) == to_bytes(dlx, dlx.zeros((4,), dtype))).all(), "read-only sendbuf")
        rb = ro if rank == 0 else dlx.full((4,), 5, dtype)
        M.bcast(comm, rb, root=0)
        ck.expect(name, (to_bytes(dlx, rb) == to_bytes(dlx, ro)).all(), "bcast from a read-only root buffer")


def check_api(ck, name, dlx, M, comm):
    MPI = M.MPI
    native = {"bool": MPI.C_BOOL, "int8": MPI.INT8_T, "int16": MPI.INT16_T, "int32": MPI.INT32_T,
              "int64": MPI.INT64_T, "uint8": MPI.UINT8_T, "uint16": MPI.UINT16_T, "uint32": MPI.UINT32_T,
              "uint64": MPI.UINT64_T, "float32": MPI.FLOAT, "float64": MPI.DOUBLE,
              "complex64": MPI.C_FLOAT_COMPLEX, "complex128": MPI.C_DOUBLE_COMPLEX}
    for d, dt in native.items():
        ck.expect(name, M.datatype(d) == dt, f"datatype({d}) is not the native type")
    for d in NARROW + TRANSFER_ONLY:
        dt = M.datatype(d)
        ck.expect(name, dt.Get_name() == f"dlx.{d}", f"datatype({d}) named {dt.Get_name()!r}")
        ck.expect(name, dt is M.datatype(dlx.zeros((2,), d)), f"datatype({d}) made twice")
        ck.expect(name, dt.Get_size() == dt.Get_extent()[1] == dlx.empty((0,), d).itemsize, f"datatype({d}) size")
    # dtype specs as dlx takes them, NumPy arrays through DLPack
    ck.expect(name, M.datatype(np.float32) == MPI.FLOAT and M.datatype(np.zeros(2, np.int16)) == MPI.INT16_T,
              "datatype of NumPy specs")
    for o in OPS:
        ck.expect(name, M.op(o, "bfloat16") is M.op(o, "bfloat16"), f"op({o}, bfloat16) made twice")
    ck.expect(name, M.op("sum", "float32") == MPI.SUM and M.op("max", "int8") == MPI.MAX, "native ops")
    ck.expect(name, M.op("sum", "bool") == MPI.LOR and M.op("prod", "bool") == MPI.LAND, "bool ops")
    # other MPI ops pass through: bitwise xor of uint8
    a = dlx.from_dlpack(np.full(3, 1 << comm.Get_rank(), np.uint8))
    got = np.from_dlpack(M.allreduce(comm, a, op=MPI.BXOR))
    ck.expect(name, (got == (1 << comm.Get_size()) - 1).all(), f"BXOR pass-through gave {got}")
    # NumPy buffers work too, and recvbuf is returned as given
    nb = np.zeros(3, np.float32)
    r = M.allreduce(comm, np.ones(3, np.float32), nb)
    ck.expect(name, r is nb and (nb == comm.Get_size()).all(), "NumPy recvbuf")
    # mismatched buffers
    expect_raises(ck, name, ValueError, ["does not match"], M.allreduce, comm, dlx.zeros((3,)), dlx.zeros((4,)))
    expect_raises(ck, name, ValueError, ["does not match"], M.allreduce, comm, dlx.zeros((3,)), dlx.zeros((3,), "float64"))
    # zero-size and 0-d tensors
    z = M.allreduce(comm, dlx.zeros((0,), "bfloat16"))
    ck.expect(name, z.shape == (0,), "zero-size allreduce")
    s = M.allreduce(comm, dlx.full((), 1.5, "bfloat16"))
    ck.expect(name, s.shape == () and float(np.from_dlpack(s.astype("float32"))) == 1.5 * comm.Get_size(), "0-d")


def check_large(ck, name, dlx, M, comm):
    # big enough for MPI to split the reduction into segments (the op sees parts of the buffers)
    size, rank = comm.Get_size(), comm.Get_rank()
    n = (1 << 20) + 3
    v = np.arange(n, dtype=np.float32) % 7 - 3 + rank
    got = M.allreduce(comm, dlx.from_dlpack(v).astype("bfloat16"))
    want = (np.arange(n, dtype=np.float32) % 7 - 3) * size + size * (size - 1) / 2
    g = np.from_dlpack(got.astype("float32"))
    ck.expect(name, (g == want).all(), f"large bfloat16 sum: {int((g != want).sum())} elements differ")
    m = M.allreduce(comm, dlx.from_dlpack(v).astype("float8_e4m3fn"), op="max")
    ck.expect(name, (np.from_dlpack(m.astype("float32")) == np.arange(n) % 7 - 3 + size - 1).all(), "large fp8 max")


def main(out_path):
    import dlx

    before = set(sys.modules)
    import dlx.mpi as M

    comm = M.MPI.COMM_WORLD
    global INT_SUMS_WRAP
    if M.MPI.Get_library_version().startswith("Open MPI"):
        INT_SUMS_WRAP = "^avx" in os.environ.get("OMPI_MCA_op", "")
    ck = Checks()
    ck.results["api"] = []
    if "mpi4py" in before:
        ck.fail("api", "mpi4py was imported before dlx.mpi")
    for d in REDUCIBLE:
        for o in supported_ops(d):
            ck.run(f"reduce:{d}:{o}", check_reduce, dlx, M, comm, d, o)
    for d in NATIVE + NARROW + TRANSFER_ONLY:
        ck.run(f"transfer:{d}", check_transfer, dlx, M, comm, d)
    ck.run("refused", check_refused, dlx, M, comm)
    ck.run("packed", check_packed, dlx, M, comm)
    ck.run("strided", check_strided, dlx, M, comm)
    ck.run("readonly", check_readonly, dlx, M, comm)
    ck.run("api", check_api, dlx, M, comm)
    ck.run("large", check_large, dlx, M, comm)
    every = comm.gather(ck.results, root=0)
    if comm.Get_rank() == 0:
        merged = {}
        for r, res in enumerate(every):
            for k, msgs in res.items():
                merged.setdefault(k, []).extend(f"rank {r}: {m}" for m in msgs)
        with open(out_path, "w") as f:
            json.dump({"size": comm.Get_size(), "int_sums_wrap": INT_SUMS_WRAP, "results": merged}, f, indent=1)
        bad = sum(1 for v in merged.values() if v)
        print(f"mpi_worker: {len(merged)} checks on {comm.Get_size()} ranks, {bad} failing", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

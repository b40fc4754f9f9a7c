"""All-reduce bfloat16 and float32 dlx tensors across MPI processes with dlx.mpi.

    mpirun -n 2 python examples/mpi_allreduce.py
    mpirun --hostfile hosts -n 8 python examples/mpi_allreduce.py   # several machines: only the launch changes

(As root, Open MPI also wants --allow-run-as-root.) Needs mpi4py and an MPI library
(apt-get install libopenmpi-dev openmpi-bin; pip install mpi4py), and NumPy to print the values.

Without dlx.mpi, mpi4py sends bfloat16 as MPI.BYTE and MPI.SUM adds bytes: [1, 2] + [1, 2] came back as
[4.25e37, -0.0]. dlx.mpi gives bfloat16 its own datatype and a sum computed by dlx in float32, rounded
back to bfloat16, so the result is what adding the tensors locally with dlx gives, bit for bit.
"""

import numpy as np

import dlx
import dlx.mpi

comm = dlx.mpi.MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def data(r):
    """Rank r's float32 tensor: [1, 2, 3, 4] * (r + 1) + 1/128 (1/128 does not survive bfloat16 sums)."""
    t = dlx.empty((4,), "float32")
    for i in range(4):
        t[i] = (i + 1) * (r + 1) + 1 / 128
    return t


x32 = data(rank)
x16 = x32.astype("bfloat16")

sum16 = dlx.mpi.allreduce(comm, x16)  # op="sum": a new bfloat16 tensor on every rank
sum32 = dlx.mpi.allreduce(comm, x32, op="sum")
max16 = dlx.mpi.allreduce(comm, x16, op="max")

# The same reductions computed locally from every rank's data, in rank order, with dlx. With two ranks
# there is one way to add, so the results are equal bit for bit; with more, MPI picks the order in which
# partial sums combine (each rounded to bfloat16, as MPI.SUM on float32 rounds to float32).
want16 = want32 = want_max = None
for r in range(size):
    v = data(r)
    b = v.astype("bfloat16")
    if want16 is None:
        want16, want32, want_max = b, v, b
    else:
        want16 = (want16.astype("float32") + b.astype("float32")).astype("bfloat16")
        want32 = want32 + v
        want_max = b  # the values grow with the rank


def show(t):
    return np.from_dlpack(t.astype("float32")).tolist()


def bits(t):
    return np.from_dlpack(t.view("uint16" if t.itemsize == 2 else "uint32")).tolist()


exact = size == 2
checks = {
    "bfloat16 sum": bits(sum16) == bits(want16) if exact else show(sum16) == show(want16),
    "float32 sum": bits(sum32) == bits(want32) if exact else np.allclose(show(sum32), show(want32)),
    "bfloat16 max": bits(max16) == bits(want_max),
}
every = comm.gather(all(checks.values()), root=0)
if rank == 0:
    print(f"{size} ranks, rank 0 holds {show(x16)} (bfloat16) and {show(x32)} (float32)")
    print(f"bfloat16 sum: {show(sum16)}   local dlx reference: {show(want16)}")
    print(f"float32 sum:  {show(sum32)}   local dlx reference: {show(want32)}")
    print(f"bfloat16 max: {show(max16)}")
    for name, ok in checks.items():
        print(f"  {name}: {'equal' if ok else 'DIFFERENT'}{' bit for bit' if exact or name.endswith('max') else ''}")
    print("check: ok" if all(every) else f"check: FAILED on ranks {[r for r, ok in enumerate(every) if not ok]}")
    raise SystemExit(0 if all(every) else 1)

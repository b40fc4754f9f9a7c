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


KNOWN = [
    # ---- NumPy
    Known("numpy", "consumer", "c-destructor-cleared", "2.4.6",
          "numpy.from_dlpack renames the capsule but leaves its destructor in place, so a producer whose "
          "destructor ignores the 'used_' name deletes the tensor a second time (the standard puts that duty "
          "on the producer; JAX and dlx clear the destructor defensively)"),
    Known("numpy", "consumer", "c-device-agrees", "2.4.6",
          "numpy.from_dlpack imports host memory whatever __dlpack_device__ said (it reads the capsule's "
          "device only): a cuda_host capsule from an object claiming kDLCPU, and the other way round, import"),
    Known("numpy", "consumer", "c-cpu-device-id", "2.4.6",
          "an array imported from a kDLCPU capsule with device_id 1 reports __dlpack_device__() == (1, 1): "
          "NumPy keeps the producer's device for arrays it imported"),
    Known("numpy", "consumer", "c-null-shape", "2.4.6",
          "numpy.from_dlpack of a capsule with ndim 2 and a NULL shape reads the extents through the NULL "
          "pointer and crashes the process (SIGSEGV) instead of raising BufferError", bug=True,
          repro="""import numpy as np
from dlx.check import Export, HostBuffer        # the checker's reference producer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "shape", None))
np.from_dlpack(x)                               # Segmentation fault"""),
    # ---- PyTorch
    Known("torch", "producer", "p-flag-is-copied", "2.15.0",
          "Tensor.__dlpack__(max_version=(1, x), copy=True) makes a copy but does not set IS_COPIED",
          bug=True, repro="""import torch
from dlx.check import describe
d = describe(torch.arange(6.).__dlpack__(max_version=(1, 3), copy=True))
print(d.flags)  # 0: a copy (other memory) without DLPACK_FLAG_BITMASK_IS_COPIED (2)"""),
    Known("torch", "producer", "p-values", "2.15.0",
          "a tensor with the negative bit (torch._neg_view, .imag of a conjugated tensor) is exported as its "
          "memory, un-negated; __dlpack__ refuses the conjugate bit but not this one",
          bug=True, repro="""import numpy as np, torch
x = torch._neg_view(torch.ones(3))
print(x, np.from_dlpack(x))  # tensor([-1., -1., -1.]) [1. 1. 1.]"""),
    Known("torch", "producer", "p-copy-false", "2.15.0",
          "copy=False with dl_device=(kDLCUDA, 0) on a CPU tensor raises ValueError; the standard says "
          "BufferError when copy=False and a copy is needed",
          bug=True, repro="""import torch
torch.ones(2).__dlpack__(max_version=(1, 3), dl_device=(2, 0), copy=False)
# ValueError: cannot move (i.e. copy=False) tensor from cpu to cuda:0 without copying."""),
    Known("torch", "producer", "p-exchange-agrees", "2.15.0",
          "the C exchange API (managed_tensor_from_py_object_no_sync) exports a conjugate-bit tensor as its "
          "memory, un-conjugated, where __dlpack__ refuses it with BufferError (dlx's consumer applies "
          "__dlpack__'s refusals itself: src/pyext/consumer.c, producer quirks)",
          bug=True, repro="""import ctypes, torch
from dlx.check import _capsule as cap, describe
api, _ = cap.exchange_api(torch.Tensor)
x = torch.tensor([1 + 2j]).conj()          # x.__dlpack__() raises BufferError (conjugate bit)
out = ctypes.c_void_p()
cap.FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(x, ctypes.byref(out))   # returns 0
m = cap.Described(out.value, True)
print(ctypes.cast(m.data, ctypes.POINTER(ctypes.c_float))[1])   # 2.0: the imaginary part x has as -2"""),
    Known("torch", "consumer", "c-strides", "2.15.0",
          "torch.from_dlpack refuses negative strides (torch has none) with RuntimeError 'Storage size "
          "calculation overflowed', not BufferError"),
    Known("torch", "consumer", "c-read-only", "2.15.0",
          "torch has no read-only tensors and imports READ_ONLY data writable (the Array API lets a consumer "
          "without read-only arrays ignore the flag; a write then lands in the producer's read-only memory)"),
    Known("torch", "consumer", "c-null-shape", "2.15.0",
          "torch.from_dlpack of a capsule with ndim 2 and a NULL shape reads the extents through the NULL "
          "pointer and crashes the process (SIGSEGV)", bug=True, repro="""import torch
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "shape", None))
torch.from_dlpack(x)                            # Segmentation fault"""),
    Known("torch", "consumer", "c-ndim-negative", "2.15.0",
          "torch.from_dlpack of a capsule with ndim -1 crashes the process (SIGSEGV) instead of refusing it",
          bug=True, repro="""import torch
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "ndim", -1))
torch.from_dlpack(x)                            # Segmentation fault"""),
    Known("torch", "consumer", "c-legacy-read-only", "2.15.0",
          "torch has no read-only tensors: an array imported from a legacy capsule (a JAX array's, say) is "
          "writable, and a write lands in the producer's immutable memory"),
    Known("torch", "consumer", "c-destructor-cleared", "2.15.0",
          "torch.from_dlpack leaves the consumed capsule's destructor in place (see NumPy's entry)"),
    Known("torch", "consumer", "c-device-agrees", "2.15.0",
          "a kDLCPU capsule from an object whose __dlpack_device__ says cuda_host (3, 0) is imported"),
    # ---- JAX
    Known("jax", "producer", "p-capsule-versioned", "0.10.2",
          "jax.Array.__dlpack__ returns a legacy 'dltensor' capsule whatever max_version asks (the standard "
          "allows another version, and recommends the versioned one)"),
    Known("jax", "producer", "p-copy-false", "0.10.2",
          "dl_device=(kDLCUDA, 0), copy=False on a CPU-only jaxlib raises RuntimeError 'Unknown backend cuda', "
          "not BufferError"),
    Known("jax", "consumer", "c-max-version", "0.10.2",
          "jax.dlpack.from_dlpack calls __dlpack__ without max_version: it asks for legacy capsules"),
    Known("jax", "consumer", "c-strides", "0.10.2",
          "jax.dlpack.from_dlpack refuses strides that are not a permutation of compact ones (steps, zero "
          "and negative strides) with JaxRuntimeError UNIMPLEMENTED, not BufferError, rather than copying"),
    Known("jax", "consumer", "c-null-shape", "0.10.2",
          "jax.dlpack.from_dlpack of a capsule with ndim 2 and a NULL shape crashes the process (SIGSEGV)",
          bug=True, repro="""import jax.dlpack
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "shape", None))
jax.dlpack.from_dlpack(x)                       # Segmentation fault"""),
    Known("jax", "consumer", "c-null-deleter", "0.10.2",
          "jax.dlpack.from_dlpack of a capsule whose deleter is NULL (legal: nothing to free) aborts the "
          "process (SIGABRT) instead of importing it", bug=True, repro="""import jax.dlpack
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(m, "deleter", None))
jax.dlpack.from_dlpack(x)                       # Aborted"""),
    Known("jax", "consumer", "c-device-agrees", "0.10.2",
          "a cuda_host capsule from an object whose __dlpack_device__ says kDLCPU is imported"),
    Known("jax", "consumer", "c-copy-true", "0.10.2",
          "jax.dlpack.from_dlpack(x, copy=True) neither passes copy=True to x.__dlpack__ nor copies: the "
          "result shares x's memory",
          bug=True, repro="""import jax, jax.dlpack, torch
t = torch.zeros(3)
j = jax.dlpack.from_dlpack(t, copy=True)
t[0] = 7
print(j)  # [7. 0. 0.]: not a copy"""),
    # ---- dpctl
    Known("dpctl", "producer", "p-read-only-legacy", "0.21.1",
          "usm_ndarray.__dlpack__() without max_version exports a read-only array as a legacy capsule, which "
          "cannot say read-only"),
    Known("dpctl", "producer", "p-copy-true", "0.21.1",
          "usm_ndarray.__dlpack__(copy=True) without max_version ignores copy=True and exports the array's "
          "own memory (with max_version it copies)",
          bug=True, repro="""import dpctl.tensor as dpt
from dlx.check import describe
x = dpt.arange(3.0)
print(describe(x.__dlpack__(copy=True)).first == x.usm_data._pointer)   # True: no copy"""),
    Known("dpctl", "consumer", "c-byte-offset", "0.21.1",
          "dpctl.tensor.from_dlpack of a kDLCPU capsule (which it returns as a NumPy array) ignores "
          "byte_offset", bug=True, repro="""import numpy as np, dpctl.tensor as dpt
from dlx.check import Export, HostBuffer       # the checker's reference producer
buf = HostBuffer(64); buf.write(np.arange(16, dtype=np.float32).tobytes())
x = Export(buf, (4,), "float32", byte_offset=16)   # element 0 is item 4
print(np.from_dlpack(x), dpt.from_dlpack(x))       # [4. 5. 6. 7.] [0. 1. 2. 3.]"""),
    Known("dpctl", "consumer", "c-strides", "0.21.1",
          "dpctl.tensor.from_dlpack refuses a device-USM capsule with negative strides whose data points at "
          "element 0 (as dlx and CuPy export them) with ValueError 'can not accommodate the requested array': "
          "it sizes the memory from the data pointer up (its own exports point data at the lowest element)",
          bug=True, repro="""import dlx, dpctl.tensor as dpt
t = dlx.asarray([0.0, 1, 2, 3], dtype="float32").to("oneapi:0")[::-1]   # element 0 is the last item
dpt.from_dlpack(t)   # ValueError: ... can not accommodate the requested array"""),
    Known("dpctl", "consumer", "c-zero-size", "0.21.1",
          "dpctl.tensor.from_dlpack of an empty device-USM capsule (data NULL) raises TypeError '__cinit__() "
          "takes exactly 1 positional argument (2 given)'", bug=True, repro="""import dlx, dpctl.tensor as dpt
dpt.from_dlpack(dlx.zeros((0, 4), device="oneapi:0"))   # TypeError"""),
    Known("dpctl", "consumer", "c-null-shape", "0.21.1",
          "dpctl.tensor.from_dlpack of a capsule with ndim 2 and a NULL shape crashes the process (SIGSEGV)",
          bug=True, repro="""import dpctl.tensor as dpt
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "shape", None))
dpt.from_dlpack(x)                              # Segmentation fault"""),
    Known("dpctl", "consumer", "c-ndim-negative", "0.21.1",
          "dpctl.tensor.from_dlpack imports a capsule with ndim -1 (as a 0-d array) instead of refusing it",
          bug=True, repro="""import dpctl.tensor as dpt
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(t, "ndim", -1))
print(dpt.from_dlpack(x).shape)                 # imported, not refused"""),
    Known("dpctl", "consumer", "c-null-deleter", "0.21.1",
          "dpctl.tensor.from_dlpack of a capsule whose deleter is NULL (legal) crashes the process (SIGSEGV) when "
          "the array dies", bug=True, repro="""import dpctl.tensor as dpt
from dlx.check import Export, HostBuffer
x = Export(HostBuffer(64), (3, 4), "float32", tamper=lambda m, t, versioned: setattr(m, "deleter", None))
y = dpt.from_dlpack(x); del y                   # Segmentation fault"""),
    Known("dpctl", "consumer", "c-legacy-read-only", "0.21.1",
          "dpctl.tensor.from_dlpack of a host (kDLCPU) legacy capsule returns a writable NumPy array, where "
          "numpy.from_dlpack makes it read-only (a legacy capsule cannot say)"),
    Known("dpctl", "consumer", "c-destructor-cleared", "0.21.1",
          "dpctl.tensor.from_dlpack leaves the consumed capsule's destructor in place (see NumPy's entry)"),
    Known("dpctl", "consumer", "c-device-agrees", "0.21.1",
          "a kDLCPU capsule from an object whose __dlpack_device__ says cuda_host (3, 0) is imported"),
]


def failures(target, side, version=None):
    """{check id: why} of the known failures of target on side."""
    return {k.check: k.why for k in KNOWN if k.target == target and k.side == side}


# the frameworks checked through adapters (scripts/conformance_all.sh), kept beside their adapters
from .adapters.known import KNOWN as _ADAPTED  # noqa: E402 - the tuples of Known's fields

KNOWN += [Known(*k) for k in _ADAPTED]

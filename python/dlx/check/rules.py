"""The checks: id, side, level, the rule in one line, and the clause of the standard it comes from.

Clauses name the DLPack Python specification ("python_spec", dmlc.github.io/dlpack/latest/python_spec.html),
the C header ("dlpack.h", DLPack 1.3) and the Array API standard's pages for ``array.__dlpack__`` and
``from_dlpack`` ("Array API", data-apis.org/array-api/latest). ``level`` is "must" where the text says
must (or the ABI leaves no choice), "should" where it recommends: a failure of either fails the run,
and the report says which it was.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    id: str
    side: str  # "producer" or "consumer"
    level: str  # "must" or "should"
    rule: str
    clause: str


_P = [
    ("p-capsule-legacy", "must",
     "__dlpack__() without max_version returns a legacy 'dltensor' capsule, or refuses with BufferError",
     "Array API array.__dlpack__, Notes: max_version None keeps the DLPack 0.X implementation (BufferError allowed "
     "from March 2025)"),
    ("p-capsule-versioned", "should",
     "__dlpack__(max_version=(1, x) or (2, 0)) returns a 'dltensor_versioned' capsule",
     "Array API array.__dlpack__, Notes: with max_version given 'we get to produce DLManagedTensorVersioned now'; "
     "python_spec: DLManagedTensor is deprecated"),
    ("p-version", "must",
     "a versioned capsule's version has major 1, and no major above the max_version asked",
     "dlpack.h DLPackVersion: a consumer that sees another major may only call the deleter"),
    ("p-flag-read-only", "must",
     "READ_ONLY is set exactly when the array is read-only",
     "dlpack.h DLPACK_FLAG_BITMASK_READ_ONLY"),
    ("p-read-only-legacy", "should",
     "a read-only array is refused (BufferError) on a legacy capsule, which has no READ_ONLY flag",
     "dlpack.h DLManagedTensor (no flags) with DLPACK_FLAG_BITMASK_READ_ONLY; Array API array.__dlpack__, Raises"),
    ("p-flag-is-copied", "must",
     "IS_COPIED is set exactly when the export is a copy",
     "Array API array.__dlpack__, copy: 'When a copy happens, the DLPACK_FLAG_BITMASK_IS_COPIED flag must be set'"),
    ("p-flags-known", "must",
     "no flag bit that the capsule's version does not define",
     "dlpack.h DLManagedTensorVersioned.flags (READ_ONLY 1.0, IS_COPIED 1.0, IS_SUBBYTE_TYPE_PADDED 1.1)"),
    ("p-dtype", "must",
     "the capsule's dtype is the array's (code, bits, lanes 1)",
     "dlpack.h DLDataType, DLDataTypeCode"),
    ("p-shape", "must",
     "the capsule's ndim and shape are the array's",
     "dlpack.h DLTensor.ndim, DLTensor.shape"),
    ("p-strides", "must",
     "strides are not NULL (from 1.2 on), and every dimension of extent > 1 has the array's stride",
     "dlpack.h DLTensor.strides: 'can not be NULL' since 1.2, in elements"),
    ("p-aligned", "must",
     "data + byte_offset is a multiple of the element size",
     "dlpack.h DLTensor.data and byte_offset (a byte count: an offset counted in elements misplaces element 0); "
     "C11 6.3.2.3: a misaligned element pointer is undefined"),
    ("p-aligned-256", "advice",
     "data is 256-byte aligned, an offset into the allocation going to byte_offset (advice: a case that does "
     "not follow it is n/a with the address, never a failure)",
     "dlpack.h DLTensor.data: 'This pointer is always aligned to 256 bytes as in CUDA. The byte_offset field "
     "should be used to point to the beginning of the data' (with the note that many libraries do not)"),
    ("p-address", "must",
     "without a copy, data + byte_offset is the array's own element 0 (zero-copy)",
     "python_spec Semantics: 'If possible, this must be zero-copy'; Array API copy=None/False reuse the buffer"),
    ("p-values", "must",
     "the memory the capsule describes holds the array's values (negative and conjugate views resolved)",
     "python_spec Semantics: from_dlpack(x) is a view of (or copy of) the data of x"),
    ("p-device", "must",
     "__dlpack_device__() returns two ints equal to the capsule's device",
     "Array API array.__dlpack_device__: the device type and id in DLPack format"),
    ("p-device-id", "must",
     "CPU, pinned and managed memory carry device_id 0",
     "dlpack.h DLDevice.device_id: 'for vanilla CPU memory, pinned memory, or managed memory, this is set to 0'"),
    ("p-copy-true", "must",
     "copy=True gives other memory holding the same values",
     "Array API array.__dlpack__, copy: 'If True, the function must always copy'"),
    ("p-copy-false", "must",
     "copy=False with a dl_device that needs a copy raises BufferError (ValueError for a kDLCPU request)",
     "Array API array.__dlpack__, copy: 'raise a BufferError in case a copy is deemed necessary'; dl_device: "
     "ValueError when a copy to kDLCPU is needed but copy is False"),
    ("p-dl-device-same", "must",
     "dl_device equal to the array's own device is accepted and exports without a copy",
     "Array API array.__dlpack__, dl_device (the format of __dlpack_device__) and copy=None"),
    ("p-dl-device-refused", "must",
     "a dl_device the producer cannot export to raises BufferError, never a capsule on another device",
     "Array API array.__dlpack__, dl_device: 'If the device type cannot be handled by the producer, this "
     "function must raise BufferError'"),
    ("p-dl-device-cpu", "should",
     "a device array exports to dl_device=(kDLCPU, 0) as a copy in host memory, flagged IS_COPIED",
     "Array API array.__dlpack__, dl_device: a compliant library should offer a capsule of kDLCPU memory"),
    ("p-stream-cpu", "must",
     "for host memory stream=None is accepted and any other stream refused",
     "Array API array.__dlpack__, stream: 'On CPU and other device types without streams, only None is accepted'"),
    ("p-stream-cuda", "must",
     "for CUDA memory stream 1, 2 and -1 are accepted and stream 0 refused",
     "Array API array.__dlpack__, stream (CUDA): '0 is disallowed due to its ambiguity'"),
    ("p-stream-order", "must",
     "with pending work on the array, the consumer's stream sees the finished values",
     "python_spec Semantics: 'the producer must synchronize or wait on the stream when necessary'"),
    ("p-deleter-dropped", "must",
     "an unconsumed capsule that is dropped runs the deleter exactly once",
     "python_spec Implementation: the PyCapsule_Destructor calls the deleter of a 'dltensor'-named capsule"),
    ("p-deleter-consumed", "must",
     "a capsule renamed 'used_*' by its consumer never runs the deleter from its destructor",
     "python_spec Implementation: the destructor calls the deleter 'only for capsules whose name is dltensor'"),
    ("p-refusal-buffererror", "should",
     "an array or a legal request that cannot be exported is refused with BufferError",
     "Array API array.__dlpack__, Raises: 'Implementations should raise BufferError when the data cannot be "
     "exported as DLPack'"),
    ("p-keywords", "should",
     "__dlpack__ takes max_version, dl_device and copy (an old-style one, stream only, is called as consumers "
     "do: without keywords)",
     "Array API array.__dlpack__ (2023.12: max_version, dl_device, copy); Notes: the consumer's TypeError "
     "fallback for producers that do not take them"),
    ("p-unknown-keyword", "must",
     "an unknown keyword argument raises TypeError (what consumers retry on for old producers)",
     "Array API array.__dlpack__, Notes: the consumer's 'except TypeError' fallback"),
    ("p-exchange-api", "must",
     "__dlpack_c_exchange_api__, when present, is a 'dlpack_exchange_api' capsule with a 1.x table and its "
     "required functions",
     "dlpack.h DLPackExchangeAPI (1.3): only dltensor_from_py_object_no_sync may be NULL"),
    ("p-exchange-agrees", "must",
     "the exchange API exports the tensor __dlpack__ exports (data, device, dtype, shape, strides, flags)",
     "dlpack.h DLPackExchangeAPI.managed_tensor_from_py_object_no_sync: the same export as __dlpack__"),
]

_C = [
    ("c-max-version", "should",
     "from_dlpack calls __dlpack__ with max_version (1, x)",
     "Array API from_dlpack / array.__dlpack__, Notes: the consumer passes max_version=(1, 0) or later"),
    ("c-stream", "must",
     "from_dlpack passes stream=None for host memory, and None or an int >= -1 other than 0 for CUDA memory",
     "Array API array.__dlpack__, stream: 'On CPU ... only None is accepted'; CUDA: 0 is disallowed"),
    ("c-values", "must",
     "a compact array of each dtype is read back with the exported values",
     "python_spec Semantics; dlpack.h DLDataType"),
    ("c-byte-offset", "must",
     "byte_offset is honoured: element 0 is at data + byte_offset",
     "dlpack.h DLTensor.byte_offset"),
    ("c-strides", "must",
     "strides are honoured (transposed, stepped, extent-1 dims with any stride); negative and zero strides "
     "are read or refused with BufferError",
     "dlpack.h DLTensor.strides (in elements)"),
    ("c-null-strides", "must",
     "NULL strides (legacy, or before 1.2) are read as compact row-major",
     "python_spec Implementation: 'When the strides field ... is NULL, it indicates a row-major compact array'"),
    ("c-zero-size", "must",
     "0-d arrays, and empty arrays with NULL data and any strides, are imported",
     "python_spec Implementation: an array of size zero may have data NULL"),
    ("c-read-only", "must",
     "READ_ONLY data is refused, copied, or imported read-only: never written through",
     "dlpack.h DLPACK_FLAG_BITMASK_READ_ONLY (the Array API lets a consumer without read-only arrays ignore it)"),
    ("c-legacy", "must",
     "a legacy capsule returned to a versioned request is read as a legacy one, or refused with BufferError",
     "Array API array.__dlpack__, max_version: 'the consumer must verify the version even when max_version is "
     "passed'"),
    ("c-major", "must",
     "a capsule of major version 2 is refused (its layout is unknown)",
     "dlpack.h DLPackVersion: another major may only have its deleter called"),
    ("c-rename", "must",
     "a consumed capsule is renamed 'used_dltensor' / 'used_dltensor_versioned'",
     "python_spec Implementation: the consumer renames the capsule to transfer ownership"),
    ("c-deleter-once", "must",
     "the deleter runs exactly once, and not while the imported array still uses the memory",
     "python_spec Implementation: the deleter is called by the consumer's object when it dies"),
    ("c-destructor-cleared", "should",
     "after consuming, the deleter runs once even if the producer's capsule destructor ignores 'used_'",
     "python_spec Implementation (a defensive consumer: JAX clears the capsule's destructor)"),
    ("c-refused-deleter", "must",
     "a capsule the consumer refuses still has its deleter run exactly once",
     "python_spec Implementation: ownership moves only with the rename; dlpack.h deleter"),
    ("c-device-agrees", "should",
     "a capsule on another device than __dlpack_device__() said is refused",
     "python_spec: from_dlpack queries __dlpack_device__ before __dlpack__; the two describe one array"),
    ("c-cpu-device-id", "should",
     "a kDLCPU capsule with device_id 1 is refused or imported as device (kDLCPU, 0)",
     "dlpack.h DLDevice.device_id: 0 for CPU memory"),
    ("c-null-shape", "must",
     "a capsule with ndim > 0 and a NULL shape is refused (never read)",
     "dlpack.h DLTensor.shape: the ndim extents of the tensor; NULL holds none"),
    ("c-ndim-negative", "must",
     "a capsule with ndim < 0 is refused",
     "dlpack.h DLTensor.ndim: the number of dimensions (a count)"),
    ("c-null-deleter", "must",
     "a capsule with a NULL deleter is imported (nothing to call when the array dies)",
     "dlpack.h DLManagedTensor(Versioned).deleter: 'can be NULL if there is no way for the caller to provide a "
     "reasonable destructor'"),
    ("c-misaligned", "should",
     "data + byte_offset not aligned to the element size is refused or read right (never read as if aligned)",
     "dlpack.h DLTensor.data: aligned (256 bytes advised); C11 6.3.2.3: a misaligned element pointer is undefined"),
    ("c-mislabelled", "should",
     "a capsule whose struct is not the one its name says (fields no tensor has) is refused, and nothing its "
     "fields point at is called",
     "python_spec Implementation: 'dltensor' holds a DLManagedTensor, 'dltensor_versioned' a "
     "DLManagedTensorVersioned"),
    ("c-flags-unknown", "should",
     "flag bits the capsule's version does not define are refused or ignored, never a crash",
     "dlpack.h DLManagedTensorVersioned.flags: the bits of 1.3 (later minors may add more)"),
    ("c-lanes", "must",
     "a dtype with lanes 0 is refused",
     "dlpack.h DLDataType.lanes: the number of lanes, >= 1"),
    ("c-bits", "must",
     "a dtype whose bits are not a multiple of 8 (and not a sub-byte type) is refused",
     "dlpack.h DLDataType.bits; DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED for the sub-byte types"),
    ("c-legacy-read-only", "should",
     "an array imported from a legacy capsule (which cannot say READ_ONLY) is read-only or a copy",
     "dlpack.h DLManagedTensor has no flags; immutable arrays (JAX, TensorFlow) export legacy capsules, and "
     "NumPy imports them read-only"),
    ("c-zero-copy", "must",
     "without copy=True the imported array shares the exported memory",
     "python_spec Semantics: 'If possible, this must be zero-copy'"),
    ("c-copy-true", "must",
     "from_dlpack(x, copy=True) gives an array that does not share the exported memory",
     "Array API from_dlpack, copy: 'If True, the function must always copy'"),
]

CHECKS = [Check(i, "producer", lv, r, c) for i, lv, r, c in _P] + [Check(i, "consumer", lv, r, c) for i, lv, r, c in _C]
BY_ID = {c.id: c for c in CHECKS}


def checks(side=None):
    return [c for c in CHECKS if side is None or c.side == side]

#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer harnesses (committed under fuzz/corpus/).

    python3 fuzz/make_corpus.py          # rewrites fuzz/corpus/dltensor_import and fuzz/corpus/dtype_parse

Each dltensor_import seed is one DLTensor plus import spec in the byte encoding that
fuzz/fuzz_dltensor_import.c reads (its header comment lists the fields); the seeds cover the DLPack
edge cases that real producers hit (docs: DLPACK.md section 3), so the fuzzer starts from them.
File names say what each seed is. Standard library only; deterministic output.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# DLPack numbers (the standard's), spelled out here so the script needs no C header.
CPU, CUDA, CUDA_HOST, OPENCL, VULKAN, ROCM, ROCM_HOST, CUDA_MANAGED, ONEAPI, TRN = 1, 2, 3, 4, 7, 10, 11, 13, 14, 18
INT, UINT, FLOAT, OPAQUE, BFLOAT, COMPLEX, BOOL = 0, 1, 2, 3, 4, 5, 6
F8_E4M3FN, F8_E5M2, F8_E8M0FNU, F6_E2M3FN, F4_E2M1FN = 10, 12, 14, 15, 17
MS_ANY, MS_HOST, MS_DEVICE, MS_MANAGED = 0, 1, 2, 3
L_STRIDE, L_RIGHT, L_LEFT, L_ANY = 0, 1, 2, 3
# version selector values of the harness: legacy, 1.0, 1.1, 1.2, 1.3, 2.0, 1.99
V_LEGACY, V10, V11, V12, V13, V20, V199 = range(7)

P_SHAPE_NULL, P_STRIDES_NULL, P_DATA_NULL, P_NULL_ARGS, P_VERSIONED, P_LEGACY = 1, 2, 4, 0x20, 0x40, 0x80
D_GUARD, D_GUARD64, D_RAW, D_TOP = 0, 1, 2, 3

BITS_TABLE = [8, 16, 32, 64, 128, 4, 6, 0]


def u8(v):
    return bytes([v & 0xFF])


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def enc_ndim(n):
    if 0 <= n <= 8:
        return u8(n)
    if 56 <= n <= 71:
        return u8(0xE0 + n - 56)
    if -15 <= n <= -1:
        return u8(0xF0 + (-1 - n))
    return u8(0xFF) + u32(n)


def enc_small(v):  # extents and strides
    if 0 <= v <= 15:
        return u8(v)
    if -16 <= v <= -1:
        return u8(0xC0 + v + 16)
    return u8(0xF0) + u64(v)


def enc_dtype(code, bits, lanes=1):
    # The harness maps bytes below 0xF0 to code % 20 and takes bytes from 0xF0 up as they are.
    assert code < 20 or code >= 0xF0, code
    out = u8(code)
    if bits in BITS_TABLE:
        out += u8(BITS_TABLE.index(bits))
    elif bits <= 62:
        out += u8(0xC0 + bits)
    else:
        out += u8(0xFF) + u8(bits)
    if lanes == 1:
        out += u8(0)
    elif lanes <= 63:
        out += u8(0xC0 + lanes)
    else:
        out += u8(0xFF) + u32(lanes)
    return out


def enc_device(dtype_, dev_id=0):
    out = u8(dtype_) if 0 <= dtype_ < 20 else u8(0xF0) + u32(dtype_)
    if 0 <= dev_id <= 3:
        out += u8(dev_id)
    elif -16 <= dev_id <= -1:
        out += u8(0xF0 + (-1 - dev_id))
    else:
        out += u8(0xFF) + u32(dev_id)
    return out


def row_major(shape):
    st, acc = [], 1
    for e in reversed(shape):
        st.append(acc)
        acc *= max(e, 1)
    return list(reversed(st))


def col_major(shape):
    st, acc = [], 1
    for e in shape:
        st.append(acc)
        acc *= max(e, 1)
    return st


def seed(shape, strides="C", dtype=(FLOAT, 32, 1), device=(CPU, 0), *, ptrs=0, data=(D_GUARD64, 0),
         byte_offset=0, ndim=None, spec_dtype="same", spec_ndim="same", memspace=MS_HOST, layout=L_ANY,
         version=V13, alignment=0, iter_flags=0, managed=None, any_flags=False):
    """One harness input. strides: "C", "F", None (NULL) or a list."""
    if ndim is None:
        ndim = len(shape)
    if strides == "C":
        strides = row_major(shape)
    elif strides == "F":
        strides = col_major(shape)
    if strides is None:
        ptrs |= P_STRIDES_NULL
    if shape is None:
        ptrs |= P_SHAPE_NULL
    if managed is not None:
        ptrs |= P_VERSIONED
    mode, dval = data
    modes = mode
    raw_offset = byte_offset >= 64 * 8 or (byte_offset % 8 != 0 and byte_offset >= 64)
    if raw_offset:
        modes |= 4
    elif byte_offset % 8 != 0:
        modes |= 8
    if any_flags:
        modes |= 0x80
    out = u8(ptrs) + u8(modes) + enc_ndim(ndim) + enc_dtype(*dtype) + enc_device(*device)
    out += u64(dval) if mode == D_RAW else u8(dval)
    if raw_offset:
        out += u64(byte_offset)
    else:
        out += u8(byte_offset // 8 if not modes & 8 else byte_offset)
    n = max(0, min(ndim, 256))
    if shape is not None:
        vals = list(shape) + [1] * (n - len(shape))
        out += b"".join(enc_small(v) for v in vals[:n])
    if strides is not None:
        vals = list(strides) + [1] * (n - len(strides))
        out += b"".join(enc_small(v) for v in vals[:n])
    if spec_dtype == "any":
        out += u8(0x00)
    elif spec_dtype == "same":
        out += u8(0x80)
    else:
        out += u8(0xF0) + enc_dtype(*spec_dtype)
    if spec_ndim == "any":
        out += u8(0x00)
    elif spec_ndim == "same":
        out += u8(0x80)
    else:
        out += u8(0xC0) + u8(spec_ndim)
    out += u8(memspace) if 0 <= memspace < 4 else u8(4) + u8(memspace)
    out += u8(layout) if 0 <= layout < 4 else u8(4) + u8(layout)
    out += u8(version)
    if alignment == 0:
        out += u8(0)
    elif alignment & (alignment - 1) == 0 and alignment <= 128:
        out += u8(0x80 + alignment.bit_length() - 1)
    elif alignment < 15:
        out += u8(0xF0 + alignment)
    else:
        out += u8(0xFF) + u32(alignment)
    out += u8(iter_flags)
    if managed is not None:
        major, minor, flags = managed
        out += u8(major) + u8(minor) + u64(flags)
    return out


def dltensor_import_seeds():
    s = {}
    # Well-formed tensors of every rank, row-major, as NumPy or PyTorch export them.
    s["f32_rank0"] = seed([], layout=L_RIGHT)
    s["f32_rank0_null_shape_strides"] = seed(None, None, ndim=0, layout=L_RIGHT)
    for r, shape in [(1, [7]), (2, [3, 4]), (3, [2, 3, 4]), (4, [2, 3, 4, 5]), (8, [2, 1, 2, 1, 2, 1, 2, 3])]:
        s["f32_rank%d_c_right" % r] = seed(shape, "C", layout=L_RIGHT)
    s["f64_rank2_f_left"] = seed([3, 5], "F", dtype=(FLOAT, 64, 1), layout=L_LEFT)
    s["f32_rank2_f_asked_right"] = seed([3, 5], "F", layout=L_RIGHT)  # LAYOUT_MISMATCH
    s["i8_rank3_permuted_stride"] = seed([2, 3, 4], [1, 8, 2], dtype=(INT, 8, 1), layout=L_STRIDE)
    s["i16_rank2_padded_rows"] = seed([3, 4], [6, 1], dtype=(INT, 16, 1), layout=L_STRIDE)
    s["f32_rank2_negative_stride_any"] = seed([3, 4], [-4, 1], layout=L_ANY, data=(D_GUARD64, 8))
    s["f32_rank2_negative_stride_strided"] = seed([3, 4], [-4, 1], layout=L_STRIDE)  # BAD_STRIDE
    s["f32_rank3_broadcast_zero_stride"] = seed([4, 3, 5], [0, 5, 1], layout=L_ANY, iter_flags=0)
    s["u8_rank2_broadcast_iter_noreorder"] = seed([4, 6], [0, 1], dtype=(UINT, 8, 1), layout=L_ANY, iter_flags=1)
    s["f32_extent1_odd_strides"] = seed([3, 1, 4], [4, 99, 1], layout=L_RIGHT)  # size-1 dims: any stride
    s["f32_empty_null_data_garbage_strides"] = seed([3, 0, 4], [0, 0, 0], ptrs=P_DATA_NULL, layout=L_RIGHT)
    # Found by the fuzzer: an empty tensor with a huge extent imports under LEFT, not under RIGHT/ANY.
    s["f16_empty_huge_extent_left"] = seed([2, 0, 0, 0, 4, 4208107446662987775], [0, 1, 4, 2, 0, 1],
                                           dtype=(FLOAT, 16, 1), device=(CUDA, 2), memspace=MS_ANY,
                                           layout=L_LEFT, version=V_LEGACY, ptrs=P_DATA_NULL)
    s["f32_null_data_with_elements"] = seed([2, 2], ptrs=P_DATA_NULL)  # NULL_DATA
    s["f32_null_shape_rank2"] = seed(None, [3, 1], ndim=2)  # NULL_SHAPE
    s["f32_null_strides_legacy"] = seed([2, 3], None, version=V_LEGACY, layout=L_RIGHT)
    s["f32_null_strides_v11"] = seed([2, 3], None, version=V11, layout=L_RIGHT)
    s["f32_null_strides_v13"] = seed([2, 3], None, version=V13)  # NULL_STRIDES since 1.2
    s["f32_null_strides_left_rank2"] = seed([2, 3], None, version=V_LEGACY, layout=L_LEFT)
    s["f32_negative_extent"] = seed([2, -3], [3, 1])
    s["f32_rank65"] = seed([1] * 65, [1] * 65, ndim=65)  # RANK
    s["f32_rank_negative"] = seed([], [], ndim=-1)
    s["f32_rank_int32_max"] = seed([], [], ndim=0x7FFFFFFF)
    s["f32_rank64_ones"] = seed([1] * 64, [1] * 64, ndim=64, layout=L_RIGHT)
    s["f32_spec_rank_mismatch"] = seed([2, 3], spec_ndim=3)
    s["f32_spec_dtype_mismatch"] = seed([2, 3], spec_dtype=(FLOAT, 64, 1))
    s["f32_byte_offset_applied"] = seed([2, 3], byte_offset=16, layout=L_RIGHT)
    s["f32_byte_offset_misaligned"] = seed([2, 3], byte_offset=2)  # MISALIGNED for float32
    s["f32_data_misaligned_align1"] = seed([4], data=(D_GUARD, 3), alignment=1)
    s["f32_alignment_64_required"] = seed([4], data=(D_GUARD64, 1), alignment=64)
    s["f32_alignment_not_power_of_two"] = seed([4], alignment=3)
    s["f32_huge_byte_offset"] = seed([4], byte_offset=0xFFFFFFFFFFFFFF00)  # OVERFLOW
    s["f32_data_top_of_address_space"] = seed([4], data=(D_TOP, 3))  # aligned, span wraps
    s["f32_data_raw_pointer"] = seed([2, 2], data=(D_RAW, 0x7F0000001000))
    s["f32_extent_overflow"] = seed([1 << 40, 1 << 40], [1 << 40, 1], layout=L_ANY)
    s["f32_stride_overflow"] = seed([3, 3], [1 << 62, 1], layout=L_ANY)
    s["i64_min_stride"] = seed([2], [-(1 << 63)], dtype=(INT, 64, 1), layout=L_ANY)
    # Dtypes: every family, sub-byte, vectors, illegal ones.
    s["bool_rank1"] = seed([5], dtype=(BOOL, 8, 1), layout=L_RIGHT)
    s["uint1_is_not_bool"] = seed([5], dtype=(UINT, 1, 1))
    s["bf16_rank2"] = seed([4, 4], dtype=(BFLOAT, 16, 1))
    s["complex64_rank1"] = seed([3], dtype=(COMPLEX, 64, 1), layout=L_RIGHT)
    s["complex32_half_pair"] = seed([3], dtype=(COMPLEX, 32, 1))
    s["float4_packed_rank1"] = seed([8], dtype=(F4_E2M1FN, 4, 1))
    s["float6_packed_rank2"] = seed([2, 4], dtype=(F6_E2M3FN, 6, 1))
    s["float8_e4m3fn"] = seed([16], dtype=(F8_E4M3FN, 8, 1), iter_flags=2)
    s["float8_e8m0fnu"] = seed([16], dtype=(F8_E8M0FNU, 8, 1))
    s["float32x4_vector"] = seed([6], dtype=(FLOAT, 32, 4))
    s["opaque64"] = seed([2], dtype=(OPAQUE, 64, 1))
    s["int128"] = seed([2], dtype=(INT, 128, 1), alignment=0)
    s["illegal_float24"] = seed([2], dtype=(FLOAT, 24, 1))
    s["illegal_lanes0"] = seed([2], dtype=(FLOAT, 32, 0))
    s["illegal_code_18"] = seed([2], dtype=(18, 32, 1))
    s["illegal_code_250"] = seed([2], dtype=(250, 32, 1))
    s["float4_bits8_refused"] = seed([2], dtype=(F4_E2M1FN, 8, 1))
    # Devices and memory spaces.
    s["cuda_device_space"] = seed([4, 4], device=(CUDA, 1), memspace=MS_DEVICE)
    s["cuda_asked_host"] = seed([4, 4], device=(CUDA, 0), memspace=MS_HOST)  # DEVICE_MISMATCH
    s["cuda_host_pinned_is_host"] = seed([4], device=(CUDA_HOST, 0), memspace=MS_HOST)
    s["rocm_host_pinned_is_host"] = seed([4], device=(ROCM_HOST, 0), memspace=MS_HOST)
    s["cuda_managed_space"] = seed([4], device=(CUDA_MANAGED, 0), memspace=MS_MANAGED)
    s["oneapi_any_space"] = seed([4], device=(ONEAPI, 0), memspace=MS_ANY)
    s["trn_any_space"] = seed([4], device=(TRN, 2), memspace=MS_ANY)
    s["device_type_5_unused"] = seed([4], device=(5, 0), memspace=MS_ANY)
    s["device_type_99"] = seed([4], device=(99, 0), memspace=MS_ANY)
    s["device_id_negative"] = seed([4], device=(CUDA, -1), memspace=MS_DEVICE)
    s["memspace_out_of_range"] = seed([4], memspace=9)
    s["layout_out_of_range"] = seed([4], layout=-3)
    # Managed tensors and NULL arguments.
    s["versioned_1_3_read_only"] = seed([2, 3], managed=(1, 3, 1), layout=L_RIGHT)
    s["versioned_1_0_null_strides"] = seed([2, 3], None, managed=(1, 0, 0), layout=L_RIGHT)
    s["versioned_1_3_null_strides"] = seed([2, 3], None, managed=(1, 3, 0))
    s["versioned_major2_refused"] = seed([2, 3], managed=(2, 0, 0))
    s["versioned_major0_refused"] = seed([2, 3], managed=(0, 6, 0))
    s["versioned_padded_float4"] = seed([8], dtype=(F4_E2M1FN, 4, 1), managed=(1, 3, 4))
    s["versioned_unknown_flag_bits"] = seed([3], managed=(1, 3, 0xFFFF0003), any_flags=True)
    s["legacy_null_strides"] = seed([2, 3], None, ptrs=P_LEGACY, version=V13, layout=L_RIGHT)
    s["null_arguments"] = seed([2], ptrs=P_NULL_ARGS)
    s["spec_version_2_0"] = seed([2, 3], version=V20)
    s["spec_version_1_99"] = seed([2, 3], None, version=V199)
    return s


def dtype_parse_seeds():
    names = ["bool", "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64",
             "float16", "bfloat16", "float32", "float64", "float128", "complex32", "complex64", "complex128",
             "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
             "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
             "float4_e2m1fn", "float32x4", "int8x16", "float16x2", "opaque64", "opaque8",
             # not names
             "", "float", "Float32", "float32x", "float32x0", "float32x65536", "int7", "opaque0", "opaque12",
             "float32 ", "x4", "uint1", "float4_e2m1fnx2"]
    s = {}
    for i, n in enumerate(names):
        s["%02d_%s" % (i, n.replace(" ", "_") or "empty")] = n.encode()
    # Raw DLDataType words (the harness reads the first 4 bytes as code, bits, lanes).
    s["raw_float32x1"] = bytes([FLOAT, 32, 1, 0])
    s["raw_fp4"] = bytes([F4_E2M1FN, 4, 1, 0, ord("x")])
    s["raw_lanes_65535"] = bytes([FLOAT, 16, 0xFF, 0xFF])
    return s


def write(dirname, seeds):
    out = os.path.join(HERE, "corpus", dirname)
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        os.remove(os.path.join(out, old))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return len(seeds)


def main():
    n1 = write("dltensor_import", dltensor_import_seeds())
    n2 = write("dtype_parse", dtype_parse_seeds())
    print("wrote %d dltensor_import seeds and %d dtype_parse seeds under fuzz/corpus/" % (n1, n2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

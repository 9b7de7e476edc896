#!/usr/bin/python3
"""Regenerates the seed corpora of tests/fuzz/corpus/{npy,npz,tensorproto,
gather,family}.

Run from anywhere with Debian's python3 (python3-numpy, python3-onnx):
    /usr/bin/python3 tests/fuzz/make_corpus.py            # all of them
    /usr/bin/python3 tests/fuzz/make_corpus.py family     # only some
The files are committed; the test suite never runs this script. Seeds are
small (a few KB per harness) valid inputs of every kind plus a few hostile
ones, so that the fuzzers start from deep inside the parsers.
"""
import io
import os
import shutil
import struct

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def out_dir(name):
    d = os.path.join(CORPUS, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ------------------------------------------------------------------ .npz
def npz_bytes(compressed=False, **arrays):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def make_npz():
    d = out_dir("npz")
    a = np.arange(12, dtype="<f4").reshape(3, 4)
    write(d, "ok_one.npz", npz_bytes(a=a))
    write(d, "ok_one_deflated.npz", npz_bytes(True, a=a))
    write(d, "ok_two.npz", npz_bytes(a=np.arange(3, dtype="<i8"),
                                     b=np.zeros((0, 2), dtype="<u1")))
    write(d, "ok_two_deflated.npz",
          npz_bytes(True, a=np.arange(5, dtype="<i4"), x=a))
    write(d, "ok_scalar.npz", npz_bytes(a=np.array(3.5, dtype="<f8")))
    good = npz_bytes(a=a)
    write(d, "bad_truncated.npz", good[:-30])
    crc = bytearray(good)
    crc[14] ^= 0xFF  # the local header's CRC-32
    write(d, "bad_crc.npz", bytes(crc))
    cd = bytearray(good)
    cd[-6] ^= 0x40  # the central directory's offset
    write(d, "bad_cd_offset.npz", bytes(cd))
    write(d, "bad_empty.npz", b"PK\x05\x06" + b"\x00" * 18)


# ------------------------------------------------------------------ .npy
def npy_bytes(arr, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, arr)
    else:
        np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


def npy_raw(major, header, data=b""):
    """A .npy image with an arbitrary header text."""
    pre = 10 if major == 1 else 12
    text = header.encode("latin1")
    pad = (-(pre + len(text) + 1)) % 64
    text = text + b" " * pad + b"\n"
    size = struct.pack("<H" if major == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([major, 0]) + size + text + data


def make_npy():
    d = out_dir("npy")
    rng = np.random.default_rng(1)
    for dt in ["<f2", "<f4", "<f8", "|b1", "|i1", "|u1", "<i2", "<u2", "<i4",
               "<u4", "<i8", "<u8", "<c8", "<c16"]:
        a = (rng.integers(0, 5, size=(2, 3)) % 2 == 1) if dt == "|b1" else \
            rng.integers(-3, 9, size=(2, 3)).astype(dt)
        write(d, "ok_%s.npy" % dt[1:], npy_bytes(a))
    write(d, "ok_scalar.npy", npy_bytes(np.array(7, dtype="<i8")))
    write(d, "ok_empty.npy", npy_bytes(np.zeros((0, 3), dtype="<f4")))
    write(d, "ok_rank16.npy", npy_bytes(np.zeros((1,) * 16, dtype="|u1")))
    write(d, "ok_v2.npy", npy_bytes(np.arange(4, dtype="<i4"), (2, 0)))
    write(d, "ok_v3.npy", npy_bytes(np.arange(3, dtype="<u2"), (3, 0)))
    write(d, "ok_fortran_1d.npy",
          npy_raw(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                  b"\0" * 8))
    write(d, "ok_long_suffix.npy",
          npy_raw(1, "{'shape': (2L, 1L), 'fortran_order': False, "
                     "'descr': '<i2'}", b"\1\0\2\0"))
    # Hostile: each must be rejected.
    write(d, "bad_magic.npy", b"\x93NUMPZ\x01\x00\x10\x00{}")
    write(d, "bad_truncated.npy", npy_bytes(np.arange(6, dtype="<f4"))[:-5])
    write(d, "bad_header_len.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'")
    write(d, "bad_fortran.npy",
          npy_raw(1, "{'descr': '<f4', 'fortran_order': True, "
                     "'shape': (2, 3), }", b"\0" * 24))
    write(d, "bad_bigendian.npy",
          npy_raw(1, "{'descr': '>i4', 'fortran_order': False, "
                     "'shape': (2,), }", b"\0" * 8))
    write(d, "bad_object.npy",
          npy_raw(1, "{'descr': '|O', 'fortran_order': False, "
                     "'shape': (1,), }", b"\0" * 8))
    write(d, "bad_petabyte.npy",
          npy_raw(1, "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (1125899906842624,), }", b"\0" * 16))
    write(d, "bad_overflow.npy",
          npy_raw(1, "{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296), }", b"\0" * 8))
    write(d, "bad_structured.npy",
          npy_raw(1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
                     "'shape': (1,), }", b"\0" * 4))
    write(d, "bad_version.npy",
          npy_raw(4, "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (1,), }", b"\0" * 4))


# ---------------------------------------------------------- TensorProto
def make_tensorproto():
    d = out_dir("tensorproto")
    rng = np.random.default_rng(2)
    for dt in [np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16,
               np.int32, np.uint32, np.int64, np.uint64, np.bool_, np.float16,
               np.complex64, np.complex128]:
        a = rng.integers(-2, 3, size=(2, 2)).astype(dt)
        name = np.dtype(dt).name
        write(d, "raw_%s.pb" % name,
              numpy_helper.from_array(a).SerializeToString())
    # Typed fields (no raw_data), one per field ONNX assigns.
    typed = [
        ("float_data", TensorProto.FLOAT, [1.5, -2.0]),
        ("float_data_c64", TensorProto.COMPLEX64, [1.0, 2.0, 3.0, 4.0]),
        ("int32_data_i8", TensorProto.INT8, [-128, 127]),
        ("int32_data_bool", TensorProto.BOOL, [1, 0]),
        ("int32_data_f16", TensorProto.FLOAT16, [15360, 48128]),
        ("int32_data_bf16", TensorProto.BFLOAT16, [16256, 49024]),
        ("int32_data_u16", TensorProto.UINT16, [65535, 1]),
        ("int64_data", TensorProto.INT64, [-(2 ** 62), 5]),
        ("double_data", TensorProto.DOUBLE, [0.25, -1e300]),
        ("uint64_data_u32", TensorProto.UINT32, [4294967295, 0]),
        ("uint64_data_u64", TensorProto.UINT64, [2 ** 64 - 1, 3]),
    ]
    for name, dt, vals in typed:
        n = len(vals) // 2 if dt in (TensorProto.COMPLEX64,) else len(vals)
        t = TensorProto()
        t.data_type = dt
        t.dims.extend([n])
        field = name.split("_data")[0] + "_data"
        getattr(t, field).extend(vals)
        write(d, "typed_%s.pb" % name, t.SerializeToString())
    scalar = TensorProto()
    scalar.data_type = TensorProto.INT64
    scalar.int64_data.append(3)
    write(d, "scalar.pb", scalar.SerializeToString())
    empty = TensorProto()
    empty.data_type = TensorProto.FLOAT
    empty.dims.extend([0, 4])
    write(d, "empty.pb", empty.SerializeToString())
    bf = TensorProto()
    bf.data_type = TensorProto.BFLOAT16
    bf.dims.extend([3])
    bf.raw_data = b"\x80\x3f\x00\x40\x40\x40"
    write(d, "raw_bfloat16.pb", bf.SerializeToString())
    # Hostile tensors.
    peta = TensorProto()
    peta.data_type = TensorProto.FLOAT
    peta.dims.extend([2 ** 25, 2 ** 25])
    peta.raw_data = b"\0" * 8
    write(d, "bad_petabyte.pb", peta.SerializeToString())
    both = TensorProto()
    both.data_type = TensorProto.INT64
    both.dims.extend([1])
    both.raw_data = b"\0" * 8
    both.int64_data.append(1)
    write(d, "bad_two_sources.pb", both.SerializeToString())
    ext = TensorProto()
    ext.data_type = TensorProto.FLOAT
    ext.dims.extend([1])
    ext.data_location = TensorProto.EXTERNAL
    e = ext.external_data.add()
    e.key, e.value = "location", "weights.bin"
    write(d, "bad_external.pb", ext.SerializeToString())
    s = TensorProto()
    s.data_type = TensorProto.STRING
    s.dims.extend([1])
    s.string_data.append(b"x")
    write(d, "bad_string.pb", s.SerializeToString())
    write(d, "bad_truncated.pb",
          numpy_helper.from_array(np.arange(8, dtype=np.int32))
          .SerializeToString()[:-7])
    # Models, as `clgather onnx-test` reads them.
    for axis in (0, 1, -1):
        node = helper.make_node("Gather", ["data", "indices"], ["y"],
                                axis=axis)
        init = numpy_helper.from_array(np.array([0, -1], dtype=np.int64),
                                       "indices")
        graph = helper.make_graph(
            [node], "g",
            [helper.make_tensor_value_info("data", TensorProto.FLOAT, [3, 2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [init])
        model = helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 13)])
        write(d, "model_gather_axis%d.onnx" % axis, model.SerializeToString())
    node = helper.make_node("Constant", [], ["c"],
                            value=numpy_helper.from_array(
                                np.ones((2,), dtype=np.float16)))
    bad_axis = helper.make_node("Gather", ["c", "i"], ["y"])
    bad_axis.attribute.append(helper.make_attribute("axis", 1.5))
    graph = helper.make_graph([node, bad_axis], "g2", [], [])
    write(d, "model_constant_float_axis.onnx",
          helper.make_model(graph).SerializeToString())


# --------------------------------------------------------------- gather
# Byte layout decoded by fuzz_gather.c: data dtype, index dtype, data rank,
# indices rank, dims of data, dims of indices, axis, variant, value mode,
# index values, then plan parameters.
FIXED = {"float": 0, "uint8": 1, "int8": 2, "uint16": 3, "int16": 4,
         "int32": 5, "int64": 6, "bool": 7, "float16": 8, "double": 9,
         "uint32": 10, "uint64": 11, "complex64": 12, "complex128": 13,
         "bfloat16": 14}
WILD = {2 ** 32 + 1: 232, 2 ** 60: 233, 65536: 234, 1000000007: 235,
        2 ** 61: 236, 4097: 237, 2 ** 63 - 1: 240, -(2 ** 63): 241, -1: 242,
        -2: 243, 2 ** 31: 244, 2 ** 32: 245, 2 ** 62: 246}


def dim_byte(v):
    if 0 <= v <= 4:
        return v
    if 5 <= v <= 16:
        return 204 + v
    return WILD[v]


def gather_seed(dtype, idx64, dshape, ishape, axis, values, variant=0,
                raw=False, rank_bytes=None, extra=b"\x10\x00\x05"):
    b = bytes([FIXED[dtype] if isinstance(dtype, str) else dtype,
               1 if idx64 else 0])
    b += rank_bytes if rank_bytes else bytes([len(dshape) - 1, len(ishape)])
    b += bytes(dim_byte(v) for v in dshape) + bytes(dim_byte(v) for v in ishape)
    b += bytes([axis + 5, variant, 1 if raw else 0])
    s = dshape[axis] if len(dshape) else 0
    span = s if 0 <= s <= 1000 else 1000
    for v in values:
        b += struct.pack(">q", v) if raw else bytes([(v + span + 1) & 0xff])
    return b + extra + bytes(range(40))


def make_gather():
    d = out_dir("gather")
    seeds = {
        "readme_float_axis0": gather_seed("float", True, [3, 2], [2, 2], 0,
                                          [0, 1, 1, 2]),
        "axis1_negative": gather_seed("int16", False, [2, 3, 4], [3], 1,
                                      [-1, 0, 2]),
        "axis_neg1_double": gather_seed("double", True, [2, 4], [2, 1], -1,
                                        [3, -4]),
        "scalar_index": gather_seed("uint8", False, [4, 3], [], 0, [2]),
        "empty_indices": gather_seed("float16", True, [3, 2], [0], 0, []),
        "empty_data_dim": gather_seed("int32", True, [0, 2], [0], 1, []),
        "bool_rank4": gather_seed("bool", False, [2, 2, 2, 3], [2, 2], 3,
                                  [0, 1, 2, -3]),
        "complex128": gather_seed("complex128", True, [3, 2], [2], 0, [2, -3]),
        "bfloat16": gather_seed("bfloat16", False, [5], [3], 0, [4, -5, 0]),
        "rows_variant": gather_seed("float", True, [3, 16, 16], [2], 0,
                                    [2, -1]),
        "uint64_axis2": gather_seed("uint64", True, [2, 2, 3], [4], 2,
                                    [0, 1, 2, -1]),
        "oob_high": gather_seed("int64", True, [5, 2], [2, 3], 0,
                                [0, 1, 2, 5, 4, -5]),
        "oob_low": gather_seed("int8", False, [3], [2], 0, [-4, 0]),
        "oob_raw_huge": gather_seed("float", True, [3, 2], [1], 0,
                                    [2 ** 62], raw=True),
        "oob_empty_axis": gather_seed("float", True, [0, 3], [1], 0, [0]),
        "axis_out_of_range": gather_seed("float", True, [3, 2], [1], 1, [0],
                                         extra=b""),
        "overflow_dims": gather_seed("double", True, [2 ** 62, 4], [1], 0,
                                     [0]),
        "negative_dim": gather_seed("float", False, [-1, 2], [1], 0, [0]),
        "huge_dim_zero_elems": gather_seed("float", True, [0, 2 ** 63 - 1],
                                           [0], 1, []),
        "bad_output_dtype": gather_seed("float", True, [3, 2], [1], 0, [0],
                                        variant=200),
        "bad_output_shape": gather_seed("float", True, [3, 2], [1], 0, [0],
                                        variant=201),
        "bad_output_rank": gather_seed("float", True, [3, 2], [1], 0, [0],
                                       variant=202),
        "aliased_output": gather_seed("float", True, [3, 2], [1], 0, [0],
                                      variant=203),
        "null_output": gather_seed("float", True, [3, 2], [1], 0, [0],
                                   variant=204),
        "bad_storage": gather_seed("float", True, [3, 2], [1], 0, [0],
                                   variant=207),
        "string_dtype": gather_seed(248, True, [3], [1], 0, [0]),
        "int16_indices": bytes([0, 243]) + gather_seed("float", True, [3],
                                                       [1], 0, [0])[2:],
        "rank17_output": gather_seed("uint8", True, [1] * 9, [1] * 9, 0,
                                     [0] * 1,
                                     rank_bytes=bytes([246, 246])),
    }
    for name, data in seeds.items():
        write(d, name, data)


# --------------------------------------------------------------- family
# Byte layout decoded by fuzz_family.c: op, data dtype, index dtype, data
# rank, indices rank, dims of data, dims of indices, axis, batch_dims, mode,
# fix-ups, variant, storage, placement of data / indices / output, event and
# wait list, value mode, then the index values.
GATHER, ELEMENTS, ND = 0, 1, 2


def family_seed(op, dtype, idx64, dshape, ishape, axis=0, batch_dims=0,
                mode=0, values=(), variant=0, storage=0, place=(0, 0, 0),
                event=0, raw=False, fix=0, op_byte=None, axis_byte=None,
                bd_byte=None, mode_byte=None, rank_bytes=None):
    b = bytes([op if op_byte is None else op_byte,
               FIXED[dtype] if isinstance(dtype, str) else dtype,
               1 if idx64 else 0])
    b += rank_bytes if rank_bytes else bytes([len(dshape) - 1, len(ishape)])
    b += bytes(dim_byte(v) for v in dshape) + bytes(dim_byte(v) for v in ishape)
    # axis: GatherND reads "mostly zero" (byte < 224 is 0); others -5..4.
    if axis_byte is None:
        axis_byte = 0 if op == ND else axis + 5
    # batch_dims: GatherElements reads "mostly zero"; others -5..4.
    if bd_byte is None:
        bd_byte = 0 if op == ELEMENTS else batch_dims + 5
    if mode_byte is None:
        mode_byte = mode
    b += bytes([axis_byte, bd_byte, mode_byte, fix, variant, storage])
    b += bytes(place) + bytes([event, 1 if raw else 0])
    # Index values, each relative to the axis it indexes.
    r, q = len(dshape), len(ishape)
    a = axis + r if axis < 0 else axis
    bd = batch_dims + q if batch_dims < 0 else batch_dims
    for i, v in enumerate(values):
        if raw:
            b += struct.pack(">q", v)
            continue
        try:  # the harness uses 3 where the axis is not known
            s = dshape[bd + i % ishape[-1]] if op == ND else dshape[a]
        except (IndexError, ZeroDivisionError):
            s = 3
        span = s if 0 <= s <= 1000 else 1000
        b += bytes([(v + span + 1) % (2 * span + 2)])
    return b


def make_family():
    d = out_dir("family")
    G, E = GATHER, ELEMENTS
    seeds = {
        # Gather: ONNX, batch_dims, modes.
        "gather_axis0": family_seed(G, "float", True, [3, 2], [2, 2], 0,
                                    values=[0, 1, 1, 2]),
        "gather_axis1_batch1": family_seed(G, "int16", False, [2, 3, 4],
                                           [2, 2], 1, 1,
                                           values=[0, 2, -1, 1]),
        "gather_batch_neg": family_seed(G, "double", True, [2, 4], [2, 3], 1,
                                        -1, values=[3, -4, 0, 1, 2, 3]),
        "gather_wrap": family_seed(G, "uint8", True, [4, 3], [5], 0, 0, 1,
                                   values=[7, -5, 4, 0, 1], raw=True),
        "gather_clip": family_seed(G, "bfloat16", False, [5], [3], 0, 0, 2,
                                   values=[9, -9, 2], raw=True),
        "gather_wrap_empty_axis": family_seed(G, "float", True, [0, 3], [1],
                                              0, 0, 1, values=[0]),
        "gather_oob": family_seed(G, "int64", True, [5, 2], [2, 3], 0,
                                  values=[0, 1, 2, 5, 4, -5]),
        "gather_batch_above_axis": family_seed(G, "float", True, [2, 3],
                                               [2, 1], 0, 1, values=[0, 0]),
        "gather_batch_mismatch": family_seed(G, "float", True, [2, 3], [3, 1],
                                             1, 1, values=[0, 0, 0]),
        "gather_bad_mode": family_seed(G, "float", True, [3], [1], 0, 0,
                                       mode_byte=250, values=[0]),
        "gather_rows": family_seed(G, "float", True, [3, 16, 16], [2], 0,
                                   values=[2, -1]),
        # GatherElements.
        "elements_axis0": family_seed(E, "float", True, [3, 3], [2, 3], 0,
                                      values=[1, 2, 0, 2, 0, 0]),
        "elements_axis1": family_seed(E, "int32", False, [2, 3], [2, 2], 1,
                                      values=[0, 0, 1, -3]),
        "elements_3d_neg": family_seed(E, "complex64", True, [2, 3, 4],
                                       [2, 2, 3], -1,
                                       values=list(range(-4, 4)) * 1 +
                                       [0, 1, 2, 3]),
        "elements_rank1": family_seed(E, "uint16", True, [4], [6], 0,
                                      values=[3, 2, 1, 0, -1, -4]),
        "elements_oob": family_seed(E, "float", True, [2, 2], [2, 2], 0,
                                    values=[0, 2, 1, 0]),
        "elements_rank_differs": family_seed(E, "float", True, [2, 2], [2],
                                             0, values=[0, 1]),
        "elements_dim_exceeds": family_seed(E, "float", True, [2, 2], [2, 3],
                                            0, values=[0] * 6),
        "elements_batch_dims": family_seed(E, "float", True, [2, 2], [2, 2],
                                           0, bd_byte=231, values=[0] * 4),
        "elements_mode": family_seed(E, "float", True, [2, 2], [2, 2], 0,
                                     mode_byte=225, values=[0] * 4),
        # GatherND.
        "nd_m1": family_seed(ND, "float", True, [3, 2], [2, 1],
                             values=[2, -3]),
        "nd_m2": family_seed(ND, "int8", False, [2, 3], [3, 2],
                             values=[0, 0, 1, 2, -1, -1]),
        "nd_batch1": family_seed(ND, "float16", True, [2, 3, 4], [2, 1, 1], 0,
                                 1, values=[2, -1]),
        "nd_batch2_m1": family_seed(ND, "uint64", True, [2, 2, 3, 2],
                                    [2, 2, 2, 1], 0, 2,
                                    values=[0, 2, -1, 1, 0, 1, 2, 0]),
        "nd_tuple_too_long": family_seed(ND, "float", True, [2, 2], [1, 3],
                                         values=[0, 0, 0]),
        "nd_rank0_indices": family_seed(ND, "float", True, [2], [],
                                        values=[0]),
        "nd_batch_out_of_range": family_seed(ND, "float", True, [2, 2],
                                             [2, 1], 0, 2, values=[0, 0]),
        "nd_axis": family_seed(ND, "float", True, [2, 2], [2, 1],
                               axis_byte=230, values=[0, 0]),
        "nd_oob": family_seed(ND, "float", True, [2, 3], [1, 2],
                              values=[1, 3]),
        "nd_empty_axis": family_seed(ND, "float", True, [0, 3], [1, 1],
                                     values=[0]),
        # Storage: cl_mem at offsets, short buffers, misaligned indices.
        "buffers_gather": family_seed(G, "float", True, [3, 2], [2], 0,
                                      values=[2, 0], storage=0x87,
                                      place=(3, 1, 5), event=1),
        "buffers_elements": family_seed(E, "double", False, [2, 3], [2, 3], 1,
                                        values=[0, 1, 2, -1, -2, -3],
                                        storage=0x85, place=(7, 2, 1)),
        "buffers_nd": family_seed(ND, "complex128", True, [2, 2, 2], [2, 2],
                                  values=[0, 1, 1, 0], storage=0x87,
                                  place=(1, 1, 9)),
        "buffer_short": family_seed(G, "float", True, [3, 2], [1], 0,
                                    values=[0], storage=0x81,
                                    place=(0x20, 0, 0)),
        "buffer_misaligned_indices": family_seed(G, "float", True, [3], [1],
                                                 0, values=[0], storage=0x82,
                                                 place=(0, 0xe0, 0)),
        "host_misaligned_pointers": family_seed(G, "int64", True, [3, 2], [2],
                                                0, values=[1, 2],
                                                place=(3, 0xe1, 5)),
        # Outputs broken in one way, wait lists, unknown storage.
        "bad_output_dtype": family_seed(E, "float", True, [2], [2], 0,
                                        values=[0, 1], variant=200),
        "bad_output_shape": family_seed(ND, "float", True, [3, 2], [1, 1],
                                        values=[0], variant=201),
        "aliased_data": family_seed(G, "float", True, [3, 2], [1], 0,
                                    values=[0], variant=203),
        "aliased_indices_buffer": family_seed(G, "int64", True, [3], [3], 0,
                                              values=[0, 1, 2], variant=211,
                                              storage=0x86),
        "null_output": family_seed(G, "float", True, [3, 2], [1], 0,
                                   values=[0], variant=204),
        "null_data_buffer": family_seed(G, "float", True, [3, 2], [1], 0,
                                        values=[0], variant=205,
                                        storage=0x81),
        "wait_list_without_count": family_seed(G, "float", True, [3], [1], 0,
                                               values=[0], variant=207),
        "count_without_wait_list": family_seed(G, "float", True, [3], [1], 0,
                                               values=[0], variant=207,
                                               event=2),
        "unknown_storage": family_seed(G, "float", True, [3], [1], 0,
                                       values=[0], storage=0x79),
        # Params: unknown operators, NULL params, hostile values.
        "unknown_op": family_seed(G, "float", True, [3], [1], 0, values=[0],
                                  op_byte=250),
        "unknown_op_max": family_seed(G, "float", True, [3], [1], 0,
                                      values=[0], op_byte=255),
        "null_params": family_seed(G, "float", True, [3, 2], [2], 0,
                                   values=[1, -1], op_byte=249),
        "huge_batch_dims": family_seed(G, "float", True, [3], [1], 0,
                                       bd_byte=241, values=[0]),
        "huge_axis": family_seed(E, "float", True, [3], [1], 0,
                                 axis_byte=240, values=[0]),
        "rank17_output": family_seed(G, "uint8", True, [1] * 9, [1] * 9, 0,
                                     values=[0], rank_bytes=bytes([246, 246])),
        "fixups": family_seed(E, "float", True, [3, 3], [2, 5], 0, fix=0x27,
                              values=[0] * 9),
    }
    for name, data in seeds.items():
        write(d, name, data)


if __name__ == "__main__":
    import sys
    makers = {"npy": make_npy, "npz": make_npz,
              "tensorproto": make_tensorproto,
              "gather": make_gather, "family": make_family}
    names = sys.argv[1:] or list(makers)
    for name in names:
        makers[name]()
    for name in names:
        d = os.path.join(CORPUS, name)
        files = os.listdir(d)
        total = sum(os.path.getsize(os.path.join(d, f)) for f in files)
        print("%s: %d files, %d bytes" % (name, len(files), total))

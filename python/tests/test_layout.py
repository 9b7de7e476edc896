"""The ctypes mirror of clgather.h (clgather/_lib.py) against the C
compiler's view of it: sizes, alignments, field names, offsets and sizes of
every mirrored structure, and the value of every copied constant (element
types, operators, modes, reductions, statuses), read from the output of
layout_helper.c, built by python/CMakeLists.txt and named by the
environment variable CLGATHER_LAYOUT_HELPER (set by ctest). Without it the
tests fail: a layout check that is not run is not a pass."""

import ctypes
import os
import subprocess

import numpy as np
import pytest

from clgather import _lib

# The ctypes mirror of each C structure: every ctypes.Structure in _lib
# must be listed here (test_every_structure_is_checked).
MIRRORS = {
    "Tensor": "clg_tensor",
    "StridedTensor": "clg_strided_tensor",
    "Params": "clg_params",
    "ScatterParams": "clg_scatter_params",
    "BagParams": "clg_bag_params",
    "GbqParams": "clg_gbq_params",
}

DTYPE_NAMES = {
    np.float32: "FLOAT", np.uint8: "UINT8", np.int8: "INT8",
    np.uint16: "UINT16", np.int16: "INT16", np.int32: "INT32",
    np.int64: "INT64", np.bool_: "BOOL", np.float16: "FLOAT16",
    np.float64: "DOUBLE", np.uint32: "UINT32", np.uint64: "UINT64",
    np.complex64: "COMPLEX64", np.complex128: "COMPLEX128",
    "V2": "BFLOAT16",  # bfloat16 as its bytes (clgather/_tensors.py)
}

# The exception each status becomes (numpy's class for the same mistake),
# as the package documents it.
STATUS_CLASSES = {
    "NULL_ARGUMENT": ValueError, "INVALID_ARGUMENT": ValueError,
    "INVALID_RANK": ValueError, "INVALID_SHAPE": ValueError,
    "INVALID_AXIS": _lib.AxisError, "UNSUPPORTED_DTYPE": TypeError,
    "INVALID_INDICES_DTYPE": TypeError, "DTYPE_MISMATCH": TypeError,
    "SHAPE_MISMATCH": ValueError, "SIZE_OVERFLOW": ValueError,
    "BUFFER_TOO_SMALL": ValueError, "INDEX_OUT_OF_BOUNDS": IndexError,
    "NO_DEVICE": RuntimeError, "OPENCL": RuntimeError,
    "BUILD_FAILED": RuntimeError, "OUT_OF_HOST_MEMORY": MemoryError,
    "INVALID_BATCH_DIMS": ValueError, "INCOMPATIBLE_SHAPES": ValueError,
    "DUPLICATE_INDEX": ValueError, "INTERNAL": RuntimeError,
    "INVALID_BAGS": ValueError,
}


@pytest.fixture(scope="module")
def c_layout():
    helper = os.environ.get("CLGATHER_LAYOUT_HELPER")
    if not helper:
        pytest.fail("CLGATHER_LAYOUT_HELPER is not set: run the suite "
                    "through ctest (python/CMakeLists.txt builds "
                    "layout_helper.c and names it), or set it to the built "
                    "clgather_layout_helper")
    text = subprocess.run([helper], check=True, stdout=subprocess.PIPE,
                          universal_newlines=True, timeout=30).stdout
    structs, fields, consts = {}, {}, {}
    for line in text.splitlines():
        kind, *rest = line.split()
        if kind == "struct":
            structs[rest[0]] = (int(rest[1]), int(rest[2]))
        elif kind == "field":
            fields.setdefault(rest[0], []).append(
                (rest[1], int(rest[2]), int(rest[3])))
        elif kind == "const":
            consts[rest[0]] = int(rest[1])
        else:
            pytest.fail("layout helper: unexpected line %r" % line)
    assert structs and fields and consts, text
    return structs, fields, consts


def test_every_structure_is_checked():
    mirrored = sorted(name for name, v in vars(_lib).items()
                      if isinstance(v, type)
                      and issubclass(v, ctypes.Structure)
                      and v.__module__ == _lib.__name__)
    assert mirrored == sorted(MIRRORS)


@pytest.mark.parametrize("py_name", sorted(MIRRORS))
def test_structure_layout(c_layout, py_name):
    structs, fields, _ = c_layout
    c_name = MIRRORS[py_name]
    cls = getattr(_lib, py_name)
    assert (ctypes.sizeof(cls), ctypes.alignment(cls)) == structs[c_name]
    mine = [(name, getattr(cls, name).offset, getattr(cls, name).size)
            for name, _ in cls._fields_]
    assert mine == fields[c_name]


def test_constants(c_layout):
    consts = c_layout[2]
    assert _lib.CLG_MAX_RANK == consts["CLG_MAX_RANK"]
    assert _lib.STORAGE_HOST == consts["CLG_STORAGE_HOST"]
    assert _lib.STORAGE_BUFFER == consts["CLG_STORAGE_BUFFER"]
    assert _lib.STORAGE_HOST_STRIDED == consts["CLG_STORAGE_HOST_STRIDED"]
    assert (_lib.STORAGE_BUFFER_STRIDED
            == consts["CLG_STORAGE_BUFFER_STRIDED"])
    for op in ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "SCATTER_ELEMENTS",
               "SCATTER_ND"):
        assert getattr(_lib, "OP_" + op) == consts["CLG_OP_" + op], op
    for table, prefix in ((_lib.MODES, "CLG_MODE_"),
                          (_lib.REDUCTIONS, "CLG_REDUCTION_"),
                          (_lib.DUPLICATES, "CLG_DUPLICATES_")):
        want = {k[len(prefix):].lower(): v for k, v in consts.items()
                if k.startswith(prefix)}
        assert table == want, prefix
    want = {k[len("CLG_BAG_"):].lower(): v for k, v in consts.items()
            if k in ("CLG_BAG_SUM", "CLG_BAG_MEAN", "CLG_BAG_MAX",
                     "CLG_BAG_SQRT_N")}
    assert _lib.BAG_MODES == want
    for name in ("OFFSETS", "FIXED", "SEGMENT_IDS"):
        assert getattr(_lib, "BAGS_" + name) == consts["CLG_BAGS_" + name]
    for name in ("INCLUDE_LAST_OFFSET", "PADDING_IDX"):
        assert getattr(_lib, "BAG_" + name) == consts["CLG_BAG_" + name]
    want = {k[len("CLG_GBQ_"):].lower(): v for k, v in consts.items()
            if k.startswith("CLG_GBQ_")}
    assert _lib.GBQ_KINDS == want


def test_dtype_codes(c_layout):
    consts = c_layout[2]
    want = {np.dtype(t): consts["CLG_DTYPE_" + n]
            for t, n in DTYPE_NAMES.items()}
    assert _lib.DTYPES == want


def test_status_codes_and_exceptions(c_layout):
    consts = c_layout[2]
    assert _lib.SUCCESS == consts["CLG_SUCCESS"]
    errors = {k[len("CLG_ERROR_"):]: v for k, v in consts.items()
              if k.startswith("CLG_ERROR_")}
    assert sorted(errors) == sorted(STATUS_CLASSES)
    assert sorted(_lib.STATUS_EXCEPTIONS) == sorted(errors.values())
    for name, value in errors.items():
        assert _lib.STATUS_EXCEPTIONS[value] is STATUS_CLASSES[name], name
        exc = _lib.error(value, "a message")
        assert type(exc) is STATUS_CLASSES[name], name
        assert str(exc) == "a message"
        assert exc.status == value
        # clg_status_string of a status it knows, not "unknown status".
        assert exc.status_name == _lib.status_name(value)
        assert exc.status_name not in ("", "unknown status"), name
    assert _lib.status_name(errors["INDEX_OUT_OF_BOUNDS"]) == \
        "index out of bounds"
    assert _lib.status_name(max(errors.values()) + 1) == "unknown status"
    assert isinstance(_lib.error(errors["OUT_OF_HOST_MEMORY"], "x"),
                      MemoryError)

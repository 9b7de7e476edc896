"""The shared library through ctypes: loading, structures, prototypes,
element types and the mapping of every ``clg_status`` to a Python exception.

Nothing here is public; ``clgather/__init__.py`` re-exports what is.
"""

import ctypes
import ctypes.util
import operator
import os

import numpy as np

try:  # numpy >= 1.25
    from numpy.exceptions import AxisError
except ImportError:  # pragma: no cover - numpy < 1.25 (Debian 12: 1.24)
    AxisError = np.AxisError

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where the library may be, in the order it is looked for."""
    env = os.environ.get("CLGATHER_LIBRARY")
    if env:
        # An explicit path is the only candidate: a wrong one must fail,
        # not fall back silently to another copy of the library.
        return [("CLGATHER_LIBRARY", env)]
    found = []
    try:  # written by `cmake --install` (python/CMakeLists.txt)
        from . import _installed
        found.append(("installed", os.path.normpath(
            os.path.join(_HERE, _installed.LIBRARY))))
    except ImportError:
        pass
    for name in ("libclgather.so.0", "libclgather.so"):
        found.append(("package", os.path.join(_HERE, name)))
    system = ctypes.util.find_library("clgather")
    if system:
        found.append(("system", system))
    found.append(("system", "libclgather.so.0"))
    return found


def _load():
    tried = []
    for how, path in _candidates():
        if how in ("installed", "package") and not os.path.exists(path):
            tried.append("%s (%s): not found" % (path, how))
            continue
        try:
            found = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, how, e))
            continue
        try:  # a library of another name loads as well: ask for ours
            found.clg_version_string
        except AttributeError:
            tried.append("%s (%s): not libclgather (it has no "
                         "clg_version_string)" % (path, how))
            continue
        return found, path
    raise ImportError(
        "clgather: cannot load the shared library libclgather; set "
        "CLGATHER_LIBRARY to its path (e.g. build/libclgather.so). Tried:\n  "
        + "\n  ".join(tried))


lib, library_path = _load()

CLG_MAX_RANK = 16


class Tensor(ctypes.Structure):
    """clg_tensor (clgather.h): a descriptor; it owns nothing."""
    _fields_ = [
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * CLG_MAX_RANK),
        ("storage", ctypes.c_int),
        ("host", ctypes.c_void_p),
        ("buffer", ctypes.c_void_p),
        ("offset", ctypes.c_size_t),
    ]


class StridedTensor(ctypes.Structure):
    """clg_strided_tensor (clgather.h): a clg_tensor whose storage is
    STORAGE_HOST_STRIDED or STORAGE_BUFFER_STRIDED, followed by its strides
    in elements (entries past rank are 0). The library takes a pointer to
    its first member, `tensor`, wherever it takes a clg_tensor."""
    _fields_ = [
        ("tensor", Tensor),
        ("strides", ctypes.c_int64 * CLG_MAX_RANK),
    ]


class Params(ctypes.Structure):
    """clg_params."""
    _fields_ = [
        ("op", ctypes.c_int),
        ("axis", ctypes.c_int64),
        ("batch_dims", ctypes.c_int64),
        ("mode", ctypes.c_int),
    ]


class ScatterParams(ctypes.Structure):
    """clg_scatter_params."""
    _fields_ = [("reduction", ctypes.c_int), ("duplicates", ctypes.c_int)]


class BagParams(ctypes.Structure):
    """clg_bag_params (clgather/clgather_bag.h)."""
    _fields_ = [
        ("mode", ctypes.c_int),
        ("form", ctypes.c_int),
        ("flags", ctypes.c_uint32),
        ("weight_format", ctypes.c_uint32),  # was `reserved` (the same bytes)
        ("padding_idx", ctypes.c_int64),
    ]


class GbqParams(ctypes.Structure):
    """clg_gbq_params (clgather/clgather_quantized.h)."""
    _fields_ = [
        ("gather_axis", ctypes.c_int64),
        ("quantize_axis", ctypes.c_int64),
        ("block_size", ctypes.c_int64),
        ("bits", ctypes.c_int32),
        ("kind", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32 * 4),
    ]


STORAGE_HOST, STORAGE_BUFFER = 0, 1
STORAGE_HOST_STRIDED, STORAGE_BUFFER_STRIDED = 2, 3
OP_GATHER, OP_GATHER_ELEMENTS, OP_GATHER_ND = 0, 1, 2
OP_SCATTER_ELEMENTS, OP_SCATTER_ND = 3, 4
MODES = {"raise": 0, "wrap": 1, "clip": 2}
REDUCTIONS = {"none": 0, "add": 1, "mul": 2, "min": 3, "max": 4}
DUPLICATES = {"error": 0, "last": 1}
BAG_MODES = {"sum": 0, "mean": 1, "max": 2, "sqrt_n": 3}
BAGS_OFFSETS, BAGS_FIXED, BAGS_SEGMENT_IDS = 0, 1, 2
BAG_INCLUDE_LAST_OFFSET, BAG_PADDING_IDX = 1, 2
# clg_bag_weight_format: tables quantized per row (PyTorch's prepacked
# rows), by the names the CLI takes; the bytes a row spends beside its codes
# and the codes a byte.
BAG_WEIGHT_FORMATS = {"dense": 0, "int8-rowwise": 1, "int4-rowwise": 2,
                      "int2-rowwise": 3}
BAG_QROW_TAIL = {1: 8, 2: 4, 3: 4}
BAG_QROW_PER_BYTE = {1: 1, 2: 2, 3: 4}
# clg_gbq_kind, by the names the CLI takes
GBQ_KINDS = {"uint8": 0, "uint4": 1, "int4": 2}

_p = ctypes.c_void_p
_TP = ctypes.POINTER(Tensor)
_EV = ctypes.POINTER(ctypes.c_void_p)


def int64(value, name):
    """`value` as a Python int that fits clgather's int64 parameters
    (axis, batch_dims, padding_idx): ctypes would keep its low 64 bits
    without a word, so 2**64 + 1 would run as 1."""
    value = operator.index(value)
    if not -2**63 <= value < 2**63:
        raise OverflowError("clgather: %s = %d does not fit in int64 "
                            "[-2**63, 2**63 - 1]" % (name, value))
    return value


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


clg_version_string = _proto("clg_version_string", ctypes.c_char_p)
clg_status_string = _proto("clg_status_string", ctypes.c_char_p, ctypes.c_int)
clg_last_error = _proto("clg_last_error", ctypes.c_char_p)
clg_context_create = _proto("clg_context_create", ctypes.c_int, _p, _p,
                            ctypes.POINTER(_p))
clg_context_create_default = _proto("clg_context_create_default",
                                    ctypes.c_int, ctypes.c_char_p,
                                    ctypes.POINTER(_p))
clg_context_destroy = _proto("clg_context_destroy", None, _p)
clg_context_cl_context = _proto("clg_context_cl_context", _p, _p)
clg_context_device = _proto("clg_context_device", _p, _p)
clg_context_queue = _proto("clg_context_queue", _p, _p)
clg_output_shape = _proto(
    "clg_output_shape", ctypes.c_int, ctypes.POINTER(Params), ctypes.c_int32,
    ctypes.POINTER(ctypes.c_int64), ctypes.c_int32,
    ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32),
    ctypes.POINTER(ctypes.c_int64))
clg_run = _proto("clg_run", ctypes.c_int, _p, ctypes.POINTER(Params), _TP,
                 _TP, _TP, _p, ctypes.c_uint, _EV, _EV)
clg_run_async = _proto("clg_run_async", ctypes.c_int, _p,
                       ctypes.POINTER(Params), _TP, _TP, _TP, _p,
                       ctypes.c_uint, _EV, _EV, ctypes.POINTER(_p))
clg_scatter = _proto("clg_scatter", ctypes.c_int, _p, ctypes.POINTER(Params),
                     ctypes.POINTER(ScatterParams), _TP, _TP, _TP, _TP, _p,
                     ctypes.c_uint, _EV, _EV)
clg_scatter_async = _proto("clg_scatter_async", ctypes.c_int, _p,
                           ctypes.POINTER(Params),
                           ctypes.POINTER(ScatterParams), _TP, _TP, _TP, _TP,
                           _p, ctypes.c_uint, _EV, _EV, ctypes.POINTER(_p))
clg_embedding_bag = _proto("clg_embedding_bag", ctypes.c_int, _p,
                           ctypes.POINTER(BagParams), _TP, _TP, _TP, _TP,
                           _TP, _p, ctypes.c_uint, _EV, _EV)
clg_embedding_bag_async = _proto("clg_embedding_bag_async", ctypes.c_int, _p,
                                 ctypes.POINTER(BagParams), _TP, _TP, _TP,
                                 _TP, _TP, _p, ctypes.c_uint, _EV, _EV,
                                 ctypes.POINTER(_p))
clg_gather_block_quantized = _proto(
    "clg_gather_block_quantized", ctypes.c_int, _p,
    ctypes.POINTER(GbqParams), _TP, _TP, _TP, _TP, _TP, _p, ctypes.c_uint,
    _EV, _EV)
clg_outcome_wait = _proto("clg_outcome_wait", ctypes.c_int, _p)
clg_outcome_release = _proto("clg_outcome_release", None, _p)

version = clg_version_string().decode()

# numpy dtype (native byte order) -> clg_dtype (ONNX TensorProto.DataType).
# bfloat16 has no numpy dtype: its bytes travel as numpy's 2-byte void type
# (_tensors.BFLOAT16, what a torch bfloat16 tensor becomes); string is not
# supported by the library.
DTYPES = {
    np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
    np.dtype(np.uint16): 4, np.dtype(np.int16): 5, np.dtype(np.int32): 6,
    np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float16): 10,
    np.dtype(np.float64): 11, np.dtype(np.uint32): 12,
    np.dtype(np.uint64): 13, np.dtype(np.complex64): 14,
    np.dtype(np.complex128): 15, np.dtype("V2"): 16,
}
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))

# ---------------------------------------------------------------- errors
#
# Every clg_status (clgather.h; the values are fixed forever) and the
# exception numpy raises for the same mistake. Each exception carries
# `.status` (the number) and `.status_name` (clg_status_string).
SUCCESS = 0
STATUS_EXCEPTIONS = {
    1: ValueError,     # NULL_ARGUMENT (a missing operand)
    2: ValueError,     # INVALID_ARGUMENT (overlap, foreign buffer, queue...)
    3: ValueError,     # INVALID_RANK
    4: ValueError,     # INVALID_SHAPE
    5: AxisError,      # INVALID_AXIS
    6: TypeError,      # UNSUPPORTED_DTYPE
    7: TypeError,      # INVALID_INDICES_DTYPE
    8: TypeError,      # DTYPE_MISMATCH
    9: ValueError,     # SHAPE_MISMATCH
    10: ValueError,    # SIZE_OVERFLOW (numpy: "array is too big")
    11: ValueError,    # BUFFER_TOO_SMALL
    12: IndexError,    # INDEX_OUT_OF_BOUNDS
    13: RuntimeError,  # NO_DEVICE
    14: RuntimeError,  # OPENCL
    15: RuntimeError,  # BUILD_FAILED
    16: MemoryError,   # OUT_OF_HOST_MEMORY
    17: ValueError,    # INVALID_BATCH_DIMS
    18: ValueError,    # INCOMPATIBLE_SHAPES
    # DUPLICATE_INDEX: every index is in bounds, so not an IndexError
    # ("subscript out of range"); the set of indices is an invalid value
    # for a scatter without reduction (ONNX: indices must not repeat).
    19: ValueError,
    20: RuntimeError,  # INTERNAL (a bug in clgather)
    # INVALID_BAGS: offsets or segment ids that break their form's rules
    # (not a subscript of weight, so not an IndexError; torch raises a
    # RuntimeError for bad offsets, TensorFlow an InvalidArgumentError).
    21: ValueError,
}


def status_name(status):
    return clg_status_string(status).decode()


def error(status, message=None):
    """The exception for a failed call; `message` defaults to the calling
    thread's clg_last_error()."""
    if message is None:
        message = clg_last_error().decode() or status_name(status)
    cls = STATUS_EXCEPTIONS.get(status, RuntimeError)
    exc = cls(message)
    exc.status = status
    exc.status_name = status_name(status)
    return exc


def check(status):
    if status != SUCCESS:
        raise error(status)

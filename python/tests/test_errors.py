"""The exceptions, as numpy raises them for the same mistake: IndexError for
an index out of bounds, with the library's message (position, value, axis,
valid range); numpy's AxisError; ValueError for shapes and unknown
options; TypeError for dtypes; RuntimeError for OpenCL failures. Where numpy
has the same call, numpy is asked too and must raise the same class. In
every case the output (or the data, in place) is left byte for byte as it
was. (MemoryError, a host allocation failing, cannot be provoked here: its
mapping from the status is checked in test_layout.py.)"""

import numpy as np
import pyopencl as cl  # a dependency of the suite: missing is a failure
import pyopencl.array as cla
import pytest

import clgather
from conftest import sample

A = sample((5, 4), np.float32)
OUT_TAKE = (2, 2, 4)  # np.take(A, [[.,.],[.,.]], axis=0)


def fails(cls, call, *untouched, numpy_call=None):
    """call() raises exactly `cls` (not a subclass, so that an IndexError
    is never an AxisError) and leaves the `untouched` arrays as they were;
    numpy_call(), if given, raises a `cls` too. Returns the exception."""
    before = [np.array(u, copy=True) for u in untouched]
    with pytest.raises(cls) as info:
        call()
    assert type(info.value) is cls, type(info.value)
    for u, b in zip(untouched, before):
        assert u.tobytes() == b.tobytes(), "an output was written"
    if numpy_call is not None:
        with pytest.raises(cls):
            numpy_call()
    return info.value


# ------------------------------------------------------------ IndexError

def test_index_error_message():
    out = np.full(OUT_TAKE, 3.0, np.float32)
    idx = np.array([[1, 2], [7, 0]])
    e = fails(IndexError, lambda: clgather.take(A, idx, axis=0, out=out),
              out, numpy_call=lambda: np.take(A, idx, axis=0))
    # The library's message, as clgather.h documents its form.
    assert str(e) == ("index out of bounds: indices[2] (position [1, 0] in "
                      "indices of shape [2, 2]) = 7, but axis 0 of data has "
                      "size 5: valid range is [-5, 4]")
    assert e.status == 12 and e.status_name == "index out of bounds"


@pytest.mark.parametrize("bad,pos", [(5, 0), (-6, 0), (4, 1), (-5, 1)])
def test_index_error_first_offender_and_range(bad, pos):
    # Axis 1 has size 4: [-4, 3]; the first offender in C order is named.
    out = np.zeros((5, 2, 2), np.float32)
    idx = np.array([[0, 3], [bad, 9]]) if pos == 0 else \
        np.array([[-4, bad], [0, 0]])
    e = fails(IndexError, lambda: clgather.take(A, idx, axis=1, out=out),
              out, numpy_call=lambda: np.take(A, idx, axis=1))
    flat = 2 if pos == 0 else 1
    assert "indices[%d]" % flat in str(e), str(e)
    assert "= %d," % bad in str(e), str(e)
    assert "axis 1 of data has size 4" in str(e)
    assert "valid range is [-4, 3]" in str(e)


def test_index_error_other_operators():
    idx = np.array([[0, 1, 2, 3]] * 4 + [[0, 4, 0, 0]])
    e = fails(IndexError, lambda: clgather.take_along_axis(A, idx, 1),
              numpy_call=lambda: np.take_along_axis(A, idx, 1))
    assert "position [4, 1]" in str(e) and "= 4," in str(e)
    assert "valid range is [-4, 3]" in str(e)
    e = fails(IndexError,
              lambda: clgather.gather_nd(A, [[0, 0], [-6, 1]]),
              numpy_call=lambda: A[(np.array([0, -6]), np.array([0, 1]))])
    assert "position [1, 0]" in str(e) and "= -6," in str(e)
    assert "valid range is [-5, 4]" in str(e)
    data = A.copy()
    e = fails(IndexError,
              lambda: clgather.scatter_elements(data, [[0, 0, 0, 5]],
                                                [[1, 2, 3, 4]], out=data),
              data)
    assert "position [0, 3]" in str(e) and "= 5," in str(e)
    out = np.zeros_like(A)
    e = fails(IndexError,
              lambda: clgather.scatter_nd(A, [[1, -5]], [9.0],
                                          reduction="add", out=out),
              out, numpy_call=lambda: np.add.at(A.copy(), ([1], [-5]), 9))
    assert "= -5," in str(e) and "valid range is [-4, 3]" in str(e)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_index_error_empty_axis(mode):
    # No position to map an index to, in every mode (numpy agrees).
    empty = np.zeros((0, 3), np.int8)
    out = np.ones((2, 3), np.int8)
    e = fails(IndexError,
              lambda: clgather.take(empty, [0, 0], axis=0, mode=mode,
                                    out=out),
              out, numpy_call=lambda: np.take(empty, [0, 0], axis=0,
                                              mode=mode))
    assert "has size 0" in str(e)


# ------------------------------------------------------------- AxisError

def test_axis_error_is_numpys():
    assert clgather.AxisError is (getattr(np, "exceptions", np).AxisError)
    assert issubclass(clgather.AxisError, IndexError)
    assert issubclass(clgather.AxisError, ValueError)


@pytest.mark.parametrize("axis", [2, -3, 7])
def test_axis_error(axis):
    out = np.zeros(OUT_TAKE, np.float32)
    idx = np.array([[0, 1], [1, 0]])
    fails(clgather.AxisError,
          lambda: clgather.take(A, idx, axis=axis, out=out), out,
          numpy_call=lambda: np.take(A, idx, axis=axis))
    fails(clgather.AxisError,
          lambda: clgather.take_along_axis(A, idx, axis),
          numpy_call=lambda: np.take_along_axis(A, idx, axis))
    # scatter_elements: the library's check, with its message.
    data = A.copy()
    e = fails(clgather.AxisError,
              lambda: clgather.scatter_elements(data, idx, idx * 1.0,
                                                axis=axis, out=data), data)
    assert "axis %d is out of range for data of rank 2" % axis in str(e)
    assert "valid range is [-2, 1]" in str(e)
    assert e.status == 5


# ------------------------------------------------------------ ValueError

def test_value_error_unknown_options():
    out = np.zeros((2, 4), np.float32)
    fails(ValueError, lambda: clgather.take(A, [0, 1], axis=0, mode="nope",
                                            out=out),
          out, numpy_call=lambda: np.take(A, [0, 1], axis=0, mode="nope"))
    data = A.copy()
    for kw in ({"reduction": "sum"}, {"reduction": None},
               {"duplicates": "first"}):
        e = fails(ValueError,
                  lambda: clgather.scatter_elements(data, [[1]], [[2.0]],
                                                    out=data, **kw), data)
        assert repr(list(kw.values())[0]) in str(e)
    fails(ValueError, lambda: clgather.scatter_nd(data, [[1]],
                                                  np.ones((1, 4)),
                                                  reduction="avg", out=data),
          data)


def test_value_error_shapes():
    idx = np.array([[0, 1], [1, 0]])
    out = np.zeros((2, 2, 3), np.float32)  # wrong: (2, 2, 4)
    fails(ValueError, lambda: clgather.take(A, idx, axis=0, out=out), out,
          numpy_call=lambda: np.take(A, idx, axis=0, out=out.copy()))
    ro = np.zeros(OUT_TAKE, np.float32)
    ro.flags.writeable = False
    fails(ValueError, lambda: clgather.take(A, idx, axis=0, out=ro), ro,
          numpy_call=lambda: np.take(A, idx, axis=0, out=ro))
    fails(ValueError, lambda: clgather.take_along_axis(A, np.array([0]), 1),
          numpy_call=lambda: np.take_along_axis(A, np.array([0]), 1))
    fails(ValueError, lambda: clgather.take(A, idx, axis=0, batch_dims=1))
    fails(ValueError, lambda: clgather.take(A, idx, batch_dims=1))
    fails(ValueError, lambda: clgather.gather_nd(A, [[0, 0, 0]]))
    fails(ValueError, lambda: clgather.gather_nd(A, 0))
    data = A.copy()
    sout = np.zeros((4, 5), np.float32)
    for call in (
            lambda: clgather.scatter_elements(data, [[0, 1]], [[1.0]],
                                              out=data),
            lambda: clgather.scatter_elements(data, [0], [1.0], out=data),
            lambda: clgather.scatter_elements(data, np.zeros((6, 1), int),
                                              np.ones((6, 1)), out=data),
            lambda: clgather.scatter_nd(data, [[0]], [1.0], out=data),
            lambda: clgather.scatter_nd(data, [[0, 0, 0]], [1.0], out=data),
            lambda: clgather.scatter_nd(data, [[0]], np.ones((1, 4)),
                                        out=sout)):
        fails(ValueError, call, data, sout)


# ------------------------------------------------------------- TypeError

@pytest.mark.parametrize("itype", [np.float64, np.float32, np.uint32,
                                   np.int16, np.bool_])
def test_type_error_index_dtype(itype):
    idx = np.array([[0, 1], [1, 0]]).astype(itype)
    out = np.zeros(OUT_TAKE, np.float32)
    e = fails(TypeError, lambda: clgather.take(A, idx, axis=0, out=out), out)
    assert "int32 or int64" in str(e)
    assert np.dtype(itype).name in str(e)
    fails(TypeError, lambda: clgather.take_along_axis(A, idx, 0))
    fails(TypeError, lambda: clgather.gather_nd(A, idx))
    data = A.copy()
    fails(TypeError, lambda: clgather.scatter_nd(data, idx, [1.0, 2.0],
                                                 out=data), data)
    if np.dtype(itype).kind == "f":  # numpy refuses float indices too
        with pytest.raises(TypeError):
            np.take(A, idx, axis=0)
        fails(TypeError, lambda: clgather.take(A, [0.0, 1.0], axis=0))


def test_type_error_dtypes():
    out = np.zeros((2, 4), np.int64)  # the result is float32
    e = fails(TypeError, lambda: clgather.take(A, [0, 1], axis=0, out=out),
              out)
    assert "float32" in str(e) and "int64" in str(e)
    for bad in (np.array(["a", "b"]), np.array([1, 2], "M8[D]"),
                np.array([None, 1], object)):
        fails(TypeError, lambda: clgather.take(bad, [0]))
    data = np.zeros((3, 2), np.int32)
    # float updates into int data: numpy's ufunc refuses the cast too.
    fails(TypeError,
          lambda: clgather.scatter_elements(data, [[0, 1]], [[1.5, 2.0]],
                                            reduction="add", out=data),
          data, numpy_call=lambda: np.add(data[0], [1.5, 2.0], out=data[0]))
    c = np.zeros(3, np.complex64)
    e = fails(TypeError,
              lambda: clgather.scatter_elements(c, [1], c[:1],
                                                reduction="max", out=c), c)
    assert e.status == 6


def test_type_error_pyopencl_updates(cl_queue):
    d = cla.to_device(cl_queue, A)
    upd = cla.to_device(cl_queue, np.ones((1, 4), np.float64))
    fails(TypeError, lambda: clgather.scatter_nd(
        d, cla.to_device(cl_queue, np.array([[1]])), upd, out=d))
    assert d.get().tobytes() == A.tobytes()


# ---------------------------------------------------------- RuntimeError

def test_runtime_error_failed_event(cl_queue):
    # An event of the wait list that failed: nothing that waits can run.
    failed = cl.UserEvent(cl_queue.context)
    failed.set_status(-5)  # CL_OUT_OF_RESOURCES
    out = np.full(OUT_TAKE, 1.0, np.float32)
    idx = np.array([[0, 1], [1, 0]])
    e = fails(RuntimeError, lambda: clgather.take(A, idx, axis=0, out=out,
                                                  wait_for=[failed]), out)
    assert "has failed" in str(e) and e.status == 14
    data = A.copy()
    fails(RuntimeError,
          lambda: clgather.scatter_nd(data, [[1]], np.ones((1, 4)),
                                      out=data, wait_for=[failed]), data)
    d = cla.to_device(cl_queue, A)
    fails(RuntimeError,
          lambda: clgather.take(d, cla.to_device(cl_queue, idx), axis=0,
                                wait_for=[failed]))
    assert d.get().tobytes() == A.tobytes()


def test_runtime_error_no_device():
    with pytest.raises(RuntimeError, match="no-such-device-xyz") as info:
        clgather.Context("no-such-device-xyz")
    assert type(info.value) is RuntimeError
    assert info.value.status_name == "no OpenCL device"


# --------------------------------------------------------- OverflowError

@pytest.mark.parametrize("big", [2**63, 2**64, 2**64 + 1, -2**63 - 1])
def test_overflow_error_int64_arguments(big):
    """An integer argument that int64 cannot hold is refused by name:
    ctypes would pass its low 64 bits, so 2**64 + 1 ran as 1 and 2**64 - 1
    as -1 (a padding_idx of -1 took the last row for padding)."""
    w = sample((10, 3), np.float32)
    out = np.zeros((1, 3), np.float32)
    e = fails(OverflowError,
              lambda: clgather.embedding_bag([0, 9], w, [0], mode="sum",
                                             padding_idx=big, out=out), out)
    assert "padding_idx = %d does not fit in int64" % big in str(e)
    data = sample((2, 3, 4), np.float32)
    idx = np.zeros((2, 3, 1), np.int64)
    out = np.zeros((2, 3, 1, 4), np.float32)
    e = fails(OverflowError,
              lambda: clgather.take(data, idx, axis=2, batch_dims=big,
                                    out=out), out)
    assert "batch_dims = %d" % big in str(e)
    e = fails(OverflowError,
              lambda: clgather.gather_nd(data, np.zeros((2, 1), np.int64),
                                         batch_dims=big))
    assert "batch_dims" in str(e)
    upd = np.ones((2, 3, 1), np.float32)
    before = data.copy()
    fails(OverflowError,
          lambda: clgather.scatter_elements(data, idx, upd, axis=big,
                                            out=data), data)
    assert data.tobytes() == before.tobytes()


def test_import_error_for_another_library(tmp_path):
    """CLGATHER_LIBRARY naming a library that is not clgather's is an
    ImportError that says so (it was an AttributeError from ctypes)."""
    import ctypes.util
    import os
    import subprocess
    import sys
    other = ctypes.util.find_library("m")
    assert other, "libm not found"
    env = dict(os.environ, CLGATHER_LIBRARY=other)
    run = subprocess.run([sys.executable, "-c", "import clgather"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=str(tmp_path), text=True)
    assert run.returncode != 0
    assert "ImportError: clgather: cannot load" in run.stderr, run.stderr
    assert "not libclgather" in run.stderr, run.stderr

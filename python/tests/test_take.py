"""clgather.take against numpy.take, byte for byte: every dtype, every axis
(negative too), axis=None, the index modes, out=, rank-0 indices,
non-contiguous operands, batch_dims (against a loop over numpy.take)."""

import numpy as np
import pytest

import clgather
from conftest import DTYPE_IDS, DTYPES, sample, same

IDX = np.array([[2, -1, 0], [3, 1, -4]], dtype=np.int64)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_dtypes(dtype):
    a = sample((4, 5, 4), dtype)
    for axis in (0, 1, -1, None):
        same(clgather.take(a, IDX, axis=axis), np.take(a, IDX, axis=axis))


@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 2])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_axes_and_index_types(axis, itype):
    a = sample((4, 5, 6), np.float32, seed=axis + 3)
    idx = np.array([[3, -2], [0, -4], [1, 1]], dtype=itype)
    same(clgather.take(a, idx, axis=axis), np.take(a, idx, axis=axis))


@pytest.mark.parametrize("mode", ["wrap", "clip"])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_modes(mode, itype):
    a = sample((7, 3), np.int16)
    idx = np.array([-15, -8, -7, -1, 0, 6, 7, 13, 100], dtype=itype)
    for axis in (0, None, 1):
        same(clgather.take(a, idx, axis=axis, mode=mode),
             np.take(a, idx, axis=axis, mode=mode))


def test_raise_mode_in_range_negative():
    a = sample((6,), np.float64)
    idx = np.arange(-6, 6)
    same(clgather.take(a, idx, mode="raise"), np.take(a, idx, mode="raise"))


def test_rank0_indices():
    a = sample((4, 5), np.float32)
    # numpy returns a scalar for a rank-0 result, an array otherwise.
    same(clgather.take(a, 7), np.take(a, 7))
    same(clgather.take(a, np.int32(-1)), np.take(a, np.int32(-1)))
    same(clgather.take(a[0], np.array(2), axis=0), np.take(a[0], 2, axis=0))
    same(clgather.take(a, np.array(3, np.int32), axis=1),
         np.take(a, 3, axis=1))
    same(clgather.take(a, -2, axis=0), np.take(a, -2, axis=0))
    same(clgather.take(a, 12, axis=1, mode="wrap"),
         np.take(a, 12, axis=1, mode="wrap"))


def test_rank0_data_axis_none():
    a = np.array(5.5, dtype=np.float32)
    same(clgather.take(a, [0, 0, -1]), np.take(a, [0, 0, -1]))
    same(clgather.take(a, 0), np.take(a, 0))


def test_python_sequences_and_empty_indices():
    same(clgather.take([1, 2, 3], [0, 2]), np.take([1, 2, 3], [0, 2]))
    a = sample((3, 4), np.uint8)
    same(clgather.take(a, [], axis=1), np.take(a, [], axis=1))
    same(clgather.take(a, np.zeros((2, 0), np.int32), axis=0),
         np.take(a, np.zeros((2, 0), np.int32), axis=0))
    empty = np.zeros((0, 4), np.float32)
    same(clgather.take(empty, [1, 2], axis=1),
         np.take(empty, [1, 2], axis=1))


def test_out():
    a = sample((5, 6), np.float32)
    out = np.full((5, 2, 3), 7, np.float32)
    got = clgather.take(a, IDX, axis=1, out=out)
    assert got is out
    same(out, np.take(a, IDX, axis=1))
    # out= of a rank-0 result is returned as the array, as numpy does.
    out0 = np.zeros((), np.float32)
    assert clgather.take(a, 4, out=out0) is out0
    same(out0, np.take(a, 4, out=np.zeros((), np.float32)))


def test_out_non_contiguous_and_overlapping():
    a = sample((5, 6), np.int32)
    big = np.full((5, 4, 3), -1, np.int32)
    view = big[:, ::2, :]  # not contiguous: written in place
    want = big.copy()
    np.take(a, IDX, axis=1, out=want[:, ::2, :])
    assert clgather.take(a, IDX, axis=1, out=view) is view
    same(big, want)
    # out overlapping the data: numpy buffers it, so do we.
    x = np.arange(10, dtype=np.int64)
    y = x.copy()
    idx = np.arange(9, -1, -1)
    clgather.take(x, idx, out=x)
    np.take(y, idx, out=y)
    same(x, y)


def test_non_contiguous_inputs():
    base = sample((6, 8, 4), np.complex64)
    idx = np.array([[5, 0, -1, 2], [1, 1, 3, 0]])
    for a in (base[:, ::2], base.transpose(2, 0, 1), base[::-1, 1:5, ::3]):
        for axis in (0, 1, -1, None):
            i = idx[:, ::2] if axis is None else idx[:, ::2] % a.shape[axis]
            same(clgather.take(a, i, axis=axis), np.take(a, i, axis=axis))
    fortran = np.asfortranarray(sample((4, 6), np.int16))
    same(clgather.take(fortran, [3, 0], axis=1),
         np.take(fortran, [3, 0], axis=1))


def test_byte_order():
    a = sample((4, 3), np.float32).astype(">f4")
    idx = np.array([2, 0], dtype=">i8")
    got = clgather.take(a, idx, axis=0)
    assert got.dtype == np.dtype("=f4")  # results come in native order
    same(got, np.take(a.astype("=f4"), idx.astype("=i8"), axis=0))


def _take_batched(a, idx, axis, b):
    """tf.gather's batch_dims as a loop over numpy.take."""
    if b == 0:
        return np.take(a, idx, axis=axis)
    return np.stack([_take_batched(a[i], idx[i], axis - 1, b - 1)
                     for i in range(a.shape[0])])


@pytest.mark.parametrize("axis,b", [(1, 1), (2, 1), (2, 2), (3, 2), (3, -1)])
def test_batch_dims(axis, b):
    a = sample((2, 3, 4, 5), np.float16, seed=axis)
    rng = np.random.default_rng(b + 3)
    bn = b if b >= 0 else b + 3  # indices of rank 3
    shape = a.shape[:bn] + (2, 3)[:3 - bn]
    idx = rng.integers(-a.shape[axis], a.shape[axis], shape)
    same(clgather.take(a, idx, axis=axis, batch_dims=b),
         _take_batched(a, idx, axis, bn))


def test_fast_path_is_taken_and_agrees(monkeypatch):
    """take() of C-contiguous numpy arrays with no out, batch_dims,
    context, queue, wait list or outcome goes straight to clg_run
    (_gather._take_fast), never through the general path's Call: the
    same bytes as numpy and as the general path (out= takes that one),
    the same IndexError for a bad index, and the general path for what
    the fast one leaves (a view, an axis out of range)."""
    from clgather import _gather
    a = sample((5, 4, 3), np.float32, seed=11)
    idx = np.array([[2, -1], [0, 1]], dtype=np.int32)
    general = {}
    for axis in (0, 1, -1, None):
        out_shape = np.take(a, idx, axis=axis).shape
        general[axis] = clgather.take(a, idx, axis=axis,
                                      out=np.empty(out_shape, a.dtype))

    def no_call(*args, **kwargs):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(_gather, "Call", no_call)
    for axis in (0, 1, -1, None):
        got = clgather.take(a, idx, axis=axis)
        same(got, np.take(a, idx, axis=axis))
        same(got, general[axis])
    for mode in ("wrap", "clip"):
        far = np.array([-13, 9, 2], dtype=np.int64)
        same(clgather.take(a, far, axis=1, mode=mode),
             np.take(a, far, axis=1, mode=mode))
    same(clgather.take(a[0, 0], np.array(2)), np.take(a[0, 0], np.array(2)))
    with pytest.raises(IndexError, match=r"indices\[1\]"):
        clgather.take(a, np.array([0, 5]), axis=0)
    with pytest.raises(AssertionError, match="general path"):
        clgather.take(a[:, ::2], idx, axis=0)  # a view: the general path
    with pytest.raises(AssertionError, match="general path"):
        clgather.take(a, idx, axis=3)

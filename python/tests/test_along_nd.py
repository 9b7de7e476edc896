"""clgather.take_along_axis against numpy.take_along_axis (broadcasting
included) and clgather.gather_nd against a numpy reference of ONNX GatherND
written here, byte for byte."""

import numpy as np
import pytest

import clgather
from conftest import DTYPE_IDS, DTYPES, sample, same


def gather_nd_ref(data, indices, b=0):
    """ONNX GatherND (opset 13) by its definition: one tuple at a time."""
    data, indices = np.asarray(data), np.asarray(indices)
    m = indices.shape[-1]
    out = np.empty(indices.shape[:-1] + data.shape[b + m:], data.dtype)
    for pos in np.ndindex(*indices.shape[:-1]):
        t = tuple(int(k) for k in indices[pos])
        out[pos] = data[pos[:b] + t]
    return out


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_take_along_axis_dtypes(dtype):
    a = sample((3, 4, 5), dtype)
    rng = np.random.default_rng(1)
    for axis in (0, 1, 2, -1, -3):
        n = a.shape[axis]
        shape = list(a.shape)
        shape[axis] = 3
        idx = rng.integers(-n, n, shape)
        same(clgather.take_along_axis(a, idx, axis),
             np.take_along_axis(a, idx, axis))


def test_take_along_axis_sort_and_index_types():
    a = sample((6, 7), np.float32)
    for itype in (np.int32, np.int64):
        idx = np.argsort(a, axis=1).astype(itype)
        same(clgather.take_along_axis(a, idx, axis=1), np.sort(a, axis=1))
        idx = np.argsort(a, axis=0).astype(itype)[::-1]  # not contiguous
        same(clgather.take_along_axis(a, idx, axis=0),
             np.take_along_axis(a, idx, axis=0))


def test_take_along_axis_none_and_broadcasting():
    a = sample((3, 4), np.int64)
    idx = np.array([11, -12, 0, 5])
    same(clgather.take_along_axis(a, idx, None),
         np.take_along_axis(a, idx, None))
    # indices broadcast against arr off the axis, and arr against indices.
    one = np.array([[3, 0, -1]])
    same(clgather.take_along_axis(a, one, 1), np.take_along_axis(a, one, 1))
    col = np.array([[2], [0], [1]])
    same(clgather.take_along_axis(a, col, 0), np.take_along_axis(a, col, 0))
    # Shapes that do not broadcast off the axis (numpy 1.24 raises an
    # IndexError from its fancy indexing; a shape error is a ValueError here,
    # as the package's other shape errors: IndexError means an index value).
    with pytest.raises(ValueError, match="do not broadcast off axis 0"):
        clgather.take_along_axis(a, col.T, 0)
    row = a[:1]
    idx3 = np.array([[1, 0], [3, 3], [-1, 2]])
    same(clgather.take_along_axis(row, idx3, 1),
         np.take_along_axis(row, idx3, 1))
    same(clgather.take_along_axis(a.T, np.array([[0, 2, 1, -1]]).T, 1),
         np.take_along_axis(a.T, np.array([[0, 2, 1, -1]]).T, 1))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_gather_nd_dtypes(dtype):
    data = sample((4, 5, 3), dtype)
    idx = np.array([[3, -1], [0, 2], [-4, 0]])
    same(clgather.gather_nd(data, idx), gather_nd_ref(data, idx))


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_nd_shapes(itype):
    data = sample((4, 5, 6), np.float64)
    rng = np.random.default_rng(2)
    cases = [
        (rng.integers(-4, 4, (7, 1)), 0),                 # rows
        (np.array([[1, 2, 3], [-1, -2, -3]]), 0),         # elements
        (np.array([2, -1, 5]), 0),                        # rank-0 result
        (np.stack([rng.integers(0, 4, (2, 3)),
                   rng.integers(-5, 5, (2, 3))], -1), 0),  # [2, 3, 2]
        (rng.integers(-5, 5, (4, 2, 1)), 1),              # batch_dims 1
        (rng.integers(-6, 6, (4, 5, 3, 1)), 2),           # batch_dims 2
        (np.zeros((0, 2), np.int64), 0),                  # no tuples
    ]
    for idx, b in cases:
        idx = idx.astype(itype)
        same(clgather.gather_nd(data, idx, batch_dims=b),
             gather_nd_ref(data, idx, b))
    same(clgather.gather_nd(data[:, ::2], cases[1][0].astype(itype)[:, :2]),
         gather_nd_ref(data[:, ::2], cases[1][0][:, :2]))


def test_gather_nd_lists():
    same(clgather.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]]),
         np.array([3, 2]))


def test_fast_paths_are_taken_and_agree(monkeypatch):
    """take_along_axis() (indices of arr's shape off the axis) and
    gather_nd() (batch_dims 0) of C-contiguous numpy arrays with no
    keywords go straight to clg_run, never through the general path's
    Call: numpy's bytes (and the general path's, keywords given), the
    same IndexError, and the general path for what they leave."""
    from clgather import _gather
    a = sample((4, 5, 3), np.float32, seed=21)
    ia = np.array([[[2, -1, 0]] * 5] * 4, dtype=np.int64)  # (4, 5, 3)
    ia[1, 2, 0] = -3
    ind = np.array([[1, 4], [-1, 0], [3, -5]], dtype=np.int32)  # (3, 2)
    want_nd = a[tuple(np.where(ind < 0, ind + np.array([4, 5]), ind).T)]

    def no_call(*args, **kwargs):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(_gather, "Call", no_call)
    same(clgather.take_along_axis(a, ia, axis=2),
         np.take_along_axis(a, ia, axis=2))
    same(clgather.take_along_axis(a, ia[:, :, :2].copy(), axis=-1),
         np.take_along_axis(a, ia[:, :, :2].copy(), axis=-1))
    same(clgather.gather_nd(a, ind), want_nd)
    with pytest.raises(IndexError, match=r"position \[1, 0\]"):
        clgather.gather_nd(a, np.array([[0, 0], [4, 0]]))
    with pytest.raises(AssertionError, match="general path"):
        clgather.take_along_axis(a, ia[:1], axis=2)  # broadcast: general
    with pytest.raises(AssertionError, match="general path"):
        clgather.gather_nd(a, ind, batch_dims=1)

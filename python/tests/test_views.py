"""numpy and pyopencl views (transposed, sliced, reversed, column blocks,
broadcast with stride 0) as operands and as outputs: passed to the library
in place as strided descriptors (clg_strided_tensor), checked against
numpy; the descriptors the library receives are recorded (`spy`) to prove
that nothing was copied: the address handed over is the view's own, with
its strides in elements. Where a view cannot be addressed in elements (byte
strides that do not divide by the item size, a misaligned array) an input
is copied and an output written through a temporary; a broadcast output is
a ValueError; pyopencl views the library cannot read are a ValueError."""

import ctypes

import numpy as np
import pyopencl.array as cla  # a dependency of the suite
import pytest

import clgather
from clgather import _lib
from conftest import sample, same
from test_along_nd import gather_nd_ref
from test_scatter import scatter_elements_ref, scatter_nd_ref

ENTRY_POINTS = ("clg_run", "clg_run_async", "clg_scatter",
                "clg_scatter_async")


@pytest.fixture
def spy(monkeypatch):
    """Every call's tensors as the library sees them: a list per call of
    dicts (storage, host, buffer, offset, shape, strides or None), data,
    indices[, updates], output."""
    calls = []

    def wrap(name, real):
        def fn(*args):
            seen = []
            for a in args:
                t = getattr(a, "_obj", None)
                if not isinstance(t, _lib.Tensor):
                    continue
                d = dict(storage=t.storage, host=t.host, buffer=t.buffer,
                         offset=t.offset,
                         shape=tuple(t.shape[i] for i in range(t.rank)),
                         strides=None)
                if t.storage in (_lib.STORAGE_HOST_STRIDED,
                                 _lib.STORAGE_BUFFER_STRIDED):
                    v = ctypes.cast(ctypes.addressof(t), ctypes.POINTER(
                        _lib.StridedTensor)).contents
                    d["strides"] = tuple(v.strides[i] for i in range(t.rank))
                seen.append(d)
            calls.append(seen)
            return real(*args)
        return fn

    for name in ENTRY_POINTS:
        monkeypatch.setattr(_lib, name, wrap(name, getattr(_lib, name)))
    return calls


def in_place(t, view):
    """The descriptor `t` is the numpy view itself: its address and its
    strides in elements (dimensions of size 1 count as 0)."""
    assert t["storage"] == _lib.STORAGE_HOST_STRIDED, t
    assert t["host"] == view.ctypes.data, (t, view.ctypes.data)
    want = tuple(0 if n == 1 else s // view.itemsize
                 for n, s in zip(view.shape, view.strides))
    assert t["strides"] == want, (t, want)


def cl_in_place(t, view):
    assert t["storage"] == _lib.STORAGE_BUFFER_STRIDED, t
    assert t["buffer"] == view.base_data.int_ptr
    assert t["offset"] == view.offset, (t, view.offset)
    want = tuple(0 if n == 1 else s // view.dtype.itemsize
                 for n, s in zip(view.shape, view.strides))
    assert t["strides"] == want, (t, want)


def copied(t, view):
    """The descriptor is a dense copy, not the view."""
    assert t["storage"] == _lib.STORAGE_HOST, t
    assert t["host"] != view.ctypes.data


BASE = sample((6, 8, 4), np.float32, seed=40)


def host_views():
    return {
        "columns": BASE[:, ::2],
        "transposed": BASE.transpose(2, 0, 1),
        "reversed": BASE[::-1],
        "mixed": BASE[::-1, 1:5, ::3],
        "block": BASE[:, 2:6, 1:3],
        "broadcast": np.broadcast_to(BASE[:1, :, 2:3], (5, 8, 3)),
    }


# ----------------------------------------------------------- numpy inputs

@pytest.mark.parametrize("name", sorted(host_views()))
def test_take_views(spy, name):
    a = host_views()[name]
    idx_base = np.array([[5, 0, -1, 2], [1, 1, 3, 0]])
    for axis in (0, 1, -1):
        i = (idx_base % a.shape[axis])[:, ::-2]  # a view of indices too
        spy.clear()
        same(clgather.take(a, i, axis=axis), np.take(a, i, axis=axis))
        in_place(spy[0][0], a)
        in_place(spy[0][1], i)
    # axis=None flattens: in place where the elements are equally spaced.
    i = np.array([0, 3, -1, 7])
    spy.clear()
    same(clgather.take(a, i), np.take(a, i))
    flat = a.reshape(-1)  # numpy copies exactly where we must
    if np.shares_memory(flat, a):
        assert spy[0][0]["host"] == a.ctypes.data
    else:
        assert spy[0][0]["host"] != a.ctypes.data


def test_take_along_axis_views(spy):
    arr = BASE[:, :, 1].T  # (8, 6), transposed
    idx = np.argsort(arr, axis=1)[:, ::-1]  # reversed: a view
    spy.clear()
    same(clgather.take_along_axis(arr, idx, 1),
         np.take_along_axis(arr, idx, 1))
    in_place(spy[0][0], arr)
    in_place(spy[0][1], idx)
    # numpy's broadcasting of indices off the axis: stride 0, no copy.
    row = np.array([[3, -1, 0, 2]])
    spy.clear()
    same(clgather.take_along_axis(arr, row, 1),
         np.take_along_axis(arr, row, 1))
    t = spy[0][1]
    assert t["host"] == row.ctypes.data and t["strides"] == (0, 1), t
    # A broadcast numpy input.
    b = np.broadcast_to(np.arange(5, dtype=np.int64)[:, None], (5, 7))
    i = np.zeros((2, 7), np.int64)
    spy.clear()
    same(clgather.take_along_axis(b, i, 0), np.take_along_axis(b, i, 0))
    in_place(spy[0][0], b)


def test_gather_nd_views(spy):
    data = BASE.transpose(1, 0, 2)[::-1]  # (8, 6, 4)
    tuples = np.array([[7, 0], [0, -1], [-3, 2], [4, 4]])[::-1].T.copy().T
    assert not tuples.flags.c_contiguous
    spy.clear()
    same(clgather.gather_nd(data, tuples), gather_nd_ref(data, tuples))
    same(clgather.gather_nd(data, tuples),
         data[tuple(tuples.T)])  # numpy's fancy indexing
    in_place(spy[0][0], data)
    in_place(spy[0][1], tuples)


def test_scatter_views(spy):
    rng = np.random.default_rng(41)
    data = sample((4, 5), np.float64, seed=42).T  # (5, 4), transposed
    idx_full = np.stack([rng.permutation(5) for _ in range(8)], axis=1)
    idx = idx_full[::-1, ::2]  # (5, 4): distinct per column
    upd = sample((4, 5), np.float64, seed=43).T  # (5, 4), transposed
    # scatter_elements along 0, into a new array, against put_along_axis.
    want = data.copy()
    np.put_along_axis(want, idx, upd, 0)
    spy.clear()
    same(clgather.scatter_elements(data, idx, upd, axis=0), want)
    for t, v in zip(spy[0], (data, idx, upd)):
        in_place(t, v)
    # reduction add on broadcast updates (stride 0 on an input).
    upd_b = np.broadcast_to(np.float64(2.5), idx.shape)
    same(clgather.scatter_elements(data, idx, upd_b, reduction="add"),
         scatter_elements_ref(data, idx, np.full(idx.shape, 2.5), 0, "add"))
    # scatter_nd against fancy assignment.
    rows = np.array([[4], [0], [2]])[::-1]
    vals = sample((4, 3), np.float64, seed=44).T  # (3, 4)
    want = data.copy()
    want[rows[:, 0]] = vals
    spy.clear()
    same(clgather.scatter_nd(data, rows, vals), want)
    same(want, scatter_nd_ref(data, rows, vals))
    in_place(spy[0][0], data)
    in_place(spy[0][2], vals)


# ---------------------------------------------------------- numpy outputs

def test_out_views_are_written_in_place(spy):
    a = sample((5, 6), np.int32, seed=45)
    idx = np.array([[4, 0], [-1, 2]])
    want = np.take(a, idx, axis=1)  # (5, 2, 2)
    for make in (lambda p: p[:, ::2, 1::2],            # every other
                 lambda p: p[::-1, 2:4, :2],           # reversed block
                 lambda p: p.transpose(0, 2, 1)[:, 1:3, 1:3]):
        parent = np.full((5, 4, 4), -7, np.int32)
        view = make(parent)
        assert not view.flags.c_contiguous
        before = parent.copy()
        spy.clear()
        assert clgather.take(a, idx, axis=1, out=view) is view
        same(view, want)
        in_place(spy[0][2], view)  # the view itself, no temporary
        mask = np.zeros(parent.shape, bool)
        make(mask)[...] = True
        same(parent[~mask], before[~mask])  # untouched outside the view


def test_out_views_gathers_and_scatters(spy):
    arr = sample((4, 6), np.float32, seed=46)
    idx = np.argsort(arr, axis=1)
    parent = np.zeros((6, 4), np.float32)
    out = parent.T  # (4, 6), Fortran order
    res = clgather.take_along_axis(arr, idx, 1)
    # take_along_axis has no out=; scatter into a transposed out in place.
    data = sample((4, 6), np.float32, seed=47)
    upd = sample((4, 6), np.float32, seed=48)
    want = data.copy()
    np.put_along_axis(want, idx, upd, 1)
    spy.clear()
    assert clgather.scatter_elements(data, idx, upd, axis=1, out=out) is out
    same(out, want)
    in_place(spy[0][3], out)
    same(res, np.take_along_axis(arr, idx, 1))
    # A scatter in place on a view: data is out; the parent's other
    # elements stay as they were.
    parent = sample((6, 10), np.int16, seed=49)
    before = parent.copy()
    work = parent[::2, ::-3]  # (3, 4)
    want = work.copy()
    want[[2, 0], [1, 3]] += np.int16(9)
    spy.clear()
    clgather.scatter_nd(work, [[2, 1], [0, 3]], np.full(2, 9, np.int16),
                        reduction="add", out=work)
    same(work, want)
    in_place(spy[0][0], work)
    in_place(spy[0][3], work)
    mask = np.zeros(parent.shape, bool)
    mask[::2, ::-3] = True
    same(parent[~mask], before[~mask])
    # An out view overlapping an input other than as data itself: numpy's
    # semantics (the inputs as they were), through a temporary.
    x = np.arange(12, dtype=np.int64)
    y = x.copy()
    np.take(y[::2], [5, 4, 3, 2, 1, 0], out=y[1::2])
    spy.clear()
    clgather.take(x[::2], [5, 4, 3, 2, 1, 0], out=x[1::2])
    same(x, y)
    assert spy[0][2]["storage"] == _lib.STORAGE_HOST  # a temporary


# ------------------------------------------------------------ no copies

def test_no_copy_where_strides_allow(spy, monkeypatch):
    """A 64 MiB parent's views go to the library by address: numpy is never
    asked for a contiguous copy, and the pointers are the views' own."""
    big = np.zeros((2048, 8192), np.float32)
    big[:, ::1000] = np.arange(9, dtype=np.float32)
    column = big[:, 3000]           # stride 8192 elements
    block = big[100:1100, 5000:5003].T  # transposed column block
    copies = []

    def no(name):
        real = getattr(np, name)

        def f(*a, **k):
            copies.append(name)
            return real(*a, **k)
        return f
    idx = np.array([0, 2047, 5], np.int64)
    idx2 = np.array([[2, 0]], np.int64)
    for name in ("ascontiguousarray", "require", "copy", "array",
                 "asarray"):
        monkeypatch.setattr(np, name, no(name))
    got = clgather.take(column, idx)
    got2 = clgather.take(block, idx2, axis=0)
    monkeypatch.undo()
    assert copies == [], copies
    same(got, np.take(column, idx))
    same(got2, np.take(block, [[2, 0]], axis=0))
    in_place(spy[0][0], column)
    assert spy[0][0]["strides"] == (8192,)
    in_place(spy[1][0], block)
    assert spy[1][0]["strides"] == (1, 8192)


# -------------------------------------------------------------- fallbacks

def test_unaddressable_views_fall_back(spy):
    # complex128 at a 24-byte pitch: aligned, but no whole number of
    # elements apart: copied to C order.
    rec = np.zeros(6, dtype=[("c", "<c16"), ("d", "<f8")])
    rec["c"] = sample((6,), np.complex128, seed=50)
    rec["d"] = -1.0
    c = rec["c"]
    assert c.strides == (24,) and c.flags.aligned
    spy.clear()
    same(clgather.take(c, [5, 0, 2]), np.take(c, [5, 0, 2]))
    copied(spy[0][0], c)
    # As out: written through a temporary; the other field untouched.
    spy.clear()
    clgather.take(sample((3,), np.complex128, seed=51),
                  [2, 1, 0, 0, 1, 2], out=rec["c"])
    same(rec["c"], np.take(sample((3,), np.complex128, seed=51),
                           [2, 1, 0, 0, 1, 2]))
    assert (rec["d"] == -1.0).all()
    assert spy[0][2]["storage"] == _lib.STORAGE_HOST
    assert spy[0][2]["host"] != rec["c"].ctypes.data
    # A misaligned int32 array (one byte into a buffer): copied.
    raw = np.zeros(4 * 8 + 1, np.uint8)
    mis = raw[1:].view(np.int32)[::2]
    assert not mis.flags.aligned
    mis_vals = mis.copy()
    spy.clear()
    same(clgather.take(mis, [3, 1]), np.take(mis_vals, [3, 1]))
    copied(spy[0][0], mis)
    # An out whose elements overlap (not stride 0): numpy's assignment
    # semantics, through a temporary.
    base = np.zeros(7, np.int64)
    over = np.lib.stride_tricks.as_strided(base, (3, 3), (16, 8),
                                           writeable=True)
    want = base.copy()
    want_view = np.lib.stride_tricks.as_strided(want, (3, 3), (16, 8),
                                                writeable=True)
    vals = np.arange(9, dtype=np.int64).reshape(3, 3)
    want_view[...] = vals
    spy.clear()
    clgather.take(vals, [0, 1, 2], axis=0, out=over)
    same(base, want)
    assert spy[0][2]["storage"] == _lib.STORAGE_HOST


def test_broadcast_out_is_an_error():
    a = sample((4, 3), np.float32)
    parent = np.full(3, 5.0, np.float32)
    out = np.lib.stride_tricks.as_strided(parent, (2, 3), (0, 4),
                                          writeable=True)
    with pytest.raises(ValueError, match=r"broadcast view \(stride 0 on "
                                         r"axis 0, of size 2\)"):
        clgather.take(a, [1, 2], axis=0, out=out)
    same(parent, np.full(3, 5.0, np.float32))
    with pytest.raises(ValueError, match="read-only"):
        clgather.take(a, [1, 2], axis=0,
                      out=np.broadcast_to(parent, (2, 3)))
    with pytest.raises(ValueError, match="broadcast view"):
        clgather.scatter_nd(np.zeros((2, 3), np.float32), [[0]],
                            np.ones((1, 3), np.float32), out=out)
    same(parent, np.full(3, 5.0, np.float32))


# --------------------------------------------------------- pyopencl views

def dev(queue, a):
    return cla.to_device(queue, np.ascontiguousarray(a))


def test_pyopencl_views(spy, cl_queue):
    a = sample((6, 8), np.float32, seed=52)
    d = dev(cl_queue, a)
    idx = np.array([2, 0, -1], np.int64)
    di = dev(cl_queue, np.array([9, 2, 9, 0, 9, -1], np.int64))[1::2]
    assert not di.flags.c_contiguous
    for name, v, w in (("columns", d[:, ::2], a[:, ::2]),
                       ("transposed", d.T, a.T),
                       ("reversed", d[::-1], a[::-1]),
                       ("block", d[:, 2:5], a[:, 2:5]),
                       ("both", d[::-2, ::-3], a[::-2, ::-3])):
        assert not v.flags.c_contiguous, name
        spy.clear()
        got = clgather.take(v, di, axis=1)
        assert isinstance(got, cla.Array)
        same(got.get(), np.take(w, idx, axis=1))
        cl_in_place(spy[0][0], v)
        cl_in_place(spy[0][1], di)
    # take_along_axis and gather_nd on views, scatter_elements too.
    ia = np.argsort(a.T, axis=0)
    same(clgather.take_along_axis(d.T, dev(cl_queue, ia), 0).get(),
         np.take_along_axis(a.T, ia, 0))
    tuples = np.array([[0, 3], [-1, 0], [5, 2]])
    same(clgather.gather_nd(d[::-1, 1::2], dev(cl_queue, tuples)).get(),
         gather_nd_ref(a[::-1, 1::2], tuples))
    ie = np.array([[1, 0, 2]])
    upd = sample((1, 3), np.float32, seed=53)
    same(clgather.scatter_elements(d[:3, ::3], dev(cl_queue, ie),
                                   dev(cl_queue, upd)).get(),
         scatter_elements_ref(a[:3, ::3], ie, upd))
    # axis=None: a view whose elements are equally spaced flattens in
    # place; one that is not cannot (pyopencl copies no strided array).
    same(clgather.take(d[:, 3], dev(cl_queue, np.array([5, 0]))).get(),
         a[[5, 0], 3])
    with pytest.raises(ValueError, match="cannot be flattened"):
        clgather.take(d.T, dev(cl_queue, np.array([0])))


def test_pyopencl_out_views(spy, cl_queue):
    a = sample((5, 4), np.int64, seed=54)
    idx = np.array([[3, 0], [-1, 1]])
    want = np.take(a, idx, axis=0)  # (2, 2, 4)
    parent = np.full((2, 4, 8), -1, np.int64)
    dp = dev(cl_queue, parent)
    view = dp[:, 1:3, ::2]  # (2, 2, 4): rows of every other column
    spy.clear()
    got = clgather.take(dev(cl_queue, a), dev(cl_queue, idx), axis=0,
                        out=view)
    assert got is view and got.events
    cl_in_place(spy[0][2], view)
    host = dp.get()
    want_parent = parent.copy()
    want_parent[:, 1:3, ::2] = want
    same(host, want_parent)  # only the view's elements were written
    # A scatter in place on a column block of a cl array.
    base = sample((4, 6), np.float32, seed=55)
    db = dev(cl_queue, base)
    block = db[:, 1:4]
    upd = np.array([[1.5, -2.0, 4.0]], np.float32)
    spy.clear()
    clgather.scatter_nd(block, dev(cl_queue, np.array([[2]])),
                        dev(cl_queue, upd), out=block)
    cl_in_place(spy[0][0], block)
    cl_in_place(spy[0][3], block)
    want = base.copy()
    want[2, 1:4] = upd[0]
    same(db.get(), want)


def test_pyopencl_views_async(cl_queue):
    a = sample((6, 4), np.float32, seed=56)
    d = dev(cl_queue, a)
    parent = dev(cl_queue, np.zeros((4, 6), np.float32))
    out = parent[:, ::2]
    outcome = clgather.Outcome()
    got = clgather.take(d.T, dev(cl_queue, np.array([5, 0, 3])), axis=1,
                        out=out, outcome=outcome)
    assert got is out
    outcome.wait()
    want = np.zeros((4, 6), np.float32)
    want[:, ::2] = np.take(a.T, [5, 0, 3], axis=1)
    same(parent.get(), want)
    # An error leaves the out view and its parent as they were. An out
    # that is not dense has its indices checked before the call returns
    # (clgather.h: its copy kernel cannot be gated), so the call raises.
    outcome = clgather.Outcome()
    with pytest.raises(IndexError, match=r"valid range is \[-6, 5\]"):
        clgather.take(d.T, dev(cl_queue, np.array([6, 0, 3])), axis=1,
                      out=out, outcome=outcome)
    same(parent.get(), want)


def test_pyopencl_views_refused(cl_queue):
    a = sample((4, 8), np.float32, seed=57)
    d = dev(cl_queue, a)
    idx = dev(cl_queue, np.array([0, 1]))
    # An offset that is no multiple of the element's alignment.
    odd = cla.Array(cl_queue, (3, 2), np.float32, strides=(32, 8),
                    data=d.base_data, offset=2)
    with pytest.raises(ValueError, match="byte offset 2, not a multiple "
                                         "of 4"):
        clgather.take(odd, idx, axis=0)
    # Byte strides that are no whole number of elements.
    skew = cla.Array(cl_queue, (3, 2), np.float32, strides=(30, 4),
                     data=d.base_data)
    with pytest.raises(ValueError, match=r"byte strides \(30, 4\)"):
        clgather.take(skew, idx, axis=0)
    # A broadcast cl out.
    out = cla.Array(cl_queue, (2, 8), np.float32, strides=(0, 4),
                    data=d.base_data)
    with pytest.raises(ValueError, match="broadcast view"):
        clgather.take(d, idx, axis=0, out=out)
    same(d.get(), a)
    # An out whose elements overlap otherwise: the library's check.
    out = cla.Array(cl_queue, (2, 8), np.float32, strides=(4, 4),
                    data=d.base_data)
    with pytest.raises(ValueError, match="same memory"):
        clgather.take(dev(cl_queue, a), idx, axis=0, out=out)
    same(d.get(), a)

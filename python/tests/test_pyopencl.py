"""pyopencl arrays in, pyopencl arrays out: every operator on the caller's
queue (conftest's cl_queue, a queue of the test's own on the session
context's device) against numpy, byte for byte. The result is on the
caller's queue and context and carries the library's event; operands are
sub-arrays with nonzero offsets; out= and in-place scatters; an
out-of-bounds index or a repeated target leaves the output alone; the
operands' events are the wait list; in the asynchronous checked mode
(outcome=) the call does not wait on the host."""

import threading

import numpy as np
import pyopencl as cl  # a dependency of the suite: missing is a failure
import pyopencl.array as cla
import pytest

import clgather
from conftest import sample
from test_along_nd import gather_nd_ref
from test_scatter import scatter_elements_ref, scatter_nd_ref

COMPLETE = cl.command_execution_status.COMPLETE


def dev(queue, a):
    return cla.to_device(queue, np.ascontiguousarray(a))


def check_result(got, want, queue):
    """got is a pyopencl Array on `queue` carrying the library's event
    (enqueued on that queue), and its bytes are want's."""
    assert isinstance(got, cla.Array), type(got)
    assert got.queue == queue
    assert got.context == queue.context
    assert got.events, "the result carries no event"
    ev = got.events[-1]
    assert ev.command_queue == queue
    assert ev.context == queue.context
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    host = got.get()
    assert host.tobytes() == want.tobytes(), (host, want)


# ---------------------------------------------------------------- gathers

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8,
                                   np.complex128])
def test_take(cl_queue, dtype):
    a = sample((5, 6, 3), dtype)
    idx = np.array([[4, -1], [0, 2], [-5, 3]])
    da, di = dev(cl_queue, a), dev(cl_queue, idx)
    for axis in (0, 1, -1):
        i = idx % a.shape[axis] if axis == -1 else idx
        di = dev(cl_queue, i)
        check_result(clgather.take(da, di, axis=axis),
                     np.take(a, i, axis=axis), cl_queue)
    check_result(clgather.take(da, dev(cl_queue, idx[0])),
                 np.take(a, idx[0]), cl_queue)  # axis None
    for mode in ("wrap", "clip"):
        big = np.array([-20, 7, 100, -1])
        check_result(clgather.take(da, dev(cl_queue, big), axis=1,
                                   mode=mode),
                     np.take(a, big, axis=1, mode=mode), cl_queue)


def test_take_mixed_host_indices(cl_queue):
    # One pyopencl operand makes the result a pyopencl array.
    a = sample((6, 4), np.float64)
    idx = np.array([5, -6, 2], np.int32)
    check_result(clgather.take(dev(cl_queue, a), idx, axis=0),
                 np.take(a, idx, axis=0), cl_queue)
    check_result(clgather.take(a, dev(cl_queue, idx), axis=0),
                 np.take(a, idx, axis=0), cl_queue)


def test_take_along_axis(cl_queue):
    a = sample((4, 5), np.int16)
    for axis in (0, 1):
        idx = np.argsort(a, axis=axis)[::-1].copy()
        check_result(clgather.take_along_axis(dev(cl_queue, a),
                                              dev(cl_queue, idx), axis),
                     np.take_along_axis(a, idx, axis), cl_queue)
    idx = np.array([[3, -1, 0]])  # broadcast by stride 0, on the device
    check_result(clgather.take_along_axis(dev(cl_queue, a),
                                          dev(cl_queue, idx), 1),
                 np.take_along_axis(a, idx, 1), cl_queue)


def test_gather_nd(cl_queue):
    data = sample((4, 3, 5), np.float32)
    for idx, b in ((np.array([[3, -1], [0, 2], [-4, 0]]), 0),
                   (np.array([[[2], [0]], [[1], [1]], [[0], [2]],
                              [[-1], [1]]]), 1)):
        check_result(clgather.gather_nd(dev(cl_queue, data),
                                        dev(cl_queue, idx), batch_dims=b),
                     gather_nd_ref(data, idx, b), cl_queue)


def test_empty_result(cl_queue):
    a = sample((3, 4), np.float32)
    got = clgather.take(dev(cl_queue, a), dev(cl_queue, np.zeros(0, int)),
                        axis=1)
    assert isinstance(got, cla.Array) and got.queue == cl_queue
    assert got.shape == (3, 0) and got.get().shape == (3, 0)


# --------------------------------------------------------------- scatters

def test_scatter_nd(cl_queue):
    data = sample((5, 3), np.float32)
    idx = np.array([[4], [0], [-2]])
    upd = sample((3, 3), np.float32, seed=1)
    dd = dev(cl_queue, data)
    check_result(clgather.scatter_nd(dd, dev(cl_queue, idx),
                                     dev(cl_queue, upd)),
                 scatter_nd_ref(data, idx, upd), cl_queue)
    assert dd.get().tobytes() == data.tobytes()  # data left alone
    idx = np.array([[4, 1], [0, 0], [-1, -2], [4, 1]])
    upd = sample((4,), np.float32, seed=2)
    check_result(clgather.scatter_nd(dd, dev(cl_queue, idx),
                                     dev(cl_queue, upd), reduction="add"),
                 scatter_nd_ref(data, idx, upd, "add"), cl_queue)


def test_scatter_elements(cl_queue):
    rng = np.random.default_rng(3)
    data = sample((4, 6), np.int32)
    idx = rng.integers(-6, 6, (4, 9))
    upd = sample(idx.shape, np.int32, seed=4)
    for red in ("none", "mul", "min"):
        check_result(clgather.scatter_elements(
            dev(cl_queue, data), dev(cl_queue, idx), dev(cl_queue, upd),
            axis=1, reduction=red, duplicates="last"),
            scatter_elements_ref(data, idx, upd, 1, red), cl_queue)


def test_scatter_in_place(cl_queue):
    data = sample((6, 2), np.float64)
    idx = np.array([[5], [1], [-1]])
    upd = sample((3, 2), np.float64, seed=5)
    dd = dev(cl_queue, data)
    got = clgather.scatter_nd(dd, dev(cl_queue, idx), dev(cl_queue, upd),
                              reduction="add", out=dd)
    assert got is dd
    check_result(got, scatter_nd_ref(data, idx, upd, "add"), cl_queue)
    # In place on a sub-array: the elements around it untouched.
    base = sample((10,), np.float32, seed=6)
    db = dev(cl_queue, base)
    view = db[3:8]
    assert view.offset == 3 * 4
    upd = np.array([1.5, -2.0], np.float32)
    clgather.scatter_elements(view, dev(cl_queue, np.array([4, 0])),
                              dev(cl_queue, upd), out=view)
    want = base.copy()
    want[3 + 4], want[3 + 0] = upd
    assert db.get().tobytes() == want.tobytes()


# ---------------------------------------------------------------- offsets

def test_offsets(cl_queue):
    base = sample((7, 4), np.float32)
    db = dev(cl_queue, base)
    data = db[2:]  # rows 2..6: a nonzero offset into the same buffer
    assert data.offset == 2 * 4 * 4 and data.base_data is db.base_data
    ibase = np.array([9, 9, 4, -1, 0, 2])
    dib = dev(cl_queue, ibase)
    idx = dib[2:]
    assert idx.offset == 2 * 8
    want = np.take(base[2:], ibase[2:], axis=0)
    check_result(clgather.take(data, idx, axis=0), want, cl_queue)
    # out= a sub-array of a bigger one: only its elements are written.
    obase = np.full((20,), -3.0, np.float32)
    dob = dev(cl_queue, obase)
    out = dob[2:18].reshape(4, 4)
    assert out.offset == 2 * 4
    assert clgather.take(data, idx, axis=0, out=out) is out
    check_result(out, want, cl_queue)
    got = dob.get()
    assert got[2:18].tobytes() == want.tobytes()
    assert (got[:2] == -3.0).all() and (got[18:] == -3.0).all()
    # take_along_axis, gather_nd and scatter_nd on the offset operands.
    ia = np.array([[1, 0, 3, 2]] * 4)
    check_result(clgather.take_along_axis(data[1:], dev(cl_queue, ia), 1),
                 np.take_along_axis(base[3:], ia, 1), cl_queue)
    tuples = np.array([[0, 3], [-1, 0], [2, 2]])
    check_result(clgather.gather_nd(data, dev(cl_queue, tuples)),
                 gather_nd_ref(base[2:], tuples), cl_queue)
    upd = dev(cl_queue, np.arange(8, dtype=np.float32))[2:5]
    check_result(clgather.scatter_nd(data, dev(cl_queue, tuples), upd),
                 scatter_nd_ref(base[2:], tuples,
                                np.arange(2, 5, dtype=np.float32)),
                 cl_queue)


# ----------------------------------------------------------------- errors

def test_out_of_bounds_leaves_out(cl_queue):
    a = sample((5, 3), np.int32)
    da = dev(cl_queue, a)
    out = dev(cl_queue, np.full((2, 3), 7, np.int32))
    with pytest.raises(IndexError, match=r"= 5, .*valid range is \[-5, 4\]"):
        clgather.take(da, dev(cl_queue, np.array([0, 5])), axis=0, out=out)
    assert (out.get() == 7).all()
    bad = np.zeros((5, 3), np.int64)
    bad[3, 1] = -4
    with pytest.raises(IndexError, match=r"position \[3, 1\] .*= -4, "
                       r".*valid range is \[-3, 2\]"):
        clgather.take_along_axis(da, dev(cl_queue, bad), 1)
    with pytest.raises(IndexError, match=r"valid range is \[-3, 2\]"):
        clgather.gather_nd(da, dev(cl_queue, np.array([[1, 3]])))
    # Scatters: a separate out, and in place.
    idx = dev(cl_queue, np.array([[1], [-6]]))
    upd = dev(cl_queue, np.ones((2, 3), np.int32))
    sout = dev(cl_queue, np.full((5, 3), 9, np.int32))
    with pytest.raises(IndexError, match=r"= -6, .*\[-5, 4\]"):
        clgather.scatter_nd(da, idx, upd, out=sout)
    assert (sout.get() == 9).all()
    with pytest.raises(IndexError):
        clgather.scatter_nd(da, idx, upd, reduction="add", out=da)
    assert da.get().tobytes() == a.tobytes()


def test_duplicate_leaves_out(cl_queue):
    a = sample((4,), np.float32)
    da = dev(cl_queue, a)
    idx = dev(cl_queue, np.array([2, 0, -2]))
    upd = dev(cl_queue, np.ones(3, np.float32))
    with pytest.raises(ValueError) as info:
        clgather.scatter_elements(da, idx, upd, out=da)
    assert "position [0]" in str(info.value)
    assert "position [2]" in str(info.value)
    assert da.get().tobytes() == a.tobytes()


# ---------------------------------------------------- events, no waiting

def _gated_copy(queue, host):
    """A pyopencl array on `queue` whose content is written by a copy on
    another queue that waits for a user event: (array, user event, stale
    host content). Until the user event completes the array holds zeros;
    only a call that waits for the array's events reads `host`."""
    other = cl.CommandQueue(queue.context, queue.device)
    arr = cla.zeros(queue, host.shape, host.dtype)
    arr.finish()
    src = cla.to_device(other, host)
    src.finish()
    user = cl.UserEvent(queue.context)
    ev = cl.enqueue_copy(other, arr.base_data, src.base_data,
                         byte_count=host.nbytes, wait_for=[user])
    arr.add_event(ev)
    arr._keep = (other, src)  # alive until the copy ran
    return arr, user


def _release_later(users, seconds):
    """Complete the user events `users` after `seconds` unless cancelled
    first: a call that (wrongly) waits on the host is released rather than
    hung. Returns the timer and a list that is non-empty once it fired."""
    fired = []

    def fire():
        fired.append(True)
        for user in users:
            if user.command_execution_status != COMPLETE:
                user.set_status(COMPLETE)
    t = threading.Timer(seconds, fire)
    t.start()
    return t, fired


def _finish(timer, users):
    """Stop the timer (waiting for it if it is firing) and complete what
    it did not."""
    timer.cancel()
    timer.join()
    for user in users:
        if user.command_execution_status != COMPLETE:
            user.set_status(COMPLETE)


def test_operands_events_are_the_wait_list(cl_queue):
    # The data is produced on another queue, gated: the call must wait for
    # the data's events (here on the host: cl_mem indices are checked after
    # the wait list) and read the copied values, not the zeros.
    a = sample((6, 3), np.float32, seed=7)
    data, user = _gated_copy(cl_queue, a)
    idx = np.array([5, 0, -2])
    timer, fired = _release_later([user], 0.2)
    try:
        got = clgather.take(data, dev(cl_queue, idx), axis=0)
        check_result(got, np.take(a, idx, axis=0), cl_queue)
    finally:
        _finish(timer, [user])


def test_async_does_not_wait_on_the_host(cl_queue):
    a = sample((6, 3), np.float32, seed=8)
    data, user = _gated_copy(cl_queue, a)
    idx = dev(cl_queue, np.array([[1, -1], [3, 0]]))
    other_user = cl.UserEvent(cl_queue.context)
    timer, fired = _release_later([user, other_user], 10.0)
    try:
        outcome = clgather.Outcome()
        got = clgather.take(data, idx, axis=0, outcome=outcome,
                            wait_for=[other_user])
        # Returned while its inputs cannot be ready: nothing waited.
        assert not fired
        assert got.events[-1].command_execution_status != COMPLETE
        other_user.set_status(COMPLETE)
        assert got.events[-1].command_execution_status != COMPLETE
        user.set_status(COMPLETE)
        outcome.wait()
        check_result(got, np.take(a, [[1, -1], [3, 0]], axis=0), cl_queue)
    finally:
        _finish(timer, [user, other_user])


def test_async_out_of_bounds(cl_queue):
    a = sample((4, 2), np.int64)
    out = dev(cl_queue, np.full((2, 2), 5, np.int64))
    outcome = clgather.Outcome()
    got = clgather.take(dev(cl_queue, a), dev(cl_queue, np.array([1, 4])),
                        axis=0, out=out, outcome=outcome)
    assert got is out
    with pytest.raises(IndexError, match=r"= 4, .*valid range is \[-4, 3\]"):
        outcome.wait()
    assert (out.get() == 5).all()
    # Scatter in place, asynchronously: a repeat found on the device.
    da = dev(cl_queue, a)
    outcome = clgather.Outcome()
    clgather.scatter_elements(da, dev(cl_queue, np.array([[0, 1], [0, 0]])),
                              dev(cl_queue, np.ones((2, 2), np.int64)),
                              out=da, outcome=outcome)
    with pytest.raises(ValueError, match="duplicate index"):
        outcome.wait()
    assert da.get().tobytes() == a.tobytes()

"""embedding_bag and sparse_segment_reduce on pyopencl operands (cl_mem
tensors): results on the device with their events, views with their
strides, the errors with the output untouched, the asynchronous checked
mode. Against torch.nn.functional.embedding_bag and the plain loop of
test_embedding_bag.py, whose helpers these tests share."""

import numpy as np
import pyopencl.array as cla
import pytest

import clgather
from conftest import same, sample
from test_embedding_bag import DIM, NUM, W, bags, segment_ref, segments, \
    torch_bag


# ------------------------------------------------- pyopencl operands

def dev(queue, a):
    return cla.to_device(queue, np.ascontiguousarray(a))


def on_device(got, want, queue):
    assert isinstance(got, cla.Array), type(got)
    assert got.queue == queue
    assert got.events, "the result carries no event"
    same(got.get(), want)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_pyopencl(cl_queue, mode):
    inp, offs = bags(30, 12, seed=25)
    want = torch_bag(inp, W, offs, mode=mode)
    dw, di, do = dev(cl_queue, W), dev(cl_queue, inp), dev(cl_queue, offs)
    on_device(clgather.embedding_bag(di, dw, do, mode=mode), want, cl_queue)
    # Mixed: one pyopencl operand gives a pyopencl result.
    on_device(clgather.embedding_bag(inp, dw, offs, mode=mode), want,
              cl_queue)
    on_device(clgather.embedding_bag(di, W, offs, mode=mode), want,
              cl_queue)
    # out=, and operands at nonzero offsets in their buffers.
    out = cla.empty(cl_queue, want.shape, np.float32)
    assert clgather.embedding_bag(di, dw, do, mode=mode, out=out) is out
    on_device(out, want, cl_queue)
    pad = dev(cl_queue, np.concatenate([[99, 99, 99], inp]))[3:]
    assert pad.offset
    on_device(clgather.embedding_bag(pad, dw, do, mode=mode), want,
              cl_queue)


def test_pyopencl_2d_and_weights(cl_queue):
    inp = np.random.default_rng(26).integers(0, NUM, (12, 5))
    psw = np.random.default_rng(27).standard_normal(inp.shape).astype(
        np.float32)
    want = torch_bag(inp, W, mode="sum", per_sample_weights=psw)
    on_device(clgather.embedding_bag(dev(cl_queue, inp), dev(cl_queue, W),
                                     mode="sum",
                                     per_sample_weights=dev(cl_queue, psw)),
              want, cl_queue)
    want = torch_bag(inp, W, mode="max")
    on_device(clgather.embedding_bag(dev(cl_queue, inp), dev(cl_queue, W),
                                     mode="max"), want, cl_queue)


def test_pyopencl_segments(cl_queue):
    data = sample((NUM, 4, 3), np.float32)
    idx, ids = segments(90, 11, seed=28)
    nseg = int(ids[-1]) + 1
    # The default num_segments: the last id read back from the device,
    # at an offset in its buffer.
    dids = dev(cl_queue, np.concatenate([[0], ids]))[1:]
    got = clgather.sparse_segment_reduce(dev(cl_queue, data),
                                         dev(cl_queue, idx), dids,
                                         mode="mean")
    assert got.shape == (nseg, 4, 3)
    on_device(got, segment_ref(data, idx, ids, "mean", nseg), cl_queue)
    got = clgather.sparse_segment_reduce(data, idx, dids, mode="sqrt_n",
                                         num_segments=nseg + 2)
    on_device(got, segment_ref(data, idx, ids, "sqrt_n", nseg + 2),
              cl_queue)
    empty = dev(cl_queue, np.zeros(0, np.int64))
    got = clgather.sparse_segment_reduce(data, empty, empty)
    assert got.shape == (0, 4, 3)


def test_pyopencl_errors(cl_queue):
    dw = dev(cl_queue, W)
    out = dev(cl_queue, np.full((2, DIM), 7.0, np.float32))
    before = out.get()
    with pytest.raises(IndexError):
        clgather.embedding_bag(dev(cl_queue, np.array([1, NUM, 2])), dw,
                               dev(cl_queue, np.array([0, 1])), out=out)
    with pytest.raises(ValueError) as info:
        clgather.embedding_bag(dev(cl_queue, np.array([1, 2, 3])), dw,
                               dev(cl_queue, np.array([0, 4])), out=out)
    assert info.value.status == 21
    with pytest.raises(ValueError) as info:
        clgather.sparse_segment_reduce(dw, dev(cl_queue, np.array([1, 2])),
                                       dev(cl_queue, np.array([1, 0])),
                                       num_segments=2, out=out)
    assert info.value.status == 21
    assert out.get().tobytes() == before.tobytes(), "an output was written"
    # sparse_segment_reduce reads dense pyopencl tensors only.
    with pytest.raises(ValueError):
        clgather.sparse_segment_reduce(dw[:, ::2], np.array([1, 2]),
                                       np.array([0, 0]))


def test_pyopencl_views(cl_queue):
    # Strided pyopencl operands are read (and out written) in place with
    # their strides, byte for byte the dense result; out's gaps kept.
    inp, offs = bags(20, 8, seed=31)
    wide = np.concatenate([W, W[::-1] * 2], axis=1)
    dwide = dev(cl_queue, wide)
    for view, host in ((dwide[:, :DIM], wide[:, :DIM]),
                       (dwide[:, DIM:], wide[:, DIM:]),
                       (dwide[:, ::2], wide[:, ::2])):
        for mode in ("sum", "mean", "max"):
            want = torch_bag(inp, np.ascontiguousarray(host), offs,
                             mode=mode)
            on_device(clgather.embedding_bag(dev(cl_queue, inp), view,
                                             dev(cl_queue, offs), mode=mode),
                      want, cl_queue)
    want = torch_bag(inp, W, offs, mode="sum")
    # Strided indices, offsets and per-sample weights.
    di = dev(cl_queue, np.repeat(inp, 2))[::2]
    doffs = dev(cl_queue, np.repeat(offs, 3))[::3]
    on_device(clgather.embedding_bag(di, dev(cl_queue, W), doffs,
                                     mode="sum"), want, cl_queue)
    psw = np.random.default_rng(32).standard_normal(inp.size).astype(
        np.float32)
    dpsw = dev(cl_queue, np.repeat(psw, 2))[1::2]
    on_device(clgather.embedding_bag(di, dev(cl_queue, W), doffs,
                                     mode="sum", per_sample_weights=dpsw),
              torch_bag(inp, W, offs, mode="sum", per_sample_weights=psw),
              cl_queue)
    # A strided out: written in place, its gaps untouched.
    big = dev(cl_queue, np.full((len(offs), 2 * DIM), 9.0, np.float32))
    out = big[:, 1::2]
    got = clgather.embedding_bag(dev(cl_queue, inp), dev(cl_queue, W),
                                 dev(cl_queue, offs), mode="sum", out=out)
    assert got is out
    back = big.get()
    same(np.ascontiguousarray(back[:, 1::2]), want)
    assert (back[:, ::2] == 9.0).all(), "out's gaps were written"


def test_pyopencl_outcome(cl_queue):
    inp, offs = bags(15, 7, seed=29)
    oc = clgather.Outcome()
    got = clgather.embedding_bag(dev(cl_queue, inp), dev(cl_queue, W),
                                 dev(cl_queue, offs), mode="sum",
                                 outcome=oc)
    oc.wait()
    on_device(got, torch_bag(inp, W, offs, mode="sum"), cl_queue)

"""embedding_bag over tables quantized per row (weight_format=, and torch's
own names embedding_bag_{byte,4bit,2bit}_rowwise_offsets) against
torch.ops.quantized's operators (FBGEMM's kernels, Debian's python3-torch),
byte for byte: sum with and without per_sample_weights, include_last_offset,
int32 and int64 indices, empty bags, numpy and pyopencl operands. Mean and
max against what the header defines, built from torch's own numbers: the
sum divided by the count in float32 (one correctly rounded division), and
the element-wise max of the rows torch dequantizes (a bag of one entry
gives fma(scale, q, bias), the row's values). Then the errors."""

import numpy as np
import pyopencl.array as cla
import pytest
import torch  # python3-torch: missing is a failure, not a skip

import clgather
from conftest import same

Q = torch.ops.quantized
FORMATS = {
    # name: (prepack, torch's op, clgather's op of torch's name)
    "int8-rowwise": (Q.embedding_bag_byte_prepack,
                     Q.embedding_bag_byte_rowwise_offsets,
                     clgather.embedding_bag_byte_rowwise_offsets),
    "int4-rowwise": (Q.embedding_bag_4bit_prepack,
                     Q.embedding_bag_4bit_rowwise_offsets,
                     clgather.embedding_bag_4bit_rowwise_offsets),
    "int2-rowwise": (Q.embedding_bag_2bit_prepack,
                     Q.embedding_bag_2bit_rowwise_offsets,
                     clgather.embedding_bag_2bit_rowwise_offsets),
}
NUM, DIM = 50, 24  # DIM a multiple of 4: every format takes it


def table(fmt, seed, num=NUM, dim=DIM):
    """The prepacked uint8 rows of a random float32 table, as numpy."""
    rng = np.random.default_rng(seed)
    w = torch.from_numpy(rng.standard_normal((num, dim)).astype(np.float32))
    return FORMATS[fmt][0](w).numpy()


def bags(n_bags, max_len, seed, dtype=np.int64, num=NUM):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, max_len + 1, n_bags)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(dtype)
    inp = rng.integers(0, num, int(lengths.sum())).astype(dtype)
    return inp, offsets


def torch_sum(fmt, packed, inp, offsets, psw=None, last=False):
    t = torch.from_numpy
    out = FORMATS[fmt][1](
        t(packed), t(np.ascontiguousarray(inp)),
        t(np.ascontiguousarray(offsets)), False, 0, False,
        None if psw is None else t(psw), None, last)
    return out.numpy()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_sum_is_torch(fmt, itype):
    packed = table(fmt, seed=1)
    inp, offs = bags(30, 9, seed=2, dtype=itype)
    want = torch_sum(fmt, packed, inp, offs)
    same(clgather.embedding_bag(inp, packed, offs, mode="sum",
                                weight_format=fmt), want)
    # torch's own name and argument order
    same(FORMATS[fmt][2](packed, inp, offs), want)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_per_sample_weights_is_torch(fmt):
    packed = table(fmt, seed=3)
    inp, offs = bags(25, 7, seed=4)
    psw = np.random.default_rng(5).standard_normal(len(inp)).astype(
        np.float32)
    want = torch_sum(fmt, packed, inp, offs, psw)
    same(clgather.embedding_bag(inp, packed, offs, mode="sum",
                                per_sample_weights=psw, weight_format=fmt),
         want)
    same(FORMATS[fmt][2](packed, inp, offs, per_sample_weights=psw), want)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_include_last_offset_is_torch(fmt):
    packed = table(fmt, seed=6)
    inp, offs = bags(12, 6, seed=7)
    offs = np.append(offs, len(inp))
    want = torch_sum(fmt, packed, inp, offs, last=True)
    same(FORMATS[fmt][2](packed, inp, offs, include_last_offset=True), want)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_mean_and_max_from_torch_rows(fmt):
    packed = table(fmt, seed=8)
    inp, offs = bags(20, 8, seed=9)
    ends = np.append(offs[1:], len(inp))
    # Each entry's row as torch dequantizes it: bags of one entry.
    rows = torch_sum(fmt, packed, inp, np.arange(len(inp)))
    sums = torch_sum(fmt, packed, inp, offs)
    mean = np.zeros_like(sums)
    mx = np.zeros_like(sums)
    for b, (lo, hi) in enumerate(zip(offs, ends)):
        if hi > lo:
            mean[b] = sums[b] / np.float32(hi - lo)
            mx[b] = rows[lo:hi].max(axis=0)
    same(clgather.embedding_bag(inp, packed, offs, mode="mean",
                                weight_format=fmt), mean)
    same(FORMATS[fmt][2](packed, inp, offs, mode=2), mx)


def test_pyopencl_operands(cl_queue):
    fmt = "int4-rowwise"
    packed = table(fmt, seed=10)
    inp, offs = bags(16, 6, seed=11)
    want = torch_sum(fmt, packed, inp, offs)
    got = clgather.embedding_bag(cla.to_device(cl_queue, inp),
                                 cla.to_device(cl_queue, packed),
                                 cla.to_device(cl_queue, offs), mode="sum",
                                 weight_format=fmt)
    assert isinstance(got, cla.Array)
    same(got.get(), want)


# ------------------------------------------------------------ errors

def test_errors_leave_out_unchanged():
    packed = table("int8-rowwise", seed=12)
    inp, offs = bags(5, 4, seed=13)
    out = np.full((5, DIM), 7.0, np.float32)
    bad = inp.copy()
    bad[-1] = NUM
    with pytest.raises(IndexError, match=r"indices\[%d\] is %d"
                       % (len(inp) - 1, NUM)):
        clgather.embedding_bag(bad, packed, offs, mode="sum", out=out,
                               weight_format="int8-rowwise")
    assert (out == 7.0).all()
    with pytest.raises(TypeError, match="uint8"):
        clgather.embedding_bag(inp, packed.view(np.int8), offs,
                               weight_format="int8-rowwise")
    with pytest.raises(ValueError, match="weight_format"):
        clgather.embedding_bag(inp, packed, offs, weight_format="int3")
    with pytest.raises(ValueError, match="scale and bias"):
        clgather.embedding_bag(inp, packed[:, :7], offs,
                               weight_format="int8-rowwise")
    with pytest.raises(NotImplementedError, match="pruned"):
        clgather.embedding_bag_byte_rowwise_offsets(packed, inp, offs,
                                                    pruned_weights=True)

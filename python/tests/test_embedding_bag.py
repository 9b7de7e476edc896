"""embedding_bag and sparse_segment_reduce (clg_embedding_bag,
clgather/clgather_bag.h).

embedding_bag against torch.nn.functional.embedding_bag on the CPU, byte
for byte: the header says PyTorch's CPU kernel gives its bits for float32
and float64 sum, mean and max (no signed zeros or NaNs here: torch's max
compares with `>`) and float16 sum and mean. sparse_segment_reduce against
a plain loop written from the header's definition. Then the errors (the
output untouched), and numpy operands (pyopencl ones:
test_embedding_bag_cl.py).

torch is a dependency of the suite (python3-torch, scripts/install-deps.sh):
without it this module fails to import, an error, not a skip."""

import numpy as np
import pytest
import torch  # python3-torch: missing is a failure, not a skip
import torch.nn.functional as F

import clgather
from conftest import same, sample

NUM, DIM = 40, 33   # DIM odd: no multiple of a vector width


def bags(n_bags, max_len, seed, num=NUM, dtype=np.int64, empty=True):
    """(input, offsets): n_bags bags of 0 (or 1) .. max_len random rows."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0 if empty else 1, max_len + 1, n_bags)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(dtype)
    inp = rng.integers(0, num, int(lengths.sum())).astype(dtype)
    return inp, offsets


def torch_bag(inp, weight, offsets=None, **kw):
    """torch.nn.functional.embedding_bag on the CPU, as numpy."""
    def t(a):
        return None if a is None else torch.from_numpy(
            np.ascontiguousarray(a))
    if kw.get("per_sample_weights") is not None:
        kw["per_sample_weights"] = t(kw["per_sample_weights"])
    with torch.no_grad():
        return F.embedding_bag(t(inp), t(weight), t(offsets), **kw).numpy()


def check(inp, weight, offsets=None, **kw):
    """clgather's result is torch's, byte for byte; returns it."""
    want = torch_bag(inp, weight, offsets, **kw)
    got = clgather.embedding_bag(inp, weight, offsets, **kw)
    same(got, want)
    return got


# ------------------------------------------------- against torch, float32

@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("itype", [np.int64, np.int32])
def test_offsets(mode, itype):
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(50, 30, seed=1, dtype=itype)
    check(inp, w, offs, mode=mode)


def test_default_mode_is_mean():
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(20, 9, seed=2)
    same(clgather.embedding_bag(inp, w, offs),
         torch_bag(inp, w, offs, mode="mean"))


def test_mixed_index_dtypes():
    # input and offsets need not share a dtype.
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(20, 9, seed=3)
    check(inp.astype(np.int32), w, offs, mode="sum")
    check(inp, w, offs.astype(np.int32), mode="mean")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [7, -3, 0, NUM - 1])
def test_padding_idx(mode, pad):
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(40, 12, seed=4)
    rng = np.random.default_rng(5)
    target = pad % NUM
    inp[rng.random(inp.size) < 0.3] = target     # many padding entries
    inp[offs[1]:offs[2]] = target                # a bag of padding only
    check(inp, w, offs, mode=mode, padding_idx=pad)


def weighted_ref(inp, w, offs, psw, padding_idx):
    """clgather_bag.h's weighted sum: acc = fma(psw[i], row, acc), one
    rounding (the product of two float32 is exact in float64, and the
    float64 sum rounds to float32 as fma would for these magnitudes)."""
    ends = list(offs[1:]) + [inp.size]
    out = np.zeros((len(offs), w.shape[1]), np.float32)
    for b, (s, e) in enumerate(zip(offs, ends)):
        acc = np.zeros(w.shape[1], np.float32)
        for i in range(s, e):
            if inp[i] != padding_idx:
                acc = (np.float64(psw[i]) * w[inp[i]].astype(np.float64)
                       + acc).astype(np.float32)
        out[b] = acc
    return out


def test_per_sample_weights():
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(40, 25, seed=6)
    psw = np.random.default_rng(7).standard_normal(inp.size).astype(
        np.float32)
    got = check(inp, w, offs, mode="sum", per_sample_weights=psw)
    same(got, weighted_ref(inp, w, offs, psw, None))
    got = clgather.embedding_bag(inp, w, offs, mode="sum",
                                 per_sample_weights=psw, padding_idx=5)
    same(got, weighted_ref(inp, w, offs, psw, 5))


@pytest.mark.xfail(strict=True, reason=(
    "torch 1.13 (Debian's CPU build) rounds the product and the sum apart "
    "(acc + w * row, two roundings) for float32 with padding_idx and for "
    "float64; float32 without padding_idx fuses them, as clgather_bag.h "
    "does for every type (one rounding)"))
@pytest.mark.parametrize("dtype,pad", [(np.float32, 5), (np.float64, None)])
def test_per_sample_weights_unfused_in_torch(dtype, pad):
    w = sample((NUM, DIM), dtype)
    inp, offs = bags(40, 25, seed=6)
    psw = np.random.default_rng(7).standard_normal(inp.size).astype(dtype)
    check(inp, w, offs, mode="sum", per_sample_weights=psw, padding_idx=pad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_include_last_offset(mode):
    w = sample((NUM, DIM), np.float32)
    inp, offs = bags(30, 10, seed=8)
    full = np.append(offs, inp.size)
    got = check(inp, w, full, mode=mode, include_last_offset=True)
    assert got.shape == (30, DIM)
    same(got, clgather.embedding_bag(inp, w, offs, mode=mode))
    # (B + 1 offsets whose last is below N: torch 1.13 reads the bags up to
    # it, and its max mode corrupts the heap; clgather_bag.h requires
    # offsets[B] == N, see test_bad_offsets.)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_2d_input(mode):
    w = sample((NUM, DIM), np.float32)
    inp = np.random.default_rng(9).integers(0, NUM, (17, 6))
    check(inp, w, mode=mode)
    check(inp.astype(np.int32), w, mode=mode, padding_idx=int(inp[0, 0]))
    # torch 1.13 with include_last_offset takes the rows' offsets with the
    # last as the end: 16 bags summed, mean dividing the last by 12 (the
    # entries to the end of input), max corrupting its heap: refused here.
    with pytest.raises(ValueError):
        clgather.embedding_bag(inp, w, mode=mode, include_last_offset=True)


def test_2d_per_sample_weights():
    w = sample((NUM, DIM), np.float32)
    inp = np.random.default_rng(10).integers(0, NUM, (9, 11))
    psw = np.random.default_rng(11).standard_normal(inp.shape).astype(
        np.float32)
    check(inp, w, mode="sum", per_sample_weights=psw)


def test_empty():
    w = sample((NUM, DIM), np.float32)
    for mode in ("sum", "mean", "max"):
        # No bag; bags with no entry (+0 in every mode).
        check(np.zeros(0, np.int64), w, np.zeros(0, np.int64), mode=mode)
        check(np.zeros(0, np.int64), w, np.zeros(4, np.int64), mode=mode)
        check(np.array([3, 4]), w, np.array([0, 0, 2, 2]), mode=mode)
    got = clgather.embedding_bag(np.zeros(0, np.int64), w,
                                 np.zeros(3, np.int64), mode="max")
    assert not np.signbit(got).any()   # +0, not -0


def test_float64():
    w = sample((NUM, DIM), np.float64)
    inp, offs = bags(30, 20, seed=12)
    for mode in ("sum", "mean", "max"):
        check(inp, w, offs, mode=mode)


# ------------------------------------------------- against torch, float16

@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_float16(mode):
    # Values near 1 in large bags: a sum rounded to float16 at each step
    # would differ from one computed in float32 and rounded once, so the
    # comparison tells the two rules apart (asserted below).
    rng = np.random.default_rng(13)
    w = (1 + rng.random((NUM, DIM))).astype(np.float16)
    inp, offs = bags(40, 60, seed=14)
    got = check(inp, w, offs, mode=mode)
    stepwise = np.zeros_like(got)
    for b in range(len(offs)):
        acc = np.zeros(DIM, np.float16)
        end = offs[b + 1] if b + 1 < len(offs) else inp.size
        for i in range(offs[b], end):
            acc = acc + w[inp[i]]
        if mode == "mean" and end > offs[b]:
            acc = acc / np.float16(end - offs[b])
        stepwise[b] = acc
    assert got.tobytes() != stepwise.tobytes(), "the data tells no rule apart"


def test_float16_padding_and_weights():
    rng = np.random.default_rng(15)
    w = (rng.standard_normal((NUM, DIM)) * 4).astype(np.float16)
    inp, offs = bags(30, 30, seed=16)
    check(inp, w, offs, mode="mean", padding_idx=3)
    psw = rng.standard_normal(inp.size).astype(np.float16)
    check(inp, w, offs, mode="sum", per_sample_weights=psw)


# ----------------------------------------- the segment form, numpy loop

def segment_ref(data, indices, segment_ids, mode, num_segments):
    """clgather_bag.h's definition, one entry at a time: sum from +0 in the
    dtype (float16: in float32, rounded once); mean / sqrt_n: that sum
    rounded to the dtype, divided by the count (its square root) in the
    sum's type; max: the first row, then the larger; empty: +0."""
    dt = data.dtype
    acc_t = np.float32 if dt == np.float16 else dt.type
    rows = data.reshape(data.shape[0], -1)
    out = np.zeros((num_segments, rows.shape[1]), dt)
    for s in range(num_segments):
        members = [int(indices[i]) for i in range(len(indices))
                   if segment_ids[i] == s]
        if not members:
            continue
        if mode == "max":
            acc = rows[members[0]].copy()
            for m in members[1:]:
                acc = np.maximum(acc, rows[m])
            out[s] = acc
            continue
        acc = np.zeros(rows.shape[1], acc_t)
        for m in members:
            acc = acc + rows[m].astype(acc_t)
        total = acc.astype(dt)
        n = acc_t(len(members))
        if mode == "mean":
            total = (total.astype(acc_t) / n).astype(dt)
        elif mode == "sqrt_n":
            total = (total.astype(acc_t) / np.sqrt(n)).astype(dt)
        out[s] = total
    return out.reshape((num_segments,) + data.shape[1:])


def segments(n, n_segments, seed, num=NUM, gaps=True):
    """(indices, segment_ids): n entries, sorted ids in [0, n_segments),
    some ids unused when gaps."""
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.integers(0, n_segments, n))
    if gaps:
        ids[ids == n_segments // 2] = n_segments // 2 + 1
    return rng.integers(0, num, n), ids


@pytest.mark.parametrize("mode", ["sum", "mean", "sqrt_n", "max"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_segments(mode, dtype):
    data = sample((NUM, DIM), dtype)
    idx, ids = segments(300, 25, seed=17)
    nseg = int(ids[-1]) + 1
    got = clgather.sparse_segment_reduce(data, idx, ids, mode=mode)
    same(got, segment_ref(data, idx, ids, mode, nseg))


def test_segments_default_mode_is_sum():
    data = sample((NUM, DIM), np.float32)
    idx, ids = segments(50, 7, seed=18)
    same(clgather.sparse_segment_reduce(data, idx, ids),
         segment_ref(data, idx, ids, "sum", int(ids[-1]) + 1))


@pytest.mark.parametrize("mode", ["sum", "mean", "sqrt_n"])
def test_segments_num_segments(mode):
    # num_segments beyond the last id: trailing empty segments are +0.
    data = sample((NUM, DIM), np.float32)
    idx, ids = segments(80, 9, seed=19)
    got = clgather.sparse_segment_reduce(data, idx, ids.astype(np.int32),
                                         mode=mode, num_segments=15)
    same(got, segment_ref(data, idx, ids, mode, 15))
    assert not got[int(ids[-1]) + 1:].any()
    assert not np.signbit(got[int(ids[-1]) + 1:]).any()


def test_segments_empty():
    data = sample((NUM, DIM), np.float32)
    none = np.zeros(0, np.int64)
    same(clgather.sparse_segment_reduce(data, none, none),
         np.zeros((0, DIM), np.float32))
    same(clgather.sparse_segment_reduce(data, none, none, mode="mean",
                                        num_segments=3),
         np.zeros((3, DIM), np.float32))
    out = np.full((0, DIM), 7.0, np.float32)   # numpy's strides: (0, 0)
    assert clgather.sparse_segment_reduce(data, none, none, out=out) is out
    # Segment 0 empty, the first id 2.
    idx, ids = np.array([4, 5, 6]), np.array([2, 2, 3])
    same(clgather.sparse_segment_reduce(data, idx, ids, mode="mean"),
         segment_ref(data, idx, ids, "mean", 4))


def test_segments_rank():
    # data of rank 1 and 3: rows are data[i, ...].
    for shape in ((NUM,), (NUM, 3, 5)):
        data = sample(shape, np.float32)
        idx, ids = segments(60, 6, seed=20)
        got = clgather.sparse_segment_reduce(data, idx, ids, mode="sqrt_n")
        assert got.shape == (int(ids[-1]) + 1,) + shape[1:]
        same(got, segment_ref(data, idx, ids, "sqrt_n", int(ids[-1]) + 1))


def test_segments_max_nan_and_zeros():
    # IEEE 754-2019 maximum: NaN on either side gives NaN; +0 above -0.
    data = np.array([[-0.0, 1.0], [0.0, np.nan], [-1.0, 2.0]], np.float32)
    got = clgather.sparse_segment_reduce(data, [0, 1, 2, 2, 0], [0, 0, 1,
                                                                 2, 2],
                                         mode="max")
    want = np.array([[0.0, 0.0], [-1.0, 2.0], [-0.0, 2.0]], np.float32)
    assert np.isnan(got[0, 1])   # (a NaN, whatever its payload)
    got[0, 1] = 0.0
    same(got, want)


# ------------------------------------------------------------- errors

def fails(cls, call, *untouched):
    """call() raises exactly cls and leaves `untouched` as they were."""
    before = [np.array(u, copy=True) for u in untouched]
    with pytest.raises(cls) as info:
        call()
    assert type(info.value) is cls, type(info.value)
    for u, b in zip(untouched, before):
        assert u.tobytes() == b.tobytes(), "an output was written"
    return info.value


W = sample((NUM, DIM), np.float32)


@pytest.mark.parametrize("bad", [NUM, NUM + 100, -1, -NUM])
def test_index_out_of_bounds(bad):
    out = np.full((3, DIM), 7.0, np.float32)
    inp = np.array([1, 2, 3, bad, 5])
    e = fails(IndexError, lambda: clgather.embedding_bag(
        inp, W, [0, 2, 4], mode="sum", out=out), out)
    assert e.status == 12
    assert str(bad) in str(e), str(e)
    fails(IndexError, lambda: clgather.embedding_bag(
        inp.reshape(1, 5), W, mode="max", out=out[:1]), out)
    seg_out = np.full((2, DIM), 7.0, np.float32)
    fails(IndexError, lambda: clgather.sparse_segment_reduce(
        W, inp, [0, 0, 1, 1, 1], out=seg_out), seg_out)


@pytest.mark.parametrize("offsets,last", [
    ([1, 2, 4], False),      # offsets[0] != 0
    ([0, 3, 2], False),      # decreasing
    ([0, 2, 6], False),      # above N
    ([0, 2, 4], True),       # include_last_offset: the last is not N
    ([0, 2, 6, 5], True),    # (torch 1.13 takes [0, 2, 4], True: its
])                           # bags end at the last offset)
def test_bad_offsets(offsets, last):
    out = np.full((len(offsets) - last, DIM), 7.0, np.float32)
    e = fails(ValueError, lambda: clgather.embedding_bag(
        [1, 2, 3, 4, 5], W, offsets, include_last_offset=last, out=out),
        out)
    assert e.status == 21 and e.status_name == "invalid bags"


@pytest.mark.parametrize("ids,nseg,rows", [
    ([0, 1, 0], None, 1),    # decreasing
    ([0, 1, 3], 3, 3),       # beyond num_segments
    ([-1, 0, 0], 2, 2),      # negative
    ([-2, -1, -1], None, 0),  # negative, default num_segments 0
])
def test_bad_segment_ids(ids, nseg, rows):
    out = np.full((rows, DIM), 7.0, np.float32)
    e = fails(ValueError, lambda: clgather.sparse_segment_reduce(
        W, [1, 2, 3], ids, num_segments=nseg, out=out), out)
    assert e.status == 21


def test_argument_errors():
    inp, offs = np.array([1, 2, 3]), np.array([0, 1])
    out = np.full((2, DIM), 7.0, np.float32)
    v = ValueError
    fails(v, lambda: clgather.embedding_bag(inp, W, offs, mode="median"))
    fails(v, lambda: clgather.embedding_bag(inp, W))          # no offsets
    fails(v, lambda: clgather.embedding_bag(inp.reshape(1, 3), W, offs))
    fails(v, lambda: clgather.embedding_bag(inp.reshape(1, 1, 3), W))
    fails(v, lambda: clgather.embedding_bag(inp, W[0], offs))
    fails(v, lambda: clgather.embedding_bag(inp, W, offs.reshape(1, 2)))
    fails(v, lambda: clgather.embedding_bag(inp, W, [],
                                            include_last_offset=True))
    fails(v, lambda: clgather.embedding_bag(
        np.zeros((0, 3), np.int64), W, include_last_offset=True))
    fails(v, lambda: clgather.embedding_bag(
        inp, W, offs, mode="sum", per_sample_weights=np.ones(2)), out)
    fails(v, lambda: clgather.embedding_bag(inp, W, offs, out=out[:1]))
    fails(TypeError, lambda: clgather.embedding_bag(
        inp, W, offs, out=out.astype(np.float64)))
    fails(TypeError, lambda: clgather.embedding_bag(inp.astype(float), W,
                                                    offs))
    fails(TypeError, lambda: clgather.embedding_bag(inp, W,
                                                    offs.astype(np.int16)))
    fails(TypeError, lambda: clgather.embedding_bag(
        inp, W, offs, per_sample_weights=np.ones(3, np.complex64)))
    fails(v, lambda: clgather.sparse_segment_reduce(W, inp, [0, 0]))
    fails(v, lambda: clgather.sparse_segment_reduce(W, inp, [0, 0, 1],
                                                    num_segments=-1))
    fails(v, lambda: clgather.sparse_segment_reduce(W, inp, [0, 0, 1],
                                                    mode="prod"))
    fails(v, lambda: clgather.sparse_segment_reduce(np.float32(1), inp,
                                                    [0, 0, 1]))


def test_library_argument_errors():
    # Checked by the library (clg_embedding_bag), out untouched.
    inp, offs = np.array([1, 2, 3]), np.array([0, 1])
    out = np.full((2, DIM), 7.0, np.float32)
    psw = np.ones(3, np.float32)
    fails(ValueError, lambda: clgather.embedding_bag(
        inp, W, offs, mode="mean", per_sample_weights=psw, out=out), out)
    for pad in (NUM, -NUM - 1):
        fails(ValueError, lambda: clgather.embedding_bag(
            inp, W, offs, padding_idx=pad, out=out), out)
    fails(TypeError, lambda: clgather.embedding_bag(
        inp, W.astype(np.int32), offs))


# --------------------------------------------------- numpy operands

def test_numpy_views_and_out():
    # Views are read with their strides; a non-contiguous out is written
    # in place, its gaps kept.
    big = sample((NUM, 2 * DIM), np.float32)
    w = big[:, ::2]
    inp, offs = bags(20, 8, seed=21)
    want = torch_bag(inp, w, offs, mode="mean")
    inp2 = np.repeat(inp, 2)[::2]
    same(clgather.embedding_bag(inp2, w, offs), want)
    host = np.full((20, 2 * DIM), 9.0, np.float32)
    out = host[:, 1::2]
    assert clgather.embedding_bag(inp, w, offs, out=out) is out
    same(out.copy(), want)
    assert (host[:, ::2] == 9.0).all()
    # A C-contiguous out is written in place and returned.
    out = np.empty((20, DIM), np.float32)
    assert clgather.embedding_bag(inp, w, offs, out=out) is out
    same(out, want)


def test_lists_and_cast_weights():
    inp, offs = bags(10, 6, seed=22)
    psw = np.random.default_rng(23).standard_normal(inp.size)
    want = torch_bag(inp, W, offs, mode="sum",
                     per_sample_weights=psw.astype(np.float32))
    same(clgather.embedding_bag(inp.tolist(), W, offs.tolist(), mode="sum",
                                per_sample_weights=psw.tolist()), want)


def test_outcome_numpy():
    inp, offs = bags(10, 6, seed=24)
    oc = clgather.Outcome()
    got = clgather.embedding_bag(inp, W, offs, outcome=oc)
    oc.wait()
    same(got, torch_bag(inp, W, offs))

"""gather_block_quantized against a numpy reference written here, on the
unpacked values: every kind (uint8 with bits 8 and ONNX Runtime's packed
4-bit rows, uint4 and int4 given one value a byte), float32 and float16
scales, with and without zero points, negative indices, other axes,
pyopencl operands; errors raise before anything is written (`out`
unchanged)."""

import numpy as np
import pyopencl.array as cla
import pytest

import clgather


def reference(q, idx, scale, zp, ga, qa, block, default_zp):
    """q: the values (int) in V; scale, zp: one per block (scales' shape).
    (q - zp) as float32 times the scale, float16 scales: the float32
    product then rounded to float16."""
    zp_full = (np.full(scale.shape, default_zp, np.int32) if zp is None
               else zp.astype(np.int32))
    # each value's block along qa: repeat and cut to V[qa]
    rep = lambda a: np.repeat(a, block, axis=qa).take(  # noqa: E731
        np.arange(q.shape[qa]), axis=qa)
    prod = ((q.astype(np.int32) - rep(zp_full)).astype(np.float32)
            * rep(scale).astype(np.float32))
    return np.take(prod.astype(scale.dtype), idx, axis=ga)


def same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, \
        (got.dtype, got.shape, want.dtype, want.shape)
    assert got.tobytes() == want.tobytes()


def pack_rows(v):
    """ONNX Runtime's uint8 4-bit rows: two values a byte per row of the
    last axis, the even one in the low nibble."""
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), v.dtype)], -1)
    v = v.astype(np.uint8)
    return np.ascontiguousarray(v[..., 0::2] | (v[..., 1::2] << 4))


def scales(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    # 11 significant bits, some negative: float16 exact, products round
    m = 1 + rng.integers(0, 1024, shape) / 1024
    s = np.where(rng.integers(0, 2, shape) == 1, -m / 8, m / 4)
    return s.astype(dtype)


def nblocks(n, block):
    return -(-n // block)


@pytest.mark.parametrize("sdt", [np.float32, np.float16])
@pytest.mark.parametrize("with_zp", [False, True])
@pytest.mark.parametrize("bits", [8, 4])
def test_uint8(sdt, with_zp, bits):
    rng = np.random.default_rng(bits + 10 * with_zp)
    rows, n, block = 6, 70, 16
    q = rng.integers(0, 1 << bits, (rows, n))
    s = scales((rows, nblocks(n, block)), sdt, 3)
    zp = rng.integers(0, 1 << bits, s.shape) if with_zp else None
    idx = np.array([[5, -1, 0], [-6, 2, 2]], np.int64)
    want = reference(q, idx, s, zp, 0, 1, block, 1 << (bits - 1))
    data = q.astype(np.uint8) if bits == 8 else pack_rows(q)
    zpf = None if zp is None else (zp.astype(np.uint8) if bits == 8
                                   else pack_rows(zp))
    got = clgather.gather_block_quantized(data, idx, s, zpf, bits=bits,
                                          block_size=block)
    same(got, want)
    # int32 indices, quantize_axis given as -1, out=
    out = np.empty_like(want)
    assert clgather.gather_block_quantized(
        data, idx.astype(np.int32), s, zpf, bits=bits, block_size=block,
        quantize_axis=-1, out=out) is out
    same(out, want)


def test_defaults():
    """bits 4, block 128, uint8, gather axis 0, quantize axis 1, zero
    point 8."""
    rng = np.random.default_rng(5)
    q = rng.integers(0, 16, (4, 300))
    s = scales((4, 3), np.float32, 6)
    idx = [3, 0, -2]
    same(clgather.gather_block_quantized(pack_rows(q), idx, s),
         reference(q, np.array(idx), s, None, 0, 1, 128, 8))


@pytest.mark.parametrize("kind", ["uint4", "int4"])
@pytest.mark.parametrize("sdt", [np.float32, np.float16])
@pytest.mark.parametrize("with_zp", [False, True])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 2), (-2, -3)])
def test_four_bit(kind, sdt, with_zp, axes):
    rng = np.random.default_rng([len(kind), with_zp, axes[0] + 3,
                                 axes[1] + 3])
    lo, hi, vdt = (-8, 8, np.int8) if kind == "int4" else (0, 16, np.uint8)
    v = (33, 3, 5)  # odd element count: rows share bytes
    ga, qa = axes
    block = 16
    q = rng.integers(lo, hi, v)
    ss = list(v)
    ss[qa] = nblocks(v[qa], block)
    s = scales(tuple(ss), sdt, 7)
    zp = rng.integers(lo, hi, s.shape) if with_zp else None
    idx = np.array([-1, 0, 2, 1, -3], np.int64)
    want = reference(q, idx, s, zp, ga, qa, block, 0)
    got = clgather.gather_block_quantized(
        q.astype(vdt), idx, s, None if zp is None else zp.astype(vdt),
        kind=kind, bits=4, gather_axis=ga, quantize_axis=qa,
        block_size=block)
    same(got, want)


def test_pyopencl(cl_queue):
    rng = np.random.default_rng(9)
    q = rng.integers(-8, 8, (40, 36))
    s = scales((40, 3), np.float16, 10)
    zp = rng.integers(-8, 8, s.shape)
    idx = np.array([39, -40, 7, 7], np.int32)
    want = reference(q, idx, s, zp, 0, 1, 16, 0)
    dev = lambda a: cla.to_device(cl_queue, np.ascontiguousarray(a))  # noqa
    args = [dev(q.astype(np.int8)), dev(idx), dev(s), dev(zp.astype(np.int8))]
    got = clgather.gather_block_quantized(*args, kind="int4",
                                          block_size=16)
    assert isinstance(got, cla.Array) and got.events
    same(got.get(), want)
    out = cla.empty(cl_queue, want.shape, np.float16)
    assert clgather.gather_block_quantized(*args, kind="int4",
                                           block_size=16, out=out) is out
    same(out.get(), want)
    # uint8 rows on the device: passed in place
    q8 = rng.integers(0, 256, (40, 36))
    s8 = scales((40, 3), np.float32, 11)
    want = reference(q8, idx, s8, None, 0, 1, 16, 128)
    got = clgather.gather_block_quantized(
        dev(q8.astype(np.uint8)), dev(idx), dev(s8), bits=8, block_size=16)
    same(got.get(), want)
    # an out-of-range pyopencl index: IndexError, out untouched
    out = cla.to_device(cl_queue, np.full((2, 36), 7, np.float32))
    with pytest.raises(IndexError, match="40"):
        clgather.gather_block_quantized(
            dev(q8.astype(np.uint8)), dev(np.array([0, 40], np.int32)),
            dev(s8), bits=8, block_size=16, out=out)
    assert (out.get() == 7).all()


def test_errors_leave_out_unchanged():
    rng = np.random.default_rng(12)
    q = rng.integers(0, 16, (4, 32))
    data = q.astype(np.uint8)
    s = scales((4, 2), np.float32, 13)
    out = np.full((3, 32), 5.0, np.float32)
    keep = out.copy()

    def call(idx=(0, 1, 2), **kw):
        args = dict(kind="uint4", block_size=16, out=out)
        args.update(kw)
        return clgather.gather_block_quantized(
            args.pop("data", data), np.array(idx), args.pop("scales", s),
            **args)

    with pytest.raises(IndexError) as e:
        call(idx=(0, 4, 1))
    assert "4" in str(e.value) and "[1]" in str(e.value), str(e.value)
    with pytest.raises(IndexError):
        call(idx=(0, -5, 1))
    with pytest.raises(ValueError, match="outside"):
        bad = data.copy()
        bad[2, 3] = 16
        call(data=bad)
    with pytest.raises(TypeError):
        call(data=data.astype(np.int8))   # uint4 wants uint8
    with pytest.raises(ValueError):
        call(block_size=24)               # not a power of two
    with pytest.raises(ValueError):
        call(bits=8)                      # 8 bits: uint8 only
    with pytest.raises(ValueError):
        call(kind="int2")
    with pytest.raises(clgather.AxisError):
        call(gather_axis=2)
    with pytest.raises(ValueError):
        call(scales=s[:, :1])             # scales' shape
    with pytest.raises(TypeError):
        call(scales=s.astype(np.float64))
    with pytest.raises(clgather.AxisError):  # uint8: gather axis 0 only
        clgather.gather_block_quantized(data, [0], s, bits=8, gather_axis=1,
                                        block_size=16)
    np.testing.assert_array_equal(out, keep)
    # and a success writes it
    call()
    assert not np.array_equal(out, keep)

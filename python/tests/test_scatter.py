"""clgather.scatter_elements and clgather.scatter_nd against references,
byte for byte: reduction none against a plain loop in the C order of the
indices (the later entry wins) and numpy.put_along_axis / fancy assignment
where the targets are distinct; add, mul, min, max against a plain loop
that applies the updates one at a time in the C order of the indices, each
step written out as the library's contract states it (include/clgather/
clgather.h): one rounding per operation in the element type, the complex
product as (ac - bd) + (ad + bc)i with four rounded products and two
rounded sums, min/max with NaN first and -0 below +0. Not numpy's ufunc.at:
its loops depend on the CPU (numpy 1.24's multiply.at on complex128 uses
fused multiply-adds on AVX-512 machines and differs in the last bit), and
its minimum/maximum treat +0 and -0 differently per type. Repeated targets
(an error, or the later wins), negative indices, out= (in place too), the
data left alone, out-of-bounds indices."""

import numpy as np
import pytest

import clgather
from conftest import DTYPE_IDS, DTYPES, sample, same

REAL = [d for d in DTYPES if np.dtype(d).kind != "c"]
REAL_IDS = [np.dtype(d).name for d in REAL]


# ------------------------------------------------------------ references

def _one(a, k):
    """Element k of the flat array a as a 1-element array view: numpy's
    array ufuncs wrap integers silently (its scalars warn) and round each
    call's result in the array's dtype, so one call is one rounded step."""
    return a[k:k + 1]


def reduce_step(reduction, out, k, upd, i):
    """out[k] = out[k] <reduction> upd[i], on flat arrays of one dtype, one
    step of the library's contract, spelled out so that no CPU can fuse or
    reorder it:
    - float16: computed in float32, rounded to float16 (nearest even);
    - float32 / float64: one correctly rounded operation;
    - complex: add per component; mul (ac - bd) + (ad + bc)i, each of the
      four products and the two sums rounded in the component type, no
      fused multiply-add;
    - min / max: a NaN element stays, else a NaN update is taken; -0 is
      below +0 (IEEE 754-2019 minimum / maximum), whatever the float type;
    - integers wrap; bool: add / max or, mul / min and."""
    dt = out.dtype
    if dt.kind == "c":
        o = out.view(dt.type(0).real.dtype).reshape(-1, 2)
        u = upd.view(o.dtype).reshape(-1, 2)
        a, b = o[k, 0:1].copy(), o[k, 1:2].copy()
        c, d = u[i, 0:1], u[i, 1:2]
        if reduction == "add":
            re, im = np.add(a, c), np.add(b, d)
        elif reduction == "mul":
            ac, bd = np.multiply(a, c), np.multiply(b, d)
            ad, bc = np.multiply(a, d), np.multiply(b, c)
            re, im = np.subtract(ac, bd), np.add(ad, bc)
        else:
            raise ValueError("min and max are not defined on complex")
        o[k, 0:1], o[k, 1:2] = re, im
        return
    x, y = _one(out, k), _one(upd, i)
    if dt.kind == "b":
        op = np.logical_or if reduction in ("add", "max") else np.logical_and
        op(x, y, out=x)
    elif dt.kind in "iu":
        {"add": np.add, "mul": np.multiply, "min": np.minimum,
         "max": np.maximum}[reduction](x, y, out=x)
    elif reduction in ("add", "mul"):
        op = np.add if reduction == "add" else np.multiply
        if dt == np.float16:
            z = op(x.astype(np.float32), y.astype(np.float32))
            x[:] = z.astype(np.float16)
        else:
            op(x, y, out=x)
    else:
        a, b = float(x[0]), float(y[0])
        if np.isnan(a):
            return
        if np.isnan(b):
            x[:] = y
            return
        if a == b:  # equal: only +0 and -0 can differ in their bits
            keep = np.signbit(a) if reduction == "min" else not np.signbit(a)
        else:
            keep = a < b if reduction == "min" else a > b
        if not keep:
            x[:] = y


def apply_sequentially(out, flat_targets, updates, reduction):
    """Applies updates (flat, C order) to the elements flat_targets of out
    one at a time, in order."""
    o = out.reshape(-1)  # a view: out is C-contiguous
    u = np.ascontiguousarray(updates).reshape(-1)
    for i, k in enumerate(np.asarray(flat_targets).reshape(-1)):
        reduce_step(reduction, o, int(k), u, i)


def elements_targets(indices, axis):
    """The target of every entry of `indices` (ScatterElements): its own
    position with component `axis` replaced by the index value, as index
    arrays of indices' shape (a fancy index)."""
    grid = list(np.indices(indices.shape, dtype=np.int64))
    grid[axis] = np.asarray(indices, dtype=np.int64)
    return tuple(grid)


def scatter_elements_ref(data, indices, updates, axis=0, reduction="none"):
    out = np.array(data, copy=True, order="C")  # viewed flat below
    t = elements_targets(indices, axis % out.ndim)
    if reduction == "none":  # one entry at a time, C order: the later wins
        for pos in np.ndindex(*np.shape(indices)):
            out[tuple(a[pos] for a in t)] = updates[pos]
    else:
        flat = np.ravel_multi_index(t, out.shape, mode="wrap")
        apply_sequentially(out, flat, np.asarray(updates, out.dtype),
                           reduction)
    return out


def scatter_nd_ref(data, indices, updates, reduction="none"):
    out = np.array(data, copy=True, order="C")  # viewed flat below
    indices = np.asarray(indices, dtype=np.int64)
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    upd = np.asarray(updates).reshape((-1,) + out.shape[k:])
    if reduction == "none":
        for i in range(flat.shape[0]):
            out[tuple(flat[i])] = upd[i]
    else:
        inner = int(np.prod(out.shape[k:], dtype=np.int64))
        rows = np.ravel_multi_index(tuple(flat.T), out.shape[:k], mode="wrap")
        # Tuple i's slice: elements rows[i] * inner + j, j < inner, with the
        # updates upd[i] in the same order.
        targets = rows[:, None] * inner + np.arange(inner)[None, :]
        apply_sequentially(out, targets, np.asarray(upd, out.dtype),
                           reduction)
    return out


# ----------------------------------------------------------- generators

def values(shape, dtype, seed, reduction="none"):
    """Updates or data: small factors for mul (no overflow to inf, whose
    products with 0 would give NaNs), the conftest's sample otherwise."""
    dt = np.dtype(dtype)
    if reduction == "mul" and dt.kind in "fc":
        rng = np.random.default_rng(seed)
        v = rng.uniform(0.5, 2.0, shape)
        if dt.kind == "c":
            v = v + 1j * rng.uniform(-1.0, 1.0, shape)
        return v.astype(dt)
    return sample(shape, dt, seed)


def distinct_along(shape, n, axis, rng, negative=True):
    """ScatterElements indices of `shape`, no two with one target: each
    1-d slice along `axis` is the start of a permutation of range(n);
    about half of the values are given as their negative twin (k - n)."""
    keys = rng.random(shape[:axis] + (n,) + shape[axis + 1:])
    idx = np.argsort(keys, axis=axis)
    idx = np.take(idx, np.arange(shape[axis]), axis=axis)
    # Off the axis, indices may be shorter than data (ONNX): cut there.
    idx = idx[tuple(slice(0, s) for s in shape)]
    if negative:
        idx = np.where(rng.random(idx.shape) < 0.5, idx - n, idx)
    return idx


def repeating(shape, n, rng):
    """Indices in [-n, n-1] that repeat (many entries per target)."""
    return rng.integers(-n, n, shape)


def distinct_tuples(count, dims, rng):
    """`count` ScatterND index tuples into dims, no two with one target;
    about half of the components negative."""
    flat = rng.choice(int(np.prod(dims)), size=count, replace=False)
    t = np.stack(np.unravel_index(flat, dims), axis=-1).astype(np.int64)
    return np.where(rng.random(t.shape) < 0.5, t - np.array(dims), t)


# ------------------------------------------------------ scatter_elements

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_elements_none_dtypes(dtype):
    rng = np.random.default_rng(1)
    data = sample((4, 5, 3), dtype, seed=2)
    before = data.copy()
    for axis in (0, 1, 2, -1, -3):
        ax = axis % 3
        shape = list(data.shape)
        shape[ax] = data.shape[ax] - 1
        idx = distinct_along(tuple(shape), data.shape[ax], ax, rng)
        upd = sample(idx.shape, dtype, seed=ax + 5)
        got = clgather.scatter_elements(data, idx, upd, axis=axis)
        same(got, scatter_elements_ref(data, idx, upd, axis))
    same(data, before)  # no out: the data is left as it was


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_elements_none_against_put_along_axis(itype):
    rng = np.random.default_rng(3)
    data = sample((5, 6), np.float32, seed=3)
    for axis in (0, 1, -1):
        idx = distinct_along(data.shape, data.shape[axis], axis % 2, rng)
        idx = idx.astype(itype)
        upd = sample(idx.shape, np.float32, seed=4)
        want = data.copy()
        np.put_along_axis(want, idx, upd, axis)
        same(clgather.scatter_elements(data, idx, upd, axis=axis), want)


def test_elements_indices_shorter_than_data():
    # ONNX: off the axis, indices (and updates) may be smaller than data.
    rng = np.random.default_rng(5)
    data = sample((5, 6, 4), np.int32)
    idx = distinct_along((3, 2, 4), 6, 1, rng)
    upd = sample(idx.shape, np.int32, seed=6)
    same(clgather.scatter_elements(data, idx, upd, axis=1),
         scatter_elements_ref(data, idx, upd, 1))
    for red in ("add", "max"):
        idx = repeating((2, 7, 3), 6, rng)
        upd = sample(idx.shape, np.int32, seed=7)
        same(clgather.scatter_elements(data, idx, upd, axis=1,
                                       reduction=red),
             scatter_elements_ref(data, idx, upd, 1, red))


@pytest.mark.parametrize("reduction", ["add", "mul", "min", "max"])
@pytest.mark.parametrize("dtype", REAL, ids=REAL_IDS)
def test_elements_reductions(dtype, reduction):
    rng = np.random.default_rng(7)
    data = values((4, 6), dtype, 8, reduction)
    for axis in (0, 1, -1):
        n = data.shape[axis]
        shape = (9, 6) if axis % 2 == 0 else (4, 11)  # repeats guaranteed
        idx = repeating(shape, n, rng)
        upd = values(shape, dtype, 9 + axis, reduction)
        got = clgather.scatter_elements(data, idx, upd, axis=axis,
                                        reduction=reduction)
        same(got, scatter_elements_ref(data, idx, upd, axis, reduction))


@pytest.mark.parametrize("reduction", ["add", "mul"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_elements_complex_add_mul(dtype, reduction):
    rng = np.random.default_rng(10)
    data = values((3, 5), dtype, 11, reduction)
    idx = repeating((3, 12), 5, rng)
    upd = values(idx.shape, dtype, 12, reduction)
    same(clgather.scatter_elements(data, idx, upd, axis=1,
                                   reduction=reduction),
         scatter_elements_ref(data, idx, upd, 1, reduction))


@pytest.mark.parametrize("reduction", ["min", "max"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_elements_complex_min_max_is_type_error(dtype, reduction):
    data = sample((4,), dtype)
    before = data.copy()
    out = np.zeros_like(data)
    with pytest.raises(TypeError, match="not defined on complex"):
        clgather.scatter_elements(data, [1, 2], data[:2], reduction=reduction,
                                  out=out)
    same(data, before)
    same(out, np.zeros_like(data))


@pytest.mark.parametrize("reduction", ["min", "max"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_elements_min_max_nan(dtype, reduction):
    # NaN in the data or in an update wins, as numpy.minimum/maximum.
    data = np.array([1.0, np.nan, 3.0, -2.0, 5.0], dtype)
    idx = np.array([0, 1, 2, 0, 3, 2, 4, 4])
    upd = np.array([np.nan, 7.0, -1.0, 2.0, -9.0, 8.0, 6.0, -6.0], dtype)
    got = clgather.scatter_elements(data, idx, upd, reduction=reduction)
    same(got, scatter_elements_ref(data, idx, upd, 0, reduction))
    assert np.isnan(got[:2]).all()


@pytest.mark.parametrize("reduction", ["min", "max"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_elements_min_max_zeros(dtype, reduction):
    # Between +0 and -0 min takes -0 and max +0, whichever is the element
    # and whichever the update, in every float type (IEEE 754-2019
    # minimum / maximum; numpy 1.24's loops differ by type and order).
    data = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -0.0], dtype)
    idx = np.array([0, 1, 2, 3, 4, 5, 5])
    upd = np.array([-0.0, 0.0, 0.0, -0.0, -0.0, 0.0, -0.0], dtype)
    got = clgather.scatter_elements(data, idx, upd, reduction=reduction)
    if reduction == "min":
        want = np.array([-0.0, -0.0, 0.0, -0.0, -0.0, -0.0], dtype)
    else:
        want = np.array([0.0, 0.0, 0.0, -0.0, 1.0, 0.0], dtype)
    same(got, want)
    same(got, scatter_elements_ref(data, idx, upd, 0, reduction))


def test_complex_mul_reference_is_the_plain_product():
    # The reference's complex step is (ac - bd) + (ad + bc)i with every
    # product and sum rounded: checked here against exact rational
    # arithmetic rounded once per operation, on values whose fused and
    # unfused products differ (so a fusing reference would fail).
    from fractions import Fraction as F
    rng = np.random.default_rng(40)
    for dtype, comp in ((np.complex128, np.float64),
                        (np.complex64, np.float32)):
        x = (rng.uniform(0.5, 2, 200)
             + 1j * rng.uniform(-1, 1, 200)).astype(dtype)
        y = (rng.uniform(0.5, 2, 200)
             + 1j * rng.uniform(-1, 1, 200)).astype(dtype)
        fused = 0
        for i in range(200):
            a, b = float(x[i].real), float(x[i].imag)
            c, d = float(y[i].real), float(y[i].imag)

            def r(q):
                # float(Fraction) is q rounded to the nearest double; a
                # float32 result rounds that double again, which is
                # innocuous for one +, - or * of float32 operands (53 >=
                # 2 * 24 + 2).
                return float(comp(float(q)))
            ac, bd = r(F(a) * F(c)), r(F(b) * F(d))
            ad, bc = r(F(a) * F(d)), r(F(b) * F(c))
            want = np.array([r(F(ac) - F(bd)), r(F(ad) + F(bc))], comp)
            fre = r(F(a) * F(c) - F(bd))  # a*c - bd with one rounding
            fused += fre != want[0]
            out = x[i:i + 1].copy()
            reduce_step("mul", out, 0, y, i)
            assert out.view(comp).tobytes() == want.tobytes(), (i, dtype)
        assert fused > 0  # the values tell fused from plain apart


def test_elements_integer_wrap_and_bool():
    # add and mul wrap in the element type; bool: add/max or, mul/min and.
    for dtype in (np.int8, np.uint8, np.int64, np.uint64):
        info = np.iinfo(dtype)
        data = np.array([info.max, info.min, 3], dtype)
        idx = np.array([0, 0, 1, 2, 2, 2])
        upd = np.array([info.max, 2, info.max, info.max, 3, 5], dtype)
        for red in ("add", "mul"):
            same(clgather.scatter_elements(data, idx, upd, reduction=red),
                 scatter_elements_ref(data, idx, upd, 0, red))
    data = np.array([False, True, False, True])
    idx = np.array([0, 0, 1, 2, 3, 3])
    upd = np.array([False, True, False, False, True, False])
    for red in ("add", "mul", "min", "max"):
        same(clgather.scatter_elements(data, idx, upd, reduction=red),
             scatter_elements_ref(data, idx, upd, 0, red))


def test_elements_duplicates_error():
    data = sample((3, 5), np.float64)
    before = data.copy()
    out = np.full_like(data, 7.0)
    idx = np.array([[4, 0, 2], [1, 3, 1]])  # row 1: targets [1, 1] twice
    upd = sample(idx.shape, np.float64, seed=1)
    with pytest.raises(ValueError) as info:
        clgather.scatter_elements(data, idx, upd, axis=1, out=out)
    msg = str(info.value)
    assert info.value.status_name == "duplicate index"
    assert "duplicate index" in msg
    assert "position [1, 0]" in msg and "position [1, 2]" in msg, msg
    assert "[1, 1]" in msg, msg  # the output element both write
    same(data, before)
    same(out, np.full_like(data, 7.0))
    # A negative index and its positive twin are one target.
    with pytest.raises(ValueError, match="duplicate index") as info:
        clgather.scatter_elements(data, [[1, -4]], [[1.0, 2.0]], axis=1)
    assert "position [0, 0]" in str(info.value)
    assert "position [0, 1]" in str(info.value)
    # In place: the data is untouched.
    with pytest.raises(ValueError, match="duplicate index"):
        clgather.scatter_elements(data, idx, upd, axis=1, out=data)
    same(data, before)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.bool_])
def test_elements_duplicates_last(dtype):
    rng = np.random.default_rng(12)
    data = sample((6, 4), dtype, seed=13)
    idx = repeating((15, 4), 6, rng)
    upd = sample(idx.shape, dtype, seed=14)
    got = clgather.scatter_elements(data, idx, upd, duplicates="last")
    same(got, scatter_elements_ref(data, idx, upd, 0))
    # The later entry wins, spelled out: 7 then 9 then 8 on element 2.
    same(clgather.scatter_elements(np.zeros(4, np.int32), [2, -2, 0, 2],
                                   np.array([7, 9, 5, 8], np.int32),
                                   duplicates="last"),
         np.array([5, 0, 8, 0], np.int32))


def test_elements_duplicates_with_reduction_are_reduced():
    # duplicates= speaks of reduction none only: with a reduction repeats
    # are reduced, whatever it says.
    idx = np.array([1, 1, -3])
    upd = np.array([2.5, 4.0, 0.5])
    for dup in ("error", "last"):
        same(clgather.scatter_elements(np.zeros(3), idx, upd,
                                       reduction="add", duplicates=dup),
             np.array([0.5, 6.5, 0.0]))  # -3 is element 0


def test_elements_out_and_in_place():
    rng = np.random.default_rng(15)
    data = sample((5, 4), np.float32, seed=16)
    before = data.copy()
    idx = repeating((8, 4), 5, rng)
    upd = sample(idx.shape, np.float32, seed=17)
    want = scatter_elements_ref(data, idx, upd, 0, "add")
    # A separate out: returned, written; data untouched.
    out = np.full_like(data, -1.0)
    assert clgather.scatter_elements(data, idx, upd, reduction="add",
                                     out=out) is out
    same(out, want)
    same(data, before)
    # A strided out (written through a temporary).
    big = np.full((5, 8), 3.0, np.float32)
    view = big[:, ::2]
    assert clgather.scatter_elements(data, idx, upd, reduction="add",
                                     out=view) is view
    same(view, want)
    same(big[:, 1::2], np.full((5, 4), 3.0, np.float32))
    # In place: out is data itself.
    work = data.copy()
    assert clgather.scatter_elements(work, idx, upd, reduction="add",
                                     out=work) is work
    same(work, want)
    # In place where the updates overlap the data: numpy semantics (the
    # updates as they were before the call).
    work = np.arange(8, dtype=np.float64)
    want = np.arange(8, dtype=np.float64)
    want[[7, 6, 5]] = want[0:3].copy()
    clgather.scatter_elements(work, [7, 6, 5], work[0:3], out=work)
    same(work, want)


def test_elements_updates_cast_and_lists():
    # Host updates are cast to data's dtype ('same_kind'), as an
    # assignment does for these values.
    data = sample((4,), np.float32)
    want = data.copy()
    want[[2, 0]] = [0.1, -2.5]
    same(clgather.scatter_elements(data, [2, 0], [0.1, -2.5]), want)
    same(clgather.scatter_elements([1, 2, 3], [0, -1], [7, 9]),
         np.array([7, 2, 9]))
    # No entries: a copy of the data.
    same(clgather.scatter_elements(data, np.zeros(0, np.int64),
                                   np.zeros(0, np.float32)), data)


def test_elements_out_of_bounds():
    data = sample((3, 4), np.int16)
    before = data.copy()
    out = np.zeros_like(data)
    for bad in (4, -5):
        idx = np.array([[0, 1], [2, bad], [3, 3]])
        with pytest.raises(IndexError) as info:
            clgather.scatter_elements(data, idx, np.ones((3, 2), np.int16),
                                      axis=1, reduction="add", out=out)
        msg = str(info.value)
        assert "index out of bounds" in msg
        assert "position [1, 1]" in msg and "= %d" % bad in msg, msg
        assert "valid range is [-4, 3]" in msg, msg
        same(out, np.zeros_like(data))
        with pytest.raises(IndexError):  # in place
            clgather.scatter_elements(data, idx, np.ones((3, 2), np.int16),
                                      axis=1, out=data)
        same(data, before)


# ------------------------------------------------------------ scatter_nd

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nd_none_dtypes(dtype):
    rng = np.random.default_rng(20)
    data = sample((4, 3, 5), dtype, seed=21)
    before = data.copy()
    for k, count in ((1, 3), (2, 7), (3, 20)):
        idx = distinct_tuples(count, data.shape[:k], rng)
        upd = sample((count,) + data.shape[k:], dtype, seed=22 + k)
        got = clgather.scatter_nd(data, idx, upd)
        same(got, scatter_nd_ref(data, idx, upd))
        if k == 2:  # numpy's fancy assignment, targets distinct
            want = data.copy()
            want[tuple(idx.T)] = upd
            same(got, want)
    same(data, before)


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_nd_index_shapes(itype):
    rng = np.random.default_rng(23)
    data = sample((5, 6), np.float64, seed=24)
    # indices of rank 3: a [2, 3] grid of tuples.
    idx = distinct_tuples(6, (5, 6), rng).reshape(2, 3, 2).astype(itype)
    upd = sample((2, 3), np.float64, seed=25)
    same(clgather.scatter_nd(data, idx, upd),
         scatter_nd_ref(data, idx, upd))
    rows = distinct_tuples(4, (5,), rng).reshape(2, 2, 1).astype(itype)
    upd = sample((2, 2, 6), np.float64, seed=26)
    same(clgather.scatter_nd(data, rows, upd),
         scatter_nd_ref(data, rows, upd))


@pytest.mark.parametrize("reduction", ["add", "mul", "min", "max"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64,
                                   np.int32, np.int64, np.uint8, np.bool_],
                         ids=["float16", "float32", "float64", "int32",
                              "int64", "uint8", "bool"])
def test_nd_reductions(dtype, reduction):
    rng = np.random.default_rng(27)
    data = values((4, 3, 2), dtype, 28, reduction)
    for k, count in ((1, 9), (2, 14), (3, 30)):
        idx = np.stack([rng.integers(-d, d, count) for d in data.shape[:k]],
                       axis=-1)
        upd = values((count,) + data.shape[k:], dtype, 29 + k, reduction)
        same(clgather.scatter_nd(data, idx, upd, reduction=reduction),
             scatter_nd_ref(data, idx, upd, reduction))


def test_nd_complex_mul():
    rng = np.random.default_rng(30)
    data = values((3, 4), np.complex64, 31, "mul")
    idx = rng.integers(-3, 3, (7, 1))
    upd = values((7, 4), np.complex64, 32, "mul")
    same(clgather.scatter_nd(data, idx, upd, reduction="mul"),
         scatter_nd_ref(data, idx, upd, "mul"))


def test_nd_duplicates():
    data = sample((3, 4), np.int32)
    before = data.copy()
    idx = np.array([[1, 2], [0, 1], [-2, -2]])  # tuples 0 and 2: [1, 2]
    upd = np.array([10, 20, 30], np.int32)
    out = np.full_like(data, 5)
    with pytest.raises(ValueError) as info:
        clgather.scatter_nd(data, idx, upd, out=out)
    msg = str(info.value)
    assert info.value.status_name == "duplicate index"
    assert "position [0]" in msg and "position [2]" in msg, msg
    assert "data[1, 2]" in msg, msg
    same(out, np.full_like(data, 5))
    same(data, before)
    want = data.copy()
    want[1, 2], want[0, 1] = 30, 20  # the later tuple wins
    same(clgather.scatter_nd(data, idx, upd, duplicates="last"), want)
    # Slices: two tuples of rank 1 naming one row.
    upd = np.arange(8, dtype=np.int32).reshape(2, 4)
    with pytest.raises(ValueError, match="duplicate index"):
        clgather.scatter_nd(data, [[2], [-1]], upd)
    want = data.copy()
    want[2] = upd[1]
    same(clgather.scatter_nd(data, [[2], [-1]], upd, duplicates="last"),
         want)


def test_nd_out_and_in_place():
    rng = np.random.default_rng(33)
    data = sample((4, 5), np.float32, seed=34)
    before = data.copy()
    idx = rng.integers(-4, 4, (6, 1))
    upd = sample((6, 5), np.float32, seed=35)
    want = scatter_nd_ref(data, idx, upd, "max")
    out = np.empty_like(data)
    assert clgather.scatter_nd(data, idx, upd, reduction="max",
                               out=out) is out
    same(out, want)
    same(data, before)
    work = data.copy()
    assert clgather.scatter_nd(work, idx, upd, reduction="max",
                               out=work) is work
    same(work, want)


def test_nd_out_of_bounds():
    data = sample((3, 4), np.float32)
    before = data.copy()
    out = np.full_like(data, 2.0)
    idx = np.array([[0, 1], [1, 4], [2, 2]])
    with pytest.raises(IndexError) as info:
        clgather.scatter_nd(data, idx, np.ones(3, np.float32), out=out)
    msg = str(info.value)
    assert "index out of bounds" in msg
    assert "position [1, 1]" in msg and "= 4" in msg, msg
    assert "valid range is [-4, 3]" in msg, msg
    same(out, np.full_like(data, 2.0))
    with pytest.raises(IndexError, match=r"valid range is \[-3, 2\]"):
        clgather.scatter_nd(data, [[-4]], np.ones((1, 4), np.float32),
                            reduction="add", out=data)
    same(data, before)

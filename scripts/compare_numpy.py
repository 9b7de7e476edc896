#!/usr/bin/env python3
"""Compare the clgather CLI with numpy on random cases (a manual check).

For each operator of the gather family this generates random cases (fixed
seed): random dtypes among numpy's fixed-size ones, data ranks 1-4, random
axes, int32/int64 indices, batch_dims and, for Gather, index modes. It writes
DATA and INDICES as .npy files to a temporary folder, runs the built CLI and
compares the output's dtype, shape and bytes with a numpy reference:

  gather           numpy.take(mode=raise|wrap|clip), batch_dims by a loop
                   over the batch slices (numpy.take has no batch_dims)
  gather-elements  numpy.take_along_axis, on data sliced to the indices'
                   shape on the non-axis dimensions (ONNX allows indices
                   dimensions smaller than data's there)
  gather-nd        numpy fancy indexing per batch slice (ONNX GatherND with
                   batch_dims)

  scatter-elements numpy.put_along_axis (reduction none; with repeated
                   targets under --duplicates last), np.add.at /
                   multiply.at / minimum.at / maximum.at on full coordinate
                   arrays (reductions, applied in index order)
  scatter-nd       numpy fancy assignment, and the same ufunc.at calls

It also makes out-of-bounds cases (one index pushed outside its range, mode
raise) and expects exit status 1, a message naming the value, and no OUT;
for the scatters, cases with a repeated target under reduction none expect
exit status 1, a "duplicate index" message and no OUT.

Needs numpy; the test suite does not use this script.

  /usr/bin/python3 scripts/compare_numpy.py [CLI] [-n N] [--seed S] [-j J]

Prints one line per operator/mode and ends with "N passed, N failed"; the
exit status is 0 when nothing failed.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import warnings

import numpy as np

warnings.filterwarnings("ignore", category=RuntimeWarning)  # overflow: wraps

DTYPES = ["f2", "f4", "f8", "b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8",
          "u8", "c8", "c16"]
MODES = ["raise", "wrap", "clip"]


# ----------------------------------------------------------------- data

def random_data(rng, shape, code):
    dt = np.dtype("<" + code) if code not in ("b1", "i1", "u1") else \
        np.dtype(code)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        arr = rng.integers(0, 2, size=n).astype(np.bool_)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        arr = rng.integers(info.min, info.max, size=n, dtype=dt,
                           endpoint=True)
    elif dt.kind == "f":
        arr = (rng.standard_normal(n) * 1000).astype(dt)
    else:  # complex
        arr = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    return arr.reshape(shape)


def random_index_dtype(rng):
    return np.int32 if rng.integers(0, 2) == 0 else np.int64


def random_shape(rng, rank, lo=1, hi=5):
    return tuple(int(x) for x in rng.integers(lo, hi + 1, size=rank))


# -------------------------------------------------------------- references

def ref_gather(data, idx, axis, batch_dims, mode):
    """numpy.take with mode, batch_dims by a loop over batch slices."""
    r = data.ndim
    a = axis % r
    b = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
    if b == 0:
        return np.take(data, idx, axis=a, mode=mode)
    out_shape = data.shape[:a] + idx.shape[b:] + data.shape[a + 1:]
    out = np.empty(out_shape, dtype=data.dtype)
    for bi in np.ndindex(*data.shape[:b]):
        out[bi] = np.take(data[bi], idx[bi], axis=a - b, mode=mode)
    return out


def ref_gather_elements(data, idx, axis):
    """numpy.take_along_axis on data sliced to indices' non-axis dims."""
    a = axis % data.ndim
    sl = tuple(slice(None) if d == a else slice(0, idx.shape[d])
               for d in range(data.ndim))
    return np.take_along_axis(data[sl], idx.astype(np.intp), axis=a)


def ref_gather_nd(data, idx, batch_dims):
    """ONNX GatherND: per batch slice, the last dim of indices indexes the
    leading dims of the data slice."""
    b = batch_dims
    m = idx.shape[-1]
    out_shape = idx.shape[:-1] + data.shape[b + m:]
    out = np.empty(out_shape, dtype=data.dtype)
    for bi in np.ndindex(*data.shape[:b]):
        sub = data[bi]
        ind = idx[bi].astype(np.intp)
        out[bi] = sub[tuple(np.moveaxis(ind, -1, 0))]
    return out


# ------------------------------------------------------------------ cases

def case_gather(rng, oob=False):
    r = int(rng.integers(1, 5))
    a = int(rng.integers(0, r))
    b = int(rng.integers(0, a + 1))
    q = b + int(rng.integers(0, 3))
    shape = list(random_shape(rng, r))
    data = random_data(rng, tuple(shape), DTYPES[rng.integers(len(DTYPES))])
    ishape = tuple(shape[:b]) + random_shape(rng, q - b, 1, 4)
    s = shape[a]
    mode = "raise" if oob else MODES[rng.integers(3)]
    if mode == "raise":
        vals = rng.integers(-s, s, size=ishape)
    else:
        vals = rng.integers(-3 * s - 2, 3 * s + 3, size=ishape)
    idx = np.asarray(vals).astype(random_index_dtype(rng))
    axis = a - r if rng.integers(0, 4) == 0 else a
    bd = b - q if (b < q and b > 0 and rng.integers(0, 4) == 0) else b
    args = ["gather", "--axis", str(axis), "--batch-dims", str(bd)]
    if mode != "raise" or rng.integers(0, 2) == 0:
        args += ["--mode", mode]
    bad = None
    if oob:
        bad = poke(rng, idx, s)
    want = None if oob else ref_gather(data, idx, axis, bd, mode)
    return "gather[%s]" % mode, args, data, idx, want, bad


def case_gather_elements(rng, oob=False):
    r = int(rng.integers(1, 5))
    a = int(rng.integers(0, r))
    shape = random_shape(rng, r)
    data = random_data(rng, shape, DTYPES[rng.integers(len(DTYPES))])
    ishape = tuple(int(rng.integers(1, 6)) if d == a
                   else int(rng.integers(1, shape[d] + 1))
                   for d in range(r))
    s = shape[a]
    idx = rng.integers(-s, s, size=ishape).astype(random_index_dtype(rng))
    axis = a - r if rng.integers(0, 3) == 0 else a
    args = ["gather-elements", "--axis", str(axis)]
    bad = poke(rng, idx, s) if oob else None
    want = None if oob else ref_gather_elements(data, idx, axis)
    return "gather-elements", args, data, idx, want, bad


def case_gather_nd(rng, oob=False):
    r = int(rng.integers(1, 5))
    shape = random_shape(rng, r)
    data = random_data(rng, shape, DTYPES[rng.integers(len(DTYPES))])
    b = int(rng.integers(0, r))  # b <= r-1 leaves room for m >= 1
    m = int(rng.integers(1, r - b + 1))
    mid = random_shape(rng, int(rng.integers(0, 3)), 1, 4)
    ishape = tuple(shape[:b]) + mid + (m,)
    idx = np.empty(ishape, dtype=np.int64)
    for j in range(m):
        d = shape[b + j]
        idx[..., j] = rng.integers(-d, d, size=ishape[:-1])
    idx = idx.astype(random_index_dtype(rng))
    args = ["gather-nd", "--batch-dims", str(b)]
    bad = None
    if oob:
        j = int(rng.integers(0, m))
        bad = poke(rng, idx[..., j], shape[b + j])
    want = None if oob else ref_gather_nd(data, idx, b)
    return "gather-nd", args, data, idx, want, bad


REDUCTIONS = ["none", "add", "mul", "min", "max"]
UFUNCS = {"add": np.add, "mul": np.multiply, "min": np.minimum,
          "max": np.maximum}


def ufunc_at(red, target, where, upd):
    """np.<ufunc>.at(target, where, upd), except complex multiplication:
    numpy 1.24's multiply.at on complex128 rounds differently from its own
    elementwise multiply (in about half the cases), so complex products are
    applied one by one in index order with the elementwise operator."""
    if red != "mul" or target.dtype.kind != "c":
        UFUNCS[red].at(target, where, upd)
        return
    where = [np.broadcast_to(w, upd.shape[:len(np.shape(where[0]))])
             for w in where]
    lead = where[0].shape
    for pos in np.ndindex(*lead):
        t = tuple(int(w[pos]) for w in where)
        target[t] = target[t] * upd[pos]


def scatter_code(rng, red):
    """An element type for the reduction (no min/max on complex)."""
    while True:
        code = DTYPES[rng.integers(len(DTYPES))]
        if not (red in ("min", "max") and code.startswith("c")):
            return code


def distinct_along(rng, shape, axis, s):
    """Indices of `shape` whose values are distinct along `axis` (each line
    a prefix of a permutation of range(s)), some counted from the back."""
    moved = list(shape[:axis]) + list(shape[axis + 1:]) + [shape[axis]]
    out = np.empty(moved, dtype=np.int64)
    for pos in np.ndindex(*moved[:-1]):
        out[pos] = rng.permutation(s)[:shape[axis]]
    out = np.moveaxis(out, -1, axis)
    neg = rng.integers(0, 2, size=out.shape).astype(bool)
    return np.where(neg, out - s, out)


def case_scatter_elements(rng, oob=False, dup=False):
    r = int(rng.integers(1, 5))
    a = int(rng.integers(0, r))
    shape = random_shape(rng, r)
    red = "none" if (oob or dup) else REDUCTIONS[rng.integers(5)]
    last = red == "none" and not dup and rng.integers(0, 3) == 0
    data = random_data(rng, shape, scatter_code(rng, red))
    s = shape[a]
    unique = red == "none" and not last and not dup
    ishape = tuple((int(rng.integers(1, s + 1)) if unique
                    else int(rng.integers(1, 6))) if d == a
                   else int(rng.integers(1, shape[d] + 1)) for d in range(r))
    if dup:  # two entries of one line share a target
        ishape = tuple(max(2, n) if d == a else n for d, n in
                       enumerate(ishape))
    idx = distinct_along(rng, ishape, a, s) if unique else \
        rng.integers(-s, s, size=ishape)
    if dup:
        pos = [0] * r
        pos2 = list(pos)
        pos2[a] = 1
        idx[tuple(pos2)] = idx[tuple(pos)]
    idx = idx.astype(random_index_dtype(rng))
    upd = random_data(rng, ishape, data.dtype.str.lstrip("<|"))
    axis = a - r if rng.integers(0, 3) == 0 else a
    args = ["scatter-elements", "--axis", str(axis), "--reduction", red]
    if last:
        args += ["--duplicates", "last"]
    bad = poke(rng, idx, s) if oob else None
    want = None
    if not oob and not dup:
        want = data.copy()
        sl = tuple(slice(None) if d == a else slice(0, ishape[d])
                   for d in range(r))
        view = want[sl]
        if red == "none":
            np.put_along_axis(view, idx.astype(np.intp), upd, axis=a)
        else:
            coords = list(np.indices(ishape))
            coords[a] = idx.astype(np.intp) % s
            ufunc_at(red, view, tuple(coords), upd)
    label = "scatter-elements[%s%s]" % (red, ",last" if last else "")
    return label, args, data, idx, want, ("dup" if dup else bad), upd


def case_scatter_nd(rng, oob=False, dup=False):
    r = int(rng.integers(1, 5))
    shape = random_shape(rng, r)
    red = "none" if (oob or dup) else REDUCTIONS[rng.integers(5)]
    last = red == "none" and not dup and rng.integers(0, 3) == 0
    data = random_data(rng, shape, scatter_code(rng, red))
    k = int(rng.integers(1, r + 1))
    slices = int(np.prod(shape[:k]))
    unique = red == "none" and not last and not dup
    n = int(rng.integers(1, slices + 1)) if unique else int(rng.integers(1, 9))
    if dup:
        n = max(n, 2)
    flat = rng.permutation(slices)[:n] if unique else \
        rng.integers(0, slices, size=n)
    if dup:
        flat[1] = flat[0]
    idx = np.stack(np.unravel_index(flat, shape[:k]), axis=-1).astype(np.int64)
    neg = rng.integers(0, 2, size=idx.shape).astype(bool)
    idx = np.where(neg, idx - np.array(shape[:k]), idx)
    idx = idx.astype(random_index_dtype(rng))
    upd = random_data(rng, (n,) + tuple(shape[k:]), data.dtype.str.lstrip("<|"))
    args = ["scatter-nd", "--reduction", red]
    if last:
        args += ["--duplicates", "last"]
    bad = None
    if oob:
        j = int(rng.integers(0, k))
        bad = poke(rng, idx[..., j], shape[j])
    want = None
    if not oob and not dup:
        want = data.copy()
        where = tuple(np.moveaxis(idx.astype(np.intp), -1, 0))
        if red == "none":
            want[where] = upd
        else:
            ufunc_at(red, want, where, upd)
    label = "scatter-nd[%s%s]" % (red, ",last" if last else "")
    return label, args, data, idx, want, ("dup" if dup else bad), upd


def poke(rng, idx_view, s):
    """Put one out-of-range value (for an axis of size s) into idx_view
    (a view of the indices); returns the value."""
    flat_pos = int(rng.integers(0, idx_view.size))
    choice = int(rng.integers(0, 3))
    bad = s if choice == 0 else (-s - 1 if choice == 1 else s + 1000)
    pos = np.unravel_index(flat_pos, idx_view.shape) if idx_view.ndim else ()
    idx_view[pos] = bad
    return bad


# ---------------------------------------------------------------- running

def run_case(cli, device, workdir, n, case):
    label, args, data, idx, want, bad = case[:6]
    upd = case[6] if len(case) > 6 else None
    d = os.path.join(workdir, "d%d.npy" % n)
    i = os.path.join(workdir, "i%d.npy" % n)
    u = os.path.join(workdir, "u%d.npy" % n)
    o = os.path.join(workdir, "o%d.npy" % n)
    np.save(d, data)
    np.save(i, idx)
    cmd = [cli] + args + [d, i]
    if upd is not None:
        np.save(u, upd)
        cmd.append(u)
    cmd += ["-o", o]
    if device:
        cmd += ["--device", device]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    desc = "%s data %s%s indices %s%s (%s)" % (
        " ".join(args), data.dtype.str, list(data.shape), idx.dtype.str,
        list(idx.shape), label)
    try:
        if bad == "dup":
            if p.returncode != 1 or os.path.exists(o) or \
                    "duplicate index" not in p.stderr:
                return False, "%s: duplicates: exit %d, OUT %s: %s" % (
                    desc, p.returncode, os.path.exists(o), p.stderr.strip())
            return True, ""
        if bad is not None:
            if p.returncode != 1:
                return False, "%s: OOB %d: exit %d, want 1: %s" % (
                    desc, bad, p.returncode, p.stderr.strip())
            if os.path.exists(o):
                return False, "%s: OOB %d: OUT was written" % (desc, bad)
            if "index out of bounds" not in p.stderr or str(bad) not in \
                    p.stderr:
                return False, "%s: OOB %d: message: %s" % (
                    desc, bad, p.stderr.strip())
            return True, ""
        if p.returncode != 0:
            return False, "%s: exit %d: %s" % (desc, p.returncode,
                                               p.stderr.strip())
        got = np.load(o)
        if got.dtype != want.dtype or got.shape != want.shape:
            return False, "%s: got %s%s, want %s%s" % (
                desc, got.dtype.str, got.shape, want.dtype.str, want.shape)
        if got.tobytes() != want.tobytes():
            return False, "%s: output bytes differ from numpy" % desc
        return True, ""
    finally:
        for f in (d, i, u, o):
            if os.path.exists(f):
                os.remove(f)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli", nargs="?",
                    default=os.path.join(here, "..", "build", "tools",
                                         "clgather"),
                    help="the clgather binary (default: build/tools/clgather)")
    ap.add_argument("-n", "--cases", type=int, default=300,
                    help="random cases per operator (default 300)")
    ap.add_argument("--oob", type=int, default=None,
                    help="out-of-bounds cases per operator (default n/10)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--device", default=None, help="--device SPEC for the CLI")
    ap.add_argument("--ops", default="gather,gather-elements,gather-nd,"
                    "scatter-elements,scatter-nd",
                    help="comma-separated operators to test")
    opts = ap.parse_args()
    if not os.access(opts.cli, os.X_OK):
        sys.exit("compare_numpy: no executable CLI at %s" % opts.cli)
    n_oob = opts.oob if opts.oob is not None else max(1, opts.cases // 10)

    makers = {"gather": case_gather, "gather-elements": case_gather_elements,
              "gather-nd": case_gather_nd,
              "scatter-elements": case_scatter_elements,
              "scatter-nd": case_scatter_nd}
    rng = np.random.default_rng(opts.seed)
    cases = []
    for op in opts.ops.split(","):
        make = makers[op]
        cases += [make(rng) for _ in range(opts.cases)]
        cases += [make(rng, oob=True) for _ in range(n_oob)]
        if op.startswith("scatter"):
            cases += [make(rng, dup=True) for _ in range(n_oob)]

    counts = {}
    failures = []
    with tempfile.TemporaryDirectory(prefix="clgather_numpy.") as work:
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            futs = [pool.submit(run_case, opts.cli, opts.device, work, n, c)
                    for n, c in enumerate(cases)]
            for c, f in zip(cases, futs):
                key = c[0] + (" duplicates" if c[5] == "dup" else
                              " out-of-bounds" if c[5] is not None else "")
                ok, msg = f.result()
                pf = counts.setdefault(key, [0, 0])
                pf[0 if ok else 1] += 1
                if not ok:
                    failures.append(msg)
    for msg in failures[:50]:
        print("FAIL " + msg)
    for key in sorted(counts):
        print("%-32s %4d passed, %d failed" % (key + ":", counts[key][0],
                                               counts[key][1]))
    passed = sum(v[0] for v in counts.values())
    failed = sum(v[1] for v in counts.values())
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""First use of a shape class, cold, against a one-line OpenCL gather (a
manual benchmark: issue 22's first-use target, docs/performance.md, "First use").

Each round, on fresh, empty program caches (POCL_CACHE_DIR, and clgather's
CLGATHER_CACHE_DIR): the CLI's `clgather gather` of f32 [20000, 768] on
axis 0 with 4096 int64 indices, run twice (cold, then warm: both caches
filled by the first run); the same with CLGATHER_TUNE=first (variants
timed at the first call, the behaviour before timing waited for a class's
second call); and pyopencl building and launching a one-line gather kernel
in a fresh process, twice, PYOPENCL_NO_CACHE=1 (cold, then warm: POCL's
cache filled). Prints each round's cold-minus-warm seconds and clgather's
over pyopencl's; medians at the end. Every output is compared with numpy.

  /usr/bin/python3 scripts/bench_first_use.py [CLGATHER] [--rounds N]

CLGATHER: the CLI (default build-rel/tools/clgather). Needs python3-numpy
and python3-pyopencl, and POCL as the first OpenCL platform.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROWS, COLS, N = 20000, 768, 4096

PYOPENCL_CHILD = r"""
import sys
import numpy as np
import pyopencl as cl
d = np.load(sys.argv[1])
i = np.load(sys.argv[2])
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
bd = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=d)
bi = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=i)
o = np.empty((i.size, d.shape[1]), np.float32)
bo = cl.Buffer(ctx, mf.WRITE_ONLY, o.nbytes)
p = cl.Program(ctx, "kernel void g(global const float *d, global const "
               "long *i, global float *o, int c) { size_t r = "
               "get_global_id(1), k = get_global_id(0); o[r * c + k] = "
               "d[i[r] * c + k]; }").build()
p.g(q, (d.shape[1], i.size), None, bd, bi, bo, np.int32(d.shape[1]))
cl.enqueue_copy(q, o, bo)
q.finish()
np.save(sys.argv[3], o)
"""


def timed(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def cold_minus_warm(cmd, env, work, want, out):
    """cmd twice on fresh caches; checks the output; cold - warm seconds."""
    for d in ("pocl", "clgather"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
        os.mkdir(os.path.join(work, d), 0o700)
    env = dict(env, POCL_CACHE_DIR=os.path.join(work, "pocl"),
               CLGATHER_CACHE_DIR=os.path.join(work, "clgather"))
    cold = timed(cmd, env)
    warm = timed(cmd, env)
    got = np.load(out)
    if got.shape != want.shape or got.tobytes() != want.tobytes():
        sys.exit("wrong result from " + " ".join(cmd))
    return cold - warm


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli", nargs="?", default="build-rel/tools/clgather")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="clgather-first-use-")
    try:
        rng = np.random.default_rng(1)
        data = rng.random((ROWS, COLS), dtype=np.float32)
        idx = rng.integers(0, ROWS, N).astype(np.int64)
        want = data[idx]
        dpath, ipath = os.path.join(work, "d.npy"), os.path.join(work, "i.npy")
        out = os.path.join(work, "o.npy")
        np.save(dpath, data)
        np.save(ipath, idx)
        child = os.path.join(work, "pyopencl_gather.py")
        with open(child, "w") as f:
            f.write(PYOPENCL_CHILD)
        base = dict(os.environ, PYOPENCL_NO_CACHE="1", PYOPENCL_CTX="0")
        base.pop("CLGATHER_TUNE", None)
        cli = [a.cli, "gather", dpath, ipath, "-o", out]
        py = [sys.executable, child, dpath, ipath, out]
        rows = []
        print("cold - warm, seconds (CPU: %s)" % cpu_name())
        print("%-6s %9s %9s %9s %10s %10s" % ("round", "clgather", "tune@1st",
                                             "pyopencl", "clg/pycl",
                                             "1st/pycl"))
        for r in range(a.rounds):
            c = cold_minus_warm(cli, base, work, want, out)
            f = cold_minus_warm(cli, dict(base, CLGATHER_TUNE="first"), work,
                                want, out)
            p = cold_minus_warm(py, base, work, want, out)
            rows.append((c, f, p, c / p, f / p))
            print("%-6d %9.2f %9.2f %9.2f %10.2f %10.2f" % ((r + 1,) +
                                                          rows[-1]))
        med = [median([row[k] for row in rows]) for k in range(5)]
        print("%-6s %9.2f %9.2f %9.2f %10.2f %10.2f" % (("median",) +
                                                      tuple(med)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    main()

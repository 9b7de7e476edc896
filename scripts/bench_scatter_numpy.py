#!/usr/bin/env python3
"""The scatter workloads against numpy, in one run (a manual benchmark).

Runs build-rel/tools/clgather-bench-scatter --json (or the binary given) and
times numpy on the same shapes in this process: np.put_along_axis for SE1,
np.add.at for SN1 and SN2 (numpy's deterministic scatter-add, applied in
index order as clgather's is). Prints each workload's times and
numpy / clgather (> 1: clgather faster). Medians of --reps runs.

  /usr/bin/python3 scripts/bench_scatter_numpy.py [BENCH] [--reps N]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def median_time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def numpy_times(reps):
    rng = np.random.default_rng(1)
    out = {}
    data = np.zeros((4096, 4096), np.float32)
    idx = np.stack([rng.permutation(4096)[:1024] for _ in range(4096)])
    upd = np.ones((4096, 1024), np.float32)
    out["SE1"] = median_time(lambda: np.put_along_axis(data, idx, upd, 1),
                             reps)
    data = np.zeros((50000, 768), np.float32)
    idx = rng.integers(0, 50000, 4096)
    upd = np.ones((4096, 768), np.float32)
    out["SN1"] = median_time(lambda: np.add.at(data, idx, upd), reps)
    data = np.zeros((1000000, 16), np.float32)
    idx = rng.integers(0, 1000000, 1000000)
    upd = np.ones((1000000, 16), np.float32)
    out["SN2"] = median_time(lambda: np.add.at(data, idx, upd), reps)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", nargs="?",
                    default=os.path.join(here, "..", "build-rel", "tools",
                                         "clgather-bench-scatter"))
    ap.add_argument("--reps", type=int, default=5)
    opts = ap.parse_args()
    if not os.access(opts.bench, os.X_OK):
        sys.exit("bench_scatter_numpy: no executable at %s" % opts.bench)
    p = subprocess.run([opts.bench, "--json", "--reps", str(opts.reps)],
                       capture_output=True, text=True, check=True)
    clg = {w["name"]: w for w in json.loads(p.stdout)["workloads"]}
    ref = numpy_times(opts.reps)
    what = {"SE1": "np.put_along_axis", "SN1": "np.add.at",
            "SN2": "np.add.at"}
    print("%-4s %12s %11s %6s %12s %10s  %s" % (
        "", "clgather ms", "x copy-ref", "host", "numpy ms", "numpy/clg",
        "numpy"))
    for name in ("SE1", "SN1", "SN2"):
        c = clg[name]
        print("%-4s %12.3f %11.2f %5.0f%% %12.3f %10.2f  %s" % (
            name, c["call_s"] * 1e3, c["x_copy_ref"], c["host_share"] * 100,
            ref[name] * 1e3, ref[name] / c["call_s"], what[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

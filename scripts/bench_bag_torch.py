#!/usr/bin/env python3
"""EmbeddingBag's workloads against PyTorch's CPU kernel, in one run (a
manual benchmark).

Runs build-rel/tools/clgather-bench-bag (or the binary given) and times
torch.nn.functional.embedding_bag on the same shapes in this process, with
torch.set_num_threads(--threads, 2 by default: this machine's cores):
EB1 sum f32, EB2 mean f32 on [B, L] input, EB3 sum f16, EB4 as mode sum
(PyTorch has no sqrt_n; a segment sum costs what it costs plus a scaling,
so the ratio flatters PyTorch there); QB1 and QB2 (tables quantized per
row, 8-bit [1e6, 128] and 4-bit [1e6, 256], 4096 bags of 1..80: issue 43)
against torch.ops.quantized.embedding_bag_byte_rowwise_offsets and
embedding_bag_4bit_rowwise_offsets on tables of torch's own prepack. Prints each workload's medians and
torch / clgather (> 1: clgather faster). clgather's figure is its checked
call on cl_mem tensors + clFinish, back to back (the `again` column of
clgather-bench-bag), as PyTorch's is timed here: a call on host tensors in
a loop, the table warm in the caches; each library's native operands on
one CPU. The interleaved `bag` column (the table evicted by the other
rounds) is printed beside it.

  /usr/bin/python3 scripts/bench_bag_torch.py [BENCH] [--reps N] [--threads T]
"""

import argparse
import os
import re
import subprocess
import sys
import time

import torch
import torch.nn.functional as F


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def torch_times(reps):
    g = torch.Generator().manual_seed(1)
    out = {}

    def offsets_for(lengths):
        return torch.cumsum(torch.tensor([0] + lengths[:-1]), 0)

    # EB1: sum f32 [100000, 64], 2048 bags of 32 (offsets)
    w = torch.randn(100000, 64, generator=g)
    idx = torch.randint(0, 100000, (2048 * 32,), generator=g)
    off = torch.arange(0, 2048 * 32, 32)
    out["EB1"] = median_time(
        lambda: F.embedding_bag(idx, w, off, mode="sum"), reps)
    # EB2: mean f32 [50000, 768], 512 bags of 8 (a [B, L] input)
    w = torch.randn(50000, 768, generator=g)
    idx = torch.randint(0, 50000, (512, 8), generator=g)
    out["EB2"] = median_time(lambda: F.embedding_bag(idx, w, mode="mean"),
                             reps)
    # EB3: sum f16 [100000, 128], 4096 bags of 1..39 (offsets)
    w = torch.randn(100000, 128, generator=g).half()
    lengths = torch.randint(1, 40, (4096,), generator=g).tolist()
    idx = torch.randint(0, 100000, (sum(lengths),), generator=g)
    off = offsets_for(lengths)
    out["EB3"] = median_time(
        lambda: F.embedding_bag(idx, w, off, mode="sum"), reps)
    # EB4: f32 [20000, 256], 1000 segments of 100, as mode sum
    w = torch.randn(20000, 256, generator=g)
    idx = torch.randint(0, 20000, (100000,), generator=g)
    off = torch.arange(0, 100000, 100)
    out["EB4"] = median_time(
        lambda: F.embedding_bag(idx, w, off, mode="sum"), reps)
    # QB1, QB2: sum over tables quantized per row, 4096 bags of 1..80
    q = torch.ops.quantized
    lengths = torch.randint(1, 81, (4096,), generator=g).tolist()
    off = offsets_for(lengths)
    for name, dim, prepack, op in (
            ("QB1", 128, q.embedding_bag_byte_prepack,
             q.embedding_bag_byte_rowwise_offsets),
            ("QB2", 256, q.embedding_bag_4bit_prepack,
             q.embedding_bag_4bit_rowwise_offsets)):
        packed = prepack(torch.randn(1000000, dim, generator=g))
        idx = torch.randint(0, 1000000, (sum(lengths),), generator=g)
        out[name] = median_time(
            lambda: op(packed, idx, off, False, 0, False, None, None, False),
            reps)
        del packed
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", nargs="?",
                    default=os.path.join(here, "..", "build-rel", "tools",
                                         "clgather-bench-bag"))
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    opts = ap.parse_args()
    if not os.access(opts.bench, os.X_OK):
        sys.exit("bench_bag_torch: no executable at %s" % opts.bench)
    p = subprocess.run([opts.bench, "--rounds", str(opts.reps)],
                       capture_output=True, text=True, check=True)
    clg, cold = {}, {}
    for line in p.stdout.splitlines():
        m = re.match(r"^([EQ]B\d)\s.*?\bq?bag\s+([\d.]+) ms.*?\bagain\s+"
                     r"([\d.]+)", line)
        if m:
            cold[m.group(1)] = float(m.group(2)) * 1e-3
            clg[m.group(1)] = float(m.group(3)) * 1e-3
    torch.set_num_threads(opts.threads)
    ref = torch_times(opts.reps)
    print(p.stdout.splitlines()[0] if p.stdout else "")
    print("torch %s, %d threads" % (torch.__version__,
                                     torch.get_num_threads()))
    print("%-4s %12s %10s %10s %18s" % ("", "clgather ms", "torch ms",
                                          "torch/clg", "clgather interleaved"))
    for name in ("EB1", "EB2", "EB3", "EB4", "QB1", "QB2"):
        if name not in clg:
            print("%-4s %12s" % (name, "(missing)"))
            continue
        print("%-4s %12.3f %10.3f %10.2f %15.3f ms%s" % (
            name, clg[name] * 1e3, ref[name] * 1e3, ref[name] / clg[name],
            cold[name] * 1e3,
            "  (torch: mode sum; it has no sqrt_n)" if name == "EB4" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Draws the referee's verdict for one device: per workload, the checked
clgather call against the fastest peer (../shared/bench-peers'
h2h_interleaved: the median over rounds of fastest peer's time / clgather's,
> 1: clgather faster), one dot per run and a bar at their median, on a log
axis with the line of parity. Writes OUT/h2h_ratios.png.

Usage:
  plot_ratios.py --out docs/img/DEVICE --title TEXT LOG...
      LOG: bench-peers run logs (their "H2H {json}" lines; run_all.sh keeps
      them in _build/results/run*.log), one run each
  plot_ratios.py --out docs/img/DEVICE --title TEXT --csv FILE
      FILE: "workload,ratio" lines (one per run; '#' lines are comments),
      as docs/img/DEVICE/h2h_ratios.csv keeps the figures of
      docs/performance.md with the commit that made them

Needs Debian's python3-matplotlib (`bash scripts/install-deps.sh docs`).
Exit status: 0 picture written; 1 invalid input (no result in the logs or
the file); 2 usage.
"""
import argparse
import csv
import json
import os
import statistics
import sys


def read_logs(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("H2H "):
                    r = json.loads(line[4:])
                    rows.setdefault(r["workload"], []).append(
                        float(r["median_round_ratio"]))
    return rows


def read_csv(path):
    rows = {}
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    for r in csv.DictReader(lines):
        rows.setdefault(r["workload"], []).append(float(r["ratio"]))
    return rows


def main():
    ap = argparse.ArgumentParser(
        description="Draw the referee's ratios of one device.")
    ap.add_argument("--out", required=True, help="the folder of the picture")
    ap.add_argument("--title", required=True, help="the device, the commit")
    ap.add_argument("--csv", help="workload,ratio lines instead of logs")
    ap.add_argument("logs", nargs="*", help="bench-peers run logs")
    a = ap.parse_args()
    if bool(a.csv) == bool(a.logs):
        ap.error("give either --csv FILE or run logs")
    rows = read_csv(a.csv) if a.csv else read_logs(a.logs)
    if not rows:
        print("plot_ratios.py: no results", file=sys.stderr)
        return 1

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = list(rows)  # the order of the input: W1-W6 first
    med = [statistics.median(rows[n]) for n in names]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(names) + 1.4), dpi=100)
    ys = range(len(names))
    ax.barh(ys, med, color=["#4c72b0" if m >= 1 else "#dd8452" for m in med],
            alpha=0.55, height=0.6)
    for y, n in zip(ys, names):
        ax.plot(rows[n], [y] * len(rows[n]), "k.", markersize=5)
    ax.axvline(1.0, color="k", linewidth=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlim(0.25, 2.0)
    ax.set_xticks([0.25, 0.5, 0.75, 1, 1.5, 2])
    ax.set_xticklabels(["0.25", "0.5", "0.75", "1", "1.5", "2"])
    ax.set_yticks(list(ys))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("fastest peer's time / clgather's checked call "
                  "(> 1: clgather faster)")
    ax.set_title(a.title, fontsize=9)
    fig.tight_layout()
    os.makedirs(a.out, exist_ok=True)
    tmp = os.path.join(a.out, ".h2h_ratios.png.tmp")
    fig.savefig(tmp, format="png")
    os.replace(tmp, os.path.join(a.out, "h2h_ratios.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The spread of pinned host copies over the real fleet's catalogues: the
bounds of src/measure/remeasure.h come from it. Per size band (< 2 MiB,
2-64 MiB, >= 64 MiB), direction and engine: p95 / p50 and p50 / p5 of
each point's time samples (its first pass where it was measured again),
their median, 90th percentile and maximum over the points.
usage: host_spread.py [DIR...]   (default: lab/fleet)"""
import collections
import glob
import gzip
import json
import os
import sys


def points(dirs):
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "**", "nodes", "*.json.gz"), recursive=True)):
            try:
                doc = json.load(gzip.open(f))
            except (OSError, ValueError):
                continue
            for g in doc.get("gpus", []):
                for r in g.get("results", []):
                    x = r.get("context", {})
                    if (r.get("benchmark") != "xfer" or r.get("metric") != "time" or r.get("status") != "ok"
                            or x.get("mode") == "chase" or x.get("memory") != "pinned"):
                        continue
                    s = r["summary"]
                    if s["count"] < 3 or not s["p50"] or not s["p5"]:
                        continue
                    yield x, x.get("spread_first", s["p95"] / s["p50"]), x.get("spread_low_first", s["p50"] / s["p5"])


def band(size):
    return ">=64M" if size >= 64 << 20 else "2M-64M" if size >= 2 << 20 else "<2M"


def q(a, p):
    return a[min(len(a) - 1, int(p * len(a)))]


def main():
    rows = collections.defaultdict(list)
    for x, hi, lo in points(sys.argv[1:] or ["lab/fleet"]):
        rows[(band(x["size_bytes"]), x["direction"], x["engine"])].append((hi, lo))
    print("%-7s %-5s %-3s %4s  %-26s  %s" % ("size", "dir", "eng", "n", "p95/p50: p50 p90 max", "p50/p5: p50 p90 max"))
    for k in sorted(rows):
        hi = sorted(a for a, _ in rows[k])
        lo = sorted(b for _, b in rows[k])
        print("%-7s %-5s %-3s %4d  %.4f %.4f %.4f     %.4f %.4f %.4f" % (k + (len(hi),) + (
            q(hi, .5), q(hi, .9), hi[-1], q(lo, .5), q(lo, .9), lo[-1])))


if __name__ == "__main__":
    main()

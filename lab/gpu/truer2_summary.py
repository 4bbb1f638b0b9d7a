#!/usr/bin/env python3
"""What lab/gpu/truer2.cfg measured that issue 18's first pass left open:
host-bound points (launch, pinned xfer) with their spread and re-measures
(src/measure/remeasure.h), the loaded-latency law (derive.c loaded_law), the host
chase. usage: truer2_summary.py CENSUS_OUT"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)

c = gccat.load(sys.argv[1])
g = c["gpus"][0]
h = g.get("host", {})
print("gpu %s %s; host governor %s cpus %s mems %s" % (
    g["identity"]["name"], g["identity"].get("uuid", "?"), h.get("cpu_governor"),
    h.get("cpus_allowed"), h.get("mems_allowed")))
print("host-bound points: p50, spread (p95/p50) first -> final, re-measures, median moved, stable")
n = nre = nst = 0
for r in g["results"]:
    x = r["context"]
    if r["status"] != "ok" or "spread" not in x or r["metric"] not in ("time", "bandwidth"):
        continue
    if r["benchmark"].startswith("xfer") and r["metric"] != "bandwidth":
        continue
    n += 1
    k = int(x.get("remeasures", 0))
    nre += k > 0
    nst += k > 0 and x.get("median_stable") == 1
    what = x.get("mode") if r["benchmark"] == "launch" else "%s %s %s" % (
        x.get("direction"), x.get("engine"), int(x.get("size_bytes", 0)))
    s = r["summary"]
    v = s["p50"] / 1e9 if r["metric"] == "bandwidth" else s["p50"]
    unit = "GB/s" if r["metric"] == "bandwidth" else "ns"
    print("  %-8s %-26s %10.3f %-4s n=%-5d spread %s -> %.3f  re %d  moved %s  stable %s" % (
        r["benchmark"], what, v, unit, s["count"], x.get("spread_first", "-"), x["spread"], k,
        x.get("median_moved", "-"), x.get("median_stable", "-")))
print("host-bound points: %d, re-measured %d, of those stable %d" % (n, nre, nst))
for q in g["parameters"]:
    if q["name"].startswith("loaded_") or q["name"].startswith("host_") or "chase" in q["name"]:
        print("param %s = %.4g %s" % (q["name"], q["value"], q["unit"]))
for r in g["results"]:
    if r["benchmark"] == "chase_loaded" and r["metric"] == "latency" and r["status"] == "ok":
        x = r["context"]
        print("chase_loaded fp=%d warps_per_sm=%d p50 %.1f p95 %.1f cycles" % (
            x["footprint_bytes"], x["warps_per_sm"], r["summary"]["p50"], r["summary"]["p95"]))
    if r["benchmark"] == "host_chase" and r["status"] == "ok":
        print("host_chase %s p50 %.1f %s" % (r["metric"], r["summary"]["p50"], r["unit"]))

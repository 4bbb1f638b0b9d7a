#!/usr/bin/env python3
"""The rounds of lab/gpu/host_ab_run.sh side by side: per quantity, the
census's p50 in each round and nvbandwidth's figure in each round, each
one's median over the rounds and its spread ((max - min) / median), the
ratio of the medians, and whether the census's median lies within
nvbandwidth's own range over the rounds; the probe's both ways by the copy
engines with and without a tail; then the host chase per round (p50, min,
p95, host_huge_fraction) beside nvbandwidth's host_device_latency_sm.
usage: host_ab_summary.py OUT   (OUT/res/<plan><round>, OUT/log/*.txt)"""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402

OUT = sys.argv[1]
G = 1 << 30


def rounds(prefix):
    """[(round name, dir)] of OUT/res/<prefix><n>[d], in round order"""
    out = []
    for d in glob.glob(os.path.join(OUT, "res", prefix + "*")):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)(d?)", os.path.basename(d))
        if m and os.path.exists(os.path.join(d, "catalogue.json")):
            out.append(((int(m.group(1)), m.group(2)), d))
    return [(os.path.basename(d), d) for _, d in sorted(out)]


def points(d):
    try:
        cat = gccat.load(d)
    except (OSError, ValueError) as e:
        print("unreadable %s: %s" % (d, e))
        return None, []
    g = cat["gpus"][0]
    return g, [r for r in g["results"] if r["status"] == "ok" and r["summary"]["count"]]


def nvbw_sums(path):
    try:
        text = open(path).read()
    except OSError:
        return {}
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^SUM (\S+) ([\d.]+)", text, re.M)}


def spread(v):
    return (max(v) - min(v)) / statistics.median(v) if v else 0


def fmt(v, f="%.2f"):
    return " ".join(f % x for x in v)


# ---- host links ------------------------------------------------------------
PAIRS = (("h2d", "ce", "bandwidth", "host_to_device_memcpy_ce"),
         ("d2h", "ce", "bandwidth", "device_to_host_memcpy_ce"),
         ("bidir", "ce", "bandwidth_h2d", "host_to_device_bidirectional_memcpy_ce"),
         ("bidir", "ce", "bandwidth_d2h", "device_to_host_bidirectional_memcpy_ce"),
         ("h2d", "sm", "bandwidth", "host_to_device_memcpy_sm"),
         ("d2h", "sm", "bandwidth", "device_to_host_memcpy_sm"),
         ("bidir", "sm", "bandwidth_h2d", "host_to_device_bidirectional_memcpy_sm"),
         ("bidir", "sm", "bandwidth_d2h", "device_to_host_bidirectional_memcpy_sm"))
ab = rounds("host_ab")
ours = {k: [] for k in PAIRS}
gpu = None
for name, d in ab:
    g, pts = points(d)
    gpu = gpu or g
    for r in pts:
        x = r["context"]
        for k in PAIRS:
            if (x.get("direction"), x.get("engine"), r["metric"]) == k[:3] and int(x["size_bytes"]) == G:
                ours[k].append((r["summary"]["p50"] / 1e9, x.get("spread"), x.get("remeasures", 0),
                                x.get("both_ways")))
theirs = {k: [] for k in PAIRS}
for k in range(1, len(ab) + 1):
    s = nvbw_sums(os.path.join(OUT, "log", "nvbw-ab%d.txt" % k))
    for p in PAIRS:
        if p[3] in s:
            theirs[p].append(s[p[3]])
if gpu:
    i = gpu["identity"]
    print("%s %s, %d rounds (census, nvbandwidth v0.8 -b 1024, the probe, in turn)" % (
        i.get("name"), i.get("uuid"), len(ab)))
    print("host: governor %s, cpus_allowed %s, mems_allowed %s" % (
        gpu.get("host", {}).get("cpu_governor"), gpu.get("host", {}).get("cpus_allowed"),
        gpu.get("host", {}).get("mems_allowed")))
print("| quantity | census p50 by round | median | spread | nvbandwidth by round | median | spread |"
      " ratio of medians | census median within nvbandwidth's range |")
print("|---|---|---|---|---|---|---|---|---|")
for p in PAIRS:
    o = [v[0] for v in ours[p]]
    t = theirs[p]
    if not o or not t:
        continue
    mo, mt = statistics.median(o), statistics.median(t)
    tag = "" if not ours[p][0][3] else " (%s)" % ours[p][0][3]
    print("| %s %s %s%s | %s | %.2f | %.1f%% | %s | %.2f | %.1f%% | %.3f | %s |" % (
        p[0], p[1], p[2], tag, fmt(o), mo, 100 * spread(o), fmt(t), mt, 100 * spread(t), mo / mt,
        "yes" if min(t) <= mo <= max(t) else "no (%+.1f%% beyond)" % (
            100 * ((mo - max(t)) / max(t) if mo > max(t) else (mo - min(t)) / min(t)))))
print("census points' own spread (p95/p50) and re-measures by round:")
for p in PAIRS:
    if ours[p]:
        print("  %s %s %s: %s" % (p[0], p[1], p[2], " ".join(
            "%.3f%s" % (v[1] or 0, "+%d" % v[2] if v[2] else "") for v in ours[p])))
ce = {}
for k in range(1, len(ab) + 1):
    try:
        for line in open(os.path.join(OUT, "log", "probe-ce%d.txt" % k)):
            m = re.match(r"ce_both (tail|equal).*? h2d ([\d.]+) d2h ([\d.]+) GBps", line)
            if m:
                ce.setdefault(m.group(1), []).append((float(m.group(2)), float(m.group(3))))
            m = re.match(r"ce_both one way alone (h2d|d2h) ([\d.]+)", line)
            if m:
                ce.setdefault("alone " + m.group(1), []).append((float(m.group(2)),))
    except OSError:
        pass
if ce:
    print("lab/gpu/peers_probe.cu ce_both (1 GiB each way, median of 6 per round), by round:")
    for k, v in ce.items():
        if k.startswith("alone"):
            print("  one way %s alone: %s GB/s" % (k[6:], fmt([x[0] for x in v])))
        else:
            print("  %-5s h2d %s | d2h %s GB/s (medians %.2f / %.2f)" % (
                "no tail" if k == "equal" else "tail", fmt([x[0] for x in v]), fmt([x[1] for x in v]),
                statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)))

# ---- host chase ---------------------------------------------------------------
print()
print("host chase (latency_ns p50 / min / p95, host_huge_fraction) by plan and round;"
      " nvbandwidth host_device_latency_sm by round:")
lat = []
for k in range(1, 10):
    s = nvbw_sums(os.path.join(OUT, "log", "nvbw-lat%d.txt" % k))
    if "host_device_latency_sm" in s:
        lat.append(s["host_device_latency_sm"])
print("  nvbandwidth: %s ns" % fmt(lat, "%.1f"))
rows = {}
for plan in ("chase_alone", "chase_after", "default"):
    for name, d in (rounds(plan) if plan != "default" else [("default", os.path.join(OUT, "res", "default"))]):
        if not os.path.exists(os.path.join(d, "catalogue.json")):
            continue
        _, pts = points(d)
        for r in pts:
            x = r["context"]
            if r["benchmark"] != "xfer" or x.get("mode") != "chase" or r["metric"] != "latency_ns":
                continue
            s = r["summary"]
            numa = x.get("numa") if x.get("numa") != "each" else "node%d" % x.get("numa_node", 0)
            key = (plan, int(x["size_bytes"]), numa)
            rows.setdefault(key, []).append(s["p50"])
            print("  %-14s %6.1f MiB numa %-5s %7.1f / %7.1f / %7.1f ns  huge %s  n %d" % (
                name, x["size_bytes"] / 2**20, numa, s["p50"], s["min"], s["p95"],
                x.get("host_huge_fraction", "-"), s["count"]))
mlat = statistics.median(lat) if lat else 0
for (plan, size, numa), v in sorted(rows.items()):
    print("  %-11s %6.1f MiB numa %-5s p50 %s: median %.1f, spread %.1f%%%s" % (
        plan, size / 2**20, numa, fmt(v, "%.1f"), statistics.median(v), 100 * spread(v),
        ", %.3fx of nvbandwidth's median" % (statistics.median(v) / mlat) if mlat else ""))

#!/usr/bin/env python3
"""Side by side of a census catalogue and the peers run beside it on the
same GPU (tests/gpu/truer2_run.sh). One row per quantity: ours, the
peer's, the ratio (ours / peer for bandwidths, ours / peer for latencies:
under 1 is faster).
- gpu-stream: its best over block sizes per kernel, bytes read + written
  (as ours); ours: the best p50 over our kernel shapes.
- gpu-l2-cache: its rate at the footprint nearest each of ours (and its
  best); ours: the best p50 over the shapes at that footprint.
- nvbandwidth (optional): its SUM lines; device_local_copy counts bytes
  copied, doubled here to bytes read + written; host copies at its -b size
  against our pinned xfer points of that size; host_device_latency_sm
  against our host chase (xfer mode chase).
- gpu-latency (optional): its L1 plateau (the median over footprints under
  100 KiB) and L2 plateau (1-16 MiB) against our l1/l2_latency_cycles.
usage: peers_best.py CENSUS_OUT PEER_STREAM PEER_L2 [NVBANDWIDTH [LATENCY]]"""
import json
import re
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)


def shape(x):
    if "order" in x:   # l2_bw
        return "%s t%d u%d, %.1f blocks/chunk" % (x["order"], x.get("block_threads", 0),
                                                 x.get("unroll", 0), x.get("blocks_per_chunk", 0))
    if x.get("grid") == "full":
        return "full t%d v%d u%d fp%.0fG" % (x.get("block_threads", 0), x.get("vector_bytes", 16),
                                             x.get("unroll", 4), x["footprint_bytes"] / 2**30)
    return "stride bps%d" % x.get("blocks_per_sm", 0)


def ours(out):
    c = gccat.load(out)
    g = c["gpus"][0]
    hbm, l2, xfer, chase = {}, {}, {}, []
    for r in g["results"]:
        if r["status"] != "ok" or not r["summary"]["count"]:
            continue
        x = r["context"]
        v = r["summary"]["p50"]
        if r["benchmark"] == "hbm_bw" and r["metric"] == "bandwidth":
            k = x["kernel"]
            if k not in hbm or v > hbm[k][0]:
                hbm[k] = (v, shape(x))
        elif r["benchmark"] == "l2_bw" and r["metric"] == "bandwidth":
            fp = x["footprint_bytes"]
            if fp not in l2 or v > l2[fp][0]:
                l2[fp] = (v, shape(x))
        elif r["benchmark"] == "xfer" and x.get("memory") == "pinned":
            if x.get("mode") == "chase":
                if r["metric"] == "latency_ns":
                    chase.append((v, x.get("numa_node")))
            elif r["metric"] == "bandwidth":
                xfer[(x["direction"], x["engine"], int(x["size_bytes"]))] = v
    par = {p["name"]: p["value"] for p in g.get("parameters", [])}
    return g["identity"]["name"], g["identity"].get("uuid", "?"), hbm, l2, xfer, chase, par


def lines(path):
    try:
        return open(path).read().splitlines()
    except OSError:
        return []


def peer_stream(path):
    best = {}
    cols = ["init", "read", "scale", "triad", "3pt", "5pt"]
    for line in lines(path):
        if "|" not in line or "GB/s" not in line:
            continue
        vals = [float(v) for v in line.split("GB/s:")[1].split()]
        for k, v in zip(cols, vals):
            best[k] = max(best.get(k, 0), v * 1e9)
    return best


def peer_l2(path):
    rows = []
    for line in lines(path):
        m = re.match(r"\s*\d+ kB\s+(\d+) kB\s+\S+\s+\S+%\s+([\d.]+) GB/s", line)
        if m:
            rows.append((float(m.group(1)) * 1024, float(m.group(2)) * 1e9))
    return rows


def peer_nvbw(path):
    out, size = {}, None
    for line in lines(path):
        m = re.match(r"SUM (\S+) ([\d.]+)", line)
        if m:
            out[m.group(1)] = float(m.group(2))
        m = re.search(r"--bufferSize\D*(\d+)|buffer size[^\d]*(\d+)", line, re.I)
        if m and size is None:
            size = int(m.group(1) or m.group(2))
    return out


def peer_latency(path):
    l1, l2 = [], []
    for line in lines(path):
        f = line.split()
        if len(f) != 5:
            continue
        try:
            kb, cyc = float(f[2]), float(f[4])
        except ValueError:
            continue
        if kb < 100:
            l1.append(cyc)
        elif 1024 <= kb <= 16384:
            l2.append(cyc)
    med = lambda v: statistics.median(v) if v else 0
    return med(l1), len(l1), med(l2), len(l2)


def ratio(a, b):
    return "%.3f" % (a / b) if a and b else "-"


name, uuid, hbm, l2, xfer, chase, par = ours(sys.argv[1])
ps = peer_stream(sys.argv[2])
pl = peer_l2(sys.argv[3])
print("%s %s: ours / peer" % (name, uuid))
for k, pk in (("read", "read"), ("write", "init"), ("copy", "scale"), ("triad", "triad")):
    o = hbm.get(k, (0, ""))
    p = ps.get(pk, 0)
    print("hbm %-6s %7.3f TB/s (%s)  gpu-stream %-6s %7.3f TB/s  ratio %s" % (
        k, o[0] / 1e12, o[1], pk, p / 1e12, ratio(o[0], p)))
for fp, (v, sh) in sorted(l2.items()):
    near = min(pl, key=lambda r: abs(r[0] - fp)) if pl else None
    print("l2 %5.1f MiB %7.3f TB/s (%s)  gpu-l2-cache at %5.1f MiB %7.3f TB/s  ratio %s" % (
        fp / 2**20, v / 1e12, sh, near[0] / 2**20 if near else 0, near[1] / 1e12 if near else 0,
        ratio(v, near[1]) if near else "-"))
if pl:
    b = max(pl, key=lambda r: r[1])
    print("gpu-l2-cache best %.3f TB/s at %.1f MiB" % (b[1] / 1e12, b[0] / 2**20))
if len(sys.argv) > 4:
    nb = peer_nvbw(sys.argv[4])
    size = 1 << 30
    if "device_local_copy" in nb:
        p = 2 * nb["device_local_copy"] * 1e9
        o = hbm.get("copy", (0, ""))[0]
        print("hbm copy   %7.3f TB/s  nvbandwidth device_local_copy x2 %7.3f TB/s  ratio %s" % (
            o / 1e12, p / 1e12, ratio(o, p)))
    for d, e, key in (("h2d", "ce", "host_to_device_memcpy_ce"), ("d2h", "ce", "device_to_host_memcpy_ce"),
                      ("bidir", "ce", "host_to_device_bidirectional_memcpy_ce"),
                      ("h2d", "sm", "host_to_device_memcpy_sm"), ("d2h", "sm", "device_to_host_memcpy_sm")):
        if key not in nb:
            continue
        o = xfer.get((d, e, size), 0)
        # nvbandwidth's bidirectional CE test reports the host-to-device half
        print("xfer %-5s %s 1 GiB %7.2f GB/s  nvbandwidth %s %7.2f GB/s  ratio %s" % (
            d, e, o / 1e9, key, nb[key], ratio(o, nb[key] * 1e9)))
    if "host_device_latency_sm" in nb:
        for v, node in chase:
            print("host chase (numa %s) %7.1f ns  nvbandwidth host_device_latency_sm %7.1f ns  ratio %s" % (
                node, v, nb["host_device_latency_sm"], ratio(v, nb["host_device_latency_sm"])))
if len(sys.argv) > 5:
    l1, n1, l2p, n2 = peer_latency(sys.argv[5])
    for k, pv, n in (("l1_latency_cycles", l1, n1), ("l2_latency_cycles", l2p, n2)):
        print("%-18s %7.1f cycles  gpu-latency plateau %7.1f (%d footprints)  ratio %s" % (
            k, par.get(k, 0), pv, n, ratio(par.get(k, 0), pv)))

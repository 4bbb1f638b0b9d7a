#!/usr/bin/env python3
"""Side by side of a census catalogue and the peers run beside it on the
same GPU (lab/gpu/peers_run.sh). One row per quantity: ours, the
peer's, the ratio (ours / peer for bandwidths, ours / peer for latencies:
under 1 is faster).
- gpu-stream: its best over block sizes per kernel, bytes read + written
  (as ours); ours: the best p50 over our kernel shapes.
- gpu-l2-cache: its rate at the footprint nearest each of ours (and its
  best); ours: the best p50 over the shapes at that footprint.
- nvbandwidth (optional; several output files joined by commas): its
  matrices, the GPU's column (host tests) or its row and column (device
  to device); device_local_copy counts bytes copied, doubled here to bytes
  read + written; host copies at 1 GiB against our pinned xfer points of
  that size, ours the capability figure (capability_bps: the p95 of the
  samples over every round; the p50 beside it), each within 2% or not,
  and a last line counting them; both ways, each direction's own rate
  (ours bandwidth_h2d / bandwidth_d2h) against *_bidirectional_memcpy_*,
  and ours summed against their two directions'; device to device CE (write: the source's
  engine pushes, as ours) against our p2p copies at 1 GiB;
  host_device_latency_sm and device_to_device_latency_sm against our host
  and peer chases (both orders and footprints: theirs walks consecutive
  lines over ~1 MiB).
- gpu-latency (optional): its L1 plateau (the median over footprints under
  100 KiB) and L2 plateau (1-16 MiB) against our l1/l2_latency_cycles.
gpu-stream, gpu-l2-cache and gpu-latency run on GPU 0 only; nvbandwidth on
every GPU: one block of rows per GPU of the catalogue.
usage: peers_best.py CENSUS_OUT[,MORE_OUT] PEER_STREAM PEER_L2 [NVBANDWIDTH[,MORE] [LATENCY]]"""
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


def ours(outs):
    """per GPU index: its name, uuid and best figures over the catalogues"""
    gpus = {}
    for out in outs.split(","):
        for g in gccat.load(out)["gpus"]:
            o = gpus.setdefault(g["index"], {"name": g["identity"]["name"], "uuid": g["identity"].get("uuid", "?"),
                                             "hbm": {}, "l2": {}, "xfer": {}, "chase": [], "p2p": {},
                                             "p2p_chase": [], "par": {}})
            o["par"].update({p["name"]: p["value"] for p in g.get("parameters", [])})
            for r in g["results"]:
                if r["status"] != "ok" or not r["summary"]["count"]:
                    continue
                x = r["context"]
                v = r["summary"]["p50"]
                if r["benchmark"] == "hbm_bw" and r["metric"] == "bandwidth":
                    k = x["kernel"]
                    if k not in o["hbm"] or v > o["hbm"][k][0]:
                        o["hbm"][k] = (v, shape(x))
                elif r["benchmark"] == "l2_bw" and r["metric"] == "bandwidth":
                    fp = x["footprint_bytes"]
                    if fp not in o["l2"] or v > o["l2"][fp][0]:
                        o["l2"][fp] = (v, shape(x), r["summary"]["max"])
                elif r["benchmark"] == "xfer" and x.get("memory") == "pinned":
                    if x.get("mode") == "chase":
                        if r["metric"] == "latency_ns":
                            o["chase"].append((v, x.get("numa_node"), x["size_bytes"], x.get("order", "random")))
                    elif r["metric"].startswith("bandwidth"):   # the capability figure, and the p50
                        o["xfer"][(x["direction"], x["engine"], int(x["size_bytes"]), r["metric"])] = (
                            x.get("capability_bps", v), v, x.get("host_noisy"), x.get("remeasures", 0))
                elif r["benchmark"] == "p2p" and x.get("peer_access") == "on":
                    if x.get("mode") == "chase":
                        if r["metric"] == "latency_ns":
                            o["p2p_chase"].append((v, int(x["peer_gpu"]), x["size_bytes"], x.get("order", "random")))
                    elif r["metric"].startswith("bandwidth"):
                        o["p2p"][(x["direction"], int(x["peer_gpu"]), int(x["size_bytes"]), r["metric"])] = v
    return gpus


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


def peer_nvbw(paths):
    """{test: [(title, {(row, col): GB/s or ns})]}: every matrix of every test"""
    out, test, title, cols, mat = {}, None, None, None, None
    for path in paths.split(","):
        for line in lines(path):
            m = re.match(r"Running (\S+)\.", line)
            if m:
                test = m.group(1)
                continue
            if test and re.search(r"\((GB/s|ns)\)\s*$", line):
                title, cols, mat = line.strip(), None, {}
                out.setdefault(test, []).append((title, mat))
                continue
            f = line.split()
            if mat is None or not f:
                if not f:
                    mat = None
                continue
            if cols is None:
                cols = [int(c) for c in f if c.isdigit()]
                continue
            if f[0].isdigit():
                for c, v in zip(cols, f[1:]):
                    if v != "N/A":
                        mat[(int(f[0]), c)] = float(v)
    return out


def nv(nb, test, row, col, which=0):
    """one cell of a test's matrix (which: 0 the first, -1 the last)"""
    if test not in nb:
        return 0
    return nb[test][which][1].get((row, col), 0)


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


HOST_TOL = 0.02   # every host link within 2% of nvbandwidth's figure in the same call
host_rows = []
gpus = ours(sys.argv[1])
ps = peer_stream(sys.argv[2])
pl = peer_l2(sys.argv[3])
nb = peer_nvbw(sys.argv[4]) if len(sys.argv) > 4 else {}
G = 1 << 30
for gi in sorted(gpus):
    o = gpus[gi]
    hbm, l2, xfer, par = o["hbm"], o["l2"], o["xfer"], o["par"]
    print("%s %s (GPU %d): ours / peer" % (o["name"], o["uuid"], gi))
    if gi == 0:   # gpu-benches ran on the first GPU
        for k, pk in (("read", "read"), ("write", "init"), ("copy", "scale"), ("triad", "triad")):
            ov = hbm.get(k, (0, ""))
            p = ps.get(pk, 0)
            print("hbm %-6s %7.3f TB/s (%s)  gpu-stream %-6s %7.3f TB/s  ratio %s" % (
                k, ov[0] / 1e12, ov[1], pk, p / 1e12, ratio(ov[0], p)))
        for fp, (v, sh, fastest) in sorted(l2.items()):
            near = min(pl, key=lambda r: abs(r[0] - fp)) if pl else None
            print("l2 %5.1f MiB %7.3f TB/s (%s)  gpu-l2-cache at %5.1f MiB %7.3f TB/s  ratio %s" % (
                fp / 2**20, v / 1e12, sh, near[0] / 2**20 if near else 0, near[1] / 1e12 if near else 0,
                ratio(v, near[1]) if near else "-"))
            # the same footprint (theirs interpolated between its two
            # neighbours) and the same statistic (its fastest of 11 fresh
            # allocations; ours the fastest of our launches of that shape)
            lo = max((r for r in pl if r[0] <= fp), default=None, key=lambda r: r[0])
            hi = min((r for r in pl if r[0] >= fp), default=None, key=lambda r: r[0])
            if lo and hi:
                at = lo[1] if hi[0] == lo[0] else lo[1] + (hi[1] - lo[1]) * (fp - lo[0]) / (hi[0] - lo[0])
                print("l2 %5.1f MiB   p50 %7.3f / fastest %7.3f TB/s  gpu-l2-cache at %5.1f MiB (interpolated)"
                      " %7.3f TB/s  ratio p50 %s, fastest %s" % (fp / 2**20, v / 1e12, fastest / 1e12, fp / 2**20,
                                                                at / 1e12, ratio(v, at), ratio(fastest, at)))
        if pl:
            b = max(pl, key=lambda r: r[1])
            print("gpu-l2-cache best %.3f TB/s at %.1f MiB" % (b[1] / 1e12, b[0] / 2**20))
        for k in ("l2_bw_bps", "l2_bw_shared_peak_bps"):
            if k in par:
                print("%s %.3f TB/s" % (k, par[k] / 1e12))
    if not nb:
        continue
    p = 2 * nv(nb, "device_local_copy", 0, gi) * 1e9
    if p:
        ov = hbm.get("copy", (0, ""))[0]
        print("hbm copy   %7.3f TB/s  nvbandwidth device_local_copy x2 %7.3f TB/s  ratio %s" % (
            ov / 1e12, p / 1e12, ratio(ov, p)))
    for d, e, key, met in (("h2d", "ce", "host_to_device_memcpy_ce", "bandwidth"),
                           ("d2h", "ce", "device_to_host_memcpy_ce", "bandwidth"),
                           ("bidir", "ce", "host_to_device_bidirectional_memcpy_ce", "bandwidth_h2d"),
                           ("bidir", "ce", "device_to_host_bidirectional_memcpy_ce", "bandwidth_d2h"),
                           ("h2d", "sm", "host_to_device_memcpy_sm", "bandwidth"),
                           ("d2h", "sm", "device_to_host_memcpy_sm", "bandwidth"),
                           ("bidir", "sm", "host_to_device_bidirectional_memcpy_sm", "bandwidth_h2d"),
                           ("bidir", "sm", "device_to_host_bidirectional_memcpy_sm", "bandwidth_d2h")):
        p = nv(nb, key, 0, gi) * 1e9
        if not p:
            continue
        cap, p50, noisy, rounds = xfer.get((d, e, G, met), (0, 0, None, 0))
        within = cap and abs(cap / p - 1) <= HOST_TOL
        host_rows.append(within)
        print("xfer %-5s %s 1 GiB %-13s %7.2f GB/s (p50 %7.2f%s)  nvbandwidth %s %7.2f GB/s  ratio %s (p50 %s)"
              "  within %.0f%%: %s" % (
                  d, e, met, cap / 1e9, p50 / 1e9,
                  ", host noisy, %d rounds" % rounds if noisy else "", key, p / 1e9, ratio(cap, p),
                  ratio(p50, p), 100 * HOST_TOL, "yes" if within else "NO"))
    for e in ("ce", "sm"):   # the sum of both directions against nvbandwidth's two
        p = (nv(nb, "host_to_device_bidirectional_memcpy_" + e, 0, gi) +
             nv(nb, "device_to_host_bidirectional_memcpy_" + e, 0, gi)) * 1e9
        both = xfer.get(("bidir", e, G, "bandwidth"), (0,))[0]
        if p and both:
            print("xfer bidir %s 1 GiB bandwidth (the sum) %7.2f GB/s  nvbandwidth h2d + d2h bidirectional_memcpy_%s"
                  " %7.2f GB/s  ratio %s" % (e, both / 1e9, e, p / 1e9, ratio(both, p)))
    for (d, peer, size, met), v in sorted(o["p2p"].items()):
        if size != G or met == "bandwidth" and d == "bidir":
            continue
        key = "device_to_device_memcpy_write_ce" if d == "oneway" else "device_to_device_bidirectional_memcpy_read_ce"
        p = nv(nb, key, gi, peer) * 1e9 if d == "oneway" else nv(nb, key, gi, peer) * 1e9
        if p:
            print("p2p %-6s -> GPU %d 1 GiB %-19s %7.2f GB/s  nvbandwidth %s %7.2f GB/s  ratio %s" % (
                d, peer, met, v / 1e9, key, p / 1e9, ratio(v, p)))
    lat = nv(nb, "host_device_latency_sm", 0, gi)
    for v, node, size, order in sorted(o["chase"], key=lambda c: (c[2], c[3])):
        print("host chase (numa %s) %6.1f MiB %-10s %7.1f ns  nvbandwidth host_device_latency_sm %7.1f ns  ratio %s" % (
            node, size / 2**20, order, v, lat, ratio(v, lat)))
    for v, peer, size, order in sorted(o["p2p_chase"], key=lambda c: (c[2], c[3])):
        lat = nv(nb, "device_to_device_latency_sm", gi, peer)
        print("peer chase -> GPU %d %6.1f MiB %-10s %7.1f ns  nvbandwidth device_to_device_latency_sm %7.1f ns"
              "  ratio %s" % (peer, size / 2**20, order, v, lat, ratio(v, lat)))
    if len(sys.argv) > 5 and gi == 0:
        l1, n1, l2p, n2 = peer_latency(sys.argv[5])
        for k, pv, n in (("l1_latency_cycles", l1, n1), ("l2_latency_cycles", l2p, n2)):
            print("%-18s %7.1f cycles  gpu-latency plateau %7.1f (%d footprints)  ratio %s" % (
                k, par.get(k, 0), pv, n, ratio(par.get(k, 0), pv)))
if host_rows:
    print("host links within %.0f%% of nvbandwidth: %d of %d" % (100 * HOST_TOL, sum(1 for w in host_rows if w),
                                                              len(host_rows)))

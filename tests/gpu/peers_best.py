#!/usr/bin/env python3
"""Side by side of a census catalogue and the peers run beside it on the
same GPU (tests/gpu/truer_run.sh): gpu-stream's best over its block sizes
per kernel (bytes read + written, as ours), gpu-l2-cache's rate at the
footprint nearest each of our L2 footprints and its best. Prints one row
per quantity: ours, the peer's, the ratio.
usage: peers_best.py CENSUS_OUT PEER_STREAM_TXT PEER_L2_TXT"""
import json
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)


def ours(out):
    c = gccat.load(out)
    g = c["gpus"][0]
    hbm, l2 = {}, {}
    for r in g["results"]:
        if r["status"] != "ok" or r["metric"] != "bandwidth" or not r["summary"]["count"]:
            continue
        x = r["context"]
        v = r["summary"]["p50"]
        if r["benchmark"] == "hbm_bw":
            k = x["kernel"]
            best = hbm.get(k)
            if not best or v > best[0]:
                hbm[k] = (v, "%s bps=%s" % (x.get("grid", "stride"), x.get("blocks_per_sm")))
        elif r["benchmark"] == "l2_bw":
            l2[x["footprint_bytes"]] = v
    return g["identity"]["name"], hbm, l2


def peer_stream(path):
    best = {}
    cols = ["init", "read", "scale", "triad", "3pt", "5pt"]
    try:
        for line in open(path):
            if "|" not in line or "GB/s" not in line:
                continue
            vals = [float(v) for v in line.split("GB/s:")[1].split()]
            for k, v in zip(cols, vals):
                best[k] = max(best.get(k, 0), v * 1e9)
    except OSError:
        pass
    return best


def peer_l2(path):
    rows = []
    try:
        for line in open(path):
            m = re.match(r"\s*\d+ kB\s+(\d+) kB\s+\S+\s+\S+%\s+([\d.]+) GB/s", line)
            if m:
                rows.append((float(m.group(1)) * 1024, float(m.group(2)) * 1e9))
    except OSError:
        pass
    return rows


name, hbm, l2 = ours(sys.argv[1])
ps = peer_stream(sys.argv[2])
pl = peer_l2(sys.argv[3])
print("%s: ours / best peer (bytes read + written)" % name)
for k, pk in (("read", "read"), ("write", "init"), ("copy", "scale"), ("triad", "triad")):
    o = hbm.get(k, (0, ""))
    p = ps.get(pk, 0)
    print("hbm %-6s %7.3f TB/s (%s)  gpu-stream %-6s %7.3f TB/s  ratio %s" % (
        k, o[0] / 1e12, o[1], pk, p / 1e12, "%.3f" % (o[0] / p) if p else "-"))
for fp, v in sorted(l2.items()):
    near = min(pl, key=lambda r: abs(r[0] - fp)) if pl else None
    print("l2 %5.1f MiB %7.3f TB/s  gpu-l2-cache at %5.1f MiB %7.3f TB/s  ratio %s" % (
        fp / 2**20, v / 1e12, near[0] / 2**20 if near else 0, near[1] / 1e12 if near else 0,
        "%.3f" % (v / near[1]) if near else "-"))
if pl:
    b = max(pl, key=lambda r: r[1])
    print("gpu-l2-cache best %.3f TB/s at %.1f MiB" % (b[1] / 1e12, b[0] / 2**20))

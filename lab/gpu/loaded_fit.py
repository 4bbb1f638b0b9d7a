#!/usr/bin/env python3
"""The DRAM loaded-latency curve of catalogues, per label of chase_loaded
points (footprints over twice the L2): the p50 per warps per SM, then the
hinge (a floor and a rise) and the valley (a fall, the floor, a rise) fitted
as src/util/fit.c fits them (knees on a log grid of warps in flight), with
their R^2, and the census's own loaded_dram_latency_law_r2 / _hinge_r2
where the catalogue has them.
usage: loaded_fit.py CATALOGUE_DIR..."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402


def lsq(cols, y):
    k, n = len(cols), len(y)
    m = [[sum(cols[i][t] * cols[j][t] for t in range(n)) for j in range(k)] + [sum(cols[i][t] * y[t] for t in range(n))]
         for i in range(k)]
    for i in range(k):
        p = max(range(i, k), key=lambda r: abs(m[r][i]))
        if abs(m[p][i]) < 1e-9:
            return None
        m[i], m[p] = m[p], m[i]
        for r in range(k):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [a - f * b for a, b in zip(m[r], m[i])]
    c = [m[i][k] / m[i][i] for i in range(k)]
    return c, sum((sum(c[i] * cols[i][t] for i in range(k)) - y[t]) ** 2 for t in range(n))


def grid(lo, hi, per):
    s = int(math.ceil(per * math.log2(hi / lo)))
    return [lo * (hi / lo) ** (i / s) for i in range(s + 1)] if s else [lo]


def fit(x, y, valley):
    best = None
    ks = grid(min(x), max(x), 8 if valley else 16)
    for i, kf in enumerate(ks if valley else ks[:1]):
        u = [math.log2(kf / a) if a < kf else 0 for a in x]
        below = sum(a < kf for a in x)
        for kr in ks[i:] if valley else ks:
            v = [a - kr if a > kr else 0 for a in x]
            for uf in ((1, 0) if valley and below >= 2 else (0,)):
                for vr in (1, 0):
                    cols = [[1] * len(x)] + ([u] if uf else []) + ([v] if vr else [])
                    r = lsq(cols, y)
                    if not r or any(c < 0 for c in r[0][1:]):
                        continue
                    if best is None or r[1] < best[0]:
                        best = (r[1], kf if uf else min(x), kr if vr else max(x), r[0])
    my = sum(y) / len(y)
    sst = sum((a - my) ** 2 for a in y)
    return (1 - best[0] / sst if sst else 1), best


for d in sys.argv[1:]:
    cat = gccat.load(d)
    for g in cat["gpus"]:
        l2 = g.get("properties", {}).get("l2_bytes", 50 << 20) or (50 << 20)
        par = {p["name"]: p["value"] for p in g.get("parameters", [])}
        sms = g.get("properties", {}).get("sm_count", 132) or 132
        curves = {}
        for r in g["results"]:
            x = r["context"]
            if r["benchmark"] != "chase_loaded" or r["metric"] != "latency" or r["status"] != "ok":
                continue
            if x["footprint_bytes"] <= 2 * l2:
                continue
            curves.setdefault(x.get("label", "chase_loaded"), []).append((x["warps_per_sm"], r["summary"]["p50"]))
        for label, pts in sorted(curves.items()):
            pts.sort()
            x = [w * sms for w, _ in pts]
            y = [v for _, v in pts]
            rh, _ = fit(x, y, False)
            rv, b = fit(x, y, True)
            print("%s %s %s: %s" % (g["identity"]["name"], g["identity"].get("uuid", "?")[:12], label,
                                    " ".join("%g:%.0f" % p for p in pts)))
            print("  hinge R^2 %.3f; valley R^2 %.3f (floor %.1f, falls %.1f cycles per halving to %.1f warps/SM,"
                  " rises %.3f cycles per warp/SM past %.1f)" % (rh, rv, b[3][0], b[3][1] if len(b[3]) > 2 or b[1] > min(x) else 0,
                                                                b[1] / sms, (b[3][-1] * sms) if b[2] < max(x) else 0, b[2] / sms))
        for k in ("loaded_dram_latency_law_r2", "loaded_dram_latency_hinge_r2", "loaded_dram_latency_r2"):
            if k in par:
                print("  census %s %.3f" % (k, par[k]))

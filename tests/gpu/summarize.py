#!/usr/bin/env python3
"""Headline parameters of catalogues side by side, the spread of repeated
quick runs (max/min - 1, per GPU, the worst GPU's) and the time each run took.
usage: summarize.py OUT_DIR..."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)

KEYS = ["l1_latency_cycles", "l2_latency_cycles", "l2_far_latency_cycles", "dram_latency_cycles",
        "timer_cost_cycles", "l1_capacity_bytes", "l2_capacity_bytes", "page_chase_latency_cycles",
        "hbm_read_bps", "hbm_write_bps", "hbm_copy_bps", "hbm_triad_bps", "hbm_bw_bps",
        "hbm_theoretical_bps", "hbm_achieved_ratio", "l2_bw_bps", "smem_bw_bps", "smem_bw_stride32_bps",
        "launch_ns", "launch_sync_ns", "inst_f32_fma_latency_cycles", "inst_f32_add_latency_cycles",
        "inst_f64_fma_latency_cycles", "inst_i32_mul_latency_cycles",
        "loaded_dram_latency_slope_cycles_per_warps", "loaded_dram_latency_r2",
        "departure_coal_slope_cycles_per_requests", "departure_uncoal_slope_cycles_per_requests"]

runs = []
for d in sys.argv[1:]:
    c = gccat.load(d)
    for g in c["gpus"]:
        p = {x["name"]: x["value"] for x in g["parameters"]}
        failed = sum(1 for r in g["results"] if r["status"] != "ok")
        flags = sum(1 for r in g["results"] if r["flags"])
        label = os.path.basename(d) + ("/g%d" % g["index"] if len(c["gpus"]) > 1 else "")
        runs.append((label, g, p, failed, flags, c["run"]))
for name, g, p, failed, flags, run in runs:
    print("%-9s %s %s status=%s items=%d/%d failed=%d flagged=%d %s..%s" % (
        name, g["node"], g["identity"]["name"], g["status"], g["items_done"], g["items_total"],
        failed, flags, run["start_time"], run["end_time"]))
print("%-44s %s  spread" % ("parameter", " ".join("%12s" % r[0] for r in runs)))
for k in KEYS + sorted({k for r in runs for k in r[2]} - set(KEYS)):
    vals = [r[2].get(k) for r in runs]
    # spread of the repeated quick runs, per GPU, the worst GPU's
    spread = float("nan")
    for gi in {r[1]["index"] for r in runs}:
        quick = [v for r, v in zip(runs, vals) if r[0].startswith("quick") and r[1]["index"] == gi and v]
        if len(quick) > 1 and min(quick) > 0:
            sp = (max(quick) / min(quick) - 1) * 100
            spread = sp if spread != spread or sp > spread else spread
    print("%-44s %s %6.2f%%" % (k[:44], " ".join("%12.5g" % v if v is not None else "%12s" % "-" for v in vals), spread))

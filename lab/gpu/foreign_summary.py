#!/usr/bin/env python3
"""Side by side for lab/gpu/foreign_run.sh: per catalogue, how many points
were flagged gpu_shared (by benchmark), which processes were seen, a few
parameters that foreign load moves, and the sustained-load parameters.
Usage: foreign_summary.py OUT [OUT ...]"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)

PARAMS = ["l2_latency_cycles", "dram_latency_cycles", "l1_latency_cycles", "hbm_bw_bps",
          "hbm_triad_bps", "l2_bw_bps", "launch_ns", "launch_sync_ns",
          "sustained_sm_clock_mhz", "sustained_clock_ratio", "sm_clock_p5_ratio", "sm_clock_cv",
          "time_to_first_throttle_s", "sustain_throttled_fraction", "sustain_slowdown_reasons",
          "sustain_power_w", "sustain_temperature_max_c", "sustain_xid_events"]


def show(out):
    try:
        cat = gccat.load(out)
    except (OSError, ValueError) as e:
        print("%s: no catalogue (%s)" % (out, e))
        return
    for g in cat["gpus"]:
        res = g["results"]
        flagged = collections.Counter(r["benchmark"] for r in res if "gpu_shared" in r["flags"])
        cond = g["conditions"]
        print("%s gpu%d: %d points, %d gpu_shared (%s); shared_points %s; foreign seen %s" % (
            out.rstrip("/").split("/")[-1], g["index"], len(res), sum(flagged.values()),
            ", ".join("%s %d" % kv for kv in sorted(flagged.items())) or "-",
            cond.get("shared_points"), cond.get("foreign_seen")))
        par = {p["name"]: p["value"] for p in g["parameters"]}
        print("   " + "  ".join("%s=%s" % (k, "%.4g" % par[k] if isinstance(par[k], float) else par[k])
                                for k in PARAMS if k in par))
        for r in res:
            if r["benchmark"] == "sustain":
                s = r["summary"]
                print("   sustain %s %s: n=%d p5=%.4g p50=%.4g p95=%.4g max=%.4g ctx=%s" % (
                    r["context"].get("load"), r["metric"], s["count"], s.get("p5", 0), s.get("p50", 0),
                    s.get("p95", 0), s.get("max", 0),
                    {k: v for k, v in r["context"].items() if k not in ("load", "duration_s")}))
        bad = [v for v in cat.get("verdicts", []) if v["verdict"] != "ok"]
        for v in bad:
            print("   verdict %s %s: %s" % (v["subject"], v["verdict"],
                                           "; ".join(x["detail"] for x in v["reasons"])[:300]))


for o in sys.argv[1:]:
    show(o)

#!/usr/bin/env python3
"""Print the models section of a catalogue: per GPU the better model, lambda,
errors per regime (raw and leave-one-out calibrated) and every validation
kernel's measured and predicted times. Usage: models_summary.py CATALOGUE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (the validation rows are in the node files of a compact catalogue)


def pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def main(path):
    cat = gccat.load(path)
    for g in cat["gpus"]:
        m = g.get("models") or {}
        if not m.get("validation"):
            print("%s/gpu%s: no validation" % (g["node"], g["index"]))
            continue
        print("%s/gpu%s %s  descriptions: %s  better: %s" % (
            g["node"], g["index"], g["identity"]["name"], m.get("description_origin"),
            m.get("better_model")))
        for model in ("mwp_cwp", "littles_law"):
            mm = m[model]
            print("  %-11s lambda %s" % (model, mm.get("lambda")))
            for kind in ("raw", "calibrated"):
                e = mm["errors"][kind]
                print("    %-10s " % kind + "  ".join(
                    "%s n=%s mape=%s max=%s" % (r, e[r]["n"], pct(e[r]["mape"]), pct(e[r]["max_ape"]))
                    for r in ("all", "compute", "memory", "latency") if r in e))
        print("  %-12s %-8s %12s %12s %12s %12s %12s" % (
            "kernel", "regime", "measured_ns", "mwp_ns", "mwp_cal_ns", "little_ns", "little_cal_ns"))
        for v in m["validation"]:
            print("  %-12s %-8s %12.0f %12.0f %12.0f %12.0f %12.0f" % (
                v["kernel"], v["regime"], v["measured_ns"], v["mwp_cwp_ns"] or 0,
                v.get("mwp_cwp_calibrated_ns") or 0, v["littles_law_ns"] or 0,
                v.get("littles_law_calibrated_ns") or 0))
        for p in m["mwp_cwp"]["parameters"] + m["littles_law"]["parameters"]:
            print("  param %-34s %-14s %s" % (p["name"], p["value"], p["unit"]))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Which term of MWP-CWP goes wrong on the held-out kernels: per kernel the
model's cycles split into its terms (from `gpucensus predict --json`: the
case, N, MWP, CWP, Comp_cycles x #Rep, Mem_cycles x #Rep, the
synchronisation cost of eq. 26) against the measured cycles (the held-out
catalogue's median minus the launch floor, at the catalogue's clock), and
the mean absolute error (calibrated by the lambda predict uses) of the
model as it is and without its synchronisation term.

  mwp_terms.py GPUCENSUS LABEL:MODELS_DIR:HELDOUT_DIR:DESC_DIR ...
Exit 0; prints one table per GPU and its MAE lines."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402


def measured(d):
    cat = gccat.load(d)
    return {r["context"]["kernel"]: r["summary"]["p50"] for r in cat["gpus"][0]["results"]
            if r["benchmark"] == "valid" and r["status"] == "ok"}


def one(gc, lab, mdir, hdir, ddir):
    meas = measured(hdir)
    print("%s: %s with %s (times %s)" % (lab, mdir, ddir, hdir))
    print("%-20s %7s %4s %5s %6s %6s %10s %10s %10s %10s %10s %7s %7s" % (
        "kernel", "meas_us", "case", "N", "MWP", "CWP", "comp", "mem", "synch", "model_cyc",
        "meas_cyc", "model/", "-synch/"))
    ape = {"as is": [], "without synch": []}
    for cfg in sorted(glob.glob(os.path.join(ddir, "*.cfg"))):
        k = os.path.basename(cfg)[:-4]
        if k not in meas:
            continue
        p = subprocess.run([gc, "predict", mdir, cfg, "--json"], capture_output=True, text=True)
        g = json.loads(p.stdout)["gpus"][0]
        m, li = g["mwp_cwp"], g["littles_law"]
        if "cycles" not in m:
            continue
        f = m["launch_overhead_ns"]
        cyc_per_ns = li["cycles"] / (li["ns"] - f)       # the catalogue's clock
        mc = (meas[k] - f) * cyc_per_ns
        lam = m["lambda"] or 1.0
        pred = lambda cyc: f + cyc / cyc_per_ns / lam    # noqa: E731  (predict's calibration)
        ape["as is"].append(abs(pred(m["cycles"]) - meas[k]) / meas[k])
        nos = m["cycles"] - m["synch_cycles"]
        ape["without synch"].append(abs(pred(nos) - meas[k]) / meas[k])
        print("%-20s %7.1f %4d %5.0f %6.2f %6.2f %10.0f %10.0f %10.0f %10.0f %10.0f %7.2f %7.2f" % (
            k, meas[k] / 1e3, m["case"], m["n"], m["mwp"], m["cwp"], m["comp_cycles"] * m["rep"],
            m["mem_cycles"] * m["rep"], m["synch_cycles"], m["cycles"], mc, m["cycles"] / mc,
            nos / mc))
    for what, v in ape.items():
        print("%s: MWP-CWP calibrated %-14s MAE %6.1f%% (n=%d)" % (lab, what, 100 * sum(v) / len(v), len(v)))
    print()


def main(argv):
    gc = argv[0]
    for a in argv[1:]:
        one(gc, *a.split(":"))


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Issue 14's accuracy table: per kernel and GPU the measured time (the
census's own timing: the `valid` bench's median), both models' calibrated
predictions (`gpucensus predict --json` on the GPU's models catalogue) and
their errors; the validation suite's rows come from the models catalogue.
A "what-if" row predicts a kernel on another kind's catalogue (the
description made on one GPU, the parameters of another) against what that
other GPU measured.

  predict_table.py GPUCENSUS DESC_DIR LABEL:MODELS_DIR:HELDOUT_DIR ...
  (HELDOUT_DIR "-": that GPU's held-out times were not measured: predictions only)
     [--cross LABEL_FROM:LABEL_TO ...]
Exit 0; prints the table and MAE lines."""
import glob
import json
import os
import subprocess
import sys

MODELS = ("mwp_cwp", "littles_law")


def measured(heldout_dir):
    if heldout_dir == "-":          # a catalogue with parameters only: predictions, no error
        return {}
    cat = json.load(open(os.path.join(heldout_dir, "catalogue.json")))
    out = {}
    for r in cat["gpus"][0]["results"]:
        if r["benchmark"] == "valid" and r["status"] == "ok":
            out[r["context"]["kernel"]] = r["summary"]["p50"]
    return out


def predict(gc, models_dir, cfg):
    p = subprocess.run([gc, "predict", models_dir, cfg, "--json"], capture_output=True, text=True)
    if p.returncode:
        return None
    g = json.loads(p.stdout)["gpus"][0]
    return {m: (g[m]["calibrated_ns"] if g.get(m) else None) for m in MODELS} | \
        {"regime": g.get("regime"), "bound": g.get("bound", {})}


def pct(x):
    return "%6.1f%%" % (100 * x) if x is not None else "      -"


def main(argv):
    gc, ddir = argv[0], argv[1]
    gpus, cross = [], []
    for a in argv[2:]:
        if a == "--cross":
            continue
        if a.count(":") == 2:
            gpus.append(a.split(":"))
        else:
            cross.append(a.split(":"))
    descs = sorted(glob.glob(os.path.join(ddir, "*.cfg")))
    meas = {lab: measured(h) for lab, _, h in gpus}
    mdir = {lab: m for lab, m, _ in gpus}
    print("%-22s %-10s %-9s %11s %11s %8s %11s %8s  %s" % ("kernel", "gpu", "regime", "measured_us",
          "mwp_us", "err", "little_us", "err", "bound (Little)"))
    errs = {}
    rows = [(k, lab, lab) for lab, _, _ in gpus for k in descs] + \
           [(k, f, t) for f, t in cross for k in descs]
    for cfg, src, dst in rows:
        name = os.path.basename(cfg)[:-4]
        m = meas[dst].get(name)
        p = predict(gc, mdir[dst], cfg)
        if p is None or (m is None and meas[dst]):
            continue
        lab = dst if src == dst else "%s->%s" % (src, dst)
        e = {k: abs(p[k] - m) / m if p[k] and m else None for k in MODELS}
        for k in MODELS:
            if m:
                errs.setdefault((lab, k), []).append(e[k])
        m = m or float("nan")
        b = p["bound"]
        print("%-22s %-10s %-9s %11.1f %11.1f %8s %11.1f %8s  %s" % (
            name, lab, p["regime"], m / 1e3, (p["mwp_cwp"] or 0) / 1e3, pct(e["mwp_cwp"]),
            (p["littles_law"] or 0) / 1e3, pct(e["littles_law"]), b.get("says", "")))
    for lab, m, _ in gpus:
        cat = json.load(open(os.path.join(m, "catalogue.json")))
        mm = cat["gpus"][0]["models"]
        print("validation suite on %s: %s" % (lab, "  ".join(
            "%s MAE %s (n=%d)" % (k, pct(mm[k]["errors"]["calibrated"]["all"]["mape"]),
                                  mm[k]["errors"]["calibrated"]["all"]["n"]) for k in MODELS)))
    for (lab, k), v in sorted(errs.items()):
        v = [x for x in v if x is not None]
        print("held-out on %-12s %-12s MAE %s max %s (n=%d)" % (
            lab, k, pct(sum(v) / len(v)), pct(max(v)), len(v)))


if __name__ == "__main__":
    main(sys.argv[1:])

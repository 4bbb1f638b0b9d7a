#!/usr/bin/env python3
"""Issue 14's accuracy table: per kernel and GPU the measured time (the
census's own timing: the `valid` bench's median), both models' calibrated
predictions and their errors. The models are this build's (`gpucensus
predict --json` on the GPU's models catalogue, raw), calibrated as
validate.h says with a lambda recomputed from the validation suite measured
in that catalogue (leave one out for the suite's own kernels), so a model
changed since the run is scored as it is now. The model parameters, too,
are this build's (model_hw.c) from the catalogue's measured parameters: the
catalogue is read without its `models` (a temporary copy), so a parameter
added since the run (one bench mlp measured) is there when it was measured.
A "what-if" row predicts a kernel on another kind's catalogue (the
description made on one GPU, the parameters of another) against what that
other GPU measured.

  predict_table.py GPUCENSUS DESC_DIR LABEL:MODELS_DIR:HELDOUT_DIR[:DESC_DIR] ...
  (HELDOUT_DIR "-": that GPU's held-out times were not measured: predictions only;
   a GPU's own DESC_DIR: descriptions made from its own profile, else DESC_DIR)
     [--cross LABEL_FROM:LABEL_TO ...]   (LABEL_FROM's descriptions on LABEL_TO's
                                          catalogue and times)
Exit 0; prints the table and MAE lines."""
import atexit
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)

MODELS = ("mwp_cwp", "littles_law")


def measured(heldout_dir):
    if heldout_dir == "-":          # a catalogue with parameters only: predictions, no error
        return {}
    cat = gccat.load(heldout_dir)
    out = {}
    for r in cat["gpus"][0]["results"]:
        if r["benchmark"] == "valid" and r["status"] == "ok":
            out[r["context"]["kernel"]] = r["summary"]["p50"]
    return out


def predict_raw(gc, models_dir, cfg):
    """Both models' raw (lambda = 1) times, launch floor included, by this
    build's models on the catalogue's parameters."""
    p = subprocess.run([gc, "predict", models_dir, cfg, "--json"], capture_output=True, text=True)
    if p.returncode:
        return None
    g = json.loads(p.stdout)["gpus"][0]
    out = {m: (g[m]["ns"] if g.get(m) and "ns" in g[m] else None) for m in MODELS}
    out["floor"] = next((g[m]["launch_overhead_ns"] for m in MODELS if g.get(m) and "ns" in g[m]), 0)
    return out | {"regime": g.get("regime"), "bound": g.get("bound") or {}}


def measured_only(models_dir):
    """A temporary copy of the catalogue without its models: predict then
    turns its measured parameters into this build's model parameters."""
    cat = gccat.plain(gccat.load(models_dir, points=False))   # written as 2.0 (schema 3 expanded)
    cat.pop("models", None)
    for g in cat["gpus"]:
        g.pop("models", None)
    d = tempfile.mkdtemp(prefix="predict_table.")
    atexit.register(shutil.rmtree, d, True)
    json.dump(cat, open(os.path.join(d, "catalogue.json"), "w"))
    if os.path.isdir(os.path.join(models_dir, "nodes")):   # a compact catalogue's points
        os.symlink(os.path.abspath(os.path.join(models_dir, "nodes")), os.path.join(d, "nodes"))
    return d


def median(v):
    v = sorted(v)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2 if v else None


class Calib:
    """validate.h's calibration, recomputed with this build's models: lambda
    = the median over the validation kernels measured at >= 1.5 launch
    floors of (model - floor) / (measured - floor); a validation kernel's
    own ratio is left out of its lambda."""

    def __init__(self, gc, models_dir):
        cat = gccat.load(models_dir)
        meas = {r["context"]["kernel"]: r["summary"]["p50"] for r in cat["gpus"][0]["results"]
                if r["benchmark"] == "valid" and r["status"] == "ok"}
        self.rows = {}
        for cfg in sorted(glob.glob(os.path.join(VALID_DIR, "*.cfg"))):
            k = os.path.basename(cfg)[:-4]
            p = predict_raw(gc, models_dir, cfg) if k in meas else None
            if p:
                self.rows[k] = (meas[k], p)

    def ratios(self, model, skip=None):
        out = []
        for k, (m, p) in self.rows.items():
            f = p["floor"]
            if k != skip and p[model] and m >= 1.5 * f and m > f:
                out.append((p[model] - f) / (m - f))
        return out

    def cal(self, model, p, skip=None):
        lam = median(self.ratios(model, skip)) or 1.0
        return p["floor"] + (p[model] - p["floor"]) / lam if p[model] else None


VALID_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs",
                         "kernels", "valid")


def pct(x):
    return "%6.1f%%" % (100 * x) if x is not None else "      -"


def main(argv):
    gc, ddir = argv[0], argv[1]
    gpus, cross = [], []
    for a in argv[2:]:
        if a == "--cross":
            continue
        if a.count(":") in (2, 3):
            gpus.append((a.split(":") + [ddir])[:4])
        else:
            cross.append(a.split(":"))
    descs = {lab: sorted(glob.glob(os.path.join(d, "*.cfg"))) for lab, _, _, d in gpus}
    meas = {lab: measured(h) for lab, _, h, _ in gpus}
    mdir = {lab: measured_only(m) for lab, m, _, _ in gpus}
    calib = {lab: Calib(gc, mdir[lab]) for lab, _, _, _ in gpus}
    print("%-22s %-10s %-9s %11s %11s %8s %11s %8s  %s" % ("kernel", "gpu", "regime", "measured_us",
          "mwp_us", "err", "little_us", "err", "bound (Little)"))
    errs = {}
    rows = [(k, lab, lab) for lab, _, _, _ in gpus for k in descs[lab]] + \
           [(k, f, t) for f, t in cross for k in descs[f]]
    for cfg, src, dst in rows:
        name = os.path.basename(cfg)[:-4]
        m = meas[dst].get(name)
        p = predict_raw(gc, mdir[dst], cfg)
        if p is None or (m is None and meas[dst]):
            continue
        p = p | {k: calib[dst].cal(k, p) for k in MODELS}
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
    for lab, _, _, _ in gpus:
        c = calib[lab]
        line = []
        for k in MODELS:
            raw = [abs(p[k] - m) / m for m, p in c.rows.values() if p[k]]
            cal = [abs(c.cal(k, p, skip=n) - m) / m for n, (m, p) in c.rows.items() if p[k]]
            line.append("%s MAE raw %s calibrated %s (n=%d, lambda %.3f)" % (
                k, pct(sum(raw) / len(raw)), pct(sum(cal) / len(cal)), len(cal),
                median(c.ratios(k)) or float("nan")))
        print("validation suite on %s: %s" % (lab, "  ".join(line)))
    for (lab, k), v in sorted(errs.items()):
        v = [x for x in v if x is not None]
        print("held-out on %-12s %-12s MAE %s max %s (n=%d)" % (
            lab, k, pct(sum(v) / len(v)), pct(max(v)), len(v)))


if __name__ == "__main__":
    main(sys.argv[1:])

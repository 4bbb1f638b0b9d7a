#!/usr/bin/env python3
"""The accuracy table of the held-out kernels: per kernel and GPU the
measured time (the census's own timing: the `valid` bench's median in the
held-out catalogue) and what `gpucensus predict --json` prints for it on
that GPU's catalogue, as it is (the census's own catalogue, nothing
stripped or recomputed here): both models raw (lambda = 1) and calibrated
with the lambda predict uses (its `calibration` block says where that
lambda comes from: the catalogue's validation kernels predicted by this
build, validate.c), and their errors. The suite's line is predict's own
calibration block (leave one kernel out). A "what-if" row predicts a
kernel described on one kind's GPU with another kind's catalogue against
what that other GPU measured.

  predict_table.py GPUCENSUS DESC_DIR LABEL:MODELS_DIR:HELDOUT_DIR[:DESC_DIR] ...
  (HELDOUT_DIR "-": that GPU's held-out times were not measured: predictions only;
   a GPU's own DESC_DIR: descriptions made from its own profile, else DESC_DIR)
     [--cross LABEL_FROM:LABEL_TO ...]   (LABEL_FROM's descriptions on LABEL_TO's
                                          catalogue and times)
     [--json FILE]                       (the rows and the MAE lines as JSON)
Exit 0; prints the table and MAE lines (raw and calibrated)."""
import glob
import json
import os
import subprocess
import sys

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


def predict(gc, models_dir, cfg):
    """What `gpucensus predict --json` says on the catalogue's first GPU."""
    p = subprocess.run([gc, "predict", models_dir, cfg, "--json"], capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write("predict %s %s: exit %d: %s" % (models_dir, cfg, p.returncode, p.stderr))
        return None
    g = json.loads(p.stdout)["gpus"][0]
    out = {"regime": g.get("regime"), "bound": g.get("bound") or {},
           "calibration": g.get("calibration") or {}}
    for m in MODELS:
        ok = g.get(m) and "ns" in g[m]
        out[m] = g[m]["calibrated_ns"] if ok else None
        out[m + "_raw"] = g[m]["ns"] if ok else None
        out[m + "_lambda"] = g[m].get("lambda") if ok else None
    return out


def pct(x):
    return "%6.1f%%" % (100 * x) if x is not None else "      -"


def mae(v):
    v = [x for x in v if x is not None]
    return (sum(v) / len(v), max(v), len(v)) if v else (None, None, 0)


def main(argv):
    gc, ddir = argv[0], argv[1]
    gpus, cross, jout = [], [], None
    args = iter(argv[2:])
    for a in args:
        if a == "--cross":
            continue
        if a == "--json":
            jout = next(args)
        elif a.count(":") in (2, 3):
            gpus.append((a.split(":") + [ddir])[:4])
        else:
            cross.append(a.split(":"))
    descs = {lab: sorted(glob.glob(os.path.join(d, "*.cfg"))) for lab, _, _, d in gpus}
    meas = {lab: measured(h) for lab, _, h, _ in gpus}
    mdir = {lab: m for lab, m, _, _ in gpus}
    print("%-22s %-10s %-9s %11s %11s %8s %11s %8s %8s  %s" % (
        "kernel", "gpu", "regime", "measured_us", "mwp_us", "err", "little_us", "err", "raw err",
        "bound (Little)"))
    errs, rows, cal = {}, [], {}
    plan = [(k, lab, lab) for lab, _, _, _ in gpus for k in descs[lab]] + \
           [(k, f, t) for f, t in cross for k in descs[f]]
    for cfg, src, dst in plan:
        name = os.path.basename(cfg)[:-4]
        m = meas[dst].get(name)
        p = predict(gc, mdir[dst], cfg)
        if p is None or (m is None and meas[dst]):
            continue
        cal.setdefault(dst, p["calibration"])
        lab = dst if src == dst else "%s->%s" % (src, dst)
        e = {}
        for k in MODELS:
            for sfx in ("", "_raw"):
                e[k + sfx] = abs(p[k + sfx] - m) / m if p[k + sfx] and m else None
                if m:
                    errs.setdefault((lab, k + sfx), []).append(e[k + sfx])
        rows.append({"kernel": name, "gpu": lab, "measured_ns": m, "regime": p["regime"],
                     "bound": p["bound"].get("says", "")} |
                    {k: p[k] for k in MODELS} | {k + "_raw": p[k + "_raw"] for k in MODELS} |
                    {k + "_lambda": p[k + "_lambda"] for k in MODELS} |
                    {k + "_err": e[k] for k in MODELS} | {k + "_raw_err": e[k + "_raw"] for k in MODELS})
        print("%-22s %-10s %-9s %11.1f %11.1f %8s %11.1f %8s %8s  %s" % (
            name, lab, p["regime"], (m or float("nan")) / 1e3, (p["mwp_cwp"] or 0) / 1e3,
            pct(e["mwp_cwp"]), (p["littles_law"] or 0) / 1e3, pct(e["littles_law"]),
            pct(e["littles_law_raw"]), p["bound"].get("says", "")))
    summary = {"suite": {}, "heldout": {}}
    for lab, c in sorted(cal.items()):
        line = []
        for k in MODELS:
            ck = c.get(k) or {}
            r, q = ck.get("suite_raw") or {}, ck.get("suite_calibrated") or {}
            line.append("%s MAE raw %s calibrated %s (n=%d, lambda %.4f)" % (
                k, pct(r.get("mape")), pct(q.get("mape")), q.get("n") or 0,
                ck.get("lambda") if ck.get("lambda") is not None else float("nan")))
            summary["suite"].setdefault(lab, {})[k] = {"raw": r.get("mape"), "calibrated": q.get("mape"),
                                                       "n": q.get("n"), "lambda": ck.get("lambda")}
        print("validation suite on %s (lambda from %s: %s): %s" % (
            lab, c.get("lambda_from"), c.get("note"), "  ".join(line)))
    for lab in sorted({lab for lab, _ in errs}):
        for k in MODELS:
            cm, cx, n = mae(errs.get((lab, k), []))
            rm, rx, _ = mae(errs.get((lab, k + "_raw"), []))
            if not n:
                continue
            print("held-out on %-12s %-12s MAE %s max %s raw MAE %s max %s (n=%d)" % (
                lab, k, pct(cm), pct(cx), pct(rm), pct(rx), n))
            summary["heldout"].setdefault(lab, {})[k] = {"calibrated": cm, "calibrated_max": cx,
                                                         "raw": rm, "raw_max": rx, "n": n}
    if jout:
        json.dump({"rows": rows} | summary, open(jout, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""Crafted catalogues for t_check.sh, from the real H100 example: its one GPU
(and its host links) cloned into 2 nodes x 4 GPUs, values spread by +-0.2%,
then one change:
  healthy    nothing
  suspect    n1/gpu2: every HBM bandwidth (parameters and points) -5%
  degraded   n2/gpu1: PCIe trained at x8 (its host links at half bandwidth)
  failed     n2/gpu3: status failed
usage: craft.py KIND OUT.json            (schema 1: the points inline)
       craft.py KIND OUT_DIR --compact   (schema 2: OUT_DIR/catalogue.json, the points in
                                          OUT_DIR/nodes/; no verdicts, so check judges it
                                          from its node files)"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "tests", "data", "schema1", "h100-default", "catalogue.json")


def main(kind, out, layout=""):
    cat = json.load(open(SRC))
    g0, links0 = cat["gpus"][0], cat["links"]
    gpus, links = [], []
    for k in range(8):
        node, idx = f"n{k // 4 + 1}", k % 4
        f = 1 + 0.002 * ((k * 3) % 5 - 2) / 2
        g = copy.deepcopy(g0)
        g["node"], g["index"], g["rank"] = node, idx, k
        g["identity"]["uuid"] = f"GPU-crafted-{k:04d}"
        for p in g["parameters"]:
            if p["unit"] in ("bytes_per_s", "cycles", "ns"):
                p["value"] *= f
        for r in g["results"]:
            s = r["summary"]
            for q in ("min", "p1", "p5", "p50", "p95", "p99", "max", "mean"):
                if q in s and s[q] is not None:
                    s[q] *= f
        slow = 1.0
        if kind == "suspect" and (node, idx) == ("n1", 2):
            for p in g["parameters"]:
                if p["name"].startswith("hbm_") and p["name"].endswith("_bps"):
                    p["value"] *= 0.95
            for r in g["results"]:
                if r["benchmark"] == "hbm_bw":
                    for q in ("min", "p1", "p5", "p50", "p95", "p99", "max", "mean"):
                        if q in r["summary"]:
                            r["summary"][q] *= 0.95
        if kind == "degraded" and (node, idx) == ("n2", 1):
            g["properties"]["pcie"]["width"] = 8
            slow = 0.5
        if kind == "failed" and (node, idx) == ("n2", 3):
            g["status"], g["status_reason"] = "failed", "the rank stopped after 3 of 950 work items"
        if kind == "incomplete" and (node, idx) == ("n2", 3):
            g["status"], g["status_reason"] = "incomplete", "the rank stopped after 3 of 950 work items"
        gpus.append(g)
        for l in links0:
            l = copy.deepcopy(l)
            for e in (l["src"], l["dst"]):
                e["node"] = node
                if e["type"] == "gpu":
                    e["gpu_index"], e["uuid"] = idx, g["identity"]["uuid"]
            l["measured_on"] = {"node": node, "gpu_index": idx, "rank": k}
            if l["model"] and l["model"]["beta_bps"]:
                l["model"]["beta_bps"] *= f * slow
            for s in l["sizes"]:
                if s["bandwidth_p50_bps"]:
                    s["bandwidth_p50_bps"] *= f * slow
            if l["lambda"]:
                l["lambda"] *= f * slow
            links.append(l)
    cat["gpus"], cat["links"] = gpus, links
    cat["nodes"] = [{"name": n, "gpus": 4, "status": "ok", "file": f"nodes/{n}.json"} for n in ("n1", "n2")]
    cat["run"]["ranks"], cat["run"]["nodes"] = 8, 2
    if layout == "--compact":
        cat["verdicts"] = []   # the example's, not these GPUs': judged again
        gccat.to_compact(cat, out)
        return
    with open(out, "w") as f:
        json.dump(cat, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])

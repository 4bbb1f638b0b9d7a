#!/usr/bin/python3
"""Write a per-SKU baseline file (configs/baselines/*.json) from a catalogue.

usage: tools/make-baseline.py CATALOGUE.json OUT.json [--source TEXT]

Takes the GPUs whose status is ok and whose identity.name is the most
common one, and writes the median of each judged parameter (the default
list of configs/rules.cfg), the most NVLinks any of them had, and the
median model bandwidth (beta) of each link class whose GPU end is of that
SKU. `gpucensus check --baseline OUT.json` then compares a catalogue's
GPUs of that name with it. Points are left out: their keys depend on the
plan, the parameters do not."""
import json
import statistics
import sys
from collections import Counter, defaultdict

PARAMS = ["hbm_bw_bps", "hbm_read_bps", "hbm_write_bps", "hbm_copy_bps", "hbm_triad_bps",
          "l2_bw_bps", "smem_bw_bps", "l1_latency_cycles", "l2_latency_cycles",
          "l2_far_latency_cycles", "dram_latency_cycles", "page_chase_latency_cycles",
          "launch_ns", "launch_sync_ns"]


def link_class(l):
    """as gc_det_link_class (src/detect.c)"""
    s = f'{l["kind"]} {l["benchmark"]} {l["direction"]} {l["memory"]}'
    if l.get("engine"):
        s += " " + l["engine"]
    if l.get("peer_access"):
        s += " peer_access=" + l["peer_access"]
    if l.get("concurrent"):
        s += " concurrent"
    return s


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    src, out = argv[1], argv[2]
    source = argv[argv.index("--source") + 1] if "--source" in argv else src
    cat = json.load(open(src))
    gpus = [g for g in cat["gpus"] if g["status"] == "ok"]
    sku = Counter(g["identity"]["name"] for g in gpus).most_common(1)[0][0]
    gpus = [g for g in gpus if g["identity"]["name"] == sku]
    vals = defaultdict(list)
    for g in gpus:
        for p in g["parameters"]:
            if p["name"] in PARAMS and p["value"] is not None:
                vals[p["name"]].append(p["value"])
    ends = {(g["node"], g["index"]) for g in gpus}
    betas = defaultdict(list)
    for l in cat.get("links", []):
        e = l["src"] if l["src"]["type"] == "gpu" else l["dst"]
        if (e["node"], e["gpu_index"]) in ends and l["model"] and l["model"]["beta_bps"]:
            betas[link_class(l)].append(l["model"]["beta_bps"])
    doc = {
        "schema_version": "1.0",
        "kind": "baseline",
        "sku": sku,
        "source": f"{source}: median of {len(gpus)} GPU(s), plan {cat['run'].get('plan_name')}, "
                  f"driver {gpus[0]['identity'].get('driver_version')}, run {cat['run'].get('start_time')}",
        "parameters": {k: statistics.median(v) for k, v in sorted(vals.items())},
        "nvlink_links": max(g["properties"]["nvlink"]["links"] or 0 for g in gpus),
        "links": {k: statistics.median(v) for k, v in sorted(betas.items())},
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)

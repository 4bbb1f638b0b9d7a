#!/usr/bin/python3
"""Write a per-SKU baseline file (configs/baselines/*.json) from a catalogue.

usage: tools/make-baseline.py CATALOGUE.json [CATALOGUE.json...] -o OUT.json [--source TEXT]

Takes the GPUs whose status is ok and whose identity.name is the most
common one (over all the catalogues given), and writes the median of each judged parameter (the default
list of configs/rules.cfg), the most NVLinks any of them had, and the
median model bandwidth (beta) of each link class whose GPU end is of that
SKU, pageable host copies left out (the host's memcpy sets their rate). `gpucensus check --baseline OUT.json` then compares a catalogue's
GPUs of that name with it. Points are left out: their keys depend on the
plan, the parameters do not."""
import json
import statistics
import sys
from collections import Counter, defaultdict

PARAMS = ["hbm_bw_bps", "hbm_read_bps", "hbm_write_bps", "hbm_copy_bps", "hbm_triad_bps",
          "l2_bw_bps", "smem_bw_bps", "l1_latency_cycles", "l2_latency_cycles",
          "l2_far_latency_cycles", "dram_latency_cycles", "page_chase_latency_cycles"]
# Not launch_ns / launch_sync_ns: the host's CPU and driver set them (two
# H200 of one host read 3.50 and 4.07 us back to back, and swapped places
# between runs), so a SKU baseline would flag healthy GPUs.


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
    args, out, source = [], None, None
    it = iter(argv[1:])
    for a in it:
        if a == "-o":
            out = next(it, None)
        elif a == "--source":
            source = next(it, None)
        else:
            args.append(a)
    if not args or not out:
        sys.exit(__doc__)
    source = source or " + ".join(args)
    cats = [json.load(open(a)) for a in args]
    # GPUs that finished (partial ones too: their parameters are what they measured)
    allg = [(c, g) for c in cats for g in c["gpus"] if g["status"] in ("ok", "partial")]
    sku = Counter(g["identity"]["name"] for _, g in allg).most_common(1)[0][0]
    vals = defaultdict(list)
    betas = defaultdict(list)
    gpus = []
    for cat in cats:
        mine = [g for g in cat["gpus"] if g["status"] in ("ok", "partial") and g["identity"]["name"] == sku]
        gpus += mine
        for g in mine:
            for p in g["parameters"]:
                if p["name"] in PARAMS and p["value"] is not None:
                    vals[p["name"]].append(p["value"])
        ends = {(g["node"], g["index"]) for g in mine}
        for l in cat.get("links", []):
            e = l["src"] if l["src"]["type"] == "gpu" else l["dst"]
            # pageable copies go through the host's memcpy: the host, not
            # the GPU model, sets their rate, so a SKU baseline leaves them out
            if l.get("memory") == "pageable":
                continue
            if (e["node"], e["gpu_index"]) in ends and l["model"] and l["model"]["beta_bps"]:
                betas[link_class(l)].append(l["model"]["beta_bps"])
    cat = cats[0]
    doc = {
        "schema_version": "1.0",
        "kind": "baseline",
        "sku": sku,
        "source": f"{source}: median of {len(gpus)} GPU(s), plan(s) "
                  f"{', '.join(sorted({c['run'].get('plan_name') or '?' for c in cats}))}, "
                  f"driver {gpus[0]['identity'].get('driver_version')}",
        "parameters": {k: statistics.median(v) for k, v in sorted(vals.items())},
        "nvlink_links": max(g["properties"]["nvlink"]["links"] or 0 for g in gpus),
        "links": {k: statistics.median(v) for k, v in sorted(betas.items())},
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)

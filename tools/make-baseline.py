#!/usr/bin/python3
"""Write per-SKU baseline files (configs/baselines/*.json) from catalogues.

usage: tools/make-baseline.py CATALOGUE[.json|DIR] ... -o OUT.json [--sku NAME] [--source TEXT]
       tools/make-baseline.py CATALOGUE ... --dir OUTDIR   (one file per SKU, named after it)

Like with like: every value is kept per plan (the catalogue's run.plan_name)
and per point key (the kernel, footprint and size: src/judge/detect.c's
gc_det_point_key, observed context left out), so `gpucensus check` compares
a point only with what the same plan measured there. A parameter such as
hbm_bw_bps is the best of the kernels a plan runs: it is kept per plan too.
Each value is {"median", "lo", "hi", "n"}: the median of the healthy GPUs
given and the range they showed (check allows a value that range, or its
own spread, before it counts a deviation).

Methods: a benchmark's values are taken only from GPUs measured with its
newest method among the catalogues given (gpus[].methods where recorded;
older catalogues dated by METHODS), and the file says which per plan
("methods": benchmark -> version), so that check compares a value only
with baseline values of the same method.

Left out: GPUs not ok, GPUs that another process shared during the run (a
point flagged gpu_shared), a benchmark's values of an older method than
the newest given, values the host sets more than the GPU (launch and
block-scheduling times, pageable copies, both-ways host copies: another host
would read them otherwise), the NVLink count (check takes topology from the
run itself: a GPU with no NVLink peer is not missing links)."""
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

import gccat  # tools/gccat.py: a catalogue with its points, whatever its layout

PARAMS = ["hbm_bw_bps", "hbm_read_bps", "hbm_write_bps", "hbm_copy_bps", "hbm_triad_bps",
          "l2_bw_bps", "smem_bw_bps", "l1_latency_cycles", "l2_latency_cycles",
          "l2_far_latency_cycles", "dram_latency_cycles", "page_chase_latency_cycles",
          "sustained_sm_clock_mhz"]
# as gc_det_ctx_observed (src/judge/detect.c): context that holds what was observed
OBSERVED = {"sm_clock_mhz_measured", "timer_cost_median_cycles", "loaded_s", "ecc_corrected_new",
            "ecc_uncorrected_new", "remapped_rows_new", "slowdown_reasons", "xid_events",
            "fma_iters", "bytes_moved", "theoretical_bps", "nominal_bps", "pcie_gen", "pcie_width",
            "confirm", "host_huge_fraction",
            # a host-bound point's re-measure figures (src/measure/remeasure.h)
            "spread", "spread_low", "spread_first", "spread_low_first", "spread_last", "spread_low_last",
            "remeasures", "median_moved", "median_stable", "host_noisy", "capability_bps"}
# Each change of a benchmark's method (src/census/registry.c's method_changes,
# the same rows; t_fleet_baseline checks they agree): the version it started,
# its commit and the commit's date. Only for catalogues that predate recorded
# versions (gpus[].methods): git ancestry where this clone knows both
# commits, else the run's start time. Values of another method say something
# else under the same point keys (an H200 default run came out degraded
# against loaded-latency values that predate 1e7d199).
METHODS = {   # benchmark: [(version, commit, date), ...]
    "hbm_bw": [(2, "b64c1bf", "2026-11-24T00:14:12Z"),    # arrays on 2 MiB boundaries
               (3, "7b94a6c", "2026-11-25T22:39:29Z")],   # the full grid on every launch
    "chase_loaded": [(2, "1e7d199", "2026-11-24T00:24:52Z")],   # the chain's L2 read away first
    "l2_bw": [(2, "857ef06", "2026-11-24T00:31:23Z"),     # chunks by a hash
              (3, "c6515bd", "2026-11-24T00:35:43Z"),     # in order, shifted per SM
              (4, "537d767", "2026-11-24T00:37:50Z"),     # shifted only where needed
              (5, "d8e78b3", "2026-11-25T22:19:07Z"),     # kernel rewritten (unroll, asm loads)
              (6, "e2a563f", "2026-11-26T01:30:15Z")],    # l2_bw_bps without chunk sharing
    "xfer": [(2, "5474277", "2026-11-26T04:32:50Z")],     # SM both ways one kernel, host chase every SM
}
# the benchmark a derived parameter comes from (gc_bench_of_param, registry.c)
PARAM_BENCH = [("hbm_", "hbm_bw"), ("l2_bw", "l2_bw"), ("smem_bw", "smem_bw"), ("launch", "launch"),
               ("block_", "launch"), ("sustain", "sustain"), ("sm_clock_p5", "sustain"),
               ("time_to_first_throttle", "sustain"), ("l1_latency", "chase"), ("l2_latency", "chase"),
               ("l2_far_latency", "chase"), ("dram_latency", "chase"), ("page_chase", "chase"),
               ("dram_loaded", "chase_loaded"), ("dram_inflight", "mlp"), ("gather_", "mlp"),
               ("scatter_", "mlp"), ("inst_", "inst")]
JUDGED_UNITS = {"bytes_per_s", "ops_per_cycle_per_sm", "cycles", "ns"}
SKIP_BENCH = {"xfer", "p2p", "net"}   # judged as links (configs/rules.cfg peers.skip_benchmarks)


def host_set(key):
    """as gc_det_host_set (src/judge/detect.c)"""
    return key.startswith("launch") or "pageable" in key or key.startswith("pcie xfer bidir")


def num(v):
    """%.10g as the C side prints a rounded number"""
    return "%.10g" % float("%.10g" % v)


_since = {}


def known(commit):
    return subprocess.run(["git", "cat-file", "-e", commit + "^{commit}"],
                          capture_output=True).returncode == 0


def measured_since(run, change):
    """whether a catalogue's run (its git_commit, else its start_time) has
    the method change `change` = (version, commit, date): git ancestry where
    this clone knows both commits; a commit with changes on top counts as itself"""
    _, cut, date = change
    commit = (run.get("git_commit") or "").removesuffix("-dirty")
    if (commit, cut) not in _since:
        if commit and known(commit) and known(cut):
            ok = subprocess.run(["git", "merge-base", "--is-ancestor", cut, commit],
                                capture_output=True).returncode == 0
        else:
            ok = (run.get("start_time") or "") >= date
        _since[(commit, cut)] = ok
    return _since[(commit, cut)]


def method_of(run, g, bench):
    """the method version g measured bench with: recorded, else dated"""
    if "methods" in g:
        return g["methods"].get(bench, 1)
    return max([v for v, c, d in METHODS.get(bench, []) if measured_since(run, (v, c, d))] or [1])


def param_bench(name):
    return next((b for p, b in PARAM_BENCH if name.startswith(p)), None)


def point_key(r):
    s = f'{r["benchmark"]}.{r["metric"]}'
    for k, v in r["context"].items():
        if k in OBSERVED:
            continue
        s += f" {k}={v}" if isinstance(v, str) else f" {k}={num(v)}"
    return s


def link_class(l):
    """as gc_det_link_class (src/judge/detect_rules.c)"""
    s = f'{l["kind"]} {l["benchmark"]} {l["direction"]} {l["memory"]}'
    if l.get("engine"):
        s += " " + l["engine"]
    if l.get("peer_access"):
        s += " peer_access=" + l["peer_access"]
    if l.get("concurrent"):
        s += " concurrent"
    return s


def shared(g):
    return any("gpu_shared" in r.get("flags", []) for r in g["results"])


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "catalogue.json")
    return path, gccat.load(path)


def summary(vals):
    return {"median": statistics.median(vals), "lo": min(vals), "hi": max(vals), "n": len(vals)}


def healthy(cat, sku):
    return [g for g in cat["gpus"] if g["status"] == "ok" and g["identity"]["name"] == sku
            and not shared(g)]


def benches_of(g):
    return {r["benchmark"] for r in g["results"]} | set(g.get("methods", {}))


def build(cats, sku, source):
    plans = defaultdict(lambda: {"parameters": defaultdict(list), "points": defaultdict(list),
                                 "links": defaultdict(list), "catalogues": []})
    # each plan's newest method of each benchmark among the catalogues given
    newest = defaultdict(dict)
    for path, cat in cats:
        plan = cat["run"].get("plan_name") or ""
        for g in healthy(cat, sku):
            for b in benches_of(g):
                newest[plan][b] = max(newest[plan].get(b, 0), method_of(cat["run"], g, b))
    ngpu, drivers = 0, set()
    for path, cat in cats:
        plan = cat["run"].get("plan_name") or ""
        mine = healthy(cat, sku)
        if not mine:
            continue

        def current(g, bench):
            return bench is None or method_of(cat["run"], g, bench) == newest[plan].get(bench, 1)
        p = plans[plan]
        p["catalogues"].append(os.path.relpath(path))
        ngpu += len(mine)
        for g in mine:
            drivers.add(g["identity"].get("driver_version"))
            for x in g["parameters"]:
                if x["name"] in PARAMS and x["value"] is not None and current(g, param_bench(x["name"])):
                    p["parameters"][x["name"]].append(x["value"])
            for r in g["results"]:
                if r["status"] != "ok" or r["unit"] not in JUDGED_UNITS or r["benchmark"] in SKIP_BENCH \
                        or r["context"].get("confirm") == "remeasure":
                    continue
                if not current(g, r["benchmark"]):
                    continue
                if not r["summary"].get("count"):
                    continue
                k = point_key(r)
                if not host_set(k):
                    p["points"][k].append(r["summary"]["p50"])
        ends = {(g["node"], g["index"]): g for g in mine}
        for l in cat.get("links", []):
            e = l["src"] if l["src"]["type"] == "gpu" else l["dst"]
            cls = link_class(l)
            if host_set(cls) or not l.get("model") or not l["model"].get("beta_bps"):
                continue
            g = ends.get((e["node"], e["gpu_index"]))
            if g and current(g, l["benchmark"]):
                p["links"][cls].append(l["model"]["beta_bps"])
    out = {}
    for plan, p in sorted(plans.items()):
        out[plan] = {"catalogues": p["catalogues"], "methods": dict(sorted(newest[plan].items()))}
        for what in ("parameters", "points", "links"):
            out[plan][what] = {k: summary(v) for k, v in sorted(p[what].items())}
    return {
        "schema_version": "1.0",
        "kind": "baseline",
        "sku": sku,
        "source": f"{source}: {ngpu} healthy GPU run(s) of plan(s) {', '.join(sorted(plans))}, "
                  f"driver(s) {', '.join(sorted(d for d in drivers if d))}",
        "plans": out,
    }


def main(argv):
    args, out, outdir, sku, source = [], None, None, None, None
    it = iter(argv[1:])
    for a in it:
        if a == "-o":
            out = next(it, None)
        elif a == "--dir":
            outdir = next(it, None)
        elif a == "--sku":
            sku = next(it, None)
        elif a == "--source":
            source = next(it, None)
        else:
            args.append(a)
    if not args or not (out or outdir):
        sys.exit(__doc__)
    cats = [load(a) for a in args]
    skus = sorted({g["identity"]["name"] for _, c in cats for g in c["gpus"] if g["status"] == "ok"})
    if sku:
        skus = [sku]
    elif out and len(skus) > 1:
        sys.exit(f"make-baseline: several SKUs ({', '.join(skus)}): give --sku or --dir")
    for s in skus:
        doc = build(cats, s, source or "the catalogues listed per plan")
        dest = out or os.path.join(outdir, s.lower().replace("nvidia ", "").replace(" ", "-") + ".json")
        with open(dest, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"make-baseline: {dest}: {s}, plans {', '.join(doc['plans'])}")


if __name__ == "__main__":
    main(sys.argv)

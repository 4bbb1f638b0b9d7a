#!/bin/sh
# Small fleets, judged as a run judges them (build/bench/bench_verdicts: the
# sim through the schedule, the rank's record, rank 0's analysis and
# detector, default rules, no baseline):
# - 4 healthy nodes of the default plan, sim seed 14: every verdict ok. Its
#   n3/gpu2 is drawn 2.2% below its peers on every bandwidth (the sim's GPU
#   spread, 0.65%); one HBM write point whose MAD over the 32 GPUs read low
#   made it suspect (-3.1%, robust z -5.7) before a key's spread was pooled
#   with its benchmark's keys (src/judge/detect_peers.c);
# - 4 nodes of the quick plan, seed 2, every GPU of n3 copying to and from
#   the host at 90%: n3 gets the host reason, and nothing outside n3 is
#   named.
# The sweep over 2..8 nodes and 20 seeds of both plans is
# `bench/bench_detect.py --small-fleets`.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
BV=$BUILD/bench/bench_verdicts
[ -x "$BV" ] || skip "no $BV (make tests)"
command -v python3 >/dev/null || skip "no python3"

plans() {   # plans BASE SEED FAULTNODE: healthy and faulted plans in $TMP
    python3 - "$@" <<'PY' || die "plans"
import sys
sys.path.insert(0, "bench")
import bench_detect as b
base, seed, node = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tmp = __import__("os").environ["TMP"]
faults = [(node, g, m, "scale", 0.9) for g in range(8) for m in ("h2d_bw", "d2h_bw")] if node != "-" else []
open(f"{tmp}/healthy.cfg", "w").write(b.plan_text(base, seed, []))
open(f"{tmp}/faulted.cfg", "w").write(b.plan_text(base, seed, faults))
PY
}
export TMP

plans configs/default.cfg 14 -
"$BV" -n 32 -g 8 -o "$TMP/d14" "$TMP/healthy.cfg" >"$TMP/out" 2>&1 || { cat "$TMP/out"; die "bench_verdicts"; }
python3 - "$TMP/d14/healthy.json" <<'PY' || die "default plan, seed 14, 4 nodes: not every verdict ok"
import json, sys
bad = [v for v in json.load(open(sys.argv[1])) if v["verdict"] != "ok"]
for v in bad:
    print(v["verdict"], v["subject"], v["reasons"][0]["detail"] if v["reasons"] else "")
sys.exit(1 if bad else 0)
PY
echo "ok: default plan, seed 14, 4 healthy nodes: every verdict ok"

plans configs/quick.cfg 2 n3
"$BV" -n 32 -g 8 -o "$TMP/q2" "$TMP/healthy.cfg" "$TMP/faulted.cfg" >"$TMP/out" 2>&1 || { cat "$TMP/out"; die "bench_verdicts"; }
python3 - "$TMP/q2" <<'PY' || die "quick plan, seed 2, n3's host at 90%"
import json, sys
d = sys.argv[1]
h = [v for v in json.load(open(d + "/healthy.json")) if v["verdict"] != "ok"]
f = json.load(open(d + "/faulted.json"))
n3 = next(v for v in f if v["type"] == "node" and v["node"] == "n3")
host = [r for r in n3["reasons"] if r["rule"] == "host"]
others = [v for v in f if v["verdict"] != "ok" and v["node"] != "n3"]
gpus = [v for v in f if v["type"] == "gpu" and v["verdict"] != "ok"]
print("healthy not ok:", len(h), "| n3 host reason:", host[0]["detail"] if host else None,
      "| named outside n3:", len(others), "| GPUs named:", len(gpus))
sys.exit(0 if not h and host and not others and not gpus else 1)
PY
echo "ok: quick plan, seed 2, n3's host at 90% of 4: the host named, nothing else"

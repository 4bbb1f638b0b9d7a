#!/bin/sh
# The shipped plans on the sim backend (2 ranks, so pair and net items run
# too): every point of every benchmark the plans name lands in a
# schema-valid catalogue, with no failed item.
. "$(dirname "$0")/../lib.sh"
for plan in default quick; do
    out=$TMP/$plan
    $MPIRUN -np 2 "$GC" run "$ROOT/configs/$plan.cfg" --backend sim --sim-nodes 1 -o "$out" --quiet \
        || die "$plan plan failed"
    $VALIDATE "$out" > "$TMP/v.txt" || { cat "$TMP/v.txt"; die "$plan: schema"; }
    /usr/bin/python3 - "$out" <<'PY' || die "$plan: catalogue"
import json, sys
import gccat
c = gccat.load(sys.argv[1])
assert len(c["gpus"]) == 2, len(c["gpus"])
for g in c["gpus"]:
    bad = [r for r in g["results"] if r["status"] != "ok"]
    assert g["status"] == "ok" and not bad, (g["status"], g["status_reason"], bad[:2])
    assert g["items_done"] == g["items_total"] > 0
    names = {p["name"] for p in g["parameters"]}
    for k in ("l1_latency_cycles", "l2_latency_cycles", "dram_latency_cycles", "hbm_bw_bps",
              "hbm_achieved_ratio", "launch_ns"):
        assert k in names, k
print(sys.argv[1], "ok:", sum(len(g["results"]) for g in c["gpus"]), "points")
PY
done

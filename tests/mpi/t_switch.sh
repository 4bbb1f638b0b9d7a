#!/bin/sh
# The common end above the GPUs (tests/mpi/switch.cfg, 16 ranks on 2 sim
# nodes of 8 GPUs: 2 NUMA nodes, 4 PCIe switches of 2 GPUs each): the slow
# switch of n1 is named on n1 (not its NUMA node, not its GPUs); n1's GPU 6,
# slow alone, is the common end of its own host links; n2's slow NUMA node
# 1 is named (not its switches, not its GPUs). Every GPU's switch is in
# the catalogue (properties.pcie.switch), which validates.
. "$(dirname "$0")/../lib.sh"
out=$TMP/sw
$MPIRUN -np 16 "$GC" run "$ROOT/tests/mpi/switch.cfg" --backend sim -o "$out" --quiet > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" check "$out" > "$TMP/check.out" 2>&1
[ $? -eq 2 ] || { cat "$TMP/check.out"; die "check exit"; }
grep -q "^degraded  n1 .*pcie_switch: host copies of the 2 GPUs behind PCIe switch 0000:40:00.0 run at" \
    "$TMP/check.out" || { cat "$TMP/check.out"; die "n1's switch not named"; }
grep -q "^degraded  n2 .*numa: host_numa_node: host copies of the 4 GPUs near host NUMA node 1 run at" \
    "$TMP/check.out" || { cat "$TMP/check.out"; die "n2's NUMA node not named"; }
"$GC" check "$out" --json > "$TMP/v.json"
/usr/bin/python3 - "$out" "$TMP/v.json" <<'PY' || die "verdicts"
import json, sys
import gccat
d = gccat.load(sys.argv[1])
sw = {(g["node"], g["index"]): g["properties"]["pcie"]["switch"] for g in d["gpus"]}
want = ["0000:10:00.0", "0000:40:00.0", "0000:70:00.0", "0000:a0:00.0"]
assert all(sw[(n, i)] == want[i // 2] for n in ("n1", "n2") for i in range(8)), sw
v = json.load(open(sys.argv[2]))["verdicts"]
rules = {x["subject"]: sorted((r["rule"], r["metric"]) for r in x["reasons"] if r["rule"] not in ("gpu", "link"))
         for x in v if x["type"] == "node"}
assert rules == {"n1": [("pcie_switch", "pcie_switch")], "n2": [("numa", "host_numa_node")]}, rules
ends = {x["subject"]: x["verdict"] for x in v if x["type"] == "gpu"
        and any(r["rule"] == "common_end" for r in x["reasons"])}
assert ends == {"n1/gpu6": "suspect"} or ends == {"n1/gpu6": "degraded"}, ends
bad = [x["subject"] for x in v if x["type"] == "gpu" and x["verdict"] != "ok" and x["subject"] != "n1/gpu6"]
assert not bad, bad
PY
echo "t_switch: n1's PCIe switch 0000:40:00.0 and n2's NUMA node 1 named, n1/gpu6 the common end of its host links"

#!/bin/sh
# The aggregation tree (src/tree/tree.c): 64 real MPI ranks on 8 simulated nodes
# (oversubscribed) send records, the 8 node leaders write their node files,
# rank 0 the catalogue; it validates and equals `merge`'s from the shards.
# Then a leader that dies: the others' results are all there, its node's
# file is written by rank 0 from the shards it can read (here: all), and
# merge agrees on every GPU but the dead one's last shard.
. "$(dirname "$0")/../lib.sh"

out=$TMP/np64
timeout 600 $MPIRUN -np 64 "$GC" run "$ROOT/tests/mpi/plan.cfg" --backend sim --sim-nodes 8 \
    -o "$out" --quiet > "$TMP/np64.log" 2>&1 || { cat "$TMP/np64.log"; die "64 ranks: run failed"; }
[ "$(ls "$out/nodes" | wc -l)" = 8 ] || die "64 ranks: $(ls "$out/nodes" | wc -l) node files, not 8"
grep -q "leader wrote no node file" "$TMP/np64.log" && die "64 ranks: rank 0 wrote a node file"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "64 ranks: schema"; }
/usr/bin/python3 - "$out/catalogue.json" <<'PY' || die "64 ranks: catalogue"
import json, sys
cat = json.load(open(sys.argv[1]))
assert len(cat["gpus"]) == 64 and len(cat["nodes"]) == 8, (len(cat["gpus"]), len(cat["nodes"]))
assert all(g["status"] == "ok" for g in cat["gpus"]), [g["status_reason"] for g in cat["gpus"]]
assert sorted({g["node"] for g in cat["gpus"]}) == ["n%d" % i for i in range(1, 9)]
PY
"$GC" merge "$out/shards" -o "$out/merged" > /dev/null || die "64 ranks: merge"
/usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$out/merged" || die "64 ranks: run != merge"
echo "ok: 64 ranks on 8 nodes, catalogue equal to merge's"

# A dead leader (rank 2, n2/gpu0).
OMPI_MCA_orte_enable_recovery=1 OMPI_MCA_orte_abort_on_non_zero_status=0 \
    timeout 120 $MPIRUN -np 4 "$GC" run "$ROOT/tests/mpi/crash_leader.cfg" --backend sim \
    -o "$TMP/lead" --gather-timeout 2 --quiet > "$TMP/lead.log" 2>&1
rc=$?
cat "$TMP/lead.log"
[ $rc = 124 ] && die "dead leader: the job hung"
# (the exit status: 0 in Open MPI's recovery mode, which records none)
grep -q "node n2: its leader wrote no node file" "$TMP/lead.log" || die "dead leader: rank 0 did not say it wrote n2's file"
[ -f "$TMP/lead/nodes/n2.json" ] && [ -f "$TMP/lead/nodes/n1.json" ] || die "dead leader: node files missing"
$VALIDATE "$TMP/lead" > /dev/null || { $VALIDATE "$TMP/lead"; die "dead leader: schema"; }
/usr/bin/python3 - "$TMP/lead" <<'PY' || die "dead leader: catalogue"
import json, sys
d = sys.argv[1]
cat = json.load(open(d + "/catalogue.json"))
g = {(x["node"], x["index"]): x for x in cat["gpus"]}
assert sorted(g) == [("n1", 0), ("n1", 1), ("n2", 0), ("n2", 1)], sorted(g)
assert g[("n2", 0)]["status"] == "incomplete" and g[("n2", 0)]["items_done"] == 2, g[("n2", 0)]
assert all(x["items_done"] >= 2 for x in cat["gpus"])
node = json.load(open(d + "/nodes/n2.json"))
# rank 0 reads every shard here: every point of n2 keeps its histogram
pts = [r for x in node["gpus"] for r in x["results"]]
assert pts and all(r["histogram"] is not None for r in pts if r["status"] == "ok")
cg = {(x["node"], x["index"]): x for x in node["gpus"]}
assert cg[("n2", 1)]["items_done"] == g[("n2", 1)]["items_done"]
print("dead leader: n2/gpu0", g[("n2", 0)]["status_reason"])
PY
"$GC" merge "$TMP/lead/shards" -o "$TMP/lead/merged" > /dev/null || die "dead leader: merge"
/usr/bin/python3 "$ROOT/tests/mpi/same.py" "$TMP/lead" "$TMP/lead/merged" || die "dead leader: run != merge"
echo "ok: 64-rank tree, dead leader"

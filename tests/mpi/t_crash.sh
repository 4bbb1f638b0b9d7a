#!/bin/sh
# A rank killed mid-plan: the other ranks' shards stay intact and complete,
# the dead rank's shard keeps what it finished, and `merge` builds a
# schema-valid catalogue that marks the dead rank's GPU failed.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/crash.cfg
out=$TMP/out
"$GC" plan "$plan" --ranks 3 --nodes 3 > "$TMP/plan.txt" || die "plan listing"
# Let the survivors run on after the death instead of being killed by
# mpirun; they then wait in the gather, where this test stops them.
export OMPI_MCA_orte_enable_recovery=1 OMPI_MCA_orte_abort_on_non_zero_status=0
$MPIRUN -np 3 "$GC" run "$plan" --backend sim -o "$out" --quiet > "$TMP/run.log" 2>&1 &
pid=$!
ok=0
for i in $(seq 1 120); do
    sleep 0.5
    [ -d "$out/shards" ] || continue
    if "$GC" merge "$out/shards" -o "$TMP/m" >/dev/null 2>&1 &&
       /usr/bin/python3 "$ROOT/tests/mpi/check.py" "$TMP/m" "$TMP/plan.txt" --failed 1 >/dev/null; then
        ok=1
        break
    fi
done
# mpirun stops its ranks on SIGTERM
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
[ $ok = 1 ] || { /usr/bin/python3 "$ROOT/tests/mpi/check.py" "$TMP/m" "$TMP/plan.txt" --failed 1; cat "$TMP/run.log"; die "survivors did not finish or the dead GPU is not failed"; }
"$GC" merge "$out/shards" -o "$TMP/final" > "$TMP/merge.txt" || die "merge"
cat "$TMP/merge.txt"
/usr/bin/python3 "$ROOT/tests/mpi/check.py" "$TMP/final" "$TMP/plan.txt" --failed 1 || die "catalogue"
$VALIDATE "$TMP/final" > /dev/null || { $VALIDATE "$TMP/final"; die "schema"; }
/usr/bin/python3 - "$TMP/final" <<'PY' || die "dead GPU's results"
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
g = [g for g in cat["gpus"] if g["node"] == "n2"][0]
items = sorted({r["item"] for r in g["results"]})
# items 0..3 were finished before the crash at item 4, and kept
assert g["items_done"] == 4 and items == [0, 1, 2, 3], (g["items_done"], items)
assert "stopped after 4 of" in g["status_reason"], g["status_reason"]
print("dead GPU kept items", items, "-", g["status_reason"])
PY

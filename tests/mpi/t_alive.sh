#!/bin/sh
# A rank slow but alive while it ends is not judged lost (the whole census:
# gpucensus run, real mpirun, sim backend). The rank of n2/gpu0, its node's
# leader, takes 2 s more for each step of its end (tests/mpi/slow_end.cfg:
# the sim's slow_end fault, which it names on stderr): its shard, each GPU
# of its node file, its analysis; 12 s in all, twice --gather-timeout, so a
# rank silent while it ends is lost here. It says it is alive between
# steps (gc_watch_busy): no rank lost, exit 0, its GPU ok with every item's
# results, its node file its own, the catalogue what `merge` gives from the
# shards. (A build whose gc_watch_busy sends nothing judged it lost: rank
# 2 "no word for 6 s", exit 1, its GPU failed.)
. "$(dirname "$0")/../lib.sh"
GT=6   # --gather-timeout (s); each step 2 s: a 4 s margin against load

out=$TMP/alive
timeout 300 $MPIRUN -np 4 "$GC" run "$ROOT/tests/mpi/slow_end.cfg" --backend sim -o "$out" \
    --gather-timeout $GT --quiet > "$TMP/alive.log" 2>&1
rc=$?
cat "$TMP/alive.log"
[ $rc = 124 ] && die "the job hung (killed by timeout)"
grep -q "lost, hung or dead" "$TMP/alive.log" && die "a rank was judged lost"
[ $rc = 0 ] || die "exit $rc"
# the sim says what it did: six steps of 2 s on rank 2, more than GT in all
added=$(sed -n 's/^gpucensus: rank 2: sim fault slow_end: a step of its end 2.0 s longer (\([0-9.]*\) s so far)$/\1/p' \
    "$TMP/alive.log" | tail -n 1)
[ -n "$added" ] || die "no slow_end line from rank 2"
awk -v a="$added" -v g=$GT 'BEGIN { exit !(a > g) }' || die "rank 2's end only $added s longer"
grep "sim fault slow_end" "$TMP/alive.log" | grep -qv "^gpucensus: rank 2:" && die "slow_end on another rank"
grep -q "leader wrote no node file" "$TMP/alive.log" && die "rank 0 wrote a node file"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "schema"; }
/usr/bin/python3 - "$out/catalogue.json" "$out/nodes/n2.json" <<'PY' || die "catalogue"
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
g = {(x["node"], x["index"]): x for x in cat["gpus"]}
assert sorted(g) == [("n1", 0), ("n1", 1), ("n2", 0), ("n2", 1)], sorted(g)
assert all(x["status"] == "ok" for x in g.values()), {k: x["status_reason"] for k, x in g.items()}
slow = g[("n2", 0)]
assert slow["items_done"] == slow["items_total"] > 0, (slow["items_done"], slow["items_total"])
items = sorted({r["item"] for r in slow["results"]})
assert items == [0, 1, 2, 3], items   # the plan's four items, as every other GPU
assert all(sorted({r["item"] for r in x["results"]}) == items for x in g.values())
node = json.load(open(sys.argv[2]))
assert [x["index"] for x in node["gpus"]] == [0, 1], [x["index"] for x in node["gpus"]]
print("n2/gpu0: ok, items", items, "in the catalogue and its node file")
PY
"$GC" merge "$out/shards" -o "$out/merged" > /dev/null || die "merge"
/usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$out/merged" || die "run != merge"
echo "ok: a rank $added s slower to end than usual (--gather-timeout $GT) is not lost; catalogue equal to merge's"

#!/bin/sh
# SIGTERM (what scancel and Slurm's time limit send) during a run: the
# ranks end the work item they are in (item 3 of every GPU, made 6 s long
# by the plan), rank 0 gathers what they have, writes a partial catalogue,
# says so, and the job ends with exit 1 in bounded time; nothing is left
# half-written; the unfinished GPUs are "incomplete" and check exits 3
# (could not judge) and drains nothing. Once with every rank signalled (as Slurm does), once with
# one rank only (it tells rank 0). Then `merge` interrupted by SIGTERM at
# many moments: it leaves no temporary behind.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/stop.cfg

stop_run() {   # stop_run NAME WHO: WHO = all | one
    name=$1 who=$2 out=$TMP/$1
    $MPIRUN -np 4 "$GC" run "$plan" --backend sim -o "$out" --progress=json > "$TMP/$name.log" 2>&1 &
    mp=$!
    # every rank is in item 3 once every shard holds 3 items done
    GC=$GC "$ROOT/tests/mpi/wait_items.sh" "$out" 4 3 || {
        kill -TERM $mp; cat "$TMP/$name.log"; die "$name: never reached item 3"; }
    ranks=$(pgrep -P $mp | tr '\n' ' ')
    [ "$(echo $ranks | wc -w)" = 4 ] || die "$name: ranks of mpirun: '$ranks'"
    t0=$(date +%s)
    if [ "$who" = all ]; then
        kill -TERM $ranks
    else
        kill -TERM "$(echo $ranks | cut -d' ' -f3)"
    fi
    wait $mp
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    cat "$TMP/$name.log"
    [ $rc = 1 ] || die "$name: exit $rc, expected 1"
    [ $secs -le 20 ] || die "$name: $secs s from SIGTERM to the end"
    grep -q "the catalogue in $out is partial" "$TMP/$name.log" || die "$name: no 'partial' message"
    left=$(find "$out" -name '*.tmp.*' | wc -l)
    [ "$left" = 0 ] || die "$name: $left temporaries left"
    $VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "$name: schema"; }
    /usr/bin/python3 - "$out/catalogue.json" "$who" <<'PY' || die "$name: catalogue"
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
assert len(cat["gpus"]) == 4, len(cat["gpus"])
for g in cat["gpus"]:
    items = sorted({r["item"] for r in g["results"]})
    assert items == list(range(g["items_done"])), (g["node"], g["index"], g["items_done"], items)
    # a signalled rank ends item 3 and starts nothing after it; the others
    # hear of the stop when rank 0 is between items (after its item 3)
    signalled = sys.argv[2] == "all" or (g["node"], g["index"]) == ("n2", 0)
    assert g["items_done"] == 4 if signalled else g["items_done"] >= 4, (g["node"], g["index"], g["items_done"])
    if g["items_done"] < 6:
        assert g["status"] == "incomplete" and "stopped after" in g["status_reason"], g["status_reason"]
print("items done per GPU:", [g["items_done"] for g in cat["gpus"]])
PY
    # a stopped run is not a bad GPU: check could not judge (3), drains nothing
    "$GC" check "$out" > "$TMP/$name.check" 2>&1
    crc=$?
    cat "$TMP/$name.check"
    [ $crc = 3 ] || die "$name: check exit $crc, expected 3 (could not judge)"
    grep -q 'scontrol' "$TMP/$name.check" && die "$name: check drains a node of a stopped run"
    grep -q '^incomplete ' "$TMP/$name.check" || die "$name: no GPU shown incomplete"
    grep -Eq '^GPUs .* 0 degraded, 0 failed, [1-9][0-9]* incomplete' "$TMP/$name.check" ||
        die "$name: check's counts"
    echo "$name: exit $rc, $secs s after SIGTERM; check exit $crc"
}

stop_run all all
grep -q '^gpucensus: stopped by SIGTERM on rank 0: the run stops' "$TMP/all.log" ||
    die "all: rank 0 does not say it was stopped by SIGTERM"
stop_run one one
grep -q '^gpucensus: rank 2 was stopped by SIGTERM: the run stops' "$TMP/one.log" ||
    die "one: rank 0 does not say which rank was stopped"

# merge interrupted at 0..190 ms: finished or not, no temporary is left.
cut=0
for ms in 0 5 10 15 20 30 40 50 60 70 80 90 110 130 150 170 190; do
    rm -rf "$TMP/m"
    timeout -s TERM "$(awk -v m=$ms 'BEGIN { printf "%.3f", m / 1000 }')" \
        "$GC" merge "$TMP/all/shards" -o "$TMP/m" > /dev/null 2>&1
    rc=$?
    [ $rc = 124 ] && cut=$((cut + 1))
    [ $rc = 0 ] || [ $rc = 124 ] || die "merge after ${ms} ms: exit $rc"
    left=$( [ -d "$TMP/m" ] && find "$TMP/m" -name '*.tmp.*' | wc -l || echo 0)
    [ "$left" = 0 ] || die "merge stopped after ${ms} ms left $left temporaries"
done
[ $cut -gt 0 ] || die "no merge was interrupted (all finished within 0 ms?)"
echo "merge: $cut of 17 interrupted by SIGTERM, no temporary left"
echo "ok: SIGTERM on every rank or one: partial catalogue, exit 1; merge leaves no temporary"

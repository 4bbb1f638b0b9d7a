#!/bin/sh
# A rank that dies by a fatal signal says who and where before it dies:
# n2's rank writes through a null pointer at work item 4 (sim fault
# "segv"). Its report names rank, node, GPU and the item, gives a
# backtrace through the code that faulted, and it is ours, not Open MPI's
# (ours is installed before MPI_Init, where Open MPI keeps an existing
# handler). The process still dies by SIGSEGV, so mpirun ends the job with
# its own code for a rank killed by a signal: 128 + 11. The dead rank's
# shard keeps the items it finished, and nothing is left half-written.
. "$(dirname "$0")/../lib.sh"
out=$TMP/out
timeout 120 $MPIRUN -np 3 "$GC" run "$ROOT/tests/mpi/segv.cfg" --backend sim -o "$out" --quiet \
    > "$TMP/run.log" 2>&1
rc=$?
cat "$TMP/run.log"
[ $rc = 124 ] && die "the job hung"
[ $rc = 139 ] || die "mpirun exit $rc, expected 139 (a rank killed by SIGSEGV)"
grep -Eq '^gpucensus: rank 1 \(node n2, gpu 0, pid [0-9]+\): fatal signal 11 \(SIGSEGV: address not mapped\) at address 0x0, during work item 4 \(hbm_bw, phase gpu\)$' \
    "$TMP/run.log" || die "no report naming rank, node, GPU, the fault and the work item"
grep -q '^gpucensus: rank 1 (node n2, gpu 0, pid [0-9]*): backtrace' "$TMP/run.log" || die "no backtrace header"
grep -q 'gpucensus(sim_fault_events+0x' "$TMP/run.log" || die "the backtrace does not reach the faulting function"
grep -q 'gpucensus(gc_run_main+0x' "$TMP/run.log" || die "the backtrace does not reach gc_run_main"
grep -q '^gpucensus: rank 1 (node n2, gpu 0, pid [0-9]*): ending by signal 11 (SIGSEGV)$' "$TMP/run.log" ||
    die "no 'ending by signal' line"
grep -q 'Process received signal' "$TMP/run.log" && die "Open MPI's handler ran instead of ours"
grep -q 'exited on signal 11' "$TMP/run.log" || die "the rank did not die by SIGSEGV"
left=$(find "$out" -name '*.tmp.*' | wc -l)
[ "$left" = 0 ] || die "$left temporaries left in $out"

"$GC" merge "$out/shards" -o "$TMP/m" > /dev/null || die "merge"
$VALIDATE "$TMP/m" > /dev/null || { $VALIDATE "$TMP/m"; die "schema"; }
/usr/bin/python3 - "$TMP/m/catalogue.json" <<'PY' || die "the dead GPU's results"
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
g = [g for g in cat["gpus"] if g["node"] == "n2"][0]
items = sorted({r["item"] for r in g["results"]})
assert g["status"] == "incomplete" and g["items_done"] == 4 and items == [0, 1, 2, 3], \
    (g["status"], g["items_done"], items)
print("dead GPU kept items", items, "-", g["status_reason"])
PY
echo "ok: SIGSEGV reported with rank, node, item and backtrace; mpirun exit 139"

#!/bin/bash
# scancel during a census (Slurm's time limit does the same): Slurm sends
# SIGTERM to every task and to the batch script, SIGKILL KillWait (30 s)
# later. Every rank ends the work item it is in (item 2, made 8 s long by
# the plan), rank 0 writes a partial catalogue and says so, well before
# the SIGKILL; the job is CANCELLED, nothing is left half-written.
# Skipped (77) only where Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
sc_begin
cd "$ROOT" || die "cd"
out=$TMP/out
job=$(GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$out \
    sbatch --parsable -N 3 --ntasks-per-node=2 -t 5 -J gc-cancel -o "$TMP/job.out" \
    slurm/census.sbatch tests/slurm/slow.cfg --quiet) || die "sbatch"
# every rank is in item 2 once every shard holds 2 items done
GC=$GC "$ROOT/tests/mpi/wait_items.sh" "$out" 6 2 || {
    scancel "$job"; cat "$TMP/job.out"; die "the ranks never reached item 2"; }
t0=$(date +%s)
scancel "$job" || die "scancel"
sc_wait_job "$job" 60
secs=$(( $(date +%s) - t0 ))
cat "$TMP/job.out"
[ "$SC_STATE" = CANCELLED ] || die "state $SC_STATE, expected CANCELLED"
[ $secs -lt 30 ] || die "$secs s from scancel to the end: Slurm's SIGKILL came first"
grep -q 'the run stops; every rank ends its current work item' "$TMP/job.out" || die "no stop message"
grep -q "the catalogue in $out is partial" "$TMP/job.out" || die "no 'partial' message"
grep -q 'fatal signal\|Segmentation fault\|Process received signal' "$TMP/job.out" && die "a rank crashed on cancel"
left=$(find "$out" -name '*.tmp.*' | wc -l)
[ "$left" = 0 ] || die "$left temporaries left"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "schema of the partial catalogue"; }
/usr/bin/python3 - "$out/catalogue.json" <<'PY' || die "partial catalogue"
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
assert len(cat["gpus"]) == 6, len(cat["gpus"])
for g in cat["gpus"]:
    items = sorted({r["item"] for r in g["results"]})
    assert g["items_done"] == 3 and items == [0, 1, 2], (g["node"], g["index"], g["items_done"], items)
print("partial catalogue: 6 GPUs with items 0..2 each:", cat["gpus"][0]["status_reason"])
PY
echo "ok: scancel: partial catalogue written $secs s after the SIGTERM, job CANCELLED"

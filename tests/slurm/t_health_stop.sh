#!/bin/bash
# A health check that is stopped is not a bad node. slurm/healthcheck.sbatch
# on 3 nodes, stopped mid-run twice: by scancel, and by its own one-minute
# time limit (Slurm sends SIGTERM to the script and the tasks, SIGKILL
# KillWait later). Each time the census writes a partial catalogue with
# every unfinished GPU "incomplete", check exits 3 (could not judge), the
# script says why and that this is no reason to drain, prints no drain
# line, and every node is still idle afterwards. Skipped (77) only where
# Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
sc_begin
cd "$ROOT" || die "cd"

stopped() {   # stopped NAME HOW: HOW = scancel | timelimit
    local name=$1 how=$2 out=$TMP/$1 job secs t0
    job=$(GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$out \
        sbatch --parsable -N 3 --ntasks-per-node=2 -t 1 -J "gc-$name" -o "$TMP/$name.out" \
        slurm/healthcheck.sbatch - tests/slurm/stopped.cfg) || die "$name: sbatch"
    # every rank is measuring its slow items once every shard holds 3 items done
    GC=$GC "$ROOT/tests/mpi/wait_items.sh" "$out" 6 3 ||
        { scancel "$job"; cat "$TMP/$name.out"; die "$name: the ranks never reached item 3"; }
    t0=$(date +%s)
    [ "$how" = scancel ] && { scancel "$job" || die "$name: scancel"; }
    sc_wait_job "$job" 150
    secs=$(( $(date +%s) - t0 ))
    cat "$TMP/$name.out"
    case $how in
    scancel) [ "$SC_STATE" = CANCELLED ] || die "$name: state $SC_STATE, expected CANCELLED" ;;
    timelimit) [ "$SC_STATE" = TIMEOUT ] || die "$name: state $SC_STATE, expected TIMEOUT" ;;
    esac
    grep -q "the catalogue in $out is partial" "$TMP/$name.out" || die "$name: no 'partial' message"
    grep -q '^exit 3: could not judge ([0-9]* GPUs incomplete' "$TMP/$name.out" ||
        die "$name: check did not say it could not judge the incomplete GPUs"
    grep -q '^gpucensus health: exit 3: could not judge (the job was stopped before the census finished): not a reason to drain$' \
        "$TMP/$name.out" || die "$name: the script does not say exit 3 and why"
    grep -Eq '^(degraded|failed) ' "$TMP/$name.out" && die "$name: a GPU judged degraded or failed"
    grep -q 'scontrol update' "$TMP/$name.out" && die "$name: a drain line for a stopped run"
    [ "$(sinfo -h -t idle -o %D)" = 3 ] || { sinfo -N -l; die "$name: not every node idle afterwards"; }
    /usr/bin/python3 - "$out/catalogue.json" <<'PY' || die "$name: catalogue"
import sys
import gccat
cat = gccat.load(sys.argv[1])
st = sorted({g["status"] for g in cat["gpus"]})
assert len(cat["gpus"]) == 6 and st == ["incomplete"], (len(cat["gpus"]), st)
print("6 GPUs incomplete, items done:", [g["items_done"] for g in cat["gpus"]])
PY
    echo "$name: $SC_STATE $secs s after the stop began, check exit 3, nothing drained"
}

stopped cancel scancel
stopped limit timelimit
echo "ok: a health check stopped by scancel or its time limit drains nothing and says why"

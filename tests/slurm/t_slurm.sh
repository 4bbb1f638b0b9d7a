#!/bin/bash
# gpucensus through a real Slurm: a private slurmctld with 3 slurmd logical
# nodes on this machine (cluster.sh), slurm/census.sbatch submitted over
# 3 nodes x 2 tasks with the sim backend. The catalogue must name the
# allocation's nodes n1..n3 and 6 GPUs, validate, and the job's exit code
# must be gpucensus's: 0 for a good plan, 2 for a bad one, whose error is
# in the job's output; a rank that hangs ends the job (1) with a partial
# catalogue, one that segfaults says where (rank, node, item, backtrace)
# and leaves the catalogue merged from the shards (1); a plan whose sim
# section has one node follows the allocation's three;
# slurm/healthcheck.sbatch passes check's exit code.
# Skipped (77) only where Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
t0=$(date +%s.%N)
sc_begin
t1=$(date +%s.%N)

cd "$ROOT" || die "cd"
submit() {   # submit NAME OUT PLAN [ARGS]: prints the job id
    local name=$1 out=$2; shift 2
    GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$out \
        sbatch --parsable -N 3 --ntasks-per-node=2 -t 5 -J "gc-$name" \
        -o "$TMP/$name-%j.out" slurm/census.sbatch "$@"
}

# A good plan: exit 0, 3 nodes, 6 GPUs, every rank's items.
job=$(submit good "$TMP/good" tests/slurm/sim.cfg) || die "sbatch"
sc_wait_job "$job" 180
t2=$(date +%s.%N)
cat "$TMP"/good-"$job".out
[ "$SC_STATE" = COMPLETED ] && [ "$SC_EXIT" = 0:0 ] || die "good job: $SC_STATE, exit $SC_EXIT"
"$GC" plan tests/slurm/sim.cfg --ranks 6 --nodes 3 > "$TMP/plan.txt" || die "plan listing"
/usr/bin/python3 tests/mpi/check.py "$TMP/good" "$TMP/plan.txt" || die "catalogue"
/usr/bin/python3 - "$TMP/good/catalogue.json" <<'PY' || die "nodes and GPUs"
import json, sys
cat = json.load(open(sys.argv[1]))
nodes = sorted(n["name"] for n in cat["nodes"])
gpus = sorted((g["node"], g["index"]) for g in cat["gpus"])
assert nodes == ["n1", "n2", "n3"], nodes
assert gpus == [(n, i) for n in nodes for i in (0, 1)], gpus
assert cat["run"]["nodes"] == 3 and cat["run"]["ranks"] == 6, cat["run"]
assert all(g["status"] == "ok" for g in cat["gpus"]), [g["status"] for g in cat["gpus"]]
print("catalogue: nodes", nodes, "and", len(gpus), "GPUs, all ok")
PY
$VALIDATE "$TMP/good" > /dev/null || { $VALIDATE "$TMP/good"; die "schema"; }

# A bad plan: the job fails with gpucensus's exit code 2 and the reason.
job=$(submit bad "$TMP/bad" tests/slurm/bad.cfg) || die "sbatch"
sc_wait_job "$job" 60
t3=$(date +%s.%N)
cat "$TMP"/bad-"$job".out
[ "$SC_STATE" = FAILED ] && [ "$SC_EXIT" = 2:0 ] || die "bad plan: $SC_STATE, exit $SC_EXIT (expected FAILED, 2:0)"
grep -q 'bad.cfg:3: benchmarks.\[0\].samples: 0 out of range' "$TMP"/bad-"$job".out ||
    die "the bad plan's error is not in the job's output"
[ -e "$TMP/bad/catalogue.json" ] && die "a bad plan wrote a catalogue"

# A rank that hangs (n2/gpu1 at item 2): the job ends by itself, non-zero,
# with a partial catalogue that marks the lost GPU failed.
job=$(submit hang "$TMP/hang" tests/slurm/hang.cfg --gather-timeout 2 --progress=json) || die "sbatch"
sc_wait_job "$job" 120
t4=$(date +%s.%N)
cat "$TMP"/hang-"$job".out
[ "$SC_STATE" = FAILED ] && [ "$SC_EXIT" = 1:0 ] || die "hung rank: $SC_STATE, exit $SC_EXIT (expected FAILED, 1:0)"
grep -q 'gpucensus: rank 3 (node n2, gpu 1) lost' "$TMP"/hang-"$job".out || die "the lost rank is not named"
# Its node's leader (rank 2) waits up to 5 s for rank 3's last shard, then
# writes the node file: alive all along, it says so, and is not lost too
# (silent in that wait it was judged lost with --gather-timeout 2).
grep -q '^gpucensus: 1 rank lost' "$TMP"/hang-"$job".out || die "a live rank was judged lost as well"
$VALIDATE "$TMP/hang" > /dev/null || { $VALIDATE "$TMP/hang"; die "schema of the partial catalogue"; }
/usr/bin/python3 - "$TMP/hang/catalogue.json" <<'PY' || die "partial catalogue"
import json, sys
cat = json.load(open(sys.argv[1]))
g = {(x["node"], x["index"]): x for x in cat["gpus"]}
assert len(g) == 6, sorted(g)
assert g[("n2", 1)]["status"] == "incomplete" and g[("n2", 1)]["items_done"] == 2, g[("n2", 1)]
print("partial catalogue: 6 GPUs, n2/1 incomplete:", g[("n2", 1)]["status_reason"])
PY

# A rank that segfaults: it reports where, Slurm ends the step (PMIx),
# census.sbatch builds the catalogue from the shards; the job fails with
# 1, the dead GPU is incomplete.
job=$(submit segv "$TMP/segv" tests/slurm/segv.cfg --progress=off) || die "sbatch"
sc_wait_job "$job" 120
cat "$TMP"/segv-"$job".out
[ "$SC_STATE" = FAILED ] && [ "$SC_EXIT" = 1:0 ] || die "dead rank: $SC_STATE, exit $SC_EXIT (expected FAILED, 1:0)"
grep -Eq '^gpucensus: rank 3 \(node n2, gpu 1, pid [0-9]+\): fatal signal 11 \(SIGSEGV: address not mapped\) at address 0x0, during work item 2 \(hbm_bw, phase gpu\)$' \
    "$TMP"/segv-"$job".out || die "no crash report naming rank 3, n2, gpu 1 and item 2"
grep -q 'gpucensus(sim_fault_events+0x' "$TMP"/segv-"$job".out || die "no backtrace through the faulting function"
grep -q '^gpucensus: srun exit 139 (a task ended by signal 11): the job fails with 1$' "$TMP"/segv-"$job".out ||
    die "census.sbatch does not say why the job fails with 1"
$VALIDATE "$TMP/segv" > /dev/null || { $VALIDATE "$TMP/segv"; die "schema of the merged catalogue"; }
/usr/bin/python3 - "$TMP/segv/catalogue.json" <<'PY' || die "merged catalogue after a crash"
import json, sys
cat = json.load(open(sys.argv[1]))
g = {(x["node"], x["index"]): x for x in cat["gpus"]}
assert len(g) == 6 and g[("n2", 1)]["status"] == "incomplete" and g[("n2", 1)]["items_done"] == 2, g[("n2", 1)]
print("merged catalogue: 6 GPUs, n2/1 incomplete:", g[("n2", 1)]["status_reason"])
PY

# The plan's sim section says one node (as configs/quick.cfg ships): the
# sim follows the allocation's three nodes and says so.
job=$(submit onenode "$TMP/onenode" tests/slurm/onenode.cfg --quiet) || die "sbatch"
sc_wait_job "$job" 120
cat "$TMP"/onenode-"$job".out
[ "$SC_STATE" = COMPLETED ] && [ "$SC_EXIT" = 0:0 ] || die "sim.nodes = 1 over 3 nodes: $SC_STATE, exit $SC_EXIT"
grep -q 'the sim layout of 1 node (sim.nodes or --sim-nodes) would put ranks of different hosts in one node; the ranks run on 3 hosts: using their node names instead' \
    "$TMP"/onenode-"$job".out || die "no note that the sim follows the allocation"
/usr/bin/python3 - "$TMP/onenode/catalogue.json" <<'PY' || die "nodes of the one-node plan"
import json, sys
cat = json.load(open(sys.argv[1]))
assert sorted(n["name"] for n in cat["nodes"]) == ["n1", "n2", "n3"], cat["nodes"]
assert len(cat["gpus"]) == 6 and all(g["status"] == "ok" for g in cat["gpus"])
print("one-node plan: nodes n1..n3, 6 GPUs ok")
PY
t4=$(date +%s.%N)

# Health check (slurm/healthcheck.sbatch), where `gpucensus check` exists:
# its exit code is check's; a GPU at 80% of its peers' HBM is degraded (2).
t5=$t4
if "$GC" help 2>&1 | grep -q '^  check '; then
    health() {   # health NAME PLAN: sets SC_STATE/SC_EXIT
        local name=$1 plan=$2 id
        id=$(GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$TMP/$name \
            sbatch --parsable -N 3 --ntasks-per-node=2 -t 5 -J "gc-$name" \
            -o "$TMP/$name.out" slurm/healthcheck.sbatch - "$plan") || die "sbatch"
        sc_wait_job "$id" 120
        cat "$TMP/$name.out"
    }
    health healthy tests/slurm/health.cfg
    case "$SC_EXIT" in 0:0|1:0) ;; *) die "healthy cluster: health check exit $SC_EXIT (expected 0 or 1)" ;; esac
    health sick tests/slurm/sick.cfg
    [ "$SC_EXIT" = 2:0 ] || die "degraded HBM on n3/gpu1: health check exit $SC_EXIT (expected 2)"
    grep -q 'n3' "$TMP/sick.out" || die "the health check does not name n3"
    t5=$(date +%s.%N)
else
    echo "no 'gpucensus check' in this build: health check jobs not tested"
fi

sc_down
t6=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" -v g="$t6" 'BEGIN {
    printf "lock and bring-up %.1fs, census job %.1fs, bad-plan job %.1fs, hung-rank, dead-rank and one-node jobs %.1fs, health checks %.1fs, teardown %.1fs\n", b-a, c-b, d-c, e-d, f-e, g-f }'
echo "ok: census over 3 Slurm nodes x 2 tasks; exit codes 0, 2, 1 for a lost and a crashed rank, sim layout, health check through sbatch"

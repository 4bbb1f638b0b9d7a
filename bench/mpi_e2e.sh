#!/usr/bin/env bash
# The end of a real MPI census beside bench_tree's model of it. bench_tree
# feeds rank 0 every record at once from one process; here a sim census
# of N real ranks (mpirun, oversubscribed on this machine) runs the plan,
# and its end is measured from outside: from the last shard saved (a
# rank's last item ends with its shard on disk) to catalogue.json on disk
# (file modification times), with the run's own wall and CPU time. Then
# bench_tree takes N records of the same plan at once (one node's shards
# from bench_merge as its templates) and its end to end is printed beside.
#
#   bench/mpi_e2e.sh [SIZES] [PLAN]      # defaults: 64,256 configs/default.cfg
#
# Environment: BUILD (build), MPI_E2E_DIR (a fresh /tmp directory, removed
# at the end unless given). Prints one line per size and key=value lines:
# mpi_N_end_s, mpi_N_wall_s, mpi_N_cpu_s, bench_N_e2e_s, bench_N_e2e_cpu_s.
# Exit status: 0, or 1 when a run or the bench failed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SIZES=${1:-64,256}
PLAN=${2:-configs/default.cfg}
GC=$BUILD/gpucensus
BT=$BUILD/bench/bench_tree
for b in "$GC" "$BT"; do
    [ -x "$b" ] || { echo "bench/mpi_e2e.sh: $b is missing (make all $BT)" >&2; exit 1; }
done
work=${MPI_E2E_DIR:-}
own=0
if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/gc-mpi-e2e.XXXXXX) || exit 1
    own=1
fi
mkdir -p "$work" || exit 1
# Open MPI refuses root unless told (containers, CI)
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
keys=()
printf '%6s %12s %12s %12s %14s %14s\n' ranks mpi_end_s mpi_wall_s mpi_cpu_s bench_e2e_s bench_e2e_cpu_s
for n in ${SIZES//,/ }; do
    out=$work/n$n
    rm -rf "$out"
    nodes=$(( (n + 7) / 8 ))
    # mpi_yield_when_idle: N ranks on a few cores would otherwise spin
    # against each other while they wait
    /usr/bin/time -f "%e %U %S" -o "$work/time$n" \
        mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np "$n" \
        "$GC" run "$PLAN" --backend sim --sim-nodes "$nodes" -o "$out" --quiet \
        > "$work/run$n.log" 2>&1
    rc=$?
    if [ "$rc" -gt 1 ] || [ ! -f "$out/catalogue.json" ]; then
        echo "bench/mpi_e2e.sh: the $n-rank run failed (exit $rc; $work/run$n.log)" >&2
        status=1
        continue
    fi
    last=$(find "$out/shards" -name '*.gcs' -printf '%T@\n' | sort -n | tail -1)
    cat_t=$(stat -c '%.9Y' "$out/catalogue.json")
    read -r wall u s < "$work/time$n"
    end=$(awk -v a="$last" -v b="$cat_t" 'BEGIN { printf "%.3f", b - a }')
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    # bench_tree with N records at once of this plan (one node's shards
    # from bench_merge as its templates, as make bench does)
    tdir=$work/tree$n
    rm -rf "$tdir"
    be=-1 bc=-1
    if { [ -d "$work/node/n8/shards" ] ||
         "$BUILD/bench/bench_merge" -n 8 -r 1 -k -d "$work/node" -x "$GC" "$PLAN" > "$work/node.txt" 2>&1; } &&
       "$BT" -r -n "$n" -d "$tdir" "$work/node/n8/shards" > "$work/tree$n.txt" 2>&1; then
        be=$(sed -n "s/^e2e_${n}_s=//p" "$work/tree$n.txt")
        bc=$(sed -n "s/^e2e_cpu_${n}_s=//p" "$work/tree$n.txt")
    else
        echo "bench/mpi_e2e.sh: bench_tree -n $n failed ($work/tree$n.txt)" >&2
        status=1
    fi
    printf '%6d %12s %12s %12s %14s %14s\n' "$n" "$end" "$wall" "$cpu" "$be" "$bc"
    keys+=("mpi_${n}_end_s=$end" "mpi_${n}_wall_s=$wall" "mpi_${n}_cpu_s=$cpu" "bench_${n}_e2e_s=$be" "bench_${n}_e2e_cpu_s=$bc")
    rm -rf "$out" "$tdir"
done
printf '%s\n' "${keys[@]}"
rm -rf "$work/node"
[ "$own" = 1 ] && rm -rf "$work"
exit $status

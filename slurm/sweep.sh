#!/bin/bash
# Census of several partitions, one job each, chained so that they run
# one after another (--dependency=afterany: a failed census does not stop
# the next). Prints the job ids; results/<job id>/ per partition.
#
#   slurm/sweep.sh [-n NODES] [-g GPUS_PER_NODE] PARTITION... [-- PLAN [RUN OPTIONS]]
#   slurm/sweep.sh -n 2 -g 8 a100 h100 h200 -- configs/quick.cfg
#
# To run them at the same time instead, drop the dependency: SWEEP_PARALLEL=1.
set -eu
nodes=1 gpus=8 parts=()
while [ $# -gt 0 ]; do
    case "$1" in
    -n) nodes=$2; shift 2 ;;
    -g) gpus=$2; shift 2 ;;
    --) shift; break ;;
    *) parts+=("$1"); shift ;;
    esac
done
[ ${#parts[@]} -gt 0 ] || { echo "usage: $0 [-n NODES] [-g GPUS] PARTITION... [-- PLAN [OPTIONS]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
prev=
for p in "${parts[@]}"; do
    dep=()
    [ -n "$prev" ] && [ -z "${SWEEP_PARALLEL:-}" ] && dep=(--dependency="afterany:$prev")
    prev=$(sbatch --parsable -p "$p" -N "$nodes" --gpus-per-node="$gpus" \
        --ntasks-per-node="$gpus" -J "gpucensus-$p" "${dep[@]}" "$here/census.sbatch" "$@")
    echo "$p: job $prev"
done

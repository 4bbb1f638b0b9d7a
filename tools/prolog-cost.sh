#!/bin/bash
# What slurm/prolog.sh costs a job start on this node: RUNS (default 5)
# prologs, outside Slurm, as slurmd starts one for a job of all the node's
# GPUs (SLURM_JOB_GPUS=0..N-1, this host's name, nothing drained, no other
# job seen), each into a scratch folder; prints each run's wall time, as the
# prolog logs it, and the median. Settings as the prolog's (prolog.conf
# beside it, or GPUCENSUS_PROLOG_CONF; GPUCENSUS, GPUCENSUS_BACKEND, ...).
#
#   tools/prolog-cost.sh [RUNS]
set -u
runs=${1:-5}
case "$runs" in ''|0|*[!0-9]*) echo "usage: tools/prolog-cost.sh [RUNS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
bin=${GPUCENSUS:-$root/build/gpucensus}
[ -x "$bin" ] || [ ! -x "$root/../../bin/gpucensus" ] || bin=$root/../../bin/gpucensus   # an installation
n=${GPUCENSUS_GPUS:-$("$bin" gpus 2>/dev/null)}
case "$n" in ''|0|*[!0-9]*) echo "prolog-cost: no GPU seen (${n:-$bin gpus failed})" >&2; exit 1 ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/gc-prolog-cost.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
node=$(hostname -s)
gpus=$(seq -s, 0 $((n - 1)))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for i in $(seq 1 "$runs"); do
    SLURMD_NODENAME=$node SLURM_JOB_ID=cost$i SLURM_JOB_GPUS=$gpus GPUCENSUS_PROLOG_DIR=$dir \
        GPUCENSUS_DRAIN=0 "$root/slurm/prolog.sh"
    line=$(tail -n 1 "$dir/$node/prolog.log")
    echo "run $i: ${line#* job cost$i: }"
done
grep -o ' exit [0-9]* after [0-9]* ms' "$dir/$node/prolog.log" | awk '{ print $4 }' | sort -n |
    awk -v g="$n" '{ v[NR] = $1 } END { if (NR) printf "prolog on %d GPUs: %d runs, median %d ms, min %d, max %d\n", g, NR, v[int((NR + 1) / 2)], v[1], v[NR] }'

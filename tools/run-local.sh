#!/bin/sh
# `make run`: the plan on this machine's GPUs, one MPI rank per GPU.
# Usage: tools/run-local.sh PLAN.cfg
set -u
cd "$(dirname "$0")/.." || exit 1
. tools/mpi-env.sh
plan=${1:-configs/quick.cfg}
gc=${BUILD:-build}/gpucensus
n=$("$gc" gpus) || exit 1
if [ "$n" -eq 0 ]; then
    echo "gpucensus: no GPU visible on this machine (no NVIDIA driver or no device)." >&2
    echo "gpucensus: to see the whole pipeline on simulated GPUs, run: make demo" >&2
    exit 1
fi
echo "gpucensus: $n GPU(s) found; running $plan with $n MPI rank(s)"
exec $MPIRUN -np "$n" "$gc" run "$plan" --backend cuda

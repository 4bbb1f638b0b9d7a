#!/bin/sh
# `make demo`: a simulated cluster of 4 nodes x 4 GPUs (16 MPI ranks on
# this machine, oversubscribed), sim backend, one GPU with a degraded HBM;
# then the verdicts on it (`gpucensus check`, which points at that GPU).
# Every number it prints is simulated, and the catalogue says backend "sim".
set -u
cd "$(dirname "$0")/.." || exit 1
. tools/mpi-env.sh
gc=${BUILD:-build}/gpucensus
out=results/demo-$(date -u +%Y%m%dT%H%M%SZ)
$MPIRUN --oversubscribe -np 16 "$gc" run configs/demo.cfg --backend sim -o "$out" || exit $?
echo
# check exits 2 here (the demo's planted fault): that is the point, not a failure
"$gc" check "$out" || true

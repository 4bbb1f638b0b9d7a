#!/bin/sh
# `make demo`: a simulated cluster of 4 nodes x 4 GPUs (16 MPI ranks on
# this machine, oversubscribed), sim backend, one GPU with a degraded HBM.
# Every number it prints is simulated, and the catalogue says backend "sim".
set -u
cd "$(dirname "$0")/.." || exit 1
. tools/mpi-env.sh
exec $MPIRUN --oversubscribe -np 16 "${BUILD:-build}/gpucensus" run configs/demo.cfg --backend sim \
    -o "results/demo-$(date -u +%Y%m%dT%H%M%SZ)"

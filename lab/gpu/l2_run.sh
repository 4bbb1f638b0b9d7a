#!/bin/bash
# L2 bandwidth against gpu-l2-cache on one GPU, in one call on the GPU
# machine: build, lab/gpu/l2.cfg (the default plan's L2 footprints), then
# the peer from $PEERS (a copy of gpu-benches in an ignored folder, never
# committed; built without its CUPTI counters), side by side at the end.
#   OUT=/some/dir GIT_COMMIT=abc PEERS=../peers/gpu-benches lab/gpu/l2_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-l2}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/l2_run.log") 2>&1
. tests/gpu/device_lib.sh
census l2 lab/gpu/l2.cfg
peer_l2 "$PEERS"
python3 lab/gpu/peers_best.py "$OUT/res/l2" /dev/null "$OUT/log/peer-l2.txt" | grep -v "^hbm" | tee "$OUT/log/peers.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"

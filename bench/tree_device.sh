#!/bin/bash
# Rank 0's part of the tree (bench_tree -r) on the GPU machine: a host of
# 16 cores whose memory is not ballooned, to set beside this 2-core VM's
# figures (docs/tree.md). Run through the device tool from the repo root
# with .deps carried:
#   OUT=$OUT GIT_COMMIT=abc DEPS=$PWD/.deps REPS=3 SIZES=4096,16384 bash bench/tree_device.sh
# Back under $OUT: tree.txt (bench_tree's output), host.txt, log/build.log.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpucensus-tree}
mkdir -p "$OUT/log"
. tests/gpu/device_lib.sh
make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr \
    SQLITE_PREFIX=/opt/deps/usr build/bench/bench_tree build/bench/bench_merge >> "$OUT/log/build.log" 2>&1 ||
    { tail -20 "$OUT/log/build.log"; exit 1; }
{ nproc; lscpu | grep -E "Model name|L2|L3"; free -m; systemd-detect-virt 2>/dev/null
  cat /sys/kernel/mm/transparent_hugepage/enabled; uname -r; } > "$OUT/host.txt" 2>&1
W=$(mktemp -d /tmp/tree.XXXXXX)
build/bench/bench_merge -n 8 -r 1 -k -d "$W/node" configs/default.cfg > "$OUT/log/shards.txt" 2>&1 ||
    { tail "$OUT/log/shards.txt"; exit 1; }
echo "# load before: $(cat /proc/loadavg)" > "$OUT/tree.txt"
build/bench/bench_tree -r -f -p "${REPS:-3}" -n "${SIZES:-4096,16384}" -d "$W/tree" "$W/node/n8/shards" 2>&1 |
    tee -a "$OUT/tree.txt"
echo "# load after: $(cat /proc/loadavg)" >> "$OUT/tree.txt"
rm -rf "$W"

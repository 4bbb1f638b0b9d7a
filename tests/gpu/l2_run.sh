#!/bin/bash
# L2 bandwidth against gpu-l2-cache on one GPU, in one call on the GPU
# machine: build, tests/gpu/l2.cfg (the default plan's L2 footprints), then
# the peer from $PEERS (a copy of gpu-benches in an ignored folder, never
# committed; built without its CUPTI counters), side by side at the end.
#   OUT=/some/dir GIT_COMMIT=abc PEERS=../peers/gpu-benches tests/gpu/l2_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-l2}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/l2_run.log") 2>&1
DEPS=${DEPS:-../.deps}
mkdir -p /opt/deps && for f in "$DEPS"/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -d build/kernels ] && touch build/kernels/*.o
make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr all \
    > "$OUT/log/build.log" 2>&1 || { tail -40 "$OUT/log/build.log"; exit 1; }
mpirun -np 1 build/gpucensus run tests/gpu/l2.cfg --backend cuda -o "$OUT/res/l2" --quiet > "$OUT/log/l2.log" 2>&1
echo "census: exit $?"
( cd "$PEERS/gpu-l2-cache" && sed -i -e '/gpu-metrics/d' -e '/initMeasureMetric/d' main.cu &&
  nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-l2-cache main.cu -lnvidia-ml > "$OUT/log/peer-l2-build.log" 2>&1 &&
  ./cuda-l2-cache ) > "$OUT/log/peer-l2.txt" 2>&1
echo "gpu-l2-cache: exit $?"
python3 tests/gpu/peers_best.py "$OUT/res/l2" /dev/null "$OUT/log/peer-l2.txt" | grep -v "^hbm" | tee "$OUT/log/peers.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"

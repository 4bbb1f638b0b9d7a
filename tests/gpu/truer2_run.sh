#!/bin/bash
# One call on the GPU machine for issue 18's second pass: build, the quick
# plan, tests/gpu/truer2.cfg (loaded-latency law, HBM/L2 beside the peers,
# host-bound points re-measured, host chase), then gpu-stream and
# gpu-l2-cache from a gpu-benches copy in $PEERS (never committed) on the
# same GPU, and the host's NUMA layout (where the pinned buffer could be
# bound per node). Changes no clock, power or other setting.
#   OUT=/some/dir GIT_COMMIT=abc PEERS=../peers/gpu-benches tests/gpu/truer2_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-truer2}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/truer2_run.log") 2>&1
. tests/gpu/device_lib.sh
{ ls -d /sys/devices/system/node/node* 2>/dev/null; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  nvidia-smi topo -m 2>/dev/null; } > "$OUT/log/numa.txt"
echo "numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
census quick configs/quick.cfg
census truer2 tests/gpu/truer2.cfg
if [ -n "${PEERS:-}" ] && [ -d "$PEERS" ]; then
    # its Makefile asks for sm_70, which nvcc 13 no longer builds: sm_90
    ( cd "$PEERS/gpu-stream" && nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-stream main.cu \
        > "$OUT/log/peer-stream-build.log" 2>&1 && ./cuda-stream ) > "$OUT/log/peer-stream.txt" 2>&1
    echo "gpu-stream: exit $?"
    peer_l2 "$PEERS"
fi
python3 tests/gpu/summarize.py "$OUT"/res/quick > "$OUT/log/summary.txt" 2>&1
python3 tests/gpu/truer2_summary.py "$OUT"/res/truer2 > "$OUT/log/truer2.txt" 2>&1
python3 tests/gpu/peers_best.py "$OUT"/res/truer2 "$OUT/log/peer-stream.txt" "$OUT/log/peer-l2.txt" \
    | tee "$OUT/log/peers.txt"
cat "$OUT/log/truer2.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

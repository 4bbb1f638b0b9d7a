#!/bin/bash
# One call on a GPU machine of any number of GPUs for issue 18 (what
# truer2_run.sh left): build; the GPU tests (t_gpu); the default plan, one
# rank per GPU (P2P matrix and remote chase when there are two or more);
# tests/gpu/truer3.cfg (host and peer chases in our order and nvbandwidth's);
# the quick plan once; then the peers from $PEERS on the same GPUs right
# after (never committed): gpu-stream, gpu-l2-cache (cut at L2_S),
# gpu-latency from LAT_FROM 64-byte elements (16384 = 1 MiB: its L2
# plateau) cut at LAT_S, nvbandwidth's copy tests at 1 GiB (NVBW_TESTS; the
# device-to-device ones where there are two GPUs) and its two latency tests
# with a 2 MiB buffer (they walk the first ~1 MiB whatever the size, and set
# each 8-byte node with its own cuMemcpyHtoD: 1 GiB would take minutes).
# PLANS (default "default truer3 quick") picks the plans, GPU_BENCHES=0
# leaves gpu-benches out, NVBW_TESTS="" nvbandwidth's copies.
# Changes no clock, power or other setting.
#   OUT=/some/dir GIT_COMMIT=abc DEPS=.deps PEERS=../truer2-peers tests/gpu/truer3_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-truer3}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/truer3_run.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
P=${PEERS:-}
NVBW_TESTS=${NVBW_TESTS-host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce device_to_host_bidirectional_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm device_local_copy device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce device_to_device_bidirectional_memcpy_read_ce device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_read_sm}
if [ -n "$P" ] && [ -d "$P/nvbandwidth" ]; then   # built beside the census build
    mkdir -p /opt/boost && for f in "$P"/boostdeb/*.deb; do dpkg -x "$f" /opt/boost; done
    B=/opt/boost/usr
    ( cd "$P/nvbandwidth" && nvcc -O3 -std=c++17 -arch=sm_90 -DGIT_VERSION='"v0.8"' -I. -I$B/include \
        testcase.cpp testcases_ce.cpp testcases_sm.cpp kernels.cu memcpy.cpp nvbandwidth.cpp \
        multinode_memcpy.cpp multinode_testcases.cpp output.cpp json_output.cpp json/jsoncpp.cpp \
        $B/lib/x86_64-linux-gnu/libboost_program_options.a -lnvidia-ml -lcuda -o nvbandwidth \
        > "$OUT/log/peer-nvbandwidth-build.log" 2>&1 ) &
    nvbw_build=$!
fi
. tests/gpu/device_lib.sh
make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr \
    SQLITE_PREFIX=/opt/deps/usr tests >> "$OUT/log/build.log" 2>&1 || echo "tests build failed"
stamp "built"
{ ls -d /sys/devices/system/node/node* 2>/dev/null; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  nvidia-smi topo -m 2>/dev/null; nvidia-smi nvlink -s 2>/dev/null | head -40; } > "$OUT/log/numa.txt"
echo "numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l); GPUs: $($GC gpus)"
tests/run.sh gpu/; cp build/test-logs/gpu_t_gpu.sh.log "$OUT/log/" 2>/dev/null
stamp "t_gpu"
for plan in ${PLANS:-default truer3 quick}; do
    case $plan in truer3) census truer3 tests/gpu/truer3.cfg ;; *) census $plan configs/$plan.cfg ;; esac
done
stamp "census"
tar czf "$OUT/results.tgz" -C "$OUT" res   # kept should a time limit cut the peers
nvidia-smi --query-gpu=index,name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
[ -n "${nvbw_build:-}" ] && { wait $nvbw_build; echo "nvbandwidth build: exit $?"; }
if [ -n "$P" ] && [ -d "$P/gpu-benches" ] && [ "${GPU_BENCHES:-1}" = 1 ]; then
    # its Makefile asks for sm_70, which nvcc 13 no longer builds: sm_90
    ( cd "$P/gpu-benches/gpu-stream" && nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-stream main.cu \
        > "$OUT/log/peer-stream-build.log" 2>&1 && timeout 40 ./cuda-stream ) > "$OUT/log/peer-stream.txt" 2>&1
    stamp "gpu-stream: exit $?"
    ( cd "$P/gpu-benches/gpu-l2-cache" && sed -i -e '/gpu-metrics/d' -e '/initMeasureMetric/d' main.cu &&
      nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-l2-cache main.cu -lnvidia-ml > "$OUT/log/peer-l2-build.log" 2>&1 &&
      timeout "${L2_S:-30}" ./cuda-l2-cache ) > "$OUT/log/peer-l2.txt" 2>&1
    stamp "gpu-l2-cache: exit $? (124: cut at ${L2_S:-30} s)"
    ( cd "$P/gpu-benches/gpu-latency" && sed -i "s/int64_t LEN = 16;/int64_t LEN = ${LAT_FROM:-16384};/" main.cu &&
      nvcc -std=c++17 -O3 -arch=sm_90 -Xcompiler -fopenmp \
        -o cuda-latency main.cu -lnvidia-ml > "$OUT/log/peer-latency-build.log" 2>&1 &&
      timeout "${LAT_S:-30}" ./cuda-latency ) > "$OUT/log/peer-latency.txt" 2>&1
    stamp "gpu-latency: exit $? (124: cut at ${LAT_S:-30} s)"
fi
if [ -x "$P/nvbandwidth/nvbandwidth" ]; then
    [ -n "$NVBW_TESTS" ] && timeout 200 "$P/nvbandwidth/nvbandwidth" -b 1024 -t $NVBW_TESTS \
        > "$OUT/log/peer-nvbandwidth.txt" 2>&1
    stamp "nvbandwidth copies: exit $?"
    timeout 60 "$P/nvbandwidth/nvbandwidth" -b 2 -t host_device_latency_sm device_to_device_latency_sm \
        > "$OUT/log/peer-nvbandwidth-latency.txt" 2>&1
    stamp "nvbandwidth latency: exit $?"
fi
python3 tests/gpu/summarize.py "$OUT"/res/default > "$OUT/log/summary.txt" 2>&1
python3 tests/gpu/peers_best.py "$(ls -d "$OUT"/res/* | paste -sd,)" "$OUT/log/peer-stream.txt" "$OUT/log/peer-l2.txt" \
    "$OUT/log/peer-nvbandwidth.txt,$OUT/log/peer-nvbandwidth-latency.txt" "$OUT/log/peer-latency.txt" \
    > "$OUT/log/peers-default.txt" 2>&1
cat "$OUT/log/peers-default.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log
cp "$OUT/log/peers-default.txt" "$OUT/" 2>/dev/null
rm -rf "$OUT/log"
stamp "done"

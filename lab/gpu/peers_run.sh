#!/bin/bash
# gpucensus beside its peers, one call on a GPU machine of any number of
# GPUs (issue 18; lab/examples-2026-11/PEERS.md): build the census and, from
# copies in $PEERS (never committed: an ignored folder beside the checkout),
# NVIDIA nvbandwidth and gpu-benches, in the same call; the GPU and SASS
# tests; the census plans (PLANS, default "default truer3 quick": NAME is
# configs/NAME.cfg, else lab/gpu/NAME.cfg: truer3 host and peer chases in
# both orders and both-ways copies, truer2 kernel shapes); then on the same
# GPUs right after: lab/gpu/peers_probe.cu (host chase by writer, timer
# and SM; both-ways kernels), gpu-stream, gpu-l2-cache (cut at L2_S s),
# gpu-latency from LAT_FROM 64-byte elements (16384 = 1 MiB: its L2
# plateau; cut at LAT_S s), nvbandwidth's copy tests at 1 GiB (NVBW_TESTS;
# the device-to-device ones run where there are two GPUs) and its two
# latency tests at -b 2 (they walk the first ~1 MiB whatever the size and
# set each 8-byte node with its own cuMemcpyHtoD: 1 GiB would take
# minutes); the SASS of both pointer chases and both both-ways copies.
# ETA=1 runs the default plan under tools/eta-check.py (log/eta.txt). GPU_BENCHES=0 leaves gpu-benches out, PROBE=0 the probe (PROBE_WHAT: its
# arguments, default all: chase, both, hostmem), TESTS=0 the
# tests, NVBW_TESTS="" nvbandwidth's copies. Changes no clock, power or
# other setting. Back under $OUT: results.tgz (catalogues), logs.tgz,
# peers.txt (lab/gpu/peers_best.py over every plan, then the probe).
#   OUT=/some/dir GIT_COMMIT=abc DEPS=.deps PEERS=../truer2-peers lab/gpu/peers_run.sh
# PEERS holds gpu-benches/, nvbandwidth/ and boostdeb/*.deb (Boost 1.74's
# program_options from Debian 12: the GPU machine has no Boost).
# Replaces truer_run.sh, truer2_run.sh and truer3_run.sh (git history).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-peers}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/peers_run.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
P=${PEERS:-}
NVBW_TESTS=${NVBW_TESTS-host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce device_to_host_bidirectional_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm host_to_device_bidirectional_memcpy_sm device_to_host_bidirectional_memcpy_sm device_local_copy device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce device_to_device_bidirectional_memcpy_read_ce device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_read_sm}
. lab/gpu/nvbw_build.sh
nvbw_start "$P"
. tests/gpu/device_lib.sh
if [ "${TESTS:-1}" = 1 ]; then
    make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr \
        SQLITE_PREFIX=/opt/deps/usr tests >> "$OUT/log/build.log" 2>&1 || echo "tests build failed"
fi
stamp "built"
{ ls -d /sys/devices/system/node/node* 2>/dev/null; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  lscpu 2>/dev/null | head -20; nvidia-smi topo -m 2>/dev/null; nvidia-smi nvlink -s 2>/dev/null | head -40
} > "$OUT/log/numa.txt"
echo "numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l); GPUs: $($GC gpus)"
if [ "${TESTS:-1}" = 1 ]; then
    tests/run.sh gpu/ | tail -3; tests/run.sh sass/ | tail -3
    cp build/test-logs/gpu_t_gpu.sh.log build/test-logs/sass_*.log "$OUT/log/" 2>/dev/null
    stamp "tests"
fi
for plan in ${PLANS:-default truer3 quick}; do
    if [ "$plan" = default ] && [ "${ETA:-0}" = 1 ]; then   # the default plan under tools/eta-check.py
        python3 tools/eta-check.py --np "$($GC gpus)" --mpirun mpirun --gc "$GC" --out "$OUT/res/default" \
            -- configs/default.cfg --backend cuda > "$OUT/log/eta.txt" 2>&1
        stamp "default under eta-check: exit $?"; tail -4 "$OUT/log/eta.txt"
    elif [ -f configs/$plan.cfg ]; then census $plan configs/$plan.cfg; else census $plan lab/gpu/$plan.cfg; fi
done
stamp "census"
tar czf "$OUT/results.tgz" -C "$OUT" res   # kept should a time limit cut the peers
nvidia-smi --query-gpu=index,name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
if [ "${PROBE:-1}" = 1 ]; then
    nvcc -O3 -std=c++17 -arch=sm_90 -o build/peers_probe lab/gpu/peers_probe.cu > "$OUT/log/probe-build.log" 2>&1 &&
        timeout 300 build/peers_probe ${PROBE_WHAT:-all} > "$OUT/log/peer-probe.txt" 2>&1
    stamp "probe: exit $?"
fi
nvbw_finish
if [ -n "$P" ] && [ -d "$P/gpu-benches" ] && [ "${GPU_BENCHES:-1}" = 1 ]; then
    # their Makefiles ask for sm_70, which nvcc 13 no longer builds: sm_90
    ( cd "$P/gpu-benches/gpu-stream" && nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-stream main.cu \
        > "$OUT/log/peer-stream-build.log" 2>&1 && timeout 40 ./cuda-stream ) > "$OUT/log/peer-stream.txt" 2>&1
    stamp "gpu-stream: exit $?"
    # gpu-l2-cache without its CUPTI counter include (it prints none by default)
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
    if [ -n "$NVBW_TESTS" ]; then
        timeout 240 "$P/nvbandwidth/nvbandwidth" -b 1024 -t $NVBW_TESTS > "$OUT/log/peer-nvbandwidth.txt" 2>&1
        stamp "nvbandwidth copies: exit $?"
    fi
    timeout 60 "$P/nvbandwidth/nvbandwidth" -b 2 -t host_device_latency_sm device_to_device_latency_sm \
        > "$OUT/log/peer-nvbandwidth-latency.txt" 2>&1
    stamp "nvbandwidth latency: exit $?"
fi
# the loads of both pointer chases and both both-ways copies, as the GPU runs them
sass_fn() {   # binary function-regex
    cuobjdump -sass "$1" 2>/dev/null | awk -v re="$2" '/Function :/ && f { exit } $0 ~ "Function : .*" re { f = 1 } f' |
        sed -e 's#/\* 0x[0-9a-f]* \*/##' | grep -v '^[[:space:]]*$' | head -120
}
{ echo "== ours: gck_chase_kernel (kernels/chase.cu)"; sass_fn build/kernels/chase.o gck_chase_kernel
  echo "== ours: k_copy_both (kernels/xfer.cu)"; sass_fn build/kernels/xfer.o k_copy_both
  if [ -x "$P/nvbandwidth/nvbandwidth" ]; then
      echo "== nvbandwidth: ptrChasingKernel"; sass_fn "$P/nvbandwidth/nvbandwidth" ptrChasing
      echo "== nvbandwidth: splitWarpCopyKernel"; sass_fn "$P/nvbandwidth/nvbandwidth" splitWarpCopy
  fi
  [ -x "$P/gpu-benches/gpu-latency/cuda-latency" ] && {
      echo "== gpu-latency: pchase"; sass_fn "$P/gpu-benches/gpu-latency/cuda-latency" pchase; }
} > "$OUT/log/sass.txt" 2>&1
python3 tests/gpu/summarize.py "$OUT"/res/default > "$OUT/log/summary.txt" 2>&1
[ -d "$OUT/res/truer2" ] && python3 lab/gpu/truer2_summary.py "$OUT"/res/default > "$OUT/log/truer2.txt" 2>&1
python3 lab/gpu/peers_best.py "$(ls -d "$OUT"/res/* | paste -sd,)" "$OUT/log/peer-stream.txt" "$OUT/log/peer-l2.txt" \
    "$OUT/log/peer-nvbandwidth.txt,$OUT/log/peer-nvbandwidth-latency.txt" "$OUT/log/peer-latency.txt" \
    > "$OUT/log/peers.txt" 2>&1
{ echo; echo "== lab/gpu/peers_probe.cu"; cat "$OUT/log/peer-probe.txt" 2>/dev/null; } >> "$OUT/log/peers.txt"
cat "$OUT/log/peers.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log
cp "$OUT/log/peers.txt" "$OUT/" 2>/dev/null
rm -rf "$OUT/log"
stamp "done"

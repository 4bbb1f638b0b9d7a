#!/bin/bash
# Issue 18, the host's own spread (lab/examples-2026-11/PEERS.md, "Host links
# and the host chase, interleaved"): in one call on one GPU, the census and
# nvbandwidth (built from a copy in $PEERS, never committed) take turns:
#  1. host links: AB_ROUNDS rounds of the census's host copies at 1 GiB
#     (lab/gpu/host_ab.cfg), nvbandwidth's host tests at -b 1024
#     (AB_TESTS), and lab/gpu/peers_probe.cu ce_both (both ways by the copy
#     engines with and without a tail);
#  2. host chase: CHASE_ROUNDS rounds of lab/gpu/chase_alone.cfg (1 MiB
#     and 256 MiB, cudaHostAlloc and node-bound, back to back, alone in the
#     process), lab/gpu/chase_after.cfg (the default plan's copies, then
#     its node-bound chase, then cudaHostAlloc's) and nvbandwidth's
#     host_device_latency_sm; the default plan once after round
#     DEFAULT_AFTER (0: never), chase_alone right after it.
# Before them: the census built with its tests (t_gpu, t_sass: TESTS=0
# skips), the probe's PROBE_WHAT runs (default "decay" and "hostmem 1";
# "" none). Changes no clock, power or other setting. Back under $OUT:
# host_ab.tgz (catalogues res/, logs log/) and host_ab.txt
# (lab/gpu/host_ab_summary.py).
#   OUT=/some/dir GIT_COMMIT=abc DEPS=<.deps> PEERS=<copies> lab/gpu/host_ab_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-host-ab}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/host_ab_run.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
AB_ROUNDS=${AB_ROUNDS:-4}
CHASE_ROUNDS=${CHASE_ROUNDS:-3}
DEFAULT_AFTER=${DEFAULT_AFTER:-1}
AB_TESTS=${AB_TESTS:-host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce device_to_host_bidirectional_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm host_to_device_bidirectional_memcpy_sm device_to_host_bidirectional_memcpy_sm}
. lab/gpu/nvbw_build.sh
nvbw_start "${PEERS:-}"
. tests/gpu/device_lib.sh
if [ "${TESTS:-1}" = 1 ]; then
    make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr \
        SQLITE_PREFIX=/opt/deps/usr tests >> "$OUT/log/build.log" 2>&1 || echo "tests build failed"
fi
nvcc -O3 -std=c++17 -arch=sm_90 -o build/peers_probe lab/gpu/peers_probe.cu > "$OUT/log/probe-build.log" 2>&1 ||
    echo "probe build failed"
stamp "built"
{ ls -d /sys/devices/system/node/node* 2>/dev/null; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
  grep -i huge /proc/meminfo; lscpu 2>/dev/null | head -20; nvidia-smi topo -m 2>/dev/null
} > "$OUT/log/numa.txt"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
if [ "${TESTS:-1}" = 1 ]; then
    tests/run.sh gpu/ | tail -3; tests/run.sh sass/ | tail -3
    cp build/test-logs/gpu_t_gpu.sh.log build/test-logs/sass_*.log "$OUT/log/" 2>/dev/null
    stamp "tests"
fi
PROBE_WHAT=${PROBE_WHAT-decay;hostmem 1}
IFS=';' read -ra probe_runs <<< "$PROBE_WHAT"
for w in "${probe_runs[@]}"; do
    timeout 200 build/peers_probe $w >> "$OUT/log/peer-probe.txt" 2>&1
    stamp "probe $w: exit $?"
done
nvbw_finish
NV=${PEERS:-}/nvbandwidth/nvbandwidth
[ -x "$NV" ] || { echo "no nvbandwidth: the rounds need it"; NV=false; }
for k in $(seq 1 "$AB_ROUNDS"); do
    census host_ab$k lab/gpu/host_ab.cfg
    timeout 120 "$NV" -b 1024 -t $AB_TESTS > "$OUT/log/nvbw-ab$k.txt" 2>&1
    stamp "nvbandwidth ab$k: exit $?"
    timeout 60 build/peers_probe ce_both 6 > "$OUT/log/probe-ce$k.txt" 2>&1
    stamp "probe ce_both $k: exit $?"
done
for k in $(seq 1 "$CHASE_ROUNDS"); do
    census chase_alone$k lab/gpu/chase_alone.cfg
    census chase_after$k lab/gpu/chase_after.cfg
    timeout 60 "$NV" -b 2 -t host_device_latency_sm > "$OUT/log/nvbw-lat$k.txt" 2>&1
    stamp "nvbandwidth lat$k: exit $?"
    if [ "$k" = "$DEFAULT_AFTER" ]; then
        census default configs/default.cfg
        census chase_alone${k}d lab/gpu/chase_alone.cfg
    fi
done
nvidia-smi --query-gpu=index,name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
python3 lab/gpu/host_ab_summary.py "$OUT" > "$OUT/host_ab.txt" 2>&1
cat "$OUT/host_ab.txt"
tar czf "$OUT/host_ab.tgz" -C "$OUT" res log && rm -rf "$OUT/res" "$OUT/log"
stamp "done"

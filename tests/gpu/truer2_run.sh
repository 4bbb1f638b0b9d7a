#!/bin/bash
# One call on the GPU machine for issue 18: build; the default plan; the
# kernel shapes of tests/gpu/truer2.cfg; then the peers from $PEERS (copies
# beside the checkout, never committed), each on the same GPU right after:
# gpu-stream, gpu-l2-cache and gpu-latency (gpu-benches, built for sm_90),
# NVIDIA nvbandwidth (built with nvcc alone: the GPU machine has CMake but
# no Boost, so Boost's program_options comes from the Debian .debs in
# $PEERS/boostdeb, unpacked into /opt/boost; NVBW_TESTS picks its tests),
# and the SASS of both pointer chases (ours and gpu-latency's) and of our
# L2 and STREAM kernels. Changes no clock, power or other setting.
#   OUT=/some/dir GIT_COMMIT=abc PEERS=../truer2-peers tests/gpu/truer2_run.sh
# PEERS holds gpu-benches/, nvbandwidth/ and boostdeb/*.deb.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-truer2}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/truer2_run.log") 2>&1
P=${PEERS:-}
NVBW_TESTS=${NVBW_TESTS:-device_local_copy host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm host_device_latency_sm}
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
[ -n "${nvbw_build:-}" ] && { wait $nvbw_build; echo "nvbandwidth build: exit $?"; }
{ ls -d /sys/devices/system/node/node* 2>/dev/null; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  nvidia-smi topo -m 2>/dev/null; } > "$OUT/log/numa.txt"
echo "numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
census default configs/default.cfg
census truer2 tests/gpu/truer2.cfg
tar czf "$OUT/results.tgz" -C "$OUT" res   # kept should a time limit cut the peers
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
if [ -n "$P" ] && [ -d "$P/gpu-benches" ]; then
    # its Makefile asks for sm_70, which nvcc 13 no longer builds: sm_90
    ( cd "$P/gpu-benches/gpu-stream" && nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-stream main.cu \
        > "$OUT/log/peer-stream-build.log" 2>&1 && ./cuda-stream ) > "$OUT/log/peer-stream.txt" 2>&1
    echo "gpu-stream: exit $?"
    # gpu-l2-cache without its CUPTI counter include (it prints none by
    # default); cut once past the L2 (its footprints grow 10% a step)
    ( cd "$P/gpu-benches/gpu-l2-cache" && sed -i -e '/gpu-metrics/d' -e '/initMeasureMetric/d' main.cu &&
      nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-l2-cache main.cu -lnvidia-ml > "$OUT/log/peer-l2-build.log" 2>&1 &&
      timeout "${L2_S:-40}" ./cuda-l2-cache ) > "$OUT/log/peer-l2.txt" 2>&1
    echo "gpu-l2-cache: exit $? (124: cut at ${L2_S:-40} s)"
    # gpu-latency walks 16 B .. 120 MB; LAT_FROM (elements of 64 B) starts
    # it further on (the copy only: 16384 = 1 MiB, in L2), cut at LAT_S
    ( cd "$P/gpu-benches/gpu-latency" && sed -i "s/int64_t LEN = 16;/int64_t LEN = ${LAT_FROM:-16};/" main.cu &&
      nvcc -std=c++17 -O3 -arch=sm_90 -Xcompiler -fopenmp \
        -o cuda-latency main.cu -lnvidia-ml > "$OUT/log/peer-latency-build.log" 2>&1 &&
      timeout "${LAT_S:-30}" ./cuda-latency ) > "$OUT/log/peer-latency.txt" 2>&1
    echo "gpu-latency: exit $? (124: cut at ${LAT_S:-30} s)"
fi
if [ -x "$P/nvbandwidth/nvbandwidth" ]; then
    "$P/nvbandwidth/nvbandwidth" -b 1024 -t $NVBW_TESTS > "$OUT/log/peer-nvbandwidth.txt" 2>&1
    echo "nvbandwidth: exit $?"
fi
# the loads of both chases and of our bandwidth kernels, as the GPU runs them
{ echo "== ours: gck_chase_kernel (kernels/chase.cu)"
  cuobjdump -sass -fun gck_chase_kernel build/kernels/chase.o | grep -E "LD|CS2R|STS" | head -40
  echo "== gpu-latency: pchase"
  [ -n "$P" ] && cuobjdump -sass "$P/gpu-benches/gpu-latency/cuda-latency" 2>/dev/null |
      awk '/Function : .*pchase/ { f = 1 } f && /LD|BRA|EXIT/ { print } /EXIT/ && f { exit }' | head -50
} > "$OUT/log/chase-sass.txt" 2>&1
cuobjdump -sass build/kernels/stream.o > "$OUT/log/stream.sass" 2>&1
python3 tests/gpu/summarize.py "$OUT"/res/default > "$OUT/log/summary.txt" 2>&1
python3 tests/gpu/truer2_summary.py "$OUT"/res/default > "$OUT/log/truer2.txt" 2>&1
for r in default truer2; do
    python3 tests/gpu/peers_best.py "$OUT/res/$r" "$OUT/log/peer-stream.txt" "$OUT/log/peer-l2.txt" \
        "$OUT/log/peer-nvbandwidth.txt" "$OUT/log/peer-latency.txt" > "$OUT/log/peers-$r.txt" 2>&1
done
cat "$OUT/log/peers-default.txt"
grep -E "^(hbm|l2 )" "$OUT/log/peers-truer2.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
gzip -9 "$OUT/log/stream.sass"
tar czf "$OUT/logs.tgz" -C "$OUT" log
cp "$OUT/log/peers-default.txt" "$OUT/log/peers-truer2.txt" "$OUT/" 2>/dev/null
rm -rf "$OUT/log"   # at most 8 files come back: the tarballs and the two tables

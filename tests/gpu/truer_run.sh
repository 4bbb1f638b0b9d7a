#!/bin/bash
# One call on the GPU machine for issue 18 (truer numbers) and the foreign
# load of long items: build; the quick and default plans alone; a second
# job (tests/gpu/hog.cfg, 45 s of HBM triad) with a quick census beside
# it; then, where $PEERS holds a copy of the peer suite gpu-benches (never
# committed: an ignored folder beside the checkout), its gpu-l2-cache and
# gpu-stream on the same GPU. Changes no clock, power or other setting.
# Catalogues and logs under $OUT (tarballs); the end of the output is the
# side by side (tests/gpu/summarize.py, foreign_summary.py, the peers' best).
#   OUT=/some/dir GIT_COMMIT=abc PEERS=../peers/gpu-benches tests/gpu/truer_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-truer}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/truer_run.log") 2>&1
. tests/gpu/device_lib.sh
census quick configs/quick.cfg
census default configs/default.cfg
if [ "${HOG:-1}" = 1 ]; then   # HOG=0: no foreign-load part
    mpirun -np 1 $GC run tests/gpu/hog.cfg --backend cuda -o "$OUT/res/hog" --quiet > "$OUT/log/hog.log" 2>&1 &
    hog=$!
    sleep 4
    census quick_shared configs/quick.cfg
    wait $hog
    echo "hog: exit $?"
fi
if [ -n "${PEERS:-}" ] && [ -d "$PEERS" ]; then
    # its Makefile asks for sm_70, which nvcc 13 no longer builds: sm_90
    ( cd "$PEERS/gpu-stream" && nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-stream main.cu \
        > "$OUT/log/peer-stream-build.log" 2>&1 && ./cuda-stream ) > "$OUT/log/peer-stream.txt" 2>&1
    echo "gpu-stream: exit $?"
    peer_l2 "$PEERS"
fi
python3 tests/gpu/summarize.py "$OUT"/res/quick "$OUT"/res/default > "$OUT/log/summary.txt" 2>&1
python3 tests/gpu/foreign_summary.py "$OUT"/res/default $( [ "${HOG:-1}" = 1 ] && echo "$OUT"/res/quick_shared "$OUT"/res/hog ) \
    > "$OUT/log/foreign.txt" 2>&1
python3 tests/gpu/peers_best.py "$OUT"/res/default "$OUT/log/peer-stream.txt" "$OUT/log/peer-l2.txt" \
    | tee "$OUT/log/peers.txt"
grep -E "^(hbm|l2_|l1_|dram|loaded|host|launch)" "$OUT/log/summary.txt"
grep -E "gpu_shared|sustained|verdict" "$OUT/log/foreign.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

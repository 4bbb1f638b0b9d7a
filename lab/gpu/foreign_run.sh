#!/bin/bash
# One call on the GPU machine for foreign load and sustained load (issue 19
# items 5 and 6): build; the quick plan alone; the quick plan again while a
# second job (lab/gpu/hog.cfg: 45 s of HBM triad through the sustain
# benchmark) streams HBM on the same GPU; then the default plan alone (40 s
# of sustained load in it). Changes no clock, power or other GPU setting.
# Each census is then checked against the shipped baselines (the documented
# health check): alone it must be ok, shared it must say so.
# Catalogues and logs under $OUT (a tarball each); the last lines compare
# the runs (lab/gpu/foreign_summary.py).
#   OUT=/some/dir GIT_COMMIT=abc lab/gpu/foreign_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-foreign}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/foreign_run.log") 2>&1
. tests/gpu/device_lib.sh
census quick_alone configs/quick.cfg
# the foreign job: its own mpirun, so its pid is not one of the census's
mpirun -np 1 $GC run lab/gpu/hog.cfg --backend cuda -o "$OUT/res/hog" --quiet > "$OUT/log/hog.log" 2>&1 &
hog=$!
sleep 4
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv | tee "$OUT/log/apps.txt"
census quick_shared configs/quick.cfg
wait $hog
echo "hog: exit $?"
census default_alone configs/default.cfg
for r in quick_alone quick_shared default_alone; do
    $GC check "$OUT/res/$r" --baseline configs/baselines > "$OUT/log/$r-check.txt" 2>&1
    echo "$r: check against configs/baselines: exit $?"; grep -v '^ *$' "$OUT/log/$r-check.txt" | head -n 12
done
python3 lab/gpu/foreign_summary.py "$OUT"/res/quick_alone "$OUT"/res/quick_shared "$OUT"/res/hog \
    "$OUT"/res/default_alone | tee "$OUT/log/summary.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

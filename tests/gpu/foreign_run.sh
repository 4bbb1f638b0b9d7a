#!/bin/bash
# One call on the GPU machine for foreign load and sustained load (issue 19
# items 5 and 6): build; the quick plan alone; the quick plan again while a
# second job (tests/gpu/hog.cfg: 45 s of HBM triad through the sustain
# benchmark) streams HBM on the same GPU; then the default plan alone (40 s
# of sustained load in it). Changes no clock, power or other GPU setting.
# Catalogues and logs under $OUT (a tarball each); the last lines compare
# the runs (tests/gpu/foreign_summary.py).
#   OUT=/some/dir GIT_COMMIT=abc tests/gpu/foreign_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-foreign}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/foreign_run.log") 2>&1
DEPS=${DEPS:-../.deps}
mkdir -p /opt/deps && for f in "$DEPS"/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
[ -d build/kernels ] && touch build/kernels/*.o
t0=$(date +%s)
make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr all \
    > "$OUT/log/build.log" 2>&1 || { tail -40 "$OUT/log/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
GC=build/gpucensus
run() {   # name plan: one rank per GPU
    local s=$(date +%s.%N)
    mpirun -np "$($GC gpus)" $GC run "$2" --backend cuda -o "$OUT/res/$1" --quiet > "$OUT/log/$1.log" 2>&1
    echo "$1: exit $? wall $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}
run quick_alone configs/quick.cfg
# the foreign job: its own mpirun, so its pid is not one of the census's
mpirun -np 1 $GC run tests/gpu/hog.cfg --backend cuda -o "$OUT/res/hog" --quiet > "$OUT/log/hog.log" 2>&1 &
hog=$!
sleep 4
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv | tee "$OUT/log/apps.txt"
run quick_shared configs/quick.cfg
wait $hog
echo "hog: exit $?"
run default_alone configs/default.cfg
python3 tests/gpu/foreign_summary.py "$OUT"/res/quick_alone "$OUT"/res/quick_shared "$OUT"/res/hog \
    "$OUT"/res/default_alone | tee "$OUT/log/summary.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

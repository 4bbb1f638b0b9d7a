#!/bin/bash
# One call on the GPU machine (see ../shared/device/README.md): unpack the
# carried .deb files (libconfig, jansson, SQLite headers: .deps holds libconfig9 libconfig-dev libjansson4 libjansson-dev libsqlite3-0 libsqlite3-dev), build, run the GPU and
# SASS tests, the quick plan five times and the default plan once with the
# cuda backend on every GPU (one rank each), and leave logs and catalogues
# under $OUT (two tarballs).
#   OUT=/some/dir tests/gpu/device_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-device}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/device_run.log") 2>&1
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
mkdir -p /opt/deps && for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GC_SKIP_DEPS=1
nvidia-smi -q > "$OUT/log/nvidia-smi-q.txt" 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
# Kernel objects may come prebuilt (carried build/kernels): keep them.
# the copied tree may hold a stale .git: .gitcommit names the commit that runs
GITC=$(cat .gitcommit 2>/dev/null)
[ -d build/kernels ] && touch build/kernels/*.o
t0=$(date +%s)
make -j16 ${GITC:+GIT_COMMIT=$GITC} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr SQLITE_PREFIX=/opt/deps/usr all tests > "$OUT/log/build.log" 2>&1 \
    || { tail -40 "$OUT/log/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
# the validation kernels' SASS, ptxas log and descriptions (tools/kdesc.py)
echo "kernel descriptions: $(grep -o 'origin\[\] = "[a-z]*"' build/gen/valid_desc.c)"
cp build/kernels/valid.ptxas.log "$OUT/log/" 2>/dev/null
[ -f build/gen/valid.sass ] && gzip -c build/gen/valid.sass > "$OUT/log/valid.sass.gz"
tar czf "$OUT/log/kdesc.tgz" -C build/gen kdesc 2>/dev/null
tests/run.sh gpu/ ; cp build/test-logs/gpu_t_gpu.sh.log "$OUT/log/" 2>/dev/null
tests/run.sh sass/ ; cp build/test-logs/sass_t_sass.sh.log "$OUT/log/" 2>/dev/null
n=$(build/gpucensus gpus)
echo "GPUs: $n"
for i in $(seq 1 "${QUICK_RUNS:-5}"); do
    s=$(date +%s.%N)
    mpirun -np "$n" build/gpucensus run configs/quick.cfg --backend cuda -o "$OUT/res/quick$i" --quiet \
        > "$OUT/log/quick$i.log" 2>&1
    echo "quick run $i: exit $? wall $(elapsed "$s") s"
done
s=$(date +%s.%N)
mpirun -np "$n" build/gpucensus run configs/default.cfg --backend cuda -o "$OUT/res/default" \
    > "$OUT/log/default.log" 2>&1
echo "default run: exit $? wall $(elapsed "$s") s"
tail -8 "$OUT/log/default.log"
python3 tests/gpu/summarize.py "$OUT"/res/quick* "$OUT/res/default" | tee "$OUT/log/summary.txt"
python3 tests/gpu/models_summary.py "$OUT/res/default/catalogue.json" | tee "$OUT/log/models.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

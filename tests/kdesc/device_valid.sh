#!/bin/bash
# One call on the GPU machine for the validation suite: build
# (with cuobjdump there, the kernel descriptions are counted from this
# build's SASS), keep the SASS, the ptxas log and the descriptions, run
# tests/kdesc/valid_gpu.cfg on every GPU (one rank each) and print the
# median time per kernel and GPU. Everything lands under $OUT as two
# tarballs plus valid.txt.
#   OUT=/some/dir tests/kdesc/device_valid.sh [PLAN]
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-valid}
mkdir -p "$OUT/log" "$OUT/res" "$OUT/kdesc"
exec > >(tee "$OUT/log/device_valid.log") 2>&1
mkdir -p /opt/deps && for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GC_SKIP_DEPS=1
export PYTHONPATH="$(pwd)/tools${PYTHONPATH:+:$PYTHONPATH}"   # tools/gccat.py: catalogues with their points
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
t0=$(date +%s)
mk="make -j16 LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr SQLITE_PREFIX=/opt/deps/usr"
# a refused description fails the build: say why, then measure anyway
$mk all > "$OUT/log/build.log" 2>&1 || { tail -20 "$OUT/log/build.log";
    $mk CUOBJDUMP= all > "$OUT/log/build2.log" 2>&1 || { tail -40 "$OUT/log/build2.log"; exit 1; }; }
echo "build: $(( $(date +%s) - t0 )) s; origin: $(grep -o 'origin\[\] = "[a-z]*"' build/gen/valid_desc.c)"
cuobjdump=${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump
"$cuobjdump" --version | tail -n 1 > "$OUT/kdesc/tool.txt"
"$cuobjdump" -sass -arch sm_90 build/kernels/valid.o > "$OUT/kdesc/valid.sass"
"$cuobjdump" -res-usage -arch sm_90 build/kernels/valid.o > "$OUT/kdesc/valid.res-usage.txt" 2>&1
cp build/kernels/valid.ptxas.log build/gen/kdesc/*.cfg kernels/valid.cu kernels/valid_table.h "$OUT/kdesc/"
grep -A3 "'gcv_.*' for 'sm_90'" build/kernels/valid.ptxas.log | grep Used | sort | uniq -c
plan=${1:-tests/kdesc/valid_gpu.cfg}
n=$(build/gpucensus gpus)
s=$(date +%s)
timeout 300 mpirun -np "$n" --bind-to none build/gpucensus run "$plan" --backend cuda -o "$OUT/res/valid" \
    > "$OUT/log/valid.log" 2>&1
echo "valid on $n GPUs: exit $? wall $(( $(date +%s) - s )) s"
tail -5 "$OUT/log/valid.log"
python3 - "$OUT/res/valid/catalogue.json" <<'PY' | tee "$OUT/valid.txt"
import json, sys
import gccat
c = gccat.load(sys.argv[1])
print("%-12s %4s %9s %5s %6s %8s %12s %12s %12s %6s %s" % ("kernel", "gpu", "grid", "thr", "smem", "warps/SM",
      "p50_ns", "p5_ns", "p95_ns", "n", "clock_mhz"))
for g in c["gpus"]:
    for r in g["results"]:
        if r["benchmark"] != "valid":
            continue
        x, s = r.get("context", {}), r.get("summary", {})
        if r["status"] != "ok":
            print(x.get("kernel"), g["index"], r["status"], r.get("reason", r))
            continue
        print("%-12s %4d %9d %5d %6d %8d %12.0f %12.0f %12.0f %6d %.0f %s" % (x["kernel"], g["index"],
              x["grid_blocks"], x["block_threads"], x["smem_dynamic_bytes"], x["warps_per_sm"],
              s["p50"], s["p5"], s["p95"], s["count"], x["sm_clock_mhz_measured"], ",".join(r["flags"])))
PY
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/kdesc.tgz" -C "$OUT" kdesc log && rm -rf "$OUT/kdesc" "$OUT/log"

# Sourced by the GPU machine's scripts (foreign_run.sh, peers_run.sh,
# l2_run.sh): the carried .deb files unpacked into /opt/deps, MPI allowed to
# run as root, the census built with make (prebuilt kernel objects in
# build/kernels are kept), and `census NAME PLAN`: one rank per GPU into
# $OUT/res/NAME, its log in $OUT/log/NAME.log; `peer_l2 DIR`: gpu-l2-cache
# of a gpu-benches copy in DIR, built and run into $OUT/log/peer-l2.txt.
# Needs OUT; DEPS defaults to ../.deps, GIT_COMMIT names the commit of a
# copied tree.
DEPS=${DEPS:-../.deps}
mkdir -p /opt/deps && for f in "$DEPS"/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GC=build/gpucensus
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
[ -d build/kernels ] && touch build/kernels/*.o
_t0=$(date +%s)
make -j16 ${GIT_COMMIT:+GIT_COMMIT=$GIT_COMMIT} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr SQLITE_PREFIX=/opt/deps/usr all \
    > "$OUT/log/build.log" 2>&1 || { tail -40 "$OUT/log/build.log"; exit 1; }
echo "build: $(( $(date +%s) - _t0 )) s"

census() {   # name plan
    local s=$(date +%s.%N)
    mpirun -np "$($GC gpus)" $GC run "$2" --backend cuda -o "$OUT/res/$1" --quiet > "$OUT/log/$1.log" 2>&1
    echo "$1: exit $? wall $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}

# gpu-l2-cache includes CUPTI counters it does not print by default: built
# without that include (in the copy, never committed), for sm_90.
peer_l2() {   # gpu-benches dir
    ( cd "$1/gpu-l2-cache" && sed -i -e '/gpu-metrics/d' -e '/initMeasureMetric/d' main.cu &&
      nvcc -std=c++17 -O3 -arch=sm_90 -o cuda-l2-cache main.cu -lnvidia-ml > "$OUT/log/peer-l2-build.log" 2>&1 &&
      ./cuda-l2-cache ) > "$OUT/log/peer-l2.txt" 2>&1
    echo "gpu-l2-cache: exit $?"
}

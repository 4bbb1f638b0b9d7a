# Sourced by lab/gpu/peers_run.sh and host_ab_run.sh on the GPU machine:
# NVIDIA nvbandwidth built from a copy in $1/nvbandwidth (never committed),
# with Boost's program_options from $1/boostdeb/*.deb (the GPU machine has
# no Boost), one nvcc per source in the background while the census builds.
# nvbw_start DIR: starts the compiles (nothing where DIR has no nvbandwidth);
# nvbw_finish: waits for them and links DIR/nvbandwidth/nvbandwidth.
# Logs in $OUT/log/peer-nvbandwidth-build.log.
nvbw_pids=""
nvbw_dir=""
nvbw_start() {   # peers dir
    [ -n "$1" ] && [ -d "$1/nvbandwidth" ] || return 0
    nvbw_dir=$1/nvbandwidth
    mkdir -p /opt/boost && for f in "$1"/boostdeb/*.deb; do dpkg -x "$f" /opt/boost; done
    mkdir -p "$nvbw_dir/obj"
    for f in testcase.cpp testcases_ce.cpp testcases_sm.cpp kernels.cu memcpy.cpp nvbandwidth.cpp \
             multinode_memcpy.cpp multinode_testcases.cpp output.cpp json_output.cpp json/jsoncpp.cpp; do
        ( cd "$nvbw_dir" && nvcc -O3 -std=c++17 -arch=sm_90 -DGIT_VERSION='"v0.8"' -I. -I/opt/boost/usr/include \
            -c "$f" -o "obj/$(basename "$f").o" ) >> "$OUT/log/peer-nvbandwidth-build.log" 2>&1 &
        nvbw_pids="$nvbw_pids $!"   # wait on these only: a bare wait also waits for a tee
    done
}
nvbw_finish() {
    [ -n "$nvbw_pids" ] || return 0
    wait $nvbw_pids
    nvbw_pids=""
    ( cd "$nvbw_dir" && nvcc -arch=sm_90 obj/*.o /opt/boost/usr/lib/x86_64-linux-gnu/libboost_program_options.a \
        -lnvidia-ml -lcuda -o nvbandwidth ) >> "$OUT/log/peer-nvbandwidth-build.log" 2>&1
    echo "nvbandwidth build: exit $?"
}

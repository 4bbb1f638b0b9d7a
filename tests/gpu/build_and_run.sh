#!/bin/sh
# Build the cuda backend's standalone driver without the Makefile or MPI and
# run it; used on the GPU machine. Output under ${OUT:-/tmp/gpucensus-gpu}.
#   tests/gpu/build_and_run.sh [gpu_bench args...]
set -e
cd "$(dirname "$0")/../.."
B=${BUILD:-build/gpu-test}
mkdir -p "$B"
NVFLAGS=${NVFLAGS:-"-O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80"}
pids=""
for f in kernels/*.cu; do
    o="$B/$(basename "$f" .cu).o"
    if [ ! -f "$o" ] || { [ -z "$KEEP_OBJECTS" ] && [ "$f" -nt "$o" ]; }; then nvcc $NVFLAGS -c "$f" -o "$o" & pids="$pids $!"; fi
done
for p in $pids; do wait $p; done
CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -Wall -Isrc"
gcc $CFLAGS -o "$B/gpu_bench" tests/gpu/gpu_bench.c src/measure/cuda/backend_cuda.c src/measure/nvml.c \
    src/bench/cuda_*.c src/census/registry.c src/census/results.c src/census/hist.c src/util/err.c \
    "$B"/*.o -L"${CUDA_HOME:-/usr/local/cuda}/lib64" -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm
exec "$B/gpu_bench" "$@"

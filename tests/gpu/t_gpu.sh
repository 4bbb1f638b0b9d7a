#!/bin/sh
# The cuda backend's microbenchmarks on this machine's first GPU, with the
# Hopper ranges asserted (tests/gpu/gpu_bench.c --check). Skipped without
# a GPU.
. "$(dirname "$0")/../lib.sh"
n=$("$GC" gpus 2>/dev/null || echo 0)
[ "${n:-0}" -gt 0 ] || skip "no GPU visible"
"$BUILD/tests/gpu/gpu_bench" --quick --check

#!/bin/sh
# Build every libFuzzer target (tests/fuzz/fuzz_*.c, with clang and
# -fsanitize=fuzzer,address,undefined, via `make fuzz-targets`) into
# $BUILD/fuzz/, then for each target NAME:
#   1. replay every file of tests/fuzz/corpus/NAME once (regressions are
#      checked even when the timed run is short);
#   2. fuzz for SECONDS on a copy of that corpus in $BUILD/fuzz/work/NAME
#      (the committed corpus is never modified).
# Any crash, sanitizer report, leak, timeout (> 10 s for one input) or
# out-of-memory fails. Prints the executions per target.
# Usage: tests/fuzz/run.sh SECONDS [TARGET...]   (TARGET: codec, plan, shard)
# Exit: 0 all clean, 1 a failure, 77 no clang/libFuzzer here.
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
[ $# -gt 0 ] && shift
BUILD=${BUILD:-build}
FUZZ_BUILD=$BUILD/fuzz

command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 || { echo "skipped: ${FUZZ_CC:-clang} not found"; exit 77; }
# libFuzzer ships with clang's runtime (Debian: libclang-rt-14-dev).
probe=$(mktemp -d "${TMPDIR:-/tmp}/fuzzprobe.XXXXXX")
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' > "$probe/p.c"
if ! "${FUZZ_CC:-clang}" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "skipped: ${FUZZ_CC:-clang} cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)"
    exit 77
fi
rm -rf "$probe"

# Run from a make recipe or not: use our own job count, not the parent's jobserver.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j"$(nproc 2>/dev/null || echo 2)" \
    BUILD="$BUILD" fuzz-targets || { echo "FAIL: building the fuzz targets"; exit 1; }

if [ $# -gt 0 ]; then
    names="$*"
else
    names=$(for f in tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; echo "${n%.c}"; done)
fi

# Leaks are errors; UBSan is compiled with -fno-sanitize-recover (aborts).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1"
# libFuzzer's own default exit code for a crash is 77, which our test
# runner reads as "skipped": make every failure exit 1.
common="-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048"

# The useful part of a failure log: which input, what report, where.
show() {
    grep -E '^Running:|ERROR|SUMMARY|runtime error|^ *#[0-9]+ |Test unit written|timeout|out-of-memory' "$1" |
        grep -v -E 'in fuzzer::|libFuzzer|__libc_start|_start ' | head -n 40 | sed 's/^/    /'
}

failed=""
for name in $names; do
    bin=$FUZZ_BUILD/fuzz_$name
    corpus=tests/fuzz/corpus/$name
    work=$FUZZ_BUILD/work/$name
    log=$FUZZ_BUILD/work/$name.log
    [ -x "$bin" ] || { echo "FAIL: no $bin"; failed="$failed $name"; continue; }
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    [ -d "$corpus" ] && cp -p "$corpus"/* "$work/corpus/" 2>/dev/null
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"

    # 1. Replay every committed input (crash-* regression seeds included).
    nfiles=$(find "$work/corpus" -type f | wc -l)
    if [ "$nfiles" -gt 0 ]; then
        # shellcheck disable=SC2086
        if ! "$bin" $common -artifact_prefix="$work/artifacts/" "$work"/corpus/* >"$log.replay" 2>&1; then
            echo "FAIL $name: replaying the corpus ($log.replay):"
            show "$log.replay"
            failed="$failed $name"
            continue
        fi
    fi

    # 2. Timed run on the copy.
    # shellcheck disable=SC2086
    "$bin" $common $dict -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/" "$work/corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    units=$(find "$work/corpus" -type f | wc -l)
    line=$(printf '%-8s %4ss  %10s execs  %7s/s  replayed %d  corpus %d -> %d' \
        "$name" "$secs" "${execs:-?}" "${rate:-?}" "$nfiles" "$nfiles" "$units")
    if [ $rc -ne 0 ] || grep -q -E '^==[0-9]+==ERROR|runtime error:|deadly signal|ERROR: libFuzzer' "$log"; then
        echo "FAIL $line (exit $rc; $log):"
        show "$log"
        for a in "$work"/artifacts/*; do
            [ -f "$a" ] && echo "    input: $a (keep it as tests/fuzz/corpus/$name/crash-<what> once fixed)"
        done
        failed="$failed $name"
    else
        echo "ok   $line"
    fi
done

[ -n "$failed" ] && { echo "fuzz targets failed:$failed"; exit 1; }
exit 0

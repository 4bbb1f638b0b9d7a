#!/bin/sh
# Run every test: unit programs (build/tests/test_*) and test scripts
# (tests/*/t_*.sh). Exit status 0 = passed, 77 = skipped, other = failed.
# Logs go to build/test-logs/; a failure prints the end of its log.
# The last line is "N passed, N failed, N skipped".
# Usage: tests/run.sh [NAME-FILTER...]: the tests whose name (unit/test_x,
# mpi/t_y.sh) holds any of the filters; no filter: all.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export BUILD
filters="$*"
logs=$BUILD/test-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=""

run_one() {
    name=$1
    shift
    if [ -n "$filters" ]; then
        hit=0
        for f in $filters; do
            case "$name" in *"$f"*) hit=1 ;; esac
        done
        [ $hit = 1 ] || return
    fi
    start=$(date +%s)
    log=$logs/$(echo "$name" | tr / _).log
    timeout 900 "$@" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "PASS $name (${secs}s)"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")"
    else
        fail=$((fail + 1)); failed="$failed $name"
        echo "FAIL $name (exit $rc, ${secs}s); end of $log:"
        tail -n 25 "$log" | sed 's/^/    /'
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "unit/$(basename "$t")" "$t" .
done
for t in tests/*/t_*.sh; do
    [ -x "$t" ] && run_one "${t#tests/}" "$t"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

#!/bin/sh
# Soak a test under load: RUNS runs of TEST, one after another, beside LOAD
# busy processes (shell loops, as `stress -c LOAD` would start), so that the
# ranks of an oversubscribed MPI job get a small share of the cores. Not
# part of `make test` (minutes, and it loads the machine on purpose).
# usage: tests/mpi/load_soak.sh RUNS LOAD TEST   e.g. 20 40 tests/mpi/t_lost.sh
# Prints each run's result and time, then "soak: N runs, P passed, F failed".
runs=${1:?runs} load=${2:?load} test=${3:?test}
cd "$(dirname "$0")/../.." || exit 1
logs=${BUILD:-build}/soak-logs
mkdir -p "$logs"
pids=""
i=0
while [ $i -lt "$load" ]; do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
stop() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap 'stop; exit 130' INT TERM
pass=0 fail=0 n=0
while [ $n -lt "$runs" ]; do
    n=$((n + 1))
    start=$(date +%s)
    "$test" >"$logs/run$n.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    load1=$(cut -d' ' -f1 /proc/loadavg)
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "run $n: passed in ${secs} s (load $load1)"
    else
        fail=$((fail + 1)); echo "run $n: FAILED (exit $rc) in ${secs} s (load $load1): $logs/run$n.log"
        tail -n 5 "$logs/run$n.log" | sed 's/^/    /'
    fi
done
stop
echo "soak: $runs runs of $test beside $load busy processes, $pass passed, $fail failed"
[ $fail -eq 0 ]

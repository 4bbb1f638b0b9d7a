#!/bin/sh
# One --resume after a stop makes the run whole. The demo plan on 16 ranks
# (4 simulated nodes x 4 GPUs) is stopped by SIGTERM on every rank (as
# scancel and a time limit do) at several moments of its run (on-GPU items,
# the serial transfer phases, the net phase; as fractions of an
# uninterrupted run's time), then resumed once:
# every GPU is ok, every item measured once (no result twice in the
# catalogue or a node file), and the results and links are those of an
# uninterrupted run (tests/mpi/resume_same.py).
. "$(dirname "$0")/../lib.sh"
# the demo plan without its overall budget: on a loaded machine that budget
# is spent and the items after it are failed ("budget spent"), by design
sed -e "s#\"sim/#\"$ROOT/configs/sim/#" -e 's/^budget_s = .*//' "$ROOT/configs/demo.cfg" > "$TMP/demo.cfg"
plan=$TMP/demo.cfg
t0=$(date +%s.%N)
$MPIRUN -np 16 "$GC" run "$plan" --backend sim -o "$TMP/whole" --quiet > "$TMP/whole.log" 2>&1 ||
    { cat "$TMP/whole.log"; die "uninterrupted run"; }
whole_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "uninterrupted run: $whole_s s"

stop_at() {   # stop_at PERCENT: SIGTERM every rank PERCENT% into the uninterrupted run's time, resume once
    pct=$1 out=$TMP/stop$1
    $MPIRUN -np 16 "$GC" run "$plan" --backend sim -o "$out" --progress=json > "$TMP/s$pct.log" 2>&1 &
    mp=$!
    sleep "$(awk -v p="$pct" -v w="$whole_s" 'BEGIN { printf "%.2f", p / 100 * w }')"
    kill -TERM $(pgrep -P $mp) 2>/dev/null
    wait $mp
    rc=$?
    echo "stopped at $pct% of $whole_s s: exit $rc, $(grep -c 'run abandoned after' "$TMP/s$pct.log") ranks abandoned their run"
    $MPIRUN -np 16 "$GC" run "$plan" --backend sim --resume "$out" --progress=off > "$TMP/r$pct.log" 2>&1
    rc=$?
    grep 'resuming\|cannot finish\|missing' "$TMP/r$pct.log"
    [ $rc = 0 ] || { cat "$TMP/r$pct.log"; die "resume after a stop at $pct%: exit $rc"; }
    /usr/bin/python3 "$ROOT/tests/mpi/resume_same.py" "$out" "$TMP/whole" || die "stop at $pct%: not whole after one resume"
}

for p in ${RESUME_STOPS:-10 35 60 80 92}; do
    stop_at "$p"
done
echo "ok: one --resume after a stop at ${RESUME_STOPS:-10 35 60 80 92}% makes the run whole"

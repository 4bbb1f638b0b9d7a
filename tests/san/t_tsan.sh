#!/bin/sh
# The host code's threads under ThreadSanitizer: builds build-tsan/ with
# `make tsan`, then runs the unit tests whose code starts threads (rank 0
# judges its verdicts, the GPUs' peers beside the links, while it writes the
# catalogue's tail; merge reads shards with workers) and a merge of a 4-rank
# sim run's shards. Any data race report fails. The MPI run itself is made by
# the plain build (Open MPI's own threads are not ours to judge).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd $ROOT"
command -v mpicc >/dev/null 2>&1 || skip "no mpicc"
TSAN_BUILD=${TSAN_BUILD:-$ROOT/build-tsan}
TGC=$TSAN_BUILD/gpucensus
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j"$(nproc 2>/dev/null || echo 2)" \
    BUILD="$BUILD" TSAN_BUILD="$TSAN_BUILD" tsan > "$TMP/build.log" 2>&1 ||
    { tail -n 30 "$TMP/build.log"; die "make tsan"; }
[ -x "$TGC" ] || die "no $TGC"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1"

reports() {   # a data race (or another ThreadSanitizer report) in a log?
    grep -q "ThreadSanitizer" "$1"
}
. "$ROOT/tests/san/common.sh"
san_units "$TSAN_BUILD"

out=$TMP/out
$MPIRUN -np 4 "$GC" run "$ROOT/tests/mpi/plan.cfg" --backend sim --sim-nodes 2 -o "$out" --quiet \
    > "$TMP/run.log" 2>&1 || { tail -n 20 "$TMP/run.log"; die "the sim run (plain build)"; }
log=$TMP/merge.log
if ! "$TGC" merge "$out/shards" -o "$TMP/merged" > "$log" 2>&1 || reports "$log"; then
    fail "merge under ThreadSanitizer" "$log"
else
    /usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$TMP/merged" > "$TMP/same.log" 2>&1 ||
        fail "merged != gathered (ThreadSanitizer build)" "$TMP/same.log"
    echo "ok: merge of a 4-rank sim run, equal to the run's catalogue"
fi
[ $failures -eq 0 ] || die "$failures failure(s) under ThreadSanitizer"
echo "ok: no data race reported"

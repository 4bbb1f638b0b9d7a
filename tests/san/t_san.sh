#!/bin/sh
# The host code under AddressSanitizer + UndefinedBehaviorSanitizer:
# builds build-san/ with `make san` (gcc through mpicc; the CUDA objects are
# reused from $BUILD, not sanitized), then runs under the sanitizers every
# unit test, a 2-rank MPI sim run, merge (of good and of damaged shards) and
# plan (good and bad). Any report fails: ASan/UBSan errors abort with a
# non-zero status, leaks fail at exit; Open MPI's own leaks are suppressed by
# library (tests/san/lsan.supp), ours never are.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd $ROOT"
command -v mpicc >/dev/null 2>&1 || skip "no mpicc"
SAN_BUILD=${SAN_BUILD:-$ROOT/build-san}
SGC=$SAN_BUILD/gpucensus

# Our own job count, whether or not a make (make test) called us.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j"$(nproc 2>/dev/null || echo 2)" \
    BUILD="$BUILD" SAN_BUILD="$SAN_BUILD" san > "$TMP/build.log" 2>&1 ||
    { tail -n 30 "$TMP/build.log"; die "make san"; }
[ -x "$SGC" ] || die "no $SGC"

# halt_on_error: the first report ends the process with a failure.
# fast_unwind_on_malloc=0 + plugins kept loaded: leak stacks reach into
# libmpi & co. by name, so the suppressions can match them precisely.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86:detect_stack_use_after_return=1:strict_string_checks=1:fast_unwind_on_malloc=0:malloc_context_size=30"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87"
export LSAN_OPTIONS="suppressions=$ROOT/tests/san/lsan.supp:print_suppressions=0:exitcode=88"
export OMPI_MCA_mca_base_component_disable_dlclose=1

reports() {   # any sanitizer report in a log?
    grep -E -q 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' "$1"
}
. "$ROOT/tests/san/common.sh"

# 1. Unit tests.
san_units "$SAN_BUILD"

# 2. An MPI sim run on 2 ranks, then merge and plan from the same binary.
plan=$ROOT/tests/mpi/plan.cfg
out=$TMP/out
log=$TMP/mpi.log
if ! $MPIRUN -np 2 "$SGC" run "$plan" --backend sim -o "$out" --quiet > "$log" 2>&1; then
    fail "mpirun -np 2 under the sanitizers" "$log"
elif reports "$log"; then
    fail "mpirun -np 2: sanitizer report" "$log"
else
    [ -f "$out/catalogue.json" ] || fail "no catalogue from the sanitized run" "$log"
    echo "ok: 2-rank sim run"
fi
log=$TMP/merge.log
if ! "$SGC" merge "$out/shards" -o "$TMP/merged" > "$log" 2>&1 || reports "$log"; then
    fail "merge under the sanitizers" "$log"
else
    echo "ok: merge"
fi
# The merged catalogue equals the gathered one (the plain build agrees).
/usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$TMP/merged" > "$TMP/same.log" 2>&1 ||
    fail "merged != gathered (sanitized build)" "$TMP/same.log"
log=$TMP/plan.log
if ! "$SGC" plan "$plan" --ranks 4 --nodes 2 > "$log" 2>&1 || reports "$log"; then
    fail "plan under the sanitizers" "$log"
fi
# A bad plan: the error path must be clean too (exit 2, no report).
printf 'name = "x";\nbenchmarks = ( { name = "nope"; } );\n' > "$TMP/bad.cfg"
log=$TMP/badplan.log
"$SGC" plan "$TMP/bad.cfg" > "$log" 2>&1
rc=$?
{ [ $rc -eq 2 ] && ! reports "$log"; } || fail "bad plan under the sanitizers (exit $rc, want 2)" "$log"
# Merge of damaged shards: a truncated and a bit-flipped copy must be
# refused or skipped cleanly, never a sanitizer report.
mkdir -p "$TMP/bad/shards"
cp "$out"/shards/* "$TMP/bad/shards/"
for f in "$TMP"/bad/shards/*.gcs; do
    size=$(wc -c < "$f")
    head -c $((size / 2)) "$f" > "$f.cut" && mv "$f.cut" "$f"
    break
done
log=$TMP/badmerge.log
"$SGC" merge "$TMP/bad/shards" -o "$TMP/badout" > "$log" 2>&1
rc=$?
{ [ $rc -le 2 ] && ! reports "$log"; } || fail "merge of a truncated shard (exit $rc)" "$log"
echo "ok: plan, bad plan, merge of a damaged shard directory (exit $rc)"

# 3. The hostile inputs of docs/operations.md's table, under the sanitizers:
# a report ends a case with 86, 87 or 88, never the table's code.
log=$TMP/hostile.log
if BUILD=$SAN_BUILD "$ROOT/tests/hostile/t_refused.sh" > "$log" 2>&1 && ! reports "$log"; then
    echo "ok: the hostile cases of the table"
else
    fail "hostile cases under the sanitizers" "$log"
fi

[ $failures -eq 0 ] || die "$failures sanitizer check(s) failed"
echo "sanitizers: clean"

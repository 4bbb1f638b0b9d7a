#!/bin/sh
# The sim plan on 1, 2, 4 and 8 real MPI ranks (oversubscribed): the
# catalogue has every GPU with every work item of its rank, validates
# against the schema, and `merge` of the shards rebuilds the same files.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/plan.cfg
for np in 1 2 4 8; do
    out=$TMP/np$np
    $MPIRUN -np $np "$GC" run "$plan" --backend sim -o "$out" --quiet || die "run with $np ranks failed"
    "$GC" plan "$plan" --ranks $np --nodes 2 > "$TMP/plan$np.txt" || die "plan listing"
    /usr/bin/python3 "$ROOT/tests/mpi/check.py" "$out" "$TMP/plan$np.txt" || die "catalogue of $np ranks"
    $VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema, $np ranks"; }
    "$GC" merge "$out/shards" -o "$out/merged" >/dev/null || die "merge, $np ranks"
    /usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$out/merged" || die "merged != gathered, $np ranks"
    echo "ok: $np ranks"
done

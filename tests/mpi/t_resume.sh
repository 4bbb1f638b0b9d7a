#!/bin/sh
# gpucensus run --resume OUT: only what OUT's shards lack is measured. The
# plan (resume.cfg) spends its 0.5 s budget per GPU on two slow items and
# records the rest failed; each resume measures more, until the catalogue
# is whole, and its results equal an uninterrupted run's (the simulator's
# samples depend on the item, not on when it runs). Another plan is refused.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/resume.cfg
out=$TMP/out
run() { $MPIRUN -np 4 "$GC" run "$plan" --backend sim --progress=off "$@" 2>&1; }
run -o "$out" > "$TMP/run0.log" || { cat "$TMP/run0.log"; die "first run"; }
grep -q 'GPUs measured: 0 in full, 4 partly' "$TMP/run0.log" || { cat "$TMP/run0.log"; die "first run should leave every GPU partial"; }
prev=-1
for i in 1 2 3 4; do
    run --resume "$out" > "$TMP/run$i.log" || { cat "$TMP/run$i.log"; die "resume $i"; }
    # not whole yet: it says what is missing and why
    grep -q 'GPUs measured: 4 in full' "$TMP/run$i.log" ||
        grep -q 'the resumed run is still not whole: .* items failed' "$TMP/run$i.log" ||
        { cat "$TMP/run$i.log"; die "resume $i: not whole, and not said why"; }
    line=$(grep 'resuming' "$TMP/run$i.log") || { cat "$TMP/run$i.log"; die "resume $i: no 'resuming' line"; }
    echo "$line"
    done_now=$(echo "$line" | sed 's/.*: \([0-9]*\) of 36 .*/\1/')
    [ "$done_now" -gt "$prev" ] || die "resume $i made no progress ($done_now after $prev)"
    prev=$done_now
    grep -q 'GPUs measured: 4 in full' "$TMP/run$i.log" && break
done
grep -q 'GPUs measured: 4 in full' "$TMP/run$i.log" || die "still not whole after $i resumes"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" plan "$plan" --ranks 4 --nodes 2 > "$TMP/plan.txt" || die "plan listing"
/usr/bin/python3 "$ROOT/tests/mpi/check.py" "$out" "$TMP/plan.txt" || die "resumed catalogue"

# The same plan without the budget, in one go: the same numbers (but for
# the net items, real MPI ping-pongs).
sed -e "s#\"\.\./\.\./configs#\"$ROOT/configs#" -e 's/^budget_s = 0.5;//' "$plan" > "$TMP/whole.cfg"
$MPIRUN -np 4 "$GC" run "$TMP/whole.cfg" --backend sim -o "$TMP/whole" --quiet || die "whole run"
/usr/bin/python3 - "$out/catalogue.json" "$TMP/whole/catalogue.json" <<'PY' || die "resumed != whole"
import json, sys
import gccat
def points(path):
    out = {}
    for g in gccat.load(path)["gpus"]:
        for r in g["results"]:
            key = (g["node"], g["index"], r["item"], r["metric"], json.dumps(r["context"], sort_keys=True))
            # net items time real MPI transfers: their numbers vary
            out[key] = (r["status"], None if r["benchmark"] == "net" else r["summary"])
    return out
a, b = points(sys.argv[1]), points(sys.argv[2])
assert a.keys() == b.keys(), sorted(set(a) ^ set(b))
diff = [k for k in a if a[k] != b[k]]
assert not diff, diff[:3]
print("resumed catalogue: %d points, all equal to the uninterrupted run's" % len(a))
PY

# A shard of another plan is refused (exit 2), nothing is measured.
$MPIRUN -np 4 "$GC" run "$TMP/whole.cfg" --backend sim --resume "$out" --quiet > "$TMP/other.log" 2>&1
rc=$?
cat "$TMP/other.log"
[ $rc = 2 ] || die "resume with another plan: exit $rc, expected 2"
grep -q 'resume needs the same plan file' "$TMP/other.log" || die "no reason given"
# Fewer ranks than the run being resumed: its other GPUs would leave the
# catalogue silently; refused (exit 2, the roster kept) unless --resume-reshape.
cp "$out/shards/roster.gcr" "$TMP/roster.before"
$MPIRUN -np 2 "$GC" run "$plan" --backend sim --resume "$out" --quiet > "$TMP/fewer.log" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$TMP/fewer.log"; die "resume with 2 of 4 ranks: exit $rc, expected 2"; }
grep -q 'that run had 4 ranks, this job 2' "$TMP/fewer.log" || { cat "$TMP/fewer.log"; die "no reason for the refused resume"; }
cmp -s "$out/shards/roster.gcr" "$TMP/roster.before" || die "the refused resume replaced the roster"
$MPIRUN -np 2 "$GC" run "$plan" --backend sim --resume "$out" --resume-reshape --quiet > "$TMP/reshape.log" 2>&1 ||
    { cat "$TMP/reshape.log"; die "--resume-reshape refused"; }
echo "ok: resumed to a whole catalogue in $i resumes; fewer ranks refused, --resume-reshape taken"

#!/bin/sh
# Progress on rank 0's stderr: --progress=json gives one JSON object per
# line, at most one a second (the last, at the end, may follow sooner),
# done never decreasing, ending with done == total across the cluster;
# text lines by default; --quiet prints none.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/slow.cfg   # about 3 s: one item of n1/gpu1 is 2.5 s long
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/j" --progress=json > "$TMP/j.out" 2> "$TMP/j.err" || die "json run"
cat "$TMP/j.err"
/usr/bin/python3 - "$TMP/j.err" <<'PY' || die "JSON progress"
import json, sys
lines = [json.loads(l)["progress"] for l in open(sys.argv[1]) if l.startswith('{"progress"')]
assert len(lines) >= 2, lines
t = [p["elapsed_s"] for p in lines]
assert all(b - a >= 0.95 for a, b in zip(t[:-2], t[1:-1])), t
d = [p["done"] for p in lines]
assert d == sorted(d), d
last = lines[-1]
assert last["done"] == last["total"] == 6 and last["ranks_finished"] == 2 and last["ranks_lost"] == 0, last
assert all(p["total"] == 6 for p in lines), [p["total"] for p in lines]
print("%d JSON progress lines, elapsed %s" % (len(lines), t))
PY
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/t" > /dev/null 2> "$TMP/t.err" || die "text run"
grep -q '^gpucensus: [0-9]*/6 items ([0-9]*%), [0-9]/2 ranks finished, [0-9]* s elapsed, ' "$TMP/t.err" ||
    { cat "$TMP/t.err"; die "no text progress line"; }
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/q" --quiet > "$TMP/q.out" 2> "$TMP/q.err" || die "quiet run"
grep -q 'items' "$TMP/q.err" "$TMP/q.out" && { cat "$TMP/q.err"; die "--quiet printed progress"; }
echo "ok: progress json, text, quiet"

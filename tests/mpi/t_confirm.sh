#!/bin/sh
# Measure again before blaming, end to end on the sim (tests/mpi/confirm.cfg,
# 6 ranks): the HBM items a GPU's peers would call degraded are measured
# again within the run (points with context confirm = remeasure, both
# measurements in the catalogue); the GPU whose fault holds is degraded and
# says confirmed; the one whose deviation does not repeat (a transient
# fault) is suspect and says not confirmed, its distribution findings too
# (100 samples a point, as the quick plan: the distribution rule judges them); healthy GPUs measure nothing
# again; the run's verdicts and check's agree.
. "$(dirname "$0")/../lib.sh"
out=$TMP/confirm
$MPIRUN -np 6 "$GC" run "$ROOT/tests/mpi/confirm.cfg" --backend sim -o "$out" > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
grep -q "item(s) that peers would call degraded measured again before blaming" "$TMP/run.log" ||
    { cat "$TMP/run.log"; die "no re-measure announced"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" check "$out" > "$TMP/check.out" 2>&1
[ $? -eq 2 ] || { cat "$TMP/check.out"; die "check exit"; }
grep -q "^degraded  n1/gpu2 .*\[confirmed" "$TMP/check.out" || { cat "$TMP/check.out"; die "gpu2 confirmed"; }
grep -q "^suspect   n1/gpu4 .*not confirmed (measured again" "$TMP/check.out" || { cat "$TMP/check.out"; die "gpu4 not confirmed"; }
# every finding of gpu4 not confirmed: its peers' and its distribution's
# (the second measurement judged by the same rule, not by its tail width)
grep -q "0 degraded finding(s) confirmed, 4 not (suspect)" "$TMP/check.out" || { cat "$TMP/check.out"; die "gpu4 note"; }
grep -q "distribution: .*not confirmed (measured again: .*Wasserstein-1" "$TMP/check.out" ||
    { cat "$TMP/check.out"; die "gpu4 distribution not confirmed"; }
/usr/bin/python3 - "$out" <<'PY' || die "catalogue"
import json, sys
import gccat
d = gccat.load(sys.argv[1])
again = {g["index"]: sum(r["context"].get("confirm") == "remeasure" for r in g["results"]) for g in d["gpus"]}
assert again[2] >= 2 and again[4] >= 2, again
assert all(again[i] == 0 for i in (0, 1, 3, 5)), again
lv = {v["gpu_index"]: v["verdict"] for v in d["verdicts"] if v["type"] == "gpu"}
assert lv == {0: "ok", 1: "ok", 2: "degraded", 3: "ok", 4: "suspect", 5: "ok"}, lv
PY
echo "t_confirm: confirmed degraded, unconfirmed suspect, healthy not measured again"

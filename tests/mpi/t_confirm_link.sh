#!/bin/sh
# P2P links measured again before blaming (tests/mpi/confirm_link.cfg, 8
# ranks): the links the peers would call degraded are measured again by
# their pair, and each end against a good partner, within the run (points
# with context confirm = remeasure / partner; links carry
# remeasured_bandwidth_bps); GPU 2's flapping links stay slow and are
# degraded, "confirmed"; the links GPU 5 drives, slow the first time only,
# are suspect, "not confirmed"; the catalogue validates and check repeats
# the run's verdicts.
. "$(dirname "$0")/../lib.sh"
out=$TMP/cl
$MPIRUN -np 8 "$GC" run "$ROOT/tests/mpi/confirm_link.cfg" --backend sim -o "$out" > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
grep -q "P2P link(s) that peers would call degraded measured again, and their ends against a good partner" \
    "$TMP/run.log" || { cat "$TMP/run.log"; die "no link re-measure announced"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" check "$out" > "$TMP/check.out" 2>&1
[ $? -eq 2 ] || { cat "$TMP/check.out"; die "check exit"; }
"$GC" check "$out" --json > "$TMP/v.json"
/usr/bin/python3 - "$out" "$TMP/v.json" <<'PY' || die "verdicts"
import json, sys
import gccat
d = gccat.load(sys.argv[1])
tags = {}
for g in d["gpus"]:
    for r in g["results"]:
        t = r["context"].get("confirm")
        if t:
            tags[t] = tags.get(t, 0) + 1
assert tags.get("remeasure", 0) > 0 and tags.get("partner", 0) > 0, tags
again = [l for l in d["links"] if "remeasured_bandwidth_bps" in l]
assert again, "no link carries its second measurement"
v = json.load(open(sys.argv[2]))["verdicts"]
assert v == d["verdicts"], "check and the run disagree"
links = {x["subject"].split(": ", 1)[1]: x for x in v if x["type"] == "link"}
def det(x):
    return " | ".join(r["detail"] for r in x["reasons"])
# the transient: every link GPU 5 drives to a partner other than the flapping GPU 2
for k in (0, 1, 3, 4, 6, 7):
    x = links[f"n1/gpu5 -> n1/gpu{k}"]
    assert x["verdict"] == "suspect" and "not confirmed (measured again" in det(x), (k, x["verdict"], det(x))
# the flapping GPU: its degraded links all confirmed
flap = [x for s, x in links.items() if "gpu2" in s and x["verdict"] == "degraded"]
assert flap and all("[confirmed: measured again" in det(x) for x in flap), [det(x) for x in flap]
gpus = {x["subject"]: x["verdict"] for x in v if x["type"] == "gpu"}
assert all(lv == "ok" for lv in gpus.values()), gpus
PY
echo "t_confirm_link: slow links measured again: the flapping ones confirmed degraded, the transient ones suspect"

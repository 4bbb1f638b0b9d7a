#!/bin/sh
# Verdicts written by a run: 8 sim ranks (2 nodes x 4 GPUs), one GPU with
# HBM at 80% and one PCIe link at x8. The catalogue's verdicts are schema
# valid, point at exactly those GPUs (their host links, their nodes), are
# what `gpucensus check` gives (as written: the catalogue is compact) and
# what it computes again from the catalogue and its node files (--rules),
# and what a merge of the shards writes; check exits 2 and prints both
# drain commands. Without its node files, check still gives the verdicts;
# judging again then fails naming the missing file.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/check/verdicts.cfg
out=$TMP/run
$MPIRUN -np 8 "$GC" run "$plan" --backend sim -o "$out" --quiet || die "run failed"
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" check "$out" --json > "$TMP/check.json"
[ $? -eq 2 ] || die "check --json: exit $?, expected 2"
"$GC" check "$out" --rules "$ROOT/configs/rules.cfg" --json > "$TMP/judged.json"
[ $? -eq 2 ] || die "check --rules --json: exit $?, expected 2"
"$GC" check "$out" > "$TMP/check.txt"
[ $? -eq 2 ] || { cat "$TMP/check.txt"; die "check: expected exit 2"; }
grep -q 'NodeName='"'n1'"' State=DRAIN Reason='"'"'gpucensus: n1/gpu2 degraded' "$TMP/check.txt" || die "drain n1"
grep -q 'NodeName='"'n2'"' State=DRAIN Reason='"'"'gpucensus: n2/gpu1 degraded: PCIe link trained at x8' "$TMP/check.txt" ||
    die "drain n2"
"$GC" merge "$out/shards" -o "$out/merged" >/dev/null || die "merge"
/usr/bin/python3 - "$out/catalogue.json" "$TMP/check.json" "$out/merged/catalogue.json" "$TMP/judged.json" <<'PY' || die "verdicts"
import json, sys
import gccat
assert json.load(open(sys.argv[1]))["schema_version"] == "3.1"
cat = gccat.load(sys.argv[1], points=False)   # schema 3 read as 2.0
assert all("results" not in g for g in cat["gpus"])
v = cat["verdicts"]
assert v == json.load(open(sys.argv[2]))["verdicts"], "check's verdicts differ from the run's"
assert v == json.load(open(sys.argv[4]))["verdicts"], "check --rules (judged again from the node files) differs from the run's"
assert v == gccat.load(sys.argv[3], points=False)["verdicts"], "the merge's verdicts differ from the run's"
assert sum(x["type"] == "gpu" for x in v) == 8 and sum(x["type"] == "node" for x in v) == 2
assert sum(x["type"] == "link" for x in v) == len(cat["links"])
bad = {x["subject"]: x for x in v if x["verdict"] != "ok"}
gpus = sorted(s for s, x in bad.items() if x["type"] == "gpu")
assert gpus == ["n1/gpu2", "n2/gpu1"], [(s, [(r["rule"], r["metric"], r["detail"]) for r in bad[s]["reasons"]]) for s in gpus]
assert bad["n1/gpu2"]["verdict"] == "degraded"
assert any(r["rule"] == "peers" and r["metric"] == "hbm_bw_bps" for r in bad["n1/gpu2"]["reasons"])
assert any(r["rule"] == "limit_pcie" for r in bad["n2/gpu1"]["reasons"])
links = [s for s, x in bad.items() if x["type"] == "link"]
assert links and all(s.endswith("n2/gpu1") or "n2/gpu1 ->" in s for s in links), links
assert bad["n1"]["verdict"] == bad["n2"]["verdict"] == "degraded"
print("verdicts ok:", len(v), "subjects,", len(bad), "not ok")
PY
# the node files elsewhere: the verdicts as written still; judging again names the file
mkdir -p "$TMP/alone"
cp "$out/catalogue.json" "$TMP/alone/"
"$GC" check "$TMP/alone" > "$TMP/alone.txt"
[ $? -eq 2 ] || die "check without node files: exit $?, expected 2"
"$GC" check "$TMP/alone" --rules "$ROOT/configs/rules.cfg" > /dev/null 2> "$TMP/alone.err"
[ $? -eq 3 ] || die "check --rules without node files: exit $?, expected 3"
grep -q "alone/nodes/n1.json: cannot open it" "$TMP/alone.err" || { cat "$TMP/alone.err"; die "missing node file not named"; }
# like with like per point through the node files: n2/gpu0's HBM points (not
# its parameters) 15% lower in a doctored copy (tools/gccat.py writes them
# back into its node files), checked against the run as the baseline, whose
# points come from its own node files
/usr/bin/python3 - "$out" "$TMP/doctored" <<'PY' || die "doctor"
import sys
import gccat
c = gccat.load(sys.argv[1])
n = nbw = 0
for g in c["gpus"]:
    if (g["node"], g["index"]) == ("n2", 0):
        for r in g["results"]:
            if r["benchmark"] == "hbm_bw" and r["summary"].get("count"):
                for k in ("min", "p1", "p5", "p50", "p95", "p99", "max", "mean"):
                    r["summary"][k] *= 0.85
                n += 1
                nbw += r["metric"] == "bandwidth"
assert n >= 2 and nbw >= 2, (n, nbw)
open(sys.argv[2] + ".nbw", "w").write("%d" % nbw)
gccat.save(c, sys.argv[2])
PY
"$GC" check "$TMP/doctored" --baseline "$out" --json > "$TMP/doctored.json"
"$GC" check "$TMP/doctored" --baseline "$out" > "$TMP/doctored.txt"
[ $? -eq 2 ] || die "doctored against the run: exit $?, expected 2"
/usr/bin/python3 - "$TMP/doctored.json" "$(cat "$TMP/doctored.nbw")" <<'PY' || die "n2/gpu0's HBM points not judged against the baseline's"
import json, sys
v = {x["subject"]: x for x in json.load(open(sys.argv[1]))["verdicts"]}
nbw = int(sys.argv[2])
rs = [r for r in v["n2/gpu0"]["reasons"] if r["rule"] == "baseline" and r["metric"].startswith("hbm_bw.bandwidth")]
assert v["n2/gpu0"]["verdict"] == "degraded" and rs, v["n2/gpu0"]
# schema 3.1: the points of one rule and benchmark metric are one reason:
# how many moved (every doctored bandwidth point), their range, the worst
assert len(rs) == 1, [(r["metric"], r["deviation"]) for r in rs]
r = rs[0]
assert r["points"] == nbw, (r["points"], nbw)
lo, hi = r["deviation_range"]
assert -0.16 < lo <= hi < -0.14 and r["deviation"] == lo, (r["deviation"], lo, hi)
assert r["detail"].startswith("%d points moved (" % nbw), r["detail"]
assert not [x for x in v["n2/gpu0"]["reasons"] if x["rule"] == "baseline" and x is not r
            and x["metric"].split(" ")[0] == "hbm_bw.bandwidth"]
PY
grep -q "Reason='gpucensus: n2/gpu0 degraded: [a-z]* hbm_bw.bandwidth .*(worst of [0-9]* points)" "$TMP/doctored.txt" ||
    { cat "$TMP/doctored.txt"; die "the drain line does not name the worst point and how many moved"; }
"$GC" check "$TMP/doctored" > "$TMP/asis.txt"   # its verdicts as written: the run's
grep -q "^degraded  n2/gpu0" "$TMP/asis.txt" && die "check without a baseline judged the doctored points"
echo "ok: points judged like with like through both catalogues' node files"

#!/bin/sh
# The history compares a value only with past values of the same method
# version (registry.c), on real sim runs (tests/ops/ops.cfg: 4 GPUs on 2
# logical nodes): three healthy runs, then a fourth where n2/gpu1's HBM is
# at 85%.
#   - control: a history of the same methods finds the step (degraded
#     against the GPU's own past);
#   - the same history, its runs recorded as HBM method 2 (this build
#     measures 3): no HBM value is compared (no step, no drift), the others
#     still are; check's header and each GPU's note name what was not;
#   - a database of history schema 1 (no methods; its runs dated after the
#     HBM and L2 method changes, and any since, so those methods are
#     unknown): read as it is by check (HBM, L2 not compared, launch and
#     chase are: their method never changed), migrated by the next add (the
#     count of values left unknown printed and stored as NULL), judged the
#     same after.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
PY=/usr/bin/python3
[ -x $PY ] || skip "no /usr/bin/python3"
command -v sqlite3 > /dev/null || skip "no sqlite3"

# census K [EXTRA-FAULT]: a sim run into $TMP/rK
census() {
    sed -e "s/seed = 5L;/seed = $1L;/" \
        -e "s|gpus_per_node = 2; };|gpus_per_node = 2;${2:+\n  faults = ( $2 );} };|" \
        -e "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" tests/ops/ops.cfg > "$TMP/plan$1.cfg"
    $MPIRUN -np 4 "$GC" run "$TMP/plan$1.cfg" --backend sim -o "$TMP/r$1" --quiet || die "census $1"
}
# redo SRC DST DATE [BENCH=METHOD]: a copy of run SRC started at DATE, its
# GPUs' recorded method of BENCH changed
redo() {
    rm -rf "$2"
    cp -r "$1" "$2"
    $PY - "$2/catalogue.json" "$3" "${4:-}" <<'PY' || die "redo $2"
import datetime, json, sys
path, date, bm = sys.argv[1], sys.argv[2], sys.argv[3]
cat = json.load(open(path))
t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ")
cat["run"]["start_time"] = date
cat["run"]["end_time"] = (t + datetime.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
if bm:
    b, m = bm.split("=")
    for g in cat["gpus"]:
        assert b in g["methods"], (b, g["methods"])
        g["methods"][b] = int(m)
json.dump(cat, open(path, "w"), indent=1)
# the node files beside it name the same run (a reader refuses another's)
import glob, os
for nf in glob.glob(os.path.join(os.path.dirname(path), "nodes", "*.json")):
    node = json.load(open(nf))
    node["run"]["start_time"] = cat["run"]["start_time"]
    node["run"]["end_time"] = cat["run"]["end_time"]
    json.dump(node, open(nf, "w"), indent=1)
PY
}
for k in 1 2 3; do census $k; done
census 4 '{ node = "n2"; gpu = 1; metric = "hbm_bw"; kind = "scale"; factor = 0.85; }'
for k in 1 2 3 4; do
    redo "$TMP/r$k" "$TMP/s$k" "2026-01-0${k}T03:00:00Z"                  # same methods
    [ $k = 4 ] ||
        redo "$TMP/r$k" "$TMP/o$k" "2026-01-0${k}T03:00:00Z" hbm_bw=2     # HBM of method 2
    redo "$TMP/r$k" "$TMP/d$k" "2026-12-0${k}T03:00:00Z"                  # after every method change
done
$VALIDATE "$TMP/o1" > /dev/null || { $VALIDATE "$TMP/o1"; die "schema of a run with method 2"; }
hbm=$($PY -c "import json; print(json.load(open('$TMP/r1/catalogue.json'))['gpus'][0]['methods']['hbm_bw'])")
[ "$hbm" = 3 ] || die "this build's HBM method is $hbm (the test assumes 3; change o* to an older one)"

"$GC" history add "$TMP/same.db" "$TMP/s1" "$TMP/s2" "$TMP/s3" > /dev/null || die "add same"
"$GC" history add "$TMP/other.db" "$TMP/o1" "$TMP/o2" "$TMP/o3" > /dev/null || die "add other"
"$GC" history add "$TMP/new.db" "$TMP/d1" "$TMP/d2" "$TMP/d3" > /dev/null || die "add new"
[ "$(sqlite3 "$TMP/same.db" "SELECT group_concat(DISTINCT method) FROM params WHERE name LIKE 'hbm%'")" = 3 ] ||
    die "same.db: HBM rows not of method 3"
[ "$(sqlite3 "$TMP/other.db" "SELECT group_concat(DISTINCT method) FROM params WHERE name LIKE 'hbm%'")" = 2 ] ||
    die "other.db: HBM rows not of method 2"
[ "$(sqlite3 "$TMP/other.db" "SELECT group_concat(DISTINCT method) FROM params WHERE name LIKE 'launch%'")" = 1 ] ||
    die "other.db: launch rows not of method 1"
[ "$(sqlite3 "$TMP/other.db" "SELECT count(*) FROM links WHERE method IS NULL AND uuid <> ''")" = 0 ] ||
    die "other.db: links of a GPU without a method"
echo "ok: parameters and links stored with their benchmark's method"

# check4 DB RUN NAME: check RUN against DB -> $TMP/NAME.out (text) and .json
check4() {
    "$GC" check "$2" --baseline "$1" > "$TMP/$3.out"
    rc=$?
    [ $rc = 2 ] || { cat "$TMP/$3.out"; die "check $3: exit $rc, expected 2 (n2/gpu1 degraded by peers)"; }
    "$GC" check "$2" --baseline "$1" --json > "$TMP/$3.json" 2> "$TMP/$3.err"
}
check4 "$TMP/same.db" "$TMP/s4" same
check4 "$TMP/other.db" "$TMP/s4" other   # this build's method 3 against a past of 2
check4 "$TMP/new.db" "$TMP/d4" new
grep "^history:" "$TMP/other.out"
grep -q "^history:" "$TMP/same.out" && die "same methods: a history line"

# old.db: new.db's rows in history schema 1 as an earlier gpucensus made it
sqlite3 "$TMP/old.db" > /dev/null <<SQL || die "making a schema-1 database"
PRAGMA journal_mode=WAL;
CREATE TABLE runs ( id INTEGER PRIMARY KEY, run_key TEXT NOT NULL UNIQUE, start_time TEXT NOT NULL, start_s INTEGER NOT NULL, end_time TEXT NOT NULL, plan_name TEXT NOT NULL, plan_sha256 TEXT NOT NULL, git_commit TEXT NOT NULL, backend TEXT NOT NULL, source TEXT NOT NULL, added_time TEXT NOT NULL);
CREATE TABLE gpus ( run INTEGER NOT NULL, uuid TEXT NOT NULL, node TEXT NOT NULL, gpu_index INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, level INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (run, uuid)) WITHOUT ROWID;
CREATE INDEX gpus_uuid ON gpus (uuid);
CREATE INDEX gpus_node ON gpus (node);
CREATE TABLE params ( uuid TEXT NOT NULL, name TEXT NOT NULL, run INTEGER NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (uuid, name, run)) WITHOUT ROWID;
CREATE TABLE links ( run INTEGER NOT NULL, link_index INTEGER NOT NULL, class TEXT NOT NULL, subject TEXT NOT NULL, node TEXT NOT NULL, uuid TEXT NOT NULL, sku TEXT NOT NULL, alpha_s REAL, beta_bps REAL, nominal_bps REAL, lambda REAL, level INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (run, link_index)) WITHOUT ROWID;
CREATE INDEX links_uuid ON links (uuid, class);
CREATE TABLE nodes ( node TEXT NOT NULL, run INTEGER NOT NULL, level INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (node, run)) WITHOUT ROWID;
ATTACH '$TMP/new.db' AS n;
INSERT INTO runs SELECT * FROM n.runs;
INSERT INTO gpus SELECT * FROM n.gpus;
INSERT INTO params SELECT uuid, name, run, value, unit FROM n.params;
INSERT INTO links SELECT run, link_index, class, subject, node, uuid, sku, alpha_s, beta_bps, nominal_bps, lambda, level, reason FROM n.links;
INSERT INTO nodes SELECT * FROM n.nodes;
PRAGMA application_id=1734571379;
PRAGMA user_version=1;
SQL
check4 "$TMP/old.db" "$TMP/d4" old
[ "$(sqlite3 "$TMP/old.db" 'PRAGMA user_version')" = 1 ] || die "check changed the schema-1 database"
grep "^history:" "$TMP/old.out"
hbm_l2=$(sqlite3 "$TMP/old.db" "SELECT count(*) FROM params WHERE name LIKE 'hbm%' OR name LIKE 'l2_bw%'")
cp "$TMP/old.db" "$TMP/mig.db"
"$GC" history add "$TMP/mig.db" "$TMP/d4" > "$TMP/mig.out" 2>&1 || { cat "$TMP/mig.out"; die "add to a schema-1 database"; }
cat "$TMP/mig.out"
[ "$(sqlite3 "$TMP/mig.db" 'PRAGMA user_version')" = 2 ] || die "not migrated"
# the old runs' values left unknown: those of a benchmark known to this
# build (the run added after has a method for it) whose method changed
# before their run (HBM and L2 here, any other changed since)
old="FROM runs r JOIN %s x ON x.run = r.id WHERE r.start_time < '2026-12-04' AND x.method IS NULL"
unknown=$(( $(sqlite3 "$TMP/mig.db" "SELECT count(*) $(printf "$old" params) AND x.name IN (SELECT name FROM params WHERE method IS NOT NULL)") +
            $(sqlite3 "$TMP/mig.db" "SELECT count(*) $(printf "$old" links) AND x.class IN (SELECT class FROM links WHERE method IS NOT NULL)") ))
grep -q "mig.db: migrated to history schema 2 (method versions); $unknown stored values are of unknown method" "$TMP/mig.out" ||
    die "migration message (expected $unknown values of unknown method)"
[ "$(sqlite3 "$TMP/mig.db" 'PRAGMA integrity_check')" = ok ] || die "integrity after migration"
[ "$(sqlite3 "$TMP/mig.db" 'SELECT count(*) FROM runs')" = 4 ] || die "runs after migration"
q="SELECT count(*) FROM params p JOIN runs r ON r.id = p.run WHERE r.start_time < '2026-12-04'"
[ "$(sqlite3 "$TMP/mig.db" "$q AND p.method IS NULL AND (p.name LIKE 'hbm%' OR p.name LIKE 'l2_bw%')")" = "$hbm_l2" ] ||
    die "migrated HBM and L2 values not of unknown method"
[ "$(sqlite3 "$TMP/mig.db" "$q AND p.method = 1 AND p.name LIKE 'launch%'")" = \
  "$(sqlite3 "$TMP/mig.db" "$q AND p.name LIKE 'launch%'")" ] || die "migrated launch values not of method 1"
[ "$(sqlite3 "$TMP/mig.db" "SELECT count(*) FROM params p JOIN runs r ON r.id = p.run WHERE r.start_time >= '2026-12-04' AND p.name LIKE 'hbm%' AND p.method = 3")" -gt 0 ] ||
    die "the run added after migration: HBM not of method 3"
"$GC" history add "$TMP/mig.db" "$TMP/d4" > /dev/null 2>&1
[ $? = 4 ] || die "the migrated database: a run added twice not refused"
check4 "$TMP/mig.db" "$TMP/d4" mig
# three writers meeting one schema-1 file: one migrates it, all add
cp "$TMP/old.db" "$TMP/conc.db"
pids=""
for k in d4 s4 s1; do
    "$GC" history add "$TMP/conc.db" "$TMP/$k" > "$TMP/conc_$k.out" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || { cat "$TMP"/conc_*.out; die "a concurrent add to a schema-1 file failed"; }; done
[ "$(cat "$TMP"/conc_*.out | grep -c 'migrated to history schema 2')" = 1 ] || die "not migrated exactly once"
[ "$(sqlite3 "$TMP/conc.db" 'SELECT count(*) FROM runs')" = 6 ] || die "concurrent adds to a schema-1 file"
echo "ok: a schema-1 database read as it is, then migrated by an add ($unknown values of unknown method)"

$PY - "$TMP" <<'PY' || die "verdicts against histories of other methods"
import json, re, sys
T = sys.argv[1]
def gpus(name):
    return {v["subject"]: v for v in json.load(open(f"{T}/{name}.json"))["verdicts"] if v["type"] == "gpu"}
def judged(v):   # the detector's count of values judged against the baseline
    m = re.search(r"baseline: (\d+) values judged", v["note"])
    return int(m.group(1)) if m else 0
def not_compared(v, bench):   # the detector's note: values whose baseline is of another method
    m = re.search(bench + r": baseline of method (\d+), this run method (\d+): not compared \((\d+) values\)", v["note"])
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
def hist_line(name):   # check's header line (stderr with --json)
    t = open(f"{T}/{name}.out").read()
    assert open(f"{T}/{name}.err").read().strip() == ("gpucensus check: " + t.split("\nhistory: ")[1].split("\n")[0]
                                                      if "\nhistory: " in t else ""), name
    return dict((m.group(1), (int(m.group(2)), int(m.group(3)), m.group(4)))
                for m in re.finditer(r"(\w+), method (\d+): (\d+) values?, whose past runs are of ([^;\n]+)", t))
def hbm_reasons(v, rule):
    return [r for r in v["reasons"] if r["rule"] == rule and r["metric"].startswith("hbm_")]
same, other, new, old, mig = (gpus(n) for n in ("same", "other", "new", "old", "mig"))
# control: the step is found against the GPU's own past of the same method
step = hbm_reasons(same["n2/gpu1"], "baseline")
assert step and all(r["severity"] == "degraded" and "this GPU's earlier" in r["detail"] for r in step), step
assert hist_line("same") == {}
# HBM of method 2 in the past: never compared; everything else still is
h = hist_line("other")
assert set(h) == {"hbm_bw"}, h
assert h["hbm_bw"][0] == 3 and h["hbm_bw"][2] == "method 2", h
total = 0
for s, v in other.items():
    assert not hbm_reasons(v, "baseline") and not hbm_reasons(v, "drift"), (s, v["reasons"])
    nc = not_compared(v, "hbm_bw")
    assert nc and nc[:2] == (2, 3), (s, v["note"])
    assert judged(same[s]) - judged(other[s]) == nc[2] > 0, (s, judged(same[s]), judged(other[s]), nc)
    assert judged(other[s]) > 0, s
    total += nc[2]
assert h["hbm_bw"][1] == total, (h, total)
# runs dated after the HBM and L2 changes in a schema-1 database: their
# methods unknown, not compared (the detector never sees them); launch,
# chase and the links still are
h = hist_line("old")
methods = json.load(open(f"{T}/d4/catalogue.json"))["gpus"][0]["methods"]   # this build's
changed = {b for b, m in methods.items() if m > 1}
assert {"hbm_bw", "l2_bw"} <= set(h) <= changed, (h, changed)
for b in h:
    assert h[b][0] == methods[b] and h[b][2].startswith("unknown method (stored before the history kept method"), h
assert hist_line("mig") == h, (hist_line("mig"), h)
assert sum(judged(new[s]) - judged(old[s]) for s in new) == h["hbm_bw"][1] + h["l2_bw"][1], h
assert not hbm_reasons(old["n2/gpu1"], "baseline")
assert hbm_reasons(new["n2/gpu1"], "baseline"), "new.db (schema 2, same runs) finds the step"
for s in new:
    nd = [r["metric"] for r in new[s]["reasons"] if r["rule"] == "baseline"]
    od = [r["metric"] for r in old[s]["reasons"] if r["rule"] == "baseline"]
    assert all(not m.startswith(("hbm_", "l2_bw")) for m in od), (s, od)
    assert [m for m in nd if not m.startswith(("hbm_", "l2_bw"))] == od, (s, nd, od)
    assert 0 < judged(old[s]) < judged(new[s]), (s, judged(old[s]), judged(new[s]))
    assert old[s]["reasons"] == mig[s]["reasons"] and judged(old[s]) == judged(mig[s]), s
print("other methods: %d HBM values not compared, named in check's header and each GPU's note;"
      " schema 1: HBM %d and L2 %d values of unknown method not compared"
      % (total, h["hbm_bw"][1], h["l2_bw"][1]))
PY
echo "ok: values compared only with past values of their own method"

# the report's history view: runs and band of this run's method only
"$GC" report "$TMP/s4" -o "$TMP/same.html" --history "$TMP/same.db" > /dev/null || die "report same"
"$GC" report "$TMP/s4" -o "$TMP/other.html" --history "$TMP/other.db" > /dev/null || die "report other"
$PY - "$TMP/same.html" "$TMP/other.html" <<'PY' || die "report history view by method"
import re, sys
def view(path):
    page = open(path).read()
    sec = page[page.index("<h2 id=history>"):page.index("<h2 id=nodes>")]
    gpus = sec.split("<details")[1:]
    return [(re.findall(r'<text class="title"[^>]*>([^<]*)</text><text class="sub"[^>]*>(\d+) runs of '
                        r"plan [^;<]*?(, method \d+)?;", g),
             re.findall(r"No past run of this run's method: ([^<]*)\.</p>", g)) for g in gpus]
same, other = view(sys.argv[1]), view(sys.argv[2])
assert len(same) == len(other) == 4, (len(same), len(other))
for plots, missing in same:
    titles = {t: (n, m) for t, n, m in plots}
    assert titles["HBM bandwidth"] == ("3", ", method 3"), titles
    assert titles["L2 bandwidth"] == ("3", ", method 6"), titles
    assert len(plots) == 5 and not missing, (plots, missing)
for plots, missing in other:
    titles = {t for t, n, m in plots}
    assert "HBM bandwidth" not in titles and len(plots) == 4, plots
    assert missing == ["HBM bandwidth (method 3)"], missing
print("report: 5 plots per GPU against a past of the same methods; against HBM method 2, HBM not drawn and named")
PY
echo "ok: report --history draws only past runs of this run's method"

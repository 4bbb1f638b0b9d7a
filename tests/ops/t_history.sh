#!/bin/sh
# The history database (gpucensus history, check --baseline DB, run
# --history), on real sim runs (4 GPUs on 2 logical nodes, tests/ops/ops.cfg)
# whose start times are moved 10 days apart:
#   - five runs added by five processes at once: all stored, the database
#     intact; the same run added by three at once: stored once, the others
#     refused (exit 4); added again later: refused;
#   - the whole fleet's HBM loses 1% per run (3% a month): no single run
#     shows it (peers), `check --baseline DB` gives every GPU a drift reason;
#     one GPU 15% down in the last run: a step, degraded against its own past;
#   - `history show` prints a GPU's values over time;
#   - a database locked past --timeout, a corrupt one and someone else's:
#     a clear error, exit 1, the catalogue untouched, the add retried;
#   - `run --history DB` adds the run it wrote.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
PY=/usr/bin/python3
[ -x $PY ] || skip "no /usr/bin/python3"

# plan K FACTOR [EXTRA-FAULT]: ops.cfg with seed K and the fleet's HBM at FACTOR
plan() {
    sed -e "s/seed = 5L;/seed = $1L;/" \
        -e "s|gpus_per_node = 2; };|gpus_per_node = 2;\n  faults = ( { metric = \"hbm_bw\"; kind = \"scale\"; factor = $2; }${3:+, $3} ); };|" \
        -e "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" tests/ops/ops.cfg > "$TMP/plan$1.cfg"
}
# census K FACTOR [EXTRA-FAULT]: a sim run into $TMP/rK, started 2026-01-01 + 10 K days
census() {
    plan "$@"
    $MPIRUN -np 4 "$GC" run "$TMP/plan$1.cfg" --backend sim -o "$TMP/r$1" --quiet ||
        die "census $1"
    $PY - "$TMP/r$1/catalogue.json" "$1" <<'PY' || die "dating run $1"
import datetime, json, sys
path, k = sys.argv[1], int(sys.argv[2])
cat = json.load(open(path))
t = datetime.datetime(2026, 1, 1, 3, 0, 0) + datetime.timedelta(days=10 * k)
cat["run"]["start_time"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
cat["run"]["end_time"] = (t + datetime.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
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
for k in 1 2 3 4 5; do
    census $k "$(awk -v k=$k 'BEGIN { printf "%.2f", 1 - 0.01 * (k - 1) }')"
done
census 6 0.95 '{ node = "n2"; gpu = 1; metric = "hbm_bw"; kind = "scale"; factor = 0.85; }'
$VALIDATE "$TMP/r6" > /dev/null || { $VALIDATE "$TMP/r6"; die "schema of a dated run"; }

DB=$TMP/fleet.db
# five different runs, five writers at once
pids=""
for k in 1 2 3 4 5; do
    "$GC" history add "$DB" "$TMP/r$k" > "$TMP/add$k.out" 2>&1 &
    pids="$pids $!"
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
[ $fails = 0 ] || { cat "$TMP"/add*.out; die "$fails of 5 concurrent adds failed"; }
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || die "integrity after concurrent adds"
# writers meeting a file that does not exist yet: one creates it, none refuses it
for round in 1 2 3 4 5 6 7 8 9 10; do
    rm -f "$TMP/new.db" "$TMP/new.db-wal" "$TMP/new.db-shm"
    pids=""
    for k in 1 2 3 4 5; do
        "$GC" history add "$TMP/new.db" "$TMP/r$k" > "$TMP/new$k.out" 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || { cat "$TMP"/new*.out; die "round $round: a concurrent add to a new file failed"; }; done
done
[ "$(sqlite3 "$DB" 'PRAGMA journal_mode')" = wal ] || die "not in WAL mode"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 5 ] || die "runs: $(sqlite3 "$DB" 'SELECT count(*) FROM runs')"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM gpus')" = 20 ] || die "5 runs x 4 GPUs"
[ "$(sqlite3 "$DB" 'SELECT count(DISTINCT uuid) FROM gpus')" = 4 ] || die "4 GPUs by UUID"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM params WHERE name = 'hbm_bw_bps'")" = 20 ] || die "hbm_bw_bps rows"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM links WHERE beta_bps > 0')" -ge 20 ] || die "link models"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM nodes WHERE reason = '' AND level = 0")" = 10 ] || die "node verdicts"
echo "ok: 5 runs added by 5 processes at once; WAL; integrity ok"

# the same run by three writers at once: once
cp "$DB" "$TMP/dup.db"
pids=""
for k in 1 2 3; do
    "$GC" history add "$TMP/dup.db" "$TMP/r6" > "$TMP/dup$k.out" 2>&1 &
    pids="$pids $!"
done
codes=""
for p in $pids; do wait "$p"; codes="$codes $?"; done
echo "three adds of one run: exit codes$codes"
[ "$(echo "$codes" | tr ' ' '\n' | grep -c '^0$')" = 1 ] || die "not exactly one add stored"
[ "$(echo "$codes" | tr ' ' '\n' | grep -c '^4$')" = 2 ] || die "duplicates not refused with 4"
grep -q "already in" "$TMP"/dup*.out || die "no 'already in' message"
[ "$(sqlite3 "$TMP/dup.db" 'SELECT count(*) FROM runs')" = 6 ] || die "the run stored twice"
"$GC" history add "$DB" "$TMP/r3" > "$TMP/again.out" 2>&1
[ $? = 4 ] || die "adding a run again: expected exit 4"
grep -q "is already in .*not added again" "$TMP/again.out" || die "duplicate message: $(cat "$TMP/again.out")"
echo "ok: a run added twice is refused (exit 4)"

# show: the fleet's HBM over time, oldest first
"$GC" history show "$DB" > "$TMP/show.out" || die "history show"
[ "$(grep -c '^GPU-' "$TMP/show.out")" = 4 ] || { cat "$TMP/show.out"; die "show lists 4 GPUs"; }
"$GC" history show "$DB" n1 --param hbm_bw_bps > "$TMP/show_n1.out" || die "history show n1"
cat "$TMP/show_n1.out"
$PY - "$TMP/show_n1.out" <<'PY' || die "history show values"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("2026-")]
assert len(rows) == 10, len(rows)              # 2 GPUs of n1 x 5 runs
for g in (rows[:5], rows[5:]):
    t = [r[0] for r in g]
    v = [float(r[-1]) for r in g]
    assert t == sorted(t) and t[0].startswith("2026-01-11"), t
    # 1% less each run; the medians are histogram buckets ~1.2% apart, so two
    # runs may share one (the sim's per-GPU spread moves where they fall)
    assert all(b <= a for a, b in zip(v, v[1:])) and v[-1] < v[0], v
    assert abs(v[-1] / v[0] - 0.96) < 0.03, v
print("show: n1's GPUs, 5 runs each, HBM falling")
PY
uuid=$(awk '/^GPU-/ && $2 == "n2/gpu1" { print $1 }' "$TMP/show.out")
"$GC" history show "$DB" "$uuid" | grep -q "n2/gpu1" || die "history show UUID"
# the subject as check prints it (NODE/gpuN): that GPU only, its values with units
"$GC" history show "$DB" n2/gpu1 > "$TMP/show_sub.out" || { cat "$TMP/show_sub.out"; die "history show n2/gpu1"; }
[ "$(grep -c '^GPU-' "$TMP/show_sub.out")" = 1 ] && grep -q "^$uuid  n2/gpu1 " "$TMP/show_sub.out" ||
    { cat "$TMP/show_sub.out"; die "history show n2/gpu1: not that GPU alone"; }
grep -q "\[bytes_per_s\]" "$TMP/show_sub.out" && grep -q "\[cycles\]" "$TMP/show_sub.out" ||
    { cat "$TMP/show_sub.out"; die "history show: no units"; }
"$GC" history show "$DB" n2/gpu9 > /dev/null 2>&1
[ $? = 1 ] || die "history show n2/gpu9: expected 1 (no such GPU)"
echo "ok: history show NODE/gpuN, with units"

# the last run: peers see the step of n2/gpu1 only; the history also sees
# the fleet's drift, and the step against the GPU's own past
"$GC" check "$TMP/r6" --json > "$TMP/peers.json"
[ $? = 2 ] || die "check without history: expected 2 (n2/gpu1)"
"$GC" check "$TMP/r6" --baseline "$DB" > "$TMP/hist.out"
rc=$?
cat "$TMP/hist.out"
[ $rc = 2 ] || die "check --baseline DB: exit $rc, expected 2"
grep -q "baseline: $DB (each GPU's last 10 good runs of plan ops-test)" "$TMP/hist.out" || die "baseline line"
"$GC" check "$TMP/r6" --baseline "$DB" --json > "$TMP/hist.json"
$PY - "$TMP/peers.json" "$TMP/hist.json" <<'PY' || die "verdicts against the history"
import json, sys
def gpus(p):
    return {v["subject"]: v for v in json.load(open(p))["verdicts"] if v["type"] == "gpu"}
peers, hist = gpus(sys.argv[1]), gpus(sys.argv[2])
assert len(hist) == 4, sorted(hist)
for s, v in peers.items():
    drift = [r for r in v["reasons"] if r["rule"] == "drift"]
    assert not drift, (s, drift)
    if s != "n2/gpu1":
        assert v["verdict"] == "ok", (s, v)   # the fleet drifts together: peers see nothing
for s, v in hist.items():
    d = [r for r in v["reasons"] if r["rule"] == "drift" and r["metric"] == "hbm_bw_bps"]
    assert len(d) == 1, (s, v["reasons"])
    d = d[0]
    assert d["severity"] == "suspect" and d["deviation_unit"] == "rel_per_month", d
    if s != "n2/gpu1":   # -1% per 10 days
        assert -0.04 < d["deviation"] < -0.02, d
        assert v["verdict"] == "suspect", v
    assert "baseline" in v["basis"], v
step = [r for r in hist["n2/gpu1"]["reasons"] if r["rule"] == "baseline" and r["metric"] == "hbm_bw_bps"]
assert step and step[0]["severity"] == "degraded" and "this GPU's earlier" in step[0]["detail"], step
assert -0.22 < step[0]["deviation"] < -0.12, step
assert hist["n2/gpu1"]["verdict"] == "degraded"
print("history: drift on all 4 GPUs (%.1f%%/month), step on n2/gpu1 (%.1f%%)"
      % (100 * hist["n1/gpu0"]["reasons"][0]["deviation"], 100 * step[0]["deviation"]))
PY
echo "ok: check --baseline DB: drift on every GPU, a step on n2/gpu1"

# the report's history view: each GPU's main parameters over its 5 stored
# runs, against its SKU's band
"$GC" report "$TMP/r6" -o "$TMP/page.html" --history "$DB" || die "report --history"
"$GC" report "$TMP/r6" --history "$DB" > /dev/null 2>&1 && die "report --history without -o"
$PY - "$TMP/page.html" <<'PY' || die "history view"
import re, sys
from html.parser import HTMLParser
page = open(sys.argv[1]).read()
assert '<a href="#history">history</a>' in page
sec = page[page.index("<h2 id=history>"):page.index("<h2 id=nodes>")]
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.gpus = []; self.svg = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "details": self.gpus.append([])
        elif tag == "svg" and "history" in (a.get("class") or ""): self.svg = {"pts": 0, "band": 0}; self.gpus[-1].append(self.svg)
        elif tag == "circle" and self.svg is not None: self.svg["pts"] += 1
        elif tag == "rect" and "band" in (a.get("class") or "") and self.svg is not None: self.svg["band"] += 1
p = P(); p.feed(sec)
assert len(p.gpus) == 4, len(p.gpus)
for g in p.gpus:
    assert len(g) == 5, g                      # HBM, L2, DRAM and L2 latency, launch
    assert all(s["pts"] == 5 + 1 and s["band"] == 1 for s in g), g   # + this run
print("history view: 4 GPUs x 5 plots, 5 stored runs and this one each, with the SKU's band")
PY
echo "ok: report --history"

# locked past the timeout: a clear error, nothing lost, then retried
sum=$(sha256sum "$TMP/r6/catalogue.json")
$PY - "$DB" "$TMP/locked" <<'PY' &
import sqlite3, sys, time, os
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(4)
c.execute("ROLLBACK")
PY
lock=$!
n=0; while [ ! -e "$TMP/locked" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
"$GC" history add "$DB" "$TMP/r6" --timeout 1 > "$TMP/locked.out" 2>&1
rc=$?
cat "$TMP/locked.out"
[ $rc = 1 ] || die "locked database: exit $rc, expected 1"
grep -q "database is locked (another writer held it past 1 s) .*nothing was changed; retry" "$TMP/locked.out" ||
    die "locked message"
wait $lock
[ "$(sha256sum "$TMP/r6/catalogue.json")" = "$sum" ] || die "the catalogue changed"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 5 ] || die "a locked add left a run"
"$GC" history add "$DB" "$TMP/r6" || die "retry after the lock"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 6 ] || die "retry did not add"
echo "ok: locked -> exit 1, retried -> added"

# corrupt: garbage over the header; someone else's SQLite database
cp "$DB" "$TMP/bad.db"
printf 'this is not a database at all, not at all' | dd of="$TMP/bad.db" conv=notrunc 2>/dev/null
"$GC" history add "$TMP/bad.db" "$TMP/r6" > "$TMP/bad.out" 2>&1
[ $? = 1 ] || die "corrupt database: expected exit 1"
grep -q "bad.db: not a readable SQLite database (file is not a database) .*nothing was changed" "$TMP/bad.out" ||
    die "corrupt message: $(cat "$TMP/bad.out")"
"$GC" check "$TMP/r6" --baseline "$TMP/bad.db" > /dev/null 2> "$TMP/badcheck.err"
[ $? = 3 ] || die "check with a corrupt database: expected 3"
grep -q "bad.db" "$TMP/badcheck.err" || die "check's message names the database"
sqlite3 "$TMP/other.db" 'CREATE TABLE t (a); INSERT INTO t VALUES (1);'
"$GC" history add "$TMP/other.db" "$TMP/r6" > "$TMP/other.out" 2>&1
[ $? = 1 ] || die "someone else's database: expected exit 1"
grep -q "an SQLite database, but not a gpucensus history" "$TMP/other.out" || die "other message"
[ "$(sqlite3 "$TMP/other.db" 'SELECT count(*) FROM sqlite_master')" = 1 ] || die "someone else's database changed"
[ "$(sha256sum "$TMP/r6/catalogue.json")" = "$sum" ] || die "the catalogue changed"
"$GC" history add "$DB" "$TMP/nothing" > "$TMP/nocat.out" 2>&1
[ $? = 3 ] || die "missing catalogue: expected exit 3"
echo "ok: corrupt and foreign databases refused (exit 1), the catalogue untouched"

# run --history: rank 0 adds the run it wrote
plan 7 1.0
$MPIRUN -np 4 "$GC" run "$TMP/plan7.cfg" --backend sim -o "$TMP/r7" --quiet --history "$TMP/live.db" ||
    die "run --history"
[ "$(sqlite3 "$TMP/live.db" 'SELECT count(*) FROM gpus')" = 4 ] || die "run --history stored 4 GPUs"
"$GC" history last "$TMP/live.db" n2 | grep -q "^n2: ok at " || die "history last"
echo "ok: run --history"

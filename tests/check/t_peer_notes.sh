#!/bin/sh
# The catalogue's "peer_notes" (src/analyze/peer_notes.c): written once per
# run, valid against the JSON Schema, the same table however many GPUs, and
# every figure and shown_by names a real figure (and `report` shows them): a parameter or a point
# (benchmark, metric, context) of the real two-H200 catalogues in
# tests/data/fleet (e2a563f: default plan and lab/gpu/truer3.cfg, the pass
# the table's numbers mostly come from).
. "$(dirname "$0")/../lib.sh"
for n in 1 4; do
    $MPIRUN -np $n "$GC" run "$ROOT/tests/mpi/plan.cfg" --backend sim --sim-nodes 1 -o "$TMP/run$n" --quiet ||
        die "run of $n ranks failed"
    $VALIDATE "$TMP/run$n" > /dev/null || { $VALIDATE "$TMP/run$n"; die "schema ($n ranks)"; }
done
/usr/bin/python3 - "$TMP/run1" "$TMP/run4" "$ROOT/tests/data/fleet" <<'PY' || die "peer_notes"
import json, re, sys
import gccat
one, four, fleet = sys.argv[1:]
n1 = json.load(open(one + "/catalogue.json"))["peer_notes"]
text = open(four + "/catalogue.json").read()
n4 = json.loads(text)["peer_notes"]
assert n1 == n4, "the table depends on the run"
assert text.count('"peer_notes"') == 1, "written more than once"
assert len(n1) >= 8, len(n1)
for k in ("l2_bw_bps", "l1_latency_cycles", "xfer:bandwidth_h2d{direction=bidir,engine=sm}",
          "xfer:latency_ns{mode=chase}"):
    assert k in n1, "no note for " + k
params, points = set(), []
for run in ("h200x2-2026-11-26-e2a563f-default", "h200x2-2026-11-26-e2a563f-truer3"):
    c = gccat.load(fleet + "/" + run)
    for g in c["gpus"]:
        params |= {p["name"] for p in g["parameters"]}
        points += [(r["benchmark"], r["metric"], r["context"]) for r in g["results"]]

def real(fig):
    m = re.fullmatch(r"([a-z0-9_]+)(?::([a-z0-9_]+)(?:\{(.*)\})?)?", fig)
    assert m, "not a figure: " + fig
    if m.group(2) is None:
        return fig in params
    want = dict(kv.split("=", 1) for kv in m.group(3).split(",")) if m.group(3) else {}
    same = lambda v, w: str(v) == w or (isinstance(v, (int, float)) and str(int(v)) == w)
    return any(b == m.group(1) and met == m.group(2) and all(k in x and same(x[k], w) for k, w in want.items())
               for b, met, x in points)

for fig, n in n1.items():
    assert real(fig), "names no parameter or point of the e2a563f catalogues: " + fig
    assert not n["shown_by"] or real(n["shown_by"]), fig + ": shown_by names nothing real: " + n["shown_by"]
    assert n["shown_by"] != fig, fig + " shown by itself"
print("ok: %d notes, each naming a real figure" % len(n1))
PY
# the report's page shows the table, each figure once
"$GC" report "$TMP/run4" -o "$TMP/page.html" 2> "$TMP/report.err" || { cat "$TMP/report.err"; die "report"; }
grep -q "<h2 id=peers>Beside the peer tools" "$TMP/page.html" || die "the page has no peer notes"
[ "$(grep -c '<tr><td><code>' "$TMP/page.html")" -ge 8 ] || die "the page's peer notes have fewer than 8 rows"
grep -q "<code>xfer:bandwidth_h2d{direction=bidir,engine=sm}</code>" "$TMP/page.html" || die "no SM both-ways row"
echo "ok: the report's page shows the notes"
# a note whose figure is not a figure: the schema says so
/usr/bin/python3 - "$TMP/run1/catalogue.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["peer_notes"]["not a figure!"] = {"measures": "m", "peer": "p", "why": "w", "shown_by": ""}
json.dump(c, open(sys.argv[1], "w"))
PY
$VALIDATE "$TMP/run1" > "$TMP/bad.txt" 2>&1 && die "schema took a note keyed 'not a figure!'"
grep -q "not a figure" "$TMP/bad.txt" || { cat "$TMP/bad.txt"; die "schema error does not name the key"; }
echo "ok: the schema refuses a key that is no figure"

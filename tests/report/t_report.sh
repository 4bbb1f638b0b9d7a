#!/bin/sh
# gpucensus report: the terminal table (per node, colour only on a TTY),
# errors (exit 3 naming the file), and the HTML page of a simulated census
# (3 nodes x 2 GPUs, n3/gpu1's HBM at 80%) and of the real H100 example,
# rendered in headless Chromium: a screenshot, no console message (errors
# and uncaught exceptions show there; a canary page proves they would be
# seen), and the DOM's plots in the numbers the catalogue implies
# (check_dom.py). Skipped only where Chromium is not installed or cannot
# start (tools/deps.sh test installs Debian's chromium).
. "$(dirname "$0")/../lib.sh"
out=$TMP/sim
$MPIRUN -np 6 "$GC" run "$ROOT/tests/report/report.cfg" --backend sim -o "$out" --quiet ||
    die "sim run failed"

# ---- terminal table
"$GC" report "$out" > "$TMP/table.txt" 2> "$TMP/table.err" || { cat "$TMP/table.err"; die "report exit $?"; }
cat "$TMP/table.txt"
[ "$(grep -c '^node n[123] (2 GPUs)$' "$TMP/table.txt")" = 3 ] || die "a table per node"
[ "$(grep -c '^  [01] H100 80GB HBM3 (sim)' "$TMP/table.txt")" = 6 ] || die "a row per GPU"
grep -q '^gpu sku .*L1 .*L2 .*DRAM .*HBM .*HBM .*H2D .*H2D .*D2H .*D2H .*P2P .*verdict$' "$TMP/table.txt" ||
    die "table header"
# n3/gpu1 (the last row): HBM about 80% of its peers', degraded for it
row=$(grep '^  1 H100' "$TMP/table.txt" | tail -n 1)
echo "$row" | grep -q ' degraded: peers hbm_' || die "n3/gpu1 not degraded: $row"
hbm=$(echo "$row" | awk '{print $9}')
[ "$hbm" -gt 2000 ] && [ "$hbm" -lt 2500 ] || die "n3/gpu1 HBM $hbm GB/s, expected ~2320"
grep -q '^GPUs .*5 ok, 0 suspect, 1 degraded, 0 failed$' "$TMP/table.txt" || die "GPU counts"
# H2D/D2H bandwidth (GB/s) and latency (us) from the links
awk '/^  [01] H100/ { if ($11 < 40 || $11 > 70 || $12 < 1 || $12 > 5 || $13 < 40 || $13 > 70 || $14 < 1 || $14 > 5 || $15 < 200) exit 1 }' \
    "$TMP/table.txt" || die "host link or P2P columns out of range"
if grep -q "$(printf '\033')" "$TMP/table.txt"; then die "colour codes when not a TTY"; fi
if command -v script >/dev/null 2>&1; then
    env -u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMIX_RANK -u SLURM_PROCID -u NO_COLOR \
        script -qec "$GC report $out" /dev/null > "$TMP/tty.txt" 2>&1 || die "report on a TTY"
    grep -q "$(printf '\033')\[31mdegraded" "$TMP/tty.txt" || die "no colour on a TTY"
    NO_COLOR=1 script -qec "$GC report $out" /dev/null > "$TMP/tty2.txt" 2>&1
    if grep -q "$(printf '\033')\[3" "$TMP/tty2.txt"; then die "colour despite NO_COLOR"; fi
fi

# ---- errors: exit 3 naming the file; 2 for bad arguments
"$GC" report "$TMP/none.json" 2> "$TMP/e1" >/dev/null; rc=$?
[ $rc = 3 ] && grep -q "none.json" "$TMP/e1" || die "missing catalogue: exit $rc, $(cat "$TMP/e1")"
head -c 5000 "$out/catalogue.json" > "$TMP/trunc.json"
"$GC" report "$TMP/trunc.json" 2> "$TMP/e2" >/dev/null; rc=$?
[ $rc = 3 ] && grep -q "trunc.json:[0-9]*: not valid JSON" "$TMP/e2" || die "malformed: exit $rc, $(cat "$TMP/e2")"
sed 's/"gpus": \[/"gpus": 7, "x": [/' "$out/catalogue.json" > "$TMP/schema.json"
"$GC" report "$TMP/schema.json" -o "$TMP/never.html" 2> "$TMP/e3" >/dev/null; rc=$?
[ $rc = 3 ] && grep -q "schema.json" "$TMP/e3" || die "schema-invalid: exit $rc, $(cat "$TMP/e3")"
[ ! -e "$TMP/never.html" ] || die "a page from an invalid catalogue"
cat "$TMP/e1" "$TMP/e2" "$TMP/e3"
"$GC" report "$out" --bogus 2>/dev/null; [ $? = 2 ] || die "bad argument: exit 2"
"$GC" report "$out" -o "$TMP/never.html" --node nosuch 2> "$TMP/e4"; rc=$?
[ $rc = 2 ] && grep -q "no such node" "$TMP/e4" || die "--node of no node: exit $rc, $(cat "$TMP/e4")"
"$GC" report 2>/dev/null; [ $? = 2 ] || die "no catalogue: exit 2"

# ---- a GPU that failed (no parameters, no points, no links) and a node
# file gone: the table says why, the page is still written (with a warning).
# The catalogue is compact (schema 3, doctored as 2.0): the report gives its verdicts as
# written, so the doctored one carries the verdicts `check --rules` gives
# it (judged again, its points from the node files), then n3's file goes.
mkdir -p "$TMP/failed/nodes"
/usr/bin/python3 - "$out" "$TMP/failed" <<'PY' || die "crafting a failed GPU"
import json, sys
import gccat
src, dst = sys.argv[1:]
assert json.load(open(src + "/catalogue.json"))["schema_version"] == "3.1"
c = gccat.plain(gccat.load(src, points=False))   # written back as 2.0, which gpucensus reads
g = [g for g in c["gpus"] if (g["node"], g["index"]) == ("n2", 0)][0]
g.update(status="failed", status_reason="rank lost (test)", parameters=[], points=0, items_done=0)
gone = lambda e: e["type"] == "gpu" and (e["node"], e["gpu_index"]) == ("n2", 0)
c["links"] = [l for l in c["links"] if not gone(l["src"]) and not gone(l["dst"])]
json.dump(c, open(dst + "/catalogue.json", "w"), indent=1)
for n in ("n1", "n2", "n3"):
    nf = json.load(open(f"{src}/nodes/{n}.json"))
    for x in nf["gpus"]:
        if (x["node"], x["index"]) == ("n2", 0):
            x["results"] = []
    nf["links"] = [l for l in nf["links"] if not gone(l["src"]) and not gone(l["dst"])]
    json.dump(nf, open(f"{dst}/nodes/{n}.json", "w"))
PY
"$GC" check "$TMP/failed" --rules "$ROOT/configs/rules.cfg" --json > "$TMP/failed.verdicts"
[ $? -eq 2 ] || die "check --rules of the doctored catalogue: exit $?"
/usr/bin/python3 - "$TMP/failed/catalogue.json" "$TMP/failed.verdicts" <<'PY' || die "verdicts of the doctored catalogue"
import json, sys
c = json.load(open(sys.argv[1]))
c["verdicts"] = json.load(open(sys.argv[2]))["verdicts"]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
rm "$TMP/failed/nodes/n3.json"
"$GC" report "$TMP/failed" > "$TMP/failed.txt" || die "report of a failed GPU: exit $?"
grep -q '^  0 H100 80GB HBM3 (sim)  *-  *-  *- .* failed: rank lost (test)$' "$TMP/failed.txt" ||
    { cat "$TMP/failed.txt"; die "failed GPU row"; }
"$GC" report "$TMP/failed" -o "$TMP/failed.html" 2> "$TMP/failed.err" || die "page of a failed GPU: exit $?"
grep -q "warning: .*nodes/n3.json" "$TMP/failed.err" || die "no warning for a missing node file"
grep -q 'failed<br><span class=note>rank lost (test)' "$TMP/failed.html" || die "failed GPU in the page"

# ---- the HTML page
"$GC" report "$out/catalogue.json" -o "$TMP/sim.html" || die "report -o"
"$GC" report "$ROOT/tests/data/schema1/h100-default" -o "$TMP/h100.html" || die "report -o (H100 example)"
"$GC" check "$out" --json > "$TMP/sim-verdicts.json"; [ $? -le 2 ] || die "check --json"
"$GC" check "$ROOT/tests/data/schema1/h100-default" --json > "$TMP/h100-verdicts.json"; [ $? -le 2 ] || die "check --json (H100)"
for p in sim h100; do
    # self-contained: nothing fetched (the SVG namespace is a name, not a fetch)
    if grep -Eo '(src|href|url)[=(]"?(https?:)?//[^" )]*' "$TMP/$p.html" | grep -v 'www.w3.org/2000/svg'; then
        die "$p.html refers to the network"
    fi
    if grep -Eq '<(link|img|iframe)[ >]|<script [^>]*src=' "$TMP/$p.html"; then die "$p.html loads a resource"; fi
done

chromium=""
for c in chromium chromium-browser; do command -v $c >/dev/null 2>&1 && chromium=$c && break; done
[ -n "$chromium" ] || skip "chromium not installed (tools/deps.sh test installs it)"
n=0
browse() { # browse FILE.html ARGS...: a fresh profile each time
    n=$((n + 1))
    f=$1
    shift
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$TMP/profile$n" --enable-logging=stderr --v=0 "$@" "file://$f"
}
printf '<!DOCTYPE html><html><body><p>canary</p><script>console.error("canary-error");nosuchfunction();</script></body></html>\n' > "$TMP/canary.html"
browse "$TMP/canary.html" --dump-dom > "$TMP/canary.dom" 2> "$TMP/canary.log" ||
    skip "chromium cannot start here: $(tail -n 3 "$TMP/canary.log" | tr '\n' ' ')"
grep -q '<p>canary</p>' "$TMP/canary.dom" || skip "chromium renders nothing here: $(tail -n 3 "$TMP/canary.log" | tr '\n' ' ')"
# From here on Chromium works: any failure is a failure.
grep -q 'CONSOLE.*canary-error' "$TMP/canary.log" && grep -q 'CONSOLE.*nosuchfunction' "$TMP/canary.log" ||
    die "console messages are not seen in Chromium's log: the check below would prove nothing"
browse "$TMP/failed.html" --dump-dom > "$TMP/failed.dom" 2> "$TMP/failed.log" || die "chromium --dump-dom failed.html"
if grep -E 'CONSOLE|Failed to load resource|net::ERR_' "$TMP/failed.log"; then die "failed.html: console messages or load errors"; fi
grep -q 'class="plot lat"' "$TMP/failed.dom" || die "failed.html: no latency plot"
for p in sim h100; do
    browse "$TMP/$p.html" --dump-dom > "$TMP/$p.dom" 2> "$TMP/$p.log" || die "chromium --dump-dom $p.html"
    if grep -E 'CONSOLE|Failed to load resource|net::ERR_' "$TMP/$p.log"; then die "$p.html: console messages or load errors"; fi
    browse "$TMP/$p.html" --hide-scrollbars --window-size=1280,2400 --screenshot="$TMP/$p.png" \
        > "$TMP/$p.shot.log" 2>&1 || die "chromium --screenshot $p.html: $(tail -n 3 "$TMP/$p.shot.log")"
    [ "$(head -c 8 "$TMP/$p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || die "$p.png: not a PNG"
    [ "$(wc -c < "$TMP/$p.png")" -gt 50000 ] || die "$p.png: $(wc -c < "$TMP/$p.png") bytes, a blank page?"
    mkdir -p "$BUILD/test-logs" && cp "$TMP/$p.png" "$BUILD/test-logs/report-$p.png"
done
/usr/bin/python3 "$ROOT/tests/report/check_dom.py" "$TMP/sim.dom" "$out/catalogue.json" \
    "$TMP/sim-verdicts.json" --expect-outlier n3/gpu1:hbm_bw_bps || die "sim report DOM"
/usr/bin/python3 "$ROOT/tests/report/check_dom.py" "$TMP/h100.dom" \
    "$ROOT/tests/data/schema1/h100-default/catalogue.json" "$TMP/h100-verdicts.json" || die "H100 report DOM"
# a large census's layout on the small one: the subjects (not ok, and all of
# them in a census as small as this) past the
# rows (none here) as data (one peer-group, note and link-class table; the worst
# reason and the rest counted), drawn a page at a time by the page's script
GC_REPORT_VERDICT_ROWS=0 "$GC" report "$out/catalogue.json" -o "$TMP/more.html" || die "report -o (rows as data)"
browse "$TMP/more.html" --dump-dom > "$TMP/more.dom" 2> "$TMP/more.log" || die "chromium --dump-dom more.html"
if grep -E 'CONSOLE|Failed to load resource|net::ERR_' "$TMP/more.log"; then die "more.html: console messages or load errors"; fi
/usr/bin/python3 - "$TMP/more.html" "$TMP/more.dom" "$TMP/sim-verdicts.json" <<'PY' || die "more.html: the subjects past the rows"
import html, json, re, sys
page, dom = open(sys.argv[1]).read(), open(sys.argv[2]).read()
vs = json.load(open(sys.argv[3]))["verdicts"]
if len(vs) > 100:   # a small census lists its ok subjects too
    vs = [v for v in vs if v["verdict"] != "ok"]
assert len(vs) >= 2, len(vs)
m = re.search(r'<script type="application/json" id=vmore-data>(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
assert len(d["rows"]) == len(vs), (len(d["rows"]), len(vs))
for r in d["rows"]:
    assert 0 <= r[2] < len(d["strs"]) and len(r[4]) <= 2 and (r[5] == -1 or 0 <= r[5] < len(d["strs"])), r
# drawn: the first page, each subject's text as the verdicts name it
got = [html.unescape(x) for x in re.findall(r'<tr class="vmore"><td[^>]*>[a-z]+</td><td class="l">(.*?)</td>', dom)]
assert len(got) == min(100, len(vs)), (len(got), len(vs))
want = {v["subject"] for v in vs}
assert all(s in want for s in got), [s for s in got if s not in want]
assert re.search(r'id="vm-n"[^>]*>%d subjects, page 1 of ' % (len(vs)), dom)
print("ok: %d subjects as data, %d drawn" % (len(d["rows"]), len(got)))
PY
echo "screenshots: $BUILD/test-logs/report-sim.png, $BUILD/test-logs/report-h100.png"

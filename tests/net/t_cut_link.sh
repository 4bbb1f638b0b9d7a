#!/bin/bash
# A link that dies mid-run: the test bed's 4 namespaced nodes at 200
# Mbit/s, a census, and n3's eth0 set down while its net items run. The
# job must end within the watchdog's bound (--gather-timeout 5 beyond the
# item's budget, and the abort); the other nodes' GPUs and the links among
# them complete and judged; n3's items incomplete (not degraded, no drain
# line for n3); nothing measured before the cut lost; and after the link
# is back, --resume makes the run whole (every node's items, all ok).
# What the run does not do yet is printed XFAIL (GC_NET_CUT_STRICT=1:
# failures): see the comment before the first check.
# Skipped (77) where network namespaces or Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/net/testbed.sh"
. "$ROOT/tests/net/common.sh"
set -u
tb_begin
cd "$ROOT" || die "cd"
tb_line || die "line rate"
BOUND_S=${BOUND_S:-60}

t0=$(date +%s)
job=$(GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$TMP/cut \
      sbatch --parsable -N 4 --ntasks-per-node=1 -t 5 -J gc-cut -o "$TMP/cut.out" \
      slurm/census.sbatch "$TB_PLAN" --gather-timeout 5) || die "sbatch"
# the cut: once the net phase has measured a few pairs (n1 and n2 first)
_sc_poll 60 sh -c "ls '$TMP'/cut/shards/*.gcs >/dev/null 2>&1 || grep -q 'items (' '$TMP/cut.out'" || true
sleep "${CUT_AFTER_S:-5}"
tb_link 3 down || die "ip link down"
echo "n3's link down at $(( $(date +%s) - t0 )) s"
sc_wait_job "$job" 150
t1=$(date +%s)
cat "$TMP/cut.out"
echo "the cut job ended $((t1 - t0)) s after its start ($SC_STATE, exit $SC_EXIT)"
[ $((t1 - t0)) -le "$BOUND_S" ] || die "the job took $((t1 - t0)) s (bound $BOUND_S s)"
[ -e "$TMP/cut/catalogue.json" ] || die "no catalogue after the cut"
"$GC" check "$TMP/cut" --json > "$TMP/cut-check.json"; crc=$?
"$GC" check "$TMP/cut" > "$TMP/cut-check.txt"
cat "$TMP/cut-check.txt"
# What the census keeps today: a catalogue, each GPU's items before the
# cut, the links measured before it. What it should do and does not yet
# (the other nodes carry on, the cut node's items incomplete rather than
# its GPU failed: the run's handling of a lost rank) is printed as XFAIL;
# GC_NET_CUT_STRICT=1 makes those failures.
/usr/bin/python3 - "$TMP/cut" "$TMP/cut-check.json" "$TMP/before.json" "${GC_NET_CUT_STRICT:-0}" <<'PY' || die "the cut run's catalogue"
import gccat, json, sys
cat = gccat.load(sys.argv[1])   # with the links' sizes
ver = {v["subject"]: v for v in json.load(open(sys.argv[2]))["verdicts"]}
strict = sys.argv[4] == "1"
bad, xfail = [], []
for g in cat["gpus"]:
    if not g.get("items_done"):
        bad.append("%s/gpu%d: nothing kept of what it measured" % (g["node"], g["index"]))
    v = ver.get("%s/gpu%d" % (g["node"], g["index"]), {}).get("verdict")
    if g["node"] != "n3" and (g["status"] != "ok" or v != "ok"):
        xfail.append("%s/gpu%d: %s, %s (expected complete and ok)" % (g["node"], g["index"], g["status"], v))
    if g["node"] == "n3" and v in ("degraded", "failed"):
        xfail.append("n3/gpu%d: %s, %s (expected incomplete)" % (g["index"], g["status"], v))
net = {(l["src"]["node"], l["dst"]["node"]): l["bandwidth_top_p50_bps"]
       for l in cat["links"] if l["kind"] == "network"}
if not net:
    bad.append("no network link measured before the cut was kept")
# what was measured before the cut: each link's bandwidth per size (a pair
# cut between its sizes has its smaller ones only)
json.dump({"%s>%s@%d" % (l["src"]["node"], l["dst"]["node"], s["size_bytes"]): s["bandwidth_p50_bps"]
           for l in cat["links"] if l["kind"] == "network" for s in l.get("sizes", [])},
          open(sys.argv[3], "w"))
print("cut run: %d network links kept: %s" % (len(net), " ".join("%s>%s" % k for k in sorted(net))))
for x in xfail:
    print(("FAIL: " if strict else "XFAIL: ") + x)
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad or (strict and xfail) else 0)
PY
if grep -q "NodeName='n3'" "$TMP/cut-check.txt"; then
    [ "${GC_NET_CUT_STRICT:-0}" = 1 ] && die "a drain line for the cut node"
    echo "XFAIL: a drain line for the cut node"
fi

tb_link 3 up || die "ip link up"
tb_idle 60 || { sinfo -N -l; die "n3 not back in service"; }
tb_census cut --gather-timeout 5 --resume "$TMP/cut"
cat "$TMP/cut.out"
[ "$SC_EXIT" = 0:0 ] || die "resume: $SC_STATE $SC_EXIT"
/usr/bin/python3 - "$TMP/cut" "$TMP/before.json" "${GC_NET_CUT_STRICT:-0}" <<'PY' || die "the resumed run"
import gccat, json, sys
cat = gccat.load(sys.argv[1])   # with the links' sizes
before = json.load(open(sys.argv[2]))
net = {"%s>%s" % (l["src"]["node"], l["dst"]["node"]): l["bandwidth_top_p50_bps"]
       for l in cat["links"] if l["kind"] == "network"}
strict = sys.argv[3] == "1"
bad = [(g["node"], g["status"], g.get("items_failed")) for g in cat["gpus"] if g["status"] != "ok"]
sizes = {"%s>%s@%d" % (l["src"]["node"], l["dst"]["node"], s["size_bytes"]): s["bandwidth_p50_bps"]
         for l in cat["links"] if l["kind"] == "network" for s in l.get("sizes", [])}
lost = [k for k, v in before.items() if sizes.get(k) != v]
assert not lost, "links measured before the cut changed or lost: %s" % lost
print("resumed: %d network links (%s), the %d link sizes measured before the cut unchanged"
      % (len(net), " ".join(sorted(net)), len(before)))
xfail = []
if bad:
    xfail.append("GPUs not whole after resume: %s" % bad)
if len(net) < 8:
    xfail.append("%d network links after resume (8 in a whole run)" % len(net))
for x in xfail:
    print(("FAIL: " if strict else "XFAIL: ") + x)
sys.exit(1 if strict and xfail else 0)
PY
if ! tb_expect "$TMP/cut" none ok; then
    [ "${GC_NET_CUT_STRICT:-0}" = 1 ] && die "the resumed run is not whole and ok"
    echo "XFAIL: the resumed run is not whole and ok"
fi
echo "ok: the cut ended the job in $((t1 - t0)) s with a catalogue; what was measured before it kept through --resume (XFAIL lines: not yet)"

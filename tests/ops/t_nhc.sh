#!/bin/bash
# nhc/gpucensus.nhc: check_gpucensus, the LBNL NHC check. NHC itself is not
# packaged in Debian 12 (no `nhc` package), so the function file is sourced
# by a minimal harness that defines what NHC gives a check: die() (records
# the failure and its message, as NHC's die does before it marks the node
# offline), log(), dbg() and $HOSTNAME_S. The data is real: a sim run of 2
# nodes x 2 GPUs where n1/gpu0's SM clock is held at 95% (n1 suspect) and
# n2/gpu1's HBM at 70% (n2 degraded), in a history database, as a
# catalogue, and as the verdict files `gpucensus history publish` writes
# (what a compute node reads: -f): read-only, missing, stale and forged
# ones.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
fail() { echo "FAIL: $*" >&2; exit 1; }

sed -e 's|gpus_per_node = 2; };|gpus_per_node = 2;\n  faults = ( { node = "n1"; gpu = 0; metric = "sm_clock"; kind = "scale"; factor = 0.95; },\n             { node = "n2"; gpu = 1; metric = "hbm_bw"; kind = "scale"; factor = 0.7; } ); };|' \
    -e "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" tests/ops/ops.cfg > "$TMP/plan.cfg"
$MPIRUN -np 4 "$GC" run "$TMP/plan.cfg" --backend sim -o "$TMP/run" --quiet --history "$TMP/h.db" ||
    fail "census"

# --- what NHC gives a check ---
DIED=0 DIED_RC="" DIED_MSG="" LOGGED=""
die() { DIED=1; DIED_RC=$1; shift; DIED_MSG="$*"; }
log() { LOGGED="$LOGGED$*"$'\n'; }
dbg() { :; }
GPUCENSUS=$GC
. "$ROOT/nhc/gpucensus.nhc"

# run_check EXPECT_DIED ARGS...: check_gpucensus with a fresh harness
run_check() {
    local want=$1 rc
    shift
    DIED=0 DIED_MSG="" LOGGED=""
    check_gpucensus "$@"
    rc=$?
    echo "check_gpucensus $*: return $rc, died $DIED${DIED_MSG:+: $DIED_MSG}${LOGGED:+, logged: $LOGGED}"
    [ "$DIED" = "$want" ] || fail "check_gpucensus $*: died=$DIED, expected $want"
    [ "$rc" = "$want" ] || fail "check_gpucensus $*: returned $rc, expected $want"
}

HOSTNAME_S=n2
run_check 1 -d "$TMP/h.db"
[[ "$DIED_MSG" == "check_gpucensus:  n2: degraded at "*"(plan ops-test): "*"n2/gpu1 degraded"* ]] ||
    fail "the reason NHC would drain with: $DIED_MSG"
[ "$DIED_RC" = 1 ] || fail "die's code"
HOSTNAME_S=n1
run_check 0 -d "$TMP/h.db"
[[ "$LOGGED" == *"n1: suspect at "* ]] || fail "a suspect node is logged"
run_check 1 -d "$TMP/h.db" -s
[[ "$DIED_MSG" == *"n1: suspect"* ]] || fail "-s: suspect fails"
run_check 1 -d "$TMP/h.db" -n n9
[[ "$DIED_MSG" == *"no usable gpucensus verdict for n9: "*"no verdict for node n9"* ]] || fail "unknown node: $DIED_MSG"
# the catalogue itself, by -c (directory or file)
run_check 1 -c "$TMP/run" -n n2
run_check 0 -c "$TMP/run/catalogue.json" -n n1
# a verdict older than -a seconds
sleep 2
run_check 1 -d "$TMP/h.db" -n n1 -a 1
[[ "$DIED_MSG" == *"the last census is "*" s old (more than 1 s)"* ]] || fail "stale: $DIED_MSG"
run_check 0 -d "$TMP/h.db" -n n1 -a 3600
# the published verdict files (-f DIR or FILE; $GPUCENSUS_VERDICTS by default)
"$GC" history publish "$TMP/h.db" "$TMP/pub" || fail "history publish"
for n in n1 n2; do
    [ "$(stat -c %a "$TMP/pub/$n.verdict")" = 444 ] || fail "$n.verdict: mode $(stat -c %a "$TMP/pub/$n.verdict")"
done
ls "$TMP/pub" | grep -v '\.verdict$' && fail "a temporary left in the verdict folder"
grep -qx 'verdict degraded' "$TMP/pub/n2.verdict" || fail "n2.verdict: $(cat "$TMP/pub/n2.verdict")"
HOSTNAME_S=n2
run_check 1 -f "$TMP/pub"
[[ "$DIED_MSG" == "check_gpucensus:  n2: degraded at "*"(plan ops-test, published "*"): "*"n2/gpu1 degraded"* ]] ||
    fail "-f: the reason: $DIED_MSG"
GPUCENSUS_VERDICTS=$TMP/pub run_check 1
run_check 0 -f "$TMP/pub/n1.verdict" -n n1 -a 3600
run_check 1 -f "$TMP/pub" -n n1 -a 1
[[ "$DIED_MSG" == *"s old (more than 1 s): $TMP/pub/n1.verdict is stale"* ]] || fail "stale file: $DIED_MSG"
run_check 1 -f "$TMP/pub" -n n3
[[ "$DIED_MSG" == *"$TMP/pub/n3.verdict: missing: no verdict of n3 was published"* ]] || fail "missing file: $DIED_MSG"
# forged or broken files: named with their line, nothing of them shown raw
mkdir "$TMP/bad"
forge() { sed "$1" "$TMP/pub/n1.verdict" > "$TMP/bad/n1.verdict"; run_check 1 -f "$TMP/bad" -n n1; }
forge 's/^verdict .*/verdict fine/'
[[ "$DIED_MSG" == *"n1.verdict:4: verdict: 'fine' (ok, suspect, degraded or failed)"* ]] || fail "bad verdict: $DIED_MSG"
forge 's/^node .*/node n2/'
[[ "$DIED_MSG" == *"n1.verdict:3: node: the file is of node 'n2', not n1"* ]] || fail "other node: $DIED_MSG"
forge 's/^reason /reason \x1b[31m/'
[[ "$DIED_MSG" == *"n1.verdict:9: a control character (byte 0x1b)"* ]] || fail "escape: $DIED_MSG"
forge '/^time /d'
[[ "$DIED_MSG" == *"n1.verdict: no 'time' line"* ]] || fail "no time: $DIED_MSG"
forge 's/^plan /colour /'
[[ "$DIED_MSG" == *"n1.verdict:6: unknown key 'colour'"* ]] || fail "unknown key: $DIED_MSG"
head -c 5000 /dev/zero | tr '\0' x > "$TMP/bad/n1.verdict"
run_check 1 -f "$TMP/bad" -n n1
[[ "$DIED_MSG" == *"n1.verdict"* ]] || fail "oversized: $DIED_MSG"
rm "$TMP/bad/n1.verdict" && mkfifo "$TMP/bad/n1.verdict"
run_check 1 -f "$TMP/bad" -n n1     # a FIFO is refused, never waited on
# a missing database fails
run_check 1 -d "$TMP/none.db"
[[ "$DIED_MSG" == *"none.db: missing: no history database, catalogue or folder of published verdicts there"* ]] ||
    fail "missing database: $DIED_MSG"
run_check 1 -f "$TMP/nowhere"
[[ "$DIED_MSG" == *"nowhere: missing"* ]] || fail "missing folder: $DIED_MSG"
run_check 1 -x
[[ "$DIED_MSG" == *"unknown option -x"* ]] || fail "bad option"
echo "ok: check_gpucensus: degraded fails with gpucensus's reason, suspect logs (fails with -s), stale and unknown fail; published files (-f) read, missing, stale and forged ones refused by name"

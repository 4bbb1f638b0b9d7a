#!/bin/bash
# nhc/gpucensus.nhc: check_gpucensus, the LBNL NHC check. NHC itself is not
# packaged in Debian 12 (no `nhc` package), so the function file is sourced
# by a minimal harness that defines what NHC gives a check: die() (records
# the failure and its message, as NHC's die does before it marks the node
# offline), log(), dbg() and $HOSTNAME_S. The data is real: a sim run of 2
# nodes x 2 GPUs where n1/gpu0's SM clock is held at 95% (n1 suspect) and
# n2/gpu1's HBM at 70% (n2 degraded), in a history database and as a
# catalogue.
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
# GPUCENSUS_DB is the default source; a missing database fails
GPUCENSUS_DB=$TMP/h.db HOSTNAME_S=n2 run_check 1
run_check 1 -d "$TMP/none.db"
[[ "$DIED_MSG" == *"none.db: cannot open"* ]] || fail "missing database: $DIED_MSG"
run_check 1 -x
[[ "$DIED_MSG" == *"unknown option -x"* ]] || fail "bad option"
echo "ok: check_gpucensus: degraded fails with gpucensus's reason, suspect logs (fails with -s), stale and unknown fail"

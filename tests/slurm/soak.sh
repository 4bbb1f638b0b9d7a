#!/bin/bash
# make soak: SOAK_JOBS (default 50) census jobs, one after another, through
# the private Slurm of the tests (cluster.sh: 3 logical nodes with their own
# host names, 2 tasks each, TCP on loopback), slurm/census.sbatch, sim
# backend. A mix, drawn with SOAK_SEED (default 1):
#   quick   configs/quick.cfg as shipped (sim.nodes = 1: the sim follows
#           the allocation's 3 nodes)
#   demo    configs/demo.cfg as shipped
#   sick    tests/slurm/sick.cfg (an injected HBM fault)
#   hang    tests/slurm/hang.cfg (n2/gpu1 hangs at item 2: lost, partial catalogue)
#   crash   tests/slurm/crash.cfg (n2/gpu1 SIGKILLs itself at item 2)
#   kill    quick, one random task SIGKILLed at a random moment
#   stop    quick, one random task SIGSTOPped at a random moment (rank 0
#           stopped: nobody judges, the job's 2-minute limit ends it)
#   cancel  quick, the job scancelled (SIGTERM, then SIGKILL after KillWait)
# and for every job: its exit, its time, whether a rank died by a signal
# that nobody sent on purpose (a crash: SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
# SIGILL; the signals a kill, stop, cancel or the crash plan send are
# not), and whether an item that had finished is missing: every item that
# the job's shards hold must be in its catalogue (or there is no catalogue
# although the shards hold items), and in jobs where no rank died the
# catalogue holds at least the items rank 0's last progress line counted.
# Prints one line per job, then
#   soak: N jobs, C crashed by a signal, L lost a finished item, U unexpected exit; ...
# Exit 0 only when C, L and U are 0. SOAK_KEEP=DIR keeps every job's
# output there (else a failing job's output is printed). census.sbatch's
# SLURM_PMIX_FENCE=ring can be overridden from here (SLURM_PMIX_FENCE=mixed
# is Slurm's default, with which MPI_Init crashes now and then).
# Core dumps are enabled: a crash leaves its core in the job's directory.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
JOBS=${SOAK_JOBS:-50}
SEED=${SOAK_SEED:-1}
W=${SOAK_KEEP:-$TMP/jobs}
sc_begin 1800
ulimit -c unlimited 2>/dev/null || true
mkdir -p "$W"
cd "$ROOT" || die "cd"
RANDOM=$SEED
kinds=(quick quick quick demo sick hang crash kill kill stop stop cancel)

# The job's tasks on this machine: "PID GLOBAL_RANK" for step 0, every node.
task_pids() {
    local n
    for n in $(seq 1 "$SC_NODES"); do
        scontrol listpids "$1.0" "n$n" 2>/dev/null | awk '$3 == 0 && $5 ~ /^[0-9]+$/ { print $1, $5 }'
    done
}

# Disturb job $1 after $2 tenths of a second of running: kill, stop, cancel.
disturb() {
    local job=$1 delay=$2 what=$3 i pids pick
    for i in $(seq 1 600); do   # until its tasks exist (60 s)
        pids=$(task_pids "$job")
        [ "$(wc -l <<<"$pids")" -ge 6 ] && break
        sleep 0.1
    done
    sleep "$(awk -v d="$delay" 'BEGIN { printf "%.1f", d / 10 }')"
    if [ "$what" = cancel ]; then
        scancel "$job" 2>/dev/null && echo "scancel"
        return 0
    fi
    pids=$(task_pids "$job")
    [ -n "$pids" ] || { echo "no $what: no task left"; return 0; }
    pick=$(sed -n "$(( RANDOM % $(wc -l <<<"$pids") + 1 ))p" <<<"$pids")
    if kill "-$what" "${pick%% *}" 2>/dev/null; then
        echo "$what rank ${pick##* }"
    else
        echo "no $what: rank ${pick##* } had ended"
    fi
}

# Items of each GPU in a catalogue, as "node/index item item ...".
items_of() {
    /usr/bin/python3 - "$1" <<'PY'
import json, sys
import gccat
cat = gccat.load(sys.argv[1])
for g in cat["gpus"]:
    print("%s/%d" % (g["node"], g["index"]), *sorted({r["item"] for r in g["results"]}))
PY
}

# 0 if nothing finished is missing from OUT's catalogue, else says what.
check_items() {   # check_items OUT LOG NO_RANK_DIED
    local out=$1 log=$2 alive=$3 done have
    [ -e "$out/shards/roster.gcr" ] || return 0   # stopped before anything was measured
    "$GC" merge "$out/shards" -o "$out/.soak-merge" > /dev/null 2>&1 || {
        echo "merge of the shards failed"; return 1; }
    [ -s "$out/catalogue.json" ] || { echo "no catalogue, the shards hold items"; return 1; }
    /usr/bin/python3 - "$out/catalogue.json" "$out/.soak-merge/catalogue.json" <<'PY' || return 1
import json, sys
import gccat
def items(path):
    return {(g["node"], g["index"]): {r["item"] for r in g["results"]}
            for g in gccat.load(path)["gpus"]}
cat, shards = items(sys.argv[1]), items(sys.argv[2])
lost = {k: sorted(v - cat.get(k, set())) for k, v in shards.items() if v - cat.get(k, set())}
if lost:
    print("finished items missing from the catalogue:", lost)
    sys.exit(1)
PY
    if [ "$alive" = 1 ] && grep -q '"progress"' "$log"; then
        done=$(grep -o '"done": [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
        have=$(/usr/bin/python3 -c 'import json,sys; print(sum(g["items_done"] for g in json.load(open(sys.argv[1]))["gpus"]))' "$out/catalogue.json")
        [ "$have" -ge "$done" ] || { echo "progress counted $done items done, the catalogue holds $have"; return 1; }
    fi
    return 0
}

crashes=0 lost=0 unexpected=0 total_s=0 min_s= max_s=0
declare -A outcome
t_all=$(date +%s.%N)
for i in $(seq 1 "$JOBS"); do
    kind=${kinds[RANDOM % ${#kinds[@]}]}
    delay=$(( 5 + RANDOM % 150 ))   # 0.5 .. 15.4 s into the run
    d=$W/$i-$kind
    mkdir -p "$d"
    args=(--progress=json)
    case $kind in
    quick|kill|stop|cancel) plan=configs/quick.cfg ;;
    demo) plan=configs/demo.cfg ;;
    sick) plan=tests/slurm/sick.cfg ;;
    hang) plan=tests/slurm/hang.cfg; args+=(--gather-timeout 2) ;;
    crash) plan=tests/slurm/crash.cfg ;;
    esac
    # a stopped rank is judged lost 10 s past its item's budget (not less: a rank
    # on this loaded machine can be silent several seconds in a 0.3 s item)
    case $kind in kill|stop) args+=(--gather-timeout 10) ;; esac
    # A stopped rank 0 leaves nobody to judge: the time limit ends the job.
    limit=5
    [ "$kind" = stop ] && limit=2
    t0=$(date +%s.%N)
    job=$(cd "$d" && GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$d/out \
        sbatch --parsable -N 3 --ntasks-per-node=2 -t $limit -J "soak-$i" -o "$d/job.out" \
        "$ROOT/slurm/census.sbatch" "$ROOT/$plan" "${args[@]}") || die "sbatch"
    did=
    case $kind in
    kill) did=$(disturb "$job" "$delay" KILL) ;;
    stop) did=$(disturb "$job" "$delay" STOP) ;;
    cancel) did=$(disturb "$job" "$delay" cancel) ;;
    esac
    sc_wait_job "$job" 400 > /dev/null
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    total_s=$(awk -v a="$total_s" -v b="$secs" 'BEGIN { print a + b }')
    max_s=$(awk -v a="$max_s" -v b="$secs" 'BEGIN { print (b > a ? b : a) }')
    min_s=$(awk -v a="${min_s:-$secs}" -v b="$secs" 'BEGIN { print (b < a ? b : a) }')

    notes=()
    log=$d/job.out
    # A crash: a rank dead by a signal nobody sent on purpose.
    crash=0
    grep -Eq 'task [0-9-]+: (Segmentation fault|Bus error|Aborted|Floating point exception|Illegal instruction)' "$log" && crash=1
    grep -q 'fatal signal\|Process received signal' "$log" && crash=1
    ls "$d"/core* > /dev/null 2>&1 && crash=1
    [ $crash = 1 ] && { crashes=$((crashes + 1)); notes+=("CRASH"); }
    # Expected outcome per kind (a kill or stop that found no task: a
    # plain quick job).
    want=COMPLETED/0:0
    case $kind/$did in
    hang/*|crash/*|kill/KILL*|stop/STOP*) want=FAILED/1:0 ;;
    cancel/scancel) want=CANCELLED ;;
    esac
    [ "$did" = "STOP rank 0" ] && want=TIMEOUT
    ok_exit=0
    case "$SC_STATE/$SC_EXIT" in "$want"|"$want"/*) ok_exit=1 ;; esac
    [ "$kind/$did/$SC_STATE" = cancel/scancel/COMPLETED ] && ok_exit=1   # cancelled after its end
    [ $ok_exit = 1 ] || { unexpected=$((unexpected + 1)); notes+=("UNEXPECTED"); }
    alive=0
    case $kind in quick|demo|sick|hang) alive=1 ;; esac
    if [ "$kind" = cancel ]; then
        # Cancelled before the census started: nothing to compare.
        [ -e "$d/out/shards/roster.gcr" ] || alive=0
    fi
    if [ -s "$d/out/catalogue.json" ] && ! $VALIDATE "$d/out" > /dev/null 2>&1; then
        lost=$((lost + 1)); notes+=("SCHEMA")
    elif why=$(check_items "$d/out" "$log" "$alive"); then
        :
    else
        lost=$((lost + 1)); notes+=("LOST: $why")
    fi
    outcome[$kind]=$(( ${outcome[$kind]:-0} + 1 ))
    printf 'job %d/%d %-6s %-9s exit %-5s %6.1f s%s%s\n' "$i" "$JOBS" "$kind" "$SC_STATE" "$SC_EXIT" \
        "$secs" "${did:+ ($did)}" "${notes[*]:+ ${notes[*]}}"
    if [ ${#notes[@]} -gt 0 ]; then
        sed 's/^/    /' "$log" | tail -n 40
    elif [ -z "${SOAK_KEEP:-}" ]; then
        rm -rf "$d"
    fi
done
t_end=$(date +%s.%N)
mix=$(for k in "${!outcome[@]}"; do printf '%s %s, ' "$k" "${outcome[$k]}"; done | sed 's/, $//')
awk -v n="$JOBS" -v c="$crashes" -v l="$lost" -v u="$unexpected" -v t="$total_s" -v lo="$min_s" \
    -v hi="$max_s" -v a="$t_all" -v b="$t_end" -v mix="$mix" 'BEGIN {
    printf "soak: %d jobs, %d crashed by a signal, %d lost a finished item, %d unexpected exit; %.1f s per job (min %.1f, max %.1f), %.0f s in all (%s)\n", n, c, l, u, t / n, lo, hi, b - a, mix }'
[ $crashes = 0 ] && [ $lost = 0 ] && [ $unexpected = 0 ]

#!/bin/bash
# Slurm prolog: a node-local gpucensus check of the job's GPUs before the
# job starts, at most GPUCENSUS_PROLOG_WALL_S (10) seconds of wall time.
#
#   slurm.conf:   Prolog=/opt/gpucensus/slurm/prolog.sh
#   settings:     prolog.conf beside the Prolog= path (or
#                 $GPUCENSUS_PROLOG_CONF): shell assignments of the
#                 variables below, see slurm/prolog.conf.example; slurmd
#                 starts a prolog with Slurm's variables only, so they are
#                 read from there (a variable already in the environment
#                 wins). A settings file others may write, or not owned by
#                 the prolog's user (root), is ignored (logged).
#
# Only the GPUs Slurm gave the job are measured: SLURM_JOB_GPUS (the GPU
# indexes of its GRES, as slurmd gives them to a prolog), else
# CUDA_VISIBLE_DEVICES; the census sees them alone (CUDA_VISIBLE_DEVICES),
# one rank each, and its gpuN is the Nth of them (the log gives the map).
# A job without GPUs is not measured. When other jobs hold GPUs of the node
# (a shared node: `scontrol -d show node` has more GPUs in use, GresUsed, than
# this job's),
# nothing is measured either: their load would be read as a slow GPU or
# link, and ours would slow them. Both are logged.
#
# The job's GPUs run a plan made for it (configs/prolog.cfg), and
# `gpucensus check` judges them against GPUCENSUS_BASELINE: the SKU
# baselines (configs/baselines, the default) or an earlier catalogue; never
# the history database (SQLite in WAL mode on the host that keeps it: a
# database given here is refused and the check runs without it). The
# node's last nightly verdict, published by that host (GPUCENSUS_VERDICTS:
# DIR/NODE.verdict, `gpucensus history publish`), is logged beside. The
# prolog exits non-zero only on a confirmed fault: check says degraded or
# failed, and a second census of the same GPUs, right away, says so again
# for the same GPUs. It then drains the node itself with gpucensus's reason
# (scontrol update ... State=DRAIN Reason="gpucensus: ...") before Slurm
# sees the failure, so `sinfo -R` names the GPU and why. Anything else (all
# ok, suspects, a fault that did not repeat, no time left to confirm,
# check's exit 3 "could not judge": a census cut short leaves its GPUs
# incomplete, or the check itself failing to run) lets the job start
# (exit 0), and is logged.
#
# Variables (defaults):
#   GPUCENSUS            the binary (build/gpucensus of this checkout, or
#                        bin/gpucensus of the installation it is part of)
#   GPUCENSUS_PLAN       configs/prolog.cfg
#   GPUCENSUS_BACKEND    cuda (sim only for tests: its GPUs say so)
#   GPUCENSUS_PROLOG_GPUS  job (the job's GPUs, above) or all (every GPU of
#                        the node, `gpucensus gpus`: only where jobs always
#                        get whole nodes and no GRES is configured)
#   GPUCENSUS_GPUS       with all: the number of GPUs (what `gpucensus gpus` sees)
#   GPUCENSUS_BASELINE   configs/baselines ("-": peers and limits alone)
#   GPUCENSUS_VERDICTS   the folder of published verdicts (none)
#   GPUCENSUS_MPIRUN     mpirun
#   GPUCENSUS_PROLOG_DIR /var/tmp/gpucensus-prolog (one folder per node: the
#                        last census, check's output and prolog.log)
#   GPUCENSUS_PROLOG_WALL_S  10: the cap on the whole prolog (measuring,
#                        judging, confirming); what is not done by then is
#                        not done, and the job starts
#   GPUCENSUS_DRAIN      1 (0: print the drain, run nothing)
set -u
start_ns=$(date +%s%N)
export PATH=${PATH:+$PATH:}/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
self_dir=$(dirname "$0")
conf=${GPUCENSUS_PROLOG_CONF:-$self_dir/prolog.conf}
conf_note=""
if [ -r "$conf" ] && { [ -n "$(find "$conf" -maxdepth 0 -perm /022 2>/dev/null)" ] ||
                       [ "$(stat -L -c %u "$conf" 2>/dev/null)" != "$(id -u)" ]; }; then
    conf_note="$conf is writable by others (or not owned by $(id -un)): ignored"
elif [ -r "$conf" ]; then
    # the settings, under what the environment already says (tools/prolog-cost.sh, tests)
    env_set=$(declare -p $(compgen -v GPUCENSUS) 2>/dev/null)
    # shellcheck disable=SC1090
    . "$conf"
    eval "$env_set"
fi
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
bin=${GPUCENSUS:-$root/build/gpucensus}
[ -n "${GPUCENSUS:-}" ] || [ -x "$bin" ] || bin=$root/../../bin/gpucensus   # an installation: PREFIX/share/gpucensus/slurm
plan=${GPUCENSUS_PLAN:-$root/configs/prolog.cfg}
backend=${GPUCENSUS_BACKEND:-cuda}
baseline=${GPUCENSUS_BASELINE:-$root/configs/baselines}
mpirun=${GPUCENSUS_MPIRUN:-mpirun}
wall_s=${GPUCENSUS_PROLOG_WALL_S:-10}
node=${SLURMD_NODENAME:-$(hostname -s)}
[[ "$node" =~ ^[A-Za-z0-9._-]{1,63}$ ]] && [ "$node" != . ] && [ "$node" != .. ] || exit 0   # it names a folder
dir=${GPUCENSUS_PROLOG_DIR:-/var/tmp/gpucensus-prolog}/$node
mkdir -p "$dir" || exit 0
log=$dir/prolog.log
say() { echo "$(date -u +%FT%TZ) gpucensus prolog $node job ${SLURM_JOB_ID:-?}: $*" >> "$log"; }
left_s() { echo $(( wall_s - ($(date +%s%N) - start_ns) / 1000000000 )); }
finish() {   # finish RC WHY
    say "exit $1 after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms: $2"
    exit "$1"
}

[ -z "$conf_note" ] || say "$conf_note"
[ "$baseline" = - ] || [ -e "$baseline" ] || say "no baseline at $baseline (yet): peers and limits alone"
if [ "$baseline" != - ] && [ -f "$baseline" ] && [ "$(head -c 15 "$baseline" 2>/dev/null)" = "SQLite format 3" ]; then
    say "GPUCENSUS_BASELINE=$baseline is a history database: compute nodes never open it (SQLite WAL, one host's disk); peers and limits alone (use the SKU baselines or a catalogue)"
    baseline=-
fi
case "$wall_s" in ''|0|*[!0-9]*) say "GPUCENSUS_PROLOG_WALL_S='$wall_s' is not a whole number of seconds: 10"; wall_s=10 ;; esac

# the published nightly verdict of this node (a bounded file, checked by gpucensus)
if [ -n "${GPUCENSUS_VERDICTS:-}" ]; then
    nightly=$(timeout -k 1 2 "$bin" history last "$GPUCENSUS_VERDICTS" "$node" 2>&1 | head -c 600 | tr '\n' ' ')
    say "nightly verdict: $nightly"
fi

# the GPUs to measure: the job's (SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES) or all of the node's
mode=${GPUCENSUS_PROLOG_GPUS:-job}
list=""
case "$mode" in
job)
    list=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}
    [ -n "$list" ] || finish 0 "the job was given no GPU (no SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES): nothing to check"
    [[ "$list" =~ ^[0-9]{1,4}(,[0-9]{1,4}){0,63}$ ]] ||
        finish 0 "the job's GPUs '$(printf %s "$list" | head -c 80 | tr -c '[:alnum:],._-' '?')' are not a list of GPU indexes: not checked"
    gpus=$(( $(tr -cd , <<<"$list" | wc -c) + 1 ))
    ;;
all)
    gpus=${GPUCENSUS_GPUS:-$("$bin" gpus 2>/dev/null)}
    case "$gpus" in ''|0|*[!0-9]*) finish 0 "no GPU seen (${gpus:-gpucensus gpus failed}): nothing to check" ;; esac
    ;;
*) finish 0 "GPUCENSUS_PROLOG_GPUS='$mode' (job or all): not checked" ;;
esac

# a shared node: other jobs hold GPUs of it (or, with all, run on it at all)
others=""
if [ "$mode" = job ]; then
    # GresUsed=gpu:2(IDX:0-1) or gpu:h100:1(IDX:0),gpu:a100:0(IDX:N/A): the GPUs in use, all jobs
    alloc=$(timeout -k 1 3 scontrol -d show node "$node" 2>/dev/null | grep -o 'GresUsed=[^ ]*' | head -n 1 |
            cut -d= -f2 | tr , '\n' | sed -n 's/^gpu:\([^(]*:\)\{0,1\}\([0-9]\{1,5\}\).*/\2/p' |
            awk '{ n += $1 } END { if (NR) print n }')
    [ -n "$alloc" ] && [ "$alloc" -gt "$gpus" ] && others="$alloc GPUs of the node are in use, $gpus of them by this job"
else
    ids=$(timeout -k 1 3 squeue -h -w "$node" -t RUNNING,COMPLETING,CONFIGURING -o %A 2>/dev/null |
          grep -vx "${SLURM_JOB_ID:-none}" | head -n 5 | tr '\n' ' ')
    [ -n "$ids" ] && others="other jobs run on the node (${ids% }), and GPUCENSUS_PROLOG_GPUS=all would measure their GPUs"
fi
[ -z "$others" ] || finish 0 "shared node: $others: not measured"
if [ -n "$list" ]; then
    export CUDA_VISIBLE_DEVICES=$list
    map=$(tr , '\n' <<<"$list" | awk '{ printf "%sgpu%d=GPU %s", (NR > 1 ? ", " : ""), NR - 1, $1 }')
    say "measuring the job's $gpus GPUs ($map)"
fi

# census N: the plan on the GPUs chosen above into $dir/censusN, within the
# time left (one rank per GPU, this node only: Slurm's variables are not
# the job's here, so mpirun must not take them for an allocation, and it
# starts its ranks itself, with no remote shell)
census() {
    local out=$dir/census$1 t
    t=$(left_s)
    [ "$t" -ge 2 ] || return 124
    rm -rf "$out"
    env $(env | sed -n 's/^\(SLURM[A-Z_]*\)=.*/-u \1/p' | grep -v SLURMD_NODENAME) \
        GPUCENSUS_NODE_NAME="$node" OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1 \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout -k 1 "$t" "$mpirun" -np "$gpus" "$bin" run "$plan" --backend "$backend" -o "$out" \
        --quiet > "$out.log" 2>&1
}
# judge N: check's exit code for census N (its table in $dir/checkN.out)
judge() {
    local args=("$dir/census$1") t
    [ "$baseline" != - ] && [ -e "$baseline" ] && args+=(--baseline "$baseline")
    t=$(left_s)
    [ "$t" -ge 1 ] || { echo "no time left to judge (GPUCENSUS_PROLOG_WALL_S=$wall_s)" > "$dir/check$1.out"; return 124; }
    timeout -k 1 "$t" "$bin" check "${args[@]}" > "$dir/check$1.out" 2>&1
}
# the GPUs check calls degraded or failed, sorted
bad_gpus() {
    sed -n 's/^\(degraded\|failed\) \+\([^ ]*\/gpu[0-9]*\) .*/\2/p' "$dir/check$1.out" | sort -u
}

census 1
rc=$?
[ -s "$dir/census1/catalogue.json" ] || finish 0 "census did not complete (exit $rc, see $dir/census1.log): not judged"
judge 1
rc=$?
case $rc in
0) finish 0 "all ok" ;;
1) finish 0 "suspects only (not drained): $(bad_gpus 1 | tr '\n' ' ')$(grep -m1 '^suspect' "$dir/check1.out")" ;;
2) ;;
*) finish 0 "check could not judge (exit $rc: GPUs incomplete or no catalogue, see $dir/check1.out): not drained" ;;
esac
first=$(bad_gpus 1)
say "degraded: ${first//$'\n'/ }: measuring again to confirm"
census 2 || { [ -s "$dir/census2/catalogue.json" ] || finish 0 "no time or no census to confirm: not drained"; }
judge 2
rc=$?
again=$(comm -12 <(echo "$first") <(bad_gpus 2))
[ $rc = 2 ] && [ -n "$again" ] || finish 0 "not confirmed (second check exit $rc): not drained"

# confirmed: check's own drain line for this node, with its reason
# (check single-quotes both fields for the shell: a ' inside is written '\'')
reason=$(sed -n "s/^  scontrol update NodeName='$node' State=DRAIN Reason='\(.*\)'$/\1/p" "$dir/check2.out" |
         head -n 1 | sed "s/'\\\\''/'/g")
[ -n "$reason" ] || reason="gpucensus: ${again//$'\n'/ } degraded (see $dir/check2.out)"
reason="$reason (confirmed by the prolog)"
if [ "${GPUCENSUS_DRAIN:-1}" = 1 ]; then
    scontrol update NodeName="$node" State=DRAIN Reason="$reason" >> "$log" 2>&1 ||
        say "scontrol update failed: Slurm drains the node with its own reason"
fi
echo "$reason" >&2
finish 1 "confirmed: $reason"

#!/bin/bash
# Slurm prolog: a node-local gpucensus check before every job, at most
# GPUCENSUS_PROLOG_WALL_S (10) seconds.
#
#   slurm.conf:   Prolog=/opt/gpucensus/slurm/prolog.sh
#   settings:     /opt/gpucensus/slurm/prolog.conf (beside the Prolog= path,
#                 or $GPUCENSUS_PROLOG_CONF), shell assignments of the
#                 variables below; slurmd starts a prolog with Slurm's
#                 variables only, so they are read from there.
#
# All GPUs of the node at once run a plan made for it (configs/prolog.cfg),
# and `gpucensus check` judges them against GPUCENSUS_BASELINE: the SKU
# baselines (configs/baselines, the default), an earlier catalogue, or a
# history database (each GPU against its own past). The prolog exits
# non-zero only on a confirmed fault: check says degraded or failed, and a
# second census of the node, right away, says so again for the same GPUs.
# It then drains the node itself with gpucensus's reason (scontrol update
# ... State=DRAIN Reason="gpucensus: ...") before Slurm sees the failure,
# so `sinfo -R` names the GPU and why. Anything else (all ok, suspects, a
# fault that did not repeat, no time left to confirm, check's exit 3 "could
# not judge": a census cut short leaves its GPUs incomplete, or the check
# itself failing to run) lets the job start (exit 0), and is logged.
#
# Variables (defaults):
#   GPUCENSUS            the binary (this checkout's build/gpucensus)
#   GPUCENSUS_PLAN       configs/prolog.cfg
#   GPUCENSUS_BACKEND    cuda (sim only for tests: its GPUs say so)
#   GPUCENSUS_GPUS       ranks to start (what `gpucensus gpus` sees)
#   GPUCENSUS_BASELINE   configs/baselines ("-": peers and limits alone)
#   GPUCENSUS_HISTORY    a history database to add each census to (none)
#   GPUCENSUS_MPIRUN     mpirun
#   GPUCENSUS_PROLOG_DIR /var/tmp/gpucensus-prolog (one folder per node: the
#                        last census, check's output and prolog.log)
#   GPUCENSUS_PROLOG_WALL_S  10
#   GPUCENSUS_DRAIN      1 (0: print the drain, run nothing)
set -u
start_ns=$(date +%s%N)
export PATH=${PATH:+$PATH:}/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
self_dir=$(dirname "$0")
conf=${GPUCENSUS_PROLOG_CONF:-$self_dir/prolog.conf}
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
bin=${GPUCENSUS:-$root/build/gpucensus}
plan=${GPUCENSUS_PLAN:-$root/configs/prolog.cfg}
backend=${GPUCENSUS_BACKEND:-cuda}
baseline=${GPUCENSUS_BASELINE:-$root/configs/baselines}
mpirun=${GPUCENSUS_MPIRUN:-mpirun}
wall_s=${GPUCENSUS_PROLOG_WALL_S:-10}
node=${SLURMD_NODENAME:-$(hostname -s)}
dir=${GPUCENSUS_PROLOG_DIR:-/var/tmp/gpucensus-prolog}/$node
mkdir -p "$dir" || exit 0
log=$dir/prolog.log
say() { echo "$(date -u +%FT%TZ) gpucensus prolog $node job ${SLURM_JOB_ID:-?}: $*" >> "$log"; }
left_s() { echo $(( wall_s - ($(date +%s%N) - start_ns) / 1000000000 )); }
finish() {   # finish RC WHY
    say "exit $1 after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms: $2"
    exit "$1"
}

[ "$baseline" = - ] || [ -e "$baseline" ] || say "no baseline at $baseline (yet): peers and limits alone"
gpus=${GPUCENSUS_GPUS:-$("$bin" gpus 2>/dev/null)}
case "$gpus" in ''|0|*[!0-9]*) finish 0 "no GPU seen (${gpus:-gpucensus gpus failed}): nothing to check" ;; esac

# census N: the plan on every GPU of the node into $dir/censusN, within the
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
        --quiet ${GPUCENSUS_HISTORY:+--history "$GPUCENSUS_HISTORY"} > "$out.log" 2>&1
}
# judge N: check's exit code for census N (its table in $dir/checkN.out)
judge() {
    local args=("$dir/census$1")
    [ "$baseline" != - ] && [ -e "$baseline" ] && args+=(--baseline "$baseline")
    "$bin" check "${args[@]}" > "$dir/check$1.out" 2>&1
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

#!/bin/bash
# The nightly census, from cron on the host that keeps the history
# database (a login or admin node: SQLite's WAL wants the database on
# that host's own disk, not on NFS):
#
#   slurm/daily.sh DB PROM_FILE [--publish DIR] [SBATCH OPTIONS] -- [PLAN [RUN OPTIONS]]
#
#   1. sbatch --wait slurm/census.sbatch PLAN (default configs/quick.cfg):
#      a census of the nodes the SBATCH OPTIONS ask for, into results/<job id>
#      (or $GPUCENSUS_OUT);
#   2. gpucensus history add DB results/<job id> (what the census wrote, also
#      a partial catalogue after a lost rank);
#   3. with --publish DIR: gpucensus history publish DB DIR, each node's last
#      verdict as DIR/NODE.verdict (read-only, written atomically): what NHC
#      and the prolog read on the compute nodes (DIR on shared storage),
#      which never open the database;
#   4. gpucensus check results/<job id> --baseline DB --prometheus PROM_FILE:
#      each GPU against its own past (steps and drift), and the metrics for
#      node_exporter's textfile collector ("-": none).
# Exit code: check's (0 ok, 1 suspects, 2 degraded or failed, 3 could not
# judge); 4 when the census wrote no catalogue, 5 when the history add
# failed (the catalogue stays: `gpucensus history add DB OUT` again), 6
# when publishing failed (the earlier files stay; NHC's -a finds them stale).
# Environment: GPUCENSUS (default build/gpucensus, or bin/gpucensus of an
# installation), GPUCENSUS_BACKEND and GPUCENSUS_OUT as for census.sbatch.
set -u
[ $# -ge 2 ] || { sed -n '2,/^set -u/p' "$0" | sed '$d' >&2; exit 3; }
db=$1 prom=$2 publish=""
shift 2
if [ "${1:-}" = --publish ]; then
    [ $# -ge 2 ] || { echo "slurm/daily.sh: --publish needs a folder" >&2; exit 3; }
    publish=$2
    shift 2
fi
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do sbatch_opts+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- configs/quick.cfg
cd "$(dirname "$(readlink -f "$0")")/.." || exit 3
bin=${GPUCENSUS:-build/gpucensus}
# an installation (`module load gpucensus`): its binary on PATH, plans found under GPUCENSUS_HOME
[ -x "$bin" ] || [ ! -x ../../bin/gpucensus ] || bin=$(cd ../../bin && pwd)/gpucensus   # PREFIX/share/gpucensus/slurm
[ -x "$bin" ] || bin=$(command -v gpucensus || echo "$bin")
say() { echo "$(date -u +%FT%TZ) gpucensus daily: $*"; }

# the job's own output: beside its results
joblog=${GPUCENSUS_OUT:+$GPUCENSUS_OUT.log}
mkdir -p results
id=$(sbatch --parsable --wait -J gpucensus-daily -o "${joblog:-results/gpucensus-daily-%j.out}" \
    "${sbatch_opts[@]}" slurm/census.sbatch "$@")
rc=$?
id=${id%%;*}
out=${GPUCENSUS_OUT:-results/$id}
say "census job ${id:-?} ended (sbatch exit $rc): $out"
[ -n "$id" ] && [ -s "$out/catalogue.json" ] || { say "no catalogue in $out: nothing to add or judge"; exit 4; }
"$bin" history add "$db" "$out" || { say "history add failed: $out is kept"; exit 5; }
if [ -n "$publish" ]; then
    "$bin" history publish "$db" "$publish" || { say "publishing the verdicts into $publish failed"; exit 6; }
    say "verdicts published in $publish"
fi
args=("$out" --baseline "$db")
[ "$prom" != - ] && args+=(--prometheus "$prom")
"$bin" check "${args[@]}"
rc=$?
say "check exit $rc"
exit $rc

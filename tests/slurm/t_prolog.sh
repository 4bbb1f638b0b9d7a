#!/bin/bash
# slurm/prolog.sh on the real single-host Slurm of the tests (cluster.sh,
# sc_up --prolog): slurmd runs it before each job on each node, with the
# settings an operator would put beside it (prolog.conf): the sim backend
# (2 GPUs a node), configs/prolog.cfg, a history database as the baseline,
# each census added to it.
#   1. healthy nodes: jobs run on n1..n3, each prolog says "all ok";
#   2. n3/gpu1's HBM at 85% (the plan's sim section, as a fault): a job on
#      n1 still runs; a job on n3 does not: the prolog finds n3/gpu1
#      degraded against its own past, measures again, confirms, and the
#      node is drained with gpucensus's reason (sinfo -R shows it);
#   3. every prolog took at most 10 s of wall time.
# Skipped (77) only where Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
# an installation as an operator would make it: the script (linked) and its settings beside it
mkdir -p "$TMP/inst/slurm" "$TMP/prolog"
ln -s "$ROOT/slurm/prolog.sh" "$TMP/inst/slurm/prolog.sh"
mkplan() {   # mkplan [FAULT]: configs/prolog.cfg with the sim profile's full path and FAULT
    sed -e "s|profile = \"sim/|profile = \"$ROOT/configs/sim/|" \
        -e "s|  gpus_per_node = 2;|  gpus_per_node = 2;${1:+\n  faults = ( $1 );}|" \
        "$ROOT/configs/prolog.cfg" > "$TMP/prolog.cfg.new" && mv "$TMP/prolog.cfg.new" "$TMP/prolog.cfg"
}
mkplan
cat > "$TMP/inst/slurm/prolog.conf" <<CONF
GPUCENSUS=$GC
GPUCENSUS_PLAN=$TMP/prolog.cfg
GPUCENSUS_BACKEND=sim
GPUCENSUS_GPUS=2
GPUCENSUS_BASELINE=$TMP/history.db
GPUCENSUS_HISTORY=$TMP/history.db
GPUCENSUS_PROLOG_DIR=$TMP/prolog
CONF
sc_begin --prolog "$TMP/inst/slurm/prolog.sh"
grep -q "^Prolog=$TMP/inst/slurm/prolog.sh$" "$SLURM_CONF" || die "no Prolog= in slurm.conf"

job() {   # job NODE: a one-line job on NODE; prints its id
    sbatch --parsable -N 1 -w "$1" -t 1 -J "p-$1" -o "$TMP/job-%j.out" --wrap "echo ran on \$SLURMD_NODENAME"
}
runs_on() {   # runs_on NODE: a job there completes
    local id
    id=$(job "$1") || die "sbatch on $1"
    sc_wait_job "$id" 60
    [ "$SC_STATE" = COMPLETED ] && [ "$SC_EXIT" = 0:0 ] || { cat "$TMP"/prolog/*/prolog.log; die "job on $1: $SC_STATE $SC_EXIT"; }
    grep -q "ran on $1" "$TMP/job-$id.out" || die "job on $1: no output"
}

# 1. healthy: twice on each node (the history gets two runs of each GPU)
for round in 1 2; do
    for n in n1 n2 n3; do runs_on $n; done
done
for n in n1 n2 n3; do
    [ "$(grep -c 'exit 0 after .*: all ok' "$TMP/prolog/$n/prolog.log")" = 2 ] ||
        { cat "$TMP/prolog/$n/prolog.log"; die "$n: two healthy prologs"; }
done
[ "$(sqlite3 "$TMP/history.db" 'SELECT count(DISTINCT uuid) FROM gpus')" = 6 ] || die "6 GPUs in the history"
echo "ok: healthy nodes: jobs run, prologs all ok, 6 GPUs in the history"

# 2. n3/gpu1 loses 15% HBM: n1 still runs jobs, n3 is drained with the reason
mkplan '{ node = "n3"; gpu = 1; metric = "hbm_bw"; kind = "scale"; factor = 0.85; }'
runs_on n1
id=$(job n3) || die "sbatch on n3"
n=0
until sinfo -h -R -n n3 -o '%E' | grep -q gpucensus; do
    n=$((n + 1)); [ $n -gt 600 ] && { cat "$TMP/prolog/n3/prolog.log"; die "n3 not drained by gpucensus"; }
    sleep 0.1
done
sinfo -R
cat "$TMP/prolog/n3/prolog.log"
reason=$(sinfo -h -R -n n3 -o '%E')
[[ "$reason" == "gpucensus: n3/gpu1 degraded: baseline hbm_"*"(confirmed by the prolog)"* ]] ||
    die "drain reason: $reason"
sinfo -h -N -n n3 -o '%T' | grep -qi 'drain' || die "n3 is not draining: $(sinfo -h -N -n n3 -o '%T')"
sinfo -h -N -n n1 -o '%T' | grep -qi 'drain' && die "n1 drained"
grep -q "degraded: n3/gpu1: measuring again to confirm" "$TMP/prolog/n3/prolog.log" || die "no confirmation census"
grep -q "exit 1 after .*confirmed: gpucensus: n3/gpu1 degraded" "$TMP/prolog/n3/prolog.log" || die "prolog exit"
scancel "$id" 2>/dev/null || true
echo "ok: n3 drained: $reason"

# 3. at most 10 s per prolog
awk '/ exit [0-9]+ after [0-9]+ ms/ { for (i = 1; i <= NF; i++) if ($i == "after") ms = $(i + 1);
     n++; if (ms > max) max = ms; if (ms > 10000) bad++ }
     END { printf "prologs: %d, longest %d ms\n", n, max; exit bad > 0 || n < 8 }' "$TMP"/prolog/*/prolog.log ||
    die "a prolog took more than 10 s (or too few ran)"
sc_down
echo "ok: slurm/prolog.sh: healthy jobs run, a confirmed GPU fault drains its node with gpucensus's reason"

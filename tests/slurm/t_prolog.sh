#!/bin/bash
# slurm/prolog.sh on the real single-host Slurm of the tests (cluster.sh,
# sc_up --prolog): slurmd runs it before each job on each node, with the
# settings an operator would put beside it (prolog.conf, from
# slurm/prolog.conf.example): the sim backend (2 GPUs a node, whole-node
# jobs: GPUCENSUS_PROLOG_GPUS=all, since the tests' Slurm has no GRES),
# configs/prolog.cfg, a healthy catalogue as the baseline.
#   1. healthy nodes: jobs run on n1..n3, each prolog says "all ok"; n1's
#      first census becomes the baseline;
#   2. n3/gpu1's HBM at 85% (the plan's sim section, as a fault): a job on
#      n1 still runs; a job on n3 does not: the prolog finds n3/gpu1
#      degraded against the baseline, measures again, confirms, and the
#      node is drained with gpucensus's reason (sinfo -R shows it);
#   2b. with GRES (2 GPUs a node, sc_up --gres) and GPUCENSUS_PROLOG_GPUS=job:
#      a one-GPU job's prolog measures that GPU alone (SLURM_JOB_GPUS); a second
#      one-GPU job beside it finds the node shared and skips; a job without
#      GPUs is not measured;
#   3. every prolog took at most 10 s of wall time;
#   4. outside slurmd, as slurmd would start it (its variables, a recording
#      mpirun and a scontrol that says what the node has allocated): only
#      the job's GPUs (SLURM_JOB_GPUS, else CUDA_VISIBLE_DEVICES) are
#      measured, one rank each, CUDA_VISIBLE_DEVICES set to them; a job
#      without GPUs, a malformed GPU list and a shared node (other jobs
#      hold GPUs) are skipped with a log line; a census that runs past
#      GPUCENSUS_PROLOG_WALL_S is cut there; a history database as the
#      baseline is refused; a settings file others may write is ignored.
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
# the shipped example, with this test's values
sed -e "s|^#\?GPUCENSUS=.*|GPUCENSUS=$GC|" -e "s|^#\?GPUCENSUS_PLAN=.*|GPUCENSUS_PLAN=$TMP/prolog.cfg|" \
    -e "s|^GPUCENSUS_PROLOG_GPUS=.*|GPUCENSUS_PROLOG_GPUS=all\nGPUCENSUS_GPUS=2\nGPUCENSUS_BACKEND=sim|" \
    -e "s|^#\?GPUCENSUS_BASELINE=.*|GPUCENSUS_BASELINE=$TMP/healthy/catalogue.json|" \
    -e "s|^GPUCENSUS_PROLOG_DIR=.*|GPUCENSUS_PROLOG_DIR=$TMP/prolog|" \
    "$ROOT/slurm/prolog.conf.example" > "$TMP/inst/slurm/prolog.conf"
chmod 644 "$TMP/inst/slurm/prolog.conf"
grep -q "^GPUCENSUS_PROLOG_WALL_S=10$" "$TMP/inst/slurm/prolog.conf" || die "the example's cap"
sc_begin --prolog "$TMP/inst/slurm/prolog.sh" --gres 2
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

# 1. healthy: twice on each node; after the first round n1's census is the baseline
for round in 1 2; do
    for n in n1 n2 n3; do runs_on $n; done
    [ $round = 1 ] && cp -r "$TMP/prolog/n1/census1" "$TMP/healthy"
done
for n in n1 n2 n3; do
    [ "$(grep -c 'exit 0 after .*: all ok' "$TMP/prolog/$n/prolog.log")" = 2 ] ||
        { cat "$TMP/prolog/$n/prolog.log"; die "$n: two healthy prologs"; }
done
grep -q "baseline: $TMP/healthy/catalogue.json" "$TMP/prolog/n2/check1.out" || die "round 2 not judged against the baseline"
echo "ok: healthy nodes: jobs run, prologs all ok, the second round against n1's first census"

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
# the prolog drains the node, then logs its exit: wait for that line (a loaded
# machine can put seconds between the two)
n=0
until grep -q "exit 1 after .*confirmed: gpucensus: n3/gpu1 degraded" "$TMP/prolog/n3/prolog.log"; do
    n=$((n + 1)); [ $n -gt 600 ] && { cat "$TMP/prolog/n3/prolog.log"; die "prolog exit"; }
    sleep 0.1
done
scancel "$id" 2>/dev/null || true
echo "ok: n3 drained: $reason"

# 2b. the job's GPUs, as Slurm gives them (GRES: 2 GPUs a node): a job of one GPU on n2 measures
# it alone; a second one-GPU job beside it finds the node shared and measures nothing
sed -i 's/^GPUCENSUS_PROLOG_GPUS=all$/GPUCENSUS_PROLOG_GPUS=job/' "$TMP/inst/slurm/prolog.conf"
id1=$(sbatch --parsable -N 1 -w n2 --gres=gpu:1 -t 1 -J g1 -o "$TMP/job-%j.out" --wrap "sleep 6") || die "sbatch g1"
n=0
until grep -q "job $id1: exit 0 after" "$TMP/prolog/n2/prolog.log"; do
    n=$((n + 1)); [ $n -gt 300 ] && { cat "$TMP/prolog/n2/prolog.log"; die "no prolog for the one-GPU job"; }
    sleep 0.1
done
grep -q "job $id1: measuring the job's 1 GPUs (gpu0=GPU 0)" "$TMP/prolog/n2/prolog.log" ||
    { cat "$TMP/prolog/n2/prolog.log"; die "the one-GPU job: not its GPU alone"; }
grep -q "job $id1: exit 0 after .*: all ok" "$TMP/prolog/n2/prolog.log" || die "the one-GPU job's prolog"
runs_on_gres() { sbatch --parsable -N 1 -w n2 --gres=gpu:1 -t 1 -J g2 -o "$TMP/job-%j.out" --wrap "echo ran on \$SLURMD_NODENAME"; }
id2=$(runs_on_gres) || die "sbatch g2"
sc_wait_job "$id2" 60
[ "$SC_STATE" = COMPLETED ] || die "the second one-GPU job: $SC_STATE"
grep -q "job $id2: exit 0 after .*: shared node: 2 GPUs of the node are in use, 1 of them by this job: not measured" \
    "$TMP/prolog/n2/prolog.log" || { cat "$TMP/prolog/n2/prolog.log"; die "the shared node was measured"; }
runs_on n1
grep -q "the job was given no GPU (no SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES): nothing to check" "$TMP/prolog/n1/prolog.log" ||
    die "a job without GPUs was measured"
sc_wait_job "$id1" 60
sed -i 's/^GPUCENSUS_PROLOG_GPUS=job$/GPUCENSUS_PROLOG_GPUS=all/' "$TMP/inst/slurm/prolog.conf"
echo "ok: under slurmd with GRES: a one-GPU job measures its GPU alone, a second beside it skips (shared node), a job without GPUs skips"

# 3. at most 10 s per prolog
awk '/ exit [0-9]+ after [0-9]+ ms/ { for (i = 1; i <= NF; i++) if ($i == "after") ms = $(i + 1);
     n++; if (ms > max) max = ms; if (ms > 10000) bad++ }
     END { printf "prologs: %d, longest %d ms\n", n, max; exit bad > 0 || n < 8 }' "$TMP"/prolog/*/prolog.log ||
    die "a prolog took more than 10 s (or too few ran)"
sc_down

# 4. as slurmd starts it, outside Slurm: the job's GPUs, shared nodes, the cap
mkplan
mkdir -p "$TMP/fake" "$TMP/p4"
cat > "$TMP/fake/mpirun" <<SH
#!/bin/bash
echo "np=\$2 cvd=\${CUDA_VISIBLE_DEVICES-unset}" >> "$TMP/mpirun.rec"
[ -n "\${FAKE_MPIRUN_SLEEP:-}" ] && exec sleep "\$FAKE_MPIRUN_SLEEP"
exec '$(command -v mpirun)' "\$@"
SH
cat > "$TMP/fake/scontrol" <<SH
#!/bin/sh
[ "\$1 \$2 \$3" = "-d show node" ] && echo "   Gres=gpu:h100:4 GresUsed=gpu:h100:\${FAKE_ALLOC_GPUS:-0}(IDX:0),gpu:a100:0(IDX:N/A) GresDrain=N/A"
SH
chmod 755 "$TMP/fake/mpirun" "$TMP/fake/scontrol"
cat > "$TMP/p4.conf" <<CONF
GPUCENSUS=$GC
GPUCENSUS_PLAN=$TMP/prolog.cfg
GPUCENSUS_BACKEND=sim
GPUCENSUS_MPIRUN=$TMP/fake/mpirun
GPUCENSUS_BASELINE=$TMP/healthy/catalogue.json
GPUCENSUS_PROLOG_DIR=$TMP/p4
GPUCENSUS_DRAIN=0
CONF
chmod 644 "$TMP/p4.conf"
prolog() {   # prolog VAR=VALUE...: slurm/prolog.sh as slurmd starts it for job 7 on n2; its log's last line
    rm -f "$TMP/mpirun.rec"
    env -i PATH="$TMP/fake:$PATH" SLURMD_NODENAME=n2 SLURM_JOB_ID=7 GPUCENSUS_PROLOG_CONF=$TMP/p4.conf \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
        OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo "$@" "$ROOT/slurm/prolog.sh"
    P_RC=$?
    P_LAST=$(tail -n 1 "$TMP/p4/n2/prolog.log")
    echo "prolog $*: exit $P_RC: $P_LAST"
}
prolog SLURM_JOB_GPUS=1 FAKE_ALLOC_GPUS=1
[ $P_RC = 0 ] && [[ "$P_LAST" == *": all ok" ]] || die "job GPU 1: $P_LAST"
[ "$(cat "$TMP/mpirun.rec")" = "np=1 cvd=1" ] || die "job GPU 1: mpirun got $(cat "$TMP/mpirun.rec")"
grep -q "measuring the job's 1 GPUs (gpu0=GPU 1)" "$TMP/p4/n2/prolog.log" || die "no GPU map logged"
prolog SLURM_JOB_GPUS=0,1 FAKE_ALLOC_GPUS=2
[ "$(cat "$TMP/mpirun.rec")" = "np=2 cvd=0,1" ] || die "job GPUs 0,1: mpirun got $(cat "$TMP/mpirun.rec")"
prolog CUDA_VISIBLE_DEVICES=1
[ "$(cat "$TMP/mpirun.rec")" = "np=1 cvd=1" ] || die "CUDA_VISIBLE_DEVICES=1: mpirun got $(cat "$TMP/mpirun.rec")"
prolog
[ $P_RC = 0 ] && [[ "$P_LAST" == *"the job was given no GPU (no SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES): nothing to check" ]] &&
    [ ! -e "$TMP/mpirun.rec" ] || die "no GPUs: $P_LAST"
prolog 'SLURM_JOB_GPUS=1;reboot'
[ $P_RC = 0 ] && [[ "$P_LAST" == *"the job's GPUs '1?reboot' are not a list of GPU indexes: not checked" ]] &&
    [ ! -e "$TMP/mpirun.rec" ] || die "a malformed list: $P_LAST"
prolog SLURM_JOB_GPUS=1 FAKE_ALLOC_GPUS=3
[ $P_RC = 0 ] && [[ "$P_LAST" == *"shared node: 3 GPUs of the node are in use, 1 of them by this job: not measured" ]] &&
    [ ! -e "$TMP/mpirun.rec" ] || die "a shared node: $P_LAST"
# the cap: a census that would take 30 s is stopped at GPUCENSUS_PROLOG_WALL_S=3
t0=$(date +%s%N)
prolog SLURM_JOB_GPUS=1 GPUCENSUS_PROLOG_WALL_S=3 FAKE_MPIRUN_SLEEP=30
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $P_RC = 0 ] && [[ "$P_LAST" == *"census did not complete (exit 124"*"not judged" ]] && [ $ms -lt 5000 ] ||
    die "the 3 s cap: $ms ms: $P_LAST"
# a history database as the baseline: refused, judged without it
sqlite3 "$TMP/h.db" 'CREATE TABLE t (x)'
cp "$TMP/p4.conf" "$TMP/p4.conf.orig"
echo "GPUCENSUS_BASELINE=$TMP/h.db" >> "$TMP/p4.conf"
prolog SLURM_JOB_GPUS=1
mv "$TMP/p4.conf.orig" "$TMP/p4.conf"
grep -q "GPUCENSUS_BASELINE=$TMP/h.db is a history database: compute nodes never open it" "$TMP/p4/n2/prolog.log" ||
    die "a database baseline was not refused"
grep -q "baseline: none" "$TMP/p4/n2/check1.out" || die "judged against the database"
# settings others may write: ignored, said
chmod 666 "$TMP/p4.conf"
prolog SLURM_JOB_GPUS=1 GPUCENSUS=$GC GPUCENSUS_PROLOG_DIR=$TMP/p4 GPUCENSUS_BACKEND=sim \
    GPUCENSUS_PLAN=$TMP/prolog.cfg GPUCENSUS_DRAIN=0 GPUCENSUS_MPIRUN=$TMP/fake/mpirun
grep -q "$TMP/p4.conf is writable by others (or not owned by root): ignored" "$TMP/p4/n2/prolog.log" || die "a writable conf was read"
chmod 644 "$TMP/p4.conf"
echo "ok: the job's GPUs only (SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES), no GPU / bad list / shared node skipped, the cap holds ($ms ms for 3 s)"
echo "ok: slurm/prolog.sh: healthy jobs run, a confirmed GPU fault drains its node with gpucensus's reason"

# A private Slurm cluster on this machine for the tests: munged, slurmctld
# and N slurmd daemons (logical nodes n1..nN, one host), no systemd, no
# cgroups, everything under $SC_DIR. Sourced by t_slurm.sh (bash).
#   sc_begin [WAIT_S] [SC_UP OPTIONS]
#                        all a test needs before its first job: the daemons
#                        under $TMP/slurm, one Slurm test on the machine at a
#                        time (lock, waits WAIT_S, default 600), sc_down at
#                        exit; skips (77) where Slurm cannot run (lib.sh first);
#                        the options go to sc_up (--prolog P)
#   sc_check             why Slurm cannot run here (prints it, returns 1), or 0
#   sc_up [--prolog P] [--gres N]
#                        start the daemons; call in the shell that calls sc_down;
#                        --prolog: slurm.conf gets Prolog=P (run by slurmd before
#                        each job on each of its nodes; non-zero drains the node);
#                        --gres: each node has N GPUs as GRES (gres.conf, device
#                        files that are plain files: jobs get SLURM_JOB_GPUS)
#   sc_wait_job ID [S]   poll scontrol until the job ends; prints its state, sets
#                        SC_STATE and SC_EXIT ("0:0" = exit 0, no signal)
#   sc_down              stop what sc_up started (safe twice, safe under set -e)
# What each setting is for is learned from ../../../shared/slurm-ci (see
# the comments below): every one of them was a failure first.
# shellcheck shell=bash

SC_NODES=${SC_NODES:-3}
SC_CPUS=${SC_CPUS:-4}        # advertised per node; may exceed the real cores
SC_PIDS=()

sc_check() {
    local t
    for t in munged mungekey slurmctld slurmd sbatch scontrol sinfo; do
        command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] ||
            { echo "$t not installed (tools/deps.sh test installs slurm-wlm and munge)"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { echo "needs root (slurmd runs jobs as their user and binds ports)"; return 1; }
    return 0
}

_sc_poll() {   # _sc_poll SECONDS CMD...: until CMD succeeds
    local n=$(( $1 * 20 )); shift
    until "$@" >/dev/null 2>&1; do
        n=$((n - 1)); [ $n -le 0 ] && return 1; sleep 0.05
    done
}

# A free TCP port block: base + 0 for slurmctld, base + 1..N for slurmd.
# Below the kernel's ephemeral ports (ip_local_port_range, 32768 up by
# default): one of those can be the local end of any connection (the MPI
# ranks of other tests on loopback), which the check below (a connect)
# does not see, and slurmd's bind then fails: "Unable to bind listen port
# (46502): Address already in use", the test skipped (seen at load ~30).
_sc_ports() {
    local base try p used eph=32768 blocks
    read -r eph _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph=32768
    blocks=$(( (eph - 10000 - SC_NODES - 1) / 100 ))
    for try in $(seq 1 50); do
        if [ "$blocks" -ge 10 ]; then
            base=$(( 10000 + (RANDOM % blocks) * 100 ))
        else   # an ephemeral range that starts low: anywhere, as before
            base=$(( 20000 + (RANDOM % 400) * 100 ))
        fi
        used=0
        for p in $(seq "$base" $((base + SC_NODES))); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used=1; break; fi
        done
        [ $used = 0 ] && { echo "$base"; return 0; }
    done
    return 1
}

# sc_conf_body DIR: the slurm.conf lines every private cluster here shares
# (munge socket, state, spool, logs and pid files under DIR; root; no
# accounting): cluster.sh's and the network test bed's (tests/net)
sc_conf_body() {
    local d=$1
    cat <<CONF
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
TmpFS=$d/tmp/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=pmix
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
CONF
}

sc_up() {
    local d=$SC_DIR i n base uts prolog="" gres=0 gres_line=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --prolog) prolog=$2; shift 2 ;;
        --gres) gres=$2; shift 2 ;;
        *) echo "sc_up: unknown option $1"; return 1 ;;
        esac
    done
    mkdir -p "$d"/{etc,state,log,munge}
    chmod 755 "$d" "$d/munge"       # munged wants its socket's folder world-searchable
    export SLURM_CONF=$d/etc/slurm.conf

    # munge: our own daemon, key and socket (never the system's)
    mungekey -c -k "$d/munge/munge.key" >/dev/null 2>&1 || { echo "mungekey failed"; return 1; }
    /usr/sbin/munged -F --socket="$d/munge/munge.sock" --key-file="$d/munge/munge.key" \
        --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/munged.seed" >"$d/log/munged.out" 2>&1 &
    SC_PIDS+=($!)
    _sc_poll 10 sh -c "munge -S '$d/munge/munge.sock' -n | unmunge -S '$d/munge/munge.sock'" ||
        { echo "munged did not start:"; cat "$d/log/munged.out"; return 1; }

    base=$(_sc_ports) || { echo "no free port block"; return 1; }
    # TmpFS per node: PMIx's app dirs of logical nodes collide in one /tmp.
    # config_overrides: nodes may claim more CPUs than the machine has.
    if [ "$gres" -gt 0 ]; then
        mkdir -p "$d/dev"
        for i in $(seq 0 $((gres - 1))); do ln -sf /dev/null "$d/dev/gpu$i"; done
        echo "NodeName=n[1-$SC_NODES] Name=gpu File=$d/dev/gpu[0-$((gres - 1))]" > "$d/etc/gres.conf"
        gres_line=" Gres=gpu:$gres"
    fi
    cat >"$SLURM_CONF" <<CONF
ClusterName=gctest
SlurmctldHost=localhost
SlurmctldPort=$base
$(sc_conf_body "$d")
NodeName=n[1-$SC_NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + 1))-$((base + SC_NODES)) CPUs=$SC_CPUS RealMemory=1000 State=UNKNOWN$gres_line
PartitionName=debug Nodes=n[1-$SC_NODES] Default=YES MaxTime=10 State=UP
CONF
    [ -n "$prolog" ] && echo "Prolog=$prolog" >> "$SLURM_CONF"
    [ "$gres" -gt 0 ] && echo "GresTypes=gpu" >> "$SLURM_CONF"
    /usr/sbin/slurmctld -D -i >"$d/log/slurmctld.out" 2>&1 &
    SC_PIDS+=($!)
    _sc_poll 30 sh -c 'scontrol ping | grep -q UP' ||
        { echo "slurmctld did not start:"; tail -n 20 "$d/log/slurmctld.out" "$d/log/slurmctld.log"; return 1; }

    # Own hostname per slurmd where we may (unshare --uts): Open MPI then
    # sees distinct hosts. Either way lib.sh has set TCP on loopback only,
    # so shared-memory segments of logical nodes never collide.
    uts=no
    unshare --uts true 2>/dev/null && uts=yes
    for i in $(seq 1 "$SC_NODES"); do
        n=n$i
        mkdir -p "$d/spool/$n" "$d/tmp/$n"
        if [ $uts = yes ]; then
            unshare --uts sh -c "hostname $n && exec /usr/sbin/slurmd -D -N $n" >"$d/log/slurmd-$n.out" 2>&1 &
        else
            /usr/sbin/slurmd -D -N "$n" >"$d/log/slurmd-$n.out" 2>&1 &
        fi
        SC_PIDS+=($!)
    done
    _sc_poll 60 sh -c "[ \"\$(sinfo -h -t idle -o %D)\" = $SC_NODES ]" ||
        { echo "slurmd nodes not idle:"; sinfo -N -l; tail -n 20 "$d"/log/slurmd-*.out; return 1; }
    echo "slurm up: $SC_NODES nodes, ports $base-$((base + SC_NODES)), own hostnames: $uts"
}

sc_begin() {
    local why wait=600
    case "${1:-}" in [0-9]*) wait=$1; shift ;; esac
    SC_DIR=$TMP/slurm
    trap 'sc_down; rm -rf "$TMP"' EXIT
    trap 'exit 1' INT TERM
    why=$(sc_check) || skip "$why"
    exec 9>/tmp/gpucensus-slurm-test.lock
    flock -w "$wait" 9 || skip "another Slurm test held the lock for $wait s"
    chmod 755 "$TMP"    # munged wants every folder above its socket searchable
    # In this shell (not in $(...)), so that sc_down can stop what it started.
    if ! sc_up "$@" > "$TMP/up.log" 2>&1; then
        cat "$TMP/up.log"
        skip "Slurm daemons do not start here: $(head -n 1 "$TMP/up.log")"
    fi
    cat "$TMP/up.log"
}

sc_wait_job() {   # sc_wait_job ID [SECONDS]
    local id=$1 left=$(( ${2:-120} * 10 )) st
    SC_STATE=UNKNOWN SC_EXIT=
    while st=$(scontrol show job -o "$id" 2>/dev/null); do
        case "$st" in
        *JobState=PENDING*|*JobState=CONFIGURING*|*JobState=RUNNING*|*JobState=COMPLETING*) ;;
        *) break ;;
        esac
        left=$((left - 1))
        [ $left -le 0 ] && { echo "job $id: still running, cancelled"; scancel "$id"; return 1; }
        sleep 0.1
    done
    SC_STATE=$(grep -o ' JobState=[A-Z_]*' <<<"$st" | cut -d= -f2)
    SC_EXIT=$(grep -o ' ExitCode=[0-9:]*' <<<"$st" | cut -d= -f2)
    echo "job $id: $SC_STATE, exit $SC_EXIT"
}

sc_down() {
    local i p t
    [ ${#SC_PIDS[@]} -gt 0 ] || return 0
    scancel --full --user="$(id -un)" >/dev/null 2>&1 || true   # steps would outlive slurmd
    _sc_poll 20 sh -c '[ -z "$(squeue -h -o %i)" ]' || true
    for (( i=${#SC_PIDS[@]}-1; i>=0; i-- )); do    # slurmd's, slurmctld, munged last
        p=${SC_PIDS[i]}
        kill -TERM "$p" 2>/dev/null || true
        for t in $(seq 1 100); do
            case "$(ps -o stat= -p "$p" 2>/dev/null)" in ""|Z*) break ;; esac
            sleep 0.05
        done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    SC_PIDS=()
}

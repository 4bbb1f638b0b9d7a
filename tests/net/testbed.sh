# A network test bed on this machine: N logical nodes n1..nN (TB_NODES,
# default 4, at most 8), each a network namespace with its own hostname
# (UTS namespace), address 10.77.0.I on a bridge and slurmd; slurmctld in
# a hub namespace (10.77.0.254) that holds the bridge, munged outside (its
# socket is a path, reachable from every namespace). Nothing is added to
# the machine's own network: the /24 exists only inside the namespaces,
# so traffic goes only to their addresses. Open MPI's TCP is set to that
# /24 (lib.sh sets loopback), so ranks of different nodes talk through
# the veth pairs, where tc can slow or cut one node's link.
# Sourced by tests/net/t_*.sh and bench/net_bed.sh (bash), after lib.sh.
#   tb_begin [WAIT_S]    everything before the first job: the daemons, one
#                        Slurm test on the machine at a time (lock, waits
#                        WAIT_S, default 600), tb_down at exit whatever
#                        happens; skips (77) with the reason where network
#                        namespaces, veth pairs or bridges are not allowed
#   tb_check             why the test bed cannot run here (prints it, returns 1);
#                        sets TB_NETEM=yes|no (whether tc's netem works here)
#   tb_ns I              node I's namespace name (tb_ns 0: the hub's)
#   tb_dev I             the hub-side end of node I's veth pair (in the hub)
#   tb_line [RATE]       every node's link at line rate RATE (tc units, default
#                        TB_LINE, 200mbit) both ways: the wire, not this
#                        machine's shared cores, sets what a link measures
#   tb_shape I QDISC...  replace the qdisc on both ends of node I's link
#                        (its eth0 and the hub side) with QDISC (tc words)
#   tb_unshape I         back to the line rate (tb_line), else no qdisc
#   tb_link I up|down    set node I's eth0 up or down
#   tb_idle [S]          wait up to S s (60) until every node is idle
#   tb_bytes I           "RX TX" bytes of node I's eth0
#   tb_down              stop the daemons, delete the namespaces (with
#                        them every link, bridge and qdisc): safe twice
# Slurm's clients (sbatch, scontrol, squeue, sinfo, scancel) become
# functions that run them in the hub, so cluster.sh's sc_wait_job works.
# shellcheck shell=bash

. "$ROOT/tests/slurm/cluster.sh"

TB_NODES=${TB_NODES:-4}
TB_LINE=${TB_LINE:-200mbit}
TB_BURST=32kb         # a 4 KiB message passes at once, larger ones at the rate
TB_LINE_ON=no
TB_NET=10.77.0
TB_TAG=gctb$$
TB_PIDS=()
TB_NS=()

tb_ns() { if [ "$1" = 0 ]; then echo "${TB_TAG}h"; else echo "${TB_TAG}n$1"; fi; }
tb_dev() { echo "v$1"; }
# nsenter, not `ip netns exec`: that one mounts a sysfs of its own, without
# /sys/fs/cgroup, and slurmd then fails ("Unable to initialize cgroup plugin")
_tb_in() { local i=$1; shift; nsenter --net="/run/netns/$(tb_ns "$i")" "$@"; }

for _c in sbatch scontrol squeue sinfo scancel srun; do
    eval "$_c() { _tb_in 0 /usr/bin/$_c \"\$@\"; }"
done
unset _c

tb_check() {
    local why p=${TB_TAG}probe
    why=$(sc_check) || { echo "$why"; return 1; }
    command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 ||
        { echo "ip or tc not installed (tools/deps.sh test installs iproute2)"; return 1; }
    case "$TB_NODES" in [1-8]) ;; *) echo "TB_NODES=$TB_NODES: 1 to 8"; return 1 ;; esac
    why=$(ip netns add "$p" 2>&1) || { echo "network namespaces not allowed: $why"; return 1; }
    why=$( { ip -n "$p" link add br0 type bridge &&
             ip -n "$p" link add va type veth peer name vb &&
             tc -n "$p" qdisc add dev va root tbf rate 1gbit burst 16kb latency 50ms; } 2>&1)
    local rc=$?
    # netem (delay, loss) is a module some kernels lack: its cases skip
    TB_NETEM=yes
    tc -n "$p" qdisc replace dev vb root netem delay 1ms >/dev/null 2>&1 || TB_NETEM=no
    ip netns del "$p" 2>/dev/null
    [ $rc = 0 ] || { echo "bridge, veth or tc not allowed in a namespace: $why"; return 1; }
    return 0
}

# Namespaces of an earlier test bed whose shell is gone (killed -9): its
# daemons were ours; end them by pid, then delete the namespaces.
_tb_stale() {
    local ns pid p
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^gctb[0-9]+(h|n[0-9])$'); do
        pid=${ns#gctb}; pid=${pid%h}; pid=${pid%n[0-9]}
        kill -0 "$pid" 2>/dev/null && continue
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
}

_tb_net() {
    local i ns hub
    hub=$(tb_ns 0)
    ip netns add "$hub" && TB_NS+=("$hub") || return 1
    _tb_in 0 ip link set lo up &&
    _tb_in 0 ip link add br0 type bridge &&
    _tb_in 0 ip addr add "$TB_NET.254/24" dev br0 &&
    _tb_in 0 ip link set br0 up || return 1
    for i in $(seq 1 "$TB_NODES"); do
        ns=$(tb_ns "$i")
        ip netns add "$ns" && TB_NS+=("$ns") || return 1
        # both ends made inside the namespaces: nothing in the machine's own
        ip -n "$hub" link add "$(tb_dev "$i")" type veth peer name eth0 netns "$ns" &&
        _tb_in 0 ip link set "$(tb_dev "$i")" master br0 up &&
        _tb_in "$i" ip link set lo up &&
        _tb_in "$i" ip addr add "$TB_NET.$i/24" dev eth0 &&
        _tb_in "$i" ip link set eth0 up || return 1
    done
}

tb_up() {
    local d=$SC_DIR i n
    mkdir -p "$d"/{etc,state,log,munge}
    chmod 755 "$d" "$d/munge"
    export SLURM_CONF=$d/etc/slurm.conf
    _tb_net || { echo "test bed network not made"; return 1; }
    mungekey -c -k "$d/munge/munge.key" >/dev/null 2>&1 || { echo "mungekey failed"; return 1; }
    /usr/sbin/munged -F --socket="$d/munge/munge.sock" --key-file="$d/munge/munge.key" \
        --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/munged.seed" >"$d/log/munged.out" 2>&1 &
    TB_PIDS+=($!)
    _sc_poll 10 sh -c "munge -S '$d/munge/munge.sock' -n | unmunge -S '$d/munge/munge.sock'" ||
        { echo "munged did not start:"; cat "$d/log/munged.out"; return 1; }
    # Ports are the namespaces' own: Slurm's defaults, no search.
    # MessageTimeout, SlurmdTimeout, KillWait: a cut link must not hold the
    # controller's RPCs, the cut node (DOWN after 10 s) or its step long.
    cat >"$SLURM_CONF" <<CONF
ClusterName=gcnet
SlurmctldHost=gchub($TB_NET.254)
SlurmctldPort=6817
SlurmdPort=6818
$(sc_conf_body "$d")
MessageTimeout=5
SlurmdTimeout=10
KillWait=5
NodeName=n[1-$TB_NODES] NodeAddr=$TB_NET.[1-$TB_NODES] CPUs=$SC_CPUS RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=n[1-$TB_NODES] Default=YES MaxTime=10 State=UP
CONF
    # nsenter itself, not _tb_in: $! is then the daemon (a function in the
    # background would be a subshell)
    nsenter --net="/run/netns/$(tb_ns 0)" unshare --uts sh -c "hostname gchub && exec /usr/sbin/slurmctld -D -i" \
        >"$d/log/slurmctld.out" 2>&1 &
    TB_PIDS+=($!)
    _sc_poll 30 sh -c "nsenter --net=/run/netns/$(tb_ns 0) scontrol ping | grep -q UP" ||
        { echo "slurmctld did not start:"; tail -n 20 "$d/log/slurmctld.out" "$d/log/slurmctld.log"; return 1; }
    for i in $(seq 1 "$TB_NODES"); do
        n=n$i
        mkdir -p "$d/spool/$n" "$d/tmp/$n"
        nsenter --net="/run/netns/$(tb_ns "$i")" unshare --uts sh -c "hostname $n && exec /usr/sbin/slurmd -D -N $n" \
            >"$d/log/slurmd-$n.out" 2>&1 &
        TB_PIDS+=($!)
    done
    _sc_poll 60 sh -c "[ \"\$(nsenter --net=/run/netns/$(tb_ns 0) sinfo -h -t idle -o %D)\" = $TB_NODES ]" ||
        { echo "slurmd nodes not idle:"; sinfo -N -l; tail -n 20 "$d"/log/slurmd-*.out; return 1; }
    echo "test bed up: $TB_NODES namespaced nodes on $TB_NET.0/24 (hub $TB_NET.254)"
}

tb_begin() {
    local why wait=${1:-600}
    SC_DIR=$TMP/slurm
    trap 'tb_down; rm -rf "$TMP"' EXIT
    trap 'exit 1' INT TERM
    tb_check > "$TMP/check.txt" || skip "$(cat "$TMP/check.txt")"
    exec 9>/tmp/gpucensus-slurm-test.lock
    flock -w "$wait" 9 || skip "another Slurm test held the lock for $wait s"
    chmod 755 "$TMP"
    _tb_stale
    # The ranks' TCP over the test bed's /24, never loopback.
    export OMPI_MCA_btl_tcp_if_include=$TB_NET.0/24 OMPI_MCA_oob_tcp_if_include=$TB_NET.0/24
    if ! tb_up > "$TMP/up.log" 2>&1; then
        cat "$TMP/up.log"
        skip "the test bed does not start here: $(head -n 1 "$TMP/up.log")"
    fi
    cat "$TMP/up.log"
}

tb_shape() {
    local i=$1; shift
    _tb_in "$i" tc qdisc replace dev eth0 root "$@" &&
    _tb_in 0 tc qdisc replace dev "$(tb_dev "$i")" root "$@"
}

tb_rate() { echo "tbf rate $1 burst $TB_BURST latency 200ms"; }

tb_line() {
    local i
    TB_LINE=${1:-$TB_LINE} TB_LINE_ON=yes
    for i in $(seq 1 "$TB_NODES"); do
        # shellcheck disable=SC2046
        tb_shape "$i" $(tb_rate "$TB_LINE") || return 1
    done
}

tb_unshape() {
    if [ $TB_LINE_ON = yes ]; then
        # shellcheck disable=SC2046
        tb_shape "$1" $(tb_rate "$TB_LINE")
        return
    fi
    _tb_in "$1" tc qdisc del dev eth0 root 2>/dev/null
    _tb_in 0 tc qdisc del dev "$(tb_dev "$1")" root 2>/dev/null
    return 0
}

tb_link() { _tb_in "$1" ip link set eth0 "$2"; }

# tb_idle [S]: until every node is idle again (a cut node back in service)
tb_idle() {
    _sc_poll "${1:-60}" sh -c "[ \"\$(nsenter --net=/run/netns/$(tb_ns 0) sinfo -h -t idle -o %D)\" = $TB_NODES ]"
}

tb_bytes() {
    local i=$1
    _tb_in "$i" awk '$1 == "eth0:" { print $2, $10 }' /proc/net/dev
}

tb_down() {
    local i p t ns
    if [ ${#TB_PIDS[@]} -gt 0 ]; then
        scancel --full --user="$(id -un)" >/dev/null 2>&1 || true
        _sc_poll 10 sh -c "[ -z \"\$(nsenter --net=/run/netns/$(tb_ns 0) squeue -h -o %i 2>/dev/null)\" ]" || true
    fi
    # the daemons (slurmd's, slurmctld, munged last), then whatever is
    # left in the namespaces (job steps, ranks of a cut node)
    for (( i=${#TB_PIDS[@]}-1; i>=0; i-- )); do
        p=${TB_PIDS[i]}
        kill -TERM "$p" 2>/dev/null || true
        for t in $(seq 1 40); do
            case "$(ps -o stat= -p "$p" 2>/dev/null)" in ""|Z*) break ;; esac
            sleep 0.05
        done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    for ns in "${TB_NS[@]}"; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    done
    TB_PIDS=()
    for ns in "${TB_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    TB_NS=()
}

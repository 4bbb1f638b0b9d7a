#!/bin/bash
# The network test bed itself (testbed.sh): 4 namespaced nodes start in
# seconds, each slurmd with its own hostname; a census over them (sbatch
# -N 4 slurm/census.sbatch, sim GPUs) names n1..n4 and moves its net
# items' bytes through every node's veth (interface counters), not through
# the namespaces' loopback; the bed stops in seconds and leaves nothing
# (namespaces, links, qdiscs, processes), also when a test using it fails.
# Skipped (77) where network namespaces or Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/net/testbed.sh"
. "$ROOT/tests/net/common.sh"
set -u
t0=$(date +%s.%N)
tb_begin
t1=$(date +%s.%N)
cd "$ROOT" || die "cd"
echo "up in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
for p in "${TB_PIDS[@]:2}"; do   # the slurmd's: own hostnames
    h=$(nsenter --uts --target "$p" hostname) || die "no slurmd $p"
    echo "slurmd $p: hostname $h"
done
tb_line || die "line rate"
lo_rx() { _tb_in "$1" awk '$1 == "lo:" { print $2 }' /proc/net/dev; }
declare -A before lob
for i in 1 2 3 4; do before[$i]=$(tb_bytes "$i"); lob[$i]=$(lo_rx "$i"); done
tb_census bed
[ "$SC_STATE" = COMPLETED ] && [ "$SC_EXIT" = 0:0 ] || { cat "$TMP/bed.out"; die "census: $SC_STATE $SC_EXIT"; }
/usr/bin/python3 - "$TMP/bed" <<'PY' || die "catalogue"
import gccat, sys
cat = gccat.load(sys.argv[1], points=False)
nodes = sorted(n["name"] for n in cat["nodes"])
assert nodes == ["n1", "n2", "n3", "n4"], nodes
net = [l for l in cat["links"] if l["kind"] == "network"]
assert len(net) >= 8, len(net)
print("catalogue: nodes", nodes, "and", len(net), "network links")
PY
for i in 1 2 3 4; do
    read -r rx0 tx0 <<<"${before[$i]}"
    read -r rx1 tx1 <<<"$(tb_bytes "$i")"
    lo=$(( $(lo_rx "$i") - lob[$i] ))
    echo "n$i eth0: rx $(( (rx1 - rx0) >> 20 )) MiB, tx $(( (tx1 - tx0) >> 20 )) MiB; lo rx $((lo >> 10)) KiB"
    # each node meets at least two partners: 20 samples of 1 MiB each way
    [ $((rx1 - rx0)) -ge $((40 << 20)) ] && [ $((tx1 - tx0)) -ge $((40 << 20)) ] ||
        die "n$i: the net items' bytes did not cross its veth"
    [ "$lo" -lt $((1 << 20)) ] || die "n$i: $lo bytes over loopback (the ranks' TCP must use the veth)"
done

# stop, in seconds, leaving nothing
t2=$(date +%s.%N)
tb_down
t3=$(date +%s.%N)
echo "down in $(awk "BEGIN { printf \"%.1f\", $t3 - $t2 }") s"
ip netns list | grep -q "^$TB_TAG" && die "namespaces left: $(ip netns list | grep "^$TB_TAG")"
exec 9>&-   # the lock, for the failing bed below

# a test that fails with its bed up (a qdisc on n1): its trap cleans up
# (bash -c with $0 in tests/net: lib.sh finds the repository from it)
bash -c '. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/net/testbed.sh"
TB_NODES=2
tb_begin 60
tb_shape 1 $(tb_rate 100mbit)
echo "$TB_TAG ${TB_PIDS[*]}" > "$1"
die "on purpose"' "$ROOT/tests/net/t_fails.sh" "$TMP/fails.tag" > "$TMP/fails.log" 2>&1 &&
    die "the failing test passed"
read -r tag pids < "$TMP/fails.tag" || { cat "$TMP/fails.log"; die "the failing test did not start its bed"; }
ip netns list | grep -q "^$tag" && die "a failed test left namespaces: $(ip netns list | grep "^$tag")"
for p in $pids; do kill -0 "$p" 2>/dev/null && die "a failed test left process $p"; done
echo "ok: up and down in seconds, own hostnames, net bytes through the veths, nothing left after a failure"

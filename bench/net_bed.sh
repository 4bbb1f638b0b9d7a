#!/bin/bash
# The net phase on the network test bed (tests/net/testbed.sh): TB_NODES
# namespaced nodes (default 8) at 200 Mbit/s each, a census of net items
# alone (tests/net/net.cfg without its GPU item); prints the run's wall
# time (the net phase and the census's start and end) against its target
# (the net phase's 6 steps, disjoint pairs at once, times the net items'
# budgets) and the pairs each
# node was measured in, and with how many partners.
#   bench/net_bed.sh                  8 nodes
#   TB_NODES=4 bench/net_bed.sh
#   bench/net_bed.sh --healthy N      also N healthy censuses (tests/net/t_healthy.sh)
# Needs root, network namespaces and Slurm (as tests/net); build first.
set -u
if [ "${1:-}" = --healthy ]; then
    GC_NET_RUNS=${2:-20} "$(dirname "$0")/../tests/net/t_healthy.sh"
    exit $?
fi
TB_NODES=${TB_NODES:-8}
. "$(dirname "$0")/../tests/lib.sh"
# lib.sh finds the repository two levels above $0 (tests/X/): bench/ is one
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
GC=$BUILD/gpucensus
export PYTHONPATH="$ROOT/tools${PYTHONPATH:+:$PYTHONPATH}"
. "$ROOT/tests/net/testbed.sh"
. "$ROOT/tests/net/common.sh"
tb_begin
cd "$ROOT" || die "cd"
tb_line || die "line rate"
grep -v 'name = "hbm_bw"' tests/net/net.cfg |
    sed "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" > "$TMP/netonly.cfg"
TB_PLAN=$TMP/netonly.cfg tb_census net
[ "$SC_EXIT" = 0:0 ] || { cat "$TMP/net.out"; die "census: $SC_STATE $SC_EXIT"; }
wall=$(grep -o 'on [0-9]* nodes, [0-9.]* s' "$TMP/net.out" | tail -n 1 | awk '{print $(NF-1)}')
# target: the net phase's steps (2 rounds of 3, whatever the node count)
# times the net items' budgets; one pair at a time would be 2 x TB_NODES steps
budget=$(awk -F'budget_s = ' '/name = "net"/ { split($2, a, ";"); print a[1] * 2 }' "$TMP/netonly.cfg")
target=$(awk "BEGIN { print 6 * $budget }")
echo "net phase (census of net items only, $TB_NODES nodes): ${wall:-?} s / target $target s (6 steps x ${budget} s of net items' budgets; one pair at a time: $((2 * TB_NODES)) steps)"
/usr/bin/python3 - "$TMP/net" <<'PY'
import collections, gccat, sys
c = gccat.load(sys.argv[1], points=False)
pairs, partners = collections.Counter(), collections.defaultdict(set)
for l in c["links"]:
    if l["kind"] != "network":
        continue
    a, b = l["src"]["node"], l["dst"]["node"]
    for x, y in ((a, b), (b, a)):
        pairs[x] += 1
        partners[x].add(y)
nodes = sorted(pairs, key=lambda n: int(n[1:]))
print("%d nodes, %d network pairs measured" % (len(nodes), sum(pairs.values()) // 2))
for n in nodes:
    print("  %-4s %d pairs, %d partners" % (n, pairs[n], len(partners[n])))
print("partners per node: min %d" % min(len(partners[n]) for n in nodes))
PY

#!/bin/bash
# A slowed NIC on a real network: the test bed's 4 namespaced nodes
# (testbed.sh) at a line rate of 200 Mbit/s each (tc tbf), a census
# (sbatch -N 4 slurm/census.sbatch, sim GPUs, net items over TCP through
# the veth pairs), then n3's link shaped (tbf both ways) to 50% and to 80%
# of what the healthy census measured. check must name n3 the slow side of
# its network pairs (net_side): degraded at 50%, suspect or worse at 80%;
# its partners, every other link and every GPU ok.
# Skipped (77) where network namespaces or Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/net/testbed.sh"
. "$ROOT/tests/net/common.sh"
set -u
tb_begin
cd "$ROOT" || die "cd"
tb_line || die "line rate"

tb_census healthy
[ "$SC_EXIT" = 0:0 ] || { cat "$TMP/healthy.out"; die "healthy census: $SC_STATE $SC_EXIT"; }
tb_expect "$TMP/healthy" none ok || die "the healthy bed is not all ok"
med=$(tb_net_median "$TMP/healthy") || die "no network links"
echo "healthy: median network bandwidth at the largest size $((med / 1000)) kB/s"

for pct in 50 80; do
    # shellcheck disable=SC2046
    tb_shape 3 $(tb_rate "$((med * 8 * pct / 100))bit") || die "tc on n3"
    tb_census "slow$pct"
    [ "$SC_EXIT" = 0:0 ] || [ "$SC_EXIT" = 1:0 ] || { cat "$TMP/slow$pct.out"; die "census at $pct%: $SC_STATE $SC_EXIT"; }
    got=$(tb_net_median "$TMP/slow$pct")
    echo "n3 at $pct%: median network bandwidth $((got / 1000)) kB/s"
    want=degraded; [ $pct = 80 ] && want=suspect
    tb_expect "$TMP/slow$pct" n3 $want || die "n3 at $pct% of the line: not named as expected"
    [ $pct = 50 ] && "$GC" check "$TMP/slow$pct" | sed -n '/^GPUs/,$p'   # docs/verdicts.md
done
echo "ok: n3 the slow side at 50% (degraded) and 80% (suspect or worse), its partners ok"

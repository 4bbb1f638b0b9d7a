#!/bin/bash
# A healthy network: censuses on the test bed's 4 namespaced nodes at 200
# Mbit/s each (tc tbf), each with another sim seed, and not one network
# link or node suspect or degraded (nor a GPU). GC_NET_RUNS censuses
# (default 3: a minute; bench/net_bed.sh --healthy 20 runs twenty). Prints
# each run's spread of network bandwidth (robust sigma / median).
# Skipped (77) where network namespaces or Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/net/testbed.sh"
. "$ROOT/tests/net/common.sh"
set -u
runs=${GC_NET_RUNS:-3}
tb_begin
cd "$ROOT" || die "cd"
tb_line || die "line rate"
fails=0
for k in $(seq 1 "$runs"); do
    # the plan with seed k (its profile by absolute path: the copy is elsewhere)
    sed -e "s|seed = 5L|seed = ${k}L|" -e "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" \
        tests/net/net.cfg > "$TMP/seed$k.cfg"
    TB_PLAN=$TMP/seed$k.cfg tb_census "h$k"
    [ "$SC_EXIT" = 0:0 ] || { cat "$TMP/h$k.out"; die "census $k: $SC_STATE $SC_EXIT"; }
    /usr/bin/python3 - "$TMP/h$k" "$k" <<'PY'
import gccat, statistics, sys
c = gccat.load(sys.argv[1], points=False)
v = [l["bandwidth_top_p50_bps"] for l in c["links"] if l["kind"] == "network"]
med = statistics.median(v)
mad = statistics.median(abs(x - med) for x in v)
lo = min(c["links"], key=lambda l: l["bandwidth_top_p50_bps"] if l["kind"] == "network" else 1e30)
print("run %s (seed %s): %d network links, median %.1f MB/s, robust sigma %.2f%%, min %.1f%% of the median (%s -> %s)"
      % (sys.argv[2], sys.argv[2], len(v), med / 1e6, 148.26 * mad / med, 100 * min(v) / med, lo["src"]["node"], lo["dst"]["node"]))
PY
    tb_expect "$TMP/h$k" none ok || { fails=$((fails + 1)); echo "run $k: not all ok"; }
done
[ $fails = 0 ] || die "$fails of $runs healthy censuses had a suspect or degraded network link or node"
echo "ok: $runs healthy censuses, 0 network links or nodes suspect or degraded"

#!/bin/sh
# The common end (tests/mpi/common_end.cfg, 8 ranks): GPU 3's P2P bandwidth
# is 30% low, so its 14 links are degraded; GPU 3 itself is named degraded
# by the common_end rule, which lists its links; no other GPU is blamed
# (each has one slow link among its seven).
. "$(dirname "$0")/../lib.sh"
out=$TMP/ce
$MPIRUN -np 8 "$GC" run "$ROOT/tests/mpi/common_end.cfg" --backend sim -o "$out" --quiet > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
"$GC" check "$out" > "$TMP/check.out" 2>&1
grep -q "^degraded  n1/gpu3 .*common_end: p2p_links: all 14 P2P links of this GPU are slow" "$TMP/check.out" ||
    { cat "$TMP/check.out"; die "gpu3 not named the common end"; }
n=$(grep -c "^degraded  n1/gpu[0-9]" "$TMP/check.out")
[ "$n" -eq 1 ] || { cat "$TMP/check.out"; die "$n GPUs degraded, expected 1"; }
echo "t_common_end: n1/gpu3 named the common end of its 14 slow P2P links"

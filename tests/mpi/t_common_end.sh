#!/bin/sh
# The common end (tests/mpi/common_end.cfg, 8 ranks): GPU 3's P2P bandwidth
# is 30% low and GPU 5's 15%, so each one's 14 links are degraded; each is
# named degraded by the common_end rule, which lists its links (GPU 3's
# partner GPU 5 has all its links slow too, but the other 6 are good
# elsewhere); no other GPU is blamed (each has two slow links among its
# fourteen).
. "$(dirname "$0")/../lib.sh"
out=$TMP/ce
$MPIRUN -np 8 "$GC" run "$ROOT/tests/mpi/common_end.cfg" --backend sim -o "$out" --quiet > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
"$GC" check "$out" > "$TMP/check.out" 2>&1
for g in 3 5; do
    grep -q "^degraded  n1/gpu$g .*common_end: p2p_links: all 14 P2P links of this GPU are slow while most of their other ends are good elsewhere" "$TMP/check.out" ||
        { cat "$TMP/check.out"; die "gpu$g not named the common end"; }
done
n=$(grep -c "^degraded  n1/gpu[0-9]" "$TMP/check.out")
[ "$n" -eq 2 ] || { cat "$TMP/check.out"; die "$n GPUs degraded, expected 2"; }
echo "t_common_end: n1/gpu3 and n1/gpu5 named the common ends of their 14 slow P2P links each"

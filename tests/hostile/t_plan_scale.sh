#!/bin/sh
# The scheduler is linear in ranks: every rank finds its peers through one
# index of the roster. A cluster of 16384 ranks is planned in seconds, and
# each rank's task list equals the one --all-tasks prints for the first
# ranks (the lists left out by default are the same schedule).
. "$(dirname "$0")/../lib.sh"
[ -x "$GC" ] || skip "no $GC"
t0=$(date +%s)
"$GC" plan "$ROOT/configs/quick.cfg" --ranks 16384 --nodes 2048 > "$TMP/big.txt" || die "plan 16384"
t1=$(date +%s)
[ $((t1 - t0)) -le 30 ] || die "plan of 16384 ranks took $((t1 - t0)) s (> 30 s)"
grep -q '^rank 16383 (node n2048, gpu 7)' "$TMP/big.txt" || die "last rank missing"
grep -q 'task lists of ranks 1024 to 16383 are left out' "$TMP/big.txt" || die "no note of the lists left out"
# net peers: node n1's leader drives node n2 and n3, answers n2048 and n2047
"$GC" plan "$ROOT/configs/quick.cfg" --ranks 64 --nodes 8 --all-tasks > "$TMP/small.txt" || die "plan 64"
awk '/^rank 0 /{on=1; next} /^rank /{on=0} on && /net/' "$TMP/small.txt" > "$TMP/net0.txt"
grep -q -- '-> rank 8$' "$TMP/net0.txt" || die "rank 0 does not drive node 2's leader"
grep -q -- '-> rank 16$' "$TMP/net0.txt" || die "rank 0 does not drive node 3's leader"
grep -q -- '<- rank 56$' "$TMP/net0.txt" || die "rank 0 does not answer node 8's leader"
grep -q -- '<- rank 48$' "$TMP/net0.txt" || die "rank 0 does not answer node 7's leader"
# pair peers stay on the node: rank 9 (n2, gpu 1) meets ranks 8..15 only
awk '/^rank 9 /{on=1; next} /^rank /{on=0} on && /pair/' "$TMP/small.txt" |
    grep -o 'rank [0-9]*$' | sort -u | awk '{ if ($2 < 8 || $2 > 15 || $2 == 9) bad = 1 } END { exit bad }' ||
    die "rank 9's pair peers leave its node"
echo "ok"

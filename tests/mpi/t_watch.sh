#!/bin/sh
# watch.c's gather judges a rank lost only on what has come: a rank whose
# record came while rank 0 was busy with another's (analysing it) is taken,
# not judged lost, and the run is not abandoned (tests/mpi/watch_probe.c
# orders the events by messages: rank 2 silent past the lost judgment, its
# record sent, while rank 0 is inside the handler of rank 1's). Judged
# after the handler, before taking the lengths that had come, rank 2 read
# as lost and the whole run was abandoned.
. "$(dirname "$0")/../lib.sh"
P=$BUILD/tests/mpi/watch_probe
[ -x "$P" ] || die "no $P (make tests first)"
timeout 120 $MPIRUN -np 3 "$P" > "$TMP/probe.out" 2> "$TMP/probe.err"
rc=$?
cat "$TMP/probe.out" "$TMP/probe.err"
[ $rc = 0 ] || die "probe: exit $rc"
grep -q "lost, hung or dead" "$TMP/probe.err" && die "rank 2 judged lost after its record came"
[ "$(cat "$TMP/probe.out")" = "probe: lost 0 abandoned 0 taken 1,1,1" ] || die "probe: $(cat "$TMP/probe.out")"
echo "ok: a rank whose record came while rank 0 analysed another's is taken, the run goes on"

#!/bin/sh
# watch.c's judgments of lost ranks, each ordered by messages, not timing
# (tests/mpi/watch_probe.c says how):
#  record    a rank whose record came while rank 0 was busy with another's
#            (analysing it) is taken, not judged lost, the run goes on.
#            Judged after the handler, before taking the lengths that had
#            come, it read as lost and the whole run was abandoned.
#  analysis  a rank that works on alone after its items (its analysis) and
#            says so between steps (gc_watch_busy) is not judged lost;
#            silent there it was ("lost 1 abandoned 1 taken 1,0").
#  lost      a rank judged lost that comes back is told so: it leaves the
#            wait it is in (a barrier whose peers stopped) and says why.
#            Untold it waited for ever and the job hung.
#  body      a rank whose record's length came but not its bytes is judged
#            lost within the lost-after time and the gather ends; rank 0
#            waited for the bytes for ever.
#  place     a node leader told it is lost in the instant after its last
#            check (the word hidden from it) places its node file after
#            rank 0 wrote that node's file: rank 0's stays byte for byte
#            (placed by rename, the leader's replaced it).
#  late      a rank judged lost whose record came when the gather would
#            end (nobody else awaited) is taken: its GPU has its own
#            record. Before, the gather ended without it ("lost 1 abandoned
#            1 taken 1,0") and only its shard stood for it.
. "$(dirname "$0")/../lib.sh"
P=$BUILD/tests/mpi/watch_probe
[ -x "$P" ] || die "no $P (make tests first)"

probe() {   # probe MODE RANKS EXPECTED
    timeout 120 $MPIRUN -np "$2" "$P" "$1" "$TMP/$1-out" > "$TMP/$1.out" 2> "$TMP/$1.err"
    rc=$?
    cat "$TMP/$1.out" "$TMP/$1.err"
    [ $rc = 124 ] && die "$1: the probe hung (killed by timeout)"
    [ $rc = 0 ] || die "$1: exit $rc"
    [ "$(cat "$TMP/$1.out")" = "$3" ] || die "$1: $(cat "$TMP/$1.out"), expected $3"
}

probe record 3 "probe record: lost 0 abandoned 0 taken 1,1,1"
grep -q "lost, hung or dead" "$TMP/record.err" && die "record: rank 2 judged lost after its record came"
echo "ok: a rank whose record came while rank 0 analysed another's is taken, the run goes on"

probe analysis 2 "probe analysis: lost 0 abandoned 0 taken 1,1"
echo "ok: a rank analysing alone past the lost-after time, saying so between steps, is not lost"

probe lost 2 "probe lost: lost 1 abandoned 1 taken 1,0 told: rank 0 judged this rank lost (silent past its budget)"
grep -q "^gpucensus: rank 1: no word for .*: lost, hung or dead; it is told to stop" "$TMP/lost.err" ||
    die "lost: no message that rank 1 was lost and told"
echo "ok: a rank judged lost that comes back is told to stop and leaves its wait"

probe body 2 "probe body: lost 1 abandoned 1 taken 1,0"
grep -q "^gpucensus: rank 1: its length came, then not its 2 bytes in [0-9]* s: lost" "$TMP/body.err" ||
    die "body: no message that rank 1's bytes did not come"
echo "ok: a rank whose length came but not its bytes is judged lost, the gather ends"

probe late 2 "probe late: lost 0 abandoned 1 taken 1,1"
grep -q "^gpucensus: rank 1: its record came after all (judged lost, it was only slow): taken" \
    "$TMP/late.err" || die "late: no message that rank 1's record was taken"
echo "ok: a lost rank's record that came as the gather would end is taken"

probe place 2 "probe place: lost 1 abandoned 1 taken 1,0 node file: rank 0's, leader's note 2"
grep -q "^gpucensus: rank 1: node file of n2 not placed: .*/place-out/nodes/n2.json: another file is in place" \
    "$TMP/place.err" || die "place: no message that the leader left rank 0's node file"
echo "ok: a leader told too late to see it leaves rank 0's node file in place"

#!/bin/sh
# One notion of "this run" (its plan and start time) for every reader of
# shards: `run --resume` over a shard of another plan is refused (exit 2,
# naming the file and --resume-reshape) and changes nothing; with
# --resume-reshape that GPU is measured anew; a shard of another run of the
# same plan is set aside by --resume (the GPU measured anew) and refused by
# merge, naming the file.
. "$(dirname "$0")/../lib.sh"
cat > "$TMP/p.cfg" <<CFG
name = "identity";
benchmarks = ( { name = "chase"; samples = 50; sweep = { footprint_bytes = [16384, 16777216]; }; } );
sim = { profile = "$ROOT/configs/sim/h100-sxm.cfg"; seed = 5L; nodes = 2; gpus_per_node = 1; };
CFG
sed 's/samples = 50/samples = 60/' "$TMP/p.cfg" > "$TMP/q.cfg"
run() { $MPIRUN -np 2 "$GC" run "$@" --backend sim --progress=off 2>&1; }
run "$TMP/p.cfg" -o "$TMP/a" > "$TMP/a.log" || { cat "$TMP/a.log"; die "run a"; }
run "$TMP/q.cfg" -o "$TMP/q" > "$TMP/q.log" || { cat "$TMP/q.log"; die "run q"; }
sleep 1   # another start time (seconds)
run "$TMP/p.cfg" -o "$TMP/b" > "$TMP/b.log" || { cat "$TMP/b.log"; die "run b"; }
shard=$TMP/a/shards/n1-gpu0.gcs

# a shard of another plan: refused, nothing changed
cp "$TMP/q/shards/n1-gpu0.gcs" "$shard"
cp "$shard" "$TMP/planted"
run "$TMP/p.cfg" --resume "$TMP/a" > "$TMP/r1.log"
rc=$?
[ $rc -eq 2 ] || { cat "$TMP/r1.log"; die "resume over a shard of another plan: exit $rc, expected 2"; }
grep -q "$shard is a shard of another plan .*--resume-reshape" "$TMP/r1.log" ||
    { cat "$TMP/r1.log"; die "the refusal names neither the file nor --resume-reshape"; }
cmp -s "$shard" "$TMP/planted" || die "the refused resume replaced the shard"
echo "ok: --resume over a shard of another plan refused, exit 2"

# merge refuses it too, naming it
"$GC" merge "$TMP/a/shards" -o "$TMP/m1" > "$TMP/m1.log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "$shard: a shard of another plan" "$TMP/m1.log" ||
    { cat "$TMP/m1.log"; die "merge over a shard of another plan: exit $rc"; }

# with --resume-reshape: that GPU measured anew, the run whole
run "$TMP/p.cfg" --resume "$TMP/a" --resume-reshape > "$TMP/r2.log" ||
    { cat "$TMP/r2.log"; die "resume --resume-reshape"; }
grep -q "$shard is a shard of another plan .*measuring this GPU anew" "$TMP/r2.log" ||
    { cat "$TMP/r2.log"; die "no note for the shard set aside"; }
"$GC" check "$TMP/a" > "$TMP/c2.log" 2>&1 || { cat "$TMP/c2.log"; die "check after the reshaped resume"; }
echo "ok: --resume-reshape measures that GPU anew"

# a shard of another run of the plan: merge refuses it, --resume sets it aside
cp "$TMP/b/shards/n1-gpu0.gcs" "$shard"
"$GC" merge "$TMP/a/shards" -o "$TMP/m2" > "$TMP/m2.log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "$shard: a shard of another run of the plan (started .*; this run " "$TMP/m2.log" ||
    { cat "$TMP/m2.log"; die "merge over a shard of another run: exit $rc"; }
echo "ok: merge refuses a shard of another run"
run "$TMP/p.cfg" --resume "$TMP/a" > "$TMP/r3.log" || { cat "$TMP/r3.log"; die "resume over another run's shard"; }
grep -q "$shard is a shard of another run of the plan .*measuring this GPU anew" "$TMP/r3.log" ||
    { cat "$TMP/r3.log"; die "no note for another run's shard"; }
grep -q 'resuming .*: 2 of 4 work items already done' "$TMP/r3.log" ||
    { cat "$TMP/r3.log"; die "the other GPU's items should be kept, this one's measured anew"; }
"$GC" merge "$TMP/a/shards" -o "$TMP/m3" > "$TMP/m3.log" 2>&1 || { cat "$TMP/m3.log"; die "merge after the resume"; }
echo "ok: --resume sets a shard of another run aside and measures that GPU anew"

#!/bin/sh
# A full disk (a small tmpfs filled up) while shards and the catalogue are
# written: a clear error naming the file and "No space left on device", the
# previous complete files intact, and the run still reporting what it
# measured. Needs root for the mount; skipped otherwise.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
mnt=$TMP/disk
mkdir -p "$mnt"
mount -t tmpfs -o size=4m tmpfs "$mnt" 2>"$TMP/mount.err" || skip "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
plan=$ROOT/tests/mpi/plan.cfg
out=$mnt/out

# 1. A complete run, then the disk fills up, then the catalogue is rebuilt.
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$out" --quiet || die "first run"
cp "$out/catalogue.json" "$TMP/before.json"
dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null   # until the disk is full
if "$GC" merge "$out/shards" -o "$out" > "$TMP/merge.log" 2>&1; then
    die "merge onto a full disk reported success"
fi
grep -q "No space left on device" "$TMP/merge.log" || { cat "$TMP/merge.log"; die "no ENOSPC message"; }
grep -q "intact" "$TMP/merge.log" || { cat "$TMP/merge.log"; die "message does not say the old file is intact"; }
cmp -s "$out/catalogue.json" "$TMP/before.json" || die "the previous catalogue was damaged"
$VALIDATE "$out" > /dev/null || die "previous files no longer valid"
ls "$out" "$out/nodes" "$out/shards" | grep -q '\.tmp\.' && die "temporary files left behind"

# 2. A disk full at the start: the run refuses before measuring anything.
if $MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$mnt/out2" --quiet > "$TMP/run.log" 2>&1; then
    die "a run onto a full disk reported success"
fi
grep -q "roster.gcr: could not be saved: No space left on device" "$TMP/run.log" \
    || { cat "$TMP/run.log"; die "no clear error for the full disk at the start"; }
find "$mnt" -name '*.tmp.*' | grep -q . && die "temporary files left behind"

# 3. Writes failing mid-run (a file-size limit: the roster fits, shards and
# catalogue do not): the ranks say their shards were not saved and send
# their results anyway; rank 0 says the catalogue was not written; exit 1.
rm -f "$mnt/filler"
# (the limit is set in the ranks only: Open MPI's own files must not hit it)
if $MPIRUN -np 2 sh -c 'ulimit -f 8 && exec "$0" "$@"' "$GC" run "$plan" --backend sim \
        -o "$mnt/out3" --quiet > "$TMP/run3.log" 2>&1; then
    die "a run over the file-size limit reported success"
fi
for msg in "shard not saved" "File too large" "still sent to rank 0" "catalogue not written"; do
    grep -q "$msg" "$TMP/run3.log" || { cat "$TMP/run3.log"; die "missing: $msg"; }
done
find "$mnt" -name '*.tmp.*' | grep -q . && die "temporary files left behind"
echo "full disk and file-size limit: errors reported, previous files intact"

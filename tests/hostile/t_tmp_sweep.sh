#!/bin/sh
# Temporaries a SIGKILLed or SIGSTOPped writer left (NAME.tmp.XXXXXX) are
# swept by the next writer of that OUT (run, merge), under its lock: only
# regular files of this user, of that name pattern, a minute old or more;
# a fresh one, a symlink of that name and other names are left.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || skip "no $GC"
plan=$ROOT/tests/mpi/plan.cfg
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/run" --quiet || die "run"
out=$TMP/merged
mkdir -p "$out/nodes" "$out/shards"
old() { : > "$1"; touch -d '-5 minutes' "$1"; }
old "$out/nodes/n1.json.tmp.Ab12Cd"
old "$out/catalogue.json.tmp.x9Y8z7"
old "$out/nodes/keep.json"                 # not a temporary's name
old "$out/nodes/n1.json.tmp.short"         # not mkostemp's six characters
: > "$out/nodes/n2.json.tmp.Fresh1"        # a live writer's, perhaps
echo precious > "$TMP/precious"
ln -s "$TMP/precious" "$out/nodes/n3.json.tmp.Link99"
"$GC" merge "$TMP/run/shards" -o "$out" 2> "$TMP/err" || { cat "$TMP/err"; die "merge"; }
[ -e "$out/nodes/n1.json.tmp.Ab12Cd" ] && die "an old temporary in nodes/ left"
[ -e "$out/catalogue.json.tmp.x9Y8z7" ] && die "an old temporary in OUT left"
[ -e "$out/nodes/keep.json" ] || die "a file of another name removed"
[ -e "$out/nodes/n1.json.tmp.short" ] || die "a name of another pattern removed"
[ -e "$out/nodes/n2.json.tmp.Fresh1" ] || die "a fresh temporary removed"
[ -L "$out/nodes/n3.json.tmp.Link99" ] || die "a symlink removed"
[ "$(cat "$TMP/precious")" = precious ] || die "the link's target changed"
grep -q "removed 1 temporary a killed writer left" "$TMP/err" || { cat "$TMP/err"; die "not said"; }
echo "ok: merge swept the old temporaries of OUT and OUT/nodes, and only those"

#!/bin/sh
# Hostile inputs: nothing is written outside OUT, nothing is
# injected into what an operator pastes or opens, nothing blocks or reads
# without bound. Each case is a real file-system object or a real crafted
# file: names with ../ and shell syntax, control characters, symlinks and
# FIFOs planted at output names, FIFOs and devices as inputs, a second
# writer in one OUT, shards that do not belong.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
command -v python3 >/dev/null || skip "no python3"
plan=$ROOT/tests/mpi/plan.cfg
T="timeout 20"   # a case that blocks fails as exit 124 instead of hanging the suite
n=0
ok() { n=$((n + 1)); echo "ok: $*"; }
# refused CMD...: exits neither 0 nor 124 (a hang); stderr+stdout in $TMP/out
refused() {
    $T "$@" > "$TMP/out" 2>&1
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || { cat "$TMP/out"; die "accepted or hung (exit $rc): $*"; }
}
said() { grep -q -- "$1" "$TMP/out" || { cat "$TMP/out"; die "no message '$1'"; }; }

$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/run" --quiet || die "reference run"
cat=$TMP/run/catalogue.json

# --- output paths -----------------------------------------------------------
cd "$TMP" || die "cd"
refused "$GC" run "$plan" --backend sim -o '' --quiet
said "output directory is empty"
refused "$GC" merge "$TMP/run/shards" -o ''
said "output directory is empty"
[ -e /catalogue.json ] && [ /catalogue.json -nt "$cat" ] && die "catalogue written at the root"
ok "-o '' refused by run and merge"

mkdir -p "$TMP/jobs"
SLURM_JOB_ID='../../escaped' refused "$GC" run "$plan" --backend sim -o "$TMP/jobs/a/b/%j" --quiet
said "SLURM_JOB_ID"
[ -e "$TMP/jobs/escaped" ] && die "%j moved OUT outside its directory"
SLURM_JOB_ID=42 $T "$GC" run "$plan" --backend sim -o "$TMP/jobs/p%%-%j" --quiet > /dev/null 2>&1 || die "%% run"
[ -f "$TMP/jobs/p%-42/catalogue.json" ] || { ls "$TMP/jobs"; die "%% is not a literal percent"; }
ok "%j refuses SLURM_JOB_ID=../../escaped; %% is a percent"

# report -o onto a planted symlink, a FIFO, /dev/null-like device: refused,
# the target untouched
echo precious > "$TMP/precious"
ln -s "$TMP/precious" "$TMP/link.html"
refused "$GC" report "$TMP/run" -o "$TMP/link.html"
said "not a regular file"
[ "$(cat "$TMP/precious")" = precious ] || die "write followed the symlink"
[ -L "$TMP/link.html" ] || die "symlink replaced"
mkfifo "$TMP/fifo.html"
refused "$GC" report "$TMP/run" -o "$TMP/fifo.html"
[ -p "$TMP/fifo.html" ] || die "FIFO replaced"
ls "$TMP" | grep -q '\.tmp\.' && die "temporary left behind"
ok "report -o: symlink and FIFO targets refused, left as they were"

# --- names in catalogues ----------------------------------------------------
craft() {   # craft OUT.json PYTHON-STATEMENTS (on the reference catalogue, as c)
    python3 - "$cat" "$1" "$2" <<'PY' || die "craft $1"
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"))
PY
}
# (schema 3: check without --rules reads the verdicts, not the GPU objects:
# the name goes into the GPU's verdict row too, which names the drain line)
gpu0='r = c["verdicts"]["rows"][0]; r.__setitem__("node" if isinstance(r, dict) else 1, c["gpus"][0]["node"])'
craft "$TMP/dots.json" 'c["gpus"][0]["node"] = "../../../../tmp/x"; '"$gpu0"
$T "$GC" check "$TMP/dots.json" > "$TMP/out" 2>&1
[ $? = 3 ] || { cat "$TMP/out"; die "../ node name: not exit 3"; }
said "'node' must be 1-63 characters"
craft "$TMP/shell.json" 'c["gpus"][0]["node"] = "n1;touch${IFS}pwned"; '"$gpu0"
$T "$GC" check "$TMP/shell.json" > "$TMP/out" 2>&1
[ $? = 3 ] || { cat "$TMP/out"; die "shell node name: not exit 3"; }
[ -e pwned ] && die "pwned"
craft "$TMP/file.json" 'c["nodes"][0]["file"] = "../../../../etc/passwd"'
$T "$GC" check "$TMP/file.json" > "$TMP/out" 2>&1
[ $? = 3 ] || { cat "$TMP/out"; die "nodes[].file outside OUT: not exit 3"; }
said "nodes\[0\].file' must be"
refused "$GC" report "$TMP/file.json" -o "$TMP/file.html"
[ -e "$TMP/file.html" ] && die "report of a catalogue with nodes[].file outside OUT"
craft "$TMP/nomodels.json" 'del c["models"]'
$T "$GC" check "$TMP/nomodels.json" > "$TMP/out" 2>&1
[ $? = 3 ] || { cat "$TMP/out"; die "schema-invalid catalogue judged"; }
said "'models' is missing"
ok "catalogues: ../ and shell node names, nodes[].file outside OUT, a missing member: exit 3"

# control characters: shown as \xNN on the terminal, escaped in the page
craft "$TMP/esc.json" 'c["gpus"][0]["identity"]["name"] = "H100\u001b]2;owned\u0007\u001b[2J<img src=x onerror=alert(1)>"; c["run"]["plan_name"] = "p\u001b[31m"'
$T "$GC" check "$TMP/esc.json" > "$TMP/out" 2>&1
[ $? -le 2 ] || { cat "$TMP/out"; die "check esc.json"; }
$T "$GC" report "$TMP/esc.json" >> "$TMP/out" 2>&1 || die "report esc.json"
$T "$GC" report "$TMP/esc.json" -o "$TMP/esc.html" >> "$TMP/out" 2>&1 || die "report -o esc.json"
if grep -q "$(printf '\033')" "$TMP/out"; then die "an ESC reached the terminal"; fi
if grep -q "$(printf '\007')" "$TMP/out"; then die "a BEL reached the terminal"; fi
said 'p\\x1b\[31m'
grep -q '<img' "$TMP/esc.html" && die "HTML injected into the page"
grep -q '&lt;img src=x onerror=alert(1)&gt;' "$TMP/esc.html" || die "name not escaped in the page"
if grep -q "$(printf '\033')" "$TMP/esc.html"; then die "an ESC in the page"; fi
ok "control characters shown as \\xNN (terminal, page); <img onerror> escaped"

# drain lines: a reason with quotes, $() and backticks reaches scontrol as
# one argument, unexpanded
python3 "$ROOT/tests/check/craft.py" degraded "$TMP/deg.json" || die "craft degraded"
"$GC" check "$TMP/deg.json" > "$TMP/deg.out" 2>&1
grep '^  scontrol update' "$TMP/deg.out" > "$TMP/drain.sh" || die "no drain line"
printf '  scontrol update NodeName=%s State=DRAIN Reason=%s\n' "'n9'" "'it'\\''s \$(touch pwned) \`touch pwned\`'" >> "$TMP/drain.sh"
scontrol() { for a in "$@"; do printf '[%s]\n' "$a"; done; }
. "$TMP/drain.sh" > "$TMP/args"
[ -e pwned ] && die "a drain line ran a command"
grep -q '^\[NodeName=n2\]$' "$TMP/args" || { cat "$TMP/args"; die "node argument"; }
grep -q '^\[Reason=gpucensus: n2/gpu1 degraded' "$TMP/args" || { cat "$TMP/args"; die "reason argument"; }
grep -qF "[Reason=it's \$(touch pwned) \`touch pwned\`]" "$TMP/args" || { cat "$TMP/args"; die "quoted reason"; }
ok "drain lines are single-quoted: one argument each, nothing expanded"

# --- inputs that are not regular files ---------------------------------------
mkfifo "$TMP/fifo.json" "$TMP/rules.fifo" "$TMP/plan.fifo"
refused "$GC" check "$TMP/fifo.json"
said "not a regular file"
refused "$GC" check /dev/zero
said "not a regular file"
refused "$GC" check "$cat" --rules "$TMP/rules.fifo"
refused "$GC" check "$cat" --rules "$TMP"
said "not a regular file"
printf 'peers = { z_suspect = 3.0; };\n@include "%s"\n' "$TMP/rules.fifo" > "$TMP/inc.cfg"
refused "$GC" check "$cat" --rules "$TMP/inc.cfg"
said "@include: not supported"
refused "$GC" plan "$TMP/plan.fifo"
said "not a regular file"
mkdir -p "$TMP/base"
cp "$cat" "$TMP/base/a.json"
mkfifo "$TMP/base/b.json"
$T "$GC" check "$cat" --baseline "$TMP/base" > "$TMP/out" 2>&1
[ $? -ne 124 ] || die "a FIFO in the baseline directory blocked check"
ok "FIFOs (catalogue, rules, @include, plan, baseline entry), /dev/zero, a directory as rules: refused at once"

# a sim profile that is missing or a FIFO: a bad plan (exit 2) at plan time
# (plan --backend sim: only the sim backend reads it) and before a run
# measures anything, not a failure of every rank
mkfifo "$TMP/prof.fifo"
for prof in "$TMP/nope.cfg" "$TMP/prof.fifo"; do
    sed "s#^sim = { profile = \"[^\"]*\"#sim = { profile = \"$prof\"#" "$plan" > "$TMP/badsim.cfg"
    grep -q "$prof" "$TMP/badsim.cfg" || die "crafting the sim profile"
    $T "$GC" plan "$TMP/badsim.cfg" > /dev/null 2>&1 || die "plan (cuda) opened the sim profile $prof"
    $T "$GC" plan "$TMP/badsim.cfg" --backend sim > "$TMP/out" 2>&1
    [ $? = 2 ] || { cat "$TMP/out"; die "plan --backend sim with sim profile $prof: not exit 2"; }
    said "$prof"
    $T $MPIRUN -np 2 "$GC" run "$TMP/badsim.cfg" --backend sim -o "$TMP/bs" --quiet > "$TMP/out" 2>&1
    [ $? = 2 ] || { cat "$TMP/out"; die "run with sim profile $prof: not exit 2"; }
done
ok "a missing or FIFO sim profile: exit 2 from plan --backend sim and run"

# --- shards ----------------------------------------------------------------
mkfifo "$TMP/fifo.gcs"
cp -r "$TMP/run/shards" "$TMP/s1"
shard=$(ls "$TMP/s1" | grep '\.gcs$' | head -n 1)
rm "$TMP/s1/$shard"
mkfifo "$TMP/s1/$shard"
$T "$GC" merge "$TMP/s1" -o "$TMP/m1" > "$TMP/out" 2>&1
[ $? -ne 124 ] || die "a FIFO as a shard blocked merge"
ok "a FIFO as a shard does not block merge"

# a shard of another plan, a copy of a shard under another GPU's name, two
# shards of one GPU (no roster): refused, naming the shards
sed 's/^name = "mpi-test";/name = "other";/' "$plan" | sed "s#\"\.\./\.\./configs#\"$ROOT/configs#" > "$TMP/other.cfg"
$MPIRUN -np 2 "$GC" run "$TMP/other.cfg" --backend sim -o "$TMP/other" --quiet || die "other run"
cp -r "$TMP/run/shards" "$TMP/s2"
cp "$TMP/other/shards/$shard" "$TMP/s2/$shard"
refused "$GC" merge "$TMP/s2" -o "$TMP/m2"
said "$shard: a shard of another plan"
cp -r "$TMP/run/shards" "$TMP/s3"
a=$(ls "$TMP/s3" | grep '\.gcs$' | sed -n 1p) b=$(ls "$TMP/s3" | grep '\.gcs$' | sed -n 2p)
cp "$TMP/s3/$a" "$TMP/s3/$b"
refused "$GC" merge "$TMP/s3" -o "$TMP/m3"
said "holds"
rm "$TMP/s3/roster.gcr"
cp "$TMP/run/shards/$b" "$TMP/s3/$b"
cp "$TMP/s3/$a" "$TMP/s3/copy-of-$a"
refused "$GC" merge "$TMP/s3" -o "$TMP/m3"
said "are both rank"
ok "merge refuses a shard of another plan, a shard under another GPU's name, duplicates"

# --- one writer per OUT -------------------------------------------------------
command -v flock > /dev/null || skip "no flock(1) for the lock case ($n cases passed)"
mkdir -p "$TMP/busy"
echo "otherhost 4242" > "$TMP/busy/gpucensus.lock"
# (the holder is sleep itself, with the locked descriptor: killing it frees the lock)
( exec 9< "$TMP/busy/gpucensus.lock" && flock 9 && exec sleep 30 ) &
holder=$!
sleep 0.5
refused "$GC" run "$plan" --backend sim -o "$TMP/busy" --quiet
said "in use by another gpucensus (host and pid otherhost 4242"
refused "$GC" merge "$TMP/run/shards" -o "$TMP/busy"
said "in use by another gpucensus"
[ -e "$TMP/busy/catalogue.json" ] && die "a second writer wrote into a locked OUT"
kill "$holder"
wait "$holder" 2>/dev/null
$T "$GC" merge "$TMP/run/shards" -o "$TMP/busy" > /dev/null 2>&1 || die "merge once the lock is free"
grep -q "$(hostname) " "$TMP/busy/gpucensus.lock" || die "lock does not name its owner"
ok "a locked OUT is refused naming the owner; free again once it exits"
echo "$n passed, 0 failed"

#!/bin/sh
# docs/operations.md's table "What is refused" walked against the program:
# each row names a case (`id`), what it is, and the exit code; each case
# below builds the hostile input for real (FIFOs, symlinks, crafted
# catalogues, baselines, node files, history databases, environment) and
# runs the command. Every row must have a case, every case a row, and the
# program must exit with the row's code (never a hang: 20 s each, exit 124).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || skip "no $GC"
command -v python3 >/dev/null || skip "no python3"
command -v sqlite3 >/dev/null || skip "no sqlite3"
plan=$ROOT/tests/mpi/plan.cfg
T="timeout 20"
$MPIRUN -np 4 "$GC" run "$plan" --backend sim -o "$TMP/run" --quiet || die "reference run"
sleep 1   # another start time for the second run
$MPIRUN -np 4 "$GC" run "$plan" --backend sim -o "$TMP/run2" --quiet || die "second run"
"$GC" history add "$TMP/h.db" "$TMP/run" > /dev/null || die "history add"

copy() { rm -rf "$TMP/$1"; cp -r "$TMP/run" "$TMP/$1"; }
# craft NAME PYTHON: a copy of the run whose catalogue the statements change (as c)
craft() {
    copy "$1"
    python3 - "$TMP/$1/catalogue.json" "$2" <<'PY' || die "craft"
import json, sys
path, code = sys.argv[1], sys.argv[2]
c = json.load(open(path))
raw = None
exec(code)
open(path, "w").write(raw if raw is not None else json.dumps(c))
PY
}
# db NAME SQL: a copy of the history database changed by SQL
db() { cp "$TMP/h.db" "$TMP/$1.db"; sqlite3 "$TMP/$1.db" "$2" || die "sqlite3 $1"; }
base() {
    python3 - "$ROOT/configs/baselines/h100-80gb-hbm3.json" "$TMP/$1.json" "$2" <<'PY' || die "base"
import json, sys
b = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(b, open(sys.argv[2], "w"))
PY
}

case_fifo_node() { copy fifo; rm "$TMP/fifo/nodes/n1.json"; mkfifo "$TMP/fifo/nodes/n1.json"
    $T "$GC" check "$TMP/fifo" --rules configs/rules.cfg; }
case_link_nodes() { copy ln; mv "$TMP/ln/nodes" "$TMP/ln/real"; ln -s real "$TMP/ln/nodes"
    $T "$GC" check "$TMP/ln" --rules configs/rules.cfg; }
case_link_shards() { mkdir -p "$TMP/ls" "$TMP/elsewhere"; ln -s ../elsewhere "$TMP/ls/shards"
    $T $MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$TMP/ls" --quiet
    rc=$?; [ -z "$(ls "$TMP/elsewhere")" ] || die "run wrote through OUT/shards' link"; return $rc; }
case_other_run_node() { copy other; cp "$TMP/run2/nodes/n1.json" "$TMP/other/nodes/n1.json"
    $T "$GC" check "$TMP/other" --rules configs/rules.cfg; }
case_nul_catalogue() { mkdir -p "$TMP/nul"; head -c 8388608 /dev/zero > "$TMP/nul/catalogue.json"
    $T "$GC" report "$TMP/nul" -o "$TMP/nul.html"; }
case_rules_big() { { cat configs/rules.cfg; head -c $((1048576 + 1 - $(wc -c < configs/rules.cfg))) /dev/zero | tr '\0' ' '; } > "$TMP/big.cfg"
    [ "$(wc -c < "$TMP/big.cfg")" = 1048577 ] || die "rules file size"
    $T "$GC" check "$TMP/run" --rules "$TMP/big.cfg"; }
case_rules_1mib() { head -c 1048576 "$TMP/big.cfg" > "$TMP/mib.cfg"
    $T "$GC" check "$TMP/run" --rules "$TMP/mib.cfg"; }
case_nan() { craft nan 'k = c["gpus"][0]["properties"]; k["sm_clock_max_mhz"] = 12345.5; raw = json.dumps(c).replace("12345.5", "NaN")'
    $T "$GC" check "$TMP/nan"; }
case_bigint() { craft bigint 'c["gpus"][0]["properties"]["l2_bytes"] = 777777; raw = json.dumps(c).replace("777777", "99999999999999999999999")'
    $T "$GC" check "$TMP/bigint" --prometheus "$TMP/bigint.prom"; }
case_sm_count() { craft sm 'c["gpus"][0]["properties"]["sm_count"] = -1'
    $T "$GC" check "$TMP/sm"; }
case_dup_gpu() { craft dup 'c["gpus"].append(c["gpus"][0])'
    $T "$GC" check "$TMP/dup" --prometheus "$TMP/dup.prom"; r=$?
    [ -e "$TMP/dup.prom" ] && die "a .prom written for a catalogue listing a GPU twice"; return $r; }
case_ghost_verdict() { craft ghost 'c["verdicts"]["rows"].insert(0, [0, "n9", 3, None, 2, 0, 4, 1])'
    $T "$GC" check "$TMP/ghost" 2> "$TMP/ghost.err"; r=$?
    grep -q "n9/gpu3" "$TMP/ghost.err" || die "the ghost GPU is not named"; return $r; }
case_base_nvlink() { base bnv 'b["nvlink_links"] = -1'; $T "$GC" check "$TMP/run" --baseline "$TMP/bnv.json"; }
case_base_n0() { base bn0 '
def f(o):
    if isinstance(o, dict):
        if "median" in o and "n" in o:
            o["n"] = 0
            return True
        return any(f(v) for v in o.values())
    return False
assert f(b)'; $T "$GC" check "$TMP/run" --baseline "$TMP/bn0.json"; }
case_hist_view() { db view "DROP TABLE gpus; CREATE VIEW gpus AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS run, 'u' AS uuid, 'n1' AS node, 0 AS gpu_index, 'g' AS name, 'ok' AS status, 0 AS level, '' AS reason FROM c;"
    $T "$GC" history show "$TMP/view.db"; }
case_hist_view_check() { $T "$GC" check "$TMP/run" --baseline "$TMP/view.db"; }
case_hist_trigger() { db trig "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM gpus; END;"
    $T "$GC" history last "$TMP/trig.db" n1; }
case_hist_names() { db names "UPDATE gpus SET name = 'H100' || char(27) || '[2J' || char(155) || '31m'; UPDATE runs SET plan_name = 'p' || char(157) || '0;x' || char(7); UPDATE nodes SET reason = 'r' || char(133) || char(27) || ']0;t';"
    $T "$GC" history show "$TMP/names.db" > "$TMP/names.out" && $T "$GC" history last "$TMP/names.db" n1 >> "$TMP/names.out"
    r=$?
    LC_ALL=C grep -q "$(printf '\033')\|$(printf '\302\233')\|$(printf '\302\235')\|$(printf '\302\205')\|$(printf '\007')" "$TMP/names.out" &&
        die "control characters from the database reached the terminal"
    grep -q 'H100\\x1b\[2J\\xc2\\x9b31m' "$TMP/names.out" || die "name not escaped: $(cat "$TMP/names.out")"
    return $r; }
case_hist_time() { db time "UPDATE runs SET start_s = 9223372036854775807 WHERE id = (SELECT min(id) FROM runs);"
    "$GC" history add "$TMP/time.db" "$TMP/run2" > /dev/null || die "add"
    $T "$GC" check "$TMP/run2" --baseline "$TMP/time.db" > /dev/null; }
case_jobid() { SLURM_JOB_ID='1/../../x' $T $MPIRUN -x SLURM_JOB_ID -np 2 "$GC" run "$plan" --backend sim -o "$TMP/j/%j" --quiet; }
case_node_name() { sed -e 's/ nodes = 2;//' -e "s|\"../../configs/|\"$ROOT/configs/|" "$plan" > "$TMP/p0.cfg"
    GPUCENSUS_NODE_NAME='a;b' $T $MPIRUN -x GPUCENSUS_NODE_NAME -np 2 "$GC" run "$TMP/p0.cfg" --backend sim -o "$TMP/nn" --quiet; }
case_resume_other_plan() { copy rop
    sed -e 's/seed = 7L/seed = 8L/' -e "s|\"../../configs/|\"$ROOT/configs/|" "$plan" > "$TMP/p8.cfg"
    $MPIRUN -np 1 "$GC" run "$TMP/p8.cfg" --backend sim -o "$TMP/p8" --quiet || die "run of another plan"
    cp "$TMP/p8/shards/n1-gpu0.gcs" "$TMP/rop/shards/n1-gpu0.gcs"
    $T $MPIRUN -np 4 "$GC" run "$plan" --backend sim --resume "$TMP/rop" --quiet; r=$?
    cmp -s "$TMP/p8/shards/n1-gpu0.gcs" "$TMP/rop/shards/n1-gpu0.gcs" || die "the refused resume replaced the shard"
    return $r; }
case_merge_other_run() { copy mor; cp "$TMP/run2/shards/n1-gpu0.gcs" "$TMP/mor/shards/n1-gpu0.gcs"
    $T "$GC" merge "$TMP/mor/shards" -o "$TMP/mor-m" 2> "$TMP/mor.err"; r=$?
    grep -q "n1-gpu0.gcs: a shard of another run" "$TMP/mor.err" || die "the shard of another run is not named"; return $r; }

# the table: rows "| `id` | ... | code |" of the section
awk '/^### What is refused/ { on = 1; next } /^#/ { on = 0 } on && /^\| `[a-z0-9-]*` \|/' \
    docs/operations.md > "$TMP/table"
[ -s "$TMP/table" ] || die "no table 'What is refused' in docs/operations.md"
n=0
while IFS= read -r row; do
    id=$(printf '%s\n' "$row" | sed 's/^| `\([a-z0-9-]*\)`.*/\1/')
    want=$(printf '%s\n' "$row" | awk -F'|' '{ gsub(/ /, "", $(NF - 1)); print $(NF - 1) }')
    fn=case_$(echo "$id" | tr '-' '_')
    command -v "$fn" > /dev/null || die "row $id: no case in $0"
    "$fn" < /dev/null > "$TMP/$id.log" 2>&1
    rc=$?
    [ "$rc" = "$want" ] || { cat "$TMP/$id.log"; die "$id: exit $rc, the table says $want"; }
    echo "ok: $id: exit $rc"
    n=$((n + 1))
done < "$TMP/table"
for fn in $(grep -o '^case_[a-z0-9_]*' "$0"); do
    id=$(echo "${fn#case_}" | tr '_' '-')
    grep -q "^| \`$id\` |" "$TMP/table" || die "case $id is not in the table"
done
echo "ok: $n rows of the table hold"

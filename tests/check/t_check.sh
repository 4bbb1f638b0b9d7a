#!/bin/sh
# gpucensus check: every exit code. Crafted catalogues (tests/check/craft.py,
# clones of the real H100 example): healthy -> 0, one GPU 5% slow -> 1
# (suspect), PCIe x8 -> 2 with a drain command for its node, a failed GPU
# -> 2, a GPU the run stopped on (incomplete) -> 3 with no drain line; and 3 with a clear message for a missing file, malformed JSON,
# truncated and schema-invalid catalogues, a per-node file, bad rules, a bad
# baseline, bad arguments and an empty catalogue. The baseline file of
# configs/baselines judges a lone GPU, and says so.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
command -v python3 >/dev/null || skip "no python3"

expect() {   # expect CODE NAME ARGS...: runs check, keeps its output in $TMP/NAME.out
    code=$1 name=$2
    shift 2
    "$GC" check "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    [ "$rc" -eq "$code" ] || { cat "$TMP/$name.out" "$TMP/$name.err"; die "$name: exit $rc, expected $code"; }
    echo "ok: $name -> exit $rc"
}

for k in healthy suspect degraded failed incomplete; do
    python3 tests/check/craft.py $k "$TMP/$k.json" || die "craft $k"
done

expect 0 healthy "$TMP/healthy.json"
grep -q "GPUs       8 ok, 0 suspect, 0 degraded, 0 failed" "$TMP/healthy.out" || die "healthy summary"
grep -q "exit 0: all ok" "$TMP/healthy.out" || die "healthy last line"

expect 1 suspect "$TMP/suspect.json"
grep -q "^suspect   n1/gpu2 .*peers: hbm_" "$TMP/suspect.out" || die "suspect row"
grep -q "scontrol" "$TMP/suspect.out" && die "a suspect node is not drained"

expect 2 degraded "$TMP/degraded.json"
# the per-GPU table (as dcgmi diag): the slow host link fails n2/gpu1's host family only
grep -q "^n2/gpu1  *Pass  *Pass  *Pass  *Pass  *Fail  *Pass  *Pass  *Pass  *Pass  *Pass$" "$TMP/degraded.out" &&
    [ "$(grep -c "^n[12]/gpu[0-3]  *Pass  *Pass  *Pass  *Pass  *Pass  *Pass  *Pass  *Pass  *Pass  *Pass$" "$TMP/degraded.out")" = 7 ] ||
    { cat "$TMP/degraded.out"; die "per-GPU table"; }
grep -q "^degraded  n2/gpu1 .*limit_pcie: pcie_width: PCIe link trained at x8 of x16" "$TMP/degraded.out" ||
    die "degraded row"
grep -q '^  scontrol update NodeName='"'n2'"' State=DRAIN Reason='"'"'gpucensus: n2/gpu1 degraded: PCIe link trained at x8 of x16' \
    "$TMP/degraded.out" || die "drain command"
grep -q "NodeName='n1'" "$TMP/degraded.out" && die "n1 is healthy"

expect 2 failed "$TMP/failed.json"
grep -q "^failed    n2/gpu3 .*status: measurement failed: the rank stopped" "$TMP/failed.out" || die "failed row"
grep -q "Reason='gpucensus: n2/gpu3 failed: measurement failed: the rank stopped" "$TMP/failed.out" ||
    die "failed: the drain reason is not the failure's detail"
# a GPU the run stopped on is not judged: exit 3, no drain line
expect 3 incomplete "$TMP/incomplete.json"
grep -q "^incomplete n2/gpu3 .*incomplete: not judged in full" "$TMP/incomplete.out" || die "incomplete row"
grep -q "1 incomplete (not judged)" "$TMP/incomplete.out" || die "incomplete count"
grep -q "scontrol" "$TMP/incomplete.out" && die "an incomplete GPU drains its node"

# the same in the compact layout (schema 2, points in the node files, no
# verdicts written): judged from the node files, alike
for k in healthy suspect degraded failed; do
    python3 tests/check/craft.py $k "$TMP/c-$k" --compact || die "craft $k --compact"
    "$GC" check "$TMP/$k.json" --json | grep -v '"catalogue"' > "$TMP/$k.v1"
    "$GC" check "$TMP/c-$k" --json | grep -v '"catalogue"' > "$TMP/$k.v2"
    cmp -s "$TMP/$k.v1" "$TMP/$k.v2" || die "$k: the compact layout judged otherwise"
done
expect 1 c-suspect "$TMP/c-suspect"
grep -q "^suspect   n1/gpu2 .*peers: hbm_" "$TMP/c-suspect.out" || die "compact suspect row"
rm "$TMP/c-suspect/nodes/n2.json"
expect 3 c-nonode "$TMP/c-suspect"
grep -q "c-suspect/nodes/n2.json: cannot open it" "$TMP/c-nonode.err" || die "compact: missing node file not named"

# --json: an object {run, counts, exit_status, verdicts}: one verdict per GPU, link and node
expect 2 json "$TMP/degraded.json" --json
python3 - "$TMP/json.out" <<'PY' || die "--json output"
import json, sys
o = json.load(open(sys.argv[1]))
assert sorted(o) == ["counts", "exit_status", "run", "verdicts"], sorted(o)
assert o["exit_status"] == 2 and o["run"]["gpus"] == 8, (o["exit_status"], o["run"])
v = o["verdicts"]
c = o["counts"]
assert c["gpus"]["ok"] + c["gpus"]["suspect"] + c["gpus"]["degraded"] + c["gpus"]["failed"] == 8, c
assert c["nodes"]["degraded"] + c["nodes"]["failed"] >= 1, c
assert sum(x["type"] == "gpu" for x in v) == 8 and sum(x["type"] == "node" for x in v) == 2
bad = [x["subject"] for x in v if x["verdict"] != "ok"]
assert any(x["subject"] == "n2" and x["verdict"] == "degraded" for x in v), bad
PY
# ... valid per the verdict definition of the catalogue schema
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - "$TMP/json.out" "$ROOT/results-schema/catalogue.schema.json" <<'PY' || die "--json output is not schema-valid"
import json, sys, jsonschema
v = json.load(open(sys.argv[1]))["verdicts"]
s = json.load(open(sys.argv[2]))
schema = {"$defs": s["$defs"], "type": "array", "items": {"$ref": "#/$defs/verdict"}}
errs = list(jsonschema.Draft202012Validator(schema).iter_errors(v))
assert not errs, errs[:3]
PY
fi

# rules: a lax file changes the verdict; a bad one is exit 3
printf 'peers = { rel_suspect = 0.10; rel_degraded = 0.20; };\ndistribution = { rel_suspect = 0.10; rel_degraded = 0.20; };\n' > "$TMP/lax.cfg"
expect 0 lax "$TMP/suspect.json" --rules "$TMP/lax.cfg"
printf 'peers = { rel_suspect = "x"; };\n' > "$TMP/bad.cfg"
expect 3 badrules "$TMP/healthy.json" --rules "$TMP/bad.cfg"
grep -q "bad.cfg:1: peers.rel_suspect: expected a number, got a string" "$TMP/badrules.err" || die "rules message"
expect 0 defaultrules "$TMP/healthy.json" --rules configs/rules.cfg

# a lone GPU: limits alone, or the SKU's baseline file
expect 0 lone tests/data/schema1/h100-default
grep -q "judged from limits alone (no baseline given)" "$TMP/lone.out" || die "lone note"
expect 0 lonebase tests/data/schema1/h100-default --baseline configs/baselines/h100-80gb-hbm3.json
grep -q "judged from the baseline and limits alone" "$TMP/lonebase.out" || die "baseline note"
# configs/baselines as a directory: each SKU finds its file; a plan it has no
# values of (p2p) is not judged against it, and the note says so
expect 0 basedir tests/data/schema1/h200x2-p2p --baseline configs/baselines
grep -q "the baseline has no values of this plan for this SKU" "$TMP/basedir.out" || die "baseline dir note"
expect 0 othersku tests/data/schema1/h200x2-p2p --baseline configs/baselines/h100-80gb-hbm3.json
grep -q "limits alone (the baseline has nothing for this SKU)" "$TMP/othersku.out" || die "other SKU note"
# an earlier catalogue as the baseline: the same GPUs by UUID
expect 1 history "$TMP/suspect.json" --baseline "$TMP/healthy.json" --rules "$TMP/lax.cfg"
grep -q "this GPU's earlier" "$TMP/history.out" || die "history"

# exit 3: could not judge, with a clear message
expect 3 missing "$TMP/nope.json"
grep -q "nope.json: cannot open" "$TMP/missing.err" || die "missing message"
printf '{"schema_version": "1.0", "kind": "catalogue", "gpus": [ {"node": ' > "$TMP/trunc.json"
expect 3 truncated "$TMP/trunc.json"
grep -q "trunc.json:1: not valid JSON" "$TMP/truncated.err" || die "truncated message"
printf 'not json at all\n' > "$TMP/garbage.json"
expect 3 garbage "$TMP/garbage.json"
sed 's/"identity"/"identiti"/' "$TMP/healthy.json" > "$TMP/noid.json"
expect 3 schema "$TMP/noid.json"
grep -q "noid.json:[0-9]*: gpus\[0\]: 'identity' is missing (required by the catalogue schema)" "$TMP/schema.err" ||
    die "schema message: $(cat "$TMP/schema.err")"
sed 's/"sm_count": 132/"sm_count": "many"/' "$TMP/healthy.json" > "$TMP/type.json"
expect 3 type "$TMP/type.json"
grep -q "'properties.sm_count' must be an integer" "$TMP/type.err" || die "type message"
expect 3 nodefile tests/data/schema1/h100-default/nodes/vm.json
grep -q "per-node file" "$TMP/nodefile.err" || die "node file message"
printf '{"schema_version": "1.0", "kind": "catalogue", "run": {"backend": "sim"}, "gpus": [], "nodes": [], "links": [], "models": {}, "verdicts": []}\n' > "$TMP/empty.json"
expect 3 empty "$TMP/empty.json"
grep -q "no GPU in this catalogue" "$TMP/empty.err" || die "empty message"
printf '{"schema_version": "1.0", "kind": "baseline"}\n' > "$TMP/base.json"
expect 3 badbase "$TMP/healthy.json" --baseline "$TMP/base.json"
grep -q 'names its "sku"' "$TMP/badbase.err" || die "baseline message"
expect 2 args --frobnicate
expect 2 noargs
echo "t_check: all exit codes"

#!/bin/sh
# catalogue.json of schema 3.0: its layout (one GPU, link row and
# verdict per line, no other whitespace), tools/gccat.py's expansion to 2.0
# read by gpucensus as the 3.0 file is (check, check --rules, predict give
# the same), the JSON Schema, and errors in its tables named by member.
. "$(dirname "$0")/../lib.sh"
out=$TMP/run
$MPIRUN -np 4 "$GC" run "$ROOT/tests/mpi/plan.cfg" --backend sim --sim-nodes 2 -o "$out" --quiet ||
    die "run failed"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "schema"; }
cat=$out/catalogue.json

# the layout, and the 2.0 copy gccat expands it to (node files alike)
/usr/bin/python3 - "$out" "$TMP/v2" <<'PY' || die "layout"
import json, os, shutil, sys
import gccat
src, dst = sys.argv[1:]
text = open(src + "/catalogue.json").read()
c = json.loads(text)
assert c["schema_version"] == "3.1", c["schema_version"]
lines = text.split("\n")
gpu_lines = [l for l in lines if l.startswith('{"node":')]
assert len(gpu_lines) == len(c["gpus"]) == 4, (len(gpu_lines), len(c["gpus"]))
assert len(c["links"]["rows"]) > 0 and len(c["verdicts"]["rows"]) == 4 + len(c["links"]["rows"]) + 2
assert not any(l.startswith(" ") and len(l) > 20 for l in lines), "indented lines"
assert all(isinstance(v, (int, float, type(None), dict)) for g in c["gpus"] for v in g["parameters"].values())
e = gccat.load(src, points=False)
assert e["schema_version"] == "2.0" and len(e["links"]) == len(c["links"]["rows"])
assert all(p["unit"] for g in e["gpus"] for p in g["parameters"])
os.makedirs(dst)
shutil.copytree(src + "/nodes", dst + "/nodes")
json.dump(gccat.plain(e), open(dst + "/catalogue.json", "w"), indent=1)
print("layout: %d lines, %d GPUs, %d links, %d verdicts" % (len(lines), len(c["gpus"]),
      len(c["links"]["rows"]), len(c["verdicts"]["rows"])))
PY
$VALIDATE "$TMP/v2" > /dev/null || { $VALIDATE "$TMP/v2"; die "the 2.0 copy: schema"; }
for a in "" "--rules $ROOT/configs/rules.cfg"; do
    # shellcheck disable=SC2086
    "$GC" check "$out" $a --json | grep -v '"catalogue"' > "$TMP/c3.json"
    r3=$?
    # shellcheck disable=SC2086
    "$GC" check "$TMP/v2" $a --json | grep -v '"catalogue"' > "$TMP/c2.json"
    [ $? = $r3 ] && [ $r3 -le 2 ] || die "check $a: exit $r3 (3.0), other on 2.0"
    cmp -s "$TMP/c3.json" "$TMP/c2.json" || die "check $a: verdicts of 3.0 and of its 2.0 copy differ"
done
# (the plan measures none of the models' inputs: exit 3, the JSON saying so per GPU)
"$GC" predict "$out" "$ROOT/configs/kernels/vector_add.cfg" --json > "$TMP/p3.all" 2> /dev/null
[ $? = 3 ] || die "predict 3.0: expected exit 3 (no models' inputs)"
"$GC" predict "$TMP/v2" "$ROOT/configs/kernels/vector_add.cfg" --json > "$TMP/p2.all" 2> /dev/null
[ $? = 3 ] || die "predict 2.0: expected exit 3 (no models' inputs)"
grep -v '"catalogue"' "$TMP/p3.all" > "$TMP/p3.json"
grep -v '"catalogue"' "$TMP/p2.all" > "$TMP/p2.json"
[ -s "$TMP/p3.json" ] || die "predict 3.0: no JSON"
cmp -s "$TMP/p3.json" "$TMP/p2.json" || die "predict: 3.0 and its 2.0 copy differ"
echo "ok: check, check --rules and predict read 3.0 as its 2.0 copy"

# errors in the tables: exit 3, the file and the member named
craft() {   # craft NAME PYTHON-STATEMENTS (on the catalogue, as c)
    mkdir -p "$TMP/$1"
    ln -s "$out/nodes" "$TMP/$1/nodes"
    /usr/bin/python3 - "$cat" "$TMP/$1/catalogue.json" "$2" <<'PY' || die "craft $1"
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"))
PY
}
expect() {   # expect NAME MESSAGE [CHECK ARGS]
    name=$1 msg=$2
    shift 2
    "$GC" check "$TMP/$name" "$@" > "$TMP/out" 2>&1
    [ $? = 3 ] || { cat "$TMP/out"; die "$name: not exit 3"; }
    grep -q -- "$msg" "$TMP/out" || { cat "$TMP/out"; die "$name: no message '$msg'"; }
}
craft group 'c["verdicts"]["peer_groups"] = []'
expect group "catalogue.json:[0-9]*: verdicts.rows\[0\]:.*'verdicts.peer_groups'"
craft row 'c["verdicts"]["rows"][1] = [7, "n1"]'
expect row "verdicts.rows\[1\]: a row must be"
craft cls 'c["links"]["classes"] = []'
expect cls "links\[0\]: links.rows\[0\]: 'class', 'src', 'dst'"
craft unit 'c["parameter_units"].pop(next(iter(c["gpus"][0]["parameters"])))'
expect unit "gpus\[0\]: 'parameters\..*': no unit for it in 'parameter_units'" --rules "$ROOT/configs/rules.cfg"
craft version 'c["schema_version"] = "4.0"'
expect version 'schema_version must be "1.x", "2.x" or "3.x"'
echo "ok: peer group, verdict row, link class, parameter unit and version errors named"

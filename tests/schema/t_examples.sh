#!/bin/sh
# The real catalogues the tests read (tests/data/) against today's
# results-schema/: every catalogue.json and node file (nodes/*.json, gzipped
# nodes/*.json.gz) of tests/data/examples, tests/data/fleet and
# tests/data/schema1 is valid, except the few listed below with the reason
# (older catalogues the schema has since moved past), which are left out.
# The examples are of the schema gpucensus writes today, of real GPUs, and
# tests/data/MANIFEST lists every catalogue of tests/data, no more, no less.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema"

# left out, with why: a both-ways P2P context, "both_ranks_at_once", that
# the schema no longer has (both ways is "each_loaded" since)
known_bad="
tests/data/fleet/h200x2-2026-11-26-e2a563f-default/nodes/vm.json.gz
tests/data/schema1/h200x2-p2p/catalogue.json
tests/data/schema1/h200x2-p2p/nodes/vm.json
"
for f in $known_bad; do
    [ -f "$f" ] || die "$f: listed as left out, and not there"
    echo "left out: $f (both_ways 'both_ranks_at_once': a context the schema no longer has)"
done

: > "$TMP/files"
for d in tests/data/examples/*/ tests/data/fleet/*/ tests/data/schema1/*/; do
    d=${d%/}
    [ -f "$d/catalogue.json" ] || die "$d: no catalogue.json"
    for f in "$d/catalogue.json" "$d"/nodes/*.json "$d"/nodes/*.json.gz; do
        [ -f "$f" ] || continue
        case "$known_bad" in *"
$f
"*) continue ;; esac
        echo "$f" >> "$TMP/files"
    done
done
n=$(wc -l < "$TMP/files")
[ "$n" -ge 200 ] || die "only $n files under tests/data"
# shellcheck disable=SC2046
"$VALIDATE" $(cat "$TMP/files") > "$TMP/v.out" 2>&1 ||
    { grep -v '^valid ' "$TMP/v.out"; die "tests/data: not valid against results-schema/"; }
echo "ok: $n files of tests/data valid against results-schema/"

# the examples: real GPUs, default plan, the schema of today's writer
/usr/bin/python3 - <<'PY' || die "tests/data/examples"
import glob, json, re
want = re.search(r'GC_SCHEMA_VERSION "([0-9.]+)"', open("src/write/catalogue.h").read()).group(1)
ex = sorted(glob.glob("tests/data/examples/*/catalogue.json"))
assert len(ex) >= 2, ex
skus = set()
for f in ex:
    c = json.load(open(f))
    assert c["schema_version"] == want, (f, c["schema_version"], want)
    assert c["run"]["backend"] == "cuda", (f, c["run"]["backend"])
    assert c["run"]["plan_name"] == "default", (f, c["run"]["plan_name"])
    skus |= {g["identity"]["name"] for g in c["gpus"]}
assert any("H100" in s for s in skus) and any("H200" in s for s in skus), skus
print("ok: %d examples, schema %s, real GPUs (%s), default plan" % (len(ex), want, ", ".join(sorted(skus))))
PY

# tests/data/MANIFEST: one line per catalogue, its path first
grep -v '^#' tests/data/MANIFEST | cut -f1 | sort > "$TMP/manifest"
for d in tests/data/*/*/catalogue.json; do dirname "$d"; done | sort > "$TMP/have"
diff "$TMP/manifest" "$TMP/have" > "$TMP/m.diff" || { cat "$TMP/m.diff"; die "tests/data/MANIFEST does not list the catalogues of tests/data"; }
echo "ok: tests/data/MANIFEST lists its $(wc -l < "$TMP/have") catalogues"

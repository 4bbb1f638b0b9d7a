#!/bin/sh
# check --prometheus FILE: node_exporter textfile metrics of a sim run with
# one degraded GPU (n2/gpu1, HBM at 80%), read back by two real parsers of
# the format: promtool's linter (Prometheus itself, Debian's prometheus
# package) and prometheus_client's text parser (python3-prometheus-client),
# which must find the verdicts, the parameters in base units and the census
# time with their values. The file is replaced atomically: a reader never
# sees half of it, and a failed write leaves the previous file.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
PY=/usr/bin/python3
command -v promtool >/dev/null || skip "no promtool (Debian package prometheus; tools/deps.sh test)"
$PY -c 'import prometheus_client' 2>/dev/null || skip "no python3-prometheus-client"

sed -e 's|gpus_per_node = 2; };|gpus_per_node = 2;\n  faults = ( { node = "n2"; gpu = 1; metric = "hbm_bw"; kind = "scale"; factor = 0.8; } ); };|' \
    -e "s|\"../../configs/sim/|\"$ROOT/configs/sim/|" tests/ops/ops.cfg > "$TMP/sick.cfg"
$MPIRUN -np 4 "$GC" run "$TMP/sick.cfg" --backend sim -o "$TMP/run" --quiet || die "census"

mkdir -p "$TMP/textfile"
PROM=$TMP/textfile/gpucensus.prom
echo "old" > "$PROM"
"$GC" check "$TMP/run" --prometheus "$PROM" > "$TMP/check.out"
[ $? = 2 ] || { cat "$TMP/check.out"; die "check: expected 2 (n2/gpu1 degraded)"; }
ls -la "$TMP/textfile"
[ "$(ls "$TMP/textfile")" = gpucensus.prom ] || die "temporary files left beside the metrics"
[ "$(stat -c %a "$PROM")" = 644 ] || die "mode $(stat -c %a "$PROM"): node_exporter must read it"
promtool check metrics < "$PROM" || die "promtool check metrics"
$PY - "$PROM" "$TMP/run/catalogue.json" <<'PY' || die "metrics"
import json, sys, calendar, time
from prometheus_client.parser import text_string_to_metric_families
import gccat
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
cat = gccat.load(sys.argv[2], points=False)   # schema 3 read as 2.0
def samples(name):
    return {tuple(sorted(s.labels.items())): s.value for s in fams[name].samples}
for name in ("gpucensus_gpu_verdict", "gpucensus_link_verdict", "gpucensus_node_verdict",
             "gpucensus_census_start_timestamp_seconds", "gpucensus_gpu_hbm_bandwidth_bytes_per_second",
             "gpucensus_gpu_launch_seconds", "gpucensus_link_bandwidth_bytes_per_second",
             "gpucensus_link_latency_seconds"):
    assert name in fams and fams[name].type == "gauge", name
v = {(dict(k)["node"], dict(k)["gpu"]): x for k, x in samples("gpucensus_gpu_verdict").items()}
assert len(v) == 4 and v[("n2", "1")] == 2 and all(x == 0 for k, x in v.items() if k != ("n2", "1")), v
nodes = {dict(k)["node"]: x for k, x in samples("gpucensus_node_verdict").items()}
assert nodes == {"n1": 0, "n2": 2}, nodes
links = samples("gpucensus_link_verdict")
assert len(links) == len(cat["links"]), (len(links), len(cat["links"]))
# one label per dimension of a link's class, as the catalogue's link has them
dims = ("kind", "bench", "direction", "memory", "engine")
for k in links:
    d = dict(k)
    assert "class" not in d and all(x in d for x in dims), d
want = sorted((l["kind"], l["benchmark"], l["direction"], l["memory"], l.get("engine") or "") for l in cat["links"])
got = sorted(tuple(dict(k)[x] for x in dims) for k in links)
assert got == want, (got[:3], want[:3])
t = samples("gpucensus_census_start_timestamp_seconds")
start = calendar.timegm(time.strptime(cat["run"]["start_time"], "%Y-%m-%dT%H:%M:%SZ"))
assert list(t.values()) == [start], (t, start)
par = {(g["node"], str(g["index"])): {p["name"]: p["value"] for p in g["parameters"]} for g in cat["gpus"]}
hbm = samples("gpucensus_gpu_hbm_bandwidth_bytes_per_second")
launch = samples("gpucensus_gpu_launch_seconds")
for k, x in hbm.items():
    d = dict(k)
    assert d["uuid"].startswith("GPU-") and d["sku"].endswith("(sim)"), d
    want = par[(d["node"], d["gpu"])]["hbm_bw_bps"]
    assert abs(x - want) <= 1e-9 * want, (d, x, want)
for k, x in launch.items():   # ns in the catalogue, seconds here
    d = dict(k)
    want = par[(d["node"], d["gpu"])]["launch_ns"] * 1e-9
    assert abs(x - want) <= 1e-9 * want and 1e-7 < x < 1e-3, (x, want)
beta = samples("gpucensus_link_bandwidth_bytes_per_second")
models = sorted(l["model"]["beta_bps"] for l in cat["links"] if l.get("model"))
assert len(beta) == len(models) and all(abs(a - b) <= 1e-9 * b for a, b in zip(sorted(beta.values()), models)), "betas"
sick = [x for k, x in hbm.items() if dict(k)["node"] == "n2" and dict(k)["gpu"] == "1"][0]
well = [x for k, x in hbm.items() if dict(k)["node"] == "n1"][0]
assert 0.75 < sick / well < 0.85, sick / well
print("metrics: %d families, %d GPU verdicts, %d link verdicts, n2/gpu1 HBM %.0f%% of n1's"
      % (len(fams), len(v), len(links), 100 * sick / well))
PY

# a label value with a quote, a backslash and a newline is escaped
$PY - "$TMP/run/catalogue.json" "$TMP/odd.json" <<'PY' || die "crafting"
import json, sys
cat = json.load(open(sys.argv[1]))
for g in cat["gpus"]:
    g["identity"]["name"] = 'H100 "odd" \\ name\nline2'
json.dump(cat, open(sys.argv[2], "w"), indent=1)
PY
"$GC" check "$TMP/odd.json" --prometheus "$TMP/odd.prom" > /dev/null
promtool check metrics < "$TMP/odd.prom" || die "promtool: escaped labels"
$PY - "$TMP/odd.prom" <<'PY' || die "escaped labels"
import sys
from prometheus_client.parser import text_string_to_metric_families
skus = {s.labels["sku"] for f in text_string_to_metric_families(open(sys.argv[1]).read())
        for s in f.samples if "sku" in s.labels}
assert skus == {'H100 "odd" \\ name\nline2'}, skus
print("labels escaped and read back:", skus)
PY

# a failed write leaves the previous file whole (root writes anyway: then
# only the missing directory is tried)
sum=$(sha256sum "$PROM")
chmod 555 "$TMP/textfile"
if [ ! -w "$TMP/textfile" ] || [ "$(id -u)" != 0 ]; then
    "$GC" check "$TMP/run" --prometheus "$PROM" > /dev/null 2> "$TMP/ro.err"
    [ $? = 3 ] || die "unwritable directory: expected exit 3"
    grep -q "gpucensus.prom" "$TMP/ro.err" || die "the error names the file"
    [ "$(sha256sum "$PROM")" = "$sum" ] || die "the previous metrics changed"
fi
chmod 755 "$TMP/textfile"
"$GC" check "$TMP/run" --prometheus "$TMP/nodir/x.prom" > /dev/null 2> "$TMP/nodir.err"
[ $? = 3 ] || die "missing directory: expected exit 3"
echo "ok: check --prometheus: promtool and prometheus_client read the verdicts, parameters and time"

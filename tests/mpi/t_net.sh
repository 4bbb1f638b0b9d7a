#!/bin/sh
# Transfers end to end on 4 real MPI ranks (2 simulated nodes of 2 GPUs):
# net items move real bytes through MPI between the nodes' ranks (sim for
# the GPU side only); every link kind gets a record with a fitted model;
# the injected faults show in the links (x8 host link: half the nominal;
# one NVLink down: 17 links); schema valid; merge rebuilds the same files.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/mpi/net.cfg
out=$TMP/net
$MPIRUN -np 4 "$GC" run "$plan" --backend sim -o "$out" --quiet || die "run failed"
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
"$GC" merge "$out/shards" -o "$out/merged" >/dev/null || die "merge"
/usr/bin/python3 "$ROOT/tests/mpi/same.py" "$out" "$out/merged" || die "merged != gathered"
/usr/bin/python3 - "$out/catalogue.json" <<'PY' || die "links"
import json, sys
import gccat
d = gccat.load(sys.argv[1])
links = d["links"]
def pick(**kw):
    return [l for l in links if all(l.get(k) == v for k, v in kw.items())]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
kinds = {l["kind"] for l in links}
need(kinds == {"pcie", "nvlink", "p2p_staged", "network"}, "kinds %s" % sorted(kinds))
for l in links:
    m = l["model"]
    need(m is not None and m["beta_bps"] and m["alpha_s"] is not None, "model of %s" % l["kind"])
# net: real bytes through MPI, both partners across nodes, every size sampled
net = pick(kind="network")
need(len(net) >= 2, "net links %d" % len(net))
for l in net:
    need(l["src"]["node"] != l["dst"]["node"] and l["dst"]["uuid"], "net endpoints %s" % l["dst"])
    need(all(s["count"] > 0 for s in l["sizes"]) and len(l["sizes"]) == 11, "net sizes")
    need(l["nominal_bps"] is None and l["lambda"] is None, "net nominal")
# pinned h2d: lambda near the profile's 55 / 63 (x 0.7 on the slow NUMA node), the x8
# GPU at half the nominal
for l in pick(kind="pcie", direction="h2d", concurrent=False):
    g = (l["measured_on"]["node"], l["measured_on"]["gpu_index"])
    nom = 63.0e9 / (2 if g == ("n1", 1) else 1)
    need(abs(l["nominal_bps"] - nom) / nom < 0.01, "nominal %s %s" % (g, l["nominal_bps"]))
    need(0.5 < l["lambda"] < 1.0, "lambda %s %s" % (g, l["lambda"]))
    need(l["model"]["max_rel_residual"] < 0.1, "residual %s %s" % (g, l["model"]["max_rel_residual"]))
# bidir counts both directions' bytes: beta above one direction's
for l in pick(kind="pcie", direction="bidir", concurrent=False):
    need(l["model"]["beta_bps"] > 63e9 * 1.1 / (2 if (l["measured_on"]["node"], l["measured_on"]["gpu_index"]) == ("n1", 1) else 1), "bidir beta")
# concurrent links name their share of the isolated bandwidth
for l in pick(concurrent=True):
    need(l["share"] is not None and 0.3 < l["share"] < 1.3, "share %s" % l["share"])
# NVLink: 18 links, 17 where one is down; peer access off is staged
for l in pick(kind="nvlink"):
    down = l["measured_on"]["node"] == "n2" and 0 in (l["src"]["gpu_index"], l["dst"]["gpu_index"])
    need(l["nominal_basis"].startswith("%d NVLinks" % (17 if down else 18)), "nvlink basis %s" % l["nominal_basis"])
need(len(pick(kind="p2p_staged")) == 4, "staged links")
for g in d["gpus"]:
    p = g["properties"]
    need(p["pcie"]["width"] == (8 if (g["node"], g["index"]) == ("n1", 1) else 16), "pcie width %s" % p["pcie"])
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d links checked" % len(links))
PY
# n1's shards alone, no roster: its net links point to n2's GPUs, which no
# shard names; merge leaves them out and says so, and check reads what it wrote
mkdir -p "$TMP/half" && cp "$out"/shards/n1*.gcs "$TMP/half/" || die "n1's shards"
"$GC" merge "$TMP/half" -o "$TMP/half.out" >/dev/null 2>"$TMP/half.err" || { cat "$TMP/half.err"; die "merge of n1"; }
grep -q "left out [1-9][0-9]* link(s) whose other end is no GPU of" "$TMP/half.err" || { cat "$TMP/half.err"; die "dropped links not said"; }
"$GC" check "$TMP/half.out" >"$TMP/half.check" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/half.check"; die "check of the merged n1: exit $rc"; }
$VALIDATE "$TMP/half.out" >/dev/null || { $VALIDATE "$TMP/half.out"; die "schema of the merged n1"; }
echo "ok: transfers on 4 ranks"

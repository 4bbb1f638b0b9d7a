#!/bin/sh
# A slow NIC is blamed on its node, not on its partners (tests/mpi/
# net_blame.cfg): 5 real MPI ranks on 5 simulated nodes, net items only,
# node n3's NIC 10x slower than the others'. After the net phase each side
# of every slow pair is measured again against a node with good results
# (points marked net_check), and the verdicts name n3 as the slow side;
# the other nodes stay free of network blame. Asserts only on the planted
# fault (10x), whatever the load of the machine.
. "$(dirname "$0")/../lib.sh"
out=$TMP/blame
$MPIRUN -np 5 "$GC" run "$ROOT/tests/mpi/net_blame.cfg" --backend sim -o "$out" --quiet \
    > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
# every rank did its plan's items and its re-measures (check.py allows those
# only when points say net_check)
"$GC" plan "$ROOT/tests/mpi/net_blame.cfg" --ranks 5 --nodes 5 > "$TMP/plan.txt" || die "plan listing"
/usr/bin/python3 "$ROOT/tests/mpi/check.py" "$out" "$TMP/plan.txt" || die "catalogue vs plan"
/usr/bin/python3 - "$out" <<'PY' || die "blame"
import json, sys, glob, statistics
import gccat
out = sys.argv[1]
d = gccat.load(out)
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
net = [l for l in d["links"] if l["kind"] == "network"]
top = lambda l: l["sizes"][-1]["bandwidth_p50_bps"]
with3 = [top(l) for l in net if "n3" in (l["src"]["node"], l["dst"]["node"])]
others = [top(l) for l in net if "n3" not in (l["src"]["node"], l["dst"]["node"])]
need(len(with3) >= 4 and len(others) >= 6, "net links %d with n3, %d without" % (len(with3), len(others)))
need(max(with3) < 0.3 * statistics.median(others), "n3's links %s vs others %s" % (with3, others))
# the checks ran: points measured again, n3 among the sides
checked = set()
for f in glob.glob(out + "/nodes/*.json"):
    for g in json.load(open(f))["gpus"]:
        for r in g["results"]:
            if r["context"].get("net_check") == "remeasure":
                checked.add(g["node"])
need("n3" in checked and len(checked) >= 3, "nodes measured again: %s" % sorted(checked))
nodes = {v["subject"]: v for v in d["verdicts"] if v["type"] == "node"}
n3 = nodes.get("n3")
need(n3 and n3["verdict"] in ("suspect", "degraded"), "n3 verdict %s" % (n3 and n3["verdict"]))
side = [r for r in (n3 or {}).get("reasons", []) if r["rule"] == "net_side"]
need(side and all(r["detail"].startswith("n3 is the slow side") for r in side), "n3 reasons %s" % (n3 and n3["reasons"]))
for name, v in nodes.items():
    if name != "n3":
        need(not [r for r in v["reasons"] if r["rule"] == "net_side"], "%s blamed: %s" % (name, v["reasons"]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("n3 blamed by %d reasons; %d links checked" % (len(side), len(net)))
PY
echo "ok: a slow NIC is blamed on its node"

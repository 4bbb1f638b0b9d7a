#!/bin/sh
# The host chase per NUMA node in the sim (tests/mpi/numa_chase.cfg, 4
# ranks on a host of 2 NUMA nodes): every GPU reads each node's memory
# (numa_node 0 and 1 of numa_nodes 2, landed where bound), the far node
# further than the near one, the link's latency_chase is the near node's
# chase, a slowed NUMA path (GPU 3) reads slower on both nodes, and the
# catalogue validates. The cuda backend's loop (cuda_xfer.c host_chase_numa)
# writes the same points; every GPU host we got had one node.
. "$(dirname "$0")/../lib.sh"
out=$TMP/numa
$MPIRUN -np 4 "$GC" run "$ROOT/tests/mpi/numa_chase.cfg" --backend sim -o "$out" --quiet > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
/usr/bin/python3 - "$out" <<'PY' || die "per-node chases"
import sys
import gccat
d = gccat.load(sys.argv[1])
near_of = {}
for g in d["gpus"]:
    gi, near = g["index"], g["properties"]["numa_node"]
    assert near == (0 if gi < 2 else 1), (gi, near)
    lat = {}
    for r in g["results"]:
        if r["benchmark"] == "xfer" and r["metric"] == "latency_ns":
            x = r["context"]
            assert x["numa_nodes"] == 2 and x["numa_landed"] == x["numa_node"], x
            lat[(int(x["numa_node"]), x["order"])] = r["summary"]["p50"]
    assert sorted(lat) == [(0, "random"), (0, "sequential"), (1, "random"), (1, "sequential")], lat
    for o in ("random", "sequential"):
        n, f = lat[(near, o)], lat[(1 - near, o)]
        assert f > n * 1.05, (gi, o, n, f)   # the far node: 120 ns further in the sim
    near_of[gi] = (lat[(near, "random")], lat[(1 - near, "random")])
# GPU 3's NUMA path x 0.8: 1 / 0.8 the latency of GPU 2 (same node) on both nodes
for k in range(2):
    r = near_of[3][k] / near_of[2][k]
    assert 1.15 < r < 1.35, (k, r)
links = [l for l in d["links"] if l["benchmark"] == "xfer" and l.get("latency_chase_ns") is not None]
assert len(links) == 4, len(links)
for l in links:
    gi = l["dst"]["gpu_index"] if l["dst"]["type"] == "gpu" else l["src"]["gpu_index"]
    near, far = near_of[gi]
    assert abs(l["latency_chase_ns"] - near) < 0.02 * near < far - near, (gi, l["latency_chase_ns"], near, far)
print("ok")
PY
echo "t_numa_chase: 4 GPUs read both NUMA nodes' memory, far node slower, links take the near node's chase"

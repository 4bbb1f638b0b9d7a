#!/bin/bash
# One call on the GPU machine for the transfer tests (issue 4): build, run
# lab/gpu/xfer.cfg on every GPU (one rank per GPU, all GPUs visible to
# every rank), time it, keep the catalogue, shards and logs under $OUT as
# three files (results.tgz, logs.tgz, links.txt: the device tool brings
# back at most 8 files).
#   OUT=/some/dir lab/gpu/xfer_run.sh [PLAN...]   (default lab/gpu/xfer.cfg)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-xfer}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/xfer_run.log") 2>&1
mkdir -p /opt/deps && for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GC_SKIP_DEPS=1
export PYTHONPATH="$(pwd)/tools${PYTHONPATH:+:$PYTHONPATH}"   # tools/gccat.py: catalogues with their points
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -q > "$OUT/log/nvidia-smi-q.txt" 2>&1
nvidia-smi topo -m > "$OUT/log/topo.txt" 2>&1
nvidia-smi nvlink -s > "$OUT/log/nvlink.txt" 2>&1
# the copied tree may hold a stale .git: .gitcommit names the commit that runs
GITC=$(cat .gitcommit 2>/dev/null)
[ -d build/kernels ] && touch build/kernels/*.o
t0=$(date +%s)
make -j16 ${GITC:+GIT_COMMIT=$GITC} LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr SQLITE_PREFIX=/opt/deps/usr all > "$OUT/log/build.log" 2>&1 \
    || { tail -40 "$OUT/log/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
[ $# -gt 0 ] || set -- lab/gpu/xfer.cfg
for plan in "$@"; do
    b=$(basename "$plan" .cfg)
    s=$(date +%s)
    timeout 400 mpirun -np "$ngpu" --bind-to none build/gpucensus run "$plan" --backend cuda \
        -o "$OUT/res/$b" --progress=json > "$OUT/log/$b.log" 2> "$OUT/log/$b.progress" 
    echo "$b on $ngpu GPUs: exit $? wall $(( $(date +%s) - s )) s"
    tail -5 "$OUT/log/$b.log"
done
python3 - "$OUT/res" <<'PY' 2>&1 | tee "$OUT/links.txt"
import json, sys, glob
import gccat
G = 1e9
for c in sorted(glob.glob(sys.argv[1] + "/*/catalogue.json")):
    d = gccat.load(c)
    print("==", c.split("/")[-2], "run", d["run"].get("start_time"), "->", d["run"].get("end_time"))
    for g in d["gpus"]:
        print(g["node"], g["index"], g["identity"]["name"], g["properties"].get("pcie"), g["properties"].get("nvlink"), g["status"], g["status_reason"])
    for l in d.get("links", []):
        m = l.get("model") or {}
        over = [s["size_bytes"] for s in l["sizes"] if s.get("over_nominal")]
        print("%-10s %-6s %-8s %-3s %-3s %s->%s beta=%s GB/s alpha=%s us nominal=%s lambda=%s maxrel=%s chase=%s ns over=%s" % (
            l.get("kind"), l.get("direction"), l.get("memory"), l.get("engine"), l.get("peer_access"),
            l["src"].get("gpu_index"), l["dst"].get("gpu_index"),
            round(m["beta_bps"] / G, 2) if m.get("beta_bps") else None,
            round(m["alpha_s"] * 1e6, 2) if m.get("alpha_s") else None,
            round(l["nominal_bps"] / G, 1) if l.get("nominal_bps") else None,
            round(l["lambda"], 3) if l.get("lambda") else None, m.get("max_rel_residual"),
            l.get("latency_chase_ns"), over))
        if l.get("latency_chase"):
            print("    chase", l["latency_chase"])
        for s in l["sizes"]:
            big = s["size_bytes"] >= 2**24
            if l["direction"] == "bidir" and l["kind"] in ("nvlink", "p2p_staged") and big:
                print("    %12d total %.1f GB/s  to %.1f  from %.1f  sum %.1f" % (s["size_bytes"], s["bandwidth_p50_bps"] / G,
                      (s["bandwidth_to_peer_p50_bps"] or 0) / G, (s["bandwidth_from_peer_p50_bps"] or 0) / G,
                      ((s["bandwidth_to_peer_p50_bps"] or 0) + (s["bandwidth_from_peer_p50_bps"] or 0)) / G))
            if l["kind"] == "pcie" and l["memory"] == "pinned" and l["direction"] == "h2d" and s["size_bytes"] in (33554432, 67108864, 134217728):
                print("    h2d %s %s %12d p5 %.3f p50 %.3f p95 %.3f ms  %.1f GB/s" % (l["engine"], "conc" if l["concurrent"] else "iso",
                      s["size_bytes"], s["time_p5_s"] * 1e3, s["time_p50_s"] * 1e3, s["time_p95_s"] * 1e3, s["bandwidth_p50_bps"] / G))
    for g in d["gpus"]:
        flagged = [(r["benchmark"], r["context"].get("size_bytes"), r["context"].get("direction")) for r in g.get("results", []) if "over_nominal" in r.get("flags", [])]
        if flagged:
            print("over_nominal points gpu", g["index"], flagged[:20])
PY
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log && rm -rf "$OUT/log"

#!/bin/bash
# One call on the GPU machine for the transfer tests (issue 4): build, run
# tests/gpu/xfer.cfg on every GPU (one rank per GPU, all GPUs visible to
# every rank), time it, keep the catalogue, shards and logs under $OUT.
#   OUT=/some/dir tests/gpu/xfer_run.sh [PLAN...]   (default tests/gpu/xfer.cfg)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-xfer}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/xfer_run.log") 2>&1
mkdir -p /opt/deps && for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GC_SKIP_DEPS=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -q > "$OUT/log/nvidia-smi-q.txt" 2>&1
nvidia-smi topo -m > "$OUT/log/topo.txt" 2>&1
nvidia-smi nvlink -s > "$OUT/log/nvlink.txt" 2>&1
[ -d build/kernels ] && touch build/kernels/*.o
t0=$(date +%s)
make -j16 LIBCONFIG_PREFIX=/opt/deps/usr JANSSON_PREFIX=/opt/deps/usr all > "$OUT/log/build.log" 2>&1 \
    || { tail -40 "$OUT/log/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
[ $# -gt 0 ] || set -- tests/gpu/xfer.cfg
for plan in "$@"; do
    b=$(basename "$plan" .cfg)
    s=$(date +%s)
    timeout 400 mpirun -np "$ngpu" --bind-to none build/gpucensus run "$plan" --backend cuda \
        -o "$OUT/res/$b" > "$OUT/log/$b.log" 2>&1
    echo "$b on $ngpu GPUs: exit $? wall $(( $(date +%s) - s )) s"
    tail -5 "$OUT/log/$b.log"
done
python3 - "$OUT/res" <<'PY' 2>&1 | tee "$OUT/log/links.txt"
import json, sys, glob
for c in glob.glob(sys.argv[1] + "/*/catalogue.json"):
    d = json.load(open(c))
    for g in d["gpus"]:
        print(g["node"], g["index"], g["identity"]["name"], g["properties"].get("pcie"), g["properties"].get("nvlink"), g["status"], g["status_reason"])
    for l in d.get("links", []):
        m = l.get("model") or {}
        print("%-8s %-6s %-8s %-3s src=%s dst=%s beta=%s GB/s alpha=%s us nominal=%s lambda=%s r2=%s maxrel=%s" % (
            l.get("kind"), l.get("direction"), l.get("memory"), l.get("engine"),
            l["src"].get("gpu_index"), l["dst"].get("gpu_index"),
            round(m.get("beta_bps", 0) / 1e9, 2) if m.get("beta_bps") else None,
            round(m.get("alpha_s", 0) * 1e6, 2) if m.get("alpha_s") else None,
            round(l["nominal_bps"] / 1e9, 1) if l.get("nominal_bps") else None,
            l.get("lambda"), m.get("r2"), m.get("max_rel_residual")))
PY
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"
tar czf "$OUT/logs.tgz" -C "$OUT" log

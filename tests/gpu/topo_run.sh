#!/bin/bash
# One call on a GPU machine of two or more GPUs (issue 19 items 1 and 3):
# build; the quick plan on every GPU (its P2P links screened for measuring
# again before blaming: with 2 GPUs an item has 2 links, fewer than the
# peers rule needs, so none is picked); each GPU's PCIe switch and NUMA
# node as the catalogue records them, beside the sysfs path they come from
# and nvidia-smi's topology; `check` of the census. Changes no GPU setting.
#   OUT=/some/dir GIT_COMMIT=abc tests/gpu/topo_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucensus-topo}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log/topo_run.log") 2>&1
. tests/gpu/device_lib.sh
nvidia-smi topo -m | tee "$OUT/log/topo.txt"
census quick configs/quick.cfg
grep -i "measured again\|error" "$OUT/log/quick.log"
python3 - "$OUT/res/quick/catalogue.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    bus = g["identity"]["pci_bus_id"]
    path = os.path.realpath("/sys/bus/pci/devices/" + bus.lower()[-12:])
    print(f'{g["node"]}/gpu{g["index"]} {bus}: pcie.switch {g["properties"]["pcie"]["switch"]}, '
          f'numa_node {g["properties"]["numa_node"]}; sysfs {path}')
links = [l for l in d["links"] if l["benchmark"] == "p2p"]
print(f'{len(links)} P2P links, {sum("remeasured_bandwidth_bps" in l for l in links)} measured again')
PY
$GC check "$OUT/res/quick" > "$OUT/log/quick-check.txt" 2>&1
echo "check: exit $?"; grep -v '^ *$' "$OUT/log/quick-check.txt" | head -n 12
tar czf "$OUT/results.tgz" -C "$OUT" res && rm -rf "$OUT/res"

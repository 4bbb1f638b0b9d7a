#!/bin/sh
# gpucensus predict on a sim catalogue: a run with real MPI ranks of a plan
# that measures every model input and the validation suite; the catalogue
# (with its models) validates against the schema; each GPU has both models'
# parameters, lambda, errors and 19 validation rows consistent with the
# GPU's derived parameters; predict's table and --json for the example
# descriptions and for a validation kernel (the same numbers as the
# catalogue's validation row); the lambda predict uses is the run's (the
# catalogue's validation kernels predicted by this build: one definition);
# the same predictions from a catalogue without models (recomputed from
# the parameters), uncalibrated without its node files; --bytes on every link;
# clear errors for bad input.
. "$(dirname "$0")/../lib.sh"
plan=$ROOT/tests/cli/predict.cfg
out=$TMP/run
$MPIRUN -np 2 "$GC" run "$plan" --backend sim -o "$out" --quiet || die "sim run"
$VALIDATE "$out" > /dev/null || { $VALIDATE "$out"; die "schema"; }
cat="$out/catalogue.json"

# 1. the models in the catalogue
/usr/bin/python3 - "$cat" <<'EOF' || die "catalogue models"
import json, sys
import gccat
c = gccat.load(sys.argv[1])   # the validation rows and sources are in the node files
top = c["models"]
assert top["descriptions"] == 19 and top["gpus"] == 2 and top["gpus_validated"] == 2, top
assert top["description_error"] is None, top
def rel(a, b): return abs(a - b) / abs(b)
for g in c["gpus"]:
    m, dp = g["models"], {p["name"]: p["value"] for p in g["parameters"]}
    mw = {p["name"]: p for p in m["mwp_cwp"]["parameters"]}
    ll = {p["name"]: p for p in m["littles_law"]["parameters"]}
    # each parameter from its measurement
    assert rel(mw["mem_ld_cycles"]["value"], dp["dram_latency_cycles"]) < 1e-9
    assert rel(mw["departure_del_coal_cycles"]["value"], dp["departure_coal_slope_cycles_per_requests"]) < 1e-9
    assert rel(mw["departure_del_uncoal_cycles"]["value"] * 32, dp["departure_uncoal_slope_cycles_per_requests"]) < 1e-9
    assert rel(mw["issue_cycles"]["value"], 32 / dp["inst_f32_fma_throughput_ops_per_cycle_per_sm"]) < 1e-9
    assert rel(mw["mem_bandwidth_read_bps"]["value"], dp["hbm_read_bps"]) < 1e-9
    assert rel(mw["launch_overhead_ns"]["value"], dp["launch_ns"]) < 1e-9
    assert mw["freq_hz"]["value"] == 1980e6 and "sm_clock_mhz_measured" in mw["freq_hz"]["source"]
    assert ll["schedulers_per_sm"]["value"] == 4 and ll["cuda_cores_per_sm"]["value"] > 100
    assert rel(ll["gmem_bytes_per_cycle_per_sm"]["value"], dp["hbm_read_bps"] / (132 * 1980e6)) < 1e-9
    for p in list(mw.values()) + list(ll.values()):
        assert p["value"] is not None and p["value"] > 0 and p["source"], p
    rows = m["validation"]
    assert len(rows) == 19 and all(r["error"] is None for r in rows), rows
    reg = {r["kernel"]: r["regime"] for r in rows}
    assert reg["saxpy_a1"] == "memory" and reg["saxpy_a4096"] == "compute" and reg["occ_w2"] == "latency", reg
    for k in ("mwp_cwp", "littles_law"):
        e = m[k]["errors"]
        for kind in ("raw", "calibrated"):
            n = [e[kind][r]["n"] for r in ("compute", "memory", "latency")]
            assert e[kind]["all"]["n"] == 19 and sum(n) == 19, e
        assert 0 < m[k]["lambda"] and m[k]["lambda_kernels"] == 19, m[k]
        # calibrated rows: floor + (raw - floor) / leave-one-out lambda
        f = mw["launch_overhead_ns"]["value"]
        for r in rows:
            want = f + (r[k + "_ns"] - f) / r[k + "_loo_lambda"]
            assert rel(r[k + "_calibrated_ns"], want) < 1e-6, (r, want)
    # the sim's hidden truth is neither model: Little's law, calibrated,
    # within 15% on average; MWP-CWP misses the low-occupancy kernels
    le = m["littles_law"]["errors"]["calibrated"]["all"]["mape"]
    me = m["mwp_cwp"]["errors"]["calibrated"]["all"]["mape"]
    assert 0.02 < le < 0.15 and me > le, (le, me)
    assert m["better_model"] == "littles_law"
    print("%s gpu %d: lambda mwp %.3f little %.3f; calibrated mape mwp %.3f little %.3f" %
          (g["node"], g["index"], m["mwp_cwp"]["lambda"], m["littles_law"]["lambda"], me, le))
EOF

# 2. predict: the table and --json for the example descriptions
for k in "$ROOT"/configs/kernels/*.cfg; do
    "$GC" predict "$cat" "$k" > "$TMP/table.txt" || die "predict $k"
    grep -q "^kernel $(basename "$k" .cfg) " "$TMP/table.txt" || { cat "$TMP/table.txt"; die "table header $k"; }
    grep -q "^    bound by \(memory\|compute\|latency\|launch\): " "$TMP/table.txt" || { cat "$TMP/table.txt"; die "bound line $k"; }
    grep -q "^MWP-CWP: a reference model that does not fit these kernels: " "$TMP/table.txt" || { cat "$TMP/table.txt"; die "MWP-CWP's note $k"; }
    [ "$(grep -c 'NVIDIA H200 (sim).*recomputed' "$TMP/table.txt")" = 2 ] || { cat "$TMP/table.txt"; die "table rows $k"; }
    [ "$(grep -c '^    lambda MWP-CWP [0-9.]*, Little [0-9.]*: 19 validation kernels measured in the catalogue, predicted by this build' "$TMP/table.txt")" = 2 ] ||
        { cat "$TMP/table.txt"; die "lambda lines $k"; }
    "$GC" predict "$cat" "$k" --json > "$TMP/$(basename "$k").json" || die "predict --json $k"
done
# which parameters drove it, for kernels of loops and scattered accesses:
# a grid-stride reduction waits for its 16 loads one after the other
# (bound by latency, at the latency measured with its requests in flight);
# a naive transpose by its scattered stores' cycles per sector
"$GC" predict "$cat" "$ROOT/configs/kernels/heldout/held_reduce_shfl.cfg" > "$TMP/rs.txt" || die "predict reduce_shfl"
grep -q "^    bound by latency: 64 warps/SM over [0-9]* cycles a warp (critical path [0-9]* with 16 dependent loads at dram_inflight_latency_cycles_n[0-9]* [0-9]*, [0-9.]* requests in flight per SM" "$TMP/rs.txt" ||
    { cat "$TMP/rs.txt"; die "reduce_shfl's bound"; }
"$GC" predict "$cat" "$ROOT/configs/kernels/heldout/held_reduce_shfl.cfg" --json > "$TMP/rs.json" || die "predict --json reduce_shfl"
"$GC" predict "$cat" "$ROOT/configs/kernels/heldout/held_transpose_naive.cfg" > "$TMP/tn.txt" || die "predict transpose"
grep -q "^    bound by memory: the lsu term, [0-9.]* cycles/warp at scatter_store_sector_cycles " "$TMP/tn.txt" ||
    { cat "$TMP/tn.txt"; die "transpose's bound"; }
/usr/bin/python3 - "$TMP/rs.json" <<'EOF' || die "predict --json: the loaded latency"
import json, sys
for g in json.load(open(sys.argv[1]))["gpus"]:
    l = g["littles_law"]
    assert l["gmem_latency_param"].startswith("dram_inflight_latency_cycles_n"), l
    assert 0 < l["inflight_per_sm"] <= 64 and l["gmem_latency_cycles"] > 0 and l["dram_wait_cycles"] == 0, l
    assert g["bound"]["kind"] == "latency", g["bound"]
EOF
# the run's output directory works as well as its catalogue.json
"$GC" predict "$(dirname "$cat")" "$ROOT/configs/kernels/vector_add.cfg" --json > "$TMP/dir.json" || die "predict DIR"
/usr/bin/python3 - "$TMP/dir.json" "$TMP/vector_add.cfg.json" <<'EOF' || die "predict DIR differs from predict DIR/catalogue.json"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("catalogue", None), b.pop("catalogue", None)
assert a == b and len(a["gpus"]) == 2
EOF
cat "$TMP/table.txt"
/usr/bin/python3 - "$TMP/vector_add.cfg.json" <<'EOF' || die "predict --json values"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["kernel"]["name"] == "vector_add" and len(p["gpus"]) == 2
def rel(a, b): return abs(a - b) / abs(b)
for g in p["gpus"]:
    assert g["regime"] == "memory" and g["launch"]["warps_per_sm"] == 64 and g["launch"]["limiter"] == "warps"
    # what drove it: the DRAM term at the GPU's measured bytes per cycle per SM
    assert g["bound"]["kind"] == "memory", g["bound"]
    assert g["bound"]["says"].startswith("memory: the gmem term") and "gmem_bytes_per_cycle_per_sm" in g["bound"]["says"]
    l, m = g["littles_law"], g["mwp_cwp"]
    f = l["launch_overhead_ns"]
    # eq. 4.1: warps launched / (warp throughput x SMs), at 1980 MHz
    cyc = l["warps_launched"] / (l["warp_throughput_per_cycle"] * 132)
    assert l["warps_launched"] == 262144 * 8 and rel(l["cycles"], cyc) < 1e-9
    assert rel(l["ns"], f + cyc / 1.98) < 1e-9 and l["cpw_max"] == "gmem"
    assert rel(l["calibrated_ns"], f + (l["ns"] - f) / l["lambda"]) < 1e-9
    assert g["calibration"]["lambda_from"] == "validation" and g["calibration"]["validation_kernels"] == 19
    # MWP-CWP is marked for what it is: a reference that does not fit
    assert m["role"] == "reference" and "does not fit" in m["fit"] and l["role"] == "prediction", m
    # MWP-CWP: 3 coalesced memory warps of 128 B, N = 64
    assert m["n"] == 64 and m["load_bytes_per_warp"] == 128 and m["case"] in (1, 2, 3)
    assert rel(m["ns"], f + m["cycles"] / 1.98) < 1e-9
    print("vector_add on %s %d: MWP-CWP %.1f us (case %d, MWP %.1f, CWP %.1f), Little %.1f us" %
          (g["node"], g["index"], m["calibrated_ns"] / 1e3, m["case"], m["mwp"], m["cwp"], l["calibrated_ns"] / 1e3))
EOF

# 3. a validation kernel predicted from the catalogue = its validation row
"$GC" predict "$cat" "$ROOT/configs/kernels/valid/saxpy_a16.cfg" --json > "$TMP/saxpy.json" || die "predict saxpy_a16"
/usr/bin/python3 - "$cat" "$TMP/saxpy.json" <<'EOF' || die "predict = validation row"
import json, sys
import gccat
c, p = gccat.load(sys.argv[1]), json.load(open(sys.argv[2]))
def rel(a, b): return abs(a - b) / abs(b)
for g, q in zip(c["gpus"], p["gpus"]):
    r = [r for r in g["models"]["validation"] if r["kernel"] == "saxpy_a16"][0]
    for k in ("mwp_cwp", "littles_law"):
        assert rel(q[k]["ns"], r[k + "_ns"]) < 1e-6, (k, q[k]["ns"], r[k + "_ns"])
    assert q["regime"] == r["regime"]
EOF

# 3b. predict's lambda is the run's: the same validation kernels, the same
# code (validate.c), the same build: equal to the stored lambda, and the
# suite's errors equal to the catalogue's
/usr/bin/python3 - "$cat" "$TMP/vector_add.cfg.json" <<'EOF' || die "predict's lambda != the catalogue's"
import json, sys
import gccat
c, p = gccat.load(sys.argv[1]), json.load(open(sys.argv[2]))
for g, q in zip(c["gpus"], p["gpus"]):
    cal = q["calibration"]
    assert cal["lambda_from"] == "validation", cal
    for k in ("mwp_cwp", "littles_law"):
        m = g["models"][k]
        assert abs(q[k]["lambda"] - m["lambda"]) < 1e-9 * m["lambda"], (k, q[k]["lambda"], m["lambda"])
        assert cal[k]["lambda"] == q[k]["lambda"] and cal[k]["lambda_kernels"] == m["lambda_kernels"]
        for a, b in (("suite_raw", "raw"), ("suite_calibrated", "calibrated")):
            assert abs(cal[k][a]["mape"] - m["errors"][b]["all"]["mape"]) < 1e-9, (k, a, cal[k][a])
            assert cal[k][a]["n"] == m["errors"][b]["all"]["n"] == 19
EOF

# 4. a catalogue without models: the parameters recomputed, same numbers
/usr/bin/python3 - "$cat" "$TMP/old.json" <<'EOF' || die "strip models"
import json, sys
c = json.load(open(sys.argv[1]))
c["models"] = {}
for g in c["gpus"]:
    del g["models"]
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF
$VALIDATE "$TMP/old.json" > /dev/null || die "a catalogue without models no longer validates"
"$GC" predict "$TMP/old.json" "$ROOT/configs/kernels/vector_add.cfg" > "$TMP/old.txt" || die "predict old"
grep -q "recomputed" "$TMP/old.txt" || { cat "$TMP/old.txt"; die "recomputed not said"; }
"$GC" predict "$TMP/old.json" "$ROOT/configs/kernels/vector_add.cfg" --json > "$TMP/old_p.json" || die "predict old --json"
/usr/bin/python3 - "$TMP/vector_add.cfg.json" "$TMP/old_p.json" <<'EOF' || die "recomputed != catalogue models"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for x, y in zip(a["gpus"], b["gpus"]):
    assert y["parameters_from"] == "parameters"
    for k in ("mwp_cwp", "littles_law"):
        assert abs(x[k]["ns"] - y[k]["ns"]) / x[k]["ns"] < 1e-6, (k, x[k]["ns"], y[k]["ns"])
        assert y[k]["lambda"] is None and abs(y[k]["calibrated_ns"] - y[k]["ns"]) < 1e-6
    # no node files beside it: the validation kernels cannot be read, said
    assert y["calibration"]["lambda_from"] == "none", y["calibration"]
    assert "uncalibrated" in y["calibration"]["note"] and "nodes" in y["calibration"]["note"], y["calibration"]
EOF

# 5. transfers: t = alpha + n / beta on every link
"$GC" predict "$cat" --bytes 16777216 > "$TMP/bytes.txt" || die "predict --bytes"
cat "$TMP/bytes.txt"
grep -q "pcie .*h2d" "$TMP/bytes.txt" && grep -q "pcie .*d2h" "$TMP/bytes.txt" || die "--bytes rows"
"$GC" predict "$cat" --bytes 16777216 --json > "$TMP/bytes.json" || die "predict --bytes --json"
/usr/bin/python3 - "$cat" "$TMP/bytes.json" <<'EOF' || die "--bytes values"
import json, sys
import gccat
c, p = gccat.load(sys.argv[1], points=False), json.load(open(sys.argv[2]))
assert p["bytes"] == 16777216 and len(p["links"]) == len(c["links"]) > 0
n = 0
for l, q in zip(c["links"], p["links"]):
    if l["model"] is None or l["model"].get("beta_bps") is None:
        assert q["time_s"] is None
        continue
    t = l["model"]["alpha_s"] + 16777216 / l["model"]["beta_bps"]
    assert abs(q["time_s"] - t) / t < 1e-9 and q["kind"] == l["kind"] and q["direction"] == l["direction"]
    # the sim's pinned PCIe Gen5 copies: 16 MiB in 0.3 .. 0.4 ms
    assert l["kind"] != "pcie" or 2.5e-4 < t < 4.5e-4, t
    n += 1
assert n >= 2
EOF

# 6. bad input: clear errors, exit 2 (arguments, description) or 3 (catalogue)
expect() {   # expect RC PATTERN ARGS...
    want=$1 pat=$2
    shift 2
    "$GC" predict "$@" > "$TMP/err.txt" 2>&1
    rc=$?
    [ $rc = "$want" ] && grep -q "$pat" "$TMP/err.txt" || { cat "$TMP/err.txt"; die "predict $*: exit $rc, want $want and '$pat'"; }
}
expect 2 "usage" "$cat"
expect 2 "usage" "$cat" "$ROOT/configs/kernels/vector_add.cfg" --bytes 5
expect 2 "bytes" "$cat" --bytes -1
expect 3 "nothere.json: cannot open" "$TMP/nothere.json" --bytes 1
sed 's/block_threads = 256;/block_threads = 2048;/' "$ROOT/configs/kernels/vector_add.cfg" > "$TMP/bad.cfg"
expect 2 "bad.cfg:13: kernel.block_threads: 2048 out of range" "$cat" "$TMP/bad.cfg"
expect 3 "per-node file" "$out/nodes/n1.json" --bytes 1
/usr/bin/python3 - "$cat" "$TMP/badcat.json" <<'EOF' || die "craft"
import json, sys
c = json.load(open(sys.argv[1]))
c["gpus"][1]["models"]["littles_law"]["parameters"][3] = "fast"   # schema 3: the values alone
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF
expect 3 "badcat.json:[0-9]*: gpus\[1\]: 'models.littles_law.parameters\[3\].value' must be a number or null" \
    "$TMP/badcat.json" "$ROOT/configs/kernels/vector_add.cfg"
head -c 5000 "$cat" > "$TMP/cut.json"
expect 3 "cut.json:[0-9]*: not valid JSON" "$TMP/cut.json" --bytes 1
# C0 and C1 controls (U+009B CSI, U+009D OSC, U+0085 NEL) in the GPU's name
# and the catalogue's backend reach the table as \xNN, never raw
/usr/bin/python3 - "$cat" "$TMP/c1.json" <<'EOF' || die "craft c1"
import json, sys
c = json.load(open(sys.argv[1]))
c["gpus"][0]["identity"]["name"] = "H100\u009b31m\u009d0;x\u0007\u0085\u001b[2J"
c["run"]["backend"] = "sim\u009b2J"
json.dump(c, open(sys.argv[2], "w"))
EOF
"$GC" predict "$TMP/c1.json" "$ROOT/configs/kernels/vector_add.cfg" > "$TMP/c1.out" 2>&1 ||
    { cat "$TMP/c1.out"; die "predict c1.json"; }
if LC_ALL=C grep -q "$(printf '\033')\|$(printf '\007')\|$(printf '\302\233')\|$(printf '\302\235')\|$(printf '\302\205')" "$TMP/c1.out"; then
    die "a C0 or C1 control reached the terminal from predict"
fi
grep -q 'H100\\xc2\\x9b31m' "$TMP/c1.out" || { cat "$TMP/c1.out"; die "GPU name not escaped"; }
grep -q 'backend sim\\xc2\\x9b2J' "$TMP/c1.out" || { cat "$TMP/c1.out"; die "backend not escaped"; }
echo "predict: models in the catalogue, tables, --json, --bytes and errors as expected"

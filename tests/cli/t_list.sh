#!/bin/sh
# gpucensus list (the benchmarks with their units, the plans with the
# budgets `plan` prints), run --only (part of a plan; an unknown name exits
# 2 naming the valid ones), predict on a catalogue without the models'
# inputs (exit 3 naming the plan that measures them), and a plan copied to
# another folder (it validates there; the sim profile is found in the
# installed configs; a missing one is named with FILE:LINE).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
command -v python3 >/dev/null || skip "no python3"

"$GC" list > "$TMP/list.out" || die "list: exit $?"
python3 - "$GC" "$TMP/list.out" <<'PY' || { cat "$TMP/list.out"; die "list"; }
import re, subprocess, sys
gc, out = sys.argv[1], open(sys.argv[2]).read()
bench, plans = out.split("\nPLAN ", 1)
rows = [l.split()[0] for l in bench.splitlines()[1:] if l.strip()]
assert len(rows) >= 14 and "hbm_bw" in rows and "xfer" in rows, rows
assert re.search(r"^hbm_bw .*bandwidth \(bytes_per_s\)", bench, re.M), "hbm_bw's unit"
assert re.search(r"^chase .*latency \(cycles\)", bench, re.M), "chase's unit"
lines = {l.split()[0].rsplit("/", 1)[-1]: l.split() for l in plans.splitlines()[1:] if l.startswith("/")}
assert {"quick.cfg", "default.cfg", "demo.cfg"} <= set(lines), lines
for name, f in lines.items():
    p = subprocess.run([gc, "plan", f[0], "--ranks", "8", "--nodes", "1"], capture_output=True, text=True)
    est = p.stdout.splitlines()[-1]
    m = re.search(r"per GPU ([\d.]+) s on-GPU \+ ([\d.]+) s transfers .* up to ([\d.]+) s of wall", est)
    gpu, xfer, node = map(float, m.groups())
    assert abs(float(f[4]) - (gpu + xfer)) < 0.11 and abs(float(f[5]) - (gpu + node)) < 0.11, (name, f, est)
print("list: %d benchmarks; plans %s with plan's budgets" % (len(rows), sorted(lines)))
PY
"$GC" list configs/quick.cfg --plans | grep -q "quick .* 21.8 .* 91.8$" || die "list PLAN: quick's budgets"
"$GC" list "$TMP/none.cfg" > /dev/null 2>&1
[ $? = 2 ] || die "list of a missing plan: expected 2"

# run --only: only those benchmarks; an unknown name names the valid ones
$MPIRUN -np 2 "$GC" run configs/demo.cfg --backend sim --sim-nodes 1 --only=bogus -o "$TMP/bad" --quiet > "$TMP/out" 2>&1
[ $? = 2 ] && grep -q "has no benchmark 'bogus' (its benchmarks: chase, " "$TMP/out" || { cat "$TMP/out"; die "--only bogus"; }
$MPIRUN -np 2 "$GC" run configs/demo.cfg --backend sim --sim-nodes 1 --only hbm_bw,launch_blocks -o "$TMP/only" --quiet ||
    die "run --only"
python3 - "$TMP/only" <<'PY' || die "run --only: other benchmarks measured"
import sys, gccat
c = gccat.load(sys.argv[1] + "/catalogue.json")
for g in c["gpus"]:
    assert sorted(g["methods"]) == ["hbm_bw", "launch"], g["methods"]
    benches = {p["benchmark"] for p in gccat.results(c, g)}
    assert benches == {"hbm_bw", "launch"}, benches
print("run --only: 2 GPUs measured hbm_bw and launch_blocks only")
PY
"$GC" check "$TMP/only" --table > "$TMP/table.out"
grep -q "^n1/gpu0 *Skip *Pass *Skip *Pass *Skip" "$TMP/table.out" || { cat "$TMP/table.out"; die "check --table of --only"; }

# predict without the models' inputs: exit 3, naming the plan that has them
"$GC" predict "$TMP/only" configs/kernels/vector_add.cfg > "$TMP/out" 2>&1
[ $? = 3 ] && grep -q "its plan did not measure them; .*configs/default.cfg does" "$TMP/out" ||
    { cat "$TMP/out"; die "predict without inputs"; }
"$GC" predict "$TMP/only" --bytes 1000 > "$TMP/out" 2>&1
[ $? = 3 ] && grep -q "links has a fitted transfer model.*default.cfg does" "$TMP/out" || { cat "$TMP/out"; die "predict --bytes without links"; }

# a plan copied elsewhere: plan validates, a sim run finds the installed profile
mkdir -p "$TMP/copy" "$TMP/elsewhere"
cp configs/demo.cfg "$TMP/copy/"
"$GC" plan "$TMP/copy/demo.cfg" > /dev/null || die "plan of a copied plan"
(cd "$TMP/elsewhere" && $MPIRUN -np 2 "$GC" run "$TMP/copy/demo.cfg" --backend sim --sim-nodes 1 --only hbm_bw \
    -o "$TMP/copied" --quiet) || die "sim run of a copied plan"
sed 's|sim/h100-sxm.cfg|sim/nothere.cfg|' configs/demo.cfg > "$TMP/copy/bad.cfg"
line=$(grep -n 'sim/nothere.cfg' "$TMP/copy/bad.cfg" | cut -d: -f1)
"$GC" plan "$TMP/copy/bad.cfg" > /dev/null || die "plan must not open the sim profile"
$MPIRUN -np 1 "$GC" run "$TMP/copy/bad.cfg" --backend sim -o "$TMP/badrun" --quiet > "$TMP/out" 2>&1
[ $? = 2 ] && grep -q "bad.cfg:$line: sim.profile: 'sim/nothere.cfg' not found (looked for $TMP/copy/sim/nothere.cfg, " "$TMP/out" ||
    { cat "$TMP/out"; die "missing sim profile: FILE:LINE"; }
echo "ok: list, run --only, predict without inputs, copied plans"

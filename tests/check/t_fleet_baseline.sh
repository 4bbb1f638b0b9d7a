#!/bin/sh
# Like with like, on the real catalogues of results/fleet (H100 and H200, quick
# and default plans, several hosts and days): each checked against the shipped
# configs/baselines comes out ok (exit 0), its values judged against what the
# same plan measured (the note counts them, and there are some); the same
# catalogue with HBM 15% slower (doctored here) comes out degraded through the
# baseline; a catalogue of another plan is not judged against a baseline of
# the quick and default plans (the note says so), and a lone GPU without
# NVLink peers is not missing the links a two-GPU machine had.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
command -v python3 >/dev/null || skip "no python3"

n=0
noisy=
for d in results/fleet/*-quick* results/fleet/*-default; do   # not *-default-failed: items failed by a bug of that commit (results/fleet/README.md), suspect as it should be
    [ -f "$d/catalogue.json" ] || continue
    case "$d" in
    *-shared) continue ;;   # another process on the GPU: t_shared
    *-noisy) noisy="$noisy $d"; continue ;;   # a host link read slow in that run: below
    esac
    "$GC" check "$d" --baseline configs/baselines >"$TMP/out" 2>&1
    rc=$?
    # measured before a benchmark's method changed (tools/make-baseline.py's
    # METHODS): the baselines hold only the new method's values, and another
    # method's numbers under the same key are not like with like: left out
    old=$(python3 - "$d/catalogue.json" <<'PY'
import json, sys
sys.path.insert(0, "tools")
mb = __import__("make-baseline")
run = json.load(open(sys.argv[1]))["run"]
print(" ".join(b for b, m in mb.METHODS.items() if not mb.measured_since(run, m)))
PY
)
    [ -z "$old" ] || { echo "skipped: $d: $old measured before its method changed"; continue; }
    [ $rc -eq 0 ] || { cat "$TMP/out"; die "$d: exit $rc against configs/baselines, expected 0 (ok)"; }
    plan=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["plan_name"])' "$d/catalogue.json")
    judged=$(sed -n "s/.*baseline: \([0-9]*\) values judged against plan $plan's.*/\1/p" "$TMP/out" | head -1)
    [ "${judged:-0}" -ge 20 ] || { cat "$TMP/out"; die "$d: only '${judged}' values judged against the baseline"; }
    grep -q "NVLinks active" "$TMP/out" && die "$d: judged NVLinks it has no peer for"
    echo "ok: $d ($plan): exit 0, $judged values judged against the baseline"
    n=$((n + 1))
done
[ $n -ge 10 ] || die "only $n real catalogues found"

# a run whose host link read slow (results/fleet/README.md says which: the
# h200x2 quick of e2a563f, GPU 0's pinned H2D 48.3 GB/s where the default
# plan of the same call read 55.5): the link is degraded against the
# baseline, no GPU is
for d in $noisy; do
    "$GC" check "$d" --baseline configs/baselines >"$TMP/out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat "$TMP/out"; die "$d: exit $rc, expected 2 (a degraded link)"; }
    grep -q "^degraded  pcie xfer " "$TMP/out" || { cat "$TMP/out"; die "$d: no degraded host link"; }
    grep -q "^GPUs .* 0 degraded, 0 failed" "$TMP/out" || { cat "$TMP/out"; die "$d: a GPU degraded"; }
    echo "ok: $d: its slow host link degraded, no GPU"
done

# a doctored copy (tools/gccat.py: points where the layout keeps them, written
# back in it): every HBM point and parameter 15% lower, no verdicts written
doctor_hbm() {
    python3 - "$1" "$2" <<'PY' || die "doctor $1"
import sys
import gccat
c = gccat.load(sys.argv[1])
for g in c["gpus"]:
    for p in g["parameters"]:
        if p["name"].startswith("hbm_") and p["name"].endswith("_bps") and p["value"] and "theoretical" not in p["name"]:
            p["value"] *= 0.85
    for r in g["results"]:
        if r["benchmark"] == "hbm_bw":
            for k in ("min", "p1", "p5", "p50", "p95", "p99", "max", "mean"):
                if r["summary"].get(k) is not None:
                    r["summary"][k] *= 0.85
c["verdicts"] = []
gccat.save(c, sys.argv[2])
PY
}
src=results/fleet/h200-2026-11-24-b64c1bf18205-default
doctor_hbm "$src" "$TMP/hbm"
"$GC" check "$TMP/hbm" --baseline configs/baselines >"$TMP/hbm.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$TMP/hbm.out"; die "HBM -15%: exit $rc, expected 2 (degraded)"; }
grep -q "^degraded  vm/gpu0 .*baseline: hbm_" "$TMP/hbm.out" || { cat "$TMP/hbm.out"; die "HBM -15%: not degraded through the baseline's hbm values"; }
echo "ok: HBM -15% -> degraded through the baseline"
# the same catalogue in the compact layout (tools/gccat.py compact: schema 2,
# its points in nodes/vm.json), doctored where its points now are
python3 tools/gccat.py compact "$src" "$TMP/compact" >/dev/null || die "gccat.py compact"
doctor_hbm "$TMP/compact" "$TMP/hbm2"
"$GC" check "$TMP/compact" --baseline configs/baselines >"$TMP/c.out" 2>&1 || { cat "$TMP/c.out"; die "compact copy: not ok"; }
"$GC" check "$TMP/hbm2" --baseline configs/baselines >"$TMP/hbm2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$TMP/hbm2.out"; die "compact, HBM -15%: exit $rc, expected 2 (degraded)"; }
grep -q "^degraded  vm/gpu0 .*baseline: hbm_" "$TMP/hbm2.out" || { cat "$TMP/hbm2.out"; die "compact, HBM -15%: not degraded through the baseline"; }
echo "ok: the compact layout of it: ok, and HBM -15% -> degraded through the baseline"

# another plan: the baseline has no values of it, and says so
"$GC" check results/fleet/h100-2026-11-24-537d76750c70-l2 --baseline configs/baselines >"$TMP/l2.out" 2>&1 ||
    { cat "$TMP/l2.out"; die "l2 plan: not ok"; }
grep -q "the baseline has no values of this plan for this SKU" "$TMP/l2.out" || { cat "$TMP/l2.out"; die "l2 plan note"; }
echo "ok: a plan the baseline does not know is not judged against it"
# a GPU shared with another process (a second process streaming HBM during the
# quick census, H100 and H200): inconclusive, never a silent ok nor degraded
for d in results/fleet/*-quick-shared; do
    for b in "" "--baseline configs/baselines"; do
        # shellcheck disable=SC2086
        "$GC" check "$d" $b >"$TMP/sh.out" 2>&1
        rc=$?
        [ $rc -eq 1 ] || { cat "$TMP/sh.out"; die "$d $b: exit $rc, expected 1 (inconclusive: GPU shared)"; }
        grep -q "^suspect   vm/gpu0 .*shared: gpu_shared: inconclusive: GPU shared: [0-9]* of [0-9]* points" "$TMP/sh.out" ||
            { cat "$TMP/sh.out"; die "$d $b: no 'inconclusive: GPU shared'"; }
        grep -q "^degraded" "$TMP/sh.out" && die "$d $b: degraded while shared"
        echo "ok: $d $b: inconclusive: GPU shared (exit 1)"
    done
done
echo "t_fleet_baseline: $n real catalogues ok, doctored one degraded, shared ones inconclusive"

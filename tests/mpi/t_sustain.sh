#!/bin/sh
# The sustain benchmark end to end on the sim (tests/mpi/sustain.cfg): the
# catalogue validates, the healthy GPUs hold their clock with no slowdown
# and are ok; the throttled GPU's time to first throttle is the planted
# 12 s and it is degraded by limit_sustain (thermal, clock below the
# floor); the unstable one is suspect for its clock's p5; the one that
# holds 80% of its peers' clock is degraded against its peers.
. "$(dirname "$0")/../lib.sh"
out=$TMP/sustain
$MPIRUN -np 6 "$GC" run "$ROOT/tests/mpi/sustain.cfg" --backend sim -o "$out" --quiet \
    > "$TMP/run.log" 2>&1
rc=$?
[ $rc -le 2 ] || { cat "$TMP/run.log"; die "run exit $rc"; }
$VALIDATE "$out" >/dev/null || { $VALIDATE "$out"; die "schema"; }
/usr/bin/python3 - "$out" <<'PY' || die "sustain verdicts"
import json, sys
import gccat
d = gccat.load(sys.argv[1], points=False)   # schema 3 read as 2.0
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
par = {g["index"]: {p["name"]: p["value"] for p in g["parameters"]} for g in d["gpus"]}
ver = {v["gpu_index"]: v for v in d["verdicts"] if v["type"] == "gpu"}
for i in (0, 2, 4):
    need(par[i]["time_to_first_throttle_s"] is None, "gpu%d throttled: %s" % (i, par[i]))
    need(abs(par[i]["sustained_sm_clock_mhz"] - 1980) < 10, "gpu%d clock %s" % (i, par[i]["sustained_sm_clock_mhz"]))
    need(par[i]["sm_clock_p5_ratio"] > 0.98, "gpu%d p5 ratio %s" % (i, par[i]["sm_clock_p5_ratio"]))
    need(ver[i]["verdict"] == "ok", "gpu%d verdict %s %s" % (i, ver[i]["verdict"], ver[i]["reasons"]))
need(par[1]["time_to_first_throttle_s"] is not None and abs(par[1]["time_to_first_throttle_s"] - 12) < 0.15,
     "gpu1 onset %s" % par[1]["time_to_first_throttle_s"])
need(int(par[1]["sustain_slowdown_reasons"]) & 0x60 == 0x60, "gpu1 reasons %s" % par[1]["sustain_slowdown_reasons"])
r1 = [r for r in ver[1]["reasons"] if r["rule"] == "limit_sustain"]
need(ver[1]["verdict"] == "degraded" and r1 and "thermal" in r1[0]["detail"], "gpu1 %s" % ver[1])
r3 = [r for r in ver[3]["reasons"] if r["rule"] == "limit_sustain" and r["metric"] == "sm_clock_p5_ratio"]
need(ver[3]["verdict"] == "suspect" and r3, "gpu3 %s" % ver[3])
r5 = [r for r in ver[5]["reasons"] if r["metric"] == "sustained_sm_clock_mhz"]
need(ver[5]["verdict"] == "degraded" and r5, "gpu5 %s" % ver[5])
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("sustain: ok; throttle at %.1f s, p5 ratio of the unstable GPU %.3f" %
      (par[1]["time_to_first_throttle_s"], par[3]["sm_clock_p5_ratio"]))
PY

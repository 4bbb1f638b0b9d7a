#!/usr/bin/env python3
"""How good is the run's ETA? Runs a census with --progress=json and
compares, from 10% of its time on, each progress line's predicted time left
(eta_s) with the time that was truly left (the run's end minus the line's
arrival). Prints one row per line and the maximum relative error.

  tools/eta-check.py [--np N] [--mpirun CMD] [--from F] [--min-left S] -- PLAN [RUN OPTIONS]

e.g. on a GPU machine:   tools/eta-check.py --np 1 -- configs/default.cfg
     here (sim backend): tools/eta-check.py --np 16 -- configs/demo.cfg --backend sim
Lines with less than --min-left seconds truly left (default 1) are shown but
not counted: a relative error of a fraction of a second says nothing.
Exit 0 when the run ended 0, else the run's exit code."""
import argparse, json, os, shlex, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--mpirun", default=os.environ.get("MPIRUN", "mpirun --oversubscribe"))
    ap.add_argument("--gc", default=os.environ.get("GC", "build/gpucensus"))
    ap.add_argument("--from", dest="frm", type=float, default=0.10, help="fraction of the run's time")
    ap.add_argument("--min-left", type=float, default=1.0)
    ap.add_argument("run", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = [x for x in a.run if x != "--"]
    if not args:
        ap.error("which plan? (-- PLAN [RUN OPTIONS])")
    out = tempfile.mkdtemp(prefix="gc-eta.")
    cmd = shlex.split(a.mpirun) + ["-np", str(a.np), a.gc, "run"] + args + ["-o", out + "/run", "--progress=json"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    rows, other = [], []
    for line in p.stderr:
        if not line.startswith('{"progress"'):
            other = (other + [line.rstrip()])[-20:]
        if line.startswith('{"progress"'):
            try:
                q = json.loads(line)["progress"]
            except ValueError:
                continue
            rows.append((time.monotonic() - t0, q["done"], q["total"], q["eta_s"]))
    rc = p.wait()
    end = time.monotonic() - t0
    if rc:
        print("\n".join(other), file=sys.stderr)
    print("run: %s\nexit %d, %.1f s; %d progress lines" % (" ".join(cmd), rc, end, len(rows)))
    print("%8s %7s %10s %10s %8s" % ("t_s", "done%", "eta_s", "true_s", "rel_err"))
    worst = None
    for t, done, total, eta in rows:
        true = end - t
        err = None if eta is None or true <= 0 else (eta - true) / true
        counted = t >= a.frm * end and true >= a.min_left and err is not None
        print("%8.1f %6.1f%% %10s %10.1f %8s%s" % (t, 100.0 * done / max(total, 1),
              "-" if eta is None else "%.1f" % eta, true, "-" if err is None else "%+.0f%%" % (100 * err),
              "" if counted else "  (not counted)"))
        if counted and (worst is None or abs(err) > abs(worst[0])):
            worst = (err, t)
    if worst is None:
        print("max relative error: no line counted (from %.0f%% of %.1f s, >= %.1f s left)" % (100 * a.frm, end, a.min_left))
    else:
        print("max relative error from %.0f%% of the run on: %+.0f%% (at %.1f s of %.1f s)" %
              (100 * a.frm, 100 * worst[0], worst[1], end))
    return rc


if __name__ == "__main__":
    sys.exit(main())

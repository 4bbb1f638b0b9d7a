#!/usr/bin/env python3
"""How good is the run's ETA? Runs a census with --progress=json and
compares, from 10% of its time on, each progress line's predicted time left
(eta_s) with the time that was truly left (the run's end minus the line's
arrival). Prints one row per line (its time as a fraction of the run), the
largest relative error in each tenth of the run, the time each phase took
against its budget done (rank 0's node, from the last line) and the maximum
relative error from --from on.

  tools/eta-check.py [--np N] [--mpirun CMD] [--from F] [--min-left S] [--max-err E] -- PLAN [RUN OPTIONS]

e.g. on a GPU machine:   tools/eta-check.py --np 1 -- configs/default.cfg
     here (sim backend): tools/eta-check.py --np 16 -- configs/demo.cfg --backend sim
Lines with less than --min-left seconds truly left (default 1) are shown but
not counted: a relative error of a fraction of a second says nothing.
Exit 0 when the run ended 0 (and, with --max-err, every counted line's error
was within E, e.g. 0.25), else the run's exit code, or 1."""
import argparse, json, os, shlex, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--mpirun", default=os.environ.get("MPIRUN", "mpirun --oversubscribe"))
    ap.add_argument("--gc", default=os.environ.get("GC", "build/gpucensus"))
    ap.add_argument("--from", dest="frm", type=float, default=0.10, help="fraction of the run's time")
    ap.add_argument("--min-left", type=float, default=1.0)
    ap.add_argument("--max-err", type=float, default=None, help="fail when a counted line's |error| exceeds it")
    ap.add_argument("--out", default=None, help="the run's output folder (default: a temporary one)")
    ap.add_argument("run", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = [x for x in a.run if x != "--"]
    if not args:
        ap.error("which plan? (-- PLAN [RUN OPTIONS])")
    out = a.out or (tempfile.mkdtemp(prefix="gc-eta.") + "/run")
    cmd = shlex.split(a.mpirun) + ["-np", str(a.np), a.gc, "run"] + args + ["-o", out, "--progress=json"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    rows, other, phases = [], [], {}
    for line in p.stderr:
        if not line.startswith('{"progress"'):
            other = (other + [line.rstrip()])[-20:]
        if line.startswith('{"progress"'):
            try:
                q = json.loads(line)["progress"]
            except ValueError:
                continue
            rows.append((time.monotonic() - t0, q["done"], q["total"], q["eta_s"]))
            phases = q.get("phases") or phases
    rc = p.wait()
    end = time.monotonic() - t0
    if rc:
        print("\n".join(other), file=sys.stderr)
    print("run: %s\nexit %d, %.1f s; %d progress lines" % (" ".join(cmd), rc, end, len(rows)))
    print("%8s %6s %7s %10s %10s %8s" % ("t_s", "run%", "done%", "eta_s", "true_s", "rel_err"))
    worst, band = None, {}
    for t, done, total, eta in rows:
        true = end - t
        err = None if eta is None or true <= 0 else (eta - true) / true
        counted = t >= a.frm * end and true >= a.min_left and err is not None
        print("%8.1f %5.0f%% %6.1f%% %10s %10.1f %8s%s" % (t, 100.0 * t / end, 100.0 * done / max(total, 1),
              "-" if eta is None else "%.1f" % eta, true, "-" if err is None else "%+.0f%%" % (100 * err),
              "" if counted else "  (not counted)"))
        if err is not None and true >= a.min_left:
            b = min(int(10 * t / end), 9)
            if b not in band or abs(err) > abs(band[b]):
                band[b] = err
        if counted and (worst is None or abs(err) > abs(worst[0])):
            worst = (err, t)
    print("largest error by tenth of the run: " + ", ".join(
        "%d-%d%% %+.0f%%" % (10 * b, 10 * b + 10, 100 * band[b]) for b in sorted(band)))
    for name, ph in phases.items():
        bd, took = ph.get("budget_done_s", 0), ph.get("took_s", 0)
        print("phase %-10s took %7.2f s for %7.2f s of budget (%.2f s per second of budget)" %
              (name, took, bd, took / bd if bd else 0))
    if worst is None:
        print("max relative error: no line counted (from %.0f%% of %.1f s, >= %.1f s left)" % (100 * a.frm, end, a.min_left))
    else:
        print("max relative error from %.0f%% of the run on: %+.0f%% (at %.1f s of %.1f s)" %
              (100 * a.frm, 100 * worst[0], worst[1], end))
    if not rc and a.max_err is not None and (worst is None or abs(worst[0]) > a.max_err):
        print("FAIL: the error exceeds %.0f%%" % (100 * a.max_err) if worst else "FAIL: no line counted")
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())

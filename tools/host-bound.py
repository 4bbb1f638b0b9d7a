#!/usr/bin/python3
"""How often any test can name a host 10% slow among K hosts whose draws
spread SIGMA (the sim's 3.06%, the real fleet's h2d spread), at a given
false-positive rate per healthy fleet: the bound a detector of host links
works under, whatever its statistics.

The test here is the best one when SIGMA is known: each host against the
other hosts' mean (or median), in units of SIGMA; its threshold is the one
that healthy fleets of K hosts cross at the given rate (Monte Carlo, the
largest of the K statistics). Printed per rate: the threshold and the
share of fleets with one host at 90% in which that host crosses it.

usage: tools/host-bound.py [--hosts 4] [--sigma 0.0306] [--loss 0.10] [--trials 20000] [--seed 1]"""
import argparse
import random
import statistics


def stat(xs, i, sigma, ref):
    others = xs[:i] + xs[i + 1:]
    r = statistics.median(others) if ref == "median" else statistics.mean(others)
    return (r - xs[i]) / sigma


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--sigma", type=float, default=0.0306)
    ap.add_argument("--loss", type=float, default=0.10)
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print(f"{a.hosts} hosts spread {100 * a.sigma:.2f}%, one at {100 * (1 - a.loss):.0f}%, {a.trials} trials")
    for ref in ("mean", "median"):
        healthy, faulted = [], []
        for _ in range(a.trials):
            xs = [1 + a.sigma * rng.gauss(0, 1) for _ in range(a.hosts)]
            healthy.append(max(stat(xs, i, a.sigma, ref) for i in range(a.hosts)))
            xs[0] *= 1 - a.loss
            faulted.append(stat(xs, 0, a.sigma, ref))
        healthy.sort()
        for rate in (1 / 37, 0.01, 1 / 280):
            t = healthy[min(len(healthy) - 1, int(len(healthy) * (1 - rate)))]
            caught = sum(f > t for f in faulted) / len(faulted)
            print(f"  against the others' {ref:6}: false positives in {rate:.4f} of healthy fleets -> "
                  f"threshold {t:.2f} sigma, the slow host caught in {caught:.2f}")


if __name__ == "__main__":
    main()

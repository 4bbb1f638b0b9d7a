#!/usr/bin/env python3
"""The house's layering, measured: which includes point up the order of the
stages, which files include mpi.h outside tree/, run/ and main.c, and which
source files call each other in a circle.

Usage: tools/layers.py [--build BUILD] [--max-up N]
The stages, bottom up, are ORDER below (docs/architecture.md). A file may
include its own folder and the folders below it. A circle is a set of .c
files each of which reaches the others through calls (a strongly connected
component of the graph "A.o uses a symbol B.o defines", read with nm from
BUILD's objects); without a build only the includes are checked.
Exit 0 when there is no circle, no mpi.h out of place and at most N
(default 1) upward includes; 1 otherwise. The report lists each finding."""
import argparse, os, re, subprocess, sys
from collections import defaultdict

ORDER = ["util", "census", "plan", "measure", "measure/cuda", "measure/sim", "analyze",
         "judge", "write", "tree", "read", "report", "cmd", "run", "main.c"]
MPI_OK = ("tree", "run", "main.c")
INC = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)


def stage(rel):
    """rel: a path under src/ ('judge/detect.c'); its stage in ORDER."""
    if "/" not in rel:
        return rel if rel in ORDER else None
    d = os.path.dirname(rel)
    while d and d not in ORDER:
        d = os.path.dirname(d)
    return d or None


def sources(src):
    for dp, _, fs in os.walk(src):
        for f in sorted(fs):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dp, f), src)


def includes(src):
    """(file, included path under src/) for each local include; (file, 'mpi.h') too."""
    for rel in sources(src):
        text = open(os.path.join(src, rel), errors="replace").read()
        for kind, inc in INC.findall(text):
            if kind == "<":
                if inc == "mpi.h":
                    yield rel, "mpi.h"
                continue
            if os.path.exists(os.path.join(src, inc)):
                yield rel, inc


def sccs(graph):
    """Tarjan's strongly connected components, iterative."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop(); on.discard(x); comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
                continue
            if w not in index:
                index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(graph.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def call_graph(build, src):
    """{a.c: {b.c, ...}}: a's object uses a symbol b's object defines."""
    objs = {}
    for rel in sources(src):
        if rel.endswith(".c"):
            o = os.path.join(build, "src", rel[:-2] + ".o")
            if os.path.exists(o):
                objs[rel] = o
    if not objs:
        return None
    nm = subprocess.run(["nm", "-A"] + list(objs.values()), capture_output=True, text=True).stdout
    back = {o: rel for rel, o in objs.items()}
    defs, uses = {}, defaultdict(set)
    for line in nm.splitlines():
        path, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) < 2 or path not in back:
            continue
        kind, sym = parts[-2], parts[-1]
        if kind == "U":
            uses[back[path]].add(sym)
        elif kind in "TDBRGSVW" and kind.isupper():
            defs[sym] = back[path]
    g = defaultdict(set)
    for a, syms in uses.items():
        for s in syms:
            b = defs.get(s)
            if b and b != a:
                g[a].add(b)
    for a in objs:
        g.setdefault(a, set())
    return g


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--max-up", type=int, default=1)
    ap.add_argument("--src", default="src")
    a = ap.parse_args()
    up, mpi, unstaged = [], [], set()
    for rel, inc in includes(a.src):
        s = stage(rel)
        if s is None:
            unstaged.add(rel)
            continue
        if inc == "mpi.h":
            if s not in MPI_OK:
                mpi.append(rel)
            continue
        t = stage(inc)
        if t is not None and ORDER.index(t) > ORDER.index(s):
            up.append((rel, inc))
    g = call_graph(a.build, a.src)
    circles = sccs(g) if g is not None else []
    # calls that go up the order (a header-less call, or one through an
    # upward include): reported, not counted against --max-up
    up_calls = []
    if g is not None:
        for x, ys in sorted(g.items()):
            for y in sorted(ys):
                if ORDER.index(stage(y)) > ORDER.index(stage(x)):
                    up_calls.append((x, y))
    print("layers: %s" % " < ".join(ORDER))
    for f in sorted(unstaged):
        print("  not in a stage's folder: src/%s" % f)
    for f, inc in up:
        print("  upward include: src/%s includes %s (%s above %s)" % (f, inc, stage(inc), stage(f)))
    for f in mpi:
        print("  mpi.h outside %s: src/%s" % (", ".join(MPI_OK), f))
    for c in circles:
        print("  circle: %s" % " <-> ".join("src/" + x for x in c))
    for x, y in up_calls:
        print("  upward call: src/%s calls into src/%s" % (x, y))
    calls = "no build objects in %s: calls not checked" % a.build if g is None else \
        "%d circles, %d upward calls" % (len(circles), len(up_calls))
    print("layers: %d upward includes (at most %d), %d mpi.h out of place, %d files outside "
          "a stage, %s" % (len(up), a.max_up, len(mpi), len(unstaged), calls))
    ok = len(up) <= a.max_up and not mpi and not unstaged and not circles
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

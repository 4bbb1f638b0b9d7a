#!/bin/sh
# Two builds give the same bytes: a 16-rank sim census (4 nodes x 4 GPUs,
# faults planted) of the quick and the default plan, then `check`, `check
# --json`, `check --rules`, `merge` of its shards and `report` (terminal and
# HTML) on it, run by each build and compared file by file, the run's times
# and the builds' commits masked (the binary shards and roster hold them:
# not compared). For a change that must not change behaviour (a move of
# files, a refactor): build the old commit in a worktree, then
#   tests/layout/same_output.sh OLD/build/gpucensus build/gpucensus [WORK]
# The net benchmark is left out of the plans: it sends real bytes through
# MPI and times them, so two runs of one build differ there (and in what
# follows from it: confirmation items, conditions at the end).
# The sim's time budgets are wall time: on a heavily loaded machine a point
# can take fewer samples than on an idle one, and its link fits then differ
# even between two runs of one build; compare on a quiet machine (or pass
# the same build twice to see the noise).
# Exit 0 same, 1 different (the differing files named), 2 usage.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUCENSUS NEW_GPUCENSUS [WORKDIR]" >&2; exit 2; }
old=$(readlink -f "$1"); new=$(readlink -f "$2")
cd "$(dirname "$0")/../.." || exit 2
root=$(pwd)
work=${3:-$(mktemp -d /tmp/gc-same.XXXXXX)}
mkdir -p "$work" || exit 2
. tools/mpi-env.sh

# plan copies: no net entries, 4 x 4 sim GPUs, one fault of each common kind
mkplan() {  # SRC DST
    python3 - "$1" "$2" "$root/configs/sim/h100-sxm.cfg" <<'PY' || exit 2
import re, sys
src, dst, prof = sys.argv[1:4]
t = open(src).read()
out, i = [], 0
while True:
    j = t.find('{ name = "net"', i)
    if j < 0:
        out.append(t[i:]); break
    out.append(t[i:j]); d = 0; k = j
    while True:
        d += {'{': 1, '}': -1}.get(t[k], 0); k += 1
        if d == 0: break
    m = re.match(r'\s*,', t[k:])
    i = k + (m.end() if m else 0)
t = ''.join(out)
t = re.sub(r',(\s*\);)', r'\1', t)            # a trailing comma left by the last entry
t = t[:t.index('\nsim = {')] + '''
sim = {
  profile = "%s";
  seed = 7L;
  nodes = 4;
  gpus_per_node = 4;
  faults = (
    { node = "n3"; gpu = 2; metric = "hbm_bw"; kind = "scale"; factor = 0.85; },
    { node = "n2"; gpu = 1; metric = "h2d_bw"; kind = "scale"; factor = 0.7; },
    { node = "n4"; gpu = 0; metric = "dram_latency"; kind = "bimodal"; factor = 0.6; },
    { node = "n1"; gpu = 3; metric = "l2_bw"; kind = "transient"; factor = 0.6; }
  );
};
''' % prof
open(dst, 'w').write(t)
PY
}

# what differs between any two runs (times) or builds (the commit)
mask() {
    sed -E 's/"(start_time|end_time|git_commit)": *"[^"]*"/"\1": "-"/g
            s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/-/g
            s/\b[0-9a-f]{12}(-dirty)?\b/-/g' "$1"
}

run_one() {  # BIN TAG PLAN
    b=$1; d=$work/run     # one path for both builds: outputs name it
    rm -rf "$d" "$work/$2" && mkdir -p "$d" || exit 2
    $MPIRUN --oversubscribe -np 16 "$b" run "$3" --backend sim --quiet -o "$d/out" >"$d/run.txt" 2>&1
    echo "exit $?" >>"$d/run.txt"
    "$b" check "$d/out" >"$d/check.txt" 2>&1; echo "exit $?" >>"$d/check.txt"
    "$b" check "$d/out" --json >"$d/check.json" 2>&1; echo "exit $?" >>"$d/check.json"
    "$b" check "$d/out" --rules configs/rules.cfg >"$d/check-rules.txt" 2>&1
    echo "exit $?" >>"$d/check-rules.txt"
    "$b" merge "$d/out/shards" -o "$d/merged" >"$d/merge.txt" 2>&1; echo "exit $?" >>"$d/merge.txt"
    "$b" report "$d/out" >"$d/report.txt" 2>&1; echo "exit $?" >>"$d/report.txt"
    "$b" report "$d/out" -o "$d/report.html" >"$d/report-html.txt" 2>&1
    echo "exit $?" >>"$d/report-html.txt"
    mv "$d" "$work/$2" || exit 2
}

bad=0
for p in quick default; do
    mkplan "configs/$p.cfg" "$work/$p.cfg"
    run_one "$old" "$p-old" "$work/$p.cfg"
    run_one "$new" "$p-new" "$work/$p.cfg"
    a=$work/$p-old b=$work/$p-new
    (cd "$a" && find . -type f ! -name '*.lock' ! -name '*.gc[sr]' | sort) >"$work/$p-files-old"
    (cd "$b" && find . -type f ! -name '*.lock' ! -name '*.gc[sr]' | sort) >"$work/$p-files-new"
    if ! cmp -s "$work/$p-files-old" "$work/$p-files-new"; then
        echo "DIFF $p: the file lists differ:"; diff "$work/$p-files-old" "$work/$p-files-new"; bad=1
    fi
    n=0
    for f in $(cat "$work/$p-files-old"); do
        [ -f "$b/$f" ] || continue
        n=$((n + 1))
        if ! mask "$a/$f" | cmp -s - "$b/$f.m" 2>/dev/null; then
            mask "$b/$f" >"$b/$f.m"
            mask "$a/$f" | cmp -s - "$b/$f.m" || { echo "DIFF $p: $f"; bad=1; }
            rm -f "$b/$f.m"
        fi
    done
    echo "$p: $n files compared ($(grep -c . "$a/check.txt") lines of check, $(tail -1 "$a/check.txt"))"
done
[ $bad = 0 ] && echo "same output: old and new builds agree" || echo "different output (work: $work)"
exit $bad

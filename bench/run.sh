#!/usr/bin/env bash
# Performance benchmarks of the tool itself (`make bench` runs this after
# building): codec throughput, then merge time and memory for 64, 256 and
# 1024 simulated GPUs with the quick and the default plan. See
# bench/README.md for what each number means.
#
# A benchmark, not a test: missed targets are reported, not failed. The
# script exits non-zero only when a benchmark itself fails (crash, merge
# error).
#
# Environment:
#   BENCH_TREE_SIZES GPU counts of the tree benchmark (default 1024,4096,16384;
#                 16384 took 15 min here for rank 0's part and over 19 min for
#                 report -o, and ~2.5 GB of disk under BENCH_DIR, removed after
#                 each size)
#                 (131072 for the end to end's second target: ~10 GB of disk)
#   BENCH_TREE_PLAN plan of the tree benchmark (default configs/default.cfg)
#   BENCH_SCALE_SIZE GPUs of the census that check and report are measured on
#                 (default 131072; 0: skipped). Its ingest took 8.5 min here
#                 and its files ~7 GB of disk under BENCH_DIR, removed
#   BENCH_SIZES   GPU counts (default 64,256,1024)
#   BENCH_PLANS   plans (default "configs/quick.cfg configs/default.cfg")
#   BENCH_REPS    merges per size, the fastest counts (default 3; 1 for default.cfg
#                 unless set, its 1024-GPU merge takes minutes)
#   BENCH_DIR     where shards and catalogues go (default: a temporary directory, removed)
set -u
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
SIZES=${BENCH_SIZES:-64,256,1024}
PLANS=${BENCH_PLANS:-configs/quick.cfg configs/default.cfg}
TARGET_S=2.0
TARGET_MB=256

for b in "$BUILD/bench/bench_codec" "$BUILD/bench/bench_merge" "$BUILD/gpucensus"; do
    if [ ! -x "$b" ]; then
        echo "bench/run.sh: $b is missing; run 'make bench' (or make all $b)" >&2
        exit 1
    fi
done

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name[[:space:]]*:[[:space:]]*//')
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
echo "== machine: $(nproc) CPUs, ${cpu:-unknown CPU}, ${mem:-? GiB} RAM, $(uname -sr)"
echo "== commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
echo

status=0
echo "== codec throughput ($BUILD/bench/bench_codec)"
if ! "$BUILD/bench/bench_codec"; then
    echo "bench/run.sh: bench_codec failed" >&2
    status=1
fi
echo

work=${BENCH_DIR:-}
own=0
if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/gc-bench.XXXXXX) || exit 1
    own=1
fi

summary=()
for plan in $PLANS; do
    name=$(basename "$plan" .cfg)
    reps=${BENCH_REPS:-$([ "$name" = default ] && echo 1 || echo 3)}
    echo "== merge scale, plan $plan ($BUILD/bench/bench_merge -n $SIZES -r $reps)"
    out="$work/$name.txt"
    "$BUILD/bench/bench_merge" -n "$SIZES" -r "$reps" -d "$work/$name" -x "$BUILD/gpucensus" \
        "$plan" | tee "$out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
        echo "bench/run.sh: bench_merge $plan failed (exit $rc)" >&2
        status=1
        continue
    fi
    rm -rf "$work/$name"   # shards and catalogues of a large census are big
    # key=value lines of bench_merge -> measured / target ratios
    val() { sed -n "s/^$1=\([0-9.]*\).*/\1/p" "$out" | head -1; }
    largest=${SIZES##*,}
    s=$(val "merge_${largest}_s")
    mb=$(val "peak_${largest}_mb")
    bpg=$(val "shard_bytes_per_gpu_${largest}")
    cpg=$(val "catalogue_bytes_per_gpu_${largest}")
    line=$(awk -v p="$name" -v n="$largest" -v s="$s" -v mb="$mb" -v bpg="$bpg" -v cpg="$cpg" \
        -v ts="$TARGET_S" -v tm="$TARGET_MB" 'BEGIN {
        printf "%-8s shard %.0f B/GPU; catalogue.json %.0f B/GPU%s; merge of %d GPUs: %.3f s = %.2f x target %.1f s, peak %.1f MB = %.2f x target %d MB",
               p, bpg, cpg, p == "default" ? sprintf(" = %.2f x target 16 KiB", cpg / 16384) : "",
               n, s, s / ts, ts, mb, mb / tm, tm }')
    growth=$(sed -n 's/^ratio_\([0-9]*\)_\([0-9]*\)=\([0-9.]*\) (linear: \([0-9.]*\))/\1\/\2: \3 (linear \4)/p' "$out" | paste -sd ';' -)
    summary+=("$line; time growth ${growth:-n/a}")
    echo
done
# The scheduler: `plan` for the documented largest job (every rank scheduled;
# the first ranks' lists printed), wall time against a target of 10 s, and
# its growth from a cluster eight times smaller (linear: 8).
echo "== plan scale ($BUILD/gpucensus plan configs/default.cfg)"
plan_s() {
    local t0 t1
    t0=$(date +%s.%N)
    "$BUILD/gpucensus" plan configs/default.cfg --ranks "$1" --nodes "$2" > /dev/null || return 1
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
if ps=$(plan_s 65536 8192) && ps8=$(plan_s 8192 1024); then
    echo "plan_65536_s=$ps plan_8192_s=$ps8"
    summary+=("$(awk -v s="$ps" -v s8="$ps8" 'BEGIN { printf "plan     65536 ranks on 8192 nodes: %.2f s = %.2f x target 10 s; growth from 8192 ranks %.2f (linear 8)", s, s / 10, s / s8 }')")
else
    echo "bench/run.sh: plan failed" >&2
    status=1
fi
echo
# The aggregation tree: a leader's part on one node of 8 sim
# shards, rank 0's part from N records, check and report -o on its catalogue.
TREE_SIZES=${BENCH_TREE_SIZES:-1024,4096,16384}
TREE_PLAN=${BENCH_TREE_PLAN:-configs/default.cfg}
TREE_REPS=${BENCH_TREE_REPS:-3}   # rank 0's part per size: the median of these runs
echo "== tree, plan $TREE_PLAN ($BUILD/bench/bench_tree -n $TREE_SIZES -p $TREE_REPS)"
tree_out="$work/tree.txt"
if "$BUILD/bench/bench_merge" -n 8 -r 1 -d "$work/tree-node" -x "$BUILD/gpucensus" -k "$TREE_PLAN" \
        > "$work/tree-node.txt" &&
   "$BUILD/bench/bench_tree" -f -p "$TREE_REPS" -n "$TREE_SIZES" -d "$work/tree" -x "$BUILD/gpucensus" \
        "$work/tree-node/n8/shards" | tee "$tree_out"; then
    tv() { sed -n "s/^$1=\([0-9.-]*\).*/\1/p" "$tree_out" | head -1; }
    summary+=("$(awk -v s="$(tv leader_s)" 'BEGIN { printf "tree     leader part, 8 GPUs: %.3f s = %.2f x target 2 s", s, s / 2 }')")
    summary+=("tree     record $(tv record_bytes_per_gpu) B/GPU = $(awk -v b="$(tv record_bytes_per_gpu)" 'BEGIN { printf "%.2f", b / 65536 }') x target 64 KiB")
    prev=""
    for n in ${TREE_SIZES//,/ }; do
        r0=$(tv "rank0_${n}_s"); pk=$(tv "peak_${n}_mb"); cm=$(tv "catalogue_${n}_mb"); in=$(tv "ingest_${n}_s"); ic=$(tv "ingest_cpu_${n}_s")
        rc=$(tv "rank0_cpu_${n}_s")
        ck=$(tv "check_${n}_s"); rp=$(tv "report_${n}_s"); pg=$(tv "page_${n}_mb")
        [ -n "$r0" ] || continue
        summary+=("$(awk -v n="$n" -v r0="$r0" -v pk="$pk" -v cm="$cm" -v ck="$ck" -v rp="$rp" -v pg="$pg" 'BEGIN {
            printf "tree     %d GPUs: rank 0 %.2f s = %.2f x 10 s, peak %.0f MB = %.2f x 1024 MB, catalogue %.1f MB = %.2f x 256 MB, check %.2f s = %.2f x 10 s, report %.2f s = %.2f x 60 s, page %.2f MB = %.2f x 30 MB",
                   n, r0, r0 / 10, pk, pk / 1024, cm, cm / 256, ck, ck / 10, rp, rp / 60, pg, pg / 30 }')")
        summary+=("$(awk -v n="$n" -v s="$in" -v ic="$ic" -v c="$rc" 'BEGIN { printf "tree     %d GPUs: rank 0 taking the records in, all arrived at once: %.2f s, %.2f s CPU (%.3f ms CPU a record, every thread); its last part on CPU: %.2f s", n, s, ic, 1000 * ic / n, c }')")
        # the end to end: from the last record sent (every record there at
        # once) to catalogue.json on disk; targets at 16,384 and 131,072 GPUs
        e2=$(tv "e2e_${n}_s"); e2c=$(tv "e2e_cpu_${n}_s")
        if [ -n "$e2" ]; then
            summary+=("$(awk -v n="$n" -v s="$e2" -v c="$e2c" -v pk="$pk" 'BEGIN {
                ts = n == 16384 ? 10 : n == 131072 ? 90 : 0; tm = n == 16384 ? 1024 : n == 131072 ? 6144 : 0
                if (ts) printf "tree     %d GPUs: end to end (last record sent -> catalogue.json, ingest included) %.2f s = %.2f x target %d s (%.2f s CPU), rank 0 peak %.0f MB = %.2f x target %d MB", n, s, s / ts, ts, c, pk, pk / tm, tm
                else printf "tree     %d GPUs: end to end (last record sent -> catalogue.json, ingest included) %.2f s (%.2f s CPU), rank 0 peak %.0f MB (targets at 16384 and 131072 GPUs)", n, s, c, pk }')")
            [ -n "$prev" ] && [ -n "$(tv "e2e_${prev}_s")" ] &&
                summary+=("$(awk -v a="$(tv "e2e_${prev}_s")" -v b="$e2" -v ac="$(tv "e2e_cpu_${prev}_s")" -v bc="$e2c" -v p="$prev" -v n="$n" -v pa="$(tv "peak_${prev}_mb")" -v pb="$pk" 'BEGIN { printf "tree     end to end growth %d->%d: wall %.2fx, CPU %.2fx = %.2f x target %.2fx (linear); peak %.2fx", p, n, b / a, bc / ac, bc / ac / (n / p), n / p, pb / pa }')")
        fi
        # growth of the last part, measured / target (linear: n / prev)
        [ -n "$prev" ] && summary+=("tree     rank 0 growth $prev->$n (medians of $TREE_REPS runs; CPU s per run: $(sed -n "s/^rank0_cpu_${prev}_runs=//p" "$tree_out") -> $(sed -n "s/^rank0_cpu_${n}_runs=//p" "$tree_out"); wall s per run: $(sed -n "s/^rank0_${prev}_runs=//p" "$tree_out") -> $(sed -n "s/^rank0_${n}_runs=//p" "$tree_out"); rank 0's last part runs on more than one thread, so its CPU time is above its wall time): $(awk -v a="$(tv "rank0_${prev}_s")" -v b="$r0" -v ac="$(tv "rank0_cpu_${prev}_s")" -v bc="$rc" -v p="$prev" -v n="$n" -v as="$(tv "rank0_sys_${prev}_s")" -v bs="$(tv "rank0_sys_${n}_s")" 'BEGIN { printf "CPU %.2fx = %.2f x target %.2fx (linear); wall %.2fx = %.2f x target; of the median CPU run: user %.2fx, system %.2fx (%.2f -> %.2f s: fresh pages, the page cache)", bc / ac, bc / ac / (n / p), n / p, b / a, b / a / (n / p), (bc - bs) / (ac - as), bs / as, as, bs }')")
        # the page in headless Chromium: to the load event, and the slowest of a few
        # interactions (filter, sort, open a GPU, turn a page, open a node); -1: skipped
        pl=$(tv "page_load_${n}_ms"); pa=$(tv "page_action_${n}_ms"); rcpu=$(tv "report_cpu_${n}_s")
        if [ -n "$pl" ] && [ "${pl%%.*}" != "-1" ]; then
            summary+=("$(awk -v n="$n" -v l="$pl" -v a="$pa" -v c="$rcpu" 'BEGIN { printf "tree     %d GPUs: report CPU %.2f s; page in headless Chromium: load %.0f ms = %.2f x 5000 ms, slowest interaction %.0f ms = %.2f x 100 ms", n, c, l, l / 5000, a, a / 100 }')")
        else
            summary+=("tree     $n GPUs: page in headless Chromium skipped (bench_tree says why above)")
        fi
        [ -n "$prev" ] && [ -n "$(tv "report_cpu_${prev}_s")" ] &&
            summary+=("tree     report CPU growth $prev->$n: $(awk -v a="$(tv "report_cpu_${prev}_s")" -v b="$rcpu" -v p="$prev" -v n="$n" 'BEGIN { printf "%.2f (linear %.2f)", b / a, n / p }')")
        prev=$n
    done
else
    echo "bench/run.sh: bench_tree failed" >&2
    status=1
fi
# check and report at the largest size (default 131,072 GPUs; 0: skipped):
# bench_tree's census of that size on the same node's shards, then `check`,
# `report -o` and the page in headless Chromium, each against its target
# (check 30 s, report 3 min, page 30 MB, load 5 s, an action 100 ms,
# catalogue 16 KiB a GPU), with CPU time and peak memory beside the wall
# time. Disk: the catalogue (~2 GB) and ~190 node files (~4.6 GB), removed.
SCALE=${BENCH_SCALE_SIZE:-131072}
if [ "$SCALE" != 0 ]; then
    echo "== check and report at $SCALE GPUs ($BUILD/bench/bench_tree -f -n $SCALE)"
    scale_out="$work/scale.txt"
    if [ -d "$work/tree-node/n8/shards" ] || "$BUILD/bench/bench_merge" -n 8 -r 1 -d "$work/tree-node" \
            -x "$BUILD/gpucensus" -k "$TREE_PLAN" > "$work/tree-node.txt"; then
        "$BUILD/bench/bench_tree" -f -n "$SCALE" -d "$work/scale" -x "$BUILD/gpucensus" \
            "$work/tree-node/n8/shards" | tee "$scale_out"
        rc=${PIPESTATUS[0]}
        [ "$rc" -eq 0 ] || { echo "bench/run.sh: bench_tree -n $SCALE failed (exit $rc)" >&2; status=1; }
        sv() { sed -n "s/^$1=\([0-9.-]*\).*/\1/p" "$scale_out" | head -1; }
        n=$SCALE
        summary+=("$(awk -v n="$n" -v c="$(sv "check_${n}_s")" -v cc="$(sv "check_cpu_${n}_s")" \
            -v cm="$(sv "check_peak_${n}_mb")" -v r="$(sv "report_${n}_s")" -v rc="$(sv "report_cpu_${n}_s")" \
            -v rm="$(sv "report_peak_${n}_mb")" -v cat="$(sv "catalogue_${n}_mb")" 'BEGIN {
            printf "scale    %d GPUs: check %.1f s = %.2f x 30 s (CPU %.1f s, peak %.0f MB); report -o %.1f s = %.2f x 180 s (CPU %.1f s, peak %.0f MB); catalogue %.0f B/GPU = %.2f x 16 KiB",
                   n, c, c / 30, cc, cm, r, r / 180, rc, rm, cat * 1e6 / n, cat * 1e6 / n / 16384 }')")
        summary+=("$(awk -v n="$n" -v p="$(sv "page_${n}_mb")" -v l="$(sv "page_load_${n}_ms")" \
            -v a="$(sv "page_action_${n}_ms")" 'BEGIN {
            printf "scale    %d GPUs: page %.2f MB = %.2f x 30 MB; in headless Chromium: load %.0f ms = %.2f x 5000 ms, slowest interaction %.0f ms = %.2f x 100 ms (-1: skipped)",
                   n, p, p / 30, l, l / 5000, a, a / 100 }')")
    else
        echo "bench/run.sh: bench_merge -n 8 failed" >&2
        status=1
    fi
    rm -rf "$work/scale"
    echo
fi
rm -rf "$work/tree" "$work/tree-node"
echo

[ "$own" = 1 ] && rm -rf "$work"

echo "== summary (measured / target; target: 1024 GPUs merged in <= $TARGET_S s and <= $TARGET_MB MB, growth no faster than linear)"
for l in "${summary[@]}"; do
    echo "$l"
done
exit $status

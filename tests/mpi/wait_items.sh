#!/bin/sh
# wait_items.sh OUT GPUS ITEMS [SECONDS]: wait (default 60 s) until the
# shards of a running census in OUT show GPUS GPUs with ITEMS work items
# done each (merged into a temporary folder); exit 1 if they never do.
# The signal tests use it to strike while every rank is in one known item.
gc=${GC:-${BUILD:-build}/gpucensus}
out=$1 gpus=$2 items=$3 left=$(( ${4:-60} * 5 ))
m=$(mktemp -d "${TMPDIR:-/tmp}/gcwait.XXXXXX") || exit 1
trap 'rm -rf "$m"' EXIT
while [ $left -gt 0 ]; do
    if [ -e "$out/shards/roster.gcr" ] && "$gc" merge "$out/shards" -o "$m" > /dev/null 2>&1 &&
       /usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["gpus"]
sys.exit(not (len(g) == int(sys.argv[2]) and all(x["items_done"] == int(sys.argv[3]) for x in g)))' \
           "$m/catalogue.json" "$gpus" "$items"; then
        exit 0
    fi
    left=$((left - 1))
    sleep 0.2
done
exit 1

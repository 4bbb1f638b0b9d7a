#!/bin/bash
# docs/operations.md, "Running it every day": every line of its first code block, run as
# written on the private Slurm cluster of the tests (cluster.sh), with
#   /opt/gpucensus                 -> an installation in $TMP (links to this
#                                     checkout's scripts, prolog.conf beside them)
#   /var/lib, /var/log             -> $TMP/var/...
#   -N 64 --ntasks-per-node=8      -> -N 3 --ntasks-per-node=2
#   configs/quick.cfg              -> tests/slurm/health.cfg (sim, 2 GPUs a node)
# and GPUCENSUS_BACKEND=sim:
#   - the Prolog= line goes into slurm.conf (sc_up --prolog): the census job
#     of the cron line starts only after slurm/prolog.sh passed on its nodes;
#   - the cron line's command runs: the census, the history add, the check
#     against the history with its Prometheus file;
#   - the NHC line's check runs under the NHC harness of tests/ops/t_nhc.sh;
#   - the node_exporter line's textfile directory holds the metrics, which
#     promtool accepts, and node_exporter started by that line serves them.
# Skipped (77) only where Slurm cannot run here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/slurm/cluster.sh"
set -u
command -v promtool >/dev/null || skip "no promtool (Debian package prometheus; tools/deps.sh test)"

# the README's block, line by line, paths moved
block=$(awk '/^## Running it every day/ { s = 1 } s && /^```/ { if (inb) exit; inb = 1; next } inb' "$ROOT/docs/operations.md")
[ "$(echo "$block" | grep -vc '^#')" = 4 ] || die "docs/operations.md: expected 4 command lines, got: $block"
move() {
    sed -e "s|/opt/gpucensus|$TMP/opt/gpucensus|g" -e "s|/var/lib/|$TMP/var/lib/|g" \
        -e "s|/var/log/|$TMP/var/log/|g" -e 's|-N 64 --ntasks-per-node=8|-N 3 --ntasks-per-node=2|' \
        -e "s|configs/quick.cfg|$ROOT/tests/slurm/health.cfg|"
}
cron=$(echo "$block" | grep -E '^[0-9*]+ [0-9*]+ [0-9*]+ [0-9*]+ [0-9*]+ ' | move)
prolog=$(echo "$block" | grep '^Prolog=' | move)
nhc=$(echo "$block" | grep '^\* || check_gpucensus ' | move)
exporter=$(echo "$block" | grep -- '--collector.textfile.directory=' | move)
[ -n "$cron" ] && [ -n "$prolog" ] && [ -n "$nhc" ] && [ -n "$exporter" ] || die "README lines not found"

# the installation the lines name
mkdir -p "$TMP/opt/gpucensus/slurm" "$TMP/var/lib/gpucensus" "$TMP/var/lib/node_exporter/textfile" \
    "$TMP/var/log" "$TMP/prolog"
ln -s "$ROOT/slurm/prolog.sh" "$TMP/opt/gpucensus/slurm/prolog.sh"
ln -s "$ROOT/slurm/daily.sh" "$TMP/opt/gpucensus/slurm/daily.sh"
mkplan() { sed -e "s|profile = \"sim/|profile = \"$ROOT/configs/sim/|" "$ROOT/configs/prolog.cfg" > "$TMP/prolog.cfg"; }
mkplan
cat > "$TMP/opt/gpucensus/slurm/prolog.conf" <<CONF
GPUCENSUS=$GC
GPUCENSUS_PLAN=$TMP/prolog.cfg
GPUCENSUS_BACKEND=sim
GPUCENSUS_GPUS=2
GPUCENSUS_BASELINE=$TMP/var/lib/gpucensus/history.db
GPUCENSUS_PROLOG_DIR=$TMP/prolog
CONF

sc_begin --prolog "${prolog#Prolog=}"

# the cron line: its command, as cron's shell would run it
cmd=$(echo "$cron" | cut -d' ' -f6-)
echo "cron: $cmd"
GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$TMP/night1 timeout 300 sh -c "$cmd"
rc=$?
cat "$TMP/var/log/gpucensus-daily.log"
case $rc in 0|1) ;; *) die "the nightly line: exit $rc (expected 0 or 1: a healthy cluster)" ;; esac
grep -q "gpucensus daily: check exit $rc" "$TMP/var/log/gpucensus-daily.log" || die "daily log"
db=$TMP/var/lib/gpucensus/history.db
[ "$(sqlite3 "$db" 'SELECT count(*) FROM gpus')" = 6 ] || die "the night's 6 GPUs are not in the history"
for n in n1 n2 n3; do
    grep -q "exit 0 after .*: all ok" "$TMP/prolog/$n/prolog.log" || { cat "$TMP/prolog/$n/prolog.log"; die "prolog on $n"; }
done
echo "ok: the cron line: census (prologs passed on n1..n3), history add, check against the history"

# the node_exporter line: the metrics are in its textfile directory, and
# node_exporter itself, started by that line (plus a loopback port and no
# other collectors), serves them without a scrape error
dir=$(echo "$exporter" | sed 's/.*--collector.textfile.directory=\([^ ]*\).*/\1/')
ls "$dir"/*.prom > /dev/null 2>&1 || die "no metrics in $dir"
promtool check metrics < "$dir/gpucensus.prom" || die "promtool"
[ "$(grep -c '^gpucensus_gpu_verdict{' "$dir/gpucensus.prom")" = 6 ] || die "6 GPU verdicts"
if command -v "${exporter%% *}" > /dev/null; then
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    $exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults --collector.textfile \
        > "$TMP/exporter.log" 2>&1 &
    exp_pid=$!
    /usr/bin/python3 - "$port" > "$TMP/scrape.txt" <<'PY' || { kill $exp_pid; cat "$TMP/exporter.log"; die "scraping node_exporter"; }
import sys, time, urllib.request
for _ in range(100):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(1)
PY
    kill $exp_pid; wait $exp_pid 2>/dev/null
    [ "$(grep -c '^gpucensus_gpu_verdict{' "$TMP/scrape.txt")" = 6 ] || die "node_exporter does not serve the 6 GPU verdicts"
    grep -q '^node_textfile_scrape_error 0$' "$TMP/scrape.txt" || die "node_exporter: textfile scrape error"
    echo "ok: the node_exporter line: node_exporter serves $dir/gpucensus.prom (6 GPUs, no scrape error)"
else
    echo "node_exporter not installed (prometheus-node-exporter): its textfile directory checked only"
fi

# the NHC line, under NHC's die/log (as in tests/ops/t_nhc.sh)
DIED=0 MSG=""
die_nhc() { DIED=1; shift; MSG="$*"; }
(
    die() { die_nhc "$@"; }
    log() { echo "log: $*"; }
    dbg() { :; }
    GPUCENSUS=$GC HOSTNAME_S=n2
    . "$ROOT/nhc/gpucensus.nhc"
    eval "${nhc#\* || }"
    rc=$?
    echo "NHC: ${nhc#\* || } on n2: return $rc, died $DIED $MSG"
    [ $rc = 0 ] && [ $DIED = 0 ]
) || die "the NHC line fails on a healthy node"
echo "ok: the NHC line passes on a healthy node"

sc_down
echo "ok: docs/operations.md 'Running it every day': cron, prolog, NHC and node_exporter lines"

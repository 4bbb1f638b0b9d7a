#!/bin/bash
# docs/operations.md, "Running it every day": every line of its first code block, run as
# written on the private Slurm cluster of the tests (cluster.sh), one scratch folder per
# kind of host:
#   /opt/gpucensus                 -> an installation in $TMP (links to this
#                                     checkout's scripts, prolog.conf beside them)
#   /var/lib, /var/log             -> $TMP/hist/var/... the history host's own disk
#                                     (mode 0700: no one else reads it)
#   /shared                        -> $TMP/shared, storage every host reads (the
#                                     census's results, the published verdicts)
#   -N 64 --ntasks-per-node=8      -> -N 3 --ntasks-per-node=2
#   configs/quick.cfg              -> tests/slurm/health.cfg (sim, 2 GPUs a node)
# and GPUCENSUS_BACKEND=sim:
#   - the Prolog= line goes into slurm.conf (sc_up --prolog): the census job
#     of the cron line starts only after slurm/prolog.sh passed on its nodes;
#   - before the first night the NHC line fails on a compute node, naming the
#     verdict file that was never published;
#   - the cron line's command runs on the history host: the census, the history
#     add, the publishing of each node's verdict (0444), the check against the
#     history with its Prometheus file;
#   - the NHC line's check runs under the NHC harness of tests/ops/t_nhc.sh, as a
#     user of its own (a compute node's, made here and removed at the end) who
#     cannot read the history host's folder: it passes on a healthy node, and
#     fails, naming the file, on a node nobody published and on a stale file;
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
    sed -e "s|/opt/gpucensus|$TMP/opt/gpucensus|g" -e "s|/var/lib/|$TMP/hist/var/lib/|g" \
        -e "s|/var/log/|$TMP/hist/var/log/|g" -e "s|/shared/|$TMP/shared/|g" \
        -e 's|-N 64 --ntasks-per-node=8|-N 3 --ntasks-per-node=2|' \
        -e "s|configs/quick.cfg|$ROOT/tests/slurm/health.cfg|"
}
cron=$(echo "$block" | grep -E '^[0-9*]+ [0-9*]+ [0-9*]+ [0-9*]+ [0-9*]+ ' | move)
prolog=$(echo "$block" | grep '^Prolog=' | move)
nhc=$(echo "$block" | grep '^\* || check_gpucensus ' | move)
exporter=$(echo "$block" | grep -- '--collector.textfile.directory=' | move)
[ -n "$cron" ] && [ -n "$prolog" ] && [ -n "$nhc" ] && [ -n "$exporter" ] || die "README lines not found"

# the installation the lines name
mkdir -p "$TMP/opt/gpucensus/slurm" "$TMP/hist/var/lib/gpucensus" "$TMP/hist/var/lib/node_exporter/textfile" \
    "$TMP/hist/var/log" "$TMP/prolog" "$TMP/shared/results" "$TMP/node"
chmod 700 "$TMP/hist"
ln -s "$ROOT/slurm/prolog.sh" "$TMP/opt/gpucensus/slurm/prolog.sh"
ln -s "$ROOT/slurm/daily.sh" "$TMP/opt/gpucensus/slurm/daily.sh"
mkplan() { sed -e "s|profile = \"sim/|profile = \"$ROOT/configs/sim/|" "$ROOT/configs/prolog.cfg" > "$TMP/prolog.cfg"; }
mkplan
cat > "$TMP/opt/gpucensus/slurm/prolog.conf" <<CONF
GPUCENSUS=$GC
GPUCENSUS_PLAN=$TMP/prolog.cfg
GPUCENSUS_BACKEND=sim
GPUCENSUS_PROLOG_GPUS=all
GPUCENSUS_GPUS=2
GPUCENSUS_BASELINE=-
GPUCENSUS_VERDICTS=$TMP/shared/gpucensus/verdicts
GPUCENSUS_PROLOG_DIR=$TMP/prolog
CONF

sc_begin --prolog "${prolog#Prolog=}"

# a compute node's user for NHC: reads /shared, cannot read the history host's folder
nhc_user=gcnhc$$
useradd -M -N -d "$TMP/node" -s /bin/bash "$nhc_user" || skip "useradd $nhc_user failed"
trap 'sc_down; userdel "$nhc_user" 2>/dev/null; rm -rf "$TMP"' EXIT
chown "$nhc_user" "$TMP/node"
cat > "$TMP/node/nhc.sh" <<'SH'
# NHC_HARNESS NODE LINE: the NHC line under NHC's die/log (as in tests/ops/t_nhc.sh); prints
# "return RC, died D: MESSAGE"; exit 0 when it passed
DIED=0 MSG=""
die() { DIED=1; shift; MSG="$*"; }
log() { echo "log: $*"; }
dbg() { :; }
HOSTNAME_S=$1
. "$NHC_FILE"
eval "$2"
rc=$?
echo "return $rc, died $DIED: $MSG"
[ $rc = 0 ] && [ $DIED = 0 ]
SH
nhc_on() {   # nhc_on NODE [LINE]: the NHC line on NODE, as the node's user; sets NHC_OUT
    NHC_OUT=$(cd "$TMP/node" && runuser -u "$nhc_user" -- env -i PATH=/usr/bin:/bin GPUCENSUS="$GC" \
        NHC_FILE="$ROOT/nhc/gpucensus.nhc" bash "$TMP/node/nhc.sh" "$1" "${2:-${nhc#\* || }}" 2>&1)
    local rc=$?
    echo "NHC on $1 as $nhc_user: $NHC_OUT"
    return $rc
}

# before the first night: nothing published, the NHC line fails and names the file
nhc_on n2 && die "the NHC line passed with nothing published"
[[ "$NHC_OUT" == *"$TMP/shared/gpucensus/verdicts: missing: no history database, catalogue or folder of published verdicts there"* ]] ||
    die "nothing published: $NHC_OUT"
echo "ok: before the first night, NHC fails on n2: no verdict published"

# the cron line: its command, as cron's shell would run it
cmd=$(echo "$cron" | cut -d' ' -f6-)
echo "cron: $cmd"
GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$TMP/shared/results/night1 timeout 300 sh -c "$cmd"
rc=$?
cat "$TMP/hist/var/log/gpucensus-daily.log"
case $rc in 0|1) ;; *) die "the nightly line: exit $rc (expected 0 or 1: a healthy cluster)" ;; esac
grep -q "gpucensus daily: check exit $rc" "$TMP/hist/var/log/gpucensus-daily.log" || die "daily log"
db=$TMP/hist/var/lib/gpucensus/history.db
[ "$(sqlite3 "$db" 'SELECT count(*) FROM gpus')" = 6 ] || die "the night's 6 GPUs are not in the history"
for n in n1 n2 n3; do
    grep -q "exit 0 after .*: all ok" "$TMP/prolog/$n/prolog.log" || { cat "$TMP/prolog/$n/prolog.log"; die "prolog on $n"; }
done
for n in n1 n2 n3; do
    f=$TMP/shared/gpucensus/verdicts/$n.verdict
    [ "$(stat -c %a "$f" 2>/dev/null)" = 444 ] || die "$f: not published read-only"
    grep -qx "node $n" "$f" && grep -qx "run $TMP/shared/results/night1/catalogue.json" "$f" || die "$f: $(cat "$f")"
    grep -q "nightly verdict: " "$TMP/prolog/$n/prolog.log" || die "$n: the prolog did not read the published verdict"
done
grep -q "gpucensus daily: verdicts published in $TMP/shared/gpucensus/verdicts" "$TMP/hist/var/log/gpucensus-daily.log" ||
    die "daily log: publishing"
echo "ok: the cron line: census (prologs passed on n1..n3), history add, verdicts published (0444), check against the history"

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

# the NHC line on a compute node, as its own user: the history's folder is out of its reach
runuser -u "$nhc_user" -- test -r "$db" && die "$nhc_user can read the history database: the hosts are not apart"
nhc_on n2 || die "the NHC line fails on a healthy node"
echo "ok: the NHC line passes on n2, as $nhc_user, from the published file alone"
nhc_on n4 && die "NHC passed on a node nobody published"
[[ "$NHC_OUT" == *"n4.verdict: missing: no verdict of n4 was published"* ]] || die "a missing file: $NHC_OUT"
sleep 2
nhc_on n2 "$(echo "${nhc#\* || }" | sed 's/-a [0-9]*/-a 1/')" && die "NHC passed on a stale file"
[[ "$NHC_OUT" == *"s old (more than 1 s): $TMP/shared/gpucensus/verdicts/n2.verdict is stale"* ]] || die "a stale file: $NHC_OUT"
echo "ok: the NHC line fails, naming the file, on a node nobody published and on a stale file"

sc_down
echo "ok: docs/operations.md 'Running it every day': cron, prolog, NHC and node_exporter lines"

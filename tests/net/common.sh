# Shared by the test bed's tests (tests/net/t_*.sh), after testbed.sh:
#   tb_census NAME [RUN OPTIONS]   sbatch -N TB_NODES slurm/census.sbatch
#                        tests/net/net.cfg (sim backend), waits for it; the
#                        catalogue in $TMP/NAME, the job's output in
#                        $TMP/NAME.out (SC_STATE, SC_EXIT as sc_wait_job)
#   tb_net_median DIR    the median bandwidth at the largest size of DIR's
#                        network links (bytes/s, an integer)
#   tb_expect DIR SLOW LEVEL   check's verdicts as a slow SLOW (or none) makes them
# shellcheck shell=bash

TB_PLAN=${TB_PLAN:-tests/net/net.cfg}

tb_census() {
    local name=$1 job; shift
    job=$(GPUCENSUS=$GC GPUCENSUS_BACKEND=sim GPUCENSUS_OUT=$TMP/$name \
          sbatch --parsable -N "$TB_NODES" --ntasks-per-node=1 -t 5 -J "gc-$name" \
          -o "$TMP/$name.out" slurm/census.sbatch "$TB_PLAN" "$@") || die "sbatch $name"
    sc_wait_job "$job" "${TB_WAIT_S:-180}"
}

tb_net_median() {
    /usr/bin/python3 - "$1" <<'PY'
import gccat, statistics, sys
c = gccat.load(sys.argv[1], points=False)
v = [l["bandwidth_top_p50_bps"] for l in c["links"] if l["kind"] == "network" and l["bandwidth_top_p50_bps"]]
print(int(statistics.median(v)))
PY
}

# tb_expect DIR SLOW LEVEL: check's verdicts of DIR: node SLOW (none: no
# node) at LEVEL or worse with a net_side reason, every link that is not
# ok one of its, every other node, link and GPU ok (tests/net/expect.py)
tb_expect() {
    "$GC" check "$1" --json > "$TMP/check.json"
    /usr/bin/python3 "$ROOT/tests/net/expect.py" "$TMP/check.json" "$2" "$3" "$1"
}

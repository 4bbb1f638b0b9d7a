#!/bin/sh
# The progress line's ETA on the sim backend: tests/mpi/eta.cfg makes each
# item last as the default plan's did on an H100 (on-GPU items a fraction
# of their budgets, transfers about their budgets, the sustained load its
# duration) on 2 nodes x 2 GPUs; tools/eta-check.py runs it and fails when
# a progress line from 10% of the run on is more than 25% off the time
# truly left. The items sleep (about 18 s): the run's time is theirs, not
# the CPU's; lines with under 4 s left are not counted, since the run's
# end (analysis, node files, catalogue: no item's budget, a second or so
# on a loaded machine) is then most of what is left.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
MPIRUN="$MPIRUN" GC="$GC" /usr/bin/python3 tools/eta-check.py --np 4 --min-left 4 --max-err 0.25 \
    -- tests/mpi/eta.cfg --backend sim > "$TMP/eta.txt" 2>&1
rc=$?
cat "$TMP/eta.txt"
[ $rc -eq 0 ] || die "ETA off by more than 25% (or the run failed: exit $rc)"
grep -q '^phase gpu .*(0\.[0-9]* s per second of budget)' "$TMP/eta.txt" || die "no per-phase line"
echo "ok: ETA within 25% from 10% of the run on"

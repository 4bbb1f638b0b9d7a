#!/bin/sh
# A second run into an OUT that holds a run is refused (exit 2, naming
# --resume and --force) and leaves it as it was; --force replaces it; a run
# that ends removes its lock file.
. "$(dirname "$0")/../lib.sh"
out=$TMP/out
printf 'name = "rerun"; benchmarks = ( { name = "launch"; samples = 50; budget_s = 0.5; } );\nsim = { profile = "%s/configs/sim/h100-sxm.cfg"; nodes = 1; gpus_per_node = 2; };\n' \
    "$ROOT" > "$TMP/p.cfg"
$MPIRUN -np 2 "$GC" run "$TMP/p.cfg" --backend sim -o "$out" --quiet > "$TMP/1.log" 2>&1 ||
    { cat "$TMP/1.log"; die "first run"; }
[ -e "$out/gpucensus.lock" ] && die "the lock file is left after a clean end"
sum1=$(sha256sum "$out/catalogue.json")
$MPIRUN -np 2 "$GC" run "$TMP/p.cfg" --backend sim -o "$out" --quiet > "$TMP/2.log" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$TMP/2.log"; die "second run into a finished OUT: exit $rc, expected 2"; }
grep -q "holds a run already (its catalogue.json): .*--resume $out.*--force replaces it" "$TMP/2.log" ||
    { cat "$TMP/2.log"; die "the refusal does not name --resume and --force"; }
[ "$(sha256sum "$out/catalogue.json")" = "$sum1" ] || die "the refused run changed the catalogue"
# a stopped run (its roster, no catalogue) is refused alike
rm "$out/catalogue.json"
$MPIRUN -np 2 "$GC" run "$TMP/p.cfg" --backend sim -o "$out" --quiet > "$TMP/3.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'holds a run that stopped before it finished' "$TMP/3.log" ||
    { cat "$TMP/3.log"; die "second run into a stopped OUT: exit $rc"; }
$MPIRUN -np 2 "$GC" run "$TMP/p.cfg" --backend sim -o "$out" --quiet --force > "$TMP/4.log" 2>&1 ||
    { cat "$TMP/4.log"; die "--force"; }
[ -s "$out/catalogue.json" ] && [ ! -e "$out/gpucensus.lock" ] || die "--force: no catalogue, or the lock left"
echo "ok: a finished or stopped OUT refused (exit 2), --force replaces it, no lock file left"

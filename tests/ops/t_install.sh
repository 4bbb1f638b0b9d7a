#!/bin/bash
# make install PREFIX=$TMP/prefix: what an operator gets on a cluster, used
# as they would use it, from a folder outside the checkout:
#   - the binary, configs, schemas, slurm and nhc files and the lmod
#     modulefile are where the Makefile says (PREFIX/bin,
#     PREFIX/share/gpucensus, PREFIX/share/modulefiles/gpucensus.lua), none
#     writable by others;
#   - in a shell with Debian's lmod: `module use PREFIX/share/modulefiles;
#     module load gpucensus` puts gpucensus on PATH (`gpucensus --help`
#     exits 0) and `gpucensus plan quick.cfg` (and configs/quick.cfg) finds
#     the installed plan through GPUCENSUS_HOME;
#   - the installed slurm/prolog.sh, with no settings at all but the sim
#     backend, finds the installed binary, plan and SKU baselines itself.
# Skipped (77) where lmod is not installed (tools/deps.sh test installs it).
. "$(dirname "$0")/../lib.sh"
set -u
lmod_init=/etc/profile.d/lmod.sh
[ -r "$lmod_init" ] || skip "no lmod ($lmod_init; Debian package lmod, tools/deps.sh test)"
[ -x "$GC" ] || die "no $GC (make first)"
prefix=$TMP/prefix
make -C "$ROOT" -s install PREFIX="$prefix" BUILD="$BUILD" > "$TMP/install.log" 2>&1 ||
    { cat "$TMP/install.log"; die "make install"; }
share=$prefix/share/gpucensus
for f in bin/gpucensus share/modulefiles/gpucensus.lua share/gpucensus/configs/quick.cfg \
         share/gpucensus/configs/prolog.cfg share/gpucensus/configs/sim/h100-sxm.cfg \
         share/gpucensus/configs/baselines share/gpucensus/results-schema/catalogue.schema.json \
         share/gpucensus/slurm/prolog.sh share/gpucensus/slurm/prolog.conf.example \
         share/gpucensus/slurm/daily.sh share/gpucensus/slurm/census.sbatch share/gpucensus/nhc/gpucensus.nhc; do
    [ -e "$prefix/$f" ] || die "not installed: $f"
done
[ -z "$(find "$prefix" -perm /022 ! -type l)" ] || die "writable by others: $(find "$prefix" -perm /022 ! -type l | head -3)"
echo "ok: make install: binary, configs, schemas, slurm, nhc and the modulefile in $prefix"

mkdir "$TMP/elsewhere"
cd "$TMP/elsewhere" || die "cd"
env -i HOME="$TMP/elsewhere" PATH=/usr/bin:/bin LMOD_INIT="$lmod_init" MF="$prefix/share/modulefiles" \
    bash --norc --noprofile -c '
    . "$LMOD_INIT" || exit 10
    module use "$MF" && module load gpucensus || exit 11
    [ "$(command -v gpucensus)" = "${MF%/share/modulefiles}/bin/gpucensus" ] || { echo "PATH: $(command -v gpucensus)"; exit 12; }
    gpucensus --help > help.txt 2>&1 || { cat help.txt; exit 13; }
    echo "GPUCENSUS_HOME=$GPUCENSUS_HOME GPUCENSUS=$GPUCENSUS"
    gpucensus plan quick.cfg > plan1.txt 2>&1 || { cat plan1.txt; exit 14; }
    gpucensus plan configs/quick.cfg > plan2.txt 2>&1 || { cat plan2.txt; exit 15; }
    head -n 1 plan1.txt
' > "$TMP/module.log" 2>&1
rc=$?
cat "$TMP/module.log"
[ $rc = 0 ] || die "in a shell with lmod (step $rc)"
grep -q "^GPUCENSUS_HOME=$share GPUCENSUS=$prefix/bin/gpucensus$" "$TMP/module.log" || die "the module's variables"
grep -q "^plan quick ($share/configs/quick.cfg)" "$TMP/elsewhere/plan1.txt" || die "plan quick.cfg: $(head -n 1 "$TMP/elsewhere/plan1.txt")"
grep -q "^plan quick ($share/configs/quick.cfg)" "$TMP/elsewhere/plan2.txt" || die "plan configs/quick.cfg"
echo "ok: module load gpucensus: gpucensus --help exits 0, gpucensus plan finds the installed quick.cfg"

# the installed prolog, with no prolog.conf: its own binary, plan and baselines
env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin SLURMD_NODENAME=n1 SLURM_JOB_ID=1 SLURM_JOB_GPUS=0,1 \
    GPUCENSUS_BACKEND=sim GPUCENSUS_PROLOG_DIR="$TMP/prolog" GPUCENSUS_DRAIN=0 \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
    OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo "$share/slurm/prolog.sh"
cat "$TMP/prolog/n1/prolog.log"
[ -s "$TMP/prolog/n1/census1/catalogue.json" ] || die "the installed prolog's census: $(cat "$TMP/prolog/n1/census1.log")"
grep -q "baseline: $share/configs/baselines" "$TMP/prolog/n1/check1.out" || die "the installed prolog's baselines"
echo "ok: the installed slurm/prolog.sh finds its binary, plan and baselines in $prefix"

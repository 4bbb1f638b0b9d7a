#!/bin/sh
# tools/kdesc.py on a fixture captured on an H200 machine (tests/kdesc/
# fixture/: cuobjdump -sass of build/kernels/valid.o, its ptxas -v log, and
# sources.sha256, the sha256 of the kernels/valid.cu + valid_table.h they
# were built from): the counts the SASS really holds, refusal of loops and
# of wrong access annotations, the committed descriptions, and
# tools/embed_desc.sh (committed / stale / none).
# Needs python3 only (no GPU, no cuobjdump).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "no python3"
FX=$ROOT/tests/kdesc/fixture
KD="python3 $ROOT/tools/kdesc.py"
gzip -dc "$FX/valid.sass.gz" > "$TMP/valid.sass" || die "fixture SASS"

kdesc() {   # kdesc SASS TABLE OUTDIR
    $KD --sass "$1" --ptxas "$FX/valid.ptxas.log" --table "$2" --source "$ROOT/kernels/valid.cu" \
        --tool "$(cat "$FX/tool.txt")" -o "$3"
}
val() {     # val FILE KEY: the first `KEY = N` in FILE (dotted: group.key)
    case "$2" in
    *.*) sed -n "s/^ *${2%%.*} = {.* ${2#*.} = \([0-9]*\);.*/\1/p" "$1" | head -n 1 ;;
    *) sed -n "s/^ *$2 = \"*\([^\";L]*\)\"*L*;.*/\1/p" "$1" | head -n 1 ;;
    esac
}
want() {    # want KERNEL KEY VALUE
    got=$(val "$TMP/out/$1.cfg" "$2")
    [ "$got" = "$3" ] || die "$1: $2 = '$got', expected $3"
}

TABLE=$ROOT/kernels/valid_table.h
kdesc "$TMP/valid.sass" "$TABLE" "$TMP/out" || die "kdesc.py refused the fixture"
[ "$(ls "$TMP/out"/*.cfg | wc -l)" -eq 19 ] || die "expected 19 descriptions"

# saxpy_a16 (SASS: 16 FFMA, IMAD + 2 IMAD.WIDE.U32, 2 LDG, 1 STG, EXIT,
# 8 LDC/ULDC/S2R/S2UR); the chain S2R->IMAD->IMAD.WIDE->LDG->16 FFMA.
want saxpy_a16 insts.fp32 16
want saxpy_a16 insts.int 3
want saxpy_a16 insts.control 1
want saxpy_a16 insts.other 8
want saxpy_a16 registers_per_thread 10
want saxpy_a16 grid_blocks 524288
want saxpy_a16 block_threads 256
want saxpy_a16 critical_path.fp32 16
want saxpy_a16 critical_path.int 2
want saxpy_a16 critical_path.gmem 1
grep -q 'op = "load"; count = 2; bytes_per_thread = 4; sectors_per_inst = 4;' "$TMP/out/saxpy_a16.cfg" \
    || die "saxpy_a16: load group"
grep -q 'op = "store"; count = 1; bytes_per_thread = 4; sectors_per_inst = 4;' "$TMP/out/saxpy_a16.cfg" \
    || die "saxpy_a16: store group"
want saxpy_a1 insts.fp32 1
want saxpy_a4096 insts.fp32 4096
p=$(val "$TMP/out/saxpy_a4096.cfg" critical_path.fp32)
[ "$p" -ge 4096 ] || die "saxpy_a4096: critical path has $p fp32, expected >= 4096"
# occupancy: same code, dummy smem for K/2 blocks of 64 threads per SM (sm_90)
want occ_w2 smem_dynamic_bytes 232448
want occ_w64 smem_dynamic_bytes 6272
want occ_w2 insts.fp32 16
want occ_w2 grid_blocks 131072
# stride: one FFMA (the 2.0 comes from an HFMA2.MMA move: "other")
want stride_s32 insts.fp32 1
want stride_s32 registers_per_thread 12
grep -q 'op = "load"; count = 1; bytes_per_thread = 4; sectors_per_inst = 32;' "$TMP/out/stride_s32.cfg" \
    || die "stride_s32: 32 sectors per load"
# isolated sectors: stride_s32's lie in 32 lines, stride_s8's in 8 (default)
grep -q 'sectors_per_inst = 32; lines_per_inst = 32;' "$TMP/out/stride_s32.cfg" \
    || die "stride_s32: 32 lines per load"
grep -q 'lines_per_inst' "$TMP/out/stride_s8.cfg" && die "stride_s8: contiguous sectors, no lines_per_inst"
# chase: 1 cursor load + 1024 dependent loads, all on the chain
want chase_dram critical_path.gmem 1025
want chase_dram grid_blocks 132
want chase_dram registers_per_thread 20
grep -q 'count = 1024; bytes_per_thread = 8; sectors_per_inst = 32;' "$TMP/out/chase_dram.cfg" \
    || die "chase_dram: load group"
cur=$(cat "$ROOT/kernels/valid.cu" "$TABLE" | sha256sum | cut -d' ' -f1)
want saxpy_a4 source_sha256 "$cur"
echo "fixture counts ok"

# refused: a loop (a backward branch in saxpy_a16), a wrong annotation
sed '/Function : gcv_saxpy_a16$/,/EXIT/ s|/\*0100\*/ *FFMA R7, R7, UR6, R4 ;|/*0100*/ @P0 BRA 0xd0 ;|' \
    "$TMP/valid.sass" > "$TMP/loop.sass"
cmp -s "$TMP/valid.sass" "$TMP/loop.sass" && die "loop injection did not apply"
kdesc "$TMP/loop.sass" "$TABLE" "$TMP/o2" 2> "$TMP/err" && die "a loop was accepted"
grep -q "saxpy_a16: backward branch" "$TMP/err" || die "loop refusal: $(cat "$TMP/err")"
sed '/^GCV("saxpy_a4",/ s/load 2x4B/load 3x4B/' "$TABLE" > "$TMP/bad.h"
kdesc "$TMP/valid.sass" "$TMP/bad.h" "$TMP/o3" 2> "$TMP/err" && die "a wrong annotation was accepted"
grep -q "saxpy_a4: .*2 load x 4B.*3 load x 4B" "$TMP/err" || die "annotation refusal: $(cat "$TMP/err")"
# an annotated loop is unrolled: the same saxpy_a4 loop body (3 FFMA + BRA) twice
sed '/Function : gcv_saxpy_a4$/,/EXIT/ s|/\*0100\*/ *FFMA R7, R7, UR6, R2 ;|/*0100*/ @P0 BRA 0xd0 ;|' \
    "$TMP/valid.sass" > "$TMP/loop4.sass"
sed '/^GCV("saxpy_a4",/ s/ 0, 0, "load/ 0, 2, "load/' "$TABLE" > "$TMP/trips.h"
kdesc "$TMP/loop4.sass" "$TMP/trips.h" "$TMP/o4" || die "annotated loop refused"
[ "$(val "$TMP/o4/saxpy_a4.cfg" insts.fp32)" = 6 ] || die "trips: fp32 != 6"
[ "$(val "$TMP/o4/saxpy_a4.cfg" insts.control)" = 3 ] || die "trips: control != 3"
echo "refusals ok"

# the committed descriptions: one per row of the table (the registry's
# valid kernels are built from it; the held-out kernels, held_*, are
# tools/describe.py's: t_describe.sh); equal to kdesc.py's output when the
# fixture is of the same sources
names=$(grep -o '^GCV("[a-z0-9_]*"' "$TABLE" | sed 's/GCV("//; s/"//' | sort)
[ "$(echo "$names" | wc -l)" -eq 19 ] || die "table: $(echo "$names" | wc -l) valid kernels"
com=$(for f in "$ROOT"/configs/kernels/valid/*.cfg; do val "$f" name; done | sort)
[ "$names" = "$com" ] || die "configs/kernels/valid/ does not describe every table kernel"
sha=$(cat "$FX/sources.sha256")   # the sources the fixture's SASS came from
if [ "$sha" = "$cur" ] && [ "$(val "$ROOT/configs/kernels/valid/saxpy_a1.cfg" source_sha256)" = "$sha" ]; then
    for f in "$ROOT"/configs/kernels/valid/*.cfg; do
        cmp -s "$f" "$TMP/out/$(basename "$f")" || die "$f is not kdesc.py's output for the fixture"
    done
fi
[ "$sha" = "$cur" ] || echo "note: the fixture is of an older kernels/valid.cu (refresh it on a GPU machine)"
if [ -f "$BUILD/gen/valid_desc.c" ]; then   # what this build embedded
    emb=$(sed -n 's/^    { "\([a-z0-9_]*\)",$/\1/p' "$BUILD/gen/valid_desc.c" | sort)
    [ "$names" = "$emb" ] || die "$BUILD/gen/valid_desc.c does not embed every table kernel"
fi
echo "table and descriptions agree"

# tools/embed_desc.sh without cuobjdump: committed, stale, none
cc=${CC:-cc}
emb() {   # emb DIR: origin and count of the embedded C for committed dir DIR
    rm -rf "$TMP/b" && mkdir -p "$TMP/b"
    "$ROOT/tools/embed_desc.sh" "$TMP/b" "" "$1" 2> "$TMP/warn" || die "embed_desc.sh failed"
    $cc -std=c11 -Wall -Werror -Wno-comment -I"$ROOT/src" -c "$TMP/b/gen/valid_desc.c" -o "$TMP/b/d.o" \
        || die "valid_desc.c does not compile"
    echo "$(sed -n 's/.*origin\[\] = "\(.*\)";/\1/p' "$TMP/b/gen/valid_desc.c")" \
         "$(sed -n 's/.*ndescs = \([0-9]*\);/\1/p' "$TMP/b/gen/valid_desc.c")"
}
mkdir -p "$TMP/none" "$TMP/stale"
o=$(emb "$ROOT/configs/kernels/valid")
[ "$sha" = "$cur" ] && [ "$o" != "committed 19" ] && die "embedded: $o, expected committed 19"
[ "$(emb "$TMP/none")" = "committed 0" ] || die "no descriptions: $(emb "$TMP/none")"
sed 's/source_sha256 = "[0-9a-f]*"/source_sha256 = "00"/' "$TMP/out/saxpy_a1.cfg" > "$TMP/stale/saxpy_a1.cfg"
[ "$(emb "$TMP/stale")" = "stale 1" ] || die "stale: $(emb "$TMP/stale")"
[ "$(grep -c warning "$TMP/warn")" -eq 1 ] || die "stale: expected one warning line"
echo "embed_desc.sh ok"

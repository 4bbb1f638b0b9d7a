#!/bin/sh
# tools/describe.py on fixtures captured on an H100 machine (tests/kdesc/
# heldout/: cuobjdump -sass and -res-usage of build/kernels/heldout.o at
# cc025fa (GPU-5cff7429), Nsight Compute 2025.3.1's per-instruction counts
# (SourceCounters, --page source --csv) and per-kernel totals (--page raw
# --csv) of the first launch of every held-out kernel, and the DRAM and
# sector totals of its third launch (ncu-warm.csv, --cache-control none,
# one pass; lab/gpu/heldout_run.sh): the counts a profile gives, the same counts from
# trip counts without a profile, the refusals, and that gpucensus reads the
# result. Needs python3 only (no GPU, no cuobjdump, no ncu).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "no python3"
FX=$ROOT/tests/kdesc/heldout
gzip -dc "$FX/heldout.sass.gz" > "$TMP/h.sass" || die "fixture SASS"
gzip -dc "$FX/ncu-source.csv.gz" > "$TMP/src.csv" || die "fixture profile"
DS="python3 $ROOT/tools/describe.py --sass $TMP/h.sass --res $FX/heldout.res"
prof() {    # prof KERNEL OUT: from the profile, launch from configs/kernels/heldout
    $DS --spec "$ROOT/configs/kernels/heldout/$1.spec" --ncu-source "$TMP/src.csv" \
        --ncu-raw "$FX/ncu-raw.csv" --ncu-dram "$FX/ncu-warm.csv" --tool "$(cat "$FX/tool.txt")" -o "$2"
}
has() {     # has FILE TEXT
    grep -qF -- "$2" "$1" || die "$(basename "$1"): no '$2' in: $(grep -E 'insts|count|critical|regis|smem' "$1")"
}

# tiled SGEMM (2048^3, 32x32 tiles, 4 outputs per thread): 64 k-steps of
# 4 + 4 tile loads, 32 x 4 FFMA and 32 x 4.5 LDS each (the LDS.128 of A's
# row are 2-way: 6656 shared wavefronts); a warp issues in order, so its
# path waits for the tile loads of every k-step (64) and, through the
# barriers, for the shared stores
prof held_sgemm_tiled "$TMP/sgemm.cfg" || die "describe refused held_sgemm_tiled"
has "$TMP/sgemm.cfg" 'origin = "profile";'
has "$TMP/sgemm.cfg" 'registers_per_thread = 44;'
has "$TMP/sgemm.cfg" 'smem_static_bytes = 8192;'
has "$TMP/sgemm.cfg" 'fp32 = 8196;'
has "$TMP/sgemm.cfg" 'smem = 4608;'
has "$TMP/sgemm.cfg" '{ op = "load"; count = 512; bytes_per_thread = 4; sectors_per_inst = 4; dram_ratio = 0.0081; l1_hit_ratio = 0.0003; }'
has "$TMP/sgemm.cfg" 'syncs = 128;'
has "$TMP/sgemm.cfg" 'smem_wavefronts = 6656;'
has "$TMP/sgemm.cfg" 'critical_path = { fp32 = 512; fp64 = 0; int = 458; sfu = 0; smem = 1152; gmem = 64; };'
# the naive transpose's stores: one sector per lane (32 per warp store);
# the unrolled loop's guarded copies (predicated off in every lane) issue
# but access nothing: 4 loads and 4 stores per warp, not 8 and 8
prof held_transpose_naive "$TMP/tn.cfg" || die "describe refused held_transpose_naive"
has "$TMP/tn.cfg" '{ op = "store"; count = 4; bytes_per_thread = 4; sectors_per_inst = 32; dram_ratio = 0.1511; }'
has "$TMP/tn.cfg" '{ op = "load"; count = 4; bytes_per_thread = 4; sectors_per_inst = 4; },'
grep -q 'sectors_per_inst = 4; dram_ratio = 0.1511' "$TMP/tn.cfg" && die "a store predicated off was counted"
# the grid-stride reduction: a load per trip, waited for before the next
# one is issued (in-order issue): 16 dependent DRAM loads on its path
prof held_reduce_shfl "$TMP/rs0.cfg" || die "describe refused held_reduce_shfl"
has "$TMP/rs0.cfg" 'gmem = 16; };'
# stencil1d's halo loads run in 3 lanes of one warp of 8: a sixteenth of a
# full warp's access each (the profile's sectors), not a whole one
prof held_stencil1d "$TMP/s1.cfg" || die "describe refused held_stencil1d"
has "$TMP/s1.cfg" '{ op = "load"; count = 1.0625; bytes_per_thread = 4; sectors_per_inst = 4; dram_ratio = 0.9412; },'
# the DRAM bytes of a warm launch (the third, caches as the launches before
# left them): its stores' bytes all reach DRAM (the flushed profile: 0.88)
has "$TMP/s1.cfg" '{ op = "store"; count = 1; bytes_per_thread = 4; sectors_per_inst = 4; dram_ratio = 0.9952; }'
# bitonic sort: bank conflicts of its compare-exchange (1.75-way on average)
prof held_bitonic_sort "$TMP/bs.cfg" || die "describe refused held_bitonic_sort"
has "$TMP/bs.cfg" 'smem = 175;'
has "$TMP/bs.cfg" 'smem_wavefronts = 306;'
# every held-out kernel of the fixture (the kernels whose description is
# committed): the committed description is what the fixture gives
for s in "$ROOT"/configs/kernels/heldout/*.spec; do
    k=$(basename "$s" .spec)
    [ -f "$ROOT/configs/kernels/heldout/$k.cfg" ] || continue
    sed 's/^  source_sha256 = .*//' "$ROOT/configs/kernels/heldout/$k.cfg" > "$TMP/want.cfg"
    prof "$k" "$TMP/$k.cfg" || die "describe refused $k"
    sed 's/^  source_sha256 = .*//' "$TMP/$k.cfg" | diff -u "$TMP/want.cfg" - >&2 ||
        die "$k: configs/kernels/heldout/$k.cfg is not what describe makes of the fixture"
done
echo "profile counts ok"

# a CALL into the function's own subroutine (how nvcc emits the math
# library's slow paths: IEEE division, sqrtf), cuobjdump's form: counted at
# the call, its guard at the spec's slowpath share (default 0: never), its
# own branches evenly once entered
cat > "$TMP/call.sass" <<'EOF'
	code for sm_90
		Function : k_div
        /*0000*/                   LDG.E R0, desc[UR4][R2.64] ;
        /*0010*/                   MUFU.RCP R5, R0 ;
        /*0020*/                   FCHK P0, R4, R0 ;
        /*0030*/                   FFMA R6, -R0, R5, 1 ;
        /*0040*/              @!P0 BRA 0x70 ;
        /*0050*/                   MOV R8, 0x60 ;
        /*0060*/                   CALL.REL.NOINC 0xa0 ;
        /*0070*/                   STG.E desc[UR4][R2.64], R6 ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA 0x90;
        /*00a0*/                   FSETP.GEU.AND P1, PT, R0, RZ, PT ;
        /*00b0*/              @!P1 BRA 0xd0 ;
        /*00c0*/                   FMUL R6, R6, 2 ;
        /*00d0*/                   FADD R6, R6, 1 ;
        /*00e0*/                   RET.REL.NODEC R8 0x0 ;
        /*00f0*/                   BRA 0xf0;
EOF
printf ' Function k_div:\n  REG:10 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0\n' > "$TMP/call.res"
printf 'kernel = k_div\ngrid = 100\nblock = 256\n' > "$TMP/c0.spec"
printf 'kernel = k_div\ngrid = 100\nblock = 256\nslowpath = 0.5\n' > "$TMP/c1.spec"
CS="python3 $ROOT/tools/describe.py --sass $TMP/call.sass --res $TMP/call.res"
$CS --spec "$TMP/c0.spec" -o "$TMP/c0.cfg" || die "describe refused a call to a slow path"
has "$TMP/c0.cfg" 'insts = { fp32 = 2; fp64 = 0; int = 0; sfu = 1; conv = 0; smem = 0; control = 2; other = 0; };'
$CS --spec "$TMP/c1.spec" -o "$TMP/c1.cfg" || die "describe refused slowpath = 0.5"
has "$TMP/c1.cfg" 'insts = { fp32 = 3.25; fp64 = 0; int = 0; sfu = 1; conv = 0; smem = 0; control = 3.5; other = 0.5; };'
sed 's/CALL.REL.NOINC 0xa0/CALL.ABS.NOINC 0x0/' "$TMP/call.sass" > "$TMP/callx.sass"
out=$(python3 "$ROOT/tools/describe.py" --sass "$TMP/callx.sass" --res "$TMP/call.res" --spec "$TMP/c0.spec" -o "$TMP/x.cfg" 2>&1) &&
    die "a call outside the function was accepted"
echo "$out" | grep -q "a call outside the function at 0x60" || die "call refusal: $out"
echo "calls ok"

# without a profile: trip counts and branch fractions give the same counts
printf 'kernel = held_reduce_shfl\ngrid = 8192\nblock = 256\n' > "$TMP/none.spec"
out=$($DS --spec "$TMP/none.spec" -o "$TMP/x.cfg" 2>&1) && die "a loop without a trip count was accepted"
echo "$out" | grep -q "held_reduce_shfl: loop 1 (header 0x100, back edge at 0x150 \`@!P0 BRA 0x100\`): no trip count" \
    || die "loop refusal: $out"
printf 'kernel = held_reduce_shfl\ngrid = 8192\nblock = 256\ntrips 1 = 16\n' > "$TMP/nobr.spec"
out=$($DS --spec "$TMP/nobr.spec" -o "$TMP/x.cfg" 2>&1) && die "a branch without a fraction was accepted"
echo "$out" | grep -q "conditional branch at 0xc0 (\`@P0 BRA 0x160\`): no taken fraction" || die "branch refusal: $out"
$DS --spec "$FX/reduce_shfl_trips.spec" -o "$TMP/trips.cfg" || die "describe refused the trip counts"
prof held_reduce_shfl "$TMP/rs.cfg" || die "describe refused held_reduce_shfl"
has "$TMP/trips.cfg" 'origin = "sass";'
for key in insts syncs critical_path; do
    [ "$(grep "^  $key =" "$TMP/trips.cfg")" = "$(grep "^  $key =" "$TMP/rs.cfg")" ] ||
        die "trip counts vs profile: $key differs"
done
has "$TMP/trips.cfg" '{ op = "load"; count = 16; bytes_per_thread = 4; sectors_per_inst = 4; },'
has "$TMP/trips.cfg" '{ op = "store"; count = 0.125; bytes_per_thread = 4; sectors_per_inst = 4; }'
echo "trip counts ok"

# refused: another kernel's profile, another launch shape
out=$($DS --kernel held_scan --grid 131072 --block 256 --ncu-source "$TMP/src.csv" -o "$TMP/x.cfg" 2>&1) \
    || die "held_scan's own profile refused: $out"
sed 's/"held_scan",/"held_scan_x",/; s/"held_transpose_naive",/"held_scan",/' "$TMP/src.csv" > "$TMP/wrong.csv"
out=$($DS --kernel held_scan --grid 131072 --block 256 --ncu-source "$TMP/wrong.csv" -o "$TMP/x.cfg" 2>&1) &&
    die "another kernel's profile was accepted"
echo "$out" | grep -q "held_scan: the profile has" || die "profile refusal: $out"
out=$($DS --kernel held_scan --grid 65536 --block 256 --ncu-source "$TMP/src.csv" -o "$TMP/x.cfg" 2>&1) &&
    die "another launch shape was accepted"
echo "$out" | grep -q "another launch shape" || die "launch refusal: $out"
echo "refusals ok"

# gpucensus reads what describe writes (origin "profile", dram_ratio)
if [ -x "$ROOT/build/gpucensus" ]; then
    "$ROOT/build/gpucensus" predict "$ROOT/tests/data/fleet/h100-2026-11-25-a912eb2b2ca9-models" \
        "$TMP/sgemm.cfg" > "$TMP/pred.txt" 2>&1 || die "predict: $(cat "$TMP/pred.txt")"
    grep -q 'NVIDIA H100' "$TMP/pred.txt" || die "predict: $(cat "$TMP/pred.txt")"
fi
echo "describe ok"

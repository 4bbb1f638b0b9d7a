#!/bin/sh
# Checks the timed windows of the benchmark kernels in their SASS: between
# two %clock64 reads (CS2R ... SR_CLOCKLO) each latency window must hold
# exactly the intended instructions, the expected number of them, and a
# consumer of the last result (a shared store) before the stop clock.
# Needs nvcc and cuobjdump, no GPU. Exit 77 (skipped) when either is missing.
#   tests/sass/check_sass.sh [objects...]   (default: compiles kernels/*.cu)
# VERBOSE=1 prints every window.
cd "$(dirname "$0")/../.." || exit 1
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")}
if [ ! -x "$CUOBJDUMP" ]; then echo "SKIP: cuobjdump not found"; exit 77; fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
objs="$*"
if [ -z "$objs" ]; then
    NVCC=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
    if [ ! -x "$NVCC" ]; then echo "SKIP: nvcc not found"; exit 77; fi
    for f in kernels/chase.cu kernels/inst.cu kernels/stream.cu; do
        o="$tmp/$(basename "$f" .cu).o"
        "$NVCC" -O3 -gencode arch=compute_90,code=sm_90 -c "$f" -o "$o" || exit 1
        objs="$objs $o"
    done
fi
for o in $objs; do "$CUOBJDUMP" -sass -arch sm_90 "$o"; done > "$tmp/all.sass" || exit 1
awk -v verbose="${VERBOSE:-0}" '
function sig_of(op) {
    if (op == "f32_add") return "FADD";       if (op == "f32_mul") return "FMUL";
    if (op == "f32_fma") return "FFMA";       if (op == "f32_div") return "MUFU.RCP";
    if (op == "f32_sqrt") return "MUFU.RSQ";  if (op == "f64_add") return "DADD";
    if (op == "f64_fma") return "DFMA";       if (op == "f64_div") return "MUFU.RCP64H";
    if (op == "i32_add") return "IADD3";      if (op == "i32_mul") return "IMAD";
    if (op == "i32_div") return "MUFU.RCP";   if (op == "sfu_sin") return "MUFU.SIN";
    if (op == "sfu_exp") return "MUFU.EX2";   if (op == "smem_ld") return "LDS";
    return "?";
}
# ops whose window must hold nothing but the op and the result stores
function pure(op) { return op ~ /^(f32_add|f32_mul|f32_fma|f64_add|f64_fma|i32_add|i32_mul|smem_ld)$/ }
function is_sig(opc, sig) { return sig == "LDS" ? opc ~ /^LDS/ : sig == "LDG" ? opc ~ /^LDG/ : opc == sig }
function fail(msg) { print "FAIL " fn ": " msg; bad++ }
# analyse the windows of the finished function fn (instructions ins[1..n])
function finish(   i, w, nclk, clk, a, b, k, cnt, other, last_sig, last_sts, first_cons, good, kind, op, ilp, want, sig, m, K) {
    if (fn == "") return
    kind = ""
    if (match(fn, /^gck_(lat|twin|tp)_/)) {
        kind = substr(fn, 5, RLENGTH - 5)
        rest = substr(fn, RLENGTH + 1)
        ilp = rest; sub(/.*_/, "", ilp); op = rest; sub(/_[0-9]+$/, "", op)
        sig = sig_of(op)
        want = kind == "lat" ? 32 * ilp : kind == "tp" ? 16 * ilp : 0
    } else if (fn == "gck_chase_kernel" || fn == "gck_chase_loaded_kernel") {
        kind = "chase"; sig = "LDG"; want = 32
    } else if (fn == "gck_chase_twin_kernel") {
        kind = "twin"; sig = "LDG"; want = 0
    } else if (fn ~ /gck_departure_kernel/) {
        kind = "dep"; sig = "LDG"
        K = fn; sub(/.*gck_departure_kernelILi/, "", K); sub(/E.*/, "", K); want = K + 0
    } else { fn = ""; return }
    checked++
    nclk = 0
    for (i = 1; i <= n; i++) if (ins[i] == "CS2R.CLOCK") clk[++nclk] = i
    good = 0
    for (w = 1; w < nclk; w++) {
        a = clk[w]; b = clk[w + 1]; cnt = 0; other = ""; last_sig = 0; last_sts = 0; first_cons = 0
        for (k = a + 1; k < b; k++) {
            if (is_sig(ins[k], sig)) { cnt++; last_sig = k }
            else if (ins[k] ~ /^STS/) { last_sts = k; if (!first_cons) first_cons = k }
            else if (ins[k] != "NOP" && ins[k] !~ /^(U?LDC|ULDC)/) {   # constant-bank operand loads: independent of the chain
                other = other " " ins[k]
            }
            if (ins[k] ~ /^(LDL|STL)/) fail("local memory (spill) in a timed window: " ins[k])
        }
        if (verbose) printf "%-40s window %d: %d x %s; others:%s\n", fn, w, cnt, sig, other
        # a gap between a stop clock and the next start clock stores the
        # sample (STG) and does loop bookkeeping: not a timed window
        if (other ~ / STG/) continue
        if (kind == "tp") {
            if (cnt > 0 && cnt % want == 0) good++
            continue
        }
        if (kind == "twin") {       # the window with only result stores
            if (cnt == 0 && last_sts && other == "") good++
            continue
        }
        if (cnt == 0) continue
        if (cnt != want) { fail("window holds " cnt " x " sig ", expected " want); continue }
        if (!(last_sts > last_sig)) { fail("no store of the result after the last " sig " (stop clock would not wait)"); continue }
        if (kind == "lat" && pure(op) && other != "") { fail("window holds more than " sig ":" other); continue }
        if (kind == "chase" && other != "") { fail("chase window holds more than the loads:" other); continue }
        if (kind == "dep") {
            if (first_cons && first_cons < last_sig) { fail("a result is consumed before the last request is issued"); continue }
        }
        good++
    }
    if (!good) fail("no timed window with " want " x " sig " (" nclk " clock reads)")
    fn = ""
}
/Function : / { finish(); fn = $NF; n = 0; next }
/^[ \t]*\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
    sub(/^@!?U?P[T0-9]+[ \t]+/, "", line)
    split(line, t, /[ \t;]+/)
    opc = t[1]
    if (opc ~ /^(CS2R|S2UR|S2R)/ && line ~ /SR_CLOCKLO/) opc = "CS2R.CLOCK"
    ins[++n] = opc
    next
}
END {
    finish()
    printf "%d kernels checked, %d failures\n", checked, bad
    if (checked < 300) { print "FAIL: expected >= 300 benchmark kernels in the objects"; exit 1 }
    exit bad ? 1 : 0
}' "$tmp/all.sass"

#!/bin/bash
# One call on the GPU machine for issue 14 (predict the kernels people
# write): build; the held-out kernels' SASS and resource usage (cuobjdump,
# for tools/describe.py); whether Nsight Compute is there and reads them
# (its per-kernel dynamic counts, kept for describe --ncu); then the census
# with lab/gpu/models.cfg (model parameters + validation suite) and with
# lab/gpu/heldout.cfg (the held-out kernels' times), and the accuracy
# table (lab/gpu/predict_table.py). Everything lands in
# $OUT/predict.tgz (log/ and res/) plus $OUT/log.txt.
# NCU=1 (default) profiles on every kind and makes the descriptions from
# that GPU's profile (tools/describe.py, $OUT/desc/, in predict.tgz): a
# cold profile (caches flushed, replayed) for the per-instruction counts,
# then one pass over a warm launch (the third, --cache-control none) for
# the DRAM bytes the timing loop's launches move; NCU=0 never.
# HELDOUT_RUNS=2 times the held-out set twice.
#   OUT=/some/dir GIT_COMMIT=abc lab/gpu/heldout_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:?}
mkdir -p "$OUT/log" "$OUT/res"
exec > >(tee "$OUT/log.txt") 2>&1
. tests/gpu/device_lib.sh
cp build/kernels/valid.ptxas.log "$OUT/log/" 2>/dev/null
tar czf "$OUT/log/kdesc.tgz" -C build/gen kdesc 2>/dev/null
echo "tools: cuobjdump=$(command -v cuobjdump) nvdisasm=$(command -v nvdisasm) ncu=$(command -v ncu)"
ncu --version 2>&1 | tail -n 1
cuobjdump --version | tail -n 1 > "$OUT/log/tool.txt"
cuobjdump -sass -arch sm_90 build/kernels/heldout.o > "$OUT/log/heldout.sass" 2>&1
cuobjdump -res-usage -arch sm_90 build/kernels/heldout.o > "$OUT/log/heldout.res" 2>&1
echo "heldout.sass: $(grep -c 'Function :' "$OUT/log/heldout.sass") functions"
census models lab/gpu/models.cfg
census heldout lab/gpu/heldout.cfg
[ "${HELDOUT_RUNS:-1}" -ge 2 ] && census heldout2 lab/gpu/heldout.cfg
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
NCU=${NCU:-1}
echo "gpu: $GPU_NAME; ncu profile: $NCU"
# Nsight Compute: the first launch of every held-out kernel, per-instruction
# executed counts (SourceCounters) and the per-kernel totals.
if [ "$NCU" = 1 ] && command -v ncu >/dev/null; then
    M=l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,sm__warps_launched.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
    timeout 200 ncu --clock-control none --target-processes all --kernel-id ::regex:^held_:1 \
        --section SourceCounters --section InstructionStats --section LaunchStats \
        --section WarpStateStats --section Occupancy --metrics "$M" \
        -o "$OUT/log/held" -f mpirun -np 1 $GC run lab/gpu/heldout.cfg --backend cuda \
        -o "$OUT/res/ncu" --quiet > "$OUT/log/ncu.log" 2>&1
    echo "ncu: exit $?"; tail -n 5 "$OUT/log/ncu.log"
    if [ -f "$OUT/log/held.ncu-rep" ]; then
        ncu -i "$OUT/log/held.ncu-rep" --page details --csv --print-units base > "$OUT/log/ncu-details.csv" 2>&1
        ncu -i "$OUT/log/held.ncu-rep" --page raw --csv --metrics "$M" > "$OUT/log/ncu-raw.csv" 2>&1
        ncu -i "$OUT/log/held.ncu-rep" --page source --print-source sass --csv > "$OUT/log/ncu-source.csv" 2>&1
        echo "ncu csv: $(wc -l < "$OUT/log/ncu-details.csv") / $(wc -l < "$OUT/log/ncu-raw.csv") / $(wc -l < "$OUT/log/ncu-source.csv") lines"
    fi
    # warm: the third launch of each, caches as the launches before it left
    # them (no flush), in one pass (no replay restoring memory)
    W=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,gpu__time_duration.sum
    timeout 100 ncu --clock-control none --cache-control none --target-processes all \
        --kernel-id ::regex:^held_:3 --metrics "$W" -o "$OUT/log/warm" -f \
        mpirun -np 1 $GC run lab/gpu/heldout.cfg --backend cuda -o "$OUT/res/ncu-warm" --quiet \
        > "$OUT/log/ncu-warm.log" 2>&1
    echo "ncu warm: exit $? ($(grep -c 'pass' "$OUT/log/ncu-warm.log") launches; passes: $(grep -o '[0-9]* pass[es]*' "$OUT/log/ncu-warm.log" | sort | uniq -c | tr '\n' ' '))"
    [ -f "$OUT/log/warm.ncu-rep" ] &&
        ncu -i "$OUT/log/warm.ncu-rep" --page raw --csv --metrics "$W" > "$OUT/log/ncu-warm.csv" 2>&1
    rm -rf "$OUT/res/ncu" "$OUT/res/ncu-warm"
    # this GPU's descriptions of the held-out kernels
    if [ -s "$OUT/log/ncu-source.csv" ]; then
        mkdir -p "$OUT/desc"
        for sp in configs/kernels/heldout/*.spec; do
            k=$(basename "$sp" .spec)
            python3 tools/describe.py --sass "$OUT/log/heldout.sass" --res "$OUT/log/heldout.res" \
                --spec "$sp" --ncu-source "$OUT/log/ncu-source.csv" --ncu-raw "$OUT/log/ncu-raw.csv" \
                $([ -s "$OUT/log/ncu-warm.csv" ] && echo --ncu-dram "$OUT/log/ncu-warm.csv") \
                --source kernels/heldout.cu --tool "$(cat "$OUT/log/tool.txt")" -o "$OUT/desc/$k.cfg" ||
                echo "describe $k: failed"
        done
        echo "descriptions: $(ls "$OUT/desc" | wc -l)"
    fi
fi
for d in "$OUT"/res/*/nodes; do gzip -f "$d"/*.json 2>/dev/null; done
python3 tests/gpu/models_summary.py "$OUT/res/models/catalogue.json" > "$OUT/log/models.txt" 2>&1
grep -A3 'better' "$OUT/log/models.txt"
# the table per kernel (measured, both models, error) with the committed
# descriptions (configs/kernels/heldout/, tools/describe.py's output)
# (this GPU's own descriptions where it made them; the committed ones
# beside, as the what-if of descriptions made on another GPU)
if [ -d "$OUT/desc" ]; then
    python3 lab/gpu/predict_table.py $GC configs/kernels/heldout \
        here:"$OUT/res/models":"$OUT/res/heldout":"$OUT/desc" \
        committed:"$OUT/res/models":"$OUT/res/heldout" | tee "$OUT/log/predict.txt"
else
    python3 lab/gpu/predict_table.py $GC configs/kernels/heldout \
        here:"$OUT/res/models":"$OUT/res/heldout" | tee "$OUT/log/predict.txt"
fi
rm -f "$OUT"/log/*.ncu-rep.gz; gzip -f "$OUT"/log/ncu-source.csv "$OUT"/log/*.ncu-rep 2>/dev/null
tar czf "$OUT/predict.tgz" -C "$OUT" log res $([ -d "$OUT/desc" ] && echo desc) && rm -rf "$OUT/log" "$OUT/res" "$OUT/desc"

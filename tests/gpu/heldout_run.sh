#!/bin/bash
# One call on the GPU machine for issue 14 (predict the kernels people
# write): build; the held-out kernels' SASS and resource usage (cuobjdump,
# for tools/describe.py); whether Nsight Compute is there and reads them
# (its per-kernel dynamic counts, kept for describe --ncu); then the census
# with tests/gpu/models.cfg (model parameters + validation suite) and with
# tests/gpu/heldout.cfg (the held-out kernels' times), and the accuracy
# table (tests/gpu/predict_table.py). Everything lands in
# $OUT/predict.tgz (log/ and res/) plus $OUT/log.txt.
# NCU=auto (default) profiles only on a GPU kind whose descriptions are
# not committed yet (not an H100: configs/kernels/heldout/ are from one);
# NCU=1 always, NCU=0 never. HELDOUT_RUNS=2 times the held-out set twice.
#   OUT=/some/dir GIT_COMMIT=abc tests/gpu/heldout_run.sh
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
census models tests/gpu/models.cfg
census heldout tests/gpu/heldout.cfg
[ "${HELDOUT_RUNS:-1}" -ge 2 ] && census heldout2 tests/gpu/heldout.cfg
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
NCU=${NCU:-auto}
[ "$NCU" = auto ] && { case "$GPU_NAME" in *H100*) NCU=0 ;; *) NCU=1 ;; esac; }
echo "gpu: $GPU_NAME; ncu profile: $NCU"
# Nsight Compute: the first launch of every held-out kernel, per-instruction
# executed counts (SourceCounters) and the per-kernel totals.
if [ "$NCU" = 1 ] && command -v ncu >/dev/null; then
    M=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,sm__warps_launched.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
    timeout 150 ncu --clock-control none --target-processes all --kernel-id ::regex:^held_:1 \
        --section SourceCounters --section InstructionStats --section LaunchStats --metrics "$M" \
        -o "$OUT/log/held" -f mpirun -np 1 $GC run tests/gpu/heldout.cfg --backend cuda \
        -o "$OUT/res/ncu" --quiet > "$OUT/log/ncu.log" 2>&1
    echo "ncu: exit $?"; tail -n 5 "$OUT/log/ncu.log"
    if [ -f "$OUT/log/held.ncu-rep" ]; then
        ncu -i "$OUT/log/held.ncu-rep" --page details --csv --print-units base > "$OUT/log/ncu-details.csv" 2>&1
        ncu -i "$OUT/log/held.ncu-rep" --page raw --csv --metrics "$M" > "$OUT/log/ncu-raw.csv" 2>&1
        ncu -i "$OUT/log/held.ncu-rep" --page source --print-source sass --csv > "$OUT/log/ncu-source.csv" 2>&1
        echo "ncu csv: $(wc -l < "$OUT/log/ncu-details.csv") / $(wc -l < "$OUT/log/ncu-raw.csv") / $(wc -l < "$OUT/log/ncu-source.csv") lines"
    fi
fi
for d in "$OUT"/res/*/nodes; do gzip -f "$d"/*.json 2>/dev/null; done
python3 tests/gpu/models_summary.py "$OUT/res/models/catalogue.json" > "$OUT/log/models.txt" 2>&1
grep -A3 'better' "$OUT/log/models.txt"
# the table per kernel (measured, both models, error) with the committed
# descriptions (configs/kernels/heldout/, tools/describe.py's output)
python3 tests/gpu/predict_table.py $GC configs/kernels/heldout \
    here:"$OUT/res/models":"$OUT/res/heldout" | tee "$OUT/log/predict.txt"
tar czf "$OUT/predict.tgz" -C "$OUT" log res && rm -rf "$OUT/log" "$OUT/res"

/* Occupancy: how many blocks and warps of a kernel an SM holds at once,
 * from its block size, registers per thread and shared memory per block,
 * with the GPU's limits. The rules are those of NVIDIA's occupancy
 * calculator (cuda_occupancy.h, CUDA 12): registers are allocated per warp
 * in units of 256, within each of the SM's 4 sub-partitions; shared memory
 * per block is rounded up to 128 bytes after adding the 1 KiB the driver
 * reserves per block (compute capability 8.0 and later); the SM's block
 * slots (32 on sm_90) and warp slots bound the rest. */
#ifndef GC_OCCUPANCY_H
#define GC_OCCUPANCY_H

#include "util/err.h"
#include "census/results.h"

typedef struct gc_occ_limits {
    int cc_major, cc_minor;
    int warp_size;
    int max_warps_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm, regs_per_block, reg_alloc_unit, max_regs_per_thread, sub_partitions;
    long long smem_per_sm_bytes, smem_per_block_max_bytes, smem_alloc_unit_bytes,
        smem_reserved_per_block_bytes;
} gc_occ_limits;

/* Limits from a GPU's properties (warp size, threads, registers, shared
 * memory per SM) and, for what the properties do not say (block slots,
 * allocation units), the architecture of its compute capability. */
void gc_occ_limits_of(const gc_gpu_info *in, gc_occ_limits *l);

typedef struct gc_occ {
    int warps_per_block;
    int blocks_per_sm;         /* resident blocks per SM */
    int warps_per_sm;          /* blocks_per_sm x warps_per_block */
    int by_warps, by_blocks, by_regs, by_smem;   /* the limit each resource sets */
    const char *limiter;       /* "warps", "blocks", "registers", "shared memory" */
    double occupancy;          /* warps_per_sm / max_warps_per_sm */
} gc_occ;

/* GC_EINVAL when the block cannot run at all (too many threads, registers
 * or shared memory for one block), with the reason. */
int gc_occupancy(const gc_occ_limits *l, int block_threads, int regs_per_thread,
                 long long smem_per_block_bytes, gc_occ *o, gc_err *err);

#endif

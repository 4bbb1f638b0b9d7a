/* Occupancy calculator. See occupancy.h. */
#include "census/occupancy.h"

#include <string.h>

static int imin(int a, int b) { return a < b ? a : b; }
static long long round_up(long long v, long long unit) { return unit > 0 ? (v + unit - 1) / unit * unit : v; }

/* Resident blocks per SM by compute capability (CUDA C Programming Guide,
 * "Technical Specifications per Compute Capability"). */
static int blocks_per_sm_of(int major, int minor)
{
    int cc = major * 10 + minor;
    if (cc >= 90) return 32;
    if (cc == 89) return 24;
    if (cc == 86 || cc == 87) return 16;
    if (cc == 80) return 32;
    if (cc == 75) return 16;
    if (cc >= 50) return 32;
    if (cc >= 30) return 16;
    return 8;
}

void gc_occ_limits_of(const gc_gpu_info *in, gc_occ_limits *l)
{
    memset(l, 0, sizeof *l);
    l->cc_major = in->cc_major;
    l->cc_minor = in->cc_minor;
    l->warp_size = in->warp_size > 0 ? in->warp_size : 32;
    int threads = in->max_threads_per_sm > 0 ? in->max_threads_per_sm : 2048;
    l->max_warps_per_sm = threads / l->warp_size;
    l->max_blocks_per_sm = blocks_per_sm_of(in->cc_major, in->cc_minor);
    l->max_threads_per_block = 1024;
    l->regs_per_sm = in->regs_per_sm > 0 ? in->regs_per_sm : 65536;
    l->regs_per_block = 65536;
    l->reg_alloc_unit = 256;
    l->max_regs_per_thread = 255;
    l->sub_partitions = in->cc_major >= 7 || (in->cc_major == 6 && in->cc_minor != 0) ? 4 : 2;
    if (in->cc_major < 6)
        l->sub_partitions = 4;   /* Maxwell: 4 processing blocks too */
    l->smem_per_sm_bytes = in->smem_per_sm_bytes ? (long long)in->smem_per_sm_bytes : 0;
    /* sm_80+: 1 KiB of each block's shared memory is reserved by the
     * driver; the largest opt-in block is the SM's capacity less that. */
    l->smem_reserved_per_block_bytes = in->cc_major >= 8 ? 1024 : 0;
    l->smem_alloc_unit_bytes = in->cc_major >= 8 ? 128 : 256;
    l->smem_per_block_max_bytes = l->smem_per_sm_bytes - l->smem_reserved_per_block_bytes;
}

int gc_occupancy(const gc_occ_limits *l, int block_threads, int regs_per_thread,
                 long long smem_per_block_bytes, gc_occ *o, gc_err *err)
{
    memset(o, 0, sizeof *o);
    if (block_threads < 1 || block_threads > l->max_threads_per_block)
        return gc_fail(err, GC_EINVAL, "a block of %d threads (1..%d)", block_threads,
                       l->max_threads_per_block);
    if (regs_per_thread < 0 || regs_per_thread > l->max_regs_per_thread)
        return gc_fail(err, GC_EINVAL, "%d registers per thread (at most %d)", regs_per_thread,
                       l->max_regs_per_thread);
    int ws = l->warp_size;
    int wpb = (block_threads + ws - 1) / ws;
    o->warps_per_block = wpb;
    /* warp slots */
    o->by_warps = l->max_warps_per_sm / wpb;
    o->by_blocks = l->max_blocks_per_sm;
    /* registers: per warp in units of reg_alloc_unit, within sub-partitions
     * (cudaOccMaxBlocksPerSMRegsLimit) */
    if (regs_per_thread == 0) {
        o->by_regs = o->by_blocks;
    } else {
        long long per_warp = round_up((long long)regs_per_thread * ws, l->reg_alloc_unit);
        long long per_block = per_warp * wpb;
        long long assumed = per_warp * round_up(wpb, l->sub_partitions);
        if (per_block > l->regs_per_block || assumed > l->regs_per_block)
            return gc_fail(err, GC_EINVAL, "%d registers per thread x %d threads: %lld registers "
                           "per block, more than the %d a block may have", regs_per_thread,
                           block_threads, per_block, l->regs_per_block);
        long long per_sub = l->regs_per_sm / l->sub_partitions;
        long long warps = (per_sub / per_warp) * l->sub_partitions;
        o->by_regs = (int)(warps / wpb);
    }
    /* shared memory */
    long long smem = round_up(smem_per_block_bytes + l->smem_reserved_per_block_bytes,
                              l->smem_alloc_unit_bytes);
    if (smem_per_block_bytes > l->smem_per_block_max_bytes)
        return gc_fail(err, GC_EINVAL, "%lld bytes of shared memory per block, more than the %lld "
                       "a block may have", smem_per_block_bytes, l->smem_per_block_max_bytes);
    o->by_smem = smem > 0 ? (int)(l->smem_per_sm_bytes / smem) : o->by_blocks;
    int b = imin(imin(o->by_warps, o->by_blocks), imin(o->by_regs, o->by_smem));
    o->limiter = b == o->by_warps ? "warps" : b == o->by_blocks ? "blocks"
               : b == o->by_regs ? "registers" : "shared memory";
    if (b < 1)
        return gc_fail(err, GC_EINVAL, "no block fits on an SM (limited by %s)", o->limiter);
    o->blocks_per_sm = b;
    o->warps_per_sm = b * wpb;
    o->occupancy = (double)o->warps_per_sm / l->max_warps_per_sm;
    return 0;
}

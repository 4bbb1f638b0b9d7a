#include "registry.h"

#include <string.h>

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
/* NUM: an integer parameter (byte counts, warps, strides: all of today's);
 * FNUM: a real-valued one. */
#define NUM(n, lo, hi, d) { n, 0, 1, lo, hi, NULL, d, NULL }
#define FNUM(n, lo, hi, d) { n, 0, 0, lo, hi, NULL, d, NULL }
#define STR(n, ch, d) { n, 1, 0, 0, 0, ch, 0, d }
#define DEF(n, s, ph, p) { n, s, ph, p, sizeof(p) / sizeof(p[0]) }

static const char *const inst_ops[] = {
    "f32_add", "f32_mul", "f32_fma", "f32_div", "f32_sqrt",
    "f64_add", "f64_fma", "f64_div",
    "i32_add", "i32_mul", "i32_div",
    "sfu_sin", "sfu_exp", "smem_ld", NULL };
static const char *const inst_modes[] = { "latency", "throughput", NULL };
static const char *const stream_kernels[] = { "read", "write", "copy", "triad", "sparse", NULL };
static const char *const residents[] = { "full", "one", NULL };
static const char *const stream_grids[] = { "stride", "full", NULL };
static const char *const launch_modes[] = { "back_to_back", "launch_sync", "blocks", NULL };
static const char *const access_kinds[] = { "coalesced", "uncoalesced", NULL };
static const char *const xfer_dirs[] = { "h2d", "d2h", "bidir", NULL };
static const char *const host_mem[] = { "pinned", "pageable", NULL };
static const char *const engines[] = { "ce", "sm", NULL };
static const char *const p2p_dirs[] = { "oneway", "bidir", NULL };
static const char *const on_off[] = { "on", "off", NULL };
static const char *const p2p_modes[] = { "copy", "chase", NULL };
static const char *const chase_orders[] = { "random", "page", NULL };
static const char *const numa_modes[] = { "any", "each", NULL };

static const gc_param_def chase_p[] = {
    NUM("footprint_bytes", 1 * KiB, 64 * GiB, 64 * KiB),
    NUM("line_bytes", 4, 4 * MiB, 128),
    STR("order", chase_orders, "random"),
};
static const gc_param_def chase_loaded_p[] = {
    NUM("footprint_bytes", 1 * KiB, 64 * GiB, 1 * GiB),
    NUM("warps_per_sm", 1, 64, 1),
};
static const gc_param_def departure_p[] = {
    STR("access", access_kinds, "coalesced"),
    NUM("requests", 1, 256, 8),
};
static const gc_param_def inst_p[] = {
    STR("op", inst_ops, "f32_fma"),
    STR("mode", inst_modes, "latency"),
    NUM("ilp", 1, 8, 1),
};
static const gc_param_def hbm_p[] = {
    STR("kernel", stream_kernels, "triad"),
    NUM("footprint_bytes", 1 * MiB, 64 * GiB, 2 * GiB),
    NUM("blocks_per_sm", 1, 32, 4),           /* grid stride: the grid, blocks_per_sm x SMs */
    STR("grid", stream_grids, "stride"),     /* full: one pass, a block per contiguous run */
    NUM("block_threads", 32, 1024, 256),
    NUM("vector_bytes", 8, 16, 16),          /* full grid: 8 or 16 bytes a load or store */
    NUM("unroll", 1, 8, 4),                  /* full grid: 1, 2, 4 or 8 vectors per thread and array */
};
static const char *const l2_orders[] = { "chunk", "sweep", NULL };
static const gc_param_def l2_p[] = {
    NUM("footprint_bytes", 64 * KiB, 1 * GiB, 16 * MiB),
    NUM("block_threads", 32, 1024, 256),
    NUM("unroll", 4, 32, 16),                /* float4 loads in flight per thread: 4, 8, 16 or 32 */
    STR("order", l2_orders, "chunk"),        /* sweep: resident blocks on neighbouring chunks */
};
static const gc_param_def smem_p[] = {
    NUM("stride_words", 1, 32, 1),
};
static const gc_param_def launch_p[] = {
    STR("mode", launch_modes, "back_to_back"),
    NUM("block_threads", 32, 1024, 64),   /* mode blocks: threads of each empty block */
    STR("resident", residents, "full"),   /* mode blocks: blocks an SM may hold, all or one */
};
static const gc_param_def xfer_p[] = {
    STR("direction", xfer_dirs, "h2d"),
    STR("memory", host_mem, "pinned"),
    STR("engine", engines, "ce"),
    NUM("size_bytes", 1, 4 * GiB, 1 * MiB),   /* mode chase: the chased footprint */
    STR("mode", p2p_modes, "copy"),           /* chase: GPU load latency from host memory */
    STR("numa", numa_modes, "any"),           /* chase: each = once per host NUMA node (cuda_numa.c) */
};
static const gc_param_def p2p_p[] = {
    STR("direction", p2p_dirs, "oneway"),
    STR("peer_access", on_off, "on"),
    NUM("size_bytes", 1, 4 * GiB, 64 * MiB),   /* mode chase: the chased footprint */
    STR("mode", p2p_modes, "copy"),            /* chase: remote pointer-chase latency */
};
/* The validation suite (issue 5): kernels/valid.cu, one description each
 * under configs/kernels/valid/ (docs/kernel-description.md); then the
 * held-out kernels (issue 14, kernels/heldout.cu: timed, never fitted;
 * descriptions by tools/describe.py under configs/kernels/heldout/). */
static const char *const valid_kernels[] = {
    "saxpy_a1", "saxpy_a4", "saxpy_a16", "saxpy_a64", "saxpy_a256", "saxpy_a1024", "saxpy_a4096",
    "occ_w2", "occ_w4", "occ_w8", "occ_w16", "occ_w32", "occ_w64",
    "stride_s1", "stride_s2", "stride_s4", "stride_s8", "stride_s32",
    "chase_dram",
    "held_transpose_naive", "held_transpose_tiled", "held_reduce_shfl", "held_reduce_tree",
    "held_sgemm_tiled", "held_stencil1d", "held_stencil2d", "held_histogram", "held_scan",
    "held_spmv_csr", "held_conv_rows", "held_conv_cols", "held_bitonic_sort", NULL };
static const gc_param_def valid_p[] = {
    STR("kernel", valid_kernels, "saxpy_a1"),
};
static const char *const mlp_modes[] = { "inflight", "scatter_load", "scatter_store", "gather",
                                         "inflight_sync", "inflight_copy", "oneshot_sync", "oneshot", NULL };
static const gc_param_def mlp_p[] = {   /* cuda_mlp.c */
    STR("mode", mlp_modes, "inflight"),
    NUM("warps_per_sm", 1, 64, 64),
    NUM("requests", 1, 8, 1),
    NUM("footprint_bytes", 16 * KiB, 16 * GiB, 1 * GiB),
    NUM("block_threads", 32, 1024, 256),   /* oneshot's blocks */
};
static const char *const sustain_loads[] = { "hbm", "fma", NULL };
static const gc_param_def sustain_p[] = {
    STR("load", sustain_loads, "hbm"),
    FNUM("duration_s", 0.5, 3600, 30),
};
static const gc_param_def net_p[] = {
    NUM("size_bytes", 1, 4 * GiB, 1 * MiB),
};

const gc_bench_def gc_bench_defs[] = {
    DEF("chase", "unloaded pointer-chase latency over a footprint", GC_PHASE_GPU, chase_p),
    DEF("chase_loaded", "pointer-chase latency with many warps chasing at once", GC_PHASE_GPU, chase_loaded_p),
    DEF("departure", "completion time of K outstanding requests per warp", GC_PHASE_GPU, departure_p),
    DEF("inst", "instruction latency (dependent chain) or throughput", GC_PHASE_GPU, inst_p),
    DEF("hbm_bw", "device-memory bandwidth, STREAM kernels", GC_PHASE_GPU, hbm_p),
    DEF("l2_bw", "L2 bandwidth over an L2-resident footprint", GC_PHASE_GPU, l2_p),
    DEF("smem_bw", "shared-memory bandwidth with a word stride (bank conflicts)", GC_PHASE_GPU, smem_p),
    DEF("launch", "kernel launch overhead", GC_PHASE_GPU, launch_p),
    DEF("xfer", "host<->device transfer time per size", GC_PHASE_ISOLATED, xfer_p),
    DEF("p2p", "peer-to-peer copy between two GPUs of a node", GC_PHASE_PAIR, p2p_p),
    DEF("valid", "validation kernels: measured time, predicted by the models", GC_PHASE_GPU, valid_p),
    DEF("mlp", "latency with R requests in flight per warp; scattered loads and stores", GC_PHASE_GPU,
        mlp_p),
    DEF("net", "GPU buffer to GPU buffer between nodes through MPI", GC_PHASE_NET, net_p),
    DEF("sustain", "sustained HBM or FMA load: clocks, power, temperature, throttling over time",
        GC_PHASE_CONCURRENT, sustain_p),
};
const size_t gc_bench_ndefs = sizeof(gc_bench_defs) / sizeof(gc_bench_defs[0]);

static const char *const phase_names[GC_NPHASES] = {
    "gpu", "isolated", "concurrent", "pair", "net" };

const char *gc_phase_name(gc_phase p)
{
    return (unsigned)p < GC_NPHASES ? phase_names[p] : "?";
}

int gc_phase_parse(const char *s, gc_phase *out)
{
    for (int i = 0; i < GC_NPHASES; i++)
        if (strcmp(s, phase_names[i]) == 0) {
            *out = (gc_phase)i;
            return 0;
        }
    return -1;
}

const gc_bench_def *gc_bench_find(const char *name)
{
    for (size_t i = 0; i < gc_bench_ndefs; i++)
        if (strcmp(gc_bench_defs[i].name, name) == 0)
            return &gc_bench_defs[i];
    return NULL;
}

const gc_param_def *gc_bench_param(const gc_bench_def *b, const char *name)
{
    for (size_t i = 0; i < b->nparams; i++)
        if (strcmp(b->params[i].name, name) == 0)
            return &b->params[i];
    return NULL;
}

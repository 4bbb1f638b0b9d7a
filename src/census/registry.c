/* The benchmark registry: each benchmark's sweep parameters, their ranges
 * and defaults, its phase and its method version. The choices a kernel
 * takes come from the kernels' own lists (kernels/kernels.h's enums, the
 * validation suite's kernels/valid_table.h), so a name is written once. */
#include "census/registry.h"

#include <string.h>

#include "kernels.h"
#include "valid_table.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
/* NUM: an integer parameter (byte counts, warps, strides: all of today's);
 * FNUM: a real-valued one. */
#define NUM(n, lo, hi, d) { n, 0, 1, lo, hi, NULL, d, NULL }
#define FNUM(n, lo, hi, d) { n, 0, 0, lo, hi, NULL, d, NULL }
#define STR(n, ch, d) { n, 1, 0, 0, 0, ch, 0, d }
#define DEF(n, s, ph, m, p) { n, s, ph, m, p, sizeof(p) / sizeof(p[0]) }

static const char *const inst_ops[] = { GCK_INST_OPS(GCK_ENUM_NAME) NULL };
static const char *const inst_modes[] = { "latency", "throughput", NULL };
static const char *const stream_kernels[] = { GCK_STREAM_KINDS(GCK_ENUM_NAME) NULL };
static const char *const residents[] = { "full", "one", NULL };
static const char *const stream_grids[] = { "stride", "full", NULL };
static const char *const launch_modes[] = { "back_to_back", "launch_sync", "blocks", NULL };
static const char *const access_kinds[] = { "coalesced", "uncoalesced", NULL };
static const char *const xfer_dirs[] = { GCK_XFER_DIRS(GCK_ENUM_NAME) NULL };
static const char *const host_mem[] = { "pinned", "pageable", NULL };
static const char *const engines[] = { "ce", "sm", NULL };
static const char *const p2p_dirs[] = { "oneway", "bidir", NULL };
static const char *const on_off[] = { "on", "off", NULL };
static const char *const p2p_modes[] = { "copy", "chase", NULL };
static const char *const chase_orders[] = { "random", "page", NULL };
static const char *const numa_modes[] = { "any", "each", NULL };
static const char *const far_orders[] = { "random", "sequential", NULL };

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
    STR("order", far_orders, "random"),       /* chase: sequential = line i -> i + 1 (nvbandwidth's) */
};
static const gc_param_def p2p_p[] = {
    STR("direction", p2p_dirs, "oneway"),
    STR("peer_access", on_off, "on"),
    NUM("size_bytes", 1, 4 * GiB, 64 * MiB),   /* mode chase: the chased footprint */
    STR("mode", p2p_modes, "copy"),            /* chase: remote pointer-chase latency */
    STR("order", far_orders, "random"),        /* chase: sequential = line i -> i + 1 (nvbandwidth's) */
};
/* The validation suite: the rows of kernels/valid_table.h, one
 * description each under configs/kernels/valid/ (docs/kernel-description.md);
 * then the held-out kernels (issue 14, kernels/heldout.cu's held[], whose
 * names these must be: timed, never fitted; descriptions by
 * tools/describe.py under configs/kernels/heldout/). */
#define GCV_NAME(name, fn, family, k, threads, elements, blocks_per_sm, trips, mem) name,
static const char *const valid_kernels[] = {
    GCV_TABLE(GCV_NAME)
    "held_transpose_naive", "held_transpose_tiled", "held_reduce_shfl", "held_reduce_tree",
    "held_sgemm_tiled", "held_stencil1d", "held_stencil2d", "held_histogram", "held_scan",
    "held_spmv_csr", "held_conv_rows", "held_conv_cols", "held_bitonic_sort", NULL };
#undef GCV_NAME
static const gc_param_def valid_p[] = {
    STR("kernel", valid_kernels, "saxpy_a1"),
};
static const char *const mlp_modes[] = { GCK_MLP_MODES(GCK_ENUM_NAME) NULL };
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

/* The fourth column is the benchmark's method version: bump it (and add a
 * row to method_changes below) whenever what the benchmark measures under
 * the same point keys changes (another kernel, access order, warm-up,
 * timing), so that `check --baseline` never compares values of two methods
 * (an H200 came out degraded against loaded latencies of chase_loaded's
 * first method). A new sweep parameter or context key needs no bump: its
 * points have other keys. The sim backend records these versions too: its
 * profiles imitate the current methods (remake them with a bump). */
const gc_bench_def gc_bench_defs[] = {
    DEF("chase", "unloaded pointer-chase latency over a footprint", GC_PHASE_GPU, 1, chase_p),
    DEF("chase_loaded", "pointer-chase latency with many warps chasing at once", GC_PHASE_GPU, 2,
        chase_loaded_p),
    DEF("departure", "completion time of K outstanding requests per warp", GC_PHASE_GPU, 1, departure_p),
    DEF("inst", "instruction latency (dependent chain) or throughput", GC_PHASE_GPU, 1, inst_p),
    DEF("hbm_bw", "device-memory bandwidth, STREAM kernels", GC_PHASE_GPU, 3, hbm_p),
    DEF("l2_bw", "L2 bandwidth over an L2-resident footprint", GC_PHASE_GPU, 6, l2_p),
    DEF("smem_bw", "shared-memory bandwidth with a word stride (bank conflicts)", GC_PHASE_GPU, 1, smem_p),
    DEF("launch", "kernel launch overhead", GC_PHASE_GPU, 1, launch_p),
    DEF("xfer", "host<->device transfer time per size", GC_PHASE_ISOLATED, 2, xfer_p),
    DEF("p2p", "peer-to-peer copy between two GPUs of a node", GC_PHASE_PAIR, 1, p2p_p),
    DEF("valid", "validation kernels: measured time, predicted by the models", GC_PHASE_GPU, 1, valid_p),
    DEF("mlp", "latency with R requests in flight per warp; scattered loads and stores", GC_PHASE_GPU, 1,
        mlp_p),
    DEF("net", "GPU buffer to GPU buffer between nodes through MPI", GC_PHASE_NET, 1, net_p),
    DEF("sustain", "sustained HBM or FMA load: clocks, power, temperature, throttling over time",
        GC_PHASE_CONCURRENT, 1, sustain_p),
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

/* Each change of method: the version it started, its commit and the
 * commit's date (UTC), which dates data that recorded no versions (shards
 * before format 4, catalogues before schema 2.1; tools/make-baseline.py's
 * METHODS holds the same rows and asks git where it can). */
static const struct method_change {
    const char *bench;
    int version;
    const char *commit, *since;
} method_changes[] = {
    /* STREAM arrays on 2 MiB boundaries (triad's b and c were off the line at 4 GiB) */
    { "hbm_bw", 2, "b64c1bf", "2026-11-24T00:14:12Z" },
    /* a DRAM-resident chain first reads twice the L2 of other memory */
    { "chase_loaded", 2, "1e7d199", "2026-11-24T00:24:52Z" },
    /* L2 chunks picked by a hash of (block, round) */
    { "l2_bw", 2, "857ef06", "2026-11-24T00:31:23Z" },
    /* chunks in order, shifted by one every SM's blocks */
    { "l2_bw", 3, "c6515bd", "2026-11-24T00:35:43Z" },
    /* shifted only where an SM's blocks would read one chunk together */
    { "l2_bw", 4, "537d767", "2026-11-24T00:37:50Z" },
    /* the L2 kernel rewritten: unrolled float4 loads, volatile asm in order */
    { "l2_bw", 5, "d8e78b3", "2026-11-25T22:19:07Z" },
    /* grid = full runs the full grid on every launch (it ran 5 of 100) */
    { "hbm_bw", 3, "7b94a6c", "2026-11-25T22:39:29Z" },
    /* l2_bw_bps from L2-resident points without chunk sharing (the shared
     * peak apart: l2_bw_shared_peak_bps); the quick plan's point in sweep order */
    { "l2_bw", 6, "e2a563f", "2026-11-26T01:30:15Z" },
    /* SM both ways in one kernel of alternating warps; the host chase over
     * every SM (it ran on block 0's SM, the nearest to the host) */
    { "xfer", 2, "5474277", "2026-11-26T04:32:50Z" },
};

int gc_bench_method(const char *bench)
{
    const gc_bench_def *d = gc_bench_find(bench);
    return d ? d->method : 0;
}

int gc_bench_method_at(const char *bench, const char *start_time)
{
    int v = 1;
    /* ISO 8601 UTC strings of one form compare as text ("...Z" or "+00:00"
     * agree up to the seconds) */
    if (!start_time || strlen(start_time) < 19)
        return 1;
    for (size_t i = 0; i < sizeof method_changes / sizeof *method_changes; i++)
        if (!strcmp(method_changes[i].bench, bench) &&
            strncmp(method_changes[i].since, start_time, 19) <= 0 && method_changes[i].version > v)
            v = method_changes[i].version;
    return v;
}

const char *gc_bench_of_param(const char *param)
{
    static const struct { const char *prefix, *bench; } map[] = {
        { "hbm_", "hbm_bw" },       { "l2_bw", "l2_bw" },          { "smem_bw", "smem_bw" },
        { "launch", "launch" },     { "block_", "launch" },        { "sustain", "sustain" },
        { "sm_clock_p5", "sustain" }, { "time_to_first_throttle", "sustain" },
        { "l1_latency", "chase" },  { "l2_latency", "chase" },     { "l2_far_latency", "chase" },
        { "dram_latency", "chase" }, { "page_chase", "chase" },    { "dram_loaded", "chase_loaded" },
        { "dram_inflight", "mlp" }, { "gather_", "mlp" },          { "scatter_", "mlp" },
        { "inst_", "inst" },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strncmp(param, map[i].prefix, strlen(map[i].prefix)))
            return map[i].bench;
    return NULL;
}

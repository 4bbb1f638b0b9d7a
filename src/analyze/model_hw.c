/* Model inputs from the census' measurements. See model_hw.h.
 *
 * Where the models' papers assume one number and the census measures
 * several, the choice is made here, once, for both models:
 *   - Freq is the SM clock measured during the benchmarks (the median of
 *     the points' sm_clock_mhz_measured), not the nominal one;
 *   - memory bandwidth is the measured STREAM bandwidth for the kernel's
 *     mix of loads and stores (the theoretical one is kept beside it);
 *   - issue cycles and lane counts come from the measured instruction
 *     throughputs (inst benchmark), per instruction class. */
#include "analyze/model_hw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/derive.h"
#include "util/fit.h"

const gc_hw_def gc_hw_defs[HW_N] = {
    [HW_FREQ_HZ] = { "freq_hz", "Freq", "Hz" },
    [HW_SM_COUNT] = { "sm_count", "#SMs", "SMs" },
    [HW_WARP_SIZE] = { "warp_size", "#Threads_per_warp", "threads" },
    [HW_SIMD_WIDTH] = { "simd_width", "SIMD width", "lanes" },
    [HW_SCHEDULERS] = { "schedulers_per_sm", "schedulers", "schedulers" },
    [HW_MEM_LD] = { "mem_ld_cycles", "Mem_LD", "cycles" },
    [HW_DEP_COAL] = { "departure_del_coal_cycles", "Departure_del_coal", "cycles" },
    [HW_DEP_UNCOAL] = { "departure_del_uncoal_cycles", "Departure_del_uncoal", "cycles" },
    [HW_ISSUE_FP32] = { "issue_cycles", "Issue_cycles", "cycles" },
    [HW_ISSUE_FP64] = { "issue_cycles_fp64", "Issue_cycles (fp64)", "cycles" },
    [HW_ISSUE_INT] = { "issue_cycles_int", "Issue_cycles (int)", "cycles" },
    [HW_ISSUE_SFU] = { "issue_cycles_sfu", "Issue_cycles (sfu)", "cycles" },
    [HW_ISSUE_SMEM] = { "issue_cycles_smem", "Issue_cycles (smem)", "cycles" },
    [HW_LANES_FP32] = { "cuda_cores_per_sm", "CUDA cores", "ops/cycle/SM" },
    [HW_LANES_FP64] = { "fp64_lanes_per_sm", "fp64 units", "ops/cycle/SM" },
    [HW_LANES_INT] = { "int_lanes_per_sm", "int units", "ops/cycle/SM" },
    [HW_LANES_SFU] = { "sfu_lanes_per_sm", "SFUs", "ops/cycle/SM" },
    [HW_LANES_SMEM] = { "smem_lanes_per_sm", "LSU (shared)", "ops/cycle/SM" },
    [HW_LAT_FP32] = { "latency_fp32_cycles", "fp32 latency", "cycles" },
    [HW_LAT_FP64] = { "latency_fp64_cycles", "fp64 latency", "cycles" },
    [HW_LAT_INT] = { "latency_int_cycles", "int latency", "cycles" },
    [HW_LAT_SFU] = { "latency_sfu_cycles", "sfu latency", "cycles" },
    [HW_LAT_SMEM] = { "latency_smem_cycles", "shared latency", "cycles" },
    [HW_LAT_GMEM] = { "latency_gmem_cycles", "global latency", "cycles" },
    [HW_ISSUE_INTERVAL] = { "issue_interval_cycles", "ILP latency", "cycles" },
    [HW_BW_READ] = { "mem_bandwidth_read_bps", "Mem_Bandwidth (read)", "bytes_per_s" },
    [HW_BW_WRITE] = { "mem_bandwidth_write_bps", "Mem_Bandwidth (write)", "bytes_per_s" },
    [HW_BW_COPY] = { "mem_bandwidth_copy_bps", "Mem_Bandwidth (copy)", "bytes_per_s" },
    [HW_BW_TRIAD] = { "mem_bandwidth_triad_bps", "Mem_Bandwidth (triad)", "bytes_per_s" },
    [HW_BW_THEO] = { "mem_bandwidth_theoretical_bps", "Mem_Bandwidth (theoretical)", "bytes_per_s" },
    [HW_GMEM_BPC] = { "gmem_bytes_per_cycle_per_sm", "GMem_bandwidth", "bytes/cycle/SM" },
    [HW_GMEM_BPC_THEO] = { "gmem_bytes_per_cycle_per_sm_theoretical", "GMem_bandwidth (eq. 4.7)",
                           "bytes/cycle/SM" },
    [HW_LAUNCH_NS] = { "launch_overhead_ns", "launch floor", "ns" },
    [HW_BLOCK_CYCLES] = { "block_interval_cycles", "block scheduler interval", "cycles" },
    [HW_BLOCK_LAT] = { "block_replacement_cycles", "block replacement latency", "cycles" },
    [HW_FETCH_BYTES] = { "dram_fetch_bytes", "DRAM fetch granularity", "bytes" },
    [HW_INFL_N4] = { "dram_inflight_latency_cycles_n4", "loaded latency (4 in flight)", "cycles" },
    [HW_INFL_N8] = { "dram_inflight_latency_cycles_n8", "loaded latency (8 in flight)", "cycles" },
    [HW_INFL_N16] = { "dram_inflight_latency_cycles_n16", "loaded latency (16 in flight)", "cycles" },
    [HW_INFL_N32] = { "dram_inflight_latency_cycles_n32", "loaded latency (32 in flight)", "cycles" },
    [HW_INFL_N64] = { "dram_inflight_latency_cycles_n64", "loaded latency (64 in flight)", "cycles" },
    [HW_INFL_N128] = { "dram_inflight_latency_cycles_n128", "loaded latency (128 in flight)", "cycles" },
    [HW_INFL_N256] = { "dram_inflight_latency_cycles_n256", "loaded latency (256 in flight)", "cycles" },
    [HW_INFL_N512] = { "dram_inflight_latency_cycles_n512", "loaded latency (512 in flight)", "cycles" },
    [HW_SYNC_N8] = { "dram_inflight_sync_latency_cycles_n8", "slowest of 8 warps (8 in flight)", "cycles" },
    [HW_SYNC_N16] = { "dram_inflight_sync_latency_cycles_n16", "slowest of 8 warps (16 in flight)", "cycles" },
    [HW_SYNC_N32] = { "dram_inflight_sync_latency_cycles_n32", "slowest of 8 warps (32 in flight)", "cycles" },
    [HW_SYNC_N64] = { "dram_inflight_sync_latency_cycles_n64", "slowest of 8 warps (64 in flight)", "cycles" },
    [HW_COPY_N16] = { "dram_inflight_copy_latency_cycles_n16", "loaded latency, half stores (16)", "cycles" },
    [HW_COPY_N32] = { "dram_inflight_copy_latency_cycles_n32", "loaded latency, half stores (32)", "cycles" },
    [HW_COPY_N64] = { "dram_inflight_copy_latency_cycles_n64", "loaded latency, half stores (64)", "cycles" },
    [HW_COPY_N128] = { "dram_inflight_copy_latency_cycles_n128", "loaded latency, half stores (128)", "cycles" },
    [HW_COPY_N256] = { "dram_inflight_copy_latency_cycles_n256", "loaded latency, half stores (256)", "cycles" },
    [HW_COPY_N512] = { "dram_inflight_copy_latency_cycles_n512", "loaded latency, half stores (512)", "cycles" },
    [HW_GATHER_LAT] = { "gather_latency_cycles", "gather latency", "cycles" },
    [HW_SCAT_LD] = { "scatter_load_sector_cycles", "scattered load", "cycles/sector/SM" },
    [HW_SCAT_ST] = { "scatter_store_sector_cycles", "scattered store", "cycles/sector/SM" },
    [HW_SCAT_LD_L1] = { "scatter_load_l1_sector_cycles", "scattered L1 load", "cycles/sector/SM" },
    [HW_OSW_T64] = { "oneshot_sync_excess_cycles_t64", "one-shot block excess, barrier", "cycles" },
    [HW_OSW_T128] = { "oneshot_sync_excess_cycles_t128", "one-shot block excess, barrier", "cycles" },
    [HW_OSW_T256] = { "oneshot_sync_excess_cycles_t256", "one-shot block excess, barrier", "cycles" },
    [HW_OSW_T512] = { "oneshot_sync_excess_cycles_t512", "one-shot block excess, barrier", "cycles" },
    [HW_OSW_T1024] = { "oneshot_sync_excess_cycles_t1024", "one-shot block excess, barrier", "cycles" },
    [HW_L2_BPC] = { "l2_bytes_per_cycle_per_sm", "L2 bandwidth", "bytes/cycle/SM" },
};

int gc_hwp_index(const char *name)
{
    for (int i = 0; i < HW_N; i++)
        if (strcmp(gc_hw_defs[i].name, name) == 0)
            return i;
    return -1;
}

int gc_hwp_missing(const gc_hwp *h, const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        if (!(isfinite(h->v[ids[i]]) && h->v[ids[i]] > 0))
            return ids[i];
    return -1;
}

/* h->source[id] from a format, cut to its size (sources are long). */
static void srcf(gc_hwp *h, int id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void srcf(gc_hwp *h, int id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->source[id], sizeof h->source[id], fmt, ap);
    va_end(ap);
}

static const gc_param *param_of(const gc_gpu *g, const char *name)
{
    for (size_t i = 0; i < g->nparams; i++)
        if (strcmp(g->params[i].name, name) == 0 && isfinite(g->params[i].value))
            return &g->params[i];
    return NULL;
}

static void set(gc_hwp *h, int id, double v, const char *fmt, const char *a, const char *b)
{
    h->v[id] = v;
    snprintf(h->source[id], sizeof h->source[id], fmt, a, b ? b : "");
}

/* h[id] = scale * param (or scale / param when invert), naming the param. */
static int take(gc_hwp *h, int id, const gc_gpu *g, const char *name, double scale, int invert)
{
    const gc_param *p = param_of(g, name);
    if (!p || (invert && !(p->value > 0)))
        return -1;
    double v = invert ? scale / p->value : scale * p->value;
    char how[32] = "";
    if (invert)
        snprintf(how, sizeof how, "%g / ", scale);
    else if (scale != 1)
        snprintf(how, sizeof how, "%g x ", scale);
    h->v[id] = v;
    srcf(h, id, "%s%s (%s)", how, name, p->source);
    return 0;
}

/* The SM clock during the measurements (derive.c's sm_clock_measured_mhz),
 * else what NVML or the properties say. */
static void measured_clock(const gc_gpu *g, gc_hwp *h)
{
    if (take(h, HW_FREQ_HZ, g, "sm_clock_measured_mhz", 1e6, 0) == 0)
        return;
    if (g->start.valid && g->start.sm_clock_mhz > 0) {
        set(h, HW_FREQ_HZ, g->start.sm_clock_mhz * 1e6, "conditions.start.sm_clock_mhz (NVML)%s%s",
            "", NULL);
    } else if (g->info.sm_clock_mhz > 0) {
        set(h, HW_FREQ_HZ, g->info.sm_clock_mhz * 1e6,
            "properties.sm_clock_max_mhz (nothing measured the clock)%s%s", "", NULL);
    }
}

/* Warp schedulers per SM by architecture (CUDA C Programming Guide,
 * compute capabilities; GP100 has 2, the others since Kepler 4). */
static int schedulers_of(int major, int minor)
{
    if (major >= 7 || (major == 6 && minor != 0) || major == 5 || major == 3)
        return 4;
    return major == 6 || major == 2 ? 2 : 1;
}

static void lanes_and_issue(gc_hwp *h, const gc_gpu *g, int lanes_id, int issue_id,
                            const char *const *ops, int nops, int want_max)
{
    const gc_param *best = NULL;
    char name[GC_STR_MAX];
    for (int i = 0; i < nops; i++) {
        snprintf(name, sizeof name, "inst_%s_throughput_ops_per_cycle_per_sm", ops[i]);
        const gc_param *p = param_of(g, name);
        if (p && p->value > 0 && (!best || (want_max ? p->value > best->value : p->value < best->value)))
            best = p;
    }
    if (!best)
        return;
    h->v[lanes_id] = best->value;
    srcf(h, lanes_id, "%s (%s)", best->name, best->source);
    double ws = h->v[HW_WARP_SIZE];
    h->v[issue_id] = ws / best->value;
    snprintf(h->source[issue_id], sizeof h->source[issue_id], "warp_size / %s", best->name);
}

static void latency(gc_hwp *h, const gc_gpu *g, int id, const char *const *ops, int nops)
{
    const gc_param *best = NULL;
    char name[GC_STR_MAX];
    for (int i = 0; i < nops; i++) {
        snprintf(name, sizeof name, "inst_%s_latency_cycles", ops[i]);
        const gc_param *p = param_of(g, name);
        if (p && p->value > 0 && (!best || p->value < best->value))
            best = p;
    }
    if (best) {
        h->v[id] = best->value;
        srcf(h, id, "%s (%s)", best->name, best->source);
    }
}

void gc_hwp_from_gpu(const gc_gpu *g, gc_hwp *h)
{
    const gc_gpu_info *in = &g->info;
    for (int i = 0; i < HW_N; i++) {
        h->v[i] = NAN;
        snprintf(h->source[i], sizeof h->source[i], "not measured");
    }
    measured_clock(g, h);
    if (in->sm_count > 0)
        set(h, HW_SM_COUNT, in->sm_count, "properties.sm_count%s%s", "", NULL);
    if (in->warp_size > 0)
        set(h, HW_WARP_SIZE, in->warp_size, "properties.warp_size%s%s", "", NULL);
    if (in->cores_per_sm > 0)
        set(h, HW_SIMD_WIDTH, in->cores_per_sm, "properties.cores_per_sm%s%s", "", NULL);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", in->cc_major, in->cc_minor);
    set(h, HW_SCHEDULERS, schedulers_of(in->cc_major, in->cc_minor),
        "architecture of compute capability %s (not measured)%s", cc, NULL);
    /* Mem_LD: the unloaded DRAM latency of the random chase; without it,
     * the departure fit's intercept (one outstanding request). */
    if (take(h, HW_MEM_LD, g, "dram_latency_cycles", 1, 0))
        take(h, HW_MEM_LD, g, "departure_coal_intercept_cycles", 1, 0);
    take(h, HW_LAT_GMEM, g, "dram_latency_cycles", 1, 0);
    /* Departure delays: derive.c's slopes are per warp request. A coalesced
     * request (one 128-byte line) is H&K's coalesced transaction as it is;
     * an uncoalesced request is 32 separate sectors, and H&K's
     * Departure_del_uncoal is per transaction: slope / 32. */
    take(h, HW_DEP_COAL, g, "departure_coal_slope_cycles_per_requests", 1, 0);
    take(h, HW_DEP_UNCOAL, g, "departure_uncoal_slope_cycles_per_requests", 1.0 / 32, 0);
    static const char *const f32[] = { "f32_fma", "f32_add", "f32_mul" };
    static const char *const f64[] = { "f64_fma", "f64_add" };
    static const char *const i32[] = { "i32_add", "i32_mul" };
    static const char *const sfu[] = { "sfu_sin", "sfu_exp" };
    static const char *const smem[] = { "smem_ld" };
    lanes_and_issue(h, g, HW_LANES_FP32, HW_ISSUE_FP32, f32, 3, 1);
    lanes_and_issue(h, g, HW_LANES_FP64, HW_ISSUE_FP64, f64, 2, 1);
    lanes_and_issue(h, g, HW_LANES_INT, HW_ISSUE_INT, i32, 1, 1);
    lanes_and_issue(h, g, HW_LANES_SFU, HW_ISSUE_SFU, sfu, 2, 1);
    lanes_and_issue(h, g, HW_LANES_SMEM, HW_ISSUE_SMEM, smem, 1, 1);
    latency(h, g, HW_LAT_FP32, f32, 3);
    latency(h, g, HW_LAT_FP64, f64, 2);
    latency(h, g, HW_LAT_INT, i32, 1);
    latency(h, g, HW_LAT_SFU, sfu, 2);
    latency(h, g, HW_LAT_SMEM, smem, 1);
    set(h, HW_ISSUE_INTERVAL, 1, "architecture: one instruction per warp per cycle (not measured)%s%s",
        "", NULL);
    take(h, HW_BW_READ, g, "hbm_read_bps", 1, 0);
    take(h, HW_BW_WRITE, g, "hbm_write_bps", 1, 0);
    take(h, HW_BW_COPY, g, "hbm_copy_bps", 1, 0);
    take(h, HW_BW_TRIAD, g, "hbm_triad_bps", 1, 0);
    take(h, HW_BW_THEO, g, "hbm_theoretical_bps", 1, 0);
    double cyc = h->v[HW_SM_COUNT] * h->v[HW_FREQ_HZ];
    if (isfinite(h->v[HW_BW_READ]) && cyc > 0)
        set(h, HW_GMEM_BPC, h->v[HW_BW_READ] / cyc, "mem_bandwidth_read_bps / (sm_count x freq_hz)%s%s",
            "", NULL);
    if (isfinite(h->v[HW_BW_THEO]) && cyc > 0)
        set(h, HW_GMEM_BPC_THEO, h->v[HW_BW_THEO] / cyc,
            "mem_bandwidth_theoretical_bps / (sm_count x freq_hz)%s%s", "", NULL);
    take(h, HW_LAUNCH_NS, g, "launch_ns", 1, 0);
    take(h, HW_BLOCK_CYCLES, g, "block_interval_cycles", 1, 0);
    take(h, HW_BLOCK_LAT, g, "block_replacement_cycles", 1, 0);
    take(h, HW_FETCH_BYTES, g, "dram_fetch_granularity_bytes", 1, 0);
    for (int i = HW_INFL_N4; i <= HW_COPY_N512; i++)   /* same names in the GPU's parameters */
        take(h, i, g, gc_hw_defs[i].name, 1, 0);
    take(h, HW_GATHER_LAT, g, "gather_latency_cycles", 1, 0);
    take(h, HW_SCAT_LD, g, "scatter_load_sector_cycles", 1, 0);
    take(h, HW_SCAT_ST, g, "scatter_store_sector_cycles", 1, 0);
    take(h, HW_SCAT_LD_L1, g, "scatter_load_l1_sector_cycles", 1, 0);
    for (int i = HW_OSW_T64; i <= HW_OSW_T1024; i++)
        take(h, i, g, gc_hw_defs[i].name, 1, 0);
    const gc_param *l2 = param_of(g, "l2_bw_bps");
    if (l2 && cyc > 0)
        set(h, HW_L2_BPC, l2->value / cyc, "l2_bw_bps / (sm_count x freq_hz)%s%s", "", NULL);
}

/* A latency table of count entries from id first at n0, 2 n0, 4 n0, ... */
static double table_latency(const gc_hwp *h, int first, int count, double n0, double n,
                            const char **src)
{
    double xs[HW_INFL_COUNT], ys[HW_INFL_COUNT];
    int ids[HW_INFL_COUNT], m = 0;
    for (int i = 0; i < count && i < HW_INFL_COUNT; i++) {
        double v = h->v[first + i];
        if (isfinite(v) && v > 0) {
            xs[m] = n0 * (1 << i);
            ys[m] = v;
            ids[m++] = first + i;
        }
    }
    if (src)
        *src = NULL;
    if (!m || !(n > 0))
        return NAN;
    int k = 0;
    if (n <= xs[0]) {
        if (src)
            *src = gc_hw_defs[ids[0]].name;
        return ys[0];
    }
    if (n >= xs[m - 1]) {   /* past the table: bandwidth-bound, latency = n / rate */
        if (src)
            *src = gc_hw_defs[ids[m - 1]].name;
        return ys[m - 1] * n / xs[m - 1];
    }
    while (k + 1 < m && xs[k + 1] < n)
        k++;
    double t = log(n / xs[k]) / log(xs[k + 1] / xs[k]);
    if (src)
        *src = gc_hw_defs[ids[t < 0.5 ? k : k + 1]].name;
    return exp(log(ys[k]) + t * (log(ys[k + 1]) - log(ys[k])));
}

double gc_hwp_bw_for(const gc_hwp *h, double load_bytes, double store_bytes)
{
    double tot = load_bytes + store_bytes;
    double f = tot > 0 ? store_bytes / tot : 0;
    /* knots: store fraction -> bandwidth; a missing one is skipped */
    const double xs[4] = { 0, 1.0 / 3, 0.5, 1 };
    const double ys[4] = { h->v[HW_BW_READ], h->v[HW_BW_TRIAD], h->v[HW_BW_COPY], h->v[HW_BW_WRITE] };
    double px = NAN, py = NAN;
    for (int i = 0; i < 4; i++) {
        if (!(isfinite(ys[i]) && ys[i] > 0))
            continue;
        if (xs[i] >= f) {
            if (!isfinite(px) || xs[i] == f)
                return ys[i];
            return py + (ys[i] - py) * (f - px) / (xs[i] - px);
        }
        px = xs[i];
        py = ys[i];
    }
    return py;   /* NAN when none was measured */
}

int gc_mlaunch_of(const gc_occ_limits *lim, const gc_hwp *h, const gc_kdesc *d, gc_mlaunch *m,
                  gc_err *err)
{
    memset(m, 0, sizeof *m);
    int rc = gc_occupancy(lim, d->block_threads, d->registers_per_thread,
                          d->smem_static_bytes + d->smem_dynamic_bytes, &m->occ, err);
    if (rc)
        return rc;
    double sms = h->v[HW_SM_COUNT], grid = (double)d->grid_blocks;
    if (!(sms > 0))
        return gc_fail(err, GC_EINVAL, "the GPU's SM count is unknown");
    m->active_sms = grid < sms ? grid : sms;
    double per_sm = ceil(grid / sms);
    m->active_blocks_per_sm = per_sm < m->occ.blocks_per_sm ? per_sm : m->occ.blocks_per_sm;
    m->warps_per_sm = m->active_blocks_per_sm * m->occ.warps_per_block;
    m->rep = grid / (m->active_blocks_per_sm * m->active_sms);
    m->warps_launched = grid * m->occ.warps_per_block;
    return 0;
}

double gc_hwp_inflight_latency(const gc_hwp *h, double n, const char **src)
{
    return table_latency(h, HW_INFL_N4, HW_INFL_COUNT, 4, n, src);
}

double gc_hwp_sync_latency(const gc_hwp *h, double n, const char **src)
{
    return table_latency(h, HW_SYNC_N8, HW_SYNC_N64 - HW_SYNC_N8 + 1, 8, n, src);
}

double gc_hwp_oneshot_excess(const gc_hwp *h, double threads)
{
    double x0 = log2(32), y0 = 0, x = log2(fmax(32, threads)), last = NAN;
    for (int i = HW_OSW_T64; i <= HW_OSW_T1024; i++) {
        double v = h->v[i], xi = log2(64.0 * (1 << (i - HW_OSW_T64)));
        if (!isfinite(v) || v < 0)
            continue;
        if (x <= xi)
            return y0 + (v - y0) * (x - x0) / (xi - x0);
        x0 = xi, y0 = v, last = v;
    }
    return last;
}

double gc_hwp_mixed_latency(const gc_hwp *h, double n, double store_share, const char **src)
{
    double lr = gc_hwp_inflight_latency(h, n, src);
    const char *csrc;
    double lc = table_latency(h, HW_COPY_N16, HW_COPY_N512 - HW_COPY_N16 + 1, 16, n, &csrc);
    if (!isfinite(lc) || !isfinite(lr) || !(store_share > 0))
        return lr;
    double f = fmin(1.0, 2 * store_share);
    if (src && f >= 0.5)
        *src = csrc;
    return exp((1 - f) * log(lr) + f * log(lc));
}

/* Little's-law kernel time (document 001, section 4.4). See model_little.h.
 *
 *   T_k = warps launched / (warp throughput x SMs x SM_clock x lambda)   (4.1)
 *   warps launched = grid x ceil(block / warp size)                      (4.2)
 *   warp throughput = min(occupancy / latency bound, throughput bound)   (4.3)
 *   CPW_bound = max(warp size x INS_CUDA / CUDA cores,
 *                   INS_issued / schedulers, GMem_bytes / GMem_bandwidth) (4.5)
 *   throughput bound = 1 / CPW_bound                                     (4.6)
 *   lambda = t_estimated(lambda = 1) / t_measured                        (4.4)
 *
 * What the census changes, and why:
 *   - eq. 4.5 has one compute term (CUDA cores); an SM of compute
 *     capability 7.0+ runs fp32, int, fp64, SFU and shared-memory
 *     instructions on separate units, so there is one term per unit, each
 *     with its measured rate (Volkov's thesis bounds each unit the same way);
 *   - GMem_bandwidth is the measured DRAM bandwidth for the kernel's mix
 *     of loads and stores per SM cycle, not eq. 4.7's theoretical peak
 *     (the seed's memory-bound error of up to 53% came from the peak);
 *     GMem_bytes counts 32-byte sectors, so uncoalesced accesses cost
 *     what they move;
 *   - the latency bound is the critical path of the description
 *     (critical_path counts, each class at its measured latency, global
 *     loads as below), but never less than issuing the
 *     warp's instructions one per cycle (Volkov's ILP latency, 1 cycle);
 *     plus the seed's "terminated block replacement" latency (its Table
 *     4.1: 150 cycles on Maxwell), here the measured block interval (launch
 *     of many empty blocks), when the GPU has it: a warp's slot is held
 *     until its block is replaced;
 *   - DRAM bytes count an isolated sector at the measured DRAM fetch
 *     granularity (dram_fetch_granularity_bytes) when the description says
 *     the sectors' 128-byte lines (lines_per_inst);
 *   - one more throughput term, the block scheduler: an SM receives at
 *     most one block per measured block interval, so a warp costs at least
 *     block interval / warps per block cycles (kernels of many small, short
 *     blocks are bound by it: on an H200, 2M blocks of 64 threads take
 *     1.27 ms whatever their occupancy);
 *   - the latency bound's dependent DRAM loads wait the latency bench mlp
 *     measured at the kernel's requests in flight per SM (path_latency:
 *     Little's law for the memory system, a fixed point; read-only and
 *     copy rounds by the store share; a gather's latency for uncoalesced
 *     loads; the block's slowest warp's tail), where the catalogue has
 *     them (a grid-stride loop keeps one request per warp in
 *     flight, far from the bandwidth bound); an older catalogue queues them
 *     in the DRAM queue the kernel's own traffic makes (loaded_rate: M/D/1
 *     at the utilisation the warp throughput gives, no parameter);
 *   - three more throughput terms: shared memory by wavefronts (bank
 *     conflicts, the description's smem_wavefronts), spread accesses at the
 *     measured cycles per scattered sector (lsu), every sector at the
 *     measured L2 bandwidth (l2);
 *   - SMs is the number of SMs the grid occupies (min(SMs, grid));
 *   - the launch floor (measured back-to-back launch time) is added to
 *     T_k, as for MWP-CWP (model_mwp.c). */
#include "analyze/model_little.h"

#include <math.h>
#include <string.h>

const int gc_little_params[] = {
    HW_FREQ_HZ, HW_SM_COUNT, HW_WARP_SIZE, HW_LANES_FP32, HW_LANES_FP64, HW_LANES_INT,
    HW_LANES_SFU, HW_LANES_SMEM, HW_SCHEDULERS, HW_GMEM_BPC, HW_GMEM_BPC_THEO,
    HW_BW_READ, HW_BW_WRITE, HW_BW_COPY, HW_BW_TRIAD, HW_BW_THEO,
    HW_LAT_FP32, HW_LAT_FP64, HW_LAT_INT, HW_LAT_SFU, HW_LAT_SMEM, HW_LAT_GMEM,
    HW_ISSUE_INTERVAL, HW_BLOCK_CYCLES, HW_BLOCK_LAT, HW_FETCH_BYTES, HW_LAUNCH_NS,
    HW_INFL_N4, HW_INFL_N8, HW_INFL_N16, HW_INFL_N32, HW_INFL_N64, HW_INFL_N128, HW_INFL_N256,
    HW_INFL_N512, HW_SYNC_N8, HW_SYNC_N16, HW_SYNC_N32, HW_SYNC_N64, HW_COPY_N16, HW_COPY_N32,
    HW_COPY_N64, HW_COPY_N128, HW_COPY_N256, HW_COPY_N512, HW_GATHER_LAT, HW_SCAT_LD, HW_SCAT_ST,
    HW_L2_BPC, HW_SCAT_LD_L1, HW_OSW_T64, HW_OSW_T128, HW_OSW_T256, HW_OSW_T512, HW_OSW_T1024 };
const int gc_little_nparams = (int)(sizeof gc_little_params / sizeof gc_little_params[0]);

const char *const gc_little_term_names[LT_NTERMS] = {
    "fp32", "fp64", "int", "sfu", "smem", "issue", "gmem", "block", "lsu", "l2" };

static const int required[] = { HW_FREQ_HZ, HW_SM_COUNT, HW_WARP_SIZE, HW_LANES_FP32,
                                HW_SCHEDULERS, HW_LAT_FP32, HW_LAT_GMEM };

static double val(const gc_hwp *h, int id, int dflt)
{
    double v = h->v[id];
    return isfinite(v) && v > 0 ? v : h->v[dflt];
}

/* The latency rate with DRAM queueing: a warp's dependent loads (gmem_cp
 * cycles of them at the unloaded latency) wait longer as the kernel's own
 * traffic fills the DRAM bandwidth: at utilisation rho = X x cpw[gmem]
 * (X warps per cycle per SM) each waits rho / (2 (1 - rho)) service times
 * more (M/D/1, the service time taken as the unloaded latency). The rate is
 * the fixed point X = occupancy / (latency bound + that wait), by bisection;
 * without DRAM traffic or dependent loads, occupancy / latency bound. */
static double loaded_rate(const gc_little_pred *o, double gmem_cp)
{
    double base = o->occupancy_warps / o->latency_bound_cycles, g = o->cpw[LT_GMEM];
    if (!(gmem_cp > 0) || !(g > 0))
        return base;
    double lo = 0, hi = fmin(base, 1.0 / g);
    for (int i = 0; i < 100; i++) {
        double x = 0.5 * (lo + hi), rho = x * g;
        double wait = rho < 1 ? gmem_cp * rho / (2 * (1 - rho)) : INFINITY;
        if (o->occupancy_warps / (o->latency_bound_cycles + wait) > x)
            lo = x;
        else
            hi = x;
    }
    return lo;
}

/* The latency of a dependent global load on the critical path, from bench
 * mlp's measurements where the catalogue has them (else the unloaded chase
 * latency, and loaded_rate's queueing later). Little's law for the memory
 * system: an SM keeps N requests in flight (128-byte equivalents: sectors
 * / 4, the DRAM share of them), N = warps/SM x (load + store requests per
 * warp) x L / T, each request spending L of the warp's life T = (waits on
 * its path) x L + the rest of its path and its block's replacement; L is
 * the latency measured at N (dram_inflight_latency_cycles_n*; with stores,
 * toward the copy rounds' dram_inflight_copy_latency_cycles_n* by their
 * share: DRAM writes slow the reads), solved as a fixed point (a store
 * occupies DRAM as a load does; the warp waits only for its loads). An uncoalesced load (a lane per line) waits at least the
 * measured gather latency; a kernel with both kinds: weighted by their
 * load instruction counts. other_cycles: the path without its loads plus
 * block replacement. */
static void path_latency(const gc_hwp *h, const gc_mlaunch *l, const gc_kdesc *d,
                         double other_cycles, gc_little_pred *o)
{
    double req = 0, st = 0, ld = 0, unc = 0;
    for (int i = 0; i < d->nmem; i++) {
        const gc_kdesc_mem *m = &d->mem[i];
        double r = m->dram_ratio > 0 ? m->dram_ratio : 1;
        req += m->count * m->sectors_per_inst / 4 * r;
        if (m->is_store) {
            st += m->count * m->sectors_per_inst / 4 * r;
            continue;
        }
        ld += m->count;
        if (!gc_kdesc_mem_coalesced(m))
            unc += m->count;
    }
    double waits = d->critical_path[GC_CP_GMEM], w = l->warps_per_sm;
    const char *src;
    double share = req > 0 ? st / req : 0;   /* the stores' share: DRAM writes slow reads */
    double lat = gc_hwp_mixed_latency(h, w * req / fmax(1, waits), share, &src);
    o->gmem_latency_cycles = val(h, HW_LAT_GMEM, HW_LAT_GMEM);
    o->gmem_latency_src = gc_hw_defs[HW_LAT_GMEM].name;
    if (!isfinite(lat))
        return;
    o->inflight_per_sm = w * req / fmax(1, waits);
    if (waits >= 1)
        for (int it = 0; it < 100; it++) {
            o->inflight_per_sm = w * req * lat / (waits * lat + other_cycles);
            lat = 0.5 * (lat + gc_hwp_mixed_latency(h, o->inflight_per_sm, share, &src));
        }
    double u = ld > 0 ? unc / ld : 0, g = h->v[HW_GATHER_LAT];
    o->gmem_latency_cycles = lat;
    o->gmem_latency_src = src;
    if (u > 0 && isfinite(g) && g > 0) {
        o->gmem_latency_cycles = (1 - u) * lat + u * fmax(g, lat);
        if (u >= 0.5)
            o->gmem_latency_src = gc_hw_defs[HW_GATHER_LAT].name;
    }
    /* A block leaves with its slowest warp: one load's wait is the slowest
     * of its warps' (measured for 8 warps, the barrier-ended rounds); the
     * expected maximum of k waits grows as log k, so k warps per block
     * take log2(k) / 3 of the 8-warp excess. */
    /* (within the barrier-ended rounds' range: past it, the excess at its
     * last N; both tables' extrapolations are bandwidth, not tails) */
    double nmax = 0;
    for (int i = HW_SYNC_N8; i <= HW_SYNC_N64; i++)
        if (isfinite(h->v[i]) && h->v[i] > 0)
            nmax = 8.0 * (1 << (i - HW_SYNC_N8));
    double n = fmin(o->inflight_per_sm, nmax);
    double ls = gc_hwp_sync_latency(h, n, NULL), lu = gc_hwp_inflight_latency(h, n, NULL);
    double wpb = ceil(d->block_threads / h->v[HW_WARP_SIZE]);
    if (isfinite(ls) && isfinite(lu) && ls > lu && wpb > 1 && waits >= 1)
        o->gmem_tail_cycles = (ls - lu) * log2(wpb) / 3;
    /* Where bench mlp measured one-shot blocks, that instead of the guess:
     * a barrier after the loads holds a block's warps together, and the
     * block holds its slots from its first warp's start to the barrier's
     * release (oneshot_sync: the span beyond the warps' own lives, at the
     * kernel's block size: ~30 cycles at 256 threads on H100/H200). Without
     * a barrier nothing ties a warp to the others of its block and its
     * slot is free when it ends: no tail. (Counting the span of a block
     * without a barrier, oneshot_excess_cycles_t256, 260-340 cycles,
     * made the validation suite's one-shot saxpy and stride kernels 7-15%
     * slower than measured on an H100: the slots are not held.) */
    double ex = gc_hwp_oneshot_excess(h, d->block_threads);
    if (isfinite(ex))
        o->gmem_tail_cycles = d->syncs > 0 && waits >= 1 ? ex : 0;
}

/* SM cycles per warp of its spread accesses (more than twice the sectors
 * of a coalesced one: lanes over many lines, as a gather or a transpose's
 * stores; a misaligned coalesced access, 5 sectors in 2 lines, is not):
 * sectors x the measured cycles per sector of scattered loads / stores;
 * a load's sectors that hit L1 (the description's l1_hit_ratio: SpMV's
 * row of values read a word a trip) at the L1-resident cost where the
 * catalogue has it; 0 where the catalogue has not measured them. */
static double lsu_cycles(const gc_hwp *h, const gc_kdesc *d)
{
    double c = 0;
    for (int i = 0; i < d->nmem; i++) {
        const gc_kdesc_mem *m = &d->mem[i];
        double per = h->v[m->is_store ? HW_SCAT_ST : HW_SCAT_LD];
        double l1 = h->v[HW_SCAT_LD_L1];
        if (!m->is_store && m->l1_hit_ratio > 0 && isfinite(l1) && l1 > 0 && isfinite(per))
            per = (1 - m->l1_hit_ratio) * per + m->l1_hit_ratio * l1;
        if (m->sectors_per_inst > 2 * gc_kdesc_min_sectors(m) && isfinite(per) && per > 0)
            c += m->count * m->sectors_per_inst * per;
    }
    return c;
}

int gc_little_predict(const gc_hwp *h, const gc_mlaunch *l, const gc_kdesc *d,
                      gc_little_pred *o, gc_err *err)
{
    memset(o, 0, sizeof *o);
    int miss = gc_hwp_missing(h, required, (int)(sizeof required / sizeof required[0]));
    if (miss >= 0)
        return gc_fail(err, GC_EINVAL, "Little's law: the GPU has no %s (%s)",
                       gc_hw_defs[miss].name, gc_hw_defs[miss].symbol);
    double ws = h->v[HW_WARP_SIZE], freq = h->v[HW_FREQ_HZ];
    o->warps_launched = l->warps_launched;
    o->occupancy_warps = l->warps_per_sm;
    o->active_sms = l->active_sms;
    /* latency bound */
    static const int lat_id[GC_CP_NCLASS] = { HW_LAT_FP32, HW_LAT_FP64, HW_LAT_INT, HW_LAT_SFU,
                                              HW_LAT_SMEM, HW_LAT_GMEM };
    double other = 0;
    for (int c = 0; c < GC_CP_NCLASS; c++)
        if (c != GC_CP_GMEM)
            other += d->critical_path[c] * val(h, lat_id[c], HW_LAT_FP32);
    /* block replacement: measured with one block per SM; older catalogues
     * have only the scheduler's interval, the best stand-in */
    double blk = h->v[HW_BLOCK_LAT], ivl = h->v[HW_BLOCK_CYCLES];
    o->block_cycles = isfinite(blk) && blk > 0 ? blk : isfinite(ivl) && ivl > 0 ? ivl : 0;
    o->interval_cycles = isfinite(ivl) && ivl > 0 ? ivl : 0;
    path_latency(h, l, d, other + o->block_cycles, o);
    o->cp_cycles = other + d->critical_path[GC_CP_GMEM] * o->gmem_latency_cycles +
                   o->gmem_tail_cycles;
    double interval = val(h, HW_ISSUE_INTERVAL, HW_ISSUE_INTERVAL);
    o->issue_cycles = gc_kdesc_total_insts(d) * (isfinite(interval) ? interval : 1.0);
    o->latency_bound_cycles = fmax(o->cp_cycles, o->issue_cycles) + o->block_cycles;
    /* throughput bound */
    double lb, sb;
    o->gmem_bytes_per_warp = gc_kdesc_dram_traffic(d, h->v[HW_FETCH_BYTES], &lb, &sb);
    double bw = gc_hwp_bw_for(h, lb, sb);
    if (o->gmem_bytes_per_warp > 0 && !(bw > 0))
        return gc_fail(err, GC_EINVAL, "Little's law: the GPU has no measured memory bandwidth "
                       "(mem_bandwidth_*_bps)");
    o->gmem_bytes_per_cycle_per_sm = bw > 0 ? bw / (h->v[HW_SM_COUNT] * freq) : 0;
    o->cpw[LT_FP32] = ws * d->insts[GC_KD_FP32] / h->v[HW_LANES_FP32];
    o->cpw[LT_FP64] = ws * d->insts[GC_KD_FP64] / val(h, HW_LANES_FP64, HW_LANES_FP32);
    o->cpw[LT_INT] = ws * d->insts[GC_KD_INT] / val(h, HW_LANES_INT, HW_LANES_FP32);
    o->cpw[LT_SFU] = ws * d->insts[GC_KD_SFU] / val(h, HW_LANES_SFU, HW_LANES_FP32);
    /* shared memory: one wavefront per conflict way (a profile's count) */
    o->cpw[LT_SMEM] = ws * fmax(d->smem_wavefronts, d->insts[GC_KD_SMEM]) /
                      val(h, HW_LANES_SMEM, HW_LANES_FP32);
    o->cpw[LT_ISSUE] = gc_kdesc_total_insts(d) / h->v[HW_SCHEDULERS];
    o->cpw[LT_GMEM] = o->gmem_bytes_per_warp > 0 ? o->gmem_bytes_per_warp /
                                                     o->gmem_bytes_per_cycle_per_sm : 0;
    /* An SM takes a new block once per block interval at best (measured
     * with many empty blocks): a throughput bound per warp of the block. */
    o->cpw[LT_BLOCK] = o->interval_cycles / ceil(d->block_threads / ws);
    o->cpw[LT_LSU] = lsu_cycles(h, d);
    /* every sector a warp's global accesses ask L2 for at the measured L2
     * bandwidth (l2_bw_bps: each SM reading lines of its own); a load's
     * sectors that hit L1 (the description's l1_hit_ratio, from a profile;
     * 0 where unknown: counted) never reach L2 */
    double l2 = h->v[HW_L2_BPC], l2_bytes = 0;
    for (int i = 0; i < d->nmem; i++) {
        const gc_kdesc_mem *m = &d->mem[i];
        double hit = !m->is_store && m->l1_hit_ratio > 0 ? fmin(m->l1_hit_ratio, 1) : 0;
        l2_bytes += m->count * m->sectors_per_inst * GC_KD_SECTOR_BYTES * (1 - hit);
    }
    o->cpw[LT_L2] = isfinite(l2) && l2 > 0 ? l2_bytes / l2 : 0;
    o->cpw_max = 0;
    for (int t = 1; t < LT_NTERMS; t++)
        if (o->cpw[t] > o->cpw[o->cpw_max])
            o->cpw_max = t;
    o->throughput_bound = 1.0 / o->cpw[o->cpw_max];                       /* eq. 4.6 */
    o->latency_rate = o->occupancy_warps / o->latency_bound_cycles;
    /* the regime by the unloaded rate (the path's loads at the unloaded
     * chase latency, no tail): queueing slows a memory-bound kernel, it
     * does not make it latency-bound */
    double cp0 = o->cp_cycles - o->gmem_tail_cycles -
                 d->critical_path[GC_CP_GMEM] * (o->gmem_latency_cycles - val(h, HW_LAT_GMEM, HW_LAT_GMEM));
    double rate0 = o->occupancy_warps / (fmax(cp0, o->issue_cycles) + o->block_cycles);
    o->latency_limited = rate0 < o->throughput_bound;
    /* bench mlp's latencies hold the queueing already (measured at the
     * kernel's requests in flight): no M/D/1 wait on top */
    double loaded = o->gmem_latency_src == gc_hw_defs[HW_LAT_GMEM].name
                        ? loaded_rate(o, d->critical_path[GC_CP_GMEM] * o->gmem_latency_cycles)
                        : o->latency_rate;
    o->dram_wait_cycles = loaded > 0 && loaded < o->latency_rate
                              ? o->occupancy_warps / loaded - o->latency_bound_cycles : 0;
    o->warp_throughput = fmin(loaded, o->throughput_bound);               /* eq. 4.3 */
    o->cycles = o->warps_launched / (o->warp_throughput * o->active_sms); /* eq. 4.1 */
    o->exec_ns = o->cycles / freq * 1e9;
    o->ns = o->exec_ns + (isfinite(h->v[HW_LAUNCH_NS]) ? h->v[HW_LAUNCH_NS] : 0);
    return 0;
}

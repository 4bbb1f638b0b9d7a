/* MWP-CWP (Hong & Kim, ISCA 2009). See model_mwp.h.
 *
 * Equations are named by the paper's variables (Section 3 of the paper;
 * the digest in /work/shared/reference/seeds.md lists them). They were
 * checked against that digest and against independent public
 * implementations of the paper (same forms, including the synchronisation
 * cost). The equation numbers below are the paper's as two of those
 * implementations cite them (eq. 6-9, 10-12, 15-19, 22-24, 26-27); the
 * PDF itself could not be read here, so a number may be off by one where
 * they disagree (the MWP minimum, #Rep).
 *
 * What the census changes, and why:
 *   Issue_cycles  the paper's GT200 issues one warp instruction per SM
 *                 every 4 cycles (32 threads / 8 SPs). An SM with 4
 *                 schedulers issues up to 4 per cycle, so the SM-level
 *                 Issue_cycles is warp_size / (measured f32 ops per cycle
 *                 per SM): 32 / 125 = 0.26 on an H100/H200. fp64, int, sfu
 *                 and shared-memory instructions use their own measured
 *                 rate (an extension: the paper has one Issue_cycles).
 *   Departure_del_uncoal  per transaction (sector): the measured slope per
 *                 uncoalesced warp request of 32 sectors / 32 (model_hw.c).
 *   Coalesced requests wider than one 128-byte line (8- and 16-byte
 *                 accesses) count as #Coal_per_mw = sectors / 4 requests,
 *                 by the same rule as uncoalesced ones; with 4-byte
 *                 accesses this is the paper's model exactly.
 *   Mem_Bandwidth the measured STREAM bandwidth for the kernel's mix of
 *                 loads and stores, not the theoretical peak.
 *   Freq          the measured SM clock.
 *   Launch floor  the paper predicts execution cycles; a measured kernel
 *                 also pays its launch. ns adds the measured back-to-back
 *                 launch time (launch_overhead_ns) to cycles / Freq. */
#include "analyze/model_mwp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const int gc_mwp_params[] = {
    HW_FREQ_HZ, HW_SM_COUNT, HW_WARP_SIZE, HW_SIMD_WIDTH, HW_MEM_LD, HW_DEP_COAL, HW_DEP_UNCOAL,
    HW_ISSUE_FP32, HW_ISSUE_FP64, HW_ISSUE_INT, HW_ISSUE_SFU, HW_ISSUE_SMEM,
    HW_BW_READ, HW_BW_WRITE, HW_BW_COPY, HW_BW_TRIAD, HW_BW_THEO, HW_FETCH_BYTES, HW_BLOCK_CYCLES, HW_LAUNCH_NS };
const int gc_mwp_nparams = (int)(sizeof gc_mwp_params / sizeof gc_mwp_params[0]);

/* Inputs without which the model cannot run. */
static const int required[] = { HW_FREQ_HZ, HW_SM_COUNT, HW_WARP_SIZE, HW_MEM_LD, HW_DEP_COAL,
                                HW_DEP_UNCOAL, HW_ISSUE_FP32 };

static double or_default(const gc_hwp *h, int id, int dflt)
{
    double v = h->v[id];
    return isfinite(v) && v > 0 ? v : h->v[dflt];
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* Comp_cycles = Issue_cycles x #Total_insts (eq. 19), with one
 * Issue_cycles per instruction class (see the top of the file). */
static double comp_cycles(const gc_hwp *h, const gc_kdesc *d)
{
    double i32 = h->v[HW_ISSUE_FP32];
    double per[GC_KD_NCLASS];
    for (int c = 0; c < GC_KD_NCLASS; c++)
        per[c] = i32;
    per[GC_KD_FP64] = or_default(h, HW_ISSUE_FP64, HW_ISSUE_FP32);
    per[GC_KD_INT] = or_default(h, HW_ISSUE_INT, HW_ISSUE_FP32);
    per[GC_KD_SFU] = or_default(h, HW_ISSUE_SFU, HW_ISSUE_FP32);
    per[GC_KD_SMEM] = or_default(h, HW_ISSUE_SMEM, HW_ISSUE_FP32);
    double cyc = i32 * gc_kdesc_mem_insts(d);   /* memory instructions issue too */
    for (int c = 0; c < GC_KD_NCLASS; c++)
        cyc += per[c] * d->insts[c];
    return cyc;
}

/* Memory side: Mem_L_Uncoal = Mem_LD + (#Uncoal_per_mw - 1) x
 * Departure_del_uncoal (eq. 10), Mem_L_Coal = Mem_LD (eq. 11), Mem_L
 * weighted by the instruction mix (eq. 12), Departure_delay (eq. 15),
 * Mem_cycles (eq. 18). Per entry of the description, weighted by count. */
static void memory_side(const gc_hwp *h, const gc_kdesc *d, gc_mwp_pred *o)
{
    double ld = h->v[HW_MEM_LD], dc = h->v[HW_DEP_COAL], du = h->v[HW_DEP_UNCOAL];
    double lu_sum = 0, lc_sum = 0, dd_u = 0, dd_c = 0, upm = 0, cpm = 0;
    o->coal_mem_insts = o->uncoal_mem_insts = 0;
    for (int i = 0; i < d->nmem; i++) {
        const gc_kdesc_mem *m = &d->mem[i];
        if (gc_kdesc_mem_coalesced(m)) {
            double lines = fmax(1.0, ceil(m->sectors_per_inst / 4.0));   /* 128-byte requests */
            o->coal_mem_insts += m->count;
            cpm += m->count * lines;
            lc_sum += m->count * (ld + (lines - 1) * dc);
            dd_c += m->count * dc * lines;
        } else {
            o->uncoal_mem_insts += m->count;
            upm += m->count * m->sectors_per_inst;
            lu_sum += m->count * (ld + (m->sectors_per_inst - 1) * du);
            dd_u += m->count * du * m->sectors_per_inst;
        }
    }
    double n = o->coal_mem_insts + o->uncoal_mem_insts;
    o->mem_insts = n;
    o->uncoal_per_mw = o->uncoal_mem_insts > 0 ? upm / o->uncoal_mem_insts : 0;
    o->coal_per_mw = o->coal_mem_insts > 0 ? cpm / o->coal_mem_insts : 0;
    o->mem_l_uncoal = o->uncoal_mem_insts > 0 ? lu_sum / o->uncoal_mem_insts : ld;
    o->mem_l_coal = o->coal_mem_insts > 0 ? lc_sum / o->coal_mem_insts : ld;
    /* Weight_uncoal x Mem_L_Uncoal + Weight_coal x Mem_L_Coal */
    o->mem_l = n > 0 ? (lu_sum + lc_sum) / n : ld;
    /* Departure_del_uncoal x #Uncoal_per_mw x Weight_uncoal +
     * Departure_del_coal x Weight_coal */
    o->departure_delay = n > 0 ? (dd_u + dd_c) / n : dc;
    o->mem_cycles = lu_sum + lc_sum;
}

int gc_mwp_predict(const gc_hwp *h, const gc_mlaunch *l, const gc_kdesc *d, gc_mwp_pred *o,
                   gc_err *err)
{
    memset(o, 0, sizeof *o);
    int miss = gc_hwp_missing(h, required, (int)(sizeof required / sizeof required[0]));
    if (miss >= 0)
        return gc_fail(err, GC_EINVAL, "MWP-CWP: the GPU has no %s (%s)", gc_hw_defs[miss].name,
                       gc_hw_defs[miss].symbol);
    double freq = h->v[HW_FREQ_HZ];
    double lb, sb;
    double traffic = gc_kdesc_dram_traffic(d, h->v[HW_FETCH_BYTES], &lb, &sb);
    o->mem_bandwidth_bps = gc_hwp_bw_for(h, lb, sb);
    double n = l->warps_per_sm;   /* N: active warps per SM */
    o->n = n;
    o->rep = l->rep;              /* #Rep = #Blocks / (#Active_blocks_per_SM x #Active_SMs) */
    o->active_sms = l->active_sms;
    o->active_blocks_per_sm = l->active_blocks_per_sm;
    o->comp_cycles = comp_cycles(h, d);
    memory_side(h, d, o);
    if (o->mem_insts > 0 && !(o->mem_bandwidth_bps > 0))
        return gc_fail(err, GC_EINVAL, "MWP-CWP: the GPU has no measured memory bandwidth "
                       "(mem_bandwidth_*_bps)");
    if (o->mem_insts <= 0) {
        /* No memory warp: every warp's instructions go through the issue
         * pipeline one after the other, case 3 with Mem_L = 0. */
        o->case_no = 0;
        o->mwp = o->cwp = o->cwp_full = 1;
        o->exec_cycles_app = o->comp_cycles * n * o->rep;
    } else {
        /* Load_bytes_per_warp: DRAM bytes one memory warp instruction moves
         * (isolated sectors at the DRAM fetch granularity, as Little's law) */
        o->load_bytes_per_warp = traffic / o->mem_insts;
        o->mwp_without_bw_full = o->mem_l / o->departure_delay;               /* eq. 16 */
        o->bw_per_warp_bps = freq * o->load_bytes_per_warp / o->mem_l;        /* eq. 7 */
        o->mwp_peak_bw = o->mem_bandwidth_bps / (o->bw_per_warp_bps * o->active_sms); /* eq. 6 */
        o->mwp = fmin(fmin(o->mwp_without_bw_full, o->mwp_peak_bw), n);      /* eq. 5, 17 */
        o->cwp_full = (o->mem_cycles + o->comp_cycles) / o->comp_cycles;      /* eq. 8 */
        o->cwp = fmin(o->cwp_full, n);                                        /* eq. 9 */
        double comp_p = o->comp_cycles / o->mem_insts;
        if (near(o->mwp, n) && near(o->cwp, n)) {
            o->case_no = 1;                                                   /* eq. 22 */
            o->exec_cycles_app = (o->mem_cycles + o->comp_cycles + comp_p * (o->mwp - 1)) * o->rep;
        } else if (o->cwp >= o->mwp || o->comp_cycles > o->mem_cycles) {
            o->case_no = 2;                                                   /* eq. 23 */
            o->exec_cycles_app = (o->mem_cycles * n / o->mwp + comp_p * (o->mwp - 1)) * o->rep;
        } else {
            o->case_no = 3;                                                   /* eq. 24 */
            o->exec_cycles_app = (o->mem_l + o->comp_cycles * n) * o->rep;
        }
    }
    /* Synch_cost = Departure_delay x (MWP - 1) x #Synch_insts x
     * #Active_blocks_per_SM x #Rep (eq. 26); total eq. 27 */
    o->synch_cycles = o->mem_insts > 0 ? o->departure_delay * fmax(0.0, o->mwp - 1) * d->syncs *
                                             o->active_blocks_per_sm * o->rep
                                       : 0;
    o->cycles = o->exec_cycles_app + o->synch_cycles;
    /* Not in the paper: an SM receives at most one block per measured block
     * interval, so the kernel takes at least its blocks per SM times it. */
    double blk = h->v[HW_BLOCK_CYCLES];
    o->block_floor_cycles = isfinite(blk) && blk > 0 && o->active_sms > 0
                                ? (double)d->grid_blocks / o->active_sms * blk : 0;
    if (o->block_floor_cycles > o->cycles)
        o->cycles = o->block_floor_cycles;
    o->exec_ns = o->cycles / freq * 1e9;
    double floor_ns = isfinite(h->v[HW_LAUNCH_NS]) ? h->v[HW_LAUNCH_NS] : 0;
    o->ns = o->exec_ns + floor_ns;
    return 0;
}

/* Sim times of the validation kernels: the hidden ground truth the two
 * models are scored against in CI. See sim_valid.h.
 *
 * It is deliberately neither model (model_mwp.c, model_little.c), so a
 * sim validation measures how they fare against something that behaves
 * like a GPU, not against themselves:
 *   - per warp, the SM time of each unit (fp32, fp64, int, SFU, shared
 *     memory, conversion, issue at 4 schedulers, the load/store unit at
 *     one sector per departure_uncoalesced/32 cycles) and of DRAM (sector
 *     bytes at a bandwidth that mixes the profile's read and write rates
 *     harmonically, with a turnaround loss) combine by a 6-norm: a smooth
 *     maximum, units overlapping imperfectly;
 *   - the warp's latency is its critical path at the profile's latencies,
 *     global loads at the loaded DRAM latency (the profile's chase_loaded
 *     slope beyond its knee, scaled by how busy DRAM is), plus 0.6 cycles
 *     per instruction off the critical path and barriers at shared-memory
 *     latency;
 *   - latency hiding: warps per cycle = smooth minimum (4-norm) of
 *     resident warps / latency and 1 / throughput time;
 *   - DRAM bytes: an isolated sector (lines_per_inst) costs the profile's
 *     dram_fetch_bytes;
 *   - blocks run in waves of the resident capacity (the last one partial,
 *     with fewer warps to hide latency), each wave paying one block
 *     interval (launch.block_interval_ns); the kernel pays the profile's
 *     kernel overhead.
 * Noise comes from the backend (draw_time: lognormal time_sigma). */
#include "measure/sim/sim_valid.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "census/kdesc_set.h"
#include "census/occupancy.h"

#define SCHEDULERS 4.0
#define OFF_PATH_ISSUE 0.6

static double pnorm(const double *v, int n, double p)
{
    double s = 0, mx = 0;
    for (int i = 0; i < n; i++)
        mx = fmax(mx, v[i]);
    if (mx <= 0)
        return 0;
    for (int i = 0; i < n; i++)
        s += pow(v[i] / mx, p);
    return mx * pow(s, 1.0 / p);
}

static double op_rate(const gc_sim_profile *p, const char *a, const char *b, double dflt)
{
    const gc_sim_op *o = gc_sim_profile_op(p, a);
    if (!o && b)
        o = gc_sim_profile_op(p, b);
    return o && o->ops_per_cycle_per_sm > 0 ? o->ops_per_cycle_per_sm : dflt;
}

static double op_lat(const gc_sim_profile *p, const char *a, double dflt)
{
    const gc_sim_op *o = gc_sim_profile_op(p, a);
    return o ? o->latency_cycles : dflt;
}

/* DRAM bytes per SM cycle for a store fraction f of the bytes. */
static double dram_bytes_per_cycle(const gc_sim_profile *p, double f, double hbm_scale,
                                   double clk_hz)
{
    double ach = p->hbm_achieved_tb_per_s * 1e12 * hbm_scale;
    double r = ach * p->hbm_read_factor, w = ach * p->hbm_write_factor;
    double bps = 1.0 / ((1 - f) / r + f / w) * (1 - 0.5 * f * (1 - f));
    return bps / (p->sm_count * clk_hz);
}

typedef struct warp_cost {
    double thr;      /* SM cycles per warp at full throughput */
    double lat0;     /* latency without the DRAM load term */
    double gmem_cp;  /* dependent global loads on the critical path */
    double util;     /* DRAM share of the throughput time */
} warp_cost;

static void warp_costs(const gc_sim_profile *p, const gc_kdesc *d, double hbm_scale,
                       double clk_hz, double warps_per_block, warp_cost *c)
{
    double ws = p->warp_size;
    double lb, sb;
    double bytes = gc_kdesc_dram_traffic(d, p->dram_fetch_bytes, &lb, &sb);
    double sectors = 0;
    for (int i = 0; i < d->nmem; i++)
        sectors += d->mem[i].count * d->mem[i].sectors_per_inst;
    double f = bytes > 0 ? sb / bytes : 0;
    /* the block scheduler hands an SM one block per interval (an H200
     * takes 1.27 ms for 2M blocks of 64 threads, whatever the occupancy) */
    double block = p->block_interval_ns * 1e-9 * clk_hz / fmax(1.0, warps_per_block);
    double t[10] = {
        ws * d->insts[GC_KD_FP32] / op_rate(p, "f32_fma", "f32_add", 128),
        ws * d->insts[GC_KD_FP64] / op_rate(p, "f64_fma", "f64_add", 64),
        ws * d->insts[GC_KD_INT] / op_rate(p, "i32_add", NULL, 64),
        ws * d->insts[GC_KD_SFU] / op_rate(p, "sfu_sin", "sfu_exp", 16),
        ws * d->insts[GC_KD_SMEM] / op_rate(p, "smem_ld", NULL, 32),
        ws * d->insts[GC_KD_CONV] / 16.0,
        gc_kdesc_total_insts(d) / SCHEDULERS,
        sectors * p->departure_uncoalesced_cycles / 32.0,
        bytes > 0 ? bytes / dram_bytes_per_cycle(p, f, hbm_scale, clk_hz) : 0,
        block,
    };
    c->thr = pnorm(t, 10, 6.0);
    c->util = c->thr > 0 ? t[8] / c->thr : 0;
    static const char *const lat_ops[GC_CP_NCLASS] = { "f32_fma", "f64_fma", "i32_add", "sfu_sin",
                                                       "smem_ld", NULL };
    double cp_insts = 0;
    c->lat0 = 0;
    for (int k = 0; k < GC_CP_GMEM; k++) {
        c->lat0 += d->critical_path[k] * op_lat(p, lat_ops[k], 4);
        cp_insts += d->critical_path[k];
    }
    c->gmem_cp = d->critical_path[GC_CP_GMEM];
    cp_insts += c->gmem_cp;
    c->lat0 += OFF_PATH_ISSUE * fmax(0.0, gc_kdesc_total_insts(d) - cp_insts);
    c->lat0 += d->syncs * op_lat(p, "smem_ld", 30);
}

/* Cycles for one SM to run w resident warps to completion. */
static double wave_cycles(const gc_sim_profile *p, const warp_cost *c, double w, double clk_hz)
{
    double dram = p->dram_latency_cycles +
                  p->dram_slope_cycles_per_warp * fmax(0.0, w - p->dram_knee_warps_per_sm) * c->util;
    double lat = c->lat0 + c->gmem_cp * dram;
    double r_lat = lat > 0 ? w / lat : INFINITY;
    double r_thr = c->thr > 0 ? 1.0 / c->thr : INFINITY;
    double rate = pow(pow(r_lat, -4.0) + pow(r_thr, -4.0), -0.25);
    return w / rate + p->block_interval_ns * 1e-9 * clk_hz;
}

int gc_sim_valid_desc(const gc_sim_profile *p, const gc_kdesc *d, double clock_scale,
                      double hbm_scale, double *ns, gc_ctx *ctx, gc_err *err)
{
    gc_gpu_info in;
    memset(&in, 0, sizeof in);
    in.cc_major = p->cc_major;
    in.cc_minor = p->cc_minor;
    in.warp_size = p->warp_size;
    in.max_threads_per_sm = p->max_threads_per_sm;
    in.regs_per_sm = p->regs_per_sm;
    in.smem_per_sm_bytes = (uint64_t)(p->smem_per_sm_kib * 1024);
    gc_occ_limits lim;
    gc_occ_limits_of(&in, &lim);
    gc_occ o;
    gc_err e = { 0 };
    if (gc_occupancy(&lim, d->block_threads, d->registers_per_thread,
                     d->smem_static_bytes + d->smem_dynamic_bytes, &o, &e))
        return gc_fail(err, GC_EINVAL, "sim: kernel %s cannot launch: %s", d->name, e.msg);
    double clk = p->sm_clock_mhz * 1e6 * clock_scale;
    warp_cost c;
    warp_costs(p, d, hbm_scale, clk, o.warps_per_block, &c);
    double sms = p->sm_count, grid = (double)d->grid_blocks;
    double cap = (double)o.blocks_per_sm * sms;
    double full = floor(grid / cap), rem = grid - full * cap;
    double w_full = (double)o.warps_per_sm;
    double w_last = fmin(o.blocks_per_sm, ceil(rem / sms)) * o.warps_per_block;
    double cycles = full * wave_cycles(p, &c, w_full, clk) +
                    (rem > 0 ? wave_cycles(p, &c, w_last, clk) : 0);
    *ns = cycles / clk * 1e9 + p->kernel_overhead_us * 1000;
    double resident = full > 0 ? w_full : w_last;
    if (ctx && (gc_ctx_set_num(ctx, "grid_blocks", grid) ||
                gc_ctx_set_num(ctx, "block_threads", d->block_threads) ||
                gc_ctx_set_num(ctx, "smem_dynamic_bytes", (double)d->smem_dynamic_bytes) ||
                gc_ctx_set_num(ctx, "sm_clock_mhz_measured", clk / 1e6) ||
                gc_ctx_set_num(ctx, "warps_per_sm", resident)))
        return gc_fail(err, GC_EINVAL, "sim: no room in the point context of kernel %s", d->name);
    return 0;
}

/* The build's embedded descriptions, parsed once per process: they never
 * change, and parsing one per validation item was 11% of a simulated GPU's
 * time in bench_verdicts. */
static gc_kdesc_set embedded;
static pthread_once_t embedded_once = PTHREAD_ONCE_INIT;
static void parse_embedded(void) { gc_kdesc_set_embedded(&embedded); }

int gc_sim_valid(const gc_sim_profile *p, const char *kernel, double clock_scale, double hbm_scale,
                 double *ns, gc_ctx *ctx, gc_err *err)
{
    pthread_once(&embedded_once, parse_embedded);
    const gc_kdesc *d = gc_kdesc_set_find(&embedded, kernel);
    if (d)
        return gc_sim_valid_desc(p, d, clock_scale, hbm_scale, ns, ctx, err);
    gc_kdesc one;   /* not parsed (or not there): its own error */
    int rc = gc_kdesc_embedded_find(kernel, &one, err);
    return rc ? rc : gc_sim_valid_desc(p, &one, clock_scale, hbm_scale, ns, ctx, err);
}

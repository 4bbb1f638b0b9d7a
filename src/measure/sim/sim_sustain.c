/* The sim backend's sustained load (sustain): the timeline a healthy GPU
 * shows under a steady HBM or FMA load (profile section sustain: the SM
 * clock it holds, its power, a temperature that rises towards a steady
 * value), read every SAMPLE_S as the cuda driver's NVML thread reads it,
 * plus the work rate per launch. No wall time passes: the timeline is
 * drawn at once, deterministic per (seed, node, GPU, item).
 *
 * Faults: throttle (metric sustain, factor T): from T seconds on the
 * clock drops to sustain.throttle_clock_ratio of itself with the SW and
 * HW thermal slowdown reasons, and the GPU runs hotter; unstable (factor
 * a): a third of the readings dip by a/2..a; scale on sustain: the clock
 * held x factor, no reason given (a power or clock cap); scale on
 * sm_clock: the HW-slowdown state the conditions report, from the start. */
#include <math.h>
#include <string.h>

#include "measure/sim/sim_int.h"

#define SAMPLE_S 0.1
#define RATES_PER_SAMPLE 10      /* work-rate samples (launches) per reading */
#define R_HW_SLOWDOWN 0x8ull
#define R_THERMAL 0x60ull        /* SW and HW thermal slowdown */

typedef struct reading {
    double mhz, watts, temp_c, rate;
    uint64_t reasons;
} reading;

static void draw(const gc_backend *b, int fma, double t_s, sim_rng *r, double rate0, reading *o)
{
    const gc_sim_profile *p = &b->prof;
    double held = (fma ? p->sus_fma_sm_clock_mhz : p->sus_hbm_sm_clock_mhz) *
                  b->f.scale[F_SUSTAIN] * b->f.scale[F_SM_CLOCK];
    double ratio = 1;
    o->reasons = b->f.scale[F_SM_CLOCK] < 1 ? R_HW_SLOWDOWN : 0;
    o->temp_c = p->idle_temperature_c + p->sus_temperature_rise_c * (1 - exp(-t_s / p->sus_temperature_tau_s));
    if (t_s >= b->f.throttle_after_s) {
        ratio = p->sus_throttle_clock_ratio;
        o->reasons |= R_THERMAL;
        o->temp_c += 10;
    }
    if (b->f.unstable > 0 && sim_rng_unif(r) < 1.0 / 3)
        ratio *= 1 - b->f.unstable * (0.5 + 0.5 * sim_rng_unif(r));
    o->mhz = round(held * ratio * (1 + p->sus_clock_jitter_rel * sim_rng_normal(r)));
    o->watts = (fma ? p->sus_fma_power_w : p->sus_hbm_power_w) * (ratio < 1 ? ratio : 1) *
               (1 + 0.01 * sim_rng_normal(r));
    o->temp_c = round(o->temp_c + 0.5 * sim_rng_normal(r));
    /* FMA work follows the SM clock; HBM traffic only weakly */
    o->rate = rate0 * (fma ? o->mhz / p->sm_clock_mhz : sqrt(ratio));
}

int sim_sustain(const gc_backend *b, const gc_task *t, gc_gpu *gpu, gc_err *err)
{
    static const char *const m[] = { "sm_clock", "power", "temperature", "throttled",
                                     "power_capped" };
    const gc_sim_profile *p = &b->prof;
    const gc_item *it = t->item;
    int fma = !strcmp(sim_pstr(it, "load"), "fma");
    double loaded_s = sim_pnum(it, "duration_s"), budget_s = it->spec->budget_s;
    uint32_t flags = 0;
    if (budget_s > 0 && budget_s < loaded_s) {
        loaded_s = budget_s;
        flags |= GC_FLAG_BUDGET_HIT;
    }
    const gc_sim_op *op = gc_sim_profile_op(p, "f32_fma");
    double rate0 = fma ? (op ? op->ops_per_cycle_per_sm : 128) * 2 * p->sm_count * p->sm_clock_mhz * 1e6 * 0.97
                       : sim_hbm_bps(b, "triad", 4);
    size_t first = gpu->npoints;
    gc_point *pt;
    for (size_t k = 0; k <= sizeof m / sizeof m[0]; k++) {
        int rc = gc_metric_add_point(&pt, gpu, it->id, it->spec->name, it->spec->label, &it->params,
                                     k ? m[k - 1] : fma ? "flops" : "bandwidth", b->sub_bits, err);
        if (rc)
            return rc;
    }
    pt = &gpu->points[first];
    sim_rng r;
    uint64_t keys[] = { b->plan->sim.seed, (uint64_t)b->node_index, (uint64_t)b->local_index, it->id };
    sim_rng_seed(&r, keys, 4);
    double onset = -1;
    uint64_t seen = 0;
    int rc = 0;
    for (double ts = 0; ts < loaded_s && !rc; ts += SAMPLE_S) {
        reading o;
        draw(b, fma, ts, &r, rate0, &o);
        double v[5] = { o.mhz, o.watts, o.temp_c, (o.reasons & (R_HW_SLOWDOWN | R_THERMAL)) != 0, 0 };
        for (int k = 0; k < 5 && !rc; k++)
            rc = gc_hist_record(&pt[1 + k].hist, sim_to_units(v[k], pt[1 + k].scale));
        for (int k = 0; k < RATES_PER_SAMPLE && !rc; k++)
            rc = gc_hist_record(&pt[0].hist,
                                sim_to_units(o.rate * sim_lognorm(&r, p->bw_sigma), pt[0].scale));
        if (o.reasons && onset < 0)
            onset = ts;
        seen |= o.reasons;
    }
    if (rc)
        return gc_fail(err, GC_ENOMEM, "sim: out of memory recording a sample");
    gc_ctx *x = &pt[1].ctx;
    static const char *const zero[] = { "xid_events", "remapped_rows_new", "ecc_corrected_new",
                                        "ecc_uncorrected_new" };
    rc = gc_ctx_set_num(x, "loaded_s", loaded_s) || gc_ctx_set_num(x, "slowdown_reasons", (double)seen) ||
         (onset >= 0 && gc_ctx_set_num(x, "first_slowdown_s", onset));
    for (int k = 0; k < 4 && !rc; k++)
        rc = gc_ctx_set_num(x, zero[k], 0);
    if (rc)
        return gc_fail(err, GC_EINVAL, "sim: no room in the point context");
    for (size_t k = 0; k < 6; k++)
        pt[k].flags |= flags;
    return 0;
}

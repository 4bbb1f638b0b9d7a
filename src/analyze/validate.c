/* Validation accounting. See validate.h. */
#include "analyze/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fit.h"
#include "util/stats.h"

const char *const gc_model_names[GC_NMODELS] = { "mwp_cwp", "littles_law" };
const char *const gc_regime_names[GC_NREG] = { "all", "compute", "memory", "latency" };

/* Kernels faster than this many launch floors do not calibrate. */
#define LAMBDA_MIN_FLOORS 1.5

int gc_regime_of(const gc_little_pred *p)
{
    /* The block scheduler's term is the block-replacement latency paid at
     * its rate: a latency, not a compute or memory throughput. */
    if (p->latency_limited || p->cpw_max == LT_BLOCK)
        return GC_REG_LATENCY;
    return p->cpw_max == LT_GMEM ? GC_REG_MEMORY : GC_REG_COMPUTE;
}

static double hw_floor_ns(const gc_hwp *h)
{
    double f = h->v[HW_LAUNCH_NS];
    return isfinite(f) && f > 0 ? f : 0;
}

static double floor_ns(const gc_models *m)
{
    return hw_floor_ns(&m->hw);
}

double gc_calibrated_ns(const gc_hwp *h, double exec_ns, double lambda)
{
    return hw_floor_ns(h) + exec_ns / (isfinite(lambda) && lambda > 0 ? lambda : 1.0);
}

/* The ratio model / measured of a row, both without the floor; NAN when
 * the row does not calibrate. */
static double ratio(const gc_models *m, const gc_vrow *r, int model)
{
    double f = floor_ns(m);
    if (!r->ok[model] || !(r->measured_ns >= LAMBDA_MIN_FLOORS * f) || r->measured_ns <= f)
        return NAN;
    return r->exec_ns[model] / (r->measured_ns - f);
}

double gc_models_lambda(const gc_models *m, int model, const char *skip, int *n)
{
    double *v = malloc((m->nrows ? m->nrows : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < m->nrows; i++) {
        if (skip && strcmp(m->rows[i].kernel, skip) == 0)
            continue;
        double x = ratio(m, &m->rows[i], model);
        if (isfinite(x) && x > 0)
            v[k++] = x;
    }
    double lam = k ? gc_median(v, k) : NAN;
    free(v);
    if (n)
        *n = (int)k;
    return lam;
}

static void add_err(gc_err_stats *s, double ape)
{
    s->mape = (s->mape * s->n + ape) / (s->n + 1);
    s->n++;
    if (ape > s->max_ape)
        s->max_ape = ape;
}

/* One measured kernel: its description with the launch shape the point
 * ran with, both models at the clock it ran at. */
static void predict_row(const gc_gpu_info *info, const gc_models *m, const gc_vpoint *p,
                        const gc_kdesc *desc, gc_vrow *r)
{
    gc_kdesc d = *desc;
    if (p->grid_blocks >= 0)
        d.grid_blocks = p->grid_blocks;
    if (p->block_threads >= 0)
        d.block_threads = p->block_threads;
    if (p->smem_dynamic_bytes >= 0)
        d.smem_dynamic_bytes = p->smem_dynamic_bytes;
    r->grid_blocks = d.grid_blocks;
    r->block_threads = d.block_threads;
    gc_hwp h = m->hw;
    if (isfinite(p->sm_clock_mhz) && p->sm_clock_mhz > 0)
        h.v[HW_FREQ_HZ] = p->sm_clock_mhz * 1e6;
    r->sm_clock_mhz = h.v[HW_FREQ_HZ] / 1e6;
    gc_occ_limits lim;
    gc_occ_limits_of(info, &lim);
    gc_mlaunch l;
    gc_err e = { 0 };
    if (d.grid_blocks < 1 || gc_mlaunch_of(&lim, &h, &d, &l, &e)) {
        snprintf(r->error, sizeof r->error, "launch: %.140s", e.msg[0] ? e.msg : "no blocks");
        return;
    }
    r->warps_per_sm = l.warps_per_sm;
    gc_mwp_pred mp;
    gc_little_pred lp;
    if (gc_mwp_predict(&h, &l, &d, &mp, &e) == 0) {
        r->ok[GC_M_MWP] = 1;
        r->pred_ns[GC_M_MWP] = mp.ns;
        r->exec_ns[GC_M_MWP] = mp.exec_ns;
        r->mwp_case = mp.case_no;
    } else {
        snprintf(r->error, sizeof r->error, "%.150s", e.msg);
    }
    if (gc_little_predict(&h, &l, &d, &lp, &e) == 0) {
        r->ok[GC_M_LITTLE] = 1;
        r->pred_ns[GC_M_LITTLE] = lp.ns;
        r->exec_ns[GC_M_LITTLE] = lp.exec_ns;
        r->regime = gc_regime_of(&lp);
    } else if (!r->error[0]) {
        snprintf(r->error, sizeof r->error, "%.150s", e.msg);
    }
}

static int is_valid_point(const gc_point *p)
{
    return strcmp(p->bench, "valid") == 0 && strcmp(p->metric, "time") == 0 &&
           p->status == GC_PT_OK && gc_point_count(p) > 0 && gc_ctx_get(&p->ctx, "kernel");
}

int gc_models_compute(const gc_gpu *g, const gc_kdesc_set *s, gc_models *m)
{
    gc_hwp hw;
    gc_hwp_from_gpu(g, &hw);
    size_t n = 0;
    for (size_t i = 0; i < g->npoints; i++)
        n += is_valid_point(&g->points[i]);
    gc_vpoint *v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        memset(m, 0, sizeof *m);
        return GC_ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!is_valid_point(p))
            continue;
        gc_vpoint *x = &v[n++];
        gc_summary sum;
        gc_point_summary(p, &sum);
        snprintf(x->kernel, sizeof x->kernel, "%s", gc_ctx_str(&p->ctx, "kernel", "?"));
        x->measured_ns = sum.p50;
        x->grid_blocks = (long long)gc_ctx_num(&p->ctx, "grid_blocks", -1);
        x->block_threads = (int)gc_ctx_num(&p->ctx, "block_threads", -1);
        x->smem_dynamic_bytes = (long long)gc_ctx_num(&p->ctx, "smem_dynamic_bytes", -1);
        x->sm_clock_mhz = gc_ctx_num(&p->ctx, "sm_clock_mhz_measured", NAN);
    }
    int rc = gc_models_validate(&g->info, &hw, s, v, n, m);
    free(v);
    return rc;
}

int gc_models_validate(const gc_gpu_info *info, const gc_hwp *hw, const gc_kdesc_set *s,
                       const gc_vpoint *v, size_t n, gc_models *m)
{
    memset(m, 0, sizeof *m);
    m->hw = *hw;
    snprintf(m->origin, sizeof m->origin, "%s", s && s->origin[0] ? s->origin : "none");
    m->rows = calloc(n ? n : 1, sizeof *m->rows);
    if (!m->rows)
        return GC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        gc_vrow *r = &m->rows[m->nrows++];
        snprintf(r->kernel, sizeof r->kernel, "%s", v[i].kernel);
        r->measured_ns = v[i].measured_ns;
        r->regime = GC_REG_ALL;
        const gc_kdesc *d = s ? gc_kdesc_set_find(s, r->kernel) : NULL;
        if (!d)
            snprintf(r->error, sizeof r->error, "no description of kernel \"%s\" in this build "
                     "(descriptions: %s)", r->kernel, m->origin);
        else
            predict_row(info, m, &v[i], d, r);
    }
    for (int k = 0; k < GC_NMODELS; k++) {
        m->lambda[k] = gc_models_lambda(m, k, NULL, &m->lambda_n[k]);
        for (size_t i = 0; i < m->nrows; i++) {
            gc_vrow *r = &m->rows[i];
            if (!r->ok[k])
                continue;
            double lam = gc_models_lambda(m, k, r->kernel, NULL);
            r->loo_lambda[k] = lam;
            r->cal_ns[k] = gc_calibrated_ns(&m->hw, r->exec_ns[k], lam);
            double raw = fabs(r->pred_ns[k] - r->measured_ns) / r->measured_ns;
            double cal = fabs(r->cal_ns[k] - r->measured_ns) / r->measured_ns;
            add_err(&m->raw[k][GC_REG_ALL], raw);
            add_err(&m->cal[k][GC_REG_ALL], cal);
            if (r->regime != GC_REG_ALL) {
                add_err(&m->raw[k][r->regime], raw);
                add_err(&m->cal[k][r->regime], cal);
            }
        }
    }
    return 0;
}

const char *gc_models_better(const gc_models *m)
{
    const gc_err_stats *a = &m->cal[GC_M_MWP][GC_REG_ALL], *b = &m->cal[GC_M_LITTLE][GC_REG_ALL];
    if (!a->n && !b->n)
        return NULL;
    if (!b->n || (a->n && a->mape < b->mape))
        return gc_model_names[GC_M_MWP];
    return gc_model_names[GC_M_LITTLE];
}

void gc_models_free(gc_models *m)
{
    free(m->rows);
    memset(m, 0, sizeof *m);
}

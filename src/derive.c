/* Headline parameters from a GPU's points. These are simple, robust reads
 * of the curves (medians at chosen footprints, maxima over sweeps); the
 * model fits of fit.c build on them. */
#include "derive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024.0 * 1024.0)

static double p50(const gc_point *p)
{
    gc_summary s;
    gc_point_summary(p, &s);
    return s.p50;
}

static int usable(const gc_point *p)
{
    return p->status == GC_PT_OK && p->hist.total > 0;
}

/* Maximum p50 of bench/metric over all points, with the point. */
static const gc_point *best_point(const gc_gpu *g, const char *bench, const char *metric,
                                  const char *str_key, const char *str_val, double *best)
{
    const gc_point *arg = NULL;
    *best = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!usable(p) || strcmp(p->bench, bench) != 0 || strcmp(p->metric, metric) != 0)
            continue;
        if (str_key && strcmp(gc_ctx_str(&p->ctx, str_key, ""), str_val) != 0)
            continue;
        double v = p50(p);
        if (v > *best) {
            *best = v;
            arg = p;
        }
    }
    return arg;
}

static void source_of(const gc_point *p, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s.%s", p->bench, p->metric);
    for (int i = 0; i < p->ctx.n && n > 0 && (size_t)n < cap; i++) {
        const gc_ctxv *v = &p->ctx.v[i];
        n += v->is_str ? snprintf(out + n, cap - (size_t)n, " %s=%s", v->key, v->str)
                       : snprintf(out + n, cap - (size_t)n, " %s=%.0f", v->key, v->num);
    }
}

static int add_from(gc_gpu *g, const char *name, double v, const char *unit, const gc_point *p)
{
    char src[96];
    source_of(p, src, sizeof src);
    return gc_gpu_add_param(g, name, v, unit, src);
}

typedef struct { double footprint; double lat; const gc_point *p; } curve_pt;

static int by_footprint(const void *a, const void *b)
{
    double x = ((const curve_pt *)a)->footprint, y = ((const curve_pt *)b)->footprint;
    return (x > y) - (x < y);
}

/* Latency plateaus of the random-order chase: L1 at the smallest
 * footprint, L2 at the largest footprint within half the L2, DRAM at the
 * largest footprint beyond twice the L2; capacities where the curve leaves
 * a plateau (first footprint more than 1.5x the plateau below it). */
static void chase_params(gc_gpu *g)
{
    curve_pt *c = calloc(g->npoints ? g->npoints : 1, sizeof *c);
    size_t n = 0;
    if (!c)
        return;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (usable(p) && strcmp(p->bench, "chase") == 0 && strcmp(p->metric, "latency") == 0 &&
            strcmp(gc_ctx_str(&p->ctx, "order", "random"), "random") == 0)
            c[n++] = (curve_pt){ gc_ctx_num(&p->ctx, "footprint_bytes", 0), p50(p), p };
    }
    qsort(c, n, sizeof *c, by_footprint);
    double l2 = (double)g->info.l2_bytes;
    if (n) {
        add_from(g, "l1_latency_cycles", c[0].lat, "cycles", c[0].p);
        for (size_t i = 1; i < n; i++)
            if (c[i].lat > 1.5 * c[0].lat) {
                add_from(g, "l1_capacity_bytes", c[i - 1].footprint, "bytes", c[i - 1].p);
                break;
            }
    }
    const curve_pt *l2p = NULL, *drp = NULL;
    for (size_t i = 0; i < n; i++) {
        if (c[i].footprint >= 1 * MiB && l2 > 0 && c[i].footprint <= l2 / 2)
            l2p = &c[i];
        if (l2 > 0 && c[i].footprint >= 2 * l2)
            drp = &c[i];
    }
    if (l2p)
        add_from(g, "l2_latency_cycles", l2p->lat, "cycles", l2p->p);
    if (drp)
        add_from(g, "dram_latency_cycles", drp->lat, "cycles", drp->p);
    if (l2p && drp) {
        double mid = (l2p->lat + drp->lat) / 2;
        for (size_t i = (size_t)(l2p - c); i < n; i++)
            if (c[i].lat > mid && i > 0) {
                add_from(g, "l2_capacity_bytes", c[i - 1].footprint, "bytes", c[i - 1].p);
                break;
            }
    }
    free(c);
}

int gc_derive_params(gc_gpu *g)
{
    const gc_gpu_info *in = &g->info;
    double theo = in->mem_clock_mhz * 1e6 * (in->bus_width_bits / 8.0) * 2.0;
    if (theo > 0)
        gc_gpu_add_param(g, "hbm_theoretical_bps", theo, "bytes_per_s",
                         "properties: mem_clock_mhz x bus_width_bits/8 x 2");
    static const char *const kernels[] = { "read", "write", "copy", "triad" };
    double best_all = 0;
    const gc_point *best_p = NULL;
    for (int k = 0; k < 4; k++) {
        double v;
        const gc_point *p = best_point(g, "hbm_bw", "bandwidth", "kernel", kernels[k], &v);
        if (!p)
            continue;
        char name[48];
        snprintf(name, sizeof name, "hbm_%s_bps", kernels[k]);
        add_from(g, name, v, "bytes_per_s", p);
        if (v > best_all) {
            best_all = v;
            best_p = p;
        }
    }
    if (best_p) {
        add_from(g, "hbm_bw_bps", best_all, "bytes_per_s", best_p);
        if (theo > 0)
            add_from(g, "hbm_achieved_ratio", best_all / theo, "ratio", best_p);
    }
    double v;
    const gc_point *p;
    if ((p = best_point(g, "l2_bw", "bandwidth", NULL, NULL, &v)))
        add_from(g, "l2_bw_bps", v, "bytes_per_s", p);
    gc_ctx one = { 0 };
    gc_ctx_set_num(&one, "stride_words", 1);
    if ((p = gc_gpu_find_point(g, "smem_bw", "bandwidth", &one)) && usable(p))
        add_from(g, "smem_bw_bps", p50(p), "bytes_per_s", p);
    gc_ctx b2b = { 0 };
    gc_ctx_set_str(&b2b, "mode", "back_to_back");
    if ((p = gc_gpu_find_point(g, "launch", "time", &b2b)) && usable(p))
        add_from(g, "launch_ns", p50(p), "ns", p);
    chase_params(g);
    return 0;
}

double gc_param_value(const gc_gpu *g, const char *name, double dflt)
{
    for (size_t i = 0; i < g->nparams; i++)
        if (strcmp(g->params[i].name, name) == 0)
            return g->params[i].value;
    return dflt;
}

/* Headline parameters from a GPU's points. These are simple, robust reads
 * of the curves (medians at chosen footprints, maxima over sweeps, lines
 * fitted with util/fit.c); the models (model_*.c) build on them. bench
 * mlp's parameters are derive_mlp.c's; the reads both make, derive_pts.c's. */
#include "analyze/derive.h"
#include "analyze/derive_int.h"

#include <math.h>

#include "util/fit.h"
#include "util/stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024.0 * 1024.0)

/* Maximum p50 of bench/metric over all points, with the point. */
static const gc_point *best_point(const gc_gpu *g, const char *bench, const char *metric,
                                  const char *str_key, const char *str_val, double *best)
{
    const gc_point *arg = NULL;
    *best = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, bench) != 0 || strcmp(p->metric, metric) != 0)
            continue;
        if (str_key && strcmp(gc_ctx_str(&p->ctx, str_key, ""), str_val) != 0)
            continue;
        double v = dv_p50(p);
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

/* A knee: the last footprint of c[from..n) under `level`, reported only
 * where the next footprint is within KNEE_BRACKET of it (a coarse sweep,
 * like the quick plan's, cannot place a knee: it says nothing). */
#define KNEE_BRACKET 1.25
static void add_knee(gc_gpu *g, const char *name, const curve_pt *c, size_t from, size_t n,
                     double level)
{
    for (size_t i = from > 0 ? from : 1; i < n; i++)
        if (c[i].lat > level) {
            if (c[i].footprint <= KNEE_BRACKET * c[i - 1].footprint)
                add_from(g, name, c[i - 1].footprint, "bytes", c[i - 1].p);
            return;
        }
}

static double median_lat(const curve_pt *c, size_t n, double lo, double hi, const curve_pt **last)
{
    double v[256];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 256; i++)
        if (c[i].footprint >= lo && c[i].footprint <= hi) {
            v[k++] = c[i].lat;
            *last = &c[i];
        }
    return k ? gc_median(v, k) : 0;
}

/* Latency plateaus of the random-order chase: L1 at the smallest
 * footprint; L2 near: the median over [1 MiB, L2/4]; L2 far (Hopper's L2
 * is two partitions, a line homed in the other one crosses between them):
 * the median over [0.6, 0.95] x L2, reported when it sits clearly between
 * near and DRAM (H100: 271.5 / 515.5 / 675 cycles, H200: 279.8 / 509.8 /
 * 660); DRAM at the largest footprint beyond twice the L2. Capacities
 * where the curve crosses the midpoint between two levels: L1, the near
 * partition (with a far level), the whole L2. */
static void chase_params(gc_gpu *g)
{
    curve_pt *c = calloc(g->npoints ? g->npoints : 1, sizeof *c);
    size_t n = 0;
    if (!c)
        return;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (dv_usable(p) && strcmp(p->bench, "chase") == 0 && strcmp(p->metric, "latency") == 0 &&
            strcmp(gc_ctx_str(&p->ctx, "order", "random"), "random") == 0)
            c[n++] = (curve_pt){ gc_ctx_num(&p->ctx, "footprint_bytes", 0), dv_p50(p), p };
    }
    qsort(c, n, sizeof *c, by_footprint);
    double l2 = (double)g->info.l2_bytes;
    if (n) {
        add_from(g, "l1_latency_cycles", c[0].lat, "cycles", c[0].p);
        add_knee(g, "l1_capacity_bytes", c, 1, n, 1.5 * c[0].lat);
    }
    const curve_pt *drp = NULL, *near_p = NULL, *far_p = NULL;
    for (size_t i = 0; i < n; i++)
        if (l2 > 0 && c[i].footprint >= 2 * l2)
            drp = &c[i];
    double near = l2 > 0 ? median_lat(c, n, 1 * MiB, l2 / 4, &near_p) : 0;
    double far = l2 > 0 ? median_lat(c, n, 0.6 * l2, 0.95 * l2, &far_p) : 0;
    if (near_p)
        add_from(g, "l2_latency_cycles", near, "cycles", near_p->p);
    int has_far = near_p && far_p && far > 1.15 * near && (!drp || far < 0.9 * drp->lat);
    if (has_far)
        add_from(g, "l2_far_latency_cycles", far, "cycles", far_p->p);
    if (drp)
        add_from(g, "dram_latency_cycles", drp->lat, "cycles", drp->p);
    if (near_p && has_far)
        add_knee(g, "l2_near_capacity_bytes", c, (size_t)(near_p - c), n, (near + far) / 2);
    if (near_p && drp)
        add_knee(g, "l2_capacity_bytes", c, (size_t)((has_far ? far_p : near_p) - c), n,
                 ((has_far ? far : near) + drp->lat) / 2);
    free(c);
}

/* Points of bench/metric whose string context key equals val (or any
 * when key is NULL), as (x = numeric context xkey, y = p50). */
static size_t collect(const gc_gpu *g, const char *bench, const char *metric, const char *key,
                      const char *val, const char *xkey, double *x, double *y, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < g->npoints && n < cap; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, bench) != 0 || strcmp(p->metric, metric) != 0)
            continue;
        if (key && strcmp(gc_ctx_str(&p->ctx, key, ""), val) != 0)
            continue;
        x[n] = gc_ctx_num(&p->ctx, xkey, NAN);
        y[n] = dv_p50(p);
        if (isfinite(x[n]))
            n++;
    }
    return n;
}

static void add_line(gc_gpu *g, const char *prefix, const gc_line *l, const char *y_unit,
                     const char *x_name, const char *src)
{
    char name[GC_STR_MAX], unit[16];
    snprintf(name, sizeof name, "%s_intercept_%s", prefix, y_unit);
    gc_gpu_add_param(g, name, l->intercept, y_unit, src);
    snprintf(name, sizeof name, "%s_slope_%s_per_%s", prefix, y_unit, x_name);
    snprintf(unit, sizeof unit, "%s/%s", y_unit, x_name);
    gc_gpu_add_param(g, name, l->slope, unit, src);
    snprintf(name, sizeof name, "%s_r2", prefix);
    gc_gpu_add_param(g, name, l->r2, "ratio", src);
    snprintf(name, sizeof name, "%s_%s_min", prefix, x_name);
    gc_gpu_add_param(g, name, l->x_min, x_name, src);
    snprintf(name, sizeof name, "%s_%s_max", prefix, x_name);
    gc_gpu_add_param(g, name, l->x_max, x_name, src);
}

#define MAX_FIT 256

/* The law the loaded latency follows. Document 000's line where it holds
 * (R^2 >= 0.9); where it does not, a valley (fit.h, gc_fit_valley): a
 * fall to a floor, the floor, a rise past a knee. On Hopper the DRAM chase
 * stays near its unloaded latency up to 16 warps per SM and rises beyond
 * (a real H100 default run: 680-695 cycles, then 707 at 32, 784 at 64);
 * the H200's first falls 3-4% from one warp per SM to 8-16 (675 to 651
 * cycles, HBM3e) before it rises, which a floor-and-rise hinge reads as
 * noise (R^2 0.45-0.93 over the real H200 runs); the L2 one does not rise
 * at all in the range, where a line's R^2 measures only noise.
 *   <prefix>_law_linear          1: the line is the law, 0: the valley is
 *   <prefix>_floor_cycles        the valley's floor
 *   <prefix>_fall_knee_warps     where the fall ends (the smallest x: none)
 *   <prefix>_fall_cycles_per_octave  the fall per halving of the warps below it
 *   <prefix>_knee_warps          where the rise starts (warps_max: none)
 *   <prefix>_rise_cycles_per_warps
 *   <prefix>_law_r2, <prefix>_law_rms_rel (the valley's: rms residual / floor)
 *   <prefix>_hinge_r2, <prefix>_hinge_rms_rel (a floor and a rise alone) */
#define LINEAR_LAW_R2 0.9
static void loaded_law(gc_gpu *g, const char *prefix, const double *x, const double *y,
                       size_t n, const gc_line *l, double fp)
{
    gc_hinge h;
    gc_valley v;
    char name[GC_STR_MAX], src[96];
    if (n < 3)
        return;   /* a line through two points has R^2 1 and says nothing */
    snprintf(src, sizeof src, "chase_loaded.latency footprint_bytes=%.0f, %zu points, valley", fp,
             n);
    snprintf(name, sizeof name, "%s_law_linear", prefix);
    gc_gpu_add_param(g, name, l->r2 >= LINEAR_LAW_R2, "bool", src);
    if (gc_fit_valley(x, y, n, &v) == 0) {
        snprintf(name, sizeof name, "%s_floor_cycles", prefix);
        gc_gpu_add_param(g, name, v.floor, "cycles", src);
        snprintf(name, sizeof name, "%s_fall_knee_warps", prefix);
        gc_gpu_add_param(g, name, v.fall_knee, "warps", src);
        snprintf(name, sizeof name, "%s_fall_cycles_per_octave", prefix);
        gc_gpu_add_param(g, name, v.fall, "cycles", src);
        snprintf(name, sizeof name, "%s_knee_warps", prefix);
        gc_gpu_add_param(g, name, v.rise_knee, "warps", src);
        snprintf(name, sizeof name, "%s_rise_cycles_per_warps", prefix);
        gc_gpu_add_param(g, name, v.rise, "cycles/warps", src);
        snprintf(name, sizeof name, "%s_law_r2", prefix);
        gc_gpu_add_param(g, name, v.r2, "ratio", src);
        snprintf(name, sizeof name, "%s_law_rms_rel", prefix);
        gc_gpu_add_param(g, name, v.rms_rel, "ratio", src);
    }
    if (gc_fit_hinge(x, y, n, &h))
        return;
    snprintf(src, sizeof src, "chase_loaded.latency footprint_bytes=%.0f, %zu points, hinge", fp,
             n);
    snprintf(name, sizeof name, "%s_hinge_r2", prefix);
    gc_gpu_add_param(g, name, h.r2, "ratio", src);
    snprintf(name, sizeof name, "%s_hinge_rms_rel", prefix);
    gc_gpu_add_param(g, name, h.rms_rel, "ratio", src);
}

/* Document 000's "DRAM latency vs threads": latency = a + b * warps in
 * flight on the whole GPU, per footprint (L2- or DRAM-resident). */
static void loaded_params(gc_gpu *g)
{
    double fps[8];
    size_t nfp = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, "chase_loaded") != 0)
            continue;
        double fp = gc_ctx_num(&p->ctx, "footprint_bytes", 0);
        size_t k = 0;
        while (k < nfp && fps[k] != fp)
            k++;
        if (k == nfp && nfp < 8)
            fps[nfp++] = fp;
    }
    for (size_t k = 0; k < nfp; k++) {
        double x[MAX_FIT], y[MAX_FIT];
        size_t n = 0;
        for (size_t i = 0; i < g->npoints && n < MAX_FIT; i++) {
            const gc_point *p = &g->points[i];
            if (!dv_usable(p) || strcmp(p->bench, "chase_loaded") != 0 ||
                strcmp(p->metric, "latency") != 0 ||
                gc_ctx_num(&p->ctx, "footprint_bytes", 0) != fps[k])
                continue;
            x[n] = gc_ctx_num(&p->ctx, "warps_per_sm", 0) * g->info.sm_count;
            y[n++] = dv_p50(p);
        }
        gc_line l;
        if (gc_fit_ols(x, y, n, &l))
            continue;
        int in_l2 = g->info.l2_bytes && fps[k] <= g->info.l2_bytes / 2;
        const char *prefix = in_l2 ? "loaded_l2_latency" : "loaded_dram_latency";
        char src[96];
        snprintf(src, sizeof src, "chase_loaded.latency footprint_bytes=%.0f, %zu points, least squares",
                 fps[k], n);
        add_line(g, prefix, &l, "cycles", "warps", src);
        loaded_law(g, prefix, x, y, n, &l, fps[k]);
    }
}

/* Departure delay (Hong & Kim 2009): completion of K outstanding requests
 * of one warp grows as Mem_LD + (K - 1) * delay below bandwidth
 * saturation; fitted on K <= 32 with Theil-Sen. */
static void departure_params(gc_gpu *g)
{
    static const char *const kinds[2][2] = { { "coalesced", "departure_coal" },
                                            { "uncoalesced", "departure_uncoal" } };
    for (int k = 0; k < 2; k++) {
        double x[MAX_FIT], y[MAX_FIT], xs[MAX_FIT], ys[MAX_FIT];
        size_t n = collect(g, "departure", "completion", "access", kinds[k][0], "requests", x, y,
                           MAX_FIT), m = 0;
        for (size_t i = 0; i < n; i++)
            if (x[i] <= 32) {
                xs[m] = x[i];
                ys[m++] = y[i];
            }
        gc_line l;
        if (m < 2 || gc_fit_theil_sen(xs, ys, m, &l))
            continue;
        char src[96];
        snprintf(src, sizeof src, "departure.completion access=%s, %zu points with requests<=32, Theil-Sen",
                 kinds[k][0], m);
        add_line(g, kinds[k][1], &l, "cycles", "requests", src);
    }
}

/* Latency (ilp 1) and best throughput over ILP, per instruction. */
static void inst_params(gc_gpu *g)
{
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, "inst") != 0)
            continue;
        const char *op = gc_ctx_str(&p->ctx, "op", "?");
        char name[GC_STR_MAX];
        if (strcmp(p->metric, "latency") == 0 && gc_ctx_num(&p->ctx, "ilp", 1) == 1) {
            snprintf(name, sizeof name, "inst_%s_latency_cycles", op);
            add_from(g, name, dv_p50(p), "cycles", p);
        } else if (strcmp(p->metric, "throughput") == 0) {
            double best;
            const gc_point *b = best_point(g, "inst", "throughput", "op", op, &best);
            snprintf(name, sizeof name, "inst_%s_throughput_ops_per_cycle_per_sm", op);
            if (b == p) /* once per op: at its best point */
                add_from(g, name, best, "ops/cycle/SM", p);
        }
    }
}

/* The SM clock during the measurements: the median of what the kernels
 * that time themselves measured (clock64 against globaltimer), the clock
 * every cycle count of this GPU converts with (here and in model_hw.c). */
static void clock_param(gc_gpu *g)
{
    size_t n = 0, cap = g->npoints < 65536 ? g->npoints : 65536;
    double *v = malloc((cap ? cap : 1) * sizeof *v);
    for (size_t i = 0; v && i < g->npoints && n < cap; i++) {
        const gc_point *p = &g->points[i];
        double mhz = gc_ctx_num(&p->ctx, "sm_clock_mhz_measured", 0);
        if (dv_usable(p) && mhz > 0)
            v[n++] = mhz;
    }
    if (n) {
        char src[96];
        snprintf(src, sizeof src, "median sm_clock_mhz_measured of %zu points", n);
        gc_gpu_add_param(g, "sm_clock_measured_mhz", gc_median(v, n), "MHz", src);
    }
    free(v);
}

static void misc_params(gc_gpu *g)
{
    double v[MAX_FIT], x[MAX_FIT];
    size_t n = collect(g, "chase", "timer_cost", NULL, NULL, "footprint_bytes", x, v, MAX_FIT);
    if (n)
        gc_gpu_add_param(g, "timer_cost_cycles", gc_median(v, n), "cycles",
                         "chase.timer_cost: median over footprints (twin kernel without loads)");
    /* TLB: a page-order chase touches one line per 2 MiB page, so its data
     * stays in L2 while its translations miss. */
    const gc_point *best = NULL;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (dv_usable(p) && strcmp(p->bench, "chase") == 0 && strcmp(p->metric, "latency") == 0 &&
            strcmp(gc_ctx_str(&p->ctx, "order", ""), "page") == 0 &&
            (!best || gc_ctx_num(&p->ctx, "footprint_bytes", 0) >
                          gc_ctx_num(&best->ctx, "footprint_bytes", 0)))
            best = p;
    }
    if (best) {
        add_from(g, "page_chase_latency_cycles", dv_p50(best), "cycles", best);
        double l2 = gc_param_value(g, "l2_latency_cycles", 0);
        if (l2 > 0)
            add_from(g, "tlb_miss_extra_cycles", dv_p50(best) - l2, "cycles", best);
    }
    n = collect(g, "smem_bw", "bandwidth", NULL, NULL, "stride_words", x, v, MAX_FIT);
    for (size_t i = 0; i < n; i++)
        if (x[i] > 1) {
            char name[GC_STR_MAX];
            snprintf(name, sizeof name, "smem_bw_stride%.0f_bps", x[i]);
            gc_gpu_add_param(g, name, v[i], "bytes_per_s", "smem_bw.bandwidth: bank conflicts");
        }
    gc_ctx sync = { 0 };
    gc_ctx_set_str(&sync, "mode", "launch_sync");
    const gc_point *p = gc_gpu_find_point(g, "launch", "time", &sync);
    if (p && dv_usable(p))
        add_from(g, "launch_sync_ns", dv_p50(p), "ns", p);
    /* Block scheduler: the interval at which an SM retires a block and gets
     * the next, holding all the blocks that fit (block_interval: the
     * scheduler's throughput) or one at a time (block_replacement: the
     * latency from a block's end to the next one's start); in cycles at
     * the clock the chase measured (else maximum). */
    static const char *const kinds[2][2] = { { "full", "block_interval" },
                                             { "one", "block_replacement" } };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < g->npoints; i++) {
            const gc_point *b = &g->points[i];
            if (!dv_usable(b) || strcmp(b->bench, "launch") != 0 ||
                strcmp(b->metric, "block_interval") != 0 ||
                strcmp(gc_ctx_str(&b->ctx, "resident", "full"), kinds[k][0]) != 0)
                continue;
            char name[48];
            snprintf(name, sizeof name, "%s_ns", kinds[k][1]);
            add_from(g, name, dv_p50(b), "ns", b);
            double mhz = gc_param_value(g, "sm_clock_measured_mhz", g->info.sm_clock_mhz);
            snprintf(name, sizeof name, "%s_cycles", kinds[k][1]);
            if (mhz > 0)
                add_from(g, name, dv_p50(b) * mhz / 1e3, "cycles", b);
            break;
        }
}

/* Sustained load: the SM clock it held (the lowest median over the
 * loads), how still it held it (p5 / median, coefficient of variation),
 * when a fault slowdown first came (INFINITY: never; written null), which
 * slowdown reasons were seen, the share of samples throttled, the power
 * and the hottest reading. */
static void sustain_params(gc_gpu *g)
{
    double clk = INFINITY, p5r = INFINITY, cv = 0, onset = INFINITY, frac = 0, watts = 0;
    double temp = 0, xid = -1;
    long long reasons = 0;
    const gc_point *cp = NULL;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, "sustain") != 0)
            continue;
        gc_summary s;
        gc_point_summary(p, &s);
        if (!strcmp(p->metric, "sm_clock")) {
            if (s.p50 < clk)
                clk = s.p50, cp = p;
            if (s.p50 > 0)
                p5r = fmin(p5r, s.p5 / s.p50);
            if (s.mean > 0)
                cv = fmax(cv, s.stddev / s.mean);
            onset = fmin(onset, gc_ctx_num(&p->ctx, "first_slowdown_s", INFINITY));
            reasons |= (long long)gc_ctx_num(&p->ctx, "slowdown_reasons", 0);
            double x = gc_ctx_num(&p->ctx, "xid_events", -1);
            if (x >= 0)
                xid = (xid < 0 ? 0 : xid) + x;
        } else if (!strcmp(p->metric, "throttled")) {
            frac = fmax(frac, s.mean);
        } else if (!strcmp(p->metric, "power")) {
            watts = fmax(watts, s.p50);
        } else if (!strcmp(p->metric, "temperature")) {
            temp = fmax(temp, s.max);
        }
    }
    if (!cp)
        return;
    add_from(g, "sustained_sm_clock_mhz", clk, "MHz", cp);
    if (g->info.sm_clock_mhz > 0)
        add_from(g, "sustained_clock_ratio", clk / g->info.sm_clock_mhz, "ratio", cp);
    add_from(g, "sm_clock_p5_ratio", p5r, "ratio", cp);
    add_from(g, "sm_clock_cv", cv, "ratio", cp);
    add_from(g, "time_to_first_throttle_s", onset, "s", cp);
    add_from(g, "sustain_throttled_fraction", frac, "ratio", cp);
    add_from(g, "sustain_slowdown_reasons", (double)reasons, "mask", cp);
    add_from(g, "sustain_power_w", watts, "W", cp);
    add_from(g, "sustain_temperature_max_c", temp, "C", cp);
    if (xid >= 0)
        add_from(g, "sustain_xid_events", xid, "count", cp);
}

/* L2 bandwidth. A point whose resident blocks read the same chunk
 * together (context blocks_per_chunk, the first wave's blocks over the
 * distinct chunks they read) is served faster than one line per request:
 * 14.9 TB/s at 1.5 MiB with 22 blocks per chunk on an H100 whose L2 reads
 * 7.9-8.1 TB/s at 16-24 MiB with one block per chunk (PEERS.md). The
 * models take l2_bw_bps, the best of the L2-resident footprints (at most
 * half the L2) that the full grid reads without such sharing (at most
 * L2_SHARE_MAX blocks per chunk; a backend that does not say counts as
 * not sharing); with none, the least shared point. The sharing peak, the
 * best of every point, is reported apart (l2_bw_shared_peak_bps) when it
 * is another point. */
#define L2_SHARE_MAX 1.5

static void l2_bw_params(gc_gpu *g)
{
    double l2 = (double)g->info.l2_bytes;
    const gc_point *best = NULL, *least = NULL, *peak = NULL;
    double best_v = 0, least_share = 0, least_v = 0, peak_v = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!dv_usable(p) || strcmp(p->bench, "l2_bw") || strcmp(p->metric, "bandwidth"))
            continue;
        double v = dv_p50(p), share = gc_ctx_num(&p->ctx, "blocks_per_chunk", 0);
        if (v > peak_v) {
            peak_v = v;
            peak = p;
        }
        if (l2 > 0 && gc_ctx_num(&p->ctx, "footprint_bytes", 0) > l2 / 2)
            continue;
        if (share <= L2_SHARE_MAX && v > best_v) {
            best_v = v;
            best = p;
        }
        if (!least || share < least_share || (share == least_share && v > least_v)) {
            least = p;
            least_share = share;
            least_v = v;
        }
    }
    if (!best) {
        best = least;
        best_v = least_v;
    }
    if (!best) {   /* no L2-resident footprint at all: the best there is */
        best = peak;
        best_v = peak_v;
    }
    if (best)
        add_from(g, "l2_bw_bps", best_v, "bytes_per_s", best);
    if (peak && peak != best)
        add_from(g, "l2_bw_shared_peak_bps", peak_v, "bytes_per_s", peak);
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
    /* DRAM fetch granularity: the sparse read asks for isolated 32-byte
     * sectors; DRAM moves G bytes for each, so G = 32 x dense read rate /
     * sector rate. */
    double rd = gc_param_value(g, "hbm_read_bps", 0);
    if ((p = best_point(g, "hbm_bw", "bandwidth", "kernel", "sparse", &v))) {
        add_from(g, "hbm_sparse_sector_bps", v, "bytes_per_s", p);
        if (rd > 0)
            add_from(g, "dram_fetch_granularity_bytes", 32 * rd / v, "bytes", p);
    }
    l2_bw_params(g);
    gc_ctx one = { 0 };
    gc_ctx_set_num(&one, "stride_words", 1);
    if ((p = gc_gpu_find_point(g, "smem_bw", "bandwidth", &one)) && dv_usable(p))
        add_from(g, "smem_bw_bps", dv_p50(p), "bytes_per_s", p);
    gc_ctx b2b = { 0 };
    gc_ctx_set_str(&b2b, "mode", "back_to_back");
    if ((p = gc_gpu_find_point(g, "launch", "time", &b2b)) && dv_usable(p))
        add_from(g, "launch_ns", dv_p50(p), "ns", p);
    clock_param(g);
    chase_params(g);
    loaded_params(g);
    departure_params(g);
    inst_params(g);
    misc_params(g);
    sustain_params(g);
    gc_derive_mlp(g);
    return 0;
}

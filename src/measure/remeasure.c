/* Host-bound points measured again until a round reads within the spread
 * bounds or the figures hold; their capability figure. See remeasure.h. */
#include "measure/remeasure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"

void gc_remeasure_defaults(gc_remeasure_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->spread_max = GC_REMEASURE_SPREAD_MAX;
    c->spread_low_max = GC_REMEASURE_SPREAD_LOW_MAX;
    c->spread_large_max = GC_REMEASURE_SPREAD_LARGE_MAX;
    c->spread_low_large_max = GC_REMEASURE_SPREAD_LOW_LARGE_MAX;
    c->large_ns = GC_REMEASURE_LARGE_NS;
    c->stable_rel = GC_REMEASURE_STABLE_REL;
    c->max_rounds = GC_REMEASURE_MAX_ROUNDS;
}

int gc_remeasure_host_bound(const gc_item *it)
{
    const char *name = it->spec->def ? it->spec->def->name : "";
    const char *mode = gc_ctx_str(&it->params, "mode", "");
    if (it->phase != GC_PHASE_GPU && it->phase != GC_PHASE_ISOLATED)
        return 0;
    if (!strcmp(name, "xfer"))
        return strcmp(mode, "chase") != 0;   /* a chase is one GPU thread's loads */
    if (!strcmp(name, "launch"))
        return strcmp(mode, "blocks") != 0;  /* block churn is timed on the GPU */
    return 0;
}

typedef struct rm_item {
    gc_task *task;
    double budget_s;
    size_t first, npts;     /* the item's points in g */
    gc_point *time;         /* its "time" point, NULL: none (failed) */
    double spread_first, spread_low_first, median, fast, moved;
    double spread_last, spread_low_last;
    double bound, bound_low;   /* the item's spread bounds (large copies: tighter) */
    int rounds, active, stable, noisy;
} rm_item;

/* p95 / p50 of the times: a few slow samples. */
static double spread_of(const gc_point *p)
{
    uint64_t m = gc_hist_quantile(&p->hist, 0.5), hi = gc_hist_quantile(&p->hist, 0.95);
    return m > 0 ? (double)hi / (double)m : 0;
}

/* p50 / p5 of the times: a slow moment that held most of the point, a few
 * samples at the link's rate (a real H200, GPU-2e995c50: pinned h2d 1 GiB
 * 38.9-54.5 GB/s, p50 39.4; p95 / p50 of its times 1.01, p50 / p5 1.39). */
static double spread_low_of(const gc_point *p)
{
    uint64_t lo = gc_hist_quantile(&p->hist, 0.05), m = gc_hist_quantile(&p->hist, 0.5);
    return lo > 0 ? (double)m / (double)lo : 0;
}

static double median_of(const gc_point *p)
{
    return (double)gc_hist_quantile(&p->hist, 0.5);
}

/* The fast end of the times (p5): what the capability figure follows. */
static double fast_of(const gc_point *p)
{
    return (double)gc_hist_quantile(&p->hist, 0.05);
}

static const gc_point *time_point(const gc_gpu *g)
{
    for (size_t k = 0; k < g->npoints; k++)
        if (g->points[k].status == GC_PT_OK && !strcmp(g->points[k].metric, "time"))
            return &g->points[k];
    return NULL;
}

static int beyond(const rm_item *r, double spread, double low)
{
    return spread > r->bound || low > r->bound_low;
}

/* The item's points: those of its id, contiguous in g (a backend adds an
 * item's points together). */
static void locate(rm_item *r, const gc_gpu *g)
{
    r->npts = 0;
    r->time = NULL;
    for (size_t k = 0; k < g->npoints; k++) {
        const gc_point *p = &g->points[k];
        if (p->item_id != r->task->item->id || p->status != GC_PT_OK)
            continue;
        if (!r->npts)
            r->first = k;
        r->npts = k - r->first + 1;
        if (!strcmp(p->metric, "time") && !r->time)
            r->time = (gc_point *)p;
    }
}

/* Merges scratch's points into the item's, by metric in order. */
static int merge_round(rm_item *r, gc_gpu *g, const gc_gpu *scratch, gc_err *err)
{
    for (size_t s = 0; s < scratch->npoints; s++) {
        const gc_point *q = &scratch->points[s];
        gc_point *p = NULL;
        for (size_t k = r->first; k < r->first + r->npts && !p; k++)
            if (g->points[k].item_id == q->item_id && !strcmp(g->points[k].metric, q->metric))
                p = &g->points[k];
        if (!p)
            continue;   /* a metric the first pass did not have: keep the first pass's set */
        int rc = gc_hist_merge(&p->hist, &q->hist, err);
        if (rc)
            return rc;
        p->flags |= q->flags;
    }
    return 0;
}

static void annotate(const rm_item *r, gc_gpu *g)
{
    if (!r->time)
        return;
    double spread = spread_of(r->time), low = spread_low_of(r->time);
    for (size_t k = r->first; k < r->first + r->npts; k++) {
        gc_point *p = &g->points[k];
        if (p->item_id != r->task->item->id)
            continue;
        gc_ctx *x = &p->ctx;
        gc_ctx_set_num(x, "spread", round(spread * 1e4) / 1e4);
        gc_ctx_set_num(x, "spread_low", round(low * 1e4) / 1e4);
        gc_ctx_set_num(x, "host_noisy", r->noisy);
        if (!strncmp(p->metric, "bandwidth", 9) && p->hist.total && p->scale > 0)
            gc_ctx_set_num(x, "capability_bps",
                           (double)gc_hist_quantile(&p->hist, GC_REMEASURE_CAPABILITY_Q) / p->scale);
        if (!r->rounds)
            continue;
        gc_ctx_set_num(x, "spread_last", round(r->spread_last * 1e4) / 1e4);
        gc_ctx_set_num(x, "spread_low_last", round(r->spread_low_last * 1e4) / 1e4);
        gc_ctx_set_num(x, "remeasures", r->rounds);
        gc_ctx_set_num(x, "spread_first", round(r->spread_first * 1e4) / 1e4);
        gc_ctx_set_num(x, "spread_low_first", round(r->spread_low_first * 1e4) / 1e4);
        gc_ctx_set_num(x, "median_moved", round(r->moved * 1e5) / 1e5);
        gc_ctx_set_num(x, "median_stable", r->stable);
    }
}

int gc_remeasure(const gc_backend_ops *ops, gc_backend *be, gc_task *const *tasks,
                 const double *budgets, size_t n, gc_gpu *g, const gc_remeasure_cfg *cfg)
{
    rm_item *it = calloc(n ? n : 1, sizeof *it);
    if (!it)
        return 0;
    size_t nit = 0;
    for (size_t i = 0; i < n; i++) {
        if (!gc_remeasure_host_bound(tasks[i]->item) || tasks[i]->peer_rank >= 0)
            continue;
        rm_item *r = &it[nit];
        r->task = tasks[i];
        r->budget_s = budgets ? budgets[i] : 0;
        locate(r, g);
        if (!r->time || r->time->hist.total == 0)
            continue;
        r->spread_first = spread_of(r->time);
        r->spread_low_first = spread_low_of(r->time);
        r->median = median_of(r->time);
        r->fast = fast_of(r->time);
        int large = r->time->scale > 0 && r->median / r->time->scale >= cfg->large_ns &&
                    cfg->large_ns > 0;
        r->bound = large ? cfg->spread_large_max : cfg->spread_max;
        r->bound_low = large ? cfg->spread_low_large_max : cfg->spread_low_max;
        r->active = r->noisy = beyond(r, r->spread_first, r->spread_low_first);
        nit++;
    }
    double charged_s = 0, bound_s = cfg->budget_s;
    int runs = 0;
    for (int round_no = 1; round_no <= cfg->max_rounds; round_no++) {
        int any = 0;
        for (size_t i = 0; i < nit; i++) {
            rm_item *r = &it[i];
            if (!r->active)
                continue;
            /* a round is charged its whole budget, whatever it took:
             * the bound holds however fast the path answers */
            double now = gc_now_s();
            if ((cfg->deadline_s > 0 && now + r->budget_s > cfg->deadline_s) ||
                (bound_s > 0 && charged_s + r->budget_s > bound_s)) {
                r->active = 0;   /* the time bound: given up, median_stable 0 */
                continue;
            }
            charged_s += r->budget_s;
            gc_gpu scratch;
            gc_gpu_init(&scratch);
            scratch.info = g->info;
            gc_task t = *r->task;
            t.round = round_no;
            t.deadline_s = r->budget_s > 0 ? now + r->budget_s : 0;
            gc_err e = { 0 };
            int rc = ops->measure(be, &t, &scratch, &e);
            /* own lives in scratch, freed below: only what was read of it
             * (own_ok, the spreads) outlives this round */
            const gc_point *own = rc ? NULL : time_point(&scratch);
            int own_ok = own && own->hist.total;
            if (own_ok) {   /* this round alone */
                r->spread_last = spread_of(own);
                r->spread_low_last = spread_low_of(own);
            }
            if (!rc)
                rc = merge_round(r, g, &scratch, &e);
            gc_gpu_free(&scratch);
            runs++;
            if (rc) {
                fprintf(stderr, "gpucensus: item %u measured again: %s (the first pass is kept)\n",
                        r->task->item->id, e.msg[0] ? e.msg : "failed");
                r->active = 0;
                continue;
            }
            r->rounds++;
            double m = median_of(r->time), f = fast_of(r->time);
            r->moved = r->median > 0 ? fabs(m - r->median) / r->median : 0;
            double fast_moved = r->fast > 0 ? fabs(f - r->fast) / r->fast : 0;
            r->median = m;
            r->fast = f;
            r->stable = (own_ok && !beyond(r, r->spread_last, r->spread_low_last)) ||
                        (r->moved < cfg->stable_rel && fast_moved < cfg->stable_rel);
            r->active = !r->stable;
            any = 1;
        }
        if (!any)
            break;
    }
    for (size_t i = 0; i < nit; i++)
        annotate(&it[i], g);
    free(it);
    return runs;
}

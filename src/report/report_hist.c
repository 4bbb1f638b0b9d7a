/* The report's history view (`report OUT -o page.html --history DB`): for
 * each GPU of the catalogue, its main parameters over its runs of the same
 * plan in the history database, against its SKU's band there (p10..p90 of
 * every GPU of that SKU in good runs of the plan, median dashed). Runs are
 * placed in days before this run; a run's point is red when the GPU was
 * degraded or failed in it, amber when suspect; the run of the report's
 * catalogue is the larger point at 0. Only values measured with the method
 * this run's was (registry.c): runs and band of another method measured
 * something else under the same name; a parameter without any is not
 * drawn, and the GPU's section says so. Called by the page; it reads only
 * the model (report_data.c) and the history database. */
#include "report/report_int.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "read/history.h"
#include "util/quote.h"
#include "util/svg.h"
#include "util/timeutil.h"

#define MAX_GPUS 64   /* past this, only GPUs that are not ok in this run */

static const struct {
    const char *param, *title;
    int fmt;
    double scale;
    size_t now;   /* this run's value in rp_gpu */
} PARAMS[] = {
    { "hbm_bw_bps", "HBM bandwidth", GC_FMT_BPS, 1, offsetof(rp_gpu, hbm_bps) },
    { "l2_bw_bps", "L2 bandwidth", GC_FMT_BPS, 1, offsetof(rp_gpu, l2_bw) },
    { "dram_latency_cycles", "DRAM latency (cycles)", GC_FMT_NUM, 1, offsetof(rp_gpu, dram) },
    { "l2_latency_cycles", "L2 latency (cycles)", GC_FMT_NUM, 1, offsetof(rp_gpu, l2) },
    { "launch_ns", "launch time", GC_FMT_SECONDS, 1e-9, offsetof(rp_gpu, launch_ns) },
};
#define NP (sizeof PARAMS / sizeof *PARAMS)

/* The method of this run's value of param on GPU uuid (hc: the catalogue
 * as the history reads it), 0: unknown. */
static int method_of(const gc_hcat *hc, const char *uuid, const char *param)
{
    for (size_t i = 0; hc && i < hc->ngpus; i++) {
        const gc_hc_gpu *g = &hc->gpus[i];
        if (strcmp(g->uuid, uuid))
            continue;
        for (size_t k = 0; k < g->nparams; k++)
            if (!strcmp(hc->params[g->first + k].name, param))
                return hc->params[g->first + k].method;
    }
    return 0;
}

/* One parameter's plot; *none: nothing of this run's method in the history. */
static int plot(FILE *f, gc_history *h, const rp_cat *c, const rp_gpu *g, size_t k, long long now_s,
                int method, int *none, gc_err *err)
{
    gc_hquery q = { .uuid = g->uuid, .param = PARAMS[k].param, .plan = c->plan_name, .method = method };
    gc_hpoint *p;
    size_t n;
    double lo, mid, hi;
    int rc = gc_history_series(h, &q, &p, &n, err);
    if (!rc)
        rc = gc_history_band(h, g->name, PARAMS[k].param, c->plan_name, method, &lo, &mid, &hi, err);
    *none = !rc && !n;
    if (rc || !n) {
        if (!rc)
            free(p);
        return rc;
    }
    double s = PARAMS[k].scale, *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y) {
        free(x), free(y), free(p);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    double now = *(const double *)((const char *)g + PARAMS[k].now) * s;
    gc_plot pl = { 0 };
    pl.x = (gc_axis){ .lo = 0, .hi = 0, .fmt = GC_FMT_NUM, .label = "days before this run" };
    pl.y = (gc_axis){ .lo = isfinite(now) ? now : INFINITY, .hi = isfinite(now) ? now : -INFINITY,
                      .fmt = PARAMS[k].fmt };
    for (size_t i = 0; i < n; i++) {
        x[i] = ((double)p[i].t_s - (double)now_s) / 86400.0;
        y[i] = p[i].value * s;
        pl.x.lo = fmin(pl.x.lo, x[i]);
        pl.y.lo = fmin(pl.y.lo, y[i]);
        pl.y.hi = fmax(pl.y.hi, y[i]);
    }
    if (isfinite(lo)) {
        pl.y.lo = fmin(pl.y.lo, lo * s);
        pl.y.hi = fmax(pl.y.hi, hi * s);
    }
    pl.x.lo -= 0.5;
    pl.x.hi += 0.5;
    double pad = 0.05 * (pl.y.hi - pl.y.lo) + 1e-3 * fabs(pl.y.hi);
    pl.y.lo -= pad;
    pl.y.hi += pad;
    char title[200], how[32] = "";
    if (method > 0)
        snprintf(how, sizeof how, ", method %d", method);
    snprintf(title, sizeof title, "%s\n%zu runs of plan %s%s; band: the SKU's p10..p90", PARAMS[k].title,
             n, c->plan_name, how);
    gc_plot_begin(&pl, f, 300, 200, "history", title);
    if (isfinite(lo)) {
        gc_plot_rect(&pl, pl.x.lo, pl.x.hi, lo * s, hi * s, "band", "the SKU's p10..p90 in good runs");
        gc_plot_hline(&pl, mid * s, "plateau", "SKU median");
    }
    gc_plot_line(&pl, n, x, y, "med");
    for (size_t i = 0; i < n; i++) {
        char t[160], v[48];
        gc_fmt_value(v, sizeof v, y[i], PARAMS[k].fmt);
        snprintf(t, sizeof t, "%s: %s (%s, gpucensus %s)", p[i].time, v,
                 p[i].level >= 0 ? gc_verdict_name(p[i].level) : "no verdict", p[i].commit);
        gc_plot_point(&pl, x[i], y[i], 3,
                      p[i].level >= GC_V_DEGRADED ? "gpu v-bad" : p[i].level == GC_V_SUSPECT ? "gpu v-sus" : "gpu",
                      t);
    }
    if (isfinite(now)) {   /* this run, as the report's catalogue has it */
        char t[96], v[48];
        gc_fmt_value(v, sizeof v, now, PARAMS[k].fmt);
        snprintf(t, sizeof t, "this run (%s): %s", c->start_time, v);
        gc_plot_point(&pl, 0, now, 4, g->verdict >= GC_V_DEGRADED ? "gpu v-bad" : g->verdict == GC_V_SUSPECT ? "gpu v-sus" : "pt", t);
    }
    gc_plot_end(&pl);
    free(x), free(y), free(p);
    return 0;
}

int rh_history_view(FILE *f, const rp_cat *c, const char *db, gc_err *err)
{
    gc_history *h;
    int rc = gc_history_open(db, 0, GC_HISTORY_TIMEOUT_S, &h, err);
    if (rc)
        return rc;
    /* this run's method of each value (the catalogue read as the history reads it) */
    gc_hcat hc;
    if ((rc = gc_catread_hist(c->path, &hc, err))) {
        gc_history_close(h);
        return rc;
    }
    long long now_s = gc_iso_parse_s(c->start_time);
    size_t skipped = 0;
    fputs("<h2 id=history>History: each GPU over time</h2>\n<p class=note>From ", f);
    gc_html_esc(f, db);
    fputs(": the runs of this plan, oldest left; points red where the GPU was degraded or failed, "
          "amber where suspect; shaded: its SKU's p10..p90 over every GPU of that SKU in good runs "
          "(<code>gpucensus history show</code> prints the numbers).</p>\n", f);
    for (size_t i = 0; i < c->ngpus && !rc; i++) {
        const rp_gpu *g = &c->gpus[i];
        if (!g->uuid[0] || (c->ngpus > MAX_GPUS && g->verdict <= GC_V_OK)) {
            skipped++;
            continue;
        }
        fprintf(f, "<details class=node%s><summary>", c->ngpus <= 4 ? " open" : "");
        gc_html_esc(f, g->node);
        fprintf(f, "/gpu%d <span class=v-%s>%s</span> <span class=note>", g->index, rh_vname(g->verdict),
                rh_vname(g->verdict));
        gc_html_esc(f, g->uuid);
        fputs("</span></summary><div class=plots>\n", f);
        char missing[400] = "";
        size_t ml = 0;
        for (size_t k = 0; k < NP && !rc; k++) {
            int m = method_of(&hc, g->uuid, PARAMS[k].param), none = 0;
            rc = plot(f, h, c, g, k, now_s, m, &none, err);
            if (none && m > 0 && ml < sizeof missing)
                ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s%s (method %d)",
                                       ml ? ", " : "", PARAMS[k].title, m);
        }
        fputs("</div>", f);
        if (ml)
            fprintf(f, "<p class=note>No past run of this run's method: %s.</p>", missing);
        fputs("</details>\n", f);
    }
    if (skipped)
        fprintf(f, "<p class=note>%zu GPUs ok in this run (or without a UUID) not shown.</p>\n", skipped);
    gc_hcat_free(&hc);
    gc_history_close(h);
    return rc;
}

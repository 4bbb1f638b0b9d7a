/* Latency plots of the HTML report (report_html.c): latency against
 * footprint with the L1/L2/DRAM plateaus, and the latency histograms read
 * from the node files. Split out of report_html.c to keep each file at
 * one job; it reads only the model (report_data.c), never the page. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/codec.h"
#include "census/hist.h"
#include "report/report_int.h"
#include "util/svg.h"
#include "util/stats.h"

#define HBINS 60             /* bins of a drawn histogram */

/* ---- latency against footprint --------------------------------------------- */

static void plateaus(gc_plot *p, double l1, double l2, double dram)
{
    char t[64];
    if (isfinite(l1)) {
        snprintf(t, sizeof t, "L1 %.0f cy", l1);
        gc_plot_hline(p, l1, "plateau", t);
    }
    if (isfinite(l2)) {
        snprintf(t, sizeof t, "L2 %.0f cy", l2);
        gc_plot_hline(p, l2, "plateau", t);
    }
    if (isfinite(dram)) {
        snprintf(t, sizeof t, "DRAM %.0f cy", dram);
        gc_plot_hline(p, dram, "plateau", t);
    }
}

static double med_of(const rp_cat *c, size_t first, size_t n, size_t off, double *tmp)
{
    size_t k = 0;
    for (size_t i = first; i < first + n; i++) {
        double v = *(const double *)((const char *)&c->gpus[i] + off);
        if (isfinite(v))
            tmp[k++] = v;
    }
    return gc_sorted_median(tmp, k);
}

/* GPUs [first, first + n): one line each when few (node view, or a small
 * cluster), else the median over GPUs with the 5..95% band across them. */
void rh_latency_plot(FILE *f, const rp_cat *c, size_t first, size_t n, const char *title,
                     double *tmp)
{
    gc_plot p = { 0 };
    p.x = (gc_axis){ .lo = INFINITY, .hi = -INFINITY, .log = 1, .fmt = GC_FMT_BYTES, .label = "footprint" };
    p.y = (gc_axis){ .lo = INFINITY, .hi = -INFINITY, .log = 0, .fmt = GC_FMT_NUM, .label = "latency (cycles)" };
    size_t pts = 0;
    for (size_t i = first; i < first + n; i++)
        for (size_t k = 0; k < c->gpus[i].nchase; k++) {
            const rp_pt *q = &c->gpus[i].chase[k];
            p.x.lo = fmin(p.x.lo, q->x);
            p.x.hi = fmax(p.x.hi, q->x);
            p.y.lo = fmin(p.y.lo, n == 1 ? q->p5 : q->p50);
            p.y.hi = fmax(p.y.hi, n == 1 ? q->p95 : q->p50);
            pts++;
        }
    if (!pts)
        return;
    p.y.lo = fmin(p.y.lo, 0);
    gc_plot_begin(&p, f, 560, 300, "lat", title);
    if (n == 1) {
        const rp_gpu *g = &c->gpus[first];
        double *x = malloc(g->nchase * 4 * sizeof *x);
        if (x) {
            double *lo = x + g->nchase, *hi = lo + g->nchase, *md = hi + g->nchase;
            for (size_t k = 0; k < g->nchase; k++)
                x[k] = g->chase[k].x, lo[k] = g->chase[k].p5, hi[k] = g->chase[k].p95,
                md[k] = g->chase[k].p50;
            gc_plot_band(&p, g->nchase, x, lo, hi, "band");
            gc_plot_line(&p, g->nchase, x, md, "med");
            free(x);
        }
    } else if (n <= 16) {
        for (size_t i = first; i < first + n; i++) {
            const rp_gpu *g = &c->gpus[i];
            double *x = malloc((g->nchase ? g->nchase : 1) * 2 * sizeof *x);
            if (!x)
                continue;
            for (size_t k = 0; k < g->nchase; k++)
                x[k] = g->chase[k].x, x[g->nchase + k] = g->chase[k].p50;
            char cls[16];
            snprintf(cls, sizeof cls, "c%zu", (i - first) % NCOL);
            fputs("<g><title>", f);
            gc_html_esc(f, g->node);
            fprintf(f, "/gpu%d</title>", g->index);
            gc_plot_line(&p, g->nchase, x, x + g->nchase, cls);
            fputs("</g>", f);
            free(x);
        }
    } else {
        /* footprints of all GPUs, then per footprint the GPUs' medians */
        double *xs = malloc(pts * 5 * sizeof *xs);
        if (xs) {
            double *lo = xs + pts, *md = lo + pts, *hi = md + pts, *v = hi + pts;
            size_t nx = 0;
            for (size_t i = first; i < first + n; i++)
                for (size_t k = 0; k < c->gpus[i].nchase; k++)
                    xs[nx++] = c->gpus[i].chase[k].x;
            gc_sorted_median(xs, nx);   /* sorts */
            size_t u = 0;
            for (size_t j = 0; j < nx; j++)
                if (!u || xs[j] != xs[u - 1])
                    xs[u++] = xs[j];
            for (size_t j = 0; j < u; j++) {
                size_t m = 0;
                for (size_t i = first; i < first + n; i++)
                    for (size_t k = 0; k < c->gpus[i].nchase; k++)
                        if (c->gpus[i].chase[k].x == xs[j])
                            v[m++] = c->gpus[i].chase[k].p50;
                md[j] = gc_sorted_median(v, m);
                lo[j] = m ? v[(size_t)(0.05 * (double)(m - 1))] : NAN;
                hi[j] = m ? v[(size_t)ceil(0.95 * (double)(m - 1))] : NAN;
            }
            gc_plot_band(&p, u, xs, lo, hi, "band");
            gc_plot_line(&p, u, xs, md, "med");
            free(xs);
        }
    }
    size_t off1 = offsetof(rp_gpu, l1), off2 = offsetof(rp_gpu, l2), off3 = offsetof(rp_gpu, dram);
    plateaus(&p, med_of(c, first, n, off1, tmp), med_of(c, first, n, off2, tmp),
             med_of(c, first, n, off3, tmp));
    gc_plot_end(&p);
}

/* ---- latency histograms (from the node files) -------------------------------- */

static const char *const LEVEL[3] = { "L1", "L2", "DRAM" };

/* Histograms h[0..n) (all with counts) on one plot: bars for one, step
 * lines for several; x from the 0.1% to the 99.9% quantile. */
static void hist_plot(FILE *f, const char *title, const gc_hist *const *h, const double *scale,
                      size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!h[i]->total)
            continue;
        k++;
        lo = fmin(lo, (double)gc_hist_quantile(h[i], 0.001) / scale[i]);
        hi = fmax(hi, (double)gc_hist_quantile(h[i], 0.999) / scale[i]);
    }
    if (!k)
        return;
    if (hi <= lo)
        hi = lo * 1.01 + 1e-9, lo = lo * 0.99;
    double w = (hi - lo) / HBINS;
    double bins[HBINS], ymax = 0;
    double *ys = malloc(n * HBINS * sizeof *ys);
    if (!ys)
        return;
    for (size_t i = 0; i < n; i++) {
        memset(bins, 0, sizeof bins);
        const gc_hist *g = h[i];
        for (uint32_t j = 0; j < g->n && g->total; j++) {
            if (!g->counts[j])
                continue;
            uint32_t ix = g->lo + j;
            double mid = ((double)gc_hist_bucket_lower(g->sub_bits, ix) +
                          (double)gc_hist_bucket_upper(g->sub_bits, ix)) / 2 / scale[i];
            long b = (long)floor((mid - lo) / w);
            b = b < 0 ? 0 : b >= HBINS ? HBINS - 1 : b;
            bins[b] += (double)g->counts[j];
        }
        for (int b = 0; b < HBINS; b++) {
            ys[i * HBINS + b] = g->total ? 100.0 * bins[b] / (double)g->total : 0;
            ymax = fmax(ymax, ys[i * HBINS + b]);
        }
    }
    gc_plot p = { 0 };
    p.x = (gc_axis){ .lo = lo, .hi = hi, .log = 0, .fmt = GC_FMT_NUM, .label = "latency (cycles)" };
    p.y = (gc_axis){ .lo = 0, .hi = ymax, .log = 0, .fmt = GC_FMT_NUM, .label = "% of samples" };
    gc_plot_begin(&p, f, 360, 220, "hist", title);


    if (n == 1) {
        for (int b = 0; b < HBINS; b++)
            if (ys[b] > 0) {
                char t[96];
                snprintf(t, sizeof t, "%.4g..%.4g cycles: %.3g%%", lo + b * w, lo + (b + 1) * w, ys[b]);
                gc_plot_rect(&p, lo + b * w, lo + (b + 1) * w, 0, ys[b], "bar", t);
            }
    } else {
        double x[2 * HBINS + 2], y[2 * HBINS + 2];
        for (size_t i = 0; i < n; i++) {
            size_t m = 0;
            for (int b = 0; b < HBINS; b++) {
                x[m] = lo + b * w, y[m++] = ys[i * HBINS + b];
                x[m] = lo + (b + 1) * w, y[m++] = ys[i * HBINS + b];
            }
            char cls[8];
            snprintf(cls, sizeof cls, "c%zu", i % NCOL);
            gc_plot_line(&p, m, x, y, cls);
        }
    }
    gc_plot_end(&p);
    free(ys);
}

void rh_hist_row(FILE *f, rp_hist3 *hs, size_t n, const char *who)
{
    const gc_hist **hp = malloc((n ? n : 1) * sizeof *hp);
    double *sc = malloc((n ? n : 1) * sizeof *sc);
    if (!hp || !sc) {
        free(hp);
        free(sc);
        return;
    }
    for (int k = 0; k < 3; k++) {
        size_t m = 0;
        double fp = NAN;
        for (size_t i = 0; i < n; i++)
            if (hs[i].have[k]) {
                hp[m] = &hs[i].h[k];
                sc[m++] = hs[i].scale[k];
                fp = hs[i].fp[k];
            }
        if (!m)
            continue;
        char t[160], fps[32];
        gc_fmt_value(fps, sizeof fps, fp, GC_FMT_BYTES);
        snprintf(t, sizeof t, "%s latency, %s footprint (%s)", LEVEL[k], fps, who);
        hist_plot(f, t, hp, sc, m);
    }
    free(hp);
    free(sc);
}

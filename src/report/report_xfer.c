/* Fleet-wide plots of the HTML report (report_html.c): each GPU against
 * its peers (cluster strips), transfer time against size with the fitted
 * model, and the P2P bandwidth matrices. Split out of report_html.c to keep
 * each file at one job; it reads only the model (report_data.c), never
 * the page. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "util/quote.h"
#include "util/svg.h"
#include "util/stats.h"

#define MAX_LABELS 8         /* outliers labelled per cluster strip */
/* Past this many GPUs a strip draws each SKU's distribution as bars (GPUs
 * per bin) and as points only the outliers and the GPUs not ok, at most
 * STRIP_MARKED_MAX of them: a point per GPU per metric would put ~150,000
 * elements into the page at 16,384 GPUs and make it slow to use. */
#define STRIP_POINTS_MAX 256
#define STRIP_BINS 80
#define STRIP_MARKED_MAX 400

/* ---- cluster view ---------------------------------------------------------- */

typedef struct metric {
    const char *key, *label;
    size_t off;
    double scale;
    int lower_better;
    int fmt;
} metric;

static const metric METRICS[] = {
    { "l1_latency_cycles", "L1 latency (cycles)", offsetof(rp_gpu, l1), 1, 1, GC_FMT_NUM },
    { "l2_latency_cycles", "L2 latency (cycles)", offsetof(rp_gpu, l2), 1, 1, GC_FMT_NUM },
    { "dram_latency_cycles", "DRAM latency (cycles)", offsetof(rp_gpu, dram), 1, 1, GC_FMT_NUM },
    { "hbm_bw_bps", "HBM bandwidth", offsetof(rp_gpu, hbm_bps), 1, 0, GC_FMT_BPS },
    { "l2_bw_bps", "L2 bandwidth", offsetof(rp_gpu, l2_bw), 1, 0, GC_FMT_BPS },
    { "h2d_bps", "H2D bandwidth (model beta)", offsetof(rp_gpu, h2d_bps), 1, 0, GC_FMT_BPS },
    { "d2h_bps", "D2H bandwidth (model beta)", offsetof(rp_gpu, d2h_bps), 1, 0, GC_FMT_BPS },
    { "p2p_min_bps", "P2P bandwidth, slowest peer", offsetof(rp_gpu, p2p_bps), 1, 0, GC_FMT_BPS },
    { "launch_ns", "kernel launch (ns)", offsetof(rp_gpu, launch_ns), 1, 1, GC_FMT_NUM },
};

static double mval(const rp_gpu *g, const metric *m)
{
    return *(const double *)((const char *)g + m->off) * m->scale;
}

/* SKU groups: index of each GPU's group, names in first-seen order. */
static size_t sku_groups(const rp_cat *c, int *grp, const char ***names)
{
    const char **nm = malloc((c->ngpus ? c->ngpus : 1) * sizeof *nm);
    size_t n = 0;
    if (!nm)
        return 0;
    for (size_t i = 0; i < c->ngpus; i++) {
        size_t k = 0;
        while (k < n && strcmp(nm[k], c->gpus[i].name))
            k++;
        if (k == n)
            nm[n++] = c->gpus[i].name;
        grp[i] = (int)k;
    }
    *names = nm;
    return n;
}

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352d;
    x ^= x >> 15;
    x *= 0x846ca68b;
    x ^= x >> 16;
    return x;
}

static void cluster_strip(FILE *f, const rp_cat *c, const metric *m, const int *grp,
                          const char **gnames, size_t ngroups, double *tmp)
{
    gc_plot p = { 0 };
    p.x = (gc_axis){ .lo = INFINITY, .hi = -INFINITY, .log = 0, .fmt = m->fmt, .label = NULL };
    size_t have = 0;
    for (size_t i = 0; i < c->ngpus; i++) {
        double v = mval(&c->gpus[i], m);
        if (!isfinite(v))
            continue;
        have++;
        p.x.lo = fmin(p.x.lo, v);
        p.x.hi = fmax(p.x.hi, v);
    }
    if (!have)
        return;
    /* each group's band: median +- max(3 x 1.4826 MAD, 1% of the median) */
    double *med = calloc(ngroups, sizeof *med), *half = calloc(ngroups, sizeof *half);
    if (!med || !half) {
        free(med);
        free(half);
        return;
    }
    for (size_t k = 0; k < ngroups; k++) {
        size_t n = 0;
        for (size_t i = 0; i < c->ngpus; i++)
            if (grp[i] == (int)k && isfinite(mval(&c->gpus[i], m)))
                tmp[n++] = mval(&c->gpus[i], m);
        med[k] = gc_sorted_median(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(tmp[i] - med[k]);
        double mad = gc_sorted_median(tmp, n);
        half[k] = fmax(3 * 1.4826 * mad, 0.01 * fabs(med[k]));
        if (isfinite(med[k])) {
            p.x.lo = fmin(p.x.lo, med[k] - half[k]);
            p.x.hi = fmax(p.x.hi, med[k] + half[k]);
        }
    }
    double row = ngroups > 1 ? 40 : 30;
    p.y = (gc_axis){ .lo = 0, .hi = (double)ngroups, .log = 0, .fmt = GC_FMT_NUM, .label = NULL, .noticks = 1 };
    p.mb = 20;
    p.mt = 22;
    p.ml = 16;
    double h = p.mt + p.mb + row * (double)ngroups;
    /* the y axis is drawn by hand: rows, no ticks */
    FILE *out = f;
    fprintf(out, "<div class=strip data-metric=\"%s\">", m->key);
    gc_axis yfixed = p.y;
    p.y.lo = 0;
    p.y.hi = (double)ngroups;
    gc_plot_begin(&p, out, 400, h, "cluster", m->label);
    p.y = yfixed; /* gc_axis_fix padded it; keep rows exact */
    p.y.lo = -0.04 * (double)ngroups;
    p.y.hi = 1.04 * (double)ngroups;
    /* the MAX_LABELS farthest outliers (in band half-widths) get a label */
    double cut = INFINITY;
    {
        size_t no = 0;
        for (size_t i = 0; i < c->ngpus; i++) {
            double v = mval(&c->gpus[i], m);
            int k = grp[i];
            if (isfinite(v) && isfinite(med[k]) && fabs(v - med[k]) > half[k])
                tmp[no++] = -fabs(v - med[k]) / half[k];
        }
        if (no)
            gc_sorted_median(tmp, no);   /* sorts: farthest first */
        cut = no ? -tmp[no < MAX_LABELS ? no - 1 : MAX_LABELS - 1] : INFINITY;
    }
    size_t labels = 0, outliers = 0, marked = 0, unmarked = 0;
    int binned = c->ngpus > STRIP_POINTS_MAX;
    for (size_t k = 0; k < ngroups; k++) {
        double y0 = (double)k + 0.1, y1 = (double)k + 0.9;
        if (isfinite(med[k])) {
            char t[300], a[32], b[32];
            gc_fmt_value(a, sizeof a, med[k] - half[k], m->fmt);
            gc_fmt_value(b, sizeof b, med[k] + half[k], m->fmt);
            snprintf(t, sizeof t, "peers (%s): %s .. %s", gnames[k], a, b);
            gc_plot_rect(&p, med[k] - half[k], med[k] + half[k], y0, y1, "pband", t);
            if (ngroups > 1)
                gc_plot_text(&p, med[k] - half[k], y1, 2, 10, "peer", gnames[k]);
        }
        if (binned) {   /* the SKU's distribution: GPUs per bin */
            size_t bins[STRIP_BINS] = { 0 }, top = 0;
            double w = (p.x.hi - p.x.lo) / STRIP_BINS;
            for (size_t i = 0; i < c->ngpus; i++) {
                double v = mval(&c->gpus[i], m);
                if (grp[i] != (int)k || !isfinite(v) || !(w > 0))
                    continue;
                long b = (long)floor((v - p.x.lo) / w);
                b = b < 0 ? 0 : b >= STRIP_BINS ? STRIP_BINS - 1 : b;
                if (++bins[b] > top)
                    top = bins[b];
            }
            for (int b = 0; b < STRIP_BINS && top; b++)
                if (bins[b]) {
                    char t[160], a[32], bb[32];
                    gc_fmt_value(a, sizeof a, p.x.lo + b * w, m->fmt);
                    gc_fmt_value(bb, sizeof bb, p.x.lo + (b + 1) * w, m->fmt);
                    snprintf(t, sizeof t, "%s .. %s: %zu GPUs", a, bb, bins[b]);
                    /* at least a sliver, so that a bin of one GPU shows */
                    double hgt = fmax(0.04, 0.75 * (double)bins[b] / (double)top);
                    gc_plot_rect(&p, p.x.lo + b * w, p.x.lo + (b + 1) * w, y1 - hgt, y1, "bar", t);
                }
        }
        for (size_t i = 0; i < c->ngpus; i++) {
            const rp_gpu *g = &c->gpus[i];
            double v = mval(g, m);
            if (grp[i] != (int)k || !isfinite(v))
                continue;
            int out_any = isfinite(med[k]) && fabs(v - med[k]) > half[k];
            if (binned && !out_any && g->verdict <= GC_V_OK)
                continue;
            if (binned && marked >= STRIP_MARKED_MAX) {
                unmarked += out_any;
                outliers += out_any;
                continue;
            }
            marked++;
            double y = y0 + 0.15 + 0.6 * (hash32((uint32_t)i * 2654435761u) % 1000) / 1000.0;
            char t[200], vs[32];
            gc_fmt_value(vs, sizeof vs, v, m->fmt);
            snprintf(t, sizeof t, "%s/gpu%d: %s (verdict %s)", g->node, g->index, vs,
                     rh_vname(g->verdict));
            if (out_any) {
                char id[96];
                rh_node_id(id, sizeof id, g->node);
                fprintf(out, "<a href=\"#%s\">", id);
            }
            const char *cls = g->verdict >= GC_V_DEGRADED ? "gpu v-bad"
                              : g->verdict == GC_V_SUSPECT ? "gpu v-sus" : "gpu";
            gc_plot_point(&p, v, y, out_any ? 3.5 : 2.5, cls, t);
            if (out_any) {
                outliers++;
                if (labels < MAX_LABELS && fabs(v - med[k]) / half[k] >= cut) {
                    char lab[96];
                    snprintf(lab, sizeof lab, "%s/gpu%d", g->node, g->index);
                    /* right half: the label goes to the left of the point */
                    int left = gc_plot_px(&p, v) > p.w * 0.7;
                    gc_plot_text(&p, v, y, left ? -5 : 5, labels % 2 ? 11 : -4,
                                 left ? "olabel end" : "olabel", lab);
                    labels++;
                }
                fputs("</a>", out);
            }
        }
    }
    fprintf(out, "<text class=\"sub\" x=\"%.0f\" y=\"16\" text-anchor=\"end\">%zu of %zu "
                 "outside the band%s</text>",
            p.w - 8, outliers, have, unmarked ? " (some not marked)" : "");
    gc_plot_end(&p);
    fputs("</div>\n", out);
    free(med);
    free(half);
}

void rh_cluster_view(FILE *f, const rp_cat *c)
{
    int *grp = malloc((c->ngpus ? c->ngpus : 1) * sizeof *grp);
    double *tmp = malloc((c->ngpus ? c->ngpus : 1) * sizeof *tmp);
    const char **names = NULL;
    size_t ng = grp && tmp ? sku_groups(c, grp, &names) : 0;
    if (c->ngpus <= STRIP_POINTS_MAX)
        fputs("<p class=note>Each GPU is a point; the green band is its peers' (same SKU) median "
              "&plusmn; max(3 &times; 1.4826 MAD, 1%). Points outside it are outliers: larger, "
              "labelled (the 8 farthest per metric) and linked to their node. Colour: the GPU's "
              "verdict (blue ok, orange suspect, red degraded or failed).</p><div class=plots>\n", f);
    else
        fprintf(f, "<p class=note>Each SKU's distribution: bars count its GPUs per bin; the green "
                   "band is the SKU's median &plusmn; max(3 &times; 1.4826 MAD, 1%%). Points: the "
                   "GPUs outside the band (outliers, labelled: the 8 farthest per metric) and those "
                   "whose verdict is not ok (orange suspect, red degraded or failed), at most %d a "
                   "metric; every GPU is in the explorer below.</p><div class=plots>\n",
                STRIP_MARKED_MAX);
    for (size_t k = 0; ng && k < sizeof METRICS / sizeof METRICS[0]; k++)
        cluster_strip(f, c, &METRICS[k], grp, names, ng, tmp);
    fputs("</div>\n", f);
    free(names);
    free(grp);
    free(tmp);
}

/* ---- transfers ------------------------------------------------------------------ */

/* The model's n counts the bytes moved (both directions' for bidir);
 * the plot's x is the transfer size. */
static void model_lines(gc_plot *p, const rp_link *l)
{
    double mult = !strcmp(l->dir, "bidir") ? 2 : 1;
    for (int s = 0; s < l->nseg; s++) {
        const rp_seg *g = &l->seg[s];
        if (!(g->beta > 0) || !(g->lo > 0) || !(g->hi >= g->lo))
            continue;
        double x[25], y[25];
        for (int i = 0; i < 25; i++) {
            double n = g->lo * pow(g->hi / g->lo, i / 24.0);
            x[i] = n / mult;
            y[i] = g->alpha + n / g->beta;
        }
        gc_plot_line(p, 25, x, y, "model");
    }
}



static void xfer_plot(FILE *f, const rp_cat *c, const size_t *idx, size_t m, const char *who)
{
    if (!m)
        return;
    gc_plot p = { 0 };
    p.x = (gc_axis){ .lo = INFINITY, .hi = -INFINITY, .log = 1, .fmt = GC_FMT_BYTES, .label = "transfer size" };
    p.y = (gc_axis){ .lo = INFINITY, .hi = -INFINITY, .log = 1, .fmt = GC_FMT_SECONDS, .label = "time (median)" };
    size_t pts = 0;
    for (size_t j = 0; j < m; j++) {
        const rp_link *l = &c->links[idx[j]];
        for (size_t k = 0; k < l->nsz; k++) {
            p.x.lo = fmin(p.x.lo, l->sz[k].x);
            p.x.hi = fmax(p.x.hi, l->sz[k].x);
            p.y.lo = fmin(p.y.lo, m == 1 ? l->sz[k].p5 : l->sz[k].p50);
            p.y.hi = fmax(p.y.hi, m == 1 ? l->sz[k].p95 : l->sz[k].p50);
            pts++;
        }
    }
    if (!pts)
        return;
    /* the representative: the link of median beta */
    size_t rep = idx[0];
    {
        double *b = malloc(m * sizeof *b);
        if (b) {
            size_t nb = 0;
            for (size_t j = 0; j < m; j++)
                if (isfinite(c->links[idx[j]].beta))
                    b[nb++] = c->links[idx[j]].beta;
            double mb = gc_sorted_median(b, nb), best = INFINITY;
            for (size_t j = 0; j < m; j++)
                if (isfinite(c->links[idx[j]].beta) && fabs(c->links[idx[j]].beta - mb) < best)
                    best = fabs(c->links[idx[j]].beta - mb), rep = idx[j];
            free(b);
        }
    }
    const rp_link *r = &c->links[rep];
    char title[700], a[32], bb[32];
    gc_fmt_value(a, sizeof a, r->alpha, GC_FMT_SECONDS);
    gc_fmt_value(bb, sizeof bb, r->beta, GC_FMT_BPS);
    if (m == 1)
        snprintf(title, sizeof title, "%s\n%s: model alpha %s, beta %s", r->cls, who, a, bb);
    else
        snprintf(title, sizeof title, "%s\n%zu links (%s); median link: alpha %s, beta %s", r->cls,
                 m, who, a, bb);
    gc_plot_begin(&p, f, 560, 300, "xfer", title);
    if (m == 1) {
        double *x = malloc(r->nsz * 3 * sizeof *x);
        if (x) {
            double *lo = x + r->nsz, *hi = lo + r->nsz;
            for (size_t k = 0; k < r->nsz; k++)
                x[k] = r->sz[k].x, lo[k] = r->sz[k].p5, hi[k] = r->sz[k].p95;
            gc_plot_band(&p, r->nsz, x, lo, hi, "band");
            free(x);
        }
        for (size_t k = 0; k < r->nsz; k++) {
            char t[96], s1[32], s2[32];
            gc_fmt_value(s1, sizeof s1, r->sz[k].x, GC_FMT_BYTES);
            gc_fmt_value(s2, sizeof s2, r->sz[k].p50, GC_FMT_SECONDS);
            snprintf(t, sizeof t, "%s: %s", s1, s2);
            gc_plot_point(&p, r->sz[k].x, r->sz[k].p50, 2.5, "pt", t);
        }
    } else {
        double *xs = malloc(pts * 5 * sizeof *xs);
        if (xs) {
            double *lo = xs + pts, *md = lo + pts, *hi = md + pts, *v = hi + pts;
            size_t nx = 0;
            for (size_t j = 0; j < m; j++)
                for (size_t k = 0; k < c->links[idx[j]].nsz; k++)
                    xs[nx++] = c->links[idx[j]].sz[k].x;
            gc_sorted_median(xs, nx);
            size_t u = 0;
            for (size_t j = 0; j < nx; j++)
                if (!u || xs[j] != xs[u - 1])
                    xs[u++] = xs[j];
            for (size_t j = 0; j < u; j++) {
                size_t q = 0;
                for (size_t i = 0; i < m; i++) {
                    const rp_link *l = &c->links[idx[i]];
                    for (size_t k = 0; k < l->nsz; k++)
                        if (l->sz[k].x == xs[j])
                            v[q++] = l->sz[k].p50;
                }
                md[j] = gc_sorted_median(v, q);
                lo[j] = q ? v[0] : NAN;
                hi[j] = q ? v[q - 1] : NAN;
            }
            gc_plot_band(&p, u, xs, lo, hi, "band");
            /* a node's few links: each its own line, to find the odd one */
            for (size_t i = 0; m <= NCOL && i < m; i++) {
                const rp_link *l = &c->links[idx[i]];
                double *lx = malloc((l->nsz ? l->nsz : 1) * 2 * sizeof *lx);
                if (!lx)
                    continue;
                for (size_t k = 0; k < l->nsz; k++)
                    lx[k] = l->sz[k].x, lx[l->nsz + k] = l->sz[k].p50;
                char cls[8];
                snprintf(cls, sizeof cls, "c%zu", i % NCOL);
                fputs("<g class=link><title>", f);
                gc_html_esc(f, l->src_node);
                fprintf(f, "%s%d -> ", l->src_gpu >= 0 ? "/gpu" : "/host", l->src_gpu >= 0 ? l->src_gpu : 0);
                gc_html_esc(f, l->dst_node);
                fprintf(f, "%s%d: beta %.4g GB/s</title>", l->dst_gpu >= 0 ? "/gpu" : "/host",
                        l->dst_gpu >= 0 ? l->dst_gpu : 0, l->beta / 1e9);
                gc_plot_line(&p, l->nsz, lx, lx + l->nsz, cls);
                fputs("</g>", f);
                free(lx);
            }
            for (size_t j = 0; j < u; j++) {
                char t[96], s1[32], s2[32];
                gc_fmt_value(s1, sizeof s1, xs[j], GC_FMT_BYTES);
                gc_fmt_value(s2, sizeof s2, md[j], GC_FMT_SECONDS);
                snprintf(t, sizeof t, "%s: median %s over the links", s1, s2);
                gc_plot_point(&p, xs[j], md[j], 2.5, "pt", t);
            }
            free(xs);
        }
    }
    model_lines(&p, r);
    gc_plot_end(&p);
}

/* Link classes among links[idx], in order of first appearance; for each,
 * one plot. node: only links measured on that node (NULL: all). */
void rh_xfer_plots(FILE *f, const rp_cat *c, size_t node, const char *who)
{
    /* the links considered: all, or the node's (its range of link_ix) */
    size_t nl = node == RP_ALL ? c->nlinks : c->nl_n[node];
    const size_t *li = node == RP_ALL ? NULL : c->link_ix + c->nl_first[node];
    size_t *idx = malloc((nl ? nl : 1) * sizeof *idx);
    char *done = calloc(nl ? nl : 1, 1);
    if (!idx || !done) {
        free(idx);
        free(done);
        return;
    }
    for (size_t a = 0; a < nl; a++) {
        if (done[a])
            continue;
        size_t i = li ? li[a] : a;
        size_t m = 0;
        for (size_t b = a; b < nl; b++) {
            size_t j = li ? li[b] : b;
            if (!done[b] && !strcmp(c->links[j].cls, c->links[i].cls)) {
                done[b] = 1;
                idx[m++] = j;
            }
        }
        char w[160];
        if (m == 1 && c->links[i].src_gpu >= 0 && c->links[i].dst_gpu >= 0)
            snprintf(w, sizeof w, "%s/gpu%d -> %s/gpu%d", c->links[i].src_node, c->links[i].src_gpu,
                     c->links[i].dst_node, c->links[i].dst_gpu);
        else if (m == 1)
            snprintf(w, sizeof w, "%s/gpu%d", c->links[i].node,
                     c->links[i].src_gpu >= 0 ? c->links[i].src_gpu : c->links[i].dst_gpu);
        else
            snprintf(w, sizeof w, "%s", who);
        xfer_plot(f, c, idx, m, w);
    }
    free(idx);
    free(done);
}

/* ---- P2P matrix --------------------------------------------------------------------- */

/* Best one-way P2P bandwidth from GPU i to GPU j of node (indices by the
 * GPUs' local index, n x n); NAN where none. */
void rh_p2p_matrix(const rp_cat *c, size_t node, int n, double *mx)
{
    for (int i = 0; i < n * n; i++)
        mx[i] = NAN;
    const char *name = c->node_names[node];
    for (size_t a = 0; a < c->nl_n[node]; a++) {
        const rp_link *l = &c->links[c->link_ix[c->nl_first[node] + a]];
        if (strcmp(l->bench, "p2p") || strcmp(l->dir, "oneway") || l->src_gpu < 0 ||
            l->dst_gpu < 0 || l->src_gpu >= n || l->dst_gpu >= n || strcmp(l->src_node, name) ||
            strcmp(l->dst_node, name) || !isfinite(l->beta))
            continue;
        double *v = &mx[l->src_gpu * n + l->dst_gpu];
        if (!isfinite(*v) || l->beta > *v)
            *v = l->beta;
    }
}

void rh_heatmap(FILE *f, const double *mx, int n, const char *title)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n * n; i++)
        if (isfinite(mx[i]))
            lo = fmin(lo, mx[i]), hi = fmax(hi, mx[i]);
    if (!isfinite(lo))
        return;
    double cell = n <= 8 ? 52 : n <= 16 ? 28 : 560.0 / n, ox = 50, oy = 58;
    double w = fmax(ox + cell * n + 20, 330), h = oy + cell * n + 30;
    fprintf(f, "<svg class=\"plot p2p\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\"><text class=\"title\" x=\"8\" y=\"16\">",
            w, h, w, h);
    gc_html_esc(f, title);
    fputs("</text>", f);
    fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">destination GPU</text>",
            ox + cell * n / 2, oy - 18);
    fprintf(f, "<text class=\"axis\" transform=\"translate(12 %.1f) rotate(-90)\" "
               "text-anchor=\"middle\">source GPU</text>", oy + cell * n / 2);
    for (int i = 0; i < n; i++) {
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>",
                ox + cell * (i + 0.5), oy - 4, i);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>", ox - 4,
                oy + cell * (i + 0.5) + 4, i);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = mx[i * n + j], x = ox + cell * j, y = oy + cell * i;
            if (i == j || !isfinite(v)) {
                fprintf(f, "<rect class=\"diag\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                        x, y, cell - 1, cell - 1);
                continue;
            }
            /* red (slowest) .. blue (fastest), relative to the fastest */
            double r = hi > 0 ? v / hi : 1;
            double hue = 220 * fmax(0, fmin(1, (r - 0.5) * 2));
            char vs[32];
            gc_fmt_value(vs, sizeof vs, v, GC_FMT_BPS);
            fprintf(f, "<g class=\"cell\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                       "style=\"fill:hsl(%.0f,65%%,62%%)\"><title>gpu%d -> gpu%d: %s</title></rect>",
                    x, y, cell - 1, cell - 1, hue, i, j, vs);
            if (cell >= 40)
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>",
                        x + cell / 2, y + cell / 2 + 3, v / 1e9);
            fputs("</g>", f);
        }
    fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">GB/s, one-way, best path; red: "
               "under half the fastest</text></svg>\n", ox, oy + cell * n + 18);
}

int rh_node_width(const rp_cat *c, size_t first, size_t n)
{
    int m = 0;
    for (size_t i = first; i < first + n; i++)
        m = c->gpus[i].index + 1 > m ? c->gpus[i].index + 1 : m;
    return m;
}

void rh_aggregate_p2p(FILE *f, const rp_cat *c)
{
    int w = 0;
    for (size_t k = 0; k < c->nnodes; k++) {
        size_t first, n;
        rp_node_gpus(c, k, &first, &n);
        int x = rh_node_width(c, first, n);
        w = x > w ? x : w;
    }
    int any = 0;
    for (size_t i = 0; i < c->nlinks && !any; i++)
        any = !strcmp(c->links[i].bench, "p2p") && isfinite(c->links[i].beta);
    if (!any || w < 2 || w > 64) {
        fprintf(f, "<p class=note>%s</p>\n", !any ? "No P2P links in this census."
                                                  : "More than 64 GPUs per node: see each node.");
        return;
    }
    size_t ww = (size_t)w * w;
    double *all = malloc(ww * c->nnodes * sizeof *all), *mx = malloc(ww * sizeof *mx),
           *v = malloc((c->nnodes ? c->nnodes : 1) * sizeof *v);
    if (all && mx && v) {
        for (size_t k = 0; k < c->nnodes; k++)
            rh_p2p_matrix(c, k, w, all + k * ww);
        for (size_t e = 0; e < ww; e++) {
            size_t m = 0;
            for (size_t k = 0; k < c->nnodes; k++)
                if (isfinite(all[k * ww + e]))
                    v[m++] = all[k * ww + e];
            mx[e] = gc_sorted_median(v, m);
        }
        char t[160];
        if (c->nnodes == 1)
            snprintf(t, sizeof t, "%s: P2P bandwidth matrix", c->node_names[0]);
        else
            snprintf(t, sizeof t, "P2P bandwidth, median over %zu nodes (per node below)", c->nnodes);
        rh_heatmap(f, mx, w, t);
    }
    free(all);
    free(mx);
    free(v);
}

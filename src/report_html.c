/* The HTML report: one self-contained page (inline CSS and SVG, a few
 * lines of vanilla JS to open a node from a link), readable for one GPU
 * and for a thousand:
 *   - the cluster's aggregates first: each GPU a point per metric against
 *     its peers' band (outliers labelled, linked to their node); latency
 *     against footprint (median over GPUs and the band across them) with
 *     the L1/L2/DRAM plateaus; the latency histograms of all GPUs at the
 *     L1, L2 and DRAM footprints (merged); transfer time against size per
 *     link class with the fitted model over the points; the P2P matrix;
 *     the verdicts with their reasons;
 *   - then one closed <details> per node (the drill-down): its table, its
 *     GPUs' latency curves and histograms, its links, its P2P matrix.
 * Histograms come from the node files (OUT/nodes/<node>.json), one node
 * at a time. The page is written to a temporary name and renamed. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "hist.h"
#include "report_int.h"
#include "svg.h"

#define NCOL 8               /* line colours c0..c7 */
#define HBINS 60             /* bins of a drawn histogram */
#define MAX_LABELS 8         /* outliers labelled per cluster strip */
#define MAX_VERDICT_ROWS 500
#define ALL_VERDICTS_MAX 100 /* below this many subjects, ok ones are listed too */

static const char CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 24px 40px;color:#222;background:#fff}"
    "h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
    "h3{font-size:15px;margin:14px 0 6px}.meta{color:#555}nav a{margin-right:14px}"
    ".plots{display:flex;flex-wrap:wrap;gap:10px}"
    "svg.plot{background:#fcfcfc;border:1px solid #e4e4e4}"
    "svg .title{font-size:12px;font-weight:600;fill:#333}svg .sub{font-size:11px;fill:#555}svg .tick{font-size:10px;fill:#666}"
    "svg .axis{font-size:11px;fill:#444}svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#bbb}"
    "svg polyline{fill:none;stroke-width:1.6}svg .med{stroke:#1f5fa8;stroke-width:2}"
    "svg .link polyline{stroke-width:1;opacity:.6}svg .band{fill:#1f5fa8;opacity:.15;stroke:none}svg .pband{fill:#2a9d55;opacity:.13}"
    "svg .plateau{stroke:#b5651d;stroke-dasharray:5 3}svg .plateau-label{font-size:10px;fill:#b5651d}"
    "svg .model{stroke:#c0392b;stroke-width:1.8;stroke-dasharray:6 3}"
    "svg .pt{fill:#1f5fa8;opacity:.85}svg .bar{fill:#1f5fa8;opacity:.75}"
    "svg .gpu{fill:#1f5fa8;opacity:.7}svg .gpu.v-bad{fill:#c0392b;opacity:1}"
    "svg .gpu.v-sus{fill:#e08e0b;opacity:1}"
    "svg .olabel{font-size:10px;fill:#444}svg .olabel.end{text-anchor:end}svg .peer{font-size:10px;fill:#2a7a45}"
    "svg .cell text,svg .ctext{font-size:10px;fill:#000}svg .diag{fill:#ddd}"
    ".c0{stroke:#1f77b4}.c1{stroke:#ff7f0e}.c2{stroke:#2ca02c}.c3{stroke:#d62728}"
    ".c4{stroke:#9467bd}.c5{stroke:#8c564b}.c6{stroke:#e377c2}.c7{stroke:#7f7f7f}"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}"
    "th,td{border-bottom:1px solid #e6e6e6;padding:3px 8px;text-align:right;vertical-align:top}"
    "th{background:#f4f4f4}td.l,th.l{text-align:left}"
    ".v-ok{color:#1e7d32}.v-suspect{color:#a86b00;font-weight:600}"
    ".v-degraded,.v-failed{color:#c0392b;font-weight:700}"
    "details.node{border:1px solid #ddd;border-radius:4px;margin:6px 0;padding:4px 10px}"
    "details.node>summary{cursor:pointer;font-weight:600}"
    ".note{color:#666;font-size:12px}.reasons{text-align:left;font-size:12px}"
    "#filter{margin:6px 0;padding:3px 6px}";

static const char JS[] =
    "function openHash(){var h=location.hash.slice(1);if(!h)return;var e=document.getElementById(h);"
    "if(e&&e.tagName==='DETAILS'){e.open=true;e.scrollIntoView();}}"
    "window.addEventListener('hashchange',openHash);openHash();"
    "var f=document.getElementById('filter');if(f)f.addEventListener('input',function(){"
    "var q=f.value.toLowerCase();document.querySelectorAll('details.node').forEach(function(d){"
    "d.style.display=d.dataset.search.toLowerCase().indexOf(q)>=0?'':'none';});});"
    "function setAll(o){document.querySelectorAll('details.node').forEach(function(d){"
    "if(d.style.display!=='none')d.open=o;});}";

static const char *vname(int level) { return level >= 0 ? gc_verdict_name(level) : "-"; }

static void node_id(char *out, size_t cap, const char *node)
{
    size_t n = snprintf(out, cap, "node-");
    for (; *node && n + 1 < cap; node++)
        out[n++] = (*node >= 'a' && *node <= 'z') || (*node >= 'A' && *node <= 'Z') ||
                           (*node >= '0' && *node <= '9') || *node == '-' || *node == '_'
                       ? *node : '_';
    out[n] = '\0';
}

static void esc(FILE *f, const char *s) { gc_html_esc(f, s); }

static void td_num(FILE *f, double v, int prec)
{
    if (isfinite(v))
        fprintf(f, "<td>%.*f</td>", prec, v);
    else
        fputs("<td>-</td>", f);
}

/* ---- tables -------------------------------------------------------------- */

static void gpu_table(FILE *f, const rp_cat *c, size_t first, size_t n, int only_bad)
{
    fputs("<table class=\"gpus\"><tr><th class=l>GPU</th><th class=l>SKU</th><th>L1 cy</th>"
          "<th>L2 cy</th><th>DRAM cy</th><th>HBM GB/s</th><th>% theo</th><th>H2D GB/s</th>"
          "<th>H2D lat us</th><th>D2H GB/s</th><th>D2H lat us</th><th>P2P min GB/s</th>"
          "<th class=l>verdict</th></tr>\n", f);
    for (size_t i = first; i < first + n; i++) {
        const rp_gpu *g = &c->gpus[i];
        if (only_bad && g->verdict <= GC_V_OK && !strcmp(g->status, "ok"))
            continue;
        char id[96];
        node_id(id, sizeof id, g->node);
        fprintf(f, "<tr class=gpu><td class=l><a href=\"#%s\">", id);
        esc(f, g->node);
        fprintf(f, "</a>/gpu%d</td><td class=l>", g->index);
        esc(f, g->name);
        fputs("</td>", f);
        td_num(f, g->l1, 0);
        td_num(f, g->l2, 0);
        td_num(f, g->dram, 0);
        td_num(f, g->hbm_bps / 1e9, 0);
        td_num(f, g->hbm_ratio * 100, 1);
        td_num(f, g->h2d_bps / 1e9, 1);
        td_num(f, g->h2d_alpha * 1e6, 2);
        td_num(f, g->d2h_bps / 1e9, 1);
        td_num(f, g->d2h_alpha * 1e6, 2);
        td_num(f, g->p2p_bps / 1e9, 1);
        fprintf(f, "<td class=\"l v-%s\">%s", vname(g->verdict), vname(g->verdict));
        if (strcmp(g->status, "ok")) {
            /* not measured in full: the status (where the verdict does not say it) and why */
            if (strcmp(g->status, vname(g->verdict))) {
                fputs(" (", f);
                esc(f, g->status);
                fputs(")", f);
            }
            fputs("<br><span class=note>", f);
            esc(f, g->status_reason);
            fputs("</span>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static int cmp_verdict(const void *a, const void *b)
{
    const gc_verdict *x = *(const gc_verdict *const *)a, *y = *(const gc_verdict *const *)b;
    if (x->level != y->level)
        return y->level - x->level;
    return x->type - y->type;
}

static void verdict_table(FILE *f, const rp_cat *c)
{
    size_t n = gc_detect_count(c->det), counts[3][4] = { { 0 } };
    const gc_verdict **vs = malloc((n ? n : 1) * sizeof *vs);
    if (!vs)
        return;
    for (size_t i = 0; i < n; i++) {
        vs[i] = gc_detect_verdict(c->det, i);
        counts[vs[i]->type][vs[i]->level]++;
    }
    qsort(vs, n, sizeof *vs, cmp_verdict);
    static const char *const tn[3] = { "GPUs", "links", "nodes" };
    fputs("<table class=counts><tr><th class=l></th><th>ok</th><th>suspect</th><th>degraded</th>"
          "<th>failed</th></tr>", f);
    for (int t = 0; t < 3; t++)
        fprintf(f, "<tr><td class=l>%s</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td></tr>",
                tn[t], counts[t][0], counts[t][1], counts[t][2], counts[t][3]);
    fputs("</table>\n<p class=note>Verdicts as <code>gpucensus check</code> gives them for this "
          "catalogue (default rules, no baseline): each subject against its peers of the same SKU "
          "and topology, and physical limits.</p>\n", f);
    int all = n <= ALL_VERDICTS_MAX;
    size_t rows = 0, hidden = 0;
    fputs("<table class=verdicts><tr><th class=l>verdict</th><th class=l>subject</th>"
          "<th class=l>peer group</th><th>peers</th><th class=l>reasons</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = vs[i];
        if (!all && v->level == GC_V_OK)
            continue;
        if (rows >= MAX_VERDICT_ROWS) {
            hidden++;
            continue;
        }
        rows++;
        fprintf(f, "<tr class=verdict data-level=%s><td class=\"l v-%s\">%s</td><td class=l>",
                vname(v->level), vname(v->level), vname(v->level));
        if (v->type != GC_SUBJ_LINK) {
            char id[96];
            node_id(id, sizeof id, v->node);
            fprintf(f, "<a href=\"#%s\">", id);
            esc(f, v->subject);
            fputs("</a>", f);
        } else
            esc(f, v->subject);
        fputs("</td><td class=l>", f);
        esc(f, v->group);
        fprintf(f, "</td><td>%d</td><td class=reasons>", v->peers);
        for (size_t k = 0; k < v->nreasons && k < 6; k++) {
            const gc_reason *r = &v->reasons[k];
            fprintf(f, "%s<span class=v-%s>%s</span> ", k ? "<br>" : "", vname(r->severity),
                    vname(r->severity));
            esc(f, r->rule);
            fputs(": ", f);
            esc(f, r->metric);
            fputs(": ", f);
            esc(f, r->detail);
        }
        if (v->nreasons > 6)
            fprintf(f, "<br>(+%zu more)", v->nreasons - 6);
        if (v->note[0]) {
            fputs("<br><span class=note>", f);
            esc(f, v->note);
            fputs("</span>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (!all)
        fprintf(f, "<p class=note>%zu subjects are ok and not listed.</p>\n",
                counts[0][0] + counts[1][0] + counts[2][0]);
    if (hidden)
        fprintf(f, "<p class=note>%zu more non-ok subjects: <code>gpucensus check %s</code>.</p>\n",
                hidden, c->path);
    free(vs);
}

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
        med[k] = rp_median(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(tmp[i] - med[k]);
        double mad = rp_median(tmp, n);
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
            rp_median(tmp, no);   /* sorts: farthest first */
        cut = no ? -tmp[no < MAX_LABELS ? no - 1 : MAX_LABELS - 1] : INFINITY;
    }
    size_t labels = 0, outliers = 0;
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
        for (size_t i = 0; i < c->ngpus; i++) {
            const rp_gpu *g = &c->gpus[i];
            double v = mval(g, m);
            if (grp[i] != (int)k || !isfinite(v))
                continue;
            int out_any = isfinite(med[k]) && fabs(v - med[k]) > half[k];
            double y = y0 + 0.15 + 0.6 * (hash32((uint32_t)i * 2654435761u) % 1000) / 1000.0;
            char t[200], vs[32];
            gc_fmt_value(vs, sizeof vs, v, m->fmt);
            snprintf(t, sizeof t, "%s/gpu%d: %s (verdict %s)", g->node, g->index, vs,
                     vname(g->verdict));
            if (out_any) {
                char id[96];
                node_id(id, sizeof id, g->node);
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
                 "outside the band</text>",
            p.w - 8, outliers, have);
    gc_plot_end(&p);
    fputs("</div>\n", out);
    free(med);
    free(half);
}

static void cluster_view(FILE *f, const rp_cat *c)
{
    int *grp = malloc((c->ngpus ? c->ngpus : 1) * sizeof *grp);
    double *tmp = malloc((c->ngpus ? c->ngpus : 1) * sizeof *tmp);
    const char **names = NULL;
    size_t ng = grp && tmp ? sku_groups(c, grp, &names) : 0;
    fputs("<p class=note>Each GPU is a point; the green band is its peers' (same SKU) median "
          "&plusmn; max(3 &times; 1.4826 MAD, 1%). Points outside it are outliers: larger, "
          "labelled (the 8 farthest per metric) and linked to their node. Colour: the GPU's verdict "
          "(blue ok, orange suspect, red degraded or failed).</p><div class=plots>\n", f);
    for (size_t k = 0; ng && k < sizeof METRICS / sizeof METRICS[0]; k++)
        cluster_strip(f, c, &METRICS[k], grp, names, ng, tmp);
    fputs("</div>\n", f);
    free(names);
    free(grp);
    free(tmp);
}

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
    return rp_median(tmp, k);
}

/* GPUs [first, first + n): one line each when few (node view, or a small
 * cluster), else the median over GPUs with the 5..95% band across them. */
static void latency_plot(FILE *f, const rp_cat *c, size_t first, size_t n, const char *title,
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
            fprintf(f, "<g><title>%s/gpu%d</title>", g->node, g->index);
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
            rp_median(xs, nx);   /* sorts */
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
                md[j] = rp_median(v, m);
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

typedef struct rp_hist3 {
    gc_hist h[3];
    int have[3];
    double scale[3];
    double fp[3];
} rp_hist3;

/* The footprints drawn: the smallest (L1), the one whose median is
 * nearest the L2 plateau, the largest (DRAM). */
static void choose_fps(const rp_gpu *g, double fp[3])
{
    fp[0] = fp[1] = fp[2] = NAN;
    if (!g->nchase)
        return;
    fp[0] = g->chase[0].x;
    fp[2] = g->chase[g->nchase - 1].x;
    double best = INFINITY;
    for (size_t k = 1; k + 1 < g->nchase; k++) {
        double d = isfinite(g->l2) ? fabs(g->chase[k].p50 - g->l2) : fabs((double)k - g->nchase / 2.0);
        if (d < best)
            best = d, fp[1] = g->chase[k].x;
    }
}

static void free_h3(rp_hist3 *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (h[i].have[k])
                gc_hist_free(&h[i].h[k]);
}

/* Fills hs[0..n) for the node's GPUs; a missing or unreadable node file
 * leaves them empty and says why in why. */
static void load_hists(const rp_cat *c, size_t node, size_t first, size_t n, rp_hist3 *hs,
                       char *why, size_t whycap)
{
    why[0] = '\0';
    for (size_t i = 0; i < n; i++)
        choose_fps(&c->gpus[first + i], hs[i].fp);
    if (!c->node_files[node][0]) {
        snprintf(why, whycap, "no node file in the catalogue");
        return;
    }
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", c->dir, c->node_files[node]);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        if (je.line > 0)
            snprintf(why, whycap, "%s:%d: %s", path, je.line, je.text);
        else
            snprintf(why, whycap, "%s", je.text);
        return;
    }
    size_t gi;
    json_t *g;
    json_array_foreach(json_object_get(root, "gpus"), gi, g) {
        json_t *ix = json_object_get(g, "index");
        const char *nd = json_string_value(json_object_get(g, "node"));
        size_t i = 0;
        while (i < n && !(json_is_integer(ix) && c->gpus[first + i].index == json_integer_value(ix) &&
                          nd && !strcmp(nd, c->gpus[first + i].node)))
            i++;
        if (i == n)
            continue;
        size_t ri;
        json_t *r;
        json_array_foreach(json_object_get(g, "results"), ri, r) {
            const char *b = json_string_value(json_object_get(r, "benchmark"));
            const char *m = json_string_value(json_object_get(r, "metric"));
            if (!b || !m || strcmp(b, "chase") || strcmp(m, "latency"))
                continue;
            json_t *ctx = json_object_get(r, "context");
            const char *ord = json_string_value(json_object_get(ctx, "order"));
            if (ord && strcmp(ord, "random"))
                continue;
            double fp = json_number_value(json_object_get(ctx, "footprint_bytes"));
            json_t *hj = json_object_get(r, "histogram");
            const char *data = json_string_value(json_object_get(hj, "data"));
            double scale = json_number_value(json_object_get(hj, "scale"));
            for (int k = 0; k < 3 && data; k++) {
                if (hs[i].have[k] || fp != hs[i].fp[k])
                    continue;
                uint8_t *bytes = NULL;
                size_t len = 0;
                gc_err e = { 0 };
                if (gc_base64_decode(data, &bytes, &len, &e) == 0 &&
                    gc_hist_decode(bytes, len, &hs[i].h[k], &e) == 0) {
                    hs[i].have[k] = 1;
                    hs[i].scale[k] = scale > 0 ? scale : 1;
                } else if (!why[0]) {
                    snprintf(why, whycap, "%.3000s: a histogram does not decode: %.500s", path, e.msg);
                }
                free(bytes);
            }
        }
    }
    json_decref(root);
}

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

static void hist_row(FILE *f, rp_hist3 *hs, size_t n, const char *who)
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
            double mb = rp_median(b, nb), best = INFINITY;
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
            rp_median(xs, nx);
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
                md[j] = rp_median(v, q);
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
                fprintf(f, "<g class=link><title>%s%s%d -> %s%s%d: beta %.4g GB/s</title>",
                        l->src_node, l->src_gpu >= 0 ? "/gpu" : "/host", l->src_gpu >= 0 ? l->src_gpu : 0,
                        l->dst_node, l->dst_gpu >= 0 ? "/gpu" : "/host", l->dst_gpu >= 0 ? l->dst_gpu : 0,
                        l->beta / 1e9);
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
static void xfer_plots(FILE *f, const rp_cat *c, const char *node, const char *who)
{
    size_t *idx = malloc((c->nlinks ? c->nlinks : 1) * sizeof *idx);
    char *done = calloc(c->nlinks ? c->nlinks : 1, 1);
    if (!idx || !done) {
        free(idx);
        free(done);
        return;
    }
    for (size_t i = 0; i < c->nlinks; i++) {
        if (done[i] || (node && strcmp(c->links[i].node, node)))
            continue;
        size_t m = 0;
        for (size_t j = i; j < c->nlinks; j++)
            if (!done[j] && (!node || !strcmp(c->links[j].node, node)) &&
                !strcmp(c->links[j].cls, c->links[i].cls)) {
                done[j] = 1;
                idx[m++] = j;
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
static void p2p_matrix(const rp_cat *c, const char *node, int n, double *mx)
{
    for (int i = 0; i < n * n; i++)
        mx[i] = NAN;
    for (size_t i = 0; i < c->nlinks; i++) {
        const rp_link *l = &c->links[i];
        if (strcmp(l->bench, "p2p") || strcmp(l->dir, "oneway") || l->src_gpu < 0 ||
            l->dst_gpu < 0 || l->src_gpu >= n || l->dst_gpu >= n || strcmp(l->src_node, node) ||
            strcmp(l->dst_node, node) || !isfinite(l->beta))
            continue;
        double *v = &mx[l->src_gpu * n + l->dst_gpu];
        if (!isfinite(*v) || l->beta > *v)
            *v = l->beta;
    }
}

static void heatmap(FILE *f, const double *mx, int n, const char *title)
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
    esc(f, title);
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

static int node_width(const rp_cat *c, size_t first, size_t n)
{
    int m = 0;
    for (size_t i = first; i < first + n; i++)
        m = c->gpus[i].index + 1 > m ? c->gpus[i].index + 1 : m;
    return m;
}

/* ---- the page ------------------------------------------------------------------------ */

static int worst_of_node(const rp_cat *c, const char *node)
{
    size_t n = gc_detect_count(c->det);
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(c->det, i);
        if (v->type == GC_SUBJ_NODE && !strcmp(v->node, node))
            return v->level;
    }
    return -1;
}

/* One node's drill-down; its histograms are merged into agg. */
static void node_section(FILE *f, const rp_cat *c, size_t k, rp_hist3 *agg, int *agg_ok,
                         double *tmp, int open)
{
    size_t first, n;
    rp_node_gpus(c, k, &first, &n);
    const char *node = c->node_names[k];
    char id[96];
    node_id(id, sizeof id, node);
    int worst = worst_of_node(c, node);
    fprintf(f, "<details class=node id=\"%s\" data-search=\"", id);
    esc(f, node);
    fprintf(f, " %s", vname(worst));
    for (size_t i = first; i < first + n; i++) {
        fputc(' ', f);
        esc(f, c->gpus[i].name);
    }
    fprintf(f, "\"%s><summary>", open ? " open" : "");
    esc(f, node);
    fprintf(f, ": %zu GPU%s, <span class=\"v-%s\">%s</span></summary>\n", n, n == 1 ? "" : "s",
            vname(worst), vname(worst));
    gpu_table(f, c, first, n, 0);
    fputs("<div class=plots>\n", f);
    char t[200];
    snprintf(t, sizeof t, "%s: latency against footprint%s", node,
             n == 1 ? " (median, 5..95% band)" : ", one line per GPU");
    latency_plot(f, c, first, n, t, tmp);
    rp_hist3 *hs = calloc(n ? n : 1, sizeof *hs);
    if (hs) {
        char why[5000];
        load_hists(c, k, first, n, hs, why, sizeof why);
        hist_row(f, hs, n, n == 1 ? "this GPU" : "one line per GPU");
        for (size_t i = 0; i < n; i++)
            for (int l = 0; l < 3; l++) {
                if (!hs[i].have[l] || !agg_ok[l])
                    continue;
                gc_err e = { 0 };
                if (!agg->have[l]) {
                    if (gc_hist_init(&agg->h[l], hs[i].h[l].sub_bits, &e) == 0) {
                        agg->have[l] = 1;
                        agg->scale[l] = hs[i].scale[l];
                        agg->fp[l] = hs[i].fp[l];
                    } else
                        agg_ok[l] = 0;
                }
                if (agg->have[l] && (agg->scale[l] != hs[i].scale[l] ||
                                     gc_hist_merge(&agg->h[l], &hs[i].h[l], &e)))
                    agg_ok[l] = 0;
                if (agg->have[l] && agg->fp[l] != hs[i].fp[l])
                    agg->fp[l] = NAN;   /* footprints differ between GPUs */
            }
        if (why[0]) {
            fputs("<p class=note>histograms: ", f);
            esc(f, why);
            fputs("</p>", f);
            fprintf(stderr, "gpucensus report: warning: %s\n", why);
        }
        free_h3(hs, n);
        free(hs);
    }
    int w = node_width(c, first, n);
    double *mx = w > 1 ? malloc((size_t)w * w * sizeof *mx) : NULL;
    if (mx) {
        p2p_matrix(c, node, w, mx);
        snprintf(t, sizeof t, "%s: P2P bandwidth matrix", node);
        heatmap(f, mx, w, t);
        free(mx);
    }
    xfer_plots(f, c, node, node);
    fputs("</div></details>\n", f);
}

static void aggregate_p2p(FILE *f, const rp_cat *c)
{
    int w = 0;
    for (size_t k = 0; k < c->nnodes; k++) {
        size_t first, n;
        rp_node_gpus(c, k, &first, &n);
        int x = node_width(c, first, n);
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
            p2p_matrix(c, c->node_names[k], w, all + k * ww);
        for (size_t e = 0; e < ww; e++) {
            size_t m = 0;
            for (size_t k = 0; k < c->nnodes; k++)
                if (isfinite(all[k * ww + e]))
                    v[m++] = all[k * ww + e];
            mx[e] = rp_median(v, m);
        }
        char t[160];
        if (c->nnodes == 1)
            snprintf(t, sizeof t, "%s: P2P bandwidth matrix", c->node_names[0]);
        else
            snprintf(t, sizeof t, "P2P bandwidth, median over %zu nodes (per node below)", c->nnodes);
        heatmap(f, mx, w, t);
    }
    free(all);
    free(mx);
    free(v);
}

static void page(FILE *f, const rp_cat *c, const char *nodes_html, size_t nodes_len,
                 rp_hist3 *agg, double *tmp)
{
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
          "<meta name=viewport content=\"width=device-width\"><title>gpucensus report: ", f);
    esc(f, c->plan_name);
    fprintf(f, ", %zu GPUs</title><style>%s</style></head><body>\n", c->ngpus, CSS);
    fprintf(f, "<h1>gpucensus report: %zu GPU%s on %zu node%s</h1>\n<p class=meta>", c->ngpus,
            c->ngpus == 1 ? "" : "s", c->nnodes, c->nnodes == 1 ? "" : "s");
    esc(f, c->path);
    fputs(": plan ", f);
    esc(f, c->plan_name);
    fputs(", backend ", f);
    esc(f, c->backend);
    if (!strcmp(c->backend, "sim"))
        fputs(" <b>(simulated GPUs)</b>", f);
    fputs(", ", f);
    esc(f, c->start_time);
    fputs(" .. ", f);
    esc(f, c->end_time);
    fprintf(f, ", %d ranks, %zu links; gpucensus ", c->ranks, c->nlinks);
    esc(f, c->tool_version);
    fputs(" (", f);
    esc(f, c->commit);
    fputs(")</p>\n<nav><a href=\"#cluster\">cluster</a><a href=\"#latency\">latency</a>"
          "<a href=\"#transfers\">transfers</a><a href=\"#p2p\">P2P</a><a href=\"#verdicts\">verdicts</a>"
          "<a href=\"#nodes\">nodes</a></nav>\n", f);

    fputs("<h2 id=cluster>Cluster: each GPU against its peers</h2>\n", f);
    cluster_view(f, c);
    if (c->ngpus <= 64) {
        gpu_table(f, c, 0, c->ngpus, 0);
    } else {
        size_t bad = 0;
        for (size_t i = 0; i < c->ngpus; i++)
            bad += c->gpus[i].verdict > GC_V_OK || strcmp(c->gpus[i].status, "ok");
        fprintf(f, "<h3>GPUs that are not ok: %zu of %zu</h3>\n", bad, c->ngpus);
        if (bad)
            gpu_table(f, c, 0, c->ngpus, 1);
        else
            fputs("<p class=note>Every GPU is ok; each node's table is in its section below.</p>\n", f);
    }

    fputs("<h2 id=latency>Memory latency</h2>\n<div class=plots>\n", f);
    char t[200];
    snprintf(t, sizeof t, "Latency against footprint: %s",
             c->ngpus == 1 ? "median, 5..95% band"
             : c->ngpus <= 16 ? "one line per GPU"
                              : "median over GPUs, 5..95% band across GPUs");
    latency_plot(f, c, 0, c->ngpus, t, tmp);
    hist_row(f, agg, 1, c->ngpus == 1 ? "this GPU" : "all GPUs merged");
    fputs("</div>\n<p class=note>Random-order pointer chase; dashed lines: the L1, L2 and DRAM "
          "plateaus (parameters l1/l2/dram_latency_cycles, median over GPUs). Histograms: every "
          "sample of the point at the smallest footprint, the one nearest the L2 plateau and the "
          "largest.</p>\n", f);

    fputs("<h2 id=transfers>Transfers: time against size, fitted model over the points</h2>\n"
          "<div class=plots>\n", f);
    xfer_plots(f, c, NULL, "all nodes");
    fputs("</div>\n<p class=note>Points: median time per size (several links: the median over "
          "them, band from the fastest to the slowest); dashed red: the fitted model t = alpha + "
          "n/beta, segment by segment (several links: the link of median beta).</p>\n", f);

    fputs("<h2 id=p2p>P2P bandwidth matrix</h2>\n<div class=plots>\n", f);
    aggregate_p2p(f, c);
    fputs("</div>\n", f);

    fputs("<h2 id=verdicts>Verdicts</h2>\n", f);
    verdict_table(f, c);

    fputs("<h2 id=nodes>Nodes</h2>\n<p><input id=filter placeholder=\"filter nodes "
          "(name, verdict, SKU)\"> <button onclick=\"setAll(true)\">open all</button> "
          "<button onclick=\"setAll(false)\">close all</button></p>\n", f);
    fwrite(nodes_html, 1, nodes_len, f);
    fprintf(f, "<script>%s</script>\n</body></html>\n", JS);
}

int rp_html(const rp_cat *c, const char *out, gc_err *err)
{
    char *nodes_html = NULL;
    size_t nodes_len = 0;
    FILE *nf = open_memstream(&nodes_html, &nodes_len);
    double *tmp = malloc((c->ngpus + 16) * sizeof *tmp);
    if (!nf || !tmp) {
        if (nf)
            fclose(nf);
        free(nodes_html);
        free(tmp);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    rp_hist3 agg;
    memset(&agg, 0, sizeof agg);
    int agg_ok[3] = { 1, 1, 1 };
    for (size_t k = 0; k < c->nnodes; k++)
        node_section(nf, c, k, &agg, agg_ok, tmp, c->nnodes == 1);
    fclose(nf);
    for (int l = 0; l < 3; l++)
        if (agg.have[l] && !agg_ok[l]) {
            gc_hist_free(&agg.h[l]);
            agg.have[l] = 0;
        }
    char tmpname[4300];
    snprintf(tmpname, sizeof tmpname, "%s.tmp.%ld", out, (long)getpid());
    FILE *f = fopen(tmpname, "w");
    int rc = 0;
    if (!f)
        rc = gc_fail(err, GC_EIO, "%s: cannot create", tmpname);
    else {
        page(f, c, nodes_html, nodes_len, &agg, tmp);
        int bad = ferror(f);
        if (fclose(f) || bad)
            rc = gc_fail(err, GC_EIO, "%s: write error", tmpname);
        else if (rename(tmpname, out))
            rc = gc_fail(err, GC_EIO, "%s: cannot rename to %s", tmpname, out);
        if (rc)
            unlink(tmpname);
    }
    free_h3(&agg, 1);
    free(nodes_html);
    free(tmp);
    return rc;
}

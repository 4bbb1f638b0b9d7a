/* The HTML report: one self-contained page (inline CSS and SVG, a few
 * lines of vanilla JS), readable for one GPU and for 16,384:
 *   - the fleet first: the verdict counts and every subject not ok with
 *     its reasons; each GPU against its SKU's peers per metric (a point
 *     per GPU in a small census, else each SKU's distribution as bars with
 *     the outliers and the GPUs not ok as points; report_xfer.c) and the
 *     GPUs that are not ok; every GPU in the explorer (report_gx.c: data
 *     in the page, a table a page at a time, a GPU opened on demand);
 *     latency against footprint (median over GPUs and the band across
 *     them) with the L1/L2/DRAM plateaus; the latency histograms at the
 *     L1, L2 and DRAM footprints (merged); transfer time against size per
 *     link class with the fitted model over the points; the P2P matrix;
 *   - then one closed <details> per node drawn (the drill-down): its
 *     table, its GPUs' latency curves and histograms, its links, its P2P
 *     matrix. A small census draws every node; a large one the nodes with
 *     something not ok (worst first), a sample and those asked for
 *     (report_int.h: RP_FULL_NODES), and the fleet's curves and
 *     histograms come from those.
 * The points come from the node files (report_nodes.c). The page is
 * written to a temporary name and renamed.
 *
 * This file: the page itself (skeleton, CSS, JS), the GPU and verdict
 * tables, each node's section; the plots it calls are in report_lat.c
 * (latency, histograms), report_xfer.c (cluster strips, transfers, P2P
 * matrices), report_gx.c (the explorer) and report_hist.c (the history
 * view). It is the top of the page: those files read only the model
 * (report_data.c) and never call back up here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census/hist.h"
#include "report/report_int.h"
#include "util/fsutil.h"
#include "util/quote.h"
#include "util/strtab.h"
#include "util/svg.h"

/* Subjects not ok drawn as rows; the rest (links, mostly, in a large
 * census) go into the page as data, shown a page at a time by its script. */
#define MAX_VERDICT_ROWS 300
#define MORE_VERDICTS_PER_PAGE 100
/* Reasons of each of those in the page: the worst, the rest counted by rule
 * with the command that lists them (a census of 131,072 GPUs has ~40,000
 * subjects past the rows; their every reason would be ~30 MB of page). A
 * GPU's first reasons are in the explorer too. */
#define MORE_REASONS_SHOWN 1
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
    ".note{color:#666;font-size:12px}.reasons{text-align:left;font-size:12px}.reasons summary{cursor:pointer;color:#555}.rmore{white-space:pre-line}"
    "#filter,#gx-q{margin:6px 0;padding:3px 6px}#gx-q{width:24em}"
    ".gxwrap{height:60vh;overflow:auto;contain:strict;border:1px solid #e4e4e4}"
    "tr.gx{cursor:pointer}tr.gx:hover{background:#eef4fb}#gx-detail{margin:8px 0 16px}"
    "ul.reasons{font-size:12px;margin:4px 0}";

static const char JS[] =
    "function openHash(){var h=location.hash.slice(1);if(!h)return;var e=document.getElementById(h);"
    "if(e&&e.tagName==='DETAILS'){e.open=true;e.scrollIntoView();}}"
    "window.addEventListener('hashchange',openHash);openHash();"
    "var f=document.getElementById('filter');if(f)f.addEventListener('input',function(){"
    "var q=f.value.toLowerCase();document.querySelectorAll('details.node').forEach(function(d){"
    "d.style.display=d.dataset.search.toLowerCase().indexOf(q)>=0?'':'none';});});"
    "function setAll(o){document.querySelectorAll('details.node').forEach(function(d){"
    "if(d.style.display!=='none')d.open=o;});}";

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
        rh_node_id(id, sizeof id, g->node);
        fprintf(f, "<tr class=gpu><td class=l><a href=\"#%s\">", id);
        gc_html_esc(f, g->node);
        fprintf(f, "</a>/gpu%d</td><td class=l>", g->index);
        gc_html_esc(f, g->name);
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
        fprintf(f, "<td class=\"l v-%s\">%s", rh_vname(g->verdict), rh_vname(g->verdict));
        if (strcmp(g->status, "ok")) {
            /* not measured in full: the status (where the verdict does not say it) and why */
            if (strcmp(g->status, rh_vname(g->verdict))) {
                fputs(" (", f);
                gc_html_esc(f, g->status);
                fputs(")", f);
            }
            fputs("<br><span class=note>", f);
            gc_html_esc(f, g->status_reason);
            fputs("</span>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Reasons shown per subject: a GPU off on every point has one per point
 * (650 on the default plan); past this many, the rest are counted by rule. */
#define REASONS_SHOWN 40

/* "and N more (peers 300, distribution 312): gpucensus check CAT --json" */
static void reasons_tail(char *out, size_t cap, const gc_verdict *v, const char *cat, size_t from)
{
    const char *rule[8];
    size_t cnt[8], nr = 0;
    for (size_t k = from; k < v->nreasons; k++) {
        size_t j = 0;
        while (j < nr && strcmp(rule[j], v->reasons[k].rule))
            j++;
        if (j == nr && nr < 8)
            rule[nr] = v->reasons[k].rule, cnt[nr++] = 0;
        if (j < nr)
            cnt[j]++;
    }
    size_t n = (size_t)snprintf(out, cap, "and %zu more (", v->nreasons - from);
    for (size_t j = 0; j < nr && n < cap; j++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s %zu", j ? ", " : "", rule[j], cnt[j]);
    if (n < cap)
        snprintf(out + n, cap - n, "): all in gpucensus check %s --json", cat);
}

/* The subjects past MAX_VERDICT_ROWS, a page at a time (text only, as
 * textContent). */
#define STR2(x) #x
#define STR(x) STR2(x)
static const char MORE_JS[] =
    "(function(){var M=JSON.parse(document.getElementById('vmore-data').textContent),D=M.rows,"
    "V=['ok','suspect','degraded','failed'],per=" STR(MORE_VERDICTS_PER_PAGE) ",page=0,"
    "body=document.getElementById('vm-body');"
    "function el(t,x,c,p){var e=document.createElement(t);if(x!==null)e.textContent=x;if(c)e.className=c;"
    "p.appendChild(e);return e;}"
    "function render(){var pages=Math.ceil(D.length/per);page=Math.max(0,Math.min(page,pages-1));"
    "body.textContent='';for(var i=page*per;i<Math.min(D.length,(page+1)*per);i++){var v=D[i],"
    "tr=el('tr',null,'vmore',body);el('td',V[v[0]],'l v-'+V[v[0]],tr);"
    "el('td',typeof v[1]==='string'?v[1]:M.strs[v[1][0]]+': '+v[1][1],'l',tr);"
    "el('td',M.strs[v[2]],'l',tr);el('td',String(v[3]),null,tr);var td=el('td',null,'reasons',tr);"
    "if(v[4].length)el('span',v[4][0],null,td);"
    /* past the worst reason: how many more, by rule, and the command */
    "if(v[4].length>1){el('br',null,null,td);el('span',v[4].slice(1).join(' '),'note',td);}"
    "if(v[5]>=0){el('br',null,null,td);el('span',M.strs[v[5]],'note',td);}}"
    "document.getElementById('vm-n').textContent=D.length+' subjects, page '+(page+1)+' of '+pages;}"
    "document.getElementById('vm-prev').addEventListener('click',function(){page--;render();});"
    "document.getElementById('vm-next').addEventListener('click',function(){page++;render();});"
    "render();})();";

static int cmp_verdict(const void *a, const void *b)
{
    const gc_verdict *x = *(const gc_verdict *const *)a, *y = *(const gc_verdict *const *)b;
    if (x->level != y->level)
        return y->level - x->level;
    /* GPUs, then nodes, then links (the many) */
    static const int order[3] = { 0, 2, 1 };
    return order[x->type] - order[y->type];
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
    fprintf(f, "</table>\n<p class=note>Verdicts as <code>gpucensus check</code> gives them for this "
               "catalogue (%s, no baseline): each subject against its peers of the same SKU "
               "and topology, and physical limits.</p>\n",
            c->as_written ? "the run's, as the catalogue holds them" : "default rules");
    int all = n <= ALL_VERDICTS_MAX;
    size_t rows = 0, hidden = 0, max_rows = MAX_VERDICT_ROWS;
    /* GC_REPORT_VERDICT_ROWS: fewer rows, so that a test's small census
     * has the layout of a large one (subjects past the rows as data) */
    const char *mr = getenv("GC_REPORT_VERDICT_ROWS");
    if (mr && atoi(mr) >= 0 && atoi(mr) < MAX_VERDICT_ROWS)
        max_rows = (size_t)atoi(mr);
    char *more_buf = NULL;
    size_t more_len = 0;
    FILE *more = open_memstream(&more_buf, &more_len);   /* the rows past MAX_VERDICT_ROWS */
    gc_strtab groups = { 0 };   /* their peer groups, notes and link classes, once each */
    fputs("<table class=verdicts><tr><th class=l>verdict</th><th class=l>subject</th>"
          "<th class=l>peer group</th><th>peers</th><th class=l>reasons</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = vs[i];
        if (!all && v->level == GC_V_OK)
            continue;
        if (rows >= max_rows) {
            if (!more) {   /* out of memory: counted, not shown */
                hidden++;
                continue;
            }
            FILE *rows_f = f;   /* the table's */
            f = more;
            if (!hidden++)
                fputs("<script type=\"application/json\" id=vmore-data>{\"rows\":[", f);
            /* [level, subject (a link's [its class in "strs", its ends]),
             * peer group (in "strs"), peers, [worst reason, the rest
             * counted], note (in "strs"; -1: none)]: peer groups, notes
             * and link classes repeat over thousands of subjects */
            fprintf(f, "%s\n[%d,", hidden > 1 ? "," : "", v->level);
            /* a link's subject is "CLASS: ENDS": the class once in "strs" */
            const char *colon = v->type == GC_SUBJ_LINK ? strstr(v->subject, ": ") : NULL;
            if (colon) {
                char cls[300];
                snprintf(cls, sizeof cls, "%.*s", (int)(colon - v->subject), v->subject);
                fprintf(f, "[%ld,", gc_strtab_id(&groups, cls, 1));
                rh_json_str(f, colon + 2);
                fputc(']', f);
            } else {
                rh_json_str(f, v->subject);
            }
            long gi = gc_strtab_id(&groups, v->group, 1);
            fprintf(f, ",%ld,%d,[", gi, v->peers);
            for (size_t k = 0; k < v->nreasons && k <= MORE_REASONS_SHOWN; k++) {
                if (k == MORE_REASONS_SHOWN) {
                    char t[1200];
                    reasons_tail(t, sizeof t, v, c->path, MORE_REASONS_SHOWN);
                    fputc(',', f);
                    rh_json_str(f, t);
                    break;
                }
                const gc_reason *r = &v->reasons[k];
                char t[1400];
                snprintf(t, sizeof t, "%s %s: %s: %s", rh_vname(r->severity), r->rule, r->metric,
                         r->detail);
                fputs(k ? "," : "", f);
                rh_json_str(f, t);
            }
            fprintf(f, "],%ld", v->note[0] ? gc_strtab_id(&groups, v->note, 1) : -1L);
            fputc(']', f);
            f = rows_f;
            continue;
        }
        rows++;
        fprintf(f, "<tr class=verdict data-level=%s><td class=\"l v-%s\">%s</td><td class=l>",
                rh_vname(v->level), rh_vname(v->level), rh_vname(v->level));
        if (v->type != GC_SUBJ_LINK) {
            char id[96];
            rh_node_id(id, sizeof id, v->node);
            fprintf(f, "<a href=\"#%s\">", id);
            gc_html_esc(f, v->subject);
            fputs("</a>", f);
        } else
            gc_html_esc(f, v->subject);
        fputs("</td><td class=l>", f);
        gc_html_esc(f, v->group);
        fprintf(f, "</td><td>%d</td><td class=reasons>", v->peers);
        /* every reason, worst first; past the first, folded, as one text
         * (a GPU can have hundreds: one element, not three a reason) */
        for (size_t k = 0; k < v->nreasons; k++) {
            const gc_reason *r = &v->reasons[k];
            if (k == REASONS_SHOWN) {
                char t[1200];
                reasons_tail(t, sizeof t, v, c->path, REASONS_SHOWN);
                fputc('\n', f);
                gc_html_esc(f, t);
                break;
            }
            if (k == 1)
                fprintf(f, "<details><summary>%zu more reason%s</summary><div class=rmore>",
                        v->nreasons - 1, v->nreasons == 2 ? "" : "s");
            if (k == 0)
                fprintf(f, "<span class=v-%s>%s</span> ", rh_vname(r->severity), rh_vname(r->severity));
            else
                fprintf(f, "%s%s ", k > 1 ? "\n" : "", rh_vname(r->severity));
            gc_html_esc(f, r->rule);
            fputs(": ", f);
            gc_html_esc(f, r->metric);
            fputs(": ", f);
            gc_html_esc(f, r->detail);
        }
        if (v->nreasons > 1)
            fputs("</div></details>", f);
        if (v->note[0]) {
            fputs("<br><span class=note>", f);
            gc_html_esc(f, v->note);
            fputs("</span>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (!all)
        fprintf(f, "<p class=note>%zu subjects are ok and not listed.</p>\n",
                counts[0][0] + counts[1][0] + counts[2][0]);
    if (more)
        fclose(more);
    if (hidden && more) {
        fwrite(more_buf, 1, more_len, f);
        fputs("],\n\"strs\":[", f);
        for (size_t k = 0; k < groups.n; k++) {
            fputs(k ? "," : "", f);
            rh_json_str(f, groups.s[k]);
        }
        fprintf(f, "]}</script>\n<h3>%zu more subjects that are not ok</h3><p>"
                   "<button id=vm-prev>&lt; previous</button> <button id=vm-next>next &gt;</button> "
                   "<span id=vm-n class=note></span></p><div class=gxwrap><table class=verdicts>"
                   "<thead><tr><th class=l>verdict</th><th class=l>subject</th><th class=l>peer group"
                   "</th><th>peers</th><th class=l>reasons</th></tr></thead><tbody id=vm-body>"
                   "</tbody></table></div>\n<script>%s</script>\n", hidden, MORE_JS);
    }
    else if (hidden) {
        fprintf(f, "<p class=note>%zu more subjects not ok: <code>gpucensus check ", hidden);
        gc_html_esc(f, c->path);
        fputs("</code>.</p>\n", f);
    }
    free(more_buf);
    gc_strtab_free(&groups);
    free(vs);
}

/* ---- the page ------------------------------------------------------------------------ */

/* One node's drill-down; its histograms are merged into agg. */
/* The catalogue's figures that follow another convention than the peer
 * tools or sit under the best peer, and why (src/analyze/peer_notes.c). */
static void peer_notes(FILE *f, const rp_cat *c)
{
    if (!c->peer_notes || !json_object_size(c->peer_notes))
        return;
    fputs("<h2 id=peers>Beside the peer tools (nvbandwidth, gpu-benches)</h2>\n<table>\n<tr><th>figure"
          "<th>what it measures<th>the peer's quantity<th>why, and the measurement<th>shown by</tr>\n", f);
    const char *fig;
    json_t *n;
    static const char *const cols[] = { "measures", "peer", "why", "shown_by" };
    json_object_foreach(c->peer_notes, fig, n) {
        fputs("<tr><td><code>", f);
        gc_html_esc(f, fig);
        fputs("</code>", f);
        for (int k = 0; k < 4; k++) {
            fputs(k == 3 ? "<td><code>" : "<td>", f);
            const char *v = json_string_value(json_object_get(n, cols[k]));
            gc_html_esc(f, v ? v : "");
            if (k == 3)
                fputs("</code>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void node_section(FILE *f, const rp_cat *c, size_t k, rp_hist3 *agg, int *agg_ok,
                         double *tmp, int open)
{
    size_t first, n;
    rp_node_gpus(c, k, &first, &n);
    const char *node = c->node_names[k];
    char id[96];
    rh_node_id(id, sizeof id, node);
    int worst = c->node_level[k];
    fprintf(f, "<details class=node id=\"%s\" data-search=\"", id);
    gc_html_esc(f, node);
    fprintf(f, " %s", rh_vname(worst));
    for (size_t i = first; i < first + n; i++) {
        fputc(' ', f);
        gc_html_esc(f, c->gpus[i].name);
    }
    fprintf(f, "\"%s><summary>", open ? " open" : "");
    gc_html_esc(f, node);
    fprintf(f, ": %zu GPU%s, <span class=\"v-%s\">%s</span>", n, n == 1 ? "" : "s",
            rh_vname(worst), rh_vname(worst));
    if (!c->full)
        fprintf(f, " <span class=note>(%s)</span>",
                c->node_read[k] == RP_READ_FLAGGED ? "something on it is not ok"
                : c->node_read[k] == RP_READ_ASKED ? "asked for with --node"
                                                   : "sampled: a typical node");
    fputs("</summary>\n", f);
    gpu_table(f, c, first, n, 0);
    fputs("<div class=plots>\n", f);
    char t[200];
    snprintf(t, sizeof t, "%s: latency against footprint%s", node,
             n == 1 ? " (median, 5..95% band)" : ", one line per GPU");
    rh_latency_plot(f, c, first, n, t, tmp);
    rp_hist3 *hs = calloc(n ? n : 1, sizeof *hs);
    if (hs) {
        /* the node's GPUs' histograms (borrowed: freed with the catalogue) */
        for (size_t i = 0; i < n; i++)
            if (c->gpus[first + i].h3)
                hs[i] = *c->gpus[first + i].h3;
        rh_hist_row(f, hs, n, n == 1 ? "this GPU" : "one line per GPU");
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
        free(hs);
    }
    if (c->node_why[k][0]) {
        fputs("<p class=note>histograms: ", f);
        gc_html_esc(f, c->node_why[k]);
        fputs("</p>", f);
    }
    int w = rh_node_width(c, first, n);
    double *mx = w > 1 ? malloc((size_t)w * w * sizeof *mx) : NULL;
    if (mx) {
        rh_p2p_matrix(c, k, w, mx);
        snprintf(t, sizeof t, "%s: P2P bandwidth matrix", node);
        rh_heatmap(f, mx, w, t);
        free(mx);
    }
    rh_xfer_plots(f, c, k, node);
    fputs("</div></details>\n", f);
}

static void page(FILE *f, const rp_cat *c, const char *nodes_html, size_t nodes_len,
                 const char *hist_html, size_t hist_len, rp_hist3 *agg, double *tmp)
{
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
          "<meta name=viewport content=\"width=device-width\"><title>gpucensus report: ", f);
    gc_html_esc(f, c->plan_name);
    fprintf(f, ", %zu GPUs</title><style>%s</style></head><body>\n", c->ngpus, CSS);
    fprintf(f, "<h1>gpucensus report: %zu GPU%s on %zu node%s</h1>\n<p class=meta>", c->ngpus,
            c->ngpus == 1 ? "" : "s", c->nnodes, c->nnodes == 1 ? "" : "s");
    gc_html_esc(f, c->path);
    fputs(": plan ", f);
    gc_html_esc(f, c->plan_name);
    fputs(", backend ", f);
    gc_html_esc(f, c->backend);
    if (!strcmp(c->backend, "sim"))
        fputs(" <b>(simulated GPUs)</b>", f);
    fputs(", ", f);
    gc_html_esc(f, c->start_time);
    fputs(" .. ", f);
    gc_html_esc(f, c->end_time);
    fprintf(f, ", %d ranks, %zu links; gpucensus ", c->ranks, c->nlinks);
    gc_html_esc(f, c->tool_version);
    fputs(" (", f);
    gc_html_esc(f, c->commit);
    fprintf(f, ")</p>\n<nav><a href=\"#verdicts\">verdicts</a><a href=\"#cluster\">cluster</a>"
               "<a href=\"#gpus\">every GPU</a><a href=\"#latency\">latency</a>"
               "<a href=\"#transfers\">transfers</a><a href=\"#p2p\">P2P</a>"
               "%s<a href=\"#nodes\">nodes</a></nav>\n", hist_len ? "<a href=\"#history\">history</a>" : "");
    size_t sampled = 0;
    for (size_t k = 0; k < c->nnodes; k++)
        sampled += c->node_read[k] == RP_READ_SAMPLE;
    if (!c->full)
        fprintf(f, "<p class=note>A census of %zu nodes: the page draws in full the nodes with "
                   "something not ok (%zu of %zu, worst first; at most %d), %zu other nodes as "
                   "a sample of the fleet and those asked for with <code>--node</code>: %zu "
                   "nodes, whose node files give the latency curves, histograms and transfer "
                   "tables below. Every GPU is in <a href=\"#gpus\">the explorer</a>.</p>\n",
                c->nnodes, c->nflagged - c->nflag_unread, c->nflagged, RP_FLAGGED_MAX,
                sampled, c->nread);

    /* fleet first: the verdicts, then each GPU against its SKU's peers */
    fputs("<h2 id=verdicts>Verdicts</h2>\n", f);
    verdict_table(f, c);
    rp_phase("verdict table");

    fputs("<h2 id=cluster>Cluster: each GPU against its peers</h2>\n", f);
    rh_cluster_view(f, c);
    rp_phase("cluster view");
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
            fputs("<p class=note>Every GPU is ok.</p>\n", f);
    }

    fputs("<h2 id=gpus>Every GPU</h2>\n", f);
    rh_explorer(f, c);
    rp_phase("explorer");

    size_t drawn = 0;
    for (size_t i = 0; i < c->ngpus; i++)
        drawn += c->gpus[i].nchase > 0;
    fputs("<h2 id=latency>Memory latency</h2>\n<div class=plots>\n", f);
    char t[200];
    if (drawn == c->ngpus || !drawn)
        snprintf(t, sizeof t, "Latency against footprint: %s",
                 c->ngpus == 1 ? "median, 5..95% band"
                 : c->ngpus <= 16 ? "one line per GPU"
                                  : "median over GPUs, 5..95% band across GPUs");
    else
        snprintf(t, sizeof t, "Latency against footprint: median over the %zu GPUs of the nodes "
                 "drawn, 5..95%% band across them", drawn);
    rh_latency_plot(f, c, 0, c->ngpus, t, tmp);
    rh_hist_row(f, agg, 1, c->ngpus == 1 ? "this GPU" : c->full ? "all GPUs merged"
                                                                : "the nodes drawn, merged");
    fputs("</div>\n<p class=note>Random-order pointer chase; dashed lines: the L1, L2 and DRAM "
          "plateaus (parameters l1/l2/dram_latency_cycles, median over GPUs). Histograms: every "
          "sample of the point at the smallest footprint, the one nearest the L2 plateau and the "
          "largest.</p>\n", f);
    rp_phase("latency");

    fputs("<h2 id=transfers>Transfers: time against size, fitted model over the points</h2>\n"
          "<div class=plots>\n", f);
    rh_xfer_plots(f, c, RP_ALL, c->full ? "all nodes" : "the nodes drawn below");
    fputs("</div>\n<p class=note>Points: median time per size (several links: the median over "
          "them, band from the fastest to the slowest); dashed red: the fitted model t = alpha + "
          "n/beta, segment by segment (several links: the link of median beta).</p>\n", f);
    rp_phase("transfers");

    fputs("<h2 id=p2p>P2P bandwidth matrix</h2>\n<div class=plots>\n", f);
    rh_aggregate_p2p(f, c);
    fputs("</div>\n", f);
    rp_phase("p2p");

    peer_notes(f, c);
    if (hist_len)
        fwrite(hist_html, 1, hist_len, f);

    fputs("<h2 id=nodes>Nodes</h2>\n<p><input id=filter placeholder=\"filter nodes "
          "(name, verdict, SKU)\"> <button onclick=\"setAll(true)\">open all</button> "
          "<button onclick=\"setAll(false)\">close all</button></p>\n", f);
    if (!c->full)
        fprintf(f, "<p class=note>%zu of %zu nodes drawn: those with something not ok first "
                   "(worst first), then the sample. <code>gpucensus report ", c->nread, c->nnodes);
    if (!c->full) {
        gc_html_esc(f, c->path);
        fputs(" -o PAGE --node NAME</code> draws a node of your choice.</p>\n", f);
    }
    fwrite(nodes_html, 1, nodes_len, f);
    fprintf(f, "<script>%s</script>\n</body></html>\n", JS);
}

int rp_html(const rp_cat *c, const char *out, const char *history_db, gc_err *err)
{
    char *nodes_html = NULL, *hist_html = NULL;
    size_t nodes_len = 0, hist_len = 0;
    if (history_db) {
        FILE *hf = open_memstream(&hist_html, &hist_len);
        if (!hf)
            return gc_fail(err, GC_ENOMEM, "out of memory");
        int rc = rh_history_view(hf, c, history_db, err);
        fclose(hf);
        if (rc) {
            free(hist_html);
            return rc;
        }
    }
    FILE *nf = open_memstream(&nodes_html, &nodes_len);
    double *tmp = malloc((c->ngpus + 16) * sizeof *tmp);
    if (!nf || !tmp) {
        if (nf)
            fclose(nf);
        free(nodes_html);
        free(hist_html);
        free(tmp);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    rp_hist3 agg;
    memset(&agg, 0, sizeof agg);
    int agg_ok[3] = { 1, 1, 1 };
    /* a large census: the nodes with something not ok first (worst first), then the rest */
    for (int pass = c->full ? 1 : 0; pass < 2; pass++)
        for (size_t j = 0; j < c->nnodes; j++) {
            size_t k = c->full ? j : c->worst_order[j];
            int flagged = c->node_read[k] == RP_READ_FLAGGED || c->node_read[k] == RP_READ_ASKED;
            if (c->full || (c->node_read[k] && flagged == !pass))
                node_section(nf, c, k, &agg, agg_ok, tmp, c->nnodes == 1);
        }
    fclose(nf);
    rp_phase("node sections");
    for (int l = 0; l < 3; l++)
        if (agg.have[l] && !agg_ok[l]) {
            gc_hist_free(&agg.h[l]);
            agg.have[l] = 0;
        }
    /* a temporary by mkstemp beside the target, renamed over it; a
     * symlink, FIFO or device at the target is refused (fsutil.h) */
    gc_afile a;
    int rc = gc_afile_open(&a, out, err);
    if (!rc) {
        page(a.f, c, nodes_html, nodes_len, hist_html, hist_len, &agg, tmp);
        if (ferror(a.f)) {
            gc_afile_abort(&a);
            rc = gc_fail(err, GC_EIO, "%s: write error", out);
        } else {
            rc = gc_afile_commit(&a, err);
        }
    }
    rp_free_h3(&agg, 1);
    free(nodes_html);
    free(hist_html);
    free(tmp);
    return rc;
}

/* Reading a catalogue for the report. See report_int.h.
 *
 * The file is first read by catread.c into a detector, exactly as
 * `gpucensus check` does: that validates it (FILE:LINE errors for
 * malformed JSON or members the schema requires) and gives the verdicts.
 * Strings are kept with their control characters shown as \xNN (quote.h):
 * they reach the terminal table as well as the page.
 * Then it is walked once more, one GPU and one link at a time
 * (gc_catread_each: 2.x objects, a schema-3 catalogue expanded), keeping
 * only what the table and the plots draw. */
#include "report_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catread.h"
#include "catread_points.h"
#include "fsutil.h"
#include "quote.h"

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static int cmp_pt(const void *a, const void *b)
{
    double x = ((const rp_pt *)a)->x, y = ((const rp_pt *)b)->x;
    return x < y ? -1 : x > y;
}

/* A node file that cannot give what is asked: said once per node, and
 * the report goes on without it. */
static void node_missing(rp_cat *c, const char *node, const gc_err *e)
{
    if (!strcmp(c->missing, node))
        return;
    snprintf(c->missing, sizeof c->missing, "%s", node);
    if (!c->nmissing++)   /* the first in full, the others counted (rp_load) */
        fprintf(stderr, "gpucensus report: %s; node %s drawn without its points\n", e->msg, node);
}

/* A GPU's points: inline (schema 1) or from its node file (schema 2). */
static json_t *gpu_points(rp_cat *c, json_t *o)
{
    json_t *res = json_object_get(o, "results");
    json_t *np = json_object_get(o, "points");
    if (res || !c->pts || !json_is_integer(np) || json_integer_value(np) <= 0)
        return res;
    gc_err e = { 0 };
    const char *node = str(o, "node");
    json_t *ix = json_object_get(o, "index");
    res = json_is_integer(ix) ? gc_catpoints_gpu(c->pts, node, (int)json_integer_value(ix), &e) : NULL;
    if (!res && e.msg[0])
        node_missing(c, node, &e);
    return res;
}

/* The same link in its node file (schema 2): its class, ends and GPU. */
static int same_member(json_t *a, json_t *b, const char *k)
{
    return json_equal(json_object_get(a, k), json_object_get(b, k));
}

static int same_link(json_t *a, json_t *b)
{
    static const char *const k[] = { "kind", "benchmark", "direction", "memory", "engine",
                                      "peer_access", "concurrent", NULL };
    for (int i = 0; k[i]; i++)
        if (!same_member(a, b, k[i]))
            return 0;
    static const char *const e[] = { "type", "node", "gpu_index", NULL };
    static const char *const ends[] = { "src", "dst", "measured_on", NULL };
    for (int j = 0; ends[j]; j++)
        for (int i = 0; e[i]; i++)
            if ((strcmp(ends[j], "measured_on") || strcmp(e[i], "type")) &&
                !same_member(json_object_get(a, ends[j]), json_object_get(b, ends[j]), e[i]))
                return 0;
    return 1;
}

static json_t *link_sizes(rp_cat *c, json_t *o)
{
    json_t *sz = json_object_get(o, "sizes");
    if (sz || !c->pts)
        return sz;
    gc_err e = { 0 };
    const char *node = str(json_object_get(o, "measured_on"), "node");
    json_t *ls = gc_catpoints_links(c->pts, node, &e);
    if (!ls) {
        node_missing(c, node, &e);
        return NULL;
    }
    size_t i;
    json_t *x;
    json_array_foreach(ls, i, x)
        if (same_link(o, x))
            return json_object_get(x, "sizes");
    return NULL;
}

static int add_gpu(rp_cat *c, json_t *o, size_t *cap)
{
    if (c->ngpus == *cap) {
        size_t n = *cap ? *cap * 2 : 16;
        rp_gpu *g = realloc(c->gpus, n * sizeof *g);
        if (!g)
            return -1;
        c->gpus = g;
        *cap = n;
    }
    rp_gpu *g = &c->gpus[c->ngpus];
    memset(g, 0, sizeof *g);
    gc_term_esc(str(o, "node"), g->node, sizeof g->node);
    g->index = (int)num(o, "index");
    gc_term_esc(str(o, "status"), g->status, sizeof g->status);
    gc_term_esc(str(o, "status_reason"), g->status_reason, sizeof g->status_reason);
    json_t *id = json_object_get(o, "identity");
    gc_term_esc(str(id, "name"), g->name, sizeof g->name);
    gc_term_esc(str(id, "uuid"), g->uuid, sizeof g->uuid);
    g->l1 = g->l2 = g->dram = g->hbm_bps = g->hbm_theo = g->hbm_ratio = g->l2_bw = g->launch_ns = NAN;
    g->h2d_bps = g->h2d_alpha = g->d2h_bps = g->d2h_alpha = g->p2p_bps = NAN;
    g->verdict = -1;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(o, "parameters"), i, p) {
        const char *n = str(p, "name");
        double v = num(p, "value");
        static const struct { const char *name; size_t off; } map[] = {
            { "l1_latency_cycles", offsetof(rp_gpu, l1) },
            { "l2_latency_cycles", offsetof(rp_gpu, l2) },
            { "dram_latency_cycles", offsetof(rp_gpu, dram) },
            { "hbm_bw_bps", offsetof(rp_gpu, hbm_bps) },
            { "hbm_theoretical_bps", offsetof(rp_gpu, hbm_theo) },
            { "hbm_achieved_ratio", offsetof(rp_gpu, hbm_ratio) },
            { "l2_bw_bps", offsetof(rp_gpu, l2_bw) },
            { "launch_ns", offsetof(rp_gpu, launch_ns) },
        };
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
            if (!strcmp(n, map[k].name))
                *(double *)((char *)g + map[k].off) = v;
    }
    json_t *r, *res = gpu_points(c, o);
    size_t n = json_array_size(res);
    g->chase = n ? malloc(n * sizeof *g->chase) : NULL;
    json_array_foreach(res, i, r) {
        json_t *ctx = json_object_get(r, "context"), *s = json_object_get(r, "summary");
        if (strcmp(str(r, "benchmark"), "chase") || strcmp(str(r, "metric"), "latency") ||
            strcmp(str(r, "status"), "ok") || !s)
            continue;
        const char *ord = str(ctx, "order");
        if (*ord && strcmp(ord, "random"))
            continue;
        rp_pt pt = { num(ctx, "footprint_bytes"), num(s, "p5"), num(s, "p50"), num(s, "p95") };
        if (isfinite(pt.x) && isfinite(pt.p50))
            g->chase[g->nchase++] = pt;
    }
    if (g->nchase)
        qsort(g->chase, g->nchase, sizeof *g->chase, cmp_pt);
    c->ngpus++;
    return 0;
}

static void end_of(json_t *e, char *node, int *gpu)
{
    gc_term_esc(str(e, "node"), node, GC_NODE_MAX);
    json_t *t = json_object_get(e, "type"), *ix = json_object_get(e, "gpu_index");
    *gpu = json_is_string(t) && !strcmp(json_string_value(t), "gpu") && json_is_integer(ix)
               ? (int)json_integer_value(ix) : -1;
}

static int add_link(rp_cat *c, json_t *o, size_t *cap)
{
    if (c->nlinks == *cap) {
        size_t n = *cap ? *cap * 2 : 16;
        rp_link *l = realloc(c->links, n * sizeof *l);
        if (!l)
            return -1;
        c->links = l;
        *cap = n;
    }
    rp_link *l = &c->links[c->nlinks];
    memset(l, 0, sizeof *l);
    gc_term_esc(str(o, "kind"), l->kind, sizeof l->kind);
    gc_term_esc(str(o, "benchmark"), l->bench, sizeof l->bench);
    gc_term_esc(str(o, "direction"), l->dir, sizeof l->dir);
    gc_term_esc(str(o, "memory"), l->mem, sizeof l->mem);
    gc_term_esc(str(o, "engine"), l->engine, sizeof l->engine);
    gc_term_esc(str(o, "peer_access"), l->peer, sizeof l->peer);
    l->concurrent = json_is_true(json_object_get(o, "concurrent"));
    snprintf(l->cls, sizeof l->cls, "%s %s %s %s%s%s%s%s%s", l->kind, l->bench, l->dir, l->mem,
             *l->engine ? " " : "", l->engine, *l->peer ? " peer_access=" : "", l->peer,
             l->concurrent ? " concurrent" : "");
    gc_term_esc(str(json_object_get(o, "measured_on"), "node"), l->node, sizeof l->node);
    end_of(json_object_get(o, "src"), l->src_node, &l->src_gpu);
    end_of(json_object_get(o, "dst"), l->dst_node, &l->dst_gpu);
    json_t *m = json_object_get(o, "model");
    l->alpha = num(m, "alpha_s");
    l->beta = num(m, "beta_bps");
    l->nominal = num(o, "nominal_bps");
    l->lambda = num(o, "lambda");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(m, "segments"), i, s) {
        if (l->nseg < 8)
            l->seg[l->nseg++] = (rp_seg){ num(s, "alpha_s"), num(s, "beta_bps"),
                                          num(s, "size_min_bytes"), num(s, "size_max_bytes") };
    }
    if (l->nseg == 0 && isfinite(l->alpha) && isfinite(l->beta))
        l->seg[l->nseg++] = (rp_seg){ l->alpha, l->beta, num(m, "size_min_bytes"),
                                      num(m, "size_max_bytes") };
    json_t *sizes = link_sizes(c, o);
    l->sz = json_array_size(sizes) ? malloc(json_array_size(sizes) * sizeof *l->sz) : NULL;
    json_array_foreach(sizes, i, s) {
        rp_pt pt = { num(s, "size_bytes"), num(s, "time_p5_s"), num(s, "time_p50_s"),
                     num(s, "time_p95_s") };
        if (isfinite(pt.x) && isfinite(pt.p50))
            l->sz[l->nsz++] = pt;
    }
    l->verdict = -1;
    c->nlinks++;
    return 0;
}

static int top(rp_cat *c, const char *key, json_t *v)
{
    if (!strcmp(key, "run")) {
        gc_term_esc(str(v, "tool_version"), c->tool_version, sizeof c->tool_version);
        gc_term_esc(str(v, "plan_name"), c->plan_name, sizeof c->plan_name);
        gc_term_esc(str(v, "backend"), c->backend, sizeof c->backend);
        gc_term_esc(str(v, "start_time"), c->start_time, sizeof c->start_time);
        gc_term_esc(str(v, "end_time"), c->end_time, sizeof c->end_time);
        gc_term_esc(str(v, "git_commit"), c->commit, sizeof c->commit);
        c->ranks = (int)num(v, "ranks");
        c->nodes = (int)num(v, "nodes");
    } else if (!strcmp(key, "nodes") && json_is_array(v)) {
        size_t n = json_array_size(v), i;
        c->node_names = calloc(n ? n : 1, sizeof *c->node_names);
        c->node_files = calloc(n ? n : 1, sizeof *c->node_files);
        if (!c->node_names || !c->node_files)
            return -1;
        json_t *e;
        json_array_foreach(v, i, e) {
            gc_term_esc(str(e, "name"), c->node_names[i], GC_NODE_MAX);
            gc_term_esc(str(e, "file"), c->node_files[i], 256);
        }
        c->nnodes = n;
    }
    return 0;
}

/* The GPUs and links as 2.x objects (a schema-3 catalogue expanded by
 * catread), one at a time. */
typedef struct walk_ctx {
    rp_cat *c;
    size_t gcap, lcap;
} walk_ctx;

static int w_gpu(void *ctx, json_t *o)
{
    walk_ctx *w = ctx;
    return add_gpu(w->c, o, &w->gcap);
}

static int w_link(void *ctx, json_t *o)
{
    walk_ctx *w = ctx;
    return add_link(w->c, o, &w->lcap);
}

static int w_top(void *ctx, const char *key, json_t *v)
{
    walk_ctx *w = ctx;
    return top(w->c, key, v);
}

static int walk(rp_cat *c, const char *buf, size_t len)
{
    walk_ctx w = { c, 0, 0 };
    static const gc_catread_each_fns fns = { w_gpu, w_link, w_top };
    gc_err e = { 0 };
    return gc_catread_each(c->path, buf, len, &fns, &w, &e) ? -1 : 0;
}

static long node_order(const rp_cat *c, const char *node)
{
    for (size_t i = 0; i < c->nnodes; i++)
        if (!strcmp(c->node_names[i], node))
            return (long)i;
    return (long)c->nnodes;
}

static const rp_cat *sort_cat;
static int cmp_gpu(const void *a, const void *b)
{
    const rp_gpu *x = a, *y = b;
    long nx = node_order(sort_cat, x->node), ny = node_order(sort_cat, y->node);
    if (nx != ny)
        return nx < ny ? -1 : 1;
    int s = strcmp(x->node, y->node);
    return s ? s : (x->index > y->index) - (x->index < y->index);
}

static rp_gpu *find_gpu(rp_cat *c, const char *node, int index)
{
    for (size_t i = 0; i < c->ngpus; i++)
        if (c->gpus[i].index == index && !strcmp(c->gpus[i].node, node))
            return &c->gpus[i];
    return NULL;
}

/* How well a host link stands for the GPU's H2D/D2H figure: pinned memory
 * through the copy engine, alone, first. */
static int host_rank(const rp_link *l)
{
    return (!strcmp(l->mem, "pinned") ? 4 : 0) + (!strcmp(l->engine, "ce") ? 2 : 0) +
           (l->concurrent ? 0 : 8);
}

static void attach_links(rp_cat *c)
{
    int *best_h = calloc(c->ngpus * 2 + 1, sizeof *best_h);
    if (!best_h)
        return;
    /* GPUs are sorted now: search by (node, index) through a scan of the
     * node's range, which find_gpu does linearly; fine for thousands. */
    for (size_t i = 0; i < c->nlinks; i++) {
        rp_link *l = &c->links[i];
        if (!isfinite(l->beta))
            continue;
        if (!strcmp(l->bench, "xfer") && (!strcmp(l->dir, "h2d") || !strcmp(l->dir, "d2h"))) {
            int h2d = !strcmp(l->dir, "h2d");
            rp_gpu *g = h2d ? find_gpu(c, l->dst_node, l->dst_gpu) : find_gpu(c, l->src_node, l->src_gpu);
            if (!g)
                continue;
            int *b = &best_h[(size_t)(g - c->gpus) * 2 + !h2d];
            int r = host_rank(l) + 1;
            if (r > *b) {
                *b = r;
                if (h2d)
                    g->h2d_bps = l->beta, g->h2d_alpha = l->alpha;
                else
                    g->d2h_bps = l->beta, g->d2h_alpha = l->alpha;
            }
        } else if (!strcmp(l->bench, "p2p") && !strcmp(l->dir, "oneway") && l->src_gpu >= 0) {
            rp_gpu *g = find_gpu(c, l->src_node, l->src_gpu);
            if (g && strcmp(l->peer, "off") && (!isfinite(g->p2p_bps) || l->beta < g->p2p_bps))
                g->p2p_bps = l->beta;
        }
    }
    free(best_h);
}

static void attach_verdicts(rp_cat *c)
{
    size_t n = gc_detect_count(c->det);
    c->worst = gc_detect_worst(c->det);
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(c->det, i);
        if (v->type == GC_SUBJ_GPU) {
            rp_gpu *g = find_gpu(c, v->node, v->gpu_index);
            if (g)
                g->verdict = v->level, g->v = v;
        } else if (v->type == GC_SUBJ_LINK && v->link_index >= 0 &&
                   (size_t)v->link_index < c->nlinks) {
            c->links[v->link_index].verdict = v->level;
        }
    }
}

int rp_load(const char *arg, rp_cat *c, gc_err *err)
{
    memset(c, 0, sizeof *c);
    gc_catalogue_path(arg, c->path, sizeof c->path);
    snprintf(c->dir, sizeof c->dir, "%s", c->path);
    char *slash = strrchr(c->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(c->dir, sizeof c->dir, ".");
    gc_rules_default(&c->rules);
    c->det = gc_detect_new(&c->rules, NULL);
    if (!c->det)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    gc_catread_info info;
    int as_written = 0;
    int rc = gc_catread_verdicts(c->path, c->det, &c->rules, &info, &as_written, err);
    if (rc)
        return rc;
    if (info.gpus == 0)
        return gc_fail(err, GC_EINVAL, "%s: no GPU in this catalogue: nothing to report", c->path);
    if (!as_written && (rc = gc_detect_finish(c->det, err)))
        return rc;
    c->as_written = as_written;
    if (!(c->pts = gc_catpoints_new(c->path)))
        return gc_fail(err, GC_ENOMEM, "out of memory");
    uint8_t *buf;
    size_t len;
    if ((rc = gc_read_file(c->path, (size_t)64 << 30, &buf, &len, err)))
        return rc;
    rc = walk(c, (char *)buf, len);
    free(buf);
    gc_catpoints_free(c->pts);   /* one node file held while walking, none after */
    c->pts = NULL;
    if (c->nmissing > 1)
        fprintf(stderr, "gpucensus report: %zu nodes in all drawn without their points (their "
                "node files missing or unreadable)\n", c->nmissing);
    if (rc)
        return gc_fail(err, GC_ECORRUPT, "%s: not a catalogue the report can read", c->path);
    sort_cat = c;
    qsort(c->gpus, c->ngpus, sizeof *c->gpus, cmp_gpu);
    sort_cat = NULL;
    /* nodes that have GPUs but no entry in nodes[] (should not happen) */
    for (size_t i = 0; i < c->ngpus; i++)
        if (node_order(c, c->gpus[i].node) == (long)c->nnodes) {
            void *a = realloc(c->node_names, (c->nnodes + 1) * sizeof *c->node_names);
            if (a)
                c->node_names = a;
            void *b = realloc(c->node_files, (c->nnodes + 1) * sizeof *c->node_files);
            if (b)
                c->node_files = b;
            if (!a || !b)
                return gc_fail(err, GC_ENOMEM, "out of memory");
            snprintf(c->node_names[c->nnodes], GC_NODE_MAX, "%s", c->gpus[i].node);
            c->node_files[c->nnodes][0] = '\0';
            c->nnodes++;
        }
    attach_links(c);
    attach_verdicts(c);
    return 0;
}

void rp_free(rp_cat *c)
{
    for (size_t i = 0; i < c->ngpus; i++)
        free(c->gpus[i].chase);
    for (size_t i = 0; i < c->nlinks; i++)
        free(c->links[i].sz);
    free(c->gpus);
    free(c->links);
    free(c->node_names);
    free(c->node_files);
    gc_detect_free(c->det);
    memset(c, 0, sizeof *c);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double rp_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rp_node_gpus(const rp_cat *c, size_t k, size_t *first, size_t *n)
{
    *first = 0;
    *n = 0;
    size_t i = 0;
    while (i < c->ngpus && strcmp(c->gpus[i].node, c->node_names[k]))
        i++;
    *first = i;
    while (i < c->ngpus && !strcmp(c->gpus[i].node, c->node_names[k]))
        i++;
    *n = i - *first;
}

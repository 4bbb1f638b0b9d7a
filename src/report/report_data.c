/* Reading a catalogue for the report. See report_int.h.
 *
 * Two threads read the file at once (two cores: about half the time of
 * one after the other): one gives the verdicts exactly as `gpucensus
 * check` does (catread.c: validation with FILE:LINE errors, a schema-2
 * catalogue's verdicts as written), the other walks it through catread's
 * walk (gc_catread_each: 2.x objects, a schema-3 catalogue expanded),
 * keeping of each GPU and link only what the tables and the plots draw. Strings are kept with their control
 * characters shown as \xNN (quote.h): they reach the terminal table as
 * well as the page. Then node names are hashed and each node's GPUs and
 * links become ranges (nothing is found by scanning every GPU or link).
 *
 * The report's bottom file: the model the others read (the node files,
 * report_nodes.c; the plots; the page, report_html.c; the terminal table,
 * report.c), calling none of them. */
#include "report/report_int.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/catread.h"
#include "read/catread_points.h"
#include "census/codec.h"
#include "util/fsutil.h"
#include "census/hist.h"
#include "util/quote.h"
#include "util/strtab.h"
#include "util/timeutil.h"

double rp_num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *rp_str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static int cmp_pt(const void *a, const void *b)
{
    double x = ((const rp_pt *)a)->x, y = ((const rp_pt *)b)->x;
    return x < y ? -1 : x > y;
}

/* The random-order chase latency points of results, by footprint. */
void rp_gpu_chase(rp_gpu *g, json_t *res)
{
    size_t n = json_array_size(res), i;
    json_t *r;
    if (!n)
        return;
    free(g->chase);
    g->nchase = 0;
    if (!(g->chase = malloc(n * sizeof *g->chase)))
        return;
    json_array_foreach(res, i, r) {
        json_t *ctx = json_object_get(r, "context"), *s = json_object_get(r, "summary");
        if (strcmp(rp_str(r, "benchmark"), "chase") || strcmp(rp_str(r, "metric"), "latency") ||
            strcmp(rp_str(r, "status"), "ok") || !s)
            continue;
        const char *ord = rp_str(ctx, "order");
        if (*ord && strcmp(ord, "random"))
            continue;
        rp_pt pt = { rp_num(ctx, "footprint_bytes"), rp_num(s, "p5"), rp_num(s, "p50"), rp_num(s, "p95") };
        if (isfinite(pt.x) && isfinite(pt.p50))
            g->chase[g->nchase++] = pt;
    }
    if (g->nchase)
        qsort(g->chase, g->nchase, sizeof *g->chase, cmp_pt);
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
    gc_term_esc(rp_str(o, "node"), g->node, sizeof g->node);
    g->index = (int)rp_num(o, "index");
    gc_term_esc(rp_str(o, "status"), g->status, sizeof g->status);
    gc_term_esc(rp_str(o, "status_reason"), g->status_reason, sizeof g->status_reason);
    json_t *id = json_object_get(o, "identity");
    gc_term_esc(rp_str(id, "name"), g->name, sizeof g->name);
    gc_term_esc(rp_str(id, "uuid"), g->uuid, sizeof g->uuid);
    g->l1 = g->l2 = g->dram = g->hbm_bps = g->hbm_theo = g->hbm_ratio = g->l2_bw = g->launch_ns = NAN;
    g->h2d_bps = g->h2d_alpha = g->d2h_bps = g->d2h_alpha = g->p2p_bps = NAN;
    g->verdict = -1;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(o, "parameters"), i, p) {
        const char *n = rp_str(p, "name");
        double v = rp_num(p, "value");
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
    rp_gpu_chase(g, json_object_get(o, "results"));   /* schema 1: inline; 2: node files later */
    c->ngpus++;
    return 0;
}

void rp_link_sizes(rp_link *l, json_t *sizes)
{
    size_t i, n = json_array_size(sizes);
    json_t *s;
    if (!n || !(l->sz = malloc(n * sizeof *l->sz)))
        return;
    json_array_foreach(sizes, i, s) {
        rp_pt pt = { rp_num(s, "size_bytes"), rp_num(s, "time_p5_s"), rp_num(s, "time_p50_s"),
                     rp_num(s, "time_p95_s") };
        if (isfinite(pt.x) && isfinite(pt.p50))
            l->sz[l->nsz++] = pt;
    }
}

void rp_end_of(json_t *e, char *node, int *gpu)
{
    gc_term_esc(rp_str(e, "node"), node, GC_NODE_MAX);
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
    gc_term_esc(rp_str(o, "kind"), l->kind, sizeof l->kind);
    gc_term_esc(rp_str(o, "benchmark"), l->bench, sizeof l->bench);
    gc_term_esc(rp_str(o, "direction"), l->dir, sizeof l->dir);
    gc_term_esc(rp_str(o, "memory"), l->mem, sizeof l->mem);
    gc_term_esc(rp_str(o, "engine"), l->engine, sizeof l->engine);
    gc_term_esc(rp_str(o, "peer_access"), l->peer, sizeof l->peer);
    l->concurrent = json_is_true(json_object_get(o, "concurrent"));
    snprintf(l->cls, sizeof l->cls, "%s %s %s %s%s%s%s%s%s", l->kind, l->bench, l->dir, l->mem,
             *l->engine ? " " : "", l->engine, *l->peer ? " peer_access=" : "", l->peer,
             l->concurrent ? " concurrent" : "");
    gc_term_esc(rp_str(json_object_get(o, "measured_on"), "node"), l->node, sizeof l->node);
    rp_end_of(json_object_get(o, "src"), l->src_node, &l->src_gpu);
    rp_end_of(json_object_get(o, "dst"), l->dst_node, &l->dst_gpu);
    json_t *m = json_object_get(o, "model");
    l->alpha = rp_num(m, "alpha_s");
    l->beta = rp_num(m, "beta_bps");
    l->nominal = rp_num(o, "nominal_bps");
    l->lambda = rp_num(o, "lambda");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(m, "segments"), i, s) {
        if (l->nseg < 8)
            l->seg[l->nseg++] = (rp_seg){ rp_num(s, "alpha_s"), rp_num(s, "beta_bps"),
                                          rp_num(s, "size_min_bytes"), rp_num(s, "size_max_bytes") };
    }
    if (l->nseg == 0 && isfinite(l->alpha) && isfinite(l->beta))
        l->seg[l->nseg++] = (rp_seg){ l->alpha, l->beta, rp_num(m, "size_min_bytes"),
                                      rp_num(m, "size_max_bytes") };
    rp_link_sizes(l, json_object_get(o, "sizes"));   /* schema 1: inline; 2: node files later */
    l->verdict = -1;
    c->nlinks++;
    return 0;
}

static int top(rp_cat *c, const char *key, json_t *v)
{
    if (!strcmp(key, "schema_version") && json_is_string(v)) {
        c->schema_major = atoi(json_string_value(v));
    } else if (!strcmp(key, "run")) {
        gc_term_esc(rp_str(v, "tool_version"), c->tool_version, sizeof c->tool_version);
        gc_term_esc(rp_str(v, "plan_name"), c->plan_name, sizeof c->plan_name);
        gc_term_esc(rp_str(v, "backend"), c->backend, sizeof c->backend);
        gc_term_esc(rp_str(v, "start_time"), c->start_time, sizeof c->start_time);
        snprintf(c->run_start_raw, sizeof c->run_start_raw, "%s", rp_str(v, "start_time"));
        snprintf(c->plan_sha256, sizeof c->plan_sha256, "%s", rp_str(v, "plan_sha256"));
        gc_term_esc(rp_str(v, "end_time"), c->end_time, sizeof c->end_time);
        gc_term_esc(rp_str(v, "git_commit"), c->commit, sizeof c->commit);
        c->ranks = (int)rp_num(v, "ranks");
        c->nodes = (int)rp_num(v, "nodes");
    } else if (!strcmp(key, "peer_notes") && json_is_object(v)) {
        json_decref(c->peer_notes);
        c->peer_notes = json_incref(v);
    } else if (!strcmp(key, "nodes") && json_is_array(v)) {
        size_t n = json_array_size(v), i;
        c->node_names = calloc(n ? n : 1, sizeof *c->node_names);
        c->node_files = calloc(n ? n : 1, sizeof *c->node_files);
        if (!c->node_names || !c->node_files)
            return -1;
        json_t *e;
        json_array_foreach(v, i, e) {
            gc_term_esc(rp_str(e, "name"), c->node_names[i], GC_NODE_MAX);
            gc_term_esc(rp_str(e, "file"), c->node_files[i], 256);
        }
        c->nnodes = n;
    }
    return 0;
}

/* The GPUs and links as 2.x objects (a schema-3 catalogue expanded by
 * catread), one at a time, and the other top-level members. */
typedef struct each_ctx {
    rp_cat *c;
    size_t gcap, lcap;
} each_ctx;

static int each_gpu(void *ctx, json_t *o)
{
    each_ctx *x = ctx;
    return add_gpu(x->c, o, &x->gcap) ? GC_ENOMEM : 0;
}

static int each_link(void *ctx, json_t *o)
{
    each_ctx *x = ctx;
    return add_link(x->c, o, &x->lcap) ? GC_ENOMEM : 0;
}

static int each_top(void *ctx, const char *key, json_t *v)
{
    each_ctx *x = ctx;
    return top(x->c, key, v) ? GC_ENOMEM : 0;
}

/* The verdicts, read by a thread of their own while the report walks the
 * catalogue for what it draws (both parse the whole file: two cores, about
 * half the time). */
typedef struct vjob {
    rp_cat *c;
    gc_catread_info info;
    int as_written, rc;
    gc_err err;
} vjob;

static void *verdicts_thread(void *arg)
{
    vjob *j = arg;
    j->rc = gc_catread_verdicts(j->c->path, j->c->det, &j->c->rules, &j->info, &j->as_written,
                                &j->err);
    if (!j->rc && !j->as_written)
        j->rc = gc_detect_finish(j->c->det, &j->err);
    return NULL;
}

/* ---- indexes: node names, each node's GPUs and links ------------------------ */

static size_t hash_str(const char *s)
{
    return (size_t)gc_fnv1a(s, GC_FNV_SEED);
}

size_t rp_node_index(const rp_cat *c, const char *name)
{
    if (!c->hcap)
        return c->nnodes;
    for (size_t h = hash_str(name) & (c->hcap - 1);; h = (h + 1) & (c->hcap - 1)) {
        size_t k = c->hash[h];
        if (k == (size_t)-1)
            return c->nnodes;
        if (!strcmp(c->node_names[k], name))
            return k;
    }
}

static int build_hash(rp_cat *c)
{
    free(c->hash);
    c->hcap = 16;
    while (c->hcap < 2 * c->nnodes)
        c->hcap *= 2;
    if (!(c->hash = malloc(c->hcap * sizeof *c->hash)))
        return -1;
    memset(c->hash, 0xff, c->hcap * sizeof *c->hash);
    for (size_t k = 0; k < c->nnodes; k++) {
        size_t h = hash_str(c->node_names[k]) & (c->hcap - 1);
        while (c->hash[h] != (size_t)-1) {
            if (!strcmp(c->node_names[c->hash[h]], c->node_names[k]))
                break;   /* a name twice in nodes[]: the first one counts */
            h = (h + 1) & (c->hcap - 1);
        }
        if (c->hash[h] == (size_t)-1)
            c->hash[h] = k;
    }
    return 0;
}

static int cmp_gpu(const void *a, const void *b)
{
    const rp_gpu *x = a, *y = b;
    if (x->node_ix != y->node_ix)
        return x->node_ix < y->node_ix ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static rp_gpu *find_gpu(rp_cat *c, const char *node, int index)
{
    size_t k = rp_node_index(c, node);
    if (k >= c->nnodes)
        return NULL;
    for (size_t i = c->node_first[k]; i < c->node_first[k] + c->node_n[k]; i++)
        if (c->gpus[i].index == index)
            return &c->gpus[i];
    return NULL;
}

/* Nodes that have GPUs but no entry in nodes[] (should not happen) are
 * added; then every GPU and link gets its node's index, GPUs are sorted
 * by node, and each node's GPUs and links are ranges. */
static int index_nodes(rp_cat *c)
{
    if (build_hash(c))
        return -1;
    for (size_t i = 0; i < c->ngpus; i++) {
        if (rp_node_index(c, c->gpus[i].node) < c->nnodes)
            continue;
        void *a = realloc(c->node_names, (c->nnodes + 1) * sizeof *c->node_names);
        if (a)
            c->node_names = a;
        void *b = realloc(c->node_files, (c->nnodes + 1) * sizeof *c->node_files);
        if (b)
            c->node_files = b;
        if (!a || !b)
            return -1;
        snprintf(c->node_names[c->nnodes], GC_NODE_MAX, "%s", c->gpus[i].node);
        c->node_files[c->nnodes][0] = '\0';
        c->nnodes++;
        if (2 * c->nnodes > c->hcap && build_hash(c))
            return -1;
        if (2 * c->nnodes <= c->hcap) {   /* add it */
            size_t h = hash_str(c->gpus[i].node) & (c->hcap - 1);
            while (c->hash[h] != (size_t)-1)
                h = (h + 1) & (c->hcap - 1);
            c->hash[h] = c->nnodes - 1;
        }
    }
    size_t nn = c->nnodes ? c->nnodes : 1;
    c->node_first = calloc(nn, sizeof *c->node_first);
    c->node_n = calloc(nn, sizeof *c->node_n);
    c->nl_first = calloc(nn, sizeof *c->nl_first);
    c->nl_n = calloc(nn, sizeof *c->nl_n);
    c->link_ix = calloc(c->nlinks ? c->nlinks : 1, sizeof *c->link_ix);
    c->node_level = malloc(nn);
    c->node_worst = malloc(nn);
    c->node_read = calloc(nn, 1);
    if (!c->node_first || !c->node_n || !c->nl_first || !c->nl_n || !c->link_ix ||
        !c->node_level || !c->node_worst || !c->node_read)
        return -1;
    memset(c->node_level, -1, nn);
    memset(c->node_worst, -1, nn);
    for (size_t i = 0; i < c->ngpus; i++)
        c->gpus[i].node_ix = rp_node_index(c, c->gpus[i].node);
    qsort(c->gpus, c->ngpus, sizeof *c->gpus, cmp_gpu);
    for (size_t i = c->ngpus; i-- > 0;) {
        c->node_first[c->gpus[i].node_ix] = i;
        c->node_n[c->gpus[i].node_ix]++;
    }
    /* links by the node they were measured on, in catalogue order within it */
    for (size_t i = 0; i < c->nlinks; i++) {
        size_t k = rp_node_index(c, c->links[i].node);
        c->links[i].node_ix = k;
        if (k < c->nnodes)
            c->nl_n[k]++;
    }
    size_t at = 0;
    for (size_t k = 0; k < c->nnodes; k++) {
        c->nl_first[k] = at;
        at += c->nl_n[k];
        c->nl_n[k] = 0;
    }
    for (size_t i = 0; i < c->nlinks; i++) {
        size_t k = c->links[i].node_ix;
        if (k < c->nnodes)
            c->link_ix[c->nl_first[k] + c->nl_n[k]++] = i;
    }
    return 0;
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

static void worse(signed char *at, int level)
{
    if (level > *at)
        *at = (signed char)level;
}

static void attach_verdicts(rp_cat *c)
{
    size_t n = gc_detect_count(c->det);
    c->worst = gc_detect_worst(c->det);
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(c->det, i);
        size_t k = rp_node_index(c, v->node);
        if (v->type == GC_SUBJ_GPU) {
            rp_gpu *g = find_gpu(c, v->node, v->gpu_index);
            if (g)
                g->verdict = v->level, g->v = v;
        } else if (v->type == GC_SUBJ_LINK && v->link_index >= 0 &&
                   (size_t)v->link_index < c->nlinks) {
            c->links[v->link_index].verdict = v->level;
            k = c->links[v->link_index].node_ix;
        } else if (v->type == GC_SUBJ_NODE && k < c->nnodes) {
            c->node_level[k] = (signed char)v->level;
        }
        if (k < c->nnodes)
            worse(&c->node_worst[k], v->level);
    }
    for (size_t i = 0; i < c->ngpus; i++)   /* not measured in full: worth a look */
        if (strcmp(c->gpus[i].status, "ok"))
            worse(&c->node_worst[c->gpus[i].node_ix], GC_V_SUSPECT);
}

void rp_phase(const char *what)
{
    static double t0;
    static int on = -1;
    if (on < 0)
        on = getenv("GC_REPORT_PROFILE") != NULL, t0 = gc_now_s();
    if (on) {
        double t = gc_now_s();
        fprintf(stderr, "gpucensus report: profile: %-28s %.3f s\n", what, t - t0);
        t0 = t;
    }
}

int rp_load_catalogue(const char *arg, rp_cat *c, gc_err *err)
{
    rp_phase("start");
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
    /* the verdicts (as check gives them) in a thread, the drawn values here */
    json_object_seed(0);   /* before two threads make objects */
    vjob vj = { .c = c };
    pthread_t th;
    int threaded = pthread_create(&th, NULL, verdicts_thread, &vj) == 0;
    if (!threaded)
        verdicts_thread(&vj);
    each_ctx x = { .c = c };
    static const gc_catread_each_fns fns = { each_gpu, each_link, each_top };
    gc_err werr = { 0 };
    /* mapped: a parser that fails at the first byte touches one page */
    gc_input_map m;
    int rc = gc_map_input(c->path, (size_t)64 << 30, &m, &werr);
    if (!rc) {
        rc = gc_catread_each(c->path, m.buf ? m.buf : "", m.len, &fns, &x, &werr);
        gc_input_release(&m);
    }
    if (threaded)
        pthread_join(th, NULL);
    rp_phase("verdicts and catalogue (2 threads)");
    if (vj.rc) {   /* the reader's error first: it names the file and line */
        *err = vj.err;
        return vj.rc;
    }
    if (rc) {
        *err = werr;
        return err->msg[0] ? rc : gc_fail(err, rc, "%s: out of memory", c->path);
    }
    if (vj.info.gpus == 0)
        return gc_fail(err, GC_EINVAL, "%s: no GPU in this catalogue: nothing to report", c->path);
    c->as_written = vj.as_written;
    if (index_nodes(c))
        return gc_fail(err, GC_ENOMEM, "out of memory");
    rp_phase("index");
    attach_links(c);
    attach_verdicts(c);
    rp_phase("attach links, verdicts");
    if (!(c->node_why = calloc(c->nnodes ? c->nnodes : 1, sizeof *c->node_why)))
        return gc_fail(err, GC_ENOMEM, "out of memory");
    return 0;
}

void rp_free_h3(rp_hist3 *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (h[i].have[k])
                gc_hist_free(&h[i].h[k]);
}

void rp_free(rp_cat *c)
{
    json_decref(c->peer_notes);
    for (size_t i = 0; i < c->ngpus; i++) {
        free(c->gpus[i].chase);
        if (c->gpus[i].h3) {
            rp_free_h3(c->gpus[i].h3, 1);
            free(c->gpus[i].h3);
        }
    }
    for (size_t i = 0; i < c->nlinks; i++)
        free(c->links[i].sz);
    free(c->gpus);
    free(c->links);
    free(c->node_names);
    free(c->node_files);
    free(c->node_first);
    free(c->node_n);
    free(c->nl_first);
    free(c->nl_n);
    free(c->link_ix);
    free(c->node_level);
    free(c->node_worst);
    free(c->node_read);
    free(c->worst_order);
    free(c->node_why);
    free(c->hash);
    gc_detect_free(c->det);
    memset(c, 0, sizeof *c);
}

void rp_node_gpus(const rp_cat *c, size_t k, size_t *first, size_t *n)
{
    *first = k < c->nnodes ? c->node_first[k] : 0;
    *n = k < c->nnodes ? c->node_n[k] : 0;
}

/* ---- names the page's files share (report_int.h) ---------------------- */

const char *rh_vname(int level) { return level >= 0 ? gc_verdict_name(level) : "-"; }

void rh_node_id(char *out, size_t cap, const char *node)
{
    size_t n = snprintf(out, cap, "node-");
    for (; *node && n + 1 < cap; node++)
        out[n++] = (*node >= 'a' && *node <= 'z') || (*node >= 'A' && *node <= 'Z') ||
                           (*node >= '0' && *node <= '9') || *node == '-' || *node == '_'
                       ? *node : '_';
    out[n] = '\0';
}

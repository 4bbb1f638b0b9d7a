/* The in-memory census: contexts, GPUs and their points. Small helpers that
 * every stage shares; no I/O here. */
#include "census/results.h"

#include "util/grow.h"
#include "census/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gc_ctxv *ctx_slot(gc_ctx *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->v[i].key, key) == 0)
            return &c->v[i];
    if (c->n >= GC_MAX_CTX || strlen(key) >= GC_KEY_MAX)
        return NULL;
    gc_ctxv *v = &c->v[c->n++];
    memset(v, 0, sizeof *v);
    strcpy(v->key, key);
    return v;
}

int gc_ctx_set_num(gc_ctx *c, const char *key, double num)
{
    gc_ctxv *v = ctx_slot(c, key);
    if (!v)
        return GC_EINVAL;
    v->is_str = 0;
    v->num = num;
    v->str[0] = '\0';
    return 0;
}

int gc_ctx_set_str(gc_ctx *c, const char *key, const char *s)
{
    gc_ctxv *v = ctx_slot(c, key);
    if (!v || strlen(s) >= GC_STR_MAX)
        return GC_EINVAL;
    v->is_str = 1;
    v->num = 0;
    strcpy(v->str, s);
    return 0;
}

const gc_ctxv *gc_ctx_get(const gc_ctx *c, const char *key)
{
    for (int i = 0; i < c->n; i++)   /* the first byte first: most keys differ there */
        if (c->v[i].key[0] == key[0] && strcmp(c->v[i].key, key) == 0)
            return &c->v[i];
    return NULL;
}

double gc_ctx_num(const gc_ctx *c, const char *key, double dflt)
{
    const gc_ctxv *v = gc_ctx_get(c, key);
    return v && !v->is_str ? v->num : dflt;
}

const char *gc_ctx_str(const gc_ctx *c, const char *key, const char *dflt)
{
    const gc_ctxv *v = gc_ctx_get(c, key);
    return v && v->is_str ? v->str : dflt;
}

void gc_gpu_init(gc_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->info.local_index = -1;
    g->info.rank = -1;
    g->info.ecc_enabled = -1;
    g->info.numa_node = -1;
}

void gc_gpu_free(gc_gpu *g)
{
    for (size_t i = 0; i < g->npoints; i++)
        gc_hist_free(&g->points[i].hist);
    free(g->points);
    free(g->params);
    gc_gpu_init(g);
}

int gc_gpu_method(const gc_gpu *g, const char *bench)
{
    for (int i = 0; i < g->nmethods; i++)
        if (!strcmp(g->methods[i].bench, bench))
            return g->methods[i].version;
    return 0;
}

int gc_gpu_set_method(gc_gpu *g, const char *bench, int version)
{
    int i = 0;
    while (i < g->nmethods && strcmp(g->methods[i].bench, bench))
        i++;
    if (i == GC_MAX_METHODS || strlen(bench) >= GC_KEY_MAX)
        return -1;
    snprintf(g->methods[i].bench, sizeof g->methods[i].bench, "%s", bench);
    g->methods[i].version = version;
    g->nmethods += i == g->nmethods;
    return 0;
}

void gc_gpu_methods_fill(gc_gpu *g, const char *start_time)
{
    for (size_t i = 0; i < g->npoints; i++) {
        const char *b = g->points[i].bench;
        if ((i && !strcmp(g->points[i - 1].bench, b)) || gc_gpu_method(g, b))
            continue;   /* the one before set it, or had it set */
        int v = start_time ? gc_bench_method_at(b, start_time) : gc_bench_method(b);
        if (v > 0)
            gc_gpu_set_method(g, b, v);
    }
}

int gc_gpu_methods_of(const gc_gpu *g, gc_method out[GC_MAX_METHODS])
{
    int n = 0;
    for (size_t i = 0; i < g->npoints && n < GC_MAX_METHODS; i++) {
        const char *b = g->points[i].bench;
        if (i && !strcmp(g->points[i - 1].bench, b))
            continue;   /* a bench's points come together: the one before is in out already */
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = !strcmp(out[k].bench, b);
        if (dup)
            continue;
        int v = gc_gpu_method(g, b);
        snprintf(out[n].bench, sizeof out[n].bench, "%s", b);
        out[n++].version = v > 0 ? v : gc_bench_method(b);
    }
    return n;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

gc_point *gc_gpu_add_point(gc_gpu *g, uint32_t item_id, const char *bench,
                           const gc_ctx *ctx, const char *metric,
                           const char *unit, double scale, uint32_t sub_bits)
{
    /* A name that does not fit is a bug of the caller: refuse it rather
     * than write a truncated unit or metric into the catalogue. */
    if (strlen(bench) >= GC_KEY_MAX || strlen(metric) >= GC_STR_MAX || strlen(unit) >= GC_KEY_MAX)
        return NULL;
    if (gc_grow((void **)&g->points, &g->cap_points, g->npoints + 1, sizeof *g->points))
        return NULL;
    gc_point *p = &g->points[g->npoints];
    memset(p, 0, sizeof *p);
    p->item_id = item_id;
    copy_str(p->bench, sizeof p->bench, bench);
    copy_str(p->metric, sizeof p->metric, metric);
    copy_str(p->unit, sizeof p->unit, unit);
    p->scale = scale > 0 ? scale : 1;
    if (ctx)
        p->ctx = *ctx;
    if (gc_hist_init(&p->hist, sub_bits, NULL))
        return NULL;
    g->npoints++;
    return p;
}

int gc_gpu_add_param(gc_gpu *g, const char *name, double value,
                     const char *unit, const char *source)
{
    if (gc_grow((void **)&g->params, &g->cap_params, g->nparams + 1, sizeof *g->params))
        return GC_ENOMEM;
    gc_param *p = &g->params[g->nparams++];
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, name);
    p->value = value;
    copy_str(p->unit, sizeof p->unit, unit);
    copy_str(p->source, sizeof p->source, source);
    return 0;
}

/* Every key of match must be present in the point's context with an equal
 * value. */
static int ctx_matches(const gc_ctx *have, const gc_ctx *match)
{
    for (int i = 0; match && i < match->n; i++) {
        const gc_ctxv *m = &match->v[i];
        const gc_ctxv *h = gc_ctx_get(have, m->key);
        if (!h || h->is_str != m->is_str)
            return 0;
        if (m->is_str ? strcmp(h->str, m->str) != 0 : h->num != m->num)
            return 0;
    }
    return 1;
}

const gc_point *gc_gpu_find_point(const gc_gpu *g, const char *bench,
                                  const char *metric, const gc_ctx *match)
{
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if ((!bench || strcmp(p->bench, bench) == 0) &&
            (!metric || strcmp(p->metric, metric) == 0) && ctx_matches(&p->ctx, match))
            return p;
    }
    return NULL;
}

uint64_t gc_point_count(const gc_point *p)
{
    return p->has_sum ? p->sum.count : p->hist.total;
}

void gc_point_summary(const gc_point *p, gc_summary *s)
{
    if (p->has_sum) {
        *s = p->sum;
        return;
    }
    const gc_hist *h = &p->hist;
    double k = 1.0 / p->scale;
    memset(s, 0, sizeof *s);
    s->count = h->total;
    if (!h->total)
        return;
    s->min = (double)h->min * k;
    s->max = (double)h->max * k;
    s->p1 = (double)gc_hist_quantile(h, 0.01) * k;
    s->p5 = (double)gc_hist_quantile(h, 0.05) * k;
    s->p50 = (double)gc_hist_quantile(h, 0.50) * k;
    s->p95 = (double)gc_hist_quantile(h, 0.95) * k;
    s->p99 = (double)gc_hist_quantile(h, 0.99) * k;
    s->mean = gc_hist_mean(h) * k;
    s->stddev = gc_hist_stddev(h) * k;
}

/* What the history and the metrics keep of a catalogue. See catread_hist.h.
 * The GPUs and links go through catread.c's readers (the same schema
 * checks as `check`); the run and the verdicts are read here. */
#include "read/catread_hist.h"
#include "read/catread_int.h"
#include "census/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/strtab.h"
#include "judge/rules.h"

typedef struct hsink {
    sink s;               /* first: the walk hands back &s */
    gc_hcat *c;
    gc_rules rules;
    json_t *verdicts;     /* kept until the GPUs and links are all read */
} hsink;

#define CP(dst, src) snprintf(dst, sizeof dst, "%s", (src) ? (src) : "")

static int nomem(rd *r) { return gc_fail(r->err, GC_ENOMEM, "out of memory"); }

static int h_gpu(sink *s, rd *r, json_t *o)
{
    hsink *h = (hsink *)s;
    gc_hcat *c = h->c;
    gc_det_gpu g;
    int rc = cr_gpu_of(r, o, &h->rules, 1, &g, &s->b);
    if (rc)
        return rc;
    if (gc_grow((void **)&c->gpus, &c->capg, c->ngpus + 1, sizeof *c->gpus))
        return nomem(r);
    gc_hc_gpu *x = &c->gpus[c->ngpus++];
    memset(x, 0, sizeof *x);
    CP(x->node, g.node);
    CP(x->uuid, g.uuid);
    CP(x->name, g.name);
    CP(x->status, g.status);
    x->index = g.index;
    x->first = c->nparams;
    x->v.level = -1;
    for (size_t b = 0; b < gc_bench_ndefs && b < GC_HC_NBENCH; b++) {
        x->method[b] = (unsigned short)gc_det_gpu_method(&g, (int)b);
        x->measured[b] = g.nmethods == 0;
        for (int k = 0; k < g.nmethods && !x->measured[b]; k++)
            x->measured[b] = !strcmp(g.methods[k].bench, gc_bench_defs[b].name);
    }
    for (size_t i = 0; i < g.nvalues; i++) {
        const gc_det_value *v = &g.values[i];
        if (v->has_q)   /* a point's median, not a parameter */
            continue;
        if (gc_grow((void **)&c->params, &c->capp, c->nparams + 1, sizeof *c->params))
            return nomem(r);
        gc_hc_param *p = &c->params[c->nparams++];
        CP(p->name, v->name);
        CP(p->unit, v->unit);
        p->value = v->value;
        int bi = gc_det_key_bench(p->name);
        p->method = bi >= 0 && bi < GC_HC_NBENCH ? x->method[bi] : 0;
        x->nparams++;
    }
    return 0;
}

static int h_link(sink *s, rd *r, json_t *o, size_t index)
{
    gc_hcat *c = ((hsink *)s)->c;
    gc_det_link l;
    int rc = cr_link_of(r, o, index, &l);
    if (rc)
        return rc;
    if (gc_grow((void **)&c->links, &c->capl, c->nlinks + 1, sizeof *c->links))
        return nomem(r);
    gc_hc_link *x = &c->links[c->nlinks++];
    memset(x, 0, sizeof *x);
    gc_det_link_class(&l, x->cls, sizeof x->cls);
    const gc_det_end *e = l.src.is_gpu ? &l.src : l.dst.is_gpu ? &l.dst : NULL;
    CP(x->node, e ? e->node : l.src.node);
    x->gpu_index = e ? e->gpu_index : -1;
    CP(x->uuid, e ? e->uuid : NULL);
    x->alpha_s = l.alpha_s;
    x->beta_bps = l.beta_bps;
    x->nominal_bps = l.nominal_bps;
    x->lambda = l.lambda;
    x->v.level = -1;
    return 0;
}

static const char *str_of(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static int h_top(sink *s, rd *r, const char *key, json_t *v)
{
    hsink *h = (hsink *)s;
    gc_hcat *c = h->c;
    if (!strcmp(key, "gpus") || !strcmp(key, "links"))
        return cr_bad(r, "'%s' must be an array", key);
    if (!strcmp(key, "kind")) {
        s->seen_kind = 1;
        return cr_kind_catalogue(r, v, "history");
    }
    if (!strcmp(key, "run")) {
        if (!json_is_object(v))
            return cr_bad(r, "'run' must be an object");
        static const char *const req[] = { "start_time", "plan_name", "plan_sha256", "git_commit",
                                           "backend" };
        for (size_t i = 0; i < sizeof req / sizeof *req; i++)
            if (!json_is_string(json_object_get(v, req[i])))
                return cr_bad(r, "'run.%s' is missing or not a string", req[i]);
        CP(c->start_time, str_of(v, "start_time"));
        CP(c->end_time, str_of(v, "end_time"));
        CP(c->plan_name, str_of(v, "plan_name"));
        CP(c->plan_sha256, str_of(v, "plan_sha256"));
        CP(c->git_commit, str_of(v, "git_commit"));
        CP(c->backend, str_of(v, "backend"));
        return 0;
    }
    if (!strcmp(key, "verdicts")) {
        if (!json_is_array(v))
            return cr_bad(r, "'verdicts' must be an array");
        json_decref(h->verdicts);
        h->verdicts = json_incref(v);
    }
    return 0;
}

static int level_of(const char *s)
{
    static const char *const n[4] = { "ok", "suspect", "degraded", "failed" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, n[i]))
            return i;
    return -1;
}

/* A verdict's level and its worst reason (the first of the highest severity). */
static int verdict_of(rd *r, json_t *o, size_t i, gc_hc_verdict *out)
{
    int level = level_of(str_of(o, "verdict"));
    json_t *rs = json_object_get(o, "reasons");
    if (level < 0 || !json_is_array(rs)) {
        snprintf(r->where, sizeof r->where, "verdicts[%zu]", i % 100000000u);
        return cr_bad(r, "'verdict' must be ok, suspect, degraded or failed, with a 'reasons' array");
    }
    out->level = level;
    out->reason[0] = '\0';
    int best = -1;
    size_t k;
    json_t *x;
    json_array_foreach(rs, k, x) {
        int sev = level_of(str_of(x, "severity"));
        if (sev <= best)
            continue;
        best = sev;
        const char *rule = str_of(x, "rule"), *metric = str_of(x, "metric");
        if (!strcmp(rule, "gpu") || !strcmp(rule, "link"))   /* a node's member, as check prints it */
            snprintf(out->reason, sizeof out->reason, "%.120s %s: %s", metric, str_of(x, "severity"),
                     str_of(x, "detail"));
        else if (!strcmp(rule, metric) || !*metric)
            snprintf(out->reason, sizeof out->reason, "%s: %s", rule, str_of(x, "detail"));
        else
            snprintf(out->reason, sizeof out->reason, "%s: %.100s: %s", rule, metric,
                     str_of(x, "detail"));
    }
    return 0;
}

/* The GPUs by UUID and by "node\x1findex" (keys interned; several GPUs of
 * one key chained), so that a GPU's verdict finds them without a scan of
 * every GPU (quadratic: 131,072 GPUs, 10^10 comparisons). */
typedef struct gpu_ix {
    gc_strtab keys;
    long *first, *next_uuid, *next_ni;
} gpu_ix;

static long ix_key(gpu_ix *x, const char *a, const char *b, long long n, int add)
{
    char k[GC_NODE_MAX + 64];
    snprintf(k, sizeof k, "%s\x1f%s\x1f%lld", a, b, n);
    return gc_strtab_id(&x->keys, k, add);
}

static int ix_build(gpu_ix *x, const gc_hcat *c)
{
    memset(x, 0, sizeof *x);
    size_t n = c->ngpus ? c->ngpus : 1;
    x->first = malloc(2 * n * sizeof *x->first);   /* at most two keys a GPU */
    x->next_uuid = malloc(n * sizeof *x->next_uuid);
    x->next_ni = malloc(n * sizeof *x->next_ni);
    if (!x->first || !x->next_uuid || !x->next_ni)
        return GC_ENOMEM;
    for (size_t k = 0; k < 2 * n; k++)
        x->first[k] = -1;
    /* from the last GPU back: each key's chain in catalogue order */
    for (size_t g = c->ngpus; g-- > 0;) {
        long ku = ix_key(x, "u", c->gpus[g].uuid, 0, 1);
        long kn = ix_key(x, "n", c->gpus[g].node, c->gpus[g].index, 1);
        if (ku < 0 || kn < 0)
            return GC_ENOMEM;
        x->next_uuid[g] = x->first[ku];
        x->first[ku] = (long)g;
        x->next_ni[g] = x->first[kn];
        x->first[kn] = (long)g;
    }
    return 0;
}

static void ix_free(gpu_ix *x)
{
    gc_strtab_free(&x->keys);
    free(x->first);
    free(x->next_uuid);
    free(x->next_ni);
}

static int attach_verdicts(rd *r, hsink *h)
{
    gc_hcat *c = h->c;
    size_t i;
    json_t *o;
    gpu_ix x;
    if (ix_build(&x, c)) {
        ix_free(&x);
        return nomem(r);
    }
    json_array_foreach(h->verdicts, i, o) {
        const char *type = str_of(o, "type"), *node = str_of(o, "node"), *uuid = str_of(o, "uuid");
        gc_hc_verdict v;
        int rc = verdict_of(r, o, i, &v);
        if (rc) {
            ix_free(&x);
            return rc;
        }
        if (!strcmp(type, "gpu")) {
            /* every GPU of its UUID (none given: of its node and index) */
            json_t *gi = json_object_get(o, "gpu_index");
            long k = *uuid ? ix_key(&x, "u", uuid, 0, 0)
                   : json_is_integer(gi) ? ix_key(&x, "n", node, json_integer_value(gi), 0) : -1;
            for (long g = k >= 0 ? x.first[k] : -1; g >= 0; g = *uuid ? x.next_uuid[g] : x.next_ni[g])
                c->gpus[g].v = v;
        } else if (!strcmp(type, "link")) {
            json_t *li = json_object_get(o, "link");
            if (json_is_integer(li) && json_integer_value(li) >= 0 &&
                (size_t)json_integer_value(li) < c->nlinks) {
                gc_hc_link *l = &c->links[json_integer_value(li)];
                l->v = v;
                CP(l->subject, str_of(o, "subject"));
            }
        } else if (!strcmp(type, "node")) {
            if (gc_grow((void **)&c->nodes, &c->capn, c->nnodes + 1, sizeof *c->nodes)) {
                ix_free(&x);
                return nomem(r);
            }
            gc_hc_node *n = &c->nodes[c->nnodes++];
            CP(n->name, node);
            n->v = v;
        }
    }
    ix_free(&x);
    return 0;
}

static int by_node_index(const void *a, const void *b, void *ctx)
{
    const gc_hc_gpu *g = ctx, *x = &g[*(const size_t *)a], *y = &g[*(const size_t *)b];
    int c = strcmp(x->node, y->node);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A link's GPU end: its UUID (when the link did not say), SKU and the
 * method of the link's benchmark there (the GPUs by node and index,
 * searched: a scan per link was quadratic). */
static void link_gpus(gc_hcat *c)
{
    size_t *ix = malloc((c->ngpus ? c->ngpus : 1) * sizeof *ix);
    for (size_t g = 0; ix && g < c->ngpus; g++)
        ix[g] = g;
    if (ix)
        qsort_r(ix, c->ngpus, sizeof *ix, by_node_index, c->gpus);
    for (size_t i = 0; i < c->nlinks; i++) {
        gc_hc_link *l = &c->links[i];
        char key[200];
        snprintf(key, sizeof key, "link:%s:beta_bps", l->cls);
        int bi = gc_det_key_bench(key);
        l->method = 0;
        if (l->gpu_index < 0)
            continue;
        size_t lo = 0, hi = ix ? c->ngpus : 0;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const gc_hc_gpu *e = &c->gpus[ix[mid]];
            int k = strcmp(e->node, l->node);
            if (k < 0 || (k == 0 && e->index < l->gpu_index))
                lo = mid + 1;
            else
                hi = mid;
        }
        /* every GPU of that name and index (the last one's SKU stays, as the scan left it) */
        for (; ix && lo < c->ngpus && !strcmp(c->gpus[ix[lo]].node, l->node) &&
               c->gpus[ix[lo]].index == l->gpu_index; lo++) {
            const gc_hc_gpu *g = &c->gpus[ix[lo]];
            if (!l->uuid[0])
                CP(l->uuid, g->uuid);
            CP(l->sku, g->name);
            l->method = bi >= 0 && bi < GC_HC_NBENCH ? g->method[bi] : 0;
        }
    }
    free(ix);
}

int gc_catread_hist_mem(const char *name, const char *buf, size_t len, gc_hcat *out, gc_err *err)
{
    memset(out, 0, sizeof *out);
    rd r = { .file = name, .buf = buf, .len = len, .err = err };
    hsink h = { .s = { .gpu = h_gpu, .link = h_link, .top = h_top }, .c = out };
    gc_rules_default(&h.rules);
    h.s.rules = &h.rules;
    int rc = cr_walk(&r, &h.s);
    if (!rc && !out->start_time[0])
        rc = cr_bad(&r, "'run' is missing (required by the catalogue schema)");
    if (!rc && h.verdicts)
        rc = attach_verdicts(&r, &h);
    if (!rc)
        link_gpus(out);
    json_decref(h.verdicts);
    if (rc)
        gc_hcat_free(out);
    return rc;
}

static int hist_file(const char *name, const char *buf, size_t len, void *out, gc_err *err)
{
    return gc_catread_hist_mem(name, buf, len, out, err);
}

int gc_catread_hist(const char *path, gc_hcat *out, gc_err *err)
{
    memset(out, 0, sizeof *out);
    return cr_with_file(path, hist_file, out, err);
}

void gc_hcat_free(gc_hcat *c)
{
    free(c->gpus);
    free(c->params);
    free(c->links);
    free(c->nodes);
    memset(c, 0, sizeof *c);
}

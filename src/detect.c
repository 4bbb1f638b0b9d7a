/* Verdicts from peers, distributions, a baseline and physical limits. See
 * detect.h for the rules; configs/rules.cfg for their thresholds.
 *
 * Memory is a compact record per GPU (its judged values: parameters and
 * point medians with five quantiles) and per link; judging is a pass per
 * peer group over columns of values (CSR by value key), so 1024 GPUs of
 * the default plan (~1000 values each) take a fraction of a second. */
#include "detect.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"

static const char *const level_names[] = { "ok", "suspect", "degraded", "failed" };

const char *gc_verdict_name(int v)
{
    return v >= 0 && v <= GC_V_FAILED ? level_names[v] : "?";
}

/* ---- string interning ------------------------------------------------- */

typedef struct strtab {
    char **s;          /* by id */
    size_t n, cap;
    uint32_t *slot;    /* open addressing: id + 1, 0 empty */
    size_t nslot;
} strtab;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int strtab_grow(strtab *t)
{
    size_t ns = t->nslot ? t->nslot * 2 : 1024;
    uint32_t *sl = calloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = (size_t)hash_str(t->s[i]) & (ns - 1);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = sl;
    t->nslot = ns;
    return 0;
}

/* id of s, or -1 when absent (add = 0) or out of memory */
static long strtab_id(strtab *t, const char *s, int add)
{
    if (!s)
        s = "";
    if (t->nslot) {
        size_t h = (size_t)hash_str(s) & (t->nslot - 1);
        while (t->slot[h]) {
            if (strcmp(t->s[t->slot[h] - 1], s) == 0)
                return (long)t->slot[h] - 1;
            h = (h + 1) & (t->nslot - 1);
        }
    }
    if (!add)
        return -1;
    if ((t->n + 1) * 2 > t->nslot && strtab_grow(t))
        return -1;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        char **ns = realloc(t->s, nc * sizeof *ns);
        if (!ns)
            return -1;
        t->s = ns;
        t->cap = nc;
    }
    char *c = strdup(s);
    if (!c)
        return -1;
    t->s[t->n] = c;
    size_t h = (size_t)hash_str(s) & (t->nslot - 1);
    while (t->slot[h])
        h = (h + 1) & (t->nslot - 1);
    t->slot[h] = (uint32_t)t->n + 1;
    return (long)t->n++;
}

static void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* ---- baseline --------------------------------------------------------- */

typedef struct bentry {
    uint32_t key;      /* strtab id of "sku\x1fkey" or "uuid\x1fkey" */
    double value;
} bentry;

struct gc_baseline {
    char source[256];
    strtab keys;
    size_t n, cap;
    bentry *e;
    int sorted;
    double *val;       /* per key id: median, after gc_baseline_seal */
};

gc_baseline *gc_baseline_new(const char *source)
{
    gc_baseline *b = calloc(1, sizeof *b);
    if (b)
        snprintf(b->source, sizeof b->source, "%s", source ? source : "");
    return b;
}

const char *gc_baseline_source(const gc_baseline *b) { return b->source; }
size_t gc_baseline_count(const gc_baseline *b) { return b->n; }

int gc_baseline_add(gc_baseline *b, const char *sku, const char *uuid, const char *key,
                    double value)
{
    if (!isfinite(value))
        return 0;
    char k[512];
    snprintf(k, sizeof k, "%s\x1f%s\x1f%s", uuid ? "uuid" : "sku", uuid ? uuid : sku ? sku : "",
             key);
    long id = strtab_id(&b->keys, k, 1);
    if (id < 0)
        return GC_ENOMEM;
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        bentry *ne = realloc(b->e, nc * sizeof *ne);
        if (!ne)
            return GC_ENOMEM;
        b->e = ne;
        b->cap = nc;
    }
    b->e[b->n++] = (bentry){ (uint32_t)id, value };
    b->sorted = 0;
    /* which SKUs and GPUs it knows (ids without entries: no value) */
    snprintf(k, sizeof k, "has\x1f%s", uuid ? uuid : sku ? sku : "");
    return strtab_id(&b->keys, k, 1) < 0 ? GC_ENOMEM : 0;
}

/* The baseline has values for this SKU or this GPU. */
static int baseline_knows(gc_baseline *b, const char *sku, const char *uuid)
{
    char k[300];
    snprintf(k, sizeof k, "has\x1f%s", sku);
    if (strtab_id(&b->keys, k, 0) >= 0)
        return 1;
    snprintf(k, sizeof k, "has\x1f%s", uuid && *uuid ? uuid : "\x1f");
    return strtab_id(&b->keys, k, 0) >= 0;
}

void gc_baseline_free(gc_baseline *b)
{
    if (!b)
        return;
    strtab_free(&b->keys);
    free(b->e);
    free(b->val);
    free(b);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)   /* sorts v */
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int by_key(const void *a, const void *b)
{
    uint32_t x = ((const bentry *)a)->key, y = ((const bentry *)b)->key;
    return (x > y) - (x < y);
}

/* Medians per key (a catalogue baseline has one value per GPU per key). */
static int baseline_seal(gc_baseline *b)
{
    if (b->sorted)
        return 0;
    free(b->val);
    b->val = malloc((b->keys.n ? b->keys.n : 1) * sizeof *b->val);
    double *tmp = malloc((b->n ? b->n : 1) * sizeof *tmp);
    if (!b->val || !tmp) {
        free(tmp);
        return GC_ENOMEM;
    }
    for (size_t i = 0; i < b->keys.n; i++)
        b->val[i] = NAN;
    qsort(b->e, b->n, sizeof *b->e, by_key);
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        while (j < b->n && b->e[j].key == b->e[i].key) {
            tmp[j - i] = b->e[j].value;
            j++;
        }
        b->val[b->e[i].key] = median_of(tmp, j - i);
        i = j;
    }
    free(tmp);
    b->sorted = 1;
    return 0;
}

/* reference value: the GPU's own (by UUID) first, then its SKU's */
static double baseline_ref(gc_baseline *b, const char *sku, const char *uuid, const char *key,
                           int *own)
{
    char k[512];
    *own = 0;
    if (uuid && *uuid) {
        snprintf(k, sizeof k, "uuid\x1f%s\x1f%s", uuid, key);
        long id = strtab_id(&b->keys, k, 0);
        if (id >= 0) {
            *own = 1;
            return b->val[id];
        }
    }
    snprintf(k, sizeof k, "sku\x1f%s\x1f%s", sku, key);
    long id = strtab_id(&b->keys, k, 0);
    return id >= 0 ? b->val[id] : NAN;
}

/* ---- records ---------------------------------------------------------- */

typedef struct val {
    uint32_t key;
    int8_t better, has_q;
    double v, count;
    double q[GC_DET_NQ];
} val;

typedef struct grec {
    char node[GC_NODE_MAX], uuid[48], name[96], status[16], reason[160];
    int index, rank;
    long long sm_count, l2_bytes, mem_bytes;
    double sm_clock_max_mhz, hbm_ratio;
    int numa_node, pcie_gen, pcie_width, pcie_max_gen, pcie_max_width, nvlink_links;
    gc_det_cond start, end;
    int throttled_points;
    size_t nv;
    val *v;
    uint32_t group;
} grec;

typedef struct lrec {
    gc_det_link l;
    char kind[16], bench[8], dir[8], mem[12], engine[8], peer[8];
    char src_node[GC_NODE_MAX], dst_node[GC_NODE_MAX], src_uuid[48], dst_uuid[48];
    long src_gpu, dst_gpu;     /* grec index, -1 */
    uint32_t group;
} lrec;

struct gc_detect {
    const gc_rules *r;
    gc_baseline *base;
    strtab keys, groups;
    char **unit;       /* per key id */
    uint32_t *seen;    /* per key id: 1 + the last GPU that had it */
    size_t nunit;
    size_t ng, capg, nl, capl;
    grec *g;
    lrec *l;
    size_t nv, capv;
    gc_verdict *v;
    int finished;
};

gc_detect *gc_detect_new(const gc_rules *rules, const gc_baseline *base)
{
    gc_detect *d = calloc(1, sizeof *d);
    if (d) {
        d->r = rules;
        d->base = (gc_baseline *)base;   /* sealed (sorted) on first use */
    }
    return d;
}

void gc_detect_free(gc_detect *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->ng; i++)
        free(d->g[i].v);
    for (size_t i = 0; i < d->nv; i++)
        free(d->v[i].reasons);
    free(d->g);
    free(d->l);
    free(d->v);
    strtab_free(&d->keys);
    for (size_t i = 0; i < d->nunit; i++)
        free(d->unit[i]);
    free(d->unit);
    free(d->seen);
    strtab_free(&d->groups);
    free(d);
}

#define CPY(dst, src) snprintf(dst, sizeof dst, "%s", (src) ? (src) : "")

int gc_detect_add_gpu(gc_detect *d, const gc_det_gpu *in, gc_err *err)
{
    if (d->ng == d->capg) {
        size_t nc = d->capg ? d->capg * 2 : 64;
        grec *ng = realloc(d->g, nc * sizeof *ng);
        if (!ng)
            return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        d->g = ng;
        d->capg = nc;
    }
    grec *g = &d->g[d->ng];
    memset(g, 0, sizeof *g);
    CPY(g->node, in->node);
    CPY(g->uuid, in->uuid);
    CPY(g->name, in->name);
    CPY(g->status, in->status);
    CPY(g->reason, in->status_reason);
    g->index = in->index;
    g->rank = in->rank;
    g->sm_count = in->sm_count;
    g->l2_bytes = in->l2_bytes;
    g->mem_bytes = in->mem_bytes;
    g->sm_clock_max_mhz = in->sm_clock_max_mhz;
    g->hbm_ratio = in->hbm_ratio;
    g->numa_node = in->numa_node;
    g->pcie_gen = in->pcie_gen;
    g->pcie_width = in->pcie_width;
    g->pcie_max_gen = in->pcie_max_gen;
    g->pcie_max_width = in->pcie_max_width;
    g->nvlink_links = in->nvlink_links;
    g->start = in->start;
    g->end = in->end;
    g->throttled_points = in->throttled_points;
    g->v = malloc((in->nvalues ? in->nvalues : 1) * sizeof *g->v);
    if (!g->v)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    for (size_t i = 0; i < in->nvalues; i++) {
        const gc_det_value *x = &in->values[i];
        if (!isfinite(x->value) || !x->better)
            continue;
        long k = strtab_id(&d->keys, x->name, 1);
        if (k < 0)
            return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        if ((size_t)k >= d->nunit) {   /* a new key: its unit, the first seen */
            size_t nc = d->keys.cap;
            char **nu = realloc(d->unit, nc * sizeof *nu);
            if (!nu)
                return gc_fail(err, GC_ENOMEM, "detect: out of memory");
            d->unit = nu;
            while (d->nunit <= (size_t)k)
                d->unit[d->nunit++] = NULL;
            if (!(d->unit[k] = strdup(x->unit ? x->unit : "")))
                return gc_fail(err, GC_ENOMEM, "detect: out of memory");
            uint32_t *ns = realloc(d->seen, nc * sizeof *ns);
            if (!ns)
                return gc_fail(err, GC_ENOMEM, "detect: out of memory");
            d->seen = ns;
            d->seen[k] = 0;
        }
        if (d->seen[k] == d->ng + 1)
            continue;   /* a key twice in one GPU: the first counts */
        d->seen[k] = (uint32_t)d->ng + 1;
        val *o = &g->v[g->nv++];
        o->key = (uint32_t)k;
        o->better = (int8_t)x->better;
        o->v = x->value;
        o->count = x->count;
        o->has_q = 0;
        if (x->has_q) {
            o->has_q = 1;
            for (int q = 0; q < GC_DET_NQ; q++) {
                o->q[q] = x->q[q];
                if (!isfinite(o->q[q]))
                    o->has_q = 0;
            }
        }
    }
    d->ng++;
    return 0;
}

int gc_detect_add_link(gc_detect *d, const gc_det_link *in, gc_err *err)
{
    if (d->nl == d->capl) {
        size_t nc = d->capl ? d->capl * 2 : 64;
        lrec *nl = realloc(d->l, nc * sizeof *nl);
        if (!nl)
            return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        d->l = nl;
        d->capl = nc;
    }
    lrec *l = &d->l[d->nl++];
    memset(l, 0, sizeof *l);
    l->l = *in;
    CPY(l->kind, in->kind);
    CPY(l->bench, in->benchmark);
    CPY(l->dir, in->direction);
    CPY(l->mem, in->memory);
    CPY(l->engine, in->engine);
    CPY(l->peer, in->peer_access);
    CPY(l->src_node, in->src.node);
    CPY(l->dst_node, in->dst.node);
    CPY(l->src_uuid, in->src.uuid);
    CPY(l->dst_uuid, in->dst.uuid);
    return 0;
}

/* The record's strings are its own (pointed to once the records stop moving). */
static void link_ptrs(lrec *l)
{
    l->l.kind = l->kind;
    l->l.benchmark = l->bench;
    l->l.direction = l->dir;
    l->l.memory = l->mem;
    l->l.engine = l->engine;
    l->l.peer_access = l->peer;
    l->l.src.node = l->src_node;
    l->l.dst.node = l->dst_node;
    l->l.src.uuid = l->src_uuid;
    l->l.dst.uuid = l->dst_uuid;
}

/* ---- the in-memory census path ---------------------------------------- */

/* As the catalogue writes a real (%.10g), so both paths judge the same. */
double gc_det_round(double v)
{
    if (!isfinite(v))
        return v;
    char b[40];
    snprintf(b, sizeof b, "%.10g", v);
    return strtod(b, NULL);
}

int gc_det_better_of_unit(const char *unit)
{
    if (!strcmp(unit, "bytes_per_s") || !strcmp(unit, "ops_per_cycle_per_sm"))
        return GC_BETTER_HIGHER;
    if (!strcmp(unit, "cycles") || !strcmp(unit, "ns"))
        return GC_BETTER_LOWER;
    return 0;
}

/* "bench.metric k=v k=v" as catread builds it from the catalogue. */
void gc_det_point_key(char *out, size_t cap, const char *bench, const char *metric,
                      const gc_ctx *ctx)
{
    int n = snprintf(out, cap, "%s.%s", bench, metric);
    for (int i = 0; ctx && i < ctx->n && n > 0 && (size_t)n < cap; i++) {
        const gc_ctxv *v = &ctx->v[i];
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= strcmp(ctx->v[j].key, v->key) == 0;
        if (dup)
            continue;
        if (v->is_str)
            n += snprintf(out + n, cap - (size_t)n, " %s=%s", v->key, v->str);
        else
            n += snprintf(out + n, cap - (size_t)n, " %s=%.10g", v->key, gc_det_round(v->num));
    }
}

static void cond_of(const gc_conditions *c, gc_det_cond *o)
{
    o->valid = c->valid;
    o->sm_clock_mhz = gc_det_round(c->sm_clock_mhz);
    o->throttle_reasons = (long long)c->throttle_reasons;
    o->ecc_corrected = c->ecc_corrected;
    o->ecc_uncorrected = c->ecc_uncorrected;
}

int gc_detect_add_census_gpu(gc_detect *d, const gc_gpu *g, const gc_summary *sums,
                             const char *status_name, gc_err *err)
{
    const gc_gpu_info *in = &g->info;
    size_t cap = g->nparams + g->npoints;
    gc_det_value *v = calloc(cap ? cap : 1, sizeof *v);
    char (*keys)[160] = calloc(g->npoints ? g->npoints : 1, sizeof *keys);
    if (!v || !keys) {
        free(v);
        free(keys);
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < g->nparams; i++) {
        int b = gc_rules_param(d->r, g->params[i].name);
        if (b)
            v[n++] = (gc_det_value){ .name = g->params[i].name, .unit = g->params[i].unit,
                                     .better = b, .value = gc_det_round(g->params[i].value) };
    }
    int throttled = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        throttled += (p->flags & GC_FLAG_THROTTLED) != 0;
        int b = gc_det_better_of_unit(p->unit);
        if (!d->r->judge_points || !b || p->status != GC_PT_OK || !p->hist.total ||
            gc_rules_skips(d->r, p->bench))
            continue;
        gc_summary s;
        if (sums)
            s = sums[i];
        else
            gc_point_summary(p, &s);
        gc_det_point_key(keys[i], sizeof keys[i], p->bench, p->metric, &p->ctx);
        v[n++] = (gc_det_value){ .name = keys[i], .unit = p->unit, .better = b,
                                 .value = gc_det_round(s.p50), .has_q = 1, .count = (double)s.count,
                                 .q = { gc_det_round(s.p1), gc_det_round(s.p5), gc_det_round(s.p50), gc_det_round(s.p95), gc_det_round(s.p99) } };
    }
    gc_det_gpu r = {
        .node = in->node, .index = in->local_index, .rank = in->rank, .uuid = in->uuid,
        .name = in->name, .status = status_name, .status_reason = g->status_reason,
        .sm_count = in->sm_count, .l2_bytes = (long long)in->l2_bytes,
        .mem_bytes = (long long)in->mem_bytes, .sm_clock_max_mhz = gc_det_round(in->sm_clock_mhz),
        .numa_node = in->numa_node, .pcie_gen = in->pcie_gen, .pcie_width = in->pcie_width,
        .pcie_max_gen = in->pcie_max_gen, .pcie_max_width = in->pcie_max_width,
        .nvlink_links = in->nvlink_links, .throttled_points = throttled,
        .hbm_ratio = gc_det_round(gc_param_value(g, "hbm_achieved_ratio", NAN)),
        .nvalues = n, .values = v,
    };
    cond_of(&g->start, &r.start);
    cond_of(&g->end, &r.end);
    int rc = gc_detect_add_gpu(d, &r, err);
    free(v);
    free(keys);
    return rc;
}

/* ---- verdict building ------------------------------------------------- */

/* Worst first; at equal severity: measurement status and physical limits,
 * then members (of a node), parameters, single points and distributions,
 * then the order they were found in. */
static int rule_rank(const gc_reason *r)
{
    if (!strcmp(r->rule, "status") || !strncmp(r->rule, "limit_", 6) || !strcmp(r->rule, "numa"))
        return 0;
    if (!strcmp(r->rule, "gpu"))
        return 1;
    if (!strcmp(r->rule, "distribution") || strchr(r->metric, '.'))
        return 3;
    return 2;
}

int gc_reason_cmp(const gc_reason *x, const gc_reason *y)
{
    if (x->severity != y->severity)
        return (y->severity > x->severity) - (y->severity < x->severity);
    int rx = rule_rank(x), ry = rule_rank(y);
    if (rx != ry)
        return (rx > ry) - (rx < ry);
    return (x > y) - (x < y);
}

const gc_reason *gc_verdict_worst_reason(const gc_verdict *v)
{
    const gc_reason *w = NULL;
    for (size_t k = 0; k < v->nreasons; k++)
        if (!w || gc_reason_cmp(&v->reasons[k], w) < 0)
            w = &v->reasons[k];
    return w;
}

static gc_verdict *new_verdict(gc_detect *d, int type)
{
    if (d->nv == d->capv) {
        size_t nc = d->capv ? d->capv * 2 : 64;
        gc_verdict *nv = realloc(d->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        d->v = nv;
        d->capv = nc;
    }
    gc_verdict *v = &d->v[d->nv++];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->gpu_index = -1;
    v->link_index = -1;
    return v;
}

static int add_reason(gc_verdict *v, const char *rule, const char *metric, double value,
                      double ref, double dev, const char *dev_unit, int sev, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));
static int add_reason(gc_verdict *v, const char *rule, const char *metric, double value,
                      double ref, double dev, const char *dev_unit, int sev, const char *fmt, ...)
{
    if ((v->nreasons & (v->nreasons - 1)) == 0) {   /* 0, 1, 2, 4, ...: grow */
        gc_reason *nr = realloc(v->reasons, (v->nreasons ? v->nreasons * 2 : 1) * sizeof *nr);
        if (!nr)
            return GC_ENOMEM;
        v->reasons = nr;
    }
    gc_reason *r = &v->reasons[v->nreasons++];
    memset(r, 0, sizeof *r);
    CPY(r->rule, rule);
    CPY(r->metric, metric);
    r->value = value;
    r->reference = ref;
    r->deviation = dev;
    CPY(r->deviation_unit, dev_unit);
    r->severity = sev;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
    if (sev > v->level)
        v->level = sev;
    return 0;
}

/* One-sided W1 between two quantile functions given at the knots
 * 0.01 0.05 0.5 0.95 0.99 (piecewise linear), over [0.05, 0.95]: the mass
 * moved in the bad direction, divided by the span. The outer 5% on each
 * side are left out: with a few hundred samples they are a handful of
 * samples, and mostly the host's noise (a launch-time p99 varies 2x
 * between healthy GPUs), not the GPU's. */
static double w1_bad(const double *x, const double *ref, int better)
{
    static const double qs[GC_DET_NQ] = { 0.01, 0.05, 0.5, 0.95, 0.99 };
    enum { FIRST = 1, LAST = 3 };
    double area = 0;
    for (int i = FIRST; i < LAST; i++) {
        double a = better == GC_BETTER_LOWER ? x[i] - ref[i] : ref[i] - x[i];
        double b = better == GC_BETTER_LOWER ? x[i + 1] - ref[i + 1] : ref[i + 1] - x[i + 1];
        double w = qs[i + 1] - qs[i];
        if (a >= 0 && b >= 0)
            area += 0.5 * (a + b) * w;
        else if (a > 0 || b > 0) {
            double pos = a > 0 ? a : b, neg = a > 0 ? -b : -a;
            area += 0.5 * pos * w * pos / (pos + neg);
        }
    }
    return area / (qs[LAST] - qs[FIRST]);
}

static void fmt_val(char *out, size_t cap, double v, const char *unit)
{
    if (unit && !strcmp(unit, "bytes_per_s"))
        snprintf(out, cap, "%.4g GB/s", v / 1e9);
    else
        snprintf(out, cap, "%.6g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
}

static const char *unit_of(const gc_detect *d, uint32_t key)
{
    return key < d->nunit && d->unit[key] ? d->unit[key] : "";
}

/* Column of one key over a peer group: (member, value index) pairs. */
typedef struct cell {
    uint32_t gi;
    uint32_t vi;
} cell;

static int judge_gpu_peers(gc_detect *d, const uint32_t *members, size_t nm, gc_verdict *verd)
{
    const gc_rules *R = d->r;
    size_t nk = d->keys.n;
    size_t *cnt = calloc(nk + 1, sizeof *cnt);
    size_t total = 0;
    if (!cnt)
        return GC_ENOMEM;
    for (size_t m = 0; m < nm; m++) {
        const grec *g = &d->g[members[m]];
        if (!strcmp(g->status, "failed"))
            continue;
        for (size_t i = 0; i < g->nv; i++)
            cnt[g->v[i].key + 1]++;
        total += g->nv;
    }
    for (size_t k = 0; k < nk; k++)
        cnt[k + 1] += cnt[k];
    cell *cells = malloc((total ? total : 1) * sizeof *cells);
    size_t *fill = malloc((nk ? nk : 1) * sizeof *fill);
    double *tmp = malloc((nm ? nm : 1) * sizeof *tmp), *dist = malloc((nm ? nm : 1) * sizeof *dist);
    if (!cells || !fill || !tmp || !dist) {
        free(cnt), free(cells), free(fill), free(tmp), free(dist);
        return GC_ENOMEM;
    }
    memcpy(fill, cnt, nk * sizeof *fill);
    for (size_t m = 0; m < nm; m++) {
        const grec *g = &d->g[members[m]];
        if (!strcmp(g->status, "failed"))
            continue;
        for (size_t i = 0; i < g->nv; i++)
            cells[fill[g->v[i].key]++] = (cell){ (uint32_t)m, (uint32_t)i };
    }
    int rc = 0;
    for (size_t k = 0; k < nk && !rc; k++) {
        size_t n = cnt[k + 1] - cnt[k];
        const cell *c = cells + cnt[k];
        if (n < (size_t)R->min_peers)
            continue;
        for (size_t i = 0; i < n; i++)
            tmp[i] = d->g[members[c[i].gi]].v[c[i].vi].v;
        double med = median_of(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(d->g[members[c[i].gi]].v[c[i].vi].v - med);
        double mad = median_of(tmp, n);
        double sigma = fmax(1.4826 * mad, R->sigma_floor_rel * fabs(med));
        /* distribution: the peers' median quantile function */
        double ref[GC_DET_NQ];
        int nq = 0, with_q = R->dist_enabled;
        for (size_t i = 0; i < n && with_q; i++)
            with_q = d->g[members[c[i].gi]].v[c[i].vi].has_q;
        double dmed = 0, dsig = 0, cmin = 0;
        if (with_q && fabs(med) > 0) {
            /* a point with far fewer samples than its peers' (a time
             * budget hit) has tails that are not comparable */
            for (size_t i = 0; i < n; i++)
                tmp[i] = d->g[members[c[i].gi]].v[c[i].vi].count;
            cmin = R->dist_min_samples_rel * median_of(tmp, n);
            nq = 1;
            for (int q = 0; q < GC_DET_NQ; q++) {
                for (size_t i = 0; i < n; i++)
                    tmp[i] = d->g[members[c[i].gi]].v[c[i].vi].q[q];
                ref[q] = median_of(tmp, n);
            }
            for (size_t i = 0; i < n; i++) {
                const val *x = &d->g[members[c[i].gi]].v[c[i].vi];
                dist[i] = w1_bad(x->q, ref, x->better) / fabs(ref[2] ? ref[2] : med);
                tmp[i] = dist[i];
            }
            dmed = median_of(tmp, n);
            for (size_t i = 0; i < n; i++)
                tmp[i] = fabs(dist[i] - dmed);
            dsig = fmax(1.4826 * median_of(tmp, n), R->dist_sigma_floor);
        }
        const char *name = d->keys.s[k], *unit = unit_of(d, (uint32_t)k);
        for (size_t i = 0; i < n && !rc; i++) {
            const val *x = &d->g[members[c[i].gi]].v[c[i].vi];
            gc_verdict *v = &verd[members[c[i].gi]];
            double bad = x->better == GC_BETTER_HIGHER ? med - x->v : x->v - med;
            double z = bad / sigma, rel = med != 0 ? bad / fabs(med) : 0;
            int sev = z >= R->z_degraded && rel >= R->rel_degraded ? GC_V_DEGRADED
                    : z >= R->z_suspect && rel >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
            if (sev) {
                char a[48], b[48];
                fmt_val(a, sizeof a, x->v, unit);
                fmt_val(b, sizeof b, med, unit);
                rc = add_reason(v, "peers", name, x->v, med, (x->v - med) / sigma, "robust_z", sev,
                                "%s vs peers' median %s (%+.1f%%, robust z %+.1f over %zu GPUs)",
                                a, b, 100.0 * (x->v - med) / fabs(med), (x->v - med) / sigma, n);
            }
            if (nq && !rc && x->count >= cmin) {
                double dz = (dist[i] - dmed) / dsig;
                int ds = dz >= R->dist_z && dist[i] >= R->dist_rel_degraded ? GC_V_DEGRADED
                       : dz >= R->dist_z && dist[i] >= R->dist_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
                if (ds)
                    rc = add_reason(v, "distribution", name, dist[i], dmed, dz, "wasserstein_rel", ds,
                                    "distribution %s than the peers': Wasserstein-1 %.1f%% of the median "
                                    "(peers %.1f%%); p50/p95/p99 %.5g/%.5g/%.5g vs %.5g/%.5g/%.5g",
                                    x->better == GC_BETTER_HIGHER ? "lower" : "higher",
                                    100 * dist[i], 100 * dmed, x->q[2], x->q[3], x->q[4], ref[2],
                                    ref[3], ref[4]);
            }
        }
    }
    free(cnt), free(cells), free(fill), free(tmp), free(dist);
    return rc;
}

static int judge_baseline(gc_detect *d, const grec *g, gc_verdict *v)
{
    const gc_rules *R = d->r;
    int rc = 0;
    for (size_t i = 0; i < g->nv && !rc; i++) {
        const val *x = &g->v[i];
        int own;
        double ref = baseline_ref(d->base, g->name, g->uuid, d->keys.s[x->key], &own);
        if (!isfinite(ref) || ref == 0)
            continue;
        double rel = (x->better == GC_BETTER_HIGHER ? ref - x->v : x->v - ref) / fabs(ref);
        int sev = rel >= R->base_rel_degraded ? GC_V_DEGRADED
                : rel >= R->base_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
        if (sev) {
            char a[48], b[48];
            fmt_val(a, sizeof a, x->v, unit_of(d, x->key));
            fmt_val(b, sizeof b, ref, unit_of(d, x->key));
            rc = add_reason(v, "baseline", d->keys.s[x->key], x->v, ref, (x->v - ref) / fabs(ref),
                            "relative", sev, "%s vs %s %s (%+.1f%%)", a,
                            own ? "this GPU's earlier" : "the SKU's baseline", b,
                            100 * (x->v - ref) / fabs(ref));
        }
    }
    return rc;
}

static void throttle_names(long long bits, char *out, size_t cap)
{
    static const char *const names[] = { "gpu_idle", "applications_clocks", "sw_power_cap",
                                         "hw_slowdown", "sync_boost", "sw_thermal",
                                         "hw_thermal", "hw_power_brake", "display_clocks" };
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < 9; i++)
        if (bits & (1ll << i))
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "", names[i]);
    if (!n)
        snprintf(out, cap, "0x%llx", bits);
}

static int judge_limits(gc_detect *d, const grec *g, int group_links, gc_verdict *v)
{
    const gc_rules *R = d->r;
    int rc = 0;
    if (!strcmp(g->status, "failed"))
        rc = add_reason(v, "status", "status", NAN, NAN, NAN, "", GC_V_FAILED, "measurement failed: %s",
                        g->reason[0] ? g->reason : "no reason given");
    else if (!strcmp(g->status, "partial"))
        rc = add_reason(v, "status", "status", NAN, NAN, NAN, "", GC_V_SUSPECT, "%s",
                        g->reason[0] ? g->reason : "some work items failed");
    if (!rc && g->pcie_width > 0 && g->pcie_max_width > 0 && g->pcie_width < g->pcie_max_width)
        rc = add_reason(v, "limit_pcie", "pcie_width", g->pcie_width, g->pcie_max_width,
                        (double)g->pcie_width / g->pcie_max_width, "ratio", GC_V_DEGRADED,
                        "PCIe link trained at x%d of x%d under traffic", g->pcie_width, g->pcie_max_width);
    if (!rc && g->pcie_gen > 0 && g->pcie_max_gen > 0 && g->pcie_gen < g->pcie_max_gen)
        rc = add_reason(v, "limit_pcie", "pcie_gen", g->pcie_gen, g->pcie_max_gen,
                        (double)g->pcie_gen / g->pcie_max_gen, "ratio", GC_V_SUSPECT,
                        "PCIe link at generation %d of %d under traffic", g->pcie_gen, g->pcie_max_gen);
    /* NVLinks: as many as the peers' most, or the baseline's */
    int want = group_links;
    if (d->base) {
        int own;
        double b = baseline_ref(d->base, g->name, g->uuid, "nvlink_links", &own);
        if (isfinite(b) && b > want)
            want = (int)b;
    }
    if (!rc && g->nvlink_links >= 0 && want > 0 && g->nvlink_links < want)
        rc = add_reason(v, "limit_nvlink", "nvlink_links", g->nvlink_links, want,
                        (double)g->nvlink_links / want, "ratio", GC_V_DEGRADED,
                        "%d of %d NVLinks active (peers/baseline have %d)", g->nvlink_links, want, want);
    const gc_det_cond *cs[2] = { &g->start, &g->end };
    const char *when[2] = { "start", "end" };
    int clock_done = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        const gc_det_cond *c = cs[i];
        if (!c->valid)
            continue;
        long long bad = c->throttle_reasons & R->throttle_bad_mask;
        char names[160];
        throttle_names(c->throttle_reasons, names, sizeof names);
        double ratio = g->sm_clock_max_mhz > 0 ? c->sm_clock_mhz / g->sm_clock_max_mhz : 1;
        if (bad && !clock_done) {
            int low = ratio < R->clock_floor;
            rc = add_reason(v, "limit_clock", "sm_clock_mhz", c->sm_clock_mhz, g->sm_clock_max_mhz,
                            ratio, "ratio", low ? GC_V_DEGRADED : GC_V_SUSPECT,
                            "SM clock %.0f of %.0f MHz at the %s of the run, held by %s", c->sm_clock_mhz,
                            g->sm_clock_max_mhz, when[i], names);
            clock_done = 1;
        }
    }
    /* ECC counters only grow: the larger of the start's and the end's */
    long long unc = -1, cor = -1;
    for (int i = 0; i < 2; i++)
        if (cs[i]->valid) {
            unc = cs[i]->ecc_uncorrected > unc ? cs[i]->ecc_uncorrected : unc;
            cor = cs[i]->ecc_corrected > cor ? cs[i]->ecc_corrected : cor;
        }
    if (!rc && unc > 0)
        rc = add_reason(v, "limit_ecc", "ecc_uncorrected_errors", (double)unc, 0, (double)unc, "count",
                        GC_V_DEGRADED, "%lld uncorrected ECC errors", unc);
    if (!rc && cor > R->ecc_corrected_suspect)
        rc = add_reason(v, "limit_ecc", "ecc_corrected_errors", (double)cor,
                        (double)R->ecc_corrected_suspect, (double)cor, "count", GC_V_SUSPECT,
                        "%lld corrected ECC errors (more than %lld)", cor, R->ecc_corrected_suspect);
    if (!rc && g->throttled_points > 0 && !clock_done)
        rc = add_reason(v, "limit_clock", "throttled_points", g->throttled_points, 0,
                        g->throttled_points, "count", GC_V_SUSPECT,
                        "%d points measured while the GPU was throttled", g->throttled_points);
    if (!rc && isfinite(g->hbm_ratio) && g->hbm_ratio > 0 && g->hbm_ratio < R->hbm_ratio_floor)
        rc = add_reason(v, "limit_ratio", "hbm_achieved_ratio", g->hbm_ratio, R->hbm_ratio_floor,
                        g->hbm_ratio, "ratio", GC_V_DEGRADED,
                        "HBM achieves %.0f%% of its theoretical bandwidth (floor %.0f%%)",
                        100 * g->hbm_ratio, 100 * R->hbm_ratio_floor);
    return rc;
}


/* ---- links ------------------------------------------------------------ */

static void end_name(const gc_det_end *e, char *out, size_t cap)
{
    if (e->is_gpu)
        snprintf(out, cap, "%s/gpu%d", e->node ? e->node : "?", e->gpu_index);
    else if (e->numa_node >= 0)
        snprintf(out, cap, "%s/host(numa%d)", e->node ? e->node : "?", e->numa_node);
    else
        snprintf(out, cap, "%s/host", e->node ? e->node : "?");
}

void gc_det_link_class(const gc_det_link *l, char *out, size_t cap)
{
    const char *e = l->engine ? l->engine : "", *p = l->peer_access ? l->peer_access : "";
    snprintf(out, cap, "%s %s %s %s%s%s%s%s%s", l->kind ? l->kind : "", l->benchmark ? l->benchmark : "",
             l->direction ? l->direction : "", l->memory ? l->memory : "", *e ? " " : "", e,
             *p ? " peer_access=" : "", p, l->concurrent ? " concurrent" : "");
}

/* robust statistics of the finite values of v (n): median and sigma */
static int robust(const double *v, size_t n, double floor_rel, double *med, double *sigma,
                  size_t *used)
{
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return GC_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            t[k++] = v[i];
    *med = median_of(t, k);
    for (size_t i = 0; i < k; i++)
        t[i] = fabs(t[i] - *med);
    *sigma = fmax(1.4826 * median_of(t, k), floor_rel * fabs(*med));
    *used = k;
    free(t);
    return 0;
}

static int judge_links(gc_detect *d, gc_verdict *lv, const long *lgpu_src, const long *lgpu_dst)
{
    const gc_rules *R = d->r;
    size_t nl = d->nl;
    if (!nl)
        return 0;
    double *vals = malloc(nl * sizeof *vals);
    if (!vals)
        return GC_ENOMEM;
    int rc = 0;
    char key[600], cls[160];
    for (size_t i = 0; i < nl && !rc; i++) {
        lrec *l = &d->l[i];
        const char *ss = lgpu_src[i] >= 0 ? d->g[lgpu_src[i]].name : "host";
        const char *ds = lgpu_dst[i] >= 0 ? d->g[lgpu_dst[i]].name : "host";
        gc_det_link_class(&l->l, cls, sizeof cls);
        snprintf(key, sizeof key, "%s | %s -> %s", cls, ss, ds);
        long id = strtab_id(&d->groups, key, 1);
        if (id < 0)
            rc = GC_ENOMEM;
        l->group = (uint32_t)id;
        gc_verdict *v = &lv[i];
        char a[96], b[96];
        end_name(&l->l.src, a, sizeof a);
        end_name(&l->l.dst, b, sizeof b);
        snprintf(v->subject, sizeof v->subject, "%.100s: %.70s -> %.70s", cls, a, b);
        CPY(v->node, l->l.src.is_gpu ? l->src_node : l->dst_node);
        v->link_index = (long)l->l.index;
        snprintf(v->group, sizeof v->group, "%.255s", key);
        v->used_baseline = d->base && baseline_knows(d->base, lgpu_src[i] >= 0 ? ss : ds,
                                                     l->l.src.is_gpu ? l->src_uuid : l->dst_uuid);
        /* physical limit: achieved / nominal of a one-way copy */
        int one_way = strcmp(l->dir, "bidir") != 0 && strcmp(l->mem, "pageable") != 0 &&
                      (!l->engine[0] || !strcmp(l->engine, "ce")) && !l->l.concurrent;
        double floor = !strcmp(l->kind, "pcie") ? R->pcie_lambda_floor
                     : !strcmp(l->kind, "nvlink") ? R->nvlink_lambda_floor : 0;
        if (!rc && one_way && floor > 0 && isfinite(l->l.lambda) && l->l.lambda < floor)
            rc = add_reason(v, "limit_lambda", "lambda", l->l.lambda, floor, l->l.lambda, "ratio",
                            GC_V_SUSPECT, "achieves %.0f%% of its nominal %.4g GB/s (floor %.0f%%)",
                            100 * l->l.lambda, l->l.nominal_bps / 1e9, 100 * floor);
        if (!rc && d->base) {
            const char *sku = lgpu_src[i] >= 0 ? ss : ds;
            const char *uuid = l->l.src.is_gpu ? l->src_uuid : l->dst_uuid;
            char bk[200];
            snprintf(bk, sizeof bk, "link:%s:beta_bps", cls);
            int own;
            double ref = baseline_ref(d->base, sku, uuid, bk, &own);
            double x = l->l.beta_bps;
            if (isfinite(ref) && ref > 0 && isfinite(x)) {
                double rel = (ref - x) / ref;
                int sev = rel >= R->base_rel_degraded ? GC_V_DEGRADED
                        : rel >= R->base_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
                if (sev)
                    rc = add_reason(v, "baseline", "beta_bps", x, ref, -rel, "relative", sev,
                                    "bandwidth %.4g GB/s vs %s %.4g GB/s (%+.1f%%)", x / 1e9,
                                    own ? "this GPU's earlier" : "the SKU's baseline", ref / 1e9,
                                    -100 * rel);
            }
        }
    }
    /* peers: links of the same class between the same SKUs */
    size_t ngroups = d->groups.n;
    size_t *cnt = calloc(ngroups + 1, sizeof *cnt);
    uint32_t *byg = malloc(nl * sizeof *byg);
    if (!cnt || !byg)
        rc = rc ? rc : GC_ENOMEM;
    for (size_t i = 0; !rc && i < nl; i++)
        cnt[d->l[i].group + 1]++;
    for (size_t k = 0; !rc && k < ngroups; k++)
        cnt[k + 1] += cnt[k];
    for (size_t i = 0; !rc && i < nl; i++)
        byg[cnt[d->l[i].group]++] = (uint32_t)i;   /* cnt[k] is now the end of group k */
    size_t start = 0;
    for (size_t k = 0; !rc && k < ngroups; k++) {
        size_t end = cnt[k], n = end - start;
        const uint32_t *m = byg + start;
        start = end;
        if (!n)
            continue;
        for (size_t j = 0; j < n; j++) {
            lv[m[j]].peers = (int)n;
            lv[m[j]].used_peers = n >= (size_t)R->min_peers;
            if (n < (size_t)R->min_peers)
                snprintf(lv[m[j]].note, sizeof lv[m[j]].note,
                         "%zu link(s) of this class (< %d): judged from %s", n, R->min_peers,
                         lv[m[j]].used_baseline ? "the baseline and limits alone"
                         : d->base ? "limits alone (the baseline has nothing for this SKU)"
                                   : "limits alone (no baseline given)");
        }
        if (n < (size_t)R->min_peers)
            continue;
        const char *what[2] = { "beta_bps", "top_bandwidth_bps" };
        for (int w = 0; w < 2 && !rc; w++) {
            for (size_t j = 0; j < n; j++)
                vals[j] = w ? d->l[m[j]].l.top_bps : d->l[m[j]].l.beta_bps;
            double med, sigma;
            size_t used;
            if ((rc = robust(vals, n, R->sigma_floor_rel, &med, &sigma, &used)))
                break;
            if (used < (size_t)R->min_peers || !(med > 0))
                continue;
            for (size_t j = 0; j < n && !rc; j++) {
                double x = vals[j];
                if (!isfinite(x))
                    continue;
                double z = (med - x) / sigma, rel = (med - x) / med;
                int sev = z >= R->z_degraded && rel >= R->rel_degraded ? GC_V_DEGRADED
                        : z >= R->z_suspect && rel >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
                if (sev)
                    rc = add_reason(&lv[m[j]], "peers", what[w], x, med, (x - med) / sigma, "robust_z",
                                    sev, "%s %.4g GB/s vs peers' median %.4g GB/s (%+.1f%%, robust z %+.1f over %zu links)",
                                    w ? "bandwidth at the largest size" : "model bandwidth", x / 1e9,
                                    med / 1e9, -100 * rel, (x - med) / sigma, used);
            }
        }
    }
    free(cnt), free(byg), free(vals);
    return rc;
}

/* ---- finish ----------------------------------------------------------- */

static int by_group(const void *a, const void *b, void *ctx)
{
    const gc_detect *d = ctx;
    uint32_t x = d->g[*(const uint32_t *)a].group, y = d->g[*(const uint32_t *)b].group;
    if (x != y)
        return (x > y) - (x < y);
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static long gpu_of(strtab *ids, const gc_det_end *e)
{
    if (!e->is_gpu)
        return -1;
    char k[GC_NODE_MAX + 16];
    snprintf(k, sizeof k, "%s\x1f%d", e->node ? e->node : "", e->gpu_index);
    return strtab_id(ids, k, 0);
}

static int judge_nodes(gc_detect *d, const long *lsrc, const long *ldst)
{
    strtab nodes = { 0 };
    size_t first = d->nv;
    int rc = 0;
    /* node verdicts in order of first appearance */
    for (size_t i = 0; i < d->ng + d->nl && !rc; i++) {
        const char *names[2] = { NULL, NULL };
        if (i < d->ng)
            names[0] = d->g[i].node;
        else {
            names[0] = d->l[i - d->ng].src_node;
            names[1] = d->l[i - d->ng].dst_node;
        }
        for (int k = 0; k < 2 && !rc; k++) {
            if (!names[k] || !names[k][0] || strtab_id(&nodes, names[k], 0) >= 0)
                continue;
            if (strtab_id(&nodes, names[k], 1) < 0) {
                rc = GC_ENOMEM;
                break;
            }
            gc_verdict *v = new_verdict(d, GC_SUBJ_NODE);
            if (!v) {
                rc = GC_ENOMEM;
                break;
            }
            CPY(v->subject, names[k]);
            CPY(v->node, names[k]);
            snprintf(v->group, sizeof v->group, "node");
        }
    }
    for (size_t i = 0; i < d->ng + d->nl && !rc; i++) {
        const gc_verdict *s = &d->v[i];
        const char *names[2] = { s->node, NULL };
        if (i >= d->ng) {
            names[0] = d->l[i - d->ng].src_node;
            names[1] = strcmp(d->l[i - d->ng].dst_node, names[0]) ? d->l[i - d->ng].dst_node : NULL;
        } else {
            d->v[first + strtab_id(&nodes, names[0], 0)].peers++;
        }
        if (s->level == GC_V_OK)
            continue;
        for (int k = 0; k < 2 && !rc; k++) {
            if (!names[k] || !names[k][0])
                continue;
            gc_verdict *v = &d->v[first + strtab_id(&nodes, names[k], 0)];
            const gc_reason *w = gc_verdict_worst_reason(s);
            rc = add_reason(v, i < d->ng ? "gpu" : "link", s->subject, NAN, NAN, NAN, "", s->level,
                            "%.60s: %.130s", w ? w->metric : "", w ? w->detail : "");
        }
    }
    /* a slow host NUMA node: every GPU near it has a non-ok host link,
     * while the node's other GPUs' host links are fine */
    for (size_t nv = first; nv < d->nv && !rc; nv++) {
        gc_verdict *v = &d->v[nv];
        /* per host NUMA node: its GPUs, and those with a degraded host link */
        uint64_t bad[64] = { 0 }, all[64] = { 0 };
        for (size_t i = 0; i < d->nl; i++) {
            const lrec *l = &d->l[i];
            if (strcmp(l->bench, "xfer") || l->l.concurrent)
                continue;
            long gi = l->l.src.is_gpu ? lsrc[i] : ldst[i];
            if (gi < 0 || strcmp(d->g[gi].node, v->node))
                continue;
            int numa = d->g[gi].numa_node;
            if (numa < 0 || numa >= 64)
                continue;
            uint64_t bit = 1ull << (d->g[gi].index & 63);
            all[numa] |= bit;
            if (d->v[d->ng + i].level >= GC_V_DEGRADED)
                bad[numa] |= bit;
        }
        for (int k = 0; k < 64 && !rc; k++) {
            int cnt = __builtin_popcountll(all[k]), healthy_elsewhere = 0;
            for (int k2 = 0; k2 < 64; k2++)
                healthy_elsewhere |= k2 != k && all[k2] && bad[k2] != all[k2];
            if (cnt >= 2 && bad[k] == all[k] && healthy_elsewhere)
                rc = add_reason(v, "numa", "host_numa_node", k, NAN, NAN, "", GC_V_DEGRADED,
                                "host copies of all %d GPUs near host NUMA node %d are slow while the "
                                "node's other GPUs' are not: look at that NUMA node's memory or root complex",
                                cnt, k);
        }
    }
    strtab_free(&nodes);
    return rc;
}

int gc_detect_finish(gc_detect *d, gc_err *err)
{
    if (d->finished)
        return 0;
    d->finished = 1;
    const gc_rules *R = d->r;
    if (d->base && baseline_seal(d->base))
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    /* preallocate: GPUs, links, nodes (at most one per GPU and two per link) */
    size_t want = 2 * (d->ng + 2 * d->nl) + 1;
    gc_verdict *nv = realloc(d->v, want * sizeof *nv);
    if (!nv)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    d->v = nv;
    d->capv = want;
    strtab ids = { 0 };
    uint32_t *order = malloc((d->ng ? d->ng : 1) * sizeof *order);
    long *lsrc = malloc((d->nl ? d->nl : 1) * sizeof *lsrc);
    long *ldst = malloc((d->nl ? d->nl : 1) * sizeof *ldst);
    int rc = order && lsrc && ldst ? 0 : GC_ENOMEM;
    char key[400];
    for (size_t i = 0; i < d->ng && !rc; i++) {
        grec *g = &d->g[i];
        snprintf(key, sizeof key, "%s, %lld SMs, %lld MiB, L2 %lld MiB, PCIe gen%d x%d", g->name,
                 g->sm_count, g->mem_bytes >> 20, g->l2_bytes >> 20, g->pcie_max_gen,
                 g->pcie_max_width);
        long id = strtab_id(&d->groups, key, 1);
        snprintf(key, sizeof key, "%s\x1f%d", g->node, g->index);
        if (id < 0 || strtab_id(&ids, key, 1) != (long)i)
            rc = id < 0 ? GC_ENOMEM : GC_EINVAL;
        g->group = (uint32_t)id;
        order[i] = (uint32_t)i;
        gc_verdict *v = new_verdict(d, GC_SUBJ_GPU);
        snprintf(v->subject, sizeof v->subject, "%s/gpu%d", g->node, g->index);
        CPY(v->node, g->node);
        v->gpu_index = g->index;
        CPY(v->uuid, g->uuid);
        if (id >= 0)
            snprintf(v->group, sizeof v->group, "%.255s", d->groups.s[id]);
        v->used_baseline = d->base && baseline_knows(d->base, g->name, g->uuid);
    }
    if (rc == GC_EINVAL) {
        rc = gc_fail(err, GC_EINVAL, "detect: two GPUs named %s", key);
        goto out;
    }
    for (size_t i = 0; i < d->nl && !rc; i++) {
        link_ptrs(&d->l[i]);
        lsrc[i] = gpu_of(&ids, &d->l[i].l.src);
        ldst[i] = gpu_of(&ids, &d->l[i].l.dst);
        if (!new_verdict(d, GC_SUBJ_LINK))
            rc = GC_ENOMEM;
    }
    if (rc)
        goto nomem;
    qsort_r(order, d->ng, sizeof *order, by_group, d);
    for (size_t s = 0; s < d->ng && !rc;) {
        size_t e = s;
        int links = 0;
        while (e < d->ng && d->g[order[e]].group == d->g[order[s]].group) {
            if (d->g[order[e]].nvlink_links > links)
                links = d->g[order[e]].nvlink_links;
            e++;
        }
        size_t n = e - s;
        if (n >= (size_t)R->min_peers)
            rc = judge_gpu_peers(d, order + s, n, d->v);
        for (size_t j = s; j < e && !rc; j++) {
            const grec *g = &d->g[order[j]];
            gc_verdict *v = &d->v[order[j]];
            v->peers = (int)n;
            v->used_peers = n >= (size_t)R->min_peers;
            if (n < (size_t)R->min_peers)
                snprintf(v->note, sizeof v->note,
                         "%zu GPU(s) of this SKU and topology in the run (< %d): judged from %s", n,
                         R->min_peers,
                         v->used_baseline ? "the baseline and limits alone"
                         : d->base ? "limits alone (the baseline has nothing for this SKU)"
                                   : "limits alone (no baseline given)");
            if (v->used_baseline)
                rc = judge_baseline(d, g, v);
            if (!rc)
                rc = judge_limits(d, g, links, v);
        }
        s = e;
    }
    if (!rc)
        rc = judge_links(d, d->v + d->ng, lsrc, ldst);
    if (!rc)
        rc = judge_nodes(d, lsrc, ldst);
nomem:
    if (rc)
        rc = gc_fail(err, GC_ENOMEM, "detect: out of memory");
out:
    strtab_free(&ids);
    free(order);
    free(lsrc);
    free(ldst);
    return rc;
}

size_t gc_detect_count(const gc_detect *d) { return d->nv; }
const gc_verdict *gc_detect_verdict(const gc_detect *d, size_t i) { return i < d->nv ? &d->v[i] : NULL; }

int gc_detect_worst(const gc_detect *d)
{
    int w = GC_V_OK;
    for (size_t i = 0; i < d->nv; i++)
        if (d->v[i].level > w)
            w = d->v[i].level;
    return w;
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const char *const type_names[] = { "gpu", "link", "node" };

static json_t *verdict_json(const gc_verdict *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "subject", json_string(v->subject));
    json_object_set_new(o, "type", json_string(type_names[v->type]));
    json_object_set_new(o, "node", json_string(v->node));
    json_object_set_new(o, "gpu_index", v->gpu_index >= 0 ? json_integer(v->gpu_index) : json_null());
    json_object_set_new(o, "uuid", v->uuid[0] ? json_string(v->uuid) : json_null());
    json_object_set_new(o, "link", v->link_index >= 0 ? json_integer(v->link_index) : json_null());
    json_object_set_new(o, "verdict", json_string(gc_verdict_name(v->level)));
    json_object_set_new(o, "peer_group", json_string(v->group));
    json_object_set_new(o, "peers", json_integer(v->peers));
    json_t *basis = json_array();
    if (v->type != GC_SUBJ_NODE) {
        if (v->used_peers)
            json_array_append_new(basis, json_string("peers"));
        if (v->used_baseline)
            json_array_append_new(basis, json_string("baseline"));
        json_array_append_new(basis, json_string("limits"));
    } else {
        json_array_append_new(basis, json_string("members"));
    }
    json_object_set_new(o, "basis", basis);
    if (v->note[0])
        json_object_set_new(o, "note", json_string(v->note));
    json_t *rs = json_array();
    for (size_t i = 0; i < v->nreasons; i++) {
        const gc_reason *r = &v->reasons[i];
        json_t *x = json_object();
        json_object_set_new(x, "rule", json_string(r->rule));
        json_object_set_new(x, "metric", json_string(r->metric));
        json_object_set_new(x, "value", num_or_null(r->value));
        json_object_set_new(x, "reference", num_or_null(r->reference));
        json_object_set_new(x, "deviation", num_or_null(r->deviation));
        json_object_set_new(x, "deviation_unit", r->deviation_unit[0] ? json_string(r->deviation_unit)
                                                                       : json_null());
        json_object_set_new(x, "severity", json_string(gc_verdict_name(r->severity)));
        json_object_set_new(x, "detail", json_string(r->detail));
        json_array_append_new(rs, x);
    }
    json_object_set_new(o, "reasons", rs);
    return o;
}

char *gc_detect_json(const gc_detect *d, int indent)
{
    /* one element at a time: the whole array as a tree would hold every
     * verdict's objects at once */
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[len++] = '[';
    for (size_t i = 0; i < d->nv; i++) {
        json_t *o = verdict_json(&d->v[i]);
        char *t = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(o);
        if (!t) {
            free(out);
            return NULL;
        }
        size_t lines = 1;
        for (const char *p = t; *p; p++)
            lines += *p == '\n';
        size_t need = len + strlen(t) + (lines + 1) * (size_t)(indent + 1) + 8;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(t);
                free(out);
                return NULL;
            }
            out = n;
        }
        if (i)
            out[len++] = ',';
        out[len++] = '\n';
        for (int k = 0; k < indent + 1; k++)
            out[len++] = ' ';
        for (const char *p = t; *p; p++) {
            out[len++] = *p;
            if (*p == '\n')
                for (int k = 0; k < indent + 1; k++)
                    out[len++] = ' ';
        }
        free(t);
    }
    if (d->nv) {
        out[len++] = '\n';
        for (int k = 0; k < indent; k++)
            out[len++] = ' ';
    }
    out[len++] = ']';
    out[len] = '\0';
    return out;
}

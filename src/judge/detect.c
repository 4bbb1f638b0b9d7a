/* Verdicts from peers, distributions, a baseline and physical limits. See
 * detect.h for the rules; configs/rules.cfg for their thresholds.
 *
 * Memory is a compact record per GPU (its judged values: parameters and
 * point medians with five quantiles) and per link; judging is a pass per
 * peer group over columns of values (CSR by value key), so 1024 GPUs of
 * the default plan (~1000 values each) take a fraction of a second.
 *
 * This file: the records, made, added (a GPU's values, a link named by
 * detect_links.c, the in-memory census path), released and freed. It is
 * layer 3 of detect (detect_int.h): it calls the links' names, the
 * baseline and the verdicts' strings below it; only the order of judging
 * (detect_finish.c, above) calls it. The baseline is in detect_baseline.c,
 * the rules in detect_rules.c, detect_peers.c and detect_links.c, the
 * verdicts and their JSON in detect_verdict.c, the helpers the files share
 * in detect_core.c. */
#include "judge/detect.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "analyze/derive.h"
#include "judge/detect_int.h"
#include "util/g10.h"
#include "util/grow.h"
#include "util/stats.h"

/* ---- records ---------------------------------------------------------- */

gc_detect *gc_detect_new(const gc_rules *rules, const gc_baseline *base)
{
    gc_detect *d = calloc(1, sizeof *d);
    if (d) {
        d->r = rules;
        d->base = (gc_baseline *)base;   /* sealed (sorted) on first use */
    }
    return d;
}

void gc_detect_set_plan(gc_detect *d, const char *plan)
{
    snprintf(d->plan, sizeof d->plan, "%s", plan ? plan : "");
}

void det_fin_free(gc_detect *d)
{
    det_fin *F = &d->fin;
    gc_strtab_free(&F->ids);
    gc_strtab_free(&d->nodes);
    free(d->gnode);
    free(d->ls);
    free(d->net_slow);
    d->gnode = NULL;
    d->ls = NULL;
    d->net_slow = NULL;
    d->nnet_slow = 0;
    free(F->order);
    free(F->lsrc);
    free(F->ldst);
    F->order = NULL;
    F->lsrc = F->ldst = NULL;
}

void gc_detect_free(gc_detect *d)
{
    if (!d)
        return;
    if (d->fin.state == FIN_STARTED) {   /* started, never finished: its thread ends first */
        if (!d->fin.rc && d->fin.threaded)
            pthread_join(d->fin.peers, NULL);
        det_fin_free(d);
    }
    for (size_t i = 0; i < d->ng; i++)
        free(d->g[i].rv);
    gc_blocks_free(&d->vals);
    for (size_t i = 0; i < d->nv; i++)
        free(d->v[i].reasons);
    free(d->g);
    free(d->l);
    free(d->v);
    gc_strtab_free(&d->keys);
    for (size_t i = 0; i < d->nunit; i++)
        free(d->unit[i]);
    free(d->unit);
    free(d->seen);
    gc_strtab_free(&d->groups);
    gc_strtab_free(&d->vstr);
    gc_blocks_free(&d->strs);
    gc_strtab_free(&d->sigs);
    free(d->sig_key);
    free(d);
}

void gc_detect_release(gc_detect *d)
{
    for (size_t i = 0; d && d->finished && i < d->ng; i++) {
        free(d->g[i].rv);
        d->g[i].v = d->g[i].rv = NULL;
        d->g[i].nv = d->g[i].nrv = 0;
    }
    if (d && d->finished) {
        gc_blocks_free(&d->vals);
        free(d->l);
        d->l = NULL;
        d->nl = d->capl = 0;
    }
}

void gc_detect_order_next(gc_detect *d, size_t pos)
{
    d->next_order = pos + 1;
}

/* A GPU's values lie next to those of the GPU added before it, on huge
 * pages, not in 16,384 heap blocks of their own. */
#define VALS_BLOCK_BYTES (16u << 20)

int gc_detect_add_gpu(gc_detect *d, const gc_det_gpu *in, gc_err *err)
{
    if (gc_grow((void **)&d->g, &d->capg, d->ng + 1, sizeof *d->g))
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
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
    CPY(g->pcie_switch, in->pcie_switch ? in->pcie_switch : "");
    g->nvlink_links = in->nvlink_links;
    g->start = in->start;
    g->end = in->end;
    g->throttled_points = in->throttled_points;
    g->shared_points = in->shared_points;
    g->points = in->points;
    g->nxt = in->nxtop < GC_DET_XTOP ? in->nxtop : GC_DET_XTOP;
    memcpy(g->xt, in->xtop, (size_t)g->nxt * sizeof *g->xt);
    g->sustain = in->sustain;
    for (size_t b = 0; b < gc_bench_ndefs && b < GC_DET_NBENCH; b++)
        g->method[b] = (uint16_t)gc_det_gpu_method(in, (int)b);
    g->order = d->next_order;
    d->ordered |= d->next_order != 0;
    d->next_order = 0;
    g->keys_rising = 1;
    size_t nv_max = in->nvalues ? in->nvalues : 1;
    g->v = gc_blocks_take(&d->vals, nv_max * sizeof *g->v, VALS_BLOCK_BYTES);
    if (!g->v)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    for (size_t i = 0; i < in->nvalues; i++) {
        const gc_det_value *x = &in->values[i];
        if (!isfinite(x->value) || !x->better)
            continue;
        long k = gc_strtab_id(&d->keys, x->name, 1);
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
        if (x->remeasure) {   /* kept apart: it confirms or not, it is not judged */
            if (!g->rv && !(g->rv = malloc((in->nvalues ? in->nvalues : 1) * sizeof *g->rv)))
                return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        } else if (d->seen[k] == d->ng + 1)
            continue;   /* a key twice in one GPU: the first counts */
        else
            d->seen[k] = (uint32_t)d->ng + 1;
        if (!x->remeasure && g->nv && g->v[g->nv - 1].key >= (uint32_t)k)
            g->keys_rising = 0;
        val *o = x->remeasure ? &g->rv[g->nrv++] : &g->v[g->nv++];
        o->key = (uint32_t)k;
        o->better = (int8_t)x->better;
        o->v = (float)x->value;
        o->count = (float)x->count;
        o->shared = x->shared != 0;
        o->has_q = 0;
        if (x->has_q) {
            o->has_q = 1;
            for (int q = 0; q < GC_DET_NQ; q++) {
                o->q[q] = (float)x->q[q];
                if (!isfinite(o->q[q]))
                    o->has_q = 0;
            }
        }
    }
    gc_blocks_keep(&d->vals, g->v, nv_max * sizeof *g->v, g->nv * sizeof *g->v);
    d->ng++;
    return 0;
}

/* det_vstr of a link's field k: links come in runs that share their kind,
 * class, node and GPU, so the field's last string is tried first (a
 * compare, not a hash: ten fields a link, 491,520 links at 16,384 GPUs). */
static const char *link_str(gc_detect *d, int k, const char *s, size_t cap)
{
    const char *last = d->link_last[k];
    if (last && s && strlen(s) < cap && !strcmp(last, s))
        return last;
    return d->link_last[k] = det_vstr(d, s, cap);
}

int gc_detect_add_link(gc_detect *d, const gc_det_link *in, gc_err *err)
{
    if (gc_grow((void **)&d->l, &d->capl, d->nl + 1, sizeof *d->l))
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    lrec *l = &d->l[d->nl];
    memset(l, 0, sizeof *l);
    l->l = *in;
    /* cut where the record's fixed arrays once cut them */
    gc_det_link *x = &l->l;
    if (!(x->kind = link_str(d, 0, in->kind, 16)) || !(x->benchmark = link_str(d, 1, in->benchmark, 8)) ||
        !(x->direction = link_str(d, 2, in->direction, 8)) || !(x->memory = link_str(d, 3, in->memory, 12)) ||
        !(x->engine = link_str(d, 4, in->engine, 8)) ||
        !(x->peer_access = link_str(d, 5, in->peer_access, 8)) ||
        !(x->src.node = link_str(d, 6, in->src.node, GC_NODE_MAX)) ||
        !(x->dst.node = link_str(d, 7, in->dst.node, GC_NODE_MAX)) ||
        !(x->src.uuid = link_str(d, 8, in->src.uuid, 48)) || !(x->dst.uuid = link_str(d, 9, in->dst.uuid, 48)) ||
        det_link_names(d, l))
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    d->nl++;
    return 0;
}

void gc_detect_last_link_names(const gc_detect *d, const char **subject, const char **node)
{
    const lrec *l = d->nl ? &d->l[d->nl - 1] : NULL;
    *subject = l ? l->subject : NULL;
    *node = l ? (l->l.src.is_gpu ? l->l.src.node : l->l.dst.node) : NULL;   /* as link_first sets it */
}

/* ---- the in-memory census path ---------------------------------------- */

/* As the catalogue writes a real (%.10g), so both paths judge the same. */
double gc_det_round(double v)
{
    return gc_g10_round(v);
}

int gc_det_better_of_unit(const char *unit)
{
    if (!strcmp(unit, "bytes_per_s") || !strcmp(unit, "ops_per_cycle_per_sm"))
        return GC_BETTER_HIGHER;
    if (!strcmp(unit, "cycles") || !strcmp(unit, "ns"))
        return GC_BETTER_LOWER;
    return 0;
}

int gc_det_ctx_observed(const char *key)
{
    static const char *const obs[] = { "sm_clock_mhz_measured", "timer_cost_median_cycles", "loaded_s",
                                       "ecc_corrected_new", "ecc_uncorrected_new", "remapped_rows_new",
                                       "slowdown_reasons", "xid_events", "fma_iters", "bytes_moved",
                                       "theoretical_bps", "nominal_bps", "pcie_gen", "pcie_width",
                                       "confirm", "host_huge_fraction",
                                       /* a host-bound point's re-measure figures (remeasure.h): the
                                        * host's noise, not what was measured */
                                       "spread", "spread_low", "spread_first", "spread_low_first",
                                       "spread_last", "spread_low_last", "remeasures", "median_moved",
                                       "median_stable", "host_noisy", "capability_bps" };
    for (size_t i = 0; i < sizeof obs / sizeof *obs; i++)
        if (key[0] == obs[i][0] && !strcmp(key, obs[i]))   /* the first byte first: most differ there */
            return 1;
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
        if (dup || gc_det_ctx_observed(v->key))
            continue;
        if (v->is_str)
            n += snprintf(out + n, cap - (size_t)n, " %s=%s", v->key, v->str);
        else
            n += snprintf(out + n, cap - (size_t)n, " %s=%.10g", v->key, gc_det_round(v->num));
    }
}

void gc_det_sustain_init(gc_det_sustain *s)
{
    *s = (gc_det_sustain){ NAN, NAN, NAN, 0, NAN };
}

void gc_det_sustain_param(gc_det_sustain *s, const char *name, double value)
{
    double v = gc_det_round(value);
    if (!strcmp(name, "sustained_clock_ratio"))
        s->clock_ratio = v;
    else if (!strcmp(name, "sm_clock_p5_ratio"))
        s->p5_ratio = v;
    else if (!strcmp(name, "time_to_first_throttle_s"))
        s->onset_s = isnan(value) ? INFINITY : v;   /* null in a catalogue: never */
    else if (!strcmp(name, "sustain_slowdown_reasons"))
        s->reasons = (long long)value;
    else if (!strcmp(name, "sustain_xid_events"))
        s->xid_events = v;
}

static void cond_of(const gc_conditions *c, gc_det_cond *o)
{
    o->valid = c->valid;
    o->sm_clock_mhz = gc_det_round(c->sm_clock_mhz);
    o->throttle_reasons = (long long)c->throttle_reasons;
    o->ecc_corrected = c->ecc_corrected;
    o->ecc_uncorrected = c->ecc_uncorrected;
}

/* gc_det_round(v) as the float the detector keeps, without formatting where the 10-digit rounding
 * (within 5e-10 of v, relative) cannot cross a float's rounding boundary:
 * the detector keeps floats. */
static double round_float(double v)
{
    double a = fabs(v);
    if (a > 1e-30 && a < 1e30) {
        float f = (float)v;
        double lo = ((double)f + (double)nextafterf(f, -INFINITY)) / 2;
        double hi = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        if (v - lo > 1e-9 * a && hi - v > 1e-9 * a)
            return f;
    }
    return gc_det_round(v);   /* gc_detect_add_gpu makes it a float */
}

/* The point's key (gc_det_point_key) as the detector keeps it; NULL: out
 * of memory. */
static const char *point_key(gc_detect *d, const gc_point *p)
{
    char sig[1024];
    size_t bl = strnlen(p->bench, sizeof p->bench), ml = strnlen(p->metric, sizeof p->metric);
    memcpy(sig, p->bench, bl);   /* "%s\x1f%s" */
    sig[bl] = '\x1f';
    memcpy(sig + bl + 1, p->metric, ml);
    size_t n = bl + 1 + ml;
    sig[n] = '\0';
    const gc_ctx *c = &p->ctx;
    for (int i = 0; i < c->n && n < sizeof sig; i++) {
        const gc_ctxv *v = &c->v[i];
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = c->v[j].key[0] == v->key[0] && strcmp(c->v[j].key, v->key) == 0;
        if (dup || gc_det_ctx_observed(v->key))
            continue;
        size_t kl = strnlen(v->key, sizeof v->key);
        const char *s = v->str;
        size_t sl = v->is_str ? strnlen(s, sizeof v->str) : 0;
        if (n + kl + sl + 24 >= sizeof sig) {
            n = sizeof sig;
            break;
        }
        sig[n++] = '\x1f';
        memcpy(sig + n, v->key, kl);
        n += kl;
        if (v->is_str) {
            sig[n++] = '=';
            memcpy(sig + n, s, sl);
            n += sl;
        } else {
            uint64_t bits;
            memcpy(&bits, &v->num, sizeof bits);
            sig[n++] = '#';   /* "#%016llx", without snprintf's cost (every point of every GPU) */
            for (int h = 15; h >= 0; h--)
                sig[n++] = "0123456789abcdef"[(bits >> (4 * h)) & 15];
        }
        sig[n] = '\0';
    }
    char key[160];
    if (n >= sizeof sig) {   /* too long for a signature: formatted each time */
        gc_det_point_key(key, sizeof key, p->bench, p->metric, c);
        long k = gc_strtab_id(&d->vstr, key, 1);
        return k < 0 ? NULL : d->vstr.s[k];
    }
    long id = gc_strtab_id(&d->sigs, sig, 0);
    if (id >= 0)
        return d->vstr.s[d->sig_key[id]];
    /* kept apart from d->keys: gc_detect_add_gpu numbers the keys (and
     * takes their units) in the order the GPUs' values come */
    gc_det_point_key(key, sizeof key, p->bench, p->metric, c);
    long k = gc_strtab_id(&d->vstr, key, 1);
    id = k < 0 ? -1 : gc_strtab_id(&d->sigs, sig, 1);
    if (id < 0)
        return NULL;
    if ((size_t)id >= d->nsig_key) {
        size_t nc = d->sigs.cap;
        uint32_t *ns = realloc(d->sig_key, nc * sizeof *ns);
        if (!ns)
            return NULL;
        d->sig_key = ns;
        d->nsig_key = nc;
    }
    d->sig_key[id] = (uint32_t)k;
    return d->vstr.s[k];
}

int gc_detect_add_census_gpu(gc_detect *d, const gc_gpu *g, const gc_summary *sums,
                             const char *status_name, gc_err *err)
{
    const gc_gpu_info *in = &g->info;
    size_t cap = g->nparams + g->npoints;
    gc_det_value *v = calloc(cap ? cap : 1, sizeof *v);
    if (!v)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < g->nparams; i++) {
        int b = gc_rules_param(d->r, g->params[i].name);
        if (b)
            v[n++] = (gc_det_value){ .name = g->params[i].name, .unit = g->params[i].unit,
                                     .better = b, .value = round_float(g->params[i].value) };
    }
    int throttled = 0, shared = 0, nxt = 0;
    gc_det_xtop xt[GC_DET_XTOP];
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        throttled += (p->flags & GC_FLAG_THROTTLED) != 0;
        shared += (p->flags & GC_FLAG_SHARED) != 0;
        int b = gc_det_better_of_unit(p->unit);
        if (p->status == GC_PT_OK && gc_point_count(p) && !strcmp(p->bench, "xfer") &&
            !strcmp(p->metric, "bandwidth")) {
            gc_summary xs;
            if (sums)
                xs = sums[i];
            else
                gc_point_summary(p, &xs);
            gc_det_xtop_add(xt, &nxt, gc_ctx_str(&p->ctx, "direction", NULL), gc_ctx_str(&p->ctx, "memory", NULL),
                            gc_ctx_str(&p->ctx, "engine", ""), gc_ctx_num(&p->ctx, "concurrent", 0) != 0,
                            gc_ctx_num(&p->ctx, "size_bytes", NAN), round_float(xs.p5), round_float(xs.p50),
                            round_float(xs.p95));
        }
        if (!d->r->judge_points || !b || p->status != GC_PT_OK || !gc_point_count(p) ||
            gc_rules_skips(d->r, p->bench))
            continue;
        gc_summary s;
        if (sums)
            s = sums[i];
        else
            gc_point_summary(p, &s);
        const char *key = point_key(d, p);
        if (!key) {
            free(v);
            return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        }
        /* kept as floats (gc_detect_add_gpu): rounded as the catalogue
         * writes them, then to float, as check's reader does */
        double p50 = round_float(s.p50);
        v[n++] = (gc_det_value){ .name = key, .unit = p->unit, .better = b,
                                 .value = p50, .has_q = 1, .count = (double)s.count,
                                 .shared = (p->flags & GC_FLAG_SHARED) != 0,
                                 .remeasure = gc_ctx_get(&p->ctx, "confirm") != NULL,
                                 .q = { round_float(s.p1), round_float(s.p5), p50, round_float(s.p95), round_float(s.p99) } };
    }
    gc_det_gpu r = {
        .node = in->node, .index = in->local_index, .rank = in->rank, .uuid = in->uuid,
        .name = in->name, .status = status_name, .status_reason = g->status_reason,
        .sm_count = in->sm_count, .l2_bytes = (long long)in->l2_bytes,
        .mem_bytes = (long long)in->mem_bytes, .sm_clock_max_mhz = gc_det_round(in->sm_clock_mhz),
        .numa_node = in->numa_node, .pcie_gen = in->pcie_gen, .pcie_width = in->pcie_width,
        .pcie_max_gen = in->pcie_max_gen, .pcie_max_width = in->pcie_max_width,
        .pcie_switch = in->pcie_switch, .nvlink_links = in->nvlink_links, .throttled_points = throttled,
        .shared_points = shared, .points = (int)g->npoints,
        .hbm_ratio = gc_det_round(gc_param_value(g, "hbm_achieved_ratio", NAN)),
        .nvalues = n, .values = v,
    };
    r.nxtop = nxt;
    memcpy(r.xtop, xt, (size_t)nxt * sizeof *xt);
    gc_method methods[GC_MAX_METHODS];
    r.nmethods = gc_gpu_methods_of(g, methods);
    r.methods = methods;
    cond_of(&g->start, &r.start);
    cond_of(&g->end, &r.end);
    gc_det_sustain_init(&r.sustain);
    for (size_t i = 0; i < g->nparams; i++)
        gc_det_sustain_param(&r.sustain, g->params[i].name, g->params[i].value);
    int rc = gc_detect_add_gpu(d, &r, err);
    free(v);
    return rc;
}

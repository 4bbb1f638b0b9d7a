/* Links as catalogue.json and the node files hold them: a small string
 * builder (numbers as %.10g, null where not finite), so the catalogue writer
 * only splices the array in. The records and models: links.c. */
#include "analyze/links_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lk_kind_names[] = { "pcie", "nvlink", "pcie", "p2p_staged", "network" };

static void kstr_or_null(gc_jw *w, const char *k, const char *v, int ok)
{
    if (ok)
        gc_jw_kstr(w, k, v);
    else
        gc_jw_knull(w, k);
}

static void kint_or_null(gc_jw *w, const char *k, long long v, int ok)
{
    if (ok)
        gc_jw_kint(w, k, v);
    else
        gc_jw_knull(w, k);
}

static void kbool(gc_jw *w, const char *k, int v)
{
    gc_jw_key(w, k);
    gc_jw_puts(w, v ? "true" : "false");
}

static void end_json(gc_jw *w, const char *k, const lk_end *e)
{
    gc_jw_key(w, k);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "type", e->host ? "host" : "gpu");
    gc_jw_kstr(w, "node", e->node);
    kint_or_null(w, "gpu_index", e->gpu_index, !e->host && e->gpu_index >= 0);
    kstr_or_null(w, "uuid", e->uuid, !e->host && e->uuid[0]);
    kint_or_null(w, "numa_node", e->numa_node, e->numa_node >= 0);
    gc_jw_close(w, "}");
}

/* brief: catalogue.json's (no fit description, and no segments where one
 * line is the model: its alpha, beta and size range are the model's) */
static void model_json(gc_jw *w, const gc_xfer_model *m, int brief)
{
    gc_jw_key(w, "model");
    gc_jw_open(w, "{");
    gc_jw_kreal(w, "alpha_s", m->alpha_s);
    gc_jw_kreal(w, "beta_bps", m->beta_bps > 0 ? m->beta_bps : NAN);
    gc_jw_kreal(w, "r2", m->r2);
    gc_jw_kreal(w, "max_rel_residual", m->max_rel_residual);
    gc_jw_kreal(w, "size_min_bytes", m->size_min);
    gc_jw_kreal(w, "size_max_bytes", m->size_max);
    if (brief && m->nseg <= 1) {
        gc_jw_close(w, "}");
        return;
    }
    if (!brief)
        gc_jw_kstr(w, "fit", "relative least squares, Huber-reweighted, on per-size medians");
    gc_jw_key(w, "segments");
    gc_jw_open(w, "[");
    for (size_t k = 0; k < m->nseg; k++) {
        const gc_xfer_seg *sg = &m->seg[k];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kreal(w, "alpha_s", sg->alpha_s);
        gc_jw_kreal(w, "beta_bps", sg->beta_bps > 0 ? sg->beta_bps : NAN);
        gc_jw_kreal(w, "size_min_bytes", sg->size_min);
        gc_jw_kreal(w, "size_max_bytes", sg->size_max);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
}

static void chase_json(gc_jw *w, const lk_chase *c)
{
    gc_jw_kreal(w, "latency_chase_ns", c->has_ns ? c->p50_ns : NAN);
    if (!c->has_ns) {
        gc_jw_knull(w, "latency_chase");
        return;
    }
    gc_jw_key(w, "latency_chase");
    gc_jw_open(w, "{");
    gc_jw_kreal(w, "footprint_bytes", c->footprint);
    gc_jw_kint(w, "count", (long long)c->count);
    gc_jw_kreal(w, "p5_ns", c->p5_ns);
    gc_jw_kreal(w, "p50_ns", c->p50_ns);
    gc_jw_kreal(w, "p95_ns", c->p95_ns);
    gc_jw_kreal(w, "p50_cycles", c->has_cycles ? c->p50_cycles : NAN);
    gc_jw_close(w, "}");
}

/* A link's JSON (w NULL: none, the observer writes it: catalogue.json)
 * and its observer's view. m NULL: no model. s/ns/over: its size table
 * (node files), NULL in catalogue.json. share: the concurrent share,
 * written where the model has a slope. */
static void link_emit(gc_jw *w, const gc_links *l, const lk *x, size_t index,
                      const gc_xfer_model *m, double nom, const char *basis, double top,
                      double again, double share, const lk_size *s, size_t ns, const int *over,
                      double mult)
{
    int ok = m != NULL;
    if (w) {
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "kind", lk_kind_names[x->kind]);
        gc_jw_kstr(w, "benchmark", x->bench);
        gc_jw_kstr(w, "direction", x->dir);
        gc_jw_kstr(w, "memory", x->memory);
        kstr_or_null(w, "engine", x->engine, x->engine[0]);
        kstr_or_null(w, "peer_access", x->peer_access, x->peer_access[0]);
        kbool(w, "concurrent", x->concurrent);
        end_json(w, "src", &x->src);
        end_json(w, "dst", &x->dst);
        gc_jw_key(w, "measured_on");
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "node", x->by.node);
        gc_jw_kint(w, "gpu_index", x->by.gpu_index);
        gc_jw_kint(w, "rank", x->by.rank);
        gc_jw_close(w, "}");
        gc_jw_kreal(w, "bandwidth_top_p50_bps", top);
        if (!l->no_sizes)
            gc_jw_key(w, "sizes"), gc_jw_open(w, "[");
        for (size_t i = 0; i < ns && !l->no_sizes; i++) {
            double pr = ok ? gc_xfer_predict(m, s[i].bytes * mult) : NAN;
            gc_jw_next(w);
            gc_jw_open(w, "{");
            gc_jw_kreal(w, "size_bytes", s[i].bytes);
            gc_jw_kint(w, "item", s[i].item);
            gc_jw_kint(w, "count", (long long)s[i].count);
            gc_jw_kreal(w, "time_p5_s", s[i].t5);
            gc_jw_kreal(w, "time_p50_s", s[i].t50);
            gc_jw_kreal(w, "time_p95_s", s[i].t95);
            gc_jw_kreal(w, "bandwidth_p50_bps", s[i].has_bw ? s[i].bw50 : NAN);
            gc_jw_kreal(w, "model_time_s", pr);
            gc_jw_kreal(w, "rel_residual", ok ? (pr - s[i].t50) / s[i].t50 : NAN);
            kbool(w, "budget_hit", s[i].flags & GC_FLAG_BUDGET_HIT);
            kbool(w, "over_nominal", over[i]);
            gc_jw_kreal(w, "bandwidth_to_peer_p50_bps", s[i].to50 > 0 ? s[i].to50 : NAN);
            gc_jw_kreal(w, "bandwidth_from_peer_p50_bps", s[i].from50 > 0 ? s[i].from50 : NAN);
            gc_jw_close(w, "}");
        }
        if (!l->no_sizes)
            gc_jw_close(w, "]");
        if (ok)
            model_json(w, m, l->no_sizes);
        else
            gc_jw_knull(w, "model");
        chase_json(w, &x->chase);
        gc_jw_kreal(w, "nominal_bps", nom > 0 ? nom : NAN);
        kstr_or_null(w, "nominal_basis", basis, basis[0]);
        gc_jw_kreal(w, "lambda", ok && nom > 0 && m->beta_bps > 0 ? m->beta_bps / nom : NAN);
        gc_jw_kreal(w, "share", x->concurrent && ok && m->beta_bps > 0 ? share : NAN);
        if (!isnan(again))   /* only links measured again have it */
            gc_jw_kreal(w, "remeasured_bandwidth_bps", again);
        gc_jw_close(w, "}");
    }
    if (l->obs) {   /* the same values as the JSON above */
        gc_link_view v = {
            index, .kind = lk_kind_names[x->kind], .benchmark = x->bench,
            .direction = x->dir, .memory = x->memory,
            .engine = x->engine[0] ? x->engine : NULL,
            .peer_access = x->peer_access[0] ? x->peer_access : NULL,
            .concurrent = x->concurrent,
            .alpha_s = ok ? m->alpha_s : NAN, .beta_bps = ok && m->beta_bps > 0 ? m->beta_bps : NAN,
            .nominal_bps = nom > 0 ? nom : NAN,
            .lambda = ok && nom > 0 && m->beta_bps > 0 ? m->beta_bps / nom : NAN,
            .top_bps = top,
            .again_bps = again,
            .model = ok ? m : NULL, .nominal_basis = basis[0] ? basis : NULL,
            .share = x->concurrent && ok && m->beta_bps > 0 ? share : NAN,
            .has_chase = x->chase.has_ns, .chase_footprint = x->chase.footprint,
            .chase_count = x->chase.count, .chase_p5_ns = x->chase.p5_ns,
            .chase_p50_ns = x->chase.p50_ns, .chase_p95_ns = x->chase.p95_ns,
            .chase_p50_cycles = x->chase.has_cycles ? x->chase.p50_cycles : NAN,
        };
        lk_view_end(&x->src, &v.src);
        lk_view_end(&x->dst, &v.dst);
        lk_view_end(&x->by, &v.by);
        l->obs(l->obs_ctx, &v);
    }
}

static void link_json(gc_jw *w, const lk *x, const gc_links *l, size_t index)
{
    lk_size s[LK_MAX_SIZES];
    size_t ns = lk_fit_sizes_of(x, s);
    char basis[96];
    double nom = lk_nominal(x, basis, sizeof basis);
    /* n counts the bytes moved: both directions' for bidir. A size with a
     * sample faster than the path's nominal x 1.02 is no transfer the link
     * can do (a timing fault): it stays out of the fit. */
    double mult = !strcmp(x->dir, "bidir") ? 2 : 1;
    double nb[LK_MAX_SIZES], nt[LK_MAX_SIZES];
    int over[LK_MAX_SIZES];
    size_t nf = 0;
    for (size_t i = 0; i < ns; i++) {
        over[i] = (s[i].flags & GC_FLAG_OVER_NOMINAL) ||
                  (nom > 0 && s[i].has_bw && s[i].bw_max > GC_OVER_NOMINAL * nom);
        if (over[i])
            continue;
        nb[nf] = s[i].bytes * mult;
        nt[nf++] = s[i].t50;
    }
    gc_xfer_model m;
    int ok = gc_xfer_fit(nb, nt, nf, &m) == 0;
    double share = x->concurrent && ok && m.beta_bps > 0 ? lk_concurrent_share(l, x, s, ns) : NAN;
    link_emit(w, l, x, index, ok ? &m : NULL, nom, basis,
              ns && s[ns - 1].has_bw ? s[ns - 1].bw50 : NAN,
              ns && s[ns - 1].has_rbw ? s[ns - 1].rbw50 : NAN, share, s, ns, over, mult);
}

void lk_tell_c(const gc_links *l, const lkc *c, size_t index)
{
    lk x;
    lk_view_of(l, c, &x);
    char basis[96];
    double nom = lk_nominal(&x, basis, sizeof basis);
    gc_xfer_model m;
    memset(&m, 0, sizeof m);
    m.valid = c->ok;
    m.alpha_s = c->alpha_s;
    m.beta_bps = c->beta_bps;
    m.r2 = c->r2;
    m.max_rel_residual = c->max_rel;
    m.size_min = c->size_min;
    m.size_max = c->size_max;
    m.nseg = c->nseg;
    if (c->nseg > 1)
        memcpy(m.seg, c->seg, c->nseg * sizeof *c->seg);
    link_emit(NULL, l, &x, index, c->ok ? &m : NULL, nom, basis, c->top_bps, c->again_bps, c->share,
              NULL, 0, NULL, 1);
}

void gc_links_write(gc_links *l, gc_jw *w)
{
    /* net endpoints on other nodes, by rank */
    for (size_t i = 0; l && i < l->n; i++) {
        lk *x = &l->v[i];
        if (x->kind != K_NET || x->peer_rank < 0 || (size_t)x->peer_rank >= l->nranks)
            continue;
        lk_end e = l->ranks[x->peer_rank];
        e.host = 0;
        x->dst = e;
    }
    /* peers on the same node, by (node, local index) */
    size_t *ix = l && l->nranks ? malloc(l->nranks * sizeof *ix) : NULL;
    for (size_t r = 0; ix && r < l->nranks; r++)
        ix[r] = r;
    if (ix)
        qsort_r(ix, l->nranks, sizeof *ix, lk_by_end, l->ranks);
    for (size_t i = 0; ix && i < l->n; i++) {
        lk *x = &l->v[i];
        if (x->kind != K_NVLINK && x->kind != K_P2P_PCIE && x->kind != K_STAGED)
            continue;
        size_t lo = 0, hi = l->nranks;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const lk_end *e = &l->ranks[ix[mid]];
            int c = strcmp(e->node, x->dst.node);
            if (c < 0 || (c == 0 && e->gpu_index < x->peer_gpu))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < l->nranks && !strcmp(l->ranks[ix[lo]].node, x->dst.node) &&
            l->ranks[ix[lo]].gpu_index == x->peer_gpu) {
            x->dst = l->ranks[ix[lo]];
            x->dst.host = 0;
        }
    }
    free(ix);
    gc_jw_open(w, "[");
    for (size_t i = 0; l && i < l->n; i++)
        link_json(w, &l->v[i], l, i);
    gc_jw_close(w, "]");
}

/* Links as the node files hold them. Only writing: the records, their
 * ends and their one fit (the filter's decisions included) are
 * analyze/links.c's, read here through its views; catalogue.json's table
 * of links is catalogue_tail.c's. */
#include "write/links_json.h"

#include <math.h>

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

static void end_json(gc_jw *w, const char *k, const gc_link_view_end *e)
{
    gc_jw_key(w, k);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "type", e->is_gpu ? "gpu" : "host");
    gc_jw_kstr(w, "node", e->node);
    kint_or_null(w, "gpu_index", e->gpu_index, e->gpu_index >= 0);
    kstr_or_null(w, "uuid", e->uuid, e->uuid != NULL);
    kint_or_null(w, "numa_node", e->numa_node, e->numa_node >= 0);
    gc_jw_close(w, "}");
}

static void model_json(gc_jw *w, const gc_xfer_model *m)
{
    gc_jw_key(w, "model");
    gc_jw_open(w, "{");
    gc_jw_kreal(w, "alpha_s", m->alpha_s);
    gc_jw_kreal(w, "beta_bps", m->beta_bps > 0 ? m->beta_bps : NAN);
    gc_jw_kreal(w, "r2", m->r2);
    gc_jw_kreal(w, "max_rel_residual", m->max_rel_residual);
    gc_jw_kreal(w, "size_min_bytes", m->size_min);
    gc_jw_kreal(w, "size_max_bytes", m->size_max);
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

static void chase_json(gc_jw *w, const gc_link_view *v)
{
    gc_jw_kreal(w, "latency_chase_ns", v->has_chase ? v->chase_p50_ns : NAN);
    if (!v->has_chase) {
        gc_jw_knull(w, "latency_chase");
        return;
    }
    gc_jw_key(w, "latency_chase");
    gc_jw_open(w, "{");
    gc_jw_kreal(w, "footprint_bytes", v->chase_footprint);
    gc_jw_kint(w, "count", (long long)v->chase_count);
    gc_jw_kreal(w, "p5_ns", v->chase_p5_ns);
    gc_jw_kreal(w, "p50_ns", v->chase_p50_ns);
    gc_jw_kreal(w, "p95_ns", v->chase_p95_ns);
    gc_jw_kreal(w, "p50_cycles", v->chase_p50_cycles);
    gc_jw_close(w, "}");
}

static void sizes_json(gc_jw *w, const gc_link_size_view *s, size_t ns)
{
    gc_jw_key(w, "sizes");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < ns; i++) {
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kreal(w, "size_bytes", s[i].size_bytes);
        gc_jw_kint(w, "item", s[i].item);
        gc_jw_kint(w, "count", (long long)s[i].count);
        gc_jw_kreal(w, "time_p5_s", s[i].time_p5_s);
        gc_jw_kreal(w, "time_p50_s", s[i].time_p50_s);
        gc_jw_kreal(w, "time_p95_s", s[i].time_p95_s);
        gc_jw_kreal(w, "bandwidth_p50_bps", s[i].bandwidth_p50_bps);
        gc_jw_kreal(w, "model_time_s", s[i].model_time_s);
        gc_jw_kreal(w, "rel_residual", s[i].rel_residual);
        kbool(w, "budget_hit", s[i].budget_hit);
        kbool(w, "over_nominal", s[i].over_nominal);
        gc_jw_kreal(w, "bandwidth_to_peer_p50_bps", s[i].to_peer_bps);
        gc_jw_kreal(w, "bandwidth_from_peer_p50_bps", s[i].from_peer_bps);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
}

static void link_json(gc_jw *w, const gc_link_view *v, const gc_link_size_view *s, size_t ns)
{
    gc_jw_next(w);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "kind", v->kind);
    gc_jw_kstr(w, "benchmark", v->benchmark);
    gc_jw_kstr(w, "direction", v->direction);
    gc_jw_kstr(w, "memory", v->memory);
    kstr_or_null(w, "engine", v->engine, v->engine != NULL);
    kstr_or_null(w, "peer_access", v->peer_access, v->peer_access != NULL);
    kbool(w, "concurrent", v->concurrent);
    end_json(w, "src", &v->src);
    end_json(w, "dst", &v->dst);
    gc_jw_key(w, "measured_on");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "node", v->by.node);
    gc_jw_kint(w, "gpu_index", v->by.gpu_index);
    gc_jw_kint(w, "rank", v->by.rank);
    gc_jw_close(w, "}");
    gc_jw_kreal(w, "bandwidth_top_p50_bps", v->top_bps);
    sizes_json(w, s, ns);
    if (v->model)
        model_json(w, v->model);
    else
        gc_jw_knull(w, "model");
    chase_json(w, v);
    gc_jw_kreal(w, "nominal_bps", v->nominal_bps);
    kstr_or_null(w, "nominal_basis", v->nominal_basis, v->nominal_basis != NULL);
    gc_jw_kreal(w, "lambda", v->lambda);
    gc_jw_kreal(w, "share", v->share);
    if (!isnan(v->again_bps))   /* only links measured again have it */
        gc_jw_kreal(w, "remeasured_bandwidth_bps", v->again_bps);
    gc_jw_close(w, "}");
}

void gc_links_json(gc_jw *w, const gc_links *l)
{
    gc_link_view v;
    gc_link_size_view s[GC_LINK_MAX_SIZES];
    gc_jw_open(w, "[");
    for (size_t i = 0; gc_links_view(l, i, &v); i++)
        link_json(w, &v, s, gc_links_sizes(l, i, s));
    gc_jw_close(w, "]");
}

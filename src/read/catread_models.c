/* The models and links of a catalogue for `gpucensus predict`. See
 * catread_models.h. The streaming walk and the link reader are catread's
 * (catread_int.h); only the GPU objects are read here. */
#include "read/catread_models.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread_int.h"
#include "read/catread_points.h"

typedef struct msink {
    sink s;                  /* first: the walk's callbacks get &s */
    gc_cat_models *out;
    gc_catpoints *pts;       /* the node files (NULL: none read) */
} msink;

/* ---- typed members ------------------------------------------------------- */

static json_t *member(rd *r, json_t *o, const char *k, const char *path, int type, int nullable,
                      int required, int *rc)
{
    json_t *v = json_is_object(o) ? json_object_get(o, k) : NULL;
    if (*rc)
        return NULL;
    if (!v) {
        if (required)
            *rc = cr_bad(r, "'%s%s' is missing (required by the catalogue schema)", path, k);
        return NULL;
    }
    if (nullable && json_is_null(v))
        return NULL;
    static const char *const tn[] = { "an object", "an array", "a string", "an integer", "a number" };
    int ok = type == JSON_OBJECT ? json_is_object(v) : type == JSON_ARRAY ? json_is_array(v)
           : type == JSON_STRING ? json_is_string(v) : type == JSON_INTEGER ? json_is_integer(v)
           : json_is_number(v);
    if (!ok) {
        int i = type == JSON_OBJECT ? 0 : type == JSON_ARRAY ? 1 : type == JSON_STRING ? 2
              : type == JSON_INTEGER ? 3 : 4;
        *rc = cr_bad(r, "'%s%s' must be %s%s", path, k, tn[i], nullable ? " or null" : "");
        return NULL;
    }
    return v;
}

static void str_of(rd *r, json_t *o, const char *k, const char *path, char *out, size_t cap, int *rc)
{
    json_t *v = member(r, o, k, path, JSON_STRING, 0, 1, rc);
    snprintf(out, cap, "%s", v ? json_string_value(v) : "");
}

static int int_of(rd *r, json_t *o, const char *k, const char *path, long long lo, long long hi,
                  int *rc)
{
    json_t *v = member(r, o, k, path, JSON_INTEGER, 0, 1, rc);
    long long x = v ? json_integer_value(v) : 0;
    if (v && (x < lo || x > hi) && !*rc)
        *rc = cr_bad(r, "'%s%s' = %lld is out of range [%lld, %lld]", path, k, x, lo, hi);
    return (int)(x < lo ? lo : x > hi ? hi : x);
}

/* ---- a GPU ------------------------------------------------------------------ */

static void info_of(rd *r, json_t *o, gc_cat_gpu *c, int *rc)
{
    gc_gpu_info *in = &c->info;
    str_of(r, o, "node", "", in->node, sizeof in->node, rc);
    in->local_index = int_of(r, o, "index", "", 0, 1 << 20, rc);
    str_of(r, o, "status", "", c->status, sizeof c->status, rc);
    json_t *id = member(r, o, "identity", "", JSON_OBJECT, 0, 1, rc);
    str_of(r, id, "uuid", "identity.", in->uuid, sizeof in->uuid, rc);
    str_of(r, id, "name", "identity.", in->name, sizeof in->name, rc);
    char cc[16];
    str_of(r, id, "compute_capability", "identity.", cc, sizeof cc, rc);
    if (!*rc && sscanf(cc, "%d.%d", &in->cc_major, &in->cc_minor) != 2)
        *rc = cr_bad(r, "'identity.compute_capability' must be MAJOR.MINOR, not \"%s\"", cc);
    json_t *p = member(r, o, "properties", "", JSON_OBJECT, 0, 1, rc);
    in->sm_count = int_of(r, p, "sm_count", "properties.", 0, 1 << 16, rc);
    in->cores_per_sm = int_of(r, p, "cores_per_sm", "properties.", 0, 1 << 16, rc);
    in->warp_size = int_of(r, p, "warp_size", "properties.", 0, 1024, rc);
    in->max_threads_per_sm = int_of(r, p, "max_threads_per_sm", "properties.", 0, 1 << 20, rc);
    in->regs_per_sm = int_of(r, p, "registers_per_sm", "properties.", 0, 1 << 24, rc);
    in->smem_per_sm_bytes = (uint64_t)int_of(r, p, "smem_per_sm_bytes", "properties.", 0, 1 << 30, rc);
    json_t *clk = member(r, p, "sm_clock_max_mhz", "properties.", JSON_REAL, 1, 1, rc);
    in->sm_clock_mhz = clk ? json_number_value(clk) : 0;
}

/* models.<name>: its parameters by name into c->hw, and its lambda. */
static void model_of(rd *r, json_t *ms, int k, gc_cat_gpu *c, int *rc)
{
    char path[64];
    snprintf(path, sizeof path, "models.%s.", gc_model_names[k]);
    json_t *m = member(r, ms, gc_model_names[k], "models.", JSON_OBJECT, 0, 1, rc);
    json_t *ps = member(r, m, "parameters", path, JSON_ARRAY, 0, 1, rc);
    size_t i;
    json_t *e;
    json_array_foreach(ps, i, e) {
        char ep[128], name[GC_STR_MAX];
        snprintf(ep, sizeof ep, "%sparameters[%zu].", path, i);
        str_of(r, e, "name", ep, name, sizeof name, rc);
        json_t *v = member(r, e, "value", ep, JSON_REAL, 1, 1, rc);
        if (*rc)
            return;
        int id = gc_hwp_index(name);
        if (id < 0)
            continue;   /* a parameter of a newer gpucensus: not read */
        c->hw.v[id] = v ? json_number_value(v) : NAN;
        json_t *src = json_object_get(e, "source");
        snprintf(c->hw.source[id], sizeof c->hw.source[id], "%s",
                 json_is_string(src) ? json_string_value(src) : "catalogue");
    }
    json_t *l = member(r, m, "lambda", path, JSON_REAL, 1, 1, rc);
    c->lambda[k] = l ? json_number_value(l) : NAN;
}

/* No models in the catalogue: the GPU's parameters as the writer would
 * turn them into model parameters (model_hw.c), the clock from the points'
 * context. */
static void recompute(rd *r, json_t *o, gc_cat_gpu *c, int *rc)
{
    gc_gpu g;
    gc_gpu_init(&g);
    g.info = c->info;
    json_t *ps = member(r, o, "parameters", "", JSON_ARRAY, 0, 1, rc);
    size_t i;
    json_t *e;
    json_array_foreach(ps, i, e) {
        char ep[48], name[GC_STR_MAX], unit[16];
        snprintf(ep, sizeof ep, "parameters[%zu].", i);
        str_of(r, e, "name", ep, name, sizeof name, rc);
        str_of(r, e, "unit", ep, unit, sizeof unit, rc);
        json_t *v = member(r, e, "value", ep, JSON_REAL, 1, 1, rc);
        json_t *src = json_object_get(e, "source");
        if (*rc)
            break;
        if (v && gc_gpu_add_param(&g, name, json_number_value(v), unit,
                                  json_is_string(src) ? json_string_value(src) : ""))
            *rc = gc_fail(r->err, GC_ENOMEM, "out of memory");
    }
    json_t *cond = json_object_get(o, "conditions");
    json_t *start = json_is_object(cond) ? json_object_get(cond, "start") : NULL;
    json_t *clk = json_is_object(start) ? json_object_get(start, "sm_clock_mhz") : NULL;
    if (json_is_number(clk)) {
        g.start.valid = 1;
        g.start.sm_clock_mhz = json_number_value(clk);
    }
    if (!*rc)
        gc_hwp_from_gpu(&g, &c->hw);
    gc_gpu_free(&g);
}

/* Whether the GPU measured any parameter (a GPU of a failed or empty run
 * has none: its stored models, if any, are all there is). */
static int has_params(json_t *o)
{
    json_t *ps = json_is_object(o) ? json_object_get(o, "parameters") : NULL;
    return json_is_array(ps) && json_array_size(ps) > 0;
}

/* ---- the measured validation kernels ------------------------------------------ */

static double ctx_num(json_t *ctx, const char *k, double dflt)
{
    json_t *v = json_is_object(ctx) ? json_object_get(ctx, k) : NULL;
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* One "valid" time point of results[i] -> v (*got 1), or not one (*got 0);
 * 0, or an error for a malformed one (named: file, GPU, index, field). */
static int vpoint_of(rd *r, const char *file, const gc_cat_gpu *c, json_t *e, size_t i,
                     gc_vpoint *v, int *got)
{
    *got = 0;
    json_t *b = json_object_get(e, "benchmark"), *m = json_object_get(e, "metric");
    json_t *st = json_object_get(e, "status"), *ctx = json_object_get(e, "context");
    if (!json_is_string(b) || strcmp(json_string_value(b), "valid") || !json_is_string(m) ||
        strcmp(json_string_value(m), "time") || !json_is_string(st) ||
        strcmp(json_string_value(st), "ok"))
        return 0;
    json_t *cf = json_object_get(ctx, "confirm");   /* a re-measurement: not what the run validated */
    if (json_is_string(cf) && !strcmp(json_string_value(cf), "remeasure"))
        return 0;
    json_t *k = json_is_object(ctx) ? json_object_get(ctx, "kernel") : NULL;
    json_t *sum = json_object_get(e, "summary");
    json_t *p50 = json_is_object(sum) ? json_object_get(sum, "p50") : NULL;
    json_t *cnt = json_is_object(sum) ? json_object_get(sum, "count") : NULL;
    if (!json_is_string(k) || !json_is_number(p50) || !json_is_integer(cnt))
        return gc_fail(r->err, GC_ECORRUPT, "%s: GPU %s/%d: results[%zu]: a valid time point "
                       "needs context.kernel (a string), summary.p50 and summary.count", file,
                       c->info.node, c->info.local_index, i);
    if (json_integer_value(cnt) < 1)
        return 0;
    double ns = json_number_value(p50);
    if (!(isfinite(ns) && ns > 0 && ns < 1e15))
        return gc_fail(r->err, GC_ECORRUPT, "%s: GPU %s/%d: results[%zu].summary.p50 = %g is not "
                       "a time in ns", file, c->info.node, c->info.local_index, i, ns);
    memset(v, 0, sizeof *v);
    snprintf(v->kernel, sizeof v->kernel, "%s", json_string_value(k));
    v->measured_ns = ns;
    double gb = ctx_num(ctx, "grid_blocks", -1), bt = ctx_num(ctx, "block_threads", -1);
    double sm = ctx_num(ctx, "smem_dynamic_bytes", -1);
    v->grid_blocks = gb >= 1 && gb <= 1e12 ? (long long)gb : -1;
    v->block_threads = bt >= 1 && bt <= 4096 ? (int)bt : -1;
    v->smem_dynamic_bytes = sm >= 0 && sm <= 1e9 ? (long long)sm : -1;
    v->sm_clock_mhz = ctx_num(ctx, "sm_clock_mhz_measured", NAN);
    *got = 1;
    return 0;
}

/* The GPU's validation kernels from its results (inline, or its node file
 * through pts); a node file that cannot give them is not an error for
 * predict (it still predicts, with the stored lambda): said in valid_note. */
static int valid_of(rd *r, json_t *o, gc_catpoints *pts, gc_cat_gpu *c)
{
    json_t *res = json_object_get(o, "results");
    char file[4200];
    snprintf(file, sizeof file, "%s", r->file);
    if (!res && pts) {
        gc_catpoints_path(pts, c->info.node, file, sizeof file);
        gc_err e = { 0 };
        res = gc_catpoints_gpu(pts, c->info.node, c->info.local_index, &e);
        if (!res) {
            snprintf(c->valid_note, sizeof c->valid_note, "%.230s", e.msg);
            return 0;
        }
    }
    if (!json_is_array(res)) {
        snprintf(c->valid_note, sizeof c->valid_note, "%s", pts ? "no results" :
                 "no node files read (a catalogue given as bytes)");
        return 0;
    }
    size_t n = json_array_size(res), i;
    c->valid = calloc(n ? n : 1, sizeof *c->valid);
    if (!c->valid)
        return gc_fail(r->err, GC_ENOMEM, "out of memory");
    json_t *e;
    json_array_foreach(res, i, e) {
        int got, rc = vpoint_of(r, file, c, e, i, &c->valid[c->nvalid], &got);
        if (rc)
            return rc;
        c->nvalid += (size_t)got;
    }
    if (!c->nvalid)
        snprintf(c->valid_note, sizeof c->valid_note, "no validation kernel measured "
                 "(its plan has no bench valid)");
    return 0;
}

static int m_gpu(sink *s, rd *r, json_t *o)
{
    gc_cat_models *out = ((msink *)s)->out;
    gc_cat_gpu *nv = realloc(out->gpus, (out->ngpus + 1) * sizeof *nv);
    if (!nv)
        return gc_fail(r->err, GC_ENOMEM, "out of memory");
    out->gpus = nv;
    gc_cat_gpu *c = &nv[out->ngpus];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < HW_N; i++) {
        c->hw.v[i] = NAN;
        snprintf(c->hw.source[i], sizeof c->hw.source[i], "not in the catalogue");
    }
    int rc = 0;
    if (!json_is_object(o))
        return cr_bad(r, "a GPU must be an object");
    c->lambda[GC_M_MWP] = c->lambda[GC_M_LITTLE] = NAN;
    info_of(r, o, c, &rc);
    json_t *ms = member(r, o, "models", "", JSON_OBJECT, 0, 0, &rc);
    if (ms) {
        c->from_models = 1;
        for (int k = 0; k < GC_NMODELS && !rc; k++)
            model_of(r, ms, k, c, &rc);
    }
    /* this build's parameters from the measurements, as the run made them */
    if (!rc && (!ms || has_params(o))) {
        c->from_models = 0;
        recompute(r, o, c, &rc);
    }
    if (!rc)
        rc = valid_of(r, o, ((msink *)s)->pts, c);
    if (!rc)
        out->ngpus++;
    else
        free(c->valid);
    return rc;
}

/* ---- links and the top level ---------------------------------------------- */

static void end_name(const gc_det_end *e, char *out, size_t cap)
{
    if (e->is_gpu)
        snprintf(out, cap, "%s gpu %d", e->node ? e->node : "?", e->gpu_index);
    else if (e->numa_node >= 0)
        snprintf(out, cap, "host %s (NUMA %d)", e->node ? e->node : "?", e->numa_node);
    else
        snprintf(out, cap, "host %s", e->node ? e->node : "?");
}

static int m_link(sink *s, rd *r, json_t *o, size_t index)
{
    gc_cat_models *out = ((msink *)s)->out;
    gc_det_link l;
    int rc = cr_link_of(r, o, index, &l);
    if (rc)
        return rc;
    gc_cat_link *nv = realloc(out->links, (out->nlinks + 1) * sizeof *nv);
    if (!nv)
        return gc_fail(r->err, GC_ENOMEM, "out of memory");
    out->links = nv;
    gc_cat_link *c = &nv[out->nlinks++];
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", l.kind);
    snprintf(c->benchmark, sizeof c->benchmark, "%s", l.benchmark);
    snprintf(c->direction, sizeof c->direction, "%s", l.direction);
    snprintf(c->memory, sizeof c->memory, "%s", l.memory);
    snprintf(c->engine, sizeof c->engine, "%s", l.engine ? l.engine : "-");
    end_name(&l.src, c->src, sizeof c->src);
    end_name(&l.dst, c->dst, sizeof c->dst);
    c->concurrent = l.concurrent;
    c->alpha_s = l.alpha_s;
    c->beta_bps = l.beta_bps;
    c->nominal_bps = l.nominal_bps;
    return 0;
}

static int m_top(sink *s, rd *r, const char *key, json_t *v)
{
    gc_cat_models *out = ((msink *)s)->out;
    if (!strcmp(key, "gpus") || !strcmp(key, "links"))
        return cr_bad(r, "'%s' must be an array", key);
    if (!strcmp(key, "kind")) {
        s->seen_kind = 1;
        int bad = cr_kind_catalogue(r, v, "predict");
        if (bad)
            return bad;
    } else if (!strcmp(key, "run")) {
        json_t *b = json_is_object(v) ? json_object_get(v, "backend") : NULL;
        if (!json_is_string(b))
            return cr_bad(r, "'run.backend' must be a string");
        snprintf(out->backend, sizeof out->backend, "%s", json_string_value(b));
        /* this run, as node files beside the catalogue must name it */
        gc_catpoints_set_run(((msink *)s)->pts, json_string_value(json_object_get(v, "start_time")),
                             json_string_value(json_object_get(v, "plan_sha256")));
    }
    return 0;
}

static int models_read(const char *name, const char *buf, size_t len, gc_catpoints *pts,
                       gc_cat_models *out, gc_err *err)
{
    memset(out, 0, sizeof *out);
    rd r = { .file = name, .buf = buf, .len = len, .err = err, .pts = pts };
    msink m = { .s = { .gpu = m_gpu, .link = m_link, .top = m_top }, .out = out, .pts = pts };
    int rc = cr_walk(&r, &m.s);
    if (rc)
        gc_cat_models_free(out);
    return rc;
}

int gc_catread_models_mem(const char *name, const char *buf, size_t len, gc_cat_models *out,
                          gc_err *err)
{
    return models_read(name, buf, len, NULL, out, err);
}

typedef struct models_args {
    gc_catpoints *pts;
    gc_cat_models *out;
} models_args;

static int models_file(const char *name, const char *buf, size_t len, void *ctx, gc_err *err)
{
    models_args *a = ctx;
    return models_read(name, buf, len, a->pts, a->out, err);
}

int gc_catread_models(const char *path, gc_cat_models *out, gc_err *err)
{
    memset(out, 0, sizeof *out);
    models_args a = { gc_catpoints_new(path), out };
    if (!a.pts)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    int rc = cr_with_file(path, models_file, &a, err);
    gc_catpoints_free(a.pts);
    return rc;
}

void gc_cat_models_free(gc_cat_models *m)
{
    for (size_t i = 0; m->gpus && i < m->ngpus; i++)
        free(m->gpus[i].valid);
    free(m->gpus);
    free(m->links);
    memset(m, 0, sizeof *m);
}

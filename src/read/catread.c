/* The catalogue reader's bottom file: the decoders every other catread file
 * calls (positions and schema errors, typed field checks, a GPU and a link
 * object read, the detector's sink, a file loaded), calling no other
 * catread file itself, so the module's files never call each other in a
 * circle. Above it: schema 3 (catread_v3.c), the GPUs by threads
 * (catread_par.c), the streaming walk and the load entries
 * (catread_walk.c), then baselines, verdicts, models and histograms. See
 * catread.h and catread_int.h. */
#include "read/catread.h"
#include "read/catread_int.h"
#include "read/catread_points.h"
#include "census/registry.h"
#include "util/fsutil.h"
#include "util/grow.h"
#include "util/quote.h"

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE (64ull << 30)

int cr_line_of(const rd *r, size_t pos)
{
    int line = 1;
    for (size_t i = 0; i < pos && i < r->len; i++)
        line += r->buf[i] == '\n';
    return line;
}

size_t cr_skip_ws(const rd *r, size_t p)
{
    while (p < r->len && (r->buf[p] == ' ' || r->buf[p] == '\n' || r->buf[p] == '\r' ||
                          r->buf[p] == '\t'))
        p++;
    return p;
}

int cr_bad(rd *r, const char *fmt, ...)
{
    char m[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return gc_fail(r->err, GC_ECORRUPT, "%s:%d: %s%s%s", r->file, cr_line_of(r, r->pos), r->where,
                   r->where[0] ? ": " : "", m);
}

int cr_kind_catalogue(rd *r, json_t *v, const char *cmd)
{
    if (json_is_string(v) && !strcmp(json_string_value(v), "catalogue"))
        return 0;
    int node = json_is_string(v) && !strcmp(json_string_value(v), "node");
    return cr_bad(r, "kind must be \"catalogue\"%s%s%s", node ? " (this is a per-node file; " : "",
                  node ? cmd : "", node ? " reads OUT/catalogue.json)" : "");
}

/* ---- typed access with schema errors ---------------------------------- */

static json_t *req(rd *r, json_t *o, const char *k, const char *path, int *rc)
{
    json_t *v = json_is_object(o) ? json_object_get(o, k) : NULL;
    if (!v && !*rc)
        *rc = cr_bad(r, "'%s%s' is missing (required by the catalogue schema)", path, k);
    return v;
}

static const char *s_req(rd *r, json_t *o, const char *k, const char *path, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && !json_is_string(v) && !*rc)
        *rc = cr_bad(r, "'%s%s' must be a string", path, k);
    return v && json_is_string(v) ? json_string_value(v) : "";
}

/* a node name: it names files (nodes/NAME.json) and reaches shell lines */
static const char *name_req(rd *r, json_t *o, const char *k, const char *path, int *rc)
{
    const char *t = s_req(r, o, k, path, rc);
    if (!*rc && !gc_name_ok(t))
        *rc = cr_bad(r, "'%s%s' must be 1-%d characters of A-Z a-z 0-9 . _ - (not . or ..)", path,
                     k, GC_NAME_MAX);
    return t;
}

/* a string or null (NULL) */
static const char *s_null(rd *r, json_t *o, const char *k, const char *path, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && !json_is_string(v) && !json_is_null(v) && !*rc)
        *rc = cr_bad(r, "'%s%s' must be a string or null", path, k);
    return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static double n_req(rd *r, json_t *o, const char *k, const char *path, int nullable, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && json_is_number(v))
        return json_number_value(v);
    if (v && nullable && json_is_null(v))
        return NAN;
    if (v && !*rc)
        *rc = cr_bad(r, "'%s%s' must be a number%s", path, k, nullable ? " or null" : "");
    return NAN;
}

static long long i_req(rd *r, json_t *o, const char *k, const char *path, int nullable,
                       long long dflt, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && json_is_integer(v))
        return json_integer_value(v);
    if (v && nullable && json_is_null(v))
        return dflt;
    if (v && !*rc)
        *rc = cr_bad(r, "'%s%s' must be an integer%s", path, k, nullable ? " or null" : "");
    return dflt;
}

static int clampi(long long v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

static json_t *o_req(rd *r, json_t *o, const char *k, const char *path, int nullable, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && json_is_object(v))
        return v;
    if (v && !(nullable && json_is_null(v)) && !*rc)
        *rc = cr_bad(r, "'%s%s' must be an object%s", path, k, nullable ? " or null" : "");
    return NULL;
}

static json_t *a_req(rd *r, json_t *o, const char *k, const char *path, int *rc)
{
    json_t *v = req(r, o, k, path, rc);
    if (v && !json_is_array(v) && !*rc)
        *rc = cr_bad(r, "'%s%s' must be an array", path, k);
    return v && json_is_array(v) ? v : NULL;
}

/* ---- GPUs -------------------------------------------------------------- */

#define KEYLEN 200

static int gbuf_add(gbuf *b, const char *name, const char *unit, int better, double value,
                    const double *q, double count)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 256;
        gc_det_value *nv = realloc(b->v, nc * sizeof *nv);
        if (!nv)
            return GC_ENOMEM;
        b->v = nv;
        char *nk = realloc(b->keys, nc * KEYLEN);
        if (!nk)
            return GC_ENOMEM;
        b->keys = nk;
        b->cap = nc;
        for (size_t i = 0; i < b->n; i++)   /* names point into keys */
            b->v[i].name = b->keys + i * KEYLEN;
    }
    char *k = b->keys + b->n * KEYLEN;
    snprintf(k, KEYLEN, "%s", name);
    gc_det_value *v = &b->v[b->n++];
    memset(v, 0, sizeof *v);
    v->name = k;
    v->unit = unit;
    v->better = better;
    v->value = value;
    v->count = count;
    if (q) {
        v->has_q = 1;
        memcpy(v->q, q, sizeof v->q);
    }
    return 0;
}

static void cond_of(rd *r, json_t *c, const char *path, gc_det_cond *o, int *rc)
{
    memset(o, 0, sizeof *o);
    if (!c)
        return;
    o->valid = 1;
    o->sm_clock_mhz = n_req(r, c, "sm_clock_mhz", path, 0, rc);
    o->throttle_reasons = i_req(r, c, "throttle_reasons", path, 0, 0, rc);
    o->ecc_corrected = i_req(r, c, "ecc_corrected_errors", path, 1, -1, rc);
    o->ecc_uncorrected = i_req(r, c, "ecc_uncorrected_errors", path, 1, -1, rc);
}

/* The schema's ranges, before anything is judged: the counts and sizes of
 * properties are integers >= 0 (jansson already refuses NaN literals and
 * integers past int64), clocks and rates finite and >= 0, parameter values
 * finite, items_done <= items_total. The field is named. */
int cr_gpu_ranges(rd *r, json_t *o)
{
    static const char *const NONNEG_INT[] = { "sm_count", "cores_per_sm", "warp_size",
                                              "max_threads_per_sm", "registers_per_sm",
                                              "smem_per_sm_bytes", "l2_bytes", "memory_bytes",
                                              "bus_width_bits" };
    json_t *p = json_object_get(o, "properties");
    for (size_t k = 0; json_is_object(p) && k < sizeof NONNEG_INT / sizeof *NONNEG_INT; k++) {
        json_t *v = json_object_get(p, NONNEG_INT[k]);
        if (v && !(json_is_integer(v) && json_integer_value(v) >= 0))
            return cr_bad(r, "'properties.%s' must be an integer >= 0 (the schema's range)",
                          NONNEG_INT[k]);
    }
    static const char *const NONNEG_NUM[] = { "sm_clock_max_mhz", "mem_clock_max_mhz" };
    for (size_t k = 0; json_is_object(p) && k < 2; k++) {
        json_t *v = json_object_get(p, NONNEG_NUM[k]);
        if (v && !json_is_null(v) && !(json_is_number(v) && json_number_value(v) >= 0))
            return cr_bad(r, "'properties.%s' must be a number >= 0 or null", NONNEG_NUM[k]);
    }
    json_t *nv = json_object_get(json_is_object(p) ? p : NULL, "nvlink");
    json_t *nl = json_object_get(json_is_object(nv) ? nv : NULL, "links");
    if (nl && !json_is_null(nl) && !(json_is_integer(nl) && json_integer_value(nl) >= 0))
        return cr_bad(r, "'properties.nvlink.links' must be an integer >= 0 or null");
    json_t *pc = json_object_get(json_is_object(p) ? p : NULL, "pcie");
    static const char *const PCIE[] = { "gen", "width", "max_gen", "max_width" };
    for (size_t k = 0; json_is_object(pc) && k < 4; k++) {
        json_t *v = json_object_get(pc, PCIE[k]);
        if (v && !json_is_null(v) && !(json_is_integer(v) && json_integer_value(v) >= 0))
            return cr_bad(r, "'properties.pcie.%s' must be an integer >= 0 or null", PCIE[k]);
    }
    json_t *it = json_object_get(o, "items_total"), *id = json_object_get(o, "items_done");
    if ((it && !(json_is_integer(it) && json_integer_value(it) >= 0)) ||
        (id && !(json_is_integer(id) && json_integer_value(id) >= 0)) ||
        (json_is_integer(it) && json_is_integer(id) && json_integer_value(id) > json_integer_value(it)))
        return cr_bad(r, "'items_done' and 'items_total' must be integers, 0 <= items_done <= items_total");
    return 0;
}

/* A GPU object of the catalogue -> g (values in b). all: every parameter
 * and point (baselines); otherwise those the rules judge. */
int cr_gpu_of(rd *r, json_t *o, const gc_rules *rules, int all, gc_det_gpu *g, gbuf *b)
{
    int rc = 0;
    memset(g, 0, sizeof *g);
    b->n = 0;
    if (!json_is_object(o))
        return cr_bad(r, "a GPU must be an object");
    if ((rc = cr_gpu_ranges(r, o)))
        return rc;
    g->node = name_req(r, o, "node", "", &rc);
    g->index = clampi(i_req(r, o, "index", "", 0, 0, &rc), 0, 1 << 20);
    g->rank = clampi(i_req(r, o, "rank", "", 0, 0, &rc), -1, 1 << 30);
    g->status = s_req(r, o, "status", "", &rc);
    g->status_reason = s_req(r, o, "status_reason", "", &rc);
    if (!rc && strcmp(g->status, "ok") && strcmp(g->status, "partial") && strcmp(g->status, "failed") &&
        strcmp(g->status, "incomplete"))
        rc = cr_bad(r, "'status' must be ok, partial or failed, not \"%.40s\"", g->status);
    json_t *id = o_req(r, o, "identity", "", 0, &rc);
    g->uuid = s_req(r, id, "uuid", "identity.", &rc);
    g->name = s_req(r, id, "name", "identity.", &rc);
    json_t *p = o_req(r, o, "properties", "", 0, &rc);
    g->sm_count = i_req(r, p, "sm_count", "properties.", 0, 0, &rc);
    g->l2_bytes = i_req(r, p, "l2_bytes", "properties.", 0, 0, &rc);
    g->mem_bytes = i_req(r, p, "memory_bytes", "properties.", 0, 0, &rc);
    g->sm_clock_max_mhz = n_req(r, p, "sm_clock_max_mhz", "properties.", 0, &rc);
    g->numa_node = clampi(i_req(r, p, "numa_node", "properties.", 1, -1, &rc), -1, 1 << 20);
    json_t *pc = o_req(r, p, "pcie", "properties.", 0, &rc);
    g->pcie_gen = clampi(i_req(r, pc, "gen", "properties.pcie.", 1, 0, &rc), 0, 64);
    g->pcie_width = clampi(i_req(r, pc, "width", "properties.pcie.", 1, 0, &rc), 0, 1024);
    g->pcie_max_gen = clampi(i_req(r, pc, "max_gen", "properties.pcie.", 1, 0, &rc), 0, 64);
    g->pcie_max_width = clampi(i_req(r, pc, "max_width", "properties.pcie.", 1, 0, &rc), 0, 1024);
    /* catalogues before the switch was recorded have no member */
    json_t *sw = json_is_object(pc) ? json_object_get(pc, "switch") : NULL;
    if (sw && !json_is_string(sw) && !json_is_null(sw) && !rc)
        rc = cr_bad(r, "'properties.pcie.switch' must be a string or null");
    g->pcie_switch = json_is_string(sw) ? json_string_value(sw) : NULL;
    json_t *nv = o_req(r, p, "nvlink", "properties.", 0, &rc);
    g->nvlink_links = clampi(i_req(r, nv, "links", "properties.nvlink.", 1, -1, &rc), -1, 4096);
    json_t *c = o_req(r, o, "conditions", "", 0, &rc);
    cond_of(r, o_req(r, c, "start", "conditions.", 1, &rc), "conditions.start.", &g->start, &rc);
    cond_of(r, o_req(r, c, "end", "conditions.", 1, &rc), "conditions.end.", &g->end, &rc);
    g->hbm_ratio = NAN;
    gc_det_sustain_init(&g->sustain);
    json_t *ps = a_req(r, o, "parameters", "", &rc);
    size_t wl = strlen(r->where), i;
    json_t *e;
    json_array_foreach(ps, i, e) {
        if (rc)
            break;
        snprintf(r->where + wl, sizeof r->where - wl, ".parameters[%zu]", i % 100000000u);
        const char *name = s_req(r, e, "name", "", &rc);
        double v = n_req(r, e, "value", "", 1, &rc);
        const char *unit = s_req(r, e, "unit", "", &rc);
        r->where[wl] = '\0';
        if (rc)
            break;
        if (!strcmp(name, "hbm_achieved_ratio"))
            g->hbm_ratio = v;
        gc_det_sustain_param(&g->sustain, name, v);
        int better = gc_rules_param(rules, name);
        if ((better || all) && isfinite(v) && gbuf_add(b, name, unit, better ? better : 1, v, NULL, 0))
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
    }
    json_t *res = NULL;
    if (r->major == 1 || json_object_get(o, "results")) {
        res = a_req(r, o, "results", "", &rc);
    } else if (!rc) {
        /* schema 2: a count here, the points in the node file */
        long long np = i_req(r, o, "points", "", 0, 0, &rc);
        if (!rc && np < 0)
            rc = cr_bad(r, "'points' must be a count (0 or more)");
        if (!rc && r->pts && np > 0 && !(res = gc_catpoints_gpu(r->pts, g->node, g->index, r->err)))
            return r->err->code ? r->err->code : GC_EIO;
    }
    json_array_foreach(res, i, e) {
        if (rc)
            break;
        snprintf(r->where + wl, sizeof r->where - wl, ".results[%zu]", i % 100000000u);
        const char *bench = s_req(r, e, "benchmark", "", &rc);
        const char *metric = s_req(r, e, "metric", "", &rc);
        const char *unit = s_req(r, e, "unit", "", &rc);
        const char *st = s_req(r, e, "status", "", &rc);
        json_t *ctx = o_req(r, e, "context", "", 0, &rc);
        json_t *fl = a_req(r, e, "flags", "", &rc);
        json_t *sum = o_req(r, e, "summary", "", 0, &rc);
        long long count = i_req(r, sum, "count", "summary.", 0, 0, &rc);
        size_t k;
        json_t *f;
        int shared = 0;
        json_t *cf = json_object_get(ctx, "confirm");
        int remeasure = json_is_string(cf) && !strcmp(json_string_value(cf), "remeasure");
        g->points += !remeasure;
        json_array_foreach(fl, k, f) {
            if (json_is_string(f) && !strcmp(json_string_value(f), "throttled"))
                g->throttled_points++;
            if (json_is_string(f) && !strcmp(json_string_value(f), "gpu_shared"))
                shared = 1;
        }
        g->shared_points += shared;
        int better = gc_det_better_of_unit(unit);
        if (!rc && count > 0 && !strcmp(st, "ok") && !strcmp(bench, "xfer") && !strcmp(metric, "bandwidth")) {
            /* a host copy's spread at its largest size (judged as a link) */
            json_t *dj = json_object_get(ctx, "direction"), *mj = json_object_get(ctx, "memory");
            json_t *ej = json_object_get(ctx, "engine"), *sj = json_object_get(ctx, "size_bytes");
            json_t *cj = json_object_get(ctx, "concurrent");
            json_t *q5 = json_object_get(sum, "p5"), *q50 = json_object_get(sum, "p50"), *q95 = json_object_get(sum, "p95");
            if (json_is_string(dj) && json_is_string(mj) && json_is_number(sj) && json_is_number(q5) &&
                json_is_number(q50) && json_is_number(q95))
                gc_det_xtop_add(g->xtop, &g->nxtop, json_string_value(dj), json_string_value(mj),
                                json_is_string(ej) ? json_string_value(ej) : "",
                                json_is_true(cj) || (json_is_number(cj) && json_number_value(cj) != 0),
                                json_number_value(sj), json_number_value(q5), json_number_value(q50),
                                json_number_value(q95));
        }
        if (rc || count <= 0 || strcmp(st, "ok") || (!all && (!rules->judge_points || !better ||
                                                            gc_rules_skips(rules, bench)))) {
            r->where[wl] = '\0';
            continue;
        }
        static const char *const qn[GC_DET_NQ] = { "p1", "p5", "p50", "p95", "p99" };
        double q[GC_DET_NQ];
        for (int j = 0; j < GC_DET_NQ; j++)
            q[j] = n_req(r, sum, qn[j], "summary.", 1, &rc);
        char key[KEYLEN];
        int n = snprintf(key, sizeof key, "%s.%s", bench, metric);
        const char *ck;
        json_t *cv;
        json_object_foreach(ctx, ck, cv) {
            if (n < 0 || (size_t)n >= sizeof key)
                break;
            if (gc_det_ctx_observed(ck) && (json_is_string(cv) || json_is_number(cv)))
                continue;
            if (json_is_string(cv))
                n += snprintf(key + n, sizeof key - (size_t)n, " %s=%s", ck, json_string_value(cv));
            else if (json_is_number(cv))
                n += snprintf(key + n, sizeof key - (size_t)n, " %s=%.10g", ck, json_number_value(cv));
            else if (!rc)
                rc = cr_bad(r, "'context.%.40s' must be a string or a number", ck);
        }
        r->where[wl] = '\0';
        if (rc)
            break;
        if (isfinite(q[2]) && gbuf_add(b, key, unit, better ? better : 1, q[2], q, (double)count))
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
        if (isfinite(q[2]))
            b->v[b->n - 1].shared = shared, b->v[b->n - 1].remeasure = remeasure;
    }
    /* the method of each benchmark (catalogues before it: dated by the run's start) */
    json_t *ms = json_object_get(o, "methods");
    if (ms && !json_is_object(ms) && !rc)
        rc = cr_bad(r, "'methods' must be an object: benchmark -> method version");
    const char *mk;
    json_t *mv;
    json_object_foreach(ms, mk, mv) {
        if (rc)
            break;
        long long ver = json_is_integer(mv) ? json_integer_value(mv) : 0;
        if (ver < 1 || ver > 1000 || strlen(mk) >= GC_KEY_MAX || g->nmethods == GC_MAX_METHODS)
            rc = cr_bad(r, "'methods.%.40s' must be a method version (an integer 1-1000; at most %d "
                        "benchmarks of names under %d characters)", mk, GC_MAX_METHODS, GC_KEY_MAX);
        else {
            snprintf(b->methods[g->nmethods].bench, GC_KEY_MAX, "%s", mk);
            b->methods[g->nmethods++].version = (int)ver;
        }
    }
    g->methods = b->methods;
    g->start_time = r->start_time;
    g->values = b->v;
    g->nvalues = b->n;
    return rc;
}

/* ---- links ------------------------------------------------------------- */

static void end_of(rd *r, json_t *o, const char *path, gc_det_end *e, int *rc)
{
    memset(e, 0, sizeof *e);
    e->gpu_index = -1;
    e->numa_node = -1;
    if (!o)
        return;
    const char *t = s_req(r, o, "type", path, rc);
    if (!*rc && strcmp(t, "gpu") && strcmp(t, "host"))
        *rc = cr_bad(r, "'%stype' must be gpu or host", path);
    e->is_gpu = !strcmp(t, "gpu");
    e->node = name_req(r, o, "node", path, rc);
    e->gpu_index = clampi(i_req(r, o, "gpu_index", path, 1, -1, rc), -1, 1 << 20);
    e->uuid = s_null(r, o, "uuid", path, rc);
    e->numa_node = clampi(i_req(r, o, "numa_node", path, 1, -1, rc), -1, 1 << 20);
    if (!*rc && e->is_gpu && e->gpu_index < 0)
        *rc = cr_bad(r, "'%sgpu_index' must be given for a GPU end", path);
}

int cr_link_of(rd *r, json_t *o, size_t index, gc_det_link *l)
{
    int rc = 0;
    memset(l, 0, sizeof *l);
    if (!json_is_object(o))
        return cr_bad(r, "a link must be an object");
    l->index = index;
    l->kind = s_req(r, o, "kind", "", &rc);
    l->benchmark = s_req(r, o, "benchmark", "", &rc);
    l->direction = s_req(r, o, "direction", "", &rc);
    l->memory = s_req(r, o, "memory", "", &rc);
    l->engine = s_null(r, o, "engine", "", &rc);
    l->peer_access = s_null(r, o, "peer_access", "", &rc);
    json_t *cc = req(r, o, "concurrent", "", &rc);
    if (cc && !json_is_boolean(cc) && !rc)
        rc = cr_bad(r, "'concurrent' must be true or false");
    l->concurrent = json_is_true(cc);
    end_of(r, o_req(r, o, "src", "", 0, &rc), "src.", &l->src, &rc);
    end_of(r, o_req(r, o, "dst", "", 0, &rc), "dst.", &l->dst, &rc);
    json_t *m = o_req(r, o, "model", "", 1, &rc);
    l->beta_bps = l->alpha_s = NAN;
    if (m) {
        l->beta_bps = n_req(r, m, "beta_bps", "model.", 1, &rc);
        l->alpha_s = n_req(r, m, "alpha_s", "model.", 1, &rc);
    }
    l->nominal_bps = n_req(r, o, "nominal_bps", "", 1, &rc);
    l->lambda = n_req(r, o, "lambda", "", 1, &rc);
    /* only links measured again before blaming have it */
    json_t *ag = json_object_get(o, "remeasured_bandwidth_bps");
    if (ag && !json_is_number(ag) && !rc)
        rc = cr_bad(r, "'remeasured_bandwidth_bps' must be a number");
    l->again_bps = json_is_number(ag) ? json_number_value(ag) : NAN;
    /* schema 2: the top size's median here, the size table in the node file */
    json_t *sz = r->major == 1 || json_object_get(o, "sizes") ? a_req(r, o, "sizes", "", &rc) : NULL;
    double best = -1;
    l->top_bps = sz ? NAN : n_req(r, o, "bandwidth_top_p50_bps", "", 1, &rc);
    size_t i;
    json_t *e;
    json_array_foreach(sz, i, e) {
        double s = n_req(r, e, "size_bytes", "sizes[].", 0, &rc);
        double b = n_req(r, e, "bandwidth_p50_bps", "sizes[].", 1, &rc);
        if (rc)
            break;
        if (s > best) {
            best = s;
            l->top_bps = b;
        }
    }
    return rc;
}

/* ---- catalogue -> detector --------------------------------------------- */

int cr_det_gpu(sink *s, rd *r, json_t *o)
{
    gc_det_gpu g;
    int rc = cr_gpu_of(r, o, s->rules, 0, &g, &s->b);
    if (!rc)
        rc = gc_detect_add_gpu(s->d, &g, r->err);
    if (!rc && s->info)
        s->info->gpus++;
    return rc;
}

int cr_det_link(sink *s, rd *r, json_t *o, size_t index)
{
    gc_det_link l;
    int rc = cr_link_of(r, o, index, &l);
    if (!rc)
        rc = gc_detect_add_link(s->d, &l, r->err);
    if (!rc && s->info)
        s->info->links++;
    return rc;
}

int cr_cat_top(sink *s, rd *r, const char *key, json_t *v)
{
    int rc = 0;
    if (!strcmp(key, "gpus") || !strcmp(key, "links"))
        return cr_bad(r, "'%s' must be an array", key);
    if (!strcmp(key, "kind")) {
        s->seen_kind = 1;
        int bad = cr_kind_catalogue(r, v, "check");
        if (bad)
            return bad;
    } else if (!strcmp(key, "nodes")) {
        /* names and files the report opens: inside OUT/nodes/ only */
        if (!json_is_array(v))
            return cr_bad(r, "'nodes' must be an array");
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            char at[32], want[GC_NAME_MAX + 16];
            snprintf(at, sizeof at, "nodes[%zu].", i);
            const char *name = name_req(r, e, "name", at, &rc);
            const char *file = s_req(r, e, "file", at, &rc);
            snprintf(want, sizeof want, "nodes/%s.json", name);
            if (!rc && strcmp(file, want))
                rc = cr_bad(r, "'%sfile' must be \"%s\"", at, want);
            if (rc)
                return rc;
        }
    } else if (!strcmp(key, "run")) {
        if (!json_is_object(v))
            return cr_bad(r, "'run' must be an object");
        const char *b = s_req(r, v, "backend", "run.", &rc);
        /* this run, as node files beside the catalogue must name it */
        gc_catpoints_set_run(r->pts, json_string_value(json_object_get(v, "start_time")),
                             json_string_value(json_object_get(v, "plan_sha256")));
        if (s->info) {
            snprintf(s->info->backend, sizeof s->info->backend, "%s", b);
            json_t *x = json_object_get(v, "plan_name");
            snprintf(s->info->plan_name, sizeof s->info->plan_name, "%s",
                     json_is_string(x) ? json_string_value(x) : "");
            if (s->d)
                gc_detect_set_plan(s->d, s->info->plan_name);
            x = json_object_get(v, "start_time");
            snprintf(s->info->start_time, sizeof s->info->start_time, "%s",
                     json_is_string(x) ? json_string_value(x) : "");
        }
    }
    return rc;
}

int cr_with_file(const char *path, cr_mem_fn mem, void *ctx, gc_err *err)
{
    /* a regular, bounded file, mapped (a large catalogue stays in the page
     * cache, not in our heap) or read */
    gc_input_map m;
    int rc = gc_map_input(path, MAX_FILE, &m, err);
    if (rc)
        return rc;
    rc = mem(path, m.buf, m.len, ctx, err);
    gc_input_release(&m);
    return rc;
}

/* ---- check's per-GPU table (catread.h) ------------------------------------ */

long gc_cat_table_key(gc_cat_table *t, const char *node, long long index)
{
    char key[GC_NODE_MAX + 32];
    snprintf(key, sizeof key, "%s\x1f%lld", node ? node : "", index);
    long id = gc_strtab_id(&t->keys, key, 1);
    if (id < 0)
        t->oom = 1;
    return id;
}

int gc_cat_table_add_gpu(gc_cat_table *t, const char *node, long long index, uint32_t measured)
{
    long key = gc_cat_table_key(t, node, index);
    if (key < 0 || gc_grow((void **)&t->gpus, &t->capg, t->ngpus + 1, sizeof *t->gpus)) {
        t->oom = 1;
        return GC_ENOMEM;
    }
    t->gpus[t->ngpus++] = (gc_cat_tgpu){ key, (int)index, measured };
    return 0;
}

int gc_cat_table_add_link(gc_cat_table *t, long key, int kind)
{
    if (t->nlinks == t->capl) {
        size_t c = t->capl ? 2 * t->capl : 1024;
        long *k = realloc(t->link_key, c * sizeof *k);
        if (k)
            t->link_key = k;
        unsigned char *d = k ? realloc(t->link_kind, c) : NULL;
        if (d)
            t->link_kind = d;
        if (!k || !d) {
            t->oom = 1;
            return GC_ENOMEM;
        }
        t->capl = c;
    }
    t->link_key[t->nlinks] = key;
    t->link_kind[t->nlinks++] = (unsigned char)kind;
    return 0;
}

void gc_cat_table_free(gc_cat_table *t)
{
    gc_strtab_free(&t->keys);
    free(t->gpus);
    free(t->link_key);
    free(t->link_kind);
    free(t->link_level);
    memset(t, 0, sizeof *t);
}

/* A GPU object (as written) into r->table: its key and the benchmarks its
 * "methods" name (none recorded: every one, as cr_gpu_of takes it). */
void cr_table_gpu(rd *r, json_t *g)
{
    gc_cat_table *t = r->table;
    if (!t || t->oom)
        return;
    json_t *ms = json_object_get(g, "methods");
    uint32_t measured = 0;
    const char *k;
    json_t *x;
    if (json_object_size(ms) == 0)
        measured = ~0u;
    json_object_foreach(ms, k, x) {
        for (size_t b = 0; b < gc_bench_ndefs && b < 32; b++)
            if (!strcmp(gc_bench_defs[b].name, k))
                measured |= 1u << b;
    }
    gc_cat_table_add_gpu(t, json_string_value(json_object_get(g, "node")),
                         json_integer_value(json_object_get(g, "index")), measured);
}

static int end_is_gpu(json_t *e)
{
    const char *t = json_string_value(json_object_get(e, "type"));
    return t && !strcmp(t, "gpu");
}

/* A link as its 2.x object into r->table: its GPU end (the source when it
 * is a GPU, else the destination) and its kind. */
void cr_table_link(rd *r, json_t *l)
{
    gc_cat_table *t = r->table;
    if (!t || t->oom)
        return;
    json_t *e = json_object_get(l, "src");
    if (!end_is_gpu(e))
        e = json_object_get(l, "dst");
    long key = -1;
    json_t *ix = json_object_get(e, "gpu_index");
    if (end_is_gpu(e) && json_is_integer(ix))
        key = gc_cat_table_key(t, json_string_value(json_object_get(e, "node")), json_integer_value(ix));
    const char *kind = json_string_value(json_object_get(l, "kind"));
    kind = kind ? kind : "";
    gc_cat_table_add_link(t, key, !strncmp(kind, "pcie", 4) ? GC_TK_HOST
                                  : !strncmp(kind, "net", 3) ? GC_TK_NET : GC_TK_OTHER);
}

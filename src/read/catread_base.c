/* Baselines for `gpucensus check` (gc_catread_baseline*), apart from
 * catread.c: a per-SKU reference file, a directory of them, or an earlier
 * catalogue, read in two passes of the same streaming walk. */
#include "read/catread.h"
#include "read/catread_int.h"
#include "read/catread_points.h"
#include "census/registry.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- baselines --------------------------------------------------------- */

static int no_top_second(sink *s, rd *r, const char *key, json_t *v) { return 0; }

static int base_gpu(sink *s, rd *r, json_t *o)
{
    gc_det_gpu g;
    int rc = cr_gpu_of(r, o, s->rules, 1, &g, &s->b);
    if (rc || strcmp(g.status, "ok"))
        return rc;   /* a failed or partial GPU is no reference */
    /* values of the plan that measured them: like is compared with like */
    /* ... and of the method that measured them */
    for (size_t i = 0; i < g.nvalues && !rc; i++) {
        double x = g.values[i].value;
        const char *k = g.values[i].name;
        int m = gc_det_gpu_method(&g, gc_det_key_bench(k));
        rc = gc_baseline_add_method(s->base, g.name, NULL, s->plan, k, m, x, x, x);
        if (!rc && g.uuid[0])
            rc = gc_baseline_add_method(s->base, g.name, g.uuid, s->plan, k, m, x, x, x);
    }
    if (!rc && g.nvlink_links >= 0)
        rc = gc_baseline_add(s->base, g.name, NULL, "nvlink_links", g.nvlink_links);
    /* links name their GPU ends by node and index: remember the SKU */
    return rc ? gc_fail(r->err, GC_ENOMEM, "out of memory") : 0;
}

/* Links of a catalogue baseline, keyed by class and the SKU (and UUID) of
 * their GPU end, found in the first pass. */
static int base_link(sink *s, rd *r, json_t *o, size_t index)
{
    gc_det_link l;
    int rc = cr_link_of(r, o, index, &l);
    if (rc || !isfinite(l.beta_bps))
        return rc;
    const gc_det_end *e = l.src.is_gpu ? &l.src : &l.dst;
    char key[300], cls[160], id[GC_NODE_MAX + 16];
    gc_det_link_class(&l, cls, sizeof cls);
    snprintf(key, sizeof key, "link:%s:beta_bps", cls);
    snprintf(id, sizeof id, "%.63s/%d", e->node ? e->node : "", e->gpu_index);
    json_t *pair = json_object_get(s->names, id);
    if (!pair)
        return 0;
    const char *sku = json_string_value(json_array_get(pair, 0));
    const char *uuid = json_string_value(json_array_get(pair, 1));
    /* the method of its GPU end's measurement: recorded, else dated */
    int bi = gc_det_key_bench(key), m = 0;
    json_t *jm = json_object_get(json_array_get(pair, 2), bi >= 0 ? gc_bench_defs[bi].name : "");
    if (json_is_integer(jm))
        m = (int)json_integer_value(jm);
    else if (bi >= 0)
        m = gc_bench_method_at(gc_bench_defs[bi].name, r->start_time);
    double x = l.beta_bps;
    rc = gc_baseline_add_method(s->base, sku, NULL, s->plan, key, m, x, x, x);
    if (!rc && uuid && *uuid)
        rc = gc_baseline_add_method(s->base, sku, uuid, s->plan, key, m, x, x, x);
    return rc ? gc_fail(r->err, GC_ENOMEM, "out of memory") : 0;
}

/* One reference value: a number (the median), or {"median", "lo", "hi", "n"}:
 * lo..hi the range its healthy sources showed. */
static int ref_value(rd *r, const char *what, const char *k, json_t *x, double *m, double *lo,
                     double *hi)
{
    *lo = *hi = NAN;
    if (json_is_number(x)) {
        *m = json_number_value(x);
        return 0;
    }
    json_t *jm = json_object_get(x, "median"), *jl = json_object_get(x, "lo"), *jh = json_object_get(x, "hi");
    if (!json_is_object(x) || !json_is_number(jm) || (jl && !json_is_number(jl)) || (jh && !json_is_number(jh)))
        return cr_bad(r, "'%s.%.60s' must be a number or {\"median\": number, \"lo\": number, \"hi\": number}",
                      what, k);
    json_t *jn = json_object_get(x, "n");
    if (jn && !(json_is_integer(jn) && json_integer_value(jn) >= 1))
        return cr_bad(r, "'%s.%.60s.n' must be an integer >= 1 (the sources the median is of)",
                      what, k);
    *m = json_number_value(jm);
    *lo = jl ? json_number_value(jl) : NAN;
    *hi = jh ? json_number_value(jh) : NAN;
    if (jl && jh && *lo > *hi)
        return cr_bad(r, "'%s.%.60s': lo above hi", what, k);
    return 0;
}

/* "parameters", "points" or "links" of one plan (plan NULL: any plan),
 * measured with methods (benchmark -> version; NULL: files written before
 * methods were recorded, read as method 1 of every benchmark). */
static int ref_values(sink *s, rd *r, const char *plan, const char *key, json_t *v, json_t *methods)
{
    char what[120];
    snprintf(what, sizeof what, "%s%.60s%s%s", plan ? "plans." : "", plan ? plan : "", plan ? "." : "", key);
    if (!json_is_object(v))
        return cr_bad(r, "'%s' must be an object of numbers", what);
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
        double m = NAN, lo, hi;
        int rc = ref_value(r, what, k, x, &m, &lo, &hi);
        if (rc)
            return rc;
        char name[300];
        if (!strcmp(key, "links"))
            snprintf(name, sizeof name, "link:%.250s:beta_bps", k);
        else
            snprintf(name, sizeof name, "%.250s", k);
        int bi = gc_det_key_bench(name);
        json_t *jm = bi >= 0 ? json_object_get(methods, gc_bench_defs[bi].name) : NULL;
        int method = bi < 0 ? 0 : jm ? (int)json_integer_value(jm) : 1;
        if (gc_baseline_add_method(s->base, s->sku, NULL, plan, name, method, m, lo, hi))
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
    }
    return 0;
}

/* "methods": benchmark -> the method version its values were measured with */
static int ref_methods(rd *r, const char *what, json_t *m)
{
    if (!m)
        return 0;
    if (!json_is_object(m))
        return cr_bad(r, "'%s' must be an object: benchmark -> method version", what);
    const char *k;
    json_t *x;
    json_object_foreach(m, k, x) {
        if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 1000)
            return cr_bad(r, "'%s.%.40s' must be a method version (an integer 1-1000)", what, k);
    }
    return 0;
}

/* A reference file's members. "plans": { PLAN: { "methods", "parameters",
 * "points", "links" } } judge what the same plan measured with the same
 * methods; top-level "methods", "parameters", "points" and "links" any
 * plan (values no plan changes). */
static int ref_top(sink *s, rd *r, const char *key, json_t *v)
{
    if (!strcmp(key, "kind"))
        return 0;   /* checked in the first pass */
    if (!strcmp(key, "sku") || !strcmp(key, "source"))
        return json_is_string(v) ? 0 : cr_bad(r, "'%s' must be a string", key);
    if (!strcmp(key, "nvlink_links")) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return cr_bad(r, "'nvlink_links' must be an integer >= 0 (the schema's range)");
        return gc_baseline_add(s->base, s->sku, NULL, "nvlink_links", (double)json_integer_value(v))
                   ? gc_fail(r->err, GC_ENOMEM, "out of memory") : 0;
    }
    if (!strcmp(key, "methods"))
        return ref_methods(r, "methods", v);
    if (!strcmp(key, "parameters") || !strcmp(key, "points") || !strcmp(key, "links"))
        return ref_values(s, r, NULL, key, v, s->methods);
    if (!strcmp(key, "plans")) {
        if (!json_is_object(v))
            return cr_bad(r, "'plans' must be an object: plan name -> its values");
        const char *plan;
        json_t *pv;
        json_object_foreach(v, plan, pv) {
            if (!json_is_object(pv))
                return cr_bad(r, "'plans.%.60s' must be an object", plan);
            const char *k;
            json_t *x;
            char what[120];
            snprintf(what, sizeof what, "plans.%.60s.methods", plan);
            json_t *methods = json_object_get(pv, "methods");
            int mrc = ref_methods(r, what, methods);
            if (mrc)
                return mrc;
            json_object_foreach(pv, k, x) {
                int rc = 0;
                if (!strcmp(k, "parameters") || !strcmp(k, "points") || !strcmp(k, "links"))
                    rc = ref_values(s, r, plan, k, x, methods);
                else if (strcmp(k, "source") && strcmp(k, "catalogues") && strcmp(k, "methods"))
                    rc = cr_bad(r, "'plans.%.60s.%.60s': unknown member (methods, parameters, points, "
                                "links, source, catalogues)", plan, k);
                if (rc)
                    return rc;
            }
        }
        return 0;
    }
    return 0;   /* other members describe the file */
}

/* First pass: the kind, a reference file's SKU, a catalogue's GPU names. */
static int names_gpu(sink *s, rd *r, json_t *o)
{
    json_t *id = json_object_get(o, "identity");
    json_t *node = json_object_get(o, "node"), *index = json_object_get(o, "index");
    if (!json_is_string(node) || !json_is_integer(index) || !json_is_object(id))
        return 0;   /* the second pass reports it */
    char k[GC_NODE_MAX + 16];
    snprintf(k, sizeof k, "%.63s/%lld", json_string_value(node), (long long)json_integer_value(index));
    json_t *n = json_object_get(id, "name"), *u = json_object_get(id, "uuid");
    json_t *ms = json_object_get(o, "methods");
    json_object_set_new(s->names, k, json_pack("[ssO]", json_is_string(n) ? json_string_value(n) : "",
                                               json_is_string(u) ? json_string_value(u) : "",
                                               json_is_object(ms) ? ms : json_null()));
    return 0;
}

static int no_link(sink *s, rd *r, json_t *o, size_t index) { return 0; }

static int kind_top(sink *s, rd *r, const char *key, json_t *v)
{
    if (!strcmp(key, "kind")) {
        s->seen_kind = 1;
        if (!json_is_string(v) || (strcmp(json_string_value(v), "baseline") &&
                                   strcmp(json_string_value(v), "catalogue")))
            return cr_bad(r, "kind must be \"baseline\" (a reference file) or \"catalogue\"");
        snprintf(s->kind, sizeof s->kind, "%s", json_string_value(v));
    } else if (!strcmp(key, "run") && json_is_object(v)) {
        json_t *p = json_object_get(v, "plan_name");
        snprintf(s->plan, sizeof s->plan, "%s", json_is_string(p) ? json_string_value(p) : "");
    } else if (!strcmp(key, "methods") && json_is_object(v)) {
        json_decref(s->methods);
        s->methods = json_incref(v);
    } else if (!strcmp(key, "sku")) {
        if (!json_is_string(v) || !*json_string_value(v))
            return cr_bad(r, "'sku' must be the GPU's name (a non-empty string)");
        snprintf(s->sku, sizeof s->sku, "%s", json_string_value(v));
    }
    return 0;
}

/* One file's values into b (which may hold other files' already). pts: a
 * schema-2 catalogue's points from its node files (NULL: its parameters
 * and links only). */
static int baseline_into(const char *name, const char *buf, size_t len, gc_catpoints *pts,
                         gc_baseline *b, gc_err *err)
{
    gc_rules rules;
    gc_rules_default(&rules);
    rd r = { .file = name, .buf = buf, .len = len, .err = err };
    sink s = { .gpu = names_gpu, .link = no_link, .top = kind_top, .rules = &rules,
               .gpus_optional = 1, .base = b };
    size_t before = gc_baseline_count(b);
    s.names = json_object();
    int rc = s.names ? cr_walk(&r, &s) : gc_fail(err, GC_ENOMEM, "out of memory");
    if (!rc && !strcmp(s.kind, "baseline") && !s.sku[0])
        rc = gc_fail(err, GC_ECORRUPT, "%s: a baseline file names its \"sku\" (the GPU's name)", name);
    if (!rc) {
        /* second pass: the values */
        if (!strcmp(s.kind, "baseline")) {
            s.is_baseline = 1;
            s.top = ref_top;
        } else {
            s.gpus_optional = 0;
            r.pts = pts;   /* the second pass reads each GPU's points */
            s.gpu = base_gpu;
            s.link = base_link;
            s.top = no_top_second;
        }
        rc = cr_walk(&r, &s);
    }
    json_decref(s.names);
    json_decref(s.methods);
    if (!rc && gc_baseline_count(b) == before)
        rc = gc_fail(err, GC_ECORRUPT, "%s: no reference values in this baseline", name);
    return rc;
}

int gc_catread_baseline_mem(const char *name, const char *buf, size_t len, gc_baseline **out,
                            gc_err *err)
{
    *out = NULL;
    gc_baseline *b = gc_baseline_new(name);
    if (!b)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    int rc = baseline_into(name, buf, len, NULL, b, err);
    if (rc) {
        gc_baseline_free(b);
        return rc;
    }
    *out = b;
    return 0;
}

typedef struct base_args {
    gc_catpoints *pts;
    gc_baseline *b;
} base_args;

static int baseline_file(const char *name, const char *buf, size_t len, void *ctx, gc_err *err)
{
    const base_args *a = ctx;
    return baseline_into(name, buf, len, a->pts, a->b, err);
}

static int baseline_file_into(const char *path, gc_baseline *b, gc_err *err)
{
    base_args a = { gc_catpoints_new(path), b };
    if (!a.pts)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    int rc = cr_with_file(path, baseline_file, &a, err);
    gc_catpoints_free(a.pts);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gc_catread_baseline(const char *path, gc_baseline **out, gc_err *err)
{
    *out = NULL;
    gc_baseline *b = gc_baseline_new(path);
    if (!b)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    struct stat st;
    int rc = 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* a directory of reference files (configs/baselines): every *.json */
        DIR *dir = opendir(path);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        if (!dir)
            rc = gc_fail(err, GC_EIO, "%s: cannot read the directory", path);
        while (!rc && (de = readdir(dir))) {
            size_t l = strlen(de->d_name);
            if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json"))
                continue;
            if (n == cap) {
                char **nn = realloc(names, (cap = cap * 2 + 16) * sizeof *nn);
                if (!nn) {
                    rc = gc_fail(err, GC_ENOMEM, "out of memory");
                    break;
                }
                names = nn;
            }
            if (!(names[n] = malloc(strlen(path) + l + 2))) {
                rc = gc_fail(err, GC_ENOMEM, "out of memory");
                break;
            }
            sprintf(names[n++], "%s/%s", path, de->d_name);
        }
        if (dir)
            closedir(dir);
        qsort(names, n, sizeof *names, by_name);
        for (size_t i = 0; i < n && !rc; i++)
            rc = baseline_file_into(names[i], b, err);
        if (!rc && n == 0)
            rc = gc_fail(err, GC_EIO, "%s: no *.json baseline in this directory", path);
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
    } else {
        rc = baseline_file_into(path, b, err);
    }
    if (rc) {
        gc_baseline_free(b);
        return rc;
    }
    *out = b;
    return 0;
}

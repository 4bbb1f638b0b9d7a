/* The catalogue's streaming walk: the top-level members one at a time, the
 * gpus and links arrays one element at a time (a large catalogue is never one
 * JSON tree), a schema-3 catalogue's rows expanded (catread_v3.c), errors
 * naming FILE:LINE; and the entries that load a catalogue through it:
 * gc_catread_catalogue (to the detector) and gc_catread_each (to a caller's
 * functions). It sits above catread.c (field checks, the detector's sink),
 * catread_v3.c and catread_par.c, which never call back up into it. */
#include "read/catread.h"
#include "read/catread_int.h"
#include "util/strtab.h"
#include "read/catread_points.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *value_at(rd *r, size_t *p, int *rc)
{
    json_error_t je;
    r->pos = *p;
    json_t *v = json_loadb(r->buf + *p, r->len - *p,
                           JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, &je);
    if (!v) {
        /* je.line is relative to where this value starts */
        r->pos = *p + (je.position > 0 ? (size_t)je.position : 0);
        r->where[0] = '\0';
        *rc = gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", r->file, cr_line_of(r, r->pos),
                      je.text);
        return NULL;
    }
    *p += (size_t)je.position;
    return v;
}

static int expect(rd *r, size_t *p, char c, const char *what)
{
    *p = cr_skip_ws(r, *p);
    if (*p >= r->len || r->buf[*p] != c) {
        r->pos = *p;
        r->where[0] = '\0';
        return gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: expected %s", r->file,
                       cr_line_of(r, *p), what);
    }
    (*p)++;
    return 0;
}


/* gpus[n] at buf[start, end): valid JSON (no NaN literal, no integer past
 * int64), the schema's ranges, a (node, index) and a UUID not seen before */
static int fast_gpu_check(rd *r, size_t start, size_t end, size_t n, gc_strtab *seen)
{
    json_error_t je;
    json_t *v = json_loadb(r->buf + start, end - start, 0, &je);
    r->pos = start;
    if (!v)
        return gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: gpus[%zu]: %s", r->file,
                       cr_line_of(r, start + (je.position > 0 ? (size_t)je.position : 0)), n, je.text);
    snprintf(r->where, sizeof r->where, "gpus[%zu]", n % 100000000u);
    int rc = cr_gpu_ranges(r, v);   /* properties are as written in schema 3 too */
    char key[160];
    const char *node = json_string_value(json_object_get(v, "node"));
    json_t *ix = json_object_get(v, "index");
    const char *uuid = json_string_value(json_object_get(json_object_get(v, "identity"), "uuid"));
    snprintf(key, sizeof key, "g\x1f%s\x1f%lld", node ? node : "", json_integer_value(ix));
    long id = rc ? 0 : gc_strtab_id(seen, key, 1);
    if (id >= 0 && id < (long)seen->n - 1)
        rc = cr_bad(r, "node %.64s GPU %lld is listed twice; refused", node ? node : "?",
                    json_integer_value(ix));
    if (!rc && id >= 0 && uuid && *uuid) {
        snprintf(key, sizeof key, "u\x1f%.100s", uuid);
        id = gc_strtab_id(seen, key, 1);
        if (id >= 0 && id < (long)seen->n - 1)
            rc = cr_bad(r, "UUID %.100s is listed twice; refused", uuid);
    }
    if (!rc && id < 0)
        rc = gc_fail(r->err, GC_ENOMEM, "out of memory");
    if (!rc)
        cr_table_gpu(r, v);
    r->where[0] = '\0';
    json_decref(v);
    return rc;
}

static int walk_array(rd *r, size_t *p, sink *s, const char *name, int is_gpus)
{
    int rc = expect(r, p, '[', "'[' (an array)");
    size_t n = 0;
    *p = cr_skip_ws(r, *p);
    if (!rc && *p < r->len && r->buf[*p] == ']') {
        (*p)++;
        return 0;
    }
    if (!rc && is_gpus && r->major == 3 && s->fast3) {
        /* check without a baseline: the GPUs are counted, their verdicts
         * are written; each still parsed and held to the schema's ranges,
         * and no GPU listed twice */
        if (!r->gpus_seen && !(r->gpus_seen = calloc(1, sizeof *r->gpus_seen)))
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
        gc_strtab *seen = r->gpus_seen;
        for (;;) {
            *p = cr_skip_ws(r, *p);
            size_t e = cr_skip_value(r->buf, r->len, *p);
            if (!e) {
                r->pos = *p;
                return gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: gpus[%zu]", r->file,
                               cr_line_of(r, *p), n);
            }
            if ((rc = fast_gpu_check(r, *p, e, n, seen)))
                return rc;
            n++;
            if (s->info)
                s->info->gpus++;
            *p = cr_skip_ws(r, e);
            if (*p < r->len && r->buf[*p] == ']') {
                (*p)++;
                return 0;
            }
            if ((rc = expect(r, p, ',', "',' or ']'")))
                return rc;
        }
    }
    if (!rc && is_gpus && s->gpu == cr_det_gpu && !r->pts) {   /* node files: one at a time */
        int closed;
        rc = cr_par_gpus(r, p, s, &n, &closed);
        if (rc || closed)
            return rc;
    }
    while (!rc) {
        *p = cr_skip_ws(r, *p);
        size_t start = *p;
        json_t *v = value_at(r, p, &rc);
        if (!v)
            break;
        r->pos = start;
        snprintf(r->where, sizeof r->where, "%s[%zu]", name, n);
        if (is_gpus && r->major == 3)
            rc = cr3_gpu_expand(r, v);
        if (!rc)
            rc = is_gpus ? s->gpu(s, r, v) : s->link(s, r, v, n);
        r->where[0] = '\0';
        json_decref(v);
        n++;
        *p = cr_skip_ws(r, *p);
        if (!rc && *p < r->len && r->buf[*p] == ']') {
            (*p)++;
            break;
        }
        if (!rc)
            rc = expect(r, p, ',', "',' or ']'");
    }
    return rc;
}

const char *const cr_top_names[] = { "schema_version", "kind", "run", "gpus", "nodes", "links",
                                     "models", "verdicts", NULL };

int cr_walk(rd *r, sink *s)
{
    size_t p = 0;
    int rc = expect(r, &p, '{', "'{': a catalogue is a JSON object");
    int have_gpus = 0, have_version = 0;
    p = cr_skip_ws(r, p);
    if (!rc && p < r->len && r->buf[p] == '}')
        p++;
    else
        while (!rc) {
            p = cr_skip_ws(r, p);
            json_t *k = value_at(r, &p, &rc);
            if (!k)
                break;
            if (!json_is_string(k)) {
                json_decref(k);
                rc = expect(r, &p, '"', "a member name");   /* reports the position */
                break;
            }
            char key[64];
            snprintf(key, sizeof key, "%s", json_string_value(k));
            json_decref(k);
            if ((rc = expect(r, &p, ':', "':'")))
                break;
            for (unsigned t = 0; cr_top_names[t]; t++)
                if (!strcmp(key, cr_top_names[t]))
                    s->seen |= 1u << t;
            p = cr_skip_ws(r, p);
            int arr = p < r->len && r->buf[p] == '[';
            int obj3 = r->major == 3 && p < r->len && r->buf[p] == '{' && !s->is_baseline;
            if (obj3 && !strcmp(key, "links")) {
                r->pos = p;
                rc = cr3_walk_links(r, &p, s);
            } else if (obj3 && !strcmp(key, "verdicts")) {
                r->pos = p;
                rc = cr3_walk_verdicts(r, &p, s);
            } else if (!strcmp(key, "gpus") && !s->is_baseline && arr) {
                have_gpus = 1;
                rc = walk_array(r, &p, s, "gpus", 1);
            } else if (!strcmp(key, "links") && !s->is_baseline && arr) {
                rc = walk_array(r, &p, s, "links", 0);
            } else {
                size_t start = p;
                json_t *v = value_at(r, &p, &rc);
                if (!v)
                    break;
                r->pos = start;
                if (!strcmp(key, "run")) {
                    json_t *st = json_object_get(v, "start_time");
                    snprintf(r->start_time, sizeof r->start_time, "%s",
                             json_is_string(st) ? json_string_value(st) : "");
                }
                if (!strcmp(key, "schema_version")) {
                    have_version = 1;
                    /* 1.x: points inline; 2.x: points in the node files; 3.x:
                     * as 2.x, parameters, models, links and verdicts compact */
                    const char *sv = json_is_string(v) ? json_string_value(v) : "";
                    snprintf(r->version, sizeof r->version, "%s", sv);
                    r->major = !strncmp(sv, "1.", 2) ? 1 : !strncmp(sv, "2.", 2) ? 2
                             : !strncmp(sv, "3.", 2) ? 3 : 0;
                    if (!r->major || strspn(sv + 2, "0123456789") != strlen(sv + 2) || !sv[2])
                        rc = cr_bad(r, "schema_version must be \"1.x\", \"2.x\" or \"3.x\" (the "
                                       "versions this gpucensus reads), not \"%.20s\"", sv);
                    if (!rc && r->major == 3 && !r->v3) {
                        if (!(r->v3 = calloc(1, sizeof *r->v3)))
                            rc = gc_fail(r->err, GC_ENOMEM, "out of memory");
                        else
                            rc = cr3_prescan(r, 0);
                    }
                } else {
                    rc = s->top(s, r, key, v);
                }
                json_decref(v);
            }
            p = cr_skip_ws(r, p);
            if (!rc && p < r->len && r->buf[p] == '}') {
                p++;
                break;
            }
            if (!rc)
                rc = expect(r, &p, ',', "',' or '}'");
        }
    if (!rc) {
        p = cr_skip_ws(r, p);
        r->pos = p;
        if (p != r->len)
            rc = gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: text after the end", r->file,
                         cr_line_of(r, p));
    }
    r->pos = 0;
    cr3_free(r->v3);
    r->v3 = NULL;
    if (r->gpus_seen) {
        gc_strtab_free(r->gpus_seen);
        free(r->gpus_seen);
        r->gpus_seen = NULL;
    }
    free(s->b.v);   /* the GPUs' scratch values */
    free(s->b.keys);
    s->b.v = NULL;
    s->b.keys = NULL;
    s->b.n = s->b.cap = 0;
    if (!rc && !have_version)
        rc = cr_bad(r, "'schema_version' is missing: not a gpucensus catalogue");
    if (!rc && !s->seen_kind)
        rc = cr_bad(r, "'kind' is missing: not a gpucensus catalogue");
    if (!rc && !have_gpus && !s->is_baseline && !s->gpus_optional)
        rc = cr_bad(r, "'gpus' is missing (required by the catalogue schema)");
    return rc;
}

int cr_walk_catalogue(rd *r, sink *s)
{
    int rc = cr_walk(r, s);
    /* the members are checked as they are read; here those never met */
    for (unsigned t = 0; !rc && cr_top_names[t]; t++)
        if (!(s->seen & (1u << t)))
            rc = cr_bad(r, "'%s' is missing (required by the catalogue schema)", cr_top_names[t]);
    return rc;
}

/* ---- gc_catread_catalogue ----------------------------------------------- */

/* pts: where schema 2's points are read (NULL: without them) */
static int catalogue_mem(const char *name, const char *buf, size_t len, gc_catpoints *pts,
                         gc_detect *d, const gc_rules *rules, gc_catread_info *info, gc_err *err)
{
    rd r = { .file = name, .buf = buf, .len = len, .err = err, .pts = pts };
    sink s = { .gpu = cr_det_gpu, .link = cr_det_link, .top = cr_cat_top, .rules = rules, .d = d,
               .info = info };
    gc_cat_table *table = info ? info->table : NULL;
    if (info)
        memset(info, 0, sizeof *info);
    if (info)
        info->table = table;   /* not filled here: check reads the table apart */
    return cr_walk_catalogue(&r, &s);
}

int gc_catread_catalogue_mem(const char *name, const char *buf, size_t len, gc_detect *d,
                             const gc_rules *rules, gc_catread_info *info, gc_err *err)
{
    return catalogue_mem(name, buf, len, NULL, d, rules, info, err);
}

typedef struct cat_args {
    gc_catpoints *pts;
    gc_detect *d;
    const gc_rules *rules;
    gc_catread_info *info;
} cat_args;

static int catalogue_file(const char *name, const char *buf, size_t len, void *ctx, gc_err *err)
{
    const cat_args *a = ctx;
    return catalogue_mem(name, buf, len, a->pts, a->d, a->rules, a->info, err);
}

int gc_catread_catalogue(const char *path, gc_detect *d, const gc_rules *rules,
                         gc_catread_info *info, gc_err *err)
{
    cat_args a = { gc_catpoints_new(path), d, rules, info };
    if (!a.pts)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    int rc = cr_with_file(path, catalogue_file, &a, err);
    gc_catpoints_free(a.pts);
    return rc;
}

/* ---- gc_catread_each --------------------------------------------------- */

typedef struct esink {
    sink s;
    const gc_catread_each_fns *f;
    void *ctx;
    int told;   /* schema_version given to f->top (the walk keeps it) */
} esink;

static int e_version(esink *e, rd *r)
{
    if (e->told || !e->f->top)
        return 0;
    e->told = 1;
    json_t *v = json_string(r->version);
    int rc = v ? e->f->top(e->ctx, "schema_version", v) : GC_ENOMEM;
    json_decref(v);
    return rc;
}

static int e_gpu(sink *s, rd *r, json_t *o)
{
    esink *e = (esink *)s;
    int rc = e_version(e, r);
    return rc ? rc : e->f->gpu ? e->f->gpu(e->ctx, o) : 0;
}

static int e_link(sink *s, rd *r, json_t *o, size_t index)
{
    esink *e = (esink *)s;
    int rc = e_version(e, r);
    return rc ? rc : e->f->link ? e->f->link(e->ctx, o) : 0;
}

static int e_top(sink *s, rd *r, const char *key, json_t *v)
{
    esink *e = (esink *)s;
    if (!strcmp(key, "kind"))
        s->seen_kind = 1;
    if (!strcmp(key, "verdicts"))
        return 0;
    int rc = e_version(e, r);
    return rc ? rc : e->f->top ? e->f->top(e->ctx, key, v) : 0;
}

static int e_verdict(sink *s, rd *r, json_t *v, size_t index) { return 0; }

int gc_catread_each(const char *name, const char *buf, size_t len, const gc_catread_each_fns *fns,
                    void *ctx, gc_err *err)
{
    rd r = { .file = name, .buf = buf, .len = len, .err = err };
    esink e = { .s = { .gpu = e_gpu, .link = e_link, .top = e_top, .verdict = e_verdict,
                       .gpus_optional = 1 },
                .f = fns, .ctx = ctx };
    return cr_walk(&r, &e.s);
}

/* The verdicts a compact catalogue holds, read as written (check and report
 * without a baseline or rules of their own). See catread.h. The run judged
 * every point of every GPU against its peers at rank 0; a schema-2
 * catalogue keeps the verdicts and not the points, so judging again would
 * need every node file: this repeats the run's judgement instead. */
#include "read/catread.h"
#include "read/catread_int.h"
#include "util/quote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int level_of(json_t *v)
{
    static const char *const n[4] = { "ok", "suspect", "degraded", "failed" };
    for (int i = 0; json_is_string(v) && i < 4; i++)
        if (!strcmp(json_string_value(v), n[i]))
            return i;
    return -1;
}

/* a string member (or null/absent when may_null) into out; 0 or -1 */
static int str_into(json_t *o, const char *k, char *out, size_t cap, int may_null)
{
    json_t *v = json_object_get(o, k);
    out[0] = '\0';
    if (json_is_string(v)) {
        snprintf(out, cap, "%s", json_string_value(v));
        return 0;
    }
    return may_null && (!v || json_is_null(v)) ? 0 : -1;
}

/* a string member (or null/absent when may_null, then ""), as jansson holds it; 0 or -1 */
static int str_ref(json_t *o, const char *k, const char **out, int may_null)
{
    json_t *v = json_object_get(o, k);
    *out = json_is_string(v) ? json_string_value(v) : "";
    return json_is_string(v) || (may_null && (!v || json_is_null(v))) ? 0 : -1;
}

static int num_into(json_t *o, const char *k, double *out)
{
    json_t *v = json_object_get(o, k);
    *out = json_is_number(v) ? json_number_value(v) : NAN;
    return json_is_number(v) || json_is_null(v) ? 0 : -1;
}

static int num_at(json_t *a, size_t i, double *out)
{
    json_t *v = json_array_get(a, i);
    *out = json_is_number(v) ? json_number_value(v) : NAN;
    return json_is_number(v) || json_is_null(v) ? 0 : -1;
}

static int int_or_null(json_t *o, const char *k, long *out)
{
    json_t *v = json_object_get(o, k);
    *out = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < (1l << 30)
               ? (long)json_integer_value(v) : -1;
    return json_is_integer(v) || json_is_null(v) ? 0 : -1;
}

/* node and uuid: a verdict's, cut as the detector keeps them */
typedef struct vstrs {
    char node[GC_NODE_MAX], uuid[48];
} vstrs;

static int verdict_of(rd *r, json_t *o, gc_verdict *v, vstrs *vs, gc_reason **rs, size_t *cap)
{
    memset(v, 0, sizeof *v);
    v->node = vs->node;
    v->uuid = vs->uuid;
    const char *bad = NULL;
    json_t *type = json_object_get(o, "type");
    const char *t = json_is_string(type) ? json_string_value(type) : "";
    v->type = !strcmp(t, "gpu") ? GC_SUBJ_GPU : !strcmp(t, "link") ? GC_SUBJ_LINK
            : !strcmp(t, "node") ? GC_SUBJ_NODE : -1;
    long gi, li;
    json_t *peers = json_object_get(o, "peers"), *basis = json_object_get(o, "basis"),
           *reasons = json_object_get(o, "reasons");
    if (!json_is_object(o))
        bad = "a verdict must be an object";
    else if (v->type < 0)
        bad = "'type' must be gpu, link or node";
    else if (str_ref(o, "subject", &v->subject, 0) ||
             str_into(o, "node", vs->node, sizeof vs->node, 0) ||
             str_into(o, "uuid", vs->uuid, sizeof vs->uuid, 1) ||
             str_ref(o, "peer_group", &v->group, 0) ||
             str_ref(o, "note", &v->note, 1))
        bad = "'subject', 'node', 'peer_group' must be strings, 'uuid' and 'note' strings or null";
    else if (int_or_null(o, "gpu_index", &gi) || int_or_null(o, "link", &li))
        bad = "'gpu_index' and 'link' must be integers or null";
    else if ((v->level = level_of(json_object_get(o, "verdict"))) < 0)
        bad = "'verdict' must be ok, suspect, degraded or failed";
    else if (!json_is_integer(peers) || !json_is_array(basis) || !json_is_array(reasons))
        bad = "'peers' must be an integer, 'basis' and 'reasons' arrays";
    if (bad)
        return cr_bad(r, "%s", bad);
    /* it names the node in check's drain lines (shell-quoted there too) */
    if (!gc_name_ok(v->node))
        return cr_bad(r, "'node' must be 1-%d characters of A-Z a-z 0-9 . _ - (not . or ..)",
                      GC_NAME_MAX);
    json_t *nt = json_object_get(o, "noted");
    if (nt) {
        int k = gc_noted_of(json_is_object(nt) ? json_string_value(json_object_get(nt, "kind")) : NULL);
        if (k < 0)
            return cr_bad(r, "'noted' must be an object whose 'kind' is noisy_host or noisy_host_link");
        v->noted = (unsigned char)k;
    }
    v->gpu_index = (int)gi;
    v->link_index = li;
    json_int_t np = json_integer_value(peers);
    v->peers = np < 0 ? 0 : np > (1 << 30) ? (1 << 30) : (int)np;
    size_t i;
    json_t *e;
    json_array_foreach(basis, i, e) {
        v->used_peers |= json_is_string(e) && !strcmp(json_string_value(e), "peers");
        v->used_baseline |= json_is_string(e) && !strcmp(json_string_value(e), "baseline");
    }
    size_t n = json_array_size(reasons);
    if (n > *cap) {
        gc_reason *nr = realloc(*rs, n * sizeof *nr);
        if (!nr)
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
        *rs = nr;
        *cap = n;
    }
    json_array_foreach(reasons, i, e) {
        gc_reason *x = &(*rs)[i];
        memset(x, 0, sizeof *x);
        if (!json_is_object(e) || str_into(e, "rule", x->rule, sizeof x->rule, 0) ||
            str_into(e, "metric", x->metric, sizeof x->metric, 0) ||
            str_into(e, "detail", x->detail, sizeof x->detail, 0) ||
            str_into(e, "deviation_unit", x->deviation_unit, sizeof x->deviation_unit, 1) ||
            num_into(e, "value", &x->value) || num_into(e, "reference", &x->reference) ||
            num_into(e, "deviation", &x->deviation) ||
            (x->severity = level_of(json_object_get(e, "severity"))) < 0)
            return cr_bad(r, "reasons[%zu]: 'rule', 'metric', 'detail' strings, 'value', 'reference', "
                          "'deviation' numbers or null, 'severity' a verdict level", i);
        /* 3.1: a point rule's reasons grouped per benchmark metric */
        json_t *pts = json_object_get(e, "points"), *rg = json_object_get(e, "deviation_range");
        x->dev_lo = x->dev_hi = NAN;
        if (pts || rg) {
            json_int_t npts = json_integer_value(pts);
            if (!json_is_integer(pts) || npts < 1 || npts > (1 << 30) || !json_is_array(rg) ||
                json_array_size(rg) != 2 || num_at(rg, 0, &x->dev_lo) || num_at(rg, 1, &x->dev_hi))
                return cr_bad(r, "reasons[%zu]: 'points' must be a positive integer and 'deviation_range' "
                              "two numbers or nulls, both or neither", i);
            x->points = (int)npts;
        }
    }
    v->reasons = *rs;
    v->nreasons = n;
    return 0;
}

static int add_verdicts(sink *s, rd *r, json_t *arr)
{
    if (!json_is_array(arr))
        return cr_bad(r, "'verdicts' must be an array");
    gc_reason *rs = NULL;
    size_t cap = 0, i;
    json_t *o;
    int rc = 0;
    json_array_foreach(arr, i, o) {
        gc_verdict v;
        vstrs vs;
        snprintf(r->where, sizeof r->where, "verdicts[%zu]", i % 100000000u);
        rc = verdict_of(r, o, &v, &vs, &rs, &cap);
        r->where[0] = '\0';
        if (!rc)
            rc = gc_detect_add_verdict(s->d, &v, r->err);
        if (rc)
            break;
    }
    free(rs);
    return rc;
}

/* schema 1: judged again (cr_det_*); schema 2: read for the schema's
 * errors and counted, its verdicts taken as they are */
static int w_gpu(sink *s, rd *r, json_t *o)
{
    if (r->major == 1)
        return cr_det_gpu(s, r, o);
    gc_det_gpu g;
    int rc = cr_gpu_of(r, o, s->rules, 0, &g, &s->b);
    if (!rc && s->info)
        s->info->gpus++;
    return rc;
}

static int w_link(sink *s, rd *r, json_t *o, size_t index)
{
    if (r->major == 1)
        return cr_det_link(s, r, o, index);
    gc_det_link l;
    int rc = cr_link_of(r, o, index, &l);
    if (!rc && s->info)
        s->info->links++;
    return rc;
}

/* schema 3: one verdict at a time (cr3_walk_verdicts) */
static int w_verdict(sink *s, rd *r, json_t *o, size_t i)
{
    gc_reason *rs = NULL;
    size_t cap = 0;
    gc_verdict v;
    vstrs vs;
    snprintf(r->where, sizeof r->where, "verdicts[%zu]", i % 100000000u);
    int rc = verdict_of(r, o, &v, &vs, &rs, &cap);
    r->where[0] = '\0';
    if (!rc)
        rc = gc_detect_add_verdict(s->d, &v, r->err);
    free(rs);
    s->seen_verdicts = 1;
    return rc;
}

static int w_top(sink *s, rd *r, const char *key, json_t *v)
{
    if (r->major == 2 && !strcmp(key, "verdicts")) {
        s->seen_verdicts = json_array_size(v) > 0;
        return add_verdicts(s, r, v);
    }
    return cr_cat_top(s, r, key, v);
}

static int verdicts_mem(const char *name, const char *buf, size_t len, gc_detect *d,
                        const gc_rules *rules, gc_catread_info *info, int *as_written, int *major,
                        gc_err *err)
{
    rd r = { .file = name, .buf = buf, .len = len, .err = err };
    sink s = { .gpu = w_gpu, .link = w_link, .top = w_top, .verdict = w_verdict, .fast3 = 1,
               .rules = rules, .d = d, .info = info };
    gc_cat_table *table = info ? info->table : NULL;
    if (info)
        memset(info, 0, sizeof *info);
    if (table) {   /* the per-GPU table, on the fast path only (schema 3) */
        gc_cat_table_free(table);
        r.table = table;
        info->table = table;
    }
    int rc = cr_walk_catalogue(&r, &s);
    if (table)
        table->filled = !rc && r.major == 3 && !table->oom && table->ngpus == info->gpus &&
                        table->nlinks == info->links;
    *as_written = r.major >= 2 && s.seen_verdicts;
    *major = r.major;
    return rc;
}

/* A schema-2 catalogue without verdicts (the run left them out: it says
 * so on stderr): judged here, its points from the node files. */
static int judge_instead(const char *name, const char *buf, size_t len, int with_pts,
                         gc_detect *d, const gc_rules *rules, gc_catread_info *info, gc_err *err)
{
    return with_pts ? gc_catread_catalogue(name, d, rules, info, err)
                    : gc_catread_catalogue_mem(name, buf, len, d, rules, info, err);
}

int gc_catread_verdicts_mem(const char *name, const char *buf, size_t len, gc_detect *d,
                            const gc_rules *rules, gc_catread_info *info, int *as_written,
                            gc_err *err)
{
    int major = 0;
    int rc = verdicts_mem(name, buf, len, d, rules, info, as_written, &major, err);
    if (!rc && major >= 2 && !*as_written)
        rc = judge_instead(name, buf, len, 0, d, rules, info, err);
    return rc;
}

typedef struct verdicts_args {
    gc_detect *d;
    const gc_rules *rules;
    gc_catread_info *info;
    int *as_written, major;
} verdicts_args;

static int verdicts_file(const char *name, const char *buf, size_t len, void *ctx, gc_err *err)
{
    verdicts_args *a = ctx;
    return verdicts_mem(name, buf, len, a->d, a->rules, a->info, a->as_written, &a->major, err);
}

int gc_catread_verdicts(const char *path, gc_detect *d, const gc_rules *rules,
                        gc_catread_info *info, int *as_written, gc_err *err)
{
    *as_written = 0;
    verdicts_args a = { d, rules, info, as_written, 0 };
    int rc = cr_with_file(path, verdicts_file, &a, err);
    if (!rc && a.major >= 2 && !*as_written)   /* judged from its node files, the file unloaded */
        rc = judge_instead(path, NULL, 0, 1, d, rules, info, err);
    return rc;
}

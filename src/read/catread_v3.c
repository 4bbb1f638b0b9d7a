/* Reading a schema-3 catalogue (catalogue_tail.c writes it): each GPU,
 * link and verdict is expanded to its 2.x object, so every reader of
 * the walk (catread_walk.c, above) reads either. Below it: catread.c's
 * decoders only. See catread_int.h.
 *
 * The tables a GPU or a link row needs (parameter units, the models'
 * names, the links' GPUs and classes, the verdicts' peer groups) may come
 * after it in the file: the members are found first by a scan that skips
 * values without parsing them (cr_skip_value), and only those tables are
 * parsed before the walk. check without a baseline (catread_verdicts.c)
 * parses no GPU and only the first three numbers of each link row. */
#include "read/catread_int.h"
#include "util/strtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/catalogue.h"

/* character classes of the skip: 1 string delimiters, 2 nesting */
static const unsigned char skip_cls[256] = { ['"'] = 1, ['\\'] = 1, ['{'] = 2, ['['] = 2,
                                             ['}'] = 2, [']'] = 2 };

/* one past the string whose opening quote is b[i], 0 if unterminated */
static size_t skip_string(const char *b, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        while (i < len && skip_cls[(unsigned char)b[i]] != 1)
            i++;
        if (i >= len)
            return 0;
        if (b[i] == '"')
            return i + 1;
        i++;   /* a backslash: the next character is escaped */
    }
    return 0;
}

size_t cr_skip_value(const char *b, size_t len, size_t i)
{
    while (i < len && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        i++;
    if (i >= len)
        return 0;
    char c = b[i];
    if (c == '"')
        return skip_string(b, len, i);
    if (c == '{' || c == '[') {
        size_t depth = 0;
        while (i < len) {
            while (i < len && !skip_cls[(unsigned char)b[i]])
                i++;
            if (i >= len)
                return 0;
            c = b[i];
            if (c == '"') {
                if (!(i = skip_string(b, len, i)))
                    return 0;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                return i + 1;
            i++;   /* a stray backslash outside strings: not JSON, the parser says so */
        }
        return 0;
    }
    size_t s = i;
    while (i < len && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' &&
           b[i] != '\r' && b[i] != '\t')
        i++;
    return i > s ? i : 0;
}

/* The members of the object at b[i] ('{'): up to max (key, value start,
 * value end); the count, or -1 when the scan cannot follow it. */
typedef struct member {
    char key[64];
    size_t start, end;
} member;

static int members_of(const char *b, size_t len, size_t i, member *m, int max)
{
    while (i < len && strchr(" \n\r\t", b[i]))
        i++;
    if (i >= len || b[i] != '{')
        return -1;
    i++;
    int n = 0;
    for (;;) {
        while (i < len && strchr(" \n\r\t,", b[i]))
            i++;
        if (i < len && b[i] == '}')
            return n;
        if (i >= len || b[i] != '"')
            return -1;
        size_t ke = cr_skip_value(b, len, i);
        if (!ke)
            return -1;
        while (ke < len && strchr(" \n\r\t", b[ke]))
            ke++;
        if (ke >= len || b[ke] != ':')
            return -1;
        size_t vs = ke + 1;
        while (vs < len && strchr(" \n\r\t", b[vs]))
            vs++;
        size_t ve = cr_skip_value(b, len, vs);
        if (!ve)
            return -1;
        if (n < max) {
            size_t kl = ke - i;   /* the key with its quotes, maybe trailing blanks */
            const char *k = b + i + 1;
            size_t q = 0;
            while (q + 1 < sizeof m[n].key && q < kl && k[q] != '"')
                m[n].key[q] = k[q], q++;
            m[n].key[q] = '\0';
            m[n].start = vs;
            m[n].end = ve;
            n++;
        }
        i = ve;
    }
}

static json_t *parse_range(rd *r, size_t start, size_t end, int *rc)
{
    json_error_t je;
    json_t *v = json_loadb(r->buf + start, end - start, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v && !*rc) {
        r->pos = start + (je.position > 0 ? (size_t)je.position : 0);
        r->where[0] = '\0';
        *rc = gc_fail(r->err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", r->file, cr_line_of(r, r->pos),
                      je.text);
    }
    return v;
}

void cr3_free(cr3 *v)
{
    if (!v)
        return;
    json_decref(v->units);
    json_decref(v->mtables);
    json_decref(v->lgpus);
    json_decref(v->lclasses);
    json_decref(v->lcolumns);
    json_decref(v->vgroups);
    for (size_t i = 0; i < v->nlinks; i++)
        free(v->links[i].subject);
    free(v->links);
    free(v);
}

/* Before the walk: the tables, wherever they are. */
int cr3_prescan(rd *r, size_t top)
{
    member m[32], lm[8];
    int n = members_of(r->buf, r->len, top, m, 32), rc = 0;
    if (n < 0)
        return 0;   /* the walk reports where the JSON is broken */
    cr3 *v = r->v3;
    for (int i = 0; i < n && !rc; i++) {
        if (!strcmp(m[i].key, "parameter_units")) {
            v->units = parse_range(r, m[i].start, m[i].end, &rc);
        } else if (!strcmp(m[i].key, "models")) {
            /* only its tables: the rest is the walk's */
            int k = members_of(r->buf, r->len, m[i].start, lm, 8);
            for (int j = 0; j < k && !rc; j++)
                if (!strcmp(lm[j].key, "tables"))
                    v->mtables = parse_range(r, lm[j].start, lm[j].end, &rc);
        } else if (!strcmp(m[i].key, "links") || !strcmp(m[i].key, "verdicts")) {
            int links = m[i].key[0] == 'l';
            int k = members_of(r->buf, r->len, m[i].start, lm, 8);
            for (int j = 0; j < k && !rc; j++) {
                json_t **to = NULL;
                if (links && !strcmp(lm[j].key, "gpus"))
                    to = &v->lgpus;
                else if (links && !strcmp(lm[j].key, "classes"))
                    to = &v->lclasses;
                else if (links && !strcmp(lm[j].key, "columns"))
                    to = &v->lcolumns;
                else if (!links && !strcmp(lm[j].key, "peer_groups"))
                    to = &v->vgroups;
                if (to)
                    *to = parse_range(r, lm[j].start, lm[j].end, &rc);
            }
        }
    }
    return rc;
}

/* ---- GPUs ------------------------------------------------------------- */

static json_t *errors_of(json_t *regimes, json_t *x)
{
    json_t *o = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(x, i, e) {
        json_t *name = json_array_get(regimes, i);
        if (!json_is_string(name) || !json_is_array(e))
            continue;
        json_t *s = json_object();
        json_object_set(s, "n", json_array_get(e, 0));
        json_object_set(s, "mape", json_array_get(e, 1));
        json_object_set(s, "max_ape", json_array_get(e, 2));
        json_object_set_new(o, json_string_value(name), s);
    }
    return o;
}

int cr3_gpu_expand(rd *r, json_t *g)
{
    const cr3 *v = r->v3;
    json_t *ps = json_object_get(g, "parameters");
    if (json_is_object(ps)) {
        json_t *arr = json_array();
        const char *k;
        json_t *x;
        json_object_foreach(ps, k, x) {
            json_t *p = json_object();
            json_object_set_new(p, "name", json_string(k));
            if (json_is_object(x)) {
                json_object_set(p, "value", json_object_get(x, "value"));
                json_object_set(p, "unit", json_object_get(x, "unit"));
            } else {
                json_object_set(p, "value", x);
                /* copies of the shared tables: GPUs may be expanded by threads */
                json_t *u = json_object_get(v->units, k);
                if (!json_is_string(u)) {
                    json_decref(p);
                    json_decref(arr);
                    return cr_bad(r, "'parameters.%.60s': no unit for it in 'parameter_units'", k);
                }
                json_object_set_new(p, "unit", json_string(json_string_value(u)));
            }
            json_array_append_new(arr, p);
        }
        json_object_set_new(g, "parameters", arr);
    }
    json_t *m = json_object_get(g, "models");
    if (!json_is_object(m))
        return 0;
    json_t *t = v->mtables, *regimes = json_object_get(t, "regimes");
    if (!json_is_object(t))
        return cr_bad(r, "'models' needs the top-level 'models.tables' (schema 3)");
    static const char *const names[] = { "mwp_cwp", "littles_law" };
    json_object_set_new(m, "launch_floor", json_deep_copy(json_object_get(t, "launch_floor")));
    for (int k = 0; k < 2; k++) {
        json_t *x = json_object_get(m, names[k]), *tk = json_object_get(t, names[k]);
        json_t *vals = json_object_get(x, "parameters"), *defs = json_object_get(tk, "parameters");
        if (!json_is_object(x))
            continue;
        if (!json_is_array(vals) || !json_is_array(defs) || json_array_size(vals) != json_array_size(defs))
            return cr_bad(r, "'models.%s.parameters' must list a value for each of "
                          "'models.tables.%s.parameters'", names[k], names[k]);
        json_t *o = json_object(), *arr = json_array();
        json_object_set_new(o, "reference", json_deep_copy(json_object_get(tk, "reference")));
        size_t i;
        json_t *d;
        json_array_foreach(defs, i, d) {
            json_t *p = json_object();
            json_object_set_new(p, "name", json_deep_copy(json_array_get(d, 0)));
            json_object_set(p, "value", json_array_get(vals, i));
            json_object_set_new(p, "unit", json_deep_copy(json_array_get(d, 1)));
            json_array_append_new(arr, p);
        }
        json_object_set_new(o, "parameters", arr);
        json_object_set(o, "lambda", json_object_get(x, "lambda"));
        json_object_set(o, "lambda_kernels", json_object_get(x, "lambda_kernels"));
        json_t *er = json_object_get(x, "errors"), *eo = json_object();
        json_object_set_new(eo, "raw", errors_of(regimes, json_object_get(er, "raw")));
        json_object_set_new(eo, "calibrated", errors_of(regimes, json_object_get(er, "calibrated")));
        json_object_set_new(o, "errors", eo);
        json_object_set_new(m, names[k], o);
    }
    /* member order as 2.x: better_model last */
    json_t *b = json_object_get(m, "better_model");
    if (b) {
        json_incref(b);
        json_object_del(m, "better_model");
        json_object_set_new(m, "better_model", b);
    }
    return 0;
}

/* ---- links ------------------------------------------------------------ */

/* end code e of the links' GPU table, or NULL when out of it */
static json_t *end_of(const cr3 *v, json_t *e)
{
    if (json_is_object(e))
        return json_incref(e);
    if (!json_is_integer(e))
        return NULL;
    json_int_t c = json_integer_value(e);
    int host = c < 0;
    json_t *t = json_array_get(v->lgpus, (size_t)(host ? -c - 1 : c));
    if (!json_is_array(t) || json_array_size(t) < 5)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(host ? "host" : "gpu"));
    json_object_set(o, "node", json_array_get(t, 0));
    json_object_set(o, "gpu_index", host ? json_null() : json_array_get(t, 1));
    json_object_set(o, "uuid", host ? json_null() : json_array_get(t, 3));
    json_object_set(o, "numa_node", json_array_get(t, 4));
    return o;
}

static const char *const class_keys[] = { "kind", "benchmark", "direction", "memory", "engine",
                                          "peer_access", "concurrent" };

/* Row i -> its 2.x link object (NULL: a schema error, reported). */
static json_t *link_of(rd *r, json_t *row, size_t i)
{
    const cr3 *v = r->v3;
    json_t *cols = v->lcolumns;
    if (!json_is_array(row) || !json_is_array(cols) || json_array_size(row) != json_array_size(cols)) {
        cr_bad(r, "a link row must be an array of the values of 'links.columns'");
        return NULL;
    }
    json_t *x = json_object(), *l = json_object();
    size_t k;
    json_t *c;
    json_array_foreach(cols, k, c) if (json_is_string(c))
        json_object_set(x, json_string_value(c), json_array_get(row, k));
    json_t *cls = json_array_get(v->lclasses, (size_t)json_integer_value(json_object_get(x, "class")));
    json_t *src = end_of(v, json_object_get(x, "src")), *dst = end_of(v, json_object_get(x, "dst"));
    json_t *by = json_object_get(x, "measured_on");
    json_t *bt = json_is_integer(by) ? json_array_get(v->lgpus, (size_t)json_integer_value(by)) : NULL;
    if (!json_is_integer(json_object_get(x, "class")) || !json_is_array(cls) ||
        json_array_size(cls) != 7 || !src || !dst || (!json_is_object(by) && !json_is_array(bt))) {
        json_decref(src), json_decref(dst), json_decref(x), json_decref(l);
        cr_bad(r, "links.rows[%zu]: 'class', 'src', 'dst' and 'measured_on' must name entries of "
               "'links.classes' and 'links.gpus' (or be objects)", i);
        return NULL;
    }
    for (int j = 0; j < 7; j++)
        json_object_set(l, class_keys[j], json_array_get(cls, j));
    json_object_set_new(l, "src", src);
    json_object_set_new(l, "dst", dst);
    if (json_is_object(by)) {
        json_object_set(l, "measured_on", by);
    } else {
        json_t *o = json_object();
        json_object_set(o, "node", json_array_get(bt, 0));
        json_object_set(o, "gpu_index", json_array_get(bt, 1));
        json_object_set(o, "rank", json_array_get(bt, 2));
        json_object_set_new(l, "measured_on", o);
    }
    json_object_set(l, "bandwidth_top_p50_bps", json_object_get(x, "bandwidth_top_p50_bps"));
    json_t *m = json_object_get(x, "model");
    if (json_is_array(m)) {
        static const char *const mk[] = { "alpha_s", "beta_bps", "r2", "max_rel_residual",
                                          "size_min_bytes", "size_max_bytes" };
        json_t *o = json_object();
        for (int j = 0; j < 6; j++)
            json_object_set(o, mk[j], json_array_get(m, (size_t)j));
        json_t *segs = json_array_get(m, 6);
        if (json_is_array(segs)) {
            json_t *sa = json_array(), *sg;
            size_t q;
            json_array_foreach(segs, q, sg) {
                json_t *so = json_object();
                json_object_set(so, "alpha_s", json_array_get(sg, 0));
                json_object_set(so, "beta_bps", json_array_get(sg, 1));
                json_object_set(so, "size_min_bytes", json_array_get(sg, 2));
                json_object_set(so, "size_max_bytes", json_array_get(sg, 3));
                json_array_append_new(sa, so);
            }
            json_object_set_new(o, "segments", sa);
        }
        json_object_set_new(l, "model", o);
    } else {
        json_object_set_new(l, "model", json_null());
    }
    json_t *ch = json_object_get(x, "latency_chase");
    if (json_is_array(ch)) {
        static const char *const ck[] = { "footprint_bytes", "count", "p5_ns", "p50_ns", "p95_ns",
                                          "p50_cycles" };
        json_t *o = json_object();
        for (int j = 0; j < 6; j++)
            json_object_set(o, ck[j], json_array_get(ch, (size_t)j));
        json_object_set(l, "latency_chase_ns", json_array_get(ch, 3));
        json_object_set_new(l, "latency_chase", o);
    } else {
        json_object_set_new(l, "latency_chase_ns", json_null());
        json_object_set_new(l, "latency_chase", json_null());
    }
    static const char *const rest[] = { "nominal_bps", "nominal_basis", "lambda", "share" };
    for (int j = 0; j < 4; j++)
        json_object_set(l, rest[j], json_object_get(x, rest[j]));
    json_t *ag = json_object_get(x, "remeasured_bandwidth_bps");
    if (ag && !json_is_null(ag))
        json_object_set(l, "remeasured_bandwidth_bps", ag);
    json_decref(x);
    return l;
}

/* What a folded verdict of link i needs: its subject and node. */
static int keep_link(rd *r, json_t *l, size_t i)
{
    cr3 *v = r->v3;
    if (i >= v->caplinks) {
        size_t c = v->caplinks ? 2 * v->caplinks : 1024;
        while (c <= i)
            c *= 2;
        cr3_link *n = realloc(v->links, c * sizeof *n);
        if (!n)
            return gc_fail(r->err, GC_ENOMEM, "out of memory");
        memset(n + v->caplinks, 0, (c - v->caplinks) * sizeof *n);
        v->links = n, v->caplinks = c;
    }
    if (i >= v->nlinks)
        v->nlinks = i + 1;
    gc_det_link dl;
    char where[sizeof r->where];
    memcpy(where, r->where, sizeof where);
    int rc = cr_link_of(r, l, i, &dl);
    memcpy(r->where, where, sizeof where);
    if (rc)
        return rc;
    char subject[300];
    const char *node;
    gc_det_link_subject(&dl, subject, sizeof subject, &node);
    size_t sl = strlen(subject), nl = strlen(node ? node : "");
    char *k = malloc(sl + nl + 2);
    if (!k)
        return gc_fail(r->err, GC_ENOMEM, "out of memory");
    memcpy(k, subject, sl + 1);
    memcpy(k + sl + 1, node ? node : "", nl + 1);
    free(v->links[i].subject);
    v->links[i].subject = k;
    return 0;
}

/* check's fast path: a row's class, src and dst codes (its first three
 * numbers) give the subject without parsing the row */
static int codes_of(const char *b, size_t len, size_t i, long long c[3])
{
    if (i >= len || b[i] != '[')
        return -1;
    i++;
    for (int k = 0; k < 3; k++) {
        char *e;
        c[k] = strtoll(b + i, &e, 10);
        if (e == b + i || (size_t)(e - b) >= len || *e != ',')
            return -1;
        i = (size_t)(e - b) + 1;
    }
    return 0;
}

static int link_fast(rd *r, size_t start, size_t end, size_t i)
{
    long long c[3];
    cr3 *v = r->v3;
    if (codes_of(r->buf, end, start, c) == 0) {
        json_t *cls = json_array_get(v->lclasses, (size_t)c[0]);
        json_t *row = json_pack("[IIIiii]", c[0], c[1], c[2], 0, 0, 0);
        json_t *src = end_of(v, json_array_get(row, 1)), *dst = end_of(v, json_array_get(row, 2));
        json_decref(row);
        if (json_is_array(cls) && src && dst) {
            json_t *l = json_object();
            for (int j = 0; j < 7; j++)
                json_object_set(l, class_keys[j], json_array_get(cls, j));
            json_object_set_new(l, "src", src);
            json_object_set_new(l, "dst", dst);
            json_object_set_new(l, "nominal_bps", json_null());
            json_object_set_new(l, "lambda", json_null());
            json_object_set_new(l, "model", json_null());
            json_object_set_new(l, "bandwidth_top_p50_bps", json_null());
            cr_table_link(r, l);
            int rc = keep_link(r, l, i);
            json_decref(l);
            return rc;
        }
        json_decref(src), json_decref(dst);
    }
    int rc = 0;
    json_t *row = parse_range(r, start, end, &rc);
    json_t *l = row ? link_of(r, row, i) : NULL;
    json_decref(row);
    if (!l)
        return rc ? rc : r->err->code ? r->err->code : GC_ECORRUPT;
    cr_table_link(r, l);
    rc = keep_link(r, l, i);
    json_decref(l);
    return rc;
}

/* Each row of what's "rows" (what: an object in schema 3, at *p), its
 * text buf[start, end), to row; *p past the object. */
typedef int (*row_fn)(rd *r, size_t start, size_t end, size_t i, void *ctx);
static int walk_rows(rd *r, size_t *p, const char *what, row_fn row, void *ctx)
{
    member m[8];
    int n = members_of(r->buf, r->len, *p, m, 8);
    if (n < 0)
        return cr_bad(r, "'%s' must be an object (schema 3)", what);
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        if (strcmp(m[k].key, "rows"))
            continue;
        size_t q = m[k].start + 1, i = 0;
        while (!rc) {
            q = cr_skip_ws(r, q);
            if (q < m[k].end && r->buf[q] == ']')
                break;
            size_t e = cr_skip_value(r->buf, m[k].end, q);
            r->pos = q;
            if (!e)
                return cr_bad(r, "%s.rows: not valid JSON", what);
            rc = row(r, q, e, i++, ctx);
            q = cr_skip_ws(r, e);
            if (q < m[k].end && r->buf[q] == ',')
                q++;
        }
    }
    *p = cr_skip_value(r->buf, r->len, *p);   /* past the object (members_of followed it) */
    return rc;
}

static int link_row(rd *r, size_t start, size_t end, size_t i, void *ctx)
{
    sink *s = ctx;
    int rc = 0;
    snprintf(r->where, sizeof r->where, "links[%zu]", i);
    if (s->fast3) {
        rc = link_fast(r, start, end, i);
    } else {
        json_t *row = parse_range(r, start, end, &rc);
        json_t *l = row ? link_of(r, row, i) : NULL;
        json_decref(row);
        if (!l && !rc)
            rc = r->err->code ? r->err->code : GC_ECORRUPT;
        if (!rc)
            rc = keep_link(r, l, i);
        if (!rc)
            rc = s->link(s, r, l, i);
        json_decref(l);
    }
    r->where[0] = '\0';
    if (!rc && s->info && s->fast3)
        s->info->links++;
    return rc;
}

/* the rows of "links" (an object in schema 3) */
int cr3_walk_links(rd *r, size_t *p, sink *s)
{
    return walk_rows(r, p, "links", link_row, s);
}

/* ---- verdicts --------------------------------------------------------- */

static json_t *verdict_of_row(rd *r, json_t *row, size_t i)
{
    const cr3 *v = r->v3;
    static const char *const lv[] = { "ok", "suspect", "degraded", "failed" };
    json_int_t t = json_integer_value(json_array_get(row, 0));
    size_t n = json_array_size(row);
    json_t *o = json_object();
    json_int_t level = -1, group = 0, peers = 0, basis = 0;
    int bad = !json_is_integer(json_array_get(row, 0));
    if (!bad && t == 0 && n == 8) {
        const char *node = json_string_value(json_array_get(row, 1));
        json_t *gi = json_array_get(row, 2), *uuid = json_array_get(row, 3);
        char subj[GC_NODE_MAX + 32];
        bad = !node || !json_is_integer(gi) || (!json_is_string(uuid) && !json_is_null(uuid));
        if (!bad && r->gpus_seen) {   /* the GPUs were listed: this one among them */
            char key[160];
            snprintf(key, sizeof key, "g\x1f%s\x1f%lld", node, (long long)json_integer_value(gi));
            if (gc_strtab_id(r->gpus_seen, key, 0) < 0) {
                json_decref(o);
                cr_bad(r, "verdicts.rows[%zu]: a verdict for %.64s/gpu%lld, a GPU the catalogue "
                       "does not list; refused", i, node, (long long)json_integer_value(gi));
                return NULL;
            }
        }
        if (!bad) {
            snprintf(subj, sizeof subj, "%s/gpu%lld", node, (long long)json_integer_value(gi));
            json_object_set_new(o, "subject", json_string(subj));
            json_object_set_new(o, "type", json_string("gpu"));
            json_object_set(o, "node", json_array_get(row, 1));
            json_object_set(o, "gpu_index", gi);
            json_object_set(o, "uuid", uuid);
            json_object_set_new(o, "link", json_null());
        }
        level = json_integer_value(json_array_get(row, 4));
        group = json_integer_value(json_array_get(row, 5));
        peers = json_integer_value(json_array_get(row, 6));
        basis = json_integer_value(json_array_get(row, 7));
    } else if (!bad && t == 1 && n == 6) {
        json_int_t li = json_integer_value(json_array_get(row, 1));
        bad = !json_is_integer(json_array_get(row, 1)) || li < 0 || (size_t)li >= v->nlinks ||
              !v->links[li].subject;
        if (!bad) {
            const char *subj = v->links[li].subject;
            json_object_set_new(o, "subject", json_string(subj));
            json_object_set_new(o, "type", json_string("link"));
            json_object_set_new(o, "node", json_string(subj + strlen(subj) + 1));
            json_object_set_new(o, "gpu_index", json_null());
            json_object_set_new(o, "uuid", json_null());
            json_object_set_new(o, "link", json_integer(li));
        }
        level = json_integer_value(json_array_get(row, 2));
        group = json_integer_value(json_array_get(row, 3));
        peers = json_integer_value(json_array_get(row, 4));
        basis = json_integer_value(json_array_get(row, 5));
    } else if (!bad && t == 2 && n == 4) {
        bad = !json_is_string(json_array_get(row, 1));
        json_object_set(o, "subject", json_array_get(row, 1));
        json_object_set_new(o, "type", json_string("node"));
        json_object_set(o, "node", json_array_get(row, 1));
        json_object_set_new(o, "gpu_index", json_null());
        json_object_set_new(o, "uuid", json_null());
        json_object_set_new(o, "link", json_null());
        level = json_integer_value(json_array_get(row, 2));
        peers = json_integer_value(json_array_get(row, 3));
    } else {
        bad = 1;
    }
    json_t *g = t == 2 ? json_string("node") : json_incref(json_array_get(v->vgroups, (size_t)group));
    if (bad || level < 0 || level > 3 || !json_is_string(g)) {
        json_decref(g);
        json_decref(o);
        cr_bad(r, "verdicts.rows[%zu]: a row must be [0, node, gpu_index, uuid, verdict, peer_group, "
               "peers, basis], [1, link, verdict, peer_group, peers, basis], [2, node, verdict, "
               "peers] or a verdict object, naming a link of 'links' and a group of "
               "'verdicts.peer_groups'", i);
        return NULL;
    }
    json_object_set_new(o, "verdict", json_string(lv[level]));
    json_object_set_new(o, "peer_group", g);
    json_object_set_new(o, "peers", json_integer(peers));
    json_t *b = json_array();
    if (t == 2) {
        json_array_append_new(b, json_string("members"));
    } else {
        if (basis & 1)
            json_array_append_new(b, json_string("peers"));
        if (basis & 2)
            json_array_append_new(b, json_string("baseline"));
        json_array_append_new(b, json_string("limits"));
    }
    json_object_set_new(o, "basis", b);
    json_object_set_new(o, "reasons", json_array());
    return o;
}

typedef struct vrows {
    sink *s;
    json_t *all;   /* without s->verdict: every verdict, for s->top */
} vrows;

static int verdict_row(rd *r, size_t start, size_t end, size_t i, void *ctx)
{
    vrows *v = ctx;
    int rc = 0;
    json_t *row = parse_range(r, start, end, &rc);
    json_t *o = !row ? NULL : json_is_object(row) ? json_incref(row) : verdict_of_row(r, row, i);
    json_decref(row);
    if (!o && !rc)
        rc = r->err->code ? r->err->code : GC_ECORRUPT;
    if (!rc)
        rc = v->s->verdict ? v->s->verdict(v->s, r, o, i) : json_array_append(v->all, o);
    json_decref(o);
    return rc;
}

/* "verdicts" (an object in schema 3): each row to s->verdict, or all of
 * them as one 2.x array to s->top */
int cr3_walk_verdicts(rd *r, size_t *p, sink *s)
{
    vrows v = { s, s->verdict ? NULL : json_array() };
    int rc = walk_rows(r, p, "verdicts", verdict_row, &v);
    if (!rc && v.all)
        rc = s->top(s, r, "verdicts", v.all);
    json_decref(v.all);
    return rc;
}

/* Verdict and reason bookkeeping of detect, the detector's strings, and the
 * verdicts as JSON; the rules that add the reasons are in detect_rules.c,
 * detect_peers.c and detect_links.c.
 *
 * Layer 0 of detect, a bottom file (detect_int.h): it calls no other file
 * of the module. */
#include "judge/detect.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"
#include "util/grow.h"

static const char *const level_names[] = { "ok", "suspect", "degraded", "failed" };

const char *gc_verdict_name(int v)
{
    return v >= 0 && v <= GC_V_FAILED ? level_names[v] : "?";
}

static const char *const noted_names[] = { NULL, "noisy_host", "noisy_host_link" };

const char *gc_noted_name(int kind)
{
    return kind > 0 && kind <= GC_NOTED_NOISY_HOST_LINK ? noted_names[kind] : NULL;
}

int gc_noted_of(const char *name)
{
    for (int k = 1; name && k <= GC_NOTED_NOISY_HOST_LINK; k++)
        if (!strcmp(name, noted_names[k]))
            return k;
    return -1;
}

/* ---- verdict building ------------------------------------------------- */

/* Worst first; at equal severity: measurement status and physical limits,
 * then members (of a node), parameters, single points and distributions,
 * then the order they were found in. */
static int rule_rank(const gc_reason *r)
{
    if (!strcmp(r->rule, "status") || !strncmp(r->rule, "limit_", 6) || !strcmp(r->rule, "numa") ||
        !strcmp(r->rule, "pcie_switch") ||
        !strcmp(r->rule, "shared") || !strcmp(r->rule, "common_end"))
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

gc_verdict *det_new_verdict(gc_detect *d, int type)
{
    if (gc_grow((void **)&d->v, &d->capv, d->nv + 1, sizeof *d->v))
        return NULL;
    gc_verdict *v = &d->v[d->nv++];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->subject = v->node = v->uuid = v->group = v->note = "";
    v->gpu_index = -1;
    v->link_index = -1;
    return v;
}

const char *det_vstr(gc_detect *d, const char *s, size_t cap)
{
    char cut[GC_NOTE_CAP];
    if (!s)
        s = "";
    if (strlen(s) >= cap && cap <= sizeof cut) {
        snprintf(cut, cap, "%s", s);
        s = cut;
    }
    long id = gc_strtab_id(&d->vstr, s, 1);
    return id < 0 ? NULL : d->vstr.s[id];
}

const char *det_vstr_own(gc_detect *d, const char *s)
{
    size_t n = strlen(s) + 1;
    char *o = gc_blocks_take(&d->strs, n, 1u << 20);
    if (o)
        memcpy(o, s, n);
    return o;
}

static int set_fmt(gc_detect *d, const char **field, size_t cap, const char *head, const char *fmt,
                   va_list ap)
{
    char t[GC_NOTE_CAP];
    size_t n = (size_t)snprintf(t, cap, "%s", head);
    if (n < cap)
        vsnprintf(t + n, cap - n, fmt, ap);
    const char *s = det_vstr(d, t, cap);
    if (!s)
        return GC_ENOMEM;
    *field = s;
    return 0;
}

int det_set_subject(gc_detect *d, gc_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_fmt(d, &v->subject, 256, "", fmt, ap);
    va_end(ap);
    return rc;
}

int det_set_group(gc_detect *d, gc_verdict *v, const char *s)
{
    const char *g = det_vstr(d, s, 256);
    if (!g)
        return GC_ENOMEM;
    v->group = g;
    return 0;
}

int det_set_note(gc_detect *d, gc_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_fmt(d, &v->note, GC_NOTE_CAP, "", fmt, ap);
    va_end(ap);
    return rc;
}

int det_add_note(gc_detect *d, gc_verdict *v, const char *fmt, ...)
{
    char head[GC_NOTE_CAP];
    snprintf(head, sizeof head, "%s%s", v->note, v->note[0] ? "; " : "");
    va_list ap;
    va_start(ap, fmt);
    int rc = set_fmt(d, &v->note, GC_NOTE_CAP, head, fmt, ap);
    va_end(ap);
    return rc;
}

int gc_detect_add_verdict(gc_detect *d, const gc_verdict *v, gc_err *err)
{
    gc_verdict *n = det_new_verdict(d, v->type);
    gc_reason *rs = v->nreasons ? malloc(v->nreasons * sizeof *rs) : NULL;
    if (!n || (v->nreasons && !rs)) {
        free(rs);
        if (n)
            d->nv--;
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    }
    *n = *v;
    n->subject = det_vstr(d, v->subject, 256);
    n->group = det_vstr(d, v->group, 256);
    n->note = det_vstr(d, v->note, GC_NOTE_CAP);
    n->node = det_vstr(d, v->node, GC_NODE_MAX);
    n->uuid = det_vstr(d, v->uuid, 48);
    if (!n->subject || !n->group || !n->note || !n->node || !n->uuid) {
        free(rs);
        d->nv--;
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    }
    if (rs)
        memcpy(rs, v->reasons, v->nreasons * sizeof *rs);
    n->reasons = rs;
    d->finished = 1;   /* as written: nothing left to judge */
    return 0;
}

/* v's next reason's place (NULL: out of memory) */
static gc_reason *reason_slot(gc_verdict *v)
{
    if ((v->nreasons & (v->nreasons - 1)) == 0) {   /* 0, 1, 2, 4, ...: grow */
        gc_reason *nr = realloc(v->reasons, (v->nreasons ? v->nreasons * 2 : 1) * sizeof *nr);
        if (!nr)
            return NULL;
        v->reasons = nr;
    }
    return &v->reasons[v->nreasons++];
}

int det_move_reasons(gc_verdict *to, gc_verdict *from)
{
    int rc = 0;
    for (size_t k = 0; k < from->nreasons && !rc; k++) {
        gc_reason *r = reason_slot(to);
        if (r)
            *r = from->reasons[k];
        else
            rc = GC_ENOMEM;
    }
    if (from->level > to->level)
        to->level = from->level;
    free(from->reasons);
    from->reasons = NULL;
    from->nreasons = 0;
    return rc;
}

int det_add_reason(gc_verdict *v, const char *rule, const char *metric, double value,
                   double ref, double dev, const char *dev_unit, int sev, const char *fmt, ...)
{
    gc_reason *r = reason_slot(v);
    if (!r)
        return GC_ENOMEM;
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

/* ---- grouping a GPU's point reasons ------------------------------------ */

/* The length of a point reason's "bench.metric" (its group), 0: not a point rule's reason. */
static size_t point_family(const gc_reason *r)
{
    if (strcmp(r->rule, "peers") && strcmp(r->rule, "distribution") && strcmp(r->rule, "baseline"))
        return 0;
    size_t n = strcspn(r->metric, " ");
    return memchr(r->metric, '.', n) ? n : 0;
}

/* x worse than y: severity, then |deviation| (NAN least) */
static int worse(const gc_reason *x, const gc_reason *y)
{
    if (x->severity != y->severity)
        return x->severity > y->severity;
    double a = fabs(x->deviation), b = fabs(y->deviation);
    return isfinite(a) && (!isfinite(b) || a > b);
}

static void range_text(char *out, size_t cap, const gc_reason *r)
{
    if (!strcmp(r->deviation_unit, "relative"))
        snprintf(out, cap, "%+.1f%%..%+.1f%%", 100 * r->dev_lo, 100 * r->dev_hi);
    else if (!strcmp(r->deviation_unit, "robust_z"))
        snprintf(out, cap, "robust z %+.1f..%+.1f", r->dev_lo, r->dev_hi);
    else
        snprintf(out, cap, "%s %+.3g..%+.3g", r->deviation_unit, r->dev_lo, r->dev_hi);
}

int gc_verdict_group_reasons(gc_verdict *v)
{
    size_t n = v->nreasons;
    if (n < 2)
        return 0;
    /* per reason: its group's head (the first reason of the group) */
    size_t *head = malloc(n * sizeof *head), *heads = malloc(n * sizeof *heads);
    size_t *worst = malloc(n * sizeof *worst), *count = calloc(n, sizeof *count);
    size_t *ndeg = calloc(n, sizeof *ndeg);
    size_t cap = 1;   /* det_add_reason grows at powers of two: keep one */
    while (cap < n)
        cap *= 2;
    gc_reason *out = malloc(cap * sizeof *out);
    if (!head || !heads || !worst || !count || !ndeg || !out) {
        free(head), free(heads), free(worst), free(count), free(ndeg), free(out);
        return GC_ENOMEM;
    }
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        const gc_reason *r = &v->reasons[i];
        size_t fl = point_family(r), h = i;
        /* groups are few (~25 a GPU): a scan of the heads */
        for (size_t k = 0; fl && k < nh; k++) {
            const gc_reason *q = &v->reasons[heads[k]];
            if (point_family(q) == fl && !strncmp(q->metric, r->metric, fl) && !strcmp(q->rule, r->rule)) {
                h = heads[k];
                break;
            }
        }
        if (h == i) {
            if (fl)
                heads[nh++] = i;
            worst[i] = i;
        } else if (worse(r, &v->reasons[worst[h]])) {
            worst[h] = i;
        }
        head[i] = h;
        count[h]++;
        ndeg[h] += r->severity >= GC_V_DEGRADED;
    }
    size_t no = 0;
    for (size_t i = 0; i < n; i++) {
        if (head[i] != i)
            continue;
        gc_reason *o = &out[no++];
        *o = v->reasons[worst[i]];
        if (count[i] < 2)
            continue;
        o->points = (int)count[i];
        o->dev_lo = INFINITY, o->dev_hi = -INFINITY;
        for (size_t j = i; j < n; j++)
            if (head[j] == i && isfinite(v->reasons[j].deviation)) {
                o->dev_lo = fmin(o->dev_lo, v->reasons[j].deviation);
                o->dev_hi = fmax(o->dev_hi, v->reasons[j].deviation);
            }
        if (!(o->dev_lo <= o->dev_hi))
            o->dev_lo = o->dev_hi = NAN;
        char range[80], d[sizeof o->detail];
        range_text(range, sizeof range, o);
        size_t k = (size_t)snprintf(d, sizeof d, "%zu points moved (%zu degraded), %s; worst: ", count[i],
                                    ndeg[i], range);
        if (k < sizeof d) {   /* the worst point's own words, cut to fit */
            size_t m = strnlen(o->detail, sizeof d - 1 - k);
            memcpy(d + k, o->detail, m);
            d[k + m] = '\0';
        }
        memcpy(o->detail, d, sizeof d);
    }
    free(v->reasons);
    v->reasons = out;
    v->nreasons = no;
    free(head), free(heads), free(worst), free(count), free(ndeg);
    return 0;
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

int gc_verdict_incomplete(const gc_verdict *v)
{
    for (size_t k = 0; v->type == GC_SUBJ_GPU && k < v->nreasons; k++)
        if (!strcmp(v->reasons[k].rule, "incomplete"))
            return 1;
    return 0;
}

size_t gc_detect_incomplete(const gc_detect *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nv; i++)
        n += gc_verdict_incomplete(&d->v[i]);
    return n;
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
    if (gc_noted_name(v->noted) && v->level == GC_V_OK)
        json_object_set_new(o, "noted", json_pack("{s:s}", "kind", gc_noted_name(v->noted)));
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
        if (r->points > 1) {
            json_object_set_new(x, "points", json_integer(r->points));
            json_t *rg = json_array();
            json_array_append_new(rg, num_or_null(r->dev_lo));
            json_array_append_new(rg, num_or_null(r->dev_hi));
            json_object_set_new(x, "deviation_range", rg);
        }
        json_array_append_new(rs, x);
    }
    json_object_set_new(o, "reasons", rs);
    return o;
}

/* A verdict without reasons whose strings are printable ASCII (nearly
 * every one of a healthy census: 31 a GPU) as json_dumps would write
 * verdict_json's object (JSON_INDENT(1)), without building it: 0, or -1 to
 * leave it to jansson. */
static int plain_str(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return 0;
    return 1;
}

static void put_jstr(char **p, const char *s)
{
    char *o = *p;
    *o++ = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '"';
    *p = o;
}

static char *verdict_text(const gc_verdict *v, int *fallback)
{
    *fallback = v->nreasons || v->type < 0 || v->type > GC_SUBJ_NODE || !plain_str(v->subject) ||
                !plain_str(v->node) || !plain_str(v->uuid) || !plain_str(v->group) ||
                !plain_str(v->note);
    if (*fallback)
        return NULL;
    size_t cap = 2 * (strlen(v->subject) + strlen(v->node) + strlen(v->uuid) + strlen(v->group) +
                      strlen(v->note)) + 448;
    char *t = malloc(cap), *o = t;
    if (!t)
        return NULL;
#define PUTS(x) (memcpy(o, x, strlen(x)), o += strlen(x))
    PUTS("{\n \"subject\": ");
    put_jstr(&o, v->subject);
    PUTS(",\n \"type\": ");
    put_jstr(&o, type_names[v->type]);
    PUTS(",\n \"node\": ");
    put_jstr(&o, v->node);
    PUTS(",\n \"gpu_index\": ");
    o += v->gpu_index >= 0 ? sprintf(o, "%d", v->gpu_index) : sprintf(o, "null");
    PUTS(",\n \"uuid\": ");
    if (v->uuid[0])
        put_jstr(&o, v->uuid);
    else
        PUTS("null");
    PUTS(",\n \"link\": ");
    o += v->link_index >= 0 ? sprintf(o, "%ld", v->link_index) : sprintf(o, "null");
    PUTS(",\n \"verdict\": ");
    put_jstr(&o, gc_verdict_name(v->level));
    PUTS(",\n \"peer_group\": ");
    put_jstr(&o, v->group);
    o += sprintf(o, ",\n \"peers\": %d,\n \"basis\": [", v->peers);
    if (v->type != GC_SUBJ_NODE) {
        if (v->used_peers)
            PUTS("\n  \"peers\",");
        if (v->used_baseline)
            PUTS("\n  \"baseline\",");
        PUTS("\n  \"limits\"\n ]");
    } else {
        PUTS("\n  \"members\"\n ]");
    }
    if (v->note[0]) {
        PUTS(",\n \"note\": ");
        put_jstr(&o, v->note);
    }
    if (gc_noted_name(v->noted) && v->level == GC_V_OK) {   /* a plain name: no escaping */
        PUTS(",\n \"noted\": {\n  \"kind\": \"");
        PUTS(gc_noted_name(v->noted));
        PUTS("\"\n }");
    }
    PUTS(",\n \"reasons\": []\n}");
#undef PUTS
    *o = '\0';
    return t;
}

char *gc_verdict_json_compact(const gc_verdict *v)
{
    json_t *o = verdict_json(v);
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return t;
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
        int fallback;
        char *t = verdict_text(&d->v[i], &fallback);
        if (fallback) {
            json_t *o = verdict_json(&d->v[i]);
            t = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER) : NULL;
            json_decref(o);
        }
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

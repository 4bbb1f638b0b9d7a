/* Catalogue files. See catalogue.h. */
#include "catalogue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "derive.h"
#include "fsutil.h"
#include "links.h"

/* ---- JSON writer ------------------------------------------------------
 *
 * The files are written by a small streaming writer instead of building
 * jansson trees and dumping them: a large census writes gigabytes of JSON,
 * and building, hashing, dumping (one fwrite per token) and freeing a tree
 * per GPU cost ~20x more than the bytes themselves. The writer produces
 * byte for byte what jansson's json_dumpf wrote with
 * JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER:
 * the same layout, reals as jansson's jsonp_dtostr (%.10g, ".0" added to
 * integral values, exponent without '+' or leading zeros), strings escaped
 * the same way, and, as json_string() and json_object_set_new() refuse
 * them, a key or string value that is not valid UTF-8 is left out with its
 * member. */

#define JW_BUF (1u << 20)
#define JW_MAXDEPTH 32

typedef struct jw {
    FILE *f;
    char *buf;
    size_t len;
    int err;                 /* a write failed */
    int depth;               /* open containers */
    int depth0;              /* indentation of the outermost value */
    size_t count[JW_MAXDEPTH];
} jw;

static void jw_flush(jw *w)
{
    if (w->len && !w->err && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->err = 1;
    w->len = 0;
}

static void jw_put(jw *w, const char *s, size_t n)
{
    if (w->len + n > JW_BUF) {
        jw_flush(w);
        if (n > JW_BUF) {
            if (!w->err && fwrite(s, 1, n, w->f) != n)
                w->err = 1;
            return;
        }
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void jw_puts(jw *w, const char *s) { jw_put(w, s, strlen(s)); }

static void jw_indent(jw *w, int depth)
{
    static const char spaces[] = "\n                                                                ";
    jw_put(w, spaces, 1);
    while (depth > 0) {
        size_t k = depth > 64 ? 64 : (size_t)depth;
        jw_put(w, spaces + 1, k);
        depth -= (int)k;
    }
}

/* jansson's utf8_check_string */
static int utf8_ok(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned u = *s;
        int n;
        unsigned v;
        if (u < 0x80) {
            s++;
            continue;
        } else if (u < 0xC2) {
            return 0;
        } else if (u < 0xE0) {
            n = 2, v = u & 0x1F;
        } else if (u < 0xF0) {
            n = 3, v = u & 0x0F;
        } else if (u <= 0xF4) {
            n = 4, v = u & 0x07;
        } else {
            return 0;
        }
        for (int i = 1; i < n; i++) {
            if (s[i] < 0x80 || s[i] > 0xBF)
                return 0;
            v = (v << 6) | (s[i] & 0x3F);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
            (n == 4 && v < 0x10000))
            return 0;
        s += n;
    }
    return 1;
}

/* jansson's dump_string without JSON_ENSURE_ASCII / JSON_ESCAPE_SLASH:
 * '"', '\\' and control characters are escaped, the rest is copied. */
static void jw_string(jw *w, const char *s)
{
    jw_put(w, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        jw_put(w, run, (size_t)(s - run));
        char seq[8];
        const char *t = seq;
        switch (c) {
        case '\\': t = "\\\\"; break;
        case '"': t = "\\\""; break;
        case '\b': t = "\\b"; break;
        case '\f': t = "\\f"; break;
        case '\n': t = "\\n"; break;
        case '\r': t = "\\r"; break;
        case '\t': t = "\\t"; break;
        default: snprintf(seq, sizeof seq, "\\u%04X", c); break;
        }
        jw_puts(w, t);
        run = s + 1;
    }
    jw_put(w, run, (size_t)(s - run));
    jw_put(w, "\"", 1);
}

/* Before a member or element of the innermost container. */
static void jw_next(jw *w)
{
    if (w->depth > 0) {
        if (w->count[w->depth - 1]++)
            jw_put(w, ",", 1);
        jw_indent(w, w->depth0 + w->depth);
    }
}

static void jw_key(jw *w, const char *k)
{
    jw_next(w);
    jw_string(w, k);
    jw_put(w, ": ", 2);
}

static void jw_open(jw *w, const char *c)
{
    jw_put(w, c, 1);
    if (w->depth < JW_MAXDEPTH)
        w->count[w->depth] = 0;
    w->depth++;
}

static void jw_close(jw *w, const char *c)
{
    w->depth--;
    if (w->depth < JW_MAXDEPTH && w->count[w->depth])
        jw_indent(w, w->depth0 + w->depth);
    jw_put(w, c, 1);
}

static void jw_real(jw *w, double v)
{
    /* JSON has no NaN or infinity: write null. */
    if (!isfinite(v)) {
        jw_put(w, "null", 4);
        return;
    }
    char b[64];
    if (v == (double)(long long)v && fabs(v) < 1e10 && !(v == 0 && signbit(v))) {
        /* An integer of at most 10 digits: %.10g prints it exactly, and
         * ".0" is added. The common case, without printf's float path. */
        int n = snprintf(b, sizeof b, "%lld.0", (long long)v);
        jw_put(w, b, (size_t)n);
        return;
    }
    int n = snprintf(b, sizeof b, "%.10g", v);
    if (n < 0 || (size_t)n >= sizeof b - 3)
        n = 0, b[0] = '\0';
    size_t len = (size_t)n;
    /* %.10g is locale-dependent; jansson maps the decimal point back */
    for (char *p = b; *p; p++)
        if (*p == ',')
            *p = '.';
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        memcpy(b + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(b, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - b) + 1);
            len -= (size_t)(end - start);
        }
    }
    jw_put(w, b, len);
}

static void jw_int(jw *w, long long v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%lld", v);
    jw_put(w, b, (size_t)n);
}

/* Members; a string that jansson would refuse leaves its member out. */
static void k_str(jw *w, const char *k, const char *s)
{
    if (!utf8_ok(k) || !utf8_ok(s))
        return;
    jw_key(w, k);
    jw_string(w, s);
}
static void k_real(jw *w, const char *k, double v)
{
    jw_key(w, k);
    jw_real(w, v);
}
static void k_int(jw *w, const char *k, long long v)
{
    jw_key(w, k);
    jw_int(w, v);
}
static void k_null(jw *w, const char *k)
{
    jw_key(w, k);
    jw_put(w, "null", 4);
}

static void jw_init(jw *w, FILE *f, char *buf, int depth0)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->buf = buf;
    w->depth0 = depth0;
}

/* ---- documents ------------------------------------------------------- */

static const char *const status_names[] = { "ok", "partial", "failed" };

const char *gc_gpu_status_name(int s)
{
    return s >= 0 && s <= GC_GPU_FAILED ? status_names[s] : "?";
}

static void run_json(jw *w, const gc_run_meta *m)
{
    jw_open(w, "{");
    k_str(w, "tool", "gpucensus");
    k_str(w, "tool_version", m->tool_version);
    k_str(w, "git_commit", m->git_commit);
    k_str(w, "plan_name", m->plan_name);
    k_str(w, "plan_file", m->plan_file);
    k_str(w, "plan_sha256", m->plan_sha256);
    k_str(w, "start_time", m->start_time);
    k_str(w, "end_time", m->end_time);
    k_str(w, "backend", m->backend);
    if (strcmp(m->backend, "sim") == 0) {
        k_str(w, "sim_profile", m->sim_profile);
        k_int(w, "sim_seed", (long long)m->seed);
    }
    k_int(w, "ranks", m->ranks);
    k_int(w, "nodes", m->nodes);
    k_real(w, "histogram_precision", m->precision);
    k_int(w, "histogram_sub_bits", m->sub_bits);
    jw_close(w, "}");
}

static void cond_json(jw *w, const char *k, const gc_conditions *c)
{
    if (!c->valid) {
        k_null(w, k);
        return;
    }
    jw_key(w, k);
    jw_open(w, "{");
    k_real(w, "sm_clock_mhz", c->sm_clock_mhz);
    k_real(w, "mem_clock_mhz", c->mem_clock_mhz);
    k_real(w, "temperature_c", c->temperature_c);
    k_real(w, "power_w", c->power_w);
    k_int(w, "throttle_reasons", (long long)c->throttle_reasons);
    k_int(w, "ecc_corrected_errors", c->ecc_corrected);
    k_int(w, "ecc_uncorrected_errors", c->ecc_uncorrected);
    jw_close(w, "}");
}

static int ctxv_ok(const gc_ctxv *v)
{
    return utf8_ok(v->key) && (!v->is_str || utf8_ok(v->str));
}

/* As json_object_set_new did it: a repeated key keeps the place of its
 * first (accepted) setting and takes the value of its last. */
static void ctx_json(jw *w, const gc_ctx *c)
{
    jw_key(w, "context");
    jw_open(w, "{");
    int n = c->n < 0 ? 0 : c->n > GC_MAX_CTX ? GC_MAX_CTX : c->n;
    for (int i = 0; i < n; i++) {
        if (!ctxv_ok(&c->v[i]))
            continue;
        int seen = 0, last = i;
        for (int j = 0; j < i && !seen; j++)
            seen = ctxv_ok(&c->v[j]) && strcmp(c->v[j].key, c->v[i].key) == 0;
        if (seen)
            continue;
        for (int j = i + 1; j < n; j++)
            if (ctxv_ok(&c->v[j]) && strcmp(c->v[j].key, c->v[i].key) == 0)
                last = j;
        const gc_ctxv *v = &c->v[last];
        jw_key(w, v->key);
        if (v->is_str)
            jw_string(w, v->str);
        else
            jw_real(w, v->num);
    }
    jw_close(w, "}");
}

static void flags_json(jw *w, uint32_t f)
{
    jw_key(w, "flags");
    jw_open(w, "[");
    if (f & GC_FLAG_CLOCKS_MOVED)
        jw_next(w), jw_string(w, "clocks_moved");
    if (f & GC_FLAG_THROTTLED)
        jw_next(w), jw_string(w, "throttled");
    if (f & GC_FLAG_BUDGET_HIT)
        jw_next(w), jw_string(w, "budget_hit");
    jw_close(w, "]");
}

static void summary_json(jw *w, const gc_summary *s)
{
    jw_key(w, "summary");
    jw_open(w, "{");
    k_int(w, "count", (long long)s->count);
    if (s->count) {
        k_real(w, "min", s->min);
        k_real(w, "p1", s->p1);
        k_real(w, "p5", s->p5);
        k_real(w, "p50", s->p50);
        k_real(w, "p95", s->p95);
        k_real(w, "p99", s->p99);
        k_real(w, "max", s->max);
        k_real(w, "mean", s->mean);
        k_real(w, "stddev", s->stddev);
    }
    jw_close(w, "}");
}

static int point_json(jw *w, const gc_point *p, const gc_summary *s, int with_hist, gc_err *err)
{
    char *b64 = NULL;
    if (with_hist) {
        /* Encoded first: a failure leaves nothing of the point written. */
        gc_wbuf wb = { 0 };
        int rc = gc_hist_encode(&p->hist, &wb, err);
        b64 = rc ? NULL : gc_base64_encode(wb.data, wb.len);
        gc_wbuf_free(&wb);
        if (!b64)
            return rc ? rc : gc_fail(err, GC_ENOMEM, "out of memory");
    }
    jw_next(w);
    jw_open(w, "{");
    k_int(w, "item", p->item_id);
    k_str(w, "benchmark", p->bench);
    k_str(w, "metric", p->metric);
    k_str(w, "unit", p->unit);
    ctx_json(w, &p->ctx);
    k_str(w, "status", p->status == GC_PT_OK ? "ok" : "failed");
    if (p->error[0])
        k_str(w, "error", p->error);
    flags_json(w, p->flags);
    summary_json(w, s);
    if (with_hist) {
        jw_key(w, "conditions");
        jw_open(w, "{");
        cond_json(w, "before", &p->before);
        cond_json(w, "after", &p->after);
        jw_close(w, "}");
        jw_key(w, "histogram");
        jw_open(w, "{");
        k_str(w, "encoding", "gch1+zlib+base64");
        k_real(w, "scale", p->scale);
        k_str(w, "data", b64);
        jw_close(w, "}");
        free(b64);
    }
    jw_close(w, "}");
    return 0;
}

static void gpu_head_json(jw *w, const gc_gpu *g)
{
    const gc_gpu_info *in = &g->info;
    k_str(w, "node", in->node);
    k_int(w, "index", in->local_index);
    k_int(w, "rank", in->rank);
    k_str(w, "status", gc_gpu_status_name(g->status));
    k_str(w, "status_reason", g->status_reason);
    k_int(w, "items_total", g->items_total);
    k_int(w, "items_done", g->items_done);

    jw_key(w, "identity");
    jw_open(w, "{");
    k_str(w, "uuid", in->uuid);
    k_str(w, "pci_bus_id", in->pci_bus_id);
    k_str(w, "name", in->name);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", in->cc_major, in->cc_minor);
    k_str(w, "compute_capability", cc);
    k_str(w, "driver_version", in->driver_version);
    jw_close(w, "}");

    jw_key(w, "properties");
    jw_open(w, "{");
    k_int(w, "sm_count", in->sm_count);
    k_int(w, "cores_per_sm", in->cores_per_sm);
    k_int(w, "warp_size", in->warp_size);
    k_int(w, "max_threads_per_sm", in->max_threads_per_sm);
    k_int(w, "registers_per_sm", in->regs_per_sm);
    k_int(w, "smem_per_sm_bytes", (long long)in->smem_per_sm_bytes);
    k_int(w, "l2_bytes", (long long)in->l2_bytes);
    k_int(w, "memory_bytes", (long long)in->mem_bytes);
    k_real(w, "sm_clock_max_mhz", in->sm_clock_mhz);
    k_real(w, "mem_clock_max_mhz", in->mem_clock_mhz);
    k_int(w, "bus_width_bits", in->bus_width_bits);
    jw_key(w, "ecc_enabled");
    jw_puts(w, in->ecc_enabled < 0 ? "null" : in->ecc_enabled ? "true" : "false");
    if (in->numa_node < 0)
        k_null(w, "numa_node");
    else
        k_int(w, "numa_node", in->numa_node);
    /* links as NVML reported them (0: unknown) */
    jw_key(w, "pcie");
    jw_open(w, "{");
    const char *pk[] = { "gen", "width", "max_gen", "max_width" };
    int pv[] = { in->pcie_gen, in->pcie_width, in->pcie_max_gen, in->pcie_max_width };
    for (int i = 0; i < 4; i++) {
        if (pv[i] > 0)
            k_int(w, pk[i], pv[i]);
        else
            k_null(w, pk[i]);
    }
    jw_close(w, "}");
    jw_key(w, "nvlink");
    jw_open(w, "{");
    if (in->nvlink_links >= 0)
        k_int(w, "links", in->nvlink_links);
    else
        k_null(w, "links");
    if (in->nvlink_bps_per_link > 0)
        k_real(w, "bps_per_link", in->nvlink_bps_per_link);
    else
        k_null(w, "bps_per_link");
    jw_close(w, "}");
    jw_close(w, "}");

    jw_key(w, "conditions");
    jw_open(w, "{");
    cond_json(w, "start", &g->start);
    cond_json(w, "end", &g->end);
    jw_close(w, "}");

    jw_key(w, "parameters");
    jw_open(w, "[");
    for (size_t i = 0; i < g->nparams; i++) {
        const gc_param *p = &g->params[i];
        jw_next(w);
        jw_open(w, "{");
        k_str(w, "name", p->name);
        k_real(w, "value", p->value);
        k_str(w, "unit", p->unit);
        k_str(w, "source", p->source);
        jw_close(w, "}");
    }
    jw_close(w, "]");
}

/* One GPU object; sums holds the summary of each of its points. */
static int gpu_json(jw *w, const gc_gpu *g, const gc_summary *sums, int with_hist, gc_err *err)
{
    jw_open(w, "{");
    gpu_head_json(w, g);
    jw_key(w, "results");
    jw_open(w, "[");
    for (size_t i = 0; i < g->npoints; i++) {
        int rc = point_json(w, &g->points[i], &sums[i], with_hist, err);
        if (rc)
            return rc;
    }
    jw_close(w, "]");
    jw_close(w, "}");
    return 0;
}

/* Status from progress and failures; a missing shard is decided by the
 * caller. */
static void judge(gc_gpu *g)
{
    size_t failed = 0;
    for (size_t i = 0; i < g->npoints; i++)
        failed += g->points[i].status != GC_PT_OK;
    if (!g->complete) {
        /* The rank died or was stopped: what it finished is kept, but the
         * GPU was not measured as the plan asked. */
        g->status = GC_GPU_FAILED;
        snprintf(g->status_reason, sizeof g->status_reason,
                 "the rank stopped after %u of %u work items (crashed or killed); "
                 "results up to then are kept", g->items_done, g->items_total);
    } else if (failed) {
        g->status = GC_GPU_PARTIAL;
        snprintf(g->status_reason, sizeof g->status_reason, "%zu of %u work items failed", failed,
                 g->items_total);
    } else {
        g->status = GC_GPU_OK;
        g->status_reason[0] = '\0';
    }
}

static void brief_of(const gc_gpu *g, gc_brief *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->node, sizeof b->node, "%s", g->info.node);
    b->index = g->info.local_index;
    b->status = g->status;
    snprintf(b->name, sizeof b->name, "%s", g->info.name);
    b->l1_cycles = gc_param_value(g, "l1_latency_cycles", 0);
    b->l2_cycles = gc_param_value(g, "l2_latency_cycles", 0);
    b->dram_cycles = gc_param_value(g, "dram_latency_cycles", 0);
    b->hbm_bps = gc_param_value(g, "hbm_bw_bps", 0);
    b->hbm_ratio = gc_param_value(g, "hbm_achieved_ratio", 0);
    for (size_t i = 0; i < g->npoints; i++)
        b->failed_items += g->points[i].status != GC_PT_OK;
}

/* Decode rank r's blob into g, or make the placeholder of a missing GPU. */
static void load_gpu(const gc_roster_entry *e, const gc_blob *b, gc_gpu *g)
{
    gc_run_meta m;
    gc_err err = { 0 };
    if (b->data && gc_shard_decode(b->data, b->len, &m, g, &err) == 0 &&
        strcmp(g->info.node, e->node) == 0 && g->info.local_index == e->local_index) {
        judge(g);
        gc_derive_params(g);
        return;
    }
    if (b->data && !err.msg[0])
        snprintf(err.msg, sizeof err.msg, "shard names %s gpu %d, expected %s gpu %d",
                 g->info.node, g->info.local_index, e->node, e->local_index);
    gc_gpu_free(g);
    snprintf(g->info.node, sizeof g->info.node, "%s", e->node);
    g->info.local_index = e->local_index;
    g->info.rank = e->rank;
    g->status = GC_GPU_FAILED;
    snprintf(g->status_reason, sizeof g->status_reason, "no results from rank %d: %.120s", e->rank,
             b->data ? err.msg : (b->missing_reason[0] ? b->missing_reason : "nothing received"));
}

static int jw_finish(jw *w, const char *path, gc_err *err)
{
    jw_flush(w);
    if (w->err)
        return gc_fail(err, GC_EIO, "%s: cannot write JSON", path);
    return 0;
}

static int write_node(const char *out_dir, const gc_run_meta *run, const char *node,
                      gc_gpu *gpus, gc_summary *const *sums, size_t n, char *buf, gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes/%s.json", out_dir, node);
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    jw w;
    jw_init(&w, a.f, buf, 0);
    jw_open(&w, "{");
    k_str(&w, "schema_version", GC_SCHEMA_VERSION);
    k_str(&w, "kind", "node");
    jw_key(&w, "run");
    run_json(&w, run);
    k_str(&w, "node", node);
    jw_key(&w, "gpus");
    jw_open(&w, "[");
    for (size_t i = 0; i < n && !rc; i++) {
        jw_next(&w);
        rc = gpu_json(&w, &gpus[i], sums[i], 1, err);
    }
    if (!rc) {
        jw_close(&w, "]");
        jw_close(&w, "}");
        jw_put(&w, "\n", 1);
        rc = jw_finish(&w, path, err);
    }
    if (rc)
        gc_afile_abort(&a);
    else
        rc = gc_afile_commit(&a, err);
    return rc;
}

/* Node names in order of first appearance in the roster. */
static size_t node_list(const gc_roster_entry *roster, size_t nranks, const char ***names)
{
    const char **v = calloc(nranks ? nranks : 1, sizeof *v);
    size_t n = 0;
    for (size_t r = 0; v && r < nranks; r++) {
        size_t k = 0;
        while (k < n && strcmp(v[k], roster[r].node) != 0)
            k++;
        if (k == n)
            v[n++] = roster[r].node;
    }
    *names = v;
    return v ? n : 0;
}

static int by_local_index(const void *a, const void *b)
{
    int x = ((const gc_gpu *)a)->info.local_index, y = ((const gc_gpu *)b)->info.local_index;
    return (x > y) - (x < y);
}

typedef struct node_row {
    const char *name;
    size_t gpus;
    int worst;
} node_row;

/* Where the shards come from: fetch fills b for rank r and sets *owned to
 * what to free() once b has been decoded (NULL: nothing). merge.c reads
 * each shard file only when its node is written, so the merge holds one
 * shard and one node's GPUs at a time, not the cluster's shards. */
typedef void (*gc_blob_fetch)(void *ctx, size_t r, gc_blob *b, void **owned);
int gc_catalogue_write_fetch(const char *out_dir, const gc_run_meta *run,
                             const gc_roster_entry *roster, size_t nranks, gc_blob_fetch fetch,
                             void *ctx, gc_catalogue_stats *stats, gc_err *err);

static void fetch_array(void *ctx, size_t r, gc_blob *b, void **owned)
{
    *b = ((const gc_blob *)ctx)[r];
    *owned = NULL;
}

int gc_catalogue_write(const char *out_dir, const gc_run_meta *run,
                       const gc_roster_entry *roster, size_t nranks, const gc_blob *blobs,
                       gc_catalogue_stats *stats, gc_err *err)
{
    return gc_catalogue_write_fetch(out_dir, run, roster, nranks, fetch_array, (void *)blobs,
                                    stats, err);
}

int gc_catalogue_write_fetch(const char *out_dir, const gc_run_meta *run,
                             const gc_roster_entry *roster, size_t nranks, gc_blob_fetch fetch,
                             void *ctx, gc_catalogue_stats *stats, gc_err *err)
{
    memset(stats, 0, sizeof *stats);
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes", out_dir);
    int rc = gc_mkdir_p(path, err);
    if (rc)
        return rc;
    const char **nodes;
    size_t nnodes = node_list(roster, nranks, &nodes);
    gc_gpu *gpus = calloc(nranks ? nranks : 1, sizeof *gpus);
    gc_summary **sums = calloc(nranks ? nranks : 1, sizeof *sums);
    node_row *rows = calloc(nnodes ? nnodes : 1, sizeof *rows);
    char *bufs = malloc(2 * (size_t)JW_BUF);
    stats->briefs = calloc(nranks ? nranks : 1, sizeof *stats->briefs);
    gc_links *links = gc_links_new(roster, nranks);
    if (!nodes || !gpus || !sums || !rows || !bufs || !stats->briefs || !links) {
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        goto out;
    }
    snprintf(path, sizeof path, "%s/catalogue.json", out_dir);
    gc_afile cat;
    rc = gc_afile_open(&cat, path, err);
    if (rc)
        goto out;
    /* The cluster file is streamed: one GPU object at a time, each written
     * as a top-level value (as the json_dumpf of one GPU object was). */
    jw w;
    jw_init(&w, cat.f, bufs, 0);
    jw_open(&w, "{");
    k_str(&w, "schema_version", GC_SCHEMA_VERSION);
    k_str(&w, "kind", "catalogue");
    jw_key(&w, "run");
    run_json(&w, run);
    jw_puts(&w, ",\n \"gpus\": [");
    w.depth = 0;

    size_t written = 0;
    for (size_t k = 0; k < nnodes && !rc; k++) {
        size_t n = 0;
        for (size_t r = 0; r < nranks; r++)
            if (strcmp(roster[r].node, nodes[k]) == 0) {
                gc_blob b;
                void *owned = NULL;
                fetch(ctx, r, &b, &owned);
                load_gpu(&roster[r], &b, &gpus[n++]);
                free(owned);
            }
        qsort(gpus, n, sizeof *gpus, by_local_index);
        if (gc_links_add_node(links, gpus, n))
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        /* Each point's summary once, for the node file and the catalogue. */
        for (size_t i = 0; i < n && !rc; i++) {
            sums[i] = malloc((gpus[i].npoints ? gpus[i].npoints : 1) * sizeof **sums);
            if (!sums[i])
                rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
            for (size_t j = 0; sums[i] && j < gpus[i].npoints; j++)
                gc_point_summary(&gpus[i].points[j], &sums[i][j]);
        }
        if (!rc)
            rc = write_node(out_dir, run, nodes[k], gpus, sums, n, bufs + JW_BUF, err);
        int worst = GC_GPU_OK;
        for (size_t i = 0; i < n && !rc; i++) {
            jw_puts(&w, written++ ? ",\n" : "\n");
            rc = gpu_json(&w, &gpus[i], sums[i], 0, err);
            if (rc)
                break;
            brief_of(&gpus[i], &stats->briefs[stats->gpus++]);
            stats->ok += gpus[i].status == GC_GPU_OK;
            stats->partial += gpus[i].status == GC_GPU_PARTIAL;
            stats->failed += gpus[i].status == GC_GPU_FAILED;
            if (gpus[i].status > worst)
                worst = gpus[i].status;
        }
        rows[k].name = nodes[k];
        rows[k].gpus = n;
        rows[k].worst = worst;
        for (size_t i = 0; i < n; i++) {
            gc_gpu_free(&gpus[i]);
            free(sums[i]);
            sums[i] = NULL;
        }
    }
    stats->nodes = (int)nnodes;
    if (!rc) {
        jw_puts(&w, "\n ],\n \"nodes\": ");
        jw_open(&w, "[");
        for (size_t k = 0; k < nnodes; k++) {
            jw_next(&w);
            jw_open(&w, "{");
            k_str(&w, "name", rows[k].name);
            k_int(&w, "gpus", (long long)rows[k].gpus);
            k_str(&w, "status", gc_gpu_status_name(rows[k].worst));
            char rel[GC_NODE_MAX + 16];
            snprintf(rel, sizeof rel, "nodes/%s.json", rows[k].name);
            k_str(&w, "file", rel);
            jw_close(&w, "}");
        }
        jw_close(&w, "]");
        char *lt = gc_links_json(links, 1);
        jw_puts(&w, ",\n \"links\": ");
        jw_puts(&w, lt ? lt : "[]");
        jw_puts(&w, ",\n \"models\": {},\n \"verdicts\": []\n}\n");
        rc = jw_finish(&w, path, err);
        if (!rc && !lt)
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory (links)");
        free(lt);
        if (!rc)
            rc = gc_afile_commit(&cat, err);
        else
            gc_afile_abort(&cat);
    } else {
        gc_afile_abort(&cat);
    }
out:
    gc_links_free(links);
    free(rows);
    free(sums);
    free(bufs);
    free(nodes);
    free(gpus);
    return rc;
}

/* Shard and roster files: binary encoding of one GPU's results, atomic
 * writes, strict reading. See shard.h for the layout. */
#include "census/shard.h"
#include "util/quote.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "census/codec.h"

static const char SHARD_MAGIC[4] = { 'G', 'C', 'S', 'H' };
static const char ROSTER_MAGIC[4] = { 'G', 'C', 'R', 'O' };
static const char RECORD_MAGIC[4] = { 'G', 'C', 'R', 'C' };
#define HEADER_BYTES 13

/* ---- framing: magic, version, length, CRC ---- */

static int is_record(const char magic[4]) { return memcmp(magic, RECORD_MAGIC, 4) == 0; }

static void frame(const char magic[4], const gc_wbuf *body, gc_wbuf *out)
{
    gc_put_bytes(out, magic, 4);
    gc_put_u8(out, is_record(magic) ? GC_RECORD_VERSION : GC_SHARD_VERSION);
    gc_put_u32le(out, (uint32_t)body->len);
    gc_put_u32le(out, gc_crc32(body->data, body->len));
    gc_put_bytes(out, body->data, body->len);
}

/* version (may be NULL): the format read, GC_SHARD_VERSION_OLDEST.. */
static int unframe(const char magic[4], const char *what, const void *data, size_t len,
                   gc_rbuf *body, int *version_out, gc_err *err)
{
    gc_rbuf r;
    gc_rbuf_init(&r, data, len);
    const uint8_t *m = gc_get_bytes(&r, 4);
    uint8_t version = gc_get_u8(&r);
    uint32_t body_len = gc_get_u32le(&r);
    uint32_t crc = gc_get_u32le(&r);
    if (r.bad)
        return gc_fail(err, GC_ECORRUPT, "%s: truncated header (%zu bytes)", what, len);
    if (memcmp(m, magic, 4) != 0)
        return gc_fail(err, GC_ECORRUPT, "%s: not a gpucensus file (bad magic)", what);
    int newest = is_record(magic) ? GC_RECORD_VERSION : GC_SHARD_VERSION;
    if (version < GC_SHARD_VERSION_OLDEST || version > newest)
        return gc_fail(err, GC_ECORRUPT, "%s: format version %u, this build reads %u to %d", what,
                       version, GC_SHARD_VERSION_OLDEST, newest);
    if (version_out)
        *version_out = version;
    if (body_len != gc_rbuf_left(&r))
        return gc_fail(err, GC_ECORRUPT, "%s: body is %zu bytes, header says %u", what,
                       gc_rbuf_left(&r), body_len);
    const uint8_t *b = gc_get_bytes(&r, body_len);
    if (gc_crc32(b, body_len) != crc)
        return gc_fail(err, GC_ECORRUPT, "%s: CRC mismatch (corrupt file)", what);
    gc_rbuf_init(body, b, body_len);
    return 0;
}

/* ---- pieces ---- */

static void put_run(gc_wbuf *w, const gc_run_meta *m)
{
    gc_put_str(w, m->tool_version);
    gc_put_str(w, m->git_commit);
    gc_put_str(w, m->plan_name);
    gc_put_str(w, m->plan_file);
    gc_put_str(w, m->plan_sha256);
    gc_put_str(w, m->start_time);
    gc_put_str(w, m->end_time);
    gc_put_str(w, m->backend);
    gc_put_str(w, m->sim_profile);
    gc_put_varint(w, m->seed);
    gc_put_varint(w, (uint64_t)m->ranks);
    gc_put_varint(w, (uint64_t)m->nodes);
    gc_put_f64(w, m->precision);
    gc_put_varint(w, m->sub_bits);
}

#define GET_STR(r, field) gc_get_str(r, field, sizeof(field))

static int get_int(gc_rbuf *r, int lo, int hi)
{
    int64_t v = gc_get_svarint(r);
    if (v < lo || v > hi) {
        r->bad = 1;
        return lo;
    }
    return (int)v;
}

static void get_run(gc_rbuf *r, gc_run_meta *m)
{
    memset(m, 0, sizeof *m);
    GET_STR(r, m->tool_version);
    GET_STR(r, m->git_commit);
    GET_STR(r, m->plan_name);
    GET_STR(r, m->plan_file);
    GET_STR(r, m->plan_sha256);
    GET_STR(r, m->start_time);
    GET_STR(r, m->end_time);
    GET_STR(r, m->backend);
    GET_STR(r, m->sim_profile);
    m->seed = gc_get_varint(r);
    uint64_t ranks = gc_get_varint(r), nodes = gc_get_varint(r);
    if (ranks > (1u << 24) || nodes > ranks)
        r->bad = 1;
    m->ranks = (int)ranks;
    m->nodes = (int)nodes;
    m->precision = gc_get_f64(r);
    uint64_t sb = gc_get_varint(r);
    if (sb > GC_HIST_MAX_SUB_BITS)
        r->bad = 1;
    m->sub_bits = (uint32_t)sb;
}

static void put_info(gc_wbuf *w, const gc_gpu_info *i)
{
    gc_put_str(w, i->node);
    gc_put_svarint(w, i->local_index);
    gc_put_svarint(w, i->rank);
    gc_put_str(w, i->uuid);
    gc_put_str(w, i->pci_bus_id);
    gc_put_str(w, i->name);
    gc_put_svarint(w, i->cc_major);
    gc_put_svarint(w, i->cc_minor);
    gc_put_svarint(w, i->sm_count);
    gc_put_svarint(w, i->cores_per_sm);
    gc_put_svarint(w, i->warp_size);
    gc_put_svarint(w, i->max_threads_per_sm);
    gc_put_svarint(w, i->regs_per_sm);
    gc_put_varint(w, i->smem_per_sm_bytes);
    gc_put_varint(w, i->l2_bytes);
    gc_put_varint(w, i->mem_bytes);
    gc_put_f64(w, i->sm_clock_mhz);
    gc_put_f64(w, i->mem_clock_mhz);
    gc_put_svarint(w, i->bus_width_bits);
    gc_put_svarint(w, i->ecc_enabled);
    gc_put_svarint(w, i->numa_node);
    gc_put_str(w, i->driver_version);
    gc_put_svarint(w, i->pcie_gen);
    gc_put_svarint(w, i->pcie_width);
    gc_put_svarint(w, i->pcie_max_gen);
    gc_put_svarint(w, i->pcie_max_width);
    gc_put_svarint(w, i->nvlink_links);
    gc_put_f64(w, i->nvlink_bps_per_link);
    gc_put_str(w, i->host_governor);
    gc_put_str(w, i->host_cpus);
    gc_put_str(w, i->host_mems);
    gc_put_str(w, i->pcie_switch);
}

static void get_info(gc_rbuf *r, gc_gpu_info *i)
{
    GET_STR(r, i->node);
    i->local_index = get_int(r, -1, 1 << 20);
    i->rank = get_int(r, -1, 1 << 24);
    GET_STR(r, i->uuid);
    GET_STR(r, i->pci_bus_id);
    GET_STR(r, i->name);
    i->cc_major = get_int(r, 0, 1000);
    i->cc_minor = get_int(r, 0, 1000);
    i->sm_count = get_int(r, 0, 1 << 20);
    i->cores_per_sm = get_int(r, 0, 1 << 20);
    i->warp_size = get_int(r, 0, 1 << 10);
    i->max_threads_per_sm = get_int(r, 0, 1 << 20);
    i->regs_per_sm = get_int(r, 0, 1 << 24);
    i->smem_per_sm_bytes = gc_get_varint(r);
    i->l2_bytes = gc_get_varint(r);
    i->mem_bytes = gc_get_varint(r);
    i->sm_clock_mhz = gc_get_f64(r);
    i->mem_clock_mhz = gc_get_f64(r);
    i->bus_width_bits = get_int(r, 0, 1 << 20);
    i->ecc_enabled = get_int(r, -1, 1);
    i->numa_node = get_int(r, -1, 1 << 16);
    GET_STR(r, i->driver_version);
    i->pcie_gen = get_int(r, -1, 64);
    i->pcie_width = get_int(r, -1, 1024);
    i->pcie_max_gen = get_int(r, -1, 64);
    i->pcie_max_width = get_int(r, -1, 1024);
    i->nvlink_links = get_int(r, -1, 1024);
    i->nvlink_bps_per_link = gc_get_f64(r);
    GET_STR(r, i->host_governor);
    GET_STR(r, i->host_cpus);
    GET_STR(r, i->host_mems);
    GET_STR(r, i->pcie_switch);
}

/* The first byte: bit 0 the conditions were read, bit 1 a foreign-load
 * block follows them (shards written before it existed have 0 or 1). */
enum { COND_VALID = 1, COND_FOREIGN = 2 };

static int has_foreign(const gc_conditions *c)
{
    return c->foreign_procs >= 0 || c->foreign_sm_util_pct >= 0 || c->foreign_mem_util_pct >= 0 ||
           c->nforeign > 0;
}

static void put_cond(gc_wbuf *w, const gc_conditions *c)
{
    int fb = c->valid && has_foreign(c);
    gc_put_u8(w, (uint8_t)((c->valid != 0) * COND_VALID | fb * COND_FOREIGN));
    if (!c->valid)
        return;
    gc_put_f64(w, c->sm_clock_mhz);
    gc_put_f64(w, c->mem_clock_mhz);
    gc_put_f64(w, c->temperature_c);
    gc_put_f64(w, c->power_w);
    gc_put_varint(w, c->throttle_reasons);
    gc_put_svarint(w, c->ecc_corrected);
    gc_put_svarint(w, c->ecc_uncorrected);
    if (!fb)
        return;
    gc_put_svarint(w, c->foreign_procs);
    gc_put_svarint(w, c->foreign_sm_util_pct);
    gc_put_svarint(w, c->foreign_mem_util_pct);
    int n = c->nforeign < 0 ? 0 : c->nforeign > GC_FOREIGN_MAX ? GC_FOREIGN_MAX : c->nforeign;
    gc_put_varint(w, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        gc_put_varint(w, c->foreign[i].pid);
        gc_put_str(w, c->foreign[i].name);
    }
}

static void get_cond(gc_rbuf *r, gc_conditions *c)
{
    memset(c, 0, sizeof *c);
    uint8_t flags = gc_get_u8(r);
    if (flags & ~(COND_VALID | COND_FOREIGN) || flags == COND_FOREIGN)
        r->bad = 1;
    c->ecc_corrected = c->ecc_uncorrected = -1;
    c->foreign_procs = c->foreign_sm_util_pct = c->foreign_mem_util_pct = -1;
    if (!(flags & COND_VALID) || r->bad)
        return;
    c->valid = 1;
    c->sm_clock_mhz = gc_get_f64(r);
    c->mem_clock_mhz = gc_get_f64(r);
    c->temperature_c = gc_get_f64(r);
    c->power_w = gc_get_f64(r);
    c->throttle_reasons = gc_get_varint(r);
    c->ecc_corrected = gc_get_svarint(r);
    c->ecc_uncorrected = gc_get_svarint(r);
    if (!(flags & COND_FOREIGN))
        return;
    c->foreign_procs = get_int(r, -1, 1 << 20);
    c->foreign_sm_util_pct = get_int(r, -1, 100);
    c->foreign_mem_util_pct = get_int(r, -1, 100);
    uint64_t n = gc_get_varint(r);
    if (n > GC_FOREIGN_MAX) {
        r->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        uint64_t pid = gc_get_varint(r);
        if (pid > UINT32_MAX)
            r->bad = 1;
        c->foreign[i].pid = (uint32_t)pid;
        GET_STR(r, c->foreign[i].name);
    }
    c->nforeign = (int)n;
}

/* A record's point strings (bench, metric, unit, context keys and string
 * values, error) through a dictionary: each string the first time as it
 * is (0, then the string), after that as its number in the order they
 * first came (1..). 1610 points a record on the default plan hold ~27,000
 * strings of a few hundred distinct ones: rank 0 copied and checked each
 * (memchr for NULs), and inflated their bytes. A dictionary that is full
 * takes no more (both ends count alike): those strings go as they are. */
#define SDICT_MAX 4096
#define SDICT_SLOTS 8192   /* the writer's hash table: a power of two, twice SDICT_MAX */

typedef struct sdict_w {
    const char *slot[SDICT_SLOTS];   /* borrowed from the GPU being encoded */
    uint32_t id[SDICT_SLOTS];
    uint32_t n;
} sdict_w;

typedef struct sdict_r {
    const uint8_t *s[SDICT_MAX];     /* into the inflated body */
    uint32_t len[SDICT_MAX];
    uint32_t n;
} sdict_r;

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static void put_s(gc_wbuf *w, sdict_w *d, const char *s)
{
    if (!d) {
        gc_put_str(w, s);
        return;
    }
    uint32_t i = str_hash(s) & (SDICT_SLOTS - 1);
    while (d->slot[i] && strcmp(d->slot[i], s) != 0)
        i = (i + 1) & (SDICT_SLOTS - 1);
    if (d->slot[i]) {
        gc_put_varint(w, (uint64_t)d->id[i] + 1);
        return;
    }
    gc_put_varint(w, 0);
    gc_put_str(w, s);
    if (d->n < SDICT_MAX) {
        d->slot[i] = s;
        d->id[i] = d->n++;
    }
}

/* gc_get_str through the dictionary (d NULL: none, as in a shard). */
static void get_s(gc_rbuf *r, sdict_r *d, char *out, size_t cap)
{
    if (!d) {
        gc_get_str(r, out, cap);
        return;
    }
    out[0] = '\0';
    uint64_t k = gc_get_varint(r);
    if (r->bad)
        return;
    if (k == 0) {
        gc_get_str(r, out, cap);
        if (!r->bad && d->n < SDICT_MAX) {
            size_t n = strlen(out);
            d->s[d->n] = r->data + r->pos - n;   /* its bytes, after the length */
            d->len[d->n++] = (uint32_t)n;
        }
        return;
    }
    if (k > d->n || d->len[k - 1] > cap - 1) {
        r->bad = 1;
        return;
    }
    memcpy(out, d->s[k - 1], d->len[k - 1]);
    out[d->len[k - 1]] = '\0';
}

#define GET_S(r, d, field) get_s(r, d, field, sizeof(field))

static void put_ctx(gc_wbuf *w, sdict_w *d, const gc_ctx *c)
{
    gc_put_varint(w, (uint64_t)c->n);
    for (int i = 0; i < c->n; i++) {
        put_s(w, d, c->v[i].key);
        gc_put_u8(w, (uint8_t)(c->v[i].is_str != 0));
        if (c->v[i].is_str)
            put_s(w, d, c->v[i].str);
        else
            gc_put_f64(w, c->v[i].num);
    }
}

/* c->n is 0; its entries are not zeroed (zero_point): each read is. */
static void get_ctx(gc_rbuf *r, sdict_r *d, gc_ctx *c)
{
    uint64_t n = gc_get_varint(r);
    if (n > GC_MAX_CTX) {
        r->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        gc_ctxv *v = &c->v[i];
        memset(v, 0, sizeof *v);
        GET_S(r, d, v->key);
        uint8_t is_str = gc_get_u8(r);
        if (is_str > 1)
            r->bad = 1;
        v->is_str = is_str;
        if (is_str)
            GET_S(r, d, v->str);
        else
            v->num = gc_get_f64(r);
    }
    c->n = (int)n;
}

/* A record's summary: what rank 0 uses of a point (the verdicts' count and
 * quantiles, the links' p5/p50/p95 and max); min, mean and stddev stay in
 * the shard and the node file (24 of 80 bytes a point: 1610 points on the
 * default plan). Records live within one run of one build. */
static void put_summary(gc_wbuf *w, const gc_summary *s)
{
    gc_put_varint(w, s->count);
    const double v[] = { s->p1, s->p5, s->p50, s->p95, s->p99, s->max };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        gc_put_f64(w, v[i]);
}

static void get_summary(gc_rbuf *r, gc_summary *s)
{
    s->count = gc_get_varint(r);
    double *v[] = { &s->p1, &s->p5, &s->p50, &s->p95, &s->p99, &s->max };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] = gc_get_f64(r);
    s->min = s->mean = s->stddev = NAN;
}

/* sum NULL: the point with its histogram (a shard); else with this summary
 * in its place (a record). */
static int put_point(gc_wbuf *w, sdict_w *d, const gc_point *p, const gc_summary *sum,
                     gc_err *err)
{
    gc_put_varint(w, p->item_id);
    put_s(w, d, p->bench);
    put_s(w, d, p->metric);
    put_s(w, d, p->unit);
    gc_put_f64(w, p->scale);
    put_ctx(w, d, &p->ctx);
    gc_put_u8(w, (uint8_t)p->status);
    gc_put_varint(w, p->flags);
    put_s(w, d, p->error);
    /* A record carries a point's conditions only when other processes
     * used the GPU (the catalogue's shared_points and foreign_seen): the
     * rest of them are for the node file, written from the shards. */
    static const gc_conditions none = { 0 };
    put_cond(w, sum && p->before.nforeign <= 0 ? &none : &p->before);
    put_cond(w, sum && p->after.nforeign <= 0 ? &none : &p->after);
    if (sum) {
        put_summary(w, sum);
        return 0;
    }
    gc_wbuf h = { 0 };
    int rc = gc_hist_encode(&p->hist, &h, err);
    if (rc == 0) {
        gc_put_varint(w, h.len);
        gc_put_bytes(w, h.data, h.len);
    }
    gc_wbuf_free(&h);
    return rc;
}

/* A point zeroed but for its context's entries (2.2 KB of its 3 KB; 1610
 * points a record on the default plan: rank 0 zeroed 5 MB a record). */
static void zero_point(gc_point *p)
{
    memset(p, 0, offsetof(gc_point, ctx.v));
    memset(&p->status, 0, sizeof *p - offsetof(gc_point, status));
}

/* p is zeroed (zero_point). */
static int get_point(gc_rbuf *r, sdict_r *d, gc_point *p, int record, gc_err *err)
{
    uint64_t id = gc_get_varint(r);
    if (id > UINT32_MAX)
        r->bad = 1;
    p->item_id = (uint32_t)id;
    GET_S(r, d, p->bench);
    GET_S(r, d, p->metric);
    GET_S(r, d, p->unit);
    p->scale = gc_get_f64(r);
    if (!(p->scale > 0 && p->scale < 1e12))
        r->bad = 1;
    get_ctx(r, d, &p->ctx);
    p->status = gc_get_u8(r);
    if (p->status > GC_PT_FAILED)
        r->bad = 1;
    uint64_t flags = gc_get_varint(r);
    if (flags > UINT32_MAX)
        r->bad = 1;
    p->flags = (uint32_t)flags;
    GET_S(r, d, p->error);
    get_cond(r, &p->before);
    get_cond(r, &p->after);
    if (record) {
        get_summary(r, &p->sum);
        p->has_sum = 1;
        if (r->bad)
            return gc_fail(err, GC_ECORRUPT, "point %u: bad field", p->item_id);
        return 0;
    }
    uint64_t hlen = gc_get_varint(r);
    if (hlen > gc_rbuf_left(r))
        r->bad = 1;
    if (r->bad)
        return gc_fail(err, GC_ECORRUPT, "point %u: bad field", p->item_id);
    const uint8_t *hb = gc_get_bytes(r, (size_t)hlen);
    gc_err herr = { 0 };
    if (gc_hist_decode(hb, (size_t)hlen, &p->hist, &herr))
        return gc_fail(err, GC_ECORRUPT, "point %u (%s %s): histogram: %s", p->item_id,
                       p->bench, p->metric, herr.msg);
    p->enc = hb;
    p->enc_len = (size_t)hlen;
    return 0;
}

/* The method of each benchmark among the points (format 4): as recorded
 * in g, else this build's. */
static void put_methods(gc_wbuf *w, const gc_gpu *g)
{
    gc_method m[GC_MAX_METHODS];
    int n = gc_gpu_methods_of(g, m);
    gc_put_varint(w, (uint64_t)n);
    for (int k = 0; k < n; k++) {
        gc_put_str(w, m[k].bench);
        gc_put_varint(w, (uint64_t)(m[k].version > 0 ? m[k].version : 1));
    }
}

#define GC_METHOD_MAX_VERSION 1000

static void get_methods(gc_rbuf *r, gc_gpu *g)
{
    uint64_t n = gc_get_varint(r);
    if (n > GC_MAX_METHODS) {
        r->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        char bench[GC_KEY_MAX];
        GET_STR(r, bench);
        uint64_t v = gc_get_varint(r);
        /* 0 would be "none recorded"; a name twice is a lie */
        if (r->bad || v < 1 || v > GC_METHOD_MAX_VERSION || gc_gpu_method(g, bench) ||
            gc_gpu_set_method(g, bench, (int)v))
            r->bad = 1;
    }
}

/* ---- shards ---- */

/* After the head (run, GPU info): progress, conditions, points, parameters
 * and (a record) its note. A shard (sums NULL, histograms) or a record
 * (summaries; sums may be NULL only for a shard). */
static int put_tail(gc_wbuf *b, const gc_gpu *g, int record, const gc_summary *sums,
                    const gc_record_note *note, gc_err *err)
{
    int rc = 0;
    gc_put_varint(b, g->items_total);
    gc_put_varint(b, g->items_done);
    gc_put_u8(b, (uint8_t)(g->complete != 0));
    put_cond(b, &g->start);
    put_cond(b, &g->end);
    gc_put_varint(b, g->npoints);
    sdict_w *d = record ? calloc(1, sizeof *d) : NULL;
    if (record && !d)
        return gc_fail(err, GC_ENOMEM, "record: out of memory");
    for (size_t i = 0; i < g->npoints && rc == 0; i++) {
        gc_summary sm;
        if (record && sums)
            sm = sums[i];
        else if (record)
            gc_point_summary(&g->points[i], &sm);
        rc = put_point(b, d, &g->points[i], record ? &sm : NULL, err);
    }
    free(d);
    gc_put_varint(b, g->nparams);
    for (size_t i = 0; i < g->nparams; i++) {
        const gc_param *p = &g->params[i];
        gc_put_str(b, p->name);
        gc_put_f64(b, p->value);
        gc_put_str(b, p->unit);
        gc_put_str(b, p->source);
    }
    put_methods(b, g);
    if (record) {
        gc_put_u8(b, (uint8_t)(note ? note->node_file : 0));
        gc_put_str(b, note ? note->msg : "");
    }
    return rc;
}

static int check_body(const gc_wbuf *b, const char *what, gc_err *err)
{
    if (b->oom)
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", what);
    if (b->len > GC_SHARD_MAX_BYTES)
        return gc_fail(err, GC_EINVAL, "%s: %zu bytes exceeds the %u limit", what, b->len,
                       GC_SHARD_MAX_BYTES);
    return 0;
}

int gc_shard_encode(const gc_run_meta *run, const gc_gpu *g, gc_wbuf *out, gc_err *err)
{
    gc_wbuf b = { 0 };
    put_run(&b, run);
    put_info(&b, &g->info);
    int rc = put_tail(&b, g, 0, NULL, NULL, err);
    if (rc == 0)
        rc = check_body(&b, "shard", err);
    if (rc == 0) {
        frame(SHARD_MAGIC, &b, out);
        if (out->oom)
            rc = gc_fail(err, GC_ENOMEM, "shard: out of memory");
    }
    gc_wbuf_free(&b);
    return rc;
}

/* Records go over the network to one rank: deflated (about 7x on the
 * default plan, their keys and units repeat), the head (run, GPU identity)
 * and the tail apart (gc_deflate_raw), so that a sender of many records
 * alike (bench_tree) deflates a tail once. */
static int deflate_part(const gc_wbuf *b, int final, gc_record_part *p, gc_err *err)
{
    int rc = check_body(b, "record", err);
    if (rc == 0)
        rc = gc_deflate_raw(b->data, b->len, final, &p->z, &p->adler, err);
    if (rc == 0 && p->z.oom)
        rc = gc_fail(err, GC_ENOMEM, "record: out of memory");
    p->raw_len = b->len;
    return rc;
}

int gc_record_head(const gc_run_meta *run, const gc_gpu *g, gc_record_part *p, gc_err *err)
{
    memset(p, 0, sizeof *p);
    gc_wbuf b = { 0 };
    put_run(&b, run);
    put_info(&b, &g->info);
    int rc = deflate_part(&b, 0, p, err);
    gc_wbuf_free(&b);
    return rc;
}

int gc_record_tail(const gc_gpu *g, const gc_summary *sums, const gc_record_note *note,
                   gc_record_part *p, gc_err *err)
{
    memset(p, 0, sizeof *p);
    gc_wbuf b = { 0 };
    int rc = put_tail(&b, g, 1, sums, note, err);
    if (rc == 0)
        rc = deflate_part(&b, 1, p, err);
    gc_wbuf_free(&b);
    return rc;
}

int gc_record_join(const gc_record_part *head, const gc_record_part *tail, gc_wbuf *out,
                   gc_err *err)
{
    size_t raw = head->raw_len + tail->raw_len;
    if (raw > GC_SHARD_MAX_BYTES)
        return gc_fail(err, GC_EINVAL, "record: %zu bytes exceeds the %u limit", raw,
                       GC_SHARD_MAX_BYTES);
    gc_wbuf z = { 0 };
    gc_put_u32le(&z, (uint32_t)raw);
    gc_zlib_join(head->z.data, head->z.len, head->adler, tail->z.data, tail->z.len, tail->adler,
                 tail->raw_len, &z);
    int rc = 0;
    if (z.oom)
        rc = gc_fail(err, GC_ENOMEM, "record: out of memory");
    else
        frame(RECORD_MAGIC, &z, out);
    if (rc == 0 && out->oom)
        rc = gc_fail(err, GC_ENOMEM, "record: out of memory");
    gc_wbuf_free(&z);
    return rc;
}

void gc_record_part_free(gc_record_part *p)
{
    gc_wbuf_free(&p->z);
    memset(p, 0, sizeof *p);
}

int gc_record_encode(const gc_run_meta *run, const gc_gpu *g, const gc_summary *sums,
                     const gc_record_note *note, gc_wbuf *out, gc_err *err)
{
    gc_record_part h, t;
    int rc = gc_record_head(run, g, &h, err);
    if (rc == 0)
        rc = gc_record_tail(g, sums, note, &t, err);
    else
        memset(&t, 0, sizeof t);
    if (rc == 0)
        rc = gc_record_join(&h, &t, out, err);
    gc_record_part_free(&h);
    gc_record_part_free(&t);
    return rc;
}

/* The body of a shard or (note set) of a record, already inflated. */
static int decode_body(gc_rbuf *rp, const char *what, int version, gc_run_meta *run, gc_gpu *g,
                       gc_record_note *note, gc_err *err)
{
    int record = note != NULL, rc = 0;
    gc_rbuf r = *rp;
    get_run(&r, run);
    get_info(&r, &g->info);
    if (!r.bad && !gc_name_ok(g->info.node))   /* it names files: OUT/nodes/NODE.json */
        return gc_fail(err, GC_ECORRUPT, "shard: node name '%.40s' is not 1-%d characters of "
                       "[A-Za-z0-9._-] (nor . or ..)", g->info.node, GC_NAME_MAX);
    uint64_t total = gc_get_varint(&r), done = gc_get_varint(&r);
    if (total > UINT32_MAX || done > total)
        r.bad = 1;
    g->items_total = (uint32_t)total;
    g->items_done = (uint32_t)done;
    uint8_t complete = gc_get_u8(&r);
    if (complete > 1 || (complete && done != total))   /* "complete" with items left: a lie */
        r.bad = 1;
    g->complete = complete;
    get_cond(&r, &g->start);
    get_cond(&r, &g->end);
    uint64_t np = gc_get_varint(&r);
    /* Each point takes well over 16 bytes: a count beyond that is a lie. */
    if (np > GC_SHARD_MAX_POINTS || np > gc_rbuf_left(&r) / 16)
        r.bad = 1;
    if (r.bad)
        return gc_fail(err, GC_ECORRUPT, "%s: bad header fields", what);
    sdict_r *d = NULL;
    if (np) {
        g->points = malloc((size_t)np * sizeof *g->points);
        if (record && version >= GC_RECORD_VERSION)
            d = malloc(sizeof *d);
        if (!g->points || (record && version >= GC_RECORD_VERSION && !d)) {
            free(d);
            return gc_fail(err, GC_ENOMEM, "%s: out of memory", what);
        }
        if (d)
            d->n = 0;
        g->cap_points = (size_t)np;
    }
    for (uint64_t i = 0; i < np; i++) {
        zero_point(&g->points[i]);
        rc = get_point(&r, d, &g->points[i], record, err);
        if (rc) {
            free(d);
            gc_hist_free(&g->points[i].hist);
            gc_gpu_free(g);
            return rc;
        }
        g->npoints++;
    }
    free(d);
    uint64_t nparams = gc_get_varint(&r);
    if (nparams > gc_rbuf_left(&r) / 8)
        r.bad = 1;
    for (uint64_t i = 0; i < nparams && !r.bad; i++) {
        gc_param p;
        memset(&p, 0, sizeof p);
        GET_STR(&r, p.name);
        p.value = gc_get_f64(&r);
        GET_STR(&r, p.unit);
        GET_STR(&r, p.source);
        if (!r.bad && gc_gpu_add_param(g, p.name, p.value, p.unit, p.source))
            r.bad = 1;
    }
    if (version >= 4 && !r.bad)
        get_methods(&r, g);
    if (record && !r.bad) {
        uint8_t nf = gc_get_u8(&r);
        if (nf > GC_NODE_FILE_FAILED)
            r.bad = 1;
        note->node_file = nf;
        GET_STR(&r, note->msg);
    }
    if (!r.bad && gc_rbuf_left(&r) != 0)
        return gc_gpu_free(g), gc_fail(err, GC_ECORRUPT, "%s: %zu trailing bytes", what,
                                       gc_rbuf_left(&r));
    if (r.bad) {
        gc_gpu_free(g);
        return gc_fail(err, GC_ECORRUPT, "%s: bad or truncated parameters or methods", what);
    }
    gc_gpu_methods_fill(g, run->start_time);   /* format 3: dated by the run's start */
    return 0;
}

static int decode_gpu(const char magic[4], const char *what, const void *data, size_t len,
                      gc_run_meta *run, gc_gpu *g, gc_record_note *note, gc_err *err)
{
    gc_gpu_init(g);
    gc_rbuf r;
    int version = 0;
    int rc = unframe(magic, what, data, len, &r, &version, err);
    if (rc || !note) {
        rc = rc ? rc : decode_body(&r, what, version, run, g, NULL, err);
        if (rc)
            gc_gpu_free(g);   /* a body refused half-way holds nothing */
        return rc;
    }
    /* A record's body is deflated: raw length (u32le), one zlib stream. */
    uint32_t raw = gc_get_u32le(&r);
    if (r.bad)
        return gc_fail(err, GC_ECORRUPT, "%s: truncated body", what);
    uint8_t *plain = NULL;
    gc_err ie = { 0 };
    size_t zlen = gc_rbuf_left(&r);
    const uint8_t *z = gc_get_bytes(&r, zlen);
    rc = gc_inflate(z, zlen, raw, GC_SHARD_MAX_BYTES, &plain, &ie);
    if (rc)
        return gc_fail(err, rc, "%s: %s", what, ie.msg);
    gc_rbuf pr;
    gc_rbuf_init(&pr, plain, raw);
    rc = decode_body(&pr, what, version, run, g, note, err);
    free(plain);
    if (rc)
        gc_gpu_free(g);
    return rc;
}

int gc_shard_decode(const void *data, size_t len, gc_run_meta *run, gc_gpu *g, gc_err *err)
{
    return decode_gpu(SHARD_MAGIC, "shard", data, len, run, g, NULL, err);
}

int gc_record_decode(const void *data, size_t len, gc_run_meta *run, gc_gpu *g,
                     gc_record_note *note, gc_err *err)
{
    memset(note, 0, sizeof *note);
    return decode_gpu(RECORD_MAGIC, "record", data, len, run, g, note, err);
}

int gc_blob_is_record(const void *data, size_t len)
{
    return data && len >= 4 && memcmp(data, RECORD_MAGIC, 4) == 0;
}

int gc_shard_decode_meta(const void *data, size_t len, gc_run_meta *run, gc_err *err)
{
    gc_rbuf r;
    int rc = unframe(SHARD_MAGIC, "shard", data, len, &r, NULL, err);
    if (rc)
        return rc;
    get_run(&r, run);
    return r.bad ? gc_fail(err, GC_ECORRUPT, "shard: bad run metadata") : 0;
}

int gc_run_same(const gc_run_meta *file, const gc_run_meta *run, gc_err *why)
{
    if (strcmp(file->plan_sha256, run->plan_sha256) || strcmp(file->plan_name, run->plan_name))
        return gc_fail(why, GC_EINVAL, "of another plan (%.60s, sha256 %.12s...; this run's: %.60s, "
                       "%.12s...)", file->plan_name, file->plan_sha256, run->plan_name,
                       run->plan_sha256), 1;
    if (file->start_time[0] && run->start_time[0] && strcmp(file->start_time, run->start_time))
        return gc_fail(why, GC_EINVAL, "of another run of the plan (started %.31s; this run %.31s)",
                       file->start_time, run->start_time), 2;
    return 0;
}

int gc_shard_path(char *out, size_t cap, const char *dir, const char *node, int local_index)
{
    int n = snprintf(out, cap, "%s/%s-gpu%d.gcs", dir, node, local_index);
    return n < 0 || (size_t)n >= cap ? GC_EINVAL : 0;
}

/* ---- roster ---- */

int gc_roster_encode(const gc_run_meta *run, const gc_roster_entry *e, size_t n, gc_wbuf *out,
                     gc_err *err)
{
    gc_wbuf b = { 0 };
    put_run(&b, run);
    gc_put_varint(&b, n);
    for (size_t i = 0; i < n; i++) {
        gc_put_varint(&b, (uint64_t)e[i].rank);
        gc_put_str(&b, e[i].node);
        gc_put_varint(&b, (uint64_t)e[i].local_index);
    }
    frame(ROSTER_MAGIC, &b, out);
    int oom = b.oom || out->oom;
    gc_wbuf_free(&b);
    return oom ? gc_fail(err, GC_ENOMEM, "roster: out of memory") : 0;
}

int gc_roster_decode(const void *data, size_t len, gc_run_meta *run, gc_roster_entry **e,
                     size_t *n, gc_err *err)
{
    *e = NULL;
    *n = 0;
    gc_rbuf r;
    int rc = unframe(ROSTER_MAGIC, "roster", data, len, &r, NULL, err);
    if (rc)
        return rc;
    get_run(&r, run);
    uint64_t cnt = gc_get_varint(&r);
    if (r.bad || cnt == 0 || cnt > gc_rbuf_left(&r) / 3)
        return gc_fail(err, GC_ECORRUPT, "roster: bad entry count");
    gc_roster_entry *v = calloc((size_t)cnt, sizeof *v);
    if (!v)
        return gc_fail(err, GC_ENOMEM, "roster: out of memory");
    for (uint64_t i = 0; i < cnt && !r.bad; i++) {
        uint64_t rank = gc_get_varint(&r);
        GET_STR(&r, v[i].node);
        if (!r.bad && !gc_name_ok(v[i].node)) {
            char bad[GC_NODE_MAX];
            snprintf(bad, sizeof bad, "%s", v[i].node);
            free(v);
            return gc_fail(err, GC_ECORRUPT, "roster: rank %llu: node name '%.40s' is not 1-%d "
                           "characters of [A-Za-z0-9._-] (nor . or ..)", (unsigned long long)i, bad,
                           GC_NAME_MAX);
        }
        uint64_t li = gc_get_varint(&r);
        if (rank != i || li > (1u << 20))
            r.bad = 1;
        v[i].rank = (int)rank;
        v[i].local_index = (int)li;
    }
    if (r.bad || gc_rbuf_left(&r)) {
        free(v);
        return gc_fail(err, GC_ECORRUPT, "roster: truncated or trailing bytes");
    }
    *e = v;
    *n = (size_t)cnt;
    return 0;
}

/* Unit tests of shard and roster files (src/census/shard.h) and of atomic file
 * writes (src/util/fsutil.h).
 *
 * Shards are what rank 0 and `merge` read from other ranks and from disk,
 * so they are untrusted: a full round trip checks every field; every
 * truncation, every single-bit flip, a wrong magic or version and lying
 * counts must be refused with GC_ECORRUPT, never crash (the sanitizer build
 * runs this too). Body-level corruption is also tried inside a valid frame
 * (correct length and CRC) so the field decoders are reached.
 *
 * Atomic writes: a file-size limit (RLIMIT_FSIZE, in a forked child) during
 * a write leaves the previous file whole and says so; a symlink planted at
 * the target is refused and its target untouched; the umask is honoured. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "census/codec.h"
#include "util/fsutil.h"
#include "census/shard.h"
#include "census/registry.h"

/* ---------- building a GPU with every kind of field ---------- */

static uint64_t rng_state = 7;

static uint64_t rng_u64(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A string of exactly n bytes (n < cap), so the longest strings are tried. */
static void fill_str(char *dst, size_t n, char c)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (char)(c + (char)(i % 26));
    dst[n] = '\0';
}

/* n characters of the name alphabet (quote.h's rule: node names name files) */
static void fill_name(char *dst, size_t n)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789._-ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    for (size_t i = 0; i < n; i++)
        dst[i] = abc[i % (sizeof abc - 1)];
    dst[n] = '\0';
}

static void make_run(gc_run_meta *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->tool_version, sizeof m->tool_version, "0.3.1");
    fill_str(m->git_commit, sizeof m->git_commit - 1, 'a');
    snprintf(m->plan_name, sizeof m->plan_name, "quick");
    snprintf(m->plan_file, sizeof m->plan_file, "/opt/gpucensus/configs/quick.cfg");
    fill_str(m->plan_sha256, 64, 'a');
    snprintf(m->start_time, sizeof m->start_time, "2025-01-02T03:04:05Z");
    snprintf(m->end_time, sizeof m->end_time, "2025-01-02T03:14:15Z");
    snprintf(m->backend, sizeof m->backend, "sim");
    snprintf(m->sim_profile, sizeof m->sim_profile, "configs/sim/h100-sxm.cfg");
    m->seed = 0xfedcba9876543210ull;
    m->ranks = 16;
    m->nodes = 4;
    m->precision = 0.0078125;
    m->sub_bits = 7;
}

static void make_cond(gc_conditions *c, int valid, double base)
{
    memset(c, 0, sizeof *c);
    c->valid = valid;
    c->sm_clock_mhz = 1980 + base;
    c->mem_clock_mhz = 2619;
    c->temperature_c = 41.5 + base;
    c->power_w = 312.25;
    c->throttle_reasons = 0x104;
    c->ecc_corrected = valid ? 3 : -1;
    c->ecc_uncorrected = valid ? 0 : -1;
    /* base 1: foreign load unknown; 2: none; 3: two processes, one named
     * with the longest name */
    c->foreign_procs = c->foreign_sm_util_pct = c->foreign_mem_util_pct = -1;
    if (base >= 2)
        c->foreign_procs = c->foreign_sm_util_pct = c->foreign_mem_util_pct = 0;
    if (base >= 3) {
        c->foreign_procs = 2;
        c->foreign_sm_util_pct = 100;
        c->foreign_mem_util_pct = 37;
        c->nforeign = 2;
        c->foreign[0].pid = 4194303;
        fill_str(c->foreign[0].name, sizeof c->foreign[0].name - 1, 'p');
        c->foreign[1].pid = 7;
    }
}

static void make_gpu(gc_gpu *g)
{
    gc_gpu_init(g);
    gc_gpu_info *i = &g->info;
    fill_name(i->node, sizeof i->node - 1);   /* 63 bytes: the longest */
    i->local_index = 3;
    i->rank = 11;
    snprintf(i->uuid, sizeof i->uuid, "GPU-8f6c2d1e-3b4a-4c5d-9e8f-0a1b2c3d4e5f");
    snprintf(i->pci_bus_id, sizeof i->pci_bus_id, "00000000:1B:00.0");
    snprintf(i->name, sizeof i->name, "NVIDIA H100 80GB HBM3");
    i->cc_major = 9;
    i->cc_minor = 0;
    i->sm_count = 132;
    i->cores_per_sm = 128;
    i->warp_size = 32;
    i->max_threads_per_sm = 2048;
    i->regs_per_sm = 65536;
    i->smem_per_sm_bytes = 233472;
    i->l2_bytes = 52428800;
    i->mem_bytes = 85520809984ull;
    i->sm_clock_mhz = 1980;
    i->mem_clock_mhz = 2619;
    i->bus_width_bits = 5120;
    i->ecc_enabled = 1;
    i->numa_node = -1;
    snprintf(i->driver_version, sizeof i->driver_version, "550.54.15");
    snprintf(i->host_governor, sizeof i->host_governor, "performance");
    fill_str(i->host_cpus, sizeof i->host_cpus - 1, '7');   /* the longest */
    g->items_total = 9;
    g->items_done = 7;
    g->complete = 0;
    make_cond(&g->start, 1, 0);
    make_cond(&g->end, 0, 0);

    /* A latency point with a multi-modal histogram and a mixed context. */
    gc_ctx ctx = { 0 };
    gc_ctx_set_num(&ctx, "footprint_bytes", 16777216);
    gc_ctx_set_str(&ctx, "kernel", "triad");
    gc_ctx_set_num(&ctx, "ratio", -0.125);
    gc_point *p = gc_gpu_add_point(g, 4, "chase", &ctx, "latency_cycles", "cycles", 1, 7);
    for (int k = 0; k < 5000; k++) {
        uint64_t mode = rng_u64() % 3;
        uint64_t base = mode == 0 ? 33 : mode == 1 ? 260 : 790;
        gc_hist_record(&p->hist, base + rng_u64() % (base / 4 + 1));
    }
    make_cond(&p->before, 1, 1);
    make_cond(&p->after, 0, 0);
    p->flags = GC_FLAG_CLOCKS_MOVED | GC_FLAG_THROTTLED;

    /* A failed point: error text, empty histogram, no conditions. */
    gc_ctx fctx = { 0 };
    gc_ctx_set_str(&fctx, "op", "f64_fma");
    p = gc_gpu_add_point(g, 5, "inst", &fctx, "error", "none", 1, 7);
    p->status = GC_PT_FAILED;
    fill_str(p->error, sizeof p->error - 1, 'A');

    /* A full context (GC_MAX_CTX entries, longest keys and strings), huge
     * values, a scale that is not 1, and a budget flag. */
    gc_ctx big = { 0 };
    for (int k = 0; k < GC_MAX_CTX; k++) {
        char key[GC_KEY_MAX];
        fill_str(key, sizeof key - 1, (char)('a' + k));
        if (k % 2) {
            char s[GC_STR_MAX];
            fill_str(s, sizeof s - 1, (char)('A' + k));
            gc_ctx_set_str(&big, key, s);
        } else {
            gc_ctx_set_num(&big, key, k == 0 ? 1e300 : k == 2 ? -0.0 : k * 1.5);
        }
    }
    p = gc_gpu_add_point(g, 4000000000u, "hbm_bw", &big, "bandwidth_bps", "B/s", 1000, 7);
    gc_hist_record_n(&p->hist, UINT64_MAX, 2);
    gc_hist_record_n(&p->hist, 3000000000000ull, 100);
    gc_hist_record(&p->hist, 0);
    make_cond(&p->before, 1, 2);
    make_cond(&p->after, 1, 3);
    p->flags = GC_FLAG_BUDGET_HIT;

    char src[96];
    fill_str(src, sizeof src - 1, 's');
    gc_gpu_add_param(g, "l2_hit_latency_cycles", 261.5, "cycles", "chase latency_cycles");
    gc_gpu_add_param(g, "hbm_bw_bps", 3.05e12, "B/s", src);
    gc_gpu_add_param(g, "nan_param", NAN, "", "");
}

/* ---------- comparing ---------- */

static int same_f64(double a, double b)   /* bit-exact (NaN, -0.0) */
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void check_run_equal(const gc_run_meta *a, const gc_run_meta *b)
{
    CHECK(strcmp(a->tool_version, b->tool_version) == 0, "tool_version");
    CHECK(strcmp(a->git_commit, b->git_commit) == 0, "git_commit");
    CHECK(strcmp(a->plan_name, b->plan_name) == 0, "plan_name");
    CHECK(strcmp(a->plan_file, b->plan_file) == 0, "plan_file");
    CHECK(strcmp(a->plan_sha256, b->plan_sha256) == 0, "plan_sha256");
    CHECK(strcmp(a->start_time, b->start_time) == 0, "start_time");
    CHECK(strcmp(a->end_time, b->end_time) == 0, "end_time");
    CHECK(strcmp(a->backend, b->backend) == 0, "backend");
    CHECK(strcmp(a->sim_profile, b->sim_profile) == 0, "sim_profile");
    CHECK(a->seed == b->seed, "seed %llu", (unsigned long long)b->seed);
    CHECK(a->ranks == b->ranks && a->nodes == b->nodes, "ranks %d nodes %d", b->ranks, b->nodes);
    CHECK(same_f64(a->precision, b->precision), "precision %g", b->precision);
    CHECK(a->sub_bits == b->sub_bits, "sub_bits %u", b->sub_bits);
}

static void check_cond_equal(const gc_conditions *a, const gc_conditions *b, const char *what)
{
    CHECK(a->valid == b->valid, "%s valid", what);
    if (!a->valid) {
        /* Not stored: read back as "unknown". */
        CHECK(b->ecc_corrected == -1 && b->ecc_uncorrected == -1 && b->sm_clock_mhz == 0,
              "%s invalid conditions read back as unknown", what);
        return;
    }
    CHECK(same_f64(a->sm_clock_mhz, b->sm_clock_mhz) && same_f64(a->mem_clock_mhz, b->mem_clock_mhz),
          "%s clocks", what);
    CHECK(same_f64(a->temperature_c, b->temperature_c) && same_f64(a->power_w, b->power_w),
          "%s temperature/power", what);
    CHECK(a->throttle_reasons == b->throttle_reasons, "%s throttle", what);
    CHECK(a->ecc_corrected == b->ecc_corrected && a->ecc_uncorrected == b->ecc_uncorrected,
          "%s ecc", what);
    CHECK(a->foreign_procs == b->foreign_procs && a->foreign_sm_util_pct == b->foreign_sm_util_pct &&
          a->foreign_mem_util_pct == b->foreign_mem_util_pct, "%s foreign load %d %d %d", what,
          b->foreign_procs, b->foreign_sm_util_pct, b->foreign_mem_util_pct);
    CHECK(a->nforeign == b->nforeign, "%s foreign processes %d", what, b->nforeign);
    for (int i = 0; i < a->nforeign && i < b->nforeign; i++)
        CHECK(a->foreign[i].pid == b->foreign[i].pid && !strcmp(a->foreign[i].name, b->foreign[i].name),
              "%s foreign process %d", what, i);
}

static void check_gpu_equal(const gc_gpu *a, const gc_gpu *b)
{
    const gc_gpu_info *x = &a->info, *y = &b->info;
    CHECK(strcmp(x->node, y->node) == 0, "node");
    CHECK(x->local_index == y->local_index && x->rank == y->rank, "index/rank");
    CHECK(strcmp(x->uuid, y->uuid) == 0 && strcmp(x->pci_bus_id, y->pci_bus_id) == 0 &&
          strcmp(x->name, y->name) == 0, "uuid/pci/name");
    CHECK(x->cc_major == y->cc_major && x->cc_minor == y->cc_minor, "cc");
    CHECK(x->sm_count == y->sm_count && x->cores_per_sm == y->cores_per_sm &&
          x->warp_size == y->warp_size, "sm/cores/warp");
    CHECK(x->max_threads_per_sm == y->max_threads_per_sm && x->regs_per_sm == y->regs_per_sm,
          "threads/regs");
    CHECK(x->smem_per_sm_bytes == y->smem_per_sm_bytes && x->l2_bytes == y->l2_bytes &&
          x->mem_bytes == y->mem_bytes, "memory sizes");
    CHECK(same_f64(x->sm_clock_mhz, y->sm_clock_mhz) && same_f64(x->mem_clock_mhz, y->mem_clock_mhz),
          "clocks");
    CHECK(x->bus_width_bits == y->bus_width_bits && x->ecc_enabled == y->ecc_enabled &&
          x->numa_node == y->numa_node, "bus/ecc/numa");
    CHECK(strcmp(x->driver_version, y->driver_version) == 0, "driver");
    CHECK(!strcmp(x->host_governor, y->host_governor) && !strcmp(x->host_cpus, y->host_cpus) &&
          !strcmp(x->host_mems, y->host_mems), "host");
    CHECK(a->items_total == b->items_total && a->items_done == b->items_done, "items");
    CHECK(a->complete == b->complete, "complete");
    check_cond_equal(&a->start, &b->start, "gpu start");
    check_cond_equal(&a->end, &b->end, "gpu end");
    CHECK(a->npoints == b->npoints, "npoints %zu vs %zu", a->npoints, b->npoints);
    for (size_t i = 0; i < a->npoints && i < b->npoints; i++) {
        const gc_point *p = &a->points[i], *q = &b->points[i];
        CHECK(p->item_id == q->item_id, "point %zu item_id", i);
        CHECK(strcmp(p->bench, q->bench) == 0 && strcmp(p->metric, q->metric) == 0 &&
              strcmp(p->unit, q->unit) == 0, "point %zu names", i);
        CHECK(same_f64(p->scale, q->scale), "point %zu scale", i);
        CHECK(p->ctx.n == q->ctx.n, "point %zu ctx.n", i);
        for (int k = 0; k < p->ctx.n && k < q->ctx.n; k++) {
            const gc_ctxv *u = &p->ctx.v[k], *v = &q->ctx.v[k];
            CHECK(strcmp(u->key, v->key) == 0 && u->is_str == v->is_str, "point %zu ctx %d", i, k);
            if (u->is_str)
                CHECK(strcmp(u->str, v->str) == 0, "point %zu ctx %d str", i, k);
            else
                CHECK(same_f64(u->num, v->num), "point %zu ctx %d num", i, k);
        }
        CHECK(p->status == q->status && p->flags == q->flags, "point %zu status/flags", i);
        CHECK(strcmp(p->error, q->error) == 0, "point %zu error", i);
        check_cond_equal(&p->before, &q->before, "point before");
        check_cond_equal(&p->after, &q->after, "point after");
        CHECK(gc_hist_equal(&p->hist, &q->hist), "point %zu histogram", i);
        CHECK(p->hist.sub_bits == q->hist.sub_bits && p->hist.total == q->hist.total,
              "point %zu histogram sub_bits/total", i);
    }
    CHECK(a->nparams == b->nparams, "nparams");
    for (size_t i = 0; i < a->nparams && i < b->nparams; i++) {
        const gc_param *p = &a->params[i], *q = &b->params[i];
        CHECK(strcmp(p->name, q->name) == 0 && same_f64(p->value, q->value) &&
              strcmp(p->unit, q->unit) == 0 && strcmp(p->source, q->source) == 0, "param %zu", i);
    }
}

/* ---------- frames ---------- */

#define HDR 13

/* magic version len crc body */
static void reframe(gc_wbuf *out, const char *magic, uint8_t version, const uint8_t *body,
                    size_t len)
{
    out->len = 0;
    gc_put_bytes(out, magic, 4);
    gc_put_u8(out, version);
    gc_put_u32le(out, (uint32_t)len);
    gc_put_u32le(out, gc_crc32(body, len));
    gc_put_bytes(out, body, len);
}

static int decode_shard(const uint8_t *d, size_t n, gc_err *err)
{
    gc_run_meta run;
    gc_gpu g;
    int rc = gc_shard_decode(d, n, &run, &g, err);
    gc_gpu_free(&g);   /* safe after a failure too */
    return rc;
}

static int decode_roster(const uint8_t *d, size_t n, gc_err *err)
{
    gc_run_meta run;
    gc_roster_entry *e = (gc_roster_entry *)(uintptr_t)1;
    size_t cnt = 99;
    int rc = gc_roster_decode(d, n, &run, &e, &cnt, err);
    if (rc)
        CHECK(e == NULL && cnt == 0, "failed roster decode leaves no entries");
    free(e);
    return rc;
}

/* ---------- shard tests ---------- */

static void test_roundtrip(void)
{
    gc_run_meta run, run2;
    gc_gpu g, g2;
    gc_err err = { 0 };
    make_run(&run);
    make_gpu(&g);
    CHECK(g.npoints == 3 && g.nparams == 3, "fixture");
    gc_wbuf w = { 0 };
    CHECK(gc_shard_encode(&run, &g, &w, &err) == 0, "encode: %s", err.msg);
    CHECK(w.len > HDR && memcmp(w.data, "GCSH", 4) == 0 && w.data[4] == GC_SHARD_VERSION,
          "frame header");
    CHECK(gc_shard_decode(w.data, w.len, &run2, &g2, &err) == 0, "decode: %s", err.msg);
    check_run_equal(&run, &run2);
    check_gpu_equal(&g, &g2);

    /* Encoding is deterministic: the decoded GPU encodes to the same bytes. */
    gc_wbuf w2 = { 0 };
    CHECK(gc_shard_encode(&run2, &g2, &w2, &err) == 0, "re-encode: %s", err.msg);
    CHECK(w2.len == w.len && memcmp(w.data, w2.data, w.len) == 0, "re-encode differs");

    gc_run_meta meta;
    CHECK(gc_shard_decode_meta(w.data, w.len, &meta, &err) == 0, "decode_meta: %s", err.msg);
    check_run_equal(&run, &meta);

    /* An empty GPU (no points, no params, complete). */
    gc_gpu e, e2;
    gc_gpu_init(&e);
    snprintf(e.info.node, sizeof e.info.node, "n0");
    e.complete = 1;
    gc_wbuf we = { 0 };
    CHECK(gc_shard_encode(&run, &e, &we, &err) == 0, "encode empty: %s", err.msg);
    CHECK(gc_shard_decode(we.data, we.len, &run2, &e2, &err) == 0, "decode empty: %s", err.msg);
    check_gpu_equal(&e, &e2);
    CHECK(e2.points == NULL && e2.params == NULL, "empty GPU allocates nothing");
    gc_gpu_free(&e2);
    gc_wbuf_free(&we);

    /* A shard whose counts lie (complete, yet items left) does not decode:
     * the catalogue records its GPU as failed, not ok. */
    e.items_total = 21;
    e.items_done = 20;
    CHECK(gc_shard_encode(&run, &e, &we, &err) == 0, "encode a lying shard: %s", err.msg);
    memset(&err, 0, sizeof err);
    CHECK(gc_shard_decode(we.data, we.len, &run2, &e2, &err) == GC_ECORRUPT &&
          strstr(err.msg, "bad header"), "a complete shard with items left decoded: %s", err.msg);
    gc_wbuf_free(&we);

    gc_gpu_free(&g2);
    gc_gpu_free(&g);
    gc_wbuf_free(&w);
    gc_wbuf_free(&w2);
}

/* Records: the summaries in place of the histograms, the leader's note;
 * what decodes gives the same summaries, parameters and identity. */
static void test_record(void)
{
    gc_run_meta run, run2;
    gc_gpu g, g2, g3;
    gc_err err = { 0 };
    make_run(&run);
    make_gpu(&g);
    gc_record_note note = { GC_NODE_FILE_FAILED, "disk full" }, note2;
    gc_wbuf w = { 0 }, ws = { 0 }, w2 = { 0 };
    CHECK(gc_record_encode(&run, &g, NULL, &note, &w, &err) == 0, "record encode: %s", err.msg);
    CHECK(gc_shard_encode(&run, &g, &ws, &err) == 0, "shard encode: %s", err.msg);
    CHECK(memcmp(w.data, "GCRC", 4) == 0 && gc_blob_is_record(w.data, w.len) &&
          !gc_blob_is_record(ws.data, ws.len), "record magic");
    CHECK(gc_shard_decode(w.data, w.len, &run2, &g3, &err) == GC_ECORRUPT, "a record is no shard");
    CHECK(gc_record_decode(w.data, w.len, &run2, &g2, &note2, &err) == 0, "record decode: %s",
          err.msg);
    check_run_equal(&run, &run2);
    CHECK(note2.node_file == GC_NODE_FILE_FAILED && strcmp(note2.msg, "disk full") == 0, "note");
    CHECK(g2.npoints == g.npoints && g2.nparams == g.nparams, "counts");
    for (size_t i = 0; i < g.npoints && i < g2.npoints; i++) {
        gc_summary a, b;
        gc_point_summary(&g.points[i], &a);
        gc_point_summary(&g2.points[i], &b);
        CHECK(g2.points[i].has_sum && g2.points[i].hist.total == 0, "point %zu: summary only", i);
        /* what rank 0 uses; min, mean and stddev stay in the shard */
        CHECK(a.count == b.count && a.p1 == b.p1 && a.p5 == b.p5 && a.p50 == b.p50 && a.p95 == b.p95 &&
              a.p99 == b.p99 && a.max == b.max, "point %zu: summary differs", i);
        CHECK(isnan(b.min) && isnan(b.mean) && isnan(b.stddev), "point %zu: min, mean, stddev", i);
        CHECK(gc_point_count(&g2.points[i]) == g.points[i].hist.total, "point %zu: count", i);
        CHECK(strcmp(g.points[i].metric, g2.points[i].metric) == 0 &&
              g.points[i].ctx.n == g2.points[i].ctx.n, "point %zu: context", i);
    }
    CHECK(w.len < ws.len, "record (%zu B) smaller than shard (%zu B)", w.len, ws.len);
    /* Decoded and encoded again: the same bytes. */
    CHECK(gc_record_encode(&run2, &g2, NULL, &note2, &w2, &err) == 0 && w2.len == w.len &&
          memcmp(w.data, w2.data, w.len) == 0, "record re-encode differs");
    /* Every truncation is refused. */
    int bad = 0;
    for (size_t n = 0; n < w.len; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, w.data, n);
        gc_gpu x;
        if (gc_record_decode(copy, n, &run2, &x, &note2, &err) != GC_ECORRUPT)
            bad++;
        free(copy);
    }
    CHECK(bad == 0, "%d record truncations of %zu accepted", bad, w.len);
    /* Every truncation of the body inside a valid frame. */
    gc_wbuf f = { 0 };
    bad = 0;
    for (size_t n = 0; n + HDR < w.len; n++) {
        reframe(&f, "GCRC", GC_SHARD_VERSION, w.data + HDR, n);
        gc_gpu x;
        if (gc_record_decode(f.data, f.len, &run2, &x, &note2, &err) != GC_ECORRUPT)
            bad++;
    }
    CHECK(bad == 0, "%d record body truncations accepted", bad);
    gc_wbuf_free(&f);
    gc_gpu_free(&g);
    gc_gpu_free(&g2);
    gc_wbuf_free(&w);
    gc_wbuf_free(&ws);
    gc_wbuf_free(&w2);
}

static void test_truncation_and_flips(void)
{
    gc_run_meta run;
    gc_gpu g;
    gc_err err;
    make_run(&run);
    make_gpu(&g);
    gc_wbuf w = { 0 };
    gc_shard_encode(&run, &g, &w, &err);
    gc_gpu_free(&g);

    /* Every truncation of the file. */
    int bad = 0;
    for (size_t n = 0; n < w.len; n++) {
        uint8_t *copy = malloc(n ? n : 1);   /* exact size: ASan sees overreads */
        memcpy(copy, w.data, n);
        memset(&err, 0, sizeof err);
        if (decode_shard(copy, n, &err) != GC_ECORRUPT || err.msg[0] == '\0')
            bad++;
        gc_run_meta m;
        if (gc_shard_decode_meta(copy, n, &m, &err) != GC_ECORRUPT)
            bad++;
        free(copy);
    }
    CHECK(bad == 0, "%d truncations of %zu not rejected", bad, w.len);
    /* One byte more. */
    gc_wbuf longer = { 0 };
    gc_put_bytes(&longer, w.data, w.len);
    gc_put_u8(&longer, 0);
    CHECK(decode_shard(longer.data, longer.len, &err) == GC_ECORRUPT, "trailing byte");
    gc_wbuf_free(&longer);

    /* Every truncation of the body inside a valid frame (length and CRC
     * fixed up): the field decoders must notice. */
    const uint8_t *body = w.data + HDR;
    size_t blen = w.len - HDR;
    gc_wbuf f = { 0 };
    bad = 0;
    for (size_t n = 0; n < blen; n++) {
        reframe(&f, "GCSH", GC_SHARD_VERSION, body, n);
        uint8_t *copy = malloc(f.len);
        memcpy(copy, f.data, f.len);
        if (decode_shard(copy, f.len, &err) != GC_ECORRUPT)
            bad++;
        free(copy);
    }
    CHECK(bad == 0, "%d body truncations of %zu accepted", bad, blen);
    /* Body with a trailing byte, in a valid frame. */
    gc_wbuf b2 = { 0 };
    gc_put_bytes(&b2, body, blen);
    gc_put_u8(&b2, 0);
    reframe(&f, "GCSH", GC_SHARD_VERSION, b2.data, b2.len);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT && strstr(err.msg, "trailing"),
          "trailing byte in body: %s", err.msg);
    gc_wbuf_free(&b2);

    /* Every single-bit flip of the file: CRC-32 detects them all. */
    bad = 0;
    uint8_t *copy = malloc(w.len);
    for (size_t i = 0; i < w.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, w.data, w.len);
            copy[i] ^= (uint8_t)(1u << bit);
            if (decode_shard(copy, w.len, &err) != GC_ECORRUPT)
                bad++;
        }
    }
    CHECK(bad == 0, "%d of %zu bit flips accepted", bad, w.len * 8);
    free(copy);

    /* Every single-bit flip of the body inside a valid frame: may decode
     * (a flipped double is still a double) but must not crash, and what
     * decodes must encode again. */
    int accepted = 0, wrong = 0;
    uint8_t *bcopy = malloc(blen);
    for (size_t i = 0; i < blen; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bcopy, body, blen);
            bcopy[i] ^= (uint8_t)(1u << bit);
            reframe(&f, "GCSH", GC_SHARD_VERSION, bcopy, blen);
            gc_run_meta r2;
            gc_gpu g2;
            int rc = gc_shard_decode(f.data, f.len, &r2, &g2, &err);
            if (rc == 0) {
                accepted++;
                gc_wbuf again = { 0 };
                if (gc_shard_encode(&r2, &g2, &again, &err) != 0)
                    wrong++;
                gc_wbuf_free(&again);
            } else if (rc != GC_ECORRUPT) {
                wrong++;
            }
            gc_gpu_free(&g2);
        }
    }
    free(bcopy);
    CHECK(wrong == 0, "%d body flips gave a wrong code or could not re-encode", wrong);
    CHECK(accepted < (int)(blen * 8), "some body flips must be rejected (%d accepted)", accepted);

    /* Wrong magic, wrong version, a roster given to the shard reader. */
    reframe(&f, "GCSX", GC_SHARD_VERSION, body, blen);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT && strstr(err.msg, "magic"),
          "bad magic: %s", err.msg);
    reframe(&f, "GCRO", GC_SHARD_VERSION, body, blen);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "roster magic on a shard");
    gc_run_meta m;
    CHECK(gc_shard_decode_meta(f.data, f.len, &m, &err) == GC_ECORRUPT, "roster magic, meta");
    reframe(&f, "GCSH", GC_SHARD_VERSION + 1, body, blen);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT && strstr(err.msg, "version"),
          "future version: %s", err.msg);
    reframe(&f, "GCSH", 0, body, blen);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "version 0");
    /* A header whose length lies (too long, too short). */
    reframe(&f, "GCSH", GC_SHARD_VERSION, body, blen);
    f.data[5] ^= 0x01;
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "length off by one");
    reframe(&f, "GCSH", GC_SHARD_VERSION, body, blen);
    f.data[8] = 0xff;
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "length 4 GiB");

    gc_wbuf_free(&f);
    gc_wbuf_free(&w);
}

/* The body of a shard whose GPU has no points and no parameters ends with
 * varint(0) varint(0): replace those with lies. */
static void test_oversize_counts(void)
{
    gc_run_meta run;
    gc_gpu g;
    gc_err err;
    make_run(&run);
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "n0");
    gc_wbuf w = { 0 };
    CHECK(gc_shard_encode(&run, &g, &w, &err) == 0, "encode");
    size_t plen = w.len - HDR - 3;
    CHECK(w.data[w.len - 1] == 0 && w.data[w.len - 2] == 0 && w.data[w.len - 3] == 0,
          "empty GPU ends with three zero counts (points, parameters, methods)");

    const uint64_t lies[] = { 1, 2, 1000, GC_SHARD_MAX_POINTS, GC_SHARD_MAX_POINTS + 1ull,
                              1ull << 32, UINT64_MAX };
    gc_wbuf b = { 0 }, f = { 0 };
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
        /* Point count. */
        b.len = 0;
        gc_put_bytes(&b, w.data + HDR, plen);
        gc_put_varint(&b, lies[k]);
        gc_put_varint(&b, 0);
        reframe(&f, "GCSH", GC_SHARD_VERSION, b.data, b.len);
        CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "point count %llu: %s",
              (unsigned long long)lies[k], err.msg);
        /* Point count with a lot of padding behind it (passes the size
         * heuristic, then runs out of valid points). */
        if (lies[k] <= 1000) {
            for (int z = 0; z < 20000; z++)
                gc_put_u8(&b, 0);
            reframe(&f, "GCSH", GC_SHARD_VERSION, b.data, b.len);
            CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "point count %llu padded",
                  (unsigned long long)lies[k]);
        }
        /* Parameter count. */
        b.len = 0;
        gc_put_bytes(&b, w.data + HDR, plen);
        gc_put_varint(&b, 0);
        gc_put_varint(&b, lies[k]);
        reframe(&f, "GCSH", GC_SHARD_VERSION, b.data, b.len);
        CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "param count %llu",
              (unsigned long long)lies[k]);
    }
    /* A context count beyond GC_MAX_CTX inside an otherwise plain point. */
    gc_gpu_add_point(&g, 1, "launch", NULL, "latency_ns", "ns", 1000, 6);
    gc_wbuf wp = { 0 };
    CHECK(gc_shard_encode(&run, &g, &wp, &err) == 0, "encode point");
    /* point: item_id(1) "launch"(7) "latency_ns"(11) "ns"(3) scale(8) ctx.n */
    size_t at = HDR + plen + 1 + 1 + 7 + 11 + 3 + 8;
    CHECK(wp.data[at] == 0, "ctx count located");
    wp.data[at] = GC_MAX_CTX + 1;
    reframe(&f, "GCSH", GC_SHARD_VERSION, wp.data + HDR, wp.len - HDR);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "ctx count %d", GC_MAX_CTX + 1);
    /* Histogram length beyond the body. */
    wp.data[at] = 0;
    size_t hl = at + 1 + 1 + 1 + 1 + 1 + 1;   /* ctx.n status flags error before after */
    CHECK(wp.data[hl] > 0 && wp.data[hl] < 128, "histogram length located");
    wp.data[hl] = 127;
    reframe(&f, "GCSH", GC_SHARD_VERSION, wp.data + HDR, wp.len - HDR);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "histogram length");
    /* Out-of-range enumerations: status 2, conditions valid 2. */
    /* restore (the params count and the methods table, 1 "launch" 1, follow) */
    wp.data[hl] = (uint8_t)(wp.len - hl - 1 - 1 - 9);
    reframe(&f, "GCSH", GC_SHARD_VERSION, wp.data + HDR, wp.len - HDR);
    CHECK(decode_shard(f.data, f.len, &err) == 0, "restored point decodes: %s", err.msg);
    wp.data[at + 1] = 2;
    reframe(&f, "GCSH", GC_SHARD_VERSION, wp.data + HDR, wp.len - HDR);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "status 2");
    wp.data[at + 1] = 0;
    wp.data[at + 4] = 2;
    reframe(&f, "GCSH", GC_SHARD_VERSION, wp.data + HDR, wp.len - HDR);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "conditions valid = 2");

    gc_wbuf_free(&wp);
    gc_wbuf_free(&b);
    gc_wbuf_free(&f);
    gc_wbuf_free(&w);
    gc_gpu_free(&g);
}

/* ---------- roster ---------- */

static void test_roster(void)
{
    gc_run_meta run, run2;
    gc_err err;
    make_run(&run);
    gc_roster_entry in[5];
    for (int i = 0; i < 5; i++) {
        memset(&in[i], 0, sizeof in[i]);
        in[i].rank = i;
        snprintf(in[i].node, sizeof in[i].node, "node-%d", i / 2);
        in[i].local_index = i % 2;
    }
    fill_name(in[4].node, sizeof in[4].node - 1);
    in[4].local_index = 1 << 20;
    gc_wbuf w = { 0 };
    CHECK(gc_roster_encode(&run, in, 5, &w, &err) == 0, "roster encode");
    CHECK(memcmp(w.data, "GCRO", 4) == 0, "roster magic");
    gc_roster_entry *out = NULL;
    size_t n = 0;
    CHECK(gc_roster_decode(w.data, w.len, &run2, &out, &n, &err) == 0, "roster decode: %s", err.msg);
    check_run_equal(&run, &run2);
    CHECK(n == 5, "roster count %zu", n);
    for (size_t i = 0; i < n && i < 5; i++)
        CHECK(out[i].rank == in[i].rank && strcmp(out[i].node, in[i].node) == 0 &&
              out[i].local_index == in[i].local_index, "roster entry %zu", i);
    free(out);

    /* node names that would leave the directory, or reach a shell, are
     * refused where they are read: in a roster and in a shard */
    static const char *const hostile[] = { "../../../../tmp/x", "..", ".", "", "a b", "x;id",
                                            "a\x1b[2J" };
    for (size_t h = 0; h < sizeof hostile / sizeof *hostile; h++) {
        gc_roster_entry one = in[0];
        snprintf(one.node, sizeof one.node, "%s", hostile[h]);
        gc_wbuf wh = { 0 };
        CHECK(gc_roster_encode(&run, &one, 1, &wh, &err) == 0, "encode");
        CHECK(gc_roster_decode(wh.data, wh.len, &run2, &out, &n, &err) == GC_ECORRUPT &&
                  strstr(err.msg, "node name"), "roster node '%s' accepted", hostile[h]);
        gc_wbuf_free(&wh);
        gc_gpu g;
        gc_gpu_init(&g);
        snprintf(g.info.node, sizeof g.info.node, "%s", hostile[h]);
        CHECK(gc_shard_encode(&run, &g, &wh, &err) == 0, "encode");
        CHECK(decode_shard(wh.data, wh.len, &err) == GC_ECORRUPT && strstr(err.msg, "node name"),
              "shard node '%s' accepted", hostile[h]);
        gc_gpu_free(&g);
        gc_wbuf_free(&wh);
    }

    int bad = 0;
    for (size_t k = 0; k < w.len; k++) {
        uint8_t *c = malloc(k ? k : 1);
        memcpy(c, w.data, k);
        if (decode_roster(c, k, &err) != GC_ECORRUPT)
            bad++;
        free(c);
    }
    CHECK(bad == 0, "%d roster truncations accepted", bad);
    bad = 0;
    uint8_t *c = malloc(w.len);
    for (size_t i = 0; i < w.len * 8; i++) {
        memcpy(c, w.data, w.len);
        c[i / 8] ^= (uint8_t)(1u << (i % 8));
        if (decode_roster(c, w.len, &err) != GC_ECORRUPT)
            bad++;
    }
    free(c);
    CHECK(bad == 0, "%d roster bit flips accepted", bad);

    gc_wbuf f = { 0 };
    const uint8_t *body = w.data + HDR;
    size_t blen = w.len - HDR;
    bad = 0;
    for (size_t k = 0; k < blen; k++) {
        reframe(&f, "GCRO", GC_SHARD_VERSION, body, k);
        if (decode_roster(f.data, f.len, &err) != GC_ECORRUPT)
            bad++;
    }
    CHECK(bad == 0, "%d roster body truncations accepted", bad);
    reframe(&f, "GCSH", GC_SHARD_VERSION, body, blen);
    CHECK(decode_roster(f.data, f.len, &err) == GC_ECORRUPT, "shard magic on a roster");
    reframe(&f, "GCRO", GC_SHARD_VERSION + 1, body, blen);
    CHECK(decode_roster(f.data, f.len, &err) == GC_ECORRUPT, "roster of a later version");

    /* Semantic checks: ranks out of order, local index too large, empty,
     * lying counts. */
    in[2].rank = 3;
    gc_wbuf w2 = { 0 };
    gc_roster_encode(&run, in, 5, &w2, &err);
    CHECK(decode_roster(w2.data, w2.len, &err) == GC_ECORRUPT, "ranks out of order");
    in[2].rank = 2;
    in[4].local_index = (1 << 20) + 1;
    w2.len = 0;
    gc_roster_encode(&run, in, 5, &w2, &err);
    CHECK(decode_roster(w2.data, w2.len, &err) == GC_ECORRUPT, "local index too large");
    in[4].local_index = -1;
    w2.len = 0;
    gc_roster_encode(&run, in, 5, &w2, &err);
    CHECK(decode_roster(w2.data, w2.len, &err) == GC_ECORRUPT, "negative local index");
    w2.len = 0;
    gc_roster_encode(&run, in, 0, &w2, &err);
    CHECK(decode_roster(w2.data, w2.len, &err) == GC_ECORRUPT, "empty roster");
    /* Entry count: run metadata is the body minus count and one entry. */
    w2.len = 0;
    gc_roster_encode(&run, in, 1, &w2, &err);   /* entry: 0 "node-0" 0 = 1 + 7 + 1 */
    size_t runlen = w2.len - HDR - 1 - 9;
    CHECK(w2.data[HDR + runlen] == 1, "roster count located");
    const uint64_t lies[] = { 0, 2, 3, 1000, 1ull << 40, UINT64_MAX };
    gc_wbuf b = { 0 };
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
        b.len = 0;
        gc_put_bytes(&b, w2.data + HDR, runlen);
        gc_put_varint(&b, lies[k]);
        gc_put_bytes(&b, w2.data + HDR + runlen + 1, 9);
        reframe(&f, "GCRO", GC_SHARD_VERSION, b.data, b.len);
        CHECK(decode_roster(f.data, f.len, &err) == GC_ECORRUPT, "roster count %llu",
              (unsigned long long)lies[k]);
    }
    gc_wbuf_free(&b);
    gc_wbuf_free(&w2);
    gc_wbuf_free(&f);
    gc_wbuf_free(&w);
}

/* gc_shard_decode_meta reads the head of a real shard, refuses a bad frame
 * and bad metadata. */
static void test_meta(void)
{
    gc_run_meta run, m;
    gc_gpu g;
    gc_err err;
    make_run(&run);
    make_gpu(&g);
    gc_wbuf w = { 0 }, f = { 0 };
    gc_shard_encode(&run, &g, &w, &err);
    gc_gpu_free(&g);
    CHECK(gc_shard_decode_meta(w.data, w.len, &m, &err) == 0, "meta: %s", err.msg);
    check_run_equal(&run, &m);
    /* Metadata with nodes > ranks, or sub_bits too large. */
    run.nodes = run.ranks + 1;
    gc_wbuf w2 = { 0 };
    gc_gpu_init(&g);
    gc_shard_encode(&run, &g, &w2, &err);
    CHECK(gc_shard_decode_meta(w2.data, w2.len, &m, &err) == GC_ECORRUPT, "nodes > ranks");
    CHECK(decode_shard(w2.data, w2.len, &err) == GC_ECORRUPT, "nodes > ranks (full decode)");
    make_run(&run);
    run.sub_bits = GC_HIST_MAX_SUB_BITS + 1;
    w2.len = 0;
    gc_shard_encode(&run, &g, &w2, &err);
    CHECK(gc_shard_decode_meta(w2.data, w2.len, &m, &err) == GC_ECORRUPT, "sub_bits too large");
    /* Only the metadata is checked by decode_meta: a broken point behind a
     * valid frame does not matter to it, but does to the full decoder. */
    make_run(&run);
    w2.len = 0;
    gc_shard_encode(&run, &g, &w2, &err);
    gc_wbuf b = { 0 };
    gc_put_bytes(&b, w2.data + HDR, w2.len - HDR - 2);
    gc_put_varint(&b, 1);
    gc_put_bytes(&b, "\xff\xff\xff", 3);
    reframe(&f, "GCSH", GC_SHARD_VERSION, b.data, b.len);
    CHECK(gc_shard_decode_meta(f.data, f.len, &m, &err) == 0, "meta of a shard with a bad point");
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "full decode of a bad point");
    gc_wbuf_free(&b);
    gc_wbuf_free(&f);
    gc_wbuf_free(&w2);
    gc_wbuf_free(&w);
}

static void test_path(void)
{
    char buf[64];
    CHECK(gc_shard_path(buf, sizeof buf, "out/shards", "n1", 3) == 0 &&
          strcmp(buf, "out/shards/n1-gpu3.gcs") == 0, "shard path %s", buf);
    CHECK(gc_shard_path(buf, 10, "out/shards", "n1", 3) != 0, "shard path too long");
}

/* ---------- atomic writes ---------- */

static char tmpdir[256];

static char *slurp(const char *path, size_t *len)
{
    uint8_t *d;
    gc_err err;
    if (gc_read_file(path, 1u << 24, &d, len, &err))
        return NULL;
    char *s = realloc(d, *len + 1);
    s[*len] = '\0';
    return s;
}

static int put_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(s, f);
    return fclose(f);
}

/* Entries of tmpdir other than . and .. (leftover temporaries show up). */
static int dir_entries(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_write_atomic(void)
{
    char path[512], other[512];
    gc_err err = { 0 };
    snprintf(path, sizeof path, "%s/out.gcs", tmpdir);
    size_t len;

    /* New file, then a replacement; the mode follows the umask. */
    mode_t old = umask(027);
    CHECK(gc_write_atomic(path, "first", 5, &err) == 0, "write new: %s", err.msg);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640,
          "umask 027 -> mode %o", (unsigned)(st.st_mode & 07777));
    char *s = slurp(path, &len);
    CHECK(s && strcmp(s, "first") == 0, "content");
    free(s);
    umask(022);
    CHECK(gc_write_atomic(path, "second!", 7, &err) == 0, "replace: %s", err.msg);
    CHECK(lstat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "umask 022 -> mode %o",
          (unsigned)(st.st_mode & 07777));
    s = slurp(path, &len);
    CHECK(s && strcmp(s, "second!") == 0, "replaced content");
    free(s);
    CHECK(gc_write_atomic(path, "", 0, &err) == 0 && lstat(path, &st) == 0 && st.st_size == 0,
          "empty file");
    umask(old);
    CHECK(dir_entries() == 1, "no temporaries left (%d entries)", dir_entries());
    CHECK(gc_write_atomic(path, "second!", 7, &err) == 0, "rewrite");

    /* A streamed write that is aborted leaves the old file and no temporary. */
    gc_afile a;
    CHECK(gc_afile_open(&a, path, &err) == 0, "afile open: %s", err.msg);
    fputs("half of a catalogue", a.f);
    gc_afile_abort(&a);
    s = slurp(path, &len);
    CHECK(s && strcmp(s, "second!") == 0, "abort keeps the old file");
    free(s);
    CHECK(dir_entries() == 1, "abort leaves no temporary");

    /* A file-size limit while writing (ulimit -f): in a child, with SIGXFSZ
     * ignored so write() fails with EFBIG instead of killing it. Both the
     * one-shot and the streamed writers. */
    for (int mode = 0; mode < 2; mode++) {
        int pfd[2];
        if (pipe(pfd) != 0) {
            CHECK(0, "pipe");
            return;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(pfd[0]);
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = { 4096, 4096 };
            setrlimit(RLIMIT_FSIZE, &rl);
            size_t big = 1u << 20;
            char *data = malloc(big);
            memset(data, 'z', big);
            gc_err e = { 0 };
            int rc;
            if (mode == 0) {
                rc = gc_write_atomic(path, data, big, &e);
            } else {
                gc_afile af;
                rc = gc_afile_open(&af, path, &e);
                if (rc == 0) {
                    for (int k = 0; k < 64; k++)
                        fwrite(data, 1, big / 64, af.f);
                    rc = gc_afile_commit(&af, &e);
                }
            }
            dprintf(pfd[1], "%d %s", rc, e.msg);
            free(data);
            _exit(0);
        }
        close(pfd[1]);
        char msg[1024] = { 0 };
        size_t got = 0;
        ssize_t k;
        while ((k = read(pfd[0], msg + got, sizeof msg - 1 - got)) > 0)
            got += (size_t)k;
        close(pfd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
        CHECK(atoi(msg) == GC_EIO, "file-size limit (mode %d): rc/message '%s'", mode, msg);
        CHECK(strstr(msg, "previous file") && strstr(msg, "intact"),
              "message says the previous file is intact: '%s'", msg);
        CHECK(strstr(msg, "out.gcs") != NULL, "message names the file: '%s'", msg);
        s = slurp(path, &len);
        CHECK(s && strcmp(s, "second!") == 0, "old content survives the size limit (mode %d)",
              mode);
        free(s);
        CHECK(dir_entries() == 1, "no temporary left after the failure (%d entries)",
              dir_entries());
    }

    /* A symlink planted at the target is refused; its target untouched. */
    snprintf(other, sizeof other, "%s/victim", tmpdir);
    put_file(other, "precious");
    char link[512];
    snprintf(link, sizeof link, "%s/planted.gcs", tmpdir);
    CHECK(symlink(other, link) == 0, "symlink: %s", strerror(errno));
    memset(&err, 0, sizeof err);
    CHECK(gc_write_atomic(link, "evil", 4, &err) == GC_EIO, "symlink refused");
    CHECK(strstr(err.msg, "not a regular file") != NULL, "symlink message: %s", err.msg);
    s = slurp(other, &len);
    CHECK(s && strcmp(s, "precious") == 0, "symlink target untouched");
    free(s);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the symlink itself is left alone");
    CHECK(gc_afile_open(&a, link, &err) == GC_EIO, "streamed writer refuses the symlink too");
    /* A dangling symlink (to where a file would be created) is refused too. */
    char dangling[512], where[512];
    snprintf(where, sizeof where, "%s/created-through-link", tmpdir);
    snprintf(dangling, sizeof dangling, "%s/dangling.gcs", tmpdir);
    CHECK(symlink(where, dangling) == 0, "dangling symlink");
    CHECK(gc_write_atomic(dangling, "evil", 4, &err) == GC_EIO, "dangling symlink refused");
    CHECK(access(where, F_OK) != 0, "nothing created through the dangling symlink");
    /* A directory at the target path. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/adir", tmpdir);
    mkdir(dir, 0700);
    CHECK(gc_write_atomic(dir, "x", 1, &err) == GC_EIO, "directory refused");
    /* A missing parent directory fails cleanly. */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/nope/out.gcs", tmpdir);
    CHECK(gc_write_atomic(missing, "x", 1, &err) == GC_EIO, "missing directory");

    /* gc_read_file refuses what is too large and what is not a regular file. */
    uint8_t *d;
    CHECK(gc_read_file(other, 3, &d, &len, &err) == GC_EINVAL && d == NULL, "read over max");
    CHECK(gc_read_file(dir, 100, &d, &len, &err) == GC_EIO && d == NULL, "read a directory");

    unlink(dangling);
    unlink(link);
    unlink(other);
    unlink(path);
    rmdir(dir);
}

/* Method versions (format 4): each benchmark's, as this build measures it
 * or as recorded; format 3 dated by the run's start; bad tables refused. */
static void test_methods(void)
{
    gc_run_meta run, r2;
    gc_gpu g, d;
    gc_err err;
    make_run(&run);
    snprintf(run.start_time, sizeof run.start_time, "2026-11-23T12:00:00Z");
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "n0");
    gc_gpu_add_point(&g, 1, "chase_loaded", NULL, "latency", "cycles", 100, 6);
    gc_wbuf w = { 0 }, f = { 0 }, b = { 0 };
    CHECK(gc_shard_encode(&run, &g, &w, &err) == 0, "encode");
    CHECK(gc_shard_decode(w.data, w.len, &r2, &d, &err) == 0, "decode: %s", err.msg);
    CHECK(gc_gpu_method(&d, "chase_loaded") == gc_bench_method("chase_loaded") &&
          gc_bench_method("chase_loaded") == 2, "this build's chase_loaded: method 2, read %d",
          gc_gpu_method(&d, "chase_loaded"));
    gc_gpu_free(&d);
    /* a record carries them too */
    gc_wbuf rw = { 0 };
    gc_record_note note;
    CHECK(gc_record_encode(&run, &g, NULL, NULL, &rw, &err) == 0, "record encode");
    CHECK(gc_record_decode(rw.data, rw.len, &r2, &d, &note, &err) == 0, "record decode: %s", err.msg);
    CHECK(gc_gpu_method(&d, "chase_loaded") == 2, "record: method 2");
    gc_gpu_free(&d);
    gc_wbuf_free(&rw);
    /* a recorded version is kept (a resumed shard of an older method) */
    gc_gpu_set_method(&g, "chase_loaded", 1);
    w.len = 0;
    CHECK(gc_shard_encode(&run, &g, &w, &err) == 0, "encode recorded");
    CHECK(gc_shard_decode(w.data, w.len, &r2, &d, &err) == 0 && gc_gpu_method(&d, "chase_loaded") == 1,
          "recorded method 1 read back");
    gc_gpu_free(&d);
    /* the table: count 1, "chase_loaded" (1 + 12 bytes), version 1 */
    const size_t tab = 1 + 1 + 12 + 1;
    const uint8_t *body = w.data + HDR;
    size_t blen = w.len - HDR;
    CHECK(body[blen - tab] == 1 && body[blen - 1] == 1, "methods table located");
    /* format 3 (no table): dated by the run's start, before and after 1e7d199 */
    reframe(&f, "GCSH", 3, body, blen - tab);
    CHECK(gc_shard_decode(f.data, f.len, &r2, &d, &err) == 0, "format 3 decodes: %s", err.msg);
    CHECK(gc_gpu_method(&d, "chase_loaded") == 1, "format 3 of 2026-11-23: method 1");
    gc_gpu_free(&d);
    snprintf(run.start_time, sizeof run.start_time, "2026-11-25T00:00:00Z");
    gc_wbuf w2 = { 0 };
    gc_gpu_free(&g);
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "n0");
    gc_gpu_add_point(&g, 1, "chase_loaded", NULL, "latency", "cycles", 100, 6);
    CHECK(gc_shard_encode(&run, &g, &w2, &err) == 0, "encode 2");
    reframe(&f, "GCSH", 3, w2.data + HDR, w2.len - HDR - tab);
    CHECK(gc_shard_decode(f.data, f.len, &r2, &d, &err) == 0 && gc_gpu_method(&d, "chase_loaded") == 2,
          "format 3 of 2026-11-25 (after 1e7d199): method 2");
    gc_gpu_free(&d);
    reframe(&f, "GCSH", 2, w2.data + HDR, w2.len - HDR - tab);
    CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "format 2 refused");
    /* bad tables: version 0, 1001, a benchmark twice, too many */
    struct { const uint8_t *t; size_t n; const char *what; } bad[5];
    static const uint8_t v0[] = { 1, 1, 'x', 0 }, v1001[] = { 1, 1, 'x', 0xe9, 0x07 },
                         twice[] = { 2, 1, 'x', 1, 1, 'x', 2 }, many[] = { GC_MAX_METHODS + 1 },
                         trunc[] = { 2, 1, 'x', 1 };
    bad[0].t = v0, bad[0].n = sizeof v0, bad[0].what = "version 0";
    bad[1].t = v1001, bad[1].n = sizeof v1001, bad[1].what = "version 1001";
    bad[2].t = twice, bad[2].n = sizeof twice, bad[2].what = "a benchmark twice";
    bad[3].t = many, bad[3].n = sizeof many, bad[3].what = "more than GC_MAX_METHODS";
    bad[4].t = trunc, bad[4].n = sizeof trunc, bad[4].what = "truncated";
    for (int k = 0; k < 5; k++) {
        b.len = 0;
        gc_put_bytes(&b, w2.data + HDR, w2.len - HDR - tab);
        gc_put_bytes(&b, bad[k].t, bad[k].n);
        reframe(&f, "GCSH", GC_SHARD_VERSION, b.data, b.len);
        CHECK(decode_shard(f.data, f.len, &err) == GC_ECORRUPT, "methods table: %s refused", bad[k].what);
    }
    gc_gpu_free(&g);
    gc_wbuf_free(&w), gc_wbuf_free(&w2), gc_wbuf_free(&f), gc_wbuf_free(&b);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/test_shard.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_roundtrip();
    test_truncation_and_flips();
    test_record();
    test_oversize_counts();
    test_methods();
    test_roster();
    test_meta();
    test_path();
    test_write_atomic();
    rmdir(tmpdir);
    CHECK_DONE();
}

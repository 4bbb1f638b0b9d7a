/* libFuzzer target for the shard and roster readers: rank 0 and `merge`
 * read shards other ranks wrote (or a disk kept), so no input may crash
 * them, and whatever they accept must survive a re-encode unchanged.
 *
 * Build and run (from the repository root; tests/fuzz/run.sh does this):
 *   make fuzz-targets            # -> build/fuzz/fuzz_shard
 *   mkdir -p build/fuzz-shard-work && build/fuzz/fuzz_shard -max_total_time=60 \
 *       build/fuzz-shard-work tests/fuzz/corpus/shard
 * (the first directory receives new inputs; the checked-in seed corpus is
 * read only). Crashing inputs are kept in tests/fuzz/corpus/shard/crash-*.
 *
 * The first input byte picks a mode, so the fuzzer also reaches past the
 * frame's CRC into the field decoders:
 *   0: the rest is a shard file, decoded as is (also by gc_shard_decode_meta);
 *   1: the rest is a roster file, decoded as is;
 *   2: the rest is a shard body, wrapped in a valid frame (length, CRC);
 *   3: the rest is a roster body, wrapped in a valid frame; an accepted body
 *      must re-encode to the very same bytes (every roster field is
 *      canonical);
 *   4: the rest is a list of edits (offset u16le, xor byte) applied to the
 *      body of a shard built here in the current format (points with
 *      histograms, contexts, a failed point, conditions, parameters), then
 *      framed with a valid CRC: deep mutations that survive format changes.
 *   5: the rest is a record body (shard.h: its length and a zlib stream of
 *      the summaries, parameters and the leader's note), wrapped in a valid
 *      frame;
 *   6: the rest is a record body before deflating: deflated here, given its
 *      length and framed, so the fuzzer reaches the field decoders. An accepted record
 *      must decode again from its re-encoding with every field equal, and
 *      encode to the same bytes twice. Modes 5 and 6 frame the record in
 *      its own format (GC_RECORD_VERSION: its point strings through the
 *      string dictionary, which references strings seen before);
 *   7: as 6, framed in the format before the dictionary (GC_SHARD_VERSION),
 *      which the reader still takes;
 *   8: edits as in mode 4, applied to the plain body of a record built here
 *      (strings repeated, so it holds dictionary references), then deflated
 *      and framed as in mode 6.
 * Any other first byte behaves like 0.
 *
 * Seed corpus (tests/fuzz/corpus/shard): real files of a sim run,
 *   mpirun -np 2 --oversubscribe build/gpucensus run tests/mpi/plan.cfg \
 *       --backend sim -o /tmp/x        (MPI environment as in tests/lib.sh)
 * as mode 0 ("\0" + shard), 1 ("\1" + roster), 2 and 3 (the byte + the
 * body after the 13-byte header), 5 and 6 (record_*: the record
 * gc_analyze_local makes of that shard, note "written": "\5" + its body,
 * "\6" + its body inflated), 7 (record_old_*: "\7" + a plain record body
 * in the format before the dictionary) and 8 (edits_record_*);
 * regenerate them when the format changes.
 * An accepted shard is re-encoded and decoded again: every field must be
 * equal, and encoding the second copy must give the same bytes as the first
 * re-encoding (histogram zlib streams need not match the input's). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/codec.h"
#include "census/shard.h"

#define HDR 13

static int same_f64(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void must(int cond)
{
    if (!cond)
        abort();
}

static void check_run(const gc_run_meta *a, const gc_run_meta *b)
{
    must(!strcmp(a->tool_version, b->tool_version) && !strcmp(a->git_commit, b->git_commit));
    must(!strcmp(a->plan_name, b->plan_name) && !strcmp(a->plan_file, b->plan_file));
    must(!strcmp(a->plan_sha256, b->plan_sha256) && !strcmp(a->start_time, b->start_time));
    must(!strcmp(a->end_time, b->end_time) && !strcmp(a->backend, b->backend));
    must(!strcmp(a->sim_profile, b->sim_profile) && a->seed == b->seed);
    must(a->ranks == b->ranks && a->nodes == b->nodes && a->sub_bits == b->sub_bits);
    must(same_f64(a->precision, b->precision));
    /* What the decoder promises about the ranges. */
    must(a->ranks >= 0 && a->nodes >= 0 && a->nodes <= a->ranks);
    must(a->sub_bits <= GC_HIST_MAX_SUB_BITS);
}

static void check_cond(const gc_conditions *a, const gc_conditions *b)
{
    must(a->valid == b->valid && (a->valid == 0 || a->valid == 1));
    if (!a->valid) {
        must(b->ecc_corrected == -1 && b->ecc_uncorrected == -1);
        return;
    }
    must(same_f64(a->sm_clock_mhz, b->sm_clock_mhz) && same_f64(a->mem_clock_mhz, b->mem_clock_mhz));
    must(same_f64(a->temperature_c, b->temperature_c) && same_f64(a->power_w, b->power_w));
    must(a->throttle_reasons == b->throttle_reasons);
    must(a->ecc_corrected == b->ecc_corrected && a->ecc_uncorrected == b->ecc_uncorrected);
    must(a->foreign_procs == b->foreign_procs && a->foreign_sm_util_pct == b->foreign_sm_util_pct &&
         a->foreign_mem_util_pct == b->foreign_mem_util_pct && a->nforeign == b->nforeign);
    for (int i = 0; i < a->nforeign && i < GC_FOREIGN_MAX; i++)
        must(a->foreign[i].pid == b->foreign[i].pid && !strcmp(a->foreign[i].name, b->foreign[i].name));
}

static void check_gpu(const gc_gpu *a, const gc_gpu *b)
{
    const gc_gpu_info *x = &a->info, *y = &b->info;
    must(!strcmp(x->node, y->node) && x->local_index == y->local_index && x->rank == y->rank);
    must(!strcmp(x->uuid, y->uuid) && !strcmp(x->pci_bus_id, y->pci_bus_id));
    must(!strcmp(x->name, y->name) && !strcmp(x->driver_version, y->driver_version));
    must(!strcmp(x->host_governor, y->host_governor) && !strcmp(x->host_cpus, y->host_cpus) &&
         !strcmp(x->host_mems, y->host_mems));
    must(x->cc_major == y->cc_major && x->cc_minor == y->cc_minor && x->sm_count == y->sm_count);
    must(x->cores_per_sm == y->cores_per_sm && x->warp_size == y->warp_size);
    must(x->max_threads_per_sm == y->max_threads_per_sm && x->regs_per_sm == y->regs_per_sm);
    must(x->smem_per_sm_bytes == y->smem_per_sm_bytes && x->l2_bytes == y->l2_bytes &&
         x->mem_bytes == y->mem_bytes);
    must(same_f64(x->sm_clock_mhz, y->sm_clock_mhz) && same_f64(x->mem_clock_mhz, y->mem_clock_mhz));
    must(x->bus_width_bits == y->bus_width_bits && x->ecc_enabled == y->ecc_enabled &&
         x->numa_node == y->numa_node);
    must(a->items_total == b->items_total && a->items_done == b->items_done);
    must(a->items_done <= a->items_total);
    must(a->complete == b->complete);
    check_cond(&a->start, &b->start);
    check_cond(&a->end, &b->end);
    must(a->npoints == b->npoints && a->npoints <= GC_SHARD_MAX_POINTS);
    for (size_t i = 0; i < a->npoints; i++) {
        const gc_point *p = &a->points[i], *q = &b->points[i];
        must(p->item_id == q->item_id && !strcmp(p->bench, q->bench));
        must(!strcmp(p->metric, q->metric) && !strcmp(p->unit, q->unit));
        must(same_f64(p->scale, q->scale) && p->scale > 0);
        must(p->ctx.n == q->ctx.n && p->ctx.n >= 0 && p->ctx.n <= GC_MAX_CTX);
        for (int k = 0; k < p->ctx.n; k++) {
            const gc_ctxv *u = &p->ctx.v[k], *v = &q->ctx.v[k];
            must(!strcmp(u->key, v->key) && u->is_str == v->is_str);
            must(u->is_str ? !strcmp(u->str, v->str) : same_f64(u->num, v->num));
        }
        must(p->status == q->status && (p->status == GC_PT_OK || p->status == GC_PT_FAILED));
        must(p->flags == q->flags && !strcmp(p->error, q->error));
        check_cond(&p->before, &q->before);
        check_cond(&p->after, &q->after);
        must(gc_hist_equal(&p->hist, &q->hist));
        /* Anything downstream asks for quantiles: they must stay in range. */
        if (p->hist.total) {
            uint64_t med = gc_hist_quantile(&p->hist, 0.5);
            must(med >= p->hist.min && med <= p->hist.max);
        }
    }
    must(a->nparams == b->nparams);
    for (size_t i = 0; i < a->nparams; i++) {
        const gc_param *p = &a->params[i], *q = &b->params[i];
        must(!strcmp(p->name, q->name) && same_f64(p->value, q->value));
        must(!strcmp(p->unit, q->unit) && !strcmp(p->source, q->source));
    }
}

static void fuzz_shard(const uint8_t *data, size_t len)
{
    gc_run_meta run, run2, meta;
    gc_gpu g, g2;
    gc_err err = { 0 };
    int mrc = gc_shard_decode_meta(data, len, &meta, &err);
    int rc = gc_shard_decode(data, len, &run, &g, &err);
    if (rc != 0) {
        must(rc == GC_ECORRUPT || rc == GC_ENOMEM);
        must(err.code == rc && err.msg[0] != '\0');   /* failures say why */
        must(g.npoints == 0 && g.points == NULL && g.params == NULL);   /* nothing left */
        return;
    }
    must(mrc == 0);   /* a whole shard that decodes has decodable metadata */
    check_run(&run, &meta);

    gc_wbuf w = { 0 }, w2 = { 0 };
    must(gc_shard_encode(&run, &g, &w, &err) == 0);
    must(gc_shard_decode(w.data, w.len, &run2, &g2, &err) == 0);
    check_run(&run, &run2);
    check_gpu(&g, &g2);
    must(gc_shard_encode(&run2, &g2, &w2, &err) == 0);
    must(w.len == w2.len && memcmp(w.data, w2.data, w.len) == 0);
    gc_wbuf_free(&w);
    gc_wbuf_free(&w2);
    gc_gpu_free(&g);
    gc_gpu_free(&g2);
}

static void fuzz_record(const uint8_t *data, size_t len)
{
    gc_run_meta run, run2;
    gc_gpu g, g2;
    gc_record_note note, note2;
    gc_err err = { 0 };
    int rc = gc_record_decode(data, len, &run, &g, &note, &err);
    if (rc != 0) {
        must(rc == GC_ECORRUPT || rc == GC_ENOMEM);
        must(err.code == rc && err.msg[0] != '\0');
        must(g.npoints == 0 && g.points == NULL && g.params == NULL);
        return;
    }
    must(note.node_file >= GC_NODE_FILE_NONE && note.node_file <= GC_NODE_FILE_FAILED);
    gc_wbuf w = { 0 }, w2 = { 0 };
    must(gc_record_encode(&run, &g, NULL, &note, &w, &err) == 0);
    must(gc_record_decode(w.data, w.len, &run2, &g2, &note2, &err) == 0);
    check_run(&run, &run2);
    must(note.node_file == note2.node_file && !strcmp(note.msg, note2.msg));
    must(g.npoints == g2.npoints && g.nparams == g2.nparams);
    for (size_t i = 0; i < g.npoints; i++) {
        gc_summary a, b;
        gc_point_summary(&g.points[i], &a);
        gc_point_summary(&g2.points[i], &b);
        must(g.points[i].has_sum && !g.points[i].hist.total);
        must(memcmp(&a, &b, sizeof a) == 0);
    }
    must(gc_record_encode(&run2, &g2, NULL, &note2, &w2, &err) == 0);
    must(w.len == w2.len && memcmp(w.data, w2.data, w.len) == 0);
    gc_wbuf_free(&w);
    gc_wbuf_free(&w2);
    gc_gpu_free(&g);
    gc_gpu_free(&g2);
}

/* body (mode 3): the raw body, which an accepted roster must re-encode to. */
static void fuzz_roster(const uint8_t *data, size_t len, const uint8_t *body, size_t body_len)
{
    gc_run_meta run, run2;
    gc_roster_entry *e = NULL, *e2 = NULL;
    size_t n = 0, n2 = 0;
    gc_err err = { 0 };
    int rc = gc_roster_decode(data, len, &run, &e, &n, &err);
    if (rc != 0) {
        must(rc == GC_ECORRUPT || rc == GC_ENOMEM);
        must(err.code == rc && err.msg[0] != '\0');
        must(e == NULL && n == 0);
        return;
    }
    must(n > 0 && e != NULL);
    gc_wbuf w = { 0 };
    must(gc_roster_encode(&run, e, n, &w, &err) == 0);
    must(gc_roster_decode(w.data, w.len, &run2, &e2, &n2, &err) == 0);
    check_run(&run, &run2);
    must(n == n2);
    for (size_t i = 0; i < n; i++) {
        must(e[i].rank == (int)i && e2[i].rank == e[i].rank);
        must(!strcmp(e[i].node, e2[i].node) && e[i].local_index == e2[i].local_index);
        must(e[i].local_index >= 0);
    }
    /* Every roster field is canonical: an accepted file re-encodes to itself. */
    must(w.len == len && memcmp(w.data, data, len) == 0);
    if (body)
        must(w.len - HDR == body_len && memcmp(w.data + HDR, body, body_len) == 0);
    free(e);
    free(e2);
    gc_wbuf_free(&w);
}

/* A record is framed in its own format (GC_RECORD_VERSION: strings through a
 * dictionary) unless old is set (GC_SHARD_VERSION: strings as they are). */
static void framed_v(const char *magic, int old, const uint8_t *body, size_t len, gc_wbuf *out)
{
    int record = !memcmp(magic, "GCRC", 4) && !old;
    gc_put_bytes(out, magic, 4);
    gc_put_u8(out, record ? GC_RECORD_VERSION : GC_SHARD_VERSION);
    gc_put_u32le(out, (uint32_t)len);
    gc_put_u32le(out, gc_crc32(body, len));
    gc_put_bytes(out, body, len);
}

static void framed(const char *magic, const uint8_t *body, size_t len, gc_wbuf *out)
{
    framed_v(magic, 0, body, len, out);
}

/* A shard body in the current format, built once. */
static uint8_t *base_body;
static size_t base_len;

static void build_base(void)
{
    gc_run_meta run;
    memset(&run, 0, sizeof run);
    snprintf(run.tool_version, sizeof run.tool_version, "0.1");
    snprintf(run.plan_name, sizeof run.plan_name, "fuzz");
    snprintf(run.backend, sizeof run.backend, "sim");
    run.ranks = 4;
    run.nodes = 2;
    run.precision = 0.01;
    run.sub_bits = 6;
    gc_gpu g;
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "n1");
    g.info.local_index = 1;
    g.info.rank = 1;
    g.items_total = 3;
    g.items_done = 2;
    g.start.valid = 1;
    g.start.sm_clock_mhz = 1980;
    g.start.ecc_corrected = 0;
    g.start.ecc_uncorrected = 0;
    gc_ctx ctx = { 0 };
    gc_ctx_set_num(&ctx, "footprint_bytes", 65536);
    gc_ctx_set_str(&ctx, "kernel", "triad");
    gc_point *p = gc_gpu_add_point(&g, 1, "chase", &ctx, "latency_cycles", "cycles", 1, 6);
    for (uint64_t v = 30; v < 900; v += 7)
        gc_hist_record_n(&p->hist, v, v % 5 + 1);
    p->before = g.start;
    p = gc_gpu_add_point(&g, 2, "inst", NULL, "error", "none", 1, 6);
    p->status = GC_PT_FAILED;
    snprintf(p->error, sizeof p->error, "launch failed");
    gc_gpu_add_param(&g, "l2_bytes", 5.0e7, "B", "chase");
    gc_wbuf w = { 0 };
    gc_err err;
    if (gc_shard_encode(&run, &g, &w, &err) != 0)
        abort();
    base_len = w.len - HDR;
    base_body = malloc(base_len);
    memcpy(base_body, w.data + HDR, base_len);
    gc_wbuf_free(&w);
    gc_gpu_free(&g);
}

static void fuzz_edits(const uint8_t *edits, size_t n)
{
    if (!base_body)
        build_base();
    uint8_t *b = malloc(base_len);
    memcpy(b, base_body, base_len);
    size_t len = base_len;
    for (size_t i = 0; i + 3 <= n; i += 3) {
        size_t off = ((size_t)edits[i] | (size_t)edits[i + 1] << 8);
        if (off == 0xffff && edits[i + 2] < base_len) {
            len = edits[i + 2] ? base_len - edits[i + 2] : len;   /* cut the tail */
            continue;
        }
        b[off % base_len] ^= edits[i + 2];
    }
    gc_wbuf f = { 0 };
    framed("GCSH", b, len, &f);
    fuzz_shard(f.data, f.len);
    gc_wbuf_free(&f);
    free(b);
}

/* A plain record body (modes 6 to 8): deflated, given its length and
 * framed (old: in the format before the string dictionary). */
static void fuzz_plain_record(const uint8_t *body, size_t n, int old)
{
    gc_wbuf z = { 0 }, f = { 0 };
    gc_err err;
    gc_put_u32le(&z, (uint32_t)n);
    if (gc_deflate(body, n, &z, &err) == 0 && !z.oom) {
        framed_v("GCRC", old, z.data, z.len, &f);
        fuzz_record(f.data, f.len);
    }
    gc_wbuf_free(&z);
    gc_wbuf_free(&f);
}

/* The plain body of a record made here of the base GPU in the current
 * format, with its strings repeated so the dictionary holds references
 * (mode 8), built once. */
static uint8_t *rec_body;
static size_t rec_len;

static void build_rec(void)
{
    if (!base_body)
        build_base();
    gc_wbuf f = { 0 };
    framed("GCSH", base_body, base_len, &f);
    gc_run_meta run;
    gc_gpu g;
    gc_err err;
    if (gc_shard_decode(f.data, f.len, &run, &g, &err) != 0)
        abort();
    gc_ctx ctx = { 0 };
    gc_ctx_set_num(&ctx, "footprint_bytes", 131072);
    gc_ctx_set_str(&ctx, "kernel", "triad");
    gc_point *p = gc_gpu_add_point(&g, 3, "chase", &ctx, "latency_cycles", "cycles", 1, 6);
    gc_hist_record_n(&p->hist, 400, 9);
    gc_record_note note = { .node_file = GC_NODE_FILE_WRITTEN };
    gc_wbuf w = { 0 };
    if (gc_record_encode(&run, &g, NULL, &note, &w, &err) != 0 || w.len < HDR + 4)
        abort();
    const uint8_t *b = w.data + HDR;
    rec_len = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 | (size_t)b[3] << 24;
    if (gc_inflate(b + 4, w.len - HDR - 4, rec_len, GC_SHARD_MAX_BYTES, &rec_body, &err) != 0 ||
        rec_len == 0)
        abort();
    gc_wbuf_free(&w);
    gc_gpu_free(&g);
    gc_wbuf_free(&f);   /* after g: its histograms' bytes were borrowed from it */
}

/* Mode 8: edits as in mode 4, on that record body. */
static void fuzz_record_edits(const uint8_t *edits, size_t n)
{
    if (!rec_body)
        build_rec();
    uint8_t *b = malloc(rec_len);
    memcpy(b, rec_body, rec_len);
    size_t len = rec_len;
    for (size_t i = 0; i + 3 <= n; i += 3) {
        size_t off = ((size_t)edits[i] | (size_t)edits[i + 1] << 8);
        if (off == 0xffff && edits[i + 2] < rec_len) {
            len = edits[i + 2] ? rec_len - edits[i + 2] : len;   /* cut the tail */
            continue;
        }
        b[off % rec_len] ^= edits[i + 2];
    }
    fuzz_plain_record(b, len, 0);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len == 0)
        return 0;
    const uint8_t *rest = data + 1;
    size_t n = len - 1;
    gc_wbuf f = { 0 };
    switch (data[0]) {
    case 1:
        fuzz_roster(rest, n, NULL, 0);
        break;
    case 2:
        framed("GCSH", rest, n, &f);
        fuzz_shard(f.data, f.len);
        break;
    case 3:
        framed("GCRO", rest, n, &f);
        fuzz_roster(f.data, f.len, rest, n);
        break;
    case 4:
        fuzz_edits(rest, n);
        break;
    case 5:
        framed("GCRC", rest, n, &f);
        fuzz_record(f.data, f.len);
        break;
    case 6:
        fuzz_plain_record(rest, n, 0);
        break;
    case 7:
        fuzz_plain_record(rest, n, 1);
        break;
    case 8:
        fuzz_record_edits(rest, n);
        break;
    default:
        fuzz_shard(rest, n);
        break;
    }
    gc_wbuf_free(&f);
    return 0;
}

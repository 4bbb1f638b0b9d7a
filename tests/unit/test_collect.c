/* collect.c, rank 0's collector: catalogue.json is written as the records
 * come (each GPU's object as soon as every GPU before it in the
 * catalogue's order has come, the rest from the spill file at the end), so
 * the file must not depend on the order records arrive in: records of 8
 * GPUs on 2 nodes (one never sent) taken in order and in a scrambled
 * order give the same bytes. The head is written first with a stand-in
 * end time and again at the end: in place when its length holds, else
 * into a new temporary (an end time of another length). No temporary is
 * left in OUT, finished or not. Real files in a temporary directory. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analyze/analyze.h"
#include "tree/collect.h"
#include "util/fsutil.h"
#include "check.h"

#define NGPU 8

static void make_run(gc_run_meta *m, const char *end_time)
{
    memset(m, 0, sizeof *m);
    snprintf(m->tool_version, sizeof m->tool_version, "0.3.1");
    snprintf(m->plan_name, sizeof m->plan_name, "quick");
    snprintf(m->plan_file, sizeof m->plan_file, "configs/quick.cfg");
    memset(m->plan_sha256, 'a', 64);
    snprintf(m->start_time, sizeof m->start_time, "2025-01-02T03:04:05Z");
    snprintf(m->end_time, sizeof m->end_time, "%s", end_time);
    snprintf(m->backend, sizeof m->backend, "sim");
    m->ranks = NGPU;
    m->nodes = 2;
    m->precision = 0.01;
    m->sub_bits = 7;
}

static void make_roster(gc_roster_entry *ro)
{
    for (int r = 0; r < NGPU; r++) {
        memset(&ro[r], 0, sizeof ro[r]);
        ro[r].rank = r;
        snprintf(ro[r].node, sizeof ro[r].node, "n%d", r / 4 + 1);
        ro[r].local_index = r % 4;
    }
}

/* A transfer at two sizes (time and bandwidth points): one link. */
static void add_xfer(gc_gpu *g, uint32_t item, const char *bench, gc_ctx *ctx, int rank, int sub_bits)
{
    for (int k = 0; k < 2; k++) {
        double bytes = k ? 64 << 20 : 1 << 20, bps = 2e10 * (1 - 0.01 * rank);
        gc_ctx_set_num(ctx, "size_bytes", bytes);
        gc_point *t = gc_gpu_add_point(g, item, bench, ctx, "time", "ns", 1000, sub_bits);
        gc_point *b = gc_gpu_add_point(g, item, bench, ctx, "bandwidth", "bytes_per_s", 1e9, sub_bits);
        for (int i = 0; t && b && i < 50; i++) {
            double ns = 5000 + bytes / bps * 1e9 * (1 + 0.001 * i);
            gc_hist_record(&t->hist, ns);
            gc_hist_record(&b->hist, bytes / (ns * 1e-9));
        }
    }
}

/* Rank r's record: two points and a parameter, values of its own, and
 * three links: to the host, to the next GPU of its node (nvlink: the
 * model waits for the peer's GPU) and to the GPU four ranks on (network,
 * the other node). */
static int make_record(const gc_run_meta *run, const gc_roster_entry *e, gc_wbuf *rec, gc_err *err)
{
    gc_gpu g;
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "%s", e->node);
    g.info.local_index = e->local_index;
    g.info.rank = e->rank;
    snprintf(g.info.uuid, sizeof g.info.uuid, "GPU-collect-%d", e->rank);
    snprintf(g.info.name, sizeof g.info.name, "Test GPU");
    g.items_total = g.items_done = 2;
    g.complete = 1;
    gc_ctx ctx = { 0 };
    gc_ctx_set_num(&ctx, "footprint_bytes", 4096);
    gc_point *p = gc_gpu_add_point(&g, 0, "launch", &ctx, "latency_ns", "ns", 1000, run->sub_bits);
    for (int i = 0; p && i < 50; i++)
        gc_hist_record(&p->hist, 5000 + 10 * e->rank + i);
    p = gc_gpu_add_point(&g, 1, "hbm", &ctx, "bandwidth_bps", "bytes_per_s", 1e9, run->sub_bits);
    for (int i = 0; p && i < 50; i++)
        gc_hist_record(&p->hist, 2e12 - 1e9 * e->rank + 1e8 * i);
    gc_gpu_add_param(&g, "launch_ns", 5000 + e->rank, "ns", "launch");
    gc_ctx x = { 0 };
    gc_ctx_set_str(&x, "direction", "h2d");
    add_xfer(&g, 2, "xfer", &x, e->rank, run->sub_bits);
    gc_ctx y = { 0 };
    gc_ctx_set_num(&y, "peer_gpu", (e->local_index + 1) % 4);
    gc_ctx_set_num(&y, "nvlink_links", 4);
    add_xfer(&g, 3, "p2p", &y, e->rank, run->sub_bits);
    gc_ctx z = { 0 };
    char peer_node[16];
    snprintf(peer_node, sizeof peer_node, "n%d", 2 - e->rank / 4);
    gc_ctx_set_num(&z, "peer_rank", (e->rank + 4) % NGPU);
    gc_ctx_set_str(&z, "peer_node", peer_node);
    add_xfer(&g, 4, "net", &z, e->rank, run->sub_bits);
    gc_record_note note = { e->local_index == 0 ? GC_NODE_FILE_WRITTEN : GC_NODE_FILE_NONE, "" };
    int rc = gc_analyze_local(run, &g, &note, rec, err);
    gc_gpu_free(&g);
    return rc;
}

/* Records the collector may hold in memory (0: each goes to the spill file). */
static size_t hold = GC_COLLECT_HELD_MAX;

/* The catalogue of the records taken in order (skipping rank `missing`);
 * end: the run's end time at the end (NULL: as at the start). */
static int collect(const char *out, const gc_roster_entry *ro, gc_wbuf *recs, const int *order,
                   const char *end_at_start, const char *end, int finish, gc_err *err)
{
    gc_run_meta run;
    make_run(&run, end_at_start);
    if (gc_mkdir_p(out, err))
        return -1;
    gc_collect *c = gc_collect_new(out, &run, ro, NGPU, err);
    if (!c)
        return -1;
    gc_collect_hold_at_most(c, hold);
    int rc = 0;
    for (int i = 0; order[i] >= 0 && !rc; i++) {
        gc_blob b = { .data = recs[order[i]].data, .len = recs[order[i]].len };
        rc = gc_collect_add(c, (size_t)order[i], &b, err);
    }
    if (end)
        snprintf(run.end_time, sizeof run.end_time, "%s", end);
    gc_catalogue_stats st = { 0 };
    if (!rc && finish)
        rc = gc_collect_finish(c, NULL, NULL, &st, err);
    free(st.briefs);
    gc_collect_free(c);
    return rc;
}

static char *slurp(const char *path, size_t *len)
{
    uint8_t *d = NULL;
    gc_err e = { 0 };
    *len = 0;
    if (gc_read_file(path, (size_t)1 << 28, &d, len, &e))
        return NULL;
    char *s = malloc(*len + 1);   /* NUL-ended, for strstr */
    if (s) {
        memcpy(s, d, *len);
        s[*len] = '\0';
    }
    free(d);
    return s;
}

/* Names in dir other than catalogue.json and nodes. */
static int strays(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "catalogue.json") &&
             strcmp(e->d_name, "nodes");
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    char tmpl[] = "/tmp/gctest-collect.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        return 77;
    gc_roster_entry ro[NGPU];
    make_roster(ro);
    gc_run_meta run;
    make_run(&run, "2025-01-02T03:14:15Z");
    gc_wbuf recs[NGPU];
    gc_err err = { 0 };
    for (int r = 0; r < NGPU; r++) {
        memset(&recs[r], 0, sizeof recs[r]);
        CHECK(make_record(&run, &ro[r], &recs[r], &err) == 0, "record %d: %s", r, err.msg);
    }
    /* rank 4 never sent: failed, "nothing received", in both */
    static const int in_order[] = { 0, 1, 2, 3, 5, 6, 7, -1 };
    static const int scrambled[] = { 5, 7, 1, 6, 3, 2, 0, -1 };
    static const int tail_first[] = { 7, 6, 5, 3, 2, 1, 0, -1 };
    const char *end = "2025-01-02T03:14:15Z";
    char a[300], b[300], c[300], d[300], e[300], f[300], sp[300], th[300];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(c, sizeof c, "%s/c", dir);
    snprintf(d, sizeof d, "%s/d", dir);
    snprintf(e, sizeof e, "%s/e", dir);
    snprintf(f, sizeof f, "%s/f", dir);
    snprintf(sp, sizeof sp, "%s/g", dir);
    snprintf(th, sizeof th, "%s/h", dir);
    CHECK(collect(a, ro, recs, in_order, end, NULL, 1, &err) == 0, "in order: %s", err.msg);
    CHECK(collect(b, ro, recs, scrambled, end, NULL, 1, &err) == 0, "scrambled: %s", err.msg);
    CHECK(collect(c, ro, recs, tail_first, end, NULL, 1, &err) == 0, "last first: %s", err.msg);
    /* end time unknown at the start: the stand-in's length holds (in place) */
    CHECK(collect(d, ro, recs, scrambled, "", end, 1, &err) == 0, "end time later: %s", err.msg);
    /* an end time of another length: a new temporary */
    CHECK(collect(e, ro, recs, scrambled, end, "2025-01-02T03:14:15.250Z", 1, &err) == 0,
          "end time of another length: %s", err.msg);
    /* the records of n2 (its leader never sent) from the spill file, not memory */
    hold = 0;
    CHECK(collect(sp, ro, recs, scrambled, end, NULL, 1, &err) == 0, "records spilled: %s", err.msg);
    hold = GC_COLLECT_HELD_MAX;
    /* analysed on two worker threads, kept in the order they came: the same bytes */
    setenv("GC_COLLECT_THREADS", "2", 1);
    CHECK(collect(th, ro, recs, scrambled, end, NULL, 1, &err) == 0, "on workers: %s", err.msg);
    unsetenv("GC_COLLECT_THREADS");
    /* never finished: nothing left */
    CHECK(collect(f, ro, recs, scrambled, end, NULL, 0, &err) == 0, "unfinished: %s", err.msg);

    char p[400];
    size_t la = 0, lx = 0, la2 = 0;
    snprintf(p, sizeof p, "%s/catalogue.json", a);
    char *ca = slurp(p, &la);
    CHECK(ca && la > 0, "%s: not written", p);
    json_error_t je;
    json_t *ja = ca ? json_loadb(ca, la, 0, &je) : NULL;
    CHECK(ja != NULL, "%s: not JSON: %s", p, ca ? je.text : "");
    json_t *gpus = json_object_get(ja, "gpus");
    CHECK(json_array_size(gpus) == NGPU, "%zu GPUs", json_array_size(gpus));
    int order_ok = 1;
    for (size_t i = 0; i < json_array_size(gpus); i++) {
        json_t *g = json_array_get(gpus, i);
        const char *node = json_string_value(json_object_get(g, "node"));
        long long idx = json_integer_value(json_object_get(g, "index"));
        order_ok &= node && !strcmp(node, ro[i].node) && idx == ro[i].local_index;
    }
    CHECK(order_ok, "GPUs not in the catalogue's order");
    /* links: 3 of each GPU but rank 4's, in the catalogue's order (by the
     * GPU that measured them); rank 4's end (never came) as the roster
     * names it, yet its peers' links to it are there */
    json_t *rows = json_object_get(json_object_get(ja, "links"), "rows");
    json_t *classes = json_object_get(json_object_get(ja, "links"), "classes");
    CHECK(json_array_size(rows) == 3 * (NGPU - 1), "%zu link rows", json_array_size(rows));
    int by_ok = 1, to4 = 0, fitted = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        long long by = json_integer_value(json_array_get(row, 3));
        by_ok &= by == in_order[i / 3];
        to4 += json_integer_value(json_array_get(row, 2)) == 4;
        fitted += json_is_array(json_array_get(row, 5));
    }
    CHECK(by_ok, "links not in the order of the GPUs that measured them");
    CHECK(to4 == 2, "%d links to rank 4 (the nvlink of rank 7, the network link of rank 0)", to4);
    CHECK(fitted == 3 * (NGPU - 1), "%d of %d links with a model", fitted, 3 * (NGPU - 1));
    int kinds = 0;
    for (size_t i = 0; i < json_array_size(classes); i++) {
        const char *k = json_string_value(json_array_get(json_array_get(classes, i), 0));
        kinds |= (k && !strcmp(k, "pcie")) | (k && !strcmp(k, "nvlink")) << 1 |
                 (k && !strcmp(k, "network")) << 2;
    }
    CHECK(kinds == 7, "link classes: pcie, nvlink and network expected (mask %d)", kinds);
    const char *cats[] = { b, c, d, sp, th };
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/catalogue.json", cats[i]);
        char *cx = slurp(p, &lx);
        CHECK(cx && ca && lx == la && !memcmp(cx, ca, la), "%s differs from %s/catalogue.json", p, a);
        free(cx);
        CHECK(strays(cats[i]) == 0, "%s: a temporary was left", cats[i]);
    }
    /* n2's node file, rank 0's: its GPUs' points from their records, held
     * in memory or spilled alike */
    snprintf(p, sizeof p, "%s/nodes/n2.json", b);
    char *nb = slurp(p, &la2);
    snprintf(p, sizeof p, "%s/nodes/n2.json", sp);
    char *ng = slurp(p, &lx);
    CHECK(nb && ng && la2 == lx && !memcmp(nb, ng, lx), "nodes/n2.json: spilled records differ from held ones");
    json_t *jn = nb ? json_loadb(nb, la2, 0, &je) : NULL;
    json_t *n2g = json_object_get(jn, "gpus");
    size_t with_points = 0;
    for (size_t i = 0; i < json_array_size(n2g); i++)
        with_points += json_array_size(json_object_get(json_array_get(n2g, i), "results")) > 0;
    CHECK(json_array_size(n2g) == 4 && with_points == 3, "nodes/n2.json: %zu GPUs, %zu with points (4, 3 expected)",
          json_array_size(n2g), with_points);
    json_decref(jn);
    free(nb);
    free(ng);
    snprintf(p, sizeof p, "%s/catalogue.json", e);
    char *ce = slurp(p, &lx);
    json_t *je2 = ce ? json_loadb(ce, lx, 0, &je) : NULL;
    CHECK(je2 != NULL, "%s: not JSON", p);
    const char *et = json_string_value(json_object_get(json_object_get(je2, "run"), "end_time"));
    CHECK(et && !strcmp(et, "2025-01-02T03:14:15.250Z"), "end time %s", et ? et : "(none)");
    /* past the run, the same bytes */
    const char *ga = ca ? strstr(ca, "\"gpus\": [") : NULL, *ge = ce ? strstr(ce, "\"gpus\": [") : NULL;
    CHECK(ga && ge && la - (size_t)(ga - ca) == lx - (size_t)(ge - ce) &&
              !memcmp(ga, ge, la - (size_t)(ga - ca)),
          "%s: the GPUs and the rest differ from %s's", p, a);
    CHECK(strays(e) == 0, "%s: a temporary was left", e);
    snprintf(p, sizeof p, "%s/catalogue.json", f);
    CHECK(access(p, F_OK) != 0 && strays(f) == 0, "%s: unfinished, yet something was left", f);
    json_decref(ja);
    json_decref(je2);
    free(ca);
    free(ce);
    for (int r = 0; r < NGPU; r++)
        gc_wbuf_free(&recs[r]);
    char cmd[300];
    if (check_failed) { printf("kept %s\n", dir); CHECK_DONE(); }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}

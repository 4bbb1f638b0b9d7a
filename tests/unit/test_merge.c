/* merge.c's checks on what it is given: a shard with a value that is not a
 * finite number (a NaN would become null in the catalogue, which check and
 * report then refuse) is refused, naming the shard; the same shard with
 * finite values merges. (A NaN scale does not decode at all: the catalogue
 * records that GPU failed, test_shard's business.) A node leader's file
 * (gc_catalogue_write_node) is put in place only while its keep callback
 * says so, and never over rank 0's file, even one written in the instant
 * between the leader's last check and its placement; an earlier run's
 * file it replaces. Real files in a temporary directory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/catalogue.h"
#include "util/fsutil.h"
#include "write/merge.h"
#include "census/shard.h"
#include "check.h"

static void make_run(gc_run_meta *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->tool_version, sizeof m->tool_version, "0.3.1");
    snprintf(m->plan_name, sizeof m->plan_name, "quick");
    snprintf(m->plan_file, sizeof m->plan_file, "configs/quick.cfg");
    memset(m->plan_sha256, 'a', 64);
    snprintf(m->start_time, sizeof m->start_time, "2025-01-02T03:04:05Z");
    snprintf(m->end_time, sizeof m->end_time, "2025-01-02T03:14:15Z");
    snprintf(m->backend, sizeof m->backend, "sim");
    m->ranks = 1;
    m->nodes = 1;
    m->precision = 0.01;
    m->sub_bits = 7;
}

/* OUT/shards with a roster and n1's one shard; NaN where asked */
static int write_census(const char *shards, double ctxv, double param, gc_err *err)
{
    gc_run_meta run;
    make_run(&run);
    gc_roster_entry e = { .rank = 0, .node = "n1", .local_index = 0 };
    gc_wbuf w = { 0 };
    int rc = gc_mkdir_p(shards, err);
    char path[512];
    snprintf(path, sizeof path, "%s/roster.gcr", shards);
    if (!rc && !(rc = gc_roster_encode(&run, &e, 1, &w, err)))
        rc = gc_write_atomic(path, w.data, w.len, err);
    gc_wbuf_free(&w);
    gc_gpu g;
    gc_gpu_init(&g);
    snprintf(g.info.node, sizeof g.info.node, "n1");
    g.info.local_index = 0;
    g.info.rank = 0;
    snprintf(g.info.uuid, sizeof g.info.uuid, "GPU-test");
    snprintf(g.info.name, sizeof g.info.name, "Test GPU");
    g.items_total = g.items_done = 1;
    g.complete = 1;
    gc_ctx ctx = { 0 };
    gc_ctx_set_num(&ctx, "footprint_bytes", ctxv);
    gc_point *p = gc_gpu_add_point(&g, 0, "launch", &ctx, "latency_ns", "ns", 1000, run.sub_bits);
    if (p)
        gc_hist_record(&p->hist, 5000);
    gc_gpu_add_param(&g, "launch_ns", param, "ns", "launch");
    gc_shard_path(path, sizeof path, shards, "n1", 0);
    if (!rc && !(rc = gc_shard_encode(&run, &g, &w, err)))
        rc = gc_write_atomic(path, w.data, w.len, err);
    gc_wbuf_free(&w);
    gc_gpu_free(&g);
    return rc;
}

typedef struct leader {
    const char *shards;
    int keep;
    const char *rank0_path;   /* set: "rank 0" writes its file when the leader last checks */
} leader;

static const char rank0_bytes[] = "rank 0's file\n";

static void fetch(void *ctx, size_t r, gc_blob *b, void **owned)
{
    const leader *l = ctx;
    char path[512];
    size_t len = 0;
    uint8_t *data = NULL;
    gc_err err = { 0 };
    memset(b, 0, sizeof *b);
    *owned = NULL;
    gc_shard_path(path, sizeof path, l->shards, "n1", (int)r);
    if (gc_read_file(path, GC_SHARD_MAX_BYTES, &data, &len, &err) == 0) {
        b->data = data;
        b->len = len;
        *owned = data;
    }
}

/* The leader's last check (not told it is lost); with rank0_path, rank 0
 * judges it lost right after and writes the node's file (by rename, as
 * collect.c does) before the leader places its own: the race of a leader
 * told in the instant between its check and its placement. */
static int keep(void *ctx)
{
    const leader *l = ctx;
    gc_err err = { 0 };
    if (l->rank0_path)
        CHECK(gc_write_atomic(l->rank0_path, rank0_bytes, sizeof rank0_bytes - 1, &err) == 0,
              "rank 0's write: %s", err.msg);
    return l->keep;
}

/* What nodes/n1.json holds: 0 rank 0's bytes, 1 a leader's node file
 * (names GPU-test), 2 the earlier run's, -1 something else */
static int node_holds(const char *path)
{
    uint8_t *got = NULL;
    size_t len = 0;
    gc_err err = { 0 };
    int who = -1;
    if (gc_read_file(path, 1 << 24, &got, &len, &err) == 0) {
        if (len == sizeof rank0_bytes - 1 && memcmp(got, rank0_bytes, len) == 0)
            who = 0;
        else if (len > 0 && got[0] == '{' && memmem(got, len, "\"GPU-test\"", 10))
            who = 1;
        else if (len == 12 && memcmp(got, "earlier run\n", 12) == 0)
            who = 2;
    }
    free(got);
    return who;
}

/* nodes/n1.json by a leader (gc_catalogue_write_node with a gc_node_place):
 * told or not (keep), an earlier run's file there or not (what the leader
 * saw before the run could write it: prior), rank 0's file written in the
 * window between the leader's last check and its placement or not. */
static void node_place(const char *dir)
{
    static const struct {
        const char *name;
        int earlier, keep, rank0_before, rank0_in_window;
        int rc, holds;   /* rc: 0, GC_EINVAL (told), GC_EEXIST (left to rank 0) */
    } cases[] = {
        { "placed", 0, 1, 0, 0, 0, 1 },
        { "told", 0, 0, 1, 0, GC_EINVAL, 0 },
        { "told-earlier", 1, 0, 0, 0, GC_EINVAL, 2 },
        { "earlier-replaced", 1, 1, 0, 0, 0, 1 },
        { "window", 0, 1, 0, 1, GC_EEXIST, 0 },
        { "window-earlier", 1, 1, 0, 1, GC_EEXIST, 0 },
        { "rank0-first", 1, 1, 1, 0, GC_EEXIST, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char shards[400], out[300], path[420];
        snprintf(out, sizeof out, "%s/place-%s", dir, cases[i].name);
        snprintf(shards, sizeof shards, "%s/shards", out);
        gc_err err = { 0 };
        CHECK(write_census(shards, 4096, 5.0, &err) == 0, "%s: write: %s", cases[i].name, err.msg);
        snprintf(path, sizeof path, "%s/nodes", out);
        CHECK(gc_mkdir_p(path, &err) == 0, "%s: %s", cases[i].name, err.msg);
        snprintf(path, sizeof path, "%s/nodes/n1.json", out);
        if (cases[i].earlier)
            CHECK(gc_write_atomic(path, "earlier run\n", 12, &err) == 0, "%s: %s", cases[i].name,
                  err.msg);
        gc_node_place place = { keep, { 0 } };
        gc_file_id_of(path, &place.prior);   /* as the leader does before the run's reduction */
        if (cases[i].rank0_before)   /* rank 0 judged the leader lost and wrote it first */
            CHECK(gc_write_atomic(path, rank0_bytes, sizeof rank0_bytes - 1, &err) == 0, "%s: %s",
                  cases[i].name, err.msg);
        gc_run_meta run;
        make_run(&run);
        gc_roster_entry e = { .rank = 0, .node = "n1", .local_index = 0 };
        leader l = { shards, cases[i].keep, cases[i].rank0_in_window ? path : NULL };
        int rc = gc_catalogue_write_node(out, &run, &e, 1, "n1", fetch, &l, &place, &err);
        CHECK(rc == cases[i].rc, "%s: rc %d, expected %d: %s", cases[i].name, rc, cases[i].rc,
              err.msg);
        if (rc == GC_EINVAL)
            CHECK(strstr(err.msg, "n1.json: left to rank 0") != NULL, "%s: %s", cases[i].name, err.msg);
        if (rc == GC_EEXIST)
            CHECK(strstr(err.msg, "n1.json: another file is in place") != NULL, "%s: %s",
                  cases[i].name, err.msg);
        int holds = node_holds(path);
        CHECK(holds == cases[i].holds, "%s: nodes/n1.json holds %d, expected %d", cases[i].name,
              holds, cases[i].holds);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "ls '%s/nodes' | grep -qv '^n1.json$'", out);
        CHECK(system(cmd) != 0, "%s: a temporary file is left in %s/nodes", cases[i].name, out);
    }
}

int main(void)
{
    char tmpl[] = "/tmp/gctest-merge.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        return 77;
    const struct { const char *name; double ctxv, param; int ok; } cases[] = {
        { "finite", 4096, 5.0, 1 },
        { "nan-context", NAN, 5.0, 0 },
        { "inf-param", 4096, INFINITY, 0 },
        { "nan-param", 4096, NAN, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char shards[256], out[256];
        snprintf(shards, sizeof shards, "%s/%s/shards", dir, cases[i].name);
        snprintf(out, sizeof out, "%s/%s", dir, cases[i].name);
        gc_err err = { 0 };
        CHECK(write_census(shards, cases[i].ctxv, cases[i].param, &err) == 0, "%s: write: %s",
              cases[i].name, err.msg);
        gc_run_meta run;
        gc_catalogue_stats st = { 0 };
        int rc = gc_merge(shards, out, &run, &st, &err);
        if (cases[i].ok) {
            CHECK(rc == 0, "%s: merge: %s", cases[i].name, err.msg);
        } else {
            CHECK(rc != 0 && strstr(err.msg, "n1-gpu0.gcs") && strstr(err.msg, "not a finite number"),
                  "%s: merged (rc %d: %s)", cases[i].name, rc, err.msg);
            char cat[300];
            snprintf(cat, sizeof cat, "%s/catalogue.json", out);
            CHECK(access(cat, F_OK) != 0, "%s: a catalogue was written", cases[i].name);
        }
        free(st.briefs);
    }
    node_place(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}

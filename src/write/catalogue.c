/* Catalogue files: the files, and the pipeline that analyses nodes in
 * worker threads and writes them in order. See catalogue.h; the JSON of one
 * GPU is catalogue_json.c. */
#include "write/catalogue.h"
#include "write/catalogue_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/jsonw.h"
#include "analyze/analyze.h"
#include "analyze/links.h"
#include "write/links_json.h"
#include "write/model_json.h"
#include "write/verdicts.h"

static int links_add(gc_links *l, const gc_analysed *a, size_t n);

/* A node file: its GPUs with their points, and the links they measured
 * with their per-size tables. */
int gc_cat_write_node_file(const char *out_dir, const gc_run_meta *run,
                           const gc_roster_entry *roster, size_t nranks, const char *node,
                           const gc_analysed *gpus, size_t n, char *buf,
                           const gc_node_place *place, void *kctx, gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes/%s.json", out_dir, node);
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    gc_jw w;
    gc_cat_doc_head(&w, a.f, buf, "node", run);
    gc_jw_kstr(&w, "node", node);
    gc_jw_key(&w, "gpus");
    gc_jw_open(&w, "[");
    for (size_t i = 0; i < n && !rc; i++) {
        gc_jw_next(&w);
        rc = gc_cat_gpu_json(&w, &gpus[i], 1, err);
    }
    gc_links *links = rc ? NULL : gc_links_new(roster, nranks);
    if (!rc && (!links || links_add(links, gpus, n)))
        rc = gc_fail(err, GC_ENOMEM, "%s: out of memory", path);
    if (!rc) {
        gc_links_resolve(links);   /* the node's GPUs all added: each link fitted */
        gc_jw_close(&w, "]");
        gc_jw_key(&w, "links");
        gc_links_json(&w, links);
        gc_jw_close(&w, "}");
        gc_jw_put(&w, "\n", 1);
        rc = gc_jw_finish(&w, path, err);
    }
    gc_links_free(links);
    if (!rc && place && place->keep && !place->keep(kctx))
        rc = gc_fail(err, GC_EINVAL, "%s: left to rank 0", path);
    if (rc)
        gc_afile_abort(&a);
    else if (place)   /* never over rank 0's, should it have come meanwhile */
        rc = gc_afile_commit_excl(&a, &place->prior, err);
    else
        rc = gc_afile_commit(&a, err);
    return rc;
}

size_t gc_cat_node_list(const gc_roster_entry *roster, size_t nranks, const char ***names)
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

/* The links of one node's GPUs (gc_links takes them as an array). */
static int links_add(gc_links *l, const gc_analysed *a, size_t n)
{
    gc_gpu *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return GC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g[i] = a[i].gpu;   /* a shallow view: gc_links copies what it keeps */
    int rc = gc_links_add_node(l, g, n);
    free(g);
    return rc;
}

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

/* ---- the writer's pipeline ---------------------------------------------
 *
 * Nodes are independent until they reach catalogue.json and the links, so
 * worker threads each take a node: read and decode its shards, derive
 * parameters, write its node file and format its GPUs' part of
 * catalogue.json in memory. The calling thread takes the nodes back in
 * order (so the output does not depend on the threads), adds their links
 * and appends their text. Workers run at most WINDOW_PER_THREAD nodes per
 * thread ahead of it, which bounds the memory held. */

#define MAX_THREADS 16
#define WINDOW_PER_THREAD 2

typedef struct node_job {
    gc_analysed *gpus;       /* analyze.c, sorted by local index */
    size_t *ranks;           /* roster index of each */
    size_t n;
    void **owned;            /* shard buffers the points borrow from */
    char *text;              /* this node's GPU objects for catalogue.json */
    size_t text_len;
    int rc;
    gc_err err;
    int done;
} node_job;

typedef struct pipeline {
    const char *out_dir;
    const gc_run_meta *run;
    const gc_roster_entry *roster;
    size_t nranks;
    const char **nodes;
    size_t nnodes;
    const gc_kdesc_set *descs;   /* the validation kernels' descriptions */
    gc_blob_fetch fetch;
    void *fctx;
    int node_only;               /* gc_catalogue_write_node: no catalogue text */
    const gc_node_place *place;  /* gc_catalogue_write_node's */
    node_job *jobs;
    size_t next, consumed, window;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipeline;

static void job_free(node_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        gc_analysed_free(&j->gpus[i]);
        free(j->owned ? j->owned[i] : NULL);
    }
    free(j->gpus);
    free(j->ranks);
    free(j->owned);
    free(j->text);
    memset(j, 0, sizeof *j);
}

/* Everything about node k that needs no other node. */
static void run_job(pipeline *pl, size_t k, node_job *j, char *bufs)
{
    size_t cap = 0;
    for (size_t r = 0; r < pl->nranks; r++)
        cap += strcmp(pl->roster[r].node, pl->nodes[k]) == 0;
    j->gpus = calloc(cap ? cap : 1, sizeof *j->gpus);
    j->owned = calloc(cap ? cap : 1, sizeof *j->owned);
    j->ranks = calloc(cap ? cap : 1, sizeof *j->ranks);
    if (!j->gpus || !j->owned || !j->ranks) {
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        return;
    }
    for (size_t r = 0; r < pl->nranks; r++)
        if (strcmp(pl->roster[r].node, pl->nodes[k]) == 0) {
            gc_blob b;
            pl->fetch(pl->fctx, r, &b, &j->owned[j->n]);
            if (gc_analyze_gpu(&pl->roster[r], &b, pl->descs, &j->gpus[j->n])) {
                free(j->owned[j->n]);
                j->owned[j->n] = NULL;
                j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
                return;
            }
            j->ranks[j->n++] = r;
        }
    /* sort GPUs and the buffers they borrow from together */
    for (size_t a = 1; a < j->n; a++)
        for (size_t b = a;
             b > 0 && j->gpus[b - 1].gpu.info.local_index > j->gpus[b].gpu.info.local_index; b--) {
            gc_analysed t = j->gpus[b];
            j->gpus[b] = j->gpus[b - 1];
            j->gpus[b - 1] = t;
            void *o = j->owned[b];
            j->owned[b] = j->owned[b - 1];
            j->owned[b - 1] = o;
            size_t q = j->ranks[b];
            j->ranks[b] = j->ranks[b - 1];
            j->ranks[b - 1] = q;
        }
    j->rc = gc_cat_write_node_file(pl->out_dir, pl->run, pl->roster, pl->nranks, pl->nodes[k],
                                   j->gpus, j->n, bufs, pl->place, pl->fctx, &j->err);
    if (j->rc || pl->node_only)
        return;
    FILE *mf = open_memstream(&j->text, &j->text_len);
    if (!mf) {
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        return;
    }
    gc_jw w;
    gc_jw_init(&w, mf, bufs + GC_JW_BUF, 0);
    for (size_t i = 0; i < j->n && !j->rc; i++) {
        if (i)
            gc_jw_puts(&w, ",\n");
        j->rc = gc_cat_gpu_json(&w, &j->gpus[i], 0, &j->err);
    }
    if (!j->rc)
        j->rc = gc_jw_finish(&w, "catalogue.json", &j->err);
    if (fclose(mf) != 0 && !j->rc)
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
}

static void *worker(void *arg)
{
    pipeline *pl = arg;
    char *bufs = malloc(2 * (size_t)GC_JW_BUF);
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        while (!pl->stop && pl->next < pl->nnodes && pl->next >= pl->consumed + pl->window)
            pthread_cond_wait(&pl->cv, &pl->mu);
        if (pl->stop || pl->next >= pl->nnodes) {
            pthread_mutex_unlock(&pl->mu);
            break;
        }
        size_t k = pl->next++;
        pthread_mutex_unlock(&pl->mu);
        node_job *j = &pl->jobs[k];
        if (bufs)
            run_job(pl, k, j, bufs);
        else
            j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        pthread_mutex_lock(&pl->mu);
        j->done = 1;
        pthread_cond_broadcast(&pl->cv);
        pthread_mutex_unlock(&pl->mu);
    }
    free(bufs);
    return NULL;
}

/* The CPUs this process may run on (an MPI launcher may have bound it). */
static int usable_cpus(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

int gc_catalogue_write_node(const char *out_dir, const gc_run_meta *run,
                            const gc_roster_entry *roster, size_t nranks, const char *node,
                            gc_blob_fetch fetch, void *ctx, const gc_node_place *place,
                            gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes", out_dir);
    int rc = gc_mkdir_p(path, err);
    if (rc)
        return rc;
    gc_kdesc_set descs;
    gc_kdesc_set_embedded(&descs);
    const char *nodes[1] = { node };
    pipeline pl = { .out_dir = out_dir, .run = run, .roster = roster, .nranks = nranks,
                    .nodes = nodes, .nnodes = 1, .descs = &descs, .fetch = fetch, .fctx = ctx,
                    .node_only = 1, .place = place };
    node_job j = { 0 };
    char *bufs = malloc(2 * (size_t)GC_JW_BUF);
    if (bufs)
        run_job(&pl, 0, &j, bufs);
    else
        j.rc = gc_fail(&j.err, GC_ENOMEM, "node file: out of memory");
    rc = j.rc ? gc_fail(err, j.rc, "%s", j.err.msg) : 0;
    job_free(&j);
    free(bufs);
    gc_kdesc_set_free(&descs);
    return rc;
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
    size_t nnodes = gc_cat_node_list(roster, nranks, &nodes);
    gc_cat_node_row *rows = calloc(nnodes ? nnodes : 1, sizeof *rows);
    char *bufs = malloc(GC_JW_BUF);
    stats->briefs = calloc(nranks ? nranks : 1, sizeof *stats->briefs);
    gc_links *links = gc_links_new(roster, nranks);
    if (links)
        gc_links_no_sizes(links);   /* the node files have them */
    gc_verdicts *verdicts = gc_verdicts_new();   /* detect.c, fed as GPUs stream */
    gc_cat_links *lrows = NULL;
    gc_kdesc_set descs;
    gc_kdesc_set_embedded(&descs);
    gc_models_pool pool;
    gc_models_pool_init(&pool, &descs);
    if (!nodes || !rows || !bufs || !stats->briefs || !links) {
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        goto out;
    }
    /* the links' rows made as each node's links come (in the order added) */
    if (!(lrows = gc_cat_links_new(out_dir, links, verdicts, NULL, 0, err))) {
        rc = err->code ? err->code : GC_ENOMEM;
        goto out;
    }
    snprintf(path, sizeof path, "%s/catalogue.json", out_dir);
    gc_afile cat;
    rc = gc_afile_open(&cat, path, err);
    if (rc)
        goto out;
    /* The cluster file is streamed: one GPU object at a time, each written
     * as a top-level value (as the json_dumpf of one GPU object was). */
    gc_jw w;
    gc_cat_doc_head(&w, cat.f, bufs, "catalogue", run);
    gc_jw_puts(&w, ",\n \"gpus\": [");
    w.depth = 0;

    pipeline pl = { .out_dir = out_dir, .run = run, .roster = roster, .nranks = nranks,
                    .nodes = nodes, .nnodes = nnodes, .descs = &descs, .fetch = fetch,
                    .fctx = ctx };
    int nthreads = usable_cpus();
    pl.window = (size_t)nthreads * WINDOW_PER_THREAD;
    pl.jobs = calloc(nnodes ? nnodes : 1, sizeof *pl.jobs);
    pthread_t tid[MAX_THREADS];
    int started = 0;
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    if (!pl.jobs)
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    for (int t = 0; !rc && t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, worker, &pl) == 0)
            started++;
    if (!rc && !started)
        rc = gc_fail(err, GC_ENOMEM, "catalogue: cannot start a thread");

    size_t written = 0;
    for (size_t k = 0; k < nnodes && !rc; k++) {
        node_job *j = &pl.jobs[k];
        pthread_mutex_lock(&pl.mu);
        while (!j->done)
            pthread_cond_wait(&pl.cv, &pl.mu);
        pthread_mutex_unlock(&pl.mu);
        if (j->rc) {
            rc = gc_fail(err, j->rc, "%s", j->err.msg);
        } else if (links_add(links, j->gpus, j->n)) {
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        } else if (j->n) {
            gc_jw_puts(&w, written ? ",\n" : "\n");
            gc_jw_put(&w, j->text, j->text_len);
            written += j->n;
        }
        int worst = GC_GPU_OK;
        for (size_t i = 0; i < j->n && !rc; i++) {
            const gc_gpu *g = &j->gpus[i].gpu;
            gc_analysed_brief(g, &stats->briefs[stats->gpus++]);
            gc_verdicts_gpu(verdicts, g, j->gpus[i].sums);
            if (j->gpus[i].models.present)
                gc_models_pool_add(&pool, &j->gpus[i].models);
            stats->ok += g->status == GC_GPU_OK;
            stats->partial += g->status == GC_GPU_PARTIAL;
            stats->failed += g->status == GC_GPU_FAILED;
            stats->incomplete += g->status == GC_GPU_INCOMPLETE;
            worst = gc_gpu_status_worse(worst, g->status);
        }
        rows[k].name = nodes[k];
        rows[k].gpus = j->n;
        rows[k].worst = worst;
        gc_cat_links_ready(lrows);
        job_free(j);
        pthread_mutex_lock(&pl.mu);
        pl.consumed = k + 1;
        pthread_cond_broadcast(&pl.cv);
        pthread_mutex_unlock(&pl.mu);
    }
    pthread_mutex_lock(&pl.mu);
    pl.stop = 1;
    pthread_cond_broadcast(&pl.cv);
    pthread_mutex_unlock(&pl.mu);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (size_t k = 0; pl.jobs && k < nnodes; k++)
        job_free(&pl.jobs[k]);
    free(pl.jobs);
    pthread_cond_destroy(&pl.cv);
    pthread_mutex_destroy(&pl.mu);
    stats->nodes = (int)nnodes;
    {
        const char *first;
        stats->links_dropped = gc_links_dropped(links, &first);
        snprintf(stats->link_dropped_first, sizeof stats->link_dropped_first, "%s", first);
    }
    if (!rc) {
        gc_cat_doc_tail(&w, rows, nnodes, lrows, &pool);
        rc = gc_jw_finish(&w, path, err);
        if (!rc)
            rc = gc_afile_commit(&cat, err);
        else
            gc_afile_abort(&cat);
    } else {
        gc_afile_abort(&cat);
    }
out:
    gc_cat_links_free(lrows);
    gc_verdicts_free(verdicts);
    gc_kdesc_set_free(&descs);
    gc_links_free(links);
    free(rows);
    free(bufs);
    free(nodes);
    return rc;
}

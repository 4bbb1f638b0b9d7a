/* Rank 0's collector. See collect.h. */
#include "tree/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "write/catalogue_int.h"
#include "util/fsutil.h"
#include "util/jsonw.h"
#include "analyze/analyze.h"
#include "analyze/links.h"
#include "write/model_json.h"
#include "util/timeutil.h"
#include "write/verdicts.h"
#include "judge/detect.h"

/* A record on its way in: copied, analysed on a worker thread (decode,
 * status, models: ~60% of a record's cost), then kept on the caller's
 * thread in the order the records came (keep: the catalogue's object,
 * links, detector; none of which is shared with the workers). */
typedef struct job {
    size_t r;
    gc_blob b;                     /* b.data: data, owned */
    uint8_t *data;
    int state;                     /* JOB_* */
    int rc;                        /* the analysis: 0, else out of memory */
    gc_analysed a;
} job;

enum { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };
#define COLLECT_MAX_WORKERS 8

/* What is kept of one GPU once its record has been analysed. */
typedef struct slot {
    int added;
    int queued;                    /* with the workers */
    int status;
    long long text_off, rec_off;   /* in the spill file; -1: not there (text: written at once) */
    size_t text_len, rec_len;
    uint8_t *rec;                  /* the record held in memory (rec_off -1), NULL: none */
    size_t npoints;
    char missing[160];             /* why nothing came, for its node file */
    int validated, models;         /* models present, with validation rows */
    gc_err_stats raw[GC_NMODELS][GC_NREG], cal[GC_NMODELS][GC_NREG];
} slot;

struct gc_collect {
    const char *out;
    const gc_run_meta *run;
    const gc_roster_entry *roster;
    size_t n;
    const char **nodes;            /* in the order the roster first names them */
    size_t nnodes;
    size_t *pos;                   /* roster index -> position in the catalogue */
    size_t *at;                    /* position -> roster index */
    size_t *node_of;               /* roster index -> index into nodes */
    size_t *node_pos;              /* node k's GPUs: positions node_pos[k] .. node_pos[k + 1] - 1 */
    unsigned char *node_wrote;     /* per node: its leader's record said it wrote the node file */
    size_t held;                   /* bytes of the records held in memory */
    size_t held_max;               /* past this, records go to the spill file */
    slot *s;
    gc_brief *briefs;              /* by position */
    gc_kdesc_set descs;
    gc_links *links;
    gc_verdicts *verdicts;
    gc_cat_links *rows;            /* catalogue.json's link rows, made as the links come */
    FILE *spill;                   /* unlinked */
    long long spill_len;
    char *buf;                     /* GC_JW_BUF */
    char *text;                    /* one GPU's catalogue object */
    char *rd;                      /* one read back from the spill file */
    size_t rd_cap;
    /* catalogue.json's temporary, written from the start: the head, then
     * each GPU's object as soon as every GPU before it in the catalogue's
     * order has come (the others wait in the spill file) */
    gc_afile cat;
    int cat_open;
    gc_jw w;
    char *catbuf;                  /* GC_JW_BUF, w's */
    long long head_len;            /* the head's bytes, up to the GPUs' "[" */
    size_t next;                   /* position of the next GPU object to write */
    /* what the end writes of the GPUs, summed as their objects are written
     * (in the catalogue's order): no pass over every slot after the last record */
    gc_models_pool pool;
    gc_cat_node_row *node_rows;
    int ok, partial, failed, incomplete;
    /* the workers (none: each record analysed in gc_collect_add) */
    int nworkers;
    pthread_t worker[COLLECT_MAX_WORKERS];
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    int stop;
    job *q;                        /* a ring of qcap jobs in the order they came */
    size_t qcap, qhead, qtake, qtail;   /* oldest not kept, next to analyse, next free (counts) */
};

/* The head of catalogue.json (schema, kind, run) up to the GPUs' "[". */
static void doc_head(gc_jw *w, FILE *f, char *buf, const gc_run_meta *run)
{
    gc_cat_doc_head(w, f, buf, "catalogue", run);
    gc_jw_puts(w, ",\n \"gpus\": [");
    w->depth = 0;
}

/* catalogue.json's temporary, its head written with the run's end time
 * as it will likely read (the run's, else now: the same length), to be
 * written again in place at the end (head_again). */
static int open_catalogue(gc_collect *c, gc_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/catalogue.json", c->out);
    if (!(c->catbuf = malloc(GC_JW_BUF)))
        return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    int rc = gc_afile_open(&c->cat, path, err);
    if (rc)
        return rc;
    c->cat_open = 1;
    gc_run_meta m = *c->run;
    if (!m.end_time[0])
        gc_iso_time(m.end_time, sizeof m.end_time, 0);
    doc_head(&c->w, c->cat.f, c->catbuf, &m);
    gc_jw_flush(&c->w);
    c->head_len = ftello(c->cat.f);
    return 0;
}

static int cmp_pos(const void *a, const void *b, void *ctx)
{
    const gc_collect *c = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (c->node_of[x] != c->node_of[y])
        return c->node_of[x] < c->node_of[y] ? -1 : 1;
    int i = c->roster[x].local_index, j = c->roster[y].local_index;
    if (i != j)
        return i < j ? -1 : 1;
    return (x > y) - (x < y);
}

static void *worker_main(void *arg)
{
    gc_collect *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->stop && c->qtake == c->qtail)
            pthread_cond_wait(&c->work, &c->mu);
        if (c->qtake == c->qtail)
            break;   /* stopping, nothing left */
        job *j = &c->q[c->qtake++ % c->qcap];
        j->state = JOB_RUNNING;
        pthread_mutex_unlock(&c->mu);
        j->rc = gc_analyze_gpu(&c->roster[j->r], &j->b, &c->descs, &j->a);
        pthread_mutex_lock(&c->mu);
        j->state = JOB_DONE;
        pthread_cond_broadcast(&c->done);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Workers: GC_COLLECT_THREADS (0: none), else one per two CPUs where
 * there are four or more, at most COLLECT_MAX_WORKERS; none where MPI
 * gives less than funneled. On the 2-core development VM a worker made
 * the ingest slower (1024 records: 2.37 s wall, 2.34 s CPU with one, 1.99
 * s and 1.89 s without): the analysed GPU (5 MB) crosses cores. A worker
 * that cannot start leaves the others (or none) to do it. */
static void start_workers(gc_collect *c)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), want = cpus >= 4 ? cpus / 2 : 0;
    const char *e = getenv("GC_COLLECT_THREADS");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == '\0' && v >= 0)
            want = v;
    }
    if (!gc_detect_threads_allowed() || want <= 0 || c->n < 2)
        return;
    if (want > COLLECT_MAX_WORKERS)
        want = COLLECT_MAX_WORKERS;
    /* A record's analysed GPU is ~5 MB (1610 points of 3 KB) allocated on
     * a worker and freed on this thread: past glibc's mmap threshold each
     * would be fresh pages (900,000 page faults for 1024 records, more
     * CPU than the work itself); kept in the heap and not trimmed, its
     * pages are used again. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    c->qcap = 2 * (size_t)want + 2;
    if (!(c->q = calloc(c->qcap, sizeof *c->q)))
        return;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->done, NULL);
    for (long i = 0; i < want; i++) {
        if (pthread_create(&c->worker[c->nworkers], NULL, worker_main, c) != 0)
            break;
        c->nworkers++;
    }
}

/* The workers told to stop once the queue is empty, and joined. */
static void stop_workers(gc_collect *c)
{
    if (!c->q)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mu);
    for (int i = 0; i < c->nworkers; i++)
        pthread_join(c->worker[i], NULL);
    c->nworkers = 0;
    for (size_t k = c->qhead; k < c->qtail; k++) {   /* never kept (a failure) */
        job *j = &c->q[k % c->qcap];
        if (j->state == JOB_DONE && !j->rc)
            gc_analysed_free(&j->a);
        free(j->data);
    }
    c->qhead = c->qtake = c->qtail = 0;
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->mu);
    free(c->q);
    c->q = NULL;
}

gc_collect *gc_collect_new(const char *out_dir, const gc_run_meta *run,
                           const gc_roster_entry *roster, size_t n, gc_err *err)
{
    gc_collect *c = calloc(1, sizeof *c);
    if (!c) {
        gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        return NULL;
    }
    c->out = out_dir;
    c->run = run;
    c->roster = roster;
    c->n = n;
    c->held_max = GC_COLLECT_HELD_MAX;
    gc_kdesc_set_embedded(&c->descs);
    char path[4200];
    snprintf(path, sizeof path, "%s/nodes", out_dir);
    if (gc_mkdir_p(path, err)) {
        gc_collect_free(c);
        return NULL;
    }
    size_t m = n ? n : 1;
    c->nnodes = gc_cat_node_list(roster, n, &c->nodes);
    c->pos = calloc(m, sizeof *c->pos);
    c->at = calloc(m, sizeof *c->at);
    c->node_of = calloc(m, sizeof *c->node_of);
    c->s = calloc(m, sizeof *c->s);
    c->briefs = calloc(m, sizeof *c->briefs);
    c->node_pos = calloc(c->nnodes + 1, sizeof *c->node_pos);
    c->node_wrote = calloc(c->nnodes ? c->nnodes : 1, 1);
    c->node_rows = calloc(c->nnodes ? c->nnodes : 1, sizeof *c->node_rows);
    gc_models_pool_init(&c->pool, &c->descs);
    c->links = gc_links_new(roster, n);
    if (c->links)
        gc_links_no_sizes(c->links);   /* the node files have them */
    c->verdicts = gc_verdicts_new();
    c->buf = malloc(GC_JW_BUF);
    if (!c->nodes || !c->pos || !c->at || !c->node_of || !c->s || !c->briefs || !c->links ||
        !c->verdicts || !c->buf || !c->node_pos || !c->node_wrote || !c->node_rows) {
        gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        gc_collect_free(c);
        return NULL;
    }
    /* nodes by name: a sorted copy, searched per rank */
    for (size_t r = 0; r < n; r++) {
        size_t k = 0;
        while (k < c->nnodes && strcmp(c->nodes[k], roster[r].node) != 0)
            k++;
        c->node_of[r] = k;
        c->at[r] = r;
    }
    qsort_r(c->at, n, sizeof *c->at, cmp_pos, c);
    for (size_t p = 0; p < n; p++) {
        c->pos[c->at[p]] = p;
        c->node_pos[c->node_of[c->at[p]] + 1] = p + 1;   /* the catalogue lists a node's GPUs together */
    }
    for (size_t k = 0; k < c->nnodes; k++)
        c->node_rows[k].name = c->nodes[k];
    for (size_t k = 0; k < c->nnodes; k++)
        if (c->node_pos[k + 1] < c->node_pos[k])
            c->node_pos[k + 1] = c->node_pos[k];   /* a node without GPUs */
    if (!(c->spill = gc_tmpfile_in(out_dir, err)) ||
        !(c->rows = gc_cat_links_new(out_dir, c->links, c->verdicts, c->at, n, err)) ||
        open_catalogue(c, err)) {
        gc_collect_free(c);
        return NULL;
    }
    start_workers(c);
    return c;
}

void gc_collect_free(gc_collect *c)
{
    if (!c)
        return;
    stop_workers(c);
    if (c->spill)
        fclose(c->spill);
    if (c->cat_open)
        gc_afile_abort(&c->cat);
    free(c->catbuf);
    free(c->rd);
    gc_cat_links_free(c->rows);
    gc_verdicts_free(c->verdicts);
    gc_links_free(c->links);
    gc_kdesc_set_free(&c->descs);
    free(c->nodes);
    free(c->pos);
    free(c->at);
    free(c->node_of);
    free(c->node_pos);
    free(c->node_wrote);
    free(c->node_rows);
    for (size_t r = 0; c->s && r < c->n; r++)
        free(c->s[r].rec);
    free(c->s);
    free(c->briefs);
    free(c->buf);
    free(c->text);
    free(c);
}

static int spill_write(gc_collect *c, const void *p, size_t len, long long *off, gc_err *err)
{
    *off = c->spill_len;
    if (len && fwrite(p, 1, len, c->spill) != len)
        return gc_fail(err, GC_EIO, "%s: writing the catalogue's temporary file failed", c->out);
    c->spill_len += (long long)len;
    return 0;
}

static int spill_read(gc_collect *c, long long off, size_t len, void *p, gc_err *err)
{
    if (fflush(c->spill) != 0 ||
        (len && pread(fileno(c->spill), p, len, (off_t)off) != (ssize_t)len))
        return gc_fail(err, GC_EIO, "%s: reading the catalogue's temporary file failed", c->out);
    return 0;
}

/* A writer into memory (*t, *tl once closed) through c->buf. */
static FILE *mem_open(gc_collect *c, gc_jw *w, char **t, size_t *tl, gc_err *err)
{
    *t = NULL;
    *tl = 0;
    FILE *mf = open_memstream(t, tl);
    if (!mf)
        gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    else
        gc_jw_init(w, mf, c->buf, 0);
    return mf;
}

static int mem_close(gc_jw *w, FILE *mf, int rc, gc_err *err)
{
    if (!rc)
        rc = gc_jw_finish(w, "catalogue.json", err);
    if (fclose(mf) != 0 && !rc)
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    return rc;
}

/* The GPU's object of catalogue.json, as the writer's pipeline formats it. */
static int gpu_text(gc_collect *c, const gc_analysed *a, size_t *len, gc_err *err)
{
    char *t;
    size_t tl;
    gc_jw w;
    FILE *mf = mem_open(c, &w, &t, &tl, err);
    if (!mf)
        return GC_ENOMEM;
    int rc = mem_close(&w, mf, gc_cat_gpu_json(&w, a, 0, err), err);
    free(c->text);
    c->text = t;
    *len = tl;
    return rc;
}

/* The next GPU object of catalogue.json (s's), and what the end says of it:
 * its node's row, the counts, the models' pool (summed in this order). */
static void put_gpu(gc_collect *c, const slot *s, const char *text, size_t len)
{
    gc_jw_puts(&c->w, c->next ? ",\n" : "\n");
    gc_jw_put(&c->w, text, len);
    gc_cat_node_row *row = &c->node_rows[c->node_of[c->at[c->next]]];
    row->gpus++;
    row->worst = gc_gpu_status_worse(row->worst, s->status);
    c->ok += s->status == GC_GPU_OK;
    c->partial += s->status == GC_GPU_PARTIAL;
    c->failed += s->status == GC_GPU_FAILED;
    c->incomplete += s->status == GC_GPU_INCOMPLETE;
    if (s->models) {
        gc_models m;
        memset(&m, 0, sizeof m);
        m.nrows = (size_t)s->validated;
        memcpy(m.raw, s->raw, sizeof m.raw);
        memcpy(m.cal, s->cal, sizeof m.cal);
        gc_models_pool_add(&c->pool, &m);
    }
    c->next++;
}

/* The GPU objects whose turn has come, from the spill file. */
static int write_ready(gc_collect *c, gc_err *err)
{
    while (c->next < c->n) {
        const slot *s = &c->s[c->at[c->next]];
        if (!s->added)
            return 0;
        if (s->text_len > c->rd_cap) {
            char *t = realloc(c->rd, s->text_len);
            if (!t)
                return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
            c->rd = t;
            c->rd_cap = s->text_len;
        }
        int rc = spill_read(c, s->text_off, s->text_len, c->rd, err);
        if (rc)
            return rc;
        put_gpu(c, s, c->rd, s->text_len);
    }
    return 0;
}


/* A record kept for a node file rank 0 may have to write (its leader lost
 * or failed): in memory while the held records are few, else spilled. */
static int hold_record(gc_collect *c, slot *s, const gc_blob *b, gc_err *err)
{
    s->rec_len = b->len;
    if (c->held + b->len <= c->held_max && (s->rec = malloc(b->len ? b->len : 1))) {
        memcpy(s->rec, b->data, b->len);
        c->held += b->len;
        return 0;
    }
    return spill_write(c, b->data, b->len, &s->rec_off, err);
}

/* Node k's leader wrote its node file: its records are not needed. */
static void drop_records(gc_collect *c, size_t k)
{
    c->node_wrote[k] = 1;
    for (size_t p = c->node_pos[k]; p < c->node_pos[k + 1]; p++) {
        slot *s = &c->s[c->at[p]];
        if (s->rec)
            c->held -= s->rec_len;
        free(s->rec);
        s->rec = NULL;
        s->rec_off = -1;   /* its bytes in the spill file are dead */
    }
}

/* Everything the end needs of one analysed GPU; a->gpu may borrow from the blob. */
static int keep(gc_collect *c, size_t r, const gc_analysed *a, const gc_blob *b, gc_err *err)
{
    slot *s = &c->s[r];
    size_t p = c->pos[r];
    size_t tl = 0;
    int rc = gpu_text(c, a, &tl, err);
    if (rc)
        return rc;
    s->status = a->gpu.status;
    s->npoints = a->gpu.npoints;
    if (!b->data)
        snprintf(s->missing, sizeof s->missing, "%s", b->missing_reason);
    s->models = a->models.present;
    if (s->models) {
        s->validated = a->models.nrows > 0;
        memcpy(s->raw, a->models.raw, sizeof s->raw);
        memcpy(s->cal, a->models.cal, sizeof s->cal);
    }
    s->text_off = -1;
    if (p == c->next)
        put_gpu(c, s, c->text, tl);
    else
        rc = spill_write(c, c->text, tl, &s->text_off, err);
    s->text_len = tl;
    s->rec_off = -1;
    size_t k = c->node_of[r];
    if (a->note.node_file == GC_NODE_FILE_WRITTEN)
        drop_records(c, k);
    if (!rc && !c->node_wrote[k] && b->data && a->gpu.npoints && a->gpu.points[0].has_sum)
        rc = hold_record(c, s, b, err);
    if (rc)
        return rc;
    if (gc_links_add_node(c->links, &a->gpu, 1))
        return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    gc_verdicts_gpu_at(c->verdicts, &a->gpu, a->sums, p);
    gc_cat_links_ready(c->rows);   /* the rows of links whose ends have both come */
    gc_analysed_brief(&a->gpu, &c->briefs[p]);
    s->added = 1;
    return write_ready(c, err);
}

void gc_collect_hold_at_most(gc_collect *c, size_t bytes)
{
    c->held_max = bytes;
}

/* The jobs analysed at the queue's head kept, in the order they came;
 * wait: until the head's is (the queue full) or, all, every job is. */
enum { KEEP_READY, KEEP_ONE, KEEP_ALL };

static int keep_done(gc_collect *c, int wait, gc_err *err)
{
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    while (c->qhead < c->qtail) {
        job *j = &c->q[c->qhead % c->qcap];
        if (j->state != JOB_DONE) {
            if (wait == KEEP_READY)
                break;
            pthread_cond_wait(&c->done, &c->mu);
            continue;
        }
        pthread_mutex_unlock(&c->mu);
        if (j->rc)
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        else {
            rc = keep(c, j->r, &j->a, &j->b, err);
            gc_analysed_free(&j->a);
        }
        free(j->data);
        j->data = NULL;
        j->state = JOB_FREE;
        pthread_mutex_lock(&c->mu);
        c->qhead++;
        if (rc)
            break;
        if (wait == KEEP_ONE)
            wait = KEEP_READY;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int gc_collect_add(gc_collect *c, size_t r, const gc_blob *b, gc_err *err)
{
    if (r >= c->n || c->s[r].added || c->s[r].queued)
        return 0;
    if (!c->nworkers) {
        gc_analysed a;
        if (gc_analyze_gpu(&c->roster[r], b, &c->descs, &a))
            return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        int rc = keep(c, r, &a, b, err);
        gc_analysed_free(&a);
        return rc;
    }
    int rc = 0;
    if (c->qtail - c->qhead == c->qcap && (rc = keep_done(c, KEEP_ONE, err)))
        return rc;
    uint8_t *d = NULL;
    if (b->data && !(d = malloc(b->len ? b->len : 1)))
        return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    if (d)
        memcpy(d, b->data, b->len);
    pthread_mutex_lock(&c->mu);
    job *j = &c->q[c->qtail % c->qcap];
    j->r = r;
    j->b = *b;
    j->b.data = d;
    j->data = d;
    j->rc = 0;
    j->state = JOB_QUEUED;
    c->qtail++;
    c->s[r].queued = 1;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->mu);
    return keep_done(c, KEEP_READY, err);
}

/* A node whose leader wrote no file: rank 0 writes it, each GPU from the
 * shard it can read (a shared file system, its own node), else from its
 * record (histograms null), else the failed GPU's placeholder. */
static int node_file(gc_collect *c, size_t k, gc_blob_fetch shard_fetch, void *ctx, gc_err *err)
{
    size_t first = 0, cnt = 0;
    for (size_t p = 0; p < c->n; p++)
        if (c->node_of[c->at[p]] == k) {
            if (!cnt)
                first = p;
            cnt++;
        }
    gc_analysed *g = calloc(cnt ? cnt : 1, sizeof *g);
    void **owned = calloc(cnt ? cnt : 1, sizeof *owned);
    int rc = g && owned ? 0 : gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    size_t nrec = 0;
    for (size_t i = 0; i < cnt && !rc; i++) {
        size_t r = c->at[first + i];
        const slot *s = &c->s[r];
        gc_blob b = { 0 };
        int done = 0;
        if (shard_fetch) {
            /* the shard: a record's GPU only if it says what the record said */
            shard_fetch(ctx, r, &b, &owned[i]);
            gc_analysed a;
            if (b.data && gc_analyze_gpu(&c->roster[r], &b, &c->descs, &a) == 0) {
                if ((!s->rec && s->rec_off < 0) ||
                    (a.gpu.status == s->status && a.gpu.npoints == s->npoints)) {
                    g[i] = a;
                    done = 1;
                } else {
                    gc_analysed_free(&a);
                }
            }
            if (!done) {
                free(owned[i]);
                owned[i] = NULL;
            }
        }
        if (!done && s->rec) {
            owned[i] = s->rec;   /* handed over: freed with the others below */
            b = (gc_blob){ .data = s->rec, .len = s->rec_len };
            c->held -= s->rec_len;
            c->s[r].rec = NULL;
            nrec++;
        } else if (!done && s->rec_off >= 0) {
            uint8_t *d = malloc(s->rec_len ? s->rec_len : 1);
            if (!d)
                rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
            else if (!(rc = spill_read(c, s->rec_off, s->rec_len, d, err))) {
                owned[i] = d;
                b = (gc_blob){ .data = d, .len = s->rec_len };
                nrec++;
            } else {
                free(d);
            }
        } else if (!done) {
            b = (gc_blob){ 0 };
            snprintf(b.missing_reason, sizeof b.missing_reason, "%s", s->missing);
        }
        if (!rc && !done && gc_analyze_gpu(&c->roster[r], &b, &c->descs, &g[i]))
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    }
    if (!rc)
        rc = gc_cat_write_node_file(c->out, c->run, c->roster, c->n, c->nodes[k], g, cnt, c->buf,
                                    NULL, NULL, err);
    if (!rc)
        fprintf(stderr, "gpucensus: node %s: its leader wrote no node file (lost or failed); "
                        "rank 0 wrote nodes/%s.json%s\n", c->nodes[k], c->nodes[k],
                nrec ? ", histograms null for GPUs whose shard it cannot read (`gpucensus "
                       "merge` on that node's shards has them)" : " from the node's shards");
    for (size_t i = 0; g && owned && i < cnt; i++) {
        gc_analysed_free(&g[i]);
        free(owned[i]);
    }
    free(g);
    free(owned);
    return rc;
}

/* The head as the run ends (its end time), in place of the one written
 * first; a head of another length (a field changed its length since)
 * means a new temporary: the head, then the rest copied. */
static int head_again(gc_collect *c, const char *path, gc_err *err)
{
    char *h;
    size_t hl;
    gc_jw w;
    FILE *mf = mem_open(c, &w, &h, &hl, err);
    if (!mf)
        return GC_ENOMEM;
    doc_head(&w, mf, c->buf, c->run);
    int rc = mem_close(&w, mf, 0, err);
    int fd = fileno(c->cat.f);
    if (!rc && fflush(c->cat.f) != 0)
        rc = gc_fail(err, GC_EIO, "%s: could not be saved: %s", path, strerror(errno));
    if (!rc && (long long)hl == c->head_len) {
        if (pwrite(fd, h, hl, 0) != (ssize_t)hl)
            rc = gc_fail(err, GC_EIO, "%s: could not be saved: %s", path, strerror(errno));
        free(h);
        return rc;
    }
    gc_afile b;
    if (!rc && !(rc = gc_afile_open(&b, path, err))) {
        int e = fwrite(h, 1, hl, b.f) != hl ? (errno ? errno : EIO)
                                            : gc_copy_from_fd(b.f, fd, c->head_len, c->buf, GC_JW_BUF);
        if (e)
            rc = gc_fail(err, GC_EIO, "%s: could not be saved: %s", path, strerror(e));
        if (rc) {
            gc_afile_abort(&b);
        } else {
            gc_afile_abort(&c->cat);
            c->cat = b;
        }
    }
    free(h);
    return rc;
}

int gc_collect_finish(gc_collect *c, gc_blob_fetch shard_fetch, void *ctx,
                      gc_catalogue_stats *stats, gc_err *err)
{
    memset(stats, 0, sizeof *stats);
    int rc = c->nworkers ? keep_done(c, KEEP_ALL, err) : 0;
    stop_workers(c);   /* what is left is kept on this thread */
    for (size_t r = 0; r < c->n && !rc; r++)
        if (!c->s[r].added) {
            gc_blob b = { 0 };
            snprintf(b.missing_reason, sizeof b.missing_reason, "nothing received");
            rc = gc_collect_add(c, r, &b, err);
        }
    /* nodes whose leader wrote no file */
    for (size_t k = 0; k < c->nnodes && !rc; k++)
        if (!c->node_wrote[k])
            rc = node_file(c, k, shard_fetch, ctx, err);
    char path[4200];
    snprintf(path, sizeof path, "%s/catalogue.json", c->out);
    if (!rc)
        rc = write_ready(c, err);   /* every GPU is in now */
    stats->ok = c->ok;
    stats->partial = c->partial;
    stats->incomplete = c->incomplete;
    stats->failed = c->failed;
    stats->gpus = (int)c->n;
    stats->nodes = (int)c->nnodes;
    if (!rc) {
        gc_cat_doc_tail(&c->w, c->node_rows, c->nnodes, c->rows, &c->pool);
        rc = gc_jw_finish(&c->w, path, err);
    }
    if (!rc)
        rc = head_again(c, path, err);
    if (!rc)
        rc = gc_afile_commit(&c->cat, err);
    else
        gc_afile_abort(&c->cat);
    c->cat_open = 0;
    if (!rc) {
        stats->briefs = c->briefs;   /* by position, the catalogue's order */
        c->briefs = NULL;
    }
    return rc;
}

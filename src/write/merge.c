/* Merge shards into a catalogue. The roster (written by rank 0 before any
 * measurement) says which GPUs should have a shard; without one, every
 * *.gcs file in the directory is taken. */
#include "write/merge.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/quote.h"
#include "util/outlock.h"
#include "census/shard.h"

typedef struct merge_in {
    gc_roster_entry *roster;
    size_t n;
    gc_blob *blobs;
    uint8_t **owned;
} merge_in;

static void merge_in_free(merge_in *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->owned ? m->owned[i] : NULL);
    free(m->owned);
    free(m->blobs);
    free(m->roster);
}

static int alloc_in(merge_in *m, size_t n, gc_err *err)
{
    m->n = n;
    m->blobs = calloc(n ? n : 1, sizeof *m->blobs);
    m->owned = calloc(n ? n : 1, sizeof *m->owned);
    if (!m->roster)
        m->roster = calloc(n ? n : 1, sizeof *m->roster);
    if (!m->blobs || !m->owned || !m->roster)
        return gc_fail(err, GC_ENOMEM, "merge: out of memory");
    return 0;
}

/* Rank i's shard file, read now; a file that cannot be read is a missing
 * shard with the reason. */
static void read_shard(const char *dir, const gc_roster_entry *e, gc_blob *b, uint8_t **data)
{
    char path[4200];
    size_t blen;
    gc_err er = { 0 };
    memset(b, 0, sizeof *b);
    *data = NULL;
    gc_shard_path(path, sizeof path, dir, e->node, e->local_index);
    if (gc_read_file_in(path, 1, GC_SHARD_MAX_BYTES + 64, data, &blen, &er) == 0) {
        b->data = *data;
        b->len = blen;
    } else {
        snprintf(b->missing_reason, sizeof b->missing_reason, "no shard (%.140s)", er.msg);
    }
}

/* A shard must belong here before its values join the catalogue: this
 * run (its plan and start time: the roster's, or the first shard's), the GPU the roster (or its file name) says, and finite
 * values (JSON has no NaN: a null would make the catalogue invalid). A
 * shard that does not decode is left to the catalogue, which records the
 * GPU as failed with the reason. */
static int check_shard(const char *path, const gc_run_meta *run, const gc_roster_entry *want,
                       const gc_blob *b, gc_err *err)
{
    gc_run_meta sm;
    gc_gpu g;
    if (!b->data || gc_shard_decode(b->data, b->len, &sm, &g, NULL))
        return 0;
    int rc = 0;
    gc_err why = { 0 };
    if (gc_run_same(&sm, run, &why))
        rc = gc_fail(err, GC_EINVAL, "%s: a shard %s: not merged", path, why.msg);
    else if (want && (strcmp(g.info.node, want->node) || g.info.local_index != want->local_index))
        rc = gc_fail(err, GC_EINVAL, "%s: holds %s/gpu%d, not %s/gpu%d (a copy under another "
                     "name?): not merged", path, g.info.node, g.info.local_index, want->node,
                     want->local_index);
    for (size_t i = 0; !rc && i < g.npoints; i++) {
        const gc_point *pt = &g.points[i];
        int bad = !isfinite(pt->scale) || pt->scale <= 0;
        for (int k = 0; !bad && k < pt->ctx.n; k++)
            bad = !pt->ctx.v[k].is_str && !isfinite(pt->ctx.v[k].num);
        if (bad)
            rc = gc_fail(err, GC_ECORRUPT, "%s: point %zu (%.40s %.60s): a value that is not a "
                         "finite number: not merged", path, i, pt->bench, pt->metric);
    }
    for (size_t i = 0; !rc && i < g.nparams; i++)
        if (!isfinite(g.params[i].value))
            rc = gc_fail(err, GC_ECORRUPT, "%s: parameter %.60s is not a finite number: not merged",
                         path, g.params[i].name);
    gc_gpu_free(&g);
    return rc;
}

typedef struct lazy {
    const char *dir;
    const gc_roster_entry *roster;
} lazy;

static void fetch_lazy(void *ctx, size_t r, gc_blob *b, void **owned)
{
    const lazy *l = ctx;
    uint8_t *data;
    read_shard(l->dir, &l->roster[r], b, &data);
    *owned = data;
}

/* With a roster the shards are not read here: the run's end time is found
 * by reading one shard at a time, and the catalogue reads each again when
 * it gets to its node, so memory does not grow with the number of GPUs. */
static int from_roster(const char *dir, const uint8_t *data, size_t len, merge_in *m,
                       gc_run_meta *run, gc_err *err)
{
    char what[4200];
    snprintf(what, sizeof what, "%s/roster.gcr", dir);
    int rc = gc_roster_decode(data, len, run, &m->roster, &m->n, err);
    if (rc)
        return gc_fail(err, rc, "%s: %s", what, err->msg);
    return alloc_in(m, m->n, err);
}

typedef struct scanned {
    uint8_t *data;
    size_t len;
    gc_roster_entry e;
    char name[256];
} scanned;

static int by_gpu(const void *a, const void *b)
{
    const gc_roster_entry *x = &(*(const scanned *const *)a)->e, *y = &(*(const scanned *const *)b)->e;
    int c = strcmp(x->node, y->node);
    return c ? c : (x->local_index > y->local_index) - (x->local_index < y->local_index);
}

/* Two shards of one rank, or of one GPU (a copy, or another run's): which
 * one is right cannot be told, so neither is taken. */
static int no_duplicates(const char *dir, scanned *v, size_t n, gc_err *err)
{
    for (size_t i = 1; i < n; i++)
        if (v[i].e.rank == v[i - 1].e.rank)
            return gc_fail(err, GC_EINVAL, "%s: %s and %s are both rank %d's shard: not merged",
                           dir, v[i - 1].name, v[i].name, v[i].e.rank);
    scanned **p = malloc((n ? n : 1) * sizeof *p);
    if (!p)
        return gc_fail(err, GC_ENOMEM, "merge: out of memory");
    for (size_t i = 0; i < n; i++)
        p[i] = &v[i];
    qsort(p, n, sizeof *p, by_gpu);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++)
        if (!by_gpu(&p[i], &p[i - 1]))
            rc = gc_fail(err, GC_EINVAL, "%s: %s and %s both hold %s/gpu%d: not merged", dir,
                         p[i - 1]->name, p[i]->name, p[i]->e.node, p[i]->e.local_index);
    free(p);
    return rc;
}

static int by_rank(const void *a, const void *b)
{
    int x = ((const scanned *)a)->e.rank, y = ((const scanned *)b)->e.rank;
    return (x > y) - (x < y);
}

/* No roster: every readable shard, ordered by the rank that wrote it. */
static int from_scan(const char *dir, merge_in *m, gc_run_meta *run, gc_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return gc_fail(err, GC_EIO, "%s: cannot open directory", dir);
    size_t cap = 0, n = 0;
    scanned *v = NULL;
    struct dirent *de;
    int rc = 0, have_first = 0;
    gc_run_meta first;
    while (!rc && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".gcs") != 0)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        scanned s = { 0 };
        gc_gpu g;
        gc_gpu_init(&g);
        gc_err e = { 0 };
        if (gc_read_file_in(path, 1, GC_SHARD_MAX_BYTES + 64, &s.data, &s.len, &e) ||
            gc_shard_decode(s.data, s.len, run, &g, &e)) {
            fprintf(stderr, "gpucensus: merge: skipping %s: %s\n", gc_esc(path), e.msg);
            gc_gpu_free(&g);   /* what a decode that failed half-way holds */
            free(s.data);
            continue;
        }
        s.e.rank = g.info.rank;
        s.e.local_index = g.info.local_index;
        snprintf(s.e.node, sizeof s.e.node, "%s", g.info.node);
        snprintf(s.name, sizeof s.name, "%s", de->d_name);
        gc_gpu_free(&g);
        if (!have_first++)
            first = *run;
        gc_blob b = { .data = s.data, .len = s.len };
        if ((rc = check_shard(path, &first, NULL, &b, err))) {
            free(s.data);
            break;
        }
        if (n == cap) {
            scanned *p = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!p) {
                free(s.data);
                rc = gc_fail(err, GC_ENOMEM, "merge: out of memory");
                break;
            }
            v = p;
        }
        v[n++] = s;
    }
    closedir(d);
    if (!rc && n == 0)
        rc = gc_fail(err, GC_EINVAL, "%s: no roster.gcr and no readable shard (*.gcs)", dir);
    if (!rc)
        rc = alloc_in(m, n, err);
    if (!rc)
        qsort(v, n, sizeof *v, by_rank);
    if (!rc)
        rc = no_duplicates(dir, v, n, err);
    for (size_t i = 0; i < n; i++) {
        if (rc) {
            free(v[i].data);
            continue;
        }
        m->roster[i] = v[i].e;
        m->owned[i] = v[i].data;
        m->blobs[i].data = v[i].data;
        m->blobs[i].len = v[i].len;
    }
    free(v);
    return rc;
}

int gc_merge(const char *shards_dir, const char *out_dir, gc_run_meta *run,
             gc_catalogue_stats *stats, gc_err *err)
{
    merge_in m = { 0 };
    char path[4200];
    snprintf(path, sizeof path, "%s/roster.gcr", shards_dir);
    uint8_t *data;
    size_t len;
    gc_err e = { 0 };
    int rc;
    int lazily = 0;
    /* one writer per OUT: not while a run (or another merge) writes there */
    if ((rc = gc_mkdir_p(out_dir, err)) || (rc = gc_out_lock(out_dir, err)))
        return rc;
    gc_sweep_out_tmp(out_dir);
    if (gc_read_file_in(path, 1, 64u << 20, &data, &len, &e) == 0) {
        rc = from_roster(shards_dir, data, len, &m, run, err);
        lazily = 1;
        free(data);
    } else {
        rc = from_scan(shards_dir, &m, run, err);
    }
    if (rc) {
        merge_in_free(&m);
        return rc;
    }
    /* The run ended when its last shard was written. */
    run->end_time[0] = '\0';
    for (size_t i = 0; i < m.n; i++) {
        gc_run_meta sm;
        gc_blob b = m.blobs[i];
        uint8_t *owned = NULL;
        if (lazily) {
            read_shard(shards_dir, &m.roster[i], &b, &owned);
            gc_shard_path(path, sizeof path, shards_dir, m.roster[i].node, m.roster[i].local_index);
            if ((rc = check_shard(path, run, &m.roster[i], &b, err))) {
                free(owned);
                merge_in_free(&m);
                return rc;
            }
        }
        if (b.data && gc_shard_decode_meta(b.data, b.len, &sm, NULL) == 0 &&
            strcmp(sm.end_time, run->end_time) > 0)
            snprintf(run->end_time, sizeof run->end_time, "%s", sm.end_time);
        free(owned);
    }
    if (lazily) {
        lazy l = { shards_dir, m.roster };
        rc = gc_catalogue_write_fetch(out_dir, run, m.roster, m.n, fetch_lazy, &l, stats, err);
    } else {
        rc = gc_catalogue_write(out_dir, run, m.roster, m.n, m.blobs, stats, err);
    }
    merge_in_free(&m);
    return rc;
}

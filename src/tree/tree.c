/* The aggregation tree's node level. See tree.h. */
#include "tree/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "write/catalogue.h"
#include "util/fsutil.h"
#include "util/timeutil.h"

void gc_tree_read_shard(const char *out, const gc_run_meta *run, const gc_roster_entry *e,
                        gc_blob *b, void **owned)
{
    char dir[4200], path[4400];
    size_t len = 0;
    uint8_t *data = NULL;
    gc_err err = { 0 };
    memset(b, 0, sizeof *b);
    *owned = NULL;
    snprintf(dir, sizeof dir, "%s/shards", out);
    if (gc_shard_path(path, sizeof path, dir, e->node, e->local_index) == 0 &&
        gc_read_file_in(path, 2, GC_SHARD_MAX_BYTES + 64, &data, &len, &err) == 0) {
        /* a rank that died before its first shard of this run leaves an
         * earlier run's there (--force, --resume): not this run's results */
        gc_run_meta sm;
        gc_err why = { 0 };
        if (run && gc_shard_decode_meta(data, len, &sm, NULL) == 0 && gc_run_same(&sm, run, &why)) {
            snprintf(b->missing_reason, sizeof b->missing_reason, "%.50s: a shard %.90s",
                     path, why.msg);
            free(data);
            return;
        }
        b->data = data;
        b->len = len;
        *owned = data;
    } else {
        snprintf(b->missing_reason, sizeof b->missing_reason, "no shard of rank %d here: %.100s",
                 e->rank, err.msg[0] ? err.msg : path);
    }
}

typedef struct leader_ctx {
    const char *out;
    const gc_run_meta *run;
    const gc_roster_entry *roster;
    gc_watch *w;
} leader_ctx;

static void leader_fetch(void *ctx, size_t r, gc_blob *b, void **owned)
{
    const leader_ctx *c = ctx;
    gc_watch_busy(c->w);   /* a GPU at a time: rank 0 hears from this rank meanwhile */
    gc_tree_read_shard(c->out, c->run, &c->roster[r], b, owned);
}

/* The node file is put in place only while rank 0 has not judged this
 * leader lost: from then on rank 0 writes it. Told in the instant after
 * this, the leader still never replaces rank 0's file: it is placed by
 * link(2), never over another file of this run (gc_node_place). */
static int leader_keep(void *ctx)
{
    const leader_ctx *c = ctx;
    gc_watch_busy(c->w);
    return !gc_watch_lost_self(c->w);
}

/* After the run was abandoned the node's ranks may still be finishing an
 * item: wait a little for their last shards, never for a hung one, telling
 * rank 0 meanwhile that this rank is alive (silent here, a leader was
 * judged lost with --gather-timeout under 5 s: tests/slurm/t_slurm.sh). */
static void wait_bounded(gc_watch *w, MPI_Request *rq, double limit_s)
{
    double until = gc_now_s() + limit_s;
    int flag = 0;
    while (!flag && gc_now_s() < until && !gc_watch_lost_self(w)) {
        if (MPI_Test(rq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return;
        gc_watch_busy(w);
        if (!flag) {
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
    }
    /* An unfinished nonblocking collective may not be freed: it stays
     * pending until the job ends. */
}

void gc_tree_node_prior(const char *out, const gc_cluster *cl, gc_file_id *prior)
{
    char path[4400];
    memset(prior, 0, sizeof *prior);
    if (cl->local_rank == 0 &&
        snprintf(path, sizeof path, "%s/nodes/%s.json", out, cl->node_name) < (int)sizeof path)
        gc_file_id_of(path, prior);
}

void gc_tree_node_file(const char *out, const gc_run_meta *run, const gc_cluster *cl,
                       gc_watch *w, const gc_file_id *prior, int *abandoned, gc_record_note *note)
{
    memset(note, 0, sizeof *note);
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc = MPI_Ibarrier(cl->node, &rq);
    if (cl->local_rank != 0) {
        /* Others need not wait for their node: the leader reads their
         * shards from disk. The barrier completes with the leader's. */
        if (rc == MPI_SUCCESS && !*abandoned && gc_watch_wait(w, rc, &rq, "the node's barrier"))
            *abandoned = 1;
        return;
    }
    /* A failed barrier (an MPI error, told to rank 0 by the watch): the
     * node file is written from the shards as they are. */
    if (rc == MPI_SUCCESS && !gc_watch_lost_self(w) &&
        (*abandoned || gc_watch_wait(w, rc, &rq, "the node's barrier"))) {
        *abandoned = 1;
        wait_bounded(w, &rq, GC_TREE_ABANDON_WAIT_S);
    }
    leader_ctx c = { out, run, cl->roster, w };
    gc_node_place place = { leader_keep, *prior };
    gc_err e = { 0 };
    int wrc = gc_watch_lost_self(w) ? GC_EINVAL
                                    : gc_catalogue_write_node(out, run, cl->roster, (size_t)cl->size,
                                                              cl->node_name, leader_fetch, &c,
                                                              &place, &e);
    if (wrc == 0) {
        note->node_file = GC_NODE_FILE_WRITTEN;
    } else if (wrc == GC_EEXIST) {
        /* Rank 0's, written once it judged this leader lost and ended its
         * gather (told too late to be seen before the placement): this
         * record is not taken. Should it be (a file of someone else's),
         * rank 0 writes the node's file as for a failed leader. */
        note->node_file = GC_NODE_FILE_FAILED;
        snprintf(note->msg, sizeof note->msg, "%.190s", e.msg);
        fprintf(stderr, "gpucensus: rank %d: node file of %s not placed: %s (rank 0's, written "
                        "once it judged this rank lost)\n", cl->rank, cl->node_name, e.msg);
    } else if (gc_watch_lost_self(w)) {
        /* rank 0 writes this node's file itself (its leader is lost to it) */
        *abandoned = 1;
        fprintf(stderr, "gpucensus: rank %d: rank 0 judged it lost: the node file of %s is left "
                        "to rank 0\n", cl->rank, cl->node_name);
    } else {
        note->node_file = GC_NODE_FILE_FAILED;
        snprintf(note->msg, sizeof note->msg, "%.190s", e.msg);
        fprintf(stderr, "gpucensus: rank %d: node file of %s not written: %s (rank 0 writes it "
                        "from what it can read)\n", cl->rank, cl->node_name, e.msg);
    }
}

typedef struct tree_src {
    const char *out;
    const gc_run_meta *run;
    const gc_roster_entry *roster;
} tree_src;

static void tree_shard_fetch(void *ctx, size_t r, gc_blob *b, void **owned)
{
    const tree_src *t = ctx;
    gc_tree_read_shard(t->out, t->run, &t->roster[r], b, owned);
}

int gc_tree_catalogue(const char *out, const gc_run_meta *run, const gc_roster_entry *roster, gc_collect *c,
                      gc_catalogue_stats *stats, gc_err *err)
{
    tree_src ts = { out, run, roster };
    return gc_collect_finish(c, tree_shard_fetch, &ts, stats, err);
}

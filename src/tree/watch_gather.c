/* The gather with a deadline: every rank's record to rank 0, which hands
 * each to the caller as it arrives and gives up on a rank it no longer
 * hears from. See watch.h. */
#include "tree/watch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"

static int send_blob(gc_watch *w, const void *data, size_t len, gc_err *err)
{
    long long n = (long long)len;
    MPI_Request rq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int rc = MPI_Isend(&n, 1, MPI_LONG_LONG, 0, TAG_LEN, w->comm, &rq[0]);
    if (!rc && len)
        rc = MPI_Isend(data, (int)len, MPI_BYTE, 0, TAG_DATA, w->comm, &rq[1]);
    /* Rank 0 may have given up on this rank (judged lost while it was
     * slow, not dead) and never take the bytes: its release ends the wait
     * (a blocking wait here outlived rank 0's MPI_Abort in recovery mode). */
    unsigned spins = 0;
    for (int done = 0; !rc && !done;) {
        rc = MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE);
        if (!rc && !done && wt_release_seen(w))
            return gc_fail(err, GC_EIO, "gather: rank 0 ended the run before it took this rank's "
                           "%zu bytes (it judged this rank lost)", len);
        if (!rc && !done)
            wt_nap(&spins);
    }
    if (rc) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int sl = 0;
        MPI_Error_string(rc, s, &sl);
        return gc_fail(err, GC_EIO, "gather: sending %zu bytes to rank 0: MPI error: %s", len, s);
    }
    return 0;
}

#define GATHER_WINDOW 16   /* records being received at once */

/* Rank 0's gather: what it holds of each rank's record. */
typedef struct gather {
    gc_watch *w;
    gc_gather_fn on_blob;
    void *ctx;
    uint8_t **blobs;   /* a rank's bytes while they arrive; handed to on_blob once they have */
    size_t *lens;
    MPI_Request *dreq;
    /* ranks whose length came, in order, waiting for their receive to be
     * posted: at most GATHER_WINDOW at once, so that rank 0 holds a bounded
     * number of records while it analyses one (collect.c) */
    int *queue;
    size_t qh, qt, inflight;
    /* Waiting for a rank's bytes is judged on rank 0's waiting time: the
     * time since its receive was posted less the time spent in on_blob
     * (analysing records, seconds at times), while which nothing moves. */
    double held_s, *from;
} gather;

/* Rank r's length came: it is delivered (taken, lost or not: a rank
 * judged lost that speaks was only slow), its bytes queued. */
static void take_length(gather *g, int r, long long n)
{
    gc_watch *w = g->w;
    size_t bl = n > 0 ? (size_t)n : 0;
    if (w->lost[r])
        fprintf(stderr, "gpucensus: rank %d: its record came after all (judged lost, it was only "
                        "slow): taken\n", r);
    g->lens[r] = bl;
    w->heard[r] = gc_now_s();
    w->budget_of[r] = 0;
    w->lost[r] = 0;
    w->delivered[r] = 1;
    if (bl)
        g->queue[g->qt++] = r;
    else
        g->on_blob(g->ctx, r, NULL, 0);
}

/* The gather would end: a rank judged lost whose length has come all the
 * same (only slow, it sent its record once told) is taken, as it would
 * have been a moment earlier, so its GPU has its own record, not only
 * what its shard holds. Only what has come: no lost rank is waited for.
 * Returns the rank, or -1. */
static int late_length(gather *g)
{
    gc_watch *w = g->w;
    for (int r = 1; r < w->size; r++) {
        int flag = 0;
        long long n = 0;
        MPI_Message m;
        if (!w->lost[r] || w->delivered[r] ||
            MPI_Improbe(r, TAG_LEN, w->comm, &flag, &m, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag ||
            MPI_Mrecv(&n, 1, MPI_LONG_LONG, &m, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            continue;
        take_length(g, r, n);
        return r;
    }
    return -1;
}

static void gather_free(gather *g)
{
    free(g->dreq);
    free(g->blobs);
    free(g->lens);
    free(g->queue);
    free(g->from);
}

int gc_watch_gather(gc_watch *w, const void *data, size_t len, gc_gather_fn on_blob, void *ctx,
                    int **lost, gc_err *err)
{
    if (len > (size_t)0x7fffffff)
        return gc_fail(err, GC_EINVAL, "gather: %zu bytes is over 2 GiB", len), -1;
    if (w->rank != 0)
        return send_blob(w, data, len, err) ? -1 : 0;
    size_t n = (size_t)w->size;
    gather g = { .w = w, .on_blob = on_blob, .ctx = ctx };
    g.blobs = calloc(n, sizeof *g.blobs);
    g.lens = calloc(n, sizeof *g.lens);
    g.dreq = calloc(n, sizeof *g.dreq);
    g.queue = calloc(n, sizeof *g.queue);
    g.from = calloc(n, sizeof *g.from);
    *lost = calloc(n, sizeof **lost);
    if (!g.blobs || !g.lens || !*lost || !g.dreq || !g.queue || !g.from) {
        gather_free(&g);
        return gc_fail(err, GC_ENOMEM, "gather: out of memory"), -1;
    }
    for (size_t r = 0; r < n; r++)
        g.dreq[r] = MPI_REQUEST_NULL;
    uint8_t *own = NULL;
    if (len) {
        own = malloc(len);
        if (!own) {
            gather_free(&g);
            return gc_fail(err, GC_ENOMEM, "gather: out of memory"), -1;
        }
        memcpy(own, data, len);
    }
    w->delivered[0] = 1;
    on_blob(ctx, 0, own, len);
    long long hdr = 0;
    MPI_Request hreq = MPI_REQUEST_NULL;
    unsigned spins = 0;
    for (;;) {
        /* Ranks still to hear from: neither lost nor fully received. */
        int waiting = 0, headers = 0;
        for (int r = 1; r < w->size; r++) {
            waiting += !w->lost[r] && (!w->delivered[r] || g.dreq[r] != MPI_REQUEST_NULL);
            headers += !w->lost[r] && !w->delivered[r];
        }
        waiting += g.qh < g.qt;
        if (!headers && hreq != MPI_REQUEST_NULL) {
            /* Nobody else will send a header: drop the open receive. One
             * that came first (a lost rank's) is taken. */
            MPI_Status st;
            int cancelled = 1;
            MPI_Cancel(&hreq);
            MPI_Wait(&hreq, &st);
            MPI_Test_cancelled(&st, &cancelled);
            hreq = MPI_REQUEST_NULL;
            if (!cancelled && st.MPI_SOURCE > 0 && st.MPI_SOURCE < w->size &&
                !w->delivered[st.MPI_SOURCE]) {
                take_length(&g, st.MPI_SOURCE, hdr);
                continue;
            }
        }
        if (!waiting && late_length(&g) < 0)
            break;
        int busy = 0;
        /* Every length that has come, at once: a rank whose length came is
         * delivered, never judged lost for the time its record waits while
         * rank 0 analyses the ones before it; only for its bytes not
         * coming while rank 0 waits for them (below). */
        while (headers > 0) {
            if (hreq == MPI_REQUEST_NULL)
                MPI_Irecv(&hdr, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, TAG_LEN, w->comm, &hreq);
            int flag = 0;
            MPI_Status st;
            if (MPI_Test(&hreq, &flag, &st) != MPI_SUCCESS) {
                /* posted again next round; silent ranks are judged lost meanwhile */
                MPI_Request_free(&hreq);
                hreq = MPI_REQUEST_NULL;
                break;
            }
            if (!flag)
                break;
            int r = st.MPI_SOURCE;
            hreq = MPI_REQUEST_NULL;
            busy = 1;
            if (r > 0 && r < w->size && !w->delivered[r]) {
                headers -= !w->lost[r];   /* a lost one was not counted: it spoke after all */
                take_length(&g, r, hdr);
            }
        }
        /* Judged now, right after every length that has come was taken:
         * judged after the records below (rank 0 analyses them, seconds
         * at times), a rank whose length came meanwhile read as silent
         * since its last word, was judged lost and the run abandoned for
         * everyone (tests/mpi/t_watch.sh) */
        wt_root_poll(w);
        while (g.qh < g.qt && g.inflight < GATHER_WINDOW) {
            int r = g.queue[g.qh++];
            g.blobs[r] = malloc(g.lens[r]);
            if (!g.blobs[r]) {
                /* The sender waits for us: nothing sane is left. */
                fprintf(stderr, "gpucensus: gather: no memory for rank %d's %zu bytes\n", r,
                        g.lens[r]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Irecv(g.blobs[r], (int)g.lens[r], MPI_BYTE, r, TAG_DATA, w->comm, &g.dreq[r]);
            g.from[r] = gc_now_s() - g.held_s;
            g.inflight++;
        }
        for (int r = 1; r < w->size; r++) {
            if (g.dreq[r] == MPI_REQUEST_NULL)
                continue;
            int f = 0, rc = MPI_Test(&g.dreq[r], &f, MPI_STATUS_IGNORE);
            double waited_s = gc_now_s() - g.held_s - g.from[r];
            char why[MPI_MAX_ERROR_STRING + 96] = "";
            if (rc != MPI_SUCCESS) {
                char s[MPI_MAX_ERROR_STRING] = "";
                int sl = 0;
                MPI_Error_string(rc, s, &sl);
                snprintf(why, sizeof why, "an MPI error receiving its results: %s", s);
                free(g.blobs[r]);
                g.dreq[r] = MPI_REQUEST_NULL;
            } else if (f) {
                /* arrived: analysed now, while others still send */
                double t = gc_now_s();
                on_blob(ctx, r, g.blobs[r], g.lens[r]);
                g.held_s += gc_now_s() - t;
                g.blobs[r] = NULL;
                g.inflight--;
            } else if (waited_s > wt_lost_after(w)) {
                /* Its length came, its bytes did not: it died or hung
                 * between the two sends (a blocking wait here hung the
                 * job). A receive already matched cannot be cancelled and
                 * may still fill its buffer, so the buffer is left, never
                 * freed: a few records at most, and the job ends soon. */
                snprintf(why, sizeof why, "its length came, then not its %zu bytes in %.0f s",
                         g.lens[r], waited_s);
                MPI_Cancel(&g.dreq[r]);
                MPI_Request_free(&g.dreq[r]);
            }
            if (why[0]) {
                g.blobs[r] = NULL;
                g.lens[r] = 0;
                g.inflight--;
                wt_judge_lost(w, r, why);
                f = 1;
            }
            busy |= f;
        }
        if (!busy)
            wt_nap(&spins);
        else
            spins = 0;
    }
    int nlost = 0;
    for (int r = 1; r < w->size; r++) {
        (*lost)[r] = w->lost[r];
        nlost += w->lost[r];
    }
    if (w->mode != GC_PROGRESS_OFF && !w->printed_end)
        wt_print_progress(w, gc_now_s());
    gather_free(&g);
    return nlost;
}

/* The gather with a deadline: every rank's record to rank 0, which hands
 * each to the caller as it arrives and gives up on a rank it no longer
 * hears from. See watch.h. */
#include "watch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

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

int gc_watch_gather(gc_watch *w, const void *data, size_t len, gc_gather_fn on_blob, void *ctx,
                    int **lost, gc_err *err)
{
    if (len > (size_t)0x7fffffff)
        return gc_fail(err, GC_EINVAL, "gather: %zu bytes is over 2 GiB", len), -1;
    if (w->rank != 0)
        return send_blob(w, data, len, err) ? -1 : 0;
    size_t n = (size_t)w->size;
    /* a rank's bytes while they arrive; handed to on_blob once they have */
    uint8_t **blobs = calloc(n, sizeof *blobs);
    size_t *lens = calloc(n, sizeof *lens);
    *lost = calloc(n, sizeof **lost);
    MPI_Request *dreq = calloc(n, sizeof *dreq);
    /* ranks whose length came, in order, waiting for their receive to be
     * posted: at most GATHER_WINDOW at once, so that rank 0 holds a bounded
     * number of records while it analyses one (collect.c) */
    int *queue = calloc(n, sizeof *queue);
    size_t qh = 0, qt = 0, inflight = 0;
    /* Waiting for a rank's bytes is judged on rank 0's waiting time: the
     * time since its receive was posted less the time spent in on_blob
     * (analysing records, seconds at times), while which nothing moves. */
    double held_s = 0, *from = calloc(n, sizeof *from);
    if (!blobs || !lens || !*lost || !dreq || !queue || !from) {
        free(dreq), free(blobs), free(lens), free(queue), free(from);
        return gc_fail(err, GC_ENOMEM, "gather: out of memory"), -1;
    }
    for (size_t r = 0; r < n; r++)
        dreq[r] = MPI_REQUEST_NULL;
    uint8_t *own = NULL;
    if (len) {
        own = malloc(len);
        if (!own) {
            free(dreq), free(blobs), free(lens), free(queue), free(from);
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
            waiting += !w->lost[r] && (!w->delivered[r] || dreq[r] != MPI_REQUEST_NULL);
            headers += !w->lost[r] && !w->delivered[r];
        }
        waiting += qh < qt;
        if (!headers && hreq != MPI_REQUEST_NULL) {
            /* Nobody else will send a header: drop the open receive. */
            MPI_Cancel(&hreq);
            MPI_Wait(&hreq, MPI_STATUS_IGNORE);
            hreq = MPI_REQUEST_NULL;
        }
        if (!waiting)
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
                size_t bl = hdr > 0 ? (size_t)hdr : 0;
                lens[r] = bl;
                w->heard[r] = gc_now_s();
                w->budget_of[r] = 0;
                if (w->lost[r])
                    headers++;   /* not counted above: it spoke after all */
                w->lost[r] = 0;   /* take what it sends */
                w->delivered[r] = 1;
                headers--;
                if (bl)
                    queue[qt++] = r;
                else
                    on_blob(ctx, r, NULL, 0);
            }
        }
        /* Judged now, right after every length that has come was taken:
         * judged after the records below (rank 0 analyses them, seconds
         * at times), a rank whose length came meanwhile read as silent
         * since its last word, was judged lost and the run abandoned for
         * everyone (tests/mpi/t_watch.sh) */
        wt_root_poll(w);
        while (qh < qt && inflight < GATHER_WINDOW) {
            int r = queue[qh++];
            blobs[r] = malloc(lens[r]);
            if (!blobs[r]) {
                /* The sender waits for us: nothing sane is left. */
                fprintf(stderr, "gpucensus: gather: no memory for rank %d's %zu bytes\n", r, lens[r]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Irecv(blobs[r], (int)lens[r], MPI_BYTE, r, TAG_DATA, w->comm, &dreq[r]);
            from[r] = gc_now_s() - held_s;
            inflight++;
        }
        for (int r = 1; r < w->size; r++) {
            if (dreq[r] == MPI_REQUEST_NULL)
                continue;
            int f = 0, rc = MPI_Test(&dreq[r], &f, MPI_STATUS_IGNORE);
            double waited_s = gc_now_s() - held_s - from[r];
            char why[MPI_MAX_ERROR_STRING + 96] = "";
            if (rc != MPI_SUCCESS) {
                char s[MPI_MAX_ERROR_STRING] = "";
                int sl = 0;
                MPI_Error_string(rc, s, &sl);
                snprintf(why, sizeof why, "an MPI error receiving its results: %s", s);
                free(blobs[r]);
                dreq[r] = MPI_REQUEST_NULL;
            } else if (f) {
                /* arrived: analysed now, while others still send */
                double t = gc_now_s();
                on_blob(ctx, r, blobs[r], lens[r]);
                held_s += gc_now_s() - t;
                blobs[r] = NULL;
                inflight--;
            } else if (waited_s > wt_lost_after(w)) {
                /* Its length came, its bytes did not: it died or hung
                 * between the two sends (a blocking wait here hung the
                 * job). A receive already matched cannot be cancelled and
                 * may still fill its buffer, so the buffer is left, never
                 * freed: a few records at most, and the job ends soon. */
                snprintf(why, sizeof why, "its length came, then not its %zu bytes in %.0f s",
                         lens[r], waited_s);
                MPI_Cancel(&dreq[r]);
                MPI_Request_free(&dreq[r]);
            }
            if (why[0]) {
                blobs[r] = NULL;
                lens[r] = 0;
                inflight--;
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
    free(dreq);
    free(blobs);
    free(lens);
    free(queue);
    free(from);
    return nlost;
}


/* Progress, liveness and the end of the job. See watch.h; the gather is
 * in watch_gather.c. */
#include "tree/watch_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>

#include "util/stop.h"
#include "util/timeutil.h"

void wt_nap(unsigned *spins)
{
    /* Spin briefly (barriers that are about to complete), then sleep so
     * waiting ranks leave the CPU to the ones measuring. */
    if (++*spins < 200)
        return;
    struct timespec ts = { 0, *spins < 2000 ? 50000 : 500000 };
    nanosleep(&ts, NULL);
}

int gc_watch_open(gc_watch **out, MPI_Comm world, gc_progress_mode mode, double lost_after_s,
                  uint32_t total, double first_budget_s, gc_err *err)
{
    gc_watch *w = calloc(1, sizeof *w);
    if (!w)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    int rc = MPI_Comm_dup(world, &w->comm);
    if (rc) {
        free(w);
        char s[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(rc, s, &len);
        return gc_fail(err, GC_EIO, "MPI error in MPI_Comm_dup: %s", s);
    }
    MPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    w->mode = mode;
    w->lost_after_s = lost_after_s;
    w->t0 = w->last_sent = gc_now_s();
    w->total = total;
    w->budget_s = first_budget_s;
    for (int i = 0; i < NSLOTS; i++)
        w->slot_req[i] = MPI_REQUEST_NULL;
    w->abandon_req = w->prog_req = w->stop_req = w->release_req = w->lost_req = MPI_REQUEST_NULL;
    if (w->rank == 0) {
        size_t n = (size_t)w->size;
        w->done_of = calloc(n, sizeof *w->done_of);
        w->total_of = calloc(n, sizeof *w->total_of);
        w->budget_of = calloc(n, sizeof *w->budget_of);
        w->heard = calloc(n, sizeof *w->heard);
        w->lost = calloc(n, sizeof *w->lost);
        w->delivered = calloc(n, sizeof *w->delivered);
        w->abandon_out = calloc(n, sizeof *w->abandon_out);
        w->lost_out = calloc(n, sizeof *w->lost_out);
        if (!w->done_of || !w->total_of || !w->budget_of || !w->heard || !w->lost || !w->delivered ||
            !w->abandon_out || !w->lost_out) {
            gc_watch_close(w);
            return gc_fail(err, GC_ENOMEM, "out of memory");
        }
        for (int r = 0; r < w->size; r++) {
            w->total_of[r] = GC_WATCH_UNKNOWN;
            w->heard[r] = w->t0;
            w->budget_of[r] = first_budget_s;
            w->abandon_out[r] = w->lost_out[r] = MPI_REQUEST_NULL;
        }
        w->last_print = w->t0;
        MPI_Irecv(w->prog_buf, 3, MPI_INT32_T, MPI_ANY_SOURCE, TAG_PROGRESS, w->comm, &w->prog_req);
        MPI_Irecv(&w->stop_msg, 1, MPI_INT32_T, MPI_ANY_SOURCE, TAG_STOP, w->comm, &w->stop_req);
    } else {
        MPI_Irecv(&w->abandon_buf, 1, MPI_INT32_T, 0, TAG_ABANDON, w->comm, &w->abandon_req);
        MPI_Irecv(&w->lost_buf, 1, MPI_INT32_T, 0, TAG_LOST, w->comm, &w->lost_req);
    }
    *out = w;
    return 0;
}

static void send_progress(gc_watch *w)
{
    w->last_sent = gc_now_s();
    for (int i = 0; i < NSLOTS; i++) {
        int done = 1;
        if (w->slot_req[i] != MPI_REQUEST_NULL)
            MPI_Test(&w->slot_req[i], &done, MPI_STATUS_IGNORE);
        if (!done)
            continue;
        w->slot_buf[i][0] = (int32_t)w->done;
        w->slot_buf[i][1] = (int32_t)w->total;   /* GC_WATCH_UNKNOWN: -1 */
        w->slot_buf[i][2] = (int32_t)(w->budget_s * 1000 > 2e9 ? 2e9 : w->budget_s * 1000);
        w->sent_budget_s = w->budget_s;
        MPI_Isend(w->slot_buf[i], 3, MPI_INT32_T, 0, TAG_PROGRESS, w->comm, &w->slot_req[i]);
        return;
    }
    /* All slots busy: rank 0 is behind; this report can be skipped. */
}

static double budget_eta(const gc_watch *w, double now);

void wt_print_progress(gc_watch *w, double now)
{
    uint64_t done = 0;
    int ranks_done = 0, lost = 0;
    /* Totals as the ranks told them (a rank lost before it knew its plan
     * counts for nothing). */
    w->all_total = 0;
    int unknown = 0;
    for (int r = 0; r < w->size; r++) {
        if (w->total_of[r] == GC_WATCH_UNKNOWN)
            unknown++;
        else
            w->all_total += w->total_of[r];
    }
    for (int r = 0; r < w->size; r++) {
        done += w->done_of[r];
        lost += w->lost[r];
        ranks_done += w->delivered[r];
    }
    double el = now - w->t0;
    double eta = budget_eta(w, now);
    if (eta < 0)
        eta = done && done < w->all_total ? el * (double)(w->all_total - done) / (double)done
                                          : done >= w->all_total ? 0 : -1;
    char etas[32] = "null";
    if (eta >= 0)
        snprintf(etas, sizeof etas, "%.1f", eta);
    if (w->mode == GC_PROGRESS_JSON) {
        /* what rank 0's node took per phase, against the budget done */
        char phases[512] = "";
        size_t at = 0;
        for (int p = 0; p < GC_NPHASES && at < sizeof phases; p++)
            if (w->eta.budget_done_s[p] > 0)
                at += (size_t)snprintf(phases + at, sizeof phases - at,
                                       "%s\"%s\": {\"budget_done_s\": %.2f, \"took_s\": %.2f}",
                                       at ? ", " : "", gc_phase_name((gc_phase)p),
                                       w->eta.budget_done_s[p], w->eta.took_s[p]);
        if (at >= sizeof phases)
            phases[0] = '\0';
        fprintf(stderr,
                "{\"progress\": {\"done\": %llu, \"total\": %llu, \"ranks\": %d, "
                "\"ranks_finished\": %d, \"ranks_lost\": %d, \"elapsed_s\": %.1f, "
                "\"eta_s\": %s, \"phases\": {%s}}}\n",
                (unsigned long long)done, (unsigned long long)w->all_total, w->size, ranks_done,
                lost, el, etas, phases);
    }
    else if (w->mode == GC_PROGRESS_TEXT)
        fprintf(stderr, "gpucensus: %llu/%llu items (%.0f%%), %d/%d ranks finished%s, %.0f s "
                        "elapsed, %s%s%s left\n",
                (unsigned long long)done, (unsigned long long)w->all_total,
                w->all_total ? 100.0 * (double)done / (double)w->all_total : 100.0, ranks_done,
                w->size, lost ? ", some lost" : "", el, eta >= 0 ? "about " : "",
                eta >= 0 ? etas : "?", eta >= 0 ? " s" : "");
    fflush(stderr);
    w->last_print = now;
    if (!unknown && done >= w->all_total)
        w->printed_end = 1;
}

double wt_lost_after(const gc_watch *w)
{
    return w->why == WHY_STOP ? fmin(w->lost_after_s, STOP_LOST_AFTER_S) : w->lost_after_s;
}

/* Rank 0 tells every rank it still waits for to stop and send. */
static void start_abandon(gc_watch *w, int why, const char *reason)
{
    if (w->abandon)
        return;
    w->abandon = 1;
    w->why = why;
    snprintf(w->reason, sizeof w->reason, "%s", reason);
    w->abandon_msg = why;
    for (int r = 1; r < w->size; r++)
        if (!w->lost[r] && !w->delivered[r])
            MPI_Isend(&w->abandon_msg, 1, MPI_INT32_T, r, TAG_ABANDON, w->comm, &w->abandon_out[r]);
}

void wt_judge_lost(gc_watch *w, int r, const char *why)
{
    w->lost[r] = 1;
    w->delivered[r] = 0;
    fprintf(stderr, "gpucensus: rank %d: %s: lost, hung or dead; it is told to stop, the others "
                    "stop and send what they have\n", r, why);
    /* A rank only slow (a loaded machine) reads this at its next word and
     * stops: it saves its shard, writes no node file (rank 0 writes that),
     * sends its record (taken if rank 0 still gathers) and leaves when
     * rank 0 releases it. A hung or dead one never reads it. */
    if (w->lost_out[r] == MPI_REQUEST_NULL) {
        w->lost_msg = WHY_SELF;
        MPI_Isend(&w->lost_msg, 1, MPI_INT32_T, r, TAG_LOST, w->comm, &w->lost_out[r]);
    }
    start_abandon(w, WHY_LOST, "another rank was lost");
}

void wt_root_poll(gc_watch *w)
{
    double now = gc_now_s();
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Test(&w->prog_req, &flag, &st) != MPI_SUCCESS || !flag)
            break;
        int r = st.MPI_SOURCE;
        if (r > 0 && r < w->size && !w->lost[r]) {
            w->done_of[r] = (uint32_t)w->prog_buf[0];
            w->total_of[r] = (uint32_t)w->prog_buf[1];
            w->budget_of[r] = w->prog_buf[2] / 1000.0;
            w->heard[r] = now;
        }
        MPI_Irecv(w->prog_buf, 3, MPI_INT32_T, MPI_ANY_SOURCE, TAG_PROGRESS, w->comm, &w->prog_req);
    }
    int flag = 0;
    MPI_Status st;
    if (w->stop_req != MPI_REQUEST_NULL && MPI_Test(&w->stop_req, &flag, &st) == MPI_SUCCESS &&
        flag) {
        int r = st.MPI_SOURCE;
        if (!w->abandon) {
            char why[96];
            if (w->stop_msg == STOP_MPI_ERROR)
                snprintf(why, sizeof why, "an MPI error on rank %d", r);
            else
                snprintf(why, sizeof why, "rank %d was stopped by %s", r,
                         gc_signal_name(w->stop_msg));
            fprintf(stderr, "gpucensus: %s: the run stops; every rank ends its current work "
                            "item and sends what it has\n", why);
            start_abandon(w, w->stop_msg == STOP_MPI_ERROR ? WHY_MPI : WHY_STOP, why);
        }
        MPI_Irecv(&w->stop_msg, 1, MPI_INT32_T, MPI_ANY_SOURCE, TAG_STOP, w->comm, &w->stop_req);
    }
    w->done_of[0] = w->done;
    w->total_of[0] = w->total;
    w->heard[0] = now;
    for (int r = 1; r < w->size; r++) {
        if (w->lost[r] || w->delivered[r] || now - w->heard[r] <= wt_lost_after(w) + w->budget_of[r])
            continue;
        char why[96];
        snprintf(why, sizeof why, "no word for %.0f s (more than %.0f s past its item's budget)",
                 now - w->heard[r], wt_lost_after(w));
        wt_judge_lost(w, r, why);
    }
    if (w->mode != GC_PROGRESS_OFF && !w->printed_end && now - w->last_print >= 1.0)
        wt_print_progress(w, now);
}

/* This rank ends the run: rank 0 abandons it for everyone; another rank
 * stops its own plan and tells rank 0, which does the same. */
static void request_stop(gc_watch *w, int32_t what, const char *reason)
{
    if (w->rank == 0) {
        if (!w->abandon)
            fprintf(stderr, "gpucensus: %s on rank 0: the run stops; every rank ends its current "
                            "work item and sends what it has\n", reason);
        start_abandon(w, what == STOP_MPI_ERROR ? WHY_MPI : WHY_STOP, reason);
        return;
    }
    if (w->stop_req == MPI_REQUEST_NULL) {
        w->stop_msg = what;
        MPI_Isend(&w->stop_msg, 1, MPI_INT32_T, 0, TAG_STOP, w->comm, &w->stop_req);
    }
    if (!w->abandon) {
        w->abandon = 1;
        w->why = what == STOP_MPI_ERROR ? WHY_MPI : WHY_STOP;
        snprintf(w->reason, sizeof w->reason, "%s", reason);
    }
}

void gc_watch_fail(gc_watch *w, int mpi_rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(mpi_rc, s, &len);
    fprintf(stderr, "gpucensus: rank %d: MPI error in %s: %s; this rank stops and sends what it "
                    "has\n", w->rank, what, s[0] ? s : "unknown");
    request_stop(w, STOP_MPI_ERROR, "an MPI error");
}

int gc_watch_poll(gc_watch *w)
{
    int sig = gc_stop_signal();
    if (sig && !w->stop_seen) {
        char why[64];
        snprintf(why, sizeof why, "stopped by %s", gc_signal_name(sig));
        w->stop_seen = 1;
        request_stop(w, sig, why);
    }
    if (w->rank == 0) {
        wt_root_poll(w);
        return w->abandon;
    }
    if (w->abandon_req != MPI_REQUEST_NULL) {
        int flag = 0;
        if (MPI_Test(&w->abandon_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            flag = 0;
        if (flag && !w->abandon) {
            w->abandon = 1;
            w->why = w->abandon_buf;
            snprintf(w->reason, sizeof w->reason, "%s",
                     w->why == WHY_STOP  ? "the run was stopped by a signal"
                     : w->why == WHY_MPI ? "an MPI error on another rank"
                                         : "another rank was lost");
        }
    }
    int flag = 0;
    if (w->lost_req != MPI_REQUEST_NULL &&
        MPI_Test(&w->lost_req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
        /* more to the point than any word before it */
        w->abandon = w->lost_self = 1;
        w->why = WHY_SELF;
        snprintf(w->reason, sizeof w->reason, "rank 0 judged this rank lost (silent past its "
                 "budget)");
    }
    if (!w->abandon && wt_release_seen(w)) {   /* rank 0 ends the job: nothing more is taken */
        w->abandon = 1;
        w->why = WHY_ENDED;
        snprintf(w->reason, sizeof w->reason, "rank 0 ended the run");
    }
    /* Once a second, as rank 0 prints; more often only where lost_after
     * is under 4 s (tests), so that a word always comes in time. */
    if (gc_now_s() - w->last_sent >= fmin(1.0, wt_lost_after(w) / 4))
        send_progress(w);
    return w->abandon;
}

void gc_watch_busy(gc_watch *w)
{
    if (w->on_busy)
        w->on_busy(w->on_busy_ctx);
    w->budget_s = 0;   /* between steps: silence is judged by lost_after alone */
    gc_watch_poll(w);
}

void gc_watch_on_busy(gc_watch *w, void (*fn)(void *ctx), void *ctx)
{
    w->on_busy = fn;
    w->on_busy_ctx = ctx;
}

int gc_watch_lost_self(const gc_watch *w)
{
    return w->lost_self;
}

int gc_watch_abandoned(const gc_watch *w)
{
    return w->abandon;
}

const char *gc_watch_reason(const gc_watch *w)
{
    return w->abandon ? w->reason : "";
}

void gc_watch_plan(gc_watch *w, uint32_t total, uint32_t done, double first_budget_s)
{
    w->total = total;
    w->done = done;
    w->budget_s = first_budget_s;
    if (w->rank != 0)
        send_progress(w);
    gc_watch_poll(w);
}

void gc_watch_left(gc_watch *w, const gc_eta_left *left)
{
    gc_eta_est_tell(&w->eta, gc_now_s(), left);
}

/* Seconds left by the plan's budgets and what the run has shown (rank
 * 0's node), -1: not known (before the plan, or once rank 0 has nothing
 * left of its own: the item counts then). */
static double budget_eta(const gc_watch *w, double now)
{
    return gc_eta_est_left(&w->eta, now);
}

void gc_watch_item(gc_watch *w, uint32_t done, double next_budget_s)
{
    /* Many short items: at most twenty reports a second (in bursts, so a
     * quick item before a long one is still told), but always when the
     * next item may run longer than rank 0 was told, and at the end. */
    double now = gc_now_s();
    if (now - w->window_start >= 1.0) {
        w->window_start = now;
        w->window_sent = 0;
    }
    int tell = w->rank != 0 && (w->window_sent < 20 || next_budget_s > w->sent_budget_s ||
                                done >= w->total);
    w->window_sent += tell;
    w->done = done;
    w->budget_s = next_budget_s;
    if (tell)
        send_progress(w);
    gc_watch_poll(w);
}

int gc_watch_wait(gc_watch *w, int start_rc, MPI_Request *req, const char *what)
{
    unsigned spins = 0;
    w->budget_s = 0;   /* waiting is not measuring: heartbeats flow */
    if (start_rc != MPI_SUCCESS) {
        gc_watch_fail(w, start_rc, what);
        return 1;
    }
    for (;;) {
        int flag = 0, rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            gc_watch_fail(w, rc, what);
            return 1;
        }
        if (flag)
            return 0;
        if (gc_watch_poll(w))
            return 1;
        wt_nap(&spins);
    }
}

double gc_watch_silent_s(const gc_watch *w, int r)
{
    return w->rank == 0 ? gc_now_s() - w->heard[r] : 0;
}

/* Non-root: rank 0 has released this rank (its catalogue is written, the
 * job about to end). */
int wt_release_seen(gc_watch *w)
{
    if (w->released)
        return 1;
    if (w->release_req == MPI_REQUEST_NULL &&
        MPI_Irecv(&w->release_buf, 1, MPI_INT32_T, 0, TAG_RELEASE, w->comm, &w->release_req))
        return 0;
    int flag = 0;
    if (MPI_Test(&w->release_req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
        w->released = 1;
    return w->released;
}

int gc_watch_released(gc_watch *w)
{
    return w->rank != 0 && wt_release_seen(w);
}

void gc_watch_release(gc_watch *w)
{
    if (w->rank != 0)
        return;
    static int32_t go = 1;   /* outlives the sends left pending */
    int n = 0;
    MPI_Request *rq = calloc((size_t)w->size, sizeof *rq);
    /* Every other rank, the lost ones too: one judged lost while it was
     * only slow (a loaded machine) waits in its send and leaves on this;
     * a hung or dead one never takes it. */
    for (int r = 1; rq && r < w->size; r++)
        MPI_Isend(&go, 1, MPI_INT32_T, r, TAG_RELEASE, w->comm, &rq[n++]);
    /* Small messages: done as soon as they are buffered; do not wait on a
     * rank that died since. */
    double end = gc_now_s() + 2.0;
    unsigned spins = 0;
    for (int all = 0; rq && !all && gc_now_s() < end; wt_nap(&spins))
        MPI_Testall(n, rq, &all, MPI_STATUSES_IGNORE);
    free(rq);
}

int gc_watch_await_release(gc_watch *w, double timeout_s)
{
    if (w->rank == 0)
        return 0;
    double end = gc_now_s() + timeout_s;
    unsigned spins = 0;
    while (!wt_release_seen(w) && gc_now_s() < end)
        wt_nap(&spins);
    if (!w->released && w->release_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->release_req);
        MPI_Request_free(&w->release_req);
    }
    return w->released ? 0 : -1;
}

/* MPI_Abort asks the launcher to end the job (Open MPI: PMIx_Abort, which
 * waits for mpirun's answer); should the answer never come, rank 0 leaves
 * by itself so that the launcher sees it gone (exit code kept). */
static volatile sig_atomic_t abort_code = 1;

static void abort_overdue(int sig)
{
    (void)sig;
    _exit(abort_code);
}

void gc_watch_abort(gc_watch *w, int code)
{
    gc_watch_release(w);
    abort_code = code;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = abort_overdue;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(GC_WATCH_ABORT_GRACE_S);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);   /* MPI_Abort does not return; if it did, the job still ends */
}

void gc_watch_close(gc_watch *w)
{
    if (!w)
        return;
    if (w->prog_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->prog_req);
        MPI_Wait(&w->prog_req, MPI_STATUS_IGNORE);
    }
    if (w->abandon_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->abandon_req);
        MPI_Wait(&w->abandon_req, MPI_STATUS_IGNORE);
    }
    if (w->lost_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->lost_req);
        MPI_Wait(&w->lost_req, MPI_STATUS_IGNORE);
    }
    if (w->release_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->release_req);
        MPI_Wait(&w->release_req, MPI_STATUS_IGNORE);
    }
    if (w->stop_req != MPI_REQUEST_NULL) {
        if (w->rank == 0)
            MPI_Cancel(&w->stop_req);
        MPI_Request_free(&w->stop_req);
    }
    for (int i = 0; i < NSLOTS; i++)
        if (w->slot_req[i] != MPI_REQUEST_NULL)
            MPI_Wait(&w->slot_req[i], MPI_STATUS_IGNORE);
    for (int r = 0; w->abandon_out && w->lost_out && r < w->size; r++) {
        if (w->abandon_out[r] != MPI_REQUEST_NULL)
            MPI_Request_free(&w->abandon_out[r]);
        if (w->lost_out[r] != MPI_REQUEST_NULL)
            MPI_Request_free(&w->lost_out[r]);
    }
    free(w->done_of);
    free(w->total_of);
    free(w->budget_of);
    free(w->heard);
    free(w->lost);
    free(w->delivered);
    free(w->abandon_out);
    free(w->lost_out);
    if (w->comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->comm);
    free(w);
}

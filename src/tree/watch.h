/* The run's control channel, beside the measurements: progress, liveness
 * and the gather, so that one hung or dead rank cannot hang the job.
 *
 * Every rank tells rank 0, with a small non-blocking send, how many of its
 * work items are done and the time budget of the next one: after each
 * item, and once a second while it waits for others (barriers, a pair's
 * peer) or works on its own after measuring (its shard, its node's file,
 * its analysis: gc_watch_busy between steps). Nothing is sent while an
 * item is measured. Rank 0 prints the
 * cluster's progress at most once a second and judges: a rank silent for
 * longer than lost_after_s plus the budget of the item it said it was
 * starting is lost (hung or dead); so is one whose record's length came
 * and then not its bytes within lost_after_s of rank 0's waiting. Rank 0
 * tells the lost rank so (should it be only slow, it stops, saves its
 * shard, writes no node file and sends its record, taken if it came by
 * the time the gather ends), and every other rank to abandon what is
 * left of its plan and send its results; it waits for those under the same rule, and
 * the run ends with the lost ranks marked failed (the caller aborts the
 * job, which also stops the hung ranks).
 * A SIGINT/SIGTERM (stop.h) or an MPI error on any rank ends the run the
 * same way: that rank tells rank 0, rank 0 tells the others; while a
 * signal stops the run, a rank silent for 10 s past its item's budget is
 * lost (Slurm kills the job KillWait after its SIGTERM).
 * All of it runs on a duplicate of the world communicator with errors
 * returned, not fatal. */
#ifndef GC_WATCH_H
#define GC_WATCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/eta_est.h"
#include "util/err.h"

typedef enum { GC_PROGRESS_OFF, GC_PROGRESS_TEXT, GC_PROGRESS_JSON } gc_progress_mode;

typedef struct gc_watch gc_watch;

#define GC_WATCH_UNKNOWN UINT32_MAX   /* a rank's total before its plan is known */

/* Collective over world, before anything that could hang (opening the
 * GPU). total: this rank's work items (0 until its plan is known, see
 * gc_watch_plan); first_budget_s: how long it may be silent beyond
 * lost_after_s before it reports again. Progress lines go to stderr on
 * rank 0. */
int gc_watch_open(gc_watch **w, MPI_Comm world, gc_progress_mode mode, double lost_after_s,
                  uint32_t total, double first_budget_s, gc_err *err);
/* The rank's plan is known: its items, those already done (--resume), the
 * first item's budget. Tells rank 0. */
void gc_watch_plan(gc_watch *w, uint32_t total, uint32_t done, double first_budget_s);
/* After an item: done items so far, the budget of the next one. */
void gc_watch_item(gc_watch *w, uint32_t done, double next_budget_s);
/* The plan's wall budget this rank's node has left (run/eta.h): fixed
 * (the sustained load, which runs for its budget) and scalable per phase
 * (budgets that are upper bounds). The first call is the plan's start.
 * Rank 0's give the progress line's ETA (plan/eta_est.h: each phase's
 * budget left times that phase's time per second of budget so far). */
void gc_watch_left(gc_watch *w, const gc_eta_left *left);
/* Read messages, report, judge; 1 once the run is being abandoned (also
 * on a rank rank 0 judged lost, or released). */
int gc_watch_poll(gc_watch *w);
/* Between steps of work that is not measuring (saving the shard, the
 * node's file, the analysis of the rank's results): tells rank 0 this
 * rank is alive (at most once a second, as while waiting) with no budget,
 * so a step may last lost_after_s at most. */
void gc_watch_busy(gc_watch *w);
/* fn(ctx) is called by every gc_watch_busy before it tells rank 0: the sim's
 * slow_end fault (a step of the end made longer: tests/mpi/t_alive.sh). */
void gc_watch_on_busy(gc_watch *w, void (*fn)(void *ctx), void *ctx);
/* Non-root: rank 0 judged this rank lost (it was silent, not dead): it
 * must stop, keep its results in its shard, and leave the files rank 0
 * writes (its node's file) to rank 0. */
int gc_watch_lost_self(const gc_watch *w);
/* Complete req (a barrier, a peer transfer) while polling: 0 done, 1 the
 * run was abandoned first (req is then left pending). start_rc: what the
 * call that made req returned; an MPI error there or while waiting goes
 * to gc_watch_fail with `what` (e.g. "barrier"). */
int gc_watch_wait(gc_watch *w, int start_rc, MPI_Request *req, const char *what);
/* An MPI call of this rank failed: say so on stderr, stop this rank's
 * plan, and have rank 0 stop the run (as for a lost rank: the others send
 * what they have, a partial catalogue, exit 1). */
void gc_watch_fail(gc_watch *w, int mpi_rc, const char *what);
int gc_watch_abandoned(const gc_watch *w);
/* Why the run is abandoned ("another rank was lost", "stopped by
 * SIGTERM", ...); "" while it is not. */
const char *gc_watch_reason(const gc_watch *w);
/* Rank 0 receives every rank's bytes and hands each to on_blob as it
 * arrives (rank 0's own first), which owns them (free()); a rank that sent
 * nothing is handed NULL/0. lost[r] = 1 for a rank given up on (never
 * handed), an array of size ranks owned by the caller. Other ranks send
 * and return. Returns the number of lost ranks (rank 0), 0 elsewhere, or
 * -1 (err set). */
typedef void (*gc_gather_fn)(void *ctx, int rank, uint8_t *data, size_t len);
int gc_watch_gather(gc_watch *w, const void *data, size_t len, gc_gather_fn on_blob, void *ctx,
                    int **lost, gc_err *err);
/* A run with lost ranks cannot end in MPI_Finalize (the lost ones never
 * arrive): rank 0, once its catalogue is written, releases the ranks that
 * delivered and aborts the job; they wait for that word (at most
 * timeout_s: 0 released, -1 not) and exit without finalizing. */
void gc_watch_release(gc_watch *w);
int gc_watch_await_release(gc_watch *w, double timeout_s);
/* Non-root: rank 0 released this rank (also while it sent its results:
 * judged lost while slow, it may never have been taken); it must then
 * leave without finalizing, as one whose run was abandoned. */
int gc_watch_released(gc_watch *w);
/* Rank 0 ends a run with lost ranks: releases every other rank, then
 * MPI_Abort(code); should that not end this process within
 * GC_WATCH_ABORT_GRACE_S (the launcher never answers), it exits with code. */
#define GC_WATCH_ABORT_GRACE_S 20
/* How long a rank that delivered waits for rank 0's release at most. */
#define GC_WATCH_RELEASE_WAIT_S 600.0
void gc_watch_abort(gc_watch *w, int code) __attribute__((noreturn));
/* Seconds since rank r was last heard of (rank 0). */
double gc_watch_silent_s(const gc_watch *w, int r);
void gc_watch_close(gc_watch *w);

#endif

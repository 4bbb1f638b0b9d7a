/* The progress line's ETA from the plan's budgets, phase by phase. A
 * work item's budget is an upper bound, and how far below it an item ends
 * depends on what it measures: on the H100 the on-GPU items (chase, inst,
 * bandwidth sweeps) ended at about a quarter of their budgets while the
 * host copies of the isolated phase took about their whole budget, a few
 * large ones more. One ratio of time to budget for the whole run, measured
 * on the first phase, was extrapolated to the transfer phases and the ETA
 * came out a third short. So the ratio is kept per phase: the time taken
 * per second of budget done in that phase (shrunk toward a prior while
 * little is done), applied only to the same phase's budget left; a phase
 * not yet started counts at its prior. Fixed-time items (the sustained
 * load) count at their budget. run/eta.h lays out the budgets left; the
 * watch (tree/watch.c) tells this estimate what they are after each task. */
#ifndef GC_ETA_EST_H
#define GC_ETA_EST_H

#include "census/registry.h"

typedef struct gc_eta_left {
    double fixed_s;                  /* sustained load: takes its budget */
    double scalable_s[GC_NPHASES];   /* the rest, per phase: budgets are upper bounds */
} gc_eta_left;

typedef struct gc_eta_est {
    int known;
    double at_s;                        /* when `left` was told */
    gc_eta_left left;
    double budget_done_s[GC_NPHASES];   /* scalable budget done, per phase */
    double took_s[GC_NPHASES];          /* the wall time it took */
} gc_eta_est;

/* The budget left as of now_s (the first call is the plan's start). The
 * wall time since the last call is split over the phases whose budget went
 * down, in proportion, once the fixed part done is taken out at its
 * budget. */
void gc_eta_est_tell(gc_eta_est *e, double now_s, const gc_eta_left *left);
/* Seconds left at now_s: the fixed budget left plus each phase's budget
 * left times its ratio, less the time since the last call; -1 when not
 * known (nothing told, or nothing left). */
double gc_eta_est_left(const gc_eta_est *e, double now_s);
/* Phase p's ratio of time to budget: (took + prior x K) / (done + K). */
double gc_eta_est_ratio(const gc_eta_est *e, gc_phase p);
/* The prior of phase p: what its items took per second of budget on the
 * H100's default plan. */
double gc_eta_prior(gc_phase p);

#endif

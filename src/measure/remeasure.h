/* Host-bound points measured again. A host link or a kernel launch is
 * timed by the host as much as by the GPU: a busy CPU, a page-cache flush
 * or another process on the link spreads its samples, and one pass over
 * the sizes can land a whole point on a slow moment (issue 18: a pinned
 * H2D median of 43.3 GB/s at 1 GiB, 55 right after). After a step of the
 * gpu or isolated phase, every host-bound item of the step (xfer copies,
 * launch back_to_back / launch_sync) whose time samples spread widely
 * (p95 / p50 above spread_max: a few slow samples; or p50 / p5 above
 * spread_low_max: a slow moment that held most of the point) is measured
 * again, in rounds: each round
 * re-measures every item still unstable once, in plan order, so that the
 * passes over one size are interleaved with the other sizes rather than
 * back to back. A round's samples are merged into the point; an item is
 * stable when the merged median moved less than stable_rel in its last
 * round, and is given up when max_rounds are spent or the time bound
 * (the step's own budget again, and the plan's deadline) is reached.
 *
 * Each point of a re-measured item says so in its context:
 *   remeasures      rounds run after the first pass
 *   spread_first    p95 / p50 of the first pass's times
 *   spread_low_first  p50 / p5 of them
 *   spread          p95 / p50 of all rounds together
 *   spread_low      p50 / p5 of all rounds together
 *   median_moved    |relative change| of the median in the last round
 *   median_stable   1: below stable_rel, 0: a bound was hit first
 * Points not re-measured carry `spread` and `spread_low` alone (host-bound
 * items only). The low side's bound is wider: the times of small copies
 * lie on a floor, their p50 / p5 1.20-1.23 on four hosts (tests/data/fleet,
 * h100 8bbd760 / eb50d37, h200 cce5b74 / d9f77b1) with no slow moment. */
#ifndef GC_REMEASURE_H
#define GC_REMEASURE_H

#include "measure/backend.h"
#include "census/results.h"

typedef struct gc_remeasure_cfg {
    double spread_max;   /* p95 / p50 of the time samples above which a point is re-measured */
    double spread_low_max;   /* p50 / p5 of them above which it is too */
    double stable_rel;   /* median moved less than this in a round: stable */
    int max_rounds;      /* re-measures of one item at most */
    double budget_s;     /* all rounds together at most (<= 0: no bound but the deadline) */
    double deadline_s;   /* gc_now_s() value after which no round starts (<= 0: none) */
} gc_remeasure_cfg;

#define GC_REMEASURE_SPREAD_MAX 1.20
#define GC_REMEASURE_SPREAD_LOW_MAX 1.30
#define GC_REMEASURE_STABLE_REL 0.01
#define GC_REMEASURE_MAX_ROUNDS 4

void gc_remeasure_defaults(gc_remeasure_cfg *c);

/* 1 if the item is host-bound (its points are candidates). */
int gc_remeasure_host_bound(const gc_item *it);

/* Re-measures the host-bound, unstable items among tasks[0..n) (their
 * points are already in g); budgets[i] is task i's time budget (s).
 * Returns the number of re-measures run. A failed re-measure keeps the
 * first pass's point (its message goes to stderr) and ends that item. */
int gc_remeasure(const gc_backend_ops *ops, gc_backend *be, gc_task *const *tasks,
                 const double *budgets, size_t n, gc_gpu *g, const gc_remeasure_cfg *cfg);

#endif

/* Host-bound points measured again. A host link or a kernel launch is
 * timed by the host as much as by the GPU: a busy CPU, a page-cache flush
 * or another process on the link spreads its samples, and one pass over
 * the sizes can land a whole point on a slow moment (a pinned
 * H2D median of 43.3 GB/s at 1 GiB, 55 right after). After a step of the
 * gpu or isolated phase, every host-bound item of the step (xfer copies,
 * launch back_to_back / launch_sync) whose time samples spread widely
 * (p95 / p50 above spread_max: a few slow samples; or p50 / p5 above
 * spread_low_max: a slow moment that held most of the point) is measured
 * again, in rounds: each round
 * re-measures every item still unstable once, in plan order, so that the
 * passes over one size are interleaved with the other sizes rather than
 * back to back. Copies whose samples take 1 ms or more (the large ones)
 * are held to tighter bounds (spread_large_max, spread_low_large_max),
 * measured on the real fleet: over lab/fleet's pinned copies of 64 MiB
 * and more (431 points on H100 and H200 hosts, gen5 x16) p50 / p5 of the
 * times has a median of 1.002-1.004 per direction and engine, 90% of
 * points under 1.007-1.024 (both ways on the copy engines: 1.024 and
 * 1.074; lab/gpu/host_spread.py), while one
 * noisy host's h2d SM copies at 1 GiB read 1.035 (p95 / p50 1.077) with a
 * p50 0.955x nvbandwidth's. A round's samples are merged into the
 * point; an item is stable when its last round alone spread within the
 * bounds, or when neither the merged median nor its fast end (the p5 of
 * the times) moved by stable_rel in that round (more rounds would not
 * change the figures); it is given up when max_rounds are spent or the
 * time bound (the step's own budget again, and the plan's deadline) is
 * reached.
 *
 * The capability figure of a host-bound bandwidth point is a stated high
 * quantile of its samples over all rounds: capability_bps, the p95 of
 * the bandwidth samples (the host's slow moments slow copies, nothing
 * makes one faster than the link: a copy over the nominal rate is
 * flagged over_nominal), where the p50 follows the share of slow moments.
 *
 * Each point of a re-measured item says so in its context:
 *   remeasures      rounds run after the first pass
 *   spread_first    p95 / p50 of the first pass's times
 *   spread_low_first  p50 / p5 of them
 *   spread          p95 / p50 of all rounds together
 *   spread_low      p50 / p5 of all rounds together
 *   spread_last, spread_low_last  the same of the last round alone
 *   median_moved    |relative change| of the median in the last round
 *   median_stable   1: stable (above), 0: a bound was hit first
 * Every host-bound point carries `spread`, `spread_low` and `host_noisy`
 * (1: its first pass spread beyond the bounds, the host had slow moments
 * while it ran), its bandwidth points `capability_bps`. The low side's
 * bound of small copies is wider: their times lie on a floor, their p50 /
 * p5 1.20-1.23 on four real hosts (two H100, two H200) with no slow moment. */
#ifndef GC_REMEASURE_H
#define GC_REMEASURE_H

#include "measure/backend.h"
#include "census/results.h"

typedef struct gc_remeasure_cfg {
    double spread_max;   /* p95 / p50 of the time samples above which a point is re-measured */
    double spread_low_max;   /* p50 / p5 of them above which it is too */
    double spread_large_max, spread_low_large_max;   /* the same for copies of >= large_ns */
    double large_ns;     /* a first pass's median time from which a copy is large */
    double stable_rel;   /* median moved less than this in a round: stable */
    int max_rounds;      /* re-measures of one item at most */
    double budget_s;     /* all rounds together at most (<= 0: no bound but the deadline) */
    double deadline_s;   /* gc_now_s() value after which no round starts (<= 0: none) */
} gc_remeasure_cfg;

#define GC_REMEASURE_SPREAD_MAX 1.20
#define GC_REMEASURE_SPREAD_LOW_MAX 1.30
#define GC_REMEASURE_SPREAD_LARGE_MAX 1.05
#define GC_REMEASURE_SPREAD_LOW_LARGE_MAX 1.025
#define GC_REMEASURE_LARGE_NS 1e6
#define GC_REMEASURE_CAPABILITY_Q 0.95
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

/* The run's remaining wall time as the plan budgets it, for the progress
 * line's ETA. Item counts say little of time: the serial phases (isolated,
 * pair, net: one GPU or one pair of a node at a time) and the sustained
 * load are few items and most of a run. So each rank lays out its node's
 * timeline from the schedule of every GPU of the node: per segment (a
 * parallel phase whole, a serial phase's step) the longest budget of its
 * GPUs, split into fixed time (items that run for their budget: the
 * sustained load) and scalable time per phase (items that usually end
 * inside it, each phase by its own margin). Before each of its tasks it
 * then knows the wall budget left; plan/eta_est.h turns it into seconds
 * with each phase's ratio of time to budget so far. */
#ifndef GC_ETA_H
#define GC_ETA_H

#include <stddef.h>

#include "plan/eta_est.h"
#include "plan/schedule.h"

/* left[0]: the wall budget left before this rank's first task; left[k]
 * (k = 1..ntasks): left once its task k-1 is done (the node's other GPUs'
 * steps it then waits for included). tasks are this rank's (gc_schedule
 * with g); the node's other GPUs are scheduled alike here. */
int gc_eta_timeline(const gc_item *items, size_t nitems, const gc_geom *g, double pair_budget_s,
                    const gc_step_task *tasks, size_t ntasks, gc_eta_left *left, gc_err *err);

#endif

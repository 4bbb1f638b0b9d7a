/* Which work items a rank runs, in which phase and step. Phases run in
 * order (gpu, isolated, concurrent, pair, net) and each phase in steps
 * separated by barriers, so that:
 *   gpu         all GPUs of a node at once (on-device work only), 1 step
 *   isolated    one GPU of a node at a time: step t = node-local rank t
 *   concurrent  all GPUs of a node at once, started together, 1 step
 *   pair        one ordered pair (src, dst) of a node's GPUs per step; a
 *               p2p copy both ways (both GPUs copy at once) runs once per
 *               unordered pair, on the step of the ordered pair that
 *               owns it (src + 1 .. src + L/2 mod L: every GPU drives
 *               about half of its pairs); with the plan's pair_budget_s
 *               the budgets of pair tasks shrink (never grow) by one
 *               factor per node so that the GPU driving the most pair
 *               work stays within it
 *   net         node i's first rank against node i+r's (mod nodes) for
 *               r = 1, 2, so every node meets two partners (one when
 *               there are only two nodes); each round in 3 steps of
 *               pairs that share no node, measured at once (a node's
 *               pairs of a round: the one it drives, the one it answers)
 * The same code prints the plan (`gpucensus plan`) and runs it. Judging the
 * net phase's pairs (which to measure again) is judge/net_checks.h's. */
#ifndef GC_SCHEDULE_H
#define GC_SCHEDULE_H

#include <stddef.h>

#include "census/shard.h"
#include "plan/plan.h"

/* The roster indexed once (O(ranks)): node index of each rank (nodes in
 * order of first appearance), each node's ranks by local index, each
 * node's first rank. Lets the schedule find a peer in constant time. */
typedef struct gc_geom_index {
    int nodes;
    int *node_of;      /* size entries */
    int *leader;       /* nodes entries: the node's first rank in the roster */
    int *start;        /* nodes + 1 entries: into by_node */
    int *by_node;      /* size entries: ranks grouped by node, by local index */
} gc_geom_index;

typedef struct gc_geom {
    int rank, size;
    int local_rank, local_size;
    int node_index, nodes;
    const gc_roster_entry *roster;   /* size entries */
    const gc_geom_index *index;      /* NULL: gc_schedule builds one for the call */
} gc_geom;

int gc_geom_index_build(const gc_roster_entry *roster, int size, gc_geom_index *ix, gc_err *err);
void gc_geom_index_free(gc_geom_index *ix);
/* g's per-rank fields (rank, local_rank, node_index, local_size) for rank,
 * from g->index (set). */
void gc_geom_at(gc_geom *g, int rank);

/* One work item as this rank runs it, the unit a backend measures
 * (measure/backend.h). The schedule names the peer and the initiator: for
 * pair items the peer is another GPU of the same node, for net items a rank
 * on another node; the runner sets the deadline, a re-measure the round. */
typedef struct gc_task {
    const gc_item *item;
    int peer_local_index;   /* -1: none */
    int peer_rank;          /* -1: none */
    const char *peer_node;  /* NULL: none */
    int initiator;          /* 1: this rank drives the pair's measurement */
    double deadline_s;      /* gc_now_s() value after which to stop sampling; <= 0: none */
    int round;              /* 0: first pass; k: the k-th re-measure (remeasure.h) */
} gc_task;

typedef struct gc_step_task {
    gc_task task;
    int step;
    double budget_s;          /* the item's budget, scaled for pair tasks */
} gc_step_task;

/* Number of steps of a phase for a node of local_size ranks. */
int gc_phase_steps(gc_phase p, const gc_geom *g);
/* The rank's tasks of every phase, in execution order (phase, step, item).
 * *out is allocated; task.item points into items. */
int gc_schedule(const gc_item *items, size_t nitems, const gc_geom *g, double pair_budget_s,
                gc_step_task **out, size_t *nout, gc_err *err);
/* Sum of the budgets of the tasks a rank drives (alone, or as a pair's or
 * net pair's initiator), per phase: its measuring time at most. */
void gc_schedule_budgets(const gc_step_task *t, size_t n, double out[GC_NPHASES]);
/* Build a geometry (and roster) for `ranks` ranks spread over `nodes`
 * simulated nodes in contiguous blocks, as a sim run places them; for
 * `gpucensus plan`. */
int gc_geom_simulated(int ranks, int nodes, int rank, gc_geom *g, gc_roster_entry **roster,
                      gc_err *err);

/* A plan's budgets on `ranks` ranks over `nodes` simulated nodes (what
 * `gpucensus plan` and `gpucensus list` print): per phase the most any GPU
 * drives; per GPU its on-GPU items plus its transfers; per node the on-GPU
 * phase (all GPUs at once) plus the transfer phases' wall time (isolated
 * and pair items run one GPU or one pair at a time). Sums of per-item
 * budgets: upper bounds, not measured times. only: --only's list (NULL:
 * all). each, when given, sees every
 * rank's tasks and budgets as they are computed. */
typedef struct gc_plan_budget {
    double most_s[GC_NPHASES];
    double per_gpu_s;
    double node_transfers_s;   /* the transfer phases' wall time on the busiest node */
    double per_node_s;
} gc_plan_budget;
typedef void (*gc_budget_each)(void *ctx, int rank, const gc_roster_entry *ro,
                               const gc_step_task *tasks, size_t ntasks,
                               const double b[GC_NPHASES]);
int gc_plan_budget_of(const gc_item *items, size_t nitems, double pair_budget_s, int ranks,
                      int nodes, const char *only, gc_budget_each each, void *ctx, gc_plan_budget *out,
                      gc_err *err);

/* --only: a comma-separated list of benchmark names (registry) or labels
 * (the plan's). gc_plan_only_check fails (GC_EINVAL) on a name no
 * benchmark of the plan has, naming the valid ones; gc_schedule_only keeps
 * the tasks of the named benchmarks (item ids unchanged, so shards and
 * --resume still refer to the whole plan's items). */
int gc_plan_only_check(const gc_plan *plan, const char *only, gc_err *err);
int gc_spec_selected(const gc_bench_spec *s, const char *only);
void gc_schedule_only(gc_step_task *tasks, size_t *ntasks, const char *only);

#endif

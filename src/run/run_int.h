/* What run.c and run_out.c share: the state of one rank's run. Private to
 * the run pipeline (run.h is its public face). */
#ifndef GC_RUN_INT_H
#define GC_RUN_INT_H

#include <mpi.h>

#include "measure/backend.h"
#include "tree/cluster.h"
#include "util/err.h"
#include "util/fsutil.h"
#include "plan/plan.h"
#include "run/resume.h"
#include "census/results.h"
#include "run/run.h"
#include "plan/schedule.h"
#include "census/shard.h"
#include "tree/watch.h"

typedef struct runner {
    const gc_run_opts *opts;
    gc_plan plan;
    gc_cluster cl;
    const gc_backend_ops *ops;
    gc_backend *be;
    gc_run_meta meta;
    gc_gpu gpu;
    char out[4096];
    struct gc_eta_left *eta;   /* rank 0: the wall budget left before each task (eta.h) */
    int out_locked;          /* rank 0: OUT's lock is ours (removed as the run ends) */
    int out_refused;         /* OUT holds another run (no --resume, no --force): exit 2 */
    char shard_path[4096];
    gc_file_id node_prior;   /* a leader: its node file before the run (tree.h) */
    double last_shard_s;
    uint32_t sub_bits;
    gc_peer_io pio;
    gc_watch *watch;         /* NULL until the schedule is known */
    int abandoned;           /* rank 0 gave up on a lost rank: stop measuring */
    gc_resume rs;            /* --resume: what OUT's shards already hold */
    char resumed_start[32];  /* --resume: the start time of the run resumed (its roster's) */
    int ok_in, ok_out;       /* all_ok_watched's buffers: an abandoned
                                reduction may still write them */
    uint8_t *skip;           /* per task: 1 = done in the run being resumed */
    gc_sim_end sim_end;      /* the sim's slow_end fault, if any (backend.h) */
} runner;

/* Every rank prints its own failure; rank 0 adds nothing. */
void gc_run_rank_error(const runner *r, const gc_err *e);
/* the run's metadata (plan, backend, ranks, build) for shards and catalogue */
void gc_run_fill_meta(runner *r, const char *start);
/* Collective: rank 0 makes and locks OUT; everyone learns it and its shard path. */
int gc_run_make_out_dir(runner *r, const char *stamp, gc_err *e);
/* Rank 0: the roster of ranks and GPUs (with --resume, checked against the old one). */
int gc_run_write_roster(runner *r, gc_err *e);
/* Collective --resume: which tasks are done already. Returns 0 or an exit code. */
int gc_run_resume_setup(runner *r, const gc_step_task *tasks, size_t ntasks, size_t nitems);

#endif

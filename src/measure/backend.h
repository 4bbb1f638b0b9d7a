/* The measurement leaf. A backend opens one GPU for a rank, reports its
 * identity and conditions, and turns a work item into points (histograms)
 * on the rank's gc_gpu. Everything around it (plan, phases, shards, gather,
 * catalogue) is shared by the cuda and sim backends. */
#ifndef GC_BACKEND_H
#define GC_BACKEND_H

#include "util/err.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "census/results.h"
#include "util/timeutil.h"

typedef struct gc_backend gc_backend;   /* a backend's per-rank state */

/* Talking to the other rank of a pair or net item (MPI underneath: the
 * backends and kernels never call MPI). Both ranks call these in matching
 * order; each returns 0 or non-zero on failure. */
typedef struct gc_peer_io {
    void *ctx;
    int (*sendrecv)(void *ctx, int peer_rank, const void *send, void *recv, size_t len);
    int (*send)(void *ctx, int peer_rank, const void *buf, size_t len);
    int (*recv)(void *ctx, int peer_rank, void *buf, size_t len);
} gc_peer_io;

typedef struct gc_backend_args {
    const gc_plan *plan;
    const char *node;       /* this rank's node name */
    int node_index;         /* index of the node in the cluster (0..nodes-1) */
    int local_index;        /* node-local rank = GPU index on the node */
    int local_size;         /* ranks on this node */
    int rank;
    uint32_t sub_bits;      /* histogram precision for new points */
    const gc_peer_io *peer; /* NULL: no other rank to talk to (unit tests) */
    const int *job_pids;    /* the job's processes on this host (foreign load) */
    size_t njob_pids;
} gc_backend_args;

typedef struct gc_backend_ops {
    const char *name;       /* "cuda" or "sim" */
    int (*open)(const gc_backend_args *args, gc_backend **out,
                gc_gpu_info *info, gc_err *err);
    /* Fills c->valid = 0 where conditions cannot be read. */
    int (*conditions)(gc_backend *b, gc_conditions *c);
    /* Adds the item's points to gpu. A non-zero return means the item
     * failed; the runner records it as a failed point with err's message. */
    int (*measure)(gc_backend *b, const gc_task *task, gc_gpu *gpu, gc_err *err);
    void (*close)(gc_backend *b);
} gc_backend_ops;

extern const gc_backend_ops gc_backend_sim;
/* The plan's sim profile loads (at plan time: a missing or bad profile is a
 * bad plan, exit 2, not a failure of every rank at open). */
int gc_sim_plan_check(const gc_plan *plan, gc_err *err);
/* The sim's slow_end fault for GPU `gpu` of `node`: seconds each step of
 * the rank's end (after its items) takes more; 0 none. */
double gc_sim_end_step_s(const gc_plan *plan, const char *node, int gpu);
/* One such step (a gc_watch_on_busy hook, end: a gc_sim_end): sleeps
 * step_s and says so on stderr, with the seconds added so far. */
typedef struct gc_sim_end {
    double step_s, added_s;
    int rank;
} gc_sim_end;
void gc_sim_end_step(void *end);
extern const gc_backend_ops gc_backend_cuda;


#endif

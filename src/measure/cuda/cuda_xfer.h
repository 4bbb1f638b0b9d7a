/* The transfer sampling harness shared by the xfer and p2p drivers of the
 * cuda backend (cuda_xfer.c, cuda_p2p.c). Private to src/bench. */
#ifndef GC_BENCH_CUDA_XFER_H
#define GC_BENCH_CUDA_XFER_H

#include "measure/cuda/cuda.h"

typedef struct gc_xfer_job gc_xfer_job;
struct gc_xfer_job {
    /* times n samples of batch copies each: ns[i] = ns per copy */
    int (*chunk)(gc_cuda *c, gc_xfer_job *j, uint32_t n, uint32_t batch, double *ns, char *msg,
                 size_t len);
    size_t bytes;
    double moved;            /* bytes per sample: both directions' for bidir */
    const char *timing;      /* "events" or "host_clock" */
    double nominal_bps;      /* of `moved`'s path; 0: unknown (no over_nominal guard) */
    /* both ways at once: each direction's ns per copy of the last chunk,
     * filled by chunk next to ns (= the slower of the two); NULL otherwise.
     * Adds the points out_metric and in_metric (p2p: bandwidth_to_peer and
     * bandwidth_from_peer; host: bandwidth_h2d and bandwidth_d2h). */
    double *ns_out, *ns_in;
    const char *out_metric, *in_metric;
    int spin_timeouts, dropped_chunks;
    uint32_t copies_per_batch;   /* copies queued per stream per copy timed (0: 1; 2 with a tail) */
};

/* Adds the points time, bandwidth (and the two directions' bandwidths)
 * of a job and fills them within the item's budget. */
int gc_xfer_sample(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_xfer_job *j, gc_err *err);

#endif

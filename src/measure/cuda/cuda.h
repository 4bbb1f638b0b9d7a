/* Host drivers of the cuda backend's benchmarks: read an item's parameters,
 * sweep launches within the time budget, turn raw kernel samples into the
 * points of docs/metrics.md. State (device properties, cached device
 * buffers, the current pointer-chase chain, sample scratch) lives in one
 * gc_cuda per rank and is reused across items: no allocation per sample. */
#ifndef GC_BENCH_CUDA_H
#define GC_BENCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "measure/backend.h"
#include "measure/nvml.h"

typedef struct gc_cuda {
    gck_device dev;
    int index;
    uint32_t sub_bits;
    gck_scratch scratch;
    void *big;                 /* chains, departure, stream, l2 */
    size_t big_bytes;
    uint32_t *perm;            /* chain permutation (device) */
    size_t perm_cap;
    gck_chain chain;
    int chain_valid;
    int chain_page;
    uint64_t chain_stride;
    void *cursor;              /* where the last chase stopped */
    double *host;              /* host sample scratch (doubles) */
    size_t host_cap;
    uint32_t flags;            /* GC_FLAG_* seen while measuring the item */
    double stop_s;             /* gc_now_s() after which sampling stops */
    double budget_s;           /* the item's budget (0: none) */
    gck_xfer xfer;             /* transfer buffers, streams, IPC state */
    const gc_peer_io *peer;    /* pair and net items talk to the peer rank */
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;   /* 0: unknown */
    int nvlink_links;
    gc_nvml *nvml;             /* NULL: no NVML (sustain needs it) */
} gc_cuda;

/* Per item: budget, flags. */
void gc_cuda_begin(gc_cuda *c, const gc_task *task);
int gc_cuda_over(gc_cuda *c);          /* 1: budget or deadline reached (sets BUDGET_HIT) */
/* gc_cuda_over for a sampler that has `done` samples: it goes on past the
 * budget until it has `min_samples` (a median to speak of), up to twice
 * the budget (inside the runner's grace: a slow link's sample may take
 * longer than the whole budget). */
int gc_cuda_over_min(gc_cuda *c, uint32_t done, uint32_t min_samples);
/* Work since t0 (gc_now_s()) was not measuring (allocating, pinning,
 * binding, flushing): the item's stop time moves on by it, so it costs the
 * item no samples. */
void gc_cuda_unmeasured(gc_cuda *c, double t0);
/* Device buffer of at least bytes (grown, never shrunk below; invalidates
 * the chain when moved). */
int gc_cuda_big(gc_cuda *c, size_t bytes, gc_err *err);
double *gc_cuda_host(gc_cuda *c, size_t n, gc_err *err);
/* Point with the item's params as context, its unit and scale from
 * census/metrics.c; NULL with err filled. */
gc_point *gc_cuda_point(gc_cuda *c, const gc_task *t, gc_gpu *g, const char *metric, gc_err *err);
void gc_cuda_record(gc_point *p, double value);    /* value in the point's unit */
double gc_cuda_num(const gc_task *t, const char *key);   /* param or registry default */
const char *gc_cuda_str(const gc_task *t, const char *key);
uint32_t gc_cuda_samples(const gc_task *t, uint32_t dflt);
uint32_t gc_cuda_launches(const gc_task *t);
double gc_cuda_median_u32(const uint32_t *v, size_t n);
/* Flags points [from, npoints) of g with c->flags. */
void gc_cuda_flag_points(gc_cuda *c, gc_gpu *g, size_t from);
/* Records a measured SM clock; CLOCKS_MOVED when they spread > 2%. */
void gc_cuda_clock_seen(gc_cuda *c, double mhz, double *lo, double *hi);

int gc_cuda_chase(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
/* One random cycle of 128-byte lines over fp bytes of buf (a peer GPU's
 * memory, mapped pinned host memory), chased by one thread: latency,
 * latency_ns and timer_cost points as the chase benchmark's. host: the
 * host's view of buf when it is host memory (NULL for a peer GPU's): the
 * chain's lines are flushed from the CPU caches before the chase (context
 * host_cache). every_sm: the launches move from SM to SM (the host chase;
 * the peer chase stays on one SM). what names it in errors. */
int gc_cuda_chase_far(gc_cuda *c, const gc_task *t, gc_gpu *g, void *buf, void *host, size_t fp,
                      int every_sm, const char *what, gc_err *err);
int gc_cuda_chase_loaded(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_departure(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_inst(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_hbm(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_l2(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_smem(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_launch(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_valid(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_mlp(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_xfer(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_p2p(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_net(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);
int gc_cuda_sustain(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err);

#endif

/* Inside the sim backend: the backend's state, the per-item job (a draw
 * function over one of the sample models) and the helpers the benchmark
 * families share. backend_sim.c has the microbenchmarks and the sampling
 * loop, sim_xfer.c the transfers (host links, P2P, network), sim_sustain.c
 * the sustained load; the helpers live in sim_common.c, the lowest of them,
 * so calls go one way: backend_sim.c -> sim_xfer.c, sim_sustain.c ->
 * sim_common.c. Not for use outside the sim backend. */
#ifndef GC_SIM_INT_H
#define GC_SIM_INT_H

#include "census/metrics.h"
#include "measure/backend.h"
#include "measure/sim/sim_faults.h"
#include "measure/sim/sim_profile.h"
#include "measure/sim/sim_rng.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

struct gc_backend {
    gc_sim_profile prof;
    const gc_plan *plan;
    char node[GC_NODE_MAX];
    int node_index, local_index, rank;
    uint32_t sub_bits;
    faultset f;
    uint64_t cond_calls;
    uint8_t *attempts;        /* per item id: times measured (a re-measure draws afresh) */
    uint32_t attempt;         /* of the item being measured: 0 first */
    const gc_peer_io *peer;   /* real ranks: net items move real bytes */
    int numa_node;            /* the host NUMA node this GPU sits near */
    char *net_buf;
    size_t net_cap;
};

/* sim_common.c: the metrics more than one family records, by name; their
 * units and scales are census/metrics.c's. */
extern const char *const M_CHASE[3];   /* latency, latency_ns, timer_cost */
extern const char *const M_XFER[4];    /* time, bandwidth, to / from peer */
#define MAXV 4   /* metrics one job records */

/* Latency as a mixture of levels (L1, L2 near, L2 far, DRAM): one sample
 * averages n_acc accesses, so its spread comes from the mixture's variance
 * over n_acc plus measurement noise. Single-level uses (inst, departure)
 * set p[0] = 1. */
typedef struct lat_m {
    double p[4], lat[4], slow[4];
    double extra_cycles, n_acc, sd_abs, rel_sigma;
    double cyc_to_ns, timer_cycles;
    int ns_slot, timer_slot;        /* output index, -1: none */
} lat_m;

/* Work of `bytes` at rate `bps` after a fixed overhead (kernels, inst
 * throughput with bytes = 1, overhead 0). Output: bytes / time. */
typedef struct bw_m {
    double bytes, overhead_s, bps, slow, sigma;
} bw_m;

/* A copy: latency + bytes / rate, one or two directions at once. */
typedef struct xfer_m {
    double lat_s, bytes, rate[2], slow[2], loss;
    int ndir;
} xfer_m;

typedef struct time_m {
    double ns, slow;
} time_m;

typedef struct job job;
typedef void (*draw_fn)(const job *j, sim_rng *r, double launch, double *v);

struct job {
    const gc_sim_profile *p;
    int numa_node;                  /* xfer chase, numa "each": the node whose memory it reads */
    const char *const *metrics;
    int nmetrics;
    double own_scale;               /* > 0: the sim's scale, not the table's (valid) */
    draw_fn draw;
    gc_ctx ctx;                     /* item params + added context */
    union { lat_m lat; bw_m bw; xfer_m x; time_m t; } u;
};

/* sim_common.c */
/* Fraction of a footprint that a cache of `capacity` holds (sharpness k). */
double sim_hit(double footprint, double capacity, double k);
double sim_pnum(const gc_item *it, const char *name);
const char *sim_pstr(const gc_item *it, const char *name);
int sim_ctx_num(job *j, const char *key, double v, gc_err *err);
/* The profile's latency noise and clock into m, no output slots. */
void sim_lat_common(const gc_backend *b, lat_m *m);
void sim_chase_levels(const gc_backend *b, double footprint, double stride, lat_m *m);
void sim_draw_latency(const job *j, sim_rng *r, double launch, double *v);
uint64_t sim_to_units(double v, double scale);
/* HBM bandwidth of a STREAM kernel at blocks_per_sm, faults applied. */
double sim_hbm_bps(const gc_backend *b, const char *kernel, double blocks_per_sm);

/* sim_sustain.c */
int sim_sustain(const gc_backend *b, const gc_task *t, gc_gpu *gpu, gc_err *err);

/* sim_xfer.c */
int sim_setup_xfer(const gc_backend *b, const gc_task *t, job *j, gc_err *err);
int sim_setup_p2p(const gc_backend *b, const gc_task *t, job *j, gc_err *err);
int sim_setup_net(const gc_backend *b, const gc_task *t, job *j, gc_err *err);
int sim_net_real(gc_backend *b, const gc_task *t, gc_gpu *gpu, gc_err *err);

#endif

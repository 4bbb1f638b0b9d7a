/* The Little's-law model of source document 001 (Gajger 2017, section
 * 4.4, after Volkov's thesis, "Understanding Latency Hiding on GPUs",
 * Berkeley 2016): a warp throughput per SM bounded by occupancy / latency
 * and by the SM's throughput, scaled to the kernel's warps. */
#ifndef GC_MODEL_LITTLE_H
#define GC_MODEL_LITTLE_H

#include "census/kdesc.h"
#include "analyze/model_hw.h"

extern const int gc_little_params[];
extern const int gc_little_nparams;

/* Cycles-per-warp terms of the throughput bound (document 001 eq. 4.5,
 * one term per unit the census measures). */
enum { LT_FP32 = 0, LT_FP64, LT_INT, LT_SFU, LT_SMEM, LT_ISSUE, LT_GMEM, LT_BLOCK, LT_LSU,
       LT_L2, LT_NTERMS };
extern const char *const gc_little_term_names[LT_NTERMS];

typedef struct gc_little_pred {
    double cycles;                 /* warps launched / (warp throughput x SMs) */
    double exec_ns, ns;            /* without / with the launch floor, lambda = 1 */
    double warps_launched;         /* eq. 4.2 */
    double occupancy_warps;        /* warps resident per SM */
    double cp_cycles;              /* critical path through the warp's instructions */
    double issue_cycles;           /* one warp's instructions issued back to back */
    double block_cycles;           /* block replacement latency (0: not measured) */
    double interval_cycles;        /* block scheduler interval (0: not measured) */
    double latency_bound_cycles;   /* max of the two + block replacement */
    double dram_wait_cycles;       /* queueing of the path's DRAM loads at the kernel's load
                                    * (M/D/1: only a catalogue without bench mlp's latencies) */
    double inflight_per_sm;        /* coalesced-request equivalents in flight per SM */
    double gmem_latency_cycles;    /* a dependent global load's latency on the path */
    const char *gmem_latency_src;  /* the parameter it came from */
    double gmem_tail_cycles;       /* the block's slowest warp's extra wait (its last load) */
    double cpw[LT_NTERMS];         /* cycles per warp, eq. 4.5 */
    int cpw_max;                   /* the largest term */
    double throughput_bound;       /* warps / cycle / SM, eq. 4.6 */
    double latency_rate;           /* occupancy / latency bound, warps / cycle / SM */
    double warp_throughput;        /* eq. 4.3 */
    int latency_limited;           /* latency_rate < throughput_bound */
    double gmem_bytes_per_warp, gmem_bytes_per_cycle_per_sm;
    double active_sms;
} gc_little_pred;

int gc_little_predict(const gc_hwp *h, const gc_mlaunch *l, const gc_kdesc *d,
                      gc_little_pred *o, gc_err *err);

#endif

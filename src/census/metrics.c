/* The one table of benchmark x metric x unit x scale that both backends
 * read (census/metrics.h). A scale is the resolution a histogram keeps:
 * 100 for cycles (0.01 cycle), 1000 for ns, 1 for rates. */
#include "census/metrics.h"

#include <string.h>

/* a far chase (xfer and p2p, mode chase) records what chase does */
#define CHASE_ROWS(b) \
    { b, "latency", "cycles", 100 }, { b, "latency_ns", "ns", 1000 }, { b, "timer_cost", "cycles", 100 }
/* a copy of size_bytes: its time and its bandwidth, bytes counted once */
#define COPY_ROWS(b) { b, "time", "ns", 1000 }, { b, "bandwidth", "bytes_per_s", 1 }

const gc_metric_def gc_metric_defs[] = {
    CHASE_ROWS("chase"),
    { "chase_loaded", "latency", "cycles", 100 },
    { "departure", "completion", "cycles", 100 },
    { "inst", "latency", "cycles", 100 },
    { "inst", "timer_cost", "cycles", 100 },
    { "inst", "throughput", "ops_per_cycle_per_sm", 1000 },
    { "hbm_bw", "bandwidth", "bytes_per_s", 1 },
    { "l2_bw", "bandwidth", "bytes_per_s", 1 },
    { "smem_bw", "bandwidth", "bytes_per_s", 1 },
    { "launch", "time", "ns", 1000 },
    { "launch", "block_interval", "ns", 1000 },
    COPY_ROWS("xfer"),
    { "xfer", "bandwidth_h2d", "bytes_per_s", 1 },
    { "xfer", "bandwidth_d2h", "bytes_per_s", 1 },
    CHASE_ROWS("xfer"),
    COPY_ROWS("p2p"),
    { "p2p", "bandwidth_to_peer", "bytes_per_s", 1 },
    { "p2p", "bandwidth_from_peer", "bytes_per_s", 1 },
    CHASE_ROWS("p2p"),
    COPY_ROWS("net"),
    /* whole ns, as the GPU records it (the sim keeps 1000: backend_sim.c) */
    { "valid", "time", "ns", 1 },
    { "mlp", "latency", "cycles", 100 },
    { "mlp", "sector_cycles", "cycles", 1000 },
    { "sustain", "bandwidth", "bytes_per_s", 1 },
    { "sustain", "flops", "flop_per_s", 1 },
    { "sustain", "sm_clock", "mhz", 100 },
    { "sustain", "power", "w", 100 },
    { "sustain", "temperature", "celsius", 100 },
    { "sustain", "throttled", "none", 1000 },
    { "sustain", "power_capped", "none", 1000 },
};
const size_t gc_metric_ndefs = sizeof gc_metric_defs / sizeof gc_metric_defs[0];

const gc_metric_def *gc_metric_find(const char *bench, const char *metric)
{
    for (size_t i = 0; i < gc_metric_ndefs; i++)
        if (!strcmp(gc_metric_defs[i].bench, bench) && !strcmp(gc_metric_defs[i].metric, metric))
            return &gc_metric_defs[i];
    return NULL;
}

int gc_metric_add_point(gc_point **out, gc_gpu *g, uint32_t item_id, const char *bench,
                        const char *label, const gc_ctx *ctx, const char *metric,
                        uint32_t sub_bits, gc_err *err)
{
    const gc_metric_def *d = gc_metric_find(bench, metric);
    if (!d)
        return gc_fail(err, GC_EINVAL, "%s: no metric '%s' in census/metrics.c", bench, metric);
    *out = gc_gpu_add_point(g, item_id, label, ctx, d->metric, d->unit, d->scale, sub_bits);
    return *out ? 0 : gc_fail(err, GC_ENOMEM, "out of memory adding a point");
}

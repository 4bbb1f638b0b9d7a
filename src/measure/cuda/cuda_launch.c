/* Launch overhead: back_to_back = event time of a batch of empty launches
 * / batch (device-side rate); launch_sync = host clock around one launch +
 * stream synchronize. One sample per batch or per launch, in ns.
 * blocks = the block scheduler: one launch of BLOCKS_PER_SM empty blocks
 * per SM; sample = launch time / blocks per SM, the interval at which one
 * SM retires a block and receives the next (metric block_interval). With
 * resident = "full" an SM holds as many blocks as fit (the scheduler's
 * throughput); with "one", dummy shared memory lets it hold one at a time,
 * so the interval is the latency from a block's end to the next one's
 * start (the block-replacement latency of the Little's-law model). */
#include "measure/cuda/cuda.h"

#include <string.h>

#define BATCH 100
#define BLOCKS_PER_SM 4096   /* ~0.3 ms per launch at ~80 ns per block: launch cost < 2% */

static int block_churn(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    uint32_t total = gc_cuda_samples(t, 50);
    int threads = (int)gc_cuda_num(t, "block_threads");
    int one = strcmp(gc_cuda_str(t, "resident"), "one") == 0;
    /* more than half an SM's shared memory: one block per SM */
    size_t smem = one ? (size_t)c->dev.smem_per_block_optin_bytes : 0;
    int resident = 0;
    uint32_t grid = BLOCKS_PER_SM * (uint32_t)c->dev.sm_count;
    double *ns = gc_cuda_host(c, total, err);
    if (!ns)
        return GC_ENOMEM;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "block_interval", err);
    if (!p)
        return GC_ENOMEM;
    char msg[256] = "";
    uint32_t done = 0;
    while (done < total) {
        uint32_t n = total - done < 10 ? total - done : 10;
        if (gck_block_churn_run(n, grid, threads, smem, &resident, ns, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        if (one && resident != 1)
            return gc_fail(err, GC_EDEVICE, "launch blocks: %zu bytes of shared memory leave %d "
                           "blocks per SM, not one", smem, resident);
        for (uint32_t i = 0; i < n; i++)
            gc_cuda_record(&g->points[ip], ns[i] / BLOCKS_PER_SM);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", grid);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "blocks_per_sm", BLOCKS_PER_SM);
    gc_ctx_set_num(x, "resident_blocks_per_sm", resident);
    gc_ctx_set_num(x, "smem_dynamic_bytes", (double)smem);
    return 0;
}

int gc_cuda_launch(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    if (strcmp(gc_cuda_str(t, "mode"), "blocks") == 0)
        return block_churn(c, t, g, err);
    gck_launch_mode mode = strcmp(gc_cuda_str(t, "mode"), "launch_sync") == 0
                               ? GCK_LAUNCH_SYNC : GCK_LAUNCH_BACK_TO_BACK;
    int sync = mode == GCK_LAUNCH_SYNC;
    uint32_t total = gc_cuda_samples(t, sync ? 1000 : 200);
    double *ns = gc_cuda_host(c, total, err);
    if (!ns)
        return GC_ENOMEM;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "time", err);
    if (!p)
        return GC_ENOMEM;
    char msg[256] = "";
    uint32_t done = 0, chunk = sync ? 200 : 20;
    while (done < total) {
        uint32_t n = total - done < chunk ? total - done : chunk;
        if (gck_launch_run(mode, n, BATCH, ns, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        for (uint32_t i = 0; i < n; i++)
            gc_cuda_record(&g->points[ip], ns[i]);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_str(x, "timer", sync ? "host" : "events");
    if (!sync)
        gc_ctx_set_num(x, "batch", BATCH);
    return 0;
}

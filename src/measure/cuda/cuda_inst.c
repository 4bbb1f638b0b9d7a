/* Instruction latency and throughput drivers.
 * latency: cycles per dependent instruction = (window - twin median) /
 * GCK_WINDOW, for ilp interleaved chains (ilp > 1 shows the pipelining).
 * throughput: warp-lane operations per SM cycle, one sample per SM and
 * launch: the SM's blocks' thread operations / (last block end - first
 * block start). i32_add counts one op per IADD3 (x + a + b). */
#include "measure/cuda/cuda.h"

#include <string.h>

int gc_cuda_inst(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    const char *opn = gc_cuda_str(t, "op");
    gck_inst_op op = gck_inst_op_find(opn);
    if (op == GCK_INST_NONE)
        return gc_fail(err, GC_EINVAL, "inst: unknown op '%s'", opn);
    int ilp = (int)gc_cuda_num(t, "ilp");
    if (ilp < 1 || ilp > 8)
        return gc_fail(err, GC_EINVAL, "inst: ilp %d outside 1..8", ilp);
    int tp = strcmp(gc_cuda_str(t, "mode"), "throughput") == 0;
    char msg[256] = "";
    uint32_t total = gc_cuda_samples(t, tp ? 1000 : 500), launches = gc_cuda_launches(t);
    if (!tp) {
        uint32_t per = (total + launches - 1) / launches;
        size_t ip = g->npoints;
        gc_point *p = gc_cuda_point(c, t, g, "latency", err);
        gc_point *q = p ? gc_cuda_point(c, t, g, "timer_cost", err) : NULL;
        if (!q)
            return GC_ENOMEM;
        uint64_t cyc, ns;
        if (gck_inst_latency(op, ilp, 1, per, &c->scratch, &cyc, &ns, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        double twin = gc_cuda_median_u32(c->scratch.h_samples, per);
        for (uint32_t i = 0; i < per; i++)
            gc_cuda_record(&g->points[ip + 1], c->scratch.h_samples[i]);
        double lo = 0, hi = 0;
        uint32_t done = 0;
        for (uint32_t l = 0; l < launches && done < total; l++) {
            uint32_t n = total - done < per ? total - done : per;
            if (gck_inst_latency(op, ilp, 0, n, &c->scratch, &cyc, &ns, msg, sizeof msg))
                return gc_fail(err, GC_EDEVICE, "%s", msg);
            if (ns)
                gc_cuda_clock_seen(c, (double)cyc / ns * 1000.0, &lo, &hi);
            for (uint32_t i = 0; i < n; i++)
                gc_cuda_record(&g->points[ip], ((double)c->scratch.h_samples[i] - twin) / GCK_WINDOW);
            done += n;
            if (gc_cuda_over(c))
                break;
        }
        for (int k = 0; k < 2; k++) {
            gc_ctx *x = &g->points[ip + k].ctx;
            gc_ctx_set_num(x, "chain_steps", GCK_WINDOW);
            gc_ctx_set_num(x, "timer_cost_median_cycles", twin);
        }
        return 0;
    }
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "throughput", err);
    if (!p)
        return GC_ENOMEM;
    int blocks = 0, threads = 0, bps = 0, nsm = 0;
    uint64_t ops = 0;
    uint32_t done = 0;
    /* launch 0 is a warm-up (clocks ramp, caches of the code) */
    for (uint32_t l = 0; done < total; l++) {
        if (gck_inst_throughput(op, ilp, 0, &c->scratch, &blocks, &threads, &bps, &ops, &nsm,
                                msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        if (l > 0) {
            const uint32_t *h = c->scratch.h_samples;
            for (int i = 0; i < nsm; i++)
                gc_cuda_record(&g->points[ip], (double)h[2 * i + 1] * ops / h[2 * i]);
            done += (uint32_t)(nsm > 0 ? nsm : 1);
        }
        if (l >= launches && gc_cuda_over(c))
            break;
        if (l > launches + 64)
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "blocks_per_sm", bps);
    gc_ctx_set_num(x, "ops_per_block", (double)ops);
    return 0;
}

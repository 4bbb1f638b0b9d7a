/* Memory-level parallelism and scattered accesses (bench `mlp`;
 * kernels/mlp.cu). One sample per launch: the median over warps of SM
 * cycles per round of R requests.
 *   mode inflight: metric "latency" (cycles): a DRAM request's latency when
 *     every SM keeps warps_per_sm x requests coalesced 128-byte requests in
 *     flight; context inflight_per_sm = that product.
 *   mode scatter_load / scatter_store: metric "sector_cycles" (cycles): SM
 *     cycles per 32-byte sector of requests whose 32 lanes lie in 32
 *     lines (cycles per round / (warps_per_sm x requests x 32)).
 *   mode inflight_sync: as inflight with a barrier ending every round (the
 *     latency of the slowest of a 256-thread block's 8 warps);
 *   mode inflight_copy: as inflight with as many stores as loads each round
 *     (context inflight_per_sm: loads + stores, 2 x warps_per_sm x requests);
 *   mode gather: metric "latency" (cycles): a dependent load whose 32
 *     lanes each follow a pseudo-random chain of lines over the footprint
 *     (the chain is written by the first launch of the item);
 *   mode oneshot / oneshot_sync: metric "latency" (cycles): one-shot blocks
 *     of block_threads (load, [barrier,] store, exit) at 64 warps per SM: how
 *     long a block holds its slots beyond its warps' own lives (the mean
 *     over blocks of its span minus its warps' mean life without waits).
 * Each launch starts where the previous one stopped (inflight: never the
 * lines of the last launch, so the reads miss L2 whatever the warps). */
#include "measure/cuda/cuda.h"

#include <string.h>

static const char *const modes[] = { GCK_MLP_MODES(GCK_ENUM_NAME) };

int gc_cuda_mlp(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    const char *mn = gc_cuda_str(t, "mode");
    gck_mlp_mode mode = GCK_MLP_NMODES;
    for (int i = 0; i < GCK_MLP_NMODES; i++)
        if (strcmp(mn, modes[i]) == 0)
            mode = (gck_mlp_mode)i;
    if (mode == GCK_MLP_NMODES)
        return gc_fail(err, GC_EINVAL, "mlp: unknown mode '%s'", mn);
    size_t fp = (size_t)gc_cuda_num(t, "footprint_bytes");
    int w = (int)gc_cuda_num(t, "warps_per_sm"), r = (int)gc_cuda_num(t, "requests");
    int oneshot = mode == GCK_MLP_ONESHOT_SYNC || mode == GCK_MLP_ONESHOT;
    if (oneshot)   /* one-shot: warps per block in r's place, 64 warps per SM */
        w = 64, r = (int)gc_cuda_num(t, "block_threads") / 32;
    int rc = gc_cuda_big(c, fp, err);
    if (rc)
        return rc;
    c->chain_valid = 0;   /* the chase's chain in the buffer is overwritten */
    /* rounds per warp: enough to dwarf the start; a scattered store's launch
     * stays near one pass over its footprint */
    /* metric latency, else sector_cycles */
    int lat = mode != GCK_MLP_SCATTER_LOAD && mode != GCK_MLP_SCATTER_STORE;
    uint32_t iters = !lat ? 16 : mode == GCK_MLP_GATHER ? 256 : 64;
    uint32_t total = gc_cuda_samples(t, 20);
    size_t ip = g->npoints;
    if (!gc_cuda_point(c, t, g, lat ? "latency" : "sector_cycles", err))
        return GC_ENOMEM;
    int sms = c->dev.sm_count;
    uint64_t words = fp / 4, base = 0;
    /* words a launch reads */
    uint64_t step = (uint64_t)sms * (uint64_t)w * iters * (uint64_t)(oneshot ? 1 : r) * 32u;
    char msg[256] = "";
    for (uint32_t done = 0; done < total; done++) {
        double cyc = 0;
        if (gck_mlp_run(&c->scratch, c->big, fp, mode, w, r, sms, iters, base, &cyc, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        if (cyc > 0)
            gc_cuda_record(&g->points[ip], lat ? cyc : cyc / ((double)w * r * 32));
        /* gather: the next launch starts its lanes elsewhere on the chain */
        base = mode == GCK_MLP_GATHER ? base + 7919 : (base + step) & (words - 1);
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "inflight_per_sm", (double)w * (oneshot ? 1 : r) *
                                         (mode == GCK_MLP_INFLIGHT_COPY ? 2 : 1));
    gc_ctx_set_num(x, "rounds", iters);
    return 0;
}

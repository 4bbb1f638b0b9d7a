/* Parameters of bench mlp (src/measure/cuda/cuda_mlp.c, kernels/mlp.cu), for the
 * kernel-time models (model_hw.c):
 *   dram_inflight_latency_cycles_n<N>  a DRAM request's latency when each SM
 *       keeps N coalesced 128-byte requests in flight (of the warps x
 *       requests = N points, the one with the most warps);
 *   dram_inflight_sync_latency_cycles_n<N>  the same with a barrier ending
 *       each round: the slowest of a 256-thread block's 8 warps;
 *   dram_inflight_copy_latency_cycles_n<N>  the loads' latency when each
 *       round also stores as much (N counts loads and stores);
 *   scatter_load_sector_cycles / scatter_store_sector_cycles  SM cycles per
 *       sector of requests with one lane per line: loads at the smallest
 *       footprint (L2-resident, the gather of a vector that fits), stores
 *       at the largest (a transpose of a matrix that does not fit); the
 *       other footprint as scatter_load_dram_sector_cycles /
 *       scatter_store_l2_sector_cycles; loads at a footprint every SM's L1
 *       holds (<= 128 KiB) as scatter_load_l1_sector_cycles (the rows of
 *       a CSR matrix a thread reads a word a trip: 7 of 8 sectors hit L1);
 *   gather_latency_cycles  a dependent load whose 32 lanes lie in 32
 *       random lines of the largest footprint (mode gather);
 *   oneshot_excess_cycles_t<T> / oneshot_sync_excess_cycles_t<T>  how long
 *       a one-shot block of T threads (load, [barrier,] store) holds its
 *       slots beyond its warps' own lives at 64 warps per SM (modes oneshot,
 *       oneshot_sync). */
#include "analyze/derive.h"
#include "analyze/derive_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* requests in flight per SM: the cuda driver's context, else the item's */
static double inflight_of(const gc_point *p)
{
    double copy = strcmp(gc_ctx_str(&p->ctx, "mode", ""), "inflight_copy") ? 1 : 2;
    return gc_ctx_num(&p->ctx, "inflight_per_sm", copy * gc_ctx_num(&p->ctx, "warps_per_sm", 64) *
                                                       gc_ctx_num(&p->ctx, "requests", 1));
}

static int mlp_point(const gc_point *p, const char *metric)
{
    return dv_usable(p) && strcmp(p->bench, "mlp") == 0 && strcmp(p->metric, metric) == 0;
}

/* Per N, the point with the most warps (the fewest requests per warp):
 * along warps_per_sm at one request, then requests at the most warps. */
static void inflight(gc_gpu *g, const char *mode, const char *prefix)
{
    double seen[64];
    size_t ns = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        double n = inflight_of(p);
        if (!mlp_point(p, "latency") || !(n > 0) || strcmp(gc_ctx_str(&p->ctx, "mode", ""), mode))
            continue;
        size_t k = 0;
        while (k < ns && seen[k] != n)
            k++;
        if (k < ns || ns == 64)
            continue;
        seen[ns++] = n;
        const gc_point *best = p;
        for (size_t j = i + 1; j < g->npoints; j++) {
            const gc_point *q = &g->points[j];
            if (mlp_point(q, "latency") && !strcmp(gc_ctx_str(&q->ctx, "mode", ""), mode) &&
                inflight_of(q) == n &&
                gc_ctx_num(&q->ctx, "warps_per_sm", 0) > gc_ctx_num(&best->ctx, "warps_per_sm", 0))
                best = q;
        }
        char name[64], src[96];
        snprintf(name, sizeof name, "%s_n%.0f", prefix, n);
        snprintf(src, sizeof src, "mlp.latency mode=%s warps_per_sm=%.0f requests=%.0f", mode,
                 gc_ctx_num(&best->ctx, "warps_per_sm", 0), gc_ctx_num(&best->ctx, "requests", 1));
        gc_gpu_add_param(g, name, dv_p50(best), "cycles", src);
    }
}

/* A footprint an SM's L1 holds whole (sm_70+: 128 KiB or more of L1 when
 * the kernel has no shared memory): every line of it hits L1. */
#define MLP_L1_FOOTPRINT_BYTES (128.0 * 1024)

static void scatter(gc_gpu *g, const char *mode, const char *metric, const char *at_l1,
                    const char *at_small, const char *at_large)
{
    const gc_point *l1 = NULL, *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!mlp_point(p, metric) || strcmp(gc_ctx_str(&p->ctx, "mode", ""), mode) != 0)
            continue;
        double fp = gc_ctx_num(&p->ctx, "footprint_bytes", 0);
        if (fp <= MLP_L1_FOOTPRINT_BYTES) {   /* L1-resident: its own parameter */
            if (at_l1 && (!l1 || fp > gc_ctx_num(&l1->ctx, "footprint_bytes", 0)))
                l1 = p;
            continue;
        }
        if (!lo || fp < gc_ctx_num(&lo->ctx, "footprint_bytes", 0))
            lo = p;
        if (!hi || fp > gc_ctx_num(&hi->ctx, "footprint_bytes", 0))
            hi = p;
    }
    const gc_point *ps[3] = { lo, hi, l1 };
    const char *names[3] = { at_small, at_large, at_l1 };
    for (int k = 0; k < 3; k++) {
        /* one footprint only: named by where it lies (beyond L2 or not) */
        if (!ps[k] || (k < 2 && hi == lo && (k == 1) != (gc_ctx_num(&hi->ctx, "footprint_bytes", 0) >
                                                          (double)g->info.l2_bytes)))
            continue;
        char src[96];
        snprintf(src, sizeof src, "mlp.%s mode=%s footprint_bytes=%.0f", metric, mode,
                 gc_ctx_num(&ps[k]->ctx, "footprint_bytes", 0));
        gc_gpu_add_param(g, names[k], dv_p50(ps[k]), "cycles", src);
    }
}

/* one parameter per mode and block size measured (the first point of each) */
static void oneshot(gc_gpu *g, const char *mode)
{
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        if (!mlp_point(p, "latency") || strcmp(gc_ctx_str(&p->ctx, "mode", ""), mode))
            continue;
        double t = gc_ctx_num(&p->ctx, "block_threads", 256);
        char name[64], src[96];
        snprintf(name, sizeof name, "%s_excess_cycles_t%.0f", mode, t);
        if (!isnan(gc_param_value(g, name, NAN)))
            continue;
        snprintf(src, sizeof src, "mlp.latency mode=%s block_threads=%.0f", mode, t);
        gc_gpu_add_param(g, name, dv_p50(p), "cycles", src);
    }
}

void gc_derive_mlp(gc_gpu *g)
{
    oneshot(g, "oneshot");
    oneshot(g, "oneshot_sync");
    inflight(g, "inflight", "dram_inflight_latency_cycles");
    inflight(g, "inflight_sync", "dram_inflight_sync_latency_cycles");
    inflight(g, "inflight_copy", "dram_inflight_copy_latency_cycles");
    scatter(g, "scatter_load", "sector_cycles", "scatter_load_l1_sector_cycles",
            "scatter_load_sector_cycles", "scatter_load_dram_sector_cycles");
    scatter(g, "scatter_store", "sector_cycles", NULL, "scatter_store_l2_sector_cycles",
            "scatter_store_sector_cycles");
    scatter(g, "gather", "latency", NULL, "gather_l2_latency_cycles", "gather_latency_cycles");
}

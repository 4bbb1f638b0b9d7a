/* Which l2_bw point the models get (src/analyze/derive.c, l2_bw_params): the best
 * L2-resident point whose resident blocks do not share chunks, the sharing
 * peak apart; the least shared point where every point shares; a backend
 * that does not report blocks_per_chunk (the sim) as before. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "analyze/derive.h"

static void l2_point(gc_gpu *g, double footprint, const char *order, double share, double bps)
{
    gc_ctx c = { 0 };
    gc_ctx_set_num(&c, "footprint_bytes", footprint);
    gc_ctx_set_str(&c, "order", order);
    if (share > 0)
        gc_ctx_set_num(&c, "blocks_per_chunk", share);
    gc_point *p = gc_gpu_add_point(g, (uint32_t)g->npoints, "l2_bw", &c, "bandwidth",
                                   "bytes_per_s", 1, 12);
    gc_hist_record_n(&p->hist, (uint64_t)bps, 5);
    p->status = GC_PT_OK;
}

static void gpu(gc_gpu *g)
{
    gc_gpu_init(g);
    g->info.sm_count = 132;
    g->info.l2_bytes = 50u << 20;
}

static const gc_param *param(const gc_gpu *g, const char *name)
{
    for (size_t i = 0; i < g->nparams; i++)
        if (!strcmp(g->params[i].name, name))
            return &g->params[i];
    return NULL;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-3 * fabs(b); }

int main(void)
{
    /* a real H100's default plan, in short */
    gc_gpu g;
    gpu(&g);
    l2_point(&g, 1572864, "chunk", 22, 14.904e12);
    l2_point(&g, 1572864, "sweep", 22, 9.509e12);
    l2_point(&g, 16777216, "chunk", 33, 8.586e12);
    l2_point(&g, 25165824, "chunk", 11, 8.199e12);
    l2_point(&g, 25165824, "sweep", 1.375, 8.105e12);
    l2_point(&g, 67108864, "sweep", 1, 9.9e12);   /* past half the L2: never l2_bw_bps */
    gc_derive_params(&g);
    const gc_param *p = param(&g, "l2_bw_bps"), *peak = param(&g, "l2_bw_shared_peak_bps");
    CHECK(p && near(p->value, 8.105e12), "l2_bw_bps %g: the unshared 24 MiB point", p ? p->value : 0);
    CHECK(p && strstr(p->source, "footprint_bytes=25165824") && strstr(p->source, "order=sweep"),
          "source %s", p ? p->source : "");
    CHECK(peak && near(peak->value, 14.904e12), "shared peak %g", peak ? peak->value : 0);
    gc_gpu_free(&g);

    /* every L2-resident point shares: the least shared one, the best apart */
    gpu(&g);
    l2_point(&g, 16777216, "chunk", 33, 8.586e12);
    l2_point(&g, 16777216, "sweep", 4.125, 7.984e12);
    gc_derive_params(&g);
    p = param(&g, "l2_bw_bps");
    CHECK(p && near(p->value, 7.984e12), "least shared %g", p ? p->value : 0);
    CHECK(param(&g, "l2_bw_shared_peak_bps") != NULL, "the 33-per-chunk peak apart");
    gc_gpu_free(&g);

    /* no blocks_per_chunk (the sim backend): the best L2-resident point, no peak */
    gpu(&g);
    l2_point(&g, 8388608, "chunk", 0, 9.0e12);
    l2_point(&g, 16777216, "chunk", 0, 8.5e12);
    gc_derive_params(&g);
    p = param(&g, "l2_bw_bps");
    CHECK(p && near(p->value, 9.0e12), "sim: best %g", p ? p->value : 0);
    CHECK(!param(&g, "l2_bw_shared_peak_bps"), "sim: no peak apart");
    gc_gpu_free(&g);

    /* an L2 smaller than every footprint: the best point there is */
    gpu(&g);
    g.info.l2_bytes = 4u << 20;
    l2_point(&g, 16777216, "sweep", 1, 3.0e12);
    gc_derive_params(&g);
    p = param(&g, "l2_bw_bps");
    CHECK(p && near(p->value, 3.0e12), "small L2: %g", p ? p->value : 0);
    gc_gpu_free(&g);
    CHECK_DONE();
}

/* Per-GPU analysis. See analyze.h. */
#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/derive.h"
#include "util/err.h"

static const char *const status_names[] = { "ok", "partial", "failed", "incomplete" };

const char *gc_gpu_status_name(int s)
{
    return s >= 0 && s <= GC_GPU_INCOMPLETE ? status_names[s] : "?";
}

int gc_gpu_status_worse(int a, int b)
{
    static const int rank[] = { 0, 1, 3, 2 };   /* by GC_GPU_*: ok, partial, failed, incomplete */
    int ra = a >= 0 && a <= GC_GPU_INCOMPLETE ? rank[a] : 3, rb = b >= 0 && b <= GC_GPU_INCOMPLETE ? rank[b] : 3;
    return rb > ra ? b : a;
}

/* Status from progress and failures; a missing shard is decided by
 * load_gpu. */
static void judge(gc_gpu *g)
{
    size_t failed = 0;
    for (size_t i = 0; i < g->npoints; i++)
        failed += g->points[i].status != GC_PT_OK;
    if (!g->complete) {
        /* The rank died or was stopped: what it finished is kept, but the
         * GPU was not measured as the plan asked: nothing says it is bad. */
        g->status = GC_GPU_INCOMPLETE;
        snprintf(g->status_reason, sizeof g->status_reason,
                 "the rank stopped after %u of %u work items (it died, hung or was stopped); "
                 "results up to then are kept", g->items_done, g->items_total);
    } else if (failed) {
        g->status = GC_GPU_PARTIAL;
        snprintf(g->status_reason, sizeof g->status_reason, "%zu of %u work items failed", failed,
                 g->items_total);
    } else {
        g->status = GC_GPU_OK;
        g->status_reason[0] = '\0';
    }
}

/* Decode rank e's blob into g, or make the placeholder of a missing GPU. */
static void load_gpu(const gc_roster_entry *e, const gc_blob *b, gc_gpu *g, gc_record_note *note)
{
    gc_run_meta m;
    gc_err err = { 0 };
    int record = b->data && gc_blob_is_record(b->data, b->len);
    int rc = !b->data ? GC_EINVAL
             : record ? gc_record_decode(b->data, b->len, &m, g, note, &err)
                      : gc_shard_decode(b->data, b->len, &m, g, &err);
    if (b->data && rc == 0 &&
        strcmp(g->info.node, e->node) == 0 && g->info.local_index == e->local_index) {
        judge(g);
        /* A record's parameters were derived on its rank (gc_analyze_local);
         * a shard's are derived here, from the same summaries. */
        if (!record || !g->nparams)
            gc_derive_params(g);
        return;
    }
    if (b->data && !err.msg[0])
        snprintf(err.msg, sizeof err.msg, "shard names %s gpu %d, expected %s gpu %d",
                 g->info.node, g->info.local_index, e->node, e->local_index);
    gc_gpu_free(g);
    snprintf(g->info.node, sizeof g->info.node, "%s", e->node);
    g->info.local_index = e->local_index;
    g->info.rank = e->rank;
    /* nothing received: the rank was lost or stopped (incomplete); a
     * record that does not decode is a failure */
    g->status = b->data ? GC_GPU_FAILED : GC_GPU_INCOMPLETE;
    snprintf(g->status_reason, sizeof g->status_reason, "no results from rank %d: %.120s", e->rank,
             b->data ? err.msg : (b->missing_reason[0] ? b->missing_reason : "nothing received"));
}

int gc_analyze_local(const gc_run_meta *run, gc_gpu *g, const gc_record_note *note, gc_wbuf *rec,
                     gc_err *err)
{
    if (!g->nparams)
        gc_derive_params(g);
    return gc_record_encode(run, g, NULL, note, rec, err);
}

int gc_analyze_gpu(const gc_roster_entry *e, const gc_blob *b, const gc_kdesc_set *descs,
                   gc_analysed *a)
{
    memset(a, 0, sizeof *a);
    load_gpu(e, b, &a->gpu, &a->note);
    /* Each point's summary once, for the node file, the catalogue and the
     * verdicts. */
    a->sums = malloc((a->gpu.npoints ? a->gpu.npoints : 1) * sizeof *a->sums);
    if (!a->sums) {
        gc_analysed_free(a);
        return GC_ENOMEM;
    }
    for (size_t p = 0; p < a->gpu.npoints; p++)
        gc_point_summary(&a->gpu.points[p], &a->sums[p]);
    if (a->gpu.nparams && gc_models_compute(&a->gpu, descs, &a->models) == 0)
        a->models.present = 1;
    return 0;
}

void gc_analysed_free(gc_analysed *a)
{
    gc_gpu_free(&a->gpu);
    free(a->sums);
    gc_models_free(&a->models);
    memset(a, 0, sizeof *a);
}

void gc_analysed_brief(const gc_gpu *g, gc_brief *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->node, sizeof b->node, "%s", g->info.node);
    b->index = g->info.local_index;
    b->status = g->status;
    snprintf(b->name, sizeof b->name, "%s", g->info.name);
    b->l1_cycles = gc_param_value(g, "l1_latency_cycles", 0);
    b->l2_cycles = gc_param_value(g, "l2_latency_cycles", 0);
    b->dram_cycles = gc_param_value(g, "dram_latency_cycles", 0);
    b->hbm_bps = gc_param_value(g, "hbm_bw_bps", 0);
    b->hbm_ratio = gc_param_value(g, "hbm_achieved_ratio", 0);
    for (size_t i = 0; i < g->npoints; i++)
        b->failed_items += g->points[i].status != GC_PT_OK;
}

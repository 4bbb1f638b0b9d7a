/* See sim_rank.h. */
#include "measure/sim/sim_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/backend.h"
#include "census/hist.h"
#include "plan/schedule.h"

int gc_sim_rank_measure(const gc_plan *plan, const gc_item *items, size_t nitems, int ranks,
                        int nodes, int rank, uint32_t sub_bits, gc_gpu *gpu, gc_err *e)
{
    gc_geom g;
    gc_roster_entry *roster = NULL;
    gc_step_task *tasks = NULL;
    size_t ntasks = 0;
    gc_backend *be = NULL;
    gc_gpu_init(gpu);
    int rc = gc_geom_simulated(ranks, nodes, rank, &g, &roster, e);
    if (rc)
        return rc;
    const char *node = roster[rank].node;
    rc = gc_schedule(items, nitems, &g, 0, &tasks, &ntasks, e);
    gc_backend_args a = {
        .plan = plan, .node = node, .node_index = g.node_index, .local_index = g.local_rank,
        .local_size = g.local_size, .rank = rank, .sub_bits = sub_bits,
    };
    if (!rc)
        rc = gc_backend_sim.open(&a, &be, &gpu->info, e);
    if (!rc) {
        snprintf(gpu->info.node, sizeof gpu->info.node, "%s", node);
        gpu->info.local_index = g.local_rank;
        gpu->info.rank = rank;
        gpu->items_total = (uint32_t)ntasks;
        gc_backend_sim.conditions(be, &gpu->start);
        for (size_t i = 0; i < ntasks; i++) {
            gc_task *t = &tasks[i].task;
            const gc_item *it = t->item;
            gc_conditions before, after;
            gc_backend_sim.conditions(be, &before);
            size_t first = gpu->npoints;
            t->deadline_s = 0; /* no wall budget: every sample the plan asks */
            gc_err me = { 0 };
            if (gc_backend_sim.measure(be, t, gpu, &me)) {
                fprintf(stderr, "sim rank %d item %u: %s\n", rank, it->id, me.msg);
                for (size_t k = first; k < gpu->npoints; k++)
                    gc_hist_free(&gpu->points[k].hist);
                gpu->npoints = first;
            }
            gc_backend_sim.conditions(be, &after);
            for (size_t k = first; k < gpu->npoints; k++) {
                gc_point *p = &gpu->points[k];
                p->before = before;
                p->after = after;
                snprintf(p->bench, sizeof p->bench, "%s", it->spec->name);
                if (strcmp(it->spec->label, it->spec->name) != 0)
                    gc_ctx_set_str(&p->ctx, "label", it->spec->label);
            }
            gpu->items_done++;
        }
        gc_backend_sim.conditions(be, &gpu->end);
        gpu->complete = 1;
    }
    if (be)
        gc_backend_sim.close(be);
    if (rc)
        gc_gpu_free(gpu);
    free(tasks);
    free(roster);
    return rc;
}

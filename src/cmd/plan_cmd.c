/* `gpucensus plan`: the plan as the scheduler gives it out. See plan_cmd.h. */
#include "cmd/plan_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/backend.h"
#include "plan/plan.h"
#include "plan/schedule.h"

enum { PLAN_LIST_RANKS = 1024 };   /* ranks whose task lists are printed by default */

static int arg_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static void print_task(const gc_step_task *t)
{
    const gc_item *it = t->task.item;
    printf("  %-10s step %-3d item %-5u %-12s", gc_phase_name(it->phase), t->step, it->id,
           it->spec->label);
    for (int k = 0; k < it->params.n; k++) {
        const gc_ctxv *v = &it->params.v[k];
        if (v->is_str)
            printf(" %s=%s", v->key, v->str);
        else
            printf(" %s=%.17g", v->key, v->num);
    }
    if (t->task.peer_rank >= 0)
        printf(" %s rank %d", t->task.initiator ? "->" : "<-", t->task.peer_rank);
    putchar('\n');
}

int gc_plan_main(int argc, char **argv)
{
    const char *path = NULL;
    int ranks = 1, nodes = 1, all_tasks = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            if (arg_int(argv[++i], 1, 1 << 16, &ranks))
                return fprintf(stderr, "gpucensus plan: --ranks: 1..65536\n"), 2;
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            if (arg_int(argv[++i], 1, 1 << 16, &nodes))
                return fprintf(stderr, "gpucensus plan: --nodes: 1..65536\n"), 2;
        } else if (strcmp(argv[i], "--all-tasks") == 0) {
            all_tasks = 1;
        } else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            return fprintf(stderr, "gpucensus plan: unexpected argument '%s'\n", argv[i]), 2;
    }
    if (!path)
        return fprintf(stderr, "gpucensus plan: which plan?\n"), 2;
    gc_plan p;
    gc_err e = { 0 };
    if (gc_plan_load(path, &p, &e))
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    if (p.sim.present && gc_sim_plan_check(&p, &e)) {
        gc_plan_free(&p);
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    }
    gc_item *items = NULL;
    size_t n = 0;
    int rc = gc_plan_expand(&p, &items, &n, &e);
    printf("plan %s (%s), sha256 %s: %zu benchmarks, %zu work items\n", p.name, p.file, p.sha256,
           p.nbench, n);
    /* budgets: per GPU the items it drives; per node the phases that run
     * one GPU (isolated) or one pair (pair) at a time add up */
    double most[GC_NPHASES] = { 0 }, node_wall = 0, node_max = 0;
    char node[GC_NODE_MAX] = "";
    /* one roster and one index for every rank: linear in ranks */
    gc_geom g;
    gc_geom_index ix = { 0 };
    gc_roster_entry *ro = NULL;
    if (!rc)
        rc = gc_geom_simulated(ranks, nodes, 0, &g, &ro, &e);
    if (!rc && !(rc = gc_geom_index_build(ro, ranks, &ix, &e)))
        g.index = &ix;
    for (int r = 0; !rc && r < ranks; r++) {
        gc_step_task *tasks = NULL;
        size_t nt = 0;
        gc_geom_at(&g, r);
        rc = gc_schedule(items, n, &g, p.pair_budget_s, &tasks, &nt, &e);
        if (!rc) {
            double b[GC_NPHASES];
            gc_schedule_budgets(tasks, nt, b);
            printf("rank %d (node %s, gpu %d): %zu tasks; budget %.1f s on-GPU, transfers %.1f s "
                   "(isolated %.1f, concurrent %.1f, pair %.1f, net %.1f)\n", r, ro[r].node,
                   ro[r].local_index, nt, b[GC_PHASE_GPU],
                   b[GC_PHASE_ISOLATED] + b[GC_PHASE_CONCURRENT] + b[GC_PHASE_PAIR] + b[GC_PHASE_NET],
                   b[GC_PHASE_ISOLATED], b[GC_PHASE_CONCURRENT], b[GC_PHASE_PAIR], b[GC_PHASE_NET]);
            /* a large cluster's lists run to gigabytes: the first ranks'
             * (a node and more) unless asked */
            for (size_t k = 0; (all_tasks || r < PLAN_LIST_RANKS) && k < nt; k++)
                print_task(&tasks[k]);
            for (int ph = 0; ph < GC_NPHASES; ph++)
                most[ph] = b[ph] > most[ph] ? b[ph] : most[ph];
            if (strcmp(node, ro[r].node))   /* a new node */
                node_wall = b[GC_PHASE_CONCURRENT] + b[GC_PHASE_NET];
            node_wall += b[GC_PHASE_ISOLATED] + b[GC_PHASE_PAIR];
            node_max = node_wall > node_max ? node_wall : node_max;
            snprintf(node, sizeof node, "%s", ro[r].node);
        }
        free(tasks);
    }
    gc_geom_index_free(&ix);
    free(ro);
    if (!rc && !all_tasks && ranks > PLAN_LIST_RANKS)
        printf("(the task lists of ranks %d to %d are left out; --all-tasks prints them)\n",
               PLAN_LIST_RANKS, ranks - 1);
    if (!rc)
        printf("estimate (sums of per-item budgets, an upper bound): per GPU %.1f s on-GPU + %.1f s "
               "transfers (isolated %.1f, concurrent %.1f, pair %.1f, net %.1f); per node the "
               "transfer phases take up to %.1f s of wall time (isolated and pair items run one "
               "GPU or one pair at a time)\n",
               most[GC_PHASE_GPU],
               most[GC_PHASE_ISOLATED] + most[GC_PHASE_CONCURRENT] + most[GC_PHASE_PAIR] +
                   most[GC_PHASE_NET],
               most[GC_PHASE_ISOLATED], most[GC_PHASE_CONCURRENT], most[GC_PHASE_PAIR],
               most[GC_PHASE_NET], node_max);
    free(items);
    gc_plan_free(&p);
    if (rc)
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    return 0;
}

/* `gpucensus plan`: the plan as the scheduler gives it out. See plan_cmd.h. */
#include "cmd/plan_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/backend.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "util/args.h"
#include "util/fsutil.h"

const char gc_plan_usage[] =
    "plan PLAN.cfg [--ranks N] [--nodes M] [--only NAME[,NAME...]] [--backend cuda|sim]\n"
    "      [--all-tasks]\n"
    "        validate a plan; print every rank's work list and the budgets\n"
    "\n"
    "  --ranks:  ranks (GPUs) to schedule for (default 1)\n"
    "  --nodes:  nodes they are spread over (default 1)\n"
    "  --only:   only these benchmarks (names or labels), as `run --only` would measure\n"
    "  --backend: sim also checks the sim section (its profile, faults) as a sim run\n"
    "             would; cuda (default) leaves it alone, as a real run does\n"
    "  --all-tasks: every rank's task list (by default the first 1024 ranks'; a large\n"
    "             cluster's lists run to gigabytes)\n"
    "exit codes: 0 valid; 2 bad plan or arguments\n";

enum { PLAN_LIST_RANKS = 1024 };   /* ranks whose task lists are printed by default */

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

enum { PL_RANKS, PL_NODES, PL_ONLY, PL_BACKEND, PL_ALL };
static const gc_opt plan_opts[] = {
    [PL_RANKS] = { "--ranks", 1 }, [PL_NODES] = { "--nodes", 1 }, [PL_ONLY] = { "--only", 1 },
    [PL_BACKEND] = { "--backend", 1 }, [PL_ALL] = { "--all-tasks", 0 },
};

static void print_rank(void *ctx, int r, const gc_roster_entry *ro, const gc_step_task *tasks,
                       size_t nt, const double b[GC_NPHASES])
{
    int all_tasks = *(const int *)ctx;
    printf("rank %d (node %s, gpu %d): %zu tasks; budget %.1f s on-GPU, transfers %.1f s "
           "(isolated %.1f, concurrent %.1f, pair %.1f, net %.1f)\n", r, ro->node,
           ro->local_index, nt, b[GC_PHASE_GPU],
           b[GC_PHASE_ISOLATED] + b[GC_PHASE_CONCURRENT] + b[GC_PHASE_PAIR] + b[GC_PHASE_NET],
           b[GC_PHASE_ISOLATED], b[GC_PHASE_CONCURRENT], b[GC_PHASE_PAIR], b[GC_PHASE_NET]);
    for (size_t k = 0; (all_tasks || r < PLAN_LIST_RANKS) && k < nt; k++)   /* the first ranks' (a node and more) unless asked */
        print_task(&tasks[k]);
}

int gc_plan_main(int argc, char **argv)
{
    const char *path = NULL, *only = NULL, *backend = "cuda";
    int ranks = 1, nodes = 1, all_tasks = 0;
    gc_args a;
    gc_args_init(&a, "gpucensus plan", gc_plan_usage, argc, argv, plan_opts,
                 sizeof plan_opts / sizeof *plan_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        if (k == GC_ARG_HELP)
            return 0;
        if (k == GC_ARG_BAD)
            return GC_EXIT_USAGE;
        if (k == GC_ARG_POS && path)
            return gc_args_unexpected(&a, a.value);
        if (k == GC_ARG_POS)
            path = a.value;
        else if (k == PL_ONLY)
            only = a.value;
        else if (k == PL_BACKEND && strcmp(a.value, "cuda") && strcmp(a.value, "sim"))
            return fprintf(stderr, "gpucensus plan: --backend: cuda or sim\n"), GC_EXIT_USAGE;
        else if (k == PL_BACKEND)
            backend = a.value;
        else if (k == PL_ALL)
            all_tasks = 1;
        else if (gc_args_int(&a, plan_opts[k].name, a.value, 1, 1 << 16, k == PL_RANKS ? &ranks : &nodes))
            return GC_EXIT_USAGE;
    }
    if (!path)
        return gc_args_missing(&a, "which plan? (gpucensus list)");
    char installed[4200];
    path = gc_config_path(path, installed, sizeof installed);
    gc_plan p;
    gc_err e = { 0 };
    if (gc_plan_load(path, &p, &e))
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    if ((only && gc_plan_only_check(&p, only, &e)) ||
        (!strcmp(backend, "sim") && gc_sim_plan_check(&p, &e))) {
        gc_plan_free(&p);
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    }
    gc_item *items = NULL;
    size_t n = 0;
    int rc = gc_plan_expand(&p, &items, &n, &e);
    printf("plan %s (%s), sha256 %s: %zu benchmarks, %zu work items\n", p.name, p.file, p.sha256,
           p.nbench, n);
    gc_plan_budget b;
    if (!rc)
        rc = gc_plan_budget_of(items, n, p.pair_budget_s, ranks, nodes, only, print_rank, &all_tasks, &b, &e);
    if (!rc && !all_tasks && ranks > PLAN_LIST_RANKS)
        printf("(the task lists of ranks %d to %d are left out; --all-tasks prints them)\n",
               PLAN_LIST_RANKS, ranks - 1);
    const double *most = b.most_s;
    if (!rc)
        printf("estimate (sums of per-item budgets, an upper bound): per GPU %.1f s on-GPU + %.1f s "
               "transfers (isolated %.1f, concurrent %.1f, pair %.1f, net %.1f); per node the "
               "transfer phases take up to %.1f s of wall time (isolated and pair items run one "
               "GPU or one pair at a time)\n",
               most[GC_PHASE_GPU], b.per_gpu_s - most[GC_PHASE_GPU], most[GC_PHASE_ISOLATED],
               most[GC_PHASE_CONCURRENT], most[GC_PHASE_PAIR], most[GC_PHASE_NET],
               b.node_transfers_s);
    free(items);
    gc_plan_free(&p);
    if (rc)
        return fprintf(stderr, "gpucensus: %s\n", e.msg), 2;
    return 0;
}

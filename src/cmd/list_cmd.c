/* `gpucensus list`. See list_cmd.h. */
#include "cmd/list_cmd.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/metrics.h"
#include "census/registry.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "util/args.h"
#include "util/datadir.h"
#include "util/quote.h"

#define LIST_MAX_PLANS 256

const char gc_list_usage[] =
    "list [PLAN.cfg...] [--benchmarks|--plans]\n"
    "        the benchmarks (what each measures, its units) and the plans with their\n"
    "        budgets per GPU and per 8-GPU node\n"
    "\n"
    "  PLAN.cfg:      these plans (default: every plan of the installed configs)\n"
    "  --benchmarks:  only the benchmarks\n"
    "  --plans:       only the plans\n"
    "  budgets are sums of per-item budgets (upper bounds; gpucensus plan PLAN --ranks 8\n"
    "  prints them item by item); a run takes less\n"
    "exit codes: 0 done; 2 bad arguments or a given plan that does not load\n";

static void list_benchmarks(void)
{
    printf("%-16s %-10s %s\n", "BENCHMARK", "PHASE", "MEASURES; POINTS (UNIT)");
    for (size_t i = 0; i < gc_bench_ndefs; i++) {
        const gc_bench_def *b = &gc_bench_defs[i];
        printf("%-16s %-10s %s;", b->name, gc_phase_name(b->phase), b->summary);
        const char *sep = " ";
        for (size_t k = 0; k < gc_metric_ndefs; k++)
            if (!strcmp(gc_metric_defs[k].bench, b->name)) {
                printf("%s%s (%s)", sep, gc_metric_defs[k].metric, gc_metric_defs[k].unit);
                sep = ", ";
            }
        putchar('\n');
    }
}

/* One plan's line; explicit: the operator named it (an error is an error). */
static int list_plan(const char *path, int explicit)
{
    gc_plan p;
    gc_err e = { 0 };
    char t[512];
    if (gc_plan_load(path, &p, &e)) {
        if (explicit)
            fprintf(stderr, "gpucensus list: %s\n", e.msg);
        return explicit ? GC_EXIT_USAGE : 0;
    }
    gc_item *items = NULL;
    size_t n = 0;
    gc_plan_budget b;
    int rc = gc_plan_expand(&p, &items, &n, &e);
    if (!rc)
        rc = gc_plan_budget_of(items, n, p.pair_budget_s, 8, 1, NULL, NULL, NULL, &b, &e);
    gc_term_esc(path, t, sizeof t);
    if (rc)
        fprintf(stderr, "gpucensus list: %s\n", e.msg);
    else
        printf("%-40s %-10.10s %5zu %6zu %10.1f %10.1f\n", t, p.name, p.nbench, n, b.per_gpu_s,
               b.per_node_s);
    free(items);
    gc_plan_free(&p);
    return rc ? GC_EXIT_USAGE : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The installed configs' plans (*.cfg that load as plans), sorted. */
static int list_installed(void)
{
    char dir[4096];
    if (gc_configs_dir(dir, sizeof dir)) {
        printf("(no installed configs found next to the binary: gpucensus list PLAN.cfg...)\n");
        return 0;
    }
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[LIST_MAX_PLANS];
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) && n < LIST_MAX_PLANS;) {
        size_t len = strlen(de->d_name);
        if (len > 4 && !strcmp(de->d_name + len - 4, ".cfg") && de->d_name[0] != '.') {
            size_t cap = strlen(dir) + len + 2;
            if ((names[n] = malloc(cap)))
                snprintf(names[n++], cap, "%s/%s", dir, de->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        list_plan(names[i], 0);
        free(names[i]);
    }
    return 0;
}

enum { LS_BENCH, LS_PLANS };
static const gc_opt list_opts[] = { [LS_BENCH] = { "--benchmarks", 0 }, [LS_PLANS] = { "--plans", 0 } };

int gc_list_main(int argc, char **argv)
{
    int bench = 1, plans = 1, given = 0, rc = 0;
    gc_args a;
    gc_args_init(&a, "gpucensus list", gc_list_usage, argc, argv, list_opts,
                 sizeof list_opts / sizeof *list_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        if (k == GC_ARG_HELP)
            return 0;
        if (k == GC_ARG_BAD)
            return GC_EXIT_USAGE;
        if (k == LS_BENCH)
            plans = 0;
        else if (k == LS_PLANS)
            bench = 0;
        else
            given++;
    }
    if (!bench && !plans)
        return fprintf(stderr, "gpucensus list: --benchmarks or --plans, not both\n"), GC_EXIT_USAGE;
    if (bench)
        list_benchmarks();
    if (!plans)
        return 0;
    printf("%s%-40s %-10s %5s %6s %10s %10s\n", bench ? "\n" : "", "PLAN", "NAME", "BENCH", "ITEMS",
           "PER GPU s", "PER NODE s");
    if (!given)
        list_installed();
    /* the given plans, in order */
    gc_args_init(&a, "gpucensus list", gc_list_usage, argc, argv, list_opts,
                 sizeof list_opts / sizeof *list_opts);
    for (int k; given && (k = gc_args_next(&a)) != GC_ARG_END;)
        if (k == GC_ARG_POS && list_plan(a.value, 1))
            rc = GC_EXIT_USAGE;
    printf("(budgets: sums of per-item budgets on 8 GPUs of one node, upper bounds; a run "
           "takes less)\n");
    return rc;
}

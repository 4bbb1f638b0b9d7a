/* gpucensus command line: subcommands and their exit codes. Only `run`
 * initialises MPI; the others are plain programs. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/backend.h"
#include "cmd/check_cmd.h"
#include "util/crash.h"
#include "judge/detect.h"
#include "cmd/history_cmd.h"
#include "kernels.h"
#include "write/merge.h"
#include "plan/plan.h"
#include "cmd/predict_cmd.h"
#include "report/report.h"
#include "run/run.h"
#include "plan/schedule.h"
#include "util/stop.h"
#include "util/version.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpucensus COMMAND [ARGS]\n"
            "  run PLAN.cfg [--backend cuda|sim] [-o OUT] [--sim-nodes N] [--quiet]\n"
            "      [--progress=text|json|off] [--gather-timeout S] [--resume OUT [--resume-reshape]]\n"
            "      [--history DB]\n"
            "        measure every GPU of the job (one MPI rank per GPU); writes OUT/catalogue.json;\n"
            "        progress on stderr once a second; a rank silent S s (default 60) past its\n"
            "        item's budget is lost: partial catalogue, exit 1; --resume measures only\n"
            "        what OUT's shards lack (refused when the job's GPUs are not the old run's,\n"
            "        unless --resume-reshape); --history adds the catalogue to a history database\n"
            "  plan PLAN.cfg [--ranks N] [--nodes M]\n"
            "        validate a plan and print the work list of every rank\n"
            "  merge SHARDS_DIR -o OUT\n"
            "        rebuild OUT/catalogue.json and OUT/nodes/ from the shards alone\n"
            "  check CATALOGUE [--baseline B] [--rules R.cfg] [--json]\n"
            "        verdicts per GPU, link and node; exit 0 ok, 1 suspects, 2 degraded, 3 could not judge\n"
            "  report CATALOGUE [-o REPORT.html [--history DB]]\n"
            "        a table per node (latencies, HBM, host links, P2P, verdict), or one\n"
            "        self-contained HTML page with the plots; exit 3: unreadable catalogue\n"
            "  predict CATALOGUE KERNEL.cfg [--json] | predict CATALOGUE --bytes N [--json]\n"
            "        a kernel's time on every GPU of a catalogue with both models (MWP-CWP,\n"
            "        Little's law), or a transfer's time on every link; exit 3: unreadable catalogue\n"
            "  history add DB OUT... | history show DB [UUID|NODE] [--param NAME] |\n"
            "  history last DB|CATALOGUE NODE [--max-age S]\n"
            "        each GPU's runs over time in an SQLite database; check --baseline DB\n"
            "        judges a run against them (steps and drift)\n"
            "  gpus  print the number of GPUs this process can see\n"
            "  version\n"
            "exit codes: 0 done, 1 failure, 2 bad plan or arguments\n");
}

static int arg_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* The rank the launcher gave this process, for a crash inside MPI_Init
 * (before MPI can tell); -1 when no launcher says. */
static int launcher_rank(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int r;
        const char *v = getenv(vars[i]);
        if (v && arg_int(v, 0, 1 << 30, &r) == 0)
            return r;
    }
    return -1;
}

static int cmd_run(int argc, char **argv)
{
    gc_run_opts o = { .backend = "cuda", .progress = 1 /* GC_PROGRESS_TEXT */ };
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
            o.backend = argv[++i];
        else if (strncmp(argv[i], "--backend=", 10) == 0)
            o.backend = argv[i] + 10;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            o.out_dir = argv[++i];
        else if (strcmp(argv[i], "--sim-nodes") == 0 && i + 1 < argc) {
            if (arg_int(argv[++i], 1, 1 << 20, &o.sim_nodes))
                return fprintf(stderr, "gpucensus: --sim-nodes: a positive integer\n"), 2;
        } else if (strcmp(argv[i], "--quiet") == 0)
            o.quiet = 1;
        else if (strncmp(argv[i], "--progress=", 11) == 0) {
            const char *m = argv[i] + 11;
            o.progress = !strcmp(m, "off") ? 0 : !strcmp(m, "text") ? 1 : !strcmp(m, "json") ? 2 : -1;
            if (o.progress < 0)
                return fprintf(stderr, "gpucensus: --progress: text, json or off\n"), 2;
        } else if (strcmp(argv[i], "--gather-timeout") == 0 && i + 1 < argc) {
            char *end;
            o.gather_timeout_s = strtod(argv[++i], &end);
            if (*end || !(o.gather_timeout_s > 0 && o.gather_timeout_s <= 1e6))
                return fprintf(stderr, "gpucensus: --gather-timeout: seconds, > 0\n"), 2;
        } else if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
            o.resume = argv[++i];
        else if (strcmp(argv[i], "--resume-reshape") == 0)
            o.resume_reshape = 1;
        else if (strcmp(argv[i], "--history") == 0 && i + 1 < argc)
            o.history = argv[++i];
        else if (argv[i][0] != '-' && !o.plan_path)
            o.plan_path = argv[i];
        else
            return fprintf(stderr, "gpucensus run: unexpected argument '%s'\n", argv[i]), 2;
    }
    if (!o.plan_path)
        return fprintf(stderr, "gpucensus run: which plan? (e.g. configs/quick.cfg)\n"), 2;
    /* Ours before MPI_Init, so that Open MPI keeps it (it installs its own
     * only where none is set) and a crash inside MPI_Init is reported too;
     * again after it, in case a library took a signal over. */
    gc_stop_install(1);
    gc_crash_identity(launcher_rank(), NULL, -1);
    gc_crash_stage("MPI_Init");
    /* funneled: rank 0 judges its GPUs' peers on threads of their own
     * while it writes (detect_finish.c, detect_peers.c); only this thread
     * calls MPI */
    int provided = 0;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        gc_detect_allow_threads(0);
    gc_crash_install();
    gc_stop_install(1);
    int world_rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    gc_crash_identity(world_rank, NULL, -1);
    gc_crash_stage("start-up");
    int rc = gc_run_main(&o);
    MPI_Finalize();
    return rc;
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

static int cmd_plan(int argc, char **argv)
{
    const char *path = NULL;
    int ranks = 1, nodes = 1;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            if (arg_int(argv[++i], 1, 1 << 16, &ranks))
                return fprintf(stderr, "gpucensus plan: --ranks: 1..65536\n"), 2;
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            if (arg_int(argv[++i], 1, 1 << 16, &nodes))
                return fprintf(stderr, "gpucensus plan: --nodes: 1..65536\n"), 2;
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
    for (int r = 0; !rc && r < ranks; r++) {
        gc_geom g;
        gc_roster_entry *ro = NULL;
        gc_step_task *tasks = NULL;
        size_t nt = 0;
        rc = gc_geom_simulated(ranks, nodes, r, &g, &ro, &e);
        if (!rc)
            rc = gc_schedule(items, n, &g, p.pair_budget_s, &tasks, &nt, &e);
        if (!rc) {
            double b[GC_NPHASES];
            gc_schedule_budgets(tasks, nt, b);
            printf("rank %d (node %s, gpu %d): %zu tasks; budget %.1f s on-GPU, transfers %.1f s "
                   "(isolated %.1f, concurrent %.1f, pair %.1f, net %.1f)\n", r, ro[r].node,
                   ro[r].local_index, nt, b[GC_PHASE_GPU],
                   b[GC_PHASE_ISOLATED] + b[GC_PHASE_CONCURRENT] + b[GC_PHASE_PAIR] + b[GC_PHASE_NET],
                   b[GC_PHASE_ISOLATED], b[GC_PHASE_CONCURRENT], b[GC_PHASE_PAIR], b[GC_PHASE_NET]);
            for (size_t k = 0; k < nt; k++)
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
        free(ro);
    }
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

static int cmd_merge(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return fprintf(stderr, "gpucensus merge: unexpected argument '%s'\n", argv[i]), 2;
    }
    if (!dir || !out)
        return fprintf(stderr, "usage: gpucensus merge SHARDS_DIR -o OUT\n"), 2;
    if (!*out)
        return fprintf(stderr, "gpucensus merge: -o: the output directory is empty\n"), 2;
    gc_run_meta run;
    gc_catalogue_stats st;
    gc_err e = { 0 };
    if (gc_merge(dir, out, &run, &st, &e)) {
        fprintf(stderr, "gpucensus: merge: %s\n", e.msg);
        return 1;
    }
    gc_report_summary(stdout, &run, &st, out, 0);
    free(st.briefs);
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    return gc_check_main(argc, argv);
}

static int cmd_report(int argc, char **argv)
{
    return gc_report_main(argc, argv);
}

static int cmd_gpus(void)
{
    int n = 0;
    char err[256] = "";
    if (gck_device_count(&n, err, sizeof err)) {
        fprintf(stderr, "gpucensus: %s\n", err);
        return 1;
    }
    printf("%d\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    /* A file-size limit must become a write error we report, not a kill. */
    signal(SIGXFSZ, SIG_IGN);
    /* Outputs are never world-writable, whatever umask we inherit (a
     * catalogue others could rewrite would feed check and the prolog). */
    umask(umask(0) | 002);
    /* A fatal signal is reported before the process dies; SIGINT/SIGTERM
     * leave no temporary behind (a run stops gracefully, see cmd_run). */
    gc_crash_install();
    gc_stop_install(0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "plan") == 0)
        return cmd_plan(argc - 2, argv + 2);
    if (strcmp(cmd, "merge") == 0)
        return cmd_merge(argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 2, argv + 2);
    if (strcmp(cmd, "predict") == 0)
        return gc_predict_main(argc - 2, argv + 2);
    if (strcmp(cmd, "history") == 0)
        return gc_history_main(argc - 2, argv + 2);
    if (strcmp(cmd, "gpus") == 0)
        return cmd_gpus();
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("gpucensus %s (%s)\n", GC_VERSION, GC_GIT_COMMIT);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gpucensus: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}

/* gpucensus command line: subcommands and their exit codes. Only `run`
 * initialises MPI; the others are plain programs. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/merge_cmd.h"
#include "cmd/plan_cmd.h"
#include "cmd/check_cmd.h"
#include "util/crash.h"
#include "judge/detect.h"
#include "cmd/history_cmd.h"
#include "kernels.h"
#include "cmd/predict_cmd.h"
#include "report/report.h"
#include "run/run.h"
#include "util/stop.h"
#include "util/version.h"

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

static int cmd_gpus(int argc, char **argv)
{
    (void)argc, (void)argv;
    int n = 0;
    char err[256] = "";
    if (gck_device_count(&n, err, sizeof err)) {
        fprintf(stderr, "gpucensus: %s\n", err);
        return 1;
    }
    printf("%d\n", n);
    return 0;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("gpucensus %s (%s)\n", GC_VERSION, GC_GIT_COMMIT);
    return 0;
}

/* The commands: name, what runs it (argv after the name), and the lines of
 * the top-level usage (its synopsis, then what it does). */
typedef struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    { "run", cmd_run,
      "  run PLAN.cfg [--backend cuda|sim] [-o OUT] [--sim-nodes N] [--quiet]\n"
      "      [--progress=text|json|off] [--gather-timeout S] [--resume OUT [--resume-reshape]]\n"
      "      [--history DB]\n"
      "        measure every GPU of the job (one MPI rank per GPU); writes OUT/catalogue.json;\n"
      "        progress on stderr once a second; a rank silent S s (default 60) past its\n"
      "        item's budget is lost: partial catalogue, exit 1; --resume measures only\n"
      "        what OUT's shards lack (refused when the job's GPUs are not the old run's,\n"
      "        unless --resume-reshape); --history adds the catalogue to a history database\n" },
    { "plan", gc_plan_main,
      "  plan PLAN.cfg [--ranks N] [--nodes M] [--all-tasks]\n"
      "        validate a plan and print the work list of every rank\n" },
    { "merge", gc_merge_main,
      "  merge SHARDS_DIR -o OUT\n"
      "        rebuild OUT/catalogue.json and OUT/nodes/ from the shards alone\n" },
    { "check", gc_check_main,
      "  check CATALOGUE [--baseline B] [--rules R.cfg] [--json]\n"
      "        verdicts per GPU, link and node; exit 0 ok, 1 suspects, 2 degraded, 3 could not judge\n" },
    { "report", gc_report_main,
      "  report CATALOGUE [-o REPORT.html [--history DB]]\n"
      "        a table per node (latencies, HBM, host links, P2P, verdict), or one\n"
      "        self-contained HTML page with the plots; exit 3: unreadable catalogue\n" },
    { "predict", gc_predict_main,
      "  predict CATALOGUE KERNEL.cfg [--json] | predict CATALOGUE --bytes N [--json]\n"
      "        a kernel's time on every GPU of a catalogue with both models (MWP-CWP,\n"
      "        Little's law), or a transfer's time on every link; exit 3: unreadable catalogue\n" },
    { "history", gc_history_main,
      "  history add DB OUT... | history show DB [UUID|NODE] [--param NAME] |\n"
      "  history last DB|CATALOGUE NODE [--max-age S]\n"
      "        each GPU's runs over time in an SQLite database; check --baseline DB\n"
      "        judges a run against them (steps and drift)\n" },
    { "gpus", cmd_gpus, "  gpus  print the number of GPUs this process can see\n" },
    { "version", cmd_version, "  version\n" },
    { "--version", cmd_version, NULL },
};

static void usage(FILE *f)
{
    fputs("usage: gpucensus COMMAND [ARGS]\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (commands[i].usage)
            fputs(commands[i].usage, f);
    fputs("exit codes: 0 done, 1 failure, 2 bad plan or arguments\n", f);
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
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].main(argc - 2, argv + 2);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gpucensus: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}

/* gpucensus command line: subcommands and their exit codes. Only `run`
 * initialises MPI; the others are plain programs. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/list_cmd.h"
#include "cmd/merge_cmd.h"
#include "cmd/plan_cmd.h"
#include "cmd/check_cmd.h"
#include "util/crash.h"
#include "util/fsutil.h"
#include "judge/detect.h"
#include "cmd/history_cmd.h"
#include "kernels.h"
#include "cmd/predict_cmd.h"
#include "report/report.h"
#include "run/run.h"
#include "util/args.h"
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

static const char run_usage[] =
    "run PLAN.cfg [--backend cuda|sim] [-o OUT] [--only NAME[,NAME...]] [--sim-nodes N]\n"
    "      [--quiet] [--progress text|json|off] [--gather-timeout S] [--resume OUT\n"
    "      [--resume-reshape]] [--force] [--history DB]\n"
    "        measure every GPU of the job (one MPI rank per GPU); write OUT/catalogue.json\n"
    "\n"
    "  --backend:        cuda (default) or sim (the simulator, configs/sim; never a fallback)\n"
    "  -o:               the output directory (default: the plan's output, %t a UTC timestamp)\n"
    "  --only:           only these benchmarks of the plan (names or labels, gpucensus list)\n"
    "  --sim-nodes:      simulated nodes (sim backend; default the plan's sim.nodes)\n"
    "  --quiet:          no summary, no progress\n"
    "  --progress:       on stderr once a second: text (default), json lines, or off\n"
    "  --gather-timeout: a rank silent S s (default 60) past its item's budget is lost:\n"
    "                    partial catalogue, exit 1\n"
    "  --resume:         measure only what OUT's shards lack (refused when the job's GPUs\n"
    "                    are not the old run's, unless --resume-reshape)\n"
    "  --force:          replace a run already in OUT (without it, or --resume, an OUT\n"
    "                    that holds a run is refused: exit 2)\n"
    "  --history:        add the catalogue to a history database\n"
    "exit codes: 0 done; 1 a failure during the run (a lost rank, a signal, an MPI error);\n"
    "            2 bad plan or arguments, or a refused --resume\n";

enum { RUN_BACKEND, RUN_OUT, RUN_ONLY, RUN_SIM_NODES, RUN_QUIET, RUN_PROGRESS, RUN_GATHER,
       RUN_RESUME, RUN_RESHAPE, RUN_FORCE, RUN_HISTORY };
static const gc_opt run_opts[] = {
    [RUN_BACKEND] = { "--backend", 1 },  [RUN_OUT] = { "-o", 1 },
    [RUN_ONLY] = { "--only", 1 },        [RUN_SIM_NODES] = { "--sim-nodes", 1 },
    [RUN_QUIET] = { "--quiet", 0 },      [RUN_PROGRESS] = { "--progress", 1 },
    [RUN_GATHER] = { "--gather-timeout", 1 }, [RUN_RESUME] = { "--resume", 1 },
    [RUN_RESHAPE] = { "--resume-reshape", 0 }, [RUN_FORCE] = { "--force", 0 },
    [RUN_HISTORY] = { "--history", 1 },
};

/* run's arguments into o; -1 to go on, else the exit code. */
static int run_args(int argc, char **argv, gc_run_opts *o)
{
    gc_args a;
    gc_args_init(&a, "gpucensus run", run_usage, argc, argv, run_opts,
                 sizeof run_opts / sizeof *run_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        const char *v = a.value;
        switch (k) {
        case GC_ARG_HELP: return 0;
        case GC_ARG_BAD: return GC_EXIT_USAGE;
        case GC_ARG_POS:
            if (o->plan_path)
                return gc_args_unexpected(&a, v);
            o->plan_path = v;
            break;
        case RUN_BACKEND: o->backend = v; break;
        case RUN_OUT: o->out_dir = v; break;
        case RUN_ONLY: o->only = v; break;
        case RUN_SIM_NODES:
            if (gc_args_int(&a, "--sim-nodes", v, 1, 1 << 20, &o->sim_nodes))
                return GC_EXIT_USAGE;
            break;
        case RUN_QUIET: o->quiet = 1; break;
        case RUN_PROGRESS:
            o->progress = !strcmp(v, "off") ? 0 : !strcmp(v, "text") ? 1 : !strcmp(v, "json") ? 2 : -1;
            if (o->progress < 0)
                return fprintf(stderr, "gpucensus run: --progress: text, json or off\n"), GC_EXIT_USAGE;
            break;
        case RUN_GATHER:
            if (gc_args_seconds(&a, "--gather-timeout", v, 1e6, &o->gather_timeout_s))
                return GC_EXIT_USAGE;
            break;
        case RUN_RESUME: o->resume = v; break;
        case RUN_RESHAPE: o->resume_reshape = 1; break;
        case RUN_FORCE: o->force = 1; break;
        case RUN_HISTORY: o->history = v; break;
        }
    }
    if (!o->plan_path)
        return gc_args_missing(&a, "which plan? (e.g. configs/quick.cfg; gpucensus list)");
    static char installed_plan[4200];   /* a plan of the installation ($GPUCENSUS_HOME) */
    o->plan_path = gc_config_path(o->plan_path, installed_plan, sizeof installed_plan);
    return -1;
}

static int cmd_run(int argc, char **argv)
{
    gc_run_opts o = { .backend = "cuda", .progress = 1 /* GC_PROGRESS_TEXT */ };
    int arc = run_args(argc, argv, &o);
    if (arc >= 0)
        return arc;
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

/* A command without options: -h/--help, else nothing. */
static int no_args(const char *cmd, const char *use, int argc, char **argv)
{
    gc_args a;
    gc_args_init(&a, cmd, use, argc, argv, NULL, 0);
    int k = gc_args_next(&a);
    return k == GC_ARG_END ? -1 : k == GC_ARG_HELP ? 0 : k == GC_ARG_POS ? gc_args_unexpected(&a, a.value)
                                                                      : GC_EXIT_USAGE;
}

static const char gpus_usage[] =
    "gpus\n"
    "        print the number of GPUs this process can see\n"
    "\n"
    "exit codes: 0; 1 cannot count them; 2 bad arguments\n";

static int cmd_gpus(int argc, char **argv)
{
    int arc = no_args("gpucensus gpus", gpus_usage, argc, argv);
    if (arc >= 0)
        return arc;
    int n = 0;
    char err[256] = "";
    if (gck_device_count(&n, err, sizeof err)) {
        fprintf(stderr, "gpucensus: %s\n", err);
        return 1;
    }
    printf("%d\n", n);
    return 0;
}

static const char version_usage[] =
    "version\n"
    "        the version and commit of this build\n"
    "\n"
    "exit codes: 0; 2 bad arguments\n";

static int cmd_version(int argc, char **argv)
{
    int arc = no_args("gpucensus version", version_usage, argc, argv);
    if (arc >= 0)
        return arc;
    printf("gpucensus %s (%s)\n", GC_VERSION, GC_GIT_COMMIT);
    return 0;
}

/* The commands: name, what runs it (argv after the name), and its usage
 * (util/args.h: the synopsis that `gpucensus help` lists, then details). */
typedef struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    { "run", cmd_run, run_usage },
    { "plan", gc_plan_main, gc_plan_usage },
    { "list", gc_list_main, gc_list_usage },
    { "merge", gc_merge_main, gc_merge_usage },
    { "check", gc_check_main, gc_check_usage },
    { "report", gc_report_main, gc_report_usage },
    { "predict", gc_predict_main, gc_predict_usage },
    { "history", gc_history_main, gc_history_usage },
    { "gpus", cmd_gpus, gpus_usage },
    { "version", cmd_version, version_usage },
    { "--version", cmd_version, NULL },
};

static void usage(FILE *f)
{
    fputs("usage: gpucensus COMMAND [ARGS]   (gpucensus COMMAND --help: its options in full)\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (commands[i].usage)
            gc_args_print_usage(f, commands[i].usage, 1);
    fputs("  help, -h, --help\n"
          "        this text\n"
          "options take `--opt V` or `--opt=V`; -h/--help works on every command\n"
          "exit codes: 0 done, 1 failure, 2 bad plan or arguments; check, history last,\n"
          "report, predict: 3 could not judge or read (each command's --help)\n", f);
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
        for (size_t i = 0; argc > 2 && i < sizeof commands / sizeof *commands; i++)
            if (commands[i].usage && strcmp(argv[2], commands[i].name) == 0) {
                gc_args_print_usage(stdout, commands[i].usage, 0);
                return 0;
            }
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gpucensus: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}

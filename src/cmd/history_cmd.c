/* `gpucensus history add|show|last`. See history_cmd.h. */
#include "cmd/history_cmd.h"
#include "util/quote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>

#include "util/args.h"
#include "util/fsutil.h"
#include "util/grow.h"
#include "read/history.h"
#include "cmd/verdict_file.h"
#include "util/quote.h"
#include "util/timeutil.h"

/* The parameters `show` (and the report's history view) print by default. */
static const char *const MAIN_PARAMS[] = { "hbm_bw_bps", "l2_bw_bps", "l1_latency_cycles",
                                           "l2_latency_cycles", "dram_latency_cycles", "launch_ns" };
#define NMAIN (sizeof MAIN_PARAMS / sizeof *MAIN_PARAMS)

const char gc_history_usage[] =
    "history add DB OUT|CATALOGUE... [--timeout S] | history show DB [UUID|NODE|NODE/gpuN]\n"
    "      [--param NAME] | history last DB|CATALOGUE|DIR|FILE.verdict NODE [--max-age S] |\n"
    "      history publish DB DIR [--node NODE]...\n"
    "        each GPU's runs over time in an SQLite database; check --baseline DB\n"
    "        judges a run against them (steps and drift)\n"
    "\n"
    "  add:   store each run (one transaction each); --timeout: wait S s for a lock\n"
    "  show:  the GPUs it knows; a GPU's (UUID or NODE/gpuN, as check names it) or a\n"
    "         node's GPUs' main parameters run by run, with units; --param: one parameter\n"
    "  last:  the node's last verdict in one line (NHC): from the database, a catalogue,\n"
    "         or the verdict file the history host published (DIR/NODE.verdict);\n"
    "         --max-age: older is no verdict\n"
    "  publish: DIR/NODE.verdict (read-only, atomic) for every node of DB, or --node's\n"
    "exit codes: add: 0 added; 1 database locked, corrupt or foreign (nothing changed);\n"
    "            2 bad arguments; 3 unreadable catalogue; 4 already there\n"
    "            show: 0; 1 database error or no such GPU; 2 bad arguments\n"
    "            last: 0 ok; 1 suspect; 2 degraded or failed, or bad arguments;\n"
    "            3 no verdict, unreadable, missing or too old\n"
    "            publish: 0 written; 1 database or file error; 2 bad arguments\n";

static int usage(void)
{
    fprintf(stderr, "gpucensus history: add, show, last or publish (gpucensus history --help)\n");
    return GC_HIST_USAGE;
}

/* The verb's loop: -1 to go on, else the exit code. */
static int verb_arg(int k)
{
    return k == GC_ARG_HELP ? 0 : k == GC_ARG_BAD ? GC_HIST_USAGE : -1;
}

int gc_history_add_path(const char *db, const char *out, double timeout_s, gc_err *err)
{
    char path[4200];
    gc_catalogue_path(out, path, sizeof path);
    gc_hcat c;
    if (gc_catread_hist(path, &c, err))
        return GC_HIST_CATALOGUE;
    gc_history *h;
    int code = GC_HIST_OK;
    if (gc_history_open(db, 1, timeout_s, &h, err))
        code = GC_HIST_DB;
    else {
        long long unknown;
        if (gc_history_migrated(h, &unknown))
            printf("%s: migrated to history schema 2 (method versions); %lld stored values are of "
                   "unknown method (a benchmark's method changed on or before their run): never "
                   "compared (check names them)\n", db, unknown);
        int rc = gc_history_add(h, &c, path, err);
        /* refused for what the catalogue says (a bad start time, a UUID twice) */
        code = !rc ? GC_HIST_OK : rc == GC_EEXIST ? GC_HIST_DUP : rc == GC_EINVAL ? GC_HIST_CATALOGUE
                                                                                : GC_HIST_DB;
        gc_history_close(h);
    }
    gc_hcat_free(&c);
    return code;
}

/* The exit code of several adds: a database error first, then an unreadable
 * catalogue, then a duplicate. */
static int worse(int a, int b)
{
    static const int rank[] = { [GC_HIST_OK] = 0, [GC_HIST_DUP] = 1, [GC_HIST_CATALOGUE] = 2,
                                [GC_HIST_DB] = 3 };
    return rank[b] > rank[a] ? b : a;
}

static int cmd_add(int argc, char **argv)
{
    const char *db = NULL;
    const char **outs = calloc((size_t)argc + 1, sizeof *outs);
    double timeout_s = GC_HISTORY_TIMEOUT_S;
    int worst = GC_HIST_OK, nout = 0;
    if (!outs)
        return fprintf(stderr, "gpucensus history: out of memory\n"), GC_HIST_DB;
    static const gc_opt opts[] = { { "--timeout", 1 } };
    gc_args a;
    gc_args_init(&a, "gpucensus history add", gc_history_usage, argc, argv, opts, 1);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        int v = verb_arg(k);
        if (v < 0 && k == 0 && gc_args_seconds(&a, "--timeout", a.value, 1e9, &timeout_s))
            v = GC_HIST_USAGE;
        if (v >= 0) {
            free(outs);
            return v;
        }
        if (k == GC_ARG_POS && !db)
            db = a.value;
        else if (k == GC_ARG_POS)
            outs[nout++] = a.value;
    }
    if (!db || !nout) {
        free(outs);
        return gc_args_missing(&a, "DB and at least one OUT|CATALOGUE");
    }
    for (int i = 0; i < nout; i++) {
        gc_err e = { 0 };
        int rc = gc_history_add_path(db, outs[i], timeout_s, &e);
        if (rc)
            fprintf(stderr, "gpucensus history: %s\n", e.msg);
        else
            printf("added %s to %s\n", outs[i], db);
        worst = worse(worst, rc);
    }
    free(outs);
    return worst;
}

static void print_value(double v)
{
    if (isfinite(v))
        printf(" %14.6g", v);
    else
        printf(" %14s", "-");
}

/* One GPU, run by run: the given parameters as columns. */
static int show_gpu(gc_history *h, const gc_hgpu *g, const char *const *params, size_t np,
                    gc_err *err)
{
    gc_hpoint *all = NULL;
    size_t nall = 0, cap = 0;
    int *col = NULL;
    int rc = 0;
    for (size_t k = 0; k < np && !rc; k++) {
        gc_hquery q = { .uuid = g->uuid, .param = params[k] };
        gc_hpoint *p;
        size_t n;
        if ((rc = gc_history_series(h, &q, &p, &n, err)))
            break;
        size_t cc = cap;
        if (gc_grow((void **)&all, &cap, nall + n, sizeof *all) ||
            gc_grow((void **)&col, &cc, nall + n, sizeof *col))
            rc = gc_fail(err, GC_ENOMEM, "out of memory");
        for (size_t i = 0; !rc && i < n; i++) {
            all[nall] = p[i];
            col[nall++] = (int)k;
        }
        free(p);
    }
    if (!rc) {
        printf("\n%s  %s/gpu%d  %s  (%ld runs, %s .. %s)\n", gc_esc(g->uuid), gc_esc(g->node), g->index,
               gc_esc(g->name), g->runs, gc_esc(g->first_time), gc_esc(g->last_time));
        printf("%-20s %-12s %-12s %-8s %-8s", "TIME", "PLAN", "COMMIT", "NODE", "VERDICT");
        if (np == 1)   /* one parameter: its method too (values of two are never compared) */
            printf(" %6s", "METHOD");
        for (size_t k = 0; k < np; k++)
            printf(" %14.14s", params[k]);
        putchar('\n');
        /* the units, as the catalogues gave them */
        printf("%-20s %-12s %-12s %-8s %-8s", "", "", "", "", "");
        if (np == 1)
            printf(" %6s", "");
        for (size_t k = 0; k < np; k++) {
            const char *u = "";
            for (size_t i = 0; i < nall && !*u; i++)
                if (col[i] == (int)k)
                    u = all[i].unit;
            char b[32];
            snprintf(b, sizeof b, "[%.12s]", *u ? u : "?");
            printf(" %14.14s", b);
        }
        putchar('\n');
        /* rows: one per run, in time order (series come oldest first) */
        char done_time[32] = "";
        long long last_t = -1;
        for (;;) {
            long long t = -1;
            const gc_hpoint *row = NULL;
            for (size_t i = 0; i < nall; i++)
                if ((all[i].t_s > last_t || (all[i].t_s == last_t && strcmp(all[i].time, done_time) > 0)) &&
                    (t < 0 || all[i].t_s < t))
                    t = all[i].t_s, row = &all[i];
            if (!row)
                break;
            printf("%-20s %-12.12s %-12.12s %-8.8s %-8s", gc_esc(row->time), gc_esc(row->plan),
                   gc_esc(row->commit), gc_esc(row->node),
                   row->level >= 0 ? gc_verdict_name(row->level) : "-");
            if (np == 1 && row->method > 0)
                printf(" %6d", row->method);
            else if (np == 1)
                printf(" %6s", "-");
            for (size_t k = 0; k < np; k++) {
                double v = NAN;
                for (size_t i = 0; i < nall; i++)
                    if (col[i] == (int)k && all[i].t_s == t)
                        v = all[i].value;
                print_value(v);
            }
            putchar('\n');
            last_t = t;
            snprintf(done_time, sizeof done_time, "%s", row->time);
        }
    }
    free(all);
    free(col);
    return rc;
}

static int cmd_show(int argc, char **argv)
{
    const char *db = NULL, *who = NULL, *param = NULL;
    static const gc_opt opts[] = { { "--param", 1 } };
    gc_args a;
    gc_args_init(&a, "gpucensus history show", gc_history_usage, argc, argv, opts, 1);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        int v = verb_arg(k);
        if (v >= 0)
            return v;
        if (k == 0)
            param = a.value;
        else if (!db)
            db = a.value;
        else if (!who)
            who = a.value;
        else
            return gc_args_unexpected(&a, a.value);
    }
    if (!db)
        return gc_args_missing(&a, "which database?");
    gc_history *h;
    gc_err e = { 0 };
    gc_hgpu *g = NULL;
    size_t n = 0;
    /* NODE/gpuN, as check names a GPU: the node's GPUs, then that one */
    char node[64];
    int index = -1;
    const char *sl = who ? strstr(who, "/gpu") : NULL;
    if (sl && sl > who && (size_t)(sl - who) < sizeof node && sl[4] >= '0' && sl[4] <= '9' &&
        strspn(sl + 4, "0123456789") == strlen(sl + 4) && strlen(sl + 4) <= 4) {
        snprintf(node, sizeof node, "%.*s", (int)(sl - who), who);
        index = atoi(sl + 4);
    }
    int rc = gc_history_open(db, 0, GC_HISTORY_TIMEOUT_S, &h, &e);
    if (!rc)
        rc = gc_history_gpus(h, index >= 0 ? node : who, &g, &n, &e);
    size_t kept = 0;
    for (size_t i = 0; !rc && index >= 0 && i < n; i++)
        if (g[i].index == index)
            g[kept++] = g[i];
    if (index >= 0)
        n = kept;
    if (!rc && who && !n)
        rc = gc_fail(&e, GC_EINVAL, "%s: no GPU with UUID, node or NODE/gpuN %s", db, who);
    if (!rc && !who && !param) {
        printf("%-44s %-16s %-28s %5s %-20s %s\n", "UUID", "GPU", "NAME", "RUNS", "LAST RUN", "VERDICT");
        for (size_t i = 0; i < n; i++) {
            char at[96];
            snprintf(at, sizeof at, "%s/gpu%d", gc_esc(g[i].node), g[i].index);
            printf("%-44s %-16s %-28.28s %5ld %-20s %s\n", gc_esc(g[i].uuid), at, gc_esc(g[i].name),
                   g[i].runs, gc_esc(g[i].last_time), gc_esc(g[i].verdict));
        }
    }
    for (size_t i = 0; !rc && (who || param) && i < n; i++) {
        const char *one[1] = { param };
        rc = show_gpu(h, &g[i], param ? one : MAIN_PARAMS, param ? 1 : NMAIN, &e);
    }
    free(g);
    gc_history_close(h);
    if (rc)
        fprintf(stderr, "gpucensus history: %s\n", e.msg);
    return rc ? GC_HIST_DB : 0;
}

/* A published verdict: SRC is a FILE.verdict, or a folder of them (a
 * folder with a catalogue.json is a run's OUT instead). path: the file. */
static int verdict_source(const char *src, const char *node, char *path, size_t cap)
{
    size_t n = strlen(src), ns = strlen(GC_VFILE_SUFFIX);
    struct stat st;
    char cat[4200];
    if (n > ns && !strcmp(src + n - ns, GC_VFILE_SUFFIX))
        return snprintf(path, cap, "%s", src), 1;
    if (stat(src, &st) || !S_ISDIR(st.st_mode))
        return 0;
    snprintf(cat, sizeof cat, "%s/catalogue.json", src);
    if (!stat(cat, &st))
        return 0;
    if (gc_vfile_path(src, node, path, cap))
        snprintf(path, cap, "%s/?%s", src, GC_VFILE_SUFFIX);
    return 1;
}

static int verdict_read(const char *path, const char *node, gc_vfile *f, gc_err *err)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    f->v.level = -1;
    if (!gc_name_ok(node))
        return gc_fail(err, GC_EINVAL, "'%s' is not a node name", node);
    if (lstat(path, &st) && errno == ENOENT)
        return gc_fail(err, GC_EINVAL, "%s: missing: no verdict of %s was published (the host that "
                       "keeps the history writes it: `gpucensus history publish DB DIR`, "
                       "slurm/daily.sh --publish DIR)", path, node);
    return gc_vfile_read(path, node, f, err);
}

static int cmd_last(int argc, char **argv)
{
    const char *src = NULL, *node = NULL;
    double max_age_s = 0;
    static const gc_opt opts[] = { { "--max-age", 1 } };
    gc_args a;
    gc_args_init(&a, "gpucensus history last", gc_history_usage, argc, argv, opts, 1);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        int v = verb_arg(k);
        if (v < 0 && k == 0 && gc_args_seconds(&a, "--max-age", a.value, 1e9, &max_age_s))
            v = GC_HIST_USAGE;
        if (v >= 0)
            return v;
        if (k == 0)
            continue;
        if (src && node)
            return gc_args_unexpected(&a, a.value);
        if (!src)
            src = a.value;
        else
            node = a.value;
    }
    if (!src || !node)
        return gc_args_missing(&a, "DB|CATALOGUE and NODE");
    gc_hnode v;
    gc_err e = { 0 };
    char vpath[4200] = "", published[64] = "";
    int rc;
    struct stat st;
    if (stat(src, &st) && errno == ENOENT && !strstr(src, GC_VFILE_SUFFIX)) {
        fprintf(stderr, "gpucensus history: %s: missing: no history database, catalogue or folder of "
                "published verdicts there\n", src);
        return 3;
    }
    if (verdict_source(src, node, vpath, sizeof vpath)) {
        gc_vfile f;
        rc = verdict_read(vpath, node, &f, &e);
        v = f.v;
        if (!rc)
            snprintf(published, sizeof published, ", published %s", f.published);
    } else if (gc_history_is_db(src)) {
        gc_history *h;
        rc = gc_history_open(src, 0, GC_HISTORY_TIMEOUT_S, &h, &e);
        if (!rc)
            rc = gc_history_last_node(h, node, &v, &e);
        gc_history_close(h);
    } else {
        char path[4200];
        gc_catalogue_path(src, path, sizeof path);
        gc_hcat c;
        rc = gc_catread_hist(path, &c, &e);
        size_t k = 0;
        while (!rc && k < c.nnodes && strcmp(c.nodes[k].name, node))
            k++;
        if (!rc && k == c.nnodes)
            rc = gc_fail(&e, GC_EINVAL, "%s: no verdict for node %s", path, node);
        if (!rc) {
            memset(&v, 0, sizeof v);
            snprintf(v.node, sizeof v.node, "%s", node);
            snprintf(v.time, sizeof v.time, "%s", c.start_time);
            snprintf(v.plan, sizeof v.plan, "%s", c.plan_name);
            snprintf(v.reason, sizeof v.reason, "%s", c.nodes[k].v.reason);
            v.t_s = gc_iso_parse_s(c.start_time);
            v.level = c.nodes[k].v.level;
        }
        gc_hcat_free(&c);
    }
    if (rc) {
        fprintf(stderr, "gpucensus history: %s\n", e.msg);
        return 3;
    }
    double age_s = difftime(time(NULL), (time_t)v.t_s);
    /* one line NHC shows: every field from the database or the file escaped */
    char nodes_e[128], time_e[64], plan[128], reason[1024];
    gc_term_esc(v.node, nodes_e, sizeof nodes_e);
    gc_term_esc(v.time, time_e, sizeof time_e);
    gc_term_esc(v.plan, plan, sizeof plan);
    gc_term_esc(v.reason, reason, sizeof reason);
    printf("%s: %s at %s (plan %s%s)%s%s\n", nodes_e, v.level >= 0 ? gc_verdict_name(v.level) : "no verdict",
           time_e, plan, published, reason[0] ? ": " : "", reason);
    if (max_age_s > 0 && age_s > max_age_s) {
        fprintf(stderr, "gpucensus history: %s: the last census is %.0f s old (more than %.0f s)%s%s%s\n",
                gc_esc(node), age_s, max_age_s, vpath[0] ? ": " : "", vpath[0] ? gc_esc(vpath) : "",
                vpath[0] ? " is stale (the host that keeps the history publishes it after each census)" : "");
        return 3;
    }
    return v.level < 0 ? 3 : v.level >= GC_V_DEGRADED ? 2 : v.level;
}

int gc_history_main(int argc, char **argv)
{
    if (argc < 1)
        return usage();
    if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))
        return gc_args_print_usage(stdout, gc_history_usage, 0), 0;
    if (!strcmp(argv[0], "add"))
        return cmd_add(argc - 1, argv + 1);
    if (!strcmp(argv[0], "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(argv[0], "last"))
        return cmd_last(argc - 1, argv + 1);
    if (!strcmp(argv[0], "publish"))
        return gc_vfile_publish_main(argc - 1, argv + 1);
    fprintf(stderr, "gpucensus history: unknown verb '%s'\n", argv[0]);
    return usage();
}

/* `gpucensus history add|show|last`. See history_cmd.h. */
#include "cmd/history_cmd.h"
#include "util/quote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/fsutil.h"
#include "util/grow.h"
#include "read/history.h"
#include "util/timeutil.h"

/* The parameters `show` (and the report's history view) print by default. */
static const char *const MAIN_PARAMS[] = { "hbm_bw_bps", "l2_bw_bps", "l1_latency_cycles",
                                           "l2_latency_cycles", "dram_latency_cycles", "launch_ns" };
#define NMAIN (sizeof MAIN_PARAMS / sizeof *MAIN_PARAMS)

static int usage(void)
{
    fprintf(stderr,
            "usage: gpucensus history add DB OUT|CATALOGUE... [--timeout S]\n"
            "       gpucensus history show DB [UUID|NODE] [--param NAME]\n"
            "       gpucensus history last DB|CATALOGUE NODE [--max-age S]\n"
            "add: exit 0 added, 1 database error (nothing changed: retry), 2 bad arguments,\n"
            "     3 unreadable catalogue, 4 already in the database\n"
            "last: exit 0 ok, 1 suspect, 2 degraded or failed, 3 no verdict, unreadable or too old\n");
    return GC_HIST_USAGE;
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

static int seconds_arg(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return *end || !(*out > 0 && *out <= 1e9);
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
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            if (seconds_arg(argv[++i], &timeout_s)) {
                free(outs);
                return fprintf(stderr, "gpucensus history: --timeout: seconds, > 0\n"), GC_HIST_USAGE;
            }
        } else if (argv[i][0] == '-') {
            free(outs);
            return fprintf(stderr, "gpucensus history add: unexpected argument '%s'\n", argv[i]), usage();
        } else if (!db)
            db = argv[i];
        else
            outs[nout++] = argv[i];
    if (!db || !nout) {
        free(outs);
        return usage();
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
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--param") && i + 1 < argc)
            param = argv[++i];
        else if (argv[i][0] == '-')
            return fprintf(stderr, "gpucensus history show: unexpected argument '%s'\n", argv[i]), usage();
        else if (!db)
            db = argv[i];
        else if (!who)
            who = argv[i];
        else
            return fprintf(stderr, "gpucensus history show: unexpected argument '%s'\n", argv[i]), usage();
    if (!db)
        return usage();
    gc_history *h;
    gc_err e = { 0 };
    gc_hgpu *g = NULL;
    size_t n = 0;
    int rc = gc_history_open(db, 0, GC_HISTORY_TIMEOUT_S, &h, &e);
    if (!rc)
        rc = gc_history_gpus(h, who, &g, &n, &e);
    if (!rc && who && !n)
        rc = gc_fail(&e, GC_EINVAL, "%s: no GPU with UUID or node %s", db, who);
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

static int cmd_last(int argc, char **argv)
{
    const char *src = NULL, *node = NULL;
    double max_age_s = 0;
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--max-age") && i + 1 < argc) {
            if (seconds_arg(argv[++i], &max_age_s))
                return fprintf(stderr, "gpucensus history: --max-age: seconds, > 0\n"), 3;
        } else if (argv[i][0] == '-' || (src && node))
            return fprintf(stderr, "gpucensus history last: unexpected argument '%s'\n", argv[i]), usage(), 3;
        else if (!src)
            src = argv[i];
        else
            node = argv[i];
    if (!src || !node)
        return usage(), 3;
    gc_hnode v;
    gc_err e = { 0 };
    int rc;
    if (gc_history_is_db(src)) {
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
    /* one line NHC shows: every field from the database escaped */
    printf("%s: %s at %s (plan %s)%s%s\n", gc_esc(v.node),
           v.level >= 0 ? gc_verdict_name(v.level) : "no verdict", gc_esc(v.time), gc_esc(v.plan),
           v.reason[0] ? ": " : "", gc_esc(v.reason));
    if (max_age_s > 0 && age_s > max_age_s) {
        fprintf(stderr, "gpucensus history: %s: the last census is %.0f s old (more than %.0f s)\n",
                gc_esc(node), age_s, max_age_s);
        return 3;
    }
    return v.level < 0 ? 3 : v.level >= GC_V_DEGRADED ? 2 : v.level;
}

int gc_history_main(int argc, char **argv)
{
    if (argc < 1)
        return usage();
    if (!strcmp(argv[0], "add"))
        return cmd_add(argc - 1, argv + 1);
    if (!strcmp(argv[0], "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(argv[0], "last"))
        return cmd_last(argc - 1, argv + 1);
    fprintf(stderr, "gpucensus history: unknown verb '%s'\n", argv[0]);
    return usage();
}

/* Terminal summary of a run, and `gpucensus report`: the catalogue loaded
 * (report_nodes.c), then the per-node table (here) or the HTML page
 * (report_html.c). The top of the report. See report.h. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_int.h"
#include "util/args.h"

/* Past this many GPUs only the ones that are not ok get a row. */
#define ALL_ROWS_MAX 64

static void cell(FILE *f, double v, int width, int prec)
{
    if (v > 0)
        fprintf(f, " %*.*f", width, prec, v);
    else
        fprintf(f, " %*s", width, "-");
}

void gc_report_summary(FILE *f, const gc_run_meta *run, const gc_catalogue_stats *st,
                       const char *out_dir, double elapsed_s)
{
    int tty = rp_tty(f);
    const char *red = tty ? "\033[31m" : "", *yel = tty ? "\033[33m" : "", *off = tty ? "\033[0m" : "";
    fprintf(f, "gpucensus %s: plan %s, backend %s%s, %d ranks on %d nodes, %.1f s\n",
            run->tool_version, run->plan_name, run->backend,
            strcmp(run->backend, "sim") == 0 ? " (simulated GPUs)" : "", run->ranks, run->nodes,
            elapsed_s);
    /* what was measured, not a verdict (gpucensus check judges): ok is
     * "measured", never a word the verdicts use */
    static const char *const measured[] = { "measured", "partial", "failed", "incomplete" };
    fprintf(f, "%-12s %3s %-10s %6s %6s %6s %8s %6s %6s  %s\n", "node", "gpu", "measured", "L1", "L2",
            "DRAM", "HBM", "HBM", "failed", "name");
    fprintf(f, "%-12s %3s %-10s %6s %6s %6s %8s %6s %6s\n", "", "", "", "cycles", "cycles", "cycles",
            "GB/s", "%theo", "items");
    int shown = 0;
    for (int i = 0; i < st->gpus; i++) {
        const gc_brief *b = &st->briefs[i];
        if (st->gpus > ALL_ROWS_MAX && b->status == GC_GPU_OK)
            continue;
        const char *c = b->status == GC_GPU_FAILED ? red : b->status == GC_GPU_OK ? "" : yel;
        fprintf(f, "%-12s %3d %s%-10s%s", b->node, b->index, c,
                b->status >= 0 && b->status <= GC_GPU_INCOMPLETE ? measured[b->status] : "?",
                *c ? off : "");
        cell(f, b->l1_cycles, 6, 0);
        cell(f, b->l2_cycles, 6, 0);
        cell(f, b->dram_cycles, 6, 0);
        cell(f, b->hbm_bps / 1e9, 8, 0);
        cell(f, b->hbm_ratio * 100, 6, 1);
        fprintf(f, " %6zu  %s\n", b->failed_items, b->name);
        shown++;
    }
    if (shown < st->gpus)
        fprintf(f, "(%d GPUs measured in full not shown)\n", st->gpus - shown);
    fprintf(f, "GPUs measured: %d in full, %d partly (items failed), %d failed, %d incomplete (the run "
               "stopped), on %d nodes; verdicts: gpucensus check %s\n",
            st->ok, st->partial, st->failed, st->incomplete, st->nodes, out_dir);
    fprintf(f, "catalogue: %s/catalogue.json (per node: %s/nodes/)\n", out_dir, out_dir);
    fprintf(f, "report: gpucensus report %s [-o report.html]\n", out_dir);
}

/* ---- `gpucensus report` ------------------------------------------------ */

int rp_tty(FILE *f)
{
    /* Launchers give ranks a pseudo-terminal even when the job's output
     * goes to a file, so a rank of an MPI job never colours. */
    return isatty(fileno(f)) && !getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_RANK") &&
           !getenv("PMIX_RANK") && !getenv("SLURM_PROCID") && !getenv("NO_COLOR");
}

static void num_cell(FILE *f, double v, int width, int prec)
{
    if (isfinite(v))
        fprintf(f, " %*.*f", width, prec, v);
    else
        fprintf(f, " %*s", width, "-");
}

static const char *sku_short(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) ? name : name + 7;
}

static const char *verdict_colour(int level, int colour)
{
    if (!colour)
        return "";
    return level == GC_V_OK ? "\033[32m" : level == GC_V_SUSPECT ? "\033[33m" : level > 0 ? "\033[31m" : "";
}

void rp_table(FILE *f, const rp_cat *c, int colour)
{
    const char *off = colour ? "\033[0m" : "", *bold = colour ? "\033[1m" : "";
    fprintf(f, "gpucensus report %s: plan %s, backend %s%s, %zu GPUs on %zu nodes, %zu links, "
               "started %s\n",
            c->path, c->plan_name, c->backend,
            !strcmp(c->backend, "sim") ? " (simulated GPUs)" : "", c->ngpus, c->nnodes, c->nlinks,
            c->start_time);
    for (size_t k = 0; k < c->nnodes; k++) {
        size_t first, n;
        rp_node_gpus(c, k, &first, &n);
        fprintf(f, "\n%snode %s%s (%zu GPU%s)\n", bold, c->node_names[k], off, n, n == 1 ? "" : "s");
        fprintf(f, "%3s %-20s %6s %6s %6s %8s %6s %7s %7s %7s %7s %8s  %s\n", "gpu", "sku", "L1", "L2",
                "DRAM", "HBM", "HBM", "H2D", "H2D", "D2H", "D2H", "P2P", "verdict");
        fprintf(f, "%3s %-20s %6s %6s %6s %8s %6s %7s %7s %7s %7s %8s\n", "", "", "cycles", "cycles",
                "cycles", "GB/s", "%theo", "GB/s", "lat us", "GB/s", "lat us", "min GB/s");
        for (size_t i = first; i < first + n; i++) {
            const rp_gpu *g = &c->gpus[i];
            fprintf(f, "%3d %-20.20s", g->index, sku_short(g->name));
            num_cell(f, g->l1, 6, 0);
            num_cell(f, g->l2, 6, 0);
            num_cell(f, g->dram, 6, 0);
            num_cell(f, g->hbm_bps / 1e9, 8, 0);
            num_cell(f, g->hbm_ratio * 100, 6, 1);
            num_cell(f, g->h2d_bps / 1e9, 7, 1);
            num_cell(f, g->h2d_alpha * 1e6, 7, 2);
            num_cell(f, g->d2h_bps / 1e9, 7, 1);
            num_cell(f, g->d2h_alpha * 1e6, 7, 2);
            num_cell(f, g->p2p_bps / 1e9, 8, 1);
            const char *vc = verdict_colour(g->verdict, colour);
            fprintf(f, "  %s%s%s", vc, g->verdict >= 0 ? gc_verdict_name(g->verdict) : "-", *vc ? off : "");
            if (strcmp(g->status, "ok")) {
                /* a GPU not measured in full: say why, not the rule */
                if (g->verdict < 0 || strcmp(g->status, gc_verdict_name(g->verdict)))
                    fprintf(f, " (%s)", g->status);
                fprintf(f, ": %.70s", g->status_reason[0] ? g->status_reason : g->status);
            } else if (g->v && g->v->nreasons) {
                /* the first reason, briefly */
                const gc_reason *r = &g->v->reasons[0];
                for (size_t j = 1; j < g->v->nreasons; j++)
                    if (g->v->reasons[j].severity > r->severity)
                        r = &g->v->reasons[j];
                fprintf(f, ": %s %.60s", r->rule, r->metric);
                if (g->v->nreasons > 1)
                    fprintf(f, " (+%zu)", g->v->nreasons - 1);
            }
            fputc('\n', f);
        }
    }
    size_t counts[3][4] = { { 0 } }, nv = gc_detect_count(c->det);
    for (size_t i = 0; i < nv; i++) {
        const gc_verdict *v = gc_detect_verdict(c->det, i);
        counts[v->type][v->level]++;
    }
    static const char *const tn[3] = { "GPUs", "links", "nodes" };
    fputc('\n', f);
    for (int t = 0; t < 3; t++) {
        fprintf(f, "%-6s %5zu ok", tn[t], counts[t][0]);
        for (int l = 1; l < 4; l++) {
            const char *vc = counts[t][l] ? verdict_colour(l, colour) : "";
            fprintf(f, ", %s%zu %s%s", vc, counts[t][l], gc_verdict_name(l), *vc ? off : "");
        }
        fputc('\n', f);
    }
    fprintf(f, "(verdicts as `gpucensus check` gives them: %s, no baseline; reasons: "
               "gpucensus check %s)\n",
            c->as_written ? "the run's, as the catalogue holds them" : "default rules", c->path);
}

#define RP_STR_(x) #x
#define RP_STR(x) RP_STR_(x)
const char gc_report_usage[] =
    "report CATALOGUE|OUT [-o REPORT.html [--history DB] [--node NAME]...]\n"
    "        a table per node (latencies, HBM, host links, P2P, verdict), or one\n"
    "        self-contained HTML page with the plots\n"
    "\n"
    "  -o:        write the HTML page there\n"
    "  --history: the page shows each GPU's main parameters over its runs in the\n"
    "             history database, against its SKU's band\n"
    "  --node:    draw this node in full (its node file read) whatever the census's\n"
    "             size; past " RP_STR(RP_FULL_NODES) " nodes the page draws in full only the nodes with\n"
    "             something not ok (at most " RP_STR(RP_FLAGGED_MAX) ") and a sample of " RP_STR(RP_SAMPLE_NODES) "\n"
    "exit codes: 0 done; 1 could not write the page; 2 bad arguments;\n"
    "            3 unreadable, malformed or schema-invalid catalogue\n";

enum { RP_OUT, RP_NODE, RP_HISTORY };
static const gc_opt report_opts[] = {
    [RP_OUT] = { "-o", 1 }, [RP_NODE] = { "--node", 1 }, [RP_HISTORY] = { "--history", 1 },
};

int gc_report_main(int argc, char **argv)
{
    const char *cat = NULL, *out = NULL, *history = NULL;
    const char **asked = calloc((size_t)argc + 1, sizeof *asked);
    size_t nasked = 0;
    if (!asked)
        return 1;
    gc_args a;
    gc_args_init(&a, "gpucensus report", gc_report_usage, argc, argv, report_opts,
                 sizeof report_opts / sizeof *report_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        if (k == GC_ARG_HELP || k == GC_ARG_BAD || (k == GC_ARG_POS && cat)) {
            free(asked);
            return k == GC_ARG_HELP ? 0 : k == GC_ARG_BAD ? GC_EXIT_USAGE : gc_args_unexpected(&a, a.value);
        }
        if (k == RP_OUT)
            out = a.value;
        else if (k == RP_NODE)
            asked[nasked++] = a.value;
        else if (k == RP_HISTORY)
            history = a.value;
        else
            cat = a.value;
    }
    if (!cat || (history && !out) || (nasked && !out)) {
        free(asked);
        return gc_args_missing(&a, !cat ? "which catalogue?" : "--history and --node need -o PAGE.html");
    }
    rp_cat c;
    gc_err e = { 0 };
    int lrc = rp_load_nodes(cat, asked, nasked, out != NULL, &c, &e);
    free(asked);
    if (lrc) {
        fprintf(stderr, "gpucensus report: %s\n", e.msg);
        rp_free(&c);
        return lrc == GC_EINVAL && strstr(e.msg, "--node ") == e.msg ? 2 : 3;
    }
    int rc = 0;
    if (out) {
        if (rp_html(&c, out, history, &e)) {
            fprintf(stderr, "gpucensus report: %s\n", e.msg);
            rc = 1;
        } else {
            fprintf(stderr, "gpucensus report: wrote %s (%zu GPUs, %zu nodes)\n", out, c.ngpus,
                    c.nnodes);
        }
    } else {
        rp_table(stdout, &c, rp_tty(stdout));
    }
    rp_free(&c);
    return rc;
}

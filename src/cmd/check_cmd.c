/* The check subcommand. See check.h. */
#include "cmd/check_cmd.h"
#include "util/quote.h"
#include "util/strtab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/catread.h"
#include "util/args.h"
#include "util/fsutil.h"
#include "read/history.h"
#include "cmd/prom.h"
#include "judge/rules.h"

#define MAX_SHOWN_REASONS 4

int gc_check_exit_code(const gc_detect *d)
{
    int w = gc_detect_worst(d);
    /* a GPU the run stopped on was not judged: "could not judge" unless
     * something measured is bad enough to drain */
    if (w < GC_V_DEGRADED && gc_detect_incomplete(d))
        return GC_CHECK_ERROR;
    return w == GC_V_OK ? GC_CHECK_OK : w == GC_V_SUSPECT ? GC_CHECK_SUSPECT : GC_CHECK_DEGRADED;
}

static int by_severity(const void *a, const void *b)
{
    return gc_reason_cmp(*(const gc_reason *const *)a, *(const gc_reason *const *)b);
}

/* A Slurm reason: no double quotes or control characters, short. */
/* Slurm's reason: one line (control characters become '?'); the shell
 * quoting is gc_shell_quote's */
static void slurm_reason(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in && n + 1 < cap; in++) {
        unsigned char c = (unsigned char)*in;
        out[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[n] = '\0';
}

/* Text from the catalogue (names, details) with its control characters
 * shown as \xNN: never an escape sequence to the operator's terminal.
 * Rotating buffers: up to four in one printf. */
static const char *T(const char *s)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    gc_term_esc(s, buf[k], sizeof buf[k]);
    return buf[k];
}

/* The first verdict of a GPU or link whose subject is s (a node's
 * member): its subjects interned once (a scan per degraded node was
 * quadratic: thousands of nodes times millions of verdicts). */
static const gc_verdict *member_verdict(const gc_detect *d, gc_strtab *t, long **first,
                                        const char *s)
{
    size_t n = gc_detect_count(d);
    if (!*first) {
        if (!(*first = malloc((n + 1) * sizeof **first)))
            return NULL;
        for (size_t i = 0; i < n; i++) {
            const gc_verdict *x = gc_detect_verdict(d, i);
            if (x->type == GC_SUBJ_NODE)
                continue;
            size_t before = t->n;
            long id = gc_strtab_id(t, x->subject, 1);
            if (id >= 0 && (size_t)id >= before)
                (*first)[id] = (long)i;
        }
    }
    long id = gc_strtab_id(t, s, 0);
    return id >= 0 ? gc_detect_verdict(d, (size_t)(*first)[id]) : NULL;
}

void gc_check_print(FILE *f, const gc_detect *d)
{
    size_t n = gc_detect_count(d), shown = 0, counts[3][4] = { { 0 } }, incomplete = 0;
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (gc_verdict_incomplete(v))
            incomplete++;   /* not judged: counted apart */
        else
            counts[v->type][v->level]++;
    }
    static const char *const tn[3] = { "GPUs", "links", "nodes" };
    char inc[64] = "";
    if (incomplete)
        snprintf(inc, sizeof inc, ", %zu incomplete (not judged)", incomplete);
    for (int t = 0; t < 3; t++)
        fprintf(f, "%-6s %5zu ok, %zu suspect, %zu degraded, %zu failed%s\n", tn[t], counts[t][0],
                counts[t][1], counts[t][2], counts[t][3], t == 0 ? inc : "");
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < n; i++) {
            const gc_verdict *v = gc_detect_verdict(d, i);
            /* ok, with a note: a deviation from the baseline within the subject's own spread */
            int noted = v->level == GC_V_OK && !gc_verdict_incomplete(v) &&
                        (v->noted || strstr(v->note, GC_NOTE_NOISY));   /* (a catalogue before "noted") */
            if (v->type != t || (v->level == GC_V_OK && !noted))
                continue;
            if (!shown++)
                fprintf(f, "\n%-9s %-34s %s\n", "VERDICT", "SUBJECT", "REASONS (worst first: rule: metric: detail)");
            const gc_reason **rs = malloc((v->nreasons ? v->nreasons : 1) * sizeof *rs);
            if (!rs)
                return;
            for (size_t k = 0; k < v->nreasons; k++)
                rs[k] = &v->reasons[k];
            qsort(rs, v->nreasons, sizeof *rs, by_severity);
            for (size_t k = 0; k < v->nreasons && k < MAX_SHOWN_REASONS; k++) {
                const gc_reason *r = rs[k];
                if (k == 0)
                    fprintf(f, "%-9s %-34s ",
                            gc_verdict_incomplete(v) ? "incomplete" : gc_verdict_name(v->level), T(v->subject));
                else
                    fprintf(f, "%-9s %-34s ", "", "");
                if (!strcmp(r->rule, "gpu") || !strcmp(r->rule, "link"))
                    fprintf(f, "%s %s: %s\n", T(r->metric), gc_verdict_name(r->severity), T(r->detail));
                else if (!strcmp(r->rule, r->metric))
                    fprintf(f, "%s: %s\n", T(r->rule), T(r->detail));
                else
                    fprintf(f, "%s: %s: %s\n", T(r->rule), T(r->metric), T(r->detail));
            }
            if (v->nreasons > MAX_SHOWN_REASONS)
                fprintf(f, "%-9s %-34s (+%zu more reasons: gpucensus check --json)\n", "", "",
                        v->nreasons - MAX_SHOWN_REASONS);
            const char *part = v->noted == GC_NOTED_NOISY_HOST_LINK ? strstr(v->note, GC_NOTE_HOST_LINK) : NULL;
            if (part) {   /* that part of the GPU's note alone: the rest is its usual counts */
                char seg[512];
                snprintf(seg, sizeof seg, "%.*s", (int)strcspn(part, ";"), part);
                fprintf(f, "%-9s %-34s note: %s\n", "ok", T(v->subject), T(seg));
            } else if (noted)
                fprintf(f, "%-9s %-34s note: %s\n", "ok", T(v->subject), T(v->note));
            else if (v->note[0])
                fprintf(f, "%-9s %-34s note: %s\n", "", "", T(v->note));
            free(rs);
        }
    /* notes of subjects judged without peers, once each */
    const char *notes[8];
    size_t nn = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (!v->note[0] || v->type != GC_SUBJ_GPU)
            continue;
        size_t k = 0;
        while (k < nn && strcmp(notes[k], v->note) != 0)
            k++;
        if (k == nn) {
            if (nn < 8) {
                notes[nn++] = v->note;
                fprintf(f, "%snote: %s (%s)\n", nn == 1 ? "\n" : "", T(v->note), T(v->group));
            } else {
                more++;
            }
        }
    }
    int drains = 0;
    gc_strtab subjects = { 0 };   /* built at the first drain line */
    long *first_of = NULL;
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (v->type != GC_SUBJ_NODE || v->level < GC_V_DEGRADED)
            continue;
        /* the worst member (GPU first) and its worst reason, briefly */
        const gc_reason *w = gc_verdict_worst_reason(v);
        const gc_verdict *m = NULL;
        int bad = 0;
        for (size_t k = 0; k < v->nreasons; k++)
            bad += v->reasons[k].severity >= GC_V_DEGRADED;
        if (w)
            m = member_verdict(d, &subjects, &first_of, w->metric);
        const gc_reason *mr = m ? gc_verdict_worst_reason(m) : NULL;
        char why[640], safe[640], dev[48] = "", pts[32] = "";
        if (mr && mr->points > 1)
            snprintf(pts, sizeof pts, "%d points)", mr->points);
        if (mr && isfinite(mr->value) && isfinite(mr->reference) && mr->reference != 0 &&
            strcmp(mr->deviation_unit, "wasserstein_rel") && strcmp(mr->deviation_unit, "count"))
            snprintf(dev, sizeof dev, " %+.1f%%", 100 * (mr->value - mr->reference) / fabs(mr->reference));
        if (mr && (!strncmp(mr->rule, "limit_", 6) || !strcmp(mr->rule, mr->metric)))
            snprintf(why, sizeof why, "gpucensus: %s %s: %.150s%s", m->subject,
                     gc_verdict_name(m->level), mr->detail, bad > 1 ? " (and more, see gpucensus check)" : "");
        else if (mr)   /* a grouped reason: the worst of its points, and how many moved */
            snprintf(why, sizeof why, "gpucensus: %s %s: %s %.60s%s%s%s%s", m->subject,
                     gc_verdict_name(m->level), mr->rule, mr->metric, dev,
                     mr->points > 1 ? " (worst of " : "", mr->points > 1 ? pts : "",
                     bad > 1 ? " (and more, see gpucensus check)" : "");
        else
            snprintf(why, sizeof why, "gpucensus: %.200s", w ? w->detail : "degraded");
        slurm_reason(why, safe, sizeof safe);
        /* pasted into a shell: both single-quoted; a name that cannot be
         * (the reader refuses such names; this is the last guard) is skipped */
        char qnode[2 * GC_NODE_MAX + 8], qwhy[4 * sizeof safe + 8];
        if (gc_shell_quote(v->node, qnode, sizeof qnode) || gc_shell_quote(safe, qwhy, sizeof qwhy))
            continue;
        if (!drains++)
            fprintf(f, "\nTo drain the degraded nodes (not run; check, then paste):\n");
        fprintf(f, "  scontrol update NodeName=%s State=DRAIN Reason=%s\n", qnode, qwhy);
    }
    gc_strtab_free(&subjects);
    free(first_of);
}

const char gc_check_usage[] =
    "check CATALOGUE|OUT [--baseline B.json|DIR|DB] [--rules R.cfg] [--json] [--table]\n"
    "      [--prometheus FILE.prom]\n"
    "        verdicts per GPU, link and node; drain lines for the degraded nodes\n"
    "\n"
    "  --baseline:   an earlier catalogue, a reference file, or a directory of them\n"
    "                (configs/baselines: one per SKU), or a history database (each\n"
    "                GPU against its own last good runs: steps and drift)\n"
    "  --rules:      judge again with these rules (configs/rules.cfg)\n"
    "  --json:       one JSON object on stdout: {run, counts, exit_status, verdicts}\n"
    "  --table:      only the per-GPU table of benchmark families (pass, warn, fail, skip)\n"
    "  --prometheus: the verdicts and main parameters for node_exporter's textfile collector\n"
    "  without --baseline or --rules, a catalogue of schema 2 gives the run's own verdicts\n"
    "  (nothing judged again, no node file opened); with either, every GPU is judged again,\n"
    "  its points read from OUT/nodes/<node>.json\n"
    "exit codes: 0 all ok; 1 suspects or inconclusive only; 2 degraded or failed;\n"
    "            3 could not judge (an unreadable catalogue, or GPUs incomplete: the run\n"
    "            stopped early); 2 bad arguments\n";

enum { CK_BASELINE, CK_RULES, CK_JSON, CK_TABLE, CK_PROM };
static const gc_opt check_opts[] = {
    [CK_BASELINE] = { "--baseline", 1 }, [CK_RULES] = { "--rules", 1 }, [CK_JSON] = { "--json", 0 },
    [CK_TABLE] = { "--table", 0 },       [CK_PROM] = { "--prometheus", 1 },
};

/* The per-GPU table (check_table.c), its GPUs' benchmarks and links read
 * from the catalogue if not read already; one that lacks them (a minimal
 * catalogue) gets a line instead. */
static void check_table_of(FILE *f, const gc_detect *d, gc_cat_table *t, gc_hcat *hc, int have_hc,
                           const char *path)
{
    gc_err e = { 0 };
    if (!t->filled && !have_hc && gc_catread_hist(path, hc, &e)) {
        fprintf(f, "\n(no per-GPU table: %s)\n", T(e.msg));
        return;
    }
    if (gc_check_table(f, d, t, hc))
        fprintf(f, "\n(no per-GPU table: out of memory)\n");
}

int gc_check_main(int argc, char **argv)
{
    const char *cat = NULL, *base_path = NULL, *rules_path = NULL, *prom_path = NULL;
    int json = 0, table_only = 0;
    gc_args a;
    gc_args_init(&a, "gpucensus check", gc_check_usage, argc, argv, check_opts,
                 sizeof check_opts / sizeof *check_opts);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        switch (k) {
        case GC_ARG_HELP: return 0;
        case GC_ARG_BAD: return GC_EXIT_USAGE;
        case CK_BASELINE: base_path = a.value; break;
        case CK_RULES: rules_path = a.value; break;
        case CK_JSON: json = 1; break;
        case CK_TABLE: table_only = 1; break;
        case CK_PROM: prom_path = a.value; break;
        default:
            if (cat)
                return gc_args_unexpected(&a, a.value);
            cat = a.value;
        }
    }
    if (!cat)
        return gc_args_missing(&a, "which catalogue?");
    char path[4200];
    gc_catalogue_path(cat, path, sizeof path);
    gc_rules rules;
    gc_err e = { 0 };
    gc_baseline *base = NULL;
    char *hnote = NULL;   /* the history's values not compared (another method) */
    int rc = 0;
    if (rules_path)
        rc = gc_rules_load(rules_path, &rules, &e);
    else
        gc_rules_default(&rules);
    /* the history database and the metrics need the run, parameters and links */
    gc_hcat hc = { 0 };
    int history = base_path && gc_history_is_db(base_path);
    int have_hc = !rc && (history || prom_path);
    if (have_hc)
        rc = gc_catread_hist(path, &hc, &e);
    if (!rc && base_path)
        rc = history ? gc_history_baseline_path(base_path, &hc, &rules, &base, &hnote, &e)
                     : gc_catread_baseline(base_path, &base, &e);
    if (rc) {
        fprintf(stderr, "gpucensus check: %s\n", e.msg);
        gc_hcat_free(&hc);
        free(hnote);
        return GC_CHECK_ERROR;
    }
    if (hnote && json)   /* stdout is the JSON */
        fprintf(stderr, "gpucensus check: %s\n", hnote);
    gc_detect *d = gc_detect_new(&rules, base);
    gc_cat_table table = { 0 };
    gc_catread_info info = { .table = &table };
    int as_written = 0;
    if (!d)
        rc = gc_fail(&e, GC_ENOMEM, "out of memory");
    /* Without a baseline or rules of its own, a compact catalogue's
     * verdicts are the run's (it judged every point; the points are in the
     * node files, not opened here). Otherwise judged again, each GPU's
     * points read from its node file. */
    if (!rc && !base && !rules_path)
        rc = gc_catread_verdicts(path, d, &rules, &info, &as_written, &e);
    else if (!rc)
        rc = gc_catread_catalogue(path, d, &rules, &info, &e);
    if (!rc && info.gpus == 0)
        rc = gc_fail(&e, GC_EINVAL, "%s: no GPU in this catalogue: nothing to judge", path);
    if (!rc)
        rc = gc_detect_finish(d, &e);
    if (!rc && prom_path)
        rc = gc_prom_write(prom_path, &hc, d, &e);
    if (rc) {
        fprintf(stderr, "gpucensus check: %s\n", e.msg);
        gc_hcat_free(&hc);
        gc_cat_table_free(&table);
        gc_detect_free(d);
        gc_baseline_free(base);
        free(hnote);
        return GC_CHECK_ERROR;
    }
    int code = gc_check_exit_code(d);
    if (json) {
        if (gc_check_json(stdout, d, path, &info, code, &e)) {
            fprintf(stderr, "gpucensus check: %s\n", e.msg);
            code = GC_CHECK_ERROR;
        }
    } else if (table_only) {
        check_table_of(stdout, d, &table, &hc, have_hc, path);
    } else {
        printf("gpucensus check %s: %zu GPUs, %zu links (backend %s, plan %s, started %s)\n"
               "rules: %s; baseline: %s\n%s%s%s\n",
               gc_esc(path), info.gpus, info.links, T(info.backend),
               info.plan_name[0] ? T(info.plan_name) : "?", info.start_time[0] ? T(info.start_time) : "?",
               as_written ? "the run's (its verdicts as written; --rules to judge again)"
                          : gc_esc(rules.file),
               base ? gc_esc(gc_baseline_source(base)) : "none (peers and limits)",
               hnote ? "history: " : "", hnote ? gc_esc(hnote) : "", hnote ? "\n" : "");
        gc_check_print(stdout, d);
        check_table_of(stdout, d, &table, &hc, have_hc, path);
        static const char *const what[4] = { "all ok", "suspects or inconclusive only", "degraded or failed",
                                             "could not judge" };
        printf("\nexit %d: %s", code, what[code]);
        if (code == GC_CHECK_ERROR)
            printf(" (%zu GPUs incomplete: the run stopped before they finished; no node drained for "
                   "them; `gpucensus run PLAN --resume OUT` finishes it)", gc_detect_incomplete(d));
        printf("\n");
    }
    gc_hcat_free(&hc);
    gc_cat_table_free(&table);
    gc_detect_free(d);
    gc_baseline_free(base);
    free(hnote);
    return code;
}

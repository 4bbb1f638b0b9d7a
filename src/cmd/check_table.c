/* check's per-GPU table of benchmark families, in the manner of `dcgmi
 * diag`: one row per GPU, a column per family (latency, bandwidth,
 * compute, launch, host link, P2P, network, sustained load, validation,
 * other), each Pass, Warn (suspect), Fail (degraded or failed) or Skip (the
 * plan did not measure it); and check --json's object. Apart from the
 * verdict lines (check_cmd.c) so that each can change alone. */
#include "cmd/check_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "util/jsonw.h"
#include "util/quote.h"
#include "util/strtab.h"

enum { F_LATENCY, F_BANDWIDTH, F_COMPUTE, F_LAUNCH, F_HOST, F_P2P, F_NET, F_SUSTAIN, F_VALID,
       F_OTHER, NFAM };
static const char *const fam_name[NFAM] = { "latency", "bandwidth", "compute", "launch", "host",
                                            "p2p", "net", "sustain", "valid", "other" };
/* each benchmark's family */
static const struct { const char *bench; int fam; } fam_of_bench[] = {
    { "chase", F_LATENCY },   { "chase_loaded", F_LATENCY }, { "departure", F_LATENCY },
    { "mlp", F_LATENCY },     { "hbm_bw", F_BANDWIDTH },     { "l2_bw", F_BANDWIDTH },
    { "smem_bw", F_BANDWIDTH }, { "inst", F_COMPUTE },       { "launch", F_LAUNCH },
    { "xfer", F_HOST },       { "p2p", F_P2P },              { "net", F_NET },
    { "sustain", F_SUSTAIN }, { "valid", F_VALID },
};
#define NFB (sizeof fam_of_bench / sizeof *fam_of_bench)
#define TABLE_ALL_ROWS 64   /* past this many GPUs only the rows not all Pass */

static int family_of_bench(const char *b)
{
    for (size_t i = 0; b && i < NFB; i++)
        if (!strcmp(fam_of_bench[i].bench, b))
            return fam_of_bench[i].fam;
    return F_OTHER;
}

/* A reason's family: its benchmark ("bench.metric" or a derived
 * parameter's), a host-link or NVLink limit, else other (status,
 * conditions, ECC, clocks). */
static int family_of_reason(const gc_reason *r)
{
    char b[64];
    size_t n = strcspn(r->metric, ".");
    snprintf(b, sizeof b, "%.*s", (int)(n < sizeof b ? n : sizeof b - 1), r->metric);
    if (r->metric[n] == '.' && gc_bench_find(b))
        return family_of_bench(b);
    const char *p = gc_bench_of_param(r->metric);
    if (p)
        return family_of_bench(p);
    if (!strncmp(r->metric, "pcie", 4) || !strncmp(r->metric, "h2d", 3) ||
        !strncmp(r->metric, "d2h", 3) || !strcmp(r->rule, "limit_pcie") || !strncmp(r->metric, "numa", 4) || !strncmp(r->metric, "host", 4))
        return F_HOST;
    if (!strncmp(r->metric, "nvlink", 6) || !strncmp(r->metric, "p2p", 3))
        return F_P2P;
    return F_OTHER;
}

/* 0 skip, 1 pass, 2 warn, 3 fail */
static const char *const state_name[4] = { "Skip", "Pass", "Warn", "Fail" };
static int state_of(int level)
{
    return level >= GC_V_DEGRADED ? 3 : level == GC_V_SUSPECT ? 2 : 1;
}
static void worsen(int *s, int level)
{
    int t = state_of(level);
    if (t > *s)
        *s = t;
}

/* The table's input from a gc_hcat (check with --rules, --baseline, a
 * history or --prometheus read it anyway; a schema 1-2 catalogue): the
 * same keys, kinds and the catalogue's link verdicts. */
static int table_of_hcat(gc_cat_table *t, const gc_hcat *hc)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < hc->ngpus; i++) {
        uint32_t m = 0;
        for (size_t b = 0; b < gc_bench_ndefs && b < GC_HC_NBENCH; b++)
            m |= hc->gpus[i].measured[b] ? 1u << b : 0;
        if (gc_cat_table_add_gpu(t, hc->gpus[i].node, hc->gpus[i].index, m))
            return GC_ENOMEM;
    }
    if (!(t->link_level = malloc(hc->nlinks ? hc->nlinks : 1)))
        return GC_ENOMEM;
    for (size_t i = 0; i < hc->nlinks; i++) {
        const gc_hc_link *l = &hc->links[i];
        long key = l->gpu_index < 0 ? -1 : gc_cat_table_key(t, l->node, l->gpu_index);
        int kind = !strncmp(l->cls, "pcie", 4) ? GC_TK_HOST : !strncmp(l->cls, "net", 3) ? GC_TK_NET
                                                                                      : GC_TK_OTHER;
        if (gc_cat_table_add_link(t, key, kind))
            return GC_ENOMEM;
        t->link_level[i] = (signed char)(l->v.level < 0 ? -1 : l->v.level);
    }
    return t->oom ? GC_ENOMEM : 0;
}

/* The catalogue's link verdicts as the detector holds them (check without
 * a baseline or rules: the run's, as written). */
static int levels_of_detector(gc_cat_table *t, const gc_detect *d)
{
    free(t->link_level);
    if (!(t->link_level = malloc(t->nlinks ? t->nlinks : 1)))
        return GC_ENOMEM;
    memset(t->link_level, -1, t->nlinks);
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (v->type == GC_SUBJ_LINK && v->link_index >= 0 && (size_t)v->link_index < t->nlinks)
            t->link_level[v->link_index] = (signed char)v->level;
    }
    return 0;
}

/* Every GPU's families in one pass over the links and one over the
 * verdicts (st: ngpus x NFAM): measured (a method recorded, a link of its
 * kind) pass unless a reason or a link's verdict says otherwise. GPUs are
 * found by key (several GPUs of one key each get what names it). */
static int table_states(gc_cat_table *t, const gc_detect *d, unsigned char *st)
{
    size_t nk = t->keys.n;
    long *first = malloc((nk ? nk : 1) * sizeof *first), *next = malloc((t->ngpus + 1) * sizeof *next);
    const gc_verdict **gv = calloc(nk ? nk : 1, sizeof *gv);
    if (!first || !next || !gv) {
        free(first), free(next), free(gv);
        return GC_ENOMEM;
    }
    for (size_t k = 0; k < nk; k++)
        first[k] = -1;
    for (size_t i = t->ngpus; i-- > 0;) {
        next[i] = first[t->gpus[i].key];
        first[t->gpus[i].key] = (long)i;
        unsigned char *s = st + i * NFAM;
        for (int f = 0; f < NFAM; f++)
            s[f] = f == F_OTHER;   /* status and conditions: always looked at */
        for (size_t b = 0; b < gc_bench_ndefs && b < 32; b++)
            if ((t->gpus[i].measured >> b & 1) && !s[family_of_bench(gc_bench_defs[b].name)])
                s[family_of_bench(gc_bench_defs[b].name)] = 1;
    }
    static const int fam_of_kind[3] = { [GC_TK_OTHER] = F_P2P, [GC_TK_HOST] = F_HOST,
                                        [GC_TK_NET] = F_NET };
    for (size_t i = 0; i < t->nlinks; i++) {
        long key = t->link_key[i];
        int f = fam_of_kind[t->link_kind[i] <= GC_TK_NET ? t->link_kind[i] : GC_TK_OTHER];
        for (long g = key >= 0 && (size_t)key < nk ? first[key] : -1; g >= 0; g = next[g]) {
            int x = st[g * NFAM + f];
            if (!x)
                x = 1;
            if (t->link_level && t->link_level[i] >= 0)
                worsen(&x, t->link_level[i]);
            st[g * NFAM + f] = (unsigned char)x;
        }
    }
    /* a GPU's verdict: the first one naming its node and index */
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (v->type != GC_SUBJ_GPU)
            continue;
        char key[GC_NODE_MAX + 32];
        snprintf(key, sizeof key, "%s\x1f%d", v->node ? v->node : "", v->gpu_index);
        long k = gc_strtab_id(&t->keys, key, 0);
        if (k >= 0 && (size_t)k < nk && !gv[k])
            gv[k] = v;
    }
    for (size_t i = 0; i < t->ngpus; i++) {
        const gc_verdict *v = gv[t->gpus[i].key];
        for (size_t k = 0; v && k < v->nreasons; k++) {
            int f = family_of_reason(&v->reasons[k]), x = st[i * NFAM + f];
            if (!x)
                x = 1;
            worsen(&x, v->reasons[k].severity);
            st[i * NFAM + f] = (unsigned char)x;
        }
    }
    free(first), free(next), free(gv);
    return 0;
}

static void print_table(FILE *f, const gc_cat_table *t, const unsigned char *st)
{
    fprintf(f, "\n%-24s", "GPU");
    for (int k = 0; k < NFAM; k++)
        fprintf(f, k + 1 < NFAM ? " %-9s" : " %s", fam_name[k]);
    fputc('\n', f);
    size_t hidden = 0;
    for (size_t i = 0; i < t->ngpus; i++) {
        const unsigned char *s = st + i * NFAM;
        int bad = 0;
        for (int k = 0; k < NFAM; k++)
            bad |= s[k] > 1;
        if (!bad && t->ngpus > TABLE_ALL_ROWS) {
            hidden++;
            continue;
        }
        const char *key = t->keys.s[t->gpus[i].key];
        char subj[GC_NODE_MAX + 16], out[96];
        snprintf(subj, sizeof subj, "%.*s/gpu%d", (int)strcspn(key, "\x1f"), key, t->gpus[i].index);
        gc_term_esc(subj, out, sizeof out);
        fprintf(f, "%-24s", out);
        for (int k = 0; k < NFAM; k++)
            fprintf(f, k + 1 < NFAM ? " %-9s" : " %s", state_name[s[k]]);
        fputc('\n', f);
    }
    if (hidden)
        fprintf(f, "(%zu more GPUs, all Pass or Skip)\n", hidden);
    fprintf(f, "(Pass: measured, nothing found; Warn: suspect; Fail: degraded or failed; "
               "Skip: not in the plan)\n");
}

int gc_check_table(FILE *f, const gc_detect *d, gc_cat_table *table, const gc_hcat *hc)
{
    gc_cat_table own;
    gc_cat_table *t = table;
    int rc = 0;
    if (t && t->filled) {
        rc = levels_of_detector(t, d);
    } else {
        t = &own;
        rc = table_of_hcat(t, hc);
    }
    unsigned char *st = rc ? NULL : malloc((t->ngpus ? t->ngpus : 1) * NFAM);
    if (!rc && st && !(rc = table_states(t, d, st)))
        print_table(f, t, st);
    free(st);
    if (t == &own)
        gc_cat_table_free(&own);
    return rc || !st ? GC_ENOMEM : 0;
}

int gc_check_json(FILE *f, const gc_detect *d, const char *path, const gc_catread_info *info,
                  int exit_status, gc_err *err)
{
    char *verdicts = gc_detect_json(d, 1);
    char *buf = malloc(GC_JW_BUF);
    if (!verdicts || !buf) {
        free(verdicts);
        free(buf);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    size_t counts[3][4] = { { 0 } };
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        counts[v->type][v->level]++;
    }
    gc_jw w;
    gc_jw_init(&w, f, buf, 0);
    gc_jw_open(&w, "{");
    gc_jw_key(&w, "run");
    gc_jw_open(&w, "{");
    gc_jw_kstr(&w, "catalogue", path);
    gc_jw_kstr(&w, "backend", info->backend);
    gc_jw_kstr(&w, "plan_name", info->plan_name);
    gc_jw_kstr(&w, "start_time", info->start_time);
    gc_jw_kint(&w, "gpus", (long long)info->gpus);
    gc_jw_kint(&w, "links", (long long)info->links);
    gc_jw_close(&w, "}");
    gc_jw_key(&w, "counts");
    gc_jw_open(&w, "{");
    static const char *const tn[3] = { "gpus", "links", "nodes" };
    for (int t = 0; t < 3; t++) {
        gc_jw_key(&w, tn[t]);
        gc_jw_open(&w, "{");
        for (int l = 0; l < 4; l++)
            gc_jw_kint(&w, gc_verdict_name(l), (long long)counts[t][l]);
        gc_jw_close(&w, "}");
    }
    gc_jw_close(&w, "}");
    gc_jw_kint(&w, "exit_status", exit_status);
    gc_jw_key(&w, "verdicts");
    gc_jw_puts(&w, verdicts);
    gc_jw_close(&w, "}");
    gc_jw_put(&w, "\n", 1);
    free(verdicts);
    int rc = gc_jw_finish(&w, "stdout", err);
    free(buf);
    return rc;
}

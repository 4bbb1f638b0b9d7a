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

static const gc_verdict *gpu_verdict(const gc_detect *d, const char *node, int index)
{
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (v->type == GC_SUBJ_GPU && v->gpu_index == index && !strcmp(v->node, node))
            return v;
    }
    return NULL;
}

/* The families of one GPU: measured (a method recorded, a link of its
 * kind) pass unless a reason or a link's verdict says otherwise. */
static void gpu_row(const gc_detect *d, const gc_hcat *hc, const gc_hc_gpu *g, int st[NFAM])
{
    for (int f = 0; f < NFAM; f++)
        st[f] = f == F_OTHER;   /* status and conditions: always looked at */
    for (size_t b = 0; b < gc_bench_ndefs && b < GC_HC_NBENCH; b++)
        if (g->measured[b] && !st[family_of_bench(gc_bench_defs[b].name)])
            st[family_of_bench(gc_bench_defs[b].name)] = 1;
    for (size_t i = 0; i < hc->nlinks; i++) {
        const gc_hc_link *l = &hc->links[i];
        if (l->gpu_index != g->index || strcmp(l->node, g->node))
            continue;
        int f = !strncmp(l->cls, "pcie", 4) ? F_HOST : !strncmp(l->cls, "net", 3) ? F_NET : F_P2P;
        if (!st[f])
            st[f] = 1;
        if (l->v.level >= 0)
            worsen(&st[f], l->v.level);
    }
    const gc_verdict *v = gpu_verdict(d, g->node, g->index);
    for (size_t k = 0; v && k < v->nreasons; k++) {
        int f = family_of_reason(&v->reasons[k]);
        if (!st[f])
            st[f] = 1;
        worsen(&st[f], v->reasons[k].severity);
    }
}

void gc_check_table(FILE *f, const gc_detect *d, const gc_hcat *hc)
{
    fprintf(f, "\n%-24s", "GPU");
    for (int k = 0; k < NFAM; k++)
        fprintf(f, k + 1 < NFAM ? " %-9s" : " %s", fam_name[k]);
    fputc('\n', f);
    size_t hidden = 0;
    for (size_t i = 0; i < hc->ngpus; i++) {
        const gc_hc_gpu *g = &hc->gpus[i];
        int st[NFAM], bad = 0;
        gpu_row(d, hc, g, st);
        for (int k = 0; k < NFAM; k++)
            bad |= st[k] > 1;
        if (!bad && hc->ngpus > TABLE_ALL_ROWS) {
            hidden++;
            continue;
        }
        char subj[GC_NODE_MAX + 16], t[96];
        snprintf(subj, sizeof subj, "%s/gpu%d", g->node, g->index);
        gc_term_esc(subj, t, sizeof t);
        fprintf(f, "%-24s", t);
        for (int k = 0; k < NFAM; k++)
            fprintf(f, k + 1 < NFAM ? " %-9s" : " %s", state_name[st[k]]);
        fputc('\n', f);
    }
    if (hidden)
        fprintf(f, "(%zu more GPUs, all Pass or Skip)\n", hidden);
    fprintf(f, "(Pass: measured, nothing found; Warn: suspect; Fail: degraded or failed; "
               "Skip: not in the plan)\n");
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

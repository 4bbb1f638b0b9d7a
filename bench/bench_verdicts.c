/* The verdicts of a simulated census of N GPUs, healthy and with faults,
 * in one process: what bench/bench_detect.py scores.
 *
 * Each GPU goes the way a run's GPU goes, without MPI and without files:
 * the sim backend measures the items gc_schedule gives its rank
 * (sim_rank.c), the rank derives its parameters and encodes its record
 * (gc_analyze_local), rank 0 analyses the record (gc_analyze_gpu), and the
 * catalogue writer's detector (verdicts.c, with links.c's links) judges the
 * census with the default rules and no baseline, as the run writes its
 * verdicts into catalogue.json. Only the JSON of the catalogue is not
 * written (nor read back by `check`): that is where merge + check spent
 * most of their ~15 s per 1024-GPU quick fleet.
 *
 * With FAULTED.cfg (the same plan and seed plus sim.faults) both censuses
 * come from one pass: a GPU's measurements depend on the faults of its own
 * node (its P2P peers are there) and, for net_bw faults, of its net
 * partners' nodes, so only the nodes a fault can touch are measured again
 * with the faulted plan; every other GPU is the healthy census's, the same
 * numbers the sim would draw again (same seed keys).
 *
 * Not in here: the run's confirming re-measure (confirm.c) and the net
 * checks; verdicts are what the detector says before them, so a finding
 * the run would have measured again and dropped counts here.
 *
 * Output: DIR/healthy.json and DIR/faulted.json (the verdicts array, as
 * catalogue.json's `verdicts` and `check --json`'s), and key=value lines:
 * measure_s, analyse_s, detect_s (detect for each census), gpus_measured.
 *
 * Usage: bench_verdicts [-n GPUS] [-g GPUS_PER_NODE] -o DIR HEALTHY.cfg [FAULTED.cfg] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "util/fsutil.h"
#include "census/hist.h"
#include "util/jsonw.h"
#include "analyze/links.h"
#include "write/links_json.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "census/shard.h"
#include "measure/sim/sim_rank.h"
#include "write/verdicts.h"
#include "util/version.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct census {
    gc_plan plan;
    gc_item *items;
    size_t nitems;
    gc_run_meta meta;
    gc_links *links;
    gc_verdicts *verdicts;
    double detect_s;
} census;

static double measure_s, analyse_s;

static int load(const char *file, census *c, int ranks, int nodes, gc_err *e)
{
    uint32_t sub_bits;
    if (gc_plan_load(file, &c->plan, e))
        return 1;
    if (!c->plan.sim.present)
        return gc_fail(e, GC_EINVAL, "%s has no sim section", file);
    if (gc_hist_sub_bits_for(c->plan.precision, &sub_bits, e) ||
        gc_plan_expand(&c->plan, &c->items, &c->nitems, e))
        return 1;
    gc_run_meta *m = &c->meta;
    snprintf(m->tool_version, sizeof m->tool_version, "%s", GC_VERSION);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", GC_GIT_COMMIT);
    snprintf(m->plan_name, sizeof m->plan_name, "%s", c->plan.name);
    snprintf(m->plan_file, sizeof m->plan_file, "%.255s", c->plan.file);   /* names only */
    snprintf(m->plan_sha256, sizeof m->plan_sha256, "%s", c->plan.sha256);
    snprintf(m->backend, sizeof m->backend, "sim");
    snprintf(m->sim_profile, sizeof m->sim_profile, "%s", c->plan.sim.profile);
    m->seed = c->plan.sim.seed;
    m->precision = c->plan.precision;
    m->sub_bits = sub_bits;
    m->ranks = ranks;
    m->nodes = nodes;
    return 0;
}

/* 1: a fault of plan p can change what a GPU of node measures. */
static int touched(const gc_plan *p, const char *node)
{
    for (size_t i = 0; i < p->sim.nfaults; i++) {
        const gc_fault *f = &p->sim.faults[i];
        if (!f->node[0] || !strcmp(f->node, node) || !strcmp(f->metric, "net_bw"))
            return 1;
    }
    return 0;
}

/* Rank r measured, its record made (into rec, which a borrows from: free
 * it after a) and analysed as rank 0 would. */
static int one_gpu(census *c, const gc_roster_entry *roster, int ranks, int nodes, int r,
                   const gc_kdesc_set *descs, gc_analysed *a, gc_wbuf *rec, gc_err *e)
{
    gc_gpu g;
    double t0 = now_s();
    int rc = gc_sim_rank_measure(&c->plan, c->items, c->nitems, ranks, nodes, r, c->meta.sub_bits,
                                 &g, e);
    if (rc)
        return rc;
    double t1 = now_s();
    gc_record_note note = { 0 };
    rc = gc_analyze_local(&c->meta, &g, &note, rec, e);
    gc_gpu_free(&g);
    gc_blob b = { .data = rec->data, .len = rec->len };
    if (!rc && gc_analyze_gpu(&roster[r], &b, descs, a))
        rc = gc_fail(e, GC_ENOMEM, "out of memory");
    measure_s += t1 - t0;
    analyse_s += now_s() - t1;
    return rc;
}

static int add_node(census *c, gc_analysed *a, size_t n)
{
    gc_gpu *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return GC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        g[i] = a[i].gpu;   /* a shallow view: gc_links copies what it keeps */
        gc_verdicts_gpu(c->verdicts, &a[i].gpu, a[i].sums);
    }
    int rc = gc_links_add_node(c->links, g, n);
    free(g);
    return rc;
}

static int finish(census *c, const char *dir, const char *name, gc_err *e)
{
    FILE *null = fopen("/dev/null", "w");
    char *buf = malloc(GC_JW_BUF);
    if (!null || !buf)
        return gc_fail(e, GC_EIO, "cannot open /dev/null");
    gc_jw w;
    gc_jw_init(&w, null, buf, 1);
    double t0 = now_s();
    gc_links_resolve(c->links);   /* every node added: each link fitted */
    gc_link_view lv;
    for (size_t i = 0; gc_links_view(c->links, i, &lv); i++)
        gc_verdicts_link(c->verdicts, &lv);
    gc_links_json(&w, c->links);   /* the links go to /dev/null */
    char *vt = gc_verdicts_finish(c->verdicts, w.depth0);
    c->verdicts = NULL;
    c->detect_s = now_s() - t0;
    gc_jw_flush(&w);
    fclose(null);
    free(buf);
    if (!vt)
        return gc_fail(e, GC_ENOMEM, "out of memory");
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    int rc = gc_write_atomic(path, vt, strlen(vt), e);
    free(vt);
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_verdicts [-n GPUS] [-g GPUS_PER_NODE] -o DIR HEALTHY.cfg "
                    "[FAULTED.cfg]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int ranks = 64, per_node = 8, opt;
    const char *dir = NULL;
    while ((opt = getopt(argc, argv, "n:g:o:")) != -1) {
        switch (opt) {
        case 'n': ranks = atoi(optarg); break;
        case 'g': per_node = atoi(optarg); break;
        case 'o': dir = optarg; break;
        default: usage();
        }
    }
    int ncens = argc - optind;
    if (!dir || ncens < 1 || ncens > 2 || ranks < 1 || per_node < 1)
        usage();
    int nodes = (ranks + per_node - 1) / per_node;
    census c[2];
    memset(c, 0, sizeof c);
    gc_err e = { 0 };
    for (int k = 0; k < ncens; k++) {
        if (load(argv[optind + k], &c[k], ranks, nodes, &e)) {
            fprintf(stderr, "bench_verdicts: %s\n", e.msg);
            return 1;
        }
    }
    if (ncens == 2 && (c[0].plan.sim.seed != c[1].plan.sim.seed ||
                       strcmp(c[0].plan.sim.profile, c[1].plan.sim.profile) ||
                       c[0].nitems != c[1].nitems)) {
        fprintf(stderr, "bench_verdicts: %s and %s differ in more than sim.faults (seed, "
                        "profile or items)\n", argv[optind], argv[optind + 1]);
        return 1;
    }
    gc_geom g;
    gc_roster_entry *roster = NULL;
    if (gc_geom_simulated(ranks, nodes, 0, &g, &roster, &e) || gc_mkdir_p(dir, &e)) {
        fprintf(stderr, "bench_verdicts: %s\n", e.msg);
        return 1;
    }
    for (int k = 0; k < ncens; k++) {
        c[k].links = gc_links_new(roster, (size_t)ranks);
        c[k].verdicts = gc_verdicts_new();
        if (!c[k].links || !c[k].verdicts) {
            fprintf(stderr, "bench_verdicts: out of memory\n");
            return 1;
        }
    }
    gc_kdesc_set descs;
    gc_kdesc_set_embedded(&descs);
    gc_analysed *node_h = calloc((size_t)per_node, sizeof *node_h);
    gc_analysed *node_f = calloc((size_t)per_node, sizeof *node_f);
    gc_wbuf *rec_h = calloc((size_t)per_node, sizeof *rec_h);
    gc_wbuf *rec_f = calloc((size_t)per_node, sizeof *rec_f);
    if (!node_h || !node_f || !rec_h || !rec_f) {
        fprintf(stderr, "bench_verdicts: out of memory\n");
        return 1;
    }
    int measured = 0, rc = 0;
    for (int r0 = 0; r0 < ranks && !rc; ) {
        /* one node: the ranks of roster[r0].node */
        int n = 0;
        while (r0 + n < ranks && !strcmp(roster[r0 + n].node, roster[r0].node))
            n++;
        int again = ncens == 2 && touched(&c[1].plan, roster[r0].node);
        for (int i = 0; i < n && !rc; i++) {
            rc = one_gpu(&c[0], roster, ranks, nodes, r0 + i, &descs, &node_h[i], &rec_h[i], &e);
            measured++;
            if (!rc && again) {
                rc = one_gpu(&c[1], roster, ranks, nodes, r0 + i, &descs, &node_f[i], &rec_f[i], &e);
                measured++;
            }
        }
        if (!rc)
            rc = add_node(&c[0], node_h, (size_t)n);
        if (!rc && ncens == 2)
            rc = add_node(&c[1], again ? node_f : node_h, (size_t)n);
        for (int i = 0; i < n; i++) {
            gc_analysed_free(&node_h[i]);
            gc_wbuf_free(&rec_h[i]);
            if (again) {
                gc_analysed_free(&node_f[i]);
                gc_wbuf_free(&rec_f[i]);
            }
        }
        r0 += n;
    }
    static const char *const names[2] = { "healthy", "faulted" };
    for (int k = 0; k < ncens && !rc; k++)
        rc = finish(&c[k], dir, names[k], &e);
    if (rc) {
        fprintf(stderr, "bench_verdicts: %s\n", e.msg[0] ? e.msg : "failed");
        return 1;
    }
    printf("gpus=%d\ngpus_measured=%d\nmeasure_s=%.3f\nanalyse_s=%.3f\n", ranks, measured,
           measure_s, analyse_s);
    for (int k = 0; k < ncens; k++)
        printf("detect_%s_s=%.3f\n", names[k], c[k].detect_s);
    for (int k = 0; k < ncens; k++) {
        gc_verdicts_free(c[k].verdicts);
        gc_links_free(c[k].links);
        free(c[k].items);
        gc_plan_free(&c[k].plan);
    }
    gc_kdesc_set_free(&descs);
    free(node_h);
    free(node_f);
    free(rec_h);
    free(rec_f);
    free(roster);
    return 0;
}

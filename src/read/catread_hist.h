/* Reading what the history database (history.c) and the Prometheus writer
 * (prom.c) keep of a catalogue: the run (times, plan, commit, backend),
 * every GPU's identity, node, status and derived parameters, every link's
 * class, ends and fitted model, the method version of each value's
 * benchmark (so that the history compares like with like), and the verdicts the catalogue holds (the
 * worst reason of each, in words). Only members that stay in
 * catalogue.json are read: never the per-point summaries.
 *
 * Same streaming walk and the same schema errors as catread.c
 * ("FILE:LINE: PATH: what", GC_ECORRUPT; unreadable GC_EIO). */
#ifndef GC_CATREAD_HIST_H
#define GC_CATREAD_HIST_H

#include <stddef.h>

#include "util/err.h"
#include "census/results.h"

typedef struct gc_hc_param {
    char name[64], unit[24];
    double value;
    int method;           /* its benchmark's method version (registry.c), 0: no benchmark known */
} gc_hc_param;

typedef struct gc_hc_verdict {
    int level;            /* GC_V_*, -1: the catalogue has none for it */
    char reason[256];     /* the worst reason, "rule: metric: detail"; "" when ok */
} gc_hc_verdict;

/* benchmarks whose method a GPU keeps (>= gc_bench_ndefs, registry.c) */
#define GC_HC_NBENCH 24

typedef struct gc_hc_gpu {
    char node[GC_NODE_MAX], uuid[48], name[96], status[16];
    int index;
    /* by registry index: the method each benchmark was measured with, as the
     * catalogue recorded it, else dated by the run's start (0: unknown) */
    unsigned short method[GC_HC_NBENCH];
    /* by registry index: 1 when the GPU measured the benchmark (its methods
     * name it; a catalogue that records no methods: 1 for all, unknown) */
    unsigned char measured[GC_HC_NBENCH];
    size_t first, nparams;   /* its parameters: params[first .. first + nparams) */
    gc_hc_verdict v;
} gc_hc_gpu;

typedef struct gc_hc_link {
    char cls[160];        /* gc_det_link_class */
    char subject[256];    /* "CLASS: SRC -> DST" as verdicts name it */
    char node[GC_NODE_MAX];
    int gpu_index;        /* its GPU end (the source when both are GPUs), -1: none */
    char uuid[48], sku[96];   /* of that GPU, "" unknown */
    double alpha_s, beta_bps, nominal_bps, lambda;   /* NAN: none */
    int method;           /* its benchmark's method at its GPU end, 0: unknown */
    gc_hc_verdict v;
} gc_hc_link;

typedef struct gc_hc_node {
    char name[GC_NODE_MAX];
    gc_hc_verdict v;
} gc_hc_node;

typedef struct gc_hcat {
    char start_time[32], end_time[32], plan_name[64], plan_sha256[72], git_commit[48],
        backend[16];
    gc_hc_gpu *gpus;
    size_t ngpus, capg;
    gc_hc_param *params;
    size_t nparams, capp;
    gc_hc_link *links;
    size_t nlinks, capl;
    gc_hc_node *nodes;
    size_t nnodes, capn;
} gc_hcat;

int gc_catread_hist(const char *path, gc_hcat *out, gc_err *err);
int gc_catread_hist_mem(const char *name, const char *buf, size_t len, gc_hcat *out, gc_err *err);
void gc_hcat_free(gc_hcat *c);

#endif

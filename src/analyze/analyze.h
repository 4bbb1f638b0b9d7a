/* Per-GPU analysis: what one GPU's results become before anything is
 * written. A shard blob (or its absence) is decoded, the GPU's status is
 * judged from its progress and failures, its parameters derived
 * (derive.c), each point summarised once (median and quantiles, the values
 * the verdict rules compare) and its kernel-time models fitted and
 * validated (validate.c). The writers (catalogue.c) only serialise what
 * this gives them.
 *
 * A blob is a shard (histograms) or a record (shard.h: the summaries a
 * rank computed from its histograms); both give the same analysis.
 *
 * Input is untrusted: a blob that does not decode, or names another GPU
 * than the roster's, gives a failed GPU saying why; nothing else of the
 * census is affected. */
#ifndef GC_ANALYZE_H
#define GC_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "census/kdesc_set.h"
#include "census/results.h"
#include "census/shard.h"
#include "analyze/validate.h"

typedef struct gc_blob {
    const uint8_t *data;   /* NULL: nothing from this rank */
    size_t len;
    char missing_reason[160];  /* why there is nothing, if data is NULL */
} gc_blob;

/* One GPU, analysed. gpu's points may borrow from the blob's bytes: the
 * blob must outlive it. */
typedef struct gc_analysed {
    gc_gpu gpu;            /* status judged, parameters derived */
    gc_summary *sums;      /* one per point (gpu.npoints), NULL when none */
    gc_models models;      /* models.present: fitted */
    gc_record_note note;   /* from a record: what its sender did as node leader */
} gc_analysed;

/* Analyses roster entry e's GPU from blob b (data NULL: a failed GPU
 * saying b->missing_reason). descs: the validation kernels' descriptions.
 * 0, or GC_ENOMEM (a is then freed). */
int gc_analyze_gpu(const gc_roster_entry *e, const gc_blob *b, const gc_kdesc_set *descs,
                   gc_analysed *a);
void gc_analysed_free(gc_analysed *a);

/* On the rank that measured g, after its last shard: derive its
 * parameters into g and encode its record (shard.h) into rec, what it
 * sends up the tree. */
int gc_analyze_local(const gc_run_meta *run, gc_gpu *g, const gc_record_note *note, gc_wbuf *rec,
                     gc_err *err);

/* One line per GPU for the terminal summary. */
typedef struct gc_brief {
    char node[GC_NODE_MAX];
    int index;
    int status;
    char name[96];
    double l1_cycles, l2_cycles, dram_cycles;   /* 0: not measured */
    double hbm_bps, hbm_ratio;
    size_t failed_items;
} gc_brief;

void gc_analysed_brief(const gc_gpu *g, gc_brief *b);

const char *gc_gpu_status_name(int status);
/* The worse of two GPU statuses: failed > incomplete > partial > ok. */
int gc_gpu_status_worse(int a, int b);   /* "ok", "partial", "failed", "incomplete" */

#endif

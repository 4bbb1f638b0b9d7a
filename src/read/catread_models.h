/* Reading what `gpucensus predict` needs from a catalogue: per GPU its
 * properties, its model parameters recomputed from gpus[].parameters as
 * the run's analysis does (model_hw.c; gpus[].models' own only for a GPU
 * without measured parameters), the stored lambdas, and its measured
 * validation kernels (the `valid` points: inline for schema 1, in the
 * node file for schema 2), from which predict calibrates with this
 * build's models (validate.h: one definition for the run and predict);
 * per link its fitted transfer model. Input is untrusted: errors are
 * "FILE:LINE: PATH: what" (GC_ECORRUPT), as in catread.c. */
#ifndef GC_CATREAD_MODELS_H
#define GC_CATREAD_MODELS_H

#include <stddef.h>

#include "util/err.h"
#include "analyze/model_hw.h"
#include "census/results.h"
#include "analyze/validate.h"

typedef struct gc_cat_gpu {
    gc_gpu_info info;          /* node, index, uuid, name, compute capability, properties */
    char status[16];
    gc_hwp hw;
    double lambda[GC_NMODELS]; /* as stored in gpus[].models; NAN: none */
    int from_models;           /* 1: gpus[].models; 0: recomputed from gpus[].parameters */
    gc_vpoint *valid;          /* the measured validation kernels (ok `valid` time points) */
    size_t nvalid;
    char valid_note[240];      /* why there are none ("" when read) */
} gc_cat_gpu;

typedef struct gc_cat_link {
    char kind[16], benchmark[16], direction[16], memory[16], engine[8];
    char src[80], dst[80];     /* "host node0 (NUMA 0)", "node0 gpu 1" */
    int concurrent;
    double alpha_s, beta_bps, nominal_bps;   /* NAN: none */
} gc_cat_link;

typedef struct gc_cat_models {
    char backend[16];
    gc_cat_gpu *gpus;
    size_t ngpus;
    gc_cat_link *links;
    size_t nlinks;
} gc_cat_models;

int gc_catread_models(const char *path, gc_cat_models *out, gc_err *err);
int gc_catread_models_mem(const char *name, const char *buf, size_t len, gc_cat_models *out,
                          gc_err *err);
void gc_cat_models_free(gc_cat_models *m);

#endif

/* Transfer model of a link (seed 001): t(n) = alpha + n / beta, fitted on
 * the per-size median times, minimising the relative error (weighted least
 * squares with weights 1/t^2, then Huber reweighting so that one bad size
 * cannot move the line). Where one line does not describe the curve to
 * within GC_XFER_TOL (DMA pipelines fill, SM copies add blocks, staging
 * switches buffers), the size range is split at knees into at most
 * GC_XFER_MAX_SEG segments of at least 3 sizes, each with its own line.
 * The headline alpha is the first segment's (the latency of small
 * copies) and beta the last one's (the asymptotic bandwidth). */
#ifndef GC_MODEL_XFER_H
#define GC_MODEL_XFER_H

#include <stddef.h>

#define GC_XFER_TOL 0.05       /* split while a segment's max |relative residual| exceeds this */
#define GC_XFER_MAX_SEG 3

typedef struct gc_xfer_seg {
    double alpha_s, beta_bps;  /* beta <= 0: no slope could be fitted (flat) */
    double size_min, size_max; /* bytes, inclusive */
    size_t n;
} gc_xfer_seg;

typedef struct gc_xfer_model {
    int valid;                 /* 0: fewer than 2 sizes */
    double alpha_s, beta_bps;
    double r2;                 /* of t over all sizes, piecewise prediction */
    double max_rel_residual;   /* max |pred - t| / t over all sizes */
    double size_min, size_max;
    size_t nseg;
    gc_xfer_seg seg[GC_XFER_MAX_SEG];
} gc_xfer_model;

/* bytes ascending, t_s > 0. */
int gc_xfer_fit(const double *bytes, const double *t_s, size_t n, gc_xfer_model *m);
/* Model time of a copy of `bytes` (the segment whose range holds it, the
 * nearest one outside every range). */
double gc_xfer_predict(const gc_xfer_model *m, double bytes);

/* Nominal PCIe bandwidth per direction (bytes/s): lanes x GT/s x encoding
 * (8b/10b up to gen 2, 128b/130b for gens 3-5, FLIT 242/256 for gen 6) / 8.
 * 0 when gen or width is unknown. */
double gc_pcie_nominal_bps(int gen, int width);

#endif

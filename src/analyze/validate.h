/* Both kernel-time models on one GPU: their parameters (model_hw.c) and
 * how well they predict the validation suite measured on that GPU (the
 * `valid` benchmark), per regime, before and after calibration.
 *
 * Calibration (document 001 eq. 4.4): lambda_i = t_model_i / t_measured_i
 * with the launch floor taken off both sides (the floor is measured, not
 * modelled: t_pred = floor + t_model / lambda). The GPU's lambda is the
 * median over its kernels whose measured time is at least 1.5x the floor
 * (below that the ratio is mostly the floor's noise). A kernel's calibrated
 * prediction uses the median of the OTHER kernels' ratios (leave one
 * kernel out), so a kernel's own time never calibrates its prediction.
 *
 * Regime of a kernel, one rule for both models (so both are scored on the
 * same sets), from the Little's-law bounds with lambda = 1: latency-bound
 * when occupancy / latency bound is below the throughput bound; otherwise
 * memory-bound when the DRAM term is the largest cycles-per-warp term,
 * compute-bound when another unit's (or issue) is. */
#ifndef GC_VALIDATE_H
#define GC_VALIDATE_H

#include <stddef.h>

#include "census/kdesc_set.h"
#include "analyze/model_hw.h"
#include "analyze/model_little.h"
#include "analyze/model_mwp.h"
#include "census/results.h"

enum { GC_M_MWP = 0, GC_M_LITTLE = 1, GC_NMODELS = 2 };
enum { GC_REG_ALL = 0, GC_REG_COMPUTE, GC_REG_MEMORY, GC_REG_LATENCY, GC_NREG };
extern const char *const gc_model_names[GC_NMODELS];   /* "mwp_cwp", "littles_law" */
extern const char *const gc_regime_names[GC_NREG];     /* "all", "compute", ... */

typedef struct gc_err_stats {
    int n;
    double mape, max_ape;       /* fractions: 0.05 = 5% */
} gc_err_stats;

typedef struct gc_vrow {
    char kernel[GC_STR_MAX];
    int regime;                 /* GC_REG_*; GC_REG_ALL: unknown */
    double measured_ns, sm_clock_mhz;
    long long grid_blocks;
    int block_threads;
    double warps_per_sm;        /* occupancy calculator (+ grid) */
    int ok[GC_NMODELS];
    double pred_ns[GC_NMODELS];       /* lambda = 1, with the launch floor */
    double exec_ns[GC_NMODELS];       /* the model's part */
    double cal_ns[GC_NMODELS];        /* leave-one-out lambda */
    double loo_lambda[GC_NMODELS];
    int mwp_case;
    char error[160];
} gc_vrow;

typedef struct gc_models {
    int present;                      /* set by the caller: written to the catalogue */
    gc_hwp hw;
    char origin[16];
    size_t nrows;
    gc_vrow *rows;
    double lambda[GC_NMODELS];        /* NAN: no kernel to calibrate on */
    int lambda_n[GC_NMODELS];
    gc_err_stats raw[GC_NMODELS][GC_NREG], cal[GC_NMODELS][GC_NREG];
} gc_models;

/* One measured validation kernel: what a `valid` point says (its kernel,
 * median time and the launch it ran with); shape fields < 0 and a clock
 * that is not > 0: the description's shape, the parameters' clock. */
typedef struct gc_vpoint {
    char kernel[GC_STR_MAX];
    double measured_ns, sm_clock_mhz;
    long long grid_blocks, smem_dynamic_bytes;
    int block_threads;
} gc_vpoint;

/* Parameters and validation of GPU g against descriptions s. 0 or
 * GC_ENOMEM; a kernel that cannot be predicted is a row with an error. */
int gc_models_compute(const gc_gpu *g, const gc_kdesc_set *s, gc_models *m);
/* The same from a GPU's properties, model parameters hw and its measured
 * validation kernels v[0..n): the one definition of the rows, lambda and
 * errors, for the run (gc_models_compute) and for `predict` (a catalogue
 * read back). 0 or GC_ENOMEM. */
int gc_models_validate(const gc_gpu_info *info, const gc_hwp *hw, const gc_kdesc_set *s,
                       const gc_vpoint *v, size_t n, gc_models *m);
void gc_models_free(gc_models *m);

/* The regime rule above. */
int gc_regime_of(const gc_little_pred *p);
/* lambda for kernel `skip` (NULL: all kernels) from rows' ratios. */
double gc_models_lambda(const gc_models *m, int model, const char *skip, int *n);
/* A calibrated time: the launch floor (h's launch_ns, 0 when missing) plus
 * the model's execution time / lambda (1 when lambda is missing). */
double gc_calibrated_ns(const gc_hwp *h, double exec_ns, double lambda);
/* "mwp_cwp" / "littles_law" with the lower calibrated error over all
 * kernels, or NULL. */
const char *gc_models_better(const gc_models *m);

#endif

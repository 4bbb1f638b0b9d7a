/* Fitting lines and curves to medians: least squares with R^2, and the
 * Theil-Sen estimator (median of pairwise slopes) where outliers must not
 * move the line. Model modules (model_*.c) and derive.c build on these. */
#ifndef GC_FIT_H
#define GC_FIT_H

#include <stddef.h>

typedef struct gc_line {
    double intercept, slope;
    double r2;                 /* coefficient of determination of y on x */
    double x_min, x_max;       /* range of x the line was fitted on */
    size_t n;
} gc_line;

/* Ordinary least squares. Returns -1 with fewer than 2 distinct x. */
int gc_fit_ols(const double *x, const double *y, size_t n, gc_line *out);
/* Theil-Sen: slope = median of pairwise slopes, intercept = median of
 * y - slope * x; r2 computed for that line. Returns -1 as gc_fit_ols. */
int gc_fit_theil_sen(const double *x, const double *y, size_t n, gc_line *out);

/* A floor, then a linear rise past a knee (a queue that forms once the
 * offered load passes what the server absorbs):
 *   y = floor                          for x <= knee
 *   y = floor + rise * (x - knee)      for x > knee,  rise >= 0
 * Least squares over knees on a log grid between the smallest and the
 * largest x (16 per interval between adjacent x values); a knee at or
 * past the largest x is a flat line. r2 as for a line; rms_rel: the root
 * mean square residual over the floor. Returns -1 with fewer than 3
 * points or x <= 0. */
typedef struct gc_hinge {
    double floor, knee, rise;
    double r2, rms_rel;
    size_t n;
} gc_hinge;
int gc_fit_hinge(const double *x, const double *y, size_t n, gc_hinge *out);

/* A valley: a fall to a floor, then the hinge's rise (a memory whose
 * latency first drops as load keeps it awake, then queues):
 *   y = floor + fall * log2(fall_knee / x)   for x < fall_knee
 *   y = floor                                up to rise_knee
 *   y = floor + rise * (x - rise_knee)       for x > rise_knee
 * fall (per factor of 2 of x) and rise >= 0, fall_knee <= rise_knee.
 * Least squares over both knees on a log grid between the smallest and the
 * largest x (8 per factor of 2), a fall over two points at least (one
 * point alone at the low end is noise); no fall: fall_knee is the smallest x, no
 * rise: rise_knee the largest (the hinge is the valley without a fall).
 * r2 and rms_rel as the hinge's. Returns -1 as gc_fit_hinge. */
typedef struct gc_valley {
    double floor, fall_knee, fall, rise_knee, rise;
    double r2, rms_rel;
    size_t n;
} gc_valley;
int gc_fit_valley(const double *x, const double *y, size_t n, gc_valley *out);

#endif

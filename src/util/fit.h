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

#endif

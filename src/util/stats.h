/* The one median and selection of the code base: a peer group of 16,384
 * GPUs takes ~10 medians per judged value, so these select (quickselect,
 * and past 2048 values a band bounded by a stratified sample) instead of
 * sorting; a caller that reads quantiles after sorts once
 * (gc_sorted_median). Each reorders v and leaves its values in it. */
#ifndef GC_STATS_H
#define GC_STATS_H

#include <stddef.h>

/* The k-th smallest of v[0..n) (0-based; n > 0, k < n); v reordered. */
double gc_select_kth(double *v, size_t n, size_t k);

/* The median of v[0..n) (n even: the mean of the two middle values); NAN
 * for n = 0; v reordered (a selection, not a sort). */
double gc_median(double *v, size_t n);

/* v sorted ascending (v[0] the smallest), then its median: for callers
 * that read v's quantiles or its order after; NAN for n = 0. */
double gc_sorted_median(double *v, size_t n);

#endif

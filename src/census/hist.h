/* Log-linear histogram over 64-bit unsigned values (HdrHistogram-like).
 *
 * Values below 2^sub_bits are counted exactly; above, each power-of-two range
 * [2^k, 2^(k+1)) is split into 2^sub_bits equal sub-buckets, so a bucket's
 * width relative to its values is at most 2^-sub_bits. sub_bits is chosen from
 * the requested relative precision so that a reported quantile (bucket
 * midpoint, clamped to [min, max]) is within that precision of the exact
 * order statistic.
 *
 * Counts are stored densely over the range of buckets actually used
 * [lo, lo + n), which grows on demand: a latency histogram spanning 30..800
 * cycles holds a few hundred counters, not the full 64-bit range. */
#ifndef GC_HIST_H
#define GC_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define GC_HIST_MIN_SUB_BITS 1
#define GC_HIST_MAX_SUB_BITS 14

typedef struct gc_hist {
    uint32_t sub_bits;   /* 2^sub_bits sub-buckets per power of two */
    uint32_t lo;         /* bucket index of counts[0] */
    uint32_t n;          /* used length of counts */
    uint32_t cap;        /* allocated length of counts */
    uint64_t *counts;
    uint64_t total;      /* number of recorded values */
    uint64_t min, max;   /* exact; min = UINT64_MAX when empty */
    double sum, sumsq;   /* exact-ish moments for mean and stddev */
} gc_hist;

/* Smallest sub_bits whose midpoint error is <= rel_precision (0 < p < 1). */
int gc_hist_sub_bits_for(double rel_precision, uint32_t *sub_bits, gc_err *err);

int gc_hist_init(gc_hist *h, uint32_t sub_bits, gc_err *err);
void gc_hist_free(gc_hist *h);
void gc_hist_reset(gc_hist *h);

/* Returns GC_ENOMEM only when growing the counter range fails. */
int gc_hist_record(gc_hist *h, uint64_t value);
int gc_hist_record_n(gc_hist *h, uint64_t value, uint64_t count);

/* dst += src, bucket-wise. Both must have the same sub_bits. */
int gc_hist_merge(gc_hist *dst, const gc_hist *src, gc_err *err);

/* q in [0, 1]; 0 on an empty histogram. Nearest rank: the sample of rank
 * ceil(q * total) in sorted order (q = 0 gives min, q = 1 max, exactly). */
uint64_t gc_hist_quantile(const gc_hist *h, double q);
/* 0 on an empty histogram. stddev is the population one (divides by total). */
double gc_hist_mean(const gc_hist *h);
double gc_hist_stddev(const gc_hist *h);

/* Bucket geometry, exposed for the codec and for distances between
 * histograms: index of the bucket holding value, and its [lower, upper]
 * inclusive value bounds. */
uint32_t gc_hist_bucket_of(uint32_t sub_bits, uint64_t value);
uint64_t gc_hist_bucket_lower(uint32_t sub_bits, uint32_t index);
uint64_t gc_hist_bucket_upper(uint32_t sub_bits, uint32_t index);
uint32_t gc_hist_bucket_count(uint32_t sub_bits); /* number of indices */

/* Exact equality of everything recorded (used by tests and merge checks):
 * counts, total, min, max exactly, whatever the storage layout; sum and sumsq
 * within 1e-9 relative (merge order changes their rounding). */
int gc_hist_equal(const gc_hist *a, const gc_hist *b);

#endif

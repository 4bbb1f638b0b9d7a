/* Log-linear histogram: the one place samples go, so that ranks can stream
 * millions of them in O(1) memory and rank 0 can merge them by addition.
 *
 * Geometry (s = sub_bits): value v < 2^s has bucket v. Otherwise, with
 * k = floor(log2 v), the top s+1 bits of v (its "mantissa" m, in
 * [2^s, 2^(s+1))) pick the sub-bucket and
 *     index = ((k - s) << s) + m,
 * which continues the exact range without a gap (k = s gives index = v).
 * A bucket of block k >= s has width 2^(k-s) and holds values >= 2^k.
 *
 * Storage keeps only counts[lo .. lo+n) (plus spare capacity that is always
 * zero), growing when a value lands outside. The in-memory range may contain
 * zero counts at its edges; everything that compares or serialises works on
 * contents, not on layout. */
#include "census/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_MIN_CAP 8

uint32_t gc_hist_bucket_count(uint32_t sub_bits)
{
    return (65u - sub_bits) << sub_bits;
}

uint32_t gc_hist_bucket_of(uint32_t sub_bits, uint64_t value)
{
    if (value >> sub_bits == 0)
        return (uint32_t)value;
    unsigned k = 63u - (unsigned)__builtin_clzll(value);
    unsigned shift = k - sub_bits;
    return ((uint32_t)shift << sub_bits) + (uint32_t)(value >> shift);
}

/* Returns UINT64_MAX for an index past the last bucket. */
uint64_t gc_hist_bucket_lower(uint32_t sub_bits, uint32_t index)
{
    if (index >= gc_hist_bucket_count(sub_bits))
        return UINT64_MAX;
    if (index >> sub_bits == 0)
        return index;
    uint32_t shift = (index >> sub_bits) - 1;
    uint64_t mantissa = index - (shift << sub_bits);
    return mantissa << shift;
}

uint64_t gc_hist_bucket_upper(uint32_t sub_bits, uint32_t index)
{
    if (index >= gc_hist_bucket_count(sub_bits))
        return UINT64_MAX;
    if (index >> sub_bits == 0)
        return index;
    uint32_t shift = (index >> sub_bits) - 1;
    return gc_hist_bucket_lower(sub_bits, index) + ((UINT64_C(1) << shift) - 1);
}

/* Reported value of a bucket: its midpoint, rounded down. */
static uint64_t bucket_mid(uint32_t sub_bits, uint32_t index)
{
    uint64_t lo = gc_hist_bucket_lower(sub_bits, index);
    uint64_t hi = gc_hist_bucket_upper(sub_bits, index);
    return lo + (hi - lo) / 2;
}

/* Worst relative error of a bucket midpoint against any value of its bucket.
 * For width w = 2^j >= 2 starting at L >= 2^(s+j), the floored midpoint
 * L + w/2 - 1 is w/2 below the top value L + w - 1, so the error is
 * (w/2) / (L + w - 1), largest for the first sub-bucket of the first inexact
 * block (w = 2, L = 2^(s+1)): 1 / (2^(s+1) + 1). */
static double worst_rel_error(uint32_t sub_bits)
{
    return 1.0 / (ldexp(1.0, (int)sub_bits + 1) + 1.0);
}

int gc_hist_sub_bits_for(double rel_precision, uint32_t *sub_bits, gc_err *err)
{
    if (!(rel_precision > 0.0 && rel_precision < 1.0))
        return gc_fail(err, GC_EINVAL,
                       "histogram precision %g must be in (0, 1)", rel_precision);
    for (uint32_t s = GC_HIST_MIN_SUB_BITS; s <= GC_HIST_MAX_SUB_BITS; s++) {
        if (worst_rel_error(s) <= rel_precision) {
            *sub_bits = s;
            return GC_OK;
        }
    }
    return gc_fail(err, GC_EINVAL,
                   "histogram precision %g is finer than the finest supported (%g)",
                   rel_precision, worst_rel_error(GC_HIST_MAX_SUB_BITS));
}

int gc_hist_init(gc_hist *h, uint32_t sub_bits, gc_err *err)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
    if (sub_bits < GC_HIST_MIN_SUB_BITS || sub_bits > GC_HIST_MAX_SUB_BITS)
        return gc_fail(err, GC_EINVAL, "histogram sub_bits %u outside [%d, %d]",
                       sub_bits, GC_HIST_MIN_SUB_BITS, GC_HIST_MAX_SUB_BITS);
    h->sub_bits = sub_bits;
    return GC_OK;
}

void gc_hist_free(gc_hist *h)
{
    free(h->counts);
    h->counts = NULL;
    h->cap = h->n = h->lo = 0;
    gc_hist_reset(h);
}

/* Keeps the allocation for reuse; the spare capacity stays zeroed. */
void gc_hist_reset(gc_hist *h)
{
    if (h->counts && h->n)
        memset(h->counts, 0, (size_t)h->n * sizeof *h->counts);
    h->lo = h->n = 0;
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = h->sumsq = 0.0;
}

static int ensure_cap(gc_hist *h, uint32_t need)
{
    if (need <= h->cap)
        return GC_OK;
    uint32_t limit = gc_hist_bucket_count(h->sub_bits);
    uint32_t cap = h->cap + h->cap / 2;
    if (cap < need)
        cap = need;
    if (cap < HIST_MIN_CAP)
        cap = HIST_MIN_CAP;
    if (cap > limit)
        cap = limit;
    uint64_t *p = realloc(h->counts, (size_t)cap * sizeof *p);
    if (!p)
        return GC_ENOMEM;
    memset(p + h->cap, 0, (size_t)(cap - h->cap) * sizeof *p);
    h->counts = p;
    h->cap = cap;
    return GC_OK;
}

/* Widens [lo, lo+n) to contain index. Growing downwards also leaves some
 * headroom below, so a slowly falling minimum does not shift the array on
 * every new bucket. */
static int grow_to(gc_hist *h, uint32_t index)
{
    if (h->n == 0) {
        if (ensure_cap(h, 1))
            return GC_ENOMEM;
        h->lo = index;
        h->n = 1;
        return GC_OK;
    }
    uint32_t new_lo = h->lo, new_hi = h->lo + h->n;
    if (index < new_lo) {
        uint32_t headroom = (new_hi - index) / 4;
        new_lo = index - (headroom < index ? headroom : index);
    } else if (index >= new_hi) {
        new_hi = index + 1;
    } else {
        return GC_OK;
    }
    if (ensure_cap(h, new_hi - new_lo))
        return GC_ENOMEM;
    uint32_t shift = h->lo - new_lo;
    if (shift) {
        memmove(h->counts + shift, h->counts, (size_t)h->n * sizeof *h->counts);
        memset(h->counts, 0, (size_t)shift * sizeof *h->counts);
    }
    h->lo = new_lo;
    h->n = new_hi - new_lo;
    return GC_OK;
}

int gc_hist_record_n(gc_hist *h, uint64_t value, uint64_t count)
{
    if (count == 0)
        return GC_OK;
    uint32_t index = gc_hist_bucket_of(h->sub_bits, value);
    uint32_t off = index - h->lo;   /* wraps to a huge value below lo */
    if (off >= h->n) {
        if (grow_to(h, index))
            return GC_ENOMEM;
        off = index - h->lo;
    }
    h->counts[off] += count;
    h->total += count;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    double v = (double)value, c = (double)count;
    h->sum += v * c;
    h->sumsq += v * v * c;
    return GC_OK;
}

int gc_hist_record(gc_hist *h, uint64_t value)
{
    return gc_hist_record_n(h, value, 1);
}

/* First and last non-zero offsets; 0 when there are none. */
static int occupied(const gc_hist *h, uint32_t *first, uint32_t *last)
{
    uint32_t i = 0, j = h->n;
    while (i < h->n && h->counts[i] == 0)
        i++;
    if (i == h->n)
        return 0;
    while (h->counts[j - 1] == 0)
        j--;
    *first = i;
    *last = j - 1;
    return 1;
}

int gc_hist_merge(gc_hist *dst, const gc_hist *src, gc_err *err)
{
    if (dst->sub_bits != src->sub_bits)
        return gc_fail(err, GC_EINVAL, "cannot merge histograms of sub_bits %u and %u",
                       dst->sub_bits, src->sub_bits);
    /* Copy src's scalars first: src may be dst. */
    uint64_t total = src->total, mn = src->min, mx = src->max;
    double sum = src->sum, sumsq = src->sumsq;
    uint32_t first, last;
    if (total == 0 || !occupied(src, &first, &last))
        return GC_OK;
    if (dst->total > UINT64_MAX - total)
        return gc_fail(err, GC_EINVAL, "merged histogram count overflows 64 bits");
    if (grow_to(dst, src->lo + first) || grow_to(dst, src->lo + last))
        return gc_fail(err, GC_ENOMEM, "out of memory merging histograms");
    /* src->lo may be below dst->lo (src's own zero edges): index from first. */
    uint64_t *d = dst->counts + (src->lo + first - dst->lo);
    for (uint32_t i = first; i <= last; i++)
        d[i - first] += src->counts[i];
    dst->total += total;
    if (mn < dst->min)
        dst->min = mn;
    if (mx > dst->max)
        dst->max = mx;
    dst->sum += sum;
    dst->sumsq += sumsq;
    return GC_OK;
}

/* Nearest-rank quantile: the value of rank ceil(q * total) (1-based) in
 * sorted order, reported as its bucket's midpoint clamped to [min, max]. */
uint64_t gc_hist_quantile(const gc_hist *h, double q)
{
    if (h->total == 0)
        return 0;
    if (!(q > 0.0))             /* also catches NaN */
        return h->min;
    if (q >= 1.0)
        return h->max;
    double rank_d = ceil(q * (double)h->total);
    uint64_t rank = rank_d < 1.0 ? 1
                  : rank_d >= (double)h->total ? h->total : (uint64_t)rank_d;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t v = bucket_mid(h->sub_bits, h->lo + i);
            return v < h->min ? h->min : v > h->max ? h->max : v;
        }
    }
    return h->max;   /* only if counts disagree with total */
}

double gc_hist_mean(const gc_hist *h)
{
    return h->total ? h->sum / (double)h->total : 0.0;
}

/* Population standard deviation from the running moments; rounding can make
 * the variance slightly negative for near-constant data, hence the clamp. */
double gc_hist_stddev(const gc_hist *h)
{
    if (h->total == 0)
        return 0.0;
    double n = (double)h->total;
    double mean = h->sum / n;
    double var = h->sumsq / n - mean * mean;
    return var > 0.0 ? sqrt(var) : 0.0;
}

/* Sums are compared with a relative tolerance: the same samples added in a
 * different order (merges) round differently once past 2^53. */
static int near(double a, double b)
{
    if (a == b)
        return 1;
    double scale = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= 1e-9 * scale;
}

static uint64_t count_at(const gc_hist *h, uint32_t index)
{
    uint32_t off = index - h->lo;
    return off < h->n ? h->counts[off] : 0;
}

int gc_hist_equal(const gc_hist *a, const gc_hist *b)
{
    if (a->sub_bits != b->sub_bits || a->total != b->total)
        return 0;
    if (a->total == 0)
        return 1;
    if (a->min != b->min || a->max != b->max)
        return 0;
    if (!near(a->sum, b->sum) || !near(a->sumsq, b->sumsq))
        return 0;
    /* Compare over the union of both ranges: layouts may differ. */
    uint32_t lo = a->lo < b->lo ? a->lo : b->lo;
    uint32_t hi_a = a->lo + a->n, hi_b = b->lo + b->n;
    uint32_t hi = hi_a > hi_b ? hi_a : hi_b;
    for (uint32_t i = lo; i < hi; i++)
        if (count_at(a, i) != count_at(b, i))
            return 0;
    return 1;
}

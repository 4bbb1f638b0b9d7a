/* The median and selection. See stats.h. */
#include "util/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The k-th smallest of v[0..n) (quickselect, Hoare partition): v is
 * reordered. A peer group of 16,384 GPUs takes ~10 medians per judged
 * value, so a full sort each time (n log n) is what made judging slow. */
double gc_select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j && j != (size_t)-1)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The median of v[0..n) (n even: the mean of the two middle values), the
 * value the full selection below gives, from a band around it: a
 * stratified sample of the values bounds the band (SAMPLE_SIGMAS of the sample's
 * spread on either side of the median's rank), a pass counts the values
 * below and in it, a second swaps those in it to v's front (v keeps its
 * values, reordered, as the selection leaves them: callers use them
 * again), and the band alone is selected in. Two passes over v and a
 * selection in ~4 / sqrt(m) of it, not quickselect's passes of swaps over
 * all of it: a peer group of 16,384 GPUs takes ~10 medians a judged key.
 * 0: the band cannot say (the median outside it, a NAN or a -0 among the
 * values: their order would decide), v untouched. */
enum { SAMPLE_MIN_N = 2048, SAMPLE_MAX = 2048, SAMPLE_SIGMAS = 4 };
static int median_by_band(double *v, size_t n, double *med)
{
    double s[SAMPLE_MAX];
    size_t m = n / 8 < SAMPLE_MAX ? n / 8 : SAMPLE_MAX;
    /* one value from each m-th of v, at a place of its own (a fixed
     * stride would see one GPU of each node: a fleet's values repeat by
     * node, and so do the bench's) */
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t j = 0; j < m; j++) {
        size_t lo = j * n / m, w = (j + 1) * n / m - lo;
        h ^= h << 13, h ^= h >> 7, h ^= h << 17;
        s[j] = v[lo + (size_t)(h % w)];
    }
    /* the sample's ranks of the median's, +- SAMPLE_SIGMAS x 0.5 sqrt(m) */
    size_t k = n / 2, g = (size_t)(0.5 * SAMPLE_SIGMAS * sqrt((double)m)) + 1, c = k * m / n;
    size_t ra = c > g ? c - g : 0, rb = c + g < m ? c + g : m - 1;
    double a = gc_select_kth(s, m, ra);
    double b = gc_select_kth(s + ra, m - ra, rb - ra);   /* s[ra..m) holds ranks ra and up */
    size_t below = 0, in = 0, above = 0, negz = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        below += x < a;
        in += x >= a && x <= b;
        above += x > b;
        negz += x == 0 && signbit(x);
    }
    size_t even = n % 2 == 0;
    /* a NAN is in no class; the median and, n even, the value below it in the band */
    if (below + in + above != n || negz || below + even > k || k >= below + in)
        return 0;
    if (a == b) {   /* the band one value (ties: equal counts, distances at zero) */
        *med = even ? 0.5 * (a + a) : a;   /* as below, to the bit */
        return 1;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {   /* the band to the front by swaps: v keeps its values */
        double x = v[i], y = v[w];
        v[w] = x;
        v[i] = y;
        w += x >= a && x <= b;
    }
    double hi = gc_select_kth(v, in, k - below);
    if (!even) {
        *med = hi;
        return 1;
    }
    double lo = v[0];   /* the largest of the band's values below hi's rank */
    for (size_t i = 1; i < k - below; i++)
        if (v[i] > lo)
            lo = v[i];
    *med = 0.5 * (lo + hi);
    return 1;
}

double gc_median(double *v, size_t n)   /* reorders v */
{
    if (!n)
        return NAN;
    double med;
    if (n >= SAMPLE_MIN_N && median_by_band(v, n, &med))
        return med;
    double hi = gc_select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* the largest of the lower half, which select_kth left below n/2 */
    double lo = v[0];
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * (lo + hi);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gc_sorted_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The one median (util/stats.c): the value a sort gives, odd and even
 * counts, ties, sorted and reversed input; past 2048 values from a band a
 * sample bounds, the values still in v after. */
#include "util/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    /* gc_median selects (no sort): the same median as sorting, odd and
     * even counts, ties, sorted and reversed input */
    {
        uint64_t x = 88172645463325252ull;
        for (int t = 0; t < 200; t++) {
            size_t n = 1 + (size_t)(t * 37 % 301);
            double a[301], b[301];
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                a[i] = t % 3 == 0 ? (double)(x % 7) : t % 3 == 1 ? (double)i : (double)(n - i) + (double)(x % 1000) * 1e-3;
                b[i] = a[i];
            }
            for (size_t i = 1; i < n; i++)   /* insertion sort: the reference */
                for (size_t k = i; k > 0 && b[k - 1] > b[k]; k--) {
                    double y = b[k];
                    b[k] = b[k - 1];
                    b[k - 1] = y;
                }
            double want = n % 2 ? b[n / 2] : 0.5 * (b[n / 2 - 1] + b[n / 2]);
            double got = gc_median(a, n);
            CHECK(got == want, "median of %zu values (case %d): %g, sorted says %g", n, t, got, want);
        }
    }
    /* past SAMPLE_MIN_N, from a band a sample bounds: the same medians, the
     * band missing the median (values the strided sample cannot see),
     * ties, a cluster, -0 among the zeros and a NAN (the full selection) */
    {
        uint64_t x = 0x9E3779B97F4A7C15ull;
        static const size_t sizes[] = { 2047, 2048, 2049, 4096, 4097, 16384, 16385, 40000 };
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int t = 0; t < 9; t++) {
                size_t n = sizes[si];
                double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
                for (size_t i = 0; i < n; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    double u = (double)(x >> 11) / 9007199254740992.0;
                    a[i] = t == 0   ? u
                         : t == 1   ? (double)(x % 7)
                         : t == 2   ? (double)i
                         : t == 3   ? (double)(n - i)
                         : t == 4   ? (i % 97 == 50 ? 1.2 : 1.0) * (1 + 0.01 * u)   /* a fleet, faults */
                         : t == 5   ? (i % (n / 1024 ? n / 1024 : 1) ? 1e9 + u : -1e9)   /* the sample sees outliers only */
                         : t == 6   ? (u < 0.8 ? 3.0 : u)                              /* a cluster of ties */
                         : t == 7   ? (u < 0.5 ? (x & 1 ? -0.0 : 0.0) : u)             /* signed zeros */
                                    : (i == n / 3 ? NAN : u);
                    b[i] = a[i];
                }
                if (t == 8) {   /* a NAN: no order; the full selection's answer, no bad read (t_san) */
                    (void)gc_median(a, n);
                    free(a), free(b);
                    continue;
                }
                qsort(b, n, sizeof *b, cmp_double);
                double want = n % 2 ? b[n / 2] : 0.5 * (b[n / 2 - 1] + b[n / 2]);
                double got = gc_median(a, n);
                CHECK(got == want, "median of %zu values (case %d): %.17g, sorted says %.17g", n, t, got, want);
                /* a's values are still there, reordered (callers use them again) */
                qsort(a, n, sizeof *a, cmp_double);
                size_t same = 0, negz_a = 0, negz_b = 0;   /* -0 == 0: sorted in any order, counted */
                for (size_t i = 0; i < n; i++) {
                    same += a[i] == b[i];
                    negz_a += a[i] == 0 && signbit(a[i]);
                    negz_b += b[i] == 0 && signbit(b[i]);
                }
                CHECK(same == n && negz_a == negz_b, "median of %zu values (case %d): the values changed", n, t);
                free(a), free(b);
            }
    }
    /* the k-th smallest */
    {
        double v[] = { 5, 1, 4, 2, 3 };
        for (size_t k = 0; k < 5; k++) {
            double w[5];
            for (int i = 0; i < 5; i++)
                w[i] = v[i];
            CHECK(gc_select_kth(w, 5, k) == (double)(k + 1), "select %zu of 5", k);
        }
        CHECK(isnan(gc_median(v, 0)), "median of nothing is NAN");
    }
    CHECK_DONE();
}

/* Unit tests of the log-linear histogram: bucket geometry, quantiles against
 * exact order statistics of sorted data for several distributions and
 * precisions, merge algebra, empty histograms, moments, storage growth. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "census/hist.h"

#define N_SAMPLES 100000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_u64(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(void) { return (double)(rng_u64() >> 11) * 0x1p-53; }

static double rng_normal(void)
{
    double u = rng_unit(), v = rng_unit();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

enum dist { UNIFORM, LOGNORMAL, BIMODAL, CONSTANT, TINY, HUGE_VALS, N_DISTS };
static const char *dist_name[N_DISTS] = {"uniform", "lognormal", "bimodal",
                                         "constant", "tiny", "huge"};

static uint64_t draw(enum dist d)
{
    switch (d) {
    case UNIFORM:   return 1000 + rng_u64() % 999001;
    case LOGNORMAL: return (uint64_t)exp(6.0 + 1.5 * rng_normal());
    case BIMODAL:
        if (rng_u64() & 1)
            return (uint64_t)fmax(1.0, 100.0 + 10.0 * rng_normal());
        return (uint64_t)fmax(1.0, 5000.0 + 500.0 * rng_normal());
    case CONSTANT:  return 12345;
    case TINY:      return rng_u64() % 11;
    case HUGE_VALS: return UINT64_MAX - (rng_u64() >> 2);   /* top quarter of u64 */
    default:        return 0;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Same nearest-rank definition as gc_hist_quantile. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
    if (q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    double r = ceil(q * (double)n);
    size_t rank = r < 1.0 ? 1 : r >= (double)n ? n : (size_t)r;
    return sorted[rank - 1];
}

static void test_sub_bits_for(void)
{
    gc_err err = {0};
    uint32_t s = 0;
    CHECK(gc_hist_sub_bits_for(0.01, &s, &err) == 0 && s == 6, "1%% -> %u", s);
    CHECK(gc_hist_sub_bits_for(0.1, &s, &err) == 0 && s == 3, "10%% -> %u", s);
    CHECK(gc_hist_sub_bits_for(0.001, &s, &err) == 0 && s == 9, "0.1%% -> %u", s);
    CHECK(gc_hist_sub_bits_for(0.0, &s, &err) == GC_EINVAL, "0 rejected");
    CHECK(gc_hist_sub_bits_for(1.0, &s, &err) == GC_EINVAL, "1 rejected");
    CHECK(gc_hist_sub_bits_for(NAN, &s, &err) == GC_EINVAL, "NaN rejected");
    CHECK(gc_hist_sub_bits_for(1e-6, &s, &err) == GC_EINVAL && err.msg[0],
          "too fine rejected: %s", err.msg);

    /* Minimality: with one sub_bit less than chosen for 1%, the bucket
     * [64, 65] (s = 5) reports 64 for the value 65: 1.5% off. */
    gc_hist h;
    gc_hist_init(&h, 5, NULL);
    gc_hist_record(&h, 64);
    gc_hist_record_n(&h, 65, 2);
    uint64_t q = gc_hist_quantile(&h, 0.5);
    CHECK(q == 64 && (65.0 - (double)q) / 65.0 > 0.01, "s=5 median %llu", (unsigned long long)q);
    gc_hist_free(&h);
    gc_hist_init(&h, 6, NULL);
    gc_hist_record(&h, 64);
    gc_hist_record_n(&h, 65, 2);
    CHECK(gc_hist_quantile(&h, 0.5) == 65, "s=6 median exact");
    gc_hist_free(&h);
}

static void test_geometry(void)
{
    for (uint32_t s = GC_HIST_MIN_SUB_BITS; s <= GC_HIST_MAX_SUB_BITS; s++) {
        uint32_t count = gc_hist_bucket_count(s);
        CHECK(count == (65u - s) << s, "count s=%u", s);
        CHECK(gc_hist_bucket_of(s, 0) == 0, "0 in bucket 0");
        CHECK(gc_hist_bucket_of(s, UINT64_MAX) == count - 1, "max in last s=%u", s);
        CHECK(gc_hist_bucket_upper(s, count - 1) == UINT64_MAX, "last upper s=%u", s);
        CHECK(gc_hist_bucket_lower(s, count) == UINT64_MAX, "past-end index s=%u", s);
        int bad = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t lo = gc_hist_bucket_lower(s, i), hi = gc_hist_bucket_upper(s, i);
            if (gc_hist_bucket_of(s, lo) != i || gc_hist_bucket_of(s, hi) != i || lo > hi)
                bad++;
            if (i + 1 < count && gc_hist_bucket_lower(s, i + 1) != hi + 1)
                bad++;
            /* Above the exact range, width relative to the values is <= 2^-s. */
            if (lo >> s && (double)(hi - lo + 1) / (double)lo > ldexp(1.0, -(int)s) * 1.0000001)
                bad++;
        }
        CHECK(bad == 0, "s=%u: %d buckets with broken geometry", s, bad);
    }
    CHECK(gc_hist_bucket_of(6, 63) == 63 && gc_hist_bucket_of(6, 127) == 127 &&
          gc_hist_bucket_of(6, 128) == 128 && gc_hist_bucket_of(6, 129) == 128,
          "exact range then width 2");
}

static void check_quantiles(enum dist d, double precision)
{
    uint32_t s;
    gc_hist_sub_bits_for(precision, &s, NULL);
    uint64_t *v = malloc(N_SAMPLES * sizeof *v);
    gc_hist h;
    gc_hist_init(&h, s, NULL);
    int failed = 0;
    for (size_t i = 0; i < N_SAMPLES; i++) {
        v[i] = draw(d);
        failed += gc_hist_record(&h, v[i]) != 0;
    }
    CHECK(failed == 0, "%d records failed", failed);
    qsort(v, N_SAMPLES, sizeof *v, cmp_u64);
    static const double qs[] = {0, .01, .05, .5, .95, .99, 1};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        uint64_t exact = exact_quantile(v, N_SAMPLES, qs[i]);
        uint64_t got = gc_hist_quantile(&h, qs[i]);
        double err = exact ? fabs((double)got - (double)exact) / (double)exact
                           : (double)got;
        CHECK(err <= precision, "%s p=%g q=%g: got %llu exact %llu (err %.3g)",
              dist_name[d], precision, qs[i], (unsigned long long)got,
              (unsigned long long)exact, err);
        if (qs[i] == 0.0 || qs[i] == 1.0)
            CHECK(got == exact, "%s q=%g must be exact", dist_name[d], qs[i]);
    }
    CHECK(h.total == N_SAMPLES && h.min == v[0] && h.max == v[N_SAMPLES - 1],
          "%s total/min/max", dist_name[d]);

    /* Moments against a two-pass computation in long double. */
    long double sum = 0, m2 = 0;
    for (size_t i = 0; i < N_SAMPLES; i++)
        sum += v[i];
    long double mean = sum / N_SAMPLES;
    for (size_t i = 0; i < N_SAMPLES; i++)
        m2 += ((long double)v[i] - mean) * ((long double)v[i] - mean);
    double sd = (double)sqrtl(m2 / N_SAMPLES);
    CHECK(fabs(gc_hist_mean(&h) - (double)mean) <= 1e-9 * (double)mean + 1e-12,
          "%s mean %.17g vs %.17g", dist_name[d], gc_hist_mean(&h), (double)mean);
    /* sum/sumsq moments cancel catastrophically when the spread is below
     * ~1e-7 of the mean: the huge distribution (spread 2^62 around 1.6e19)
     * still has enough, the constant one must come out as exactly 0. */
    CHECK(fabs(gc_hist_stddev(&h) - sd) <= 1e-6 * sd + 1e-9,
          "%s stddev %.17g vs %.17g", dist_name[d], gc_hist_stddev(&h), sd);
    gc_hist_free(&h);
    free(v);
}

static void test_quantiles(void)
{
    static const double precisions[] = {0.1, 0.01, 0.001};
    for (size_t p = 0; p < 3; p++)
        for (int d = 0; d < N_DISTS; d++)
            check_quantiles((enum dist)d, precisions[p]);
}

/* Every bucket midpoint (clamped or not) is within the bound of every value
 * in that bucket, for the precisions we offer. */
static void test_midpoint_bound(void)
{
    static const double precisions[] = {0.1, 0.01, 0.001};
    for (size_t p = 0; p < 3; p++) {
        uint32_t s;
        gc_hist_sub_bits_for(precisions[p], &s, NULL);
        int bad = 0;
        for (uint32_t i = 1; i < gc_hist_bucket_count(s); i++) {
            gc_hist h;
            gc_hist_init(&h, s, NULL);
            uint64_t lo = gc_hist_bucket_lower(s, i), hi = gc_hist_bucket_upper(s, i);
            gc_hist_record(&h, lo);
            gc_hist_record(&h, hi);
            gc_hist_record(&h, hi);
            uint64_t mid = gc_hist_quantile(&h, 0.5);   /* rank 2: exact is hi */
            if ((double)(hi - mid) / (double)hi > precisions[p] ||
                (double)(mid - lo) / (double)lo > precisions[p])
                bad++;
            gc_hist_free(&h);
        }
        CHECK(bad == 0, "p=%g: %d buckets break the bound", precisions[p], bad);
    }
}

static void fill(gc_hist *h, uint32_t s, uint64_t lo, uint64_t span, size_t n)
{
    gc_hist_init(h, s, NULL);
    for (size_t i = 0; i < n; i++)
        gc_hist_record(h, lo + rng_u64() % span);
}

static void copy_into(gc_hist *dst, const gc_hist *src)
{
    gc_hist_init(dst, src->sub_bits, NULL);
    CHECK(gc_hist_merge(dst, src, NULL) == 0, "copy by merge");
}

static void test_merge_algebra(void)
{
    gc_hist a, b, c, all, ab_c, a_bc, cba;
    gc_hist_init(&all, 6, NULL);
    gc_hist_init(&a, 6, NULL);
    gc_hist_init(&b, 6, NULL);
    gc_hist_init(&c, 6, NULL);
    for (int i = 0; i < 30000; i++) {
        uint64_t v = draw(LOGNORMAL) * 1000003;   /* sums well past 2^53 */
        gc_hist *t = (i % 3 == 0) ? &a : (i % 3 == 1) ? &b : &c;
        gc_hist_record(t, v);
        gc_hist_record(&all, v);
    }
    copy_into(&ab_c, &a);
    gc_hist_merge(&ab_c, &b, NULL);
    gc_hist_merge(&ab_c, &c, NULL);
    gc_hist bc;
    copy_into(&bc, &b);
    gc_hist_merge(&bc, &c, NULL);
    copy_into(&a_bc, &a);
    gc_hist_merge(&a_bc, &bc, NULL);
    copy_into(&cba, &c);
    gc_hist_merge(&cba, &b, NULL);
    gc_hist_merge(&cba, &a, NULL);
    CHECK(gc_hist_equal(&ab_c, &a_bc), "associative");
    CHECK(gc_hist_equal(&ab_c, &cba), "commutative");
    CHECK(gc_hist_equal(&ab_c, &all), "merge equals recording everything");
    CHECK(!gc_hist_equal(&ab_c, &a), "not equal to a part");
    CHECK(gc_hist_quantile(&ab_c, 0.5) == gc_hist_quantile(&all, 0.5), "same median");

    /* Self-merge doubles every count. */
    gc_hist twice;
    copy_into(&twice, &a);
    gc_hist_merge(&twice, &a, NULL);
    CHECK(gc_hist_merge(&a, &a, NULL) == 0 && gc_hist_equal(&a, &twice) &&
          a.total == 20000, "self merge total %llu", (unsigned long long)a.total);

    gc_hist other;
    gc_hist_init(&other, 7, NULL);
    gc_err err = {0};
    CHECK(gc_hist_merge(&other, &b, &err) == GC_EINVAL && strstr(err.msg, "sub_bits"),
          "sub_bits mismatch: %s", err.msg);
    gc_hist *hs[] = {&a, &b, &c, &all, &ab_c, &a_bc, &cba, &bc, &twice, &other};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++)
        gc_hist_free(hs[i]);
}

static void test_merge_disjoint(void)
{
    gc_hist lowh, highh, m1, m2;
    fill(&lowh, 6, 10, 91, 1000);               /* 10..100 */
    fill(&highh, 6, 1000000000, 9000000001ull, 1000); /* 1e9..1e10 */
    copy_into(&m1, &lowh);
    CHECK(gc_hist_merge(&m1, &highh, NULL) == 0, "low += high");
    copy_into(&m2, &highh);
    CHECK(gc_hist_merge(&m2, &lowh, NULL) == 0, "high += low");
    CHECK(gc_hist_equal(&m1, &m2), "disjoint merge commutes");
    CHECK(m1.total == 2000 && m1.min == lowh.min && m1.max == highh.max, "disjoint totals");
    CHECK(gc_hist_quantile(&m1, 0.25) <= 100 && gc_hist_quantile(&m1, 0.75) >= 1000000000,
          "quartiles fall in the two ranges");
    uint64_t q50 = gc_hist_quantile(&m1, 0.5);   /* rank 1000: the low max */
    CHECK(q50 == lowh.max, "median %llu is the low max %llu", (unsigned long long)q50,
          (unsigned long long)lowh.max);
    gc_hist_free(&lowh);
    gc_hist_free(&highh);
    gc_hist_free(&m1);
    gc_hist_free(&m2);
}

static void test_empty(void)
{
    gc_hist e, f, x;
    CHECK(gc_hist_init(&e, 6, NULL) == 0, "init");
    gc_hist_init(&f, 6, NULL);
    CHECK(e.total == 0 && e.min == UINT64_MAX && e.max == 0 && e.counts == NULL && e.cap == 0,
          "empty fields, no allocation");
    CHECK(gc_hist_quantile(&e, 0.0) == 0 && gc_hist_quantile(&e, 0.5) == 0 &&
          gc_hist_quantile(&e, 1.0) == 0, "empty quantiles are 0");
    CHECK(gc_hist_mean(&e) == 0.0 && gc_hist_stddev(&e) == 0.0, "empty moments are 0");
    CHECK(gc_hist_equal(&e, &f), "empties equal");
    CHECK(gc_hist_merge(&e, &f, NULL) == 0 && e.total == 0 && e.counts == NULL,
          "empty + empty stays empty");
    fill(&x, 6, 500, 100, 100);
    CHECK(!gc_hist_equal(&e, &x), "empty != non-empty");
    CHECK(gc_hist_merge(&e, &x, NULL) == 0 && gc_hist_equal(&e, &x), "empty + x == x");
    CHECK(gc_hist_merge(&x, &f, NULL) == 0 && x.total == 100, "x + empty == x");
    gc_hist_reset(&x);
    CHECK(x.total == 0 && x.n == 0 && x.min == UINT64_MAX && gc_hist_equal(&x, &f),
          "reset empties");
    gc_hist_record(&x, 7);
    CHECK(x.total == 1 && gc_hist_quantile(&x, 0.5) == 7, "reuse after reset");
    gc_err err = {0};
    gc_hist y;
    CHECK(gc_hist_init(&y, 0, &err) == GC_EINVAL && gc_hist_init(&y, 15, &err) == GC_EINVAL,
          "bad sub_bits: %s", err.msg);
    gc_hist_free(&e);
    gc_hist_free(&f);
    gc_hist_free(&x);
}

static void test_record_n_and_storage(void)
{
    gc_hist a, b;
    gc_hist_init(&a, 6, NULL);
    gc_hist_init(&b, 6, NULL);
    for (int i = 0; i < 5; i++)
        gc_hist_record(&a, 777);
    gc_hist_record_n(&b, 777, 5);
    gc_hist_record_n(&b, 1, 0);   /* no-op: min must not move */
    CHECK(gc_hist_equal(&a, &b) && b.min == 777, "record_n == repeated record");
    gc_hist_free(&a);
    gc_hist_free(&b);

    /* A latency histogram over 30..900 cycles keeps a few hundred counters,
     * and recording more of the same range allocates nothing. */
    gc_hist h;
    gc_hist_init(&h, 6, NULL);
    for (int i = 0; i < 100000; i++)
        gc_hist_record(&h, 30 + rng_u64() % 871);
    uint32_t cap = h.cap;
    uint64_t *counts = h.counts;
    for (int i = 0; i < 100000; i++)
        gc_hist_record(&h, 30 + rng_u64() % 871);
    CHECK(h.cap == cap && h.counts == counts, "no growth within range");
    CHECK(h.n >= 275 && h.cap <= 600, "compact storage: n=%u cap=%u", h.n, h.cap);
    /* Falling minimum: growth downwards keeps the counts in place. */
    uint64_t before = gc_hist_quantile(&h, 0.5);
    for (uint64_t v = 29; v > 0; v--)
        gc_hist_record(&h, v);
    CHECK(h.min == 1 && h.total == 200029, "min after growing down");
    CHECK(gc_hist_quantile(&h, 0.5) - before <= 2 && h.lo <= 1, "median stable, lo=%u", h.lo);
    gc_hist_free(&h);
}

int main(void)
{
    test_sub_bits_for();
    test_geometry();
    test_midpoint_bound();
    test_quantiles();
    test_merge_algebra();
    test_merge_disjoint();
    test_empty();
    test_record_n_and_storage();
    CHECK_DONE();
}

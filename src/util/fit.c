/* Line fits. See fit.h. */
#include "util/fit.h"

#include <math.h>
#include <stdlib.h>

#include "util/stats.h"

static void range_and_r2(const double *x, const double *y, size_t n, gc_line *l)
{
    double my = 0, ss_tot = 0, ss_res = 0;
    l->x_min = l->x_max = x[0];
    for (size_t i = 0; i < n; i++) {
        my += y[i];
        if (x[i] < l->x_min)
            l->x_min = x[i];
        if (x[i] > l->x_max)
            l->x_max = x[i];
    }
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (l->intercept + l->slope * x[i]);
        ss_res += r * r;
        ss_tot += (y[i] - my) * (y[i] - my);
    }
    /* A flat y is explained perfectly by a flat line. */
    l->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
    l->n = n;
}

int gc_fit_ols(const double *x, const double *y, size_t n, gc_line *out)
{
    if (n < 2)
        return -1;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx <= 0)
        return -1;
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    range_and_r2(x, y, n, out);
    return 0;
}

int gc_fit_theil_sen(const double *x, const double *y, size_t n, gc_line *out)
{
    if (n < 2)
        return -1;
    size_t m = 0;
    double *s = malloc(sizeof(double) * (n * (n - 1) / 2 + n));
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (x[j] != x[i])
                s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
    if (!m) {
        free(s);
        return -1;
    }
    out->slope = gc_median(s, m);
    for (size_t i = 0; i < n; i++)
        s[i] = y[i] - out->slope * x[i];
    out->intercept = gc_median(s, n);
    free(s);
    range_and_r2(x, y, n, out);
    return 0;
}

/* Least squares of y = a + b * max(0, x - k) for a fixed knee k (b >= 0:
 * a negative rise is a flat line). Returns the sum of squared residuals. */
static double hinge_at(const double *x, const double *y, size_t n, double k, double *a,
                       double *b)
{
    double mu = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mu += x[i] > k ? x[i] - k : 0;
        my += y[i];
    }
    mu /= (double)n;
    my /= (double)n;
    double suu = 0, suy = 0;
    for (size_t i = 0; i < n; i++) {
        double u = (x[i] > k ? x[i] - k : 0) - mu;
        suu += u * u;
        suy += u * (y[i] - my);
    }
    *b = suu > 0 && suy > 0 ? suy / suu : 0;
    *a = my - *b * mu;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (*a + *b * (x[i] > k ? x[i] - k : 0));
        sse += r * r;
    }
    return sse;
}

int gc_fit_hinge(const double *x, const double *y, size_t n, gc_hinge *out)
{
    if (n < 3)
        return -1;
    double lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return -1;
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    /* knees from lo to hi on a log grid, 16 steps per factor of 2 of x */
    int steps = (int)ceil(16 * log2(hi / lo));
    double best = INFINITY, a = 0, b = 0;
    for (int s = 0; s <= steps; s++) {
        double k = steps ? lo * pow(hi / lo, (double)s / steps) : lo;
        double ka, kb, sse = hinge_at(x, y, n, k, &ka, &kb);
        if (s == 0 || sse < best - 1e-12 * (1 + best)) {   /* earliest knee on a tie */
            best = sse;
            a = ka;
            b = kb;
            out->knee = kb > 0 ? k : hi;
        }
    }
    double my = 0, sst = 0;
    for (size_t i = 0; i < n; i++)
        my += y[i];
    my /= (double)n;
    for (size_t i = 0; i < n; i++)
        sst += (y[i] - my) * (y[i] - my);
    out->floor = a;
    out->rise = b;
    out->r2 = sst > 0 ? 1 - best / sst : 1;
    out->rms_rel = a > 0 ? sqrt(best / (double)n) / a : NAN;
    out->n = n;
    return 0;
}

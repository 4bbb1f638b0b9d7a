/* Line fits. See fit.h. */
#include "util/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Least squares of y on the columns 1, u (when uf), v (when vr): the
 * coefficients (0 for a column left out) and the sum of squared residuals;
 * -1 when the system is singular. */
static int lsq3(const double *y, const double *u, const double *v, size_t n, int uf, int vr,
                double c[3], double *sse)
{
    const double *col[3] = { NULL, uf ? u : NULL, vr ? v : NULL };
    int idx[3], k = 0;
    for (int i = 0; i < 3; i++)
        if (i == 0 || col[i])
            idx[k++] = i;
    double m[3][4] = { { 0 } };
    for (size_t t = 0; t < n; t++) {
        double z[3] = { 1, uf ? u[t] : 0, vr ? v[t] : 0 };
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++)
                m[a][b] += z[idx[a]] * z[idx[b]];
            m[a][k] += z[idx[a]] * y[t];
        }
    }
    for (int i = 0; i < k; i++) {   /* Gauss-Jordan, partial pivoting */
        int p = i;
        for (int r = i + 1; r < k; r++)
            if (fabs(m[r][i]) > fabs(m[p][i]))
                p = r;
        if (fabs(m[p][i]) < 1e-9 * (1 + fabs(m[0][0])))
            return -1;
        for (int b = 0; b <= k; b++) {
            double tmp = m[i][b];
            m[i][b] = m[p][b];
            m[p][b] = tmp;
        }
        for (int r = 0; r < k; r++)
            if (r != i) {
                double f = m[r][i] / m[i][i];
                for (int b = i; b <= k; b++)
                    m[r][b] -= f * m[i][b];
            }
    }
    c[0] = c[1] = c[2] = 0;
    for (int i = 0; i < k; i++)
        c[idx[i]] = m[i][k] / m[i][i];
    *sse = 0;
    for (size_t t = 0; t < n; t++) {
        double r = y[t] - (c[0] + (uf ? c[1] * u[t] : 0) + (vr ? c[2] * v[t] : 0));
        *sse += r * r;
    }
    return 0;
}

#define VALLEY_MAX_N 256
int gc_fit_valley(const double *x, const double *y, size_t n, gc_valley *out)
{
    if (n < 3 || n > VALLEY_MAX_N)
        return -1;
    double lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return -1;
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    int steps = (int)ceil(8 * log2(hi / lo));
    double u[VALLEY_MAX_N], v[VALLEY_MAX_N], best = INFINITY, bc[3] = { 0, 0, 0 };
    double bkf = lo, bkr = hi;
    for (int sf = 0; sf <= steps; sf++) {
        double kf = steps ? lo * pow(hi / lo, (double)sf / steps) : lo;
        size_t below = 0;   /* a fall spans two points at least: not one end's noise */
        for (size_t i = 0; i < n; i++) {
            u[i] = x[i] < kf ? log2(kf / x[i]) : 0;
            below += x[i] < kf;
        }
        for (int sr = sf; sr <= steps; sr++) {
            double kr = steps ? lo * pow(hi / lo, (double)sr / steps) : lo;
            for (size_t i = 0; i < n; i++)
                v[i] = x[i] > kr ? x[i] - kr : 0;
            /* the full valley, then without the fall, the rise, or both:
             * the best whose coefficients keep their signs */
            for (int form = 0; form < 4; form++) {
                int uf = !(form & 1) && sf > 0 && below >= 2, vr = !(form & 2) && sr < steps;
                double c[3], sse;
                if (lsq3(y, u, v, n, uf, vr, c, &sse) || c[1] < 0 || c[2] < 0)
                    continue;
                if (!isfinite(best) || sse < best - 1e-12 * (1 + best)) {   /* earliest knees on a tie */
                    best = sse;
                    memcpy(bc, c, sizeof bc);
                    bkf = uf ? kf : lo;
                    bkr = vr ? kr : hi;
                }
            }
        }
    }
    if (!isfinite(best))
        return -1;
    double my = 0, sst = 0;
    for (size_t i = 0; i < n; i++)
        my += y[i];
    my /= (double)n;
    for (size_t i = 0; i < n; i++)
        sst += (y[i] - my) * (y[i] - my);
    out->floor = bc[0];
    out->fall = bc[1];
    out->rise = bc[2];
    out->fall_knee = bkf;
    out->rise_knee = bkr;
    out->r2 = sst > 0 ? 1 - best / sst : 1;
    out->rms_rel = bc[0] > 0 ? sqrt(best / (double)n) / bc[0] : NAN;
    out->n = n;
    return 0;
}

/* Transfer model per link. See model_xfer.h. */
#include "analyze/model_xfer.h"

#include <math.h>
#include <string.h>

#include "util/stats.h"

/* Weighted least squares of t = a + s * n with weights w / t^2 (relative
 * error). Returns -1 when the system is singular. */
static int wls(const double *n, const double *t, const double *w, size_t k, double *a, double *s)
{
    double S00 = 0, S01 = 0, S11 = 0, b0 = 0, b1 = 0;
    for (size_t i = 0; i < k; i++) {
        double q = w[i] / (t[i] * t[i]);
        S00 += q;
        S01 += q * n[i];
        S11 += q * n[i] * n[i];
        b0 += q * t[i];
        b1 += q * n[i] * t[i];
    }
    double det = S00 * S11 - S01 * S01;
    if (!(fabs(det) > 1e-300 * fabs(S00 * S11)) || k < 2) {
        if (S00 <= 0)
            return -1;
        *a = b0 / S00;   /* a flat segment: the weighted mean time */
        *s = 0;
        return 0;
    }
    *a = (b0 * S11 - b1 * S01) / det;
    *s = (S00 * b1 - S01 * b0) / det;
    return 0;
}

/* Robust relative fit of one segment: WLS, then Huber weights on the
 * relative residuals (k = 1.5 x their median absolute value). A negative
 * intercept or slope is clamped and the other refitted. */
static void fit_seg(const double *n, const double *t, size_t k, gc_xfer_seg *sg)
{
    double w[64], a = 0, s = 0;
    size_t m = k < 64 ? k : 64;
    for (size_t i = 0; i < m; i++)
        w[i] = 1;
    for (int it = 0; it < 6; it++) {
        if (wls(n, t, w, m, &a, &s))
            break;
        double r[64], med;
        for (size_t i = 0; i < m; i++)
            r[i] = fabs((a + s * n[i] - t[i]) / t[i]);
        double c[64];
        memcpy(c, r, m * sizeof *c);
        /* the middle values selected, not sorted: the same values (a
         * link's split search fits every segment of its sizes: sorting
         * each was a quarter of rank 0's time for a record) */
        double hi = gc_select_kth(c, m, m / 2);
        med = m % 2 ? hi : 0.5 * (gc_select_kth(c, m, m / 2 - 1) + hi);
        double h = 1.5 * (med > 1e-4 ? med : 1e-4);
        for (size_t i = 0; i < m; i++)
            w[i] = r[i] <= h ? 1 : h / r[i];
    }
    if (s < 0) {   /* no slope: flat */
        s = 0;
        double num = 0, den = 0;
        for (size_t i = 0; i < m; i++) {
            num += w[i] / t[i];
            den += w[i] / (t[i] * t[i]);
        }
        a = den > 0 ? num / den : 0;
    } else if (a < 0) {   /* through the origin: s = sum(w n/t) / sum(w n^2/t^2) */
        a = 0;
        double num = 0, den = 0;
        for (size_t i = 0; i < m; i++) {
            num += w[i] * n[i] / t[i];
            den += w[i] * n[i] * n[i] / (t[i] * t[i]);
        }
        s = den > 0 ? num / den : 0;
    }
    sg->alpha_s = a;
    sg->beta_bps = s > 0 ? 1 / s : 0;
    sg->size_min = n[0];
    sg->size_max = n[m - 1];
    sg->n = m;
}

static double seg_pred(const gc_xfer_seg *sg, double n)
{
    return sg->alpha_s + (sg->beta_bps > 0 ? n / sg->beta_bps : 0);
}

static double seg_maxrel(const gc_xfer_seg *sg, const double *n, const double *t, size_t k)
{
    double mx = 0;
    for (size_t i = 0; i < k; i++) {
        double r = fabs(seg_pred(sg, n[i]) - t[i]) / t[i];
        if (r > mx)
            mx = r;
    }
    return mx;
}

static double seg_sse(const gc_xfer_seg *sg, const double *n, const double *t, size_t k)
{
    double e = 0;
    for (size_t i = 0; i < k; i++) {
        double r = (seg_pred(sg, n[i]) - t[i]) / t[i];
        e += r * r;
    }
    return e;
}

/* Best split of [0, k) into two segments of >= 3 sizes (least relative SSE). */
static int best_split(const double *n, const double *t, size_t k, size_t *at)
{
    double best = INFINITY;
    int found = 0;
    for (size_t c = 3; c + 3 <= k; c++) {
        gc_xfer_seg a, b;
        fit_seg(n, t, c, &a);
        fit_seg(n + c, t + c, k - c, &b);
        double e = seg_sse(&a, n, t, c) + seg_sse(&b, n + c, t + c, k - c);
        if (e < best) {
            best = e;
            *at = c;
            found = 1;
        }
    }
    return found;
}

int gc_xfer_fit(const double *n, const double *t, size_t k, gc_xfer_model *m)
{
    memset(m, 0, sizeof *m);
    if (k < 2 || k > 64)
        return -1;
    for (size_t i = 0; i < k; i++)
        if (!(t[i] > 0) || (i && n[i] <= n[i - 1]))
            return -1;
    /* segments as [start, end) index ranges, split greedily */
    size_t lo[GC_XFER_MAX_SEG] = { 0 }, hi[GC_XFER_MAX_SEG] = { k };
    size_t ns = 1;
    while (ns < GC_XFER_MAX_SEG) {
        size_t worst = ns;
        double wmax = GC_XFER_TOL;
        for (size_t s = 0; s < ns; s++) {
            gc_xfer_seg sg;
            fit_seg(n + lo[s], t + lo[s], hi[s] - lo[s], &sg);
            double r = seg_maxrel(&sg, n + lo[s], t + lo[s], hi[s] - lo[s]);
            if (r > wmax && hi[s] - lo[s] >= 6) {
                wmax = r;
                worst = s;
            }
        }
        size_t at;
        if (worst == ns || !best_split(n + lo[worst], t + lo[worst], hi[worst] - lo[worst], &at))
            break;
        for (size_t s = ns; s > worst + 1; s--) {
            lo[s] = lo[s - 1];
            hi[s] = hi[s - 1];
        }
        lo[worst + 1] = lo[worst] + at;
        hi[worst + 1] = hi[worst];
        hi[worst] = lo[worst] + at;
        ns++;
    }
    m->nseg = ns;
    for (size_t s = 0; s < ns; s++)
        fit_seg(n + lo[s], t + lo[s], hi[s] - lo[s], &m->seg[s]);
    m->valid = 1;
    m->alpha_s = m->seg[0].alpha_s;
    m->beta_bps = m->seg[ns - 1].beta_bps;
    m->size_min = n[0];
    m->size_max = n[k - 1];
    double mean = 0, sst = 0, sse = 0;
    for (size_t i = 0; i < k; i++)
        mean += t[i] / k;
    for (size_t i = 0; i < k; i++) {
        double p = gc_xfer_predict(m, n[i]);
        double r = fabs(p - t[i]) / t[i];
        if (r > m->max_rel_residual)
            m->max_rel_residual = r;
        sse += (p - t[i]) * (p - t[i]);
        sst += (t[i] - mean) * (t[i] - mean);
    }
    m->r2 = sst > 0 ? 1 - sse / sst : 1;
    return 0;
}

double gc_xfer_predict(const gc_xfer_model *m, double n)
{
    if (!m->valid || !m->nseg)
        return NAN;
    const gc_xfer_seg *sg = &m->seg[m->nseg - 1];
    for (size_t s = 0; s < m->nseg; s++) {
        if (n <= m->seg[s].size_max) {
            /* between two segments' ranges: the one whose edge is nearer (log scale) */
            if (s > 0 && n < m->seg[s].size_min &&
                log(n / m->seg[s - 1].size_max) < log(m->seg[s].size_min / n))
                sg = &m->seg[s - 1];
            else
                sg = &m->seg[s];
            break;
        }
    }
    return seg_pred(sg, n);
}

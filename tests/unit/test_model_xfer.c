/* The transfer model: a line t = alpha + n / beta is recovered from exact
 * and noisy medians, an outlier does not move it, a piecewise curve is
 * split at its knee, and the PCIe nominal follows lanes x GT/s x encoding. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "analyze/model_xfer.h"

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static size_t sizes(double *n)
{
    size_t k = 0;
    for (double s = 4; s <= 1073741824.0; s *= 2)
        n[k++] = s;
    return k;
}

int main(void)
{
    double n[64], t[64];
    size_t k = sizes(n);
    gc_xfer_model m;

    /* exact line */
    for (size_t i = 0; i < k; i++)
        t[i] = 2.5e-6 + n[i] / 50e9;
    CHECK(gc_xfer_fit(n, t, k, &m) == 0, "fit failed");
    CHECK(m.nseg == 1, "%zu segments for a line", m.nseg);
    CHECK(rel(m.alpha_s, 2.5e-6) < 1e-6, "alpha %g", m.alpha_s);
    CHECK(rel(m.beta_bps, 50e9) < 1e-6, "beta %g", m.beta_bps);
    CHECK(m.max_rel_residual < 1e-9, "residual %g", m.max_rel_residual);
    CHECK(m.r2 > 0.999999, "r2 %g", m.r2);

    /* noise of +-1% and one size 3x slow: the line stays */
    srand(1);
    for (size_t i = 0; i < k; i++)
        t[i] = (2.5e-6 + n[i] / 50e9) * (1 + 0.01 * (2.0 * rand() / RAND_MAX - 1));
    t[20] *= 3;
    CHECK(gc_xfer_fit(n, t, k, &m) == 0, "fit failed");
    double lb = m.seg[m.nseg - 1].beta_bps;
    CHECK(rel(lb, 50e9) < 0.03, "beta %g with an outlier", lb);
    CHECK(rel(m.alpha_s, 2.5e-6) < 0.05, "alpha %g with an outlier", m.alpha_s);

    /* piecewise: 40 GB/s up to 256 KiB, then 55 GB/s after a 4 us step */
    for (size_t i = 0; i < k; i++)
        t[i] = n[i] <= 262144 ? 2e-6 + n[i] / 40e9 : 6e-6 + n[i] / 55e9;
    CHECK(gc_xfer_fit(n, t, k, &m) == 0, "fit failed");
    CHECK(m.nseg >= 2, "no knee found");
    CHECK(m.max_rel_residual < 0.01, "piecewise residual %g", m.max_rel_residual);
    CHECK(rel(m.beta_bps, 55e9) < 0.01, "beta %g above the knee", m.beta_bps);
    CHECK(rel(m.alpha_s, 2e-6) < 0.01, "alpha %g below the knee", m.alpha_s);
    CHECK(rel(gc_xfer_predict(&m, 1 << 20), 6e-6 + 1048576 / 55e9) < 0.01, "predict");

    /* refusals */
    CHECK(gc_xfer_fit(n, t, 1, &m) != 0, "one size");
    t[3] = 0;
    CHECK(gc_xfer_fit(n, t, k, &m) != 0, "zero time");

    /* PCIe nominal per direction */
    CHECK(rel(gc_pcie_nominal_bps(5, 16), 16 * 32e9 * 128 / 130 / 8) < 1e-12, "gen5 x16");
    CHECK(rel(gc_pcie_nominal_bps(3, 16), 15.75e9) < 0.001, "gen3 x16 %g", gc_pcie_nominal_bps(3, 16));
    CHECK(rel(gc_pcie_nominal_bps(1, 1), 0.25e9) < 1e-12, "gen1 x1");
    CHECK(gc_pcie_nominal_bps(0, 16) == 0 && gc_pcie_nominal_bps(5, 0) == 0, "unknown");
    CHECK_DONE();
}

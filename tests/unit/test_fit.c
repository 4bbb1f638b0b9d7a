/* The loaded-latency law's fits (fit.h): a hinge (floor, knee, rise) must
 * recover its own parameters, a flat series must come out flat, and on the
 * medians of a real H100 (tests/data/fleet/h100-2026-11-24-c902708ebc64-default,
 * chase_loaded at 1 GiB, warps in flight on 132 SMs) the hinge must hold
 * where document 000's line does not (R^2 0.84). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "util/fit.h"

static const double warps[7] = { 132, 264, 528, 1056, 2112, 4224, 8448 };

static void test_exact(void)
{
    double y[7];
    for (int i = 0; i < 7; i++)
        y[i] = 500 + (warps[i] > 2000 ? 0.05 * (warps[i] - 2000) : 0);
    gc_hinge h;
    CHECK(gc_fit_hinge(warps, y, 7, &h) == 0, "fits");
    CHECK(fabs(h.floor - 500) < 0.5, "floor %.2f", h.floor);
    CHECK(fabs(h.knee - 2000) < 100, "knee %.0f (grid: 16 steps per factor of 2)", h.knee);
    CHECK(fabs(h.rise - 0.05) < 0.003, "rise %.4f", h.rise);
    CHECK(h.r2 > 0.999 && h.rms_rel < 0.002, "r2 %.4f rms %.4f", h.r2, h.rms_rel);
}

static void test_flat(void)
{
    double y[7] = { 280, 279, 281, 280, 279, 281, 280 };
    gc_hinge h;
    CHECK(gc_fit_hinge(warps, y, 7, &h) == 0, "fits");
    CHECK(h.rise < 1e-3 || h.knee >= 8000, "no rise in the range: rise %.4f knee %.0f", h.rise,
          h.knee);
    CHECK(fabs(h.floor - 280) < 1 && h.rms_rel < 0.005, "floor %.1f rms %.4f", h.floor, h.rms_rel);
    double falling[7] = { 300, 290, 280, 270, 260, 250, 240 };
    CHECK(gc_fit_hinge(warps, falling, 7, &h) == 0 && h.rise == 0, "never a negative rise");
}

static void test_h100(void)
{
    double y[7] = { 694.4, 694.4, 688.0, 680.3, 684.1, 707.2, 784.0 };
    gc_line l;
    gc_hinge h;
    CHECK(gc_fit_ols(warps, y, 7, &l) == 0 && l.r2 < 0.9, "the line does not hold: r2 %.3f",
          l.r2);
    CHECK(gc_fit_hinge(warps, y, 7, &h) == 0, "fits");
    CHECK(h.r2 >= 0.95, "the hinge does: r2 %.3f", h.r2);
    CHECK(h.floor > 680 && h.floor < 695, "floor %.1f cycles", h.floor);
    CHECK(h.knee > 2112 && h.knee < 4224, "knee %.0f warps (between 16 and 32 per SM)", h.knee);
    CHECK(h.rise > 0.01 && h.rise < 0.03, "rise %.4f cycles per warp", h.rise);
}

static void test_bad(void)
{
    gc_hinge h;
    double x[2] = { 1, 2 }, y[2] = { 1, 2 }, z[3] = { 0, 1, 2 }, w[3] = { 1, 2, 3 };
    CHECK(gc_fit_hinge(x, y, 2, &h) == -1, "needs 3 points");
    CHECK(gc_fit_hinge(z, w, 3, &h) == -1, "needs x > 0 (log grid)");
}

int main(void)
{
    test_exact();
    test_flat();
    test_h100();
    test_bad();
    CHECK_DONE();
}

/* The loaded-latency law's fits (fit.h): a hinge (floor, knee, rise) must
 * recover its own parameters, a flat series must come out flat, and on the
 * medians of a real H100 (tests/data/fleet/h100-2026-11-24-c902708ebc64-default,
 * chase_loaded at 1 GiB, warps in flight on 132 SMs) the hinge must hold
 * where document 000's line does not (R^2 0.84). A valley (a fall, the
 * floor, the rise) must recover its parameters, be the hinge where there
 * is no fall, and hold on a real H200's medians whose latency first falls
 * (tests/data/fleet/h200-2026-11-26-b3eafb8-2-default), where the hinge
 * reads the fall as noise (R^2 0.87). */
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

static void test_valley_exact(void)
{
    double y[7];
    for (int i = 0; i < 7; i++)
        y[i] = 650 + (warps[i] < 1056 ? 10 * log2(1056 / warps[i]) : 0) +
               (warps[i] > 4224 ? 0.02 * (warps[i] - 4224) : 0);
    gc_valley v;
    CHECK(gc_fit_valley(warps, y, 7, &v) == 0, "fits");
    CHECK(fabs(v.floor - 650) < 0.5, "floor %.2f", v.floor);
    CHECK(fabs(v.fall - 10) < 0.5, "fall %.2f cycles per octave", v.fall);
    CHECK(fabs(v.fall_knee - 1056) < 100, "fall knee %.0f", v.fall_knee);
    CHECK(fabs(v.rise_knee - 4224) < 400, "rise knee %.0f", v.rise_knee);
    CHECK(fabs(v.rise - 0.02) < 0.002, "rise %.4f", v.rise);
    CHECK(v.r2 > 0.999, "r2 %.4f", v.r2);
}

static void test_valley_real(void)
{
    double h100[7] = { 694.4, 694.4, 688.0, 680.3, 684.1, 707.2, 784.0 };
    double h200[7] = { 675.3, 684.7, 664.1, 652.2, 651.9, 668.0, 747.0 };
    gc_valley v;
    gc_hinge h;
    CHECK(gc_fit_valley(warps, h100, 7, &v) == 0 && gc_fit_hinge(warps, h100, 7, &h) == 0, "fits");
    CHECK(v.r2 >= h.r2 - 1e-9 && v.r2 >= 0.95, "H100: valley r2 %.3f, hinge %.3f", v.r2, h.r2);
    CHECK(gc_fit_valley(warps, h200, 7, &v) == 0 && gc_fit_hinge(warps, h200, 7, &h) == 0, "fits");
    CHECK(h.r2 < 0.9, "H200: the hinge does not hold: r2 %.3f", h.r2);
    CHECK(v.r2 >= 0.95, "H200: the valley does: r2 %.3f", v.r2);
    CHECK(v.fall > 5 && v.fall_knee > 1056 && v.fall_knee < 2112 * 1.2,
          "H200: falls %.1f cycles per octave to %.0f warps (8-16 per SM)", v.fall, v.fall_knee);
    CHECK(v.rise_knee >= 2112 && v.rise_knee < 4224 * 1.01, "H200: rises past %.0f", v.rise_knee);
    double flat[7] = { 280, 279, 281, 280, 279, 281, 280 };
    CHECK(gc_fit_valley(warps, flat, 7, &v) == 0 && fabs(v.floor - 280) < 1 &&
          v.rms_rel < 0.005, "flat: floor %.1f", v.floor);
}

static void test_bad(void)
{
    gc_hinge h;
    double x[2] = { 1, 2 }, y[2] = { 1, 2 }, z[3] = { 0, 1, 2 }, w[3] = { 1, 2, 3 };
    CHECK(gc_fit_hinge(x, y, 2, &h) == -1, "needs 3 points");
    CHECK(gc_fit_hinge(z, w, 3, &h) == -1, "needs x > 0 (log grid)");
    gc_valley v;
    CHECK(gc_fit_valley(x, y, 2, &v) == -1 && gc_fit_valley(z, w, 3, &v) == -1, "valley: the same");
}

int main(void)
{
    test_exact();
    test_flat();
    test_h100();
    test_valley_exact();
    test_valley_real();
    test_bad();
    CHECK_DONE();
}

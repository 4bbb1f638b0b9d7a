/* Nominal link rates. See linkrate.h. */
#include "census/linkrate.h"

double gc_pcie_nominal_bps(int gen, int width)
{
    static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
    if (gen < 1 || gen > 6 || width < 1)
        return 0;
    double enc = gen <= 2 ? 8.0 / 10 : gen <= 5 ? 128.0 / 130 : 242.0 / 256;
    return width * gts[gen] * 1e9 * enc / 8;
}

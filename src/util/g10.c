/* See g10.h. */
#include "util/g10.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* exact in a double */
static const double P10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* a * 10^k, |k| <= 22: one correctly rounded operation */
static double scale(double a, int k)
{
    return k >= 0 ? a * P10[k] : a / P10[-k];
}

int gc_g10_digits(double v, uint64_t *m, int *e)
{
    double a = fabs(v);
    if (!(a >= 1e-13 && a < 1e31))
        return 0;
    int b2;
    frexp(a, &b2);   /* a in [2^(b2-1), 2^b2): log10 within one, the loop settles it */
    int x = (int)floor((b2 - 1) * 0.30102999566398120), tries = 0;
    double s;
    for (;;) {   /* log10 may be one off near a power of ten */
        if (x < -13 || x > 31 || ++tries > 4)
            return 0;
        s = scale(a, 9 - x);
        if (s >= 1e10)
            x++;
        else if (s < 1e9)
            x--;
        else
            break;
    }
    /* s is a * 10^(9 - x) within half an ulp (< 1.1e-6): away from a tie
     * it rounds as the exact product does */
    if (fabs(s - floor(s) - 0.5) < 1e-4)
        return 0;
    uint64_t r = (uint64_t)llround(s);
    if (r >= 10000000000ull) {   /* 9999999999.5 and up: 1.000000000e(x+1) */
        r /= 10;
        x++;
    }
    *m = r;
    *e = x;
    return 1;
}

double gc_g10_round(double v)
{
    if (!isfinite(v) || v == 0)
        return v;
    uint64_t m;
    int e;
    if (!gc_g10_digits(v, &m, &e)) {
        char b[40];
        snprintf(b, sizeof b, "%.10g", v);
        return strtod(b, NULL);
    }
    /* m < 2^53 and |e - 9| <= 22: one correctly rounded operation, as strtod's */
    double r = scale((double)m, e - 9);
    return v < 0 ? -r : r;
}

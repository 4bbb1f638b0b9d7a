/* Ten significant digits, as printf's %.10g rounds them, without printf:
 * the catalogue writes every real with 10 digits and the detector rounds
 * what it judges to the same 10 (so `check` on the file repeats the run's
 * verdicts); printf's exact path (and strtod back) was a tenth of rank 0's
 * last part at 16,384 GPUs. */
#ifndef GC_G10_H
#define GC_G10_H

#include <stdint.h>

/* |v| = m * 10^(e - 9) rounded to 10 digits, 1e9 <= m < 1e10 (trailing
 * zeros kept): 1. 0 where this cannot decide it for certain (0, not
 * finite, |v| outside [1e-13, 1e31), or v * 10^(9 - e) within 1e-4 of a
 * rounding tie, where the product's own rounding could flip the last
 * digit): then printf must. */
int gc_g10_digits(double v, uint64_t *m, int *e);

/* strtod of snprintf("%.10g", v): the double nearest v's 10 digits. */
double gc_g10_round(double v);

#endif

/* Headline parameters of a GPU derived from its points on rank 0: latency
 * plateaus of the chase curve, best bandwidth over the occupancy sweep,
 * theoretical bandwidth. Each parameter names the points it came from. */
#ifndef GC_DERIVE_H
#define GC_DERIVE_H

#include "census/results.h"

/* Appends parameters to g->params. */
int gc_derive_params(gc_gpu *g);
/* The value of g's parameter name, dflt where g has none (derive_pts.c). */
double gc_param_value(const gc_gpu *g, const char *name, double dflt);

#endif

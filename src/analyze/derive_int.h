/* What derive.c (the headline parameters) and derive_mlp.c (bench mlp's)
 * share; the shared reads live in derive_pts.c, below both, so that the
 * two never call each other in a circle. Not for other modules: derive.h
 * is the interface. */
#ifndef GC_DERIVE_INT_H
#define GC_DERIVE_INT_H

#include "census/results.h"

/* A point measured with samples. */
int dv_usable(const gc_point *p);
/* Its median. */
double dv_p50(const gc_point *p);
/* bench mlp's parameters (derive_mlp.c), appended by gc_derive_params. */
void gc_derive_mlp(gc_gpu *g);

#endif

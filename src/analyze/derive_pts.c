/* The reads of a GPU's points and parameters that derive.c and
 * derive_mlp.c both make: whether a point has samples, its median, a
 * parameter's value. The lowest file of derive: it calls neither. */
#include "analyze/derive.h"
#include "analyze/derive_int.h"

#include <string.h>

int dv_usable(const gc_point *p)
{
    return p->status == GC_PT_OK && gc_point_count(p) > 0;
}

double dv_p50(const gc_point *p)
{
    gc_summary s;
    gc_point_summary(p, &s);
    return s.p50;
}

double gc_param_value(const gc_gpu *g, const char *name, double dflt)
{
    for (size_t i = 0; i < g->nparams; i++)
        if (strcmp(g->params[i].name, name) == 0)
            return g->params[i].value;
    return dflt;
}

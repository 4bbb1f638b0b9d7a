/* The `models` parts of the catalogue (results-schema: $defs/gpu_models
 * per GPU, $defs/models_summary at the top): written with the streaming
 * writer, so catalogue.c only calls these. */
#ifndef GC_MODEL_JSON_H
#define GC_MODEL_JSON_H

#include "util/jsonw.h"
#include "analyze/validate.h"

/* Member "models" of a GPU object; rows: with its validation rows and each
 * parameter's symbol and source (a node file; catalogue.json keeps the
 * values and the errors, not the rows). */
void gc_models_json(gc_jw *w, const gc_models *m, int rows);

/* catalogue.json (schema 3): the same values without their names, units,
 * references or rows: each model's parameter values in the order the
 * top-level "models"."tables" lists them, the errors as [n, mape, max_ape]
 * per regime of "tables"."regimes". */
void gc_models_json_compact(gc_jw *w, const gc_models *m);
/* Member "tables" of the top-level "models": what the compact GPU models
 * leave out, once (launch floor, regimes, per model its reference and
 * parameters as [name, unit]). */
void gc_models_tables_json(gc_jw *w);

/* Errors pooled over every GPU of the catalogue, for its top-level
 * `models` member. */
typedef struct gc_models_pool {
    char origin[16];
    char desc_error[512];
    size_t ndescs;
    int gpus, gpus_validated;
    gc_err_stats raw[GC_NMODELS][GC_NREG], cal[GC_NMODELS][GC_NREG];
} gc_models_pool;

void gc_models_pool_init(gc_models_pool *p, const gc_kdesc_set *s);
void gc_models_pool_add(gc_models_pool *p, const gc_models *m);
/* The value (an object) of the top-level member "models". */
void gc_models_pool_json(gc_jw *w, const gc_models_pool *p);

#endif

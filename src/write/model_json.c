/* JSON of the models. See model_json.h and results-schema. */
#include "write/model_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const references[GC_NMODELS] = {
    "S. Hong, H. Kim, An Analytical Model for a GPU Architecture with Memory-level and "
    "Thread-level Parallelism Awareness, ISCA 2009 (MWP-CWP)",
    "Little's law after V. Volkov, Understanding Latency Hiding on GPUs (2016), as formulated in "
    "source document 001 (Gajger 2017), eq. 4.1-4.7" };

static void stats_json(gc_jw *w, const char *k, const gc_err_stats *s)
{
    gc_jw_key(w, k);
    gc_jw_open(w, "{");
    for (int r = 0; r < GC_NREG; r++) {
        gc_jw_key(w, gc_regime_names[r]);
        gc_jw_open(w, "{");
        gc_jw_kint(w, "n", s[r].n);
        gc_jw_kreal(w, "mape", s[r].n ? s[r].mape : NAN);
        gc_jw_kreal(w, "max_ape", s[r].n ? s[r].max_ape : NAN);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "}");
}

static void errors_json(gc_jw *w, const gc_err_stats *raw, const gc_err_stats *cal)
{
    gc_jw_key(w, "errors");
    gc_jw_open(w, "{");
    stats_json(w, "raw", raw);
    stats_json(w, "calibrated", cal);
    gc_jw_close(w, "}");
}

/* full: with each parameter's symbol and source (a node file's) */
static void model_json(gc_jw *w, const gc_models *m, int k, const int *ids, int n, int full)
{
    gc_jw_key(w, gc_model_names[k]);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "reference", references[k]);
    gc_jw_key(w, "parameters");
    gc_jw_open(w, "[");
    for (int i = 0; i < n; i++) {
        const gc_hw_def *d = &gc_hw_defs[ids[i]];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "name", d->name);
        if (full)
            gc_jw_kstr(w, "symbol", d->symbol);
        gc_jw_kreal(w, "value", m->hw.v[ids[i]]);
        gc_jw_kstr(w, "unit", d->unit);
        if (full)
            gc_jw_kstr(w, "source", m->hw.source[ids[i]]);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
    gc_jw_kreal(w, "lambda", m->lambda[k]);
    gc_jw_kint(w, "lambda_kernels", m->lambda_n[k]);
    errors_json(w, m->raw[k], m->cal[k]);
    gc_jw_close(w, "}");
}

static void row_json(gc_jw *w, const gc_vrow *r)
{
    gc_jw_next(w);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "kernel", r->kernel);
    if (r->regime == GC_REG_ALL)
        gc_jw_knull(w, "regime");
    else
        gc_jw_kstr(w, "regime", gc_regime_names[r->regime]);
    gc_jw_kreal(w, "measured_ns", r->measured_ns);
    gc_jw_kreal(w, "sm_clock_mhz", r->sm_clock_mhz);
    gc_jw_kint(w, "grid_blocks", r->grid_blocks);
    gc_jw_kint(w, "block_threads", r->block_threads);
    gc_jw_kreal(w, "warps_per_sm", r->warps_per_sm > 0 ? r->warps_per_sm : NAN);
    for (int k = 0; k < GC_NMODELS; k++) {
        char key[48];
        snprintf(key, sizeof key, "%s_ns", gc_model_names[k]);
        gc_jw_kreal(w, key, r->ok[k] ? r->pred_ns[k] : NAN);
        snprintf(key, sizeof key, "%s_calibrated_ns", gc_model_names[k]);
        gc_jw_kreal(w, key, r->ok[k] ? r->cal_ns[k] : NAN);
        snprintf(key, sizeof key, "%s_loo_lambda", gc_model_names[k]);
        gc_jw_kreal(w, key, r->ok[k] ? r->loo_lambda[k] : NAN);
    }
    if (r->ok[GC_M_MWP])
        gc_jw_kint(w, "mwp_cwp_case", r->mwp_case);
    else
        gc_jw_knull(w, "mwp_cwp_case");
    if (r->error[0])
        gc_jw_kstr(w, "error", r->error);
    else
        gc_jw_knull(w, "error");
    gc_jw_close(w, "}");
}

void gc_models_json(gc_jw *w, const gc_models *m, int rows)
{
    gc_jw_key(w, "models");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "description_origin", m->origin);
    gc_jw_kstr(w, "launch_floor", "predicted ns = launch_overhead_ns + model cycles / freq_hz / lambda");
    model_json(w, m, GC_M_MWP, gc_mwp_params, gc_mwp_nparams, rows);
    model_json(w, m, GC_M_LITTLE, gc_little_params, gc_little_nparams, rows);
    const char *b = gc_models_better(m);
    if (b)
        gc_jw_kstr(w, "better_model", b);
    else
        gc_jw_knull(w, "better_model");
    if (rows) {
        gc_jw_key(w, "validation");
        gc_jw_open(w, "[");
        for (size_t i = 0; i < m->nrows; i++)
            row_json(w, &m->rows[i]);
        gc_jw_close(w, "]");
    }
    gc_jw_close(w, "}");
}

/* catalogue.json (schema 3): per model its parameters' values in the order
 * of the top-level "models"."tables" (gc_models_tables_json), lambda, its
 * kernels and the errors as [n, mape, max_ape] per regime. */
static void stats_compact(gc_jw *w, const char *k, const gc_err_stats *s)
{
    gc_jw_key(w, k);
    gc_jw_open(w, "[");
    for (int r = 0; r < GC_NREG; r++) {
        gc_jw_next(w);
        gc_jw_open(w, "[");
        gc_jw_next(w), gc_jw_int(w, s[r].n);
        gc_jw_next(w), gc_jw_real(w, s[r].n ? s[r].mape : NAN);
        gc_jw_next(w), gc_jw_real(w, s[r].n ? s[r].max_ape : NAN);
        gc_jw_close(w, "]");
    }
    gc_jw_close(w, "]");
}

void gc_models_json_compact(gc_jw *w, const gc_models *m)
{
    gc_jw_key(w, "models");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "description_origin", m->origin);
    const int *ids[GC_NMODELS] = { gc_mwp_params, gc_little_params };
    int n[GC_NMODELS] = { gc_mwp_nparams, gc_little_nparams };
    for (int k = 0; k < GC_NMODELS; k++) {
        gc_jw_key(w, gc_model_names[k]);
        gc_jw_open(w, "{");
        gc_jw_key(w, "parameters");
        gc_jw_open(w, "[");
        for (int i = 0; i < n[k]; i++)
            gc_jw_next(w), gc_jw_real(w, m->hw.v[ids[k][i]]);
        gc_jw_close(w, "]");
        gc_jw_kreal(w, "lambda", m->lambda[k]);
        gc_jw_kint(w, "lambda_kernels", m->lambda_n[k]);
        gc_jw_key(w, "errors");
        gc_jw_open(w, "{");
        stats_compact(w, "raw", m->raw[k]);
        stats_compact(w, "calibrated", m->cal[k]);
        gc_jw_close(w, "}");
        gc_jw_close(w, "}");
    }
    const char *b = gc_models_better(m);
    if (b)
        gc_jw_kstr(w, "better_model", b);
    else
        gc_jw_knull(w, "better_model");
    gc_jw_close(w, "}");
}

void gc_models_tables_json(gc_jw *w)
{
    gc_jw_key(w, "tables");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "launch_floor", "predicted ns = launch_overhead_ns + model cycles / freq_hz / lambda");
    gc_jw_key(w, "regimes");
    gc_jw_open(w, "[");
    for (int r = 0; r < GC_NREG; r++)
        gc_jw_next(w), gc_jw_string(w, gc_regime_names[r]);
    gc_jw_close(w, "]");
    const int *ids[GC_NMODELS] = { gc_mwp_params, gc_little_params };
    int n[GC_NMODELS] = { gc_mwp_nparams, gc_little_nparams };
    for (int k = 0; k < GC_NMODELS; k++) {
        gc_jw_key(w, gc_model_names[k]);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "reference", references[k]);
        gc_jw_key(w, "parameters");
        gc_jw_open(w, "[");
        for (int i = 0; i < n[k]; i++) {
            gc_jw_next(w);
            gc_jw_open(w, "[");
            gc_jw_next(w), gc_jw_string(w, gc_hw_defs[ids[k][i]].name);
            gc_jw_next(w), gc_jw_string(w, gc_hw_defs[ids[k][i]].unit);
            gc_jw_close(w, "]");
        }
        gc_jw_close(w, "]");
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "}");
}

void gc_models_pool_init(gc_models_pool *p, const gc_kdesc_set *s)
{
    memset(p, 0, sizeof *p);
    snprintf(p->origin, sizeof p->origin, "%s", s && s->origin[0] ? s->origin : "none");
    if (s) {
        p->ndescs = s->n;
        snprintf(p->desc_error, sizeof p->desc_error, "%s", s->error);
    }
}

static void merge(gc_err_stats *a, const gc_err_stats *b)
{
    if (!b->n)
        return;
    a->mape = (a->mape * a->n + b->mape * b->n) / (a->n + b->n);
    a->n += b->n;
    if (b->max_ape > a->max_ape)
        a->max_ape = b->max_ape;
}

void gc_models_pool_add(gc_models_pool *p, const gc_models *m)
{
    p->gpus++;
    p->gpus_validated += m->nrows > 0;
    for (int k = 0; k < GC_NMODELS; k++)
        for (int r = 0; r < GC_NREG; r++) {
            merge(&p->raw[k][r], &m->raw[k][r]);
            merge(&p->cal[k][r], &m->cal[k][r]);
        }
}

void gc_models_pool_json(gc_jw *w, const gc_models_pool *p)
{
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "description_origin", p->origin);
    gc_jw_kint(w, "descriptions", (long long)p->ndescs);
    if (p->desc_error[0])
        gc_jw_kstr(w, "description_error", p->desc_error);
    else
        gc_jw_knull(w, "description_error");
    gc_jw_kint(w, "gpus", p->gpus);
    gc_jw_kint(w, "gpus_validated", p->gpus_validated);
    gc_jw_key(w, "pooled");
    gc_jw_open(w, "{");
    for (int k = 0; k < GC_NMODELS; k++) {
        gc_jw_key(w, gc_model_names[k]);
        gc_jw_open(w, "{");
        errors_json(w, p->raw[k], p->cal[k]);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "}");
    gc_models_tables_json(w);
    gc_jw_close(w, "}");
}

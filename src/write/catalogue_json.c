/* The catalogue's JSON documents: one GPU object (with its points'
 * histograms for a node file, without for catalogue.json) and the opening
 * shared by both kinds of file. Only serialising: the values come analysed
 * (analyze.c). See catalogue_int.h. */
#include "write/catalogue_int.h"
#include "write/catalogue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/codec.h"
#include "write/model_json.h"

/* ---- documents ------------------------------------------------------- */

static void run_json(gc_jw *w, const gc_run_meta *m)
{
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "tool", "gpucensus");
    gc_jw_kstr(w, "tool_version", m->tool_version);
    gc_jw_kstr(w, "git_commit", m->git_commit);
    gc_jw_kstr(w, "plan_name", m->plan_name);
    gc_jw_kstr(w, "plan_file", m->plan_file);
    gc_jw_kstr(w, "plan_sha256", m->plan_sha256);
    gc_jw_kstr(w, "start_time", m->start_time);
    gc_jw_kstr(w, "end_time", m->end_time);
    gc_jw_kstr(w, "backend", m->backend);
    if (strcmp(m->backend, "sim") == 0) {
        gc_jw_kstr(w, "sim_profile", m->sim_profile);
        gc_jw_kint(w, "sim_seed", (long long)m->seed);
    }
    gc_jw_kint(w, "ranks", m->ranks);
    gc_jw_kint(w, "nodes", m->nodes);
    gc_jw_kreal(w, "histogram_precision", m->precision);
    gc_jw_kint(w, "histogram_sub_bits", m->sub_bits);
    gc_jw_close(w, "}");
}

static void kstr_or_null(gc_jw *w, const char *k, const char *v)
{
    if (v[0] && gc_jw_utf8_ok(v))
        gc_jw_kstr(w, k, v);
    else
        gc_jw_knull(w, k);
}

static void kint_or_null(gc_jw *w, const char *k, long long v)
{
    if (v >= 0)
        gc_jw_kint(w, k, v);
    else
        gc_jw_knull(w, k);
}

static void procs_json(gc_jw *w, const char *k, const gc_foreign_proc *p, int n)
{
    gc_jw_key(w, k);
    gc_jw_open(w, "[");
    for (int i = 0; i < n; i++) {
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kint(w, "pid", p[i].pid);
        gc_jw_kstr(w, "name", gc_jw_utf8_ok(p[i].name) ? p[i].name : "?");
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
}

/* Other processes on the GPU (null: NVML could not tell). */
static void foreign_json(gc_jw *w, const gc_conditions *c)
{
    kint_or_null(w, "foreign_processes", c->foreign_procs);
    kint_or_null(w, "foreign_sm_util_pct", c->foreign_sm_util_pct);
    kint_or_null(w, "foreign_mem_util_pct", c->foreign_mem_util_pct);
    procs_json(w, "foreign", c->foreign, c->nforeign < GC_FOREIGN_MAX ? c->nforeign : GC_FOREIGN_MAX);
}

static void cond_json(gc_jw *w, const char *k, const gc_conditions *c)
{
    if (!c->valid) {
        gc_jw_knull(w, k);
        return;
    }
    gc_jw_key(w, k);
    gc_jw_open(w, "{");
    gc_jw_kreal(w, "sm_clock_mhz", c->sm_clock_mhz);
    gc_jw_kreal(w, "mem_clock_mhz", c->mem_clock_mhz);
    gc_jw_kreal(w, "temperature_c", c->temperature_c);
    gc_jw_kreal(w, "power_w", c->power_w);
    gc_jw_kint(w, "throttle_reasons", (long long)c->throttle_reasons);
    gc_jw_kint(w, "ecc_corrected_errors", c->ecc_corrected);
    gc_jw_kint(w, "ecc_uncorrected_errors", c->ecc_uncorrected);
    foreign_json(w, c);
    gc_jw_close(w, "}");
}

static int ctxv_ok(const gc_ctxv *v)
{
    return gc_jw_utf8_ok(v->key) && (!v->is_str || gc_jw_utf8_ok(v->str));
}

/* As json_object_set_new did it: a repeated key keeps the place of its
 * first (accepted) setting and takes the value of its last. */
static void ctx_json(gc_jw *w, const gc_ctx *c)
{
    gc_jw_key(w, "context");
    gc_jw_open(w, "{");
    int n = c->n < 0 ? 0 : c->n > GC_MAX_CTX ? GC_MAX_CTX : c->n;
    for (int i = 0; i < n; i++) {
        if (!ctxv_ok(&c->v[i]))
            continue;
        int seen = 0, last = i;
        for (int j = 0; j < i && !seen; j++)
            seen = ctxv_ok(&c->v[j]) && strcmp(c->v[j].key, c->v[i].key) == 0;
        if (seen)
            continue;
        for (int j = i + 1; j < n; j++)
            if (ctxv_ok(&c->v[j]) && strcmp(c->v[j].key, c->v[i].key) == 0)
                last = j;
        const gc_ctxv *v = &c->v[last];
        gc_jw_key(w, v->key);
        if (v->is_str)
            gc_jw_string(w, v->str);
        else
            gc_jw_real(w, v->num);
    }
    gc_jw_close(w, "}");
}

static void flags_json(gc_jw *w, uint32_t f)
{
    gc_jw_key(w, "flags");
    gc_jw_open(w, "[");
    if (f & GC_FLAG_CLOCKS_MOVED)
        gc_jw_next(w), gc_jw_string(w, "clocks_moved");
    if (f & GC_FLAG_THROTTLED)
        gc_jw_next(w), gc_jw_string(w, "throttled");
    if (f & GC_FLAG_BUDGET_HIT)
        gc_jw_next(w), gc_jw_string(w, "budget_hit");
    if (f & GC_FLAG_OVER_NOMINAL)
        gc_jw_next(w), gc_jw_string(w, "over_nominal");
    if (f & GC_FLAG_SHARED)
        gc_jw_next(w), gc_jw_string(w, "gpu_shared");
    gc_jw_close(w, "]");
}

static void summary_json(gc_jw *w, const gc_summary *s)
{
    gc_jw_key(w, "summary");
    gc_jw_open(w, "{");
    gc_jw_kint(w, "count", (long long)s->count);
    if (s->count) {
        gc_jw_kreal(w, "min", s->min);
        gc_jw_kreal(w, "p1", s->p1);
        gc_jw_kreal(w, "p5", s->p5);
        gc_jw_kreal(w, "p50", s->p50);
        gc_jw_kreal(w, "p95", s->p95);
        gc_jw_kreal(w, "p99", s->p99);
        gc_jw_kreal(w, "max", s->max);
        gc_jw_kreal(w, "mean", s->mean);
        gc_jw_kreal(w, "stddev", s->stddev);
    }
    gc_jw_close(w, "}");
}

static int point_json(gc_jw *w, const gc_point *p, const gc_summary *s, gc_err *err)
{
    char *b64 = NULL;
    /* A point known only by its record (its node's leader was lost and
     * rank 0 cannot read its shard): histogram null, the shard has it. */
    int no_hist = p->has_sum && !p->enc;
    if (!no_hist) {
        /* Encoded first: a failure leaves nothing of the point written.
         * A point read from a shard already has its encoding. */
        gc_wbuf wb = { 0 };
        int rc = p->enc ? 0 : gc_hist_encode(&p->hist, &wb, err);
        b64 = rc ? NULL : p->enc ? gc_base64_encode(p->enc, p->enc_len)
                                 : gc_base64_encode(wb.data, wb.len);
        gc_wbuf_free(&wb);
        if (!b64)
            return rc ? rc : gc_fail(err, GC_ENOMEM, "out of memory");
    }
    gc_jw_next(w);
    gc_jw_open(w, "{");
    gc_jw_kint(w, "item", p->item_id);
    gc_jw_kstr(w, "benchmark", p->bench);
    gc_jw_kstr(w, "metric", p->metric);
    gc_jw_kstr(w, "unit", p->unit);
    ctx_json(w, &p->ctx);
    gc_jw_kstr(w, "status", p->status == GC_PT_OK ? "ok" : "failed");
    if (p->error[0])
        gc_jw_kstr(w, "error", p->error);
    flags_json(w, p->flags);
    summary_json(w, s);
    {
        gc_jw_key(w, "conditions");
        gc_jw_open(w, "{");
        cond_json(w, "before", &p->before);
        cond_json(w, "after", &p->after);
        gc_jw_close(w, "}");
        if (no_hist) {
            gc_jw_knull(w, "histogram");
        } else {
            gc_jw_key(w, "histogram");
            gc_jw_open(w, "{");
            gc_jw_kstr(w, "encoding", "gch1+zlib+base64");
            gc_jw_kreal(w, "scale", p->scale);
            gc_jw_kstr(w, "data", b64);
            gc_jw_close(w, "}");
            free(b64);
        }
    }
    gc_jw_close(w, "}");
    return 0;
}

/* What the run saw of other processes on the GPU: how many points were
 * measured while one used it, and which processes were seen (the union
 * of the points' readings, first seen first). */
#define SEEN_MAX 16
static void shared_json(gc_jw *w, const gc_gpu *g)
{
    long long shared = 0;
    gc_foreign_proc seen[SEEN_MAX];
    int nseen = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        const gc_point *p = &g->points[i];
        shared += (p->flags & GC_FLAG_SHARED) != 0;
        const gc_conditions *cs[2] = { &p->before, &p->after };
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < cs[k]->nforeign && j < GC_FOREIGN_MAX && nseen < SEEN_MAX; j++) {
                int dup = 0;
                for (int q = 0; q < nseen && !dup; q++)
                    dup = seen[q].pid == cs[k]->foreign[j].pid;
                if (!dup)
                    seen[nseen++] = cs[k]->foreign[j];
            }
    }
    gc_jw_kint(w, "shared_points", shared);
    procs_json(w, "foreign_seen", seen, nseen);
}

/* ---- parameter units (catalogue.json, schema 3) ------------------------
 *
 * A GPU's parameters are one object name -> value; their units are written
 * once, in the top-level "parameter_units", from every name the GPUs of the
 * catalogue used (merge formats nodes in threads: a lock). A name whose
 * unit differs from the one the table took first is written as
 * {"value": V, "unit": U} where it differs. */
typedef struct unit_row {
    char name[GC_STR_MAX];
    char unit[16];
} unit_row;
static pthread_mutex_t units_mu = PTHREAD_MUTEX_INITIALIZER;
static unit_row *units;
static size_t nunits, capunits;

/* 1: the table's unit of name is unit (added if new), 0: another one */
static int unit_same(const char *name, const char *unit)
{
    int same = 1;
    pthread_mutex_lock(&units_mu);
    size_t i = 0;
    while (i < nunits && strcmp(units[i].name, name))
        i++;
    if (i < nunits) {
        same = !strcmp(units[i].unit, unit);
    } else {
        if (nunits == capunits) {
            size_t c = capunits ? 2 * capunits : 256;
            unit_row *n = realloc(units, c * sizeof *n);
            if (n)
                units = n, capunits = c;
        }
        if (nunits < capunits) {
            snprintf(units[nunits].name, sizeof units[nunits].name, "%s", name);
            snprintf(units[nunits].unit, sizeof units[nunits].unit, "%s", unit);
            nunits++;
        } else {
            same = 0;   /* out of memory: the unit goes with the value */
        }
    }
    pthread_mutex_unlock(&units_mu);
    return same;
}

/* The "parameter_units" value; the table is emptied for the next catalogue. */
void gc_cat_units_json(gc_jw *w)
{
    pthread_mutex_lock(&units_mu);
    gc_jw_open(w, "{");
    for (size_t i = 0; i < nunits; i++)
        gc_jw_kstr(w, units[i].name, units[i].unit);
    gc_jw_close(w, "}");
    free(units);
    units = NULL;
    nunits = capunits = 0;
    pthread_mutex_unlock(&units_mu);
}

/* full: a node file's (each parameter's source: the points it came from) */
static void gpu_head_json(gc_jw *w, const gc_gpu *g, int full)
{
    const gc_gpu_info *in = &g->info;
    gc_jw_kstr(w, "node", in->node);
    gc_jw_kint(w, "index", in->local_index);
    gc_jw_kint(w, "rank", in->rank);
    gc_jw_kstr(w, "status", gc_gpu_status_name(g->status));
    gc_jw_kstr(w, "status_reason", g->status_reason);
    gc_jw_kint(w, "items_total", g->items_total);
    gc_jw_kint(w, "items_done", g->items_done);

    gc_jw_key(w, "identity");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "uuid", in->uuid);
    gc_jw_kstr(w, "pci_bus_id", in->pci_bus_id);
    gc_jw_kstr(w, "name", in->name);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", in->cc_major, in->cc_minor);
    gc_jw_kstr(w, "compute_capability", cc);
    gc_jw_kstr(w, "driver_version", in->driver_version);
    gc_jw_close(w, "}");

    gc_jw_key(w, "properties");
    gc_jw_open(w, "{");
    gc_jw_kint(w, "sm_count", in->sm_count);
    gc_jw_kint(w, "cores_per_sm", in->cores_per_sm);
    gc_jw_kint(w, "warp_size", in->warp_size);
    gc_jw_kint(w, "max_threads_per_sm", in->max_threads_per_sm);
    gc_jw_kint(w, "registers_per_sm", in->regs_per_sm);
    gc_jw_kint(w, "smem_per_sm_bytes", (long long)in->smem_per_sm_bytes);
    gc_jw_kint(w, "l2_bytes", (long long)in->l2_bytes);
    gc_jw_kint(w, "memory_bytes", (long long)in->mem_bytes);
    gc_jw_kreal(w, "sm_clock_max_mhz", in->sm_clock_mhz);
    gc_jw_kreal(w, "mem_clock_max_mhz", in->mem_clock_mhz);
    gc_jw_kint(w, "bus_width_bits", in->bus_width_bits);
    gc_jw_key(w, "ecc_enabled");
    gc_jw_puts(w, in->ecc_enabled < 0 ? "null" : in->ecc_enabled ? "true" : "false");
    if (in->numa_node < 0)
        gc_jw_knull(w, "numa_node");
    else
        gc_jw_kint(w, "numa_node", in->numa_node);
    /* links as NVML reported them (0: unknown) */
    gc_jw_key(w, "pcie");
    gc_jw_open(w, "{");
    const char *pk[] = { "gen", "width", "max_gen", "max_width" };
    int pv[] = { in->pcie_gen, in->pcie_width, in->pcie_max_gen, in->pcie_max_width };
    for (int i = 0; i < 4; i++) {
        if (pv[i] > 0)
            gc_jw_kint(w, pk[i], pv[i]);
        else
            gc_jw_knull(w, pk[i]);
    }
    kstr_or_null(w, "switch", in->pcie_switch);
    gc_jw_close(w, "}");
    gc_jw_key(w, "nvlink");
    gc_jw_open(w, "{");
    if (in->nvlink_links >= 0)
        gc_jw_kint(w, "links", in->nvlink_links);
    else
        gc_jw_knull(w, "links");
    if (in->nvlink_bps_per_link > 0)
        gc_jw_kreal(w, "bps_per_link", in->nvlink_bps_per_link);
    else
        gc_jw_knull(w, "bps_per_link");
    gc_jw_close(w, "}");
    gc_jw_close(w, "}");

    gc_jw_key(w, "host");
    gc_jw_open(w, "{");
    kstr_or_null(w, "cpu_governor", in->host_governor);
    kstr_or_null(w, "cpus_allowed", in->host_cpus);
    kstr_or_null(w, "mems_allowed", in->host_mems);
    gc_jw_close(w, "}");

    /* the method version of each benchmark it ran (registry.c): check
     * compares a value only with baseline values of the same method */
    gc_method m[GC_MAX_METHODS];
    int nm = gc_gpu_methods_of(g, m);
    gc_jw_key(w, "methods");
    gc_jw_open(w, "{");
    for (int i = 0; i < nm; i++)
        gc_jw_kint(w, m[i].bench, m[i].version > 0 ? m[i].version : 1);
    gc_jw_close(w, "}");

    gc_jw_key(w, "conditions");
    gc_jw_open(w, "{");
    cond_json(w, "start", &g->start);
    cond_json(w, "end", &g->end);
    shared_json(w, g);
    gc_jw_close(w, "}");

    gc_jw_key(w, "parameters");
    if (!full) {
        gc_jw_open(w, "{");
        for (size_t i = 0; i < g->nparams; i++) {
            const gc_param *p = &g->params[i];
            if (!gc_jw_utf8_ok(p->name) || !gc_jw_utf8_ok(p->unit))
                continue;
            if (unit_same(p->name, p->unit)) {
                gc_jw_kreal(w, p->name, p->value);
                continue;
            }
            gc_jw_key(w, p->name);
            gc_jw_open(w, "{");
            gc_jw_kreal(w, "value", p->value);
            gc_jw_kstr(w, "unit", p->unit);
            gc_jw_close(w, "}");
        }
        gc_jw_close(w, "}");
        return;
    }
    gc_jw_open(w, "[");
    for (size_t i = 0; i < g->nparams; i++) {
        const gc_param *p = &g->params[i];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "name", p->name);
        gc_jw_kreal(w, "value", p->value);
        gc_jw_kstr(w, "unit", p->unit);
        if (full)
            gc_jw_kstr(w, "source", p->source);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
}

/* One GPU object: in a node file (with_hist) with its points, each with
 * its summary, conditions and histogram, and its parameters' sources; in
 * catalogue.json with the number of its points only. */
int gc_cat_gpu_json(gc_jw *w, const gc_analysed *a, int with_hist, gc_err *err)
{
    const gc_gpu *g = &a->gpu;
    const gc_summary *sums = a->sums;
    if (!with_hist) {
        /* catalogue.json (schema 3): one line, no whitespace; the points
         * are in nodes/<node>.json */
        int compact = w->compact;
        w->compact = 1;
        gc_jw_open(w, "{");
        gpu_head_json(w, g, 0);
        if (a->models.present)
            gc_models_json_compact(w, &a->models);
        gc_jw_kint(w, "points", (long long)g->npoints);
        gc_jw_close(w, "}");
        w->compact = compact;
        return 0;
    }
    gc_jw_open(w, "{");
    gpu_head_json(w, g, with_hist);
    if (a->models.present)
        gc_models_json(w, &a->models, with_hist);
    gc_jw_key(w, "results");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < g->npoints; i++) {
        int rc = point_json(w, &g->points[i], &sums[i], err);
        if (rc)
            return rc;
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
    return 0;
}

/* The opening of both kinds of file: the object, its schema version, kind
 * and run metadata. */
void gc_cat_doc_head(gc_jw *w, FILE *f, char *buf, const char *kind, const gc_run_meta *run)
{
    gc_jw_init(w, f, buf, 0);
    w->compact = !strcmp(kind, "catalogue");
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "schema_version", GC_SCHEMA_VERSION);
    gc_jw_kstr(w, "kind", kind);
    gc_jw_key(w, "run");
    run_json(w, run);
}


/* Catalogue files. See catalogue.h. */
#include "catalogue.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "derive.h"
#include "fsutil.h"

#define JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER)

static const char *const status_names[] = { "ok", "partial", "failed" };

const char *gc_gpu_status_name(int s)
{
    return s >= 0 && s <= GC_GPU_FAILED ? status_names[s] : "?";
}

static json_t *num(double v)
{
    /* JSON has no NaN or infinity: write null. */
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *run_json(const gc_run_meta *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "tool", json_string("gpucensus"));
    json_object_set_new(o, "tool_version", json_string(m->tool_version));
    json_object_set_new(o, "git_commit", json_string(m->git_commit));
    json_object_set_new(o, "plan_name", json_string(m->plan_name));
    json_object_set_new(o, "plan_file", json_string(m->plan_file));
    json_object_set_new(o, "plan_sha256", json_string(m->plan_sha256));
    json_object_set_new(o, "start_time", json_string(m->start_time));
    json_object_set_new(o, "end_time", json_string(m->end_time));
    json_object_set_new(o, "backend", json_string(m->backend));
    if (strcmp(m->backend, "sim") == 0) {
        json_object_set_new(o, "sim_profile", json_string(m->sim_profile));
        json_object_set_new(o, "sim_seed", json_integer((json_int_t)m->seed));
    }
    json_object_set_new(o, "ranks", json_integer(m->ranks));
    json_object_set_new(o, "nodes", json_integer(m->nodes));
    json_object_set_new(o, "histogram_precision", num(m->precision));
    json_object_set_new(o, "histogram_sub_bits", json_integer(m->sub_bits));
    return o;
}

static json_t *cond_json(const gc_conditions *c)
{
    if (!c->valid)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "sm_clock_mhz", num(c->sm_clock_mhz));
    json_object_set_new(o, "mem_clock_mhz", num(c->mem_clock_mhz));
    json_object_set_new(o, "temperature_c", num(c->temperature_c));
    json_object_set_new(o, "power_w", num(c->power_w));
    json_object_set_new(o, "throttle_reasons", json_integer((json_int_t)c->throttle_reasons));
    json_object_set_new(o, "ecc_corrected_errors", json_integer(c->ecc_corrected));
    json_object_set_new(o, "ecc_uncorrected_errors", json_integer(c->ecc_uncorrected));
    return o;
}

static json_t *ctx_json(const gc_ctx *c)
{
    json_t *o = json_object();
    for (int i = 0; i < c->n; i++)
        json_object_set_new(o, c->v[i].key,
                            c->v[i].is_str ? json_string(c->v[i].str) : num(c->v[i].num));
    return o;
}

static json_t *flags_json(uint32_t f)
{
    json_t *a = json_array();
    if (f & GC_FLAG_CLOCKS_MOVED)
        json_array_append_new(a, json_string("clocks_moved"));
    if (f & GC_FLAG_THROTTLED)
        json_array_append_new(a, json_string("throttled"));
    if (f & GC_FLAG_BUDGET_HIT)
        json_array_append_new(a, json_string("budget_hit"));
    return a;
}

static json_t *summary_json(const gc_point *p)
{
    gc_summary s;
    gc_point_summary(p, &s);
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)s.count));
    if (s.count) {
        json_object_set_new(o, "min", num(s.min));
        json_object_set_new(o, "p1", num(s.p1));
        json_object_set_new(o, "p5", num(s.p5));
        json_object_set_new(o, "p50", num(s.p50));
        json_object_set_new(o, "p95", num(s.p95));
        json_object_set_new(o, "p99", num(s.p99));
        json_object_set_new(o, "max", num(s.max));
        json_object_set_new(o, "mean", num(s.mean));
        json_object_set_new(o, "stddev", num(s.stddev));
    }
    return o;
}

static int point_json(const gc_point *p, int with_hist, json_t **out, gc_err *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "item", json_integer(p->item_id));
    json_object_set_new(o, "benchmark", json_string(p->bench));
    json_object_set_new(o, "metric", json_string(p->metric));
    json_object_set_new(o, "unit", json_string(p->unit));
    json_object_set_new(o, "context", ctx_json(&p->ctx));
    json_object_set_new(o, "status", json_string(p->status == GC_PT_OK ? "ok" : "failed"));
    if (p->error[0])
        json_object_set_new(o, "error", json_string(p->error));
    json_object_set_new(o, "flags", flags_json(p->flags));
    json_object_set_new(o, "summary", summary_json(p));
    if (with_hist) {
        json_t *c = json_object();
        json_object_set_new(c, "before", cond_json(&p->before));
        json_object_set_new(c, "after", cond_json(&p->after));
        json_object_set_new(o, "conditions", c);
        gc_wbuf w = { 0 };
        int rc = gc_hist_encode(&p->hist, &w, err);
        char *b64 = rc ? NULL : gc_base64_encode(w.data, w.len);
        gc_wbuf_free(&w);
        if (!b64) {
            json_decref(o);
            return rc ? rc : gc_fail(err, GC_ENOMEM, "out of memory");
        }
        json_t *h = json_object();
        json_object_set_new(h, "encoding", json_string("gch1+zlib+base64"));
        json_object_set_new(h, "scale", num(p->scale));
        json_object_set_new(h, "data", json_string(b64));
        free(b64);
        json_object_set_new(o, "histogram", h);
    }
    *out = o;
    return 0;
}

static json_t *gpu_head_json(const gc_gpu *g)
{
    const gc_gpu_info *in = &g->info;
    json_t *o = json_object();
    json_object_set_new(o, "node", json_string(in->node));
    json_object_set_new(o, "index", json_integer(in->local_index));
    json_object_set_new(o, "rank", json_integer(in->rank));
    json_object_set_new(o, "status", json_string(gc_gpu_status_name(g->status)));
    json_object_set_new(o, "status_reason", json_string(g->status_reason));
    json_object_set_new(o, "items_total", json_integer(g->items_total));
    json_object_set_new(o, "items_done", json_integer(g->items_done));

    json_t *id = json_object();
    json_object_set_new(id, "uuid", json_string(in->uuid));
    json_object_set_new(id, "pci_bus_id", json_string(in->pci_bus_id));
    json_object_set_new(id, "name", json_string(in->name));
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", in->cc_major, in->cc_minor);
    json_object_set_new(id, "compute_capability", json_string(cc));
    json_object_set_new(id, "driver_version", json_string(in->driver_version));
    json_object_set_new(o, "identity", id);

    json_t *pr = json_object();
    json_object_set_new(pr, "sm_count", json_integer(in->sm_count));
    json_object_set_new(pr, "cores_per_sm", json_integer(in->cores_per_sm));
    json_object_set_new(pr, "warp_size", json_integer(in->warp_size));
    json_object_set_new(pr, "max_threads_per_sm", json_integer(in->max_threads_per_sm));
    json_object_set_new(pr, "registers_per_sm", json_integer(in->regs_per_sm));
    json_object_set_new(pr, "smem_per_sm_bytes", json_integer((json_int_t)in->smem_per_sm_bytes));
    json_object_set_new(pr, "l2_bytes", json_integer((json_int_t)in->l2_bytes));
    json_object_set_new(pr, "memory_bytes", json_integer((json_int_t)in->mem_bytes));
    json_object_set_new(pr, "sm_clock_max_mhz", num(in->sm_clock_mhz));
    json_object_set_new(pr, "mem_clock_max_mhz", num(in->mem_clock_mhz));
    json_object_set_new(pr, "bus_width_bits", json_integer(in->bus_width_bits));
    json_object_set_new(pr, "ecc_enabled", in->ecc_enabled < 0 ? json_null() : json_boolean(in->ecc_enabled));
    json_object_set_new(pr, "numa_node", in->numa_node < 0 ? json_null() : json_integer(in->numa_node));
    json_object_set_new(o, "properties", pr);

    json_t *c = json_object();
    json_object_set_new(c, "start", cond_json(&g->start));
    json_object_set_new(c, "end", cond_json(&g->end));
    json_object_set_new(o, "conditions", c);

    json_t *ps = json_array();
    for (size_t i = 0; i < g->nparams; i++) {
        const gc_param *p = &g->params[i];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(p->name));
        json_object_set_new(j, "value", num(p->value));
        json_object_set_new(j, "unit", json_string(p->unit));
        json_object_set_new(j, "source", json_string(p->source));
        json_array_append_new(ps, j);
    }
    json_object_set_new(o, "parameters", ps);
    return o;
}

static int gpu_json(const gc_gpu *g, int with_hist, json_t **out, gc_err *err)
{
    json_t *o = gpu_head_json(g);
    json_t *res = json_array();
    json_object_set_new(o, "results", res);
    for (size_t i = 0; i < g->npoints; i++) {
        json_t *p;
        int rc = point_json(&g->points[i], with_hist, &p, err);
        if (rc) {
            json_decref(o);
            return rc;
        }
        json_array_append_new(res, p);
    }
    *out = o;
    return 0;
}

/* Status from progress and failures; a missing shard is decided by the
 * caller. */
static void judge(gc_gpu *g)
{
    size_t failed = 0;
    for (size_t i = 0; i < g->npoints; i++)
        failed += g->points[i].status != GC_PT_OK;
    if (!g->complete) {
        /* The rank died or was stopped: what it finished is kept, but the
         * GPU was not measured as the plan asked. */
        g->status = GC_GPU_FAILED;
        snprintf(g->status_reason, sizeof g->status_reason,
                 "the rank stopped after %u of %u work items (crashed or killed); "
                 "results up to then are kept", g->items_done, g->items_total);
    } else if (failed) {
        g->status = GC_GPU_PARTIAL;
        snprintf(g->status_reason, sizeof g->status_reason, "%zu of %u work items failed", failed,
                 g->items_total);
    } else {
        g->status = GC_GPU_OK;
        g->status_reason[0] = '\0';
    }
}

static void brief_of(const gc_gpu *g, gc_brief *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->node, sizeof b->node, "%s", g->info.node);
    b->index = g->info.local_index;
    b->status = g->status;
    snprintf(b->name, sizeof b->name, "%s", g->info.name);
    b->l1_cycles = gc_param_value(g, "l1_latency_cycles", 0);
    b->l2_cycles = gc_param_value(g, "l2_latency_cycles", 0);
    b->dram_cycles = gc_param_value(g, "dram_latency_cycles", 0);
    b->hbm_bps = gc_param_value(g, "hbm_bw_bps", 0);
    b->hbm_ratio = gc_param_value(g, "hbm_achieved_ratio", 0);
    for (size_t i = 0; i < g->npoints; i++)
        b->failed_items += g->points[i].status != GC_PT_OK;
}

/* Decode rank r's blob into g, or make the placeholder of a missing GPU. */
static void load_gpu(const gc_roster_entry *e, const gc_blob *b, gc_gpu *g)
{
    gc_run_meta m;
    gc_err err = { 0 };
    if (b->data && gc_shard_decode(b->data, b->len, &m, g, &err) == 0 &&
        strcmp(g->info.node, e->node) == 0 && g->info.local_index == e->local_index) {
        judge(g);
        gc_derive_params(g);
        return;
    }
    if (b->data && !err.msg[0])
        snprintf(err.msg, sizeof err.msg, "shard names %s gpu %d, expected %s gpu %d",
                 g->info.node, g->info.local_index, e->node, e->local_index);
    gc_gpu_free(g);
    snprintf(g->info.node, sizeof g->info.node, "%s", e->node);
    g->info.local_index = e->local_index;
    g->info.rank = e->rank;
    g->status = GC_GPU_FAILED;
    snprintf(g->status_reason, sizeof g->status_reason, "no results from rank %d: %.120s", e->rank,
             b->data ? err.msg : (b->missing_reason[0] ? b->missing_reason : "nothing received"));
}

static int dump(json_t *j, FILE *f, const char *path, gc_err *err)
{
    if (json_dumpf(j, f, JSON_FLAGS) != 0)
        return gc_fail(err, GC_EIO, "%s: cannot write JSON", path);
    return 0;
}

static int write_node(const char *out_dir, const gc_run_meta *run, const char *node,
                      gc_gpu *gpus, size_t n, gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes/%s.json", out_dir, node);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_string(GC_SCHEMA_VERSION));
    json_object_set_new(doc, "kind", json_string("node"));
    json_object_set_new(doc, "run", run_json(run));
    json_object_set_new(doc, "node", json_string(node));
    json_t *arr = json_array();
    json_object_set_new(doc, "gpus", arr);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *g;
        rc = gpu_json(&gpus[i], 1, &g, err);
        if (!rc)
            json_array_append_new(arr, g);
    }
    if (!rc) {
        gc_afile a;
        rc = gc_afile_open(&a, path, err);
        if (!rc) {
            rc = dump(doc, a.f, path, err);
            fputc('\n', a.f);
            if (rc)
                gc_afile_abort(&a);
            else
                rc = gc_afile_commit(&a, err);
        }
    }
    json_decref(doc);
    return rc;
}

/* Node names in order of first appearance in the roster. */
static size_t node_list(const gc_roster_entry *roster, size_t nranks, const char ***names)
{
    const char **v = calloc(nranks ? nranks : 1, sizeof *v);
    size_t n = 0;
    for (size_t r = 0; v && r < nranks; r++) {
        size_t k = 0;
        while (k < n && strcmp(v[k], roster[r].node) != 0)
            k++;
        if (k == n)
            v[n++] = roster[r].node;
    }
    *names = v;
    return v ? n : 0;
}

static int by_local_index(const void *a, const void *b)
{
    int x = ((const gc_gpu *)a)->info.local_index, y = ((const gc_gpu *)b)->info.local_index;
    return (x > y) - (x < y);
}

int gc_catalogue_write(const char *out_dir, const gc_run_meta *run,
                       const gc_roster_entry *roster, size_t nranks, const gc_blob *blobs,
                       gc_catalogue_stats *stats, gc_err *err)
{
    memset(stats, 0, sizeof *stats);
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes", out_dir);
    int rc = gc_mkdir_p(path, err);
    if (rc)
        return rc;
    const char **nodes;
    size_t nnodes = node_list(roster, nranks, &nodes);
    gc_gpu *gpus = calloc(nranks ? nranks : 1, sizeof *gpus);
    stats->briefs = calloc(nranks ? nranks : 1, sizeof *stats->briefs);
    if (!nodes || !gpus || !stats->briefs) {
        free(nodes);
        free(gpus);
        return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    }
    snprintf(path, sizeof path, "%s/catalogue.json", out_dir);
    gc_afile cat;
    rc = gc_afile_open(&cat, path, err);
    if (rc) {
        free(nodes);
        free(gpus);
        return rc;
    }
    /* The cluster file is streamed: one GPU object at a time. */
    json_t *head = json_object();
    json_object_set_new(head, "schema_version", json_string(GC_SCHEMA_VERSION));
    json_object_set_new(head, "kind", json_string("catalogue"));
    json_object_set_new(head, "run", run_json(run));
    char *hs = json_dumps(head, JSON_FLAGS);
    json_decref(head);
    if (!hs) {
        gc_afile_abort(&cat);
        free(nodes);
        free(gpus);
        return gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    }
    hs[strlen(hs) - 2] = '\0'; /* drop "\n}" to keep the object open */
    fprintf(cat.f, "%s,\n \"gpus\": [", hs);
    free(hs);

    json_t *node_arr = json_array();
    size_t written = 0;
    for (size_t k = 0; k < nnodes && !rc; k++) {
        size_t n = 0;
        for (size_t r = 0; r < nranks; r++)
            if (strcmp(roster[r].node, nodes[k]) == 0)
                load_gpu(&roster[r], &blobs[r], &gpus[n++]);
        qsort(gpus, n, sizeof *gpus, by_local_index);
        rc = write_node(out_dir, run, nodes[k], gpus, n, err);
        int worst = GC_GPU_OK;
        for (size_t i = 0; i < n && !rc; i++) {
            json_t *g;
            rc = gpu_json(&gpus[i], 0, &g, err);
            if (rc)
                break;
            fputs(written++ ? ",\n" : "\n", cat.f);
            rc = dump(g, cat.f, path, err);
            json_decref(g);
            brief_of(&gpus[i], &stats->briefs[stats->gpus++]);
            stats->ok += gpus[i].status == GC_GPU_OK;
            stats->partial += gpus[i].status == GC_GPU_PARTIAL;
            stats->failed += gpus[i].status == GC_GPU_FAILED;
            if (gpus[i].status > worst)
                worst = gpus[i].status;
        }
        json_t *no = json_object();
        json_object_set_new(no, "name", json_string(nodes[k]));
        json_object_set_new(no, "gpus", json_integer((json_int_t)n));
        json_object_set_new(no, "status", json_string(gc_gpu_status_name(worst)));
        char rel[GC_NODE_MAX + 16];
        snprintf(rel, sizeof rel, "nodes/%s.json", nodes[k]);
        json_object_set_new(no, "file", json_string(rel));
        json_array_append_new(node_arr, no);
        for (size_t i = 0; i < n; i++)
            gc_gpu_free(&gpus[i]);
    }
    stats->nodes = (int)nnodes;
    if (!rc) {
        char *ns = json_dumps(node_arr, JSON_FLAGS);
        fprintf(cat.f, "\n ],\n \"nodes\": %s,\n \"links\": [],\n \"models\": {},\n \"verdicts\": []\n}\n",
                ns ? ns : "[]");
        free(ns);
        rc = gc_afile_commit(&cat, err);
    } else {
        gc_afile_abort(&cat);
    }
    json_decref(node_arr);
    free(nodes);
    free(gpus);
    return rc;
}

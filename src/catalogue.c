/* Catalogue files. See catalogue.h. */
#include "catalogue.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "fsutil.h"
#include "jsonw.h"
#include "links.h"
#include "model_json.h"
#include "verdicts.h"

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

static int point_json(gc_jw *w, const gc_point *p, const gc_summary *s, int with_hist, gc_err *err)
{
    char *b64 = NULL;
    /* A point known only by its record (its node's leader was lost and
     * rank 0 cannot read its shard): histogram null, the shard has it. */
    int no_hist = with_hist && p->has_sum && !p->enc;
    if (with_hist && !no_hist) {
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
    if (with_hist) {
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

static void gpu_head_json(gc_jw *w, const gc_gpu *g)
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

    gc_jw_key(w, "conditions");
    gc_jw_open(w, "{");
    cond_json(w, "start", &g->start);
    cond_json(w, "end", &g->end);
    shared_json(w, g);
    gc_jw_close(w, "}");

    gc_jw_key(w, "parameters");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < g->nparams; i++) {
        const gc_param *p = &g->params[i];
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "name", p->name);
        gc_jw_kreal(w, "value", p->value);
        gc_jw_kstr(w, "unit", p->unit);
        gc_jw_kstr(w, "source", p->source);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
}

/* One GPU object, with its points' histograms or not. */
static int gpu_json(gc_jw *w, const gc_analysed *a, int with_hist, gc_err *err)
{
    const gc_gpu *g = &a->gpu;
    const gc_summary *sums = a->sums;
    gc_jw_open(w, "{");
    gpu_head_json(w, g);
    if (a->models.present)
        gc_models_json(w, &a->models);
    gc_jw_key(w, "results");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < g->npoints; i++) {
        int rc = point_json(w, &g->points[i], &sums[i], with_hist, err);
        if (rc)
            return rc;
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
    return 0;
}

/* The opening of both kinds of file: the object, its schema version, kind
 * and run metadata. */
static void doc_head(gc_jw *w, FILE *f, char *buf, const char *kind, const gc_run_meta *run)
{
    gc_jw_init(w, f, buf, 0);
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "schema_version", GC_SCHEMA_VERSION);
    gc_jw_kstr(w, "kind", kind);
    gc_jw_key(w, "run");
    run_json(w, run);
}

static int write_node(const char *out_dir, const gc_run_meta *run, const char *node,
                      const gc_analysed *gpus, size_t n, char *buf, gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes/%s.json", out_dir, node);
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    gc_jw w;
    doc_head(&w, a.f, buf, "node", run);
    gc_jw_kstr(&w, "node", node);
    gc_jw_key(&w, "gpus");
    gc_jw_open(&w, "[");
    for (size_t i = 0; i < n && !rc; i++) {
        gc_jw_next(&w);
        rc = gpu_json(&w, &gpus[i], 1, err);
    }
    if (!rc) {
        gc_jw_close(&w, "]");
        gc_jw_close(&w, "}");
        gc_jw_put(&w, "\n", 1);
        rc = gc_jw_finish(&w, path, err);
    }
    if (rc)
        gc_afile_abort(&a);
    else
        rc = gc_afile_commit(&a, err);
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

/* The links of one node's GPUs (gc_links takes them as an array). */
static int links_add(gc_links *l, const gc_analysed *a, size_t n)
{
    gc_gpu *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return GC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g[i] = a[i].gpu;   /* a shallow view: gc_links copies what it keeps */
    int rc = gc_links_add_node(l, g, n);
    free(g);
    return rc;
}

typedef struct node_row {
    const char *name;
    size_t gpus;
    int worst;
} node_row;

static void fetch_array(void *ctx, size_t r, gc_blob *b, void **owned)
{
    *b = ((const gc_blob *)ctx)[r];
    *owned = NULL;
}

int gc_catalogue_write(const char *out_dir, const gc_run_meta *run,
                       const gc_roster_entry *roster, size_t nranks, const gc_blob *blobs,
                       gc_catalogue_stats *stats, gc_err *err)
{
    return gc_catalogue_write_fetch(out_dir, run, roster, nranks, fetch_array, (void *)blobs,
                                    stats, err);
}

/* ---- the writer's pipeline ---------------------------------------------
 *
 * Nodes are independent until they reach catalogue.json and the links, so
 * worker threads each take a node: read and decode its shards, derive
 * parameters, write its node file and format its GPUs' part of
 * catalogue.json in memory. The calling thread takes the nodes back in
 * order (so the output does not depend on the threads), adds their links
 * and appends their text. Workers run at most WINDOW_PER_THREAD nodes per
 * thread ahead of it, which bounds the memory held. */

#define MAX_THREADS 16
#define WINDOW_PER_THREAD 2

typedef struct node_job {
    gc_analysed *gpus;       /* analyze.c, sorted by local index */
    size_t *ranks;           /* roster index of each */
    size_t n;
    int by_rank0;            /* leaders mode: rank 0 wrote the node file, its leader did not */
    void **owned;            /* shard buffers the points borrow from */
    char *text;              /* this node's GPU objects for catalogue.json */
    size_t text_len;
    int rc;
    gc_err err;
    int done;
} node_job;

typedef struct pipeline {
    const char *out_dir;
    const gc_run_meta *run;
    const gc_roster_entry *roster;
    size_t nranks;
    const char **nodes;
    size_t nnodes;
    const gc_kdesc_set *descs;   /* the validation kernels' descriptions */
    gc_blob_fetch fetch;
    void *fctx;
    gc_blob_fetch shard_fetch;   /* leaders mode (see gc_catalogue_write_tree), else NULL */
    int node_only;               /* gc_catalogue_write_node: no catalogue text */
    node_job *jobs;
    size_t next, consumed, window;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipeline;

static void job_free(node_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        gc_analysed_free(&j->gpus[i]);
        free(j->owned ? j->owned[i] : NULL);
    }
    free(j->gpus);
    free(j->ranks);
    free(j->owned);
    free(j->text);
    memset(j, 0, sizeof *j);
}

/* Everything about node k that needs no other node. */
static void run_job(pipeline *pl, size_t k, node_job *j, char *bufs)
{
    size_t cap = 0;
    for (size_t r = 0; r < pl->nranks; r++)
        cap += strcmp(pl->roster[r].node, pl->nodes[k]) == 0;
    j->gpus = calloc(cap ? cap : 1, sizeof *j->gpus);
    j->owned = calloc(cap ? cap : 1, sizeof *j->owned);
    j->ranks = calloc(cap ? cap : 1, sizeof *j->ranks);
    if (!j->gpus || !j->owned || !j->ranks) {
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        return;
    }
    for (size_t r = 0; r < pl->nranks; r++)
        if (strcmp(pl->roster[r].node, pl->nodes[k]) == 0) {
            gc_blob b;
            pl->fetch(pl->fctx, r, &b, &j->owned[j->n]);
            if (gc_analyze_gpu(&pl->roster[r], &b, pl->descs, &j->gpus[j->n])) {
                free(j->owned[j->n]);
                j->owned[j->n] = NULL;
                j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
                return;
            }
            j->ranks[j->n++] = r;
        }
    /* sort GPUs and the buffers they borrow from together */
    for (size_t a = 1; a < j->n; a++)
        for (size_t b = a;
             b > 0 && j->gpus[b - 1].gpu.info.local_index > j->gpus[b].gpu.info.local_index; b--) {
            gc_analysed t = j->gpus[b];
            j->gpus[b] = j->gpus[b - 1];
            j->gpus[b - 1] = t;
            void *o = j->owned[b];
            j->owned[b] = j->owned[b - 1];
            j->owned[b - 1] = o;
            size_t q = j->ranks[b];
            j->ranks[b] = j->ranks[b - 1];
            j->ranks[b - 1] = q;
        }
    int leader_wrote = 0;
    for (size_t i = 0; pl->shard_fetch && i < j->n; i++)
        leader_wrote |= j->gpus[i].note.node_file == GC_NODE_FILE_WRITTEN;
    if (pl->shard_fetch && !leader_wrote) {
        /* Its leader was lost or failed: rank 0 writes the node file, each
         * GPU from the shard it can read (a shared file system, its own
         * node), else from its record. Both analyse alike. */
        j->by_rank0 = 1;
        for (size_t i = 0; i < j->n; i++) {
            if (!j->gpus[i].gpu.npoints || !j->gpus[i].gpu.points[0].has_sum)
                continue;
            gc_blob b;
            void *owned = NULL;
            gc_analysed a;
            pl->shard_fetch(pl->fctx, j->ranks[i], &b, &owned);
            if (b.data && gc_analyze_gpu(&pl->roster[j->ranks[i]], &b, pl->descs, &a) == 0) {
                if (a.gpu.status == j->gpus[i].gpu.status && a.gpu.npoints == j->gpus[i].gpu.npoints) {
                    gc_analysed_free(&j->gpus[i]);
                    free(j->owned[i]);
                    j->gpus[i] = a;
                    j->owned[i] = owned;
                    continue;
                }
                gc_analysed_free(&a);
            }
            free(owned);
        }
    }
    if (!pl->shard_fetch || j->by_rank0) {
        j->rc = write_node(pl->out_dir, pl->run, pl->nodes[k], j->gpus, j->n, bufs, &j->err);
        if (j->rc || pl->node_only)
            return;
    }
    FILE *mf = open_memstream(&j->text, &j->text_len);
    if (!mf) {
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        return;
    }
    gc_jw w;
    gc_jw_init(&w, mf, bufs + GC_JW_BUF, 0);
    for (size_t i = 0; i < j->n && !j->rc; i++) {
        if (i)
            gc_jw_puts(&w, ",\n");
        j->rc = gpu_json(&w, &j->gpus[i], 0, &j->err);
    }
    if (!j->rc)
        j->rc = gc_jw_finish(&w, "catalogue.json", &j->err);
    if (fclose(mf) != 0 && !j->rc)
        j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
}

static void *worker(void *arg)
{
    pipeline *pl = arg;
    char *bufs = malloc(2 * (size_t)GC_JW_BUF);
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        while (!pl->stop && pl->next < pl->nnodes && pl->next >= pl->consumed + pl->window)
            pthread_cond_wait(&pl->cv, &pl->mu);
        if (pl->stop || pl->next >= pl->nnodes) {
            pthread_mutex_unlock(&pl->mu);
            break;
        }
        size_t k = pl->next++;
        pthread_mutex_unlock(&pl->mu);
        node_job *j = &pl->jobs[k];
        if (bufs)
            run_job(pl, k, j, bufs);
        else
            j->rc = gc_fail(&j->err, GC_ENOMEM, "catalogue: out of memory");
        pthread_mutex_lock(&pl->mu);
        j->done = 1;
        pthread_cond_broadcast(&pl->cv);
        pthread_mutex_unlock(&pl->mu);
    }
    free(bufs);
    return NULL;
}

/* The CPUs this process may run on (an MPI launcher may have bound it). */
static int usable_cpus(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

int gc_catalogue_write_node(const char *out_dir, const gc_run_meta *run,
                            const gc_roster_entry *roster, size_t nranks, const char *node,
                            gc_blob_fetch fetch, void *ctx, gc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes", out_dir);
    int rc = gc_mkdir_p(path, err);
    if (rc)
        return rc;
    gc_kdesc_set descs;
    gc_kdesc_set_embedded(&descs);
    const char *nodes[1] = { node };
    pipeline pl = { .out_dir = out_dir, .run = run, .roster = roster, .nranks = nranks,
                    .nodes = nodes, .nnodes = 1, .descs = &descs, .fetch = fetch, .fctx = ctx,
                    .node_only = 1 };
    node_job j = { 0 };
    char *bufs = malloc(2 * (size_t)GC_JW_BUF);
    if (bufs)
        run_job(&pl, 0, &j, bufs);
    else
        j.rc = gc_fail(&j.err, GC_ENOMEM, "node file: out of memory");
    rc = j.rc ? gc_fail(err, j.rc, "%s", j.err.msg) : 0;
    job_free(&j);
    free(bufs);
    gc_kdesc_set_free(&descs);
    return rc;
}

static int write_all(const char *out_dir, const gc_run_meta *run, const gc_roster_entry *roster,
                     size_t nranks, gc_blob_fetch fetch, gc_blob_fetch shard_fetch, void *ctx,
                     gc_catalogue_stats *stats, gc_err *err);

int gc_catalogue_write_fetch(const char *out_dir, const gc_run_meta *run,
                             const gc_roster_entry *roster, size_t nranks, gc_blob_fetch fetch,
                             void *ctx, gc_catalogue_stats *stats, gc_err *err)
{
    return write_all(out_dir, run, roster, nranks, fetch, NULL, ctx, stats, err);
}

int gc_catalogue_write_tree(const char *out_dir, const gc_run_meta *run,
                            const gc_roster_entry *roster, size_t nranks, gc_blob_fetch fetch,
                            gc_blob_fetch shard_fetch, void *ctx, gc_catalogue_stats *stats,
                            gc_err *err)
{
    return write_all(out_dir, run, roster, nranks, fetch, shard_fetch, ctx, stats, err);
}

static int write_all(const char *out_dir, const gc_run_meta *run, const gc_roster_entry *roster,
                     size_t nranks, gc_blob_fetch fetch, gc_blob_fetch shard_fetch, void *ctx,
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
    node_row *rows = calloc(nnodes ? nnodes : 1, sizeof *rows);
    char *bufs = malloc(GC_JW_BUF);
    stats->briefs = calloc(nranks ? nranks : 1, sizeof *stats->briefs);
    gc_links *links = gc_links_new(roster, nranks);
    gc_verdicts *verdicts = gc_verdicts_new();   /* detect.c, fed as GPUs stream */
    gc_kdesc_set descs;
    gc_kdesc_set_embedded(&descs);
    gc_models_pool pool;
    gc_models_pool_init(&pool, &descs);
    if (!nodes || !rows || !bufs || !stats->briefs || !links) {
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        goto out;
    }
    snprintf(path, sizeof path, "%s/catalogue.json", out_dir);
    gc_afile cat;
    rc = gc_afile_open(&cat, path, err);
    if (rc)
        goto out;
    /* The cluster file is streamed: one GPU object at a time, each written
     * as a top-level value (as the json_dumpf of one GPU object was). */
    gc_jw w;
    doc_head(&w, cat.f, bufs, "catalogue", run);
    gc_jw_puts(&w, ",\n \"gpus\": [");
    w.depth = 0;

    pipeline pl = { .out_dir = out_dir, .run = run, .roster = roster, .nranks = nranks,
                    .nodes = nodes, .nnodes = nnodes, .descs = &descs, .fetch = fetch,
                    .fctx = ctx, .shard_fetch = shard_fetch };
    int nthreads = usable_cpus();
    pl.window = (size_t)nthreads * WINDOW_PER_THREAD;
    pl.jobs = calloc(nnodes ? nnodes : 1, sizeof *pl.jobs);
    pthread_t tid[MAX_THREADS];
    int started = 0;
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    if (!pl.jobs)
        rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
    for (int t = 0; !rc && t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, worker, &pl) == 0)
            started++;
    if (!rc && !started)
        rc = gc_fail(err, GC_ENOMEM, "catalogue: cannot start a thread");

    size_t written = 0;
    for (size_t k = 0; k < nnodes && !rc; k++) {
        node_job *j = &pl.jobs[k];
        pthread_mutex_lock(&pl.mu);
        while (!j->done)
            pthread_cond_wait(&pl.cv, &pl.mu);
        pthread_mutex_unlock(&pl.mu);
        if (j->by_rank0) {
            size_t nrec = 0;
            for (size_t i = 0; i < j->n; i++)
                nrec += j->gpus[i].gpu.npoints && j->gpus[i].gpu.points[0].has_sum &&
                        !j->gpus[i].gpu.points[0].enc;
            fprintf(stderr, "gpucensus: node %s: its leader wrote no node file (lost or failed); "
                            "rank 0 wrote nodes/%s.json%s%s\n", nodes[k], nodes[k],
                    nrec ? ", histograms null for GPUs whose shard it cannot read (`gpucensus "
                           "merge` on that node's shards has them)" : " from the node's shards",
                    "");
        }
        if (j->rc) {
            rc = gc_fail(err, j->rc, "%s", j->err.msg);
        } else if (links_add(links, j->gpus, j->n)) {
            rc = gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        } else if (j->n) {
            gc_jw_puts(&w, written ? ",\n" : "\n");
            gc_jw_put(&w, j->text, j->text_len);
            written += j->n;
        }
        int worst = GC_GPU_OK;
        for (size_t i = 0; i < j->n && !rc; i++) {
            const gc_gpu *g = &j->gpus[i].gpu;
            gc_analysed_brief(g, &stats->briefs[stats->gpus++]);
            gc_verdicts_gpu(verdicts, g, j->gpus[i].sums);
            if (j->gpus[i].models.present)
                gc_models_pool_add(&pool, &j->gpus[i].models);
            stats->ok += g->status == GC_GPU_OK;
            stats->partial += g->status == GC_GPU_PARTIAL;
            stats->failed += g->status == GC_GPU_FAILED;
            if (g->status > worst)
                worst = g->status;
        }
        rows[k].name = nodes[k];
        rows[k].gpus = j->n;
        rows[k].worst = worst;
        job_free(j);
        pthread_mutex_lock(&pl.mu);
        pl.consumed = k + 1;
        pthread_cond_broadcast(&pl.cv);
        pthread_mutex_unlock(&pl.mu);
    }
    pthread_mutex_lock(&pl.mu);
    pl.stop = 1;
    pthread_cond_broadcast(&pl.cv);
    pthread_mutex_unlock(&pl.mu);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (size_t k = 0; pl.jobs && k < nnodes; k++)
        job_free(&pl.jobs[k]);
    free(pl.jobs);
    pthread_cond_destroy(&pl.cv);
    pthread_mutex_destroy(&pl.mu);
    stats->nodes = (int)nnodes;
    if (!rc) {
        gc_jw_puts(&w, "\n ],\n \"nodes\": ");
        gc_jw_open(&w, "[");
        for (size_t k = 0; k < nnodes; k++) {
            gc_jw_next(&w);
            gc_jw_open(&w, "{");
            gc_jw_kstr(&w, "name", rows[k].name);
            gc_jw_kint(&w, "gpus", (long long)rows[k].gpus);
            gc_jw_kstr(&w, "status", gc_gpu_status_name(rows[k].worst));
            char rel[GC_NODE_MAX + 16];
            snprintf(rel, sizeof rel, "nodes/%s.json", rows[k].name);
            gc_jw_kstr(&w, "file", rel);
            gc_jw_close(&w, "}");
        }
        gc_jw_close(&w, "]");
        gc_jw_puts(&w, ",\n \"links\": ");
        w.depth0 = 1;   /* a member of the top-level object */
        char *vt = gc_verdicts_finish(verdicts, links, &w);   /* writes the links */
        verdicts = NULL;
        gc_jw_puts(&w, ",\n \"models\": ");
        gc_models_pool_json(&w, &pool);
        gc_jw_puts(&w, ",\n \"verdicts\": ");
        gc_jw_puts(&w, vt ? vt : "[]");
        gc_jw_puts(&w, "\n}\n");
        free(vt);
        rc = gc_jw_finish(&w, path, err);
        if (!rc)
            rc = gc_afile_commit(&cat, err);
        else
            gc_afile_abort(&cat);
    } else {
        gc_afile_abort(&cat);
    }
out:
    gc_verdicts_free(verdicts);   /* NULL once judged */
    gc_kdesc_set_free(&descs);
    gc_links_free(links);
    free(rows);
    free(bufs);
    free(nodes);
    return rc;
}

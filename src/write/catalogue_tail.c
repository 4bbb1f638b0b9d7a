/* The end of catalogue.json after its GPUs (schema 3): parameter units,
 * nodes, links as one table, the models' summary and the verdicts folded.
 * See catalogue_int.h and results-schema/catalogue.schema.json.
 *
 * Links: "gpus" lists every rank's GPU once ([node, index, rank, uuid,
 * numa_node], by rank); a row names its ends by rank (a GPU end: r; the
 * host memory next to rank r's GPU: -r-1) and its class by index into
 * "classes"; an end that is not what the table says is written in full.
 * Verdicts: a verdict without reasons or note is a short row whose
 * subject comes from its GPU, link or node; others are written in full.
 * Readers expand both back to the 2.x objects (catread_v3.c, gccat.py). */
#include "write/catalogue_int.h"
#include "write/catalogue.h"
#include "analyze/peer_notes.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/detect.h"
#include "util/fsutil.h"
#include "util/strtab.h"

struct gc_cat_links {
    gc_links *links;
    gc_verdicts *v;
    const size_t *at;       /* the catalogue's order of the GPUs (roster indices), NULL: as added */
    size_t n;
    FILE *f;                /* the rows, unlinked */
    gc_jw w;                /* into f, compact, inside the rows' "[" */
    char *buf;              /* GC_JW_BUF, w's */
    gc_strtab classes;      /* "kind\x1fbench\x1f...", met as the rows are made */
    /* per link (row order): the detector's subject and node for its
     * verdict when they are what a reader derives from the row, else NULL;
     * compared as the row is made, so that folding the verdict after the
     * last record is a pointer comparison, not a pass over 491,520
     * subjects (16,384 GPUs) that the caches no longer hold */
    struct fold { const char *subject, *node; } *subj;
    size_t nsubj, capsubj;
    int oom;
};
typedef gc_cat_links tail;

static int str_eq(const char *a, const char *b)
{
    return (!a || !*a) ? (!b || !*b) : (b && !strcmp(a, b));
}

/* Rank r's GPU end as the table of ranks will say it: final once a link
 * that names r is told (gc_links_emit waits for its GPU). 0: no such rank. */
static int rank_end(const tail *t, int r, gc_link_view_end *g)
{
    if (r < 0 || (size_t)r >= gc_links_nranks(t->links))
        return 0;
    gc_links_rank_end(t->links, (size_t)r, g);
    return 1;
}

/* rank r's GPU end is e: e as r */
static int is_rank_gpu(const tail *t, const gc_link_view_end *e)
{
    gc_link_view_end g;
    if (!e->is_gpu || !rank_end(t, e->rank, &g))
        return 0;
    return !strcmp(g.node, e->node) && g.gpu_index == e->gpu_index && str_eq(g.uuid, e->uuid) &&
           g.numa_node == e->numa_node;
}

static void end_full(gc_jw *w, const gc_link_view_end *e)
{
    gc_jw_open(w, "{");
    gc_jw_kstr(w, "type", e->is_gpu ? "gpu" : "host");
    gc_jw_kstr(w, "node", e->node);
    if (e->is_gpu && e->gpu_index >= 0)
        gc_jw_kint(w, "gpu_index", e->gpu_index);
    else
        gc_jw_knull(w, "gpu_index");
    if (e->is_gpu && e->uuid)
        gc_jw_kstr(w, "uuid", e->uuid);
    else
        gc_jw_knull(w, "uuid");
    if (e->numa_node >= 0)
        gc_jw_kint(w, "numa_node", e->numa_node);
    else
        gc_jw_knull(w, "numa_node");
    gc_jw_close(w, "}");
}

static void end_row(tail *t, const gc_link_view_end *e)
{
    gc_jw *w = &t->w;
    gc_link_view_end g;
    gc_jw_next(w);
    if (is_rank_gpu(t, e)) {
        gc_jw_int(w, e->rank);
        return;
    }
    if (!e->is_gpu && rank_end(t, e->rank, &g) && !strcmp(g.node, e->node) &&
        g.numa_node == e->numa_node) {
        gc_jw_int(w, -(long long)e->rank - 1);
        return;
    }
    end_full(w, e);
}

static void real(gc_jw *w, double v)
{
    gc_jw_next(w);
    gc_jw_real(w, v);
}

/* A link as the analysis tells it (gc_links_emit: fitted, its ends
 * final): to the detector, then its row. */
static void on_link(void *ctx, const gc_link_view *x)
{
    tail *t = ctx;
    gc_jw *w = &t->w;
    gc_verdicts_link(t->v, x);
    /* "kind\x1fbench\x1fdir\x1fmemory\x1fengine\x1fpeer_access\x1fconcurrent" ("\x1e": null), cut at 199 */
    char cls[200];
    const char *part[6] = { x->kind, x->benchmark, x->direction, x->memory, x->engine ? x->engine : "\x1e",
                            x->peer_access ? x->peer_access : "\x1e" };
    size_t cn = 0;
    for (int k = 0; k < 6; k++) {
        size_t l = strnlen(part[k] ? part[k] : "", sizeof cls - 1 - cn);
        memcpy(cls + cn, part[k] ? part[k] : "", l);
        cn += l;
        if (cn < sizeof cls - 1)
            cls[cn++] = '\x1f';
    }
    if (cn < sizeof cls - 1)
        cls[cn++] = x->concurrent ? '1' : '0';
    cls[cn] = '\0';
    long c = gc_strtab_id(&t->classes, cls, 1);
    if (c < 0)
        t->oom = 1;
    gc_jw_next(w);
    gc_jw_put(w, "\n", 1);
    gc_jw_open(w, "[");
    gc_jw_next(w), gc_jw_int(w, c);
    end_row(t, &x->src);
    end_row(t, &x->dst);
    gc_jw_next(w);
    const gc_link_view_end *b = &x->by;
    gc_link_view_end g;
    if (rank_end(t, b->rank, &g) && !strcmp(g.node, b->node) && g.gpu_index == b->gpu_index) {
        gc_jw_int(w, b->rank);
    } else {
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "node", b->node);
        gc_jw_kint(w, "gpu_index", b->gpu_index);
        gc_jw_kint(w, "rank", b->rank);
        gc_jw_close(w, "}");
    }
    real(w, x->top_bps);
    gc_jw_next(w);
    const gc_xfer_model *m = x->model;
    if (!m) {
        gc_jw_puts(w, "null");
    } else {
        gc_jw_open(w, "[");
        real(w, m->alpha_s);
        real(w, m->beta_bps > 0 ? m->beta_bps : NAN);
        real(w, m->r2);
        real(w, m->max_rel_residual);
        real(w, m->size_min);
        real(w, m->size_max);
        if (m->nseg > 1) {
            gc_jw_next(w);
            gc_jw_open(w, "[");
            for (size_t k = 0; k < m->nseg; k++) {
                const gc_xfer_seg *sg = &m->seg[k];
                gc_jw_next(w);
                gc_jw_open(w, "[");
                real(w, sg->alpha_s);
                real(w, sg->beta_bps > 0 ? sg->beta_bps : NAN);
                real(w, sg->size_min);
                real(w, sg->size_max);
                gc_jw_close(w, "]");
            }
            gc_jw_close(w, "]");
        }
        gc_jw_close(w, "]");
    }
    gc_jw_next(w);
    if (!x->has_chase) {
        gc_jw_puts(w, "null");
    } else {
        gc_jw_open(w, "[");
        real(w, x->chase_footprint);
        gc_jw_next(w), gc_jw_int(w, (long long)x->chase_count);
        real(w, x->chase_p5_ns);
        real(w, x->chase_p50_ns);
        real(w, x->chase_p95_ns);
        real(w, x->chase_p50_cycles);
        gc_jw_close(w, "]");
    }
    real(w, x->nominal_bps);
    gc_jw_next(w);
    if (x->nominal_basis && gc_jw_utf8_ok(x->nominal_basis))
        gc_jw_string(w, x->nominal_basis);
    else
        gc_jw_puts(w, "null");
    real(w, x->lambda);
    real(w, x->share);
    real(w, x->again_bps);
    gc_jw_close(w, "]");

    /* the subject a reader derives for the link's verdict */
    gc_det_link l = {
        .index = x->index, .kind = x->kind, .benchmark = x->benchmark, .direction = x->direction,
        .memory = x->memory, .engine = x->engine, .peer_access = x->peer_access,
        .concurrent = x->concurrent,
    };
    const gc_link_view_end *es[2] = { &x->src, &x->dst };
    gc_det_end *ds[2] = { &l.src, &l.dst };
    for (int k = 0; k < 2; k++) {
        ds[k]->is_gpu = es[k]->is_gpu;
        ds[k]->node = es[k]->node;
        ds[k]->gpu_index = es[k]->gpu_index;
        ds[k]->uuid = es[k]->uuid;
        ds[k]->numa_node = es[k]->numa_node;
    }
    char subject[300];
    const char *node, *dsubject, *dnode;
    gc_det_link_subject(&l, subject, sizeof subject, &node);
    gc_verdicts_last_link(t->v, &dsubject, &dnode);
    if (t->nsubj == t->capsubj) {
        size_t cap = t->capsubj ? 2 * t->capsubj : 1024;
        struct fold *n = realloc(t->subj, cap * sizeof *n);
        if (!n) {
            t->oom = 1;
            return;
        }
        t->subj = n, t->capsubj = cap;
    }
    int same = dsubject && dnode && !strcmp(dsubject, subject) && !strcmp(dnode, node);
    t->subj[t->nsubj++] = same ? (struct fold){ dsubject, dnode } : (struct fold){ NULL, NULL };
}

static const char *const link_columns[] = {
    "class", "src", "dst", "measured_on", "bandwidth_top_p50_bps", "model", "latency_chase",
    "nominal_bps", "nominal_basis", "lambda", "share", "remeasured_bandwidth_bps", NULL };

gc_cat_links *gc_cat_links_new(const char *dir, gc_links *links, gc_verdicts *v, const size_t *at,
                               size_t n, gc_err *err)
{
    tail *t = calloc(1, sizeof *t);
    if (!t || !(t->buf = malloc(GC_JW_BUF))) {
        free(t);
        gc_fail(err, GC_ENOMEM, "catalogue: out of memory");
        return NULL;
    }
    if (!(t->f = gc_tmpfile_in(dir, err))) {
        free(t->buf);
        free(t);
        return NULL;
    }
    t->links = links;
    t->v = v;
    t->at = at;
    t->n = n;
    gc_jw_init(&t->w, t->f, t->buf, 0);
    t->w.compact = 1;
    gc_jw_open(&t->w, "[");
    gc_links_observe(links, on_link, t);
    return t;
}

void gc_cat_links_free(gc_cat_links *t)
{
    if (!t)
        return;
    gc_links_observe(t->links, NULL, NULL);
    if (t->f)
        fclose(t->f);
    free(t->buf);
    free(t->subj);
    gc_strtab_free(&t->classes);
    free(t);
}

void gc_cat_links_ready(gc_cat_links *t)
{
    if (t)
        gc_links_emit(t->links, t->at, t->n, 0);
}

/* Every link told now (the rest of the rows written, each link to the
 * detector): the detector has all it will judge. */
static void rows_close(tail *t)
{
    gc_links_emit(t->links, t->at, t->n, 1);
    gc_links_observe(t->links, NULL, NULL);
    gc_jw_close(&t->w, "]");
    gc_jw_flush(&t->w);
}

/* The rows from their file into w. A failed read or write is w's error
 * (gc_jw_finish reports it). */
static void rows_copy(tail *t, gc_jw *w)
{
    gc_jw_flush(w);   /* w's bytes before the rows, then the rows straight into its file */
    int e = t->w.err;
    if (!e && fflush(t->f) != 0)
        e = errno ? errno : EIO;
    if (!e)
        e = gc_move_from_fd(w->f, fileno(t->f), t->buf, GC_JW_BUF);
    if (e && !w->err)
        w->err = e;
    fclose(t->f);   /* its 97 MB (16,384 GPUs) freed now, beside the judgement */
    t->f = NULL;
}

static void links_json(tail *t, gc_jw *w)
{
    gc_jw_open(w, "{");
    gc_jw_key(w, "gpus");
    gc_jw_open(w, "[");
    for (size_t r = 0; r < gc_links_nranks(t->links); r++) {
        gc_link_view_end x, *e = &x;
        gc_links_rank_end(t->links, r, e);
        gc_jw_next(w);
        gc_jw_open(w, "[");
        gc_jw_next(w), gc_jw_string(w, e->node);
        gc_jw_next(w), gc_jw_int(w, e->gpu_index);
        gc_jw_next(w), gc_jw_int(w, e->rank);
        gc_jw_next(w);
        if (e->uuid && gc_jw_utf8_ok(e->uuid))
            gc_jw_string(w, e->uuid);
        else
            gc_jw_puts(w, "null");
        gc_jw_next(w);
        if (e->numa_node >= 0)
            gc_jw_int(w, e->numa_node);
        else
            gc_jw_puts(w, "null");
        gc_jw_close(w, "]");
    }
    gc_jw_close(w, "]");
    gc_jw_key(w, "columns");
    gc_jw_open(w, "[");
    for (int i = 0; link_columns[i]; i++)
        gc_jw_next(w), gc_jw_string(w, link_columns[i]);
    gc_jw_close(w, "]");
    gc_jw_key(w, "rows");
    rows_copy(t, w);
    /* after the rows: the classes are met as the links are written */
    gc_jw_key(w, "classes");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < t->classes.n; i++) {
        char *f[7], *p = t->classes.s[i];
        for (int k = 0; k < 7; k++) {
            f[k] = p;
            p = strchr(p, '\x1f');
            if (p)
                *p++ = '\0';
            else
                p = "";
        }
        gc_jw_next(w);
        gc_jw_open(w, "[");
        for (int k = 0; k < 6; k++) {
            gc_jw_next(w);
            if (!strcmp(f[k], "\x1e"))
                gc_jw_puts(w, "null");
            else
                gc_jw_string(w, f[k]);
        }
        gc_jw_next(w), gc_jw_puts(w, !strcmp(f[6], "1") ? "true" : "false");
        gc_jw_close(w, "]");
    }
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
}

/* ---- verdicts ---------------------------------------------------------- */

/* A verdict's peer group by its string's address first: the detector
 * interns them (a few dozen), so the table of their texts is read once
 * per address, not hashed once per verdict (507,904 at 16,384 GPUs). A
 * miss only costs the text's lookup: equal texts at two addresses still
 * get one id. */
enum { GROUP_MEMO = 256 };
typedef struct group_memo {
    const char *p[GROUP_MEMO];
    long id[GROUP_MEMO];
} group_memo;

static long group_id(gc_strtab *groups, group_memo *m, const char *g)
{
    size_t h = (size_t)(((uintptr_t)g * 0x9E3779B97F4A7C15ull) >> 56) % GROUP_MEMO;
    if (m->p[h] == g)
        return m->id[h];
    long id = gc_strtab_id(groups, g, 1);
    if (id >= 0)
        m->p[h] = g, m->id[h] = id;
    return id;
}

static void verdicts_json(tail *t, gc_jw *w, const gc_detect *d)
{
    gc_strtab groups = { 0 };
    group_memo memo = { 0 };
    gc_jw_open(w, "{");
    gc_jw_key(w, "columns");
    gc_jw_puts(w, "{\"gpu\":[\"type\",\"node\",\"gpu_index\",\"uuid\",\"verdict\",\"peer_group\","
                  "\"peers\",\"basis\"],\"link\":[\"type\",\"link\",\"verdict\",\"peer_group\","
                  "\"peers\",\"basis\"],\"node\":[\"type\",\"node\",\"verdict\",\"peers\"]}");
    gc_jw_key(w, "rows");
    gc_jw_open(w, "[");
    size_t n = d ? gc_detect_count(d) : 0;
    for (size_t i = 0; i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        int folded = !v->nreasons && !v->note[0];
        char subj[300];
        if (folded && v->type == GC_SUBJ_GPU) {
            snprintf(subj, sizeof subj, "%s/gpu%d", v->node, v->gpu_index);
            folded = v->gpu_index >= 0 && v->link_index < 0 && !strcmp(subj, v->subject);
        } else if (folded && v->type == GC_SUBJ_LINK) {
            folded = v->gpu_index < 0 && !v->uuid[0] && v->link_index >= 0 &&
                     (size_t)v->link_index < t->nsubj && t->subj[v->link_index].subject &&
                     t->subj[v->link_index].subject == v->subject &&
                     t->subj[v->link_index].node == v->node;
        } else if (folded) {
            folded = !strcmp(v->subject, v->node) && !strcmp(v->group, "node") &&
                     v->gpu_index < 0 && !v->uuid[0] && v->link_index < 0;
        }
        if (folded && v->type == GC_SUBJ_NODE && !gc_jw_utf8_ok(v->node))
            folded = 0;
        long g = folded && v->type != GC_SUBJ_NODE ? group_id(&groups, &memo, v->group) : 0;
        gc_jw_next(w);
        gc_jw_put(w, "\n", 1);
        if (!folded || g < 0) {
            char *o = gc_verdict_json_compact(v);
            if (!o) {
                t->oom = 1;
                gc_jw_puts(w, "null");
                continue;
            }
            gc_jw_puts(w, o);
            free(o);
            continue;
        }
        gc_jw_open(w, "[");
        gc_jw_next(w), gc_jw_int(w, v->type);
        if (v->type == GC_SUBJ_GPU) {
            gc_jw_next(w), gc_jw_string(w, v->node);
            gc_jw_next(w), gc_jw_int(w, v->gpu_index);
            gc_jw_next(w);
            if (v->uuid[0])
                gc_jw_string(w, v->uuid);
            else
                gc_jw_puts(w, "null");
        } else if (v->type == GC_SUBJ_LINK) {
            gc_jw_next(w), gc_jw_int(w, v->link_index);
        } else {
            gc_jw_next(w), gc_jw_string(w, v->node);
        }
        gc_jw_next(w), gc_jw_int(w, v->level);
        if (v->type != GC_SUBJ_NODE)
            gc_jw_next(w), gc_jw_int(w, g);
        gc_jw_next(w), gc_jw_int(w, v->peers);
        if (v->type != GC_SUBJ_NODE)
            gc_jw_next(w), gc_jw_int(w, (v->used_peers ? 1 : 0) | (v->used_baseline ? 2 : 0));
        gc_jw_close(w, "]");
    }
    gc_jw_close(w, "]");
    gc_jw_key(w, "peer_groups");
    gc_jw_open(w, "[");
    for (size_t i = 0; i < groups.n; i++)
        gc_jw_next(w), gc_jw_string(w, groups.s[i]);
    gc_jw_close(w, "]");
    gc_jw_close(w, "}");
    gc_strtab_free(&groups);
}

void gc_cat_doc_tail(gc_jw *w, const gc_cat_node_row *rows, size_t nnodes, gc_cat_links *t,
                     const gc_models_pool *pool)
{
    w->compact = 1;
    w->depth0 = 0;
    rows_close(t);
    /* the judgement begun (the GPUs' peers on threads of their own) while
     * the rest before the verdicts is written (at 16,384 GPUs the link rows
     * alone are 97 MB); gc_verdicts_judge below judges the links and joins */
    if (!t->oom)
        gc_verdicts_judge_start(t->v);
    gc_jw_puts(w, "\n],\n\"parameter_units\":");
    gc_cat_units_json(w);
    gc_jw_puts(w, ",\n\"peer_notes\":");
    gc_peer_notes_json(w);
    gc_jw_puts(w, ",\n\"nodes\":");
    gc_jw_open(w, "[");
    for (size_t k = 0; k < nnodes; k++) {
        gc_jw_next(w);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "name", rows[k].name);
        gc_jw_kint(w, "gpus", (long long)rows[k].gpus);
        gc_jw_kstr(w, "status", gc_gpu_status_name(rows[k].worst));
        char rel[GC_NODE_MAX + 16];
        snprintf(rel, sizeof rel, "nodes/%s.json", rows[k].name);
        gc_jw_kstr(w, "file", rel);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "]");
    gc_jw_puts(w, ",\n\"links\":");
    links_json(t, w);
    gc_jw_puts(w, ",\n\"models\":");
    gc_models_pool_json(w, pool);
    gc_jw_puts(w, ",\n\"verdicts\":");
    gc_jw_flush(w);
    gc_file_start_writeback(w->f);   /* beside the judgement, not in the commit's fsync */
    const gc_detect *d = t->oom ? NULL : gc_verdicts_judge(t->v);
    if (t->oom && t->v)
        fprintf(stderr, "gpucensus: verdicts left out of the catalogue: out of memory\n");
    verdicts_json(t, w, d);
    gc_jw_puts(w, "\n}\n");
}

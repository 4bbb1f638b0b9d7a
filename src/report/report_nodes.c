/* The report's node files: which nodes are drawn with their points (all
 * up to RP_FULL_NODES nodes; past that the flagged ones first and a sample)
 * and reading those nodes' files once each, by two threads: latency
 * curves, histograms and transfer size tables together; rp_load_nodes, the
 * catalogue's model (report_data.c, below) and then its node files. See
 * report_int.h. */
#include "report/report_int.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/catread_points.h"
#include "census/codec.h"
#include "census/hist.h"
#include "util/input.h"
#include "util/quote.h"

/* A node file that cannot give what is asked: said once per node, and
 * the report goes on without it. */
static pthread_mutex_t missing_mu = PTHREAD_MUTEX_INITIALIZER;   /* c->missing, nmissing */

static void node_missing(rp_cat *c, const char *node, const char *msg)
{
    pthread_mutex_lock(&missing_mu);
    if (strcmp(c->missing, node)) {
        snprintf(c->missing, sizeof c->missing, "%s", node);
        if (!c->nmissing++)   /* the first in full, the others counted (rp_load_nodes) */
            fprintf(stderr, "gpucensus report: warning: %s; node %s drawn without its points\n",
                    msg, node);
    }
    pthread_mutex_unlock(&missing_mu);
}

/* The footprints drawn: the smallest (L1), the one whose median is
 * nearest the L2 plateau, the largest (DRAM). */
static void choose_fps(const rp_gpu *g, double fp[3])
{
    fp[0] = fp[1] = fp[2] = NAN;
    if (!g->nchase)
        return;
    fp[0] = g->chase[0].x;
    fp[2] = g->chase[g->nchase - 1].x;
    double best = INFINITY;
    for (size_t k = 1; k + 1 < g->nchase; k++) {
        double d = isfinite(g->l2) ? fabs(g->chase[k].p50 - g->l2) : fabs((double)k - g->nchase / 2.0);
        if (d < best)
            best = d, fp[1] = g->chase[k].x;
    }
}

/* The GPU's latency histograms at its three footprints, from results
 * (its node file's); a histogram that does not decode is said in why. */
static void gpu_hists(rp_gpu *g, json_t *res, const char *path, char *why, size_t whycap)
{
    if (!g->h3 && !(g->h3 = calloc(1, sizeof *g->h3)))
        return;
    rp_hist3 *h = g->h3;
    choose_fps(g, h->fp);
    size_t ri;
    json_t *r;
    json_array_foreach(res, ri, r) {
        if (strcmp(rp_str(r, "benchmark"), "chase") || strcmp(rp_str(r, "metric"), "latency"))
            continue;
        json_t *ctx = json_object_get(r, "context");
        const char *ord = rp_str(ctx, "order");
        if (*ord && strcmp(ord, "random"))
            continue;
        double fp = rp_num(ctx, "footprint_bytes");
        json_t *hj = json_object_get(r, "histogram");
        const char *data = rp_str(hj, "data");
        double scale = rp_num(hj, "scale");
        for (int k = 0; k < 3 && *data; k++) {
            if (h->have[k] || fp != h->fp[k])
                continue;
            uint8_t *bytes = NULL;
            size_t len = 0;
            gc_err e = { 0 };
            if (gc_base64_decode(data, &bytes, &len, &e) == 0 &&
                gc_hist_decode(bytes, len, &h->h[k], &e) == 0) {
                h->have[k] = 1;
                h->scale[k] = scale > 0 ? scale : 1;
            } else if (!why[0]) {
                snprintf(why, whycap, "%.3000s: a histogram does not decode: %.500s", path, e.msg);
            }
            free(bytes);
        }
    }
}

/* The same link in its node file (schema 2): its class, ends and GPU. */
static int same_str(json_t *o, const char *k, const char *v)
{
    char t[GC_NODE_MAX];
    gc_term_esc(rp_str(o, k), t, sizeof t);
    return !strcmp(t, v);
}

static int end_is(json_t *e, const char *node, int gpu)
{
    char n[GC_NODE_MAX];
    int g;
    rp_end_of(e, n, &g);
    return g == gpu && !strcmp(n, node);
}

static int same_link(const rp_link *l, json_t *x)
{
    return same_str(x, "kind", l->kind) && same_str(x, "benchmark", l->bench) &&
           same_str(x, "direction", l->dir) && same_str(x, "memory", l->mem) &&
           same_str(x, "engine", l->engine) && same_str(x, "peer_access", l->peer) &&
           json_is_true(json_object_get(x, "concurrent")) == l->concurrent &&
           end_is(json_object_get(x, "src"), l->src_node, l->src_gpu) &&
           end_is(json_object_get(x, "dst"), l->dst_node, l->dst_gpu) &&
           same_str(json_object_get(x, "measured_on"), "node", l->node);
}

/* Node k's points: its GPUs' chase curves and histograms, its links' size
 * tables, from its node file, read once. */
static void read_node(rp_cat *c, gc_catpoints *pts, size_t k, char *why, size_t whycap)
{
    const char *node = c->node_names[k];
    size_t first = c->node_first[k], n = c->node_n[k];
    char path[4600];
    why[0] = '\0';
    if (c->schema_major >= 2) {
        gc_catpoints_path(pts, node, path, sizeof path);
        gc_err e = { 0 };
        for (size_t i = first; i < first + n; i++) {
            json_t *res = gc_catpoints_gpu(pts, node, c->gpus[i].index, &e);
            if (!res) {
                node_missing(c, node, e.msg);
                if (!why[0])
                    snprintf(why, whycap, "%s", e.msg);
                if (e.code == GC_EIO)
                    return;
                continue;
            }
            rp_gpu_chase(&c->gpus[i], res);
            gpu_hists(&c->gpus[i], res, path, why, whycap);
        }
        json_t *ls = gc_catpoints_links(pts, node, &e);
        size_t nf = json_array_size(ls);
        for (size_t j = 0; ls && j < c->nl_n[k]; j++) {
            rp_link *l = &c->links[c->link_ix[c->nl_first[k] + j]];
            /* the node file lists them in the catalogue's order: try there first */
            json_t *x = j < nf && same_link(l, json_array_get(ls, j)) ? json_array_get(ls, j) : NULL;
            for (size_t q = 0; !x && q < nf; q++)
                if (same_link(l, json_array_get(ls, q)))
                    x = json_array_get(ls, q);
            if (x && !l->sz)
                rp_link_sizes(l, json_object_get(x, "sizes"));
        }
        return;
    }
    /* schema 1: curves and sizes inline; the histograms in the node file */
    if (!c->node_files[k][0]) {
        snprintf(why, whycap, "no node file in the catalogue");
        return;
    }
    snprintf(path, sizeof path, "%s/%s", c->dir, c->node_files[k]);
    json_error_t je = { .line = 0 };
    uint8_t *b = NULL;
    size_t blen = 0;
    gc_err re = { 0 };
    json_t *root = NULL;
    if (gc_read_file_in(path, 2, GC_NODE_FILE_MAX, &b, &blen, &re) == 0)
        root = json_loadb((const char *)b, blen, 0, &je);
    else
        snprintf(je.text, sizeof je.text, "%.159s", re.msg);
    free(b);
    if (!root) {
        if (je.line > 0)
            snprintf(why, whycap, "%s:%d: %s", path, je.line, je.text);
        else
            snprintf(why, whycap, "%s", je.text);
        node_missing(c, node, why);
        return;
    }
    size_t gi;
    json_t *g;
    json_array_foreach(json_object_get(root, "gpus"), gi, g) {
        json_t *ix = json_object_get(g, "index");
        if (!json_is_integer(ix) || strcmp(rp_str(g, "node"), node))
            continue;
        for (size_t i = first; i < first + n; i++)
            if (c->gpus[i].index == json_integer_value(ix))
                gpu_hists(&c->gpus[i], json_object_get(g, "results"), path, why, whycap);
    }
    json_decref(root);
}

static const rp_cat *by_worst_cat;
static int cmp_worst(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int wx = by_worst_cat->node_worst[x], wy = by_worst_cat->node_worst[y];
    if (wx != wy)
        return wy - wx;
    return (x > y) - (x < y);
}

static int file_there(const rp_cat *c, size_t k)
{
    char path[4600];
    struct stat st;
    if (c->schema_major >= 2) {
        snprintf(path, sizeof path, "%s/nodes/%s.json", c->dir, c->node_names[k]);
        if (stat(path, &st) == 0)
            return 1;
        snprintf(path, sizeof path, "%s/nodes/%s.json.gz", c->dir, c->node_names[k]);
        return stat(path, &st) == 0;
    }
    snprintf(path, sizeof path, "%s/%s", c->dir, c->node_files[k]);
    return c->node_files[k][0] && stat(path, &st) == 0;
}

/* Which nodes' files are read (rp_cat's node_read; see RP_FULL_NODES). */
static int choose_nodes(rp_cat *c, const char *const *asked, size_t nasked, gc_err *err)
{
    if (!(c->worst_order = malloc((c->nnodes ? c->nnodes : 1) * sizeof *c->worst_order)))
        return gc_fail(err, GC_ENOMEM, "out of memory");
    c->full = c->nnodes <= RP_FULL_NODES;
    for (size_t i = 0; i < nasked; i++) {
        size_t k = rp_node_index(c, asked[i]);
        if (k >= c->nnodes)
            return gc_fail(err, GC_EINVAL, "--node %s: no such node in %s", asked[i], c->path);
        c->node_read[k] = RP_READ_ASKED;
    }
    if (c->full) {
        for (size_t k = 0; k < c->nnodes; k++)
            if (!c->node_read[k])
                c->node_read[k] = c->node_worst[k] > GC_V_OK ? RP_READ_FLAGGED : RP_READ_SAMPLE;
        return 0;
    }
    size_t *ord = c->worst_order, nf = 0;
    for (size_t k = 0; k < c->nnodes; k++)
        ord[k] = k;
    by_worst_cat = c;
    qsort(ord, c->nnodes, sizeof *ord, cmp_worst);
    while (nf < c->nnodes && c->node_worst[ord[nf]] > GC_V_OK)
        nf++;
    c->nflagged = nf;
    for (size_t i = 0; i < nf; i++) {
        if (i < RP_FLAGGED_MAX) {
            if (!c->node_read[ord[i]])
                c->node_read[ord[i]] = RP_READ_FLAGGED;
        } else if (!c->node_read[ord[i]]) {
            c->nflag_unread++;
        }
    }
    /* the sample: nodes spread over the census in catalogue order, each
     * the first with a node file from its place on */
    size_t taken = 0;
    for (size_t s = 0; s < RP_SAMPLE_NODES; s++) {
        size_t from = s * c->nnodes / RP_SAMPLE_NODES, to = (s + 1) * c->nnodes / RP_SAMPLE_NODES;
        for (size_t k = from; k < to; k++)
            if (!c->node_read[k] && c->node_worst[k] <= GC_V_OK && file_there(c, k)) {
                c->node_read[k] = RP_READ_SAMPLE;
                taken++;
                break;
            }
    }
    return 0;
}

/* The node files are read by RP_READ_THREADS threads, each its own reader
 * (one node file held at a time) and its own nodes: a node's GPUs and links
 * are written by the thread that reads it, nothing else. */
#define RP_READ_THREADS 2

typedef struct rjob {
    rp_cat *c;
    size_t next;
    pthread_mutex_t mu;
    int failed;
} rjob;


static void *read_thread(void *arg)
{
    rjob *j = arg;
    rp_cat *c = j->c;
    gc_catpoints *pts = gc_catpoints_new(c->path);
    gc_catpoints_set_run(pts, c->run_start_raw, c->plan_sha256);
    char *why = malloc(5000);
    if (!pts || !why) {
        pthread_mutex_lock(&j->mu);
        j->failed = 1;
        pthread_mutex_unlock(&j->mu);
    }
    for (;;) {
        pthread_mutex_lock(&j->mu);
        while (j->next < c->nnodes && !c->node_read[j->next])
            j->next++;
        size_t k = j->failed ? c->nnodes : j->next++;
        pthread_mutex_unlock(&j->mu);
        if (k >= c->nnodes)
            break;
        read_node(c, pts, k, why, 5000);
        if (why[0]) {
            pthread_mutex_lock(&missing_mu);
            if (c->nmissing == 0)
                fprintf(stderr, "gpucensus report: warning: %s\n", why);
            pthread_mutex_unlock(&missing_mu);
            snprintf(c->node_why[k], sizeof c->node_why[k], "%.*s", (int)sizeof c->node_why[k] - 1, why);
        }
    }
    free(why);
    gc_catpoints_free(pts);
    return NULL;
}

/* GC_ENOMEM or 0; a node file that cannot be read is said on stderr and
 * its node drawn without points. */
static int read_nodes(rp_cat *c)
{
    rjob j = { .c = c };
    pthread_mutex_init(&j.mu, NULL);
    for (size_t k = 0; k < c->nnodes; k++)
        c->nread += c->node_read[k] != RP_READ_NO;
    pthread_t th[RP_READ_THREADS];
    int started = 0;
    for (int t = 1; t < RP_READ_THREADS && (size_t)t < c->nread; t++)
        if (pthread_create(&th[started], NULL, read_thread, &j) == 0)
            started++;
    read_thread(&j);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&j.mu);
    return j.failed ? GC_ENOMEM : 0;
}

int rp_load_nodes(const char *arg, const char *const *asked, size_t nasked, int points,
                  rp_cat *c, gc_err *err)
{
    int rc = rp_load_catalogue(arg, c, err);
    if (rc)
        return rc;
    if ((rc = choose_nodes(c, asked, nasked, err)))
        return rc;
    if (points && read_nodes(c))
        return gc_fail(err, GC_ENOMEM, "out of memory");
    if (c->nmissing > 1)
        fprintf(stderr, "gpucensus report: %zu nodes in all drawn without their points (their "
                "node files missing or unreadable)\n", c->nmissing);
    rp_phase("node files");
    return 0;
}

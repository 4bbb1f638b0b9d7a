/* Link records and their one fit, full (node files) or compact
 * (catalogue.json): the points of each link summarised per size, its far
 * end resolved, the sizes faster than its nominal left out and its
 * transfer model fitted, once; the writers read the views (links.h) and
 * fit nothing. See links.h; the node files' JSON: write/links_json.c. */
#include "analyze/links.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/model_xfer.h"
#include "census/links_nominal.h"
#include "util/grow.h"

#define LK_MAX_SIZES GC_LINK_MAX_SIZES

enum { K_PCIE, K_NVLINK, K_P2P_PCIE, K_STAGED, K_NET };

/* 80 bytes: rank 0 holds ~25 of them for each of ~30 links per GPU */
typedef struct lk_size {
    double bytes;
    double t50, t5, t95;     /* s */
    double bw50, bw_max;     /* bytes/s */
    double to50, from50;     /* p2p both ways: each direction's bytes/s, 0: none */
    double rbw50;            /* measured again before blaming (confirm.c): bytes/s */
    uint32_t item;
    uint32_t count;          /* samples (a point's are far fewer than 2^32) */
    uint32_t flags;
    uint8_t has_t, has_bw, has_rbw;
    uint8_t over;            /* left out of the fit: over the nominal (gc_links_resolve) */
} lk_size;

/* Remote pointer chase (p2p mode chase) at its smallest footprint. */
typedef struct lk_chase {
    double footprint, count, p5_ns, p50_ns, p95_ns, p50_cycles;
    int has_ns, has_cycles;
} lk_chase;

typedef struct lk_end {
    int host;                /* 1: host memory (numa node of the GPU's link) */
    char node[GC_NODE_MAX];
    int gpu_index, rank, numa_node;
    char uuid[48];
    int pcie_gen, pcie_width, nvlink_links;
    double nvlink_bps;
} lk_end;

typedef struct lk {
    char bench[GC_KEY_MAX];
    int kind;
    char dir[8], memory[12], engine[4], peer_access[4];
    int concurrent;
    lk_end src, dst;
    lk_end by;               /* the GPU whose points these are */
    int peer_rank, peer_gpu;
    size_t nsizes, cap_sizes;
    lk_size *sizes;          /* as many as measured (a fixed 64 made a link 6.9 KB) */
    lk_chase chase;
    /* full links: what gc_links_resolve found, once */
    int fitted, ok;          /* resolved and fitted; the model fitted */
    gc_xfer_model model;
    double nominal_bps;      /* 0: not known */
    char basis[96];          /* the nominal's, "": none */
    double top_bps, again_bps, share;
} lk;

/* A link's class: what its JSON says besides ends and numbers (a few dozen
 * in a census). */
typedef struct lk_class {
    char bench[GC_KEY_MAX];
    int kind;
    char dir[8], memory[12], engine[4], peer_access[4];
    int concurrent;
} lk_class;

/* One fit input of a link whose model waits for its peer's end (the
 * nominal bandwidth, which keeps sizes faster than the path can go out of
 * the fit, needs it). */
typedef struct lk_fitin {
    double bytes, t50, bw_max;   /* bytes moved (both ways' for bidir) */
    uint8_t flagged, has_bw;     /* GC_FLAG_OVER_NOMINAL; bw_max measured */
} lk_fitin;

enum { DST_HOST, DST_RANK, DST_P2P_UNRESOLVED, DST_NET };

/* A link as catalogue.json needs it (gc_links_no_sizes: rank 0 and merge's
 * census-wide links): its model fitted as soon as both ends are known, its
 * ends as indices, no size table. ~130 bytes; 491,520 links at 16,384
 * GPUs on the default plan (2.6 KB each with their sizes and ends). */
typedef struct lkc {
    uint16_t cls;
    uint8_t dst_kind;            /* DST_*: host of by, rank peer, unresolved p2p peer, net peer */
    uint8_t ok;                  /* the model fitted */
    uint8_t nseg;
    uint8_t final;               /* fitted: both ends known (lk_finalize) */
    int16_t pcie_gen, pcie_width;   /* by's PCIe as the points saw it (xfer), for the nominal */
    uint32_t by;                 /* index into ends: the GPU that measured it */
    int32_t peer;                /* peer rank (DST_RANK, DST_NET), peer GPU index (unresolved) */
    int32_t pend_next;           /* pending on the same peer, -1: last */
    uint16_t nfit;
    double top_bps, again_bps, share;
    double alpha_s, beta_bps, r2, max_rel, size_min, size_max;
    gc_xfer_seg *seg;            /* nseg > 1 */
    lk_chase *chase;             /* NULL: no chase */
    lk_fitin *fit;               /* pending: the fit inputs, until the peer's end is known */
    char *net_node;              /* DST_NET with a peer rank outside the roster */
} lkc;

struct gc_links {
    const gc_roster_entry *roster;
    size_t nranks;
    lk_end *ranks;           /* every rank's GPU, filled as nodes come */
    lk *v;
    size_t n, cap;
    size_t gpu_first;        /* links of the GPU being added start here */
    size_t last_found;       /* find_link's last link */
    gc_link_observer obs;    /* told of each compact link (gc_links_emit) */
    void *obs_ctx;
    int no_sizes;            /* catalogue.json: the size tables are the node files' */
    /* gc_links_no_sizes: compact links (lkc); v holds one GPU's while it is added */
    lkc *c;
    size_t nc, capc;
    lk_class *cls;
    size_t ncls, capcls;
    lk_end *ends;            /* one per GPU added */
    size_t nends, capends;
    size_t *end_first;       /* per end: its first link in c (a GPU's links are added together) */
    size_t capfirst;
    size_t *by_end;          /* ranks sorted by (node, local index), for p2p peers */
    unsigned char *known;    /* per rank: its GPU was added (its end is final) */
    int32_t *pend;           /* per rank: first link waiting for it, -1 none */
    int32_t *end_of_rank;    /* per rank: its end (index into ends), -1: not added */
    size_t emit_next;        /* gc_links_emit: the next position (or end) to tell */
    size_t emitted;          /* links told so far: the next one's index */
    size_t dropped;          /* links not told: a GPU end without an index (tell_c) */
    char dropped_first[200]; /* the first of them */
    int emit_final;          /* gc_links_emit(final) has run */
};

static const char *const lk_kind_names[] = { "pcie", "nvlink", "pcie", "p2p_staged", "network" };

static int lk_by_end(const void *a, const void *b, void *ctx);   /* ranks by (node, local index) */

size_t gc_links_nranks(const gc_links *l)
{
    return l ? l->nranks : 0;
}

void gc_links_observe(gc_links *l, gc_link_observer fn, void *ctx)
{
    if (l) {
        l->obs = fn;
        l->obs_ctx = ctx;
    }
}

static void lk_view_end(const lk_end *e, gc_link_view_end *v)
{
    v->is_gpu = !e->host;
    v->node = e->node;
    v->gpu_index = !e->host && e->gpu_index >= 0 ? e->gpu_index : -1;
    v->uuid = !e->host && e->uuid[0] ? e->uuid : NULL;
    v->numa_node = e->numa_node >= 0 ? e->numa_node : -1;
    v->rank = e->rank;
}

void gc_links_rank_end(const gc_links *l, size_t r, gc_link_view_end *v)
{
    lk_view_end(&l->ranks[r], v);
}


gc_links *gc_links_new(const gc_roster_entry *roster, size_t nranks)
{
    gc_links *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->roster = roster;
    l->nranks = nranks;
    l->ranks = calloc(nranks ? nranks : 1, sizeof *l->ranks);
    if (!l->ranks) {
        free(l);
        return NULL;
    }
    size_t m = nranks ? nranks : 1;
    l->by_end = malloc(m * sizeof *l->by_end);
    l->known = calloc(m, 1);
    l->pend = malloc(m * sizeof *l->pend);
    l->end_of_rank = malloc(m * sizeof *l->end_of_rank);
    if (!l->by_end || !l->known || !l->pend || !l->end_of_rank) {
        gc_links_free(l);
        return NULL;
    }
    for (size_t r = 0; r < nranks; r++) {
        snprintf(l->ranks[r].node, sizeof l->ranks[r].node, "%s", roster[r].node);
        l->ranks[r].gpu_index = roster[r].local_index;
        l->ranks[r].rank = roster[r].rank;
        l->ranks[r].numa_node = -1;
        l->by_end[r] = r;
        l->pend[r] = -1;
        l->end_of_rank[r] = -1;
    }
    /* p2p peers by (node, local index), as the roster names them */
    qsort_r(l->by_end, nranks, sizeof *l->by_end, lk_by_end, l->ranks);
    return l;
}

void gc_links_free(gc_links *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->nc; i++) {
        free(l->c[i].seg);
        free(l->c[i].chase);
        free(l->c[i].fit);
        free(l->c[i].net_node);
    }
    free(l->c);
    free(l->cls);
    free(l->ends);
    free(l->end_first);
    free(l->by_end);
    free(l->known);
    free(l->pend);
    free(l->end_of_rank);
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].sizes);
    free(l->ranks);
    free(l->v);
    free(l);
}

void gc_links_no_sizes(gc_links *l)
{
    l->no_sizes = 1;
}

size_t gc_links_count(const gc_links *l)
{
    return l ? (l->no_sizes ? l->nc : l->n) : 0;
}

static void cpy(char *dst, size_t cap, const char *src);

static void end_of(const gc_gpu *g, lk_end *e)
{
    memset(e, 0, sizeof *e);
    cpy(e->node, sizeof e->node, g->info.node);
    e->gpu_index = g->info.local_index;
    e->rank = g->info.rank;
    e->numa_node = g->info.numa_node;
    cpy(e->uuid, sizeof e->uuid, g->info.uuid);
    e->pcie_gen = g->info.pcie_gen;
    e->pcie_width = g->info.pcie_width;
    e->nvlink_links = g->info.nvlink_links;
    e->nvlink_bps = g->info.nvlink_bps_per_link;
}

static int same_str(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* snprintf(dst, cap, "%s", src) without the format's cost: rank 0 copies
 * a few thousand of these per GPU. */
static void cpy(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int same_link(const lk *x, const lk *key)
{
    return x->concurrent == key->concurrent && x->peer_rank == key->peer_rank &&
           x->peer_gpu == key->peer_gpu && x->by.rank == key->by.rank &&
           x->by.gpu_index == key->by.gpu_index && same_str(x->bench, key->bench) &&
           same_str(x->dir, key->dir) && same_str(x->memory, key->memory) &&
           same_str(x->engine, key->engine) && same_str(x->peer_access, key->peer_access) &&
           same_str(x->by.node, key->by.node);
}

/* A link belongs to the GPU that measured it (key->by), so only that
 * GPU's links are searched: merging stays linear in the cluster size. A
 * link's sizes come one after another, so the last link found is tried
 * first. */
static lk *find_link(gc_links *l, const lk *key)
{
    if (l->last_found >= l->gpu_first && l->last_found < l->n &&
        same_link(&l->v[l->last_found], key))
        return &l->v[l->last_found];
    for (size_t i = l->gpu_first; i < l->n; i++)
        if (same_link(&l->v[i], key)) {
            l->last_found = i;
            return &l->v[i];
        }
    if (gc_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v))
        return NULL;
    l->v[l->n] = *key;
    l->last_found = l->n;
    return &l->v[l->n++];
}

static lk_size *find_size(lk *x, double bytes)
{
    for (size_t i = 0; i < x->nsizes; i++)
        if (x->sizes[i].bytes == bytes)
            return &x->sizes[i];
    if (x->nsizes == LK_MAX_SIZES)
        return NULL;
    if (x->nsizes == x->cap_sizes) {
        size_t c = x->cap_sizes ? 2 * x->cap_sizes : 8;
        lk_size *ns = realloc(x->sizes, (c > LK_MAX_SIZES ? LK_MAX_SIZES : c) * sizeof *ns);
        if (!ns)
            return NULL;
        x->sizes = ns;
        x->cap_sizes = c > LK_MAX_SIZES ? LK_MAX_SIZES : c;
    }
    lk_size *s = &x->sizes[x->nsizes++];
    memset(s, 0, sizeof *s);
    s->bytes = bytes;
    return s;
}

/* The link key of a transfer point; 0 if the point is no transfer. */
static int key_of(const gc_gpu *g, const lk_end *by, const gc_point *p, lk *k)
{
    const char *b = p->bench;
    if (!same_str(b, "xfer") && !same_str(b, "p2p") && !same_str(b, "net"))
        return 0;
    memset(k, 0, sizeof *k);
    cpy(k->bench, sizeof k->bench, b);
    k->by = *by;   /* end_of(g): once per GPU */
    k->peer_rank = k->peer_gpu = -1;
    const gc_ctx *c = &p->ctx;
    k->concurrent = same_str(gc_ctx_str(c, "phase", ""), "concurrent");
    if (same_str(b, "xfer")) {
        const char *d = gc_ctx_str(c, "direction", "h2d");
        cpy(k->dir, sizeof k->dir, d);
        cpy(k->memory, sizeof k->memory, gc_ctx_str(c, "memory", "pinned"));
        cpy(k->engine, sizeof k->engine, gc_ctx_str(c, "engine", "ce"));
        k->kind = K_PCIE;
        lk_end host = k->by;
        host.host = 1;
        host.uuid[0] = '\0';
        int d2h = same_str(d, "d2h");
        k->src = d2h ? k->by : host;
        k->dst = d2h ? host : k->by;
        /* the trained link as the points saw it, where the GPU info lacks it */
        if (k->by.pcie_gen <= 0 && gc_ctx_get(c, "pcie_gen")) {
            k->by.pcie_gen = (int)gc_ctx_num(c, "pcie_gen", 0);
            k->by.pcie_width = (int)gc_ctx_num(c, "pcie_width", 0);
        }
        return 1;
    }
    if (same_str(b, "p2p")) {
        cpy(k->dir, sizeof k->dir, gc_ctx_str(c, "direction", "oneway"));
        cpy(k->peer_access, sizeof k->peer_access, gc_ctx_str(c, "peer_access", "on"));
        cpy(k->memory, sizeof k->memory, "device");
        cpy(k->engine, sizeof k->engine, "ce");
        k->peer_gpu = (int)gc_ctx_num(c, "peer_gpu", -1);
        k->src = k->by;
        /* the peer's end is resolved when the links are written, from
         * every rank's GPU: rank 0 takes a node's GPUs one at a time */
        memset(&k->dst, 0, sizeof k->dst);
        cpy(k->dst.node, sizeof k->dst.node, g->info.node);
        k->dst.gpu_index = k->peer_gpu;
        k->dst.rank = k->dst.numa_node = -1;
        int links = (int)gc_ctx_num(c, "nvlink_links", k->by.nvlink_links);
        if (same_str(k->peer_access, "off"))
            k->kind = K_STAGED;
        else
            k->kind = links > 0 ? K_NVLINK : K_P2P_PCIE;
        return 1;
    }
    cpy(k->dir, sizeof k->dir, "oneway");
    cpy(k->memory, sizeof k->memory, "device");
    k->kind = K_NET;
    k->peer_rank = (int)gc_ctx_num(c, "peer_rank", -1);
    k->src = k->by;
    memset(&k->dst, 0, sizeof k->dst);
    k->dst.gpu_index = k->dst.rank = k->dst.numa_node = -1;
    cpy(k->dst.node, sizeof k->dst.node, gc_ctx_str(c, "peer_node", ""));
    k->dst.rank = k->peer_rank;   /* resolved at the end */
    return 1;
}

/* The chase's footprint is size_bytes; the smallest one measured is the
 * link's latency (the others, larger than the peer's L2 or its TLB reach,
 * are in the points). */
static void add_chase(lk_chase *c, const gc_point *p)
{
    gc_summary sm;
    gc_point_summary(p, &sm);
    double fp = gc_ctx_num(&p->ctx, "size_bytes", 0);
    if (!sm.count || fp <= 0)
        return;
    if ((c->has_ns || c->has_cycles) && fp > c->footprint)
        return;
    if ((c->has_ns || c->has_cycles) && fp < c->footprint)
        memset(c, 0, sizeof *c);
    c->footprint = fp;
    if (same_str(p->metric, "latency_ns")) {
        c->has_ns = 1;
        c->count = (double)sm.count;
        c->p5_ns = sm.p5;
        c->p50_ns = sm.p50;
        c->p95_ns = sm.p95;
    } else {
        c->has_cycles = 1;
        c->p50_cycles = sm.p50;
    }
}

/* The sizes of the links from first on, to their count (they grow by
 * doubling while a GPU's points are read). */
static void fit_sizes(gc_links *l, size_t first)
{
    for (size_t i = first; i < l->n; i++) {
        lk *x = &l->v[i];
        if (x->nsizes && x->nsizes < x->cap_sizes) {
            lk_size *ns = realloc(x->sizes, x->nsizes * sizeof *ns);
            if (ns) {
                x->sizes = ns;
                x->cap_sizes = x->nsizes;
            }
        }
    }
}

static int compact_gpu(gc_links *l, const gc_gpu *g);

int gc_links_add_node(gc_links *l, const gc_gpu *gpus, size_t n)
{
    size_t first = l->n;
    for (size_t i = 0; i < n; i++) {
        const gc_gpu *g = &gpus[i];
        for (size_t k = 0; l->no_sizes && k < l->n; k++)
            free(l->v[k].sizes);   /* left staged by a failure */
        if (l->no_sizes)
            l->n = 0;
        l->gpu_first = l->n;
        if (g->info.rank >= 0 && (size_t)g->info.rank < l->nranks && g->info.uuid[0])
            end_of(g, &l->ranks[g->info.rank]);
        lk_end by;
        end_of(g, &by);
        for (size_t j = 0; j < g->npoints; j++) {
            const gc_point *p = &g->points[j];
            lk key;
            if (p->status != GC_PT_OK || !key_of(g, &by, p, &key))
                continue;
            int is_t = same_str(p->metric, "time"), is_bw = same_str(p->metric, "bandwidth");
            int is_to = same_str(p->metric, "bandwidth_to_peer");
            int is_from = same_str(p->metric, "bandwidth_from_peer");
            int is_chase = same_str(gc_ctx_str(&p->ctx, "mode", ""), "chase") &&
                           (same_str(p->metric, "latency_ns") || same_str(p->metric, "latency"));
            if (!is_t && !is_bw && !is_to && !is_from && !is_chase)
                continue;
            /* a host chase per NUMA node (numa = "each"): the link's is the
             * one over the GPU's own node, where the host says which */
            if (is_chase && g->info.numa_node >= 0 &&
                gc_ctx_num(&p->ctx, "numa_node", g->info.numa_node) != g->info.numa_node)
                continue;
            /* the link's latency is a random chase's; consecutive lines are
             * the peer tools' pattern, kept for the comparison */
            if (is_chase && same_str(gc_ctx_str(&p->ctx, "order", "random"), "sequential"))
                continue;
            lk *x = find_link(l, &key);
            if (!x)
                return -1;
            if (is_chase) {
                add_chase(&x->chase, p);
                continue;
            }
            lk_size *s = find_size(x, gc_ctx_num(&p->ctx, "size_bytes", 0));
            if (!s)
                continue;
            gc_summary sm;
            gc_point_summary(p, &sm);
            if (!sm.count)
                continue;
            if (gc_ctx_get(&p->ctx, "confirm")) {
                /* measured again (the pair, or an end against a good
                 * partner): kept apart, the link's own values stay the
                 * first measurement's */
                if (is_bw) {
                    s->has_rbw = 1;
                    s->rbw50 = sm.p50;
                }
                continue;
            }
            s->item = p->item_id;
            s->flags |= p->flags;
            if (is_to || is_from) {
                *(is_to ? &s->to50 : &s->from50) = sm.p50;
            } else if (is_t) {
                s->has_t = 1;
                s->count = sm.count > UINT32_MAX ? UINT32_MAX : (uint32_t)sm.count;
                s->t50 = sm.p50 * 1e-9;
                s->t5 = sm.p5 * 1e-9;
                s->t95 = sm.p95 * 1e-9;
            } else {
                s->has_bw = 1;
                s->bw50 = sm.p50;
                s->bw_max = sm.max;
            }
        }
        if (l->no_sizes && compact_gpu(l, g))
            return -1;
    }
    if (!l->no_sizes)
        fit_sizes(l, first);
    return 0;
}

/* ---- the fit: what each link is fitted on ----------------------------- */

static int cmp_size(const void *a, const void *b)
{
    double x = ((const lk_size *)a)->bytes, y = ((const lk_size *)b)->bytes;
    return (x > y) - (x < y);
}

/* Nominal bandwidth of the path (bytes/s, one direction; bidir doubles). */
static double lk_nominal(const lk *x, char *basis, size_t blen)
{
    basis[0] = '\0';
    int bi = same_str(x->dir, "bidir") ? 2 : 1;
    const lk_end *a = &x->by, *p = &x->dst;
    switch (x->kind) {
    case K_PCIE: {
        double v = gc_pcie_nominal_bps(a->pcie_gen, a->pcie_width);
        if (v > 0 && a->pcie_gen >= 0 && a->pcie_gen < 10 && a->pcie_width >= 0 && a->pcie_width < 100 &&
            blen >= 40) {   /* "PCIe gen%d x%d%s" without printf: once a host link, every link */
            char *o = basis + 8;
            memcpy(basis, "PCIe gen", 8);
            *o++ = (char)('0' + a->pcie_gen);
            *o++ = ' ', *o++ = 'x';
            if (a->pcie_width >= 10)
                *o++ = (char)('0' + a->pcie_width / 10);
            *o++ = (char)('0' + a->pcie_width % 10);
            strcpy(o, bi > 1 ? ", both directions" : "");
        } else if (v > 0)
            snprintf(basis, blen, "PCIe gen%d x%d%s", a->pcie_gen, a->pcie_width,
                     bi > 1 ? ", both directions" : "");
        return v * bi;
    }
    case K_NVLINK: {
        int links = a->nvlink_links;
        if (p->nvlink_links > 0 && p->nvlink_links < links)
            links = p->nvlink_links;
        if (links <= 0 || a->nvlink_bps <= 0)
            return 0;
        snprintf(basis, blen, "%d NVLinks x %.4g GB/s%s", links, a->nvlink_bps / 1e9,
                 bi > 1 ? ", both directions" : "");
        return links * a->nvlink_bps * bi;
    }
    case K_P2P_PCIE:
    case K_STAGED: {
        double v = gc_pcie_nominal_bps(a->pcie_gen, a->pcie_width);
        double w = gc_pcie_nominal_bps(p->pcie_gen, p->pcie_width);
        if (w > 0 && (v <= 0 || w < v))
            v = w;
        if (v > 0)
            snprintf(basis, blen, "PCIe of the slower end%s", bi > 1 ? ", both directions" : "");
        return v * bi;
    }
    default:
        return 0;   /* the network's nominal rate is not known to the census */
    }
}

/* All GPUs of the node at once: this GPU's share of what it gets alone,
 * at the largest size both links measured. Links of one GPU are adjacent. */
static double lk_concurrent_share(const gc_links *l, const lk *x, const lk_size *s, size_t ns)
{
    double share = NAN;
    /* only this GPU's links (adjacent): a scan of all links for each was
     * quadratic in the census (491,520 links at 16,384 GPUs) */
    size_t first = (size_t)(x - l->v), last = first + 1;
    while (first > 0 && l->v[first - 1].by.rank == x->by.rank &&
           same_str(l->v[first - 1].by.node, x->by.node))
        first--;
    while (last < l->n && l->v[last].by.rank == x->by.rank && same_str(l->v[last].by.node, x->by.node))
        last++;
    for (size_t i = first; i < last; i++) {
        const lk *y = &l->v[i];
        if (y->concurrent || !same_str(y->bench, x->bench) || !same_str(y->dir, x->dir) ||
            !same_str(y->memory, x->memory) || !same_str(y->engine, x->engine) ||
            y->by.rank != x->by.rank || !same_str(y->by.node, x->by.node))
            continue;
        double best = 0, iso = 0;
        for (size_t a = 0; a < y->nsizes; a++)
            for (size_t c = 0; c < ns; c++)
                if (y->sizes[a].bytes == s[c].bytes && y->sizes[a].has_t && s[c].bytes > best) {
                    best = s[c].bytes;
                    iso = y->sizes[a].t50 / s[c].t50;
                }
        if (best > 0)
            share = iso;
    }
    return share;
}

/* The sizes a link's model is fitted on, ascending. */
static size_t lk_fit_sizes_of(const lk *x, lk_size *s)
{
    size_t ns = 0;
    for (size_t i = 0; i < x->nsizes; i++)
        if (x->sizes[i].has_t && x->sizes[i].t50 > 0 && x->sizes[i].bytes > 0)
            s[ns++] = x->sizes[i];
    qsort(s, ns, sizeof *s, cmp_size);
    return ns;
}

/* The fit's filter: a size flagged over the nominal by the measurement,
 * or with a sample faster than the path's nominal x GC_OVER_NOMINAL, is
 * no transfer the link can do (a timing fault): it stays out of the fit. */
static int over_nominal(int flagged, int has_bw, double bw_max, double nom)
{
    return flagged || (nom > 0 && has_bw && bw_max > GC_OVER_NOMINAL * nom);
}

/* bytes moved per copy of a size: both directions' for bidir */
static double bytes_mult(const lk *x)
{
    return same_str(x->dir, "bidir") ? 2 : 1;
}

/* ---- full links: resolved and fitted once (gc_links_resolve) ----------- */

/* The far ends from every rank's GPU: net endpoints by rank, peers on the
 * same node by (node, local index). */
static void resolve_ends(gc_links *l)
{
    for (size_t i = 0; i < l->n; i++) {
        lk *x = &l->v[i];
        if (x->kind != K_NET || x->peer_rank < 0 || (size_t)x->peer_rank >= l->nranks)
            continue;
        lk_end e = l->ranks[x->peer_rank];
        e.host = 0;
        x->dst = e;
    }
    /* by_end again: a GPU added names its rank's node and index anew */
    size_t *ix = l->by_end;
    for (size_t r = 0; r < l->nranks; r++)
        ix[r] = r;
    qsort_r(ix, l->nranks, sizeof *ix, lk_by_end, l->ranks);
    for (size_t i = 0; i < l->n; i++) {
        lk *x = &l->v[i];
        if (x->kind != K_NVLINK && x->kind != K_P2P_PCIE && x->kind != K_STAGED)
            continue;
        size_t lo = 0, hi = l->nranks;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const lk_end *e = &l->ranks[ix[mid]];
            int c = strcmp(e->node, x->dst.node);
            if (c < 0 || (c == 0 && e->gpu_index < x->peer_gpu))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < l->nranks && !strcmp(l->ranks[ix[lo]].node, x->dst.node) &&
            l->ranks[ix[lo]].gpu_index == x->peer_gpu) {
            x->dst = l->ranks[ix[lo]];
            x->dst.host = 0;
        }
    }
}

/* x's nominal, the filter's decision on each size, the model on the rest,
 * the concurrent share where the model has a slope. */
static void fit_full(const gc_links *l, lk *x)
{
    x->nominal_bps = lk_nominal(x, x->basis, sizeof x->basis);
    for (size_t i = 0; i < x->nsizes; i++) {
        lk_size *z = &x->sizes[i];
        z->over = (uint8_t)over_nominal((z->flags & GC_FLAG_OVER_NOMINAL) != 0, z->has_bw,
                                        z->bw_max, x->nominal_bps);
    }
    lk_size s[LK_MAX_SIZES];
    size_t ns = lk_fit_sizes_of(x, s);
    double mult = bytes_mult(x);
    double nb[LK_MAX_SIZES], nt[LK_MAX_SIZES];
    size_t nf = 0;
    for (size_t i = 0; i < ns; i++) {
        if (s[i].over)
            continue;
        nb[nf] = s[i].bytes * mult;
        nt[nf++] = s[i].t50;
    }
    x->ok = gc_xfer_fit(nb, nt, nf, &x->model) == 0;
    x->share = x->concurrent && x->ok && x->model.beta_bps > 0 ? lk_concurrent_share(l, x, s, ns)
                                                                 : NAN;
    x->top_bps = ns && s[ns - 1].has_bw ? s[ns - 1].bw50 : NAN;
    x->again_bps = ns && s[ns - 1].has_rbw ? s[ns - 1].rbw50 : NAN;
    x->fitted = 1;
}

void gc_links_resolve(gc_links *l)
{
    if (!l || l->no_sizes)
        return;   /* compact links are fitted as their ends come */
    resolve_ends(l);
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].fitted)
            fit_full(l, &l->v[i]);
}

/* What a link is, as the writers and the detector read it. m NULL: no
 * model; nom 0: no nominal. */
static void view_of(const lk *x, size_t index, const gc_xfer_model *m, double nom,
                    const char *basis, double top, double again, double share, gc_link_view *v)
{
    int slope = m && m->beta_bps > 0;
    *v = (gc_link_view){
        index, .kind = lk_kind_names[x->kind], .benchmark = x->bench,
        .direction = x->dir, .memory = x->memory,
        .engine = x->engine[0] ? x->engine : NULL,
        .peer_access = x->peer_access[0] ? x->peer_access : NULL,
        .concurrent = x->concurrent,
        .alpha_s = m ? m->alpha_s : NAN, .beta_bps = slope ? m->beta_bps : NAN,
        .nominal_bps = nom > 0 ? nom : NAN,
        .lambda = slope && nom > 0 ? m->beta_bps / nom : NAN,
        .top_bps = top,
        .again_bps = again,
        .model = m, .nominal_basis = basis[0] ? basis : NULL,
        .share = x->concurrent && slope ? share : NAN,
        .has_chase = x->chase.has_ns, .chase_footprint = x->chase.footprint,
        .chase_count = x->chase.count, .chase_p5_ns = x->chase.p5_ns,
        .chase_p50_ns = x->chase.p50_ns, .chase_p95_ns = x->chase.p95_ns,
        .chase_p50_cycles = x->chase.has_cycles ? x->chase.p50_cycles : NAN,
    };
    lk_view_end(&x->src, &v->src);
    lk_view_end(&x->dst, &v->dst);
    lk_view_end(&x->by, &v->by);
}

int gc_links_view(const gc_links *l, size_t i, gc_link_view *v)
{
    if (!l || l->no_sizes || i >= l->n)
        return 0;
    const lk *x = &l->v[i];
    view_of(x, i, x->ok ? &x->model : NULL, x->nominal_bps, x->basis, x->top_bps, x->again_bps,
            x->share, v);
    return 1;
}

size_t gc_links_sizes(const gc_links *l, size_t i, gc_link_size_view *out)
{
    if (!l || l->no_sizes || i >= l->n)
        return 0;
    const lk *x = &l->v[i];
    const gc_xfer_model *m = x->ok ? &x->model : NULL;
    double mult = bytes_mult(x);
    lk_size s[LK_MAX_SIZES];
    size_t ns = lk_fit_sizes_of(x, s);
    for (size_t k = 0; k < ns; k++) {
        double pr = m ? gc_xfer_predict(m, s[k].bytes * mult) : NAN;
        out[k] = (gc_link_size_view){
            .size_bytes = s[k].bytes, .item = s[k].item, .count = s[k].count,
            .time_p5_s = s[k].t5, .time_p50_s = s[k].t50, .time_p95_s = s[k].t95,
            .bandwidth_p50_bps = s[k].has_bw ? s[k].bw50 : NAN,
            .model_time_s = pr, .rel_residual = m ? (pr - s[k].t50) / s[k].t50 : NAN,
            .budget_hit = (s[k].flags & GC_FLAG_BUDGET_HIT) != 0, .over_nominal = s[k].over,
            .to_peer_bps = s[k].to50 > 0 ? s[k].to50 : NAN,
            .from_peer_bps = s[k].from50 > 0 ? s[k].from50 : NAN,
        };
    }
    return ns;
}

/* ---- compact links (gc_links_no_sizes) ---------------------------------- */

static long class_id(gc_links *l, const lk *x)
{
    lk_class k;
    memset(&k, 0, sizeof k);
    memcpy(k.bench, x->bench, sizeof k.bench);
    k.kind = x->kind;
    memcpy(k.dir, x->dir, sizeof k.dir);
    memcpy(k.memory, x->memory, sizeof k.memory);
    memcpy(k.engine, x->engine, sizeof k.engine);
    memcpy(k.peer_access, x->peer_access, sizeof k.peer_access);
    k.concurrent = x->concurrent;
    for (size_t i = 0; i < l->ncls; i++)
        if (memcmp(&l->cls[i], &k, sizeof k) == 0)
            return (long)i;
    if (l->ncls >= UINT16_MAX || gc_grow((void **)&l->cls, &l->capcls, l->ncls + 1, sizeof k))
        return -1;
    l->cls[l->ncls] = k;
    return (long)l->ncls++;
}

/* The link as the full form has it, without sizes (ends resolved as
 * resolve_ends resolves a full link's). */
static void lk_view_of(const gc_links *l, const lkc *c, lk *x)
{
    memset(x, 0, sizeof *x);
    const lk_class *k = &l->cls[c->cls];
    memcpy(x->bench, k->bench, sizeof x->bench);
    x->kind = k->kind;
    memcpy(x->dir, k->dir, sizeof x->dir);
    memcpy(x->memory, k->memory, sizeof x->memory);
    memcpy(x->engine, k->engine, sizeof x->engine);
    memcpy(x->peer_access, k->peer_access, sizeof x->peer_access);
    x->concurrent = k->concurrent;
    x->by = l->ends[c->by];
    x->src = x->by;
    switch (c->dst_kind) {
    case DST_HOST: {
        lk_end host = x->by;
        host.host = 1;
        host.uuid[0] = '\0';
        int d2h = same_str(x->dir, "d2h");
        x->src = d2h ? x->by : host;
        x->dst = d2h ? host : x->by;
        break;
    }
    case DST_RANK:
        x->dst = l->ranks[c->peer];
        x->dst.host = 0;
        break;
    case DST_P2P_UNRESOLVED:
        snprintf(x->dst.node, sizeof x->dst.node, "%s", x->by.node);
        x->dst.gpu_index = c->peer;
        x->dst.rank = x->dst.numa_node = -1;
        break;
    default:   /* DST_NET */
        if (!c->net_node) {
            x->dst = l->ranks[c->peer];
            x->dst.host = 0;
        } else {
            snprintf(x->dst.node, sizeof x->dst.node, "%s", c->net_node);
            x->dst.gpu_index = x->dst.numa_node = -1;
            x->dst.rank = c->peer;
        }
    }
    /* the trained link as the points saw it (key_of), for the nominal */
    x->by.pcie_gen = c->pcie_gen;
    x->by.pcie_width = c->pcie_width;
    x->chase = c->chase ? *c->chase : (lk_chase){ 0 };
}

/* Fits c's model on its inputs, both ends known. */
static void lk_finalize(gc_links *l, lkc *c)
{
    lk x;
    lk_view_of(l, c, &x);
    char basis[96];
    double nom = lk_nominal(&x, basis, sizeof basis);
    double nb[LK_MAX_SIZES], nt[LK_MAX_SIZES];
    size_t nf = 0;
    for (size_t i = 0; i < c->nfit; i++) {
        const lk_fitin *f = &c->fit[i];
        if (over_nominal(f->flagged, f->has_bw, f->bw_max, nom))
            continue;
        nb[nf] = f->bytes;
        nt[nf++] = f->t50;
    }
    gc_xfer_model m;
    c->ok = gc_xfer_fit(nb, nt, nf, &m) == 0;
    if (c->ok) {
        c->alpha_s = m.alpha_s;
        c->beta_bps = m.beta_bps;
        c->r2 = m.r2;
        c->max_rel = m.max_rel_residual;
        c->size_min = m.size_min;
        c->size_max = m.size_max;
        c->nseg = (uint8_t)m.nseg;
        if (m.nseg > 1 && (c->seg = malloc(m.nseg * sizeof *c->seg)))
            memcpy(c->seg, m.seg, m.nseg * sizeof *c->seg);
        else if (m.nseg > 1)
            c->ok = 0;   /* out of memory: written as no model */
    }
    free(c->fit);
    c->fit = NULL;
    c->nfit = 0;
    c->final = 1;
}

/* The rank of the GPU (node, index) of the roster, -1: none. */
static long rank_at(const gc_links *l, const char *node, int index)
{
    size_t lo = 0, hi = l->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const lk_end *e = &l->ranks[l->by_end[mid]];
        int c = strcmp(e->node, node);
        if (c < 0 || (c == 0 && e->gpu_index < index))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < l->nranks && !strcmp(l->ranks[l->by_end[lo]].node, node) &&
        l->ranks[l->by_end[lo]].gpu_index == index)
        return (long)l->by_end[lo];
    return -1;
}

/* The staged links of g (l->v) made compact: each fitted now, or when
 * its peer's GPU is added (its end gives the nominal). */
static int compact_gpu(gc_links *l, const gc_gpu *g)
{
    int rc = 0;
    if (gc_grow((void **)&l->ends, &l->capends, l->nends + 1, sizeof *l->ends) ||
        gc_grow((void **)&l->end_first, &l->capfirst, l->nends + 1, sizeof *l->end_first))
        rc = -1;
    uint32_t by = (uint32_t)l->nends;
    if (!rc) {
        l->end_first[l->nends] = l->nc;
        end_of(g, &l->ends[l->nends++]);
    }
    int r = g->info.rank;
    int in_roster = r >= 0 && (size_t)r < l->nranks;
    if (in_roster && !rc) {
        l->known[r] = 1;
        l->end_of_rank[r] = (int32_t)by;
    }
    for (size_t i = 0; i < l->n && !rc; i++) {
        lk *x = &l->v[i];
        lk_size s[LK_MAX_SIZES];
        size_t ns = lk_fit_sizes_of(x, s);
        long cls = class_id(l, x);
        if (cls < 0 || gc_grow((void **)&l->c, &l->capc, l->nc + 1, sizeof *l->c)) {
            rc = -1;
            break;
        }
        lkc *c = &l->c[l->nc];
        memset(c, 0, sizeof *c);
        c->cls = (uint16_t)cls;
        c->by = by;
        c->pend_next = -1;
        c->pcie_gen = (int16_t)x->by.pcie_gen;
        c->pcie_width = (int16_t)x->by.pcie_width;
        c->top_bps = ns && s[ns - 1].has_bw ? s[ns - 1].bw50 : NAN;
        c->again_bps = ns && s[ns - 1].has_rbw ? s[ns - 1].rbw50 : NAN;
        c->share = x->concurrent ? lk_concurrent_share(l, x, s, ns) : NAN;
        if (x->chase.has_ns || x->chase.has_cycles) {
            if (!(c->chase = malloc(sizeof *c->chase)))
                rc = -1;
            else
                *c->chase = x->chase;
        }
        long peer = -1;
        if (x->kind == K_PCIE) {
            c->dst_kind = DST_HOST;
        } else if (x->kind == K_NET) {
            c->dst_kind = DST_NET;
            c->peer = x->peer_rank;
            if ((x->peer_rank < 0 || (size_t)x->peer_rank >= l->nranks) &&
                !(c->net_node = strdup(x->dst.node)))
                rc = -1;
        } else if ((peer = rank_at(l, x->dst.node, x->peer_gpu)) >= 0) {
            c->dst_kind = DST_RANK;
            c->peer = (int32_t)peer;
        } else {
            c->dst_kind = DST_P2P_UNRESOLVED;
            c->peer = x->peer_gpu;
        }
        double mult = bytes_mult(x);
        if (ns && !(c->fit = malloc(ns * sizeof *c->fit)))
            rc = -1;
        for (size_t k = 0; c->fit && k < ns; k++)
            c->fit[k] = (lk_fitin){ s[k].bytes * mult, s[k].t50, s[k].bw_max,
                                    (s[k].flags & GC_FLAG_OVER_NOMINAL) != 0, s[k].has_bw };
        c->nfit = (uint16_t)(c->fit ? ns : 0);
        l->nc++;
        if (c->dst_kind == DST_RANK && !l->known[peer]) {
            c->pend_next = l->pend[peer];
            l->pend[peer] = (int32_t)(l->nc - 1);
        } else {
            lk_finalize(l, c);
        }
    }
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].sizes);
    l->n = 0;
    /* links that waited for this GPU's end */
    for (int32_t k = in_roster ? l->pend[r] : -1; k >= 0; k = l->c[k].pend_next)
        lk_finalize(l, &l->c[k]);
    if (in_roster)
        l->pend[r] = -1;
    return rc;
}

static int lk_by_end(const void *a, const void *b, void *ctx)
{
    const lk_end *r = ctx;
    const lk_end *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];
    int c = strcmp(x->node, y->node);
    return c ? c : (x->gpu_index > y->gpu_index) - (x->gpu_index < y->gpu_index);
}

/* The links of end e: a GPU's links lie together in c, in the order they came. */
static size_t end_last(const gc_links *l, size_t e)
{
    return e + 1 < l->nends ? l->end_first[e + 1] : l->nc;
}

/* Every link of end e final, and a network link's peer added (its end is
 * then the peer's GPU as it came, not as the roster names it). */
static int end_ready(const gc_links *l, size_t e)
{
    for (size_t i = l->end_first[e]; i < end_last(l, e); i++) {
        const lkc *c = &l->c[i];
        if (!c->final || (c->dst_kind == DST_NET && !c->net_node && c->peer >= 0 &&
                          (size_t)c->peer < l->nranks && !l->known[c->peer]))
            return 0;
    }
    return 1;
}

/* c's view (its model as fitted, lk_finalize) to the observer, with its
 * index in the catalogue's order. */
static void tell_c(gc_links *l, const lkc *c, size_t index)
{
    if (!l->obs)
        return;
    lk x;
    lk_view_of(l, c, &x);
    if ((!x.src.host && x.src.gpu_index < 0) || (!x.dst.host && x.dst.gpu_index < 0)) {
        /* a GPU end no shard names (a net peer outside the directory, no
         * roster): not written, counted (gc_links_dropped) */
        if (!l->dropped++)
            snprintf(l->dropped_first, sizeof l->dropped_first, "%.40s %.20s: %.40s/gpu%d -> %.40s (rank %d)",
                     x.bench, x.dir, x.src.node, x.src.gpu_index, x.dst.node, x.dst.rank);
        return;
    }
    l->emitted++;
    char basis[96];
    double nom = lk_nominal(&x, basis, sizeof basis);
    gc_xfer_model m;
    memset(&m, 0, sizeof m);
    m.valid = c->ok;
    m.alpha_s = c->alpha_s;
    m.beta_bps = c->beta_bps;
    m.r2 = c->r2;
    m.max_rel_residual = c->max_rel;
    m.size_min = c->size_min;
    m.size_max = c->size_max;
    m.nseg = c->nseg;
    if (c->nseg > 1)
        memcpy(m.seg, c->seg, c->nseg * sizeof *c->seg);
    gc_link_view v;
    view_of(&x, index, c->ok ? &m : NULL, nom, basis, c->top_bps, c->again_bps, c->share, &v);
    l->obs(l->obs_ctx, &v);
}

static void tell_end(gc_links *l, size_t e)
{
    for (size_t i = l->end_first[e]; i < end_last(l, e); i++)
        tell_c(l, &l->c[i], l->emitted);
}

size_t gc_links_dropped(const gc_links *l, const char **first)
{
    if (first)
        *first = l && l->dropped ? l->dropped_first : "";
    return l ? l->dropped : 0;
}

size_t gc_links_emit(gc_links *l, const size_t *at, size_t n, int final)
{
    if (!l || l->emit_final)
        return l ? l->emitted : 0;
    if (final) {
        /* links whose peer never came: its end as the roster names it */
        for (size_t r = 0; r < l->nranks; r++) {
            for (int32_t k = l->pend[r]; k >= 0; k = l->c[k].pend_next)
                lk_finalize(l, &l->c[k]);
            l->pend[r] = -1;
        }
    }
    size_t stop = at ? n : l->nends;
    for (; l->emit_next < stop; l->emit_next++) {
        long e = at ? (at[l->emit_next] < l->nranks ? l->end_of_rank[at[l->emit_next]] : -1)
                    : (long)l->emit_next;
        if (e < 0 && final)
            continue;   /* a rank never added: no links */
        if (e < 0 || (!final && !end_ready(l, (size_t)e)))
            break;
        tell_end(l, (size_t)e);
    }
    if (final) {
        /* GPUs outside the roster (no position), in the order they came */
        for (size_t e = 0; at && e < l->nends; e++) {
            int r = l->ends[e].rank;
            if (r < 0 || (size_t)r >= l->nranks || l->end_of_rank[r] != (int32_t)e)
                tell_end(l, e);
        }
        l->emit_final = 1;
    }
    return l->emitted;
}

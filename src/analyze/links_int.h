/* What links.c (records, compact links, models) and links_json.c (their
 * JSON) share. Not for other modules: links.h is the interface. */
#ifndef GC_LINKS_INT_H
#define GC_LINKS_INT_H

#include "analyze/links.h"
#include "analyze/model_xfer.h"

#define LK_MAX_SIZES 64

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
    gc_link_observer obs;    /* told of each link as it is written */
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
    int emit_final;          /* gc_links_emit(final) has run */
};

/* Shared by links.c (where each is said) and links_json.c. */
int lk_by_end(const void *a, const void *b, void *ctx);   /* ranks by (node, local index) */
void lk_view_end(const lk_end *e, gc_link_view_end *v);
double lk_nominal(const lk *x, char *basis, size_t blen);  /* bytes/s one way, 0: not known */
double lk_concurrent_share(const gc_links *l, const lk *x, const lk_size *s, size_t ns);
size_t lk_fit_sizes_of(const lk *x, lk_size *s);          /* s: LK_MAX_SIZES, ascending */
void lk_view_of(const gc_links *l, const lkc *c, lk *x);
void lk_finalize(gc_links *l, lkc *c);
/* c told to the observer with its index in the written order (links_json.c). */
void lk_tell_c(const gc_links *l, const lkc *c, size_t index);

#endif

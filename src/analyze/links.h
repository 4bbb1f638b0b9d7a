/* Link records of a census: every data path a transfer benchmark measured
 * (host<->GPU over PCIe, GPU<->GPU over NVLink, PCIe or staged through the
 * host, GPU<->GPU between nodes over the network), with the per-size
 * distributions summarised from the points, the fitted transfer model
 * (model_xfer.h), the nominal bandwidth and lambda = beta / nominal.
 *
 * Each link is fitted once, here: full links (a node file's, with their
 * size tables) by gc_links_resolve once their GPUs are added; compact
 * links (catalogue.json's, gc_links_no_sizes) as soon as both their ends
 * are known. The writers and the detector read the views below and fit
 * nothing. Built on rank 0 one node at a time: only the per-size
 * summaries are kept, never histograms. Endpoints on other nodes (net
 * items) are resolved from every rank's GPU. */
#ifndef GC_LINKS_H
#define GC_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/model_xfer.h"
#include "census/results.h"
#include "census/shard.h"

typedef struct gc_links gc_links;

#define GC_LINK_MAX_SIZES 64   /* sizes kept per link */

gc_links *gc_links_new(const gc_roster_entry *roster, size_t nranks);
/* GPUs (a node's, or one at a time: compact links wait for their peer's
 * GPU; full links resolve in gc_links_resolve). */
int gc_links_add_node(gc_links *l, const gc_gpu *gpus, size_t n);
/* Compact links, without their per-size tables (catalogue.json: a node
 * file holds each link's sizes, among the links its GPUs measured);
 * bandwidth_top_p50_bps stays in both. */
void gc_links_no_sizes(gc_links *l);

/* What a link is, as the catalogue writes it (full links: gc_links_view;
 * compact ones: told to the observer by gc_links_emit). NULL strings and
 * NAN numbers are JSON nulls. */
typedef struct gc_link_view_end {
    int is_gpu;
    const char *node;
    int gpu_index;                 /* -1: null */
    const char *uuid;
    int numa_node;                 /* -1: null */
    int rank;                      /* its rank (a host end: the GPU's next to it), -1: none */
} gc_link_view_end;
typedef struct gc_link_view {
    size_t index;                  /* in the links array */
    const char *kind, *benchmark, *direction, *memory, *engine, *peer_access;
    int concurrent;
    gc_link_view_end src, dst;
    double alpha_s, beta_bps, nominal_bps, lambda;
    double top_bps;                /* bandwidth_p50_bps at the largest size */
    double again_bps;              /* remeasured_bandwidth_bps (confirm.c), NAN: not measured again */
    /* the rest of what catalogue.json keeps of a link (catalogue_json.c) */
    gc_link_view_end by;           /* measured_on: node, gpu_index, rank */
    const gc_xfer_model *model;    /* NULL: no fit */
    const char *nominal_basis;     /* NULL: none */
    double share;
    int has_chase;                 /* latency_chase: */
    double chase_footprint, chase_count, chase_p5_ns, chase_p50_ns, chase_p95_ns, chase_p50_cycles;
} gc_link_view;
/* One size of a full link's table, ascending by size (gc_links_sizes). */
typedef struct gc_link_size_view {
    double size_bytes;
    uint32_t item, count;          /* the item measured, its samples */
    double time_p5_s, time_p50_s, time_p95_s;
    double bandwidth_p50_bps;      /* NAN: not measured */
    double model_time_s, rel_residual;   /* the model's time and (model - p50) / p50, NAN: no model */
    int budget_hit;                /* the point ran out of its time budget */
    int over_nominal;              /* the fit's filter left it out (faster than the nominal) */
    double to_peer_bps, from_peer_bps;   /* p2p both ways: each direction's p50, NAN: none */
} gc_link_size_view;

/* Full links (not gc_links_no_sizes), every GPU added: each link's far
 * end found among every rank's GPU (net peers by rank, p2p peers by node
 * and local index), its nominal, the sizes over it left out and its model
 * fitted on the rest; a link fitted once (a later call fits only links
 * added since). NULL or compact links: nothing to do. */
void gc_links_resolve(gc_links *l);
/* Full link i as gc_links_resolve left it (its model points into l, valid
 * until l changes); 0: no such full link (i past the last, compact links). */
int gc_links_view(const gc_links *l, size_t i, gc_link_view *v);
/* Full link i's size table into s (GC_LINK_MAX_SIZES entries): the sizes
 * with times, ascending, each with the model's prediction; the count. */
size_t gc_links_sizes(const gc_links *l, size_t i, gc_link_size_view *s);

/* Told of each compact link (gc_links_emit). */
typedef void (*gc_link_observer)(void *ctx, const gc_link_view *v);
void gc_links_observe(gc_links *l, gc_link_observer fn, void *ctx);
/* Compact links (gc_links_no_sizes): tells the observer of each link
 * (catalogue.json writes its own compact table from the views), in the
 * catalogue's order: by the GPU that measured
 * it, GPUs in the order at[0..n) names them (roster indices; at NULL: the
 * order they were added in), a GPU's links in the order they came. Each
 * call goes on from where the last stopped, up to the first GPU not yet
 * added or with a link not yet final (a peer whose GPU has not been
 * added), so that rank 0 formats links as their records arrive. final:
 * every link (a peer that never came: as the roster names it), then the
 * links of GPUs outside the roster; later calls tell nothing. Returns
 * the number of links told so far. */
size_t gc_links_emit(gc_links *l, const size_t *at, size_t n, int final);
/* Links gc_links_emit did not tell: a GPU end no shard names (a network
 * peer outside the roster, or outside the directory of a merge without
 * one), which the catalogue cannot name; *first (may be NULL): the first
 * of them, "" none. A node file (gc_links_json) keeps them: the run's
 * network checks read a node's links to other nodes' GPUs from it. */
size_t gc_links_dropped(const gc_links *l, const char **first);
/* Every rank's GPU end as the links resolve them (node, index, UUID, NUMA
 * node; a rank whose GPU never came: its roster's node and index). */
size_t gc_links_nranks(const gc_links *l);
void gc_links_rank_end(const gc_links *l, size_t r, gc_link_view_end *v);
size_t gc_links_count(const gc_links *l);
void gc_links_free(gc_links *l);

#endif

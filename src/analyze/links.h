/* Link records of a census: every data path a transfer benchmark measured
 * (host<->GPU over PCIe, GPU<->GPU over NVLink, PCIe or staged through the
 * host, GPU<->GPU between nodes over the network), with the per-size
 * distributions summarised from the points, the fitted transfer model
 * (model_xfer.h), the nominal bandwidth and lambda = beta / nominal.
 *
 * Built on rank 0 while the catalogue is written, one node at a time: only
 * the per-size summaries are kept, never histograms. Endpoints on other
 * nodes (net items) are resolved at the end from every rank's GPU. */
#ifndef GC_LINKS_H
#define GC_LINKS_H

#include <stddef.h>

#include "util/jsonw.h"
#include "analyze/model_xfer.h"
#include "census/results.h"
#include "census/shard.h"

typedef struct gc_links gc_links;

gc_links *gc_links_new(const gc_roster_entry *roster, size_t nranks);
/* GPUs (a node's, or one at a time: pairs resolve when written). */
int gc_links_add_node(gc_links *l, const gc_gpu *gpus, size_t n);
/* Writes the "links" array (the value, after its key) of full links
 * (a node file's, with their size tables). */
void gc_links_write(gc_links *l, gc_jw *w);
/* Links written without their per-size tables (catalogue.json: a node
 * file holds each link's sizes, among the links its GPUs measured);
 * bandwidth_top_p50_bps stays in both. */
void gc_links_no_sizes(gc_links *l);

/* What the JSON says of a link, to an observer called as each link is
 * written (the verdicts, verdicts.c). NULL strings and NAN numbers are
 * JSON nulls. */
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
/* Every rank's GPU end as the links resolve them (node, index, UUID, NUMA
 * node; a rank whose GPU never came: its roster's node and index). */
size_t gc_links_nranks(const gc_links *l);
void gc_links_rank_end(const gc_links *l, size_t r, gc_link_view_end *v);
size_t gc_links_count(const gc_links *l);
void gc_links_free(gc_links *l);

#endif

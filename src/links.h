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

#include "jsonw.h"
#include "results.h"
#include "shard.h"

typedef struct gc_links gc_links;

gc_links *gc_links_new(const gc_roster_entry *roster, size_t nranks);
/* The GPUs of one node (all of them, so that pairs resolve). */
int gc_links_add_node(gc_links *l, const gc_gpu *gpus, size_t n);
/* Writes the "links" array (the value, after its key). */
void gc_links_write(gc_links *l, gc_jw *w);
size_t gc_links_count(const gc_links *l);
void gc_links_free(gc_links *l);

#endif

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

#include "results.h"
#include "shard.h"

typedef struct gc_links gc_links;

gc_links *gc_links_new(const gc_roster_entry *roster, size_t nranks);
/* The GPUs of one node (all of them, so that pairs resolve). */
int gc_links_add_node(gc_links *l, const gc_gpu *gpus, size_t n);
/* The "links" array as JSON text (malloc'd; NULL: out of memory). Lines
 * after the first are indented by `indent` spaces. */
char *gc_links_json(gc_links *l, int indent);
size_t gc_links_count(const gc_links *l);
void gc_links_free(gc_links *l);

#endif

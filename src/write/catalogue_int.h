/* Private to the catalogue writer (catalogue.c: the files and the
 * pipeline; catalogue_json.c: the JSON of one GPU and of a file's head). */
#ifndef GC_CATALOGUE_INT_H
#define GC_CATALOGUE_INT_H

#include <stdio.h>

#include "analyze/analyze.h"
#include "write/catalogue.h"
#include "util/err.h"
#include "util/jsonw.h"
#include "analyze/links.h"
#include "write/model_json.h"
#include "census/results.h"
#include "write/verdicts.h"

/* One GPU object; with_hist: its points, each with its summary, conditions
 * and histogram (node files); otherwise the number of its points only
 * (catalogue.json, schema 2). Nothing of a point is written when its
 * histogram cannot be encoded. */
int gc_cat_gpu_json(gc_jw *w, const gc_analysed *a, int with_hist, gc_err *err);
/* The opening of both kinds of file: the object, its schema version, kind
 * and run metadata. */
void gc_cat_doc_head(gc_jw *w, FILE *f, char *buf, const char *kind, const gc_run_meta *run);

/* The top-level "parameter_units" (every parameter name the GPUs written
 * since the last call used, with its unit); empties the table. */
void gc_cat_units_json(gc_jw *w);

/* A node as catalogue.json lists it. */
typedef struct gc_cat_node_row {
    const char *name;
    size_t gpus;
    int worst;   /* gc_gpu_status */
} gc_cat_node_row;
/* catalogue.json's table of links (schema 3) as the links come: the
 * observer of links (gc_links_observe), it formats each link's row when
 * gc_links_emit tells it (in the catalogue's order: at[0..n), roster
 * indices of the GPUs in that order, NULL: as added) into a file of its
 * own in dir (unlinked), and tells v's detector of the link. links and v
 * stay the caller's and must outlive it. NULL: err says why. */
typedef struct gc_cat_links gc_cat_links;
gc_cat_links *gc_cat_links_new(const char *dir, gc_links *links, gc_verdicts *v, const size_t *at,
                               size_t n, gc_err *err);
/* The rows of the links whose turn has come (gc_links_emit, not final). */
void gc_cat_links_ready(gc_cat_links *t);
void gc_cat_links_free(gc_cat_links *t);
/* The end of catalogue.json after its GPUs (merge's catalogue.c and rank
 * 0's collect.c): the nodes with their files, the links (every link told
 * now, the rows copied in), the models pool, the verdicts (judged now).
 * t's verdicts stay the caller's, freed once the catalogue is on disk
 * (freeing a census's verdicts and links is not writing it). A failure
 * to read t's rows back is w's error. */
void gc_cat_doc_tail(gc_jw *w, const gc_cat_node_row *rows, size_t nnodes, gc_cat_links *t,
                     const gc_models_pool *pool);

/* out_dir/nodes/<node>.json from n analysed GPUs (their points, and the
 * links they measured with their size tables); buf: GC_JW_BUF bytes;
 * place: NULL replaces whatever is there, else a leader's (catalogue.h;
 * its keep asked with kctx). */
int gc_cat_write_node_file(const char *out_dir, const gc_run_meta *run,
                           const gc_roster_entry *roster, size_t nranks, const char *node,
                           const gc_analysed *gpus, size_t n, char *buf,
                           const gc_node_place *place, void *kctx, gc_err *err);
/* Node names in order of first appearance in the roster (*names: free()
 * the array, the names are the roster's). */
size_t gc_cat_node_list(const gc_roster_entry *roster, size_t nranks, const char ***names);

#endif

/* Private to the catalogue writer (catalogue.c: the files and the
 * pipeline; catalogue_json.c: the JSON of one GPU and of a file's head). */
#ifndef GC_CATALOGUE_INT_H
#define GC_CATALOGUE_INT_H

#include <stdio.h>

#include "analyze.h"
#include "err.h"
#include "jsonw.h"
#include "results.h"

/* One GPU object; with_hist: its points, each with its summary, conditions
 * and histogram (node files); otherwise the number of its points only
 * (catalogue.json, schema 2). Nothing of a point is written when its
 * histogram cannot be encoded. */
int gc_cat_gpu_json(gc_jw *w, const gc_analysed *a, int with_hist, gc_err *err);
/* The opening of both kinds of file: the object, its schema version, kind
 * and run metadata. */
void gc_cat_doc_head(gc_jw *w, FILE *f, char *buf, const char *kind, const gc_run_meta *run);

#endif

/* The points of a compact catalogue (schema 2): each GPU's per-point
 * summaries and each link's size table live in its node's file,
 * nodes/<node>.json next to catalogue.json (the node leaders write them).
 * They are opened only when asked for, one node file held at a time
 * (GPUs come in node order), never by what needs the catalogue alone.
 *
 * A missing or malformed node file is an error naming that file, when
 * (and only when) its points are asked for. */
#ifndef GC_CATREAD_POINTS_H
#define GC_CATREAD_POINTS_H

#include <jansson.h>

#include "util/err.h"

typedef struct gc_catpoints gc_catpoints;

/* For the catalogue at cat_path (a file: its node files are
 * DIR(cat_path)/nodes/). NULL: out of memory. */
gc_catpoints *gc_catpoints_new(const char *cat_path);
/* The catalogue's run (start time, plan hash): a node file of another run
 * beside it is refused, naming the field. Unset: not checked. */
void gc_catpoints_set_run(gc_catpoints *c, const char *start_time, const char *plan_sha256);
/* A node file's bound (a default-plan node of 8 GPUs is a few MB) */
#define GC_NODE_FILE_MAX ((size_t)1 << 30)
void gc_catpoints_free(gc_catpoints *c);
/* The "results" array of GPU node/index (borrowed: valid until the next
 * call), NULL with err set when its node file cannot give it. */
json_t *gc_catpoints_gpu(gc_catpoints *c, const char *node, int index, gc_err *err);
/* The "links" array of a node file (borrowed, as above). */
json_t *gc_catpoints_links(gc_catpoints *c, const char *node, gc_err *err);
/* nodes/<node>.json of this catalogue (for messages). */
void gc_catpoints_path(const gc_catpoints *c, const char *node, char *out, size_t cap);

#endif

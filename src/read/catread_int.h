/* What the catread files share: the reader's state, the decoders (the
 * bottom file, catread.c), schema 3 (catread_v3.c), the GPUs by threads
 * (catread_par.c) and the streaming walk (catread_walk.c), each calling only
 * those listed before it. Private to src/read/. */
#ifndef GC_CATREAD_INT_H
#define GC_CATREAD_INT_H

#include <jansson.h>
#include <stddef.h>

#include "read/catread.h"

struct gc_catpoints;

/* A schema-3 catalogue's tables (catread_v3.c) */
typedef struct cr3_link {
    char *subject;         /* "SUBJECT\0NODE": what a folded verdict of the link takes */
} cr3_link;
typedef struct cr3 {
    json_t *units, *mtables, *lgpus, *lclasses, *lcolumns, *vgroups;
    cr3_link *links;
    size_t nlinks, caplinks;
} cr3;

typedef struct rd {
    const char *file;
    const char *buf;
    size_t len, pos;       /* where the current element starts */
    char where[96];        /* e.g. gpus[3] */
    gc_err *err;
    int major;             /* schema_version's major (0 until read) */
    /* schema 2: where a GPU's points are read (its node file, opened only
     * then); NULL: a GPU without "results" is read without its points */
    struct gc_catpoints *pts;
    char start_time[32];   /* run.start_time: dates the methods of GPUs that recorded none */
    char version[24];      /* schema_version as written */
    cr3 *v3;               /* schema 3: its tables (cr_walk) */
    /* GPUs listed (check's fast path): node\x1findex and UUIDs, so that a
     * verdict row naming a GPU the catalogue does not list is refused */
    struct gc_strtab *gpus_seen;
    /* check's per-GPU table, kept as the GPUs and links go by (check's fast
     * path); NULL: not wanted */
    gc_cat_table *table;
} rd;

typedef struct gbuf {
    gc_det_value *v;
    char *keys;          /* n x KEYLEN */
    size_t n, cap;
    gc_method methods[GC_MAX_METHODS];   /* the GPU's "methods" */
} gbuf;

typedef struct sink {
    int (*gpu)(struct sink *s, rd *r, json_t *o);
    int (*link)(struct sink *s, rd *r, json_t *o, size_t index);
    int (*top)(struct sink *s, rd *r, const char *key, json_t *v);
    /* schema 3: each verdict (as a 2.x object) here, not "verdicts" to top */
    int (*verdict)(struct sink *s, rd *r, json_t *v, size_t index);
    /* schema 3, check without a baseline: GPUs counted, not read; links
     * only named (for their verdicts) */
    int fast3;
    const gc_rules *rules;
    gc_detect *d;
    gc_baseline *base;
    gc_catread_info *info;
    gbuf b;
    int seen_kind, is_baseline;  /* is_baseline: a reference file, gpus/links are plain members */
    int gpus_optional;
    int seen_verdicts;           /* catread_verdicts.c: a non-empty verdicts array */
    json_t *names;               /* catalogue baselines: "node/index" -> [name, uuid, methods] */
    json_t *methods;             /* a reference file's top-level "methods" (first pass) */
    char kind[16], sku[96], plan[64];   /* plan: a catalogue baseline's run.plan_name */
    unsigned seen;               /* top-level members met: bit i = cr_top_names[i] */
} sink;

/* ---- the decoders (catread.c, the bottom: calls no other catread file) ---- */
int cr_line_of(const rd *r, size_t pos);
/* A schema error at r's position: GC_ECORRUPT "FILE:LINE: WHERE: message". */
int cr_bad(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0 when v is "catalogue"; else the error, with a hint naming cmd for a
 * per-node file. */
int cr_kind_catalogue(rd *r, json_t *v, const char *cmd);
size_t cr_skip_ws(const rd *r, size_t p);
/* A GPU object of the catalogue -> g (values in b). all: every parameter
 * and point (baselines); otherwise those the rules judge. Its points are
 * its "results" (schema 1), or its node file's when r->pts (schema 2). */
int cr_gpu_of(rd *r, json_t *o, const gc_rules *rules, int all, gc_det_gpu *g, gbuf *b);
/* the schema's ranges of a GPU object (cr_gpu_of checks them first) */
int cr_gpu_ranges(rd *r, json_t *o);
int cr_link_of(rd *r, json_t *o, size_t index, gc_det_link *l);
/* a GPU object as written, a link as its 2.x object, into r->table (if any) */
void cr_table_gpu(rd *r, json_t *g);
void cr_table_link(rd *r, json_t *l);
/* The detector's sink: a GPU and a link judged, the top-level members
 * checked. */
int cr_det_gpu(sink *s, rd *r, json_t *o);
int cr_det_link(sink *s, rd *r, json_t *o, size_t index);
int cr_cat_top(sink *s, rd *r, const char *key, json_t *v);
/* The file at path loaded (mapped when regular, else read), handed to
 * mem as name and bytes with ctx, unloaded; mem's result. */
typedef int (*cr_mem_fn)(const char *name, const char *buf, size_t len, void *ctx, gc_err *err);
int cr_with_file(const char *path, cr_mem_fn mem, void *ctx, gc_err *err);

/* ---- schema 3 (catread_v3.c) ---- */
/* End (one past) of the JSON value at b[i] (after blanks), 0 if it cannot
 * be followed; strings and nesting only, no parsing. */
size_t cr_skip_value(const char *b, size_t len, size_t i);
/* The tables of the catalogue whose object starts at top, into r->v3. */
int cr3_prescan(rd *r, size_t top);
void cr3_free(cr3 *v);
/* A GPU object in place to 2.x: parameters as an array, models with names. */
int cr3_gpu_expand(rd *r, json_t *g);
/* "links" / "verdicts" from *p (their object) to s; *p past it. */
int cr3_walk_links(rd *r, size_t *p, sink *s);
int cr3_walk_verdicts(rd *r, size_t *p, sink *s);

/* ---- the GPUs by threads (catread_par.c) ---- */
/* The GPUs array from *p (after its '[') by threads, while the scan can
 * follow it. */
int cr_par_gpus(rd *r, size_t *p, sink *s, size_t *n, int *closed);

/* ---- the streaming walk (catread_walk.c) ---- */
/* The catalogue schema's required top-level members (cr_walk marks them). */
extern const char *const cr_top_names[];
/* The whole file, each top-level member, GPU and link to s; s->b (the
 * GPUs' scratch values) freed at the end. */
int cr_walk(rd *r, sink *s);
/* cr_walk of a whole catalogue, then the top-level members the schema
 * requires (the report and other tools rely on them). */
int cr_walk_catalogue(rd *r, sink *s);

#endif

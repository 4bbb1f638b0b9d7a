/* Reading a catalogue back for `gpucensus check`: what detect.c needs of
 * each GPU and link, and baselines (an earlier catalogue, or a per-SKU
 * reference file under configs/baselines/).
 *
 * The catalogue is read as a stream: its top-level members one at a time
 * and each element of "gpus" and "links" on its own (jansson with
 * JSON_DISABLE_EOF_CHECK), so memory stays at the file plus one GPU's
 * tree. Input is untrusted: a syntax error, a missing required member or
 * a member of the wrong type (per results-schema/catalogue.schema.json,
 * for the members read here) is an error "FILE:LINE: PATH: what" and
 * GC_ECORRUPT; an unreadable file GC_EIO. */
#ifndef GC_CATREAD_H
#define GC_CATREAD_H

#include <jansson.h>
#include <stddef.h>

#include "judge/detect.h"
#include "util/err.h"
#include "util/strtab.h"

/* What check's per-GPU table of benchmark families needs of a catalogue
 * (check_table.c), kept as the verdicts are read (gc_catread_verdicts on a
 * schema-3 catalogue: the GPUs and link rows it passes anyway), so that the
 * table costs no second read and a few bytes per GPU and link: per GPU its
 * "node\x1findex" key and the benchmarks it measured (bit b: registry
 * index b; every bit when it records no methods); per link its GPU end's
 * key (the source when both are GPUs; -1: none), its kind and the level of
 * its verdict (-1: none; check_table.c fills it). filled: 1 when it holds
 * the whole catalogue; 0: read it from gc_catread_hist instead. */
enum { GC_TK_OTHER = 0, GC_TK_HOST = 1, GC_TK_NET = 2 };
typedef struct gc_cat_tgpu {
    long key;
    int index;
    uint32_t measured;
} gc_cat_tgpu;
typedef struct gc_cat_table {
    gc_strtab keys;
    gc_cat_tgpu *gpus;
    size_t ngpus, capg;
    long *link_key;
    unsigned char *link_kind;
    signed char *link_level;
    size_t nlinks, capl;
    int filled, oom;
} gc_cat_table;
void gc_cat_table_free(gc_cat_table *t);
/* a key "node\x1findex" (added) for a GPU or a link end; -1: out of memory */
long gc_cat_table_key(gc_cat_table *t, const char *node, long long index);
int gc_cat_table_add_gpu(gc_cat_table *t, const char *node, long long index, uint32_t measured);
int gc_cat_table_add_link(gc_cat_table *t, long key, int kind);

typedef struct gc_catread_info {
    char backend[16];
    char plan_name[64];
    char start_time[32];
    size_t gpus, links;
    /* set by the caller (kept across the read): filled by gc_catread_verdicts
     * when it can be; NULL: not wanted */
    gc_cat_table *table;
} gc_catread_info;

/* Feeds every GPU and link of the catalogue to d (not finished). A schema-1
 * catalogue has its points inline; a schema-2 one in its node files
 * (DIR/nodes/<node>.json, catread_points.h), opened one at a time; a
 * missing one is an error naming it. _mem: without node files (schema 2's
 * points are then not judged). */
int gc_catread_catalogue(const char *path, gc_detect *d, const gc_rules *r,
                         gc_catread_info *info, gc_err *err);
int gc_catread_catalogue_mem(const char *name, const char *buf, size_t len, gc_detect *d,
                             const gc_rules *r, gc_catread_info *info, gc_err *err);

/* What check and report do without a baseline or rules of their own: a
 * schema-2 catalogue's verdicts as the run wrote them (judged at rank 0
 * on every point's summary; no node file is opened), into d, which then
 * counts as finished; a schema-1 catalogue fed to d as
 * gc_catread_catalogue does (its points are inline: judged again), and so
 * is a schema-2 one whose verdicts are empty (the run left them out; an
 * edited catalogue whose verdicts were emptied), its points from its node
 * files (_mem: without). *as_written: 1 when the verdicts are the
 * catalogue's (d finished), 0 when d is to be finished. */
int gc_catread_verdicts(const char *path, gc_detect *d, const gc_rules *r, gc_catread_info *info,
                        int *as_written, gc_err *err);
int gc_catread_verdicts_mem(const char *name, const char *buf, size_t len, gc_detect *d,
                            const gc_rules *r, gc_catread_info *info, int *as_written,
                            gc_err *err);

/* A baseline from a catalogue (every GPU by UUID and its SKU) or from a
 * reference file:
 *   { "schema_version": "1.0", "kind": "baseline", "sku": NAME, "source": TEXT,
 *     "parameters": { NAME: VALUE, ... }, "points": { KEY: P50, ... },
 *     "nvlink_links": N, "links": { CLASS: BETA_BPS, ... } } */
/* path: a file, or a directory whose *.json files (reference files, one
 * per SKU: configs/baselines/) are all read. */
int gc_catread_baseline(const char *path, gc_baseline **out, gc_err *err);
int gc_catread_baseline_mem(const char *name, const char *buf, size_t len, gc_baseline **out,
                            gc_err *err);

/* Every GPU and link of a catalogue of any schema as its 2.x object (a
 * schema-3 catalogue's compact parameters, models, link rows are expanded),
 * and the other top-level members as they are (not "verdicts": read them
 * with gc_catread_verdicts; "schema_version" before anything else), one at a time; a callback's non-zero return
 * stops the walk with it. Schema errors as gc_catread_catalogue's. */
typedef struct gc_catread_each_fns {
    int (*gpu)(void *ctx, json_t *gpu);
    int (*link)(void *ctx, json_t *link);
    int (*top)(void *ctx, const char *key, json_t *value);
} gc_catread_each_fns;
int gc_catread_each(const char *name, const char *buf, size_t len, const gc_catread_each_fns *fns,
                    void *ctx, gc_err *err);

#endif

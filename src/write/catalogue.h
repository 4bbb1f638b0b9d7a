/* Results -> JSON files (jansson): OUT/catalogue.json for the cluster and
 * OUT/nodes/<node>.json per node with the full encoded histograms. Only
 * I/O and assembly here; parameters come from derive.c.
 *
 * Input is what the ranks sent (or left on disk): one shard blob per rank
 * of the roster, NULL where a rank sent nothing. GPUs are processed one
 * node at a time, so rank 0 holds one node's histograms at once, not the
 * cluster's. */
#ifndef GC_CATALOGUE_H
#define GC_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "util/err.h"
#include "util/fsutil.h"
#include "census/results.h"
#include "census/shard.h"

/* 2.0: catalogue.json holds no points and no link size tables (the node
 * files do); 1.0 held both (catread reads either). 3.0: compact tables;
 * 3.1: a GPU's point reasons grouped per rule and benchmark metric
 * (reason.points, gc_verdict_group_reasons); node files alike. */
#define GC_SCHEMA_VERSION "3.1"

typedef struct gc_catalogue_stats {
    int nodes, gpus, ok, partial, failed, incomplete;
    gc_brief *briefs;      /* gpus entries, free() them */
    size_t links_dropped;  /* links left out: a GPU end no shard names (a merge without a roster) */
    char link_dropped_first[200];   /* the first of them */
} gc_catalogue_stats;

/* Writes out_dir/catalogue.json and out_dir/nodes/<node>.json. run is the
 * run's metadata (end_time is set by the caller). */
int gc_catalogue_write(const char *out_dir, const gc_run_meta *run,
                       const gc_roster_entry *roster, size_t nranks,
                       const gc_blob *blobs, gc_catalogue_stats *stats, gc_err *err);

/* Where the shards come from: fetch fills b for rank r and sets *owned to
 * what to free() once b's node has been written (NULL: nothing). merge.c reads
 * each shard file only when its node is written, so the merge holds one
 * shard and one node's GPUs at a time, not the cluster's shards. */
typedef void (*gc_blob_fetch)(void *ctx, size_t r, gc_blob *b, void **owned);
int gc_catalogue_write_fetch(const char *out_dir, const gc_run_meta *run,
                             const gc_roster_entry *roster, size_t nranks, gc_blob_fetch fetch,
                             void *ctx, gc_catalogue_stats *stats, gc_err *err);


/* Asked just before a file written replaces the one in its place (ctx:
 * the fetch's): 0 leaves it unwritten (GC_EINVAL, "left to rank 0"). */
typedef int (*gc_keep_fn)(void *ctx);

/* How a node leader puts its file in place: keep (NULL: always) is asked
 * first; then the file is placed only where the path holds nothing or
 * prior, the file that was there before the run could write it (an
 * earlier run's in the same OUT), by gc_afile_commit_excl. Rank 0 writes
 * the node file of a leader lost to it by rename, after its gather: that
 * file is never replaced by the leader, whenever the leader comes to
 * place its own (GC_EEXIST, "another file is in place"). */
typedef struct gc_node_place {
    gc_keep_fn keep;
    gc_file_id prior;
} gc_node_place;

/* A node leader: out_dir/nodes/<node>.json from the node's shards (fetch is
 * asked for the roster entries of that node only); place: NULL replaces
 * whatever is there (as merge does), else as above. */
int gc_catalogue_write_node(const char *out_dir, const gc_run_meta *run,
                            const gc_roster_entry *roster, size_t nranks, const char *node,
                            gc_blob_fetch fetch, void *ctx, const gc_node_place *place,
                            gc_err *err);

#endif

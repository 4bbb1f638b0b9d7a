/* `gpucensus merge SHARDS -o DIR`: rebuild the catalogue files from the
 * shards alone (after a crash, or to re-derive with a newer build). */
#ifndef GC_MERGE_H
#define GC_MERGE_H

#include "util/err.h"
#include "write/catalogue.h"

/* Returns 0 when the catalogue was written; stats as from a run. */
int gc_merge(const char *shards_dir, const char *out_dir, gc_run_meta *run,
             gc_catalogue_stats *stats, gc_err *err);

#endif

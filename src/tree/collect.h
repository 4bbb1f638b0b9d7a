/* Rank 0's collector (issue #16): the records go in as they arrive and
 * catalogue.json comes out at the end.
 *
 * Each record (or a lost rank's shard) is analysed the moment it is
 * received (analyze.c) and reduced at once to what the catalogue and the
 * verdicts need; its bytes are then freed by the caller. What stays in
 * memory per GPU: the detector's judged values (detect.c, floats), the
 * links it measured (links.c), the pooled model errors, a terminal brief
 * and a few offsets. catalogue.json's temporary is written from the
 * start: its head, then each GPU's object, formatted at once, as soon as
 * every GPU before it in the catalogue's order (nodes as the roster first
 * names them, GPUs by local index) has come; until then the object waits
 * in a spill file (unlinked, in OUT). A record's bytes are kept for a
 * node file rank 0 may have to write, until its node's leader says it
 * wrote the node file (a leader sends its record last, once the file is
 * written): in memory while the records held are under
 * GC_COLLECT_HELD_MAX bytes, past it in the spill file. The file does
 * not depend on the
 * order records arrived in and equals merge's; what is left for the end
 * is the GPUs whose turn had not come, the links and the verdicts.
 *
 * Peak memory is then bounded by the judged values and the links, not by
 * the records (62 KB per GPU on the default plan). */
#ifndef GC_COLLECT_H
#define GC_COLLECT_H

#include <stddef.h>

#include "analyze/analyze.h"
#include "write/catalogue.h"
#include "util/err.h"
#include "census/results.h"
#include "census/shard.h"

typedef struct gc_collect gc_collect;

#define GC_COLLECT_HELD_MAX ((size_t)64 << 20)

/* roster (n entries) and run must outlive the collector. NULL: err says why. */
gc_collect *gc_collect_new(const char *out_dir, const gc_run_meta *run,
                           const gc_roster_entry *roster, size_t n, gc_err *err);
/* Roster entry r's blob (a record, a shard, or data NULL with the reason
 * missing). The bytes are not kept: free them after the call. A second
 * blob for the same rank is ignored. 0, or GC_ENOMEM / GC_EIO (the
 * catalogue cannot be written; err says why). */
int gc_collect_add(gc_collect *c, size_t r, const gc_blob *b, gc_err *err);
/* Ranks never added are failed GPUs with "nothing received". Writes the
 * node file of any node whose leader wrote none (each GPU from
 * shard_fetch's shard where rank 0 can read one, else its record), then
 * catalogue.json. stats as gc_catalogue_write's. */
int gc_collect_finish(gc_collect *c, gc_blob_fetch shard_fetch, void *ctx,
                      gc_catalogue_stats *stats, gc_err *err);
void gc_collect_free(gc_collect *c);
/* Records held in memory at most (GC_COLLECT_HELD_MAX unless told; tests
 * give 0 to see them go to the spill file). */
void gc_collect_hold_at_most(gc_collect *c, size_t bytes);

#endif

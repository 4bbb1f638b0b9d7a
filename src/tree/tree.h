/* The census's aggregation tree: what happens between a rank's last work
 * item and rank 0's catalogue.
 *
 *   every rank:  its final shard is on its node's disk (run.c); it encodes
 *                its record (shard.h: its points' summaries, parameters,
 *                identity, conditions; no histograms)
 *   node leader: (local rank 0) once its node's ranks have their final
 *                shards (a barrier over the node's communicator, watched),
 *                reads them from the node's disk, analyses them and writes
 *                OUT/nodes/<node>.json with every histogram; its record
 *                says whether it did
 *   rank 0:      gathers one record per rank (watch.c: a lost rank cannot
 *                hang it), analysing each as it arrives and keeping only
 *                what the catalogue and the verdicts need (collect.h),
 *                then writes catalogue.json; histograms never travel.
 *
 * Degrading: a rank lost before sending is a failed GPU with what its
 * shard on rank 0's disk holds (as before the tree); a leader lost or
 * failed leaves its node without a file from it, and rank 0 writes that
 * file from the shards it can read (shared file system) or the records
 * (histograms null; `gpucensus merge` on the node's shards has them). On
 * a run being abandoned (a lost rank, SIGTERM) a leader waits at most
 * GC_TREE_ABANDON_WAIT_S for its node's last shards. */
#ifndef GC_TREE_H
#define GC_TREE_H

#include "analyze/analyze.h"
#include "write/catalogue.h"
#include "tree/cluster.h"
#include "tree/collect.h"
#include "census/results.h"
#include "census/shard.h"
#include "tree/watch.h"

#define GC_TREE_ABANDON_WAIT_S 5.0

/* Collective over cl->node. The leader writes out/nodes/<node>.json;
 * note tells rank 0 how that went (GC_NODE_FILE_NONE on other ranks).
 * *abandoned is set when the watch abandoned the run while waiting.
 * prior: what the leader found at that path before rank 0 could write it
 * (gc_tree_node_prior), the only file its own may replace. */
void gc_tree_node_file(const char *out, const gc_run_meta *run, const gc_cluster *cl,
                       gc_watch *w, const gc_file_id *prior, int *abandoned,
                       gc_record_note *note);
/* A leader, before the collective that precedes any judgment of lost
 * ranks: what out/nodes/<node>.json holds now (an earlier run's file, or
 * nothing). Rank 0 writes a node file only after its gather, so whatever
 * the leader later finds there that is not this is rank 0's. */
void gc_tree_node_prior(const char *out, const gc_cluster *cl, gc_file_id *prior);

/* Roster entry e's shard from out/shards on this machine's disk into b
 * (*owned: what to free), or b->data NULL and the reason: also when it is
 * not of run (gc_run_same; run NULL: not asked). */
void gc_tree_read_shard(const char *out, const gc_run_meta *run, const gc_roster_entry *e,
                        gc_blob *b, void **owned);

/* Rank 0: out/catalogue.json from the collector (collect.h) that took
 * every record as it arrived and a lost rank's shard from this disk; the
 * node file of any node whose leader wrote none from the shards on this
 * disk, else the records. */
int gc_tree_catalogue(const char *out, const gc_run_meta *run, const gc_roster_entry *roster, gc_collect *c,
                      gc_catalogue_stats *stats, gc_err *err);

#endif

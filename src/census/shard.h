/* Shards: one rank's results in one file, OUT/shards/<node>-gpu<k>.gcs.
 *
 * A rank rewrites its shard (atomically: temporary name, fsync, rename) as
 * its plan progresses, so a rank that dies leaves what it finished. The
 * same bytes are what the rank sends to rank 0 in the gather, so a
 * catalogue merged from shards equals the gathered one.
 *
 * File layout: "GCSH" version(u8) body_len(u32le) crc32(body)(u32le) body.
 * body: run metadata, GPU identity and properties, progress, conditions,
 * points (each with its histogram encoded by codec.h), parameters and
 * (format 4) the method version of each benchmark among the points.
 * Format 3 is read too: its methods are dated by the run's start time
 * (gc_bench_method_at).
 * Reading checks every length and range (untrusted bytes). */
#ifndef GC_SHARD_H
#define GC_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/results.h"
#include "util/wire.h"

#define GC_SHARD_VERSION 4   /* 2: the rank's host conditions in the GPU info; 3: its PCIe switch;
                                4: method versions */
#define GC_SHARD_VERSION_OLDEST 3   /* the oldest this build reads */
#define GC_RECORD_VERSION 5  /* a record: format 4, its points' strings through a dictionary (shard.c) */
#define GC_SHARD_MAX_BYTES (1u << 30)
#define GC_SHARD_MAX_POINTS (1u << 20)

int gc_shard_encode(const gc_run_meta *run, const gc_gpu *gpu, gc_wbuf *out, gc_err *err);
/* run and gpu are filled (gpu initialised by the call; free with gc_gpu_free). */
int gc_shard_decode(const void *data, size_t len, gc_run_meta *run, gc_gpu *gpu, gc_err *err);

/* Records: what a rank's analysis sends up the tree instead of its shard
 * (no histograms). The same body as a shard, framed "GCRC", each point's
 * histogram replaced by its summary (count varint, then p1 p5 p50 p95
 * p99 max as f64; min, mean and stddev are left to the shard: NAN when
 * decoded) and its conditions left out (invalid) unless
 * other processes used the GPU then, and at the end what the sender did as its
 * node's leader; the frame holds that body deflated: its length (u32le)
 * and one zlib stream (inflated with a cap of GC_SHARD_MAX_BYTES). Decoded
 * points have has_sum set and no histogram. */
enum { GC_NODE_FILE_NONE = 0, GC_NODE_FILE_WRITTEN = 1, GC_NODE_FILE_FAILED = 2 };
typedef struct gc_record_note {
    int node_file;        /* GC_NODE_FILE_*: the sender leads its node and wrote its file */
    char msg[200];        /* why it failed */
} gc_record_note;
/* sums: each point's summary, NULL: computed from the histograms. */
int gc_record_encode(const gc_run_meta *run, const gc_gpu *g, const gc_summary *sums,
                     const gc_record_note *note, gc_wbuf *out, gc_err *err);
/* A record in two parts, for a sender of many records alike (bench_tree):
 * its head (run metadata, GPU identity) and its tail (the rest), each
 * deflated on its own (codec.h's gc_deflate_raw); gc_record_encode is
 * gc_record_join of the two, one zlib stream. */
typedef struct gc_record_part {
    gc_wbuf z;            /* raw deflate */
    size_t raw_len;
    uint32_t adler;       /* of the raw bytes */
} gc_record_part;
int gc_record_head(const gc_run_meta *run, const gc_gpu *g, gc_record_part *p, gc_err *err);
int gc_record_tail(const gc_gpu *g, const gc_summary *sums, const gc_record_note *note,
                   gc_record_part *p, gc_err *err);
int gc_record_join(const gc_record_part *head, const gc_record_part *tail, gc_wbuf *out,
                   gc_err *err);
void gc_record_part_free(gc_record_part *p);
int gc_record_decode(const void *data, size_t len, gc_run_meta *run, gc_gpu *g,
                     gc_record_note *note, gc_err *err);
int gc_blob_is_record(const void *data, size_t len);

/* Only the run metadata at the head of a shard (checks the frame). */
int gc_shard_decode_meta(const void *data, size_t len, gc_run_meta *run, gc_err *err);

/* "This run": a shard, roster or record belongs to run when it has its
 * plan (name and sha256) and, where both say it, its start time. 0 when it
 * does; 1 when of another plan, 2 when of another run of the plan, with
 * why (GC_EINVAL; no file name: the caller names it). Every reader of
 * shards asks this one question (merge, node leaders, rank 0 for a lost
 * rank, --resume). */
int gc_run_same(const gc_run_meta *file, const gc_run_meta *run, gc_err *why);

/* File name of a GPU's shard inside dir: dir/<node>-gpu<k>.gcs */
int gc_shard_path(char *out, size_t cap, const char *dir, const char *node, int local_index);

/* The roster: which ranks ran which GPUs of which node. Rank 0 writes it
 * next to the shards before measuring, so merge knows what is missing. */
typedef struct gc_roster_entry {
    int rank;
    char node[GC_NODE_MAX];
    int local_index;
} gc_roster_entry;

int gc_roster_encode(const gc_run_meta *run, const gc_roster_entry *e, size_t n, gc_wbuf *out, gc_err *err);
int gc_roster_decode(const void *data, size_t len, gc_run_meta *run, gc_roster_entry **e, size_t *n, gc_err *err);

#endif

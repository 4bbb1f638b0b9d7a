/* A node's published verdict: DIR/NODE.verdict, the one file NHC and the
 * Slurm prolog read on a compute node.
 *
 * The history database is SQLite in WAL mode and must stay on the disk of
 * the host that adds to it; compute nodes never open it. That host
 * publishes, after each nightly census, one small text file per node into
 * a folder the compute nodes can read (shared storage, or copied to each
 * node): written whole or not at all (a temporary, fsync, rename), mode
 * 0444. A reader bounds the file (GC_VFILE_MAX bytes, regular files only,
 * opened without blocking), checks every line (known keys, each once, no
 * control characters, the node it asked for, a verdict word, an ISO time)
 * and names FILE:LINE and the key on an error.
 *
 *   # gpucensus verdict, published by `gpucensus history publish`: do not edit
 *   format 1
 *   node n2
 *   verdict degraded
 *   time 2026-12-07T03:00:12Z          the census's start
 *   plan quick
 *   run /shared/results/4711/catalogue.json
 *   published 2026-12-07T03:09:41Z
 *   reason n2/gpu1 degraded: ...        (may be empty) */
#ifndef GC_VERDICT_FILE_H
#define GC_VERDICT_FILE_H

#include "read/history.h"
#include "util/err.h"

#define GC_VFILE_MAX 4096
#define GC_VFILE_SUFFIX ".verdict"

typedef struct gc_vfile {
    gc_hnode v;           /* node, level, time, t_s, plan, reason, source (the run) */
    char published[32];
    long long published_s;
} gc_vfile;

/* dir/node.verdict into out (cap bytes); -1 when node is not a name. */
int gc_vfile_path(const char *dir, const char *node, char *out, size_t cap);
/* Writes v as dir/<v->node>.verdict, atomically, mode 0444. */
int gc_vfile_write(const char *dir, const gc_hnode *v, gc_err *err);
/* Checks len bytes of a verdict file (named path in errors), which must be
 * node's, into out. */
int gc_vfile_parse(const char *path, const char *data, size_t len, const char *node, gc_vfile *out,
                   gc_err *err);
/* Reads and checks the verdict file at path, which must be node's. */
int gc_vfile_read(const char *path, const char *node, gc_vfile *out, gc_err *err);
/* `history publish DB DIR [--node NODE]...`: exit 0 published, 1 database or
 * file error, 2 bad arguments. */
int gc_vfile_publish_main(int argc, char **argv);

#endif

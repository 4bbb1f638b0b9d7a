/* One writer per output directory: OUT/gpucensus.lock, flock'ed for as long
 * as the process lives, holding "HOST PID" of the owner. A second run (or
 * merge) into the same OUT is refused with the owner's name instead of
 * mixing its files into the first one's. The lock is the flock, released
 * by the kernel when the owner exits, so a crashed owner never leaves a
 * stale lock; a run that ends removes the file (gc_out_unlock). */
#ifndef GC_OUTLOCK_H
#define GC_OUTLOCK_H

#include "util/err.h"

/* Lock out_dir (which exists); GC_EEXIST when another process holds it. A
 * file system without flock (some parallel file systems) is not locked;
 * that is said on stderr once and is not an error. */
int gc_out_lock(const char *out_dir, gc_err *err);
/* The lock file of out_dir removed by its owner as it ends (the flock goes
 * with the process). Best effort: a lock file left is harmless. */
void gc_out_unlock(const char *out_dir);

#endif

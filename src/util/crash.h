/* A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) is reported
 * before the process dies: on stderr, with write(2) only, the rank, its
 * node and GPU, the work item in progress (id, benchmark label, phase) or
 * the stage outside items, the faulting address, and a backtrace. The
 * temporaries this process has open are removed (stop.h); then the
 * default action is restored and the signal raised again, so the process
 * still ends by that signal (and dumps core where that is enabled).
 *
 * Open MPI's own handlers (opal_signal) are installed in MPI_Init only for
 * signals that have none yet: installing ours before MPI_Init keeps it in
 * place there, and gc_crash_install() after MPI_Init takes the signals
 * back should a library have replaced it. */
#ifndef GC_CRASH_H
#define GC_CRASH_H

#include <stdint.h>

/* Idempotent; the first call also sets up an alternate stack, so that a
 * stack overflow is reported too. */
void gc_crash_install(void);
/* Who this process is: rank (-1: not an MPI rank), node, GPU index. */
void gc_crash_identity(int rank, const char *node, int gpu);
/* A work item starts: what a crash report names until the next call. */
void gc_crash_item(uint32_t item_id, const char *label, const char *phase);
/* Outside any item: what the process is doing ("start-up", "gather"). */
void gc_crash_stage(const char *stage);

#endif

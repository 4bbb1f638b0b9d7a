/* SIGINT and SIGTERM, and the temporaries that must not outlive a signal.
 *
 * Files are written under a temporary name and renamed over the target
 * (fsutil.c); a signal between the two would leave NAME.tmp.XXXXXX behind.
 * fsutil registers each temporary here while it exists, and a stop signal
 * (or a fatal one, crash.c) removes those still registered.
 *
 * Two ways to stop:
 * - at once (every command but run): SIGINT/SIGTERM remove the
 *   temporaries and end the process by that signal, as its default would;
 * - gracefully (a run): the first SIGINT/SIGTERM is only recorded; the run
 *   sees it (gc_stop_signal) between work items, stops, writes what it has
 *   and exits 1. A second one, 2 s or more after the first (sooner it is
 *   the same request delivered twice), is handled at once, as above. */
#ifndef GC_STOP_H
#define GC_STOP_H

/* mkostemp(tmpl, O_CLOEXEC) (tmpl ends in XXXXXX), the file registered
 * for removal on a signal: returns the descriptor, or -1 with errno
 * (EINTR: the process is being ended by a signal). *slot: its registry
 * slot for gc_tmp_drop, -1 when it could not be registered (too many at
 * once: it still works, it is only not removed on a signal). */
int gc_tmp_create(char *tmpl, int *slot);
/* The temporary of this slot was renamed or removed (slot -1: no-op). */
void gc_tmp_drop(int slot);
/* Unlink every registered temporary, and have any created from now on
 * removed by its creator; async-signal-safe, for handlers only. */
void gc_tmp_unlink_all(void);

/* Install the handlers for SIGINT and SIGTERM (again after MPI_Init:
 * idempotent); graceful: the first signal is only recorded. */
void gc_stop_install(int graceful);
/* 0, or the first SIGINT/SIGTERM received in graceful mode. */
int gc_stop_signal(void);
const char *gc_signal_name(int sig);

#endif

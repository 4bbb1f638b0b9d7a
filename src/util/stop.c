/* Stop signals and the registry of temporaries. See stop.h.
 *
 * The registry is a fixed table that a handler can walk without locks.
 * Temporaries are created by several threads at once (the catalogue's
 * node files are written by workers), and a signal may be handled on any
 * thread while the others go on; so, with sequentially consistent atomics:
 * a creator announces itself (inflight), checks that no handler has begun
 * (dying), creates and registers its file, and withdraws; the handler
 * first sets dying, waits (briefly, bounded) until no creator is in
 * flight, then unlinks every registered file. A file is thus either never
 * created or seen by the handler, or its creator sees dying and removes it
 * itself. */
#include "util/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TMP_SLOTS 64
#define TMP_PATH_MAX 4096
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_LIVE };

static struct {
    atomic_int state;
    char path[TMP_PATH_MAX];
} tmps[TMP_SLOTS];
static atomic_int dying, inflight;

/* A second signal this soon after the first is the same request
 * delivered twice (Slurm's step daemon and srun both pass scancel's
 * SIGTERM on), not an operator insisting. */
#define REPEAT_WINDOW_S 2

static volatile sig_atomic_t stop_sig, graceful_mode;
static struct timespec first_at;

int gc_tmp_create(char *tmpl, int *slot)
{
    /* A stop signal for this very thread waits until the file is
     * registered (a handler cannot wait for its own thread). */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stops, &old);
    *slot = -1;
    atomic_fetch_add(&inflight, 1);
    if (atomic_load(&dying)) {
        atomic_fetch_sub(&inflight, 1);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        errno = EINTR;
        return -1;
    }
    int fd = mkostemp(tmpl, O_CLOEXEC);   /* O_CREAT | O_EXCL, mode 0600 */
    size_t n = fd >= 0 ? strlen(tmpl) : TMP_PATH_MAX;
    for (int i = 0; n < TMP_PATH_MAX && i < TMP_SLOTS && *slot < 0; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&tmps[i].state, &expect, SLOT_CLAIMED)) {
            memcpy(tmps[i].path, tmpl, n + 1);
            atomic_store(&tmps[i].state, SLOT_LIVE);
            *slot = i;
        }
    }
    if (fd >= 0 && atomic_load(&dying))
        unlink(tmpl);   /* a handler began meanwhile: it may not have seen this one */
    atomic_fetch_sub(&inflight, 1);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

void gc_tmp_drop(int slot)
{
    if (slot >= 0 && slot < TMP_SLOTS)
        atomic_store(&tmps[slot].state, SLOT_FREE);
}

void gc_tmp_unlink_all(void)
{
    atomic_store(&dying, 1);
    for (int waited_ms = 0; atomic_load(&inflight) && waited_ms < 50; waited_ms++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);   /* bounded: a fatal signal may hit a creator itself */
    }
    for (int i = 0; i < TMP_SLOTS; i++)
        if (atomic_load(&tmps[i].state) == SLOT_LIVE)
            unlink(tmps[i].path);
}

const char *gc_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    default: return "signal";
    }
}

static void die_by(int sig)
{
    gc_tmp_unlink_all();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);   /* delivered as the handler returns */
}

static void on_stop(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (graceful_mode && !stop_sig) {
        first_at = now;
        stop_sig = sig;
        return;
    }
    if (graceful_mode && now.tv_sec - first_at.tv_sec < REPEAT_WINDOW_S)
        return;
    die_by(sig);
}

void gc_stop_install(int graceful)
{
    graceful_mode = graceful != 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int gc_stop_signal(void)
{
    return stop_sig;
}

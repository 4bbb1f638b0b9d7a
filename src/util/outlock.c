/* The output directory's lock. See outlock.h. */
#include "util/outlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/quote.h"

int gc_out_lock(const char *out_dir, gc_err *err)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/gpucensus.lock", out_dir) >= (int)sizeof path)
        return gc_fail(err, GC_EINVAL, "%s: path too long", out_dir);
    /* O_NOFOLLOW: a symlink planted at the lock's name is not followed
     * (nor truncated through); O_NONBLOCK: nor does a FIFO block us */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return gc_fail(err, GC_EIO, "%s: cannot open the lock: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            char owner[128] = "", shown[512];
            ssize_t n = pread(fd, owner, sizeof owner - 1, 0);
            owner[n > 0 ? n : 0] = '\0';
            owner[strcspn(owner, "\n")] = '\0';
            gc_term_esc(owner, shown, sizeof shown);
            close(fd);
            return gc_fail(err, GC_EEXIST,
                           "%s is in use by another gpucensus (%s%s, lock %s): wait for it, or "
                           "choose another output directory", out_dir, *shown ? "host and pid " : "owner unknown",
                           shown, path);
        }
        if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL) {
            fprintf(stderr, "gpucensus: %s: this file system cannot lock (%s): OUT is not "
                            "protected from a second run\n", path, strerror(e));
            close(fd);
            return 0;
        }
        close(fd);
        return gc_fail(err, GC_EIO, "%s: cannot lock: %s", path, strerror(e));
    }
    char host[256] = "?", line[320];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    int n = snprintf(line, sizeof line, "%s %ld\n", host, (long)getpid());
    /* who holds it, best effort: a full disk must not stop a merge that
     * would otherwise say what it could not save */
    if (pwrite(fd, line, (size_t)n, 0) == n && ftruncate(fd, n) != 0)
        (void)0;
    /* fd stays open (and locked) until the process ends */
    return 0;
}

void gc_out_unlock(const char *out_dir)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/gpucensus.lock", out_dir) < (int)sizeof path)
        (void)unlink(path);
}

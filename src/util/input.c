/* Untrusted inputs: regular, bounded, non-blocking, no links inside OUT.
 * See input.h. */
#include "util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* fd checked: a regular file of at most max bytes, left blocking; else
 * closed and -1 */
static int checked(int fd, const char *path, size_t max, gc_err *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        gc_fail(err, GC_EIO, "%s: not a regular file", path);
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        gc_fail(err, GC_EINVAL, "%s: %lld bytes, more than the %zu allowed", path,
                (long long)st.st_size, max);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static int open_fail(const char *path, int e, gc_err *err)
{
    if (e == ELOOP || e == ENOTDIR)
        gc_fail(err, GC_EIO, "%s: a symbolic link or not a directory inside the output "
                "directory; refused (not followed)", path);
    else
        gc_fail(err, GC_EIO, "%s: cannot open: %s", path, strerror(e));
    return -1;
}

int gc_open_input_in(const char *path, int inside, size_t max, gc_err *err)
{
    /* O_NONBLOCK: a FIFO planted where a file was expected must not block
     * the open; it is then refused as not regular */
    const int last = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    if (inside <= 0) {
        int fd = open(path, last);
        return fd < 0 ? open_fail(path, errno, err) : checked(fd, path, max, err);
    }
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gc_fail(err, GC_EINVAL, "%s: path too long", path), -1;
    /* the start of the trailing `inside` components */
    char *cut = buf + strlen(buf);
    for (int k = 0; k < inside && cut > buf; k++) {
        do
            cut--;
        while (cut > buf && *cut != '/');
    }
    int dfd;
    char *rest;
    if (*cut == '/') {
        *cut = '\0';
        dfd = open(cut == buf ? "/" : buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rest = cut + 1;
    } else {
        dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rest = buf;
    }
    if (dfd < 0)
        return open_fail(path, errno, err);
    for (;;) {
        char *slash = strchr(rest, '/');
        if (slash)
            *slash = '\0';
        int fd = slash ? openat(dfd, rest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                       : openat(dfd, rest, last | O_NOFOLLOW);
        int e = errno;
        close(dfd);
        if (fd < 0)
            return open_fail(path, e, err);
        if (!slash)
            return checked(fd, path, max, err);
        dfd = fd;
        rest = slash + 1;
        while (*rest == '/')
            rest++;
    }
}

int gc_open_input(const char *path, size_t max, gc_err *err)
{
    return gc_open_input_in(path, 0, max, err);
}

FILE *gc_fopen_input(const char *path, size_t max, gc_err *err)
{
    int fd = gc_open_input(path, max, err);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        gc_fail(err, GC_ENOMEM, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

static int read_fd(int fd, const char *path, uint8_t **data, size_t *len, gc_err *err)
{
    struct stat st;
    fstat(fd, &st);
    uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf) {
        close(fd);
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", path);
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = errno;
            free(buf);
            close(fd);
            return gc_fail(err, GC_EIO, "%s: read: %s", path, k ? strerror(e) : "file shrank");
        }
        got += (size_t)k;
    }
    close(fd);
    *data = buf;
    *len = got;
    return 0;
}

int gc_read_file_in(const char *path, int inside, size_t max, uint8_t **data, size_t *len,
                    gc_err *err)
{
    *data = NULL;
    *len = 0;
    int fd = gc_open_input_in(path, inside, max, err);
    if (fd < 0)
        return err && err->code ? err->code : GC_EIO;
    return read_fd(fd, path, data, len, err);
}

int gc_read_file(const char *path, size_t max, uint8_t **data, size_t *len, gc_err *err)
{
    return gc_read_file_in(path, 0, max, data, len, err);
}

int gc_map_input(const char *path, size_t max, gc_input_map *m, gc_err *err)
{
    memset(m, 0, sizeof *m);
    int fd = gc_open_input(path, max, err);
    if (fd < 0)
        return err && err->code ? err->code : GC_EIO;
    struct stat st;
    fstat(fd, &st);
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
            m->buf = p;
            m->len = (size_t)st.st_size;
            m->mapped = 1;
            return 0;
        }
    }
    uint8_t *b;
    int rc = read_fd(fd, path, &b, &m->len, err);
    m->buf = rc ? NULL : (char *)b;
    return rc;
}

void gc_input_release(gc_input_map *m)
{
    if (m->mapped)
        munmap(m->buf, m->len);
    else
        free(m->buf);
    memset(m, 0, sizeof *m);
}

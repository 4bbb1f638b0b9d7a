/* Whole-file reads and atomic writes. See fsutil.h. */
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/stop.h"

int gc_afile_open(gc_afile *a, const char *path, gc_err *err)
{
    memset(a, 0, sizeof *a);
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return gc_fail(err, GC_EIO, "%s: exists and is not a regular file; refusing to replace it",
                       path);
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        snprintf(a->tmp, sizeof a->tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof a->tmp)
        return gc_fail(err, GC_EINVAL, "%s: path too long", path);
    /* mkostemp (O_CREAT|O_EXCL, mode 0600), removed if a signal ends us
     * before the rename */
    int fd = gc_tmp_create(a->tmp, &a->tmp_slot);
    if (fd < 0)
        return gc_fail(err, GC_EIO, "%s: cannot create a temporary file: %s", path, strerror(errno));
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        gc_tmp_drop(a->tmp_slot);
        return gc_fail(err, GC_EIO, "%s: %s", path, strerror(e));
    }
    return 0;
}

void gc_afile_abort(gc_afile *a)
{
    if (a->f) {
        fclose(a->f);
        a->f = NULL;
        unlink(a->tmp);
        gc_tmp_drop(a->tmp_slot);
    }
}

/* The temporary's bytes on disk, its stream closed: 0 or an errno. */
static int afile_finish(gc_afile *a)
{
    int e = 0;
    if (fflush(a->f) != 0 || ferror(a->f) || fsync(fileno(a->f)) != 0)
        e = errno ? errno : EIO;
    if (fclose(a->f) != 0 && !e)
        e = errno;
    a->f = NULL;
    return e;
}

static void sync_dir_of(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

int gc_afile_commit(gc_afile *a, gc_err *err)
{
    int e = afile_finish(a);
    if (!e && rename(a->tmp, a->path) != 0)
        e = errno;
    if (e)
        unlink(a->tmp);
    gc_tmp_drop(a->tmp_slot);
    if (e)
        return gc_fail(err, GC_EIO, "%s: could not be saved: %s (the previous file, if any, is intact)",
                       a->path, strerror(e));
    sync_dir_of(a->path);
    return 0;
}

void gc_file_id_of(const char *path, gc_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (lstat(path, &st) != 0)
        return;
    id->present = 1;
    id->dev = (unsigned long long)st.st_dev;
    id->ino = (unsigned long long)st.st_ino;
    id->size = (long long)st.st_size;
    id->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static int same_file(const gc_file_id *a, const gc_file_id *b)
{
    return a->present && b->present && a->dev == b->dev && a->ino == b->ino &&
           a->size == b->size && a->mtime_ns == b->mtime_ns;
}

/* Hard links unsupported where the file system says so (FAT, some FUSE). */
static int no_links(int e)
{
    return e == EPERM || e == EOPNOTSUPP || e == ENOSYS;
}

/* link(2) of the temporary to the path: 0 placed, else an errno (EEXIST:
 * a file is there). NFS may answer EEXIST for its own retried link: the
 * path then is the temporary's inode. */
static int link_tmp(const gc_afile *a)
{
    if (link(a->tmp, a->path) == 0)
        return 0;
    int e = errno;
    gc_file_id t, p;
    gc_file_id_of(a->tmp, &t);
    gc_file_id_of(a->path, &p);
    return e == EEXIST && same_file(&t, &p) ? 0 : e;
}

/* The path holds `prior` (checked again once it is moved aside, as another
 * writer may have renamed its file there meanwhile): replaced by the
 * temporary, else whatever came is left in place. 0 placed, else an errno. */
static int replace_prior(const gc_afile *a, const gc_file_id *prior)
{
    char aside[4200];
    gc_file_id now;
    gc_file_id_of(a->path, &now);
    if (!same_file(&now, prior))
        return EEXIST;
    snprintf(aside, sizeof aside, "%s.prior", a->tmp);   /* unique as the temporary is */
    if (rename(a->path, aside) != 0)
        return errno == ENOENT ? link_tmp(a) : errno;
    gc_file_id_of(aside, &now);
    if (!same_file(&now, prior)) {
        /* another writer's file, renamed there between the check and the
         * move: back in place (it writes once; nothing else came since) */
        rename(aside, a->path);
        return EEXIST;
    }
    int e = link_tmp(a);
    if (e && e != EEXIST)
        rename(aside, a->path);   /* not placed: the earlier file stays */
    else
        unlink(aside);
    return e;
}

int gc_afile_commit_excl(gc_afile *a, const gc_file_id *prior, gc_err *err)
{
    int e = afile_finish(a);
    if (!e) {
        e = link_tmp(a);
        if (e == EEXIST && prior && prior->present)
            e = replace_prior(a, prior);
        if (no_links(e))   /* no hard links here: replaced, as gc_afile_commit does */
            e = rename(a->tmp, a->path) == 0 ? 0 : errno;
    }
    unlink(a->tmp);   /* placed by a link, the temporary is a second name */
    gc_tmp_drop(a->tmp_slot);
    if (e == EEXIST)
        return gc_fail(err, GC_EEXIST, "%s: another file is in place (left as it is)", a->path);
    if (e)
        return gc_fail(err, GC_EIO, "%s: could not be saved: %s (the previous file, if any, is intact)",
                       a->path, strerror(e));
    sync_dir_of(a->path);
    return 0;
}

int gc_write_atomic(const char *path, const void *data, size_t len, gc_err *err)
{
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, a.f) != len) {
        int e = errno;
        gc_afile_abort(&a);
        return gc_fail(err, GC_EIO, "%s: could not be saved: %s (the previous file, if any, is intact)",
                       path, strerror(e ? e : EIO));
    }
    return gc_afile_commit(&a, err);
}

int gc_mkdir_p(const char *path, gc_err *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gc_fail(err, GC_EINVAL, "%s: path too long", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return gc_fail(err, GC_EIO, "mkdir %s: %s", buf, strerror(errno));
            /* the last component (OUT/nodes, OUT/shards: what we write
             * into) must be a directory itself, never a link planted to
             * send our files elsewhere; the components above it are the
             * operator's path and may be links to directories */
            struct stat st;
            if (!c && (lstat(buf, &st) != 0 || S_ISLNK(st.st_mode)))
                return gc_fail(err, GC_EIO, "%s: a symbolic link where a directory of ours belongs; "
                               "refused (not followed)", buf);
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
                return gc_fail(err, GC_EIO, "%s: exists and is not a directory", buf);
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

void gc_catalogue_path(const char *arg, char *out, size_t cap)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out, cap, "%s/catalogue.json", arg);
    else
        snprintf(out, cap, "%s", arg);
}

FILE *gc_tmpfile_in(const char *dir, gc_err *err)
{
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR, 0600);
#endif
    if (fd < 0) {
        char p[4200];
        snprintf(p, sizeof p, "%s/.collect.XXXXXX", dir);
        fd = mkstemp(p);
        if (fd >= 0)
            unlink(p);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        gc_fail(err, GC_EIO, "%s: cannot make a temporary file for the catalogue", dir);
    }
    return f;
}

void gc_file_start_writeback(FILE *f)
{
    if (fflush(f) == 0)
        (void)sync_file_range(fileno(f), 0, 0, SYNC_FILE_RANGE_WRITE);
}

/* fd's bytes from `from` to its end appended to to; punch: each 8 MB's
 * pages freed once copied (a call per 8 MB: one round trip each on a
 * network file system; best effort: a file system without holes keeps
 * them to the end) */
static int copy_from(FILE *to, int fd, off_t from, char *buf, size_t cap, int punch)
{
    enum { PUNCH_BYTES = 8 << 20 };
    for (off_t at = from, freed = from;;) {
        ssize_t k = pread(fd, buf, cap, at);
        if (k < 0)
            return errno ? errno : EIO;
        if (k == 0)
            return 0;
        if (fwrite(buf, 1, (size_t)k, to) != (size_t)k)
            return errno ? errno : EIO;
        at += k;
        if (punch && at - freed >= PUNCH_BYTES) {
            (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, freed, at - freed);
            freed = at;
        }
    }
}

int gc_copy_from_fd(FILE *to, int fd, long long from, char *buf, size_t cap)
{
    return copy_from(to, fd, (off_t)from, buf, cap, 0);
}

int gc_move_from_fd(FILE *to, int fd, char *buf, size_t cap)
{
    return copy_from(to, fd, 0, buf, cap, 1);
}

const char *gc_config_path(const char *arg, char *out, size_t cap)
{
    const char *home = getenv("GPUCENSUS_HOME");
    struct stat st;
    if (!arg || arg[0] == '/' || !stat(arg, &st) || !home || !home[0])
        return arg;
    static const char *const under[] = { "", "configs/" };
    for (size_t i = 0; i < sizeof under / sizeof *under; i++) {
        int n = snprintf(out, cap, "%s/%s%s", home, under[i], arg);
        if (n > 0 && (size_t)n < cap && !stat(out, &st))
            return out;
    }
    return arg;
}

/* NAME.tmp.XXXXXX: the temporaries gc_afile_open makes (mkostemp's six) */
static int is_our_tmp(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    if (!t || t == name || strlen(t + 5) != 6)
        return 0;
    for (const char *c = t + 5; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

int gc_sweep_tmp(const char *dir, double min_age_s)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    int n = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (!is_our_tmp(de->d_name) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        /* ours only: a regular file of this user, left long enough that no
         * live writer holds it (OUT's lock keeps other writers out) */
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || difftime(now, st.st_mtime) < min_age_s)
            continue;
        if (unlinkat(dfd, de->d_name, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}

void gc_sweep_out_tmp(const char *out)
{
    static const char *const sub[] = { "", "/nodes", "/shards" };
    for (int k = 0; k < 3; k++) {
        char d[4200];
        snprintf(d, sizeof d, "%s%s", out, sub[k]);
        int n = gc_sweep_tmp(d, GC_TMP_SWEEP_AGE_S);
        if (n > 0)
            fprintf(stderr, "gpucensus: %s: removed %d temporar%s a killed writer left\n", d, n,
                    n > 1 ? "ies" : "y");
    }
}

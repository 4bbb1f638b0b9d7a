/* Files that others read are written whole or not at all: a temporary
 * name created with O_EXCL in the target's directory, fsync, rename over
 * the target, fsync of the directory. A failure (full disk, file-size
 * limit) leaves the previous file intact and says so. An existing target
 * that is not a regular file (a planted symlink) is refused. */
#ifndef GC_FSUTIL_H
#define GC_FSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/input.h"

/* Inputs (gc_open_input, gc_read_file and the rest): util/input.h. */
int gc_write_atomic(const char *path, const void *data, size_t len, gc_err *err);

/* Streamed variant: write to f, then commit (or abort on error). */
typedef struct gc_afile {
    FILE *f;
    char path[4096];
    char tmp[4096];
    int tmp_slot;   /* in stop.h's registry of temporaries; -1: untracked */
} gc_afile;
int gc_afile_open(gc_afile *a, const char *path, gc_err *err);
int gc_afile_commit(gc_afile *a, gc_err *err);
void gc_afile_abort(gc_afile *a);

/* A scratch file in dir (a working file of rank 0, the size of its
 * catalogue's parts): unlinked at once (O_TMPFILE where the file system
 * has it), gone when closed, whatever ends the process. NULL: err says
 * why. */
FILE *gc_tmpfile_in(const char *dir, gc_err *err);
/* The bytes of fd from offset `from` to its end appended to `to`, through
 * buf (cap bytes). 0, or the errno of the failed read or write. */
int gc_copy_from_fd(FILE *to, int fd, long long from, char *buf, size_t cap);
/* The same, of a scratch file read once from its start: each chunk's pages
 * freed (a hole punched) once copied, so that the copy reuses them rather
 * than taking as much memory again. */
int gc_move_from_fd(FILE *to, int fd, char *buf, size_t cap);
/* f's bytes so far handed to the kernel and their write to disk begun,
 * without waiting (sync_file_range): the fsync that commits the file later
 * waits only for the rest. A hint: nothing is reported. */
void gc_file_start_writeback(FILE *f);

/* A regular file's identity at a moment (present 0: nothing there), to
 * tell later whether a path still holds that very file. */
typedef struct gc_file_id {
    int present;
    unsigned long long dev, ino;
    long long size, mtime_ns;
} gc_file_id;
void gc_file_id_of(const char *path, gc_file_id *id);
/* Commit without replacing another writer's file: placed by link(2),
 * which is exclusive on local and network file systems alike, where the
 * path holds nothing or `prior` (NULL: nothing), the file known to be
 * there before any other writer could write the path (an earlier run's).
 * GC_EEXIST when another file is in place: it is left, the temporary
 * removed. Where the file system has no hard links it replaces as
 * gc_afile_commit does. */
int gc_afile_commit_excl(gc_afile *a, const gc_file_id *prior, gc_err *err);

/* mkdir -p with mode 0777 & ~umask; an existing symlink component above
 * the last is followed only if it points to a directory; the last (the
 * directory we write into) is refused when it is a symlink. */
int gc_mkdir_p(const char *path, gc_err *err);
/* The temporaries (NAME.tmp.XXXXXX) a killed or stopped writer left in
 * dir: regular files of this user at least min_age_s old, removed; links,
 * other names and other users' files left. The number removed. Called
 * under OUT's lock. */
int gc_sweep_tmp(const char *dir, double min_age_s);
/* The same in OUT, OUT/nodes and OUT/shards, said on stderr */
#define GC_TMP_SWEEP_AGE_S 60.0
void gc_sweep_out_tmp(const char *out);
/* A catalogue named on the command line: a run's output directory means its
 * catalogue.json, anything else is the file itself. */
void gc_catalogue_path(const char *arg, char *out, size_t cap);
/* A configuration file named on the command line (a plan): arg itself
 * where it exists or is absolute, else the installed one, found under
 * $GPUCENSUS_HOME (an installation's share/gpucensus, set by its
 * modulefile) as HOME/arg or HOME/configs/arg. Returns arg or out. */
const char *gc_config_path(const char *arg, char *out, size_t cap);

#endif

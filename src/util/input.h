/* Every file the tool reads comes through here: it is untrusted. A FIFO,
 * a device or a directory planted where a file was expected is refused at
 * once (opened O_NONBLOCK, then fstat: regular files only); so is a file
 * larger than the reader's bound, before a byte is read. What lives inside
 * a run's output directory (nodes/, shards/, the roster) is opened
 * component by component from a directory descriptor with O_NOFOLLOW, so
 * that a symlink planted at OUT/nodes or at a node file is refused rather
 * than followed out of OUT. */
#ifndef GC_INPUT_H
#define GC_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* A descriptor (blocking again) or -1 with err filled. `inside`: how many
 * trailing components of path must not be symbolic links (0: path as the
 * operator named it, links followed; 2: OUT/nodes/NODE.json). */
int gc_open_input_in(const char *path, int inside, size_t max, gc_err *err);
int gc_open_input(const char *path, size_t max, gc_err *err);
FILE *gc_fopen_input(const char *path, size_t max, gc_err *err);
/* Read a whole regular file of at most max bytes into a new buffer. */
int gc_read_file(const char *path, size_t max, uint8_t **data, size_t *len, gc_err *err);
int gc_read_file_in(const char *path, int inside, size_t max, uint8_t **data, size_t *len,
                    gc_err *err);
/* The file mapped read-only where it is not empty (a large input stays in
 * the page cache, and a parser that fails early touches only its first
 * pages), else read; gc_input_release undoes either. */
typedef struct gc_input_map {
    char *buf;
    size_t len;
    int mapped;
} gc_input_map;
int gc_map_input(const char *path, size_t max, gc_input_map *m, gc_err *err);
void gc_input_release(gc_input_map *m);

#endif

/* A small streaming JSON writer for the catalogue files.
 *
 * A large census writes gigabytes of JSON; building, hashing, dumping (one
 * fwrite per token) and freeing a jansson tree per GPU cost ~20x more than
 * the bytes themselves, so the files are written token by token into a
 * buffer. The layout is jansson's json_dumpf with JSON_INDENT(1) |
 * JSON_REAL_PRECISION(10) (reals as %.10g with ".0" on integral values,
 * NaN and infinities as null), and a key or string that is not valid
 * UTF-8 is left out with its member, as jansson refuses them. */
#ifndef GC_JSONW_H
#define GC_JSONW_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

#define GC_JW_BUF (1u << 20)
#define GC_JW_MAXDEPTH 32

typedef struct gc_jw {
    FILE *f;
    char *buf;
    size_t len;
    int err;                 /* errno of the first failed write, 0: none */
    int depth;               /* open containers */
    int depth0;              /* indentation of the outermost value */
    int compact;             /* 1: no whitespace at all (catalogue.json, schema 3) */
    size_t count[GC_JW_MAXDEPTH];
} gc_jw;

/* buf: GC_JW_BUF bytes owned by the caller; depth0: indentation of the
 * outermost value. */
void gc_jw_init(gc_jw *w, FILE *f, char *buf, int depth0);
void gc_jw_put(gc_jw *w, const char *s, size_t n);
void gc_jw_puts(gc_jw *w, const char *s);
void gc_jw_string(gc_jw *w, const char *s);
void gc_jw_real(gc_jw *w, double v);
void gc_jw_int(gc_jw *w, long long v);
/* Before an element of the innermost container (commas, indentation). */
void gc_jw_next(gc_jw *w);
void gc_jw_key(gc_jw *w, const char *k);
void gc_jw_open(gc_jw *w, const char *c);    /* "{" or "[" */
void gc_jw_close(gc_jw *w, const char *c);   /* "}" or "]" */
/* Members of an object. */
void gc_jw_kstr(gc_jw *w, const char *k, const char *s);
void gc_jw_kreal(gc_jw *w, const char *k, double v);
void gc_jw_kint(gc_jw *w, const char *k, long long v);
void gc_jw_knull(gc_jw *w, const char *k);
int gc_jw_utf8_ok(const char *s);
void gc_jw_flush(gc_jw *w);
/* Flush; GC_EIO naming path if any write failed. */
int gc_jw_finish(gc_jw *w, const char *path, gc_err *err);

#endif

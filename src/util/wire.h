/* Byte buffers for our binary formats (histogram codec, shards).
 *
 * The writer grows a heap buffer; the reader never reads past its end:
 * every get returns GC_ECORRUPT on truncation or an out-of-range value, and
 * once an error happened all later gets fail too, so a decoder may check
 * only at the end of a record. Integers are little-endian; varints are
 * LEB128 (at most 10 bytes for 64 bits); strings are varint length + bytes. */
#ifndef GC_WIRE_H
#define GC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

typedef struct gc_wbuf {
    uint8_t *data;
    size_t len, cap;
    int oom;             /* sticky: a failed allocation */
} gc_wbuf;

void gc_wbuf_free(gc_wbuf *w);
/* Makes room for n more bytes and returns where they go (w->len is not
 * advanced: the caller adds what it wrote). NULL, and oom set, on failure. */
uint8_t *gc_wbuf_reserve(gc_wbuf *w, size_t n);
void gc_put_bytes(gc_wbuf *w, const void *p, size_t n);
void gc_put_u8(gc_wbuf *w, uint8_t v);
void gc_put_u32le(gc_wbuf *w, uint32_t v);
void gc_put_u64le(gc_wbuf *w, uint64_t v);
void gc_put_varint(gc_wbuf *w, uint64_t v);
void gc_put_svarint(gc_wbuf *w, int64_t v);   /* zigzag */
void gc_put_f64(gc_wbuf *w, double v);        /* IEEE-754 bits, little-endian */
void gc_put_str(gc_wbuf *w, const char *s);   /* NULL is written as "" */

typedef struct gc_rbuf {
    const uint8_t *data;
    size_t len, pos;
    int bad;             /* sticky: truncation or bad value */
} gc_rbuf;

void gc_rbuf_init(gc_rbuf *r, const void *data, size_t len);
uint8_t gc_get_u8(gc_rbuf *r);
uint32_t gc_get_u32le(gc_rbuf *r);
uint64_t gc_get_u64le(gc_rbuf *r);
uint64_t gc_get_varint(gc_rbuf *r);
int64_t gc_get_svarint(gc_rbuf *r);
double gc_get_f64(gc_rbuf *r);
/* Copies a string of at most cap-1 bytes into out (NUL-terminated); a longer
 * one, or one holding a NUL byte, marks the reader bad. */
void gc_get_str(gc_rbuf *r, char *out, size_t cap);
/* Points into the buffer (no copy) at n bytes; NULL and bad if short. */
const uint8_t *gc_get_bytes(gc_rbuf *r, size_t n);
static inline size_t gc_rbuf_left(const gc_rbuf *r) { return r->bad ? 0 : r->len - r->pos; }

/* CRC-32 (zlib's polynomial). */
uint32_t gc_crc32(const void *p, size_t n);

#endif

/* Byte buffers for our binary formats: a growing writer and a reader that
 * never reads past its end.
 *
 * The reader is sticky-bad: the first truncation or malformed value sets
 * r->bad, and from then on every get returns 0 (or NULL) without moving, so
 * decoders can check once at the end of a record instead of after each field.
 * Varints are checked for canonical form (no over-long encodings, no bits
 * beyond 64) so that one value has exactly one encoding. */
#include "util/wire.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WBUF_MIN_CAP_BYTES 64
#define VARINT_MAX_BYTES 10

void gc_wbuf_free(gc_wbuf *w)
{
    free(w->data);
    w->data = NULL;
    w->len = w->cap = 0;
    w->oom = 0;
}

uint8_t *gc_wbuf_reserve(gc_wbuf *w, size_t n)
{
    if (w->oom)
        return NULL;
    if (n > SIZE_MAX - w->len) {
        w->oom = 1;
        return NULL;
    }
    size_t need = w->len + n;
    if (need <= w->cap)
        return w->data + w->len;
    size_t cap = w->cap < WBUF_MIN_CAP_BYTES ? WBUF_MIN_CAP_BYTES : w->cap;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(w->data, cap);
    if (!p) {
        w->oom = 1;
        return NULL;
    }
    w->data = p;
    w->cap = cap;
    return w->data + w->len;
}

void gc_put_bytes(gc_wbuf *w, const void *p, size_t n)
{
    uint8_t *dst = gc_wbuf_reserve(w, n);
    if (!dst)
        return;
    if (n)
        memcpy(dst, p, n);
    w->len += n;
}

void gc_put_u8(gc_wbuf *w, uint8_t v) { gc_put_bytes(w, &v, 1); }

void gc_put_u32le(gc_wbuf *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    gc_put_bytes(w, b, sizeof b);
}

void gc_put_u64le(gc_wbuf *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    gc_put_bytes(w, b, sizeof b);
}

void gc_put_varint(gc_wbuf *w, uint64_t v)
{
    uint8_t b[VARINT_MAX_BYTES];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    gc_put_bytes(w, b, n);
}

/* Zigzag maps small magnitudes of either sign to small unsigned values. */
void gc_put_svarint(gc_wbuf *w, int64_t v)
{
    uint64_t u = (uint64_t)v;
    gc_put_varint(w, (u << 1) ^ (0 - (u >> 63)));
}

void gc_put_f64(gc_wbuf *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    gc_put_u64le(w, bits);
}

void gc_put_str(gc_wbuf *w, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    gc_put_varint(w, n);
    gc_put_bytes(w, s, n);
}

void gc_rbuf_init(gc_rbuf *r, const void *data, size_t len)
{
    r->data = data;
    r->len = data ? len : 0;
    r->pos = 0;
    r->bad = 0;
}

const uint8_t *gc_get_bytes(gc_rbuf *r, size_t n)
{
    static const uint8_t empty[1];
    if (r->bad)
        return NULL;
    if (n > r->len - r->pos) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->data ? r->data + r->pos : empty;
    r->pos += n;
    return p;
}

uint8_t gc_get_u8(gc_rbuf *r)
{
    const uint8_t *p = gc_get_bytes(r, 1);
    return p ? p[0] : 0;
}

uint32_t gc_get_u32le(gc_rbuf *r)
{
    const uint8_t *p = gc_get_bytes(r, 4);
    if (!p)
        return 0;
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

uint64_t gc_get_u64le(gc_rbuf *r)
{
    const uint8_t *p = gc_get_bytes(r, 8);
    if (!p)
        return 0;
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, sizeof v);   /* rank 0 reads ~700,000 of these a second */
#else
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
#endif
    return v;
}

/* Rejects: truncation, more than 10 bytes, a 10th byte carrying bits above
 * bit 63, and over-long forms (a multi-byte encoding ending in 0x00, which
 * says the same as a shorter one). */
uint64_t gc_get_varint(gc_rbuf *r)
{
    if (r->bad)
        return 0;
    if (r->pos < r->len && !(r->data[r->pos] & 0x80))
        return r->data[r->pos++];   /* one byte: most of them */
    uint64_t v = 0;
    size_t pos = r->pos;
    for (unsigned i = 0; i < VARINT_MAX_BYTES; i++) {
        if (pos >= r->len)
            break;
        uint8_t b = r->data[pos++];
        if (i == VARINT_MAX_BYTES - 1 && b > 1)
            break;                          /* overflow or 11th byte */
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (b == 0 && i > 0)
                break;                      /* over-long */
            r->pos = pos;
            return v;
        }
    }
    r->bad = 1;
    return 0;
}

int64_t gc_get_svarint(gc_rbuf *r)
{
    uint64_t u = gc_get_varint(r);
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

double gc_get_f64(gc_rbuf *r)
{
    uint64_t bits = gc_get_u64le(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

void gc_get_str(gc_rbuf *r, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    uint64_t n = gc_get_varint(r);
    if (r->bad)
        return;
    if (cap == 0 || n > cap - 1 || n > gc_rbuf_left(r)) {
        r->bad = 1;
        return;
    }
    const uint8_t *p = gc_get_bytes(r, (size_t)n);
    if (!p || memchr(p, 0, (size_t)n)) {
        r->bad = 1;
        return;
    }
    memcpy(out, p, (size_t)n);
    out[n] = '\0';
}

uint32_t gc_crc32(const void *p, size_t n)
{
    const Bytef *b = p;
    uLong crc = crc32(0L, Z_NULL, 0);
    /* zlib takes uInt lengths: feed huge buffers in chunks. */
    while (n > 0) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, b, chunk);
        b += chunk;
        n -= chunk;
    }
    return (uint32_t)crc;
}

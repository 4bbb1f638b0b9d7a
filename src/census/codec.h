/* Histogram <-> bytes.
 *
 * Layout of an encoded histogram (all checked on decode):
 *   "GCH" version(u8=1)
 *   raw_len(u32le)    length of the inflated body
 *   crc32(u32le)      CRC-32 of the inflated body
 *   zlib stream       deflate of the body
 * body:
 *   sub_bits(varint) lo(varint) n(varint) total(varint) min(varint) max(varint)
 *   sum(f64) sumsq(f64)
 *   n bucket counts as run-length varints: a zero run is written as
 *   0, run_length; a non-zero count as itself.
 * Decoding caps raw_len at GC_CODEC_MAX_RAW and rejects truncated, corrupt,
 * oversized or inconsistent input (counts that do not sum to total, min/max
 * outside the bucket range, trailing bytes) with GC_ECORRUPT. */
#ifndef GC_CODEC_H
#define GC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/hist.h"
#include "util/wire.h"

#define GC_CODEC_VERSION 1
#define GC_CODEC_MAX_RAW (16u << 20)

/* Appends the encoding of h to out. */
int gc_hist_encode(const gc_hist *h, gc_wbuf *out, gc_err *err);
/* Decodes exactly len bytes into h (initialised by the call). */
int gc_hist_decode(const void *data, size_t len, gc_hist *h, gc_err *err);

/* Generic zlib helpers used by the codec and by shards: deflate in to out
 * (appending); inflate with a hard cap on the output size.
 * gc_inflate: in must hold exactly one zlib stream (no trailing bytes) that
 * inflates to exactly expect_len bytes; expect_len > cap, a shorter or a
 * longer stream is GC_ECORRUPT. It allocates expect_len bytes (1 if 0) and
 * never more, whatever the stream claims; *out (caller frees) is NULL on
 * failure. */
int gc_deflate(const void *in, size_t len, gc_wbuf *out, gc_err *err);
/* One zlib stream in two parts deflated apart, so a sender that makes many
 * streams with the same second part deflates that part once: a raw deflate
 * (no header) of in appended to out, final (the stream's last block) or
 * not (a full flush: byte-aligned, nothing after it refers back), and the
 * adler32 of in; then gc_zlib_join appends header, a, b and the adler32 of
 * both (b_raw_len: the length of b's input). */
int gc_deflate_raw(const void *in, size_t len, int final, gc_wbuf *out, uint32_t *adler,
                   gc_err *err);
int gc_zlib_join(const void *a, size_t alen, uint32_t adler_a, const void *b, size_t blen,
                 uint32_t adler_b, size_t b_raw_len, gc_wbuf *out);
int gc_inflate(const void *in, size_t len, size_t expect_len, size_t cap,
               uint8_t **out, gc_err *err);

/* Base64 (RFC 4648, with padding) for embedding encoded histograms in JSON.
 * encode returns a malloc'd NUL-terminated string (NULL when out of memory).
 * decode is strict (alphabet only, no whitespace, length a multiple of 4,
 * '=' only at the end, zero padding bits) and mallocs *out (caller frees). */
char *gc_base64_encode(const void *data, size_t len);
int gc_base64_decode(const char *s, uint8_t **out, size_t *len, gc_err *err);

#endif

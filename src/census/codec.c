/* Histogram <-> bytes, zlib helpers and base64.
 *
 * Encoded histograms travel through MPI, shard files and JSON, and are read
 * back by rank 0 from whatever is on disk, so the decoder treats its input as
 * hostile: every length is bounded before use, inflating stops at the size
 * the header announces (never more than GC_CODEC_MAX_RAW), and the decoded
 * histogram must be self-consistent. The encoding is canonical (trimmed
 * bucket range, maximal zero runs), and the decoder accepts only canonical
 * input, so a given histogram has exactly one body. */
#include "census/codec.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const uint8_t MAGIC[3] = {'G', 'C', 'H'};
#define HEADER_BYTES 12 /* magic(3) version(1) raw_len(4) crc32(4) */

/* ---- zlib helpers ---- */

int gc_deflate(const void *in, size_t len, gc_wbuf *out, gc_err *err)
{
    if (len > UINT_MAX)
        return gc_fail(err, GC_EINVAL, "deflate input of %zu bytes too large", len);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* Histogram bodies are small: a window and hash table sized to the input
     * make deflate's set-up (which dominates for small inputs) much cheaper,
     * and any zlib inflater reads the result. */
    int window_bits = 9;
    while (window_bits < 15 && ((size_t)1 << window_bits) < len)
        window_bits++;
    int mem_level = window_bits - 6 < 1 ? 1 : window_bits - 6 > 8 ? 8 : window_bits - 6;
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, mem_level,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return gc_fail(err, GC_ENOMEM, "deflateInit failed");
    uLong bound = deflateBound(&zs, (uLong)len);
    uint8_t *dst = gc_wbuf_reserve(out, bound);
    if (!dst) {
        deflateEnd(&zs);
        return gc_fail(err, GC_ENOMEM, "out of memory for %lu deflated bytes", bound);
    }
    zs.next_in = (Bytef *)(uintptr_t)in;   /* zlib's API is not const-correct */
    zs.avail_in = (uInt)len;
    zs.next_out = dst;
    zs.avail_out = (uInt)bound;
    int rc = deflate(&zs, Z_FINISH);       /* one call suffices with deflateBound */
    size_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return gc_fail(err, GC_EINVAL, "deflate failed (zlib %d)", rc);
    out->len += produced;
    return GC_OK;
}

int gc_deflate_raw(const void *in, size_t len, int final, gc_wbuf *out, uint32_t *adler,
                   gc_err *err)
{
    if (len > UINT_MAX)
        return gc_fail(err, GC_EINVAL, "deflate input of %zu bytes too large", len);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return gc_fail(err, GC_ENOMEM, "deflateInit failed");
    uLong bound = deflateBound(&zs, (uLong)len) + 16;   /* + a full flush's empty block */
    uint8_t *dst = gc_wbuf_reserve(out, bound);
    if (!dst) {
        deflateEnd(&zs);
        return gc_fail(err, GC_ENOMEM, "out of memory for %lu deflated bytes", bound);
    }
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    zs.next_out = dst;
    zs.avail_out = (uInt)bound;
    int rc = deflate(&zs, final ? Z_FINISH : Z_FULL_FLUSH);
    int ok = final ? rc == Z_STREAM_END : rc == Z_OK && zs.avail_in == 0 && zs.avail_out > 0;
    size_t produced = zs.total_out;
    deflateEnd(&zs);
    if (!ok)
        return gc_fail(err, GC_EINVAL, "deflate failed (zlib %d)", rc);
    out->len += produced;
    *adler = (uint32_t)adler32(adler32(0L, Z_NULL, 0), (const Bytef *)in, (uInt)len);
    return GC_OK;
}

int gc_zlib_join(const void *a, size_t alen, uint32_t adler_a, const void *b, size_t blen,
                 uint32_t adler_b, size_t b_raw_len, gc_wbuf *out)
{
    static const uint8_t header[2] = { 0x78, 0x9c };   /* 32 KiB window, default level */
    gc_put_bytes(out, header, 2);
    gc_put_bytes(out, a, alen);
    gc_put_bytes(out, b, blen);
    uint32_t ad = (uint32_t)adler32_combine(adler_a, adler_b, (z_off_t)b_raw_len);
    const uint8_t be[4] = { (uint8_t)(ad >> 24), (uint8_t)(ad >> 16), (uint8_t)(ad >> 8), (uint8_t)ad };
    gc_put_bytes(out, be, 4);
    return out->oom ? GC_ENOMEM : GC_OK;
}

/* Inflates exactly one zlib stream that must fill exactly expect_len bytes
 * and end exactly at the end of the input. The output buffer is allocated
 * once at expect_len (checked against cap), so a stream that would inflate
 * to more - a bomb - is caught by probing for one more byte, never by
 * allocating for it. */
int gc_inflate(const void *in, size_t len, size_t expect_len, size_t cap,
               uint8_t **out, gc_err *err)
{
    *out = NULL;
    if (expect_len > cap)
        return gc_fail(err, GC_ECORRUPT,
                       "zlib stream claims %zu bytes, more than the cap of %zu",
                       expect_len, cap);
    if (len > UINT_MAX || expect_len > UINT_MAX)
        return gc_fail(err, GC_ECORRUPT, "zlib stream too large");
    uint8_t *buf = malloc(expect_len ? expect_len : 1);
    if (!buf)
        return gc_fail(err, GC_ENOMEM, "out of memory for %zu inflated bytes", expect_len);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) {
        free(buf);
        return gc_fail(err, GC_ENOMEM, "inflateInit failed");
    }
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    zs.next_out = buf;
    zs.avail_out = (uInt)expect_len;
    int rc = Z_OK;
    while (rc == Z_OK && zs.avail_out > 0)
        rc = inflate(&zs, Z_FINISH);   /* one shot: spares zlib its window copy */
    if ((rc == Z_OK || rc == Z_BUF_ERROR) && zs.avail_out == 0) {
        /* Output full but end of stream not seen: does it want to write more? */
        uint8_t probe;
        zs.next_out = &probe;
        zs.avail_out = 1;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (zs.avail_out == 0) {
            inflateEnd(&zs);
            free(buf);
            return gc_fail(err, GC_ECORRUPT,
                           "zlib stream inflates to more than the stated %zu bytes",
                           expect_len);
        }
    }
    size_t produced = zs.total_out;
    size_t unused_in = zs.avail_in;
    inflateEnd(&zs);
    const char *why = NULL;
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR || rc == Z_MEM_ERROR)
        why = "corrupt zlib stream";
    else if (rc != Z_STREAM_END)
        why = "truncated zlib stream";
    else if (produced != expect_len)
        why = "zlib stream shorter than its stated length";
    else if (unused_in != 0)
        why = "trailing bytes after the zlib stream";
    if (why) {
        free(buf);
        return gc_fail(err, rc == Z_MEM_ERROR ? GC_ENOMEM : GC_ECORRUPT,
                       "%s (stated %zu bytes, inflated %zu)", why, expect_len, produced);
    }
    *out = buf;
    return GC_OK;
}

/* ---- histogram body ---- */

static void put_counts(gc_wbuf *w, const uint64_t *counts, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        if (counts[i]) {
            gc_put_varint(w, counts[i++]);
            continue;
        }
        uint32_t run = 0;
        while (i < n && counts[i] == 0) {
            run++;
            i++;
        }
        gc_put_varint(w, 0);
        gc_put_varint(w, run);
    }
}

static void put_body(gc_wbuf *w, const gc_hist *h)
{
    uint32_t first = 0, n = 0;
    if (h->total) {
        uint32_t last = h->n;
        while (first < h->n && h->counts[first] == 0)
            first++;
        while (last > first && h->counts[last - 1] == 0)
            last--;
        n = last - first;
    }
    gc_put_varint(w, h->sub_bits);
    gc_put_varint(w, n ? h->lo + first : 0);
    gc_put_varint(w, n);
    gc_put_varint(w, h->total);
    gc_put_varint(w, h->min);
    gc_put_varint(w, h->max);
    gc_put_f64(w, h->sum);
    gc_put_f64(w, h->sumsq);
    if (n)
        put_counts(w, h->counts + first, n);
}

int gc_hist_encode(const gc_hist *h, gc_wbuf *out, gc_err *err)
{
    if (h->sub_bits < GC_HIST_MIN_SUB_BITS || h->sub_bits > GC_HIST_MAX_SUB_BITS)
        return gc_fail(err, GC_EINVAL, "cannot encode histogram of sub_bits %u", h->sub_bits);
    gc_wbuf body = {0};
    put_body(&body, h);
    if (body.oom) {
        gc_wbuf_free(&body);
        return gc_fail(err, GC_ENOMEM, "out of memory encoding histogram");
    }
    if (body.len > GC_CODEC_MAX_RAW) {
        size_t n = body.len;
        gc_wbuf_free(&body);
        return gc_fail(err, GC_EINVAL, "encoded histogram body of %zu bytes exceeds %u",
                       n, GC_CODEC_MAX_RAW);
    }
    size_t start = out->len;
    gc_put_bytes(out, MAGIC, sizeof MAGIC);
    gc_put_u8(out, GC_CODEC_VERSION);
    gc_put_u32le(out, (uint32_t)body.len);
    gc_put_u32le(out, gc_crc32(body.data, body.len));
    int rc = out->oom ? gc_fail(err, GC_ENOMEM, "out of memory encoding histogram")
                      : gc_deflate(body.data, body.len, out, err);
    gc_wbuf_free(&body);
    if (rc && !out->oom)
        out->len = start;   /* leave out as it was */
    return rc;
}

/* Reads n run-length coded counts into c, checking canonical form and that
 * they add up to total without overflow. */
static int get_counts(gc_rbuf *r, uint64_t *c, uint32_t n, uint64_t total, gc_err *err)
{
    uint64_t sum = 0;
    int prev_zero_run = 0;
    for (uint32_t i = 0; i < n;) {
        uint64_t v = gc_get_varint(r);
        if (r->bad)
            return gc_fail(err, GC_ECORRUPT, "histogram counts truncated at bucket %u of %u", i, n);
        if (v) {
            if (v > total - sum)
                return gc_fail(err, GC_ECORRUPT, "histogram counts exceed total %llu",
                               (unsigned long long)total);
            sum += v;
            c[i++] = v;
            prev_zero_run = 0;
            continue;
        }
        uint64_t run = gc_get_varint(r);
        if (r->bad)
            return gc_fail(err, GC_ECORRUPT, "histogram zero run truncated at bucket %u", i);
        if (i == 0 || prev_zero_run || run == 0 || run >= n - i)
            return gc_fail(err, GC_ECORRUPT,
                           "bad zero run of %llu at bucket %u of %u (edges must be "
                           "non-zero, runs maximal)", (unsigned long long)run, i, n);
        memset(c + i, 0, (size_t)run * sizeof *c);
        i += (uint32_t)run;
        prev_zero_run = 1;
    }
    if (sum != total)
        return gc_fail(err, GC_ECORRUPT, "histogram counts sum to %llu, total says %llu",
                       (unsigned long long)sum, (unsigned long long)total);
    return GC_OK;
}

static int check_empty(const gc_hist *h, uint64_t lo, uint64_t n, gc_err *err)
{
    if (lo != 0 || n != 0 || h->min != UINT64_MAX || h->max != 0 ||
        h->sum != 0.0 || h->sumsq != 0.0)
        return gc_fail(err, GC_ECORRUPT, "empty histogram with non-empty fields");
    return GC_OK;
}

/* min and max must lie in the first and last occupied buckets. */
static int check_range(const gc_hist *h, gc_err *err)
{
    if (h->min > h->max)
        return gc_fail(err, GC_ECORRUPT, "histogram min %llu > max %llu",
                       (unsigned long long)h->min, (unsigned long long)h->max);
    uint32_t bmin = gc_hist_bucket_of(h->sub_bits, h->min);
    uint32_t bmax = gc_hist_bucket_of(h->sub_bits, h->max);
    if (bmin != h->lo || bmax != h->lo + h->n - 1)
        return gc_fail(err, GC_ECORRUPT,
                       "histogram min/max (buckets %u, %u) disagree with occupied "
                       "buckets [%u, %u]", bmin, bmax, h->lo, h->lo + h->n - 1);
    if (!isfinite(h->sum) || !isfinite(h->sumsq) || h->sum < 0.0 || h->sumsq < 0.0)
        return gc_fail(err, GC_ECORRUPT, "histogram moments not finite and non-negative");
    return GC_OK;
}

static int get_body(gc_rbuf *r, gc_hist *h, gc_err *err)
{
    uint64_t sub_bits = gc_get_varint(r);
    uint64_t lo = gc_get_varint(r);
    uint64_t n = gc_get_varint(r);
    uint64_t total = gc_get_varint(r);
    uint64_t mn = gc_get_varint(r);
    uint64_t mx = gc_get_varint(r);
    double sum = gc_get_f64(r);
    double sumsq = gc_get_f64(r);
    if (r->bad)
        return gc_fail(err, GC_ECORRUPT, "histogram header truncated or malformed");
    if (sub_bits < GC_HIST_MIN_SUB_BITS || sub_bits > GC_HIST_MAX_SUB_BITS)
        return gc_fail(err, GC_ECORRUPT, "histogram sub_bits %llu outside [%d, %d]",
                       (unsigned long long)sub_bits, GC_HIST_MIN_SUB_BITS,
                       GC_HIST_MAX_SUB_BITS);
    uint32_t buckets = gc_hist_bucket_count((uint32_t)sub_bits);
    if (n > buckets || lo > buckets - n)
        return gc_fail(err, GC_ECORRUPT,
                       "histogram range lo=%llu n=%llu exceeds %u buckets",
                       (unsigned long long)lo, (unsigned long long)n, buckets);
    if ((n == 0) != (total == 0))
        return gc_fail(err, GC_ECORRUPT, "histogram has %llu buckets but total %llu",
                       (unsigned long long)n, (unsigned long long)total);
    gc_hist_init(h, (uint32_t)sub_bits, NULL);
    h->total = total;
    h->min = mn;
    h->max = mx;
    h->sum = sum;
    h->sumsq = sumsq;
    if (total == 0)
        return check_empty(h, lo, n, err);
    h->lo = (uint32_t)lo;
    h->n = (uint32_t)n;
    int rc = check_range(h, err);
    if (rc)
        return rc;
    h->counts = malloc((size_t)n * sizeof *h->counts);
    if (!h->counts)
        return gc_fail(err, GC_ENOMEM, "out of memory for %llu histogram buckets",
                       (unsigned long long)n);
    h->cap = (uint32_t)n;
    rc = get_counts(r, h->counts, (uint32_t)n, total, err);
    if (rc)
        return rc;
    if (h->counts[0] == 0 || h->counts[n - 1] == 0)
        return gc_fail(err, GC_ECORRUPT, "histogram range has empty edge buckets");
    return GC_OK;
}

/* On failure h is left empty (initialised, nothing to free beyond
 * gc_hist_free, which is always safe). */
int gc_hist_decode(const void *data, size_t len, gc_hist *h, gc_err *err)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
    gc_rbuf r;
    gc_rbuf_init(&r, data, len);
    const uint8_t *magic = gc_get_bytes(&r, sizeof MAGIC);
    uint8_t version = gc_get_u8(&r);
    uint32_t raw_len = gc_get_u32le(&r);
    uint32_t crc = gc_get_u32le(&r);
    if (r.bad)
        return gc_fail(err, GC_ECORRUPT, "encoded histogram truncated: %zu bytes, header "
                       "needs %d", len, HEADER_BYTES);
    if (memcmp(magic, MAGIC, sizeof MAGIC) != 0)
        return gc_fail(err, GC_ECORRUPT, "not an encoded histogram (bad magic)");
    if (version != GC_CODEC_VERSION)
        return gc_fail(err, GC_ECORRUPT, "encoded histogram version %u, expected %d",
                       version, GC_CODEC_VERSION);
    if (raw_len > GC_CODEC_MAX_RAW)
        return gc_fail(err, GC_ECORRUPT, "encoded histogram body of %u bytes exceeds cap %u",
                       raw_len, GC_CODEC_MAX_RAW);
    uint8_t *body = NULL;
    size_t zlen = gc_rbuf_left(&r);
    int rc = gc_inflate(gc_get_bytes(&r, zlen), zlen, raw_len, GC_CODEC_MAX_RAW, &body, err);
    if (rc)
        return rc;
    if (gc_crc32(body, raw_len) != crc) {
        free(body);
        return gc_fail(err, GC_ECORRUPT, "encoded histogram CRC mismatch");
    }
    gc_rbuf br;
    gc_rbuf_init(&br, body, raw_len);
    rc = get_body(&br, h, err);
    if (!rc && gc_rbuf_left(&br) != 0)
        rc = gc_fail(err, GC_ECORRUPT, "%zu trailing bytes in histogram body",
                     gc_rbuf_left(&br));
    free(body);
    if (rc) {
        uint32_t sub_bits = h->sub_bits;
        gc_hist_free(h);
        h->sub_bits = sub_bits;
    }
    return rc;
}

/* ---- base64 ---- */

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *gc_base64_encode(const void *data, size_t len)
{
    const uint8_t *p = data;
    if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
        return NULL;
    size_t out_len = (len + 2) / 3 * 4;
    char *s = malloc(out_len + 1), *o = s;
    if (!s)
        return NULL;
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = B64[(v >> 6) & 63];
        *o++ = B64[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = B64[(v >> 6) & 63];
        *o++ = '=';
    }
    *o = '\0';
    return s;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict: length a multiple of 4, only alphabet characters, '=' only as the
 * last one or two, and the bits that padding discards must be zero (so each
 * byte string has one encoding). */
int gc_base64_decode(const char *s, uint8_t **out, size_t *len, gc_err *err)
{
    *out = NULL;
    *len = 0;
    size_t n = strlen(s);
    if (n % 4 != 0)
        return gc_fail(err, GC_ECORRUPT, "base64 length %zu is not a multiple of 4", n);
    size_t pad = 0;
    if (n >= 1 && s[n - 1] == '=')
        pad++;
    if (n >= 2 && s[n - 2] == '=')
        pad++;
    size_t dlen = n / 4 * 3 - pad;
    uint8_t *d = malloc(dlen ? dlen : 1);
    if (!d)
        return gc_fail(err, GC_ENOMEM, "out of memory decoding base64");
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int q[4];
        for (size_t j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)s[i + j];
            int is_pad = last && c == '=' && j >= 4 - pad;
            q[j] = is_pad ? 0 : b64_value(c);
            if (q[j] < 0) {
                free(d);
                return gc_fail(err, GC_ECORRUPT, "bad base64 character at offset %zu",
                               i + j);
            }
        }
        uint32_t v = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)q[2] << 6 |
                     (uint32_t)q[3];
        if (last && ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))) {
            free(d);
            return gc_fail(err, GC_ECORRUPT, "base64 padding hides non-zero bits");
        }
        size_t take = last ? 3 - pad : 3;
        for (size_t j = 0; j < take; j++)
            d[o++] = (uint8_t)(v >> (16 - 8 * j));
    }
    *out = d;
    *len = dlen;
    return GC_OK;
}

/* Unit tests of the histogram codec, the zlib helpers and base64: round
 * trips, every truncation and every bit flip of real encodings, inflate
 * bombs, trailing bytes, hand-made inconsistent bodies, strict base64. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include "check.h"
#include "census/codec.h"

static uint64_t rng_state = 42;

static uint64_t rng_u64(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum { H_EMPTY, H_ONE, H_LATENCY, H_BANDWIDTH, H_TINY, H_HUGE, H_DISJOINT, H_COARSE,
       H_FINE, N_CASES };

static void make_case(int which, gc_hist *h)
{
    gc_hist_init(h, which == H_COARSE ? 1 : which == H_FINE ? 14 : 6, NULL);
    switch (which) {
    case H_ONE:
        gc_hist_record(h, 424242);
        break;
    case H_LATENCY:   /* three modes: L1, L2, DRAM-ish cycles */
        for (int i = 0; i < 20000; i++) {
            uint64_t mode = rng_u64() % 3;
            uint64_t base = mode == 0 ? 32 : mode == 1 ? 210 : 800;
            gc_hist_record(h, base + rng_u64() % (base / 8 + 1));
        }
        break;
    case H_BANDWIDTH:
        for (int i = 0; i < 2000; i++)
            gc_hist_record(h, 3000000000000ull + rng_u64() % 60000000000ull - 30000000000ull);
        break;
    case H_TINY:
        for (int i = 0; i < 1000; i++)
            gc_hist_record(h, rng_u64() % 11);
        break;
    case H_HUGE:
        gc_hist_record_n(h, UINT64_MAX, 3);
        gc_hist_record(h, UINT64_MAX - 12345678901234ull);
        break;
    case H_DISJOINT:
        gc_hist_record_n(h, 5, 10);
        gc_hist_record_n(h, 1000000, 7);
        gc_hist_record_n(h, 1ull << 50, 1);
        break;
    case H_COARSE:
    case H_FINE:
        for (int i = 0; i < 2000; i++)
            gc_hist_record(h, rng_u64() >> (rng_u64() % 64));
        break;
    default:
        break;
    }
}

static int encode(const gc_hist *h, gc_wbuf *w)
{
    gc_err err = {0};
    int rc = gc_hist_encode(h, w, &err);
    CHECK(rc == 0, "encode: %s", err.msg);
    return rc;
}

static void test_roundtrip(void)
{
    for (int c = 0; c < N_CASES; c++) {
        gc_hist h, d;
        make_case(c, &h);
        gc_wbuf w = {0};
        gc_put_bytes(&w, "xy", 2);   /* encode appends */
        if (encode(&h, &w) == 0) {
            gc_err err = {0};
            int rc = gc_hist_decode(w.data + 2, w.len - 2, &d, &err);
            CHECK(rc == 0, "case %d decode: %s", c, err.msg);
            CHECK(memcmp(w.data, "xyGCH\x01", 6) == 0, "case %d prefix kept, magic", c);
            CHECK(rc == 0 && gc_hist_equal(&h, &d), "case %d round trip equal", c);
            CHECK(rc == 0 && d.sum == h.sum && d.sumsq == h.sumsq && d.total == h.total,
                  "case %d moments bit-exact", c);
            CHECK(rc == 0 && gc_hist_quantile(&d, 0.99) == gc_hist_quantile(&h, 0.99),
                  "case %d same p99", c);
            CHECK(d.cap == d.n, "case %d decoded storage is tight (n=%u cap=%u)", c, d.n, d.cap);
            /* Canonical: re-encoding the decoded histogram gives the same bytes. */
            gc_wbuf w2 = {0};
            encode(&d, &w2);
            CHECK(w2.len == w.len - 2 && memcmp(w2.data, w.data + 2, w2.len) == 0,
                  "case %d re-encoding identical", c);
            gc_wbuf_free(&w2);
            gc_hist_free(&d);
        }
        gc_wbuf_free(&w);
        gc_hist_free(&h);
    }
    /* A histogram with zero edges in memory (grown downwards, then reset
     * and refilled) encodes trimmed. */
    gc_hist h, d;
    gc_hist_init(&h, 6, NULL);
    gc_hist_record(&h, 100000);
    gc_hist_record(&h, 10);        /* grows down with headroom: zero edge */
    gc_hist_reset(&h);
    gc_hist_record(&h, 5000);
    gc_wbuf w = {0};
    encode(&h, &w);
    CHECK(gc_hist_decode(w.data, w.len, &d, NULL) == 0 && d.n == 1 && gc_hist_equal(&h, &d),
          "trimmed range n=%u", d.n);
    gc_hist_free(&d);
    gc_hist_free(&h);
    gc_wbuf_free(&w);
}

static void test_truncation_and_bitflips(void)
{
    for (int c = 0; c < N_CASES; c++) {
        gc_hist h, d;
        make_case(c, &h);
        gc_wbuf w = {0};
        encode(&h, &w);
        int bad_trunc = 0;
        for (size_t cut = 0; cut < w.len; cut++) {
            gc_err err = {0};
            int rc = gc_hist_decode(w.data, cut, &d, &err);
            bad_trunc += rc != GC_ECORRUPT || err.msg[0] == 0 || d.counts != NULL;
            gc_hist_free(&d);
        }
        CHECK(bad_trunc == 0, "case %d: %d of %zu truncations not rejected", c, bad_trunc,
              w.len);
        int bad_flip = 0, accepted = 0;
        uint8_t *copy = malloc(w.len);
        for (size_t i = 0; i < w.len * 8; i++) {
            memcpy(copy, w.data, w.len);
            copy[i / 8] ^= (uint8_t)(1u << (i % 8));
            int rc = gc_hist_decode(copy, w.len, &d, NULL);
            if (rc == 0) {
                accepted++;
                bad_flip += !gc_hist_equal(&h, &d);
            } else {
                bad_flip += rc != GC_ECORRUPT;
            }
            gc_hist_free(&d);
        }
        /* Only bits deflate ignores may flip unnoticed (padding after the
         * final block, code lengths of symbols the block never uses), and
         * then the histogram must be unchanged. */
        CHECK(bad_flip == 0 && (size_t)accepted <= 8 + w.len * 8 / 1000, "case %d: %d bad flips, %d accepted of %zu", c,
              bad_flip, accepted, w.len * 8);
        free(copy);
        gc_wbuf_free(&w);
        gc_hist_free(&h);
    }
}

/* Wraps an arbitrary body into a valid envelope, so the body checks (not
 * the CRC) are what rejects it. */
static void envelope(gc_wbuf *out, const gc_wbuf *body, uint32_t raw_len)
{
    gc_put_bytes(out, "GCH", 3);
    gc_put_u8(out, GC_CODEC_VERSION);
    gc_put_u32le(out, raw_len);
    gc_put_u32le(out, gc_crc32(body->data, body->len));
    gc_deflate(body->data, body->len, out, NULL);
}

struct body {
    uint64_t sub_bits, lo, n, total, min, max;
    double sum, sumsq;
    int ncounts;
    uint64_t counts[8];
};

static int decode_body(const struct body *b, const char *expect_in_msg)
{
    gc_wbuf body = {0}, enc = {0};
    gc_put_varint(&body, b->sub_bits);
    gc_put_varint(&body, b->lo);
    gc_put_varint(&body, b->n);
    gc_put_varint(&body, b->total);
    gc_put_varint(&body, b->min);
    gc_put_varint(&body, b->max);
    gc_put_f64(&body, b->sum);
    gc_put_f64(&body, b->sumsq);
    for (int i = 0; i < b->ncounts; i++)
        gc_put_varint(&body, b->counts[i]);
    envelope(&enc, &body, (uint32_t)body.len);
    gc_hist h;
    gc_err err = {0};
    int rc = gc_hist_decode(enc.data, enc.len, &h, &err);
    if (expect_in_msg)
        CHECK(rc == GC_ECORRUPT && strstr(err.msg, expect_in_msg),
              "expected '%s', got rc=%d '%s'", expect_in_msg, rc, err.msg);
    gc_hist_free(&h);
    gc_wbuf_free(&body);
    gc_wbuf_free(&enc);
    return rc;
}

static void test_inconsistent_bodies(void)
{
    /* Valid reference: values 64 (bucket 64) x2 and 70 (bucket 70) x1, s=6,
     * range [64, 71) with a zero run of 5 between. */
    const struct body ok = {6, 64, 7, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 3, {2, 0, 5, 1}};
    struct body b = ok;
    b.ncounts = 4;
    CHECK(decode_body(&b, NULL) == 0, "reference body decodes");

    b = ok; b.ncounts = 4; b.total = 4;
    decode_body(&b, "sum to");
    b = ok; b.ncounts = 4; b.counts[0] = 3;
    decode_body(&b, "exceed total");
    b = ok; b.ncounts = 4; b.sub_bits = 0;
    decode_body(&b, "sub_bits");
    b = ok; b.ncounts = 4; b.sub_bits = 15;
    decode_body(&b, "sub_bits");
    b = ok; b.ncounts = 4; b.n = gc_hist_bucket_count(6) + 1;
    decode_body(&b, "exceeds");
    b = ok; b.ncounts = 4; b.lo = UINT32_MAX - 2;   /* lo + n overflows 32 bits */
    decode_body(&b, "exceeds");
    b = ok; b.ncounts = 4; b.lo = UINT64_MAX;
    decode_body(&b, "exceeds");
    b = ok; b.ncounts = 4; b.min = 65;              /* still bucket 65, not 64 */
    decode_body(&b, "min/max");
    b = ok; b.ncounts = 4; b.max = 71;
    decode_body(&b, "min/max");
    b = ok; b.ncounts = 4; b.min = 80; b.max = 70;
    decode_body(&b, "min");
    b = ok; b.ncounts = 4; b.sum = NAN;
    decode_body(&b, "moments");
    b = ok; b.ncounts = 4; b.sumsq = -1.0;
    decode_body(&b, "moments");
    b = ok; b.ncounts = 4; b.total = 0;
    decode_body(&b, "buckets but total");
    /* Non-canonical counts: two zero runs in a row, empty run, run to the end,
     * run past the end, a zero-run at the start. */
    b = (struct body){6, 64, 7, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 6, {2, 0, 2, 0, 3, 1}};
    decode_body(&b, "zero run");
    b = (struct body){6, 64, 7, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 5, {2, 0, 0, 0, 5}};
    decode_body(&b, "zero run");
    b = (struct body){6, 64, 7, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 5, {2, 1, 0, 5, 0}};
    decode_body(&b, "zero run");
    b = (struct body){6, 64, 7, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 4, {2, 0, 9, 1}};
    decode_body(&b, "zero run");
    b = (struct body){6, 63, 8, 3, 64, 70, 198, 64 * 64 * 2 + 70 * 70, 5, {0, 1, 2, 0, 5}};
    decode_body(&b, "min/max");
    b = ok; b.ncounts = 3;                          /* body ends early */
    decode_body(&b, "truncated");
    b = ok; b.ncounts = 5; b.counts[4] = 9;         /* one byte too many */
    decode_body(&b, "trailing bytes in histogram body");
    /* Empty histograms must be fully empty. */
    b = (struct body){6, 0, 0, 0, UINT64_MAX, 0, 0, 0, 0, {0}};
    CHECK(decode_body(&b, NULL) == 0, "canonical empty decodes");
    b.min = 5;
    decode_body(&b, "empty histogram");
    b = (struct body){6, 7, 0, 0, UINT64_MAX, 0, 0, 0, 0, {0}};
    decode_body(&b, "empty histogram");
}

static void test_envelope_errors(void)
{
    gc_hist h;
    make_case(H_LATENCY, &h);
    gc_wbuf w = {0};
    encode(&h, &w);
    gc_err err = {0};
    gc_hist d;
    uint8_t *copy = malloc(w.len + 1);

    memcpy(copy, w.data, w.len);
    copy[w.len] = 0;
    CHECK(gc_hist_decode(copy, w.len + 1, &d, &err) == GC_ECORRUPT &&
          strstr(err.msg, "trailing bytes after the zlib stream"), "trailing: %s", err.msg);
    memcpy(copy, w.data, w.len);
    copy[3] = 2;
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT && strstr(err.msg, "version"),
          "version: %s", err.msg);
    copy[3] = 1;
    copy[0] = 'X';
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT && strstr(err.msg, "magic"),
          "magic: %s", err.msg);
    copy[0] = 'G';
    /* raw_len beyond the cap: refused before any inflating. */
    uint32_t big = GC_CODEC_MAX_RAW + 1;
    memcpy(copy + 4, &(uint8_t[4]){(uint8_t)big, (uint8_t)(big >> 8), (uint8_t)(big >> 16),
                                   (uint8_t)(big >> 24)}, 4);
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT && strstr(err.msg, "exceeds cap"),
          "raw_len cap: %s", err.msg);
    memcpy(copy, w.data, w.len);
    copy[8] ^= 1;   /* CRC field */
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT && strstr(err.msg, "CRC"),
          "crc: %s", err.msg);
    memcpy(copy, w.data, w.len);
    copy[4] = (uint8_t)(copy[4] - 1);   /* stated one byte shorter than the body */
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT &&
          strstr(err.msg, "more than the stated"), "short raw_len: %s", err.msg);
    memcpy(copy, w.data, w.len);
    copy[4] = (uint8_t)(copy[4] + 1);
    CHECK(gc_hist_decode(copy, w.len, &d, &err) == GC_ECORRUPT && strstr(err.msg, "shorter"),
          "long raw_len: %s", err.msg);
    free(copy);
    gc_wbuf_free(&w);
    gc_hist_free(&h);
}

/* Deflates `total` zero bytes without ever holding them in memory. */
static void deflate_zeros(size_t total, gc_wbuf *out)
{
    static uint8_t zeros[1 << 16];
    uint8_t buf[1 << 14];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit(&zs, 9);
    int flush;
    do {
        size_t chunk = total < sizeof zeros ? total : sizeof zeros;
        total -= chunk;
        flush = total ? Z_NO_FLUSH : Z_FINISH;
        zs.next_in = zeros;
        zs.avail_in = (uInt)chunk;
        do {
            zs.next_out = buf;
            zs.avail_out = sizeof buf;
            deflate(&zs, flush);
            gc_put_bytes(out, buf, sizeof buf - zs.avail_out);
        } while (zs.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&zs);
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_inflate_bomb(void)
{
    /* A real body, inflated back by the helper; later followed, inside the
     * same zlib stream, by zeros the header does not announce. */
    gc_hist h;
    make_case(H_ONE, &h);
    gc_wbuf enc = {0};
    encode(&h, &enc);
    uint8_t *body = NULL;
    uint32_t raw_len = (uint32_t)enc.data[4] | (uint32_t)enc.data[5] << 8;
    CHECK(gc_inflate(enc.data + 12, enc.len - 12, raw_len, GC_CODEC_MAX_RAW, &body, NULL) == 0,
          "inflate helper reads our own stream");

    /* 256 MiB of zeros in ~256 KiB: inflating must stop at the stated size
     * and never allocate more (peak RSS barely moves). */
    gc_wbuf bomb = {0};
    deflate_zeros((size_t)256 << 20, &bomb);
    CHECK(bomb.len < 2 << 20, "bomb is small: %zu bytes", bomb.len);
    long rss_before = max_rss_kib();
    gc_err err = {0};
    uint8_t *out = NULL;
    int rc = gc_inflate(bomb.data, bomb.len, 4096, GC_CODEC_MAX_RAW, &out, &err);
    CHECK(rc == GC_ECORRUPT && out == NULL && strstr(err.msg, "more than"),
          "bomb refused: %s", err.msg);
    rc = gc_inflate(bomb.data, bomb.len, (size_t)1 << 30, GC_CODEC_MAX_RAW, &out, &err);
    CHECK(rc == GC_ECORRUPT && strstr(err.msg, "cap"), "over-cap expect refused: %s", err.msg);
    CHECK(max_rss_kib() - rss_before < 8 * 1024, "bomb allocated %ld KiB",
          max_rss_kib() - rss_before);

    /* The same through the histogram decoder: body then zeros in one stream. */
    gc_wbuf stream_in = {0}, full = {0};
    gc_put_bytes(&stream_in, body, raw_len);
    static uint8_t zeros[1 << 20];
    gc_put_bytes(&stream_in, zeros, sizeof zeros);
    gc_put_bytes(&full, "GCH\x01", 4);
    gc_put_u32le(&full, raw_len);
    gc_put_u32le(&full, gc_crc32(body, raw_len));
    gc_deflate(stream_in.data, stream_in.len, &full, NULL);
    gc_hist d;
    CHECK(gc_hist_decode(full.data, full.len, &d, &err) == GC_ECORRUPT &&
          strstr(err.msg, "more than the stated"), "codec bomb refused: %s", err.msg);

    /* Truncated and garbage streams. */
    CHECK(gc_inflate(bomb.data, bomb.len / 2, 4096, 1 << 20, &out, &err) == GC_ECORRUPT,
          "truncated stream: %s", err.msg);
    CHECK(gc_inflate("garbage!", 8, 16, 1 << 20, &out, &err) == GC_ECORRUPT,
          "garbage: %s", err.msg);
    CHECK(gc_inflate("", 0, 0, 16, &out, &err) == GC_ECORRUPT, "empty input: %s", err.msg);

    free(body);
    gc_hist_free(&h);
    gc_wbuf_free(&enc);
    gc_wbuf_free(&bomb);
    gc_wbuf_free(&stream_in);
    gc_wbuf_free(&full);
}

static void test_deflate_roundtrip(void)
{
    uint8_t data[5000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i % 17 == 0 ? rng_u64() : i);
    gc_wbuf w = {0};
    CHECK(gc_deflate(data, sizeof data, &w, NULL) == 0 && w.len < sizeof data, "deflate");
    uint8_t *out = NULL;
    CHECK(gc_inflate(w.data, w.len, sizeof data, sizeof data, &out, NULL) == 0 &&
          memcmp(out, data, sizeof data) == 0, "inflate round trip");
    free(out);
    CHECK(gc_inflate(w.data, w.len, sizeof data, sizeof data - 1, &out, NULL) == GC_ECORRUPT,
          "cap below the stated length");
    gc_wbuf_free(&w);
    CHECK(gc_deflate("", 0, &w, NULL) == 0 &&
          gc_inflate(w.data, w.len, 0, 0, &out, NULL) == 0 && out != NULL, "empty payload");
    free(out);
    gc_wbuf_free(&w);
}

static void test_base64(void)
{
    static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                                  "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *s = gc_base64_encode(plain[i], strlen(plain[i]));
        CHECK(s && strcmp(s, coded[i]) == 0, "encode '%s' -> '%s'", plain[i], s);
        free(s);
        uint8_t *out = NULL;
        size_t len = 99;
        CHECK(gc_base64_decode(coded[i], &out, &len, NULL) == 0 && len == strlen(plain[i]) &&
              memcmp(out, plain[i], len) == 0, "decode '%s'", coded[i]);
        free(out);
    }
    int bad = 0;
    for (size_t n = 0; n < 300; n++) {
        uint8_t data[300];
        for (size_t i = 0; i < n; i++)
            data[i] = (uint8_t)rng_u64();
        char *s = gc_base64_encode(data, n);
        uint8_t *out = NULL;
        size_t len = 0;
        bad += !s || strlen(s) != (n + 2) / 3 * 4 ||
               gc_base64_decode(s, &out, &len, NULL) != 0 || len != n ||
               memcmp(out, data, n) != 0;
        free(s);
        free(out);
    }
    CHECK(bad == 0, "%d random base64 round trips failed", bad);

    static const char *invalid[] = {"Zg=", "Zg", "Z", "Zg=a", "Z===", "====", "Zh==",
                                    "Zm9=", "Zm9v!A==", "=Zg=", "Zm=v", "Zg==Zg==",
                                    "Zm9v\n", " Zm9", "Zm9vY-==", "Zm9vYg_="};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        uint8_t *out = (uint8_t *)1;
        size_t len = 7;
        gc_err err = {0};
        int rc = gc_base64_decode(invalid[i], &out, &len, &err);
        CHECK(rc == GC_ECORRUPT && out == NULL && len == 0 && err.msg[0],
              "'%s' rejected (rc=%d)", invalid[i], rc);
    }

    /* An encoded histogram survives base64. */
    gc_hist h, d;
    make_case(H_LATENCY, &h);
    gc_wbuf w = {0};
    encode(&h, &w);
    char *s = gc_base64_encode(w.data, w.len);
    uint8_t *raw = NULL;
    size_t len = 0;
    CHECK(gc_base64_decode(s, &raw, &len, NULL) == 0 &&
          gc_hist_decode(raw, len, &d, NULL) == 0 && gc_hist_equal(&h, &d),
          "histogram through base64");
    free(s);
    free(raw);
    gc_wbuf_free(&w);
    gc_hist_free(&h);
    gc_hist_free(&d);
}

int main(void)
{
    test_roundtrip();
    test_truncation_and_bitflips();
    test_inconsistent_bodies();
    test_envelope_errors();
    test_inflate_bomb();
    test_deflate_roundtrip();
    test_base64();
    CHECK_DONE();
}

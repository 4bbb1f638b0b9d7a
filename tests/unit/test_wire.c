/* Unit tests of the byte buffers: varint and zigzag round trips at the
 * boundaries, rejection of over-long and overflowing varints, truncation at
 * every byte, fixed-width integers, f64, strings, sticky errors, CRC-32. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "util/wire.h"

static size_t varint_len(uint64_t v)
{
    gc_wbuf w = {0};
    gc_put_varint(&w, v);
    size_t n = w.len;
    gc_wbuf_free(&w);
    return n;
}

static void test_varint_roundtrip(void)
{
    static const uint64_t vals[] = {0, 1, 127, 128, 255, 256, 16383, 16384,
                                    (1ull << 21) - 1, 1ull << 21, (1ull << 35) - 1,
                                    1ull << 35, (1ull << 56) - 1, 1ull << 56,
                                    (1ull << 63) - 1, 1ull << 63, UINT64_MAX - 1,
                                    UINT64_MAX};
    static const size_t lens[] = {1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 6, 8, 9, 9, 10, 10, 10};
    size_t nv = sizeof vals / sizeof vals[0];
    gc_wbuf w = {0};
    for (size_t i = 0; i < nv; i++) {
        CHECK(varint_len(vals[i]) == lens[i], "len of %llu is %zu",
              (unsigned long long)vals[i], varint_len(vals[i]));
        gc_put_varint(&w, vals[i]);
    }
    gc_rbuf r;
    gc_rbuf_init(&r, w.data, w.len);
    for (size_t i = 0; i < nv; i++) {
        uint64_t got = gc_get_varint(&r);
        CHECK(got == vals[i] && !r.bad, "varint %llu -> %llu", (unsigned long long)vals[i],
              (unsigned long long)got);
    }
    CHECK(gc_rbuf_left(&r) == 0 && !r.bad, "all consumed");
    gc_get_varint(&r);
    CHECK(r.bad, "reading past the end marks bad");
    gc_wbuf_free(&w);

    /* Known encoding: 300 = 0xac 0x02. */
    gc_put_varint(&w, 300);
    CHECK(w.len == 2 && w.data[0] == 0xac && w.data[1] == 0x02, "300 encoding");
    gc_wbuf_free(&w);
}

static void test_svarint(void)
{
    static const int64_t vals[] = {0, -1, 1, -64, 63, -65, 64, INT32_MIN, INT32_MAX,
                                   INT64_MIN, INT64_MAX, INT64_MIN + 1};
    gc_wbuf w = {0};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        gc_put_svarint(&w, vals[i]);
    gc_rbuf r;
    gc_rbuf_init(&r, w.data, w.len);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        int64_t got = gc_get_svarint(&r);
        CHECK(got == vals[i], "svarint %lld -> %lld", (long long)vals[i], (long long)got);
    }
    CHECK(!r.bad && gc_rbuf_left(&r) == 0, "svarints consumed");
    gc_wbuf_free(&w);
    /* Zigzag: -1 -> 1, 1 -> 2, -64 -> 127 (one byte), 64 -> 128 (two). */
    gc_put_svarint(&w, -1);
    gc_put_svarint(&w, 1);
    gc_put_svarint(&w, -64);
    gc_put_svarint(&w, 64);
    CHECK(w.len == 5 && w.data[0] == 1 && w.data[1] == 2 && w.data[2] == 127 &&
          w.data[3] == 0x80 && w.data[4] == 0x01, "zigzag bytes");
    gc_wbuf_free(&w);
}

static int varint_rejected(const uint8_t *b, size_t n)
{
    gc_rbuf r;
    gc_rbuf_init(&r, b, n);
    uint64_t v = gc_get_varint(&r);
    return r.bad && v == 0 && r.pos == 0;
}

static void test_varint_reject(void)
{
    static const uint8_t overlong1[] = {0x80, 0x00};           /* 0 in two bytes */
    static const uint8_t overlong2[] = {0xff, 0x80, 0x00};     /* 127 in three */
    static const uint8_t overflow10[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0x02}; /* 2^64+ */
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x81, 0x00};
    static const uint8_t max10[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t overlong10[] = {0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x80, 0x80, 0x80, 0x80, 0x00};
    CHECK(varint_rejected(overlong1, sizeof overlong1), "0x80 0x00 rejected");
    CHECK(varint_rejected(overlong2, sizeof overlong2), "overlong 127 rejected");
    CHECK(varint_rejected(overflow10, sizeof overflow10), "65-bit value rejected");
    CHECK(varint_rejected(eleven, sizeof eleven), "11-byte varint rejected");
    CHECK(varint_rejected(overlong10, sizeof overlong10), "10-byte zero rejected");
    gc_rbuf r;
    gc_rbuf_init(&r, max10, sizeof max10);
    CHECK(gc_get_varint(&r) == UINT64_MAX && !r.bad, "UINT64_MAX accepted");
    static const uint8_t zero[] = {0x00};
    gc_rbuf_init(&r, zero, 1);
    CHECK(gc_get_varint(&r) == 0 && !r.bad, "single 0x00 is zero");
}

/* A record of mixed fields; cutting it at any byte must fail cleanly. */
static void test_truncation_everywhere(void)
{
    gc_wbuf w = {0};
    gc_put_u8(&w, 7);
    gc_put_varint(&w, UINT64_MAX);
    gc_put_u32le(&w, 0xdeadbeef);
    gc_put_svarint(&w, -123456789);
    gc_put_u64le(&w, 0x0123456789abcdefull);
    gc_put_f64(&w, -2.5);
    gc_put_str(&w, "gpu0");
    CHECK(!w.oom && w.len == 1 + 10 + 4 + 4 + 8 + 8 + 5, "record length %zu", w.len);
    int failures = 0;
    for (size_t cut = 0; cut <= w.len; cut++) {
        gc_rbuf r;
        gc_rbuf_init(&r, w.data, cut);
        char s[16];
        uint8_t a = gc_get_u8(&r);
        uint64_t b = gc_get_varint(&r);
        uint32_t c = gc_get_u32le(&r);
        int64_t d = gc_get_svarint(&r);
        uint64_t e = gc_get_u64le(&r);
        double f = gc_get_f64(&r);
        gc_get_str(&r, s, sizeof s);
        int ok = a == 7 && b == UINT64_MAX && c == 0xdeadbeef && d == -123456789 &&
                 e == 0x0123456789abcdefull && f == -2.5 && strcmp(s, "gpu0") == 0;
        if (cut == w.len)
            failures += !(ok && !r.bad && gc_rbuf_left(&r) == 0);
        else
            failures += !(r.bad && gc_rbuf_left(&r) == 0 && r.pos <= cut);
    }
    CHECK(failures == 0, "%d truncation points misbehaved", failures);
    gc_wbuf_free(&w);
}

static void test_sticky_and_bytes(void)
{
    static const uint8_t b[] = {1, 2, 3};
    gc_rbuf r;
    gc_rbuf_init(&r, b, sizeof b);
    CHECK(gc_get_bytes(&r, 4) == NULL && r.bad, "short get_bytes");
    CHECK(gc_get_u8(&r) == 0 && r.pos == 0, "sticky: later gets fail, no movement");
    gc_rbuf_init(&r, b, sizeof b);
    const uint8_t *p = gc_get_bytes(&r, 2);
    CHECK(p == b && gc_rbuf_left(&r) == 1, "get_bytes points into the buffer");
    CHECK(gc_get_bytes(&r, 0) != NULL && !r.bad, "zero bytes is fine");
    CHECK(gc_get_bytes(&r, SIZE_MAX) == NULL && r.bad, "huge n does not wrap");
    gc_rbuf_init(&r, NULL, 10);
    CHECK(gc_rbuf_left(&r) == 0 && gc_get_u8(&r) == 0 && r.bad, "NULL buffer is empty");
}

static void test_fixed_and_f64(void)
{
    gc_wbuf w = {0};
    gc_put_u32le(&w, 0x11223344);
    gc_put_u64le(&w, 0x8877665544332211ull);
    CHECK(w.len == 12 && w.data[0] == 0x44 && w.data[3] == 0x11 && w.data[4] == 0x11 &&
          w.data[11] == 0x88, "little-endian layout");
    static const double ds[] = {0.0, -0.0, 1.0, -1e300, 5e-324, INFINITY};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        gc_put_f64(&w, ds[i]);
    gc_put_f64(&w, NAN);
    gc_rbuf r;
    gc_rbuf_init(&r, w.data, w.len);
    CHECK(gc_get_u32le(&r) == 0x11223344 && gc_get_u64le(&r) == 0x8877665544332211ull,
          "fixed round trip");
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        double d = gc_get_f64(&r);
        CHECK(memcmp(&d, &ds[i], sizeof d) == 0, "f64 %g bit-exact", ds[i]);
    }
    CHECK(isnan(gc_get_f64(&r)) && !r.bad, "NaN survives");
    gc_wbuf_free(&w);
}

static void test_strings(void)
{
    gc_wbuf w = {0};
    gc_put_str(&w, "hello");
    gc_put_str(&w, "");
    gc_put_str(&w, NULL);
    gc_put_str(&w, "exactly15chars!");
    gc_rbuf r;
    gc_rbuf_init(&r, w.data, w.len);
    char s[16];
    gc_get_str(&r, s, sizeof s);
    CHECK(strcmp(s, "hello") == 0, "hello: '%s'", s);
    gc_get_str(&r, s, sizeof s);
    CHECK(s[0] == 0 && !r.bad, "empty string");
    gc_get_str(&r, s, sizeof s);
    CHECK(s[0] == 0 && !r.bad, "NULL written as empty");
    gc_get_str(&r, s, sizeof s);
    CHECK(strcmp(s, "exactly15chars!") == 0 && !r.bad, "cap-1 bytes fit: '%s'", s);

    /* One byte too long for the buffer. */
    gc_rbuf_init(&r, w.data, w.len);
    char small[5];
    gc_get_str(&r, small, sizeof small);
    CHECK(r.bad && small[0] == 0, "too long rejected");
    gc_wbuf_free(&w);

    /* Embedded NUL. */
    static const uint8_t nul[] = {3, 'a', 0, 'b'};
    gc_rbuf_init(&r, nul, sizeof nul);
    gc_get_str(&r, s, sizeof s);
    CHECK(r.bad && s[0] == 0, "embedded NUL rejected");
    /* Length beyond the buffer, and a length that would overflow size_t. */
    static const uint8_t longlen[] = {10, 'a', 'b'};
    gc_rbuf_init(&r, longlen, sizeof longlen);
    gc_get_str(&r, s, sizeof s);
    CHECK(r.bad, "length past end rejected");
    static const uint8_t hugelen[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    gc_rbuf_init(&r, hugelen, sizeof hugelen);
    gc_get_str(&r, s, sizeof s);
    CHECK(r.bad, "huge length rejected");
    gc_rbuf_init(&r, nul, sizeof nul);
    gc_get_str(&r, s, 0);
    CHECK(r.bad, "cap 0 rejected");
}

static void test_crc_and_growth(void)
{
    CHECK(gc_crc32("123456789", 9) == 0xcbf43926u, "CRC-32 check value");
    CHECK(gc_crc32("", 0) == 0, "CRC of nothing");
    gc_wbuf w = {0};
    for (uint32_t i = 0; i < 100000; i++)
        gc_put_u32le(&w, i);
    CHECK(!w.oom && w.len == 400000 && w.cap >= w.len, "growth to %zu", w.len);
    gc_rbuf r;
    gc_rbuf_init(&r, w.data, w.len);
    int bad = 0;
    for (uint32_t i = 0; i < 100000; i++)
        bad += gc_get_u32le(&r) != i;
    CHECK(bad == 0, "%d values differ after growth", bad);
    uint8_t *p = gc_wbuf_reserve(&w, 3);
    CHECK(p == w.data + w.len && w.cap >= w.len + 3, "reserve returns the tail");
    CHECK(gc_wbuf_reserve(&w, SIZE_MAX) == NULL && w.oom, "impossible reserve sets oom");
    size_t len = w.len;
    gc_put_u8(&w, 1);
    CHECK(w.len == len, "writes after oom are dropped");
    gc_wbuf_free(&w);
    CHECK(w.data == NULL && w.len == 0 && !w.oom, "free resets");
}

int main(void)
{
    test_varint_roundtrip();
    test_svarint();
    test_varint_reject();
    test_truncation_everywhere();
    test_sticky_and_bytes();
    test_fixed_and_f64();
    test_strings();
    test_crc_and_growth();
    CHECK_DONE();
}

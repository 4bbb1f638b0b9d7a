/* libFuzzer target for the histogram decoder and base64: rank 0 decodes
 * bytes it did not produce, so no input may crash it, and whatever it accepts
 * must survive a re-encode unchanged.
 *
 * Build and run (from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_codec.c \
 *       src/census/hist.c src/util/wire.c src/census/codec.c src/util/err.c -lz -o build/fuzz_codec
 *   build/fuzz_codec -max_total_time=60 tests/fuzz/corpus/codec
 *
 * The first input byte picks a mode, so the fuzzer reaches past the CRC and
 * the zlib checksum into the body parser:
 *   0: the rest is an encoded histogram, decoded as is;
 *   1: the rest is a raw body, wrapped in a valid envelope then decoded, and
 *      an accepted body must re-encode to the very same bytes (canonical);
 *   2: the rest is a base64 string; an accepted one must re-encode to itself.
 * Any other first byte behaves like 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "census/codec.h"

static void check_hist(const gc_hist *h)
{
    if (h->total && (gc_hist_quantile(h, 0.0) != h->min || gc_hist_quantile(h, 1.0) != h->max))
        abort();
    uint64_t med = gc_hist_quantile(h, 0.5);
    if (h->total && (med < h->min || med > h->max))
        abort();
}

/* Decodes, re-encodes, decodes again: the two histograms must be equal.
 * Returns the body of the re-encoding (caller frees) through body_out. */
static void roundtrip(const uint8_t *data, size_t len, uint8_t **body_out, size_t *body_len)
{
    gc_hist a, b;
    gc_err err;
    *body_out = NULL;
    if (gc_hist_decode(data, len, &a, &err) != GC_OK) {
        if (err.code == GC_OK || err.msg[0] == '\0')
            abort();   /* failures must say why */
        gc_hist_free(&a);
        return;
    }
    check_hist(&a);
    gc_wbuf w = {0};
    if (gc_hist_encode(&a, &w, &err) != GC_OK)
        abort();
    if (gc_hist_decode(w.data, w.len, &b, &err) != GC_OK || !gc_hist_equal(&a, &b))
        abort();
    uint32_t raw_len = (uint32_t)w.data[4] | (uint32_t)w.data[5] << 8 |
                       (uint32_t)w.data[6] << 16 | (uint32_t)w.data[7] << 24;
    if (gc_inflate(w.data + 12, w.len - 12, raw_len, GC_CODEC_MAX_RAW, body_out, &err))
        abort();
    *body_len = raw_len;
    gc_wbuf_free(&w);
    gc_hist_free(&a);
    gc_hist_free(&b);
}

static void fuzz_encoded(const uint8_t *data, size_t len)
{
    uint8_t *body;
    size_t body_len;
    roundtrip(data, len, &body, &body_len);
    free(body);
}

static void fuzz_body(const uint8_t *data, size_t len)
{
    gc_wbuf env = {0};
    gc_put_bytes(&env, "GCH", 3);
    gc_put_u8(&env, GC_CODEC_VERSION);
    gc_put_u32le(&env, (uint32_t)len);
    gc_put_u32le(&env, gc_crc32(data, len));
    if (gc_deflate(data, len, &env, NULL) != GC_OK)
        abort();
    uint8_t *body;
    size_t body_len;
    roundtrip(env.data, env.len, &body, &body_len);
    if (body && (body_len != len || memcmp(body, data, len) != 0))
        abort();   /* accepted a non-canonical body */
    free(body);
    gc_wbuf_free(&env);
}

static void fuzz_base64(const uint8_t *data, size_t len)
{
    char *s = malloc(len + 1);
    memcpy(s, data, len);
    s[len] = '\0';
    uint8_t *out;
    size_t out_len;
    gc_err err;
    if (gc_base64_decode(s, &out, &out_len, &err) == GC_OK) {
        char *again = gc_base64_encode(out, out_len);
        if (!again || strcmp(again, s) != 0)
            abort();
        free(again);
        fuzz_encoded(out, out_len);
        free(out);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len == 0)
        return 0;
    switch (data[0]) {
    case 1:  fuzz_body(data + 1, len - 1); break;
    case 2:  fuzz_base64(data + 1, len - 1); break;
    default: fuzz_encoded(data + 1, len - 1); break;
    }
    return 0;
}

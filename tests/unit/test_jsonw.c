/* The streaming JSON writer: reals as %.10g (with ".0" on integral values,
 * exponents without '+' or leading zeros, null for NaN and infinities),
 * escaped strings, members left out when not UTF-8, nesting and commas. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/g10.h"
#include "util/jsonw.h"

static char out[1 << 16];

/* Run f on a writer over a memory file; the text lands in out. */
#define WRITE(...)                                                            \
    do {                                                                      \
        FILE *f_ = fmemopen(out, sizeof out, "w");                            \
        static char buf_[GC_JW_BUF];                                          \
        gc_jw w_;                                                             \
        gc_jw_init(&w_, f_, buf_, 0);                                         \
        gc_jw *w = &w_;                                                       \
        __VA_ARGS__;                                                          \
        gc_jw_flush(w);                                                       \
        fclose(f_);                                                           \
    } while (0)

static void expect_real(double v)
{
    char ref[64];
    snprintf(ref, sizeof ref, "%.10g", v);
    if (!strchr(ref, '.') && !strchr(ref, 'e') && !strchr(ref, 'n') && !strchr(ref, 'i'))
        strcat(ref, ".0");
    char *e = strchr(ref, 'e');
    if (e) {
        char t[64];
        int ex = atoi(e + 1);
        *e = '\0';
        snprintf(t, sizeof t, "%se%d", ref, ex);
        strcpy(ref, t);
    }
    WRITE(gc_jw_real(w, v));
    CHECK(strcmp(out, ref) == 0, "%.17g: wrote %s, printf says %s", v, out, ref);
}

int main(void)
{
    double fixed[] = { 0, 1, -1, 0.5, 1e-4, 9.999999999e-5, 1e10, 9999999999.4, 12345.678901234,
                       3.352320000e12, 32.09, 0.1, 1e-300, -2.5e-7, 474734.06254999997 };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        expect_real(fixed[i]);
    srand(7);
    int before = check_failed;
    for (int i = 0; i < 200000 && check_failed - before < 5; i++) {
        double v = (double)rand() / RAND_MAX * pow(10, rand() % 16 - 5);
        expect_real(rand() % 2 ? v : -v);
    }
    /* exponents past the fixed range: 1e-13..1e31 without printf (g10.c) */
    for (int i = 0; i < 200000 && check_failed - before < 5; i++) {
        double v = (double)rand() / RAND_MAX * pow(10, rand() % 48 - 16);
        expect_real(rand() % 2 ? v : -v);
    }
    double edges[] = { 1e-13, 9.9999999995e-14, 1e31, 9.9999999995e30, 5.0000000005e12, 12345678905e10,
                       99999999995, 1e22, 1e-5, 2.5e-7, 1.7976931348623157e308, 4.9e-324 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        expect_real(edges[i]);
    /* gc_g10_round is strtod of %.10g, bit for bit */
    for (int i = 0; i < 300000 && check_failed - before < 5; i++) {
        double v = (double)rand() / RAND_MAX * pow(10, rand() % 60 - 25);
        v = rand() % 2 ? v : -v;
        char b[40];
        snprintf(b, sizeof b, "%.10g", v);
        double want = strtod(b, NULL), got = gc_g10_round(v);
        CHECK(memcmp(&want, &got, sizeof got) == 0, "round %.17g: %.17g, strtod says %.17g", v, got, want);
    }
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        char b[40];
        snprintf(b, sizeof b, "%.10g", edges[i]);
        double want = strtod(b, NULL), got = gc_g10_round(edges[i]);
        CHECK(memcmp(&want, &got, sizeof got) == 0, "round %.17g: %.17g, strtod says %.17g", edges[i], got,
              want);
    }
    long long ints[] = { 0, 7, -7, 10, -10, 123456789012345LL, -9223372036854775807LL - 1, 9223372036854775807LL };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char ref[32];
        snprintf(ref, sizeof ref, "%lld", ints[i]);
        WRITE(gc_jw_int(w, ints[i]));
        CHECK(strcmp(out, ref) == 0, "int %s: wrote %s", ref, out);
    }
    WRITE(gc_jw_real(w, NAN));
    CHECK(strcmp(out, "null") == 0, "NaN -> %s", out);
    WRITE(gc_jw_real(w, -INFINITY));
    CHECK(strcmp(out, "null") == 0, "-inf -> %s", out);

    WRITE(gc_jw_string(w, "a\"b\\c\n\x01"));
    CHECK(strcmp(out, "\"a\\\"b\\\\c\\n\\u0001\"") == 0, "escapes: %s", out);

    WRITE({
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "a", "x");
        gc_jw_kstr(w, "bad", "\xff\xfe");   /* not UTF-8: member left out */
        gc_jw_kint(w, "n", 3);
        gc_jw_key(w, "l");
        gc_jw_open(w, "[");
        gc_jw_next(w), gc_jw_int(w, 1);
        gc_jw_next(w), gc_jw_real(w, 2.5);
        gc_jw_close(w, "]");
        gc_jw_key(w, "e");
        gc_jw_open(w, "[");
        gc_jw_close(w, "]");
        gc_jw_close(w, "}");
    });
    CHECK(strcmp(out, "{\n \"a\": \"x\",\n \"n\": 3,\n \"l\": [\n  1,\n  2.5\n ],\n \"e\": []\n}") == 0,
          "object: %s", out);
    CHECK_DONE();
}
